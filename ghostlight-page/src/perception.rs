//! The perception and reading scripts' requests and answers (`perceive.js`, `read_text.js`),
//! one copy for every connector, and the frame walk of perception over a connector's
//! [`Documents`].
//!
//! A perception pass never descends into frames (an element reference is only valid in its
//! own document): it lists the visible iframes with their place among the items, and
//! [`gather`] runs one more pass per frame document, splicing its items in at the iframe's
//! place, within the caps of [`Gathered`] ([`MAX_FRAME_PASSES`](crate::perceived::MAX_FRAME_PASSES),
//! [`MAX_FRAME_DEPTH`](crate::perceived::MAX_FRAME_DEPTH)). The `max` cap holds across frames: a
//! frame pass asks only for what can still fit before the iframe's position, and the spliced
//! list is cut to the cap.

use std::future::Future;
use std::pin::Pin;

use ghostlight_core::port::{
    ElementRef, FORM_OPTIONS_MAX, FORM_TEXT_CHARS, PerceiveScope, PerceivedElement, PortError, PortErrorKind,
    PortResult, TextMode,
};
use serde::{Deserialize, Serialize};

use crate::bounds::{
    ARTICLE_MAX_TEXT_NODES, ARTICLE_MIN_BLOCK_CHARS, ARTICLE_MIN_CHARS, DOCUMENT_MAX_DEPTH, NAME_MAX_CHARS,
    PERCEIVE_MAX_ITEMS, QUERY_MAX_CHARS, READ_MAX_CHARS, TEXT_MAX_CHARS,
};
use crate::perceived::{Gathered, ScriptItem};

/// What one perception pass is asked (the script's `opts`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PassOptions {
    /// `controls`, `structure`, `all`, `forms`, `document`, `find` or `focus`.
    pub mode: &'static str,
    /// The most items answered (at most [`PERCEIVE_MAX_ITEMS`]).
    pub max: usize,
    /// The deepest level the `document` mode walks (at most [`DOCUMENT_MAX_DEPTH`]).
    pub max_depth: u32,
    /// The text `find` looks for (at most [`QUERY_MAX_CHARS`] characters).
    pub query: String,
    /// Whether `find` answers controls only.
    pub controls_only: bool,
    /// [`NAME_MAX_CHARS`].
    pub name_max: usize,
    /// [`TEXT_MAX_CHARS`].
    pub text_max: usize,
    /// The most option labels a forms pass lists per control ([`FORM_OPTIONS_MAX`]).
    pub options_max: usize,
    /// Form names, legends, radio groups and option labels are cut to this many UTF-16 units
    /// in the page ([`FORM_TEXT_CHARS`]; core bounds them again in characters).
    pub form_text_max: usize,
}

impl PassOptions {
    fn new(mode: &'static str, max: usize) -> Self {
        PassOptions {
            mode,
            max: max.min(PERCEIVE_MAX_ITEMS),
            max_depth: 0,
            query: String::new(),
            controls_only: false,
            name_max: NAME_MAX_CHARS,
            text_max: TEXT_MAX_CHARS,
            options_max: FORM_OPTIONS_MAX,
            form_text_max: FORM_TEXT_CHARS,
        }
    }

    /// The pass of a perception of `scope` answering at most `max_items`, and the subtree root
    /// it starts from (document scope).
    pub fn perceive(scope: &PerceiveScope, max_items: usize) -> (Self, Option<&ElementRef>) {
        let (mode, max_depth, root) = match scope {
            PerceiveScope::Controls => ("controls", 0, None),
            PerceiveScope::Structure => ("structure", 0, None),
            PerceiveScope::All => ("all", 0, None),
            PerceiveScope::Forms => ("forms", 0, None),
            PerceiveScope::Document { root, max_depth } => {
                ("document", (*max_depth).min(DOCUMENT_MAX_DEPTH), root.as_ref())
            }
            PerceiveScope::Matching { text, controls_only } => {
                return (PassOptions::find(text, *controls_only, max_items), None);
            }
        };
        let mut options = PassOptions::new(mode, max_items);
        options.max_depth = max_depth;
        (options, root)
    }

    /// The pass of a [`PerceiveScope::Matching`] perception: elements whose name or visible
    /// text contains `text`. Blank text looks for nothing (a pass of no items; core refuses
    /// empty text before it gets here).
    pub fn find(text: &str, controls_only: bool, max: usize) -> Self {
        let query: String = text.chars().take(QUERY_MAX_CHARS).collect();
        let max = if query.trim().is_empty() { 0 } else { max };
        let mut options = PassOptions::new("find", max);
        options.query = query;
        options.controls_only = controls_only;
        options
    }

    /// The pass that answers the focused element of one document (or the frame holding
    /// focus, `focusFrame`).
    pub fn focus() -> Self {
        PassOptions::new("focus", 1)
    }

    /// These options as the script's argument.
    pub fn to_value(&self) -> PortResult<serde_json::Value> {
        serde_json::to_value(self)
            .map_err(|_| PortError::new(PortErrorKind::Other, "the perception options could not be encoded"))
    }
}

/// One pass's answer. `E` is the connector's handle of an element (a WebDriver element, a
/// registry id), `F` of a listed frame and `G` of the frame holding focus.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawPass<E, F, G> {
    /// The document's nonce (the extension's page API; empty otherwise).
    #[serde(default)]
    pub doc: String,
    /// The document's URL (the extension's page API, and focus passes).
    #[serde(default)]
    pub url: Option<String>,
    /// The items, in document order.
    pub items: Vec<ScriptItem<E>>,
    /// The visible iframes.
    pub frames: Vec<RawFrame<F>>,
    /// Whether the pass found more than it could answer.
    pub truncated: bool,
    /// The iframe holding focus, when focus is inside a frame (focus passes).
    #[serde(default = "none")]
    pub focus_frame: Option<G>,
}

fn none<G>() -> Option<G> {
    None
}

impl<E, F, G> RawPass<E, F, G>
where
    E: serde::de::DeserializeOwned,
    F: serde::de::DeserializeOwned,
    G: serde::de::DeserializeOwned,
{
    /// Decode a pass's answer.
    pub fn decode(answer: serde_json::Value) -> PortResult<Self> {
        serde_json::from_value(answer).map_err(|_| malformed("perception"))
    }
}

/// A visible iframe a pass lists: the connector's handle of it, how many items precede it and
/// its depth offset.
#[derive(Debug, Clone, Deserialize)]
pub struct RawFrame<F> {
    /// The frame: a WebDriver element (`e`), or its index among the document's frames (`i`,
    /// the extension's page API).
    #[serde(rename = "e", alias = "i")]
    pub frame: F,
    /// How many of the document's items precede it.
    pub at: usize,
    /// Added to the depths of its items.
    pub d: u32,
}

/// An error for a script whose answer has an unexpected shape (`what`: `perception`, …).
pub fn malformed(what: &'static str) -> PortError {
    PortError::new(PortErrorKind::Other, format!("the {what} script answered an unexpected shape"))
}

// ---- the frame walk -------------------------------------------------------------------------

/// The boxed future of the walk's recursion: runtime-agnostic, and `Send` so a connector can
/// run it on any executor.
type WalkFuture<'a> = Pin<Box<dyn Future<Output = PortResult<Gathered>> + Send + 'a>>;

/// One document's pass as the walk uses it: its elements (already the port's, depths offset),
/// whether any were cut, and the iframes it lists.
#[derive(Debug)]
pub struct Pass<F> {
    /// The elements, in document order.
    pub elements: Vec<PerceivedElement>,
    /// Whether the pass found more than it could answer.
    pub truncated: bool,
    /// The visible iframes.
    pub frames: Vec<RawFrame<F>>,
}

/// A tab's documents as a connector reaches them: what [`gather`] needs to perceive one
/// document and find the documents of the frames it lists.
pub trait Documents: Send {
    /// Where a pass runs (a document, and the subtree root in it).
    type Place: Send;
    /// A listed iframe, as the connector's pass answers it.
    type Frame: Send;

    /// Run one pass of `options` in `place`, the elements' depths offset by `depth_offset`;
    /// `None` when `place` is a frame document the call's gate refuses (nothing from it, nor
    /// from any frame inside it).
    fn pass(
        &mut self,
        place: &Self::Place,
        options: &PassOptions,
        depth_offset: u32,
    ) -> impl Future<Output = PortResult<Option<Pass<Self::Frame>>>> + Send;

    /// The place of the document of `frame`, listed by the pass in `place`; `None` when it is
    /// left out (no document the connector can reach, or one the gate refuses).
    fn frame(
        &mut self,
        place: &Self::Place,
        frame: Self::Frame,
    ) -> impl Future<Output = PortResult<Option<Self::Place>>> + Send;
}

/// Where the walk is: frame nesting level (0 for the top document), the depth offset of the
/// document's items, and the frame passes made so far.
struct Walk<'a> {
    level: usize,
    depth_offset: u32,
    passes: &'a mut usize,
}

/// Perceive from `place` at frame nesting `level` (0 for the top document): one pass, then one
/// per reachable frame (recursively), spliced in document order and cut to `options.max`.
/// A frame whose document went away between the passes ([`PortErrorKind::TargetStale`]) adds
/// nothing.
pub async fn gather<D: Documents>(
    docs: &mut D,
    place: D::Place,
    options: PassOptions,
    level: usize,
) -> PortResult<Gathered> {
    let mut passes = 0;
    gather_in(docs, place, options, Walk { level, depth_offset: 0, passes: &mut passes }).await
}

fn gather_in<'a, D: Documents>(
    docs: &'a mut D,
    place: D::Place,
    options: PassOptions,
    walk: Walk<'a>,
) -> WalkFuture<'a> {
    Box::pin(async move {
        let Some(mut pass) = docs.pass(&place, &options, walk.depth_offset).await? else {
            return Ok(Gathered::default());
        };
        // Forms are numbered per document: this document's number is the frame passes made
        // before it (0 for the first), so forms (and radio groups) of different documents never merge.
        let document = u32::try_from(*walk.passes).unwrap_or(u32::MAX);
        for element in &mut pass.elements {
            if let Some(form) = element.form.as_mut() {
                form.document = document;
            }
        }
        let mut gathered = Gathered { elements: pass.elements, truncated: pass.truncated };
        let mut inserted = 0;
        for frame in pass.frames {
            if !gathered.frame_wanted(frame.at, options.max, walk.level, *walk.passes) {
                continue;
            }
            let (at, d) = (frame.at, frame.d);
            let Some(inner) = docs.frame(&place, frame.frame).await? else { continue };
            *walk.passes += 1;
            let mut inner_options = options.clone();
            inner_options.max = options.max - at;
            let inner_walk = Walk {
                level: walk.level + 1,
                depth_offset: walk.depth_offset + d,
                passes: &mut *walk.passes,
            };
            let found = match gather_in(&mut *docs, inner, inner_options, inner_walk).await {
                Ok(found) => found,
                // The frame went away or navigated between the passes: nothing to add.
                Err(e) if e.kind() == PortErrorKind::TargetStale => continue,
                Err(e) => return Err(e),
            };
            gathered.splice_frame(at, &mut inserted, found);
        }
        gathered.cap(options.max);
        Ok(gathered)
    })
}

// ---- text -----------------------------------------------------------------------------------

/// What the reading script is asked (`read_text.js`'s `opts`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadOptions {
    /// `article`, `visible` or `auto`.
    pub mode: &'static str,
    /// The most characters answered (at most [`READ_MAX_CHARS`]).
    pub max: usize,
    /// [`ARTICLE_MIN_CHARS`].
    pub min_article: usize,
    /// [`ARTICLE_MIN_BLOCK_CHARS`].
    pub min_block: usize,
    /// [`ARTICLE_MAX_TEXT_NODES`].
    pub max_nodes: usize,
}

impl ReadOptions {
    /// Read `mode` text, at most `max` characters.
    pub fn new(mode: TextMode, max: usize) -> Self {
        let mode = match mode {
            TextMode::Article => "article",
            TextMode::Visible => "visible",
            TextMode::ArticleOrVisible => "auto",
        };
        ReadOptions {
            mode,
            max: max.min(READ_MAX_CHARS),
            min_article: ARTICLE_MIN_CHARS,
            min_block: ARTICLE_MIN_BLOCK_CHARS,
            max_nodes: ARTICLE_MAX_TEXT_NODES,
        }
    }

    /// These options as the script's argument.
    pub fn to_value(&self) -> PortResult<serde_json::Value> {
        serde_json::to_value(self)
            .map_err(|_| PortError::new(PortErrorKind::Other, "the reading options could not be encoded"))
    }
}

/// The reading script's answer.
#[derive(Debug, Clone, Deserialize)]
pub struct RawText {
    /// The text read.
    pub text: String,
    /// Whether it was cut.
    pub truncated: bool,
    /// `article`, `visible` or `target`.
    #[serde(default)]
    pub source: String,
}

impl RawText {
    /// Whether this is the page's visible text (frame documents' visible text joins it).
    pub fn is_visible_text(&self) -> bool {
        self.source == "visible"
    }
}

/// The text presence script's options: the query, cut to [`QUERY_MAX_CHARS`] characters.
pub fn text_query(text: &str) -> serde_json::Value {
    let query: String = text.chars().take(QUERY_MAX_CHARS).collect();
    serde_json::json!({ "query": query })
}

/// The text wait script's options (`scripts/text_wait.js`): the query as [`text_query`] cuts
/// it, whether the text should be present, how long to watch, how often to check again
/// ([`WATCH_THROTTLE`](crate::bounds::WATCH_THROTTLE), [`WATCH_SWEEP`](crate::bounds::WATCH_SWEEP)),
/// and the nonce of the only document it may read (`gl.doc`, stamped by `page_state.js`).
pub fn text_wait_options(
    text: &str,
    present: bool,
    within: std::time::Duration,
    document: &str,
) -> serde_json::Value {
    let ms =
        |d: std::time::Duration| serde_json::Value::from(u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let mut options = text_query(text);
    options["present"] = serde_json::Value::Bool(present);
    options["within"] = ms(within);
    options["throttle"] = ms(crate::bounds::WATCH_THROTTLE);
    options["sweep"] = ms(crate::bounds::WATCH_SWEEP);
    options["doc"] = serde_json::Value::from(document);
    options
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use ghostlight_core::port::ElementState;
    use serde_json::json;

    use super::*;

    #[test]
    fn pass_options_are_capped() {
        let (options, root) = PassOptions::perceive(&PerceiveScope::All, usize::MAX);
        assert!(root.is_none());
        assert_eq!(options.max, PERCEIVE_MAX_ITEMS);
        let value = options.to_value().expect("options encode");
        assert_eq!(value["mode"], "all");
        assert_eq!(value["controlsOnly"], false);
        assert_eq!(value["nameMax"], NAME_MAX_CHARS);
        let document = PerceiveScope::Document { root: None, max_depth: u32::MAX };
        assert_eq!(PassOptions::perceive(&document, 10).0.max_depth, DOCUMENT_MAX_DEPTH);
        assert_eq!(PassOptions::find("  ", false, 10).max, 0, "blank text looks for nothing");
        let long = "x".repeat(QUERY_MAX_CHARS + 5);
        assert_eq!(PassOptions::find(&long, true, 10).query.len(), QUERY_MAX_CHARS);
    }

    #[test]
    fn passes_decode_either_frame_handle() {
        let webdriver: RawPass<serde_json::Value, serde_json::Value, serde_json::Value> =
            RawPass::decode(json!({
                "items": [], "frames": [{"e": {"element-6066-11e4-a52e-4f735466cecf": "a"}, "at": 1, "d": 0}],
                "truncated": false, "focusFrame": null,
            }))
            .expect("a WebDriver pass");
        assert_eq!(webdriver.frames[0].at, 1);
        let extension: RawPass<u64, i64, serde_json::Value> = RawPass::decode(json!({
            "doc": "d", "url": "http://127.0.0.1/", "truncated": false,
            "items": [{"e": 4, "r": "button", "n": "Go", "s": ["focused", "bogus"], "c": null, "k": true, "t": null, "d": null}],
            "frames": [{"i": 2, "at": 1, "d": 3}],
        }))
        .expect("an extension pass");
        assert_eq!((extension.frames[0].frame, extension.frames[0].d), (2, 3));
        assert_eq!(extension.url.as_deref(), Some("http://127.0.0.1/"));
        assert!(RawPass::<u64, i64, u64>::decode(json!({"items": 1})).is_err());
    }

    /// One document of the table: its items' names, and its frames (at, child place).
    type Doc = (Vec<&'static str>, Vec<(usize, usize)>);

    /// Documents from a table, by place.
    struct Table {
        docs: Vec<Doc>,
        refused: Vec<usize>,
        asked: VecDeque<(usize, usize)>,
    }

    fn element(name: &str) -> PerceivedElement {
        PerceivedElement {
            element: ElementRef::new(name),
            role: "button".to_owned(),
            name: Some(name.to_owned()),
            states: vec![ElementState::Focused],
            credential: None,
            depth: None,
            text: None,
            control: true,
            form: None,
        }
    }

    impl Documents for Table {
        type Place = usize;
        type Frame = usize;

        async fn pass(
            &mut self,
            place: &usize,
            options: &PassOptions,
            _depth_offset: u32,
        ) -> PortResult<Option<Pass<usize>>> {
            self.asked.push_back((*place, options.max));
            if self.refused.contains(place) {
                return Ok(None);
            }
            let (items, frames) = &self.docs[*place];
            let elements: Vec<_> = items.iter().take(options.max).map(|n| element(n)).collect();
            let truncated = items.len() > options.max;
            let frames = frames.iter().map(|&(at, child)| RawFrame { frame: child, at, d: 0 }).collect();
            Ok(Some(Pass { elements, truncated, frames }))
        }

        async fn frame(&mut self, _place: &usize, frame: usize) -> PortResult<Option<usize>> {
            Ok(Some(frame))
        }
    }

    fn run<F: Future>(future: F) -> F::Output {
        // The walk never waits on anything but the table: one poll finishes it.
        let waker = std::task::Waker::noop();
        let mut context = std::task::Context::from_waker(waker);
        let mut future = std::pin::pin!(future);
        match future.as_mut().poll(&mut context) {
            std::task::Poll::Ready(output) => output,
            std::task::Poll::Pending => panic!("the walk waited"),
        }
    }

    #[test]
    fn frames_are_spliced_at_their_place_within_the_cap() {
        let mut table = Table {
            docs: vec![
                (vec!["a", "b", "c"], vec![(1, 1), (3, 2)]),
                (vec!["f1", "f2"], vec![]),
                (vec!["g"], vec![]),
            ],
            refused: vec![],
            asked: VecDeque::new(),
        };
        let options = PassOptions::new("all", 10);
        let gathered = run(gather(&mut table, 0, options.clone(), 0)).expect("gathered");
        let names: Vec<_> = gathered.elements.iter().filter_map(|e| e.name.clone()).collect();
        assert_eq!(names, ["a", "f1", "f2", "b", "c", "g"]);
        assert!(!gathered.truncated);
        // A frame pass asks only for what can fit before the iframe's place.
        assert_eq!(table.asked, [(0, 10), (1, 9), (2, 7)]);

        table.refused = vec![1];
        table.asked.clear();
        let gathered = run(gather(&mut table, 0, PassOptions::new("all", 4), 0)).expect("gathered");
        let names: Vec<_> = gathered.elements.iter().filter_map(|e| e.name.clone()).collect();
        assert_eq!(names, ["a", "b", "c", "g"]);
    }
}
