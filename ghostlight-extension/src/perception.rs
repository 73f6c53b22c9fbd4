//! Reading and perceiving pages through the extension: `perceive` (a text search is a perception too),
//! `focused_element`, `element_present`, `read_text`, `text_present`, and where an element is
//! ([`element_point`], [`element_box`]) for capture and pointer input.
//!
//! The page work is the shared page scripts' (`ghostlight-page`, packaged as the extension's
//! `page/dom.js`, see [`crate::protocol::PageFn`]), run in the extension's isolated
//! world of one frame document at a time. As in the WebDriver adapter, a perception pass never
//! descends into frames: it lists the visible iframes with their place among the items, and
//! this module runs one more pass per frame document (by the extension's frame id, any
//! origin), splicing its items in at the iframe's place, within the same caps
//! ([`MAX_FRAME_PASSES`](ghostlight_page::perceived::MAX_FRAME_PASSES), [`MAX_FRAME_DEPTH`]). A frame document the call's [`Gate`] refuses
//! is never perceived or read, nor is any frame inside it. A frame the extension cannot
//! script (not yet loaded, a browser page) is left out.
//!
//! Frames are matched to the extension's frame ids by their place: each document reports the
//! index of every window on its way up among its parent's frames (`window.frames`, readable
//! across origins), each listed iframe its index among its document's frames.

use ghostlight_core::port::{
    CssRect, ElementRef, ElementState, FocusedElement, Gate, PerceiveInput, PerceivedElement, Perception,
    Point, PortError, PortErrorKind, PortResult, ReadInput, TextMode, TextOutcome,
};
use ghostlight_page::bounds::{MAX_WALK_FRAMES, READ_SCRIPT_TIMEOUT as READ_WAIT};
use ghostlight_page::perceived::{Gathered, MAX_FRAME_DEPTH, ScriptItem, bound_chars};
use ghostlight_page::perception::{self, Documents, Pass, PassOptions, RawText, ReadOptions};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use url::Url;

use crate::browser::ExtensionBrowser;
use crate::protocol::{Op, PageFn, WireFrameDoc};
use crate::refs::Element;

/// Call the page API's `call(args)` in `frame` of `tab`, decoded as `T`.
pub(crate) async fn page_call<T: DeserializeOwned>(
    b: &ExtensionBrowser,
    tab: i64,
    frame: i64,
    call: PageFn,
    args: Vec<Value>,
) -> PortResult<T> {
    b.call(Op::PageCall { tab, frame, call, args, stash: None }, READ_WAIT).await
}

/// The tab's frame documents, fetched once per call when a frame is first needed.
#[derive(Default)]
pub(crate) struct FrameDocs(Option<Vec<WireFrameDoc>>);

impl FrameDocs {
    /// The frame document at `path` (indices among frames from the top down).
    pub(crate) async fn at(
        &mut self,
        b: &ExtensionBrowser,
        tab: i64,
        path: &[i64],
    ) -> PortResult<Option<WireFrameDoc>> {
        let docs = match &mut self.0 {
            Some(docs) => docs,
            empty => empty.insert(b.call(Op::PageFrames { tab }, READ_WAIT).await?),
        };
        Ok(docs.iter().find(|doc| doc.path == path).cloned())
    }

    /// The path of frame `frame` (empty for the top document).
    pub(crate) async fn path_of(
        &mut self,
        b: &ExtensionBrowser,
        tab: i64,
        frame: i64,
    ) -> PortResult<Vec<i64>> {
        if frame == 0 {
            return Ok(Vec::new());
        }
        let docs = match &mut self.0 {
            Some(docs) => docs,
            empty => empty.insert(b.call(Op::PageFrames { tab }, READ_WAIT).await?),
        };
        docs.iter()
            .find(|doc| doc.frame == frame)
            .map(|doc| doc.path.clone())
            .ok_or_else(|| PortError::new(PortErrorKind::TargetStale, "the element's frame is gone"))
    }
}

/// Whether `gate` admits a frame document at `url` (one without a usable URL is refused).
pub(crate) fn admitted(gate: &Gate, url: &str) -> bool {
    Url::parse(url).is_ok_and(|url| gate.admits(&url))
}

// ---- perception -------------------------------------------------------------------------

/// One pass's answer: registry ids for items, frame indices for listed frames.
type RawPass = perception::RawPass<u64, i64, RawFrameElement>;

/// One item (`e` is the registry id).
type RawItem = ScriptItem<u64>;

/// The focused iframe: its index among the document's frames and its registry id.
#[derive(Debug, Deserialize)]
struct RawFrameElement {
    i: i64,
    e: u64,
}

/// Where a pass runs.
struct Place {
    /// The extension's frame id.
    frame: i64,
    /// The frame's indices from the top down.
    path: Vec<i64>,
    /// The subtree root (document scope), as the page API takes it.
    root: Option<Value>,
}

/// The frame documents of one tab, reached by the extension's frame ids.
struct TabDocuments<'a> {
    b: &'a ExtensionBrowser,
    tab: i64,
    /// The call's gate: a frame document it refuses is never perceived.
    gate: &'a Gate,
    docs: FrameDocs,
}

impl Documents for TabDocuments<'_> {
    type Place = Place;
    type Frame = i64;

    async fn pass(
        &mut self,
        place: &Place,
        options: &PassOptions,
        depth_offset: u32,
    ) -> PortResult<Option<Pass<i64>>> {
        let args = vec![options.to_value()?, place.root.clone().unwrap_or(Value::Null)];
        let raw: RawPass = page_call(self.b, self.tab, place.frame, PageFn::Perceive, args).await?;
        if !place.path.is_empty() && !admitted(self.gate, raw.url.as_deref().unwrap_or_default()) {
            // Navigated to a refused document since it was listed: nothing from it.
            return Ok(None);
        }
        let elements = raw
            .items
            .into_iter()
            .map(|item| element_of(self.tab, place.frame, &raw.doc, item, depth_offset))
            .collect();
        Ok(Some(Pass { elements, truncated: raw.truncated, frames: raw.frames }))
    }

    async fn frame(&mut self, place: &Place, frame: i64) -> PortResult<Option<Place>> {
        let mut path = place.path.clone();
        path.push(frame);
        let Some(doc) = self.docs.at(self.b, self.tab, &path).await? else { return Ok(None) };
        if !admitted(self.gate, &doc.url) {
            return Ok(None);
        }
        Ok(Some(Place { frame: doc.frame, path, root: None }))
    }
}

/// Perceive semantic elements.
pub(crate) async fn perceive(
    b: &ExtensionBrowser,
    tab: i64,
    input: &PerceiveInput,
    gate: &Gate,
) -> PortResult<Perception> {
    let (options, root) = PassOptions::perceive(&input.scope, input.max_items);
    Ok(gather_from(b, tab, options, root, gate).await?.into())
}

/// Run the perception passes from `root` (in its frame) or from the tab's top document.
async fn gather_from(
    b: &ExtensionBrowser,
    tab: i64,
    options: PassOptions,
    root: Option<&ElementRef>,
    gate: &Gate,
) -> PortResult<Gathered> {
    let mut docs = TabDocuments { b, tab, gate, docs: FrameDocs::default() };
    let place = match root {
        Some(root) => {
            let root = Element::parse(root, tab)?;
            let path = docs.docs.path_of(b, tab, root.frame).await?;
            Place { frame: root.frame, path, root: Some(root.page_ref()) }
        }
        None => Place { frame: 0, path: Vec::new(), root: None },
    };
    let level = place.path.len();
    perception::gather(&mut docs, place, options, level).await
}

/// The port's element for one item found in frame `frame` of `tab` (document `doc`).
fn element_of(tab: i64, frame: i64, doc: &str, item: RawItem, depth_offset: u32) -> PerceivedElement {
    let element = Element { tab, frame, doc: doc.to_owned(), id: item.e }.to_ref();
    item.into_element(element, depth_offset)
}

// ---- focus and presence -----------------------------------------------------------------

/// The focused element, if any, through frames of any origin, with the URLs of the frame
/// documents it sits in (as the WebDriver adapter: the answer feeds the credential preflight
/// of focused typing, so frames are entered whatever the gate says).
pub(crate) async fn focused_element(b: &ExtensionBrowser, tab: i64) -> PortResult<Option<FocusedElement>> {
    let options = PassOptions::focus().to_value()?;
    let mut docs = FrameDocs::default();
    let (mut frame, mut path) = (0, Vec::new());
    let mut urls: Vec<Url> = Vec::new();
    // The focused iframe of the level above (its frame id, document and registry id).
    let mut frame_element: Option<Element> = None;
    for level in 0..=MAX_FRAME_DEPTH {
        let raw: RawPass =
            page_call(b, tab, frame, PageFn::Perceive, vec![options.clone(), Value::Null]).await?;
        if level > 0 {
            let url = raw.url.as_deref().and_then(|url| Url::parse(url).ok()).ok_or_else(|| {
                PortError::new(PortErrorKind::Other, "a focused frame's document has no usable URL")
            })?;
            urls.push(url);
        }
        if let Some(item) = raw.items.into_iter().next() {
            return Ok(Some(FocusedElement {
                element: element_of(tab, frame, &raw.doc, item, 0),
                frames: urls,
            }));
        }
        match raw.focus_frame {
            Some(focused) => {
                frame_element = Some(Element { tab, frame, doc: raw.doc.clone(), id: focused.e });
                path.push(focused.i);
                let doc = docs.at(b, tab, &path).await?.ok_or_else(|| {
                    PortError::new(PortErrorKind::Other, "the focused frame's document cannot be read")
                })?;
                frame = doc.frame;
            }
            // Focus is in this frame's document but on no element of it (its body): keys go to
            // the frame, so the frame element itself is the focused element.
            None => return Ok(frame_element.map(|element| focused_frame(element, urls))),
        }
    }
    // Focus lies deeper than the frames followed: report nothing rather than guess.
    Ok(None)
}

/// The focused iframe as the focused element: a control with no name, focused.
fn focused_frame(element: Element, frames: Vec<Url>) -> FocusedElement {
    FocusedElement {
        element: PerceivedElement {
            element: element.to_ref(),
            role: "iframe".to_owned(),
            name: None,
            states: vec![ElementState::Focused],
            credential: None,
            depth: None,
            text: None,
            control: true,
            form: None,
        },
        frames,
    }
}

/// Whether `element` is still attached and visible; a stale reference answers `false`.
pub(crate) async fn element_present(
    b: &ExtensionBrowser,
    tab: i64,
    element: &ElementRef,
) -> PortResult<bool> {
    let element = Element::parse(element, tab)?;
    match page_call(b, tab, element.frame, PageFn::Present, vec![element.page_ref()]).await {
        Ok(present) => Ok(present),
        Err(e) if e.kind() == PortErrorKind::TargetStale => Ok(false),
        Err(e) => Err(e),
    }
}

// ---- where an element is ----------------------------------------------------------------

/// An element's box as the page API answers it.
#[derive(Debug, Deserialize)]
struct RawBox {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    complete: bool,
    top: Option<(f64, f64)>,
    /// The box's corner in its own frame's viewport.
    view: (f64, f64),
}

/// Where an element is: its border box in document CSS pixels of the tab's top document, and
/// the top document's scroll offsets when measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ElementBox {
    /// The border box (document CSS pixels of the top document).
    pub(crate) rect: CssRect,
    /// The top document's scroll offsets.
    pub(crate) scroll: (f64, f64),
}

/// Where `element` of `tab` is, after scrolling it into view when `scroll` (the nearest edge,
/// instantly). Inside frames of other origins, where the page cannot measure its way up, the
/// offsets of the frames on its way are summed from each parent document. A stale reference,
/// or a frame no longer shown, answers [`PortErrorKind::TargetStale`].
pub(crate) async fn element_box(
    b: &ExtensionBrowser,
    tab: i64,
    element: &ElementRef,
    scroll: bool,
) -> PortResult<ElementBox> {
    let element = Element::parse(element, tab)?;
    let raw: RawBox =
        page_call(b, tab, element.frame, PageFn::Box, vec![element.page_ref(), json!(scroll)]).await?;
    if let (true, Some(top)) = (raw.complete, raw.top) {
        let rect = CssRect { x: raw.x, y: raw.y, width: raw.width, height: raw.height };
        return Ok(ElementBox { rect, scroll: top });
    }
    let mut docs = FrameDocs::default();
    let path = docs.path_of(b, tab, element.frame).await?;
    let (mut x, mut y) = raw.view;
    let (mut width, mut height) = (raw.width, raw.height);
    for depth in (0..path.len()).rev() {
        let parent = match depth {
            0 => 0,
            _ => docs.at(b, tab, &path[..depth]).await?.map(|doc| doc.frame).ok_or_else(frame_gone)?,
        };
        let offset = frame_offset(b, tab, parent, path[depth]).await?.ok_or_else(frame_gone)?;
        (x, y) = offset.carry(x, y)?;
        (width, height) = (width * offset.scale.0, height * offset.scale.1);
    }
    let geometry = b.tab_geometry(tab).await?;
    let scroll = (geometry.scroll_x, geometry.scroll_y);
    Ok(ElementBox { rect: CssRect { x: x + scroll.0, y: y + scroll.1, width, height }, scroll })
}

/// Where a frame sits in its parent document's viewport.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FrameOffset {
    /// The top-left corner of its content.
    pub(crate) content: (f64, f64),
    /// The scale its document is drawn at (a scaled preview), per axis.
    pub(crate) scale: (f64, f64),
    /// `ok`, or why `content` and `scale` cannot tell where a point of the frame lies
    /// (`reshaped`: rotated, skewed or transformed in 3D; `unmapped`: zoomed).
    pub(crate) place: String,
    /// The box it is drawn in (its bounding box, whatever its transform): x, y, width, height.
    pub(crate) r#box: (f64, f64, f64, f64),
}

impl FrameOffset {
    /// Point `(x, y)` of the frame's viewport in its parent document's viewport; a frame that
    /// is rotated, skewed or transformed in 3D is [`PortErrorKind::Unsupported`] (no point
    /// there can be aimed at by offsets).
    pub(crate) fn carry(&self, x: f64, y: f64) -> PortResult<(f64, f64)> {
        if self.place == "reshaped" {
            return Err(PortError::new(
                PortErrorKind::Unsupported,
                "the element is in a frame that is rotated, skewed or transformed in 3D: pointer input cannot be aimed there",
            ));
        }
        Ok((self.content.0 + self.scale.0 * x, self.content.1 + self.scale.1 * y))
    }
}

/// Where frame `index` (among `window.frames`) of frame document `parent` sits, when shown.
pub(crate) async fn frame_offset(
    b: &ExtensionBrowser,
    tab: i64,
    parent: i64,
    index: i64,
) -> PortResult<Option<FrameOffset>> {
    page_call(b, tab, parent, PageFn::FrameOffset, vec![json!(index)]).await
}

/// A frame on an element's way that is no longer shown.
pub(crate) fn frame_gone() -> PortError {
    PortError::new(PortErrorKind::TargetStale, "a frame on the element's way is no longer shown")
}

/// The centre of `element` in viewport CSS pixels of `tab`'s top document, after scrolling it
/// into view when `scroll` — for pointer input (see [`element_box`]).
pub(crate) async fn element_point(
    b: &ExtensionBrowser,
    tab: i64,
    element: &ElementRef,
    scroll: bool,
) -> PortResult<Point> {
    let found = element_box(b, tab, element, scroll).await?;
    Ok(Point {
        x: found.rect.x + found.rect.width / 2.0 - found.scroll.0,
        y: found.rect.y + found.rect.height / 2.0 - found.scroll.1,
    })
}

// ---- text -------------------------------------------------------------------------------

/// One document's visible frames.
#[derive(Debug, Deserialize)]
pub(crate) struct RawFrames {
    /// Each frame's index among `window.frames` (-1 when not among them) and place.
    pub(crate) frames: Vec<RawFrameBox>,
}

/// A visible frame: its index among `window.frames` (-1 when not among them, e.g. inside a
/// shadow root) and where it sits.
#[derive(Debug, Deserialize)]
pub(crate) struct RawFrameBox {
    /// The index.
    pub(crate) i: i64,
    /// Where it sits.
    #[serde(flatten)]
    pub(crate) at: FrameOffset,
}

/// Read text of the page or of one element. Visible text joins the visible text of each frame
/// document `gate` admits, in document order after the page's own, as the WebDriver adapter.
pub(crate) async fn read_text(
    b: &ExtensionBrowser,
    tab: i64,
    input: &ReadInput,
    gate: &Gate,
) -> PortResult<TextOutcome> {
    let options = |mode: TextMode, max: usize| ReadOptions::new(mode, max).to_value();
    let raw: RawText = match &input.target {
        Some(target) => {
            let target = Element::parse(target, tab)?;
            let args = vec![options(input.mode, input.max_chars)?, target.page_ref()];
            page_call(b, tab, target.frame, PageFn::ReadText, args).await?
        }
        None => {
            let args = vec![options(input.mode, input.max_chars)?, Value::Null];
            page_call(b, tab, 0, PageFn::ReadText, args).await?
        }
    };
    let visible = raw.is_visible_text();
    let mut text = raw.text;
    let mut truncated = raw.truncated;
    let mut frames = 0;
    if input.target.is_none() && visible {
        let mut remaining = input.max_chars.saturating_sub(text.chars().count());
        for frame in frame_walk(b, tab, gate, &mut truncated).await? {
            if remaining <= 1 {
                // A frame with text would not fit.
                truncated = true;
                break;
            }
            let args = vec![options(TextMode::Visible, remaining - 1)?, Value::Null];
            let read: RawText = match page_call(b, tab, frame, PageFn::ReadText, args).await {
                Ok(read) => read,
                Err(e) if e.kind() == PortErrorKind::TargetStale => continue,
                Err(e) => return Err(e),
            };
            truncated |= read.truncated;
            if read.text.is_empty() {
                continue;
            }
            remaining = remaining.saturating_sub(read.text.chars().count() + 1);
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&read.text);
            frames += 1;
        }
    }
    // The page bounds in UTF-16 units; bound again in characters so the contract holds.
    let (text, cut) = bound_chars(text, input.max_chars);
    Ok(TextOutcome { text, truncated: truncated || cut, frames })
}

/// Whether visible text of the page, or of a frame document `gate` admits, contains `text`
/// (case-insensitive, whitespace normalized).
pub(crate) async fn text_present(
    b: &ExtensionBrowser,
    tab: i64,
    text: &str,
    gate: &Gate,
) -> PortResult<bool> {
    if page_call(b, tab, 0, PageFn::TextPresent, vec![json!(text)]).await? {
        return Ok(true);
    }
    let mut truncated = false;
    for frame in frame_walk(b, tab, gate, &mut truncated).await? {
        match page_call(b, tab, frame, PageFn::TextPresent, vec![json!(text)]).await {
            Ok(true) => return Ok(true),
            Ok(false) => {}
            Err(e) if e.kind() == PortErrorKind::TargetStale => {}
            Err(e) => return Err(e),
        }
    }
    Ok(false)
}

/// The frame ids of the tab's visible frame documents `gate` admits, depth first in document
/// order (a refused frame, and every frame inside it, is left out); sets `truncated` when the
/// walk stopped at [`MAX_WALK_FRAMES`] or [`MAX_FRAME_DEPTH`].
async fn frame_walk(
    b: &ExtensionBrowser,
    tab: i64,
    gate: &Gate,
    truncated: &mut bool,
) -> PortResult<Vec<i64>> {
    let mut docs = FrameDocs::default();
    let mut walked = Vec::new();
    let top: RawFrames = page_call(b, tab, 0, PageFn::Frames, Vec::new()).await?;
    // (path) of frames still to visit; popped from the end, so pushed in reverse order.
    let mut pending: Vec<Vec<i64>> = top.frames.iter().rev().map(|f| vec![f.i]).collect();
    while let Some(path) = pending.pop() {
        if walked.len() >= MAX_WALK_FRAMES {
            *truncated = true;
            break;
        }
        let Some(doc) = docs.at(b, tab, &path).await? else { continue };
        if !admitted(gate, &doc.url) {
            continue;
        }
        walked.push(doc.frame);
        if path.len() >= MAX_FRAME_DEPTH {
            *truncated = true;
            continue;
        }
        let inner: RawFrames = match page_call(b, tab, doc.frame, PageFn::Frames, Vec::new()).await {
            Ok(inner) => inner,
            Err(e) if e.kind() == PortErrorKind::TargetStale => continue,
            Err(e) => return Err(e),
        };
        for frame in inner.frames.iter().rev() {
            let mut child = path.clone();
            child.push(frame.i);
            pending.push(child);
        }
    }
    Ok(walked)
}

// ---- tests' lookups -------------------------------------------------------------------

/// The reference of the first element of `tab`'s top document matching CSS `selector`, for
/// tests that name elements the way the WebDriver suite does.
pub(crate) async fn select(b: &ExtensionBrowser, tab: i64, selector: &str) -> PortResult<Option<ElementRef>> {
    #[derive(Deserialize)]
    struct Selected {
        doc: String,
        id: u64,
    }
    let found: Option<Selected> = page_call(b, tab, 0, PageFn::Select, vec![json!(selector)]).await?;
    Ok(found.map(|s| Element { tab, frame: 0, doc: s.doc, id: s.id }.to_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_answers_decode_with_registry_ids() {
        let raw = RawPass::decode(json!({
            "doc": "d", "url": "http://127.0.0.1/", "truncated": false, "focusFrame": null,
            "items": [{"e": 4, "r": "button", "n": "Go", "s": ["focused", "bogus"], "c": null, "k": true, "t": null, "d": null}],
            "frames": [{"i": 0, "at": 1, "d": 0}],
        }))
        .expect("a pass");
        let gate = Gate::open();
        let item = raw.items.into_iter().next().expect("an item");
        let element = element_of(3, 9, &raw.doc, item, 2);
        assert_eq!(element.states, vec![ElementState::Focused]);
        assert_eq!(Element::parse(&element.element, 3).expect("ours").frame, 9);
        assert!(admitted(&gate, raw.url.as_deref().unwrap_or_default()));
        assert!(!admitted(&gate, "not a url"));
    }
}
