//! [`ExtensionBrowser`]: the [`BrowserPort`] over the Ghostlight extension.
//!
//! It listens on the private socket from the start; the person's browser connects whenever the
//! extension's native host starts (the browser starts it, not Ghostlight). Until then, and
//! while the person has paused Ghostlight in the extension, calls answer
//! [`PortErrorKind::NotConnected`]. Calls in flight when the connection ends answer
//! [`PortErrorKind::Transport`] with an unknown effect.
//!
//! Perception, text, focus and presence run Ghostlight's shared page scripts in the
//! extension's isolated world ([`crate::perception`]); captures other than the viewport are in
//! [`crate::capture`]. Operations not implemented yet answer [`PortErrorKind::Unsupported`],
//! naming the operation and this connector.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use ghostlight_core::port::{
    ActionReceipt, BrowserPort, CaptureKind, Captured, ClickInput, DiagnosticsPage, DiagnosticsQuery,
    DialogKind, DialogResolution, ElementRef, FileStat, FillInput, FillOutcome, FillValue, Focused,
    FocusedElement, Geometry, HistoryMove, HoverInput, KeyInput, NavigateInput, NetworkEnforcement,
    NetworkPolicy, OpenedTab, PageState, PerceiveInput, Perception, Point, PointerTarget, PortError,
    PortErrorKind, PortResult, ReadInput, RecordCommand, RecordReport, ScriptOutcome, ScrollInput,
    ScrollOutcome, StartupRefusal, TabCall, TabInfo, TabRef, TextOutcome, TypeInput, UploadInput,
    UploadOutcome,
};
use serde::de::DeserializeOwned;
use tokio::task::JoinHandle;

use crate::convert::{self, call_error, loaded, page_state};
use crate::diagnostics::Evidence;
use crate::endpoint::{self, EndpointError};
use crate::listener::{ListenError, Slot, accept, bind};
use crate::protocol::{
    Hello, HistoryStep, Op, WireConfirmed, WireFocused, WireGeometry, WireOpened, WirePage, WireScript,
    WireTab,
};
use crate::recording::{self, Recorder};
use crate::secret::Secret;
use crate::{capture, diagnostics, dialogs, input, perception};

/// The longest wait for an operation that does not wait for the page.
pub(crate) const OP_WAIT: Duration = Duration::from_secs(10);

/// How much longer than an operation's own timeout the server waits for its answer (the
/// extension answers `timeout` itself first).
const ANSWER_MARGIN: Duration = Duration::from_secs(2);

/// Where the server listens and which secret it shares with the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionConfig {
    /// The private directory of the socket.
    pub socket_dir: PathBuf,
    /// The secret file (created when missing).
    pub secret_file: PathBuf,
}

impl ExtensionConfig {
    /// The locations the environment names (see [`crate::endpoint`]).
    pub fn from_env() -> Result<ExtensionConfig, EndpointError> {
        Ok(ExtensionConfig {
            socket_dir: endpoint::socket_dir_from_env()?,
            secret_file: endpoint::secret_file_from_env()?,
        })
    }
}

/// The startup refusal a call answers while no extension is connected, decided at that moment
/// (see [`ExtensionBrowser::when_absent`]).
pub type AbsentRefusal = Arc<dyn Fn() -> StartupRefusal + Send + Sync>;

/// A browser driven through the Ghostlight extension. Dropping it stops listening and removes
/// the socket.
pub struct ExtensionBrowser {
    slot: Arc<Slot>,
    socket: PathBuf,
    acceptor: JoinHandle<()>,
    recorder: Recorder,
    absent: Option<AbsentRefusal>,
    evidence: Evidence,
}

impl std::fmt::Debug for ExtensionBrowser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExtensionBrowser").field("socket", &self.socket).finish_non_exhaustive()
    }
}

impl ExtensionBrowser {
    /// Listen for the extension's host at `config` (the secret is created when missing).
    /// Must be called within a Tokio runtime.
    pub fn listen(config: &ExtensionConfig) -> Result<ExtensionBrowser, ListenError> {
        let secret = Secret::load_or_create(&config.secret_file)?;
        let (listener, socket) = bind(&config.socket_dir)?;
        let slot = Arc::new(Slot::new());
        let acceptor = tokio::spawn(accept(listener, secret, Arc::clone(&slot)));
        Ok(ExtensionBrowser {
            slot,
            socket,
            acceptor,
            recorder: Recorder::default(),
            absent: None,
            evidence: Evidence::default(),
        })
    }

    /// Answer calls made while no extension is connected with the startup refusal `refusal`
    /// gives at that moment (a person must open a browser), instead of a bare
    /// [`PortErrorKind::NotConnected`].
    #[must_use]
    pub fn when_absent(mut self, refusal: AbsentRefusal) -> ExtensionBrowser {
        self.absent = Some(refusal);
        self
    }

    /// The socket's path.
    pub fn socket_path(&self) -> &Path {
        &self.socket
    }

    /// The connected extension's hello, if one is connected.
    pub fn connected(&self) -> Option<Hello> {
        self.slot.live().map(|link| link.hello().clone())
    }

    /// Wait at most `within` for an extension to connect; its hello.
    pub async fn wait_connected(&self, within: Duration) -> Option<Hello> {
        let mut changes = self.slot.watch();
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(hello) = self.connected() {
                return Some(hello);
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) | Err(_) => return None,
            }
        }
    }

    /// The console and network evidence the server keeps.
    pub(crate) fn evidence(&self) -> &Evidence {
        &self.evidence
    }

    /// The browser's id of `tab` ([`PortErrorKind::TabGone`] for a tab of a browser that has
    /// closed since; see [`Slot`]).
    pub(crate) fn tab_id(&self, tab: &TabRef) -> PortResult<i64> {
        self.slot.tab_id(tab)
    }

    /// The reference of the browser's tab `id`.
    pub(crate) fn tab_ref(&self, id: i64) -> TabRef {
        self.slot.tab_ref(id)
    }

    /// Refuse `what` when the connected extension runs in Firefox, saying `why`.
    pub(crate) fn refuse_on_firefox(&self, what: &str, why: &str) -> PortResult<()> {
        if self.connected().is_some_and(|hello| hello.engine == "firefox") {
            return Err(PortError::new(
                PortErrorKind::Unsupported,
                format!("{what} through the Firefox extension is not supported: {why}"),
            ));
        }
        Ok(())
    }

    /// The reference of the first element of `tab`'s top document matching CSS `selector`
    /// (for tests that name elements the way the WebDriver suite does).
    #[doc(hidden)]
    pub async fn testing_element(&self, tab: &TabRef, selector: &str) -> PortResult<Option<ElementRef>> {
        perception::select(self, self.tab_id(tab)?, selector).await
    }

    /// The centre of `element` in viewport CSS pixels of `tab`'s top document, after scrolling
    /// it into view (nearest edge, instantly) when `scroll`: where pointer input aims. A stale
    /// reference (or one whose frame is no longer shown) answers
    /// [`PortErrorKind::TargetStale`], a malformed one or one of another tab
    /// [`PortErrorKind::InvalidInput`]. Frames of every origin are measured.
    pub async fn element_centre(
        &self,
        tab: &TabRef,
        element: &ElementRef,
        scroll: bool,
    ) -> PortResult<Point> {
        perception::element_point(self, self.tab_id(tab)?, element, scroll).await
    }

    /// Run `op`, waiting at most `wait` for the answer, decoded as `T`. A connection whose
    /// network rules are not the current ones gets them first.
    pub(crate) async fn call<T: DeserializeOwned>(&self, op: Op, wait: Duration) -> PortResult<T> {
        self.refuse_while_absent()?;
        self.bring_rules_into_force(false).await?;
        call_on(&self.slot, op, wait).await
    }

    /// Send the governing policy's host patterns to the live connection, unless it holds the
    /// current ones already (`force`: send them anyway, they changed).
    async fn bring_rules_into_force(&self, force: bool) -> PortResult<()> {
        use std::sync::atomic::Ordering;
        let (Some(link), Some(rules)) = (self.slot.live(), self.slot.network().and_then(|p| p.rules()))
        else {
            return Ok(());
        };
        if !force && link.rules_current.load(Ordering::SeqCst) {
            return Ok(());
        }
        let op =
            Op::NetworkRules { allowed: rules.allowed, denied: rules.denied, resources: rules.resources };
        let answered: serde_json::Value = call_on(&self.slot, op, OP_WAIT).await?;
        let _ = answered;
        link.rules_current.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// While no extension is connected, the startup refusal [`Self::when_absent`] set, if any.
    fn refuse_while_absent(&self) -> PortResult<()> {
        match &self.absent {
            Some(refusal) if self.slot.live().is_none() => Err(PortError::startup(refusal())),
            _ => Ok(()),
        }
    }

    async fn geometry_of(&self, op: Op) -> PortResult<Geometry> {
        self.call::<WireGeometry>(op, OP_WAIT).await.map(convert::geometry)
    }

    /// The page state of tab `tab` (the extension's id), for the operations that read it.
    pub(crate) async fn tab_page(&self, tab: i64) -> PortResult<PageState> {
        page_state(self.call::<WirePage>(Op::Page { tab, gate: false }, OP_WAIT).await?)
    }

    /// The geometry of tab `tab` (the extension's id), for the operations that measure.
    pub(crate) async fn tab_geometry(&self, tab: i64) -> PortResult<Geometry> {
        self.geometry_of(Op::Geometry { tab }).await
    }
}

/// Run `op` on the extension connected to `slot`, waiting at most `wait` for the answer,
/// decoded as `T`.
pub(crate) async fn call_on<T: DeserializeOwned>(slot: &Slot, op: Op, wait: Duration) -> PortResult<T> {
    let name = op.name();
    let link = slot.live().ok_or_else(|| {
        PortError::new(PortErrorKind::NotConnected, "the Ghostlight extension is not connected")
    })?;
    let value = link.call(op, wait).await.map_err(|e| call_error(e, name))?;
    serde_json::from_value(value).map_err(|_| {
        PortError::new(PortErrorKind::Other, format!("the extension's answer to {name} does not decode"))
            .effect_unknown()
    })
}

impl Drop for ExtensionBrowser {
    fn drop(&mut self) {
        self.acceptor.abort();
        self.slot.clear();
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// How long the server waits for an operation bounded by `timeout`.
pub(crate) fn waited(timeout: Duration) -> Duration {
    timeout.saturating_add(ANSWER_MARGIN)
}

/// A timeout on the wire.
pub(crate) fn millis(timeout: Duration) -> u64 {
    u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX)
}

/// How long the person has to answer a question in the popup.
const CONFIRM_WAIT: Duration = Duration::from_secs(120);

/// What the person answered in the extension's popup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PopupAnswer {
    /// Allow.
    Allowed,
    /// Deny.
    Denied,
    /// The question was dismissed, or its wait ran out.
    Dismissed,
}

impl ExtensionBrowser {
    /// Ask the person `question` in the extension's popup: the toolbar button shows a badge and
    /// the popup asks (the page cannot reach the extension's own pages, and Ghostlight never
    /// drives them). `None` when no extension is connected to ask. The edge binds the answer
    /// to its call (`ghostlight_cli::confirm::PopupConfirmer`); the adapter knows only the
    /// question's words.
    pub async fn ask_person(&self, question: String) -> Option<PopupAnswer> {
        let timeout_ms = u64::try_from(CONFIRM_WAIT.as_millis()).unwrap_or(u64::MAX);
        let op = Op::Confirm { question, timeout_ms };
        // The extension answers `cancelled` itself when the wait ends; the extra seconds only
        // cover the message's way back.
        match self.call::<WireConfirmed>(op, CONFIRM_WAIT + Duration::from_secs(5)).await {
            Ok(answer) => Some(match answer.answer.as_str() {
                "accepted" => PopupAnswer::Allowed,
                "declined" => PopupAnswer::Denied,
                _ => PopupAnswer::Dismissed,
            }),
            Err(_) => None,
        }
    }
}

#[async_trait]
impl BrowserPort for ExtensionBrowser {
    fn engine(&self) -> &str {
        match self.connected().map(|hello| hello.engine) {
            Some(engine) if engine == "chromium" => "chromium",
            Some(engine) if engine == "firefox" => "firefox",
            _ => "extension",
        }
    }

    /// The extension governs the tabs Ghostlight drives, and the tabs their pages open, by
    /// the policy's host patterns (Chromium: `declarativeNetRequest` session rules; Firefox:
    /// blocking `webRequest`), sent to every connection before its first operation and again
    /// whenever they change; the person's other tabs are untouched.
    fn govern_network(&self, policy: NetworkPolicy) -> NetworkEnforcement {
        self.slot.govern(policy);
        if let Some(link) = self.slot.live() {
            link.rules_current.store(false, std::sync::atomic::Ordering::SeqCst);
        }
        NetworkEnforcement::Enforced
    }

    async fn sync_network(&self) -> PortResult<()> {
        if self.slot.live().is_none() {
            // The next connection gets the rules before its first operation.
            return Ok(());
        }
        self.bring_rules_into_force(true).await
    }

    async fn tabs(&self) -> PortResult<Vec<TabInfo>> {
        let tabs: Vec<WireTab> = self.call(Op::TabsList {}, OP_WAIT).await?;
        tabs.into_iter()
            .map(|t| Ok(TabInfo { tab: self.tab_ref(t.tab), page: page_state(t.page)?, active: t.active }))
            .collect()
    }

    /// Tabs driven pages opened (`window.open`, `target=_blank`), from the extension's
    /// `tabs.onCreated` with an opener it drives; tabs the person's own pages open are not.
    async fn opened_tabs(&self) -> PortResult<Vec<TabRef>> {
        let opened: Vec<i64> = self.call(Op::OpenedTabs {}, OP_WAIT).await?;
        Ok(opened.into_iter().map(|id| self.tab_ref(id)).collect())
    }

    async fn open_tab(&self, input: &NavigateInput, timeout: Duration) -> PortResult<OpenedTab> {
        let op = Op::TabOpen { url: input.url.to_string(), timeout_ms: millis(timeout) };
        let opened: WireOpened = self.call(op, waited(timeout)).await?;
        Ok(OpenedTab { tab: self.tab_ref(opened.tab), page: loaded(opened.page)? })
    }

    async fn focus_tab(&self, tab: &TabRef) -> PortResult<Focused> {
        let focused: WireFocused = self.call(Op::TabFocus { tab: self.tab_id(tab)? }, OP_WAIT).await?;
        Ok(Focused { window_focused: focused.window_focused })
    }

    async fn close_tab(&self, tab: &TabRef) -> PortResult<()> {
        self.call(Op::TabClose { tab: self.tab_id(tab)? }, OP_WAIT).await
    }

    async fn page(&self, tab: &TabRef) -> PortResult<PageState> {
        self.tab_page(self.tab_id(tab)?).await
    }

    async fn page_and_gate(&self, tab: &TabRef) -> PortResult<PageState> {
        let op = Op::Page { tab: self.tab_id(tab)?, gate: true };
        page_state(self.call::<WirePage>(op, OP_WAIT).await?)
    }

    async fn navigate(&self, call: &TabCall<'_>, input: &NavigateInput) -> PortResult<PageState> {
        let (tab, timeout) = (call.tab, call.timeout);
        let op = Op::Navigate {
            tab: self.tab_id(tab)?,
            url: input.url.to_string(),
            timeout_ms: millis(timeout),
            discard_beforeunload: input.discard_beforeunload,
        };
        loaded(self.call(op, waited(timeout)).await?)
    }

    async fn history(&self, call: &TabCall<'_>, step: HistoryMove) -> PortResult<PageState> {
        let (tab, timeout) = (call.tab, call.timeout);
        let (step, bypass_cache) = match step {
            HistoryMove::Back => (HistoryStep::Back, false),
            HistoryMove::Forward => (HistoryStep::Forward, false),
            HistoryMove::Reload { bypass_cache } => (HistoryStep::Reload, bypass_cache),
        };
        let op = Op::History { tab: self.tab_id(tab)?, step, bypass_cache, timeout_ms: millis(timeout) };
        loaded(self.call(op, waited(timeout)).await?)
    }

    async fn geometry(&self, tab: &TabRef) -> PortResult<Geometry> {
        self.tab_geometry(self.tab_id(tab)?).await
    }

    async fn set_zoom(&self, tab: &TabRef, percent: u32) -> PortResult<Geometry> {
        self.geometry_of(Op::SetZoom { tab: self.tab_id(tab)?, percent }).await
    }

    async fn resize_window(&self, tab: &TabRef, width: u32, height: u32) -> PortResult<Geometry> {
        self.geometry_of(Op::ResizeWindow { tab: self.tab_id(tab)?, width, height }).await
    }

    async fn read_text(&self, call: &TabCall<'_>, input: &ReadInput) -> PortResult<TextOutcome> {
        let (tab, gate) = (call.tab, &call.gate);
        perception::read_text(self, self.tab_id(tab)?, input, gate).await
    }

    async fn perceive(&self, call: &TabCall<'_>, input: &PerceiveInput) -> PortResult<Perception> {
        let (tab, gate) = (call.tab, &call.gate);
        perception::perceive(self, self.tab_id(tab)?, input, gate).await
    }

    async fn focused_element(&self, tab: &TabRef) -> PortResult<Option<FocusedElement>> {
        perception::focused_element(self, self.tab_id(tab)?).await
    }

    async fn element_present(&self, tab: &TabRef, element: &ElementRef) -> PortResult<bool> {
        perception::element_present(self, self.tab_id(tab)?, element).await
    }

    async fn control_matches(
        &self,
        call: &TabCall<'_>,
        element: &ElementRef,
        expected: &FillValue,
    ) -> PortResult<Option<bool>> {
        input::control_matches(self, call.tab, element, expected, call.timeout).await
    }

    async fn text_present(&self, call: &TabCall<'_>, text: &str) -> PortResult<bool> {
        let (tab, gate) = (call.tab, &call.gate);
        perception::text_present(self, self.tab_id(tab)?, text, gate).await
    }

    async fn capture(&self, call: &TabCall<'_>, kind: &CaptureKind) -> PortResult<Captured> {
        let (tab, gate, timeout) = (call.tab, &call.gate, call.timeout);
        let id = self.tab_id(tab)?;
        let wait = waited(timeout);
        let work = async {
            match kind {
                CaptureKind::Viewport => capture::viewport(self, id, gate, wait).await,
                CaptureKind::FullPage => capture::full_page(self, id, gate, wait).await,
                CaptureKind::Element(element) => capture::element(self, id, element, gate, wait).await,
                CaptureKind::Region { rect, scale } => {
                    capture::region(self, id, rect, *scale, gate, wait).await
                }
            }
        };
        tokio::time::timeout(wait, work).await.unwrap_or_else(|_| {
            Err(PortError::new(PortErrorKind::Timeout, "the capture did not finish in time").effect_unknown())
        })
    }

    async fn click(&self, call: &TabCall<'_>, input: &ClickInput) -> PortResult<ActionReceipt> {
        let (tab, gate, timeout) = (call.tab, &call.gate, call.timeout);
        input::click(self, tab, input, gate, timeout).await
    }

    async fn hover(&self, call: &TabCall<'_>, input: &HoverInput) -> PortResult<ActionReceipt> {
        let (tab, gate, timeout) = (call.tab, &call.gate, call.timeout);
        input::hover(self, tab, input, gate, timeout).await
    }

    async fn scroll(&self, call: &TabCall<'_>, input: &ScrollInput) -> PortResult<ScrollOutcome> {
        let (tab, gate, timeout) = (call.tab, &call.gate, call.timeout);
        input::scroll(self, tab, input, gate, timeout).await
    }

    async fn drag(
        &self,
        call: &TabCall<'_>,
        from: &PointerTarget,
        to: &PointerTarget,
    ) -> PortResult<ActionReceipt> {
        let (tab, gate, timeout) = (call.tab, &call.gate, call.timeout);
        input::drag(self, tab, from, to, gate, timeout).await
    }

    async fn fill(&self, call: &TabCall<'_>, input: &FillInput) -> PortResult<FillOutcome> {
        let (tab, timeout) = (call.tab, call.timeout);
        input::fill(self, tab, input, timeout).await
    }

    async fn type_text(&self, call: &TabCall<'_>, input: &TypeInput) -> PortResult<ActionReceipt> {
        let (tab, timeout) = (call.tab, call.timeout);
        input::type_text(self, tab, input, timeout).await
    }

    async fn press_keys(&self, call: &TabCall<'_>, input: &KeyInput) -> PortResult<ActionReceipt> {
        let (tab, timeout) = (call.tab, call.timeout);
        input::press_keys(self, tab, input, timeout).await
    }

    async fn dialog(&self, tab: &TabRef) -> PortResult<Option<DialogKind>> {
        dialogs::dialog(self, tab).await
    }

    async fn resolve_dialog(&self, tab: &TabRef, resolution: &DialogResolution) -> PortResult<DialogKind> {
        dialogs::resolve_dialog(self, tab, resolution).await
    }

    async fn stat_files(&self, paths: &[PathBuf]) -> PortResult<Vec<FileStat>> {
        // Local metadata only: the server reads the files it uploads.
        let paths = paths.to_vec();
        tokio::task::spawn_blocking(move || ghostlight_page::upload::stat_files(&paths))
            .await
            .map_err(|_| PortError::new(PortErrorKind::Other, "reading file metadata failed"))
    }

    async fn upload(&self, call: &TabCall<'_>, input: &UploadInput) -> PortResult<UploadOutcome> {
        let (tab, gate, timeout) = (call.tab, &call.gate, call.timeout);
        input::upload(self, tab, input, gate, timeout).await
    }

    async fn execute(&self, call: &TabCall<'_>, script: &str) -> PortResult<ScriptOutcome> {
        let (tab, timeout) = (call.tab, call.timeout);
        let op =
            Op::Execute { tab: self.tab_id(tab)?, script: script.to_owned(), timeout_ms: millis(timeout) };
        let outcome: WireScript = self.call(op, waited(timeout)).await?;
        Ok(ScriptOutcome {
            value: outcome.value,
            page: page_state(outcome.page).map_err(PortError::effect_unknown)?,
        })
    }

    async fn diagnostics(&self, tab: &TabRef, query: &DiagnosticsQuery) -> PortResult<DiagnosticsPage> {
        diagnostics::diagnostics(self, tab, query).await
    }

    async fn record(&self, command: &RecordCommand) -> PortResult<RecordReport> {
        self.refuse_while_absent()?;
        recording::record(self, &self.slot, &self.recorder, command).await
    }

    async fn sleep(&self, duration: Duration) {
        tokio::time::sleep(duration).await;
    }
}
