//! Pointer and keyboard input, fills and uploads: `click`, `hover`, `scroll`, `drag`,
//! `fill`, `type_text`, `press_keys`, `upload` (`docs/webdriver-findings.md` §4 and §7).
//!
//! Submodules: `pointer` (click, hover, drag), `scroll`, `keyboard` (type_text, press_keys),
//! `fill`, `upload`. The page-side work is done by the scripts under
//! `src/scripts/input/`, each prefixed with the page-state function, `dom.js` (what is shown,
//! role and accessible name: the same as perception's, see [`with_dom`]) and `lib.js`
//! (composed-tree walks, deep hit testing, the key guard).
//!
//! Decisions common to every operation here:
//! - **Receipts in the same round trip.** The script that checks the target (hit test, focus,
//!   file input) also answers the target's role and name and, for targets in the top document,
//!   the page state *before* acting. Targets inside frames need one extra page-state read
//!   first (the page state is a top-document read).
//! - **Page afterwards.** After acting, the page state is read again. When a dialog the action
//!   opened blocks that read (`BlockedByDialog`), the receipt answers the page state taken
//!   before acting: opening a dialog does not change the document, and a `PageState` cannot be
//!   made up without reading it. A dialog that was already open makes the first script fail,
//!   so a dialog error *after* a successful check means the action opened it. A read that
//!   races a navigation the action started (and finds no dialog) is repeated briefly.
//! - **Actions.** Pointer, wheel and key input go through the WebDriver Actions API (trusted
//!   events). Every sequence releases what it presses (buttons, keys, modifiers), so the
//!   driver's input state is released (`DELETE /actions`) only after a sequence that failed
//!   part-way ([`perform`]). A separate click right after another is a click again, never the
//!   second click of a double click: neither chromedriver nor geckodriver counts clicks across
//!   two sequences that each start with a pointer move (`tests/input.rs` holds both to it).
//! - **Out of the page's reach.** Scripts that check where input lands run in the BiDi sandbox
//!   realm when the driver offers one, over the library installed there once per document
//!   (`ops/sandbox.rs`); in the page's realm they carry the library with them.
//! - **Time.** Every operation is bounded by its `timeout` (the driver's script timeout is
//!   narrowed to it, and the whole operation runs under it); running out answers `Timeout`
//!   with effect unknown.

mod actions;
mod fill;
mod keyboard;
mod pointer;
mod scroll;
mod upload;

use std::future::Future;
use std::sync::LazyLock;
use std::time::Duration;

use fantoccini::elements::Element as WdElement;
use ghostlight_core::port::{
    ActionReceipt, ClickInput, ElementRef, ExpectedDocument, FillInput, FillOutcome, FillValue, Gate,
    HoverInput, InDocument, KeyInput, PageState, PointerTarget, PortError, PortErrorKind, PortResult,
    ScrollInput, ScrollOutcome, TabRef, TypeInput, UploadInput, UploadOutcome,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::commands::SessionCommand;
use crate::config::Engine;
use crate::errors::{self, Sent};
use crate::ops::{frames, navigation, with_dom};
use crate::page::{self, Reading};
use crate::refs;
use crate::session::{SETTLE_READS, SETTLE_STEP, Session};
use actions::Input;

/// The longest an action waits for a navigation it started to show its new document.
const LANDING_WAIT: Duration = Duration::from_secs(5);
/// The longest an action waits for work it started in the page (a timer of up to a second a
/// handler set, a request it sent: `scripts/page_state.js`, `gl.work`) before it decides the
/// action navigated nowhere. A navigation such work starts meanwhile is the action's landing.
/// Most actions start none and wait nothing.
pub(crate) const ACTION_WORK_WAIT: Duration = Duration::from_millis(1_500);
/// How long a blank page that follows a refused request which may have been the document
/// is given to turn into a document, before the blank page is taken as what the refused
/// navigation left.
const REFUSED_BLANK_WAIT: Duration = Duration::from_secs(1);
/// How often pending work is looked at.
const WORK_POLL: Duration = Duration::from_millis(25);
/// Extra time granted beyond an operation's `timeout` before it is cut short, so that the
/// driver's own timeout (set to `timeout`) answers first when it can.
const TIMEOUT_GRACE: Duration = Duration::from_millis(500);

/// The shared helpers every input script starts with.
const LIB_JS: &str = ghostlight_page::scripts::input::LIB_JS;

/// An input script: the page-state function, the DOM semantics ([`with_dom`]) and the input
/// helpers, then `body`.
pub(crate) fn compose(body: &str) -> String {
    format!(
        "const glPageState = ({});\n{}",
        page::PAGE_STATE_FN.trim_end(),
        with_dom(&format!("{LIB_JS}\n{body}"))
    )
}

/// [`compose`] for work done only in the document the caller expects
/// (`ghostlight_page::scripts::in_document`): the page state is read first, and `body` (called
/// with the first `arity` arguments) runs only when it shows the document named by
/// `arguments[arity]`; the script answers `{state}` or `{state, answer}`.
pub(crate) fn compose_in_document(body: &str, arity: usize) -> String {
    let function = format!("(function () {{\n{body}\n}})");
    format!(
        "const glPageState = ({});\n{}",
        page::PAGE_STATE_FN.trim_end(),
        with_dom(&ghostlight_page::scripts::in_document(LIB_JS, &function, arity, false))
    )
}

/// An input script run out of the page's reach when it can be ([`run_out_of_reach`]): its
/// body, and the body composed with the library for the page's own realm.
pub(crate) struct InputScript {
    /// The script's body (the sandbox has the library).
    body: &'static str,
    /// [`compose`]d, for the page's realm.
    composed: LazyLock<String>,
}

impl InputScript {
    /// The script `body`; `composed` must answer `compose(body)`.
    pub(crate) const fn new(body: &'static str, composed: fn() -> String) -> InputScript {
        InputScript { body, composed: LazyLock::new(composed) }
    }
}

/// Click.
pub(crate) async fn click(
    s: &mut Session,
    tab: &TabRef,
    input: &ClickInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    bounded(timeout, pointer::click(s, tab, input, gate, timeout)).await
}

/// Move the pointer over a target.
pub(crate) async fn hover(
    s: &mut Session,
    tab: &TabRef,
    input: &HoverInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    bounded(timeout, pointer::hover(s, tab, input, gate, timeout)).await
}

/// Scroll.
pub(crate) async fn scroll(
    s: &mut Session,
    tab: &TabRef,
    input: &ScrollInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ScrollOutcome> {
    bounded(timeout, scroll::scroll(s, tab, input, gate, timeout)).await
}

/// [`scroll`] in the document `expected` (see `scroll::scroll_in`).
pub(crate) async fn scroll_in(
    s: &mut Session,
    tab: &TabRef,
    expected: &ExpectedDocument,
    input: &ScrollInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<InDocument<ScrollOutcome>> {
    bounded(timeout, scroll::scroll_in(s, tab, expected, input, gate, timeout)).await
}

/// Drag from one target to another.
pub(crate) async fn drag(
    s: &mut Session,
    tab: &TabRef,
    from: &PointerTarget,
    to: &PointerTarget,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    bounded(timeout, pointer::drag(s, tab, from, to, gate, timeout)).await
}

/// Fill controls.
pub(crate) async fn fill(
    s: &mut Session,
    tab: &TabRef,
    input: &FillInput,
    timeout: Duration,
) -> PortResult<FillOutcome> {
    bounded(timeout, fill::fill(s, tab, input, timeout)).await
}

/// Whether a control is as a fill of `expected` would leave it (`None`: gone).
pub(crate) async fn control_matches(
    s: &mut Session,
    tab: &TabRef,
    element: &ElementRef,
    expected: &FillValue,
) -> PortResult<Option<bool>> {
    fill::compare(s, tab, element, expected).await
}

/// Type text through input events.
pub(crate) async fn type_text(
    s: &mut Session,
    tab: &TabRef,
    input: &TypeInput,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    bounded(timeout, keyboard::type_text(s, tab, input, timeout)).await
}

/// Press keys.
pub(crate) async fn press_keys(
    s: &mut Session,
    tab: &TabRef,
    input: &KeyInput,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    bounded(timeout, keyboard::press_keys(s, tab, input, timeout)).await
}

/// Upload files to a file input or drop them at a point.
pub(crate) async fn upload(
    s: &mut Session,
    tab: &TabRef,
    input: &UploadInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<UploadOutcome> {
    bounded(timeout, upload::upload(s, tab, input, gate, timeout)).await
}

// ---- shared helpers ----------------------------------------------------------------------

/// Run `work` within `timeout` (plus [`TIMEOUT_GRACE`]).
async fn bounded<T>(timeout: Duration, work: impl Future<Output = PortResult<T>>) -> PortResult<T> {
    match tokio::time::timeout(timeout.saturating_add(TIMEOUT_GRACE), work).await {
        Ok(result) => result,
        Err(_) => {
            Err(PortError::new(PortErrorKind::Timeout, "the input did not finish in time").effect_unknown())
        }
    }
}

/// An element target, switched to: the driver is inside the element's frames.
struct Resolved {
    /// The element, usable in the current browsing context.
    element: WdElement,
    /// Whether the element lives in a frame (not the top document).
    in_frame: bool,
    /// The page state before acting, read up front for elements in frames (for the top
    /// document it comes with the first script's answer).
    before: Option<PageState>,
}

impl Resolved {
    /// Whether the first script must answer the page state (top-document elements).
    fn wants_state(&self) -> bool {
        self.before.is_none()
    }

    /// The element as a script argument.
    fn arg(&self) -> PortResult<Value> {
        element_arg(&self.element)
    }
}

/// Switch into `element`'s frames (reading the page state first when it lives in a frame).
async fn resolve(s: &mut Session, tab: &TabRef, element: &ElementRef) -> PortResult<Resolved> {
    let in_frame = !refs::Element::parse(element)?.frames.is_empty();
    let before = if in_frame {
        s.tab(tab).await?;
        Some(s.page_state().await?)
    } else {
        None
    };
    let element = s.element(tab, element).await?;
    Ok(Resolved { element, in_frame, before })
}

/// The page before acting on `resolved` (a top-document element) when `seen`
/// ([`Session::noted_page`], taken before the call sent anything) is a reading of the window
/// the driver is in by the command just before (a selector's perception): the first script
/// then need not read it again. The element's script runs in that document or fails (its
/// element is gone), so the reading is of the document acted on.
fn seen_here(s: &Session, resolved: &Resolved, seen: Option<(String, PageState)>) -> Option<PageState> {
    let (window, page) = seen?;
    (resolved.wants_state() && s.at_top() == Some(window.as_str())).then_some(page)
}

/// The WebDriver JSON reference of `element`, as a script argument.
fn element_arg(element: &WdElement) -> PortResult<Value> {
    serde_json::to_value(element)
        .map_err(|_| PortError::new(PortErrorKind::Other, "an element reference did not encode"))
}

/// Run an input script and parse its answer. Every input script answers an object; WebDriver
/// answers `null` for a script a user prompt interrupted (a page handler the script set off
/// opened a dialog), which is [`PortErrorKind::BlockedByDialog`].
async fn run<T: DeserializeOwned>(
    s: &mut Session,
    script: &str,
    args: Vec<Value>,
    sent: Sent,
) -> PortResult<T> {
    // A read (a target check, a fill's dry run) that the page broke in its own realm is run
    // in the sandbox instead ([`frames::read`]); a script that acts runs there from the start
    // once the page broke a read ([`frames::act`]), and is never run twice.
    let value = match sent {
        Sent::Read => frames::read(s, script, args).await?,
        Sent::Act => frames::act(s, script, args).await?,
    };
    decode(value, sent)
}

/// [`run`] in a BiDi sandbox realm when the driver is in a top document and the driver offers
/// one ([`frames::run_sandboxed`]), else in the page's realm: for the focus checks and the
/// key guard, which a page must not be able to switch off by replacing what they call.
async fn run_out_of_reach<T: DeserializeOwned>(
    s: &mut Session,
    script: &InputScript,
    args: Vec<Value>,
    sent: Sent,
) -> PortResult<T> {
    // The page state is stamped in the page's own realm (its document nonce, dialog and
    // navigation hooks): asked for, it is read there once the sandboxed script answered.
    let mut sandboxed = args.clone();
    let mut wants_state = false;
    for options in sandboxed.iter_mut().filter_map(Value::as_object_mut) {
        if options.get("state") == Some(&Value::Bool(true)) {
            options.insert("state".into(), Value::Bool(false));
            wants_state = true;
        }
    }
    let Some(answer) = frames::run_sandboxed(s, script.body, &sandboxed).await else {
        return run(s, &script.composed, args, sent).await;
    };
    let mut value = answer.map_err(|e| if sent == Sent::Act { e.effect_unknown() } else { e })?;
    if wants_state && let Some(object) = value.as_object_mut() {
        let state = frames::read(s, &page::state_script(), Vec::new()).await?;
        object.insert("state".into(), state);
    }
    decode(value, sent)
}

/// An input script's answer: `null` is a script a dialog interrupted.
fn decode<T: DeserializeOwned>(value: Value, sent: Sent) -> PortResult<T> {
    let error = if value.is_null() {
        PortError::new(PortErrorKind::BlockedByDialog, "a dialog opened while an input script ran")
    } else {
        match serde_json::from_value(value) {
            Ok(answer) => return Ok(answer),
            Err(_) => PortError::new(PortErrorKind::Other, "an input script answered an unexpected shape"),
        }
    };
    Err(match sent {
        Sent::Read => error,
        Sent::Act => error.effect_unknown(),
    })
}

/// The page state before acting: read up front, or answered by the first script.
fn before_state(read: Option<PageState>, answered: Option<Value>) -> PortResult<PageState> {
    match (read, answered) {
        (Some(state), _) => Ok(state),
        (None, Some(value)) => page::parse_state(value),
        (None, None) => Err(PortError::new(PortErrorKind::Other, "the page state before acting is missing")),
    }
}

/// The page after acting; the page before when a dialog the action opened blocks the read
/// (see the module docs). Any other failure: effect unknown (the action was sent).
///
/// A read that races a navigation the action started can fail without a dialog (Firefox
/// answers `null` for a script cut short by the unload); such a read is repeated, up to
/// [`SETTLE_READS`] times, [`SETTLE_STEP`] apart. When the page reports a navigation to another
/// document under way that has not committed yet (a form the action submitted), the new
/// document is waited for ([`land`]).
pub(super) async fn after(s: &mut Session, before: PageState, deadline: Instant) -> PortResult<PageState> {
    let page = settle_after(s, &before, deadline).await?;
    // The action's navigation ended on a host the network filter refused (its error page, or
    // a blank page where the engine answered a refused tunnel with nothing): back to the
    // document the action was on.
    if s.landed_on_refused(&page.url) || s.blanked_by_refusal(&before.url, &page.url) {
        return navigation::keep_document(s, &before, page, deadline)
            .await
            .map_err(PortError::effect_unknown);
    }
    Ok(page)
}

/// [`after`] until the page settles, before the refused-navigation check.
async fn settle_after(s: &mut Session, before: &PageState, deadline: Instant) -> PortResult<PageState> {
    let before = before.clone();
    let mut last = None;
    let work_until = deadline.min(Instant::now() + ACTION_WORK_WAIT);
    let mut reads = 0;
    while reads < SETTLE_READS {
        match s.page_reading().await {
            Ok(Reading { state, navigating: Some(destination), .. }) if state.document == before.document => {
                return land(s, state, &destination, deadline).await;
            }
            // Firefox's transient `about:blank` between two web documents: not the landing yet.
            Ok(Reading { state, .. }) if state.url.scheme() == "about" && before.url.scheme() != "about" => {
                return land(s, state, &before.url, deadline).await;
            }
            // Work the action started (a timer, a request) may still navigate: wait for it,
            // within ACTION_WORK_WAIT.
            Ok(Reading { state, busy: true, .. })
                if state.document == before.document && Instant::now() < work_until =>
            {
                tokio::time::sleep(WORK_POLL).await;
                continue;
            }
            Ok(Reading { state, .. }) => return Ok(state),
            Err(e)
                if matches!(
                    e.kind(),
                    PortErrorKind::BlockedByDialog | PortErrorKind::Other | PortErrorKind::ScriptError
                ) =>
            {
                if s.dialog_open().await.map_err(PortError::effect_unknown)? {
                    s.remember_page(&before);
                    return Ok(before);
                }
                last = Some(e);
                reads += 1;
                tokio::time::sleep(SETTLE_STEP).await;
            }
            Err(e) => return Err(e.effect_unknown()),
        }
    }
    Err(last
        .unwrap_or_else(|| PortError::new(PortErrorKind::Other, "the page could not be read after the input"))
        .effect_unknown())
}

/// Wait for the document a navigation the action started toward `destination` will show:
/// complete, or whatever shows when [`LANDING_WAIT`] (or the action's `deadline`) runs out (a
/// navigation may end without a document: a `204` answer, a download). Firefox shows a
/// transient `about:blank` document first: that one is not the landing, and once it shows
/// the wait may run to the action's `deadline`. Any failure: effect unknown (the action was
/// sent).
pub(super) async fn land(
    s: &mut Session,
    now: PageState,
    destination: &url::Url,
    deadline: Instant,
) -> PortResult<PageState> {
    let transient = |page: &PageState| page.url.scheme() == "about" && destination.scheme() != "about";
    let mut until = if transient(&now) { deadline } else { deadline.min(Instant::now() + LANDING_WAIT) };
    let mut page = now;
    loop {
        // A blank page after a refused request that may have been the document: a document
        // that follows shows within REFUSED_BLANK_WAIT; past it, the blank page is what the
        // refused navigation left (see `after`).
        let wait_until = if transient(&page) && s.top_document_may_be_refused() {
            until.min(Instant::now() + REFUSED_BLANK_WAIT)
        } else {
            until
        };
        let dismiss = navigation::LeavePrompt::Dismiss;
        match navigation::wait_for_page_to(s, &page, wait_until, dismiss, Some(destination)).await {
            // The transient document shows the navigation is under way: its landing may use the
            // action's whole time budget (a loaded machine can take longer than the usual wait).
            Ok(next) if transient(&next) => {
                page = next;
                until = deadline;
            }
            Ok(next) => return Ok(next),
            Err(e) if e.kind() == PortErrorKind::Timeout => {
                let left = deadline.saturating_duration_since(Instant::now());
                let now = tokio::time::timeout(left, s.page_state()).await;
                return Ok(now.ok().and_then(Result::ok).unwrap_or(page));
            }
            // The action was sent: its effect is unknown.
            Err(e) => return Err(e.effect_unknown()),
        }
    }
}

/// Perform `actions`. The driver's input state is released (`DELETE /actions`) only when a
/// sequence fails part-way (a button or key may be down), and before the next sequence when
/// that release failed too. A dialog error means the input opened a dialog (see the module
/// docs): the input was delivered.
async fn perform(s: &mut Session, actions: impl Into<Input>) -> PortResult<()> {
    let input: Input = actions.into();
    if s.is_seated() && s.input_over_bidi().await {
        return perform_over_bidi(s, &input).await;
    }
    if s.input_unreleased() {
        release(s).await;
    }
    let result = s.client().issue_cmd(SessionCommand::perform_actions(input.classic())).await.map(drop);
    if result.is_err() {
        release(s).await;
    }
    match result {
        Ok(()) => Ok(()),
        Err(e) if errors::is_dialog(&e) => Ok(()),
        Err(e) => {
            let error = errors::cmd(&e, Sent::Act);
            // The window was there a moment ago (the target was just located in it): the
            // input reached the page, which closed its own tab in answer.
            if error.kind() == PortErrorKind::TabGone {
                return Err(error.effect_unknown());
            }
            if errors::broken_in_page(&error) && s.engine() == Engine::Chromium && sandboxed_here(s).await {
                // chromedriver runs a script in the page before it dispatches input, which a
                // page breaks by replacing a builtin (`JSON.stringify`, `Promise.prototype.then`,
                // `Function.prototype.apply`): measured, such a failure delivered nothing, while
                // a page that breaks them in its own input handler gets the input answered. The
                // same input goes over BiDi, which runs nothing in the page.
                if perform_over_bidi(s, &input).await.is_ok() {
                    tracing::warn!(
                        "the page broke the driver's input in its own realm: sent over BiDi instead"
                    );
                    return Ok(());
                }
            }
            Err(error)
        }
    }
}

/// Whether the driver is in a top document whose window answers sandboxed BiDi calls (so
/// BiDi commands reach it: not a Chromium popup that keeps its opener).
async fn sandboxed_here(s: &mut Session) -> bool {
    let Some(handle) = s.at_top().map(str::to_owned) else { return false };
    matches!(s.sandbox_for(&handle, frames::SANDBOX_WAIT).await, Ok(Some(_)))
}

/// Release the driver's input state, noting whether it worked. Best effort: releasing while a
/// dialog is open fails, and the next sequence tries again.
async fn release(s: &mut Session) {
    let released = s.client().issue_cmd(SessionCommand::release_actions()).await.is_ok();
    s.set_input_unreleased(!released);
}

/// How long one input command over BiDi may take (a drag's moves take about a second).
const INPUT_WAIT: Duration = Duration::from_secs(10);

/// [`perform`] for a session in a shared browser, over BiDi (`input.performActions` to the
/// current window): its classic-only session would accept a leave-page prompt the input
/// raises. The command holds while a dialog the input opened is open, so the input counts as
/// delivered once the prompt watch announces one. A window that went away meanwhile is the
/// page closing its own tab in answer (effect unknown).
async fn perform_over_bidi(s: &mut Session, input: &Input) -> PortResult<()> {
    if s.input_unreleased() {
        let released =
            s.window_command_over_bidi("input.releaseActions", json!({}), INPUT_WAIT).await.is_ok();
        s.set_input_unreleased(!released);
    }
    let starts = s.navigation_starts();
    let sent = s
        .window_command_over_bidi("input.performActions", json!({ "actions": input.bidi() }), INPUT_WAIT)
        .await;
    match sent {
        Ok(()) => {
            s.await_input_navigation(starts).await;
            Ok(())
        }
        Err(e) if e.kind() == PortErrorKind::BlockedByDialog => Ok(()),
        Err(e) => {
            let released =
                s.window_command_over_bidi("input.releaseActions", json!({}), INPUT_WAIT).await.is_ok();
            s.set_input_unreleased(!released);
            let open = match s.current().map(str::to_owned) {
                Some(handle) => s.windows().await.is_ok_and(|own| own.contains(&handle)),
                None => false,
            };
            if open {
                Err(e.effect_unknown())
            } else {
                Err(PortError::new(PortErrorKind::TabGone, "the page closed its own tab").effect_unknown())
            }
        }
    }
}

/// A finite coordinate as an integer number of CSS pixels (WebDriver pointer and wheel
/// positions are integers).
fn pixel(value: f64) -> PortResult<i64> {
    // In range by the check, so the conversion is exact.
    Ok(ghostlight_page::input::coordinate(value)? as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_composed_with_the_page_state_and_helpers() {
        let script = compose("return 1;");
        assert!(script.starts_with("const glPageState = ("));
        assert!(script.contains("(function glPageState()"));
        let dom = script.find("function glName(el, role, cap)").expect("dom.js's names");
        let bound = script.find("const GL_GENERIC_NAME_CHARS = ").expect("the generic name bound");
        let lib = script.find("function glDeepHit(doc, x, y)").expect("lib.js's hit test");
        assert!(bound < dom && dom < lib, "the bound, then dom.js, then lib.js");
        assert!(script.ends_with("return 1;"));
    }

    #[test]
    fn pixels_are_floored_and_bounded() {
        assert_eq!(pixel(10.7).ok(), Some(10));
        assert_eq!(pixel(-0.5).ok(), Some(-1));
        assert!(pixel(f64::NAN).is_err());
        assert!(pixel(1e12).is_err());
    }

    #[test]
    fn before_state_prefers_the_read_state() {
        assert!(before_state(None, None).is_err());
        assert!(before_state(None, Some(Value::Null)).is_err());
    }
}
