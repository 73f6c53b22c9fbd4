//! Tabs: list, open, focus, close, and the page state of one tab.

use std::time::Duration;

use ghostlight_core::port::Readiness;
use ghostlight_core::port::{
    Focused, NavigateInput, OpenedTab, PageState, PortErrorKind, PortResult, TabInfo, TabRef,
};

use serde_json::json;

use crate::bidi::Bidi;
use crate::errors::{self, Sent};
use crate::page;
use crate::session::Session;
use crate::watch::prompts::PromptWatch;

use super::navigation;

/// Every window in creation order with its page state. `active` marks the tab most
/// recently opened or focused through the adapter that is still open (or, failing that, the
/// driver's current window, or the first). A tab a dialog blocks answers its last known page with readiness
/// `unknown`.
///
/// Over WebDriver BiDi (the session's connection) the windows are listed in one
/// message (`browsingContext.getTree`) and each page is read where it is (`script.callFunction`
/// in its own realm, every tab at once): no window switches, one message per tab. A tab BiDi cannot read in
/// [`BIDI_TAB_READ`] (a dialog holds its page, Chromium's error page) is read as before:
/// switched to, through classic WebDriver.
pub(crate) async fn tabs(s: &mut Session) -> PortResult<Vec<TabInfo>> {
    if let Some(contexts) = top_contexts(s).await {
        return list(s, contexts, true).await;
    }
    let handles = s.windows().await?;
    list(s, handles, false).await
}

/// The tabs of `handles`, each read over BiDi first when `in_place` (every tab at once, see
/// [`read_in_place`]), else (or when BiDi cannot tell) switched to and read.
async fn list(s: &mut Session, handles: Vec<String>, in_place: bool) -> PortResult<Vec<TabInfo>> {
    let active = pick_active(s, &handles);
    let mut read = if in_place { read_in_place(s, &handles).await } else { Vec::new() };
    read.resize(handles.len(), None);
    let mut listed = Vec::with_capacity(handles.len());
    for (handle, read) in handles.iter().zip(read) {
        let page = match read {
            Some(page) => page,
            None => match read_switched(s, handle).await? {
                Some(page) => page,
                None => continue,
            },
        };
        listed.push(TabInfo {
            tab: s.tab_ref(handle),
            page,
            active: active.as_deref() == Some(handle.as_str()),
        });
    }
    if let Some(active) = active {
        // Leave the driver on the active tab, as a person would see it.
        match s.switch_to(&active).await {
            Err(e) if e.is_connection_lost() => return Err(e),
            _ => {}
        }
    }
    Ok(listed)
}

/// How long reading one tab's page over BiDi may take before it is read through classic
/// WebDriver instead.
const BIDI_TAB_READ: Duration = Duration::from_secs(2);

/// The top-level browsing contexts (window handles) in the browser's order, over BiDi; `None`
/// without a BiDi connection.
async fn top_contexts(s: &mut Session) -> Option<Vec<String>> {
    let bidi = s.bidi()?;
    let tree = bidi.command("browsingContext.getTree", json!({ "maxDepth": 0 })).await.ok()?;
    tree.get("contexts")?.as_array()?;
    Some(s.without_sentinel(crate::rescue::top_contexts_of(&tree, s.user_context())))
}

/// How many tabs are read over BiDi at once: the reads go out together, so a list of many
/// tabs costs about one read's time, without flooding the connection.
const BIDI_TAB_READS_AT_ONCE: usize = 8;

/// The pages of windows `handles`, read over BiDi in each page's realm, [`BIDI_TAB_READS_AT_ONCE`]
/// at a time, in `handles`' order; `None` for a window BiDi cannot
/// tell (a dialog is open there, the read failed or ran out of time, Chromium's error page).
async fn read_in_place(s: &mut Session, handles: &[String]) -> Vec<Option<PageState>> {
    let read = {
        let Some(bidi) = s.bidi() else { return Vec::new() };
        let prompts = s.prompts();
        let mut read = Vec::with_capacity(handles.len());
        for some in handles.chunks(BIDI_TAB_READS_AT_ONCE) {
            let reads = some.iter().map(|handle| read_one_in_place(bidi, prompts, handle));
            read.extend(futures::future::join_all(reads).await);
        }
        read
    };
    for (handle, state) in handles.iter().zip(&read) {
        if let Some(state) = state {
            s.remember_page_of(handle, state);
        }
    }
    read
}

/// Window `handle`'s page, read over BiDi in the page's realm (see [`read_in_place`]).
async fn read_one_in_place(bidi: &Bidi, prompts: Option<&PromptWatch>, handle: &str) -> Option<PageState> {
    if prompts.is_some_and(|watch| watch.kind(handle).is_some()) {
        return None;
    }
    let params = json!({
        "functionDeclaration": page::state_function(),
        "arguments": [],
        "target": { "context": handle },
        "awaitPromise": false,
        "resultOwnership": "none",
    });
    let answer = bidi.command_within("script.callFunction", params, BIDI_TAB_READ).await.ok()?;
    let state = page::parse_state(page::state_answer(&answer)?).ok()?;
    if state.url.scheme() == "chrome-error" {
        return None;
    }
    Some(state)
}

/// Window `handle`'s page, switched to and read through classic WebDriver; `None` when the
/// window closed meanwhile. A dialog that blocks the read answers the last known page.
async fn read_switched(s: &mut Session, handle: &str) -> PortResult<Option<PageState>> {
    match s.switch_to(handle).await {
        Err(e) if e.kind() == PortErrorKind::TabGone => return Ok(None),
        other => other?,
    }
    match s.page_state().await {
        Ok(page) => Ok(Some(page)),
        Err(e) if e.kind() == PortErrorKind::TabGone => Ok(None),
        Err(e) if e.kind() == PortErrorKind::BlockedByDialog => match s.last_page(handle) {
            Some(last) => Ok(Some(PageState { readiness: Readiness::Unknown, gate: None, ..last.clone() })),
            None => Err(e),
        },
        Err(e) => Err(e),
    }
}

/// The active tab among `handles`: the most recently opened or focused one still open (so
/// closing the active tab gives the activity back to the tab active before it), else the
/// driver's current window, else the first.
fn pick_active(s: &Session, handles: &[String]) -> Option<String> {
    let open = |h: &str| handles.iter().any(|x| x == h);
    s.recent_tabs()
        .find(|h| open(h))
        .or_else(|| s.current().filter(|h| open(h)))
        .map(str::to_owned)
        .or_else(|| handles.first().cloned())
}

/// Open a tab, switch to it and navigate it. A failed navigation closes the new tab again
/// (best effort) and answers the navigation's error.
pub(crate) async fn open_tab(
    s: &mut Session,
    input: &NavigateInput,
    timeout: Duration,
) -> PortResult<OpenedTab> {
    // A seated session's first tab is a new tab, and the blank window its seat came with is
    // closed once that tab shows its page (one window a session; a page in a tab opened later
    // runs faster under load than one in that first window: BENCHMARKS.md, "One window a
    // session"). A first window seen showing a page is kept.
    if let Some(first) = s.take_untouched_first()
        && s.last_page(&first).is_none_or(|page| page.url.as_str() == "about:blank")
    {
        return match open_new_tab(s, input, timeout).await {
            Ok(opened) => {
                if let Some(bidi) = s.bidi() {
                    let closed = bidi.command("browsingContext.close", json!({ "context": first })).await;
                    if closed.is_ok() {
                        s.forget_tab(&first);
                    }
                }
                Ok(opened)
            }
            Err(error) => {
                s.restore_untouched_first(first);
                Err(error)
            }
        };
    }
    open_new_tab(s, input, timeout).await
}

/// Open a new window, switch to it and navigate it; a failed navigation closes it again.
async fn open_new_tab(s: &mut Session, input: &NavigateInput, timeout: Duration) -> PortResult<OpenedTab> {
    // New Window needs a current window: after a tab was closed (past the driver) the driver
    // has none until it is switched to a live one, and one its page closed is gone.
    if s.current().is_none() {
        to_a_live_window(s).await?;
    }
    let handle = match new_window(s).await {
        Err(e) if e.kind() == PortErrorKind::TabGone => {
            s.forget_current();
            to_a_live_window(s).await?;
            new_window(s).await?
        }
        opened => opened?,
    };
    s.know_window(&handle);
    s.switch_to(&handle).await?;
    s.set_active(&handle);
    match navigation::go(s, &input.url, timeout, input.discard_beforeunload).await {
        Ok(page) => Ok(OpenedTab { tab: s.tab_ref(&handle), page }),
        Err(error) => {
            if !error.is_connection_lost() && s.switch_to(&handle).await.is_ok() {
                let _ = s.client().close_window().await;
                s.forget_current();
                s.forget_tab(&handle);
            }
            Err(error)
        }
    }
}

/// Select `tab` (Switch To Window, which also brings the tab to the front of its window).
/// The operating-system focus is reported only for a headed browser, as
/// `document.hasFocus()` sees it.
pub(crate) async fn focus_tab(s: &mut Session, tab: &TabRef) -> PortResult<Focused> {
    // Always send the switch, even when the driver is already on this window: the page may
    // have brought another tab to the front meanwhile.
    s.forget_current();
    let handle = s.tab(tab).await?;
    s.set_active(&handle);
    if s.headless() {
        return Ok(Focused { window_focused: false });
    }
    let focused = s.execute("return document.hasFocus();", Vec::new(), Sent::Read).await;
    Ok(Focused { window_focused: matches!(focused, Ok(serde_json::Value::Bool(true))) })
}

/// A new blank window, opened from the current one.
async fn new_window(s: &mut Session) -> PortResult<String> {
    match s.new_tab().await {
        // The current tab's dialog keeps classic WebDriver from opening a tab (an endless
        // dialog loop would keep it so): the browser opens one through the second channel.
        Err(e) if e.kind() == PortErrorKind::BlockedByDialog => s.open_past_driver().await.map_err(|_| e),
        opened => opened,
    }
}

/// Switch the driver to the session's first live window, or to its sentinel when it has no
/// tab left (nothing to switch to otherwise).
async fn to_a_live_window(s: &mut Session) -> PortResult<()> {
    let windows = s.windows().await?;
    match windows.into_iter().next().or_else(|| s.sentinel().map(str::to_owned)) {
        Some(live) => s.switch_to(&live).await,
        None => Ok(()),
    }
}

/// Close `tab` ([`PortErrorKind::TabGone`] when it is already closed). Closing the last
/// window would end the WebDriver session, so without a sentinel window
/// ([`Session::sentinel`]) a blank tab is opened first in that case.
/// Afterwards the driver is switched to the active tab, or the last remaining one.
///
/// A tab whose dialog keeps classic WebDriver from closing it (an endless `alert()` loop
/// reopens the dialog as soon as it is answered) is closed through the second channel
/// (`rescue.rs`), with no unload prompt.
pub(crate) async fn close_tab(s: &mut Session, tab: &TabRef) -> PortResult<()> {
    let handle = s.tab(tab).await?;
    let windows = s.windows().await?;
    if windows.len() <= 1 && s.sentinel().is_none() {
        match s.new_tab().await {
            Ok(_) => {}
            Err(e) if e.kind() == PortErrorKind::BlockedByDialog => {
                s.open_past_driver().await.map_err(|_| e)?;
            }
            Err(e) => return Err(e),
        }
    }
    s.switch_to(&handle).await?;
    match s.client().close_window().await.map_err(|e| errors::cmd(&e, Sent::Act)) {
        Ok(_) => {
            s.forget_current();
            s.forget_tab(&handle);
        }
        Err(e) if e.kind() == PortErrorKind::BlockedByDialog => {
            s.close_past_driver(&handle).await.map_err(|_| e)?;
        }
        Err(e) => return Err(e),
    }
    let remaining = s.windows().await?;
    if let Some(next) = pick_active(s, &remaining) {
        s.switch_to(&next).await?;
        s.set_active(&next);
    }
    Ok(())
}

/// What `tab` shows now.
pub(crate) async fn page(s: &mut Session, tab: &TabRef) -> PortResult<PageState> {
    s.tab(tab).await?;
    s.settled_page_state().await
}

/// What `tab` shows now and the gate it presents, in one read.
pub(crate) async fn page_and_gate(s: &mut Session, tab: &TabRef) -> PortResult<PageState> {
    s.tab(tab).await?;
    s.detect_gates(true);
    let page = s.settled_page_state().await;
    s.detect_gates(false);
    page
}
