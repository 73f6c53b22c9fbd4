//! The [`BrowserPort`]: the one seam between the executor and a browser.
//!
//! The port works at the level of browser work (open a tab, perceive controls, click an
//! element), with typed inputs and outcomes. It depends only on the crate's shared vocabulary
//! (`vocab`: keys, buttons, fill values, credential classes…, re-exported here) and the
//! envelope's readiness, and knows nothing of tools, authority, handles or sentences: the executor decides what may be done, resolves its own handles to the port's
//! opaque references ([`TabRef`], [`ElementRef`], …) and authors every word the model reads.
//!
//! Implementations: `ghostlight-webdriver` (chromedriver, geckodriver), a browser-extension
//! connector, and the deterministic scripted port of the `testing` feature. No method assumes
//! a WebDriver session exists. Every method may be called concurrently for different tabs;
//! the executor serializes calls for one tab.
//!
//! Errors are [`PortError`]s: a [`PortErrorKind`] and whether an effect may already have
//! happened ([`PortEffect`]).

mod error;
mod network;
mod types;

use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;

/// The document readiness every [`PageState`] reports (the envelope's own enum).
pub use crate::envelope::Readiness;
/// Contract bounds an adapter honours: names it reports are cut to [`TARGET_NAME_CHARS`]
/// visible characters, and an upload's files together hold at most
/// [`UPLOAD_TOTAL_MAX_BYTES`]; a region capture's image has at most [`MAX_REGION_SIDE`]
/// pixels a side. The bounds of what core answers (a URL in facts at most
/// [`FACT_URL_CHARS`], cut with [`URL_CUT_MARKER`]; an image block at most
/// [`IMAGE_BLOCK_MAX_BYTES`]) are here too, for adapters' and hosts' tests.
pub use crate::limits::{
    FACT_URL_CHARS, FORM_OPTIONS_MAX, FORM_TEXT_CHARS, IMAGE_BLOCK_MAX_BYTES, MAX_REGION_SIDE, READ_CALL_MS,
    RECORD_BOUNDS, RecordBounds, TARGET_NAME_CHARS, UPLOAD_TOTAL_MAX_BYTES, URL_CUT_MARKER,
};
/// The shared vocabulary the port's inputs and outcomes use (defined in the crate's bottom
/// layer, `vocab`), so an adapter needs nothing but this module.
pub use crate::vocab::{
    CredentialClass, DiagnoseDetail, DiagnoseSource, FillValue, GateKind, Key, Modifier, MouseButton,
    NamedKey, ScrollDirection,
};
pub use error::{
    LaunchCause, LaunchFailure, NetworkError, NetworkFailure, Oversize, PortEffect, PortError, PortErrorKind,
    PortResult, ScriptFailure, StartupRefusal,
};
pub use network::{
    NetworkEnforcement, NetworkPolicy, REFUSAL_LOG_ENTRIES, RefusalLog, Refusals, RefusedRequest,
    RequestKind, WireRules,
};
pub use types::{
    ActionReceipt, CaptureKind, Captured, ClickInput, CssRect, DiagnosticEntry, DiagnosticSource,
    DiagnosticsPage, DiagnosticsQuery, DialogKind, DialogResolution, DocumentId, ElementRef, ElementState,
    ElementSummary, ExpectedDocument, FileStat, FillInput, FillOutcome, Focused, FocusedElement,
    FormConstraints, FormField, FormOwner, Gate, Geometry, HistoryMove, HoverInput, InDocument, InlineFile,
    KeyInput, NavigateInput, OpenedTab, PageState, PerceiveInput, PerceiveScope, PerceivedElement,
    Perception, Point, PointerTarget, ReadInput, RecordCommand, RecordDelivery, RecordReport, RecordingRef,
    RecordingState, ScriptOutcome, ScrollInput, ScrollOutcome, TabCall, TabInfo, TabRef, TextMode,
    TextOutcome, TextWait, TextWaitInput, TypeInput, UploadDestination, UploadFiles, UploadInput,
    UploadOutcome,
};

/// A browser, as the executor drives it. Object-safe: use it as `Arc<dyn BrowserPort>`.
///
/// Operations on a tab's page take one [`TabCall`]: the tab, the [`Gate`] of documents the
/// call may reach, and its time bound (an adapter answers [`PortErrorKind::Timeout`] when it
/// runs out). Operations that change the page return the
/// [`PageState`] afterwards, so the executor can tell a committed navigation (a new
/// [`DocumentId`]) without another round trip.
#[async_trait]
pub trait BrowserPort: Send + Sync {
    /// A short name of the engine for operators (`chromium`, `firefox`, `scripted`).
    fn engine(&self) -> &str;

    /// Decide every request the browser sends by `policy` from now on, before it leaves the
    /// browser (a browser started later starts behind it), and report each refusal to it.
    /// The executor that owns the port calls this once, before its first call. Answers
    /// whether requests are governed on the wire; the default governs none
    /// ([`NetworkEnforcement::NotEnforced`]).
    fn govern_network(&self, policy: NetworkPolicy) -> NetworkEnforcement {
        let _ = policy;
        NetworkEnforcement::NotEnforced
    }

    /// The governed policy's host patterns ([`NetworkPolicy::rules`]) changed (an invocation
    /// that narrows hosts began or ended): a port that enforces them declaratively brings
    /// them into force before it answers, so the invocation's work is under them. The default
    /// does nothing (a port that asks the policy per request needs no telling).
    async fn sync_network(&self) -> PortResult<()> {
        Ok(())
    }

    /// Every tab of the browser, with what it shows and whether it is selected in its window.
    /// The first call may start the browser (adapters that start lazily).
    async fn tabs(&self) -> PortResult<Vec<TabInfo>>;

    /// Open a new tab and navigate it to `input.url`.
    async fn open_tab(&self, input: &NavigateInput, timeout: Duration) -> PortResult<OpenedTab>;

    /// Tabs the browser opened by itself since the last call (a page's `window.open`, a link
    /// with `target="_blank"`), oldest first; tabs opened through [`BrowserPort::open_tab`]
    /// are never among them. The executor asks after each call that acted on a page and binds
    /// these tabs to the workspace that acted. The default answers none (an adapter that
    /// cannot see them).
    async fn opened_tabs(&self) -> PortResult<Vec<TabRef>> {
        Ok(Vec::new())
    }

    /// Select `tab` in its window and focus the window.
    async fn focus_tab(&self, tab: &TabRef) -> PortResult<Focused>;

    /// Close `tab` ([`PortErrorKind::TabGone`] when it is already gone).
    async fn close_tab(&self, tab: &TabRef) -> PortResult<()>;

    /// What `tab` shows now.
    async fn page(&self, tab: &TabRef) -> PortResult<PageState>;

    /// What `tab` shows now, as [`BrowserPort::page`] answers, looking also for a gate the
    /// loaded page presents ([`PageState::gate`]) in the same read. The default reads the
    /// page without looking (`gate: None`), for a port that does not detect gates.
    async fn page_and_gate(&self, tab: &TabRef) -> PortResult<PageState> {
        self.page(tab).await
    }

    /// Navigate the call's tab.
    async fn navigate(&self, call: &TabCall<'_>, input: &NavigateInput) -> PortResult<PageState>;

    /// Move through the call's tab's history or reload it. A leave-page (`beforeunload`)
    /// prompt the move raises stays open: answer [`PortError::blocked_by`] with
    /// [`DialogKind::BeforeUnload`] (effect none), so the caller can accept it (the move then
    /// goes on) or dismiss it.
    async fn history(&self, call: &TabCall<'_>, step: HistoryMove) -> PortResult<PageState>;

    /// Observed geometry of `tab`.
    async fn geometry(&self, tab: &TabRef) -> PortResult<Geometry>;

    /// Set `tab`'s zoom in percent; answers the observed geometry.
    async fn set_zoom(&self, tab: &TabRef, percent: u32) -> PortResult<Geometry>;

    /// Resize the window containing `tab` (outer size); answers the observed geometry.
    async fn resize_window(&self, tab: &TabRef, width: u32, height: u32) -> PortResult<Geometry>;

    /// Read text. Visible text (not an article) joins the text of the visible frames whose
    /// documents the call's gate admits, of every origin, after the page's own, in document order; a
    /// frame the gate refuses (and every frame inside it) is left out unread.
    async fn read_text(&self, call: &TabCall<'_>, input: &ReadInput) -> PortResult<TextOutcome>;

    /// Perceive semantic elements (hidden content excluded, open shadow roots and the
    /// visible frames whose documents the call's gate admits included, of every origin, in document
    /// order; no editable values), or those matching a text ([`PerceiveScope::Matching`]). A
    /// frame the gate refuses is never perceived.
    async fn perceive(&self, call: &TabCall<'_>, input: &PerceiveInput) -> PortResult<Perception>;

    /// [`BrowserPort::read_text`] in the document the executor expects (`expected`), with the
    /// page state: the answer is `None`, and nothing is read, when the tab shows another
    /// document. An adapter that can answers both in one round trip; the default reads the
    /// page state ([`BrowserPort::page`], or [`BrowserPort::page_and_gate`] when
    /// `expected.look_for_gate`), then the text.
    async fn read_text_in(
        &self,
        call: &TabCall<'_>,
        expected: &ExpectedDocument,
        input: &ReadInput,
    ) -> PortResult<InDocument<TextOutcome>> {
        in_two_steps(self, call.tab, expected, self.read_text(call, input)).await
    }

    /// [`BrowserPort::perceive`] in the document the executor expects, as
    /// [`BrowserPort::read_text_in`] reads text.
    async fn perceive_in(
        &self,
        call: &TabCall<'_>,
        expected: &ExpectedDocument,
        input: &PerceiveInput,
    ) -> PortResult<InDocument<Perception>> {
        in_two_steps(self, call.tab, expected, self.perceive(call, input)).await
    }

    /// The element that has keyboard focus, if any, through shadow roots and frames of every
    /// origin, with the frame documents it sits in (for the credential preflight and the
    /// frame check of keyboard input).
    async fn focused_element(&self, tab: &TabRef) -> PortResult<Option<FocusedElement>>;

    /// Whether `element` is still attached and visible (`false` when its document is gone).
    async fn element_present(&self, tab: &TabRef, element: &ElementRef) -> PortResult<bool>;

    /// Whether the control `element` is now as a fill of `expected` would leave it, compared
    /// in the page so that its value never leaves it: a text equals its value (a list's
    /// selected option, by value or label), a boolean its checked state, a list the selected
    /// options of a multiple-choice list. `None` when the element is gone; a value that does not
    /// fit the control answers [`PortError::invalid_field`] (field 0). Reads only. Default:
    /// unsupported.
    async fn control_matches(
        &self,
        call: &TabCall<'_>,
        element: &ElementRef,
        expected: &FillValue,
    ) -> PortResult<Option<bool>> {
        let _ = (call, element, expected);
        Err(PortError::new(
            PortErrorKind::Unsupported,
            "comparing a control's state is not supported by this browser port",
        ))
    }

    /// Whether visible text of the page, or of a visible frame whose document the call's gate
    /// admits, contains `text` (case-insensitive). A frame the gate refuses is never searched.
    async fn text_present(&self, call: &TabCall<'_>, text: &str) -> PortResult<bool>;

    /// Wait in the page, for at most `input.within`, until the call's tab shows `input.text`
    /// (or no longer does), as [`BrowserPort::text_present`] would answer: the page's visible
    /// text and that of the visible frames whose documents the call's gate admits (a frame the
    /// gate refuses is never searched). Answers how the wait ended ([`TextWait`]); running out
    /// of `within` is [`TextWait::RanOut`], not an error. The port never reads a document other
    /// than `input.document` (the one the caller authorized): a navigation ends the wait
    /// ([`TextWait::DocumentGone`]), so the caller authorizes the new page before asking again.
    /// A dialog that opens meanwhile answers [`PortErrorKind::BlockedByDialog`]. The call's
    /// `timeout` bounds the call as a whole (at least `within`). Default: unsupported (the
    /// caller then checks with [`BrowserPort::text_present`] and polls).
    async fn wait_text(&self, call: &TabCall<'_>, input: &TextWaitInput) -> PortResult<TextWait> {
        let _ = (call, input);
        Err(PortError::new(
            PortErrorKind::Unsupported,
            "waiting in the page is not supported by this browser port",
        ))
    }

    /// [`BrowserPort::wait_text`] in the document the executor expects, with the page state
    /// read when the wait ended, in one round trip where the adapter can (so the executor reads
    /// no page state before the wait). `answer` is `None` when the tab showed another document
    /// when the wait began: nothing was watched there. When the expected document went away
    /// while it was watched, the answer is [`TextWait::DocumentGone`] and `page` what the tab
    /// shows now. `input.document` is `expected.document`. Default: unsupported (the executor
    /// then reads the page state and calls [`BrowserPort::wait_text`]).
    async fn wait_text_in(
        &self,
        call: &TabCall<'_>,
        expected: &ExpectedDocument,
        input: &TextWaitInput,
    ) -> PortResult<InDocument<TextWait>> {
        let _ = (call, expected, input);
        Err(PortError::new(
            PortErrorKind::Unsupported,
            "waiting in an expected document is not supported by this browser port",
        ))
    }

    /// Capture an image; frames whose document the call's gate refuses are blanked in it.
    async fn capture(&self, call: &TabCall<'_>, kind: &CaptureKind) -> PortResult<Captured>;

    /// Click. An element covered by another answers [`PortErrorKind::Obstructed`] naming it,
    /// without clicking through; a point whose hit lands in a frame the call's gate refuses answers
    /// [`PortErrorKind::OutsideAuthority`] without clicking.
    async fn click(&self, call: &TabCall<'_>, input: &ClickInput) -> PortResult<ActionReceipt>;

    /// Move the pointer over a target (a point: checked against the call's gate as for a click),
    /// with `input.modifiers` held while it moves.
    async fn hover(&self, call: &TabCall<'_>, input: &HoverInput) -> PortResult<ActionReceipt>;

    /// Scroll (a wheel at a point: checked against the call's gate as for a click).
    async fn scroll(&self, call: &TabCall<'_>, input: &ScrollInput) -> PortResult<ScrollOutcome>;

    /// [`BrowserPort::scroll`] in the document the executor expects (`expected`), with the page
    /// state read before it: the answer is `None`, and nothing scrolls, when the tab shows
    /// another document. An adapter that can answers both in one round trip; the default reads
    /// the page state, then scrolls.
    async fn scroll_in(
        &self,
        call: &TabCall<'_>,
        expected: &ExpectedDocument,
        input: &ScrollInput,
    ) -> PortResult<InDocument<ScrollOutcome>> {
        in_two_steps(self, call.tab, expected, self.scroll(call, input)).await
    }

    /// Drag from one target to another (both ends checked against the call's gate as for a click).
    async fn drag(
        &self,
        call: &TabCall<'_>,
        from: &PointerTarget,
        to: &PointerTarget,
    ) -> PortResult<ActionReceipt>;

    /// Fill controls. Every value is checked against its control first; a value that does not
    /// fit refuses the whole fill with [`PortError::invalid_field`] before anything is set.
    async fn fill(&self, call: &TabCall<'_>, input: &FillInput) -> PortResult<FillOutcome>;

    /// Type text through input events.
    async fn type_text(&self, call: &TabCall<'_>, input: &TypeInput) -> PortResult<ActionReceipt>;

    /// Press keys.
    async fn press_keys(&self, call: &TabCall<'_>, input: &KeyInput) -> PortResult<ActionReceipt>;

    /// The JavaScript dialog blocking `tab`, if any. Its text is never asked for.
    async fn dialog(&self, tab: &TabRef) -> PortResult<Option<DialogKind>>;

    /// Resolve the dialog blocking `tab` (answers the kind resolved;
    /// [`PortErrorKind::InvalidInput`] when none is open). Accepting a leave-page prompt lets
    /// the navigation it held go on: answer once the new document shows (or a bounded wait
    /// ran out), so the caller's next page read sees where the tab went.
    async fn resolve_dialog(&self, tab: &TabRef, resolution: &DialogResolution) -> PortResult<DialogKind>;

    /// What each local path is, as the adapter that would read it sees it.
    async fn stat_files(&self, paths: &[PathBuf]) -> PortResult<Vec<FileStat>>;

    /// Upload files to a file input or drop them at a point (checked against the call's gate
    /// as for a click).
    async fn upload(&self, call: &TabCall<'_>, input: &UploadInput) -> PortResult<UploadOutcome>;

    /// Run a script; its completion value comes back as JSON.
    async fn execute(&self, call: &TabCall<'_>, script: &str) -> PortResult<ScriptOutcome>;

    /// A recording command. Default: unsupported.
    async fn record(&self, command: &RecordCommand) -> PortResult<RecordReport> {
        let _ = command;
        Err(PortError::new(PortErrorKind::Unsupported, "recording is not supported by this browser port"))
    }

    /// Console and network evidence of `tab`. Default: unsupported.
    async fn diagnostics(&self, tab: &TabRef, query: &DiagnosticsQuery) -> PortResult<DiagnosticsPage> {
        let _ = (tab, query);
        Err(PortError::new(PortErrorKind::Unsupported, "diagnostics are not supported by this browser port"))
    }

    /// Wait `duration` on the adapter's timer (core has no runtime of its own). Used for
    /// `duration` waits, polling and timeouts.
    async fn sleep(&self, duration: Duration);

    /// Complete once `after` has passed, to abandon a read that outlasts its call's bound (a
    /// check of a huge or busy page while waiting). Unlike [`BrowserPort::sleep`] it is not a
    /// step of the work: the default sleeps; a port whose time is virtual (the scripted port)
    /// never completes it, as its reads never block.
    async fn deadline(&self, after: Duration) {
        self.sleep(after).await;
    }
}

/// Work in an [`ExpectedDocument`] in two steps (the default [`BrowserPort::read_text_in`],
/// [`BrowserPort::perceive_in`] and [`BrowserPort::scroll_in`]): the page state ([`BrowserPort::page_and_gate`] when it
/// looks for a gate, else [`BrowserPort::page`]), then `work` (not polled before) only when
/// the expected document shows.
async fn in_two_steps<P: BrowserPort + ?Sized, T>(
    port: &P,
    tab: &TabRef,
    expected: &ExpectedDocument,
    work: impl Future<Output = PortResult<T>>,
) -> PortResult<InDocument<T>> {
    let page = if expected.look_for_gate { port.page_and_gate(tab).await? } else { port.page(tab).await? };
    if !expected.is_shown_by(&page) {
        return Ok(InDocument { page, answer: None });
    }
    Ok(InDocument { answer: Some(work.await?), page })
}
