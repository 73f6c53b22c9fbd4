//! Navigation and history, with `beforeunload` handled as the findings describe (§3).
//!
//! Sessions ask for `unhandledPromptBehavior: {"default":"ignore","beforeUnload":"ignore"}`,
//! so a `beforeunload` prompt stays open instead of being accepted silently:
//! - Chromium: `Navigate To` (and `Refresh`) answers at once without navigating, and the
//!   prompt is open;
//! - Firefox: `Navigate To` blocks until the page-load timeout. Firefox navigations therefore
//!   first wait at most [`FIREFOX_PROMPT_PROBE`], look for a prompt, and then keep waiting for
//!   the page up to the call's own timeout.
//!
//! What happens to a prompt found this way is the caller's [`LeavePrompt`]: `browser_navigate`
//! accepts it when asked to discard (`beforeunload: "discard"`) and awaits the navigation, and
//! otherwise dismisses it, so the page stays as it was, answering
//! [`PortErrorKind::BlockedByDialog`] with effect none. A history move (which has no discard
//! option) leaves it open and answers [`PortError::blocked_by`] the leave-page dialog: the
//! caller resolves it with `browser_dialog`, and accepting it lets the move go on.
//!
//! A page that does not load (no such host, refused connection, TLS rejected, a port the
//! browser keeps closed) answers [`PortErrorKind::Network`]: both engines then show their own
//! error page, whose code a probe reads after the navigation command.
//!
//! Reload with `bypass_cache`: Chromium uses the DevTools `Page.reload {ignoreCache: true}`;
//! Firefox has no WebDriver or DevTools equivalent here, so it runs Firefox's non-standard
//! `location.reload(true)` (`forceGet`), which Firefox documents as reloading from the server.

use std::time::Duration;

use ghostlight_core::port::Readiness;
use ghostlight_core::port::{
    DialogKind, HistoryMove, NavigateInput, NetworkFailure, PageState, PortError, PortErrorKind, PortResult,
    TabRef,
};
use serde_json::{Value, json};
use tokio::time::Instant;
use url::Url;

use crate::commands::SessionCommand;
use crate::config::Engine;
use crate::errors::{self, Sent};
use crate::session::Session;
use crate::watch::prompts::Move;

use super::dialogs;

/// How long a Firefox navigation waits before it looks for a `beforeunload` prompt.
pub(crate) const FIREFOX_PROMPT_PROBE: Duration = Duration::from_secs(2);
/// Pause between two page-state polls while a navigation finishes.
const LOAD_POLL_INTERVAL: Duration = Duration::from_millis(100);
/// One page-state poll may take this long while a navigation is in flight.
const POLL_SCRIPT_TIMEOUT: Duration = Duration::from_secs(2);

/// What the navigation command itself waited for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// The command waits for the page to load (Navigate To, Back, Forward, Refresh).
    Load,
    /// The command only starts a reload (DevTools or script): wait for a new document.
    NewDocument,
}

/// Navigate `tab` to `input.url`.
pub(crate) async fn navigate(
    s: &mut Session,
    tab: &TabRef,
    input: &NavigateInput,
    timeout: Duration,
) -> PortResult<PageState> {
    s.tab(tab).await?;
    go(s, &input.url, timeout, input.discard_beforeunload).await
}

/// What a navigation does with a leave-page (`beforeunload`) prompt it raises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LeavePrompt {
    /// Accept it (discard the page's unsaved changes) and go on.
    Accept,
    /// Dismiss it: the page stays, the navigation answers `BlockedByDialog`.
    Dismiss,
    /// Leave it open for the caller to resolve; the navigation answers `BlockedByDialog`
    /// naming the leave-page dialog.
    Keep,
}

impl LeavePrompt {
    /// Accept when the caller asked to discard, else dismiss.
    pub(crate) fn discarding(discard: bool) -> Self {
        if discard { LeavePrompt::Accept } else { LeavePrompt::Dismiss }
    }
}

/// Navigate the current tab (already switched to) to `url` within `timeout`.
pub(crate) async fn go(
    s: &mut Session,
    url: &Url,
    timeout: Duration,
    discard: bool,
) -> PortResult<PageState> {
    let prompt = LeavePrompt::discarding(discard);
    let deadline = Instant::now() + timeout;
    let before = page_before(s).await?;
    // The landing read looks for a gate too (no read of its own).
    s.detect_gates(true);
    let landed = go_from(s, url, &before, deadline, timeout, prompt).await;
    s.detect_gates(false);
    landed
}

/// The current tab's page before a navigation or history move: the one the command just
/// sent read (the executor's own read of the page it authorized, same window, no command
/// since: [`Session::noted_page`]), else read now.
async fn page_before(s: &mut Session) -> PortResult<PageState> {
    match s.noted_page() {
        Some((_, page)) => Ok(page),
        None => s.page_state().await,
    }
}

/// [`go`] from the page `before`, once read.
async fn go_from(
    s: &mut Session,
    url: &Url,
    before: &PageState,
    deadline: Instant,
    timeout: Duration,
    prompt: LeavePrompt,
) -> PortResult<PageState> {
    s.set_page_load_timeout(first_wait(s.engine(), timeout)).await?;
    let sent = if s.is_seated() {
        let params = json!({ "url": url.as_str(), "wait": "complete" });
        seated_load(s, "browsingContext.navigate", params, first_wait(s.engine(), timeout)).await
    } else {
        s.command(SessionCommand::navigate(url), Sent::Act).await.map(drop)
    };
    let settled = match settle(s, before, sent, deadline, prompt, Expect::Load).await {
        // Firefox's transient `about:blank` between two documents is not a web destination:
        // wait past it, within the call's deadline.
        Ok(page) if page.url.as_str() == "about:blank" && url.as_str() != "about:blank" => {
            wait_for_page(s, &page, deadline, prompt).await
        }
        other => other,
    };
    // Out of time, but the destination's document committed (its load event is still
    // pending: a slow image, a response that never ends): that document is the landing, and
    // the tab stays controlled with `readiness: loading`.
    let settled = match settled {
        Err(error) if error.kind() == PortErrorKind::Timeout => match committed(s, before).await {
            Some(page) => Ok(page),
            None => Err(error),
        },
        other => other,
    };
    // A navigation (or a redirect hop of it) the network filter refused ends on the
    // browser's error page or the filter's refusal page for the refused host: not a failure
    // of the page, but a refusal; the tab goes back to what it showed.
    let landed = match &settled {
        Ok(page) => Some(page.clone()),
        Err(error) if error.kind() == PortErrorKind::Other => s.page_state().await.ok(),
        Err(_) => None,
    };
    if let Some(page) = landed
        && s.landed_on_refused(&page.url)
    {
        return keep_document(s, before, page, deadline).await;
    }
    match settled {
        // Chromium shows some failures (a blocked port) as a loaded error page, which the
        // page read that ended the wait recognised: only then is the code probed.
        Ok(page) if !s.read_error_page() => Ok(page),
        Ok(page) => match load_failure(s).await {
            Some(failure) => Err(PortError::network(failure)),
            None => Ok(page),
        },
        // Chromium answers `net::ERR_…` and Firefox `Reached error page` as unknown errors.
        Err(error) if error.kind() == PortErrorKind::Other => match load_failure(s).await {
            Some(failure) => Err(PortError::network(failure)),
            None => Err(error),
        },
        Err(error) => Err(error),
    }
}

/// How long a navigation that ran out of time may still take to tell whether its document
/// committed (within the adapter's call grace).
const COMMIT_PROBE: Duration = Duration::from_millis(500);

/// The current tab's page when a document other than `before` committed there (a web page,
/// not Firefox's transient `about:blank`), read within [`COMMIT_PROBE`].
/// Its readiness is `loading` whatever the document says: the navigation did not finish in
/// time (Chromium's driver stops the load at its timeout, and the document it kept then reads
/// `complete`, though it may be cut short).
async fn committed(s: &mut Session, before: &PageState) -> Option<PageState> {
    let mut page = tokio::time::timeout(COMMIT_PROBE, s.page_state()).await.ok()?.ok()?;
    page.readiness = Readiness::Loading;
    (page.document != before.document && page.url.scheme() != "about").then_some(page)
}

/// How long taking the tab back after a refused navigation may take at most (within the
/// call's deadline).
const RESTORE_WAIT: Duration = Duration::from_secs(5);

/// After a navigation ended on a host the network filter refused (`after`: the browser's
/// error page, or the filter's refusal page, for that host; see
/// [`Session::landed_on_refused`]), take the tab back to the document it showed (`before`):
/// one step back in its history, or, for a tab that showed nothing yet, `about:blank` again.
/// A back-forward cache may restore the very same document, so the wait is for its URL, not
/// for a new document. Answers the page as it then is (as it was left, when going back fails
/// or runs out of time).
pub(crate) async fn keep_document(
    s: &mut Session,
    before: &PageState,
    after: PageState,
    deadline: Instant,
) -> PortResult<PageState> {
    if after.url == before.url {
        return Ok(after);
    }
    let until = deadline.min(Instant::now() + RESTORE_WAIT);
    // A tab that shows a blank page has no refused document to step back from: it loads
    // its page again.
    let sent = if before.url.scheme() == "about" || after.url.scheme() == "about" {
        s.command(SessionCommand::navigate(&before.url), Sent::Act).await.map(drop)
    } else {
        s.client().back().await.map_err(|e| errors::cmd(&e, Sent::Act))
    };
    if sent.is_err() {
        return Ok(after);
    }
    loop {
        let page = s.page_state().await;
        match page {
            Ok(page) if page.url == before.url && page.readiness == Readiness::Complete => return Ok(page),
            Ok(page) if Instant::now() >= until => return Ok(page),
            Err(_) if Instant::now() >= until => return Ok(after),
            _ => tokio::time::sleep(LOAD_POLL_INTERVAL).await,
        }
    }
}

/// The browser's error page's code, when the current tab shows one instead of the site.
async fn load_failure(s: &mut Session) -> Option<NetworkFailure> {
    let script = format!("return ({})();", LOAD_FAILURE_FN.trim_end());
    match s.execute(&script, Vec::new(), Sent::Read).await {
        Ok(Value::String(code)) => Some(ghostlight_page::load_failure::network_failure(&code)),
        _ => None,
    }
}

/// The probe that reads a browser error page's code (see the script's header).
const LOAD_FAILURE_FN: &str = ghostlight_page::scripts::LOAD_FAILURE_FN;

/// Move through `tab`'s history or reload it. A back or forward that leaves the page as it
/// was (no entry in that direction) answers [`PortErrorKind::InvalidInput`].
pub(crate) async fn history(
    s: &mut Session,
    tab: &TabRef,
    step: HistoryMove,
    timeout: Duration,
) -> PortResult<PageState> {
    s.tab(tab).await?;
    let deadline = Instant::now() + timeout;
    let before = page_before(s).await?;
    // The landing read looks for a gate too (no read of its own).
    s.detect_gates(true);
    let moved = move_from(s, step, &before, deadline, timeout).await;
    s.detect_gates(false);
    moved
}

/// [`history`] from the page `before`, once read.
async fn move_from(
    s: &mut Session,
    step: HistoryMove,
    before: &PageState,
    deadline: Instant,
    timeout: Duration,
) -> PortResult<PageState> {
    if s.is_seated()
        && let Some((method, params)) = seated_history(step)
    {
        s.set_page_load_timeout(first_wait(s.engine(), timeout)).await?;
        let moved_before = s.moved();
        let mut sent = seated_load(s, method, params, first_wait(s.engine(), timeout)).await;
        let mut expect = Expect::Load;
        if sent.is_ok() && matches!(step, HistoryMove::Back | HistoryMove::Forward) {
            // `traverseHistory` answers before the move raises its leave-page prompt or
            // starts loading: wait for one of the two, so no classic command meets the prompt.
            (sent, expect) = match s.await_move(moved_before, deadline).await {
                Ok(Move::Document) => (Ok(()), Expect::NewDocument),
                Ok(Move::Fragment) => (Ok(()), Expect::Load),
                Err(error) => (Err(error), Expect::Load),
            };
        }
        let page = settle(s, before, sent, deadline, LeavePrompt::Keep, expect).await?;
        return no_entry_unless_moved(step, before, page);
    }
    s.set_page_load_timeout(first_wait(s.engine(), timeout)).await?;
    let act = |e: fantoccini::error::CmdError| errors::cmd(&e, Sent::Act);
    let (sent, expect) = match step {
        HistoryMove::Back => (s.client().back().await.map_err(act), Expect::Load),
        HistoryMove::Forward => (s.client().forward().await.map_err(act), Expect::Load),
        HistoryMove::Reload { bypass_cache: false } => {
            (s.client().refresh().await.map_err(act), Expect::Load)
        }
        HistoryMove::Reload { bypass_cache: true } => {
            let sent = match s.engine() {
                Engine::Chromium => {
                    s.cdp("Page.reload", json!({ "ignoreCache": true }), Sent::Act).await.map(drop)
                }
                Engine::Firefox => s
                    .execute("setTimeout(() => location.reload(true), 0);", Vec::new(), Sent::Act)
                    .await
                    .map(drop),
            };
            (sent, Expect::NewDocument)
        }
    };
    let page = settle(s, before, sent, deadline, LeavePrompt::Keep, expect).await?;
    no_entry_unless_moved(step, before, page)
}

/// A loading navigation command of a session in a shared browser, over BiDi (see
/// [`Session::window_command_over_bidi`]), waiting for the load within `wait`. A load that runs out
/// of time is stopped (over BiDi: chromedriver holds every classic command, DevTools ones
/// included, behind a pending load), as chromedriver stops one at its page-load timeout, so
/// the classic reads that follow see the document as it is.
async fn seated_load(s: &mut Session, method: &str, params: Value, wait: Duration) -> PortResult<()> {
    let sent = s.window_command_over_bidi(method, params, wait).await;
    if sent.as_ref().is_err_and(|error| error.kind() == PortErrorKind::Timeout) {
        let _ = s.stop_loading_over_bidi().await;
    }
    sent
}

/// The BiDi command of a history move of a session in a shared browser (see
/// [`Session::window_command_over_bidi`]); `None` for a reload that bypasses the cache, which goes
/// through DevTools as ever.
fn seated_history(step: HistoryMove) -> Option<(&'static str, Value)> {
    match step {
        HistoryMove::Back => Some(("browsingContext.traverseHistory", json!({ "delta": -1 }))),
        HistoryMove::Forward => Some(("browsingContext.traverseHistory", json!({ "delta": 1 }))),
        HistoryMove::Reload { bypass_cache: false } => {
            Some(("browsingContext.reload", json!({ "wait": "complete" })))
        }
        HistoryMove::Reload { bypass_cache: true } => None,
    }
}

/// `page`, unless a move back or forward left the same document where it was: there was no
/// history entry in that direction.
fn no_entry_unless_moved(step: HistoryMove, before: &PageState, page: PageState) -> PortResult<PageState> {
    if matches!(step, HistoryMove::Back | HistoryMove::Forward)
        && page.document == before.document
        && page.url == before.url
    {
        return Err(PortError::new(
            PortErrorKind::InvalidInput,
            "there is no history entry in that direction",
        ));
    }
    Ok(page)
}

/// The page-load timeout of the navigation command itself.
fn first_wait(engine: Engine, timeout: Duration) -> Duration {
    match engine {
        Engine::Chromium => timeout,
        Engine::Firefox => timeout.min(FIREFOX_PROMPT_PROBE),
    }
}

/// After a navigation command: handle a `beforeunload` prompt, then wait for the page. A
/// command that answered a finished load is followed by one page read (a dialog the new page
/// opened shows there); only a command that did not finish is probed for a prompt first.
async fn settle(
    s: &mut Session,
    before: &PageState,
    sent: PortResult<()>,
    deadline: Instant,
    prompt: LeavePrompt,
    expect: Expect,
) -> PortResult<PageState> {
    let waiting = match sent {
        Ok(()) => expect == Expect::NewDocument,
        // Firefox's blocked navigation, a slow page, or a prompt that raced the command.
        Err(e) if matches!(e.kind(), PortErrorKind::Timeout | PortErrorKind::BlockedByDialog) => true,
        Err(e) => return Err(e),
    };
    if waiting && dialogs::probe(s).await?.is_some() {
        handle_prompt(s, prompt).await?;
    }
    if !waiting {
        match s.page_state().await {
            Err(e) if e.kind() == PortErrorKind::BlockedByDialog => {
                handle_prompt(s, prompt).await?;
            }
            other => return other,
        }
    }
    wait_for_page(s, before, deadline, prompt).await
}

/// A dialog is open after a navigation command. A `beforeunload` prompt is handled as
/// `prompt` says: accepted, dismissed (answering `BlockedByDialog`, effect none) or kept open
/// (answering `BlockedByDialog` naming it, effect none); any other dialog was opened by a page
/// and blocks the navigation's outcome (effect unknown).
async fn handle_prompt(s: &mut Session, prompt: LeavePrompt) -> PortResult<()> {
    match dialogs::probe(s).await? {
        None => Ok(()),
        Some(Some(DialogKind::BeforeUnload)) => match prompt {
            LeavePrompt::Accept => s.answer_current_prompt(true).await,
            LeavePrompt::Dismiss => {
                s.answer_current_prompt(false).await?;
                Err(PortError::new(
                    PortErrorKind::BlockedByDialog,
                    "a beforeunload prompt stopped the navigation; it was dismissed and the page stayed",
                ))
            }
            LeavePrompt::Keep => Err(PortError::blocked_by(
                DialogKind::BeforeUnload,
                "a beforeunload prompt holds the navigation; it is open for the caller to resolve",
            )),
        },
        Some(_) => {
            Err(PortError::new(PortErrorKind::BlockedByDialog, "a dialog opened while the page loaded")
                .effect_unknown())
        }
    }
}

/// Poll the page state until the document is complete and (when a navigation is pending)
/// new, or until `deadline` ([`PortErrorKind::Timeout`], effect unknown).
pub(crate) async fn wait_for_page(
    s: &mut Session,
    before: &PageState,
    deadline: Instant,
    prompt: LeavePrompt,
) -> PortResult<PageState> {
    wait_for_page_to(s, before, deadline, prompt, None).await
}

/// [`wait_for_page`] for a navigation toward `destination` (when known). A navigation whose
/// document request the network filter refused never commits (the tab keeps its document):
/// the wait ends at once with the page as it is.
pub(crate) async fn wait_for_page_to(
    s: &mut Session,
    before: &PageState,
    deadline: Instant,
    prompt: LeavePrompt,
    destination: Option<&Url>,
) -> PortResult<PageState> {
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(PortError::new(PortErrorKind::Timeout, "the page did not finish loading in time")
                .effect_unknown());
        }
        s.set_script_timeout(remaining.min(POLL_SCRIPT_TIMEOUT)).await?;
        match s.page_state().await {
            Ok(page) if page.readiness == Readiness::Complete && page.document != before.document => {
                return Ok(page);
            }
            Ok(page) if s.navigation_refused(destination) => return Ok(page),
            Ok(_) => {}
            Err(e) if e.kind() == PortErrorKind::BlockedByDialog => handle_prompt(s, prompt).await?,
            Err(e) if e.is_connection_lost() || e.kind() == PortErrorKind::TabGone => {
                return Err(e.effect_unknown());
            }
            // Scripts fail while one document unloads and the next one starts.
            Err(_) => {}
        }
        tokio::time::sleep(LOAD_POLL_INTERVAL.min(remaining)).await;
    }
}
