//! The [`ScriptedBrowser`] and its state.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use url::Url;

use super::image::{GIF, MAX_SIDE, black_png};
use super::site::{ClickEffect, FieldKind, ScriptedElement, ScriptedPage};
use crate::port::{
    ActionReceipt, BrowserPort, CaptureKind, Captured, ClickInput, DiagnosticEntry, DiagnosticSource,
    DiagnosticsPage, DiagnosticsQuery, DialogKind, DialogResolution, DocumentId, ElementRef, ElementState,
    ElementSummary, FileStat, FillInput, FillOutcome, Focused, FocusedElement, Gate, Geometry, HistoryMove,
    HoverInput, KeyInput, NavigateInput, NetworkError, NetworkFailure, OpenedTab, PageState, PerceiveInput,
    PerceiveScope, PerceivedElement, Perception, Point, PointerTarget, PortError, PortErrorKind, PortResult,
    ReadInput, RecordCommand, RecordDelivery, RecordReport, RecordingRef, RecordingState, ScriptFailure,
    ScriptOutcome, ScrollInput, ScrollOutcome, StartupRefusal, TabCall, TabInfo, TabRef, TextMode,
    TextOutcome, TextWait, TextWaitInput, TypeInput, UploadDestination, UploadFiles, UploadInput,
    UploadOutcome,
};
use crate::vocab::{DiagnoseDetail, DiagnoseSource, FillValue, Key, MouseButton, NamedKey, ScrollDirection};

/// Page size in CSS pixels (full-page captures, scroll limits).
const PAGE_WIDTH: u32 = 1280;
const PAGE_HEIGHT: u32 = 3000;
/// Elements sit one below another, each this tall (and 200 wide).
const ELEMENT_HEIGHT: f64 = 40.0;
const ELEMENT_WIDTH: f64 = 200.0;

/// One call of a [`BrowserPort`] method: its name and tab, never a payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortCall {
    /// The trait method (`click`, `sleep`, …).
    pub method: &'static str,
    /// The tab token, for methods that name one.
    pub tab: Option<String>,
}

/// A deterministic in-memory browser implementing [`BrowserPort`]: fixture pages, tabs with
/// history and documents, a call log, fault injection and in-flight counters. No real time,
/// randomness or threads.
#[derive(Debug, Default)]
pub struct ScriptedBrowser {
    state: Mutex<State>,
}

fn err(kind: PortErrorKind, message: &str) -> PortError {
    PortError::new(kind, message)
}

/// Hosts under `.invalid` (RFC 2606) never resolve: loading one fails as a network error.
fn unreachable_host(url: &Url) -> PortResult<()> {
    match url.host_str() {
        Some(host) if host.ends_with(".invalid") => Err(PortError::network(NetworkFailure {
            error: NetworkError::NameNotResolved,
            browser_code: "ERR_NAME_NOT_RESOLVED".into(),
        })),
        _ => Ok(()),
    }
}

fn invalid(message: &str) -> PortError {
    err(PortErrorKind::InvalidInput, message)
}

#[derive(Debug, Default)]
struct Site {
    pages: HashMap<String, ScriptedPage>,
    next_document: u64,
}

impl Site {
    /// A new document for `url`: its fixture, or a default page for other web URLs.
    fn load(&mut self, url: &Url) -> Document {
        self.next_document += 1;
        let page = match (self.pages.get(url.as_str()), url.scheme(), url.host_str()) {
            (Some(page), _, _) => page.clone(),
            (None, "http" | "https", Some(host)) => ScriptedPage::new(host).text(&format!("Page at {host}")),
            _ => ScriptedPage::new(""),
        };
        Document {
            id: DocumentId::new(format!("d{}", self.next_document)),
            page,
            focused: None,
            filled: HashMap::new(),
        }
    }
}

#[derive(Debug)]
struct Document {
    id: DocumentId,
    page: ScriptedPage,
    focused: Option<usize>,
    /// Values set by fills and typing: kept, never returned.
    filled: HashMap<usize, FillValue>,
}

#[derive(Debug)]
struct Tab {
    tab: TabRef,
    history: Vec<Url>,
    index: usize,
    doc: Document,
    zoom: u32,
    viewport: (u32, u32),
    window: (u32, u32),
    scroll: (f64, f64),
    dialog: Option<DialogKind>,
    /// The navigation a `beforeunload` prompt holds back.
    pending: Option<Url>,
    diagnostics: Vec<DiagnosticEntry>,
    tracking: bool,
}

impl Tab {
    fn new(tab: TabRef, url: Url, doc: Document) -> Self {
        Tab {
            tab,
            history: vec![url],
            index: 0,
            doc,
            zoom: 100,
            viewport: (1280, 800),
            window: (1280, 900),
            scroll: (0.0, 0.0),
            dialog: None,
            pending: None,
            diagnostics: Vec::new(),
            tracking: false,
        }
    }

    fn url(&self) -> &Url {
        &self.history[self.index]
    }

    fn page_state(&self) -> PageState {
        PageState {
            url: self.url().clone(),
            title: self.doc.page.title.clone(),
            readiness: self.doc.page.readiness,
            document: self.doc.id.clone(),
            http_status: self.doc.page.http_status,
            gate: None,
        }
    }

    /// The page state with the fixture's gate, as a read that looks for one answers (only
    /// once the document is complete).
    fn gated_state(&self) -> PageState {
        let complete = self.doc.page.readiness == crate::port::Readiness::Complete;
        PageState { gate: self.doc.page.gate.filter(|_| complete), ..self.page_state() }
    }

    fn geometry(&self) -> Geometry {
        Geometry {
            viewport_width: self.viewport.0,
            viewport_height: self.viewport.1,
            window_width: self.window.0,
            window_height: self.window.1,
            device_scale: 1.0,
            zoom_percent: self.zoom,
            scroll_x: self.scroll.0,
            scroll_y: self.scroll.1,
        }
    }

    fn show(&mut self, doc: Document) {
        self.doc = doc;
        self.scroll = (0.0, 0.0);
        self.dialog = None;
        self.pending = None;
    }

    fn unblocked(&self) -> PortResult<()> {
        match self.dialog {
            Some(_) => Err(err(PortErrorKind::BlockedByDialog, "a dialog blocks the page")),
            None => Ok(()),
        }
    }

    /// The index of a live element of the current document.
    fn element(&self, element: &ElementRef) -> PortResult<usize> {
        let mut parts = element.as_str().splitn(3, ':');
        let (Some(tab), Some(doc), Some(id)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(invalid("not a scripted element reference"));
        };
        if tab != self.tab.as_str() {
            return Err(invalid("the element belongs to another tab"));
        }
        if doc != self.doc.id.as_str() {
            return Err(err(PortErrorKind::TargetStale, "the element's document is gone"));
        }
        let index = id.parse::<usize>().ok().and_then(|id| id.checked_sub(1));
        match index.and_then(|i| self.doc.page.elements.get(i).map(|e| (i, e))) {
            Some((i, e)) if !e.hidden => Ok(i),
            Some(_) => Err(err(PortErrorKind::TargetStale, "the element was removed")),
            None => Err(invalid("no such element")),
        }
    }

    fn el(&self, index: usize) -> &ScriptedElement {
        &self.doc.page.elements[index]
    }

    fn element_ref(&self, index: usize) -> ElementRef {
        ElementRef::new(format!("{}:{}:{}", self.tab.as_str(), self.doc.id.as_str(), index + 1))
    }

    /// What a receipt says of an element: its name, or (as a browser names a nameless
    /// element) its visible text when that is short.
    fn summary(&self, index: usize) -> ElementSummary {
        let e = self.el(index);
        let short_text =
            e.text.clone().filter(|text| text.chars().count() <= crate::limits::TARGET_NAME_CHARS);
        ElementSummary { role: e.role.clone(), name: e.name.clone().or(short_text) }
    }

    fn perceived(&self, index: usize, depth: Option<u32>) -> PerceivedElement {
        let e = self.el(index);
        let mut states = e.states.clone();
        if self.doc.focused == Some(index) && !states.contains(&ElementState::Focused) {
            states.push(ElementState::Focused);
        }
        PerceivedElement {
            element: self.element_ref(index),
            role: e.role.clone(),
            name: e.name.clone(),
            states,
            credential: e.credential,
            depth,
            text: e.text.clone(),
            control: e.control,
            form: e.form.clone().map(Box::new),
        }
    }

    /// Elements perception sees: visible, in the page's own document or in a frame whose
    /// document `gate` admits.
    fn visible<'g>(&'g self, gate: &'g Gate) -> impl Iterator<Item = (usize, &'g ScriptedElement)> {
        self.doc
            .page
            .elements
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.hidden && e.frame.as_ref().is_none_or(|frame| gate.admits(frame)))
    }

    /// The visible text of each frame `gate` admits, in order of first appearance: its
    /// elements' texts (or names), one per line.
    fn frame_texts(&self, gate: &Gate) -> Vec<String> {
        let mut frames: Vec<(&Url, Vec<String>)> = Vec::new();
        for e in self.doc.page.elements.iter().filter(|e| !e.hidden) {
            let Some(frame) = e.frame.as_ref().filter(|frame| gate.admits(frame)) else { continue };
            let line = e.text.clone().or_else(|| e.name.clone()).unwrap_or_default();
            match frames.iter_mut().find(|(url, _)| *url == frame) {
                Some((_, lines)) => lines.push(line),
                None => frames.push((frame, vec![line])),
            }
        }
        frames.into_iter().map(|(_, lines)| lines.join("\n")).collect()
    }

    fn check_point(&self, point: &Point) -> PortResult<()> {
        let (w, h) = (f64::from(self.viewport.0), f64::from(self.viewport.1));
        if (0.0..=w).contains(&point.x) && (0.0..=h).contains(&point.y) {
            Ok(())
        } else {
            Err(invalid("the point is outside the viewport"))
        }
    }

    /// The element at viewport `point`: elements sit one below another from the document's
    /// top, [`ELEMENT_WIDTH`] wide and [`ELEMENT_HEIGHT`] tall.
    fn hit(&self, point: &Point) -> Option<usize> {
        let (x, y) = (point.x + self.scroll.0, point.y + self.scroll.1);
        if !(0.0..ELEMENT_WIDTH).contains(&x) || y < 0.0 {
            return None;
        }
        let index = (y / ELEMENT_HEIGHT).floor() as usize;
        self.doc.page.elements.get(index).filter(|e| !e.hidden).map(|_| index)
    }

    /// Refuse pointer input whose hit (or element) lies in a frame `gate` refuses, as a real
    /// adapter does before dispatching anything.
    fn gate_pointer(&self, at: &PointerTarget, gate: &Gate) -> PortResult<()> {
        let index = match at {
            PointerTarget::Element(element) => Some(self.element(element)?),
            PointerTarget::Point(point) => self.hit(point),
        };
        match index.and_then(|i| self.el(i).frame.clone()) {
            Some(frame) if !gate.admits(&frame) => Err(PortError::outside_authority(frame)),
            _ => Ok(()),
        }
    }

    /// The next visible control after `index` (where `Tab` moves focus), if any.
    fn next_control(&self, index: Option<usize>) -> Option<usize> {
        let from = index.map_or(0, |i| i + 1);
        (from..self.doc.page.elements.len()).find(|&i| self.el(i).control && !self.el(i).hidden)
    }

    /// Type `c` into element `index` (text-like controls keep it; others ignore it).
    fn type_char(&mut self, index: usize, c: char) {
        if matches!(self.el(index).kind, FieldKind::Text | FieldKind::Number) {
            let mut value = match self.doc.filled.remove(&index) {
                Some(FillValue::Text(previous)) => previous,
                _ => String::new(),
            };
            value.push(c);
            self.doc.filled.insert(index, FillValue::Text(value));
        }
    }

    /// A pointer target's element, if it names one.
    fn pointer(&self, at: &PointerTarget) -> PortResult<Option<usize>> {
        match at {
            PointerTarget::Element(element) => self.element(element).map(Some),
            PointerTarget::Point(point) => self.check_point(point).map(|()| None),
        }
    }

    fn receipt(&self, element: Option<usize>) -> ActionReceipt {
        ActionReceipt { element: element.map(|i| self.summary(i)), page: self.page_state(), keys_withheld: 0 }
    }

    /// Where `index` navigates when activated, if anywhere.
    fn link_target(&self, index: usize) -> PortResult<Option<Url>> {
        match &self.el(index).on_click {
            Some(ClickEffect::Navigate(href)) => {
                self.url().join(href).map(Some).map_err(|_| invalid("the fixture's link is not a URL"))
            }
            _ => Ok(None),
        }
    }

    fn clamp_scroll(&mut self, x: f64, y: f64) {
        let max_x = f64::from(PAGE_WIDTH.saturating_sub(self.viewport.0));
        let max_y = f64::from(PAGE_HEIGHT.saturating_sub(self.viewport.1));
        self.scroll = (x.clamp(0.0, max_x), y.clamp(0.0, max_y));
    }
}

#[derive(Debug)]
struct Recording {
    state: RecordingState,
    frames: u32,
    /// Frames not taken because the tab showed a page outside the gate.
    skipped: u32,
    tab: TabRef,
    gate: Gate,
    started: Duration,
    stopped: Option<Duration>,
    size: (u32, u32),
}

#[derive(Debug, Default)]
struct State {
    site: Site,
    files: HashMap<PathBuf, FileStat>,
    /// Symbolic links: path → target.
    links: HashMap<PathBuf, PathBuf>,
    scripts: HashMap<String, Value>,
    diagnostics: Vec<DiagnosticEntry>,
    tabs: Vec<Tab>,
    active: Option<TabRef>,
    next_tab: u64,
    next_recording: u64,
    recordings: HashMap<String, Recording>,
    calls: Vec<PortCall>,
    faults: HashMap<&'static str, VecDeque<PortError>>,
    disconnected: bool,
    refusal: Option<StartupRefusal>,
    in_flight: HashMap<String, usize>,
    in_flight_total: usize,
    max_per_tab: usize,
    max_total: usize,
    elapsed: Duration,
    /// Viewport points pointer input was sent to, in order (test observation).
    points: Vec<Point>,
    /// Capture kinds asked for, in order (test observation).
    captures: Vec<CaptureKind>,
    /// Elements of refused frames blanked in captures so far (test observation).
    blanked: usize,
    /// Text that `text_present` finds only once the virtual clock reaches the deadline.
    appearing: Option<(String, Duration)>,
    /// Whether `wait_text` waits in the page (else it answers unsupported, unrecorded).
    waits_in_page: bool,
    /// Tabs pages opened by themselves, not yet reported by `opened_tabs`.
    popups: Vec<TabRef>,
    /// Bytes per image pixel of captures and their least size (`None`: tiny black images).
    image_weight: Option<(f64, usize)>,
}

impl State {
    /// What a local path is: a link resolves (prefix by prefix, as a file system does), a
    /// folder of a known file is a directory.
    fn stat(&self, path: &Path) -> FileStat {
        let mut real = path.to_path_buf();
        for _ in 0..8 {
            let linked = self.links.iter().find_map(|(link, target)| {
                real.strip_prefix(link)
                    .ok()
                    .map(|rest| if rest.as_os_str().is_empty() { target.clone() } else { target.join(rest) })
            });
            match linked {
                Some(next) => real = next,
                None => break,
            }
        }
        if let Some(stat) = self.files.get(&real) {
            return stat.clone();
        }
        if self.files.keys().any(|file| file.starts_with(&real) && file != &real) {
            return FileStat::Directory { real };
        }
        FileStat::Missing
    }

    /// Remember pointer input sent to a viewport point.
    fn note_point(&mut self, at: &PointerTarget) {
        if let PointerTarget::Point(point) = at {
            self.points.push(*point);
        }
    }
    fn tab(&self, tab: &TabRef) -> PortResult<&Tab> {
        self.tabs.iter().find(|t| &t.tab == tab).ok_or_else(|| err(PortErrorKind::TabGone, "the tab is gone"))
    }

    fn tab_mut(&mut self, tab: &TabRef) -> PortResult<&mut Tab> {
        self.tabs
            .iter_mut()
            .find(|t| &t.tab == tab)
            .ok_or_else(|| err(PortErrorKind::TabGone, "the tab is gone"))
    }

    /// A tab whose document may be read or acted on (no dialog open).
    fn live(&self, tab: &TabRef) -> PortResult<&Tab> {
        let t = self.tab(tab)?;
        t.unblocked()?;
        Ok(t)
    }

    fn live_mut(&mut self, tab: &TabRef) -> PortResult<&mut Tab> {
        let t = self.tab_mut(tab)?;
        t.unblocked()?;
        Ok(t)
    }

    fn take_fault(&mut self, method: &'static str) -> Option<PortError> {
        if self.disconnected {
            return Some(err(PortErrorKind::NotConnected, "the scripted browser is disconnected"));
        }
        if let Some(refusal) = &self.refusal {
            return Some(PortError::startup(refusal.clone()));
        }
        self.faults.get_mut(method).and_then(VecDeque::pop_front)
    }

    fn open(&mut self, url: Url) -> TabRef {
        self.next_tab += 1;
        let tab = TabRef::new(format!("t{}", self.next_tab));
        let doc = self.site.load(&url);
        self.tabs.push(Tab::new(tab.clone(), url, doc));
        self.active = Some(tab.clone());
        tab
    }

    /// Commit a navigation of `tab` to `url` (forward history is dropped).
    fn commit(&mut self, tab: &TabRef, url: Url) -> PortResult<PageState> {
        let doc = self.site.load(&url);
        let t = self.tab_mut(tab)?;
        t.history.truncate(t.index + 1);
        t.history.push(url);
        t.index = t.history.len() - 1;
        t.show(doc);
        Ok(t.page_state())
    }

    fn navigate(&mut self, tab: &TabRef, input: &NavigateInput) -> PortResult<PageState> {
        unreachable_host(&input.url)?;
        let t = self.live_mut(tab)?;
        if t.doc.page.beforeunload && !input.discard_beforeunload {
            t.dialog = Some(DialogKind::BeforeUnload);
            t.pending = Some(input.url.clone());
            return Err(err(PortErrorKind::BlockedByDialog, "a beforeunload prompt stopped the navigation"));
        }
        self.commit(tab, input.url.clone())
    }

    fn history(&mut self, tab: &TabRef, step: HistoryMove) -> PortResult<PageState> {
        let t = self.live(tab)?;
        let index = match step {
            HistoryMove::Back => t.index.checked_sub(1).ok_or_else(|| invalid("no earlier history entry"))?,
            HistoryMove::Forward if t.index + 1 < t.history.len() => t.index + 1,
            HistoryMove::Forward => return Err(invalid("no later history entry")),
            HistoryMove::Reload { .. } => t.index,
        };
        let url = t.history[index].clone();
        let doc = self.site.load(&url);
        let t = self.tab_mut(tab)?;
        t.index = index;
        t.show(doc);
        Ok(t.page_state())
    }

    fn read_text(&self, tab: &TabRef, input: &ReadInput, gate: &Gate) -> PortResult<TextOutcome> {
        let t = self.live(tab)?;
        let page = &t.doc.page;
        let visible = || {
            let frames = t.frame_texts(gate);
            let mut text = page.visible_text.clone();
            for frame in &frames {
                text.push('\n');
                text.push_str(frame);
            }
            (text, frames.len())
        };
        let (text, frames) = match (&input.target, input.mode) {
            (Some(element), _) => {
                let e = t.el(t.element(element)?);
                (e.text.clone().or_else(|| e.name.clone()).unwrap_or_default(), 0)
            }
            (None, TextMode::Article) => (page.article_text.clone().unwrap_or_default(), 0),
            (None, TextMode::Visible) => visible(),
            (None, TextMode::ArticleOrVisible) => match page.article_text.clone() {
                Some(article) => (article, 0),
                None => visible(),
            },
        };
        if text.chars().count() <= input.max_chars {
            return Ok(TextOutcome { text, truncated: false, frames });
        }
        Ok(TextOutcome { text: text.chars().take(input.max_chars).collect(), truncated: true, frames })
    }

    fn perceive(&self, tab: &TabRef, input: &PerceiveInput, gate: &Gate) -> PortResult<Perception> {
        let t = self.live(tab)?;
        let mut elements: Vec<PerceivedElement> = match &input.scope {
            PerceiveScope::Controls => {
                t.visible(gate).filter(|(_, e)| e.control).map(|(i, _)| t.perceived(i, None)).collect()
            }
            PerceiveScope::Structure => {
                t.visible(gate).filter(|(_, e)| !e.control).map(|(i, _)| t.perceived(i, None)).collect()
            }
            PerceiveScope::All => t.visible(gate).map(|(i, _)| t.perceived(i, None)).collect(),
            PerceiveScope::Forms => {
                t.visible(gate).filter(|(_, e)| e.form.is_some()).map(|(i, _)| t.perceived(i, None)).collect()
            }
            PerceiveScope::Document { root, max_depth } => {
                let (start, base) = match root {
                    Some(root) => {
                        let i = t.element(root)?;
                        (i, Some(t.el(i).depth.unwrap_or(0)))
                    }
                    None => (0, None),
                };
                let mut out = Vec::new();
                for (i, e) in t.visible(gate).filter(|(i, _)| *i >= start) {
                    let depth = e.depth.unwrap_or(0);
                    let relative = match base {
                        Some(base) if i > start && depth <= base => break,
                        Some(base) => depth.saturating_sub(base),
                        None => depth,
                    };
                    if relative <= *max_depth {
                        out.push(t.perceived(i, Some(relative)));
                    }
                }
                out
            }
            PerceiveScope::Matching { text, controls_only } => {
                let mut elements =
                    self.find_text(tab, text, *controls_only, input.max_items.saturating_add(1), gate)?;
                let truncated = elements.len() > input.max_items;
                elements.truncate(input.max_items);
                return Ok(Perception { elements, truncated });
            }
        };
        let truncated = elements.len() > input.max_items;
        elements.truncate(input.max_items);
        Ok(Perception { elements, truncated })
    }

    fn find_text(
        &self,
        tab: &TabRef,
        text: &str,
        controls_only: bool,
        max: usize,
        gate: &Gate,
    ) -> PortResult<Vec<PerceivedElement>> {
        let t = self.live(tab)?;
        if text.trim().is_empty() {
            return Ok(Vec::new());
        }
        let needle = text.to_lowercase();
        let matches =
            |value: &Option<String>| value.as_ref().is_some_and(|v| v.to_lowercase().contains(&needle));
        Ok(t.visible(gate)
            .filter(|(_, e)| (e.control || !controls_only) && (matches(&e.name) || matches(&e.text)))
            .take(max)
            .map(|(i, _)| t.perceived(i, None))
            .collect())
    }

    fn capture(&self, tab: &TabRef, kind: &CaptureKind) -> PortResult<Captured> {
        let t = self.live(tab)?;
        let geometry = t.geometry();
        let (vw, vh) = (f64::from(t.viewport.0), f64::from(t.viewport.1));
        let (width, height, origin, scale) = match kind {
            CaptureKind::Viewport => (vw, vh, t.scroll, geometry.device_scale),
            CaptureKind::FullPage => (f64::from(PAGE_WIDTH), f64::from(PAGE_HEIGHT), (0.0, 0.0), 1.0),
            CaptureKind::Element(element) => {
                let top = t.element(element)? as f64 * ELEMENT_HEIGHT;
                (ELEMENT_WIDTH, ELEMENT_HEIGHT, (0.0, top), geometry.device_scale)
            }
            CaptureKind::Region { rect, scale } => (rect.width, rect.height, (rect.x, rect.y), *scale),
        };
        let side = |css: f64| {
            let pixels = (css * scale).round().max(1.0);
            if scale.is_finite() && scale > 0.0 && pixels <= f64::from(MAX_SIDE) {
                Ok(pixels as u32)
            } else {
                Err(invalid("the capture size or scale is out of range"))
            }
        };
        let (width, height) = (side(width)?, side(height)?);
        let mut png = black_png(width, height);
        if let Some((per_pixel, least)) = self.image_weight {
            // A photograph-like image: as many bytes as its pixels make (padding after IEND).
            let bulky = (f64::from(width) * f64::from(height) * per_pixel) as usize;
            png.resize(png.len().max(bulky).max(least), 0);
        }
        Ok(Captured { png, width, height, origin, css_per_pixel: 1.0 / scale, geometry })
    }

    fn click(&mut self, tab: &TabRef, input: &ClickInput) -> PortResult<ActionReceipt> {
        let t = self.live_mut(tab)?;
        let Some(i) = t.pointer(&input.at)? else {
            return Ok(t.receipt(None));
        };
        if let Some(cover) = &t.el(i).covered_by {
            return Err(PortError::obstructed(Some(cover.clone())));
        }
        let summary = t.summary(i);
        t.doc.focused = Some(i);
        if input.button != MouseButton::Primary {
            return Ok(t.receipt(Some(i)));
        }
        match t.el(i).on_click.clone() {
            Some(ClickEffect::Navigate(_)) => {
                let url = t.link_target(i)?.ok_or_else(|| invalid("no link target"))?;
                let page = self.commit(tab, url)?;
                return Ok(ActionReceipt { element: Some(summary), page, keys_withheld: 0 });
            }
            Some(ClickEffect::Dialog(kind)) => t.dialog = Some(kind),
            Some(ClickEffect::Remove) => {
                t.doc.page.elements[i].hidden = true;
                t.doc.focused = None;
            }
            Some(ClickEffect::OpenTab(href)) => {
                let url = t.url().join(&href).map_err(|_| invalid("the fixture's popup is not a URL"))?;
                let page = t.page_state();
                let opened = self.open(url);
                self.popups.push(opened);
                self.active = Some(tab.clone());
                return Ok(ActionReceipt { element: Some(summary), page, keys_withheld: 0 });
            }
            None => {}
        }
        Ok(ActionReceipt { element: Some(summary), page: t.page_state(), keys_withheld: 0 })
    }

    fn scroll(&mut self, tab: &TabRef, input: &ScrollInput) -> PortResult<ScrollOutcome> {
        let t = self.live_mut(tab)?;
        let (vw, vh) = (f64::from(t.viewport.0), f64::from(t.viewport.1));
        let (x, y) = t.scroll;
        let (to_x, to_y) = match input {
            ScrollInput::Reveal(element) => (x, t.element(element)? as f64 * ELEMENT_HEIGHT),
            ScrollInput::By { direction, fraction } => match direction {
                ScrollDirection::Up => (x, y - fraction * vh),
                ScrollDirection::Down => (x, y + fraction * vh),
                ScrollDirection::Left => (x - fraction * vw, y),
                ScrollDirection::Right => (x + fraction * vw, y),
            },
            ScrollInput::Wheel { at, delta_y } => {
                t.check_point(at)?;
                (x, y + delta_y)
            }
        };
        if !to_x.is_finite() || !to_y.is_finite() {
            return Err(invalid("the scroll amount is not finite"));
        }
        t.clamp_scroll(to_x, to_y);
        Ok(ScrollOutcome { scrolled: t.scroll != (x, y), offset_x: t.scroll.0, offset_y: t.scroll.1 })
    }

    fn fill(&mut self, tab: &TabRef, input: &FillInput) -> PortResult<FillOutcome> {
        let t = self.live_mut(tab)?;
        let mut planned = Vec::with_capacity(input.fields.len());
        for (index, (element, value)) in input.fields.iter().enumerate() {
            let i = t.element(element)?;
            let e = t.el(i);
            if e.states.contains(&ElementState::Disabled) {
                return Err(PortError::invalid_field(index, "the control is disabled"));
            }
            let fitted = match (&e.kind, value) {
                (FieldKind::Text, FillValue::Text(_)) | (FieldKind::Checkbox, FillValue::Checked(_)) => {
                    Some(value.clone())
                }
                (FieldKind::Select(options), FillValue::Text(text)) => options
                    .iter()
                    .find(|(value, _)| value == text)
                    .or_else(|| options.iter().find(|(_, label)| label == text))
                    .map(|(value, _)| FillValue::Text(value.clone())),
                // A scripted list is single-choice: a list of one option fits it.
                (FieldKind::Select(options), FillValue::Options(list)) => match list.as_slice() {
                    [text] => options
                        .iter()
                        .find(|(value, label)| value == text || label == text)
                        .map(|(value, _)| FillValue::Text(value.clone())),
                    _ => None,
                },
                (FieldKind::Number, FillValue::Text(text)) => {
                    text.trim().parse::<f64>().ok().filter(|n| n.is_finite()).map(FillValue::Number)
                }
                (FieldKind::Number, FillValue::Number(n)) if n.is_finite() => Some(FillValue::Number(*n)),
                _ => None,
            };
            let fitted = fitted
                .ok_or_else(|| PortError::invalid_field(index, "the value does not fit the control"))?;
            planned.push((i, fitted));
        }
        for (i, value) in planned {
            t.doc.filled.insert(i, value);
        }
        Ok(FillOutcome { filled: input.fields.len(), page: t.page_state() })
    }

    fn type_text(&mut self, tab: &TabRef, input: &TypeInput) -> PortResult<ActionReceipt> {
        let t = self.live_mut(tab)?;
        let i = t.element(&input.into)?;
        t.doc.focused = Some(i);
        if input.clear_first {
            t.doc.filled.remove(&i);
        }
        // Characters land in `into` until a `\t` moves focus on; the rest is withheld.
        let mut chars = input.text.chars();
        let mut keys_withheld = 0;
        for c in chars.by_ref() {
            if c == '\t' {
                t.doc.focused = t.next_control(Some(i));
                keys_withheld = chars.count();
                break;
            }
            t.type_char(i, c);
        }
        Ok(ActionReceipt { keys_withheld, ..t.receipt(Some(i)) })
    }

    fn press_keys(&mut self, tab: &TabRef, input: &KeyInput) -> PortResult<ActionReceipt> {
        let t = self.live_mut(tab)?;
        let pinned = match &input.into {
            Some(element) => {
                let i = t.element(element)?;
                t.doc.focused = Some(i);
                Some(i)
            }
            None => None,
        };
        let total = input.keys.len() * input.repeat as usize;
        let keys = (0..input.repeat).flat_map(|_| input.keys.iter().copied());
        for (n, key) in keys.enumerate() {
            if t.doc.focused != pinned {
                // Focus left the element the keys were for: this key and the rest are withheld.
                return Ok(ActionReceipt { keys_withheld: total - n, ..t.receipt(t.doc.focused) });
            }
            match key {
                Key::Named(NamedKey::Tab) => t.doc.focused = t.next_control(t.doc.focused),
                Key::Named(NamedKey::Enter) => {
                    if let Some(url) = pinned.map(|i| t.link_target(i)).transpose()?.flatten() {
                        let summary = pinned.map(|i| t.summary(i));
                        let page = self.commit(tab, url)?;
                        return Ok(ActionReceipt { element: summary, page, keys_withheld: 0 });
                    }
                }
                Key::Char(c)
                    if input.modifiers.is_empty() || input.modifiers == [crate::vocab::Modifier::Shift] =>
                {
                    if let Some(i) = pinned {
                        t.type_char(i, c);
                    }
                }
                _ => {}
            }
        }
        Ok(t.receipt(t.doc.focused))
    }

    fn resolve_dialog(&mut self, tab: &TabRef, resolution: &DialogResolution) -> PortResult<DialogKind> {
        let t = self.tab_mut(tab)?;
        let kind = t.dialog.ok_or_else(|| invalid("no dialog is open"))?;
        if matches!(resolution, DialogResolution::Respond(_)) && kind != DialogKind::Prompt {
            return Err(invalid("only a prompt takes a response"));
        }
        t.dialog = None;
        let pending = t.pending.take();
        if let (Some(url), DialogResolution::Accept) = (pending, resolution) {
            self.commit(tab, url)?;
        }
        Ok(kind)
    }

    fn upload(&mut self, tab: &TabRef, input: &UploadInput) -> PortResult<UploadOutcome> {
        let t = self.live(tab)?;
        match &input.to {
            UploadDestination::Input(element) => {
                if t.el(t.element(element)?).kind != FieldKind::FileInput {
                    return Err(invalid("the target is not a file input"));
                }
            }
            UploadDestination::Drop(point) => t.check_point(point)?,
        }
        let (count, bytes) = match &input.files {
            UploadFiles::Paths(paths) => {
                let mut total = 0;
                for path in paths {
                    match self.files.get(path) {
                        Some(FileStat::File { bytes, .. }) => total += bytes,
                        _ => return Err(invalid("a path is not a readable file")),
                    }
                }
                (paths.len(), total)
            }
            UploadFiles::Inline(files) => (files.len(), files.iter().map(|f| f.bytes.len() as u64).sum()),
        };
        Ok(UploadOutcome { count, bytes, page: t.page_state() })
    }

    fn execute(&self, tab: &TabRef, script: &str) -> PortResult<ScriptOutcome> {
        let t = self.live(tab)?;
        if script == "throw" {
            let failure =
                ScriptFailure { name: "Error".into(), message: "scripted failure".into(), ran: true };
            return Err(PortError::script_failed(failure));
        }
        if script == "syntax(" {
            let failure = ScriptFailure {
                name: "SyntaxError".into(),
                message: "Unexpected end of input".into(),
                ran: false,
            };
            return Err(PortError::script_failed(failure));
        }
        let value = self.scripts.get(script).cloned().unwrap_or(Value::Null);
        Ok(ScriptOutcome { value, page: t.page_state() })
    }

    fn record(&mut self, command: &RecordCommand) -> PortResult<RecordReport> {
        let now = self.elapsed;
        let (recording, delivery) = match command {
            RecordCommand::Start(tab, gate) => {
                let t = self.tab(tab)?;
                let size = t.viewport;
                let inside = gate.admits(t.url());
                self.next_recording += 1;
                let recording = RecordingRef::new(format!("r{}", self.next_recording));
                let entry = Recording {
                    state: RecordingState::Recording,
                    frames: u32::from(inside),
                    skipped: u32::from(!inside),
                    started: now,
                    stopped: None,
                    size,
                    tab: tab.clone(),
                    gate: gate.clone(),
                };
                self.recordings.insert(recording.as_str().to_owned(), entry);
                return self.report(&recording, None);
            }
            RecordCommand::Status(recording) => return self.report(recording, None),
            RecordCommand::Stop(recording) => (recording, None),
            RecordCommand::Save(recording, delivery) => (recording, Some(delivery)),
            RecordCommand::Discard(recording) => {
                let entry = self.recording(recording)?;
                entry.state = RecordingState::Discarded;
                entry.frames = 0;
                return self.report(recording, None);
            }
        };
        if let Some(RecordDelivery::Attach(tab, element)) = delivery {
            let t = self.tab(tab)?;
            if t.el(t.element(element)?).kind != FieldKind::FileInput {
                // As the WebDriver adapter answers (`InvalidInput` means the recording expired).
                return Err(err(PortErrorKind::Other, "the attach target is not a file input"));
            }
        }
        let entry = self.recordings.get(recording.as_str()).ok_or_else(|| invalid("no such recording"))?;
        // The final frame, unless the tab shows a page outside the recording's gate.
        let inside = self.tab(&entry.tab).is_ok_and(|t| entry.gate.admits(t.url()));
        let entry = self.recording(recording)?;
        match entry.state {
            RecordingState::Discarded => return Err(invalid("the recording was discarded")),
            RecordingState::Recording => {
                entry.state = RecordingState::Stopped;
                if inside {
                    entry.frames += 1;
                } else {
                    entry.skipped += 1;
                }
                entry.stopped = Some(now);
            }
            RecordingState::Stopped => {}
        }
        let gif = matches!(delivery, Some(RecordDelivery::Client)).then(|| GIF.to_vec());
        self.report(recording, gif)
    }

    fn recording(&mut self, recording: &RecordingRef) -> PortResult<&mut Recording> {
        self.recordings.get_mut(recording.as_str()).ok_or_else(|| invalid("no such recording"))
    }

    fn report(&mut self, recording: &RecordingRef, gif: Option<Vec<u8>>) -> PortResult<RecordReport> {
        let now = self.elapsed;
        let entry = self.recording(recording)?;
        let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let run = millis(entry.stopped.unwrap_or(now).saturating_sub(entry.started));
        let saved = entry.state == RecordingState::Stopped;
        Ok(RecordReport {
            recording: recording.clone(),
            state: entry.state,
            frames: entry.frames,
            captured_frames: entry.frames,
            skipped_frames: entry.skipped,
            bytes: gif.as_ref().map_or(u64::from(entry.frames) * 1024, |g| g.len() as u64),
            duration_ms: run,
            width: entry.size.0,
            height: entry.size.1,
            capture_deadline_ms: (entry.state == RecordingState::Recording)
                .then(|| 60_000u64.saturating_sub(run)),
            retention_deadline_ms: saved.then_some(600_000),
            stop_reason: saved.then(|| "requested".to_owned()),
            gif,
        })
    }

    fn diagnostics(&mut self, tab: &TabRef, query: &DiagnosticsQuery) -> PortResult<DiagnosticsPage> {
        let t = self.tab_mut(tab)?;
        let first = !t.tracking;
        t.tracking = true;
        let t = self.tab(tab)?;
        let after = match &query.after {
            Some(cursor) => Some(cursor.parse::<usize>().map_err(|_| invalid("not a cursor of this tab"))?),
            None => None,
        };
        let pattern = query.pattern.as_ref().map(|p| p.to_lowercase());
        let all: Vec<&DiagnosticEntry> = self.diagnostics.iter().chain(&t.diagnostics).collect();
        let matched: Vec<(usize, &DiagnosticEntry)> = all
            .iter()
            .copied()
            .enumerate()
            .filter(|(i, _)| after.is_none_or(|a| *i > a))
            .filter(|(_, e)| match query.source {
                DiagnoseSource::Both => true,
                DiagnoseSource::Console => e.source == DiagnosticSource::Console,
                DiagnoseSource::Network => e.source == DiagnosticSource::Network,
            })
            .filter(|(_, e)| query.detail == DiagnoseDetail::All || e.problem)
            .filter(|(_, e)| {
                pattern.as_ref().is_none_or(|p| {
                    e.text.as_ref().is_some_and(|text| text.to_lowercase().contains(p))
                        || e.url.as_ref().is_some_and(|url| url.as_str().to_lowercase().contains(p))
                })
            })
            .collect();
        let returned = &matched[..matched.len().min(query.limit)];
        Ok(DiagnosticsPage {
            entries: returned.iter().map(|(_, e)| (*e).clone()).collect(),
            next_cursor: returned.last().map(|(i, _)| i.to_string()).or_else(|| query.after.clone()),
            truncated: matched.len() > query.limit,
            evicted: 0,
            tracking_started: first && all.is_empty(),
        })
    }
}

/// Returns `Pending` once (after waking itself), then `Ready`: one cooperative yield.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// One call in flight: decrements the counters when dropped.
struct InFlight<'a> {
    state: &'a Mutex<State>,
    tab: Option<String>,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.in_flight_total = state.in_flight_total.saturating_sub(1);
        if let Some(count) = self.tab.as_ref().and_then(|tab| state.in_flight.get_mut(tab)) {
            *count = count.saturating_sub(1);
        }
    }
}

impl ScriptedBrowser {
    /// A browser with no fixtures and no tabs.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn setup(&mut self) -> &mut State {
        self.state.get_mut().unwrap_or_else(PoisonError::into_inner)
    }

    /// Serve `page` at exactly `url`.
    ///
    /// # Panics
    /// When `url` is not a URL (a fixture mistake).
    #[track_caller]
    pub fn site(mut self, url: &str, page: ScriptedPage) -> Self {
        let url = Url::parse(url).unwrap_or_else(|e| panic!("ScriptedBrowser::site: {url:?}: {e}"));
        self.setup().site.pages.insert(url.to_string(), page);
        self
    }

    /// Open a tab showing `url` before the test starts (no one owns it; it becomes active).
    ///
    /// # Panics
    /// When `url` is not a URL (a fixture mistake).
    #[track_caller]
    pub fn with_tab(mut self, url: &str) -> Self {
        let url = Url::parse(url).unwrap_or_else(|e| panic!("ScriptedBrowser::with_tab: {url:?}: {e}"));
        self.setup().open(url);
        self
    }

    /// A local file of `bytes` bytes, as `stat_files` and path uploads see it (its folders
    /// exist as directories).
    pub fn file(mut self, path: impl Into<PathBuf>, bytes: u64) -> Self {
        let path = path.into();
        self.setup().files.insert(path.clone(), FileStat::File { bytes, real: path });
        self
    }

    /// A local directory, as `stat_files` sees it.
    pub fn directory(mut self, path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        self.setup().files.insert(path.clone(), FileStat::Directory { real: path });
        self
    }

    /// A symbolic link at `path` to `target` (a file or directory given before, or a folder
    /// of one): `stat_files` reports what the target is, with the target's real path.
    pub fn link(mut self, path: impl Into<PathBuf>, target: impl Into<PathBuf>) -> Self {
        self.setup().links.insert(path.into(), target.into());
        self
    }

    /// `execute` of exactly `script` returns `value` (other scripts return `null`; the
    /// script `throw` throws).
    pub fn script_result(mut self, script: &str, value: Value) -> Self {
        self.setup().scripts.insert(script.to_owned(), value);
        self
    }

    /// Captures weigh `per_pixel` bytes per image pixel, as a busy page's PNG does, and at
    /// least `least` bytes (by default they are tiny black images), so image-size bounds can
    /// be exercised.
    pub fn image_weight(mut self, per_pixel: f64, least: usize) -> Self {
        self.setup().image_weight = Some((per_pixel, least));
        self
    }

    /// Evidence every tab's `diagnostics` reports (before the tab's own entries).
    pub fn diagnostic(mut self, entry: DiagnosticEntry) -> Self {
        self.setup().diagnostics.push(entry);
        self
    }

    /// Evidence `tab` reports; `false` when the tab is gone.
    pub fn push_diagnostic(&self, tab: &TabRef, entry: DiagnosticEntry) -> bool {
        self.lock().tab_mut(tab).map(|t| t.diagnostics.push(entry)).is_ok()
    }

    /// The page closes `tab` itself; `false` when it was already gone.
    pub fn close_tab_externally(&self, tab: &TabRef) -> bool {
        let mut state = self.lock();
        let before = state.tabs.len();
        state.tabs.retain(|t| &t.tab != tab);
        if state.active.as_ref() == Some(tab) {
            state.active = state.tabs.last().map(|t| t.tab.clone());
        }
        state.tabs.len() != before
    }

    /// The page opens a dialog of `kind` by itself; `false` when the tab is gone.
    pub fn raise_dialog(&self, tab: &TabRef, kind: DialogKind) -> bool {
        self.lock().tab_mut(tab).map(|t| t.dialog = Some(kind)).is_ok()
    }

    /// The next call of `method` (a trait method name such as `"click"`) answers `error`.
    /// Several errors for one method are answered in order. `sleep` never fails.
    pub fn fail_next(&self, method: &'static str, error: PortError) {
        self.lock().faults.entry(method).or_default().push_back(error);
    }

    /// Every later call answers [`PortErrorKind::NotConnected`].
    pub fn disconnect(&self) {
        self.lock().disconnected = true;
    }

    /// Every later call answers [`PortError::startup`] with `refusal`.
    pub fn startup_refusal(&self, refusal: StartupRefusal) {
        self.lock().refusal = Some(refusal);
    }

    /// Every call so far, in order.
    pub fn calls(&self) -> Vec<PortCall> {
        self.lock().calls.clone()
    }

    /// The method names of every call so far, in order.
    pub fn method_names(&self) -> Vec<&'static str> {
        self.lock().calls.iter().map(|c| c.method).collect()
    }

    /// Forget the calls so far.
    pub fn clear_calls(&self) {
        self.lock().calls.clear();
    }

    /// Calls other than `sleep` so far.
    pub fn dispatch_count(&self) -> usize {
        self.lock().calls.iter().filter(|c| c.method != "sleep").count()
    }

    /// The most calls ever in flight at once for one tab.
    pub fn max_in_flight_per_tab(&self) -> usize {
        self.lock().max_per_tab
    }

    /// The most calls ever in flight at once.
    pub fn max_in_flight_total(&self) -> usize {
        self.lock().max_total
    }

    /// Make `text_present(text)` false until `sleep` has advanced the virtual clock by
    /// `after`, then true (content that appears late, for polling waits).
    pub fn text_appears_after(mut self, text: &str, after: Duration) -> Self {
        self.setup().appearing = Some((text.to_owned(), after));
        self
    }

    /// Make `wait_text` wait in the page on the virtual clock (by default it answers
    /// unsupported, and callers poll `text_present`): a text that holds answers `Held`; one
    /// [`ScriptedBrowser::text_appears_after`] makes present within the wait advances the
    /// clock to that moment and answers `Became`; otherwise the clock advances by the whole
    /// wait (`RanOut`). A document other than the one named answers `DocumentGone`.
    pub fn waits_in_page(mut self) -> Self {
        self.setup().waits_in_page = true;
        self
    }

    /// The viewport points pointer input (click, hover, drag, wheel) was sent to, in order.
    pub fn pointer_points(&self) -> Vec<Point> {
        self.lock().points.clone()
    }

    /// How many elements of frames the call's gate refused were blanked in captures so far.
    pub fn blanked_frame_elements(&self) -> usize {
        self.lock().blanked
    }

    /// Capture kinds asked for, in order.
    pub fn capture_kinds(&self) -> Vec<CaptureKind> {
        self.lock().captures.clone()
    }

    /// The virtual time `sleep` has advanced.
    pub fn virtual_elapsed(&self) -> Duration {
        self.lock().elapsed
    }

    /// What `tab` shows, without a port call.
    pub fn current_page(&self, tab: &TabRef) -> Option<PageState> {
        self.lock().tab(tab).ok().map(Tab::page_state)
    }

    /// The reference of the first live element of `tab` named exactly `name`, without a port
    /// call.
    pub fn element_ref(&self, tab: &TabRef, name: &str) -> Option<ElementRef> {
        let state = self.lock();
        let t = state.tab(tab).ok()?;
        let index = t.doc.page.elements.iter().position(|e| !e.hidden && e.name.as_deref() == Some(name));
        index.map(|i| t.element_ref(i))
    }

    /// How many controls of `tab`'s document hold a filled or typed value (never the values).
    pub fn filled_fields(&self, tab: &TabRef) -> usize {
        self.lock().tab(tab).map_or(0, |t| t.doc.filled.len())
    }

    /// Give keyboard focus to the element of `tab` named `name` (in any frame), as a person's
    /// click would; answers whether there was one.
    pub fn focus(&self, tab: &TabRef, name: &str) -> bool {
        let mut state = self.lock();
        let Ok(t) = state.tab_mut(tab) else { return false };
        match t.doc.page.elements.iter().position(|e| !e.hidden && e.name.as_deref() == Some(name)) {
            Some(i) => {
                t.doc.focused = Some(i);
                true
            }
            None => false,
        }
    }

    /// The names of the controls of `tab`'s document that hold a filled or typed value (never
    /// the values), in document order.
    pub fn filled_names(&self, tab: &TabRef) -> Vec<String> {
        let state = self.lock();
        let Ok(t) = state.tab(tab) else { return Vec::new() };
        let mut filled: Vec<usize> = t.doc.filled.keys().copied().collect();
        filled.sort_unstable();
        filled.into_iter().filter_map(|i| t.el(i).name.clone()).collect()
    }

    /// Log the call, count it in flight, yield once, then answer an injected fault if any.
    async fn enter(&self, method: &'static str, tab: Option<&TabRef>) -> PortResult<InFlight<'_>> {
        let tab = tab.map(|t| t.as_str().to_owned());
        let flight = {
            let mut state = self.lock();
            state.calls.push(PortCall { method, tab: tab.clone() });
            state.in_flight_total += 1;
            state.max_total = state.max_total.max(state.in_flight_total);
            if let Some(tab) = &tab {
                let count = state.in_flight.entry(tab.clone()).or_insert(0);
                *count += 1;
                let count = *count;
                state.max_per_tab = state.max_per_tab.max(count);
            }
            InFlight { state: &self.state, tab }
        };
        YieldNow(false).await;
        let fault = self.lock().take_fault(method);
        match fault {
            Some(error) => Err(error),
            None => Ok(flight),
        }
    }

    /// Run `work` on the state as one port call.
    async fn call<R: Send>(
        &self,
        method: &'static str,
        tab: Option<&TabRef>,
        work: impl FnOnce(&mut State) -> PortResult<R> + Send,
    ) -> PortResult<R> {
        let _flight = self.enter(method, tab).await?;
        let mut state = self.lock();
        work(&mut state)
    }
}

#[async_trait]
impl BrowserPort for ScriptedBrowser {
    fn engine(&self) -> &str {
        "scripted"
    }

    async fn tabs(&self) -> PortResult<Vec<TabInfo>> {
        self.call("tabs", None, |s| {
            let info = |t: &Tab| TabInfo {
                tab: t.tab.clone(),
                page: t.page_state(),
                active: s.active.as_ref() == Some(&t.tab),
            };
            Ok(s.tabs.iter().map(info).collect())
        })
        .await
    }

    /// Not logged as a call: the executor asks after every call that acted on a page.
    async fn opened_tabs(&self) -> PortResult<Vec<TabRef>> {
        Ok(std::mem::take(&mut self.lock().popups))
    }

    async fn open_tab(&self, input: &NavigateInput, _timeout: Duration) -> PortResult<OpenedTab> {
        self.call("open_tab", None, |s| {
            unreachable_host(&input.url)?;
            let tab = s.open(input.url.clone());
            Ok(OpenedTab { page: s.tab(&tab)?.gated_state(), tab })
        })
        .await
    }

    async fn focus_tab(&self, tab: &TabRef) -> PortResult<Focused> {
        self.call("focus_tab", Some(tab), |s| {
            s.tab(tab)?;
            s.active = Some(tab.clone());
            Ok(Focused { window_focused: true })
        })
        .await
    }

    async fn close_tab(&self, tab: &TabRef) -> PortResult<()> {
        self.call("close_tab", Some(tab), |s| {
            s.tab(tab)?;
            s.tabs.retain(|t| &t.tab != tab);
            if s.active.as_ref() == Some(tab) {
                s.active = s.tabs.last().map(|t| t.tab.clone());
            }
            Ok(())
        })
        .await
    }

    async fn page(&self, tab: &TabRef) -> PortResult<PageState> {
        self.call("page", Some(tab), |s| Ok(s.tab(tab)?.page_state())).await
    }

    async fn page_and_gate(&self, tab: &TabRef) -> PortResult<PageState> {
        self.call("page_and_gate", Some(tab), |s| Ok(s.tab(tab)?.gated_state())).await
    }

    async fn navigate(&self, call: &TabCall<'_>, input: &NavigateInput) -> PortResult<PageState> {
        let tab = call.tab;
        self.call("navigate", Some(tab), |s| {
            s.navigate(tab, input)?;
            Ok(s.tab(tab)?.gated_state())
        })
        .await
    }

    async fn history(&self, call: &TabCall<'_>, step: HistoryMove) -> PortResult<PageState> {
        let tab = call.tab;
        self.call("history", Some(tab), |s| {
            s.history(tab, step)?;
            Ok(s.tab(tab)?.gated_state())
        })
        .await
    }

    async fn geometry(&self, tab: &TabRef) -> PortResult<Geometry> {
        self.call("geometry", Some(tab), |s| Ok(s.tab(tab)?.geometry())).await
    }

    async fn set_zoom(&self, tab: &TabRef, percent: u32) -> PortResult<Geometry> {
        self.call("set_zoom", Some(tab), |s| {
            let t = s.tab_mut(tab)?;
            if !(25..=500).contains(&percent) {
                return Err(invalid("zoom must be 25 to 500 percent"));
            }
            t.zoom = percent;
            Ok(t.geometry())
        })
        .await
    }

    async fn resize_window(&self, tab: &TabRef, width: u32, height: u32) -> PortResult<Geometry> {
        self.call("resize_window", Some(tab), |s| {
            let t = s.tab_mut(tab)?;
            if width == 0 || height <= 100 {
                return Err(invalid("the window is too small"));
            }
            t.window = (width, height);
            t.viewport = (width, height - 100);
            let (x, y) = t.scroll;
            t.clamp_scroll(x, y);
            Ok(t.geometry())
        })
        .await
    }

    async fn read_text(&self, call: &TabCall<'_>, input: &ReadInput) -> PortResult<TextOutcome> {
        let (tab, gate) = (call.tab, &call.gate);
        self.call("read_text", Some(tab), |s| s.read_text(tab, input, gate)).await
    }

    async fn perceive(&self, call: &TabCall<'_>, input: &PerceiveInput) -> PortResult<Perception> {
        let (tab, gate) = (call.tab, &call.gate);
        self.call("perceive", Some(tab), |s| s.perceive(tab, input, gate)).await
    }

    async fn focused_element(&self, tab: &TabRef) -> PortResult<Option<FocusedElement>> {
        self.call("focused_element", Some(tab), |s| {
            let t = s.live(tab)?;
            Ok(t.doc.focused.filter(|i| !t.el(*i).hidden).map(|i| FocusedElement {
                element: t.perceived(i, None),
                frames: t.el(i).frame.clone().into_iter().collect(),
            }))
        })
        .await
    }

    async fn element_present(&self, tab: &TabRef, element: &ElementRef) -> PortResult<bool> {
        self.call("element_present", Some(tab), |s| match s.live(tab)?.element(element) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == PortErrorKind::TargetStale => Ok(false),
            Err(e) => Err(e),
        })
        .await
    }

    async fn control_matches(
        &self,
        call: &TabCall<'_>,
        element: &ElementRef,
        expected: &FillValue,
    ) -> PortResult<Option<bool>> {
        let tab = call.tab;
        self.call("control_matches", Some(tab), |s| {
            let t = s.live(tab)?;
            let i = match t.element(element) {
                Ok(i) => i,
                Err(e) if e.kind() == PortErrorKind::TargetStale => return Ok(None),
                Err(e) => return Err(e),
            };
            let filled = t.doc.filled.get(&i);
            let matches = match (&t.el(i).kind, expected) {
                (FieldKind::Checkbox, FillValue::Checked(want)) => {
                    matches!(filled, Some(FillValue::Checked(true))) == *want
                }
                (FieldKind::Text, FillValue::Text(want)) => match filled {
                    Some(FillValue::Text(value)) => value == want,
                    _ => want.is_empty(),
                },
                (FieldKind::Number, FillValue::Text(want)) => match filled {
                    Some(FillValue::Number(value)) => want.trim().parse::<f64>().ok() == Some(*value),
                    _ => want.is_empty(),
                },
                (FieldKind::Select(options), FillValue::Text(want)) => {
                    let chosen = options.iter().find(|(value, label)| value == want || label == want);
                    match (filled, chosen) {
                        (Some(FillValue::Text(value)), Some((option, _))) => value == option,
                        _ => false,
                    }
                }
                _ => return Err(PortError::invalid_field(0, "the value does not fit the control")),
            };
            Ok(Some(matches))
        })
        .await
    }

    async fn text_present(&self, call: &TabCall<'_>, text: &str) -> PortResult<bool> {
        let (tab, gate) = (call.tab, &call.gate);
        self.call("text_present", Some(tab), |s| {
            if let Some((appearing, at)) = &s.appearing
                && appearing == text
            {
                return Ok(s.elapsed >= *at);
            }
            let t = s.live(tab)?;
            let needle = text.to_lowercase();
            let mut texts = std::iter::once(t.doc.page.visible_text.clone()).chain(t.frame_texts(gate));
            Ok(texts.any(|text| text.to_lowercase().contains(&needle)))
        })
        .await
    }

    async fn wait_text(&self, call: &TabCall<'_>, input: &TextWaitInput) -> PortResult<TextWait> {
        if !self.lock().waits_in_page {
            return Err(PortError::new(PortErrorKind::Unsupported, "this scripted browser polls"));
        }
        let (tab, gate) = (call.tab, &call.gate);
        self.call("wait_text", Some(tab), |s| {
            let t = s.live(tab)?;
            if t.page_state().document != input.document {
                return Ok(TextWait::DocumentGone);
            }
            let needle = input.text.to_lowercase();
            let mut texts = std::iter::once(t.doc.page.visible_text.clone()).chain(t.frame_texts(gate));
            let shown = texts.any(|text| text.to_lowercase().contains(&needle));
            let appears = s.appearing.as_ref().filter(|(text, _)| *text == input.text).map(|(_, at)| *at);
            let present_at = |elapsed: Duration| shown || appears.is_some_and(|at| elapsed >= at);
            if present_at(s.elapsed) == input.present {
                return Ok(TextWait::Held);
            }
            if let Some(at) = appears
                && input.present
                && at <= s.elapsed + input.within
            {
                s.elapsed = at;
                return Ok(TextWait::Became);
            }
            s.elapsed += input.within;
            Ok(TextWait::RanOut)
        })
        .await
    }

    async fn capture(&self, call: &TabCall<'_>, kind: &CaptureKind) -> PortResult<Captured> {
        let (tab, gate) = (call.tab, &call.gate);
        self.call("capture", Some(tab), |s| {
            s.captures.push(kind.clone());
            let t = s.live(tab)?;
            // Frames the gate refuses are blanked (every such element counts once).
            let refused = t
                .doc
                .page
                .elements
                .iter()
                .filter(|e| !e.hidden && e.frame.as_ref().is_some_and(|frame| !gate.admits(frame)))
                .count();
            s.blanked += refused;
            s.capture(tab, kind)
        })
        .await
    }

    async fn click(&self, call: &TabCall<'_>, input: &ClickInput) -> PortResult<ActionReceipt> {
        let (tab, gate) = (call.tab, &call.gate);
        self.call("click", Some(tab), |s| {
            s.live(tab)?.gate_pointer(&input.at, gate)?;
            s.note_point(&input.at);
            s.click(tab, input)
        })
        .await
    }

    async fn hover(&self, call: &TabCall<'_>, input: &HoverInput) -> PortResult<ActionReceipt> {
        let (tab, gate, at) = (call.tab, &call.gate, &input.at);
        self.call("hover", Some(tab), |s| {
            s.live(tab)?.gate_pointer(at, gate)?;
            s.note_point(at);
            let t = s.live(tab)?;
            Ok(t.receipt(t.pointer(at)?))
        })
        .await
    }

    async fn scroll(&self, call: &TabCall<'_>, input: &ScrollInput) -> PortResult<ScrollOutcome> {
        let (tab, gate) = (call.tab, &call.gate);
        self.call("scroll", Some(tab), |s| {
            if let ScrollInput::Wheel { at, .. } = input {
                s.live(tab)?.gate_pointer(&PointerTarget::Point(*at), gate)?;
                s.points.push(*at);
            }
            s.scroll(tab, input)
        })
        .await
    }

    async fn drag(
        &self,
        call: &TabCall<'_>,
        from: &PointerTarget,
        to: &PointerTarget,
    ) -> PortResult<ActionReceipt> {
        let (tab, gate) = (call.tab, &call.gate);
        self.call("drag", Some(tab), |s| {
            let t = s.live(tab)?;
            t.gate_pointer(from, gate)?;
            t.gate_pointer(to, gate)?;
            s.note_point(from);
            s.note_point(to);
            let t = s.live(tab)?;
            let from = t.pointer(from)?;
            t.pointer(to)?;
            Ok(t.receipt(from))
        })
        .await
    }

    async fn fill(&self, call: &TabCall<'_>, input: &FillInput) -> PortResult<FillOutcome> {
        let tab = call.tab;
        self.call("fill", Some(tab), |s| s.fill(tab, input)).await
    }

    async fn type_text(&self, call: &TabCall<'_>, input: &TypeInput) -> PortResult<ActionReceipt> {
        let tab = call.tab;
        self.call("type_text", Some(tab), |s| s.type_text(tab, input)).await
    }

    async fn press_keys(&self, call: &TabCall<'_>, input: &KeyInput) -> PortResult<ActionReceipt> {
        let tab = call.tab;
        self.call("press_keys", Some(tab), |s| s.press_keys(tab, input)).await
    }

    async fn dialog(&self, tab: &TabRef) -> PortResult<Option<DialogKind>> {
        self.call("dialog", Some(tab), |s| Ok(s.tab(tab)?.dialog)).await
    }

    async fn resolve_dialog(&self, tab: &TabRef, resolution: &DialogResolution) -> PortResult<DialogKind> {
        self.call("resolve_dialog", Some(tab), |s| s.resolve_dialog(tab, resolution)).await
    }

    async fn stat_files(&self, paths: &[PathBuf]) -> PortResult<Vec<FileStat>> {
        self.call("stat_files", None, |s| Ok(paths.iter().map(|p| s.stat(p)).collect())).await
    }

    async fn upload(&self, call: &TabCall<'_>, input: &UploadInput) -> PortResult<UploadOutcome> {
        let (tab, gate) = (call.tab, &call.gate);
        self.call("upload", Some(tab), |s| {
            let at = match &input.to {
                UploadDestination::Input(element) => PointerTarget::Element(element.clone()),
                UploadDestination::Drop(point) => PointerTarget::Point(*point),
            };
            s.live(tab)?.gate_pointer(&at, gate)?;
            s.upload(tab, input)
        })
        .await
    }

    async fn execute(&self, call: &TabCall<'_>, script: &str) -> PortResult<ScriptOutcome> {
        let tab = call.tab;
        self.call("execute", Some(tab), |s| s.execute(tab, script)).await
    }

    async fn record(&self, command: &RecordCommand) -> PortResult<RecordReport> {
        let tab = match command {
            RecordCommand::Start(tab, _) => Some(tab),
            _ => None,
        };
        self.call("record", tab, |s| s.record(command)).await
    }

    async fn diagnostics(&self, tab: &TabRef, query: &DiagnosticsQuery) -> PortResult<DiagnosticsPage> {
        self.call("diagnostics", Some(tab), |s| s.diagnostics(tab, query)).await
    }

    async fn sleep(&self, duration: Duration) {
        let mut state = self.lock();
        state.calls.push(PortCall { method: "sleep", tab: None });
        state.elapsed += duration;
    }

    /// Never completes: the scripted port's reads never block, and its time is virtual.
    async fn deadline(&self, _after: Duration) {
        futures::future::pending::<()>().await;
    }
}
