//! The wire protocol between the Ghostlight server and the extension (relayed unchanged by the
//! native host), and the handshake between the host and the server.
//!
//! Extension → server: first a versioned [`Hello`], then answers ([`FromExtension::Result`],
//! [`FromExtension::Error`]) to requests by id. Server → extension: [`ToExtension::Welcome`]
//! once the hello is accepted, then [`ToExtension::Request`]s. Every message is one JSON
//! object with a `type` member. Results are typed per operation (`Wire*` structs) and decoded
//! by the server from the result's `value`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version this crate speaks; a hello with another version is refused.
pub const PROTOCOL_VERSION: u32 = 3;

/// The extension's first message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// The protocol version the extension speaks.
    pub protocol: u32,
    /// The engine it runs in (`chromium`, `firefox`).
    pub engine: String,
    /// The extension's version (`manifest.json`).
    pub extension: String,
    /// The browser run it lives in: random, made once per browser start and kept in the
    /// extension's session storage (a worker that went idle says the same one again), so the
    /// tabs of a browser that closed are never taken for the next browser's tabs. (Absent
    /// from protocol 1's hello, which then decodes and is refused for its version.)
    #[serde(default)]
    pub instance: String,
}

impl Hello {
    /// The longest browser-run id accepted.
    pub const INSTANCE_MAX_CHARS: usize = 64;

    /// Whether the hello's fields are usable: a browser-run id of 1 to
    /// [`Hello::INSTANCE_MAX_CHARS`] lowercase hex digits and a known engine.
    pub fn is_well_formed(&self) -> bool {
        let instance_ok = !self.instance.is_empty()
            && self.instance.len() <= Self::INSTANCE_MAX_CHARS
            && self.instance.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        instance_ok && matches!(self.engine.as_str(), "chromium" | "firefox")
    }
}

/// A message from the extension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromExtension {
    /// The first message after connecting.
    Hello(Hello),
    /// A request's answer.
    Result {
        /// The request's id.
        id: u64,
        /// The operation's result (decoded per operation).
        value: Value,
    },
    /// A request that failed.
    Error {
        /// The request's id.
        id: u64,
        /// What went wrong.
        #[serde(flatten)]
        error: WireError,
    },
    /// Unasked: the extension stopped a request of a tab Ghostlight drives because its host
    /// is outside the rules ([`Op::NetworkRules`]). Sent as soon as it happened, so it
    /// arrives before the answer of the operation during which it happened.
    Refused {
        /// Where it was going: `scheme://host:port/`, never a path or query.
        url: String,
        /// `document`, `frame`, `resource` or `unknown`.
        kind: String,
    },
}

/// A failure the extension reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireError {
    /// The closed code.
    pub code: ErrorCode,
    /// For operators (never shown to the model: it may quote a browser message).
    #[serde(default)]
    pub message: String,
    /// Whether anything may have happened.
    #[serde(default)]
    pub effect: WireEffect,
    /// Code-specific detail (a script failure's name, message and whether it ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Value>,
}

/// The closed failure codes of the extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The tab no longer exists.
    TabGone,
    /// The browser did not finish in time.
    Timeout,
    /// The person paused Ghostlight in the extension's popup.
    Paused,
    /// The element or frame document a reference names is gone (navigated, removed).
    Stale,
    /// The extension cannot do this operation.
    Unsupported,
    /// The preserve-tabs interlock keeps the tab open.
    TabPreserved,
    /// The caller's script failed (detail: name, message, ran).
    ScriptError,
    /// The work would reach the extension's own pages (the person's controls), which
    /// Ghostlight never drives.
    OwnPage,
    /// The recording is unknown to the extension: never started, discarded, past its
    /// retention, or lost when the extension's background restarted.
    UnknownRecording,
    /// The browser refused or failed otherwise.
    BrowserError,
    /// A JavaScript dialog blocks the tab (detail: `{dialog}`, its kind).
    DialogOpen,
    /// No dialog is open to resolve.
    NoDialog,
    /// A response was given to a dialog that is not a prompt.
    NotPrompt,
    /// The page did not load (detail: [`WireLoadFailure`], the browser's code).
    NetworkError,
    /// A code this version does not know.
    #[serde(other)]
    Other,
}

/// Whether a failed operation may have had an effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireEffect {
    /// Nothing happened.
    None,
    /// Something may have happened (the default when the extension does not say).
    #[default]
    Unknown,
}

/// A message to the extension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToExtension {
    /// The hello was accepted: the connection is live.
    Welcome,
    /// The hello was refused and the connection ends; `message` says why, for the person (the
    /// extension's popup shows it).
    Refused {
        /// Why, in a sentence with the remedy.
        message: String,
    },
    /// An operation to run.
    Request {
        /// Unique on this connection; the answer carries it.
        id: u64,
        /// What to do.
        #[serde(flatten)]
        op: Op,
    },
}

/// The operations of the extension. Tabs are the browser's own tab ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", content = "args", rename_all = "snake_case")]
pub enum Op {
    /// Ask the person in the extension's popup to confirm one call ([`WireConfirmed`]): the
    /// toolbar button shows a badge and the popup the question with Allow and Deny; no answer
    /// within `timeout_ms` is `cancelled`.
    Confirm {
        /// The question (payload-free: tool, action, host, control).
        question: String,
        /// The longest wait for the answer.
        timeout_ms: u64,
    },
    /// Every tab with its page ([`WireTab`]s).
    TabsList {},
    /// Tabs pages Ghostlight drives opened by themselves since the last call, oldest first
    /// (tab ids).
    OpenedTabs {},
    /// Open a tab at `url` and wait for its load ([`WireOpened`]).
    TabOpen {
        /// Where.
        url: String,
        /// The longest wait for the load.
        timeout_ms: u64,
    },
    /// Select a tab and focus its window ([`WireFocused`]).
    TabFocus {
        /// The tab.
        tab: i64,
    },
    /// Close a tab (null), unless the preserve-tabs interlock is on.
    TabClose {
        /// The tab.
        tab: i64,
    },
    /// What the tab shows ([`WirePage`]).
    Page {
        /// The tab.
        tab: i64,
        /// Look also for a gate the loaded page presents ([`WirePage::gate`]), in the same
        /// call. (Navigations, history moves and opened tabs always look.)
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        gate: bool,
    },
    /// Navigate and wait for the load ([`WirePage`]).
    Navigate {
        /// The tab.
        tab: i64,
        /// Where.
        url: String,
        /// The longest wait for the load.
        timeout_ms: u64,
        /// Accept the leave-page prompt this navigation raises (Chromium); otherwise it
        /// answers `dialog_open`.
        #[serde(default)]
        discard_beforeunload: bool,
    },
    /// Back, forward or reload, and wait for the load ([`WirePage`]).
    History {
        /// The tab.
        tab: i64,
        /// Which move.
        step: HistoryStep,
        /// Reload bypassing the cache.
        bypass_cache: bool,
        /// The longest wait for the load.
        timeout_ms: u64,
    },
    /// The tab's geometry ([`WireGeometry`]).
    Geometry {
        /// The tab.
        tab: i64,
    },
    /// Set the tab's zoom ([`WireGeometry`]).
    SetZoom {
        /// The tab.
        tab: i64,
        /// Percent.
        percent: u32,
    },
    /// Resize the tab's window ([`WireGeometry`]).
    ResizeWindow {
        /// The tab.
        tab: i64,
        /// Outer width.
        width: u32,
        /// Outer height.
        height: u32,
    },
    /// Select the tab and capture its viewport ([`WireCapture`]).
    CaptureViewport {
        /// The tab.
        tab: i64,
        /// Document rectangles to paint over (`[x, y, width, height]`, CSS pixels).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        blank: Vec<[f64; 4]>,
    },
    /// Run the caller's script ([`WireScript`]).
    Execute {
        /// The tab.
        tab: i64,
        /// The source.
        script: String,
        /// The longest wait for its value.
        timeout_ms: u64,
    },
    /// Start an (empty) recording of the tab, with the bounds it keeps ([`WireRecordReport`]).
    RecordStart {
        /// The tab.
        tab: i64,
        /// The bounds of the recording.
        bounds: WireRecordBounds,
    },
    /// What the recorded tab shows now, for the server's gate ([`WireRecordTarget`]).
    RecordTarget {
        /// The recording.
        recording: String,
    },
    /// Capture one frame if `url` (the page the server's gate judged) is admitted and still
    /// shown; then stop when `stop` ([`WireRecordReport`]).
    RecordFrame {
        /// The recording.
        recording: String,
        /// The page judged; none when there was nothing to judge.
        url: Option<String>,
        /// The gate's verdict on `url` (and its frames).
        admitted: bool,
        /// Stop after this frame (`requested`).
        stop: bool,
    },
    /// A recording's report ([`WireRecordReport`]).
    RecordStatus {
        /// The recording.
        recording: String,
    },
    /// Stop if recording, encode once, deliver ([`WireRecordReport`], with the GIF for the
    /// client).
    RecordSave {
        /// The recording.
        recording: String,
        /// Where the replay goes.
        delivery: WireDelivery,
    },
    /// Stop if recording, encode once, and hold the replay's base64 (as JSON text) under `key`
    /// for the next [`Op::PageCall`] naming it ([`WireRecordReport`]): a save to a file input,
    /// attached in the input's document without the replay leaving the browser.
    RecordHold {
        /// The recording.
        recording: String,
        /// The key to hold it under.
        key: String,
    },
    /// Erase a recording ([`WireRecordReport`]).
    RecordDiscard {
        /// The recording.
        recording: String,
    },
    // ---- input and dialogs ----
    /// Run one of the server's input scripts in the page's main world, without a user gesture
    /// ([`WireScript`]; refused while a dialog is open).
    PageScript {
        /// The tab.
        tab: i64,
        /// The composed source (an expression).
        source: String,
        /// The key of parts held by [`Op::StashPart`], spliced in for the source's marker
        /// (`__ghostlight_stash__`) and then dropped.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stash: Option<String>,
        /// The longest wait for its value.
        timeout_ms: u64,
    },
    /// Hold one part of a text too large for one message, under `key` (`first`: a new text;
    /// any other key held is dropped). Answers the characters held.
    StashPart {
        /// The text's key.
        key: String,
        /// The part.
        part: String,
        /// Whether this part starts the text.
        first: bool,
    },
    /// Move the pointer to a viewport point and click `count` times (0: hover) ([`WireActed`]).
    Mouse {
        /// The tab.
        tab: i64,
        /// Viewport x (CSS px).
        x: f64,
        /// Viewport y (CSS px).
        y: f64,
        /// Which button.
        button: WireButton,
        /// 0 to 3 clicks.
        count: u8,
        /// The modifier keys held, as DevTools' bits (Alt 1, Control 2, Meta 4, Shift 8).
        modifiers: u8,
        /// The longest wait.
        timeout_ms: u64,
    },
    /// Press at one point, move to another, release ([`WireActed`]).
    Drag {
        /// The tab.
        tab: i64,
        /// Where the press is.
        from: WirePoint,
        /// Where the release is.
        to: WirePoint,
        /// The longest wait.
        timeout_ms: u64,
    },
    /// Turn the wheel at a viewport point ([`WireActed`]).
    Wheel {
        /// The tab.
        tab: i64,
        /// Viewport x.
        x: f64,
        /// Viewport y.
        y: f64,
        /// Vertical delta (CSS px, negative is up).
        delta_y: f64,
        /// The longest wait.
        timeout_ms: u64,
    },
    /// Key strokes to the focused element ([`WireActed`]).
    Keys {
        /// The tab.
        tab: i64,
        /// The strokes, in order.
        strokes: Vec<WireKey>,
        /// Modifier keys held around every stroke.
        held: Vec<WireKey>,
        /// DevTools' modifier bits of `held` (Alt 1, Control 2, Meta 4, Shift 8).
        modifiers: u8,
        /// How many times the strokes are sent.
        repeat: u32,
        /// The longest wait.
        timeout_ms: u64,
    },
    /// The kind of the dialog blocking the tab (a [`WireDialogKind`] or null).
    Dialog {
        /// The tab.
        tab: i64,
    },
    /// Accept or dismiss the open dialog (a [`WireDialogKind`], the kind resolved).
    ResolveDialog {
        /// The tab.
        tab: i64,
        /// Accept (OK) or dismiss (Cancel).
        accept: bool,
        /// A prompt's response (accepting).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// The longest wait for a navigation an accepted leave-page prompt held.
        timeout_ms: u64,
    },
    // ---- network ----
    /// Govern the requests of the tabs Ghostlight drives (and the tabs their pages open) by
    /// these host patterns from now on (see `ghostlight_core::port::WireRules`); answers once
    /// they are in force.
    NetworkRules {
        /// Hosts every request may reach.
        allowed: Vec<String>,
        /// Hosts no request may reach.
        denied: Vec<String>,
        /// Hosts subresources may also reach.
        resources: Vec<String>,
    },

    // ---- diagnostics ----
    /// Start tracking the tab's console and network evidence (first call) and hand over what
    /// was gathered since the last call ([`WireEvidence`]).
    DiagnosticsTake {
        /// The tab.
        tab: i64,
        /// The most entries held between two calls (older ones are dropped and counted).
        max_entries: usize,
        /// Characters of console text kept per entry.
        max_text_chars: usize,
    },

    // ---- perception (the page API, `extension/page/dom.js`) ----
    /// Call one function of the page API in one frame document (its value).
    PageCall {
        /// The tab.
        tab: i64,
        /// The extension's frame id (0: the top document).
        frame: i64,
        /// Which function.
        call: PageFn,
        /// Its arguments.
        args: Vec<Value>,
        /// The key of a text held by [`Op::StashPart`] or [`Op::RecordHold`] (JSON): its value
        /// stands for each argument (or input script argument) that is the marker
        /// (`__ghostlight_stash__`), and it is dropped.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stash: Option<String>,
    },
    /// Every frame document of the tab the extension can script ([`WireFrameDoc`]s).
    PageFrames {
        /// The tab.
        tab: i64,
    },

    // ---- capture beyond the viewport ----
    /// Select the tab and capture a rectangle of its document (CSS pixels), at its natural
    /// scale or resized to `out_width` × `out_height` ([`WireCapture`]).
    CaptureArea {
        /// The tab.
        tab: i64,
        /// Left edge (document CSS pixels).
        x: f64,
        /// Top edge (document CSS pixels).
        y: f64,
        /// Width (CSS pixels).
        width: f64,
        /// Height (CSS pixels).
        height: f64,
        /// The output width in pixels (natural scale when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        out_width: Option<u32>,
        /// The output height in pixels (natural scale when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        out_height: Option<u32>,
        /// Document rectangles to paint over (`[x, y, width, height]`, CSS pixels).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        blank: Vec<[f64; 4]>,
    },
}

impl Op {
    /// The operation's wire name, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Confirm { .. } => "confirm",
            Op::TabsList {} => "tabs_list",
            Op::OpenedTabs {} => "opened_tabs",
            Op::TabOpen { .. } => "tab_open",
            Op::TabFocus { .. } => "tab_focus",
            Op::TabClose { .. } => "tab_close",
            Op::Page { .. } => "page",
            Op::Navigate { .. } => "navigate",
            Op::History { .. } => "history",
            Op::Geometry { .. } => "geometry",
            Op::SetZoom { .. } => "set_zoom",
            Op::ResizeWindow { .. } => "resize_window",
            Op::CaptureViewport { .. } => "capture_viewport",
            Op::Execute { .. } => "execute",
            Op::RecordStart { .. } => "record_start",
            Op::RecordTarget { .. } => "record_target",
            Op::RecordFrame { .. } => "record_frame",
            Op::RecordStatus { .. } => "record_status",
            Op::RecordSave { .. } => "record_save",
            Op::RecordHold { .. } => "record_hold",
            Op::RecordDiscard { .. } => "record_discard",
            Op::PageScript { .. } => "page_script",
            Op::StashPart { .. } => "stash_part",
            Op::Mouse { .. } => "mouse",
            Op::Drag { .. } => "drag",
            Op::Wheel { .. } => "wheel",
            Op::Keys { .. } => "keys",
            Op::Dialog { .. } => "dialog",
            Op::ResolveDialog { .. } => "resolve_dialog",
            Op::NetworkRules { .. } => "network_rules",
            Op::DiagnosticsTake { .. } => "diagnostics_take",
            Op::PageCall { .. } => "page_call",
            Op::PageFrames { .. } => "page_frames",
            Op::CaptureArea { .. } => "capture_area",
        }
    }
}

/// The person's answer to [`Op::Confirm`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireConfirmed {
    /// `accepted`, `declined` or `cancelled`.
    pub answer: String,
}

/// The page API's functions (`ghostlight-page/scripts/page_api.js`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PageFn {
    /// The document's identity, URL and frame path ([`WireFrameDoc`] without the frame id).
    Here,
    /// Perception (`perceive.js`).
    Perceive,
    /// Whether an element is attached and shown (`element_present.js`).
    Present,
    /// Text of the page or one element (`read_text.js`).
    ReadText,
    /// Whether a document's visible text contains a query (`text_present.js`).
    TextPresent,
    /// The document's visible frames (`frames_here.js`).
    Frames,
    /// An element's box (`capture_element.js`) and its corner in its frame's viewport.
    Box,
    /// Where one of a document's frames sits in its viewport (content corner, box).
    FrameOffset,
    /// The document's CSS size (`capture_page_size.js`).
    PageSize,
    /// The first element a CSS selector matches (tests).
    Select,
    /// An input script (`scripts/input/*.js`) run in a document's isolated world.
    Input,
    /// Whether input at a viewport point of a document goes into one of its frames.
    FrameAt,
}

/// One frame document the extension can script.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireFrameDoc {
    /// The extension's frame id (0: the top document).
    pub frame: i64,
    /// The document's identity in the page API (its registry's nonce).
    pub doc: String,
    /// The document's URL.
    pub url: String,
    /// The index of each window among its parent's frames, from the top down (empty for the
    /// top document; -1 where a window could not be found).
    pub path: Vec<i64>,
}

/// A move through history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HistoryStep {
    /// One entry back.
    Back,
    /// One entry forward.
    Forward,
    /// Reload.
    Reload,
}

/// What a tab shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WirePage {
    /// The URL.
    pub url: String,
    /// The title.
    #[serde(default)]
    pub title: String,
    /// `document.readyState` (`loading`, `interactive`, `complete`).
    pub ready: String,
    /// The document's identity.
    pub document: String,
    /// The HTTP status (0 when unknown).
    #[serde(default)]
    pub status: u16,
    /// Whether the tab shows the browser's error page for a failed load.
    #[serde(default)]
    pub error_page: bool,
    /// The gate the loaded page presents (`ghostlight-page`'s `gate.js` token: `login`,
    /// `consent`, `challenge`, `rate_limit`), when the call looked for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
}

/// One tab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireTab {
    /// The browser's tab id.
    pub tab: i64,
    /// Selected in its window.
    pub active: bool,
    /// What it shows.
    pub page: WirePage,
}

/// A tab opened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireOpened {
    /// The browser's tab id.
    pub tab: i64,
    /// What it shows after the load.
    pub page: WirePage,
}

/// A focus's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireFocused {
    /// Whether the window has the system focus.
    pub window_focused: bool,
}

/// A tab's geometry.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WireGeometry {
    /// Viewport width (CSS px).
    pub viewport_width: u32,
    /// Viewport height (CSS px).
    pub viewport_height: u32,
    /// Window outer width.
    pub window_width: u32,
    /// Window outer height.
    pub window_height: u32,
    /// `devicePixelRatio`.
    pub device_scale: f64,
    /// Zoom in percent.
    pub zoom_percent: u32,
    /// Horizontal scroll.
    pub scroll_x: f64,
    /// Vertical scroll.
    pub scroll_y: f64,
}

/// A viewport capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireCapture {
    /// Base64 PNG.
    pub png: String,
    /// The geometry at capture time.
    pub geometry: WireGeometry,
}

/// A script's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireScript {
    /// Its completion value (DOM references as marker strings).
    pub value: Value,
    /// The page afterwards.
    pub page: WirePage,
}

// ---- input and dialogs ----

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireButton {
    /// The main button.
    Primary,
    /// The wheel button.
    Middle,
    /// The context-menu button.
    Secondary,
}

/// A viewport point (CSS px).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WirePoint {
    /// From the viewport's left edge.
    pub x: f64,
    /// From the viewport's top edge.
    pub y: f64,
}

/// One key as DevTools dispatches it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireKey {
    /// `KeyboardEvent.key`.
    pub key: String,
    /// `KeyboardEvent.code` (empty when the key has no fixed place).
    pub code: String,
    /// The Windows virtual key code (0 when none).
    pub key_code: u32,
    /// The text the key types, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// The kinds of JavaScript dialog, as the extension names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireDialogKind {
    /// `alert()`.
    Alert,
    /// `confirm()`.
    Confirm,
    /// `prompt()`.
    Prompt,
    /// A leave-page prompt.
    Beforeunload,
}

/// What trusted input did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireActed {
    /// The page afterwards (null when a dialog the input opened blocks reading it).
    #[serde(default)]
    pub page: Option<WirePage>,
    /// The dialog the input opened, if any.
    #[serde(default)]
    pub dialog: Option<WireDialogKind>,
}

/// The detail of [`ErrorCode::DialogOpen`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireDialogOpen {
    /// The open dialog's kind.
    pub dialog: WireDialogKind,
}

/// How a script failed (the detail of [`ErrorCode::ScriptError`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireScriptFailure {
    /// The error's name.
    #[serde(default)]
    pub name: String,
    /// Its message.
    #[serde(default)]
    pub message: String,
    /// Whether any of the script ran.
    #[serde(default)]
    pub ran: bool,
}

// ---- diagnostics and failed loads ----

/// The detail of [`ErrorCode::NetworkError`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireLoadFailure {
    /// The browser's code (`net::ERR_CONNECTION_REFUSED`, `NS_ERROR_UNKNOWN_HOST`, …).
    pub browser_code: String,
}

/// Evidence gathered for a tab since the last [`Op::DiagnosticsTake`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireEvidence {
    /// Whether this call started tracking the tab.
    pub started: bool,
    /// Whether the tab's console is watched (false on engines without a console source).
    #[serde(default)]
    pub console: bool,
    /// The entries, oldest first.
    #[serde(default)]
    pub entries: Vec<WireEvidenceEntry>,
    /// Entries dropped in the extension past its bound since the last call.
    #[serde(default)]
    pub lost: u64,
}

/// One piece of evidence as the extension gathered it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum WireEvidenceEntry {
    /// A console message.
    Console {
        /// `error`, `warning`, `info`, `debug` or `exception`.
        level: String,
        /// Its text (bounded by the extension).
        #[serde(default)]
        text: String,
    },
    /// A response, or a failed request.
    Network {
        /// The HTTP method.
        #[serde(default)]
        method: String,
        /// The HTTP status (0: none).
        #[serde(default)]
        status: u16,
        /// The URL, if it parsed.
        #[serde(default)]
        url: Option<String>,
        /// Whether the request failed (no response).
        #[serde(default)]
        failed: bool,
    },
}

/// The bounds a recording keeps (the server's [`RecordBounds`](ghostlight_core::port::RecordBounds)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireRecordBounds {
    /// Milliseconds between two frame captures.
    pub interval_ms: u64,
    /// Frames kept at most.
    pub max_frames: u64,
    /// Bytes of kept (compressed) frames at most.
    pub max_frame_bytes: u64,
    /// Milliseconds capture may run.
    pub time_limit_ms: u64,
    /// Milliseconds a stopped recording keeps its frames.
    pub retention_ms: u64,
    /// Recordings held at once.
    pub max_recordings: u64,
    /// Widest kept frame.
    pub max_frame_width: u32,
    /// Tallest kept frame.
    pub max_frame_height: u32,
    /// Largest GIF delivered.
    pub max_gif_bytes: u64,
    /// Shortest frame delay, in 1/100 s.
    pub min_delay_cs: u16,
}

/// Where a saved replay goes, inside the browser or out to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireDelivery {
    /// The answer carries the GIF (base64).
    Client,
    /// The browser saves it as a download.
    Download,
}

/// What a recorded tab shows, for the server's gate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireRecordTarget {
    /// Whether the recording still captures.
    pub recording: bool,
    /// The tab's URL while it is the active tab of its window (none otherwise).
    #[serde(default)]
    pub url: Option<String>,
    /// The URLs of its frame documents (none when they could not be read).
    #[serde(default)]
    pub frames: Option<Vec<String>>,
}

/// The state of a recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireRecordingState {
    /// Capturing frames.
    Recording,
    /// Stopped, frames kept until retention expires.
    Stopped,
    /// Erased.
    Discarded,
}

/// A recording's report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireRecordReport {
    /// The extension's recording id.
    pub recording: String,
    /// Its state.
    pub state: WireRecordingState,
    /// Frames kept.
    pub frames: u32,
    /// Frames captured.
    pub captured_frames: u32,
    /// Captures skipped for a page outside the gate.
    pub skipped_frames: u32,
    /// The GIF's size after a save, else the kept frames' bytes.
    pub bytes: u64,
    /// Playing time.
    pub duration_ms: u64,
    /// Frame width.
    pub width: u32,
    /// Frame height.
    pub height: u32,
    /// Milliseconds until capture stops on its own, while recording.
    #[serde(default)]
    pub capture_deadline_ms: Option<u64>,
    /// Milliseconds until the frames are erased, once stopped.
    #[serde(default)]
    pub retention_deadline_ms: Option<u64>,
    /// Why capture stopped.
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// The GIF (base64), for a client save.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gif: Option<String>,
}

/// The host's first message on the server's socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HostHello {
    /// The host's half of the proof, and who started it.
    Auth {
        /// The host's half of the shared secret (hex).
        proof: String,
        /// The caller the browser named (`chrome-extension://ID/` or a Firefox add-on id).
        origin: String,
        /// The protocol version the host relays.
        protocol: u32,
    },
}

/// The server's answer to [`HostHello`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerAuth {
    /// The host is accepted; the server's half of the proof (hex).
    Accepted {
        /// The server's half of the shared secret.
        proof: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn requests_carry_type_id_op_and_args() {
        let request = ToExtension::Request { id: 7, op: Op::Page { tab: 3, gate: false } };
        let value = serde_json::to_value(&request).expect("encodes");
        assert_eq!(value, json!({"type": "request", "id": 7, "op": "page", "args": {"tab": 3}}));
        let back: ToExtension = serde_json::from_value(value).expect("decodes");
        assert_eq!(back, request);
        let list =
            serde_json::to_value(ToExtension::Request { id: 1, op: Op::TabsList {} }).expect("encodes");
        assert_eq!(list, json!({"type": "request", "id": 1, "op": "tabs_list", "args": {}}));
        let opened =
            serde_json::to_value(ToExtension::Request { id: 2, op: Op::OpenedTabs {} }).expect("encodes");
        assert_eq!(opened, json!({"type": "request", "id": 2, "op": "opened_tabs", "args": {}}));
        assert_eq!(Op::OpenedTabs {}.name(), "opened_tabs");
        assert_eq!(serde_json::to_value(ToExtension::Welcome).expect("encodes"), json!({"type": "welcome"}));
    }

    #[test]
    fn hello_results_and_errors_decode() {
        let hello: FromExtension = serde_json::from_value(
            json!({"type": "hello", "protocol": 2, "engine": "chromium", "extension": "0.1.0", "instance": "0a9f"}),
        )
        .expect("a hello");
        let FromExtension::Hello(hello) = hello else { panic!("a hello") };
        assert_eq!(hello.protocol, 2);
        assert!(hello.is_well_formed());
        for (engine, instance) in
            [("chromium", ""), ("chromium", "0A9F"), ("chromium", "1:2"), ("webkit", "0a")]
        {
            let odd = Hello { engine: engine.into(), instance: instance.into(), ..hello.clone() };
            assert!(!odd.is_well_formed(), "{engine} {instance}");
        }
        let long = Hello { instance: "a".repeat(Hello::INSTANCE_MAX_CHARS + 1), ..hello.clone() };
        assert!(!long.is_well_formed());
        let error: FromExtension = serde_json::from_value(
            json!({"type": "error", "id": 2, "code": "tab_gone", "message": "gone", "effect": "none"}),
        )
        .expect("an error");
        let FromExtension::Error { id: 2, error } = error else { panic!("an error") };
        assert_eq!((error.code, error.effect), (ErrorCode::TabGone, WireEffect::None));
        let unknown: FromExtension =
            serde_json::from_value(json!({"type": "error", "id": 3, "code": "new_in_v2"})).expect("an error");
        let FromExtension::Error { error, .. } = unknown else { panic!("an error") };
        assert_eq!((error.code, error.effect), (ErrorCode::Other, WireEffect::Unknown));
    }

    #[test]
    fn input_requests_and_answers_have_their_wire_shape() {
        let keys = Op::Keys {
            tab: 1,
            strokes: vec![WireKey {
                key: "a".into(),
                code: "KeyA".into(),
                key_code: 65,
                text: Some("a".into()),
            }],
            held: Vec::new(),
            modifiers: 0,
            repeat: 2,
            timeout_ms: 5,
        };
        let value = serde_json::to_value(ToExtension::Request { id: 3, op: keys }).expect("encodes");
        assert_eq!(value["op"], json!("keys"));
        assert_eq!(
            value["args"]["strokes"][0],
            json!({"key": "a", "code": "KeyA", "key_code": 65, "text": "a"})
        );
        let resolve = Op::ResolveDialog { tab: 1, accept: false, text: None, timeout_ms: 5 };
        let value = serde_json::to_value(&resolve).expect("encodes");
        assert_eq!(
            value["args"],
            json!({"tab": 1, "accept": false, "timeout_ms": 5}),
            "no text unless a response"
        );
        let acted: WireActed =
            serde_json::from_value(json!({"page": null, "dialog": "beforeunload"})).expect("decodes");
        assert_eq!(acted.dialog, Some(WireDialogKind::Beforeunload));
        let kind: Option<WireDialogKind> = serde_json::from_value(json!(null)).expect("no dialog");
        assert_eq!(kind, None);
    }

    #[test]
    fn evidence_answers_decode() {
        let take = Op::DiagnosticsTake { tab: 4, max_entries: 10, max_text_chars: 20 };
        let value = serde_json::to_value(&take).expect("encodes");
        assert_eq!(
            value,
            json!({"op": "diagnostics_take", "args": {"tab": 4, "max_entries": 10, "max_text_chars": 20}})
        );
        let evidence: WireEvidence = serde_json::from_value(json!({
            "started": true,
            "console": true,
            "entries": [
                {"source": "console", "level": "error", "text": "boom"},
                {"source": "network", "method": "GET", "status": 404, "url": "http://h/x", "failed": false},
                {"source": "network", "method": "GET", "status": 0, "url": null, "failed": true}
            ],
            "lost": 2
        }))
        .expect("decodes");
        assert_eq!(evidence.entries.len(), 3);
        assert_eq!(evidence.lost, 2);
        let failure: WireLoadFailure =
            serde_json::from_value(json!({"browser_code": "net::ERR_CONNECTION_REFUSED"})).expect("decodes");
        assert_eq!(failure.browser_code, "net::ERR_CONNECTION_REFUSED");
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic_the_decoders(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = serde_json::from_slice::<FromExtension>(&bytes);
            let _ = serde_json::from_slice::<ToExtension>(&bytes);
            let _ = serde_json::from_slice::<HostHello>(&bytes);
            let _ = serde_json::from_slice::<ServerAuth>(&bytes);
        }

        #[test]
        fn arbitrary_json_never_panics_the_decoders(text in "\\{(\"(type|id|op|args|code|value|effect)\":(\"[a-z_]{0,9}\"|[0-9]{1,3}|null|\\{\\}),?){0,6}\\}") {
            let _ = serde_json::from_str::<FromExtension>(&text);
            let _ = serde_json::from_str::<ToExtension>(&text);
        }
    }
}
