//! Implement `BrowserPort` for a custom backend: the trait is the only seam between
//! Ghostlight's executor and a browser.
//!
//! `ToyBrowser` below is a complete implementation — every method of the trait — over an
//! in-memory "browser": static pages in a `HashMap`, tabs in a `Mutex`. Reading answers the
//! page's text, perceiving answers its few elements, clicking a link navigates, clicking a
//! button changes the page, a checkbox toggles. What it cannot do honestly (screenshots,
//! scripts, keyboard, uploads, …) answers `PortErrorKind::Unsupported`, which Ghostlight turns
//! into a truthful `failed` envelope with nothing done.
//!
//! The program then drives it through `Ghostlight::invoke` (navigate → read → inspect →
//! click → read, and one screenshot the toy cannot take), printing each summary. It needs no
//! browser and no async runtime: core has none, and `futures::executor::block_on` runs it.
//!
//! ```sh
//! cargo run -p ghostlight-examples --example custom_port
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;
use ghostlight_core::port::FillValue;
use ghostlight_core::port::MouseButton;
use ghostlight_core::port::{
    ActionReceipt, CaptureKind, Captured, ClickInput, DiagnosticsPage, DiagnosticsQuery, DialogKind,
    DialogResolution, DocumentId, ElementRef, ElementState, ElementSummary, FileStat, FillInput, FillOutcome,
    Focused, FocusedElement, Geometry, HistoryMove, HoverInput, KeyInput, NavigateInput, OpenedTab,
    PageState, PerceiveInput, PerceiveScope, PerceivedElement, Perception, PointerTarget, PortResult,
    ReadInput, RecordCommand, RecordReport, ScriptOutcome, ScrollInput, ScrollOutcome, TabCall, TabInfo,
    TabRef, TextOutcome, TypeInput, UploadInput, UploadOutcome,
};
use ghostlight_core::{BrowserPort, Ghostlight, PortError, PortErrorKind, Readiness};
use ghostlight_examples::{call, exit_code, show, target_named};
use serde_json::json;
use url::Url;

// ---- the toy web: static pages --------------------------------------------------------------

/// What an element does when clicked.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// Navigates to this URL.
    Link(&'static str),
    /// Adds this sentence to the page.
    Button(&'static str),
    /// Toggles.
    Checkbox,
    /// Holds text (filled or typed).
    TextBox,
    /// A heading: structure, not a control.
    Heading,
}

#[derive(Debug, Clone, Copy)]
struct Element {
    role: &'static str,
    name: &'static str,
    kind: Kind,
}

#[derive(Debug, Clone)]
struct Page {
    title: &'static str,
    text: &'static str,
    /// In document order; the first is the page's heading.
    elements: Vec<Element>,
}

fn toy_web() -> HashMap<&'static str, Page> {
    let link = |name, to| Element { role: "link", name, kind: Kind::Link(to) };
    let heading = |name| Element { role: "heading", name, kind: Kind::Heading };
    HashMap::from([
        (
            "https://toy.example/",
            Page {
                title: "Toy home",
                text: "This page lives in a HashMap; no browser was started.",
                elements: vec![
                    heading("Welcome to the toy browser"),
                    link("About", "https://toy.example/about"),
                    Element { role: "textbox", name: "Email", kind: Kind::TextBox },
                    Element { role: "checkbox", name: "Remember me", kind: Kind::Checkbox },
                    Element {
                        role: "button",
                        name: "Subscribe",
                        kind: Kind::Button("Subscribed: you will hear from us."),
                    },
                ],
            },
        ),
        (
            "https://toy.example/about",
            Page {
                title: "About",
                text: "Ghostlight drove this page through the BrowserPort trait alone.",
                elements: vec![heading("About"), link("Home", "https://toy.example/")],
            },
        ),
    ])
}

// ---- the toy browser: tabs and documents ----------------------------------------------------

/// One tab: its history and the live state of its current document.
#[derive(Debug)]
struct Tab {
    history: Vec<Url>,
    position: usize,
    /// A new number per loaded document; element references carry it, so they go stale.
    document: u64,
    added: Vec<&'static str>,
    checked: HashSet<usize>,
    values: HashMap<usize, String>,
}

impl Tab {
    fn url(&self) -> &Url {
        &self.history[self.position]
    }
}

#[derive(Debug, Default)]
struct State {
    tabs: BTreeMap<u64, Tab>,
    active: Option<u64>,
    next_id: u64,
}

/// A `BrowserPort` over [`toy_web`].
struct ToyBrowser {
    pages: HashMap<&'static str, Page>,
    state: Mutex<State>,
}

fn unsupported(what: &str) -> PortError {
    PortError::new(PortErrorKind::Unsupported, format!("the toy browser cannot {what}"))
}

impl ToyBrowser {
    fn new() -> Self {
        ToyBrowser { pages: toy_web(), state: Mutex::default() }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave a half-made tab behind: keep going.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The page at `url`, or a "Not found" page.
    fn page_at(&self, url: &Url) -> Page {
        self.pages.get(url.as_str()).cloned().unwrap_or(Page {
            title: "Not found",
            text: "The toy web has no page here.",
            elements: vec![Element { role: "heading", name: "Not found", kind: Kind::Heading }],
        })
    }

    fn state_of(&self, tab: &Tab) -> PageState {
        PageState {
            url: tab.url().clone(),
            title: self.page_at(tab.url()).title.to_owned(),
            readiness: Readiness::Complete,
            document: DocumentId::new(tab.document.to_string()),
            // Toy pages come from memory, not from a server.
            http_status: None,
            // Toy pages are never sign-in walls, consent prompts, challenges or rate limits.
            gate: None,
        }
    }

    /// The whole visible text of a tab's document.
    fn text_of(&self, tab: &Tab) -> String {
        let page = self.page_at(tab.url());
        let mut lines = Vec::new();
        for element in &page.elements {
            lines.push(element.name);
            // The paragraph sits under the heading.
            if matches!(element.kind, Kind::Heading) {
                lines.push(page.text);
            }
        }
        lines.extend(tab.added.iter().copied());
        lines.join("\n")
    }

    fn perceived(&self, tab: &Tab, index: usize, element: &Element) -> PerceivedElement {
        let mut states = Vec::new();
        if tab.checked.contains(&index) {
            states.push(ElementState::Checked);
        }
        PerceivedElement {
            element: ElementRef::new(format!("{}:{index}", tab.document)),
            role: element.role.to_owned(),
            name: Some(element.name.to_owned()),
            states,
            credential: None,
            depth: None,
            text: None,
            control: !matches!(element.kind, Kind::Heading),
            form: None,
        }
    }

    /// The element `reference` names in `tab`'s current document.
    fn element(&self, tab: &Tab, reference: &ElementRef) -> PortResult<(usize, Element)> {
        let stale = || PortError::new(PortErrorKind::TargetStale, "the element's document is gone");
        let (document, index) = reference.as_str().split_once(':').ok_or_else(stale)?;
        let index: usize = index.parse().map_err(|_| stale())?;
        if document != tab.document.to_string() {
            return Err(stale());
        }
        let page = self.page_at(tab.url());
        page.elements.get(index).copied().map(|e| (index, e)).ok_or_else(stale)
    }
}

impl State {
    fn tab(&mut self, tab: &TabRef) -> PortResult<&mut Tab> {
        let gone = || PortError::new(PortErrorKind::TabGone, "no such tab");
        let id: u64 = tab.as_str().parse().map_err(|_| gone())?;
        self.tabs.get_mut(&id).ok_or_else(gone)
    }

    fn new_document(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

/// Start a new document in `tab` (its URL is already in place): fresh state, old handles stale.
fn load(tab: &mut Tab, document: u64) {
    tab.document = document;
    tab.added.clear();
    tab.checked.clear();
    tab.values.clear();
}

#[async_trait]
impl BrowserPort for ToyBrowser {
    fn engine(&self) -> &str {
        "toy"
    }

    async fn tabs(&self) -> PortResult<Vec<TabInfo>> {
        let state = self.lock();
        Ok(state
            .tabs
            .iter()
            .map(|(id, tab)| TabInfo {
                tab: TabRef::new(id.to_string()),
                page: self.state_of(tab),
                active: state.active == Some(*id),
            })
            .collect())
    }

    async fn open_tab(&self, input: &NavigateInput, _timeout: Duration) -> PortResult<OpenedTab> {
        let mut state = self.lock();
        let id = state.new_document();
        let tab = Tab {
            history: vec![input.url.clone()],
            position: 0,
            document: id,
            added: Vec::new(),
            checked: HashSet::new(),
            values: HashMap::new(),
        };
        let page = self.state_of(&tab);
        state.tabs.insert(id, tab);
        state.active = Some(id);
        Ok(OpenedTab { tab: TabRef::new(id.to_string()), page })
    }

    async fn focus_tab(&self, tab: &TabRef) -> PortResult<Focused> {
        let mut state = self.lock();
        state.tab(tab)?;
        state.active = tab.as_str().parse().ok();
        // There is no window, so no window has the operating system's focus.
        Ok(Focused { window_focused: false })
    }

    async fn close_tab(&self, tab: &TabRef) -> PortResult<()> {
        let mut state = self.lock();
        state.tab(tab)?;
        let id = tab.as_str().parse().ok();
        state.tabs.retain(|key, _| Some(*key) != id);
        if state.active == id {
            state.active = state.tabs.keys().last().copied();
        }
        Ok(())
    }

    async fn page(&self, tab: &TabRef) -> PortResult<PageState> {
        let mut state = self.lock();
        let tab = state.tab(tab)?;
        Ok(self.state_of(tab))
    }

    async fn navigate(&self, call: &TabCall<'_>, input: &NavigateInput) -> PortResult<PageState> {
        let tab = call.tab;
        let mut state = self.lock();
        let document = state.new_document();
        let tab = state.tab(tab)?;
        tab.history.truncate(tab.position + 1);
        tab.history.push(input.url.clone());
        tab.position += 1;
        load(tab, document);
        Ok(self.state_of(tab))
    }

    async fn history(&self, call: &TabCall<'_>, step: HistoryMove) -> PortResult<PageState> {
        let tab = call.tab;
        let mut state = self.lock();
        let document = state.new_document();
        let tab = state.tab(tab)?;
        match step {
            HistoryMove::Back if tab.position > 0 => tab.position -= 1,
            HistoryMove::Forward if tab.position + 1 < tab.history.len() => tab.position += 1,
            HistoryMove::Reload { .. } => {}
            // Nowhere to go: the document stays as it is, as in a real browser.
            HistoryMove::Back | HistoryMove::Forward => return Ok(self.state_of(tab)),
        }
        load(tab, document);
        Ok(self.state_of(tab))
    }

    async fn geometry(&self, tab: &TabRef) -> PortResult<Geometry> {
        self.lock().tab(tab)?;
        // Nothing is rendered; these are the nominal sizes of a window that does not exist.
        Ok(Geometry {
            viewport_width: 1280,
            viewport_height: 800,
            window_width: 1280,
            window_height: 800,
            device_scale: 1.0,
            zoom_percent: 100,
            scroll_x: 0.0,
            scroll_y: 0.0,
        })
    }

    async fn set_zoom(&self, _tab: &TabRef, _percent: u32) -> PortResult<Geometry> {
        Err(unsupported("zoom: it renders nothing"))
    }

    async fn resize_window(&self, _tab: &TabRef, _width: u32, _height: u32) -> PortResult<Geometry> {
        Err(unsupported("resize a window: it has none"))
    }

    // The toy browser has no frames, so the gate (which frame documents may be read) has
    // nothing to refuse in these reads.
    async fn read_text(&self, call: &TabCall<'_>, input: &ReadInput) -> PortResult<TextOutcome> {
        let tab = call.tab;
        let mut state = self.lock();
        let tab = state.tab(tab)?;
        // No boilerplate to strip, so every `TextMode` reads the same text.
        let text = match &input.target {
            Some(target) => {
                let (index, element) = self.element(tab, target)?;
                tab.values.get(&index).cloned().unwrap_or_else(|| element.name.to_owned())
            }
            None => self.text_of(tab),
        };
        let truncated = text.chars().count() > input.max_chars;
        Ok(TextOutcome { text: text.chars().take(input.max_chars).collect(), truncated, frames: 0 })
    }

    async fn perceive(&self, call: &TabCall<'_>, input: &PerceiveInput) -> PortResult<Perception> {
        let tab = call.tab;
        let mut state = self.lock();
        let tab = state.tab(tab)?;
        let page = self.page_at(tab.url());
        let all = page.elements.iter().enumerate().map(|(i, e)| self.perceived(tab, i, e));
        let elements: Vec<PerceivedElement> = match &input.scope {
            PerceiveScope::Controls => all.filter(|e| e.control).collect(),
            PerceiveScope::Structure => all.filter(|e| !e.control).collect(),
            PerceiveScope::All => all.collect(),
            // A toy page has no forms: its controls stand outside any, with no form data.
            PerceiveScope::Forms => all.filter(|e| e.control).collect(),
            // A flat page: everything sits one level below the root, and nothing below that.
            PerceiveScope::Document { root: None, .. } => {
                all.map(|e| PerceivedElement { depth: Some(1), ..e }).collect()
            }
            PerceiveScope::Document { root: Some(root), .. } => {
                self.element(tab, root)?;
                Vec::new()
            }
            // Names that contain the text (a toy: names only, no visible text).
            PerceiveScope::Matching { text, controls_only } => {
                let wanted = text.trim().to_lowercase();
                all.filter(|e| !wanted.is_empty() && (e.control || !controls_only))
                    .filter(|e| e.name.as_deref().is_some_and(|name| name.to_lowercase().contains(&wanted)))
                    .collect()
            }
        };
        let truncated = elements.len() > input.max_items;
        Ok(Perception { elements: elements.into_iter().take(input.max_items).collect(), truncated })
    }

    async fn focused_element(&self, tab: &TabRef) -> PortResult<Option<FocusedElement>> {
        self.lock().tab(tab)?;
        // The toy browser has no focus.
        Ok(None)
    }

    async fn element_present(&self, tab: &TabRef, element: &ElementRef) -> PortResult<bool> {
        let mut state = self.lock();
        let tab = state.tab(tab)?;
        Ok(self.element(tab, element).is_ok())
    }

    async fn text_present(&self, call: &TabCall<'_>, text: &str) -> PortResult<bool> {
        let tab = call.tab;
        let mut state = self.lock();
        let tab = state.tab(tab)?;
        Ok(self.text_of(tab).to_lowercase().contains(&text.to_lowercase()))
    }

    async fn capture(&self, _call: &TabCall<'_>, _kind: &CaptureKind) -> PortResult<Captured> {
        Err(unsupported("take screenshots: it renders nothing"))
    }

    // Gates: the toy browser has no frames, so every document it shows is the page the
    // executor authorized, and no point can land in another.
    async fn click(&self, call: &TabCall<'_>, input: &ClickInput) -> PortResult<ActionReceipt> {
        let tab = call.tab;
        let PointerTarget::Element(target) = &input.at else {
            return Err(unsupported("click a point: it has no layout"));
        };
        if input.button != MouseButton::Primary || input.count != 1 {
            return Err(unsupported("click other than once with the primary button"));
        }
        let mut state = self.lock();
        let document = state.new_document();
        let tab = state.tab(tab)?;
        let (index, element) = self.element(tab, target)?;
        match element.kind {
            Kind::Link(to) => {
                let url = Url::parse(to).map_err(|_| PortError::new(PortErrorKind::Other, "a bad link"))?;
                tab.history.truncate(tab.position + 1);
                tab.history.push(url);
                tab.position += 1;
                load(tab, document);
            }
            Kind::Button(sentence) => tab.added.push(sentence),
            Kind::Checkbox => {
                if !tab.checked.remove(&index) {
                    tab.checked.insert(index);
                }
            }
            // Clicking a text box or a heading changes nothing on a toy page.
            Kind::TextBox | Kind::Heading => {}
        }
        let summary = ElementSummary { role: element.role.to_owned(), name: Some(element.name.to_owned()) };
        Ok(ActionReceipt { element: Some(summary), page: self.state_of(tab), keys_withheld: 0 })
    }

    async fn hover(&self, call: &TabCall<'_>, input: &HoverInput) -> PortResult<ActionReceipt> {
        let tab = call.tab;
        let PointerTarget::Element(target) = &input.at else {
            return Err(unsupported("hover a point: it has no layout"));
        };
        let mut state = self.lock();
        let tab = state.tab(tab)?;
        let (_, element) = self.element(tab, target)?;
        let summary = ElementSummary { role: element.role.to_owned(), name: Some(element.name.to_owned()) };
        Ok(ActionReceipt { element: Some(summary), page: self.state_of(tab), keys_withheld: 0 })
    }

    async fn scroll(&self, call: &TabCall<'_>, input: &ScrollInput) -> PortResult<ScrollOutcome> {
        let tab = call.tab;
        let mut state = self.lock();
        let tab = state.tab(tab)?;
        match input {
            ScrollInput::Reveal(target) => {
                self.element(tab, target)?;
            }
            ScrollInput::By { .. } => {}
            ScrollInput::Wheel { .. } => {
                return Err(unsupported("turn a wheel at a point: it has no layout"));
            }
        }
        // Every toy page fits the viewport: nothing ever scrolls.
        Ok(ScrollOutcome { scrolled: false, offset_x: 0.0, offset_y: 0.0 })
    }

    async fn drag(
        &self,
        _call: &TabCall<'_>,
        _from: &PointerTarget,
        _to: &PointerTarget,
    ) -> PortResult<ActionReceipt> {
        Err(unsupported("drag: nothing is draggable"))
    }

    async fn fill(&self, call: &TabCall<'_>, input: &FillInput) -> PortResult<FillOutcome> {
        let tab = call.tab;
        let mut state = self.lock();
        let tab = state.tab(tab)?;
        // Check every value against its control before setting any.
        let mut checked = Vec::new();
        for (position, (target, value)) in input.fields.iter().enumerate() {
            let (index, element) = self.element(tab, target)?;
            match (element.kind, value) {
                (Kind::TextBox, FillValue::Text(_)) | (Kind::Checkbox, FillValue::Checked(_)) => {
                    checked.push((index, value))
                }
                _ => return Err(PortError::invalid_field(position, "the value does not fit the control")),
            }
        }
        for (index, value) in checked {
            match value {
                FillValue::Text(text) => {
                    tab.values.insert(index, text.clone());
                }
                FillValue::Checked(true) => {
                    tab.checked.insert(index);
                }
                FillValue::Checked(false) => {
                    tab.checked.remove(&index);
                }
                FillValue::Number(_) | FillValue::Options(_) => {}
            }
        }
        Ok(FillOutcome { filled: input.fields.len(), page: self.state_of(tab) })
    }

    async fn type_text(&self, call: &TabCall<'_>, input: &TypeInput) -> PortResult<ActionReceipt> {
        let tab = call.tab;
        let target = &input.into;
        let mut state = self.lock();
        let tab = state.tab(tab)?;
        let (index, element) = self.element(tab, target)?;
        if !matches!(element.kind, Kind::TextBox) {
            return Err(PortError::new(PortErrorKind::InvalidInput, "only a text box takes text"));
        }
        let value = tab.values.entry(index).or_default();
        if input.clear_first {
            value.clear();
        }
        value.push_str(&input.text);
        let summary = ElementSummary { role: element.role.to_owned(), name: Some(element.name.to_owned()) };
        Ok(ActionReceipt { element: Some(summary), page: self.state_of(tab), keys_withheld: 0 })
    }

    async fn press_keys(&self, _call: &TabCall<'_>, _input: &KeyInput) -> PortResult<ActionReceipt> {
        Err(unsupported("press keys: it has no keyboard"))
    }

    async fn dialog(&self, tab: &TabRef) -> PortResult<Option<DialogKind>> {
        self.lock().tab(tab)?;
        // Toy pages run no script, so no dialog ever opens.
        Ok(None)
    }

    async fn resolve_dialog(&self, _tab: &TabRef, _resolution: &DialogResolution) -> PortResult<DialogKind> {
        Err(PortError::new(PortErrorKind::InvalidInput, "no dialog is open"))
    }

    async fn stat_files(&self, _paths: &[PathBuf]) -> PortResult<Vec<FileStat>> {
        Err(unsupported("read local files"))
    }

    async fn upload(&self, _call: &TabCall<'_>, _input: &UploadInput) -> PortResult<UploadOutcome> {
        Err(unsupported("upload files: it has no file inputs"))
    }

    async fn execute(&self, _call: &TabCall<'_>, _script: &str) -> PortResult<ScriptOutcome> {
        Err(unsupported("run scripts: it has no JavaScript engine"))
    }

    async fn record(&self, _command: &RecordCommand) -> PortResult<RecordReport> {
        Err(unsupported("record: it renders no frames"))
    }

    async fn diagnostics(&self, _tab: &TabRef, _query: &DiagnosticsQuery) -> PortResult<DiagnosticsPage> {
        Err(unsupported("report console or network evidence: it has neither"))
    }

    async fn sleep(&self, duration: Duration) {
        // Core has no timer of its own. Blocking is fine here: `block_on` runs one call at a
        // time on this thread. An adapter on an async runtime would use its timer.
        std::thread::sleep(duration);
    }
}

// ---- the program ------------------------------------------------------------------------------

async fn run(ghostlight: &Ghostlight) -> Result<(), Box<dyn std::error::Error>> {
    call(ghostlight, "browser_navigate", json!({ "url": "https://toy.example/" })).await?;
    let read = call(ghostlight, "browser_read", json!({})).await?;
    println!("    text: {:?}", read.facts.get("text").and_then(|t| t.as_str()).unwrap_or_default());

    let inspected = call(ghostlight, "browser_inspect", json!({})).await?;
    let subscribe = target_named(&inspected, "Subscribe").ok_or("no Subscribe button")?;
    let remember = target_named(&inspected, "Remember me").ok_or("no Remember me checkbox")?;
    call(ghostlight, "browser_click", json!({ "target": subscribe })).await?;
    call(
        ghostlight,
        "browser_fill_form",
        json!({ "fields": [
        { "target": remember, "value": true },
        { "selector": { "name": "Email" }, "value": "ada@example.com" },
    ] }),
    )
    .await?;
    call(ghostlight, "browser_wait", json!({ "condition": "text_present", "value": "Subscribed" })).await?;

    // A link navigates: the handles of the first document are now stale.
    call(ghostlight, "browser_click", json!({ "selector": { "name": "About", "role": "link" } })).await?;
    let about = call(ghostlight, "browser_read", json!({})).await?;
    println!("    text: {:?}", about.facts.get("text").and_then(|t| t.as_str()).unwrap_or_default());
    let stale = show(ghostlight, "browser_click", json!({ "target": subscribe })).await?;
    let shot = show(ghostlight, "browser_screenshot", json!({})).await?;
    // Both are refusals with nothing done: a stale handle, and work the backend cannot do.
    for envelope in [&stale, &shot] {
        if envelope.status != ghostlight_core::Status::Failed {
            return Err(format!("expected a failed envelope, got {}", envelope.status.as_str()).into());
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let ghostlight = Ghostlight::new(Arc::new(ToyBrowser::new()));
    exit_code(futures::executor::block_on(run(&ghostlight)))
}
