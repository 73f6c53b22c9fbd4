//! Typed inputs and outcomes of [`BrowserPort`](super::BrowserPort) operations.
//!
//! References to tabs, elements and recordings are adapter-defined opaque tokens: a WebDriver
//! adapter may encode a window handle and an element id, an extension adapter a tab id and a
//! node id. Core never looks inside them; it binds them to its own handles.
//!
//! Coordinates are CSS pixels. [`Point`]s given to input operations are relative to the
//! top-left of the viewport; [`Captured::origin`] is in document coordinates.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use url::Url;

use crate::envelope::Readiness;
use crate::vocab::{
    CredentialClass, DiagnoseDetail, DiagnoseSource, FillValue, GateKind, Key, Modifier, MouseButton,
    ScrollDirection,
};

macro_rules! opaque_ref {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub struct $name(String);

        impl $name {
            /// Wrap an adapter-defined token.
            pub fn new(token: impl Into<String>) -> Self {
                $name(token.into())
            }

            /// The adapter-defined token.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }
    };
}

opaque_ref! {
    /// An adapter's reference to one browser tab.
    TabRef
}

opaque_ref! {
    /// An adapter's reference to one element of one document. It goes stale with its document.
    ElementRef
}

opaque_ref! {
    /// An adapter's identity of a document (e.g. `performance.timeOrigin` + URL). Core turns
    /// changes of identity into document generations.
    DocumentId
}

opaque_ref! {
    /// An adapter's reference to one recording.
    RecordingRef
}

/// Which documents one call may reach: the executor's authority as a predicate over document
/// URLs. Operations that perceive or read a page, deliver pointer input at a point or capture
/// pixels take one, and the adapter applies it where the text, input or pixels come from: a
/// frame the gate refuses is neither perceived nor read nor searched; pointer input whose
/// hit lands in a frame whose document the gate refuses is not delivered
/// ([`PortError::outside_authority`](super::PortError::outside_authority)); a frame the gate
/// refuses is blanked in captures and recordings, and a recording keeps no frame while the
/// tab's page itself is refused.
#[derive(Clone)]
pub struct Gate(Arc<dyn Fn(&Url) -> bool + Send + Sync>);

impl Gate {
    /// A gate admitting the documents `admits` accepts.
    pub fn new(admits: impl Fn(&Url) -> bool + Send + Sync + 'static) -> Self {
        Gate(Arc::new(admits))
    }

    /// A gate admitting every document (for an adapter's own tests and tools without
    /// authority).
    pub fn open() -> Self {
        Gate::new(|_| true)
    }

    /// Whether a document at `url` may be reached.
    pub fn admits(&self, url: &Url) -> bool {
        (self.0)(url)
    }
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Gate")
    }
}

impl PartialEq for Gate {
    /// Gates are equal when they are the same predicate.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// One tab-bound port call's context: the tab it works in, the documents it may reach
/// ([`Gate`]), and how long it may take. Every operation on a tab's page takes one, so a new
/// bound or check reaches every operation without a new argument.
#[derive(Debug, Clone, PartialEq)]
pub struct TabCall<'a> {
    /// The tab.
    pub tab: &'a TabRef,
    /// The documents the call may read, act in or capture.
    pub gate: Gate,
    /// How long the call may wait for the page; an adapter answers
    /// [`PortErrorKind::Timeout`](super::PortErrorKind::Timeout) when it runs out.
    pub timeout: Duration,
}

impl<'a> TabCall<'a> {
    /// A call on `tab` reaching what `gate` admits, within `timeout`.
    pub fn new(tab: &'a TabRef, gate: &Gate, timeout: Duration) -> Self {
        TabCall { tab, gate: gate.clone(), timeout }
    }

    /// A read of `tab`'s page (text, perception, a search, a presence check), whose tools
    /// have no `timeout_ms`: bounded by [`READ_CALL_MS`](crate::limits::READ_CALL_MS).
    pub fn reading(tab: &'a TabRef, gate: &Gate) -> Self {
        TabCall::new(tab, gate, Duration::from_millis(crate::limits::READ_CALL_MS))
    }
}

/// The document a read (or a step scroll) expects its tab to show: the one the executor last
/// observed there and authorized. Work given one ([`BrowserPort::read_text_in`],
/// [`BrowserPort::perceive_in`], [`BrowserPort::scroll_in`]) reads the page state and, only
/// while the tab still shows this document, does its work, in one round trip where the
/// adapter can: nothing runs in a document the executor has not authorized.
///
/// [`BrowserPort::read_text_in`]: super::BrowserPort::read_text_in
/// [`BrowserPort::perceive_in`]: super::BrowserPort::perceive_in
/// [`BrowserPort::scroll_in`]: super::BrowserPort::scroll_in
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedDocument {
    /// The document's identity, as the adapter reported it.
    pub document: DocumentId,
    /// The URL the tab showed when the executor last saw it: the one it authorized. An
    /// adapter may check the document's origin against it (an identity a page could copy; an
    /// origin it cannot).
    pub url: Url,
    /// Whether the page-state read also looks for a gate ([`PageState::gate`]), as
    /// [`BrowserPort::page_and_gate`](super::BrowserPort::page_and_gate) does.
    pub look_for_gate: bool,
}

/// Work done in an [`ExpectedDocument`] (a read, a step scroll): the page state read with it,
/// and the work's answer when the tab still showed the expected document (`None`: another
/// document, left untouched).
#[derive(Debug, Clone, PartialEq)]
pub struct InDocument<T> {
    /// What the tab showed when the read was made.
    pub page: PageState,
    /// The read's answer; `None` when `page` is another document than the expected one.
    pub answer: Option<T>,
}

impl ExpectedDocument {
    /// Whether `page` shows this document (so a read may run in it).
    #[must_use]
    pub fn is_shown_by(&self, page: &PageState) -> bool {
        page.document == self.document
    }
}

/// What a tab shows right now.
#[derive(Debug, Clone, PartialEq)]
pub struct PageState {
    /// The current URL (may be `about:blank`).
    pub url: Url,
    /// The document title, unbounded page text (core bounds it).
    pub title: String,
    /// `document.readyState`.
    pub readiness: Readiness,
    /// The document's identity.
    pub document: DocumentId,
    /// The HTTP status of the response the document came from, when the browser reports one
    /// (`None` for `about:blank`, documents from the cache or history, or an engine that does
    /// not say).
    pub http_status: Option<u16>,
    /// The gate the page presents instead of its content (a sign-in wall, a consent
    /// interstitial, a human-verification challenge, a rate limit), when the read looked for
    /// one: the landing of [`BrowserPort::navigate`], [`BrowserPort::history`] and
    /// [`BrowserPort::open_tab`], and [`BrowserPort::page_and_gate`]. `None` when there is no
    /// gate, the document has not finished loading, the read did not look, or the port does
    /// not detect gates. Detection is precision-first and advisory.
    ///
    /// [`BrowserPort::navigate`]: super::BrowserPort::navigate
    /// [`BrowserPort::history`]: super::BrowserPort::history
    /// [`BrowserPort::open_tab`]: super::BrowserPort::open_tab
    /// [`BrowserPort::page_and_gate`]: super::BrowserPort::page_and_gate
    pub gate: Option<GateKind>,
}

/// One tab of the browser.
#[derive(Debug, Clone, PartialEq)]
pub struct TabInfo {
    /// The adapter's reference.
    pub tab: TabRef,
    /// What it shows.
    pub page: PageState,
    /// Whether it is the selected tab of its window.
    pub active: bool,
}

/// A tab the adapter opened.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenedTab {
    /// The new tab.
    pub tab: TabRef,
    /// What it shows after the navigation.
    pub page: PageState,
}

/// The result of focusing a tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Focused {
    /// Whether the tab's window has the operating-system focus (headless browsers: `false`
    /// unless they report otherwise).
    pub window_focused: bool,
}

/// A navigation of an existing tab.
#[derive(Debug, Clone, PartialEq)]
pub struct NavigateInput {
    /// Where to go (already authorized).
    pub url: Url,
    /// Accept this navigation's own `beforeunload` prompt; otherwise such a prompt stops the
    /// navigation with [`PortErrorKind::BlockedByDialog`](super::PortErrorKind::BlockedByDialog).
    pub discard_beforeunload: bool,
}

/// A move through history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryMove {
    /// One entry back.
    Back,
    /// One entry forward.
    Forward,
    /// Reload the current document.
    Reload {
        /// Bypass the HTTP cache.
        bypass_cache: bool,
    },
}

/// Observed geometry of a tab and its window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    /// Viewport width in CSS pixels.
    pub viewport_width: u32,
    /// Viewport height in CSS pixels.
    pub viewport_height: u32,
    /// Outer window width.
    pub window_width: u32,
    /// Outer window height.
    pub window_height: u32,
    /// `window.devicePixelRatio`.
    pub device_scale: f64,
    /// Zoom in percent (100 when the engine cannot report it).
    pub zoom_percent: u32,
    /// Horizontal scroll offset (CSS px).
    pub scroll_x: f64,
    /// Vertical scroll offset (CSS px).
    pub scroll_y: f64,
}

/// Which text `read_text` extracts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextMode {
    /// The main article only: navigation, ads, footers and banners stripped.
    Article,
    /// Visible text of the page.
    Visible,
    /// Article text when the page has one, else visible text.
    ArticleOrVisible,
}

/// A text read.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadInput {
    /// Read one element's text instead of the page.
    pub target: Option<ElementRef>,
    /// What to read (ignored with a target).
    pub mode: TextMode,
    /// Read at most this many characters (the adapter may stop early; core bounds again).
    pub max_chars: usize,
}

/// A wait in the page for a text to be present or absent ([`super::BrowserPort::wait_text`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextWaitInput {
    /// The text looked for, matched as [`super::BrowserPort::text_present`] matches it
    /// (case-insensitive, whitespace normalized; page or model content: never logged).
    pub text: String,
    /// Whether the wait is for the text to be present (`true`) or absent (`false`).
    pub present: bool,
    /// How long the port may watch the page before it answers [`TextWait::RanOut`].
    pub within: Duration,
    /// The document the caller observed and authorized ([`PageState::document`]): the port
    /// waits only in it, and answers [`TextWait::DocumentGone`] without reading anything when
    /// the tab shows another one (a navigation before or during the wait).
    pub document: DocumentId,
}

/// How a wait in the page for a text ended ([`super::BrowserPort::wait_text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextWait {
    /// The condition held when the port first checked it.
    Held,
    /// The condition came to hold while the port watched the page.
    Became,
    /// The port watched the page for the whole time given; the condition never held.
    RanOut,
    /// The port checked once without watching (a page whose frames it reads by walking
    /// them rather than watching them): the condition did not hold. The caller pauses
    /// before it asks again.
    NotYet,
    /// The document the port watched went away (a navigation): nothing of the new document
    /// was read. The caller observes and authorizes the tab's page before it asks again.
    DocumentGone,
}

impl TextWait {
    /// Whether the condition held.
    pub fn held(self) -> bool {
        matches!(self, TextWait::Held | TextWait::Became)
    }
}

/// Text read from a page.
#[derive(Debug, Clone, PartialEq)]
pub struct TextOutcome {
    /// The text, whitespace-normalized by the adapter.
    pub text: String,
    /// Whether more text existed than was returned.
    pub truncated: bool,
    /// How many frame documents' text was joined after the page's own (0 without frames).
    pub frames: usize,
}

/// What `perceive` looks at.
#[derive(Debug, Clone, PartialEq)]
pub enum PerceiveScope {
    /// Interactive controls.
    Controls,
    /// Landmarks, headings and other structure.
    Structure,
    /// Controls and structure.
    All,
    /// One structure-only tree, optionally under `root`, at most `max_depth` deep.
    Document {
        /// The subtree root.
        root: Option<ElementRef>,
        /// Maximum depth below the root.
        max_depth: u32,
    },
    /// Form controls (inputs, selects, text areas, buttons in a form, ARIA value widgets),
    /// each with its [`FormField`] data; no editable value is ever read out.
    Forms,
    /// Elements whose accessible name or visible text contains `text` (case-insensitive), in
    /// document order; core ranks them. Blank text matches nothing.
    Matching {
        /// What the name or visible text contains.
        text: String,
        /// Keep interactive controls only.
        controls_only: bool,
    },
}

/// A perception request.
#[derive(Debug, Clone, PartialEq)]
pub struct PerceiveInput {
    /// What to return.
    pub scope: PerceiveScope,
    /// At most this many elements, in document order.
    pub max_items: usize,
}

impl PerceiveInput {
    /// At most `max_items` elements whose name or visible text contains `text`
    /// ([`PerceiveScope::Matching`]).
    pub fn matching(text: &str, controls_only: bool, max_items: usize) -> Self {
        PerceiveInput { scope: PerceiveScope::Matching { text: text.to_owned(), controls_only }, max_items }
    }
}

/// Element states a perception may report (default states are simply absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementState {
    /// Disabled.
    Disabled,
    /// Checked (checkbox, radio, switch).
    Checked,
    /// Selected (option, tab).
    Selected,
    /// Expanded.
    Expanded,
    /// Has focus.
    Focused,
    /// Required.
    Required,
    /// Invalid.
    Invalid,
}

impl ElementState {
    /// The fact token.
    pub const fn as_str(self) -> &'static str {
        match self {
            ElementState::Disabled => "disabled",
            ElementState::Checked => "checked",
            ElementState::Selected => "selected",
            ElementState::Expanded => "expanded",
            ElementState::Focused => "focused",
            ElementState::Required => "required",
            ElementState::Invalid => "invalid",
        }
    }

    /// The state a fact token ([`ElementState::as_str`]) names, as page scripts report it.
    pub fn from_token(token: &str) -> Option<ElementState> {
        const ALL: [ElementState; 7] = [
            ElementState::Disabled,
            ElementState::Checked,
            ElementState::Selected,
            ElementState::Expanded,
            ElementState::Focused,
            ElementState::Required,
            ElementState::Invalid,
        ];
        ALL.into_iter().find(|state| state.as_str() == token)
    }
}

/// One perceived element. Names come from labels, ARIA, alt, title, text or placeholder;
/// never from an editable value.
#[derive(Debug, Clone, PartialEq)]
pub struct PerceivedElement {
    /// The adapter's reference.
    pub element: ElementRef,
    /// The explicit or implicit ARIA role as the page reports it (core narrows it).
    pub role: String,
    /// The accessible name (core normalizes and bounds it).
    pub name: Option<String>,
    /// Non-default states.
    pub states: Vec<ElementState>,
    /// The credential class of a credential field.
    pub credential: Option<CredentialClass>,
    /// Depth below the root, for the `Document` scope.
    pub depth: Option<u32>,
    /// Visible text, when it differs from the name (used to rank `find` matches).
    pub text: Option<String>,
    /// Whether the element is interactive (a control).
    pub control: bool,
    /// The control's form data ([`PerceiveScope::Forms`] only; `None` elsewhere).
    pub form: Option<Box<FormField>>,
}

/// A form control's form data, as [`PerceiveScope::Forms`] reports it: form and group
/// membership, constraints, validity, options and whether it holds a value, never the value.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FormField {
    /// The document the control sits in, numbered in the order the perception visited them
    /// (0 the page's own, then one number per frame document perceived).
    pub document: u32,
    /// The form owning the control; `None` for a control outside any form.
    pub owner: Option<FormOwner>,
    /// The legend of the nearest fieldset around the control.
    pub legend: Option<String>,
    /// The radio group (a radio button's `name`), for radio buttons.
    pub radio_group: Option<String>,
    /// Author constraints.
    pub constraints: FormConstraints,
    /// The first failing `ValidityState` flag (`valueMissing`, `typeMismatch`, …), `valid`,
    /// or `None` when the control takes no part in constraint validation.
    pub validity: Option<String>,
    /// Option labels of a select or list box, in order (bounded by the adapter).
    pub options: Vec<String>,
    /// Whether options were cut.
    pub options_truncated: bool,
    /// Whether the control holds a value (text entered, an option with a value chosen, a box
    /// checked, a file chosen); `None` for a control that holds none (a button).
    pub filled: Option<bool>,
}

/// The form owning a control: its number among its document's forms and its name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FormOwner {
    /// The form's number among its document's forms (in order of first sight).
    pub index: u32,
    /// The form's accessible name (its `aria-label`, `aria-labelledby`, `title` or `name`).
    pub name: Option<String>,
}

/// A form control's author constraints; only those present are set.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FormConstraints {
    /// `required` (or `aria-required`).
    pub required: bool,
    /// `min`, as written (a number or a date).
    pub min: Option<String>,
    /// `max`, as written.
    pub max: Option<String>,
    /// `step`, as written.
    pub step: Option<String>,
    /// `minlength`.
    pub minlength: Option<u64>,
    /// `maxlength`.
    pub maxlength: Option<u64>,
    /// Whether a `pattern` is set (the pattern itself is not reported).
    pub pattern: bool,
    /// `multiple` (a select or file input taking several).
    pub multiple: bool,
}

/// The element that has keyboard focus, and the documents it sits in.
#[derive(Debug, Clone, PartialEq)]
pub struct FocusedElement {
    /// The element (its credential class included).
    pub element: PerceivedElement,
    /// The URLs of the frame documents between the tab's page and the element, outermost
    /// first; empty when the element is in the page's own document. Cross-origin frames are
    /// included: keys go wherever focus is.
    pub frames: Vec<Url>,
}

/// A perception.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Perception {
    /// Elements in document order.
    pub elements: Vec<PerceivedElement>,
    /// Whether more elements existed than were returned.
    pub truncated: bool,
}

/// A role and name of an element the browser acted on, returned in the same receipt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementSummary {
    /// The role as the page reports it (core narrows it).
    pub role: String,
    /// The accessible name (never an editable value).
    pub name: Option<String>,
}

/// A rectangle in document CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CssRect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// What to capture.
#[derive(Debug, Clone, PartialEq)]
pub enum CaptureKind {
    /// The viewport.
    Viewport,
    /// The whole page.
    FullPage,
    /// One element.
    Element(ElementRef),
    /// A rectangle of the document, rendered at `scale` image pixels per CSS pixel.
    Region {
        /// The rectangle (document coordinates).
        rect: CssRect,
        /// Output image pixels per CSS pixel.
        scale: f64,
    },
}

/// A capture: PNG bytes and where the image sits in the document.
#[derive(Debug, Clone, PartialEq)]
pub struct Captured {
    /// PNG bytes.
    pub png: Vec<u8>,
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Document CSS coordinates of the image's top-left pixel.
    pub origin: (f64, f64),
    /// CSS pixels per image pixel.
    pub css_per_pixel: f64,
    /// The tab's geometry at capture time.
    pub geometry: Geometry,
}

/// A point in viewport CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// From the viewport's left edge.
    pub x: f64,
    /// From the viewport's top edge.
    pub y: f64,
}

/// Where pointer input goes.
#[derive(Debug, Clone, PartialEq)]
pub enum PointerTarget {
    /// The centre of an element (scrolled into view first).
    Element(ElementRef),
    /// A viewport point.
    Point(Point),
}

/// A click.
#[derive(Debug, Clone, PartialEq)]
pub struct ClickInput {
    /// Where.
    pub at: PointerTarget,
    /// Which button.
    pub button: MouseButton,
    /// 1, 2 or 3 clicks.
    pub count: u8,
    /// Modifier keys held down around the clicks, unique (none: a plain click).
    pub modifiers: Vec<Modifier>,
}

/// A hover: the pointer moved onto a target and left resting there.
#[derive(Debug, Clone, PartialEq)]
pub struct HoverInput {
    /// Where.
    pub at: PointerTarget,
    /// Modifier keys held down while the pointer moves, unique (released afterwards).
    pub modifiers: Vec<Modifier>,
}

/// The receipt of an input action: what was acted on and what the tab shows afterwards.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionReceipt {
    /// The element acted on, when the browser knows it (role and name in the same round
    /// trip).
    pub element: Option<ElementSummary>,
    /// The tab afterwards (a changed document means the action committed a navigation).
    pub page: PageState,
    /// Key presses (of [`TypeInput`] or [`KeyInput`]) withheld because focus left the element
    /// they were for: the first such key and every key after it. 0 for other input.
    pub keys_withheld: usize,
}

/// A scroll.
#[derive(Debug, Clone, PartialEq)]
pub enum ScrollInput {
    /// Scroll until the element is in view.
    Reveal(ElementRef),
    /// Scroll the page by a fraction of the viewport in a direction.
    By {
        /// Which way.
        direction: ScrollDirection,
        /// Fraction of the viewport's extent in that direction.
        fraction: f64,
    },
    /// Wheel input at a point.
    Wheel {
        /// Where the wheel turns.
        at: Point,
        /// Vertical delta in CSS pixels (negative is up).
        delta_y: f64,
    },
}

/// What a scroll did.
#[derive(Debug, Clone, PartialEq)]
pub struct ScrollOutcome {
    /// Whether any scroll offset changed.
    pub scrolled: bool,
    /// Horizontal offset afterwards (CSS px), once scrolling settled.
    pub offset_x: f64,
    /// Vertical offset afterwards.
    pub offset_y: f64,
}

/// A form fill: every value is checked against its control before any is set.
#[derive(Debug, Clone, PartialEq)]
pub struct FillInput {
    /// Controls and values, in order.
    pub fields: Vec<(ElementRef, FillValue)>,
}

/// What a fill did.
#[derive(Debug, Clone, PartialEq)]
pub struct FillOutcome {
    /// How many controls were set.
    pub filled: usize,
    /// The tab afterwards.
    pub page: PageState,
}

/// Text typed through input events.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeInput {
    /// The control, focused first when it does not have focus. Every character lands in it
    /// or is withheld: when focus leaves it (a `\t`, a page script moving focus), that key
    /// and the rest are not delivered ([`ActionReceipt::keys_withheld`]).
    pub into: ElementRef,
    /// The text (possibly empty with `clear_first`).
    pub text: String,
    /// Clear the control before typing.
    pub clear_first: bool,
}

/// Keys pressed.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyInput {
    /// Keys in order.
    pub keys: Vec<Key>,
    /// How many times the whole sequence is sent.
    pub repeat: u32,
    /// Modifiers held for every key.
    pub modifiers: Vec<Modifier>,
    /// The element the keys are for, focused first when it does not have focus; `None`: the
    /// page itself, while no element has focus. A key press whose event would reach any other
    /// element (focus moved: a `Tab`, an arrow in a radio group, a page script) is withheld,
    /// with every key after it ([`ActionReceipt::keys_withheld`]).
    pub into: Option<ElementRef>,
}

/// The kinds of JavaScript dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DialogKind {
    /// `alert()`.
    Alert,
    /// `confirm()`.
    Confirm,
    /// `prompt()`.
    Prompt,
    /// A `beforeunload` prompt.
    BeforeUnload,
}

impl DialogKind {
    /// The `dialog_type` fact.
    pub const fn as_str(self) -> &'static str {
        match self {
            DialogKind::Alert => "alert",
            DialogKind::Confirm => "confirm",
            DialogKind::Prompt => "prompt",
            DialogKind::BeforeUnload => "beforeunload",
        }
    }
}

/// How to resolve a dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialogResolution {
    /// Accept (OK).
    Accept,
    /// Dismiss (Cancel).
    Dismiss,
    /// Type into a prompt, then accept.
    Respond(String),
}

/// What a local path is, as the adapter (which will read it) sees it. `real` is the path
/// with every symbolic link resolved (`std::fs::canonicalize`): containment in upload
/// folders is decided on real paths, and the real path is what gets read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileStat {
    /// A regular file of this many bytes.
    File {
        /// Size in bytes.
        bytes: u64,
        /// The resolved path.
        real: PathBuf,
    },
    /// A directory.
    Directory {
        /// The resolved path.
        real: PathBuf,
    },
    /// Nothing (or unreadable).
    Missing,
}

/// One inline file to upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineFile {
    /// The file name the page sees.
    pub name: String,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// The files of an upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UploadFiles {
    /// Local paths the adapter reads (already checked with `stat_files`).
    Paths(Vec<PathBuf>),
    /// Bytes supplied by the caller or captured earlier.
    Inline(Vec<InlineFile>),
}

/// Where an upload goes.
#[derive(Debug, Clone, PartialEq)]
pub enum UploadDestination {
    /// An `<input type=file>`.
    Input(ElementRef),
    /// Dropped at a viewport point.
    Drop(Point),
}

/// An upload.
#[derive(Debug, Clone, PartialEq)]
pub struct UploadInput {
    /// Where.
    pub to: UploadDestination,
    /// What.
    pub files: UploadFiles,
}

/// What an upload did.
#[derive(Debug, Clone, PartialEq)]
pub struct UploadOutcome {
    /// Files attached or dropped.
    pub count: usize,
    /// Their total size.
    pub bytes: u64,
    /// The tab afterwards.
    pub page: PageState,
}

/// What a script returned.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptOutcome {
    /// The JSON value the script's completion value serialized to.
    pub value: serde_json::Value,
    /// The tab afterwards.
    pub page: PageState,
}

/// A recording command. The adapter owns frames, bounds, deadlines and the GIF encode.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordCommand {
    /// Start recording this tab. No frame is kept while the gate refuses the tab's page, and
    /// frames of documents it refuses are blanked (the gate of the call that started it).
    Start(TabRef, Gate),
    /// Report state.
    Status(RecordingRef),
    /// Capture a final frame and stop.
    Stop(RecordingRef),
    /// Stop if active, encode and deliver.
    Save(RecordingRef, RecordDelivery),
    /// Erase the captured frames.
    Discard(RecordingRef),
}

/// Where a saved replay goes.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordDelivery {
    /// Returned to the client (the report carries the GIF).
    Client,
    /// Saved by the browser as a download.
    Download,
    /// Attached to a file input of this tab.
    Attach(TabRef, ElementRef),
}

/// The state of a recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordingState {
    /// Capturing frames.
    Recording,
    /// Stopped, frames kept until retention expires.
    Stopped,
    /// Erased (discarded or retention expired).
    Discarded,
}

impl RecordingState {
    /// The `state` fact.
    pub const fn as_str(self) -> &'static str {
        match self {
            RecordingState::Recording => "recording",
            RecordingState::Stopped => "stopped",
            RecordingState::Discarded => "discarded",
        }
    }
}

/// A recording's report.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordReport {
    /// The recording.
    pub recording: RecordingRef,
    /// Its state after the command.
    pub state: RecordingState,
    /// Frames kept.
    pub frames: u32,
    /// Frames captured (some may have been dropped by bounds).
    pub captured_frames: u32,
    /// Frame captures skipped because the tab showed a page outside the recording's gate
    /// (nothing of such a page is kept).
    pub skipped_frames: u32,
    /// Encoded size (after a save) or captured frame bytes.
    pub bytes: u64,
    /// Playing time of the replay.
    pub duration_ms: u64,
    /// Frame width.
    pub width: u32,
    /// Frame height.
    pub height: u32,
    /// Milliseconds until capture stops on its own, while recording.
    pub capture_deadline_ms: Option<u64>,
    /// Milliseconds until the frames are erased, once stopped.
    pub retention_deadline_ms: Option<u64>,
    /// Why capture stopped (`requested`, `frame_limit`, `time_limit`, `byte_limit`, …).
    pub stop_reason: Option<String>,
    /// The GIF, for a client delivery.
    pub gif: Option<Vec<u8>>,
}

/// A query of console and network evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct DiagnosticsQuery {
    /// Which sources.
    pub source: DiagnoseSource,
    /// Problems only, or everything.
    pub detail: DiagnoseDetail,
    /// Case-insensitive literal match on the entry text or URL.
    pub pattern: Option<String>,
    /// Continue after this cursor.
    pub after: Option<String>,
    /// At most this many entries.
    pub limit: usize,
}

/// Where a diagnostic entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticSource {
    /// The console.
    Console,
    /// The network.
    Network,
}

/// One piece of console or network evidence (untrusted page content).
#[derive(Debug, Clone, PartialEq)]
pub struct DiagnosticEntry {
    /// Console or network.
    pub source: DiagnosticSource,
    /// Console level (`error`, `warning`, `info`, …) or `request` / `failed`.
    pub level: String,
    /// Whether it is a problem (warning, error, exception, failed request, HTTP error).
    pub problem: bool,
    /// Console text.
    pub text: Option<String>,
    /// HTTP method.
    pub method: Option<String>,
    /// HTTP status.
    pub status: Option<u16>,
    /// Request URL (core strips query and fragment and filters by host).
    pub url: Option<Url>,
}

/// A page of diagnostic evidence.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DiagnosticsPage {
    /// Entries in order.
    pub entries: Vec<DiagnosticEntry>,
    /// Cursor for the next page.
    pub next_cursor: Option<String>,
    /// Whether more entries matched than were returned.
    pub truncated: bool,
    /// Entries evicted from the bounded buffer.
    pub evicted: u64,
    /// Whether this call started tracking (no earlier evidence exists).
    pub tracking_started: bool,
}
