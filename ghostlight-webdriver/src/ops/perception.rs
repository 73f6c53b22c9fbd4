//! Reading and perceiving the page: `read_text`, `perceive` (a text search is a perception too),
//! `focused_element`, `element_present`, `text_present`.
//!
//! # Perception
//!
//! One bounded, engine-neutral script (`scripts/perceive.js`, grown from
//! `docs/perceive-spike.js`) walks one document (open shadow roots included) and answers
//! items with WebDriver element references, role tokens, accessible names, non-default
//! states, credential classes, the control flag, visible text and depths. Roles, names, the
//! control flag and what is shown come from `scripts/dom.js` ([`with_dom`]), the same
//! functions input uses for its receipts. Element references
//! are only valid in their own frame (`docs/webdriver-findings.md` §2: Chromium fails the
//! whole script when it returns a frame's element; Firefox returns a ref that is unusable
//! from the top), so the script never descends into frames. It lists the visible iframes
//! with their position among the items, and the
//! adapter runs one more pass per such frame, splicing the frame's items in at the iframe's
//! place: over WebDriver BiDi in the frame document's sandbox realm, addressed by its
//! browsing context (no frame switch; the library is installed there), else switched into
//! with [`Session::enter_frames`]. Each element's [`ElementRef`] carries the frame path.
//! Cross-origin frames are skipped.
//!
//! The `max_items` cap holds across frames: a frame pass asks only for what can still fit
//! before the iframe's position, and the spliced list is cut to the cap. `truncated` is set
//! when an item was cut, when a pass found more than it could return, or when a frame was
//! skipped for the frame limits ([`MAX_FRAME_PASSES`](ghostlight_page::perceived::MAX_FRAME_PASSES), [`MAX_FRAME_DEPTH`]).
//!
//! # Text
//!
//! `read_text` runs `scripts/read_text.js` (its header documents the article heuristic) in
//! the top document, or in the target's frame. Visible text (not an article) then joins the
//! visible text of each frame document the gate admits, of every origin, in document order
//! after the page's own ([`frames::visit_frames`]). `text_present` runs
//! `scripts/text_present.js` in the top document, then in each admitted frame document until
//! the text is found.
//!
//! # Waiting for text
//!
//! `wait_text` runs `scripts/text_wait.js` once per call through Execute Async Script, in the
//! top document the caller authorized (its `gl.doc` nonce, checked before every look: another
//! document answers `DocumentGone` unread, even when the driver runs the script again in the
//! document a navigation brought, as chromedriver does): it checks with `glTextPresent`
//! (text_present.js itself), then again when the document or one of its open shadow roots
//! changes (a `MutationObserver`, throttled) and every half second, answering as soon as the
//! condition holds or the call's `within` ends.
//! The driver's script timeout covers `within` ([`WATCH_SCRIPT_MARGIN`] more). Frames: a page
//! whose answer depends on its frames (the text is not in the top document, and it shows
//! frames) is not watched: the script answers at once and the frames are searched as
//! `text_present` searches them (every admitted frame, of every origin; a refused one never),
//! one check (`NotYet` when it does not hold: the caller polls such a page as before). A
//! navigation kills the script with its document: the driver answers an "unloaded" error,
//! `null` (Firefox, a navigation in progress), a script timeout before `within` ran out
//! (chromedriver, measured: at once) or the script's run in the new document says `gone`
//! (chromedriver again, when the new document is ready soon enough), and the wait ends
//! `DocumentGone` without reading anything of the new document; a `null` answer with a
//! dialog open is [`PortErrorKind::BlockedByDialog`] (one probe, Get Current URL). A page
//! that keeps its thread busy past the driver's script timeout answers `RanOut`.
//!
//! # Focus and presence
//!
//! `focused_element` asks each document for its focused element; a focused iframe is entered
//! and asked again. This descends into cross-origin frames too (WebDriver can switch into
//! them): the answer feeds the credential preflight of focused typing, and a card-number
//! field inside a payment provider's frame must not pass as "no credential field".
//! `element_present` switches into the element's frame; a stale reference, a vanished frame
//! or a missing element answers `false`, never an error.
//!
//! # Known limits
//!
//! - Everything is read by scripts in the page, so a hostile page that overrides DOM
//!   prototypes (`getAttribute`, `checkVisibility`, `innerText`, …) can mislead roles, names
//!   and credential classes.
//! - `aria-hidden` and `inert` subtrees are outside the accessibility tree: perception and text
//!   leave them out. An `aria-hidden` element is still rendered, so `element_present` and
//!   pointer input (which ask `glVisible`) treat it as shown; an `inert` one is not shown.
//! - Closed shadow roots are invisible to scripts and so to perception.
//! - Frame text follows the page's own text rather than sitting at the frame's place in it
//!   (`innerText` skips frames, and splicing would need the page's layout).

use std::sync::LazyLock;
use std::time::Instant;

use ghostlight_core::port::{
    ElementRef, ElementState, ExpectedDocument, FocusedElement, Gate, InDocument, PageState, PerceiveInput,
    PerceivedElement, Perception, PortError, PortErrorKind, PortResult, ReadInput, TabRef, TextMode,
    TextOutcome, TextWait, TextWaitInput,
};
use ghostlight_page::bounds::WATCH_SCRIPT_MARGIN;
use ghostlight_page::perceived::{Gathered, MAX_FRAME_DEPTH, ScriptItem, bound_chars};
use ghostlight_page::perception::{
    self, Documents, Pass, PassOptions, RawText, ReadOptions, malformed, text_query, text_wait_options,
};
use ghostlight_page::scripts::{
    ELEMENT_PRESENT_FN, FORMS_JS, PERCEIVE_FN, READ_TEXT_FN, TEXT_PRESENT_FN, call, in_document,
};
use serde_json::{Value, json};
use url::Url;

use crate::errors::Sent;
use crate::ops::{frames, with_dom};
use crate::session::Session;

/// The WebDriver JSON key of an element reference.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

static PERCEIVE_SCRIPT: LazyLock<String> = LazyLock::new(|| with_dom(&call(PERCEIVE_FN, 2)));
/// Perception with the form data script prepended: mode `forms` only.
static PERCEIVE_FORMS_SCRIPT: LazyLock<String> =
    LazyLock::new(|| with_dom(&format!("{FORMS_JS}\n{}", call(PERCEIVE_FN, 2))));
static READ_TEXT_SCRIPT: LazyLock<String> = LazyLock::new(|| with_dom(&call(READ_TEXT_FN, 2)));
static TEXT_PRESENT_SCRIPT: LazyLock<String> = LazyLock::new(|| with_dom(&call(TEXT_PRESENT_FN, 1)));
/// [`READ_TEXT_SCRIPT`] and [`TEXT_PRESENT_SCRIPT`] without the library, for a document's
/// sandbox realm (frame walks, [`frames::FrameScript`]).
static READ_TEXT_BODY: LazyLock<String> = LazyLock::new(|| call(READ_TEXT_FN, 2));
static TEXT_PRESENT_BODY: LazyLock<String> = LazyLock::new(|| call(TEXT_PRESENT_FN, 1));
static ELEMENT_PRESENT_SCRIPT: LazyLock<String> = LazyLock::new(|| with_dom(&call(ELEMENT_PRESENT_FN, 1)));
static TEXT_WAIT_SCRIPT: LazyLock<String> = LazyLock::new(ghostlight_page::scripts::text_wait);

/// A script read in an expected document, composed once for each page-state read: without and
/// with gate detection (`ghostlight_page::scripts::in_document`, `text_wait_in`).
struct InDocumentScripts([LazyLock<String>; 2]);

impl InDocumentScripts {
    /// The script whose page-state read looks for a gate when `gate`.
    fn get(&self, gate: bool) -> &str {
        &self.0[usize::from(gate)]
    }
}

static READ_TEXT_IN: InDocumentScripts = InDocumentScripts([
    LazyLock::new(|| with_dom(&in_document("", READ_TEXT_FN, 2, false))),
    LazyLock::new(|| with_dom(&in_document("", READ_TEXT_FN, 2, true))),
]);
static PERCEIVE_IN: InDocumentScripts = InDocumentScripts([
    LazyLock::new(|| with_dom(&in_document("", PERCEIVE_FN, 2, false))),
    LazyLock::new(|| with_dom(&in_document("", PERCEIVE_FN, 2, true))),
]);
static PERCEIVE_FORMS_IN: InDocumentScripts = InDocumentScripts([
    LazyLock::new(|| with_dom(&in_document(FORMS_JS, PERCEIVE_FN, 2, false))),
    LazyLock::new(|| with_dom(&in_document(FORMS_JS, PERCEIVE_FN, 2, true))),
]);
static TEXT_WAIT_IN: InDocumentScripts = InDocumentScripts([
    LazyLock::new(|| ghostlight_page::scripts::text_wait_in(false)),
    LazyLock::new(|| ghostlight_page::scripts::text_wait_in(true)),
]);

// ---- perception -----------------------------------------------------------------------------

/// One pass's answer: WebDriver elements for items, listed frames and the focused frame.
type RawPass = perception::RawPass<Value, Value, Value>;

/// One item as the script answers it.
type RawItem = ScriptItem<Value>;

/// Where a pass runs and what it starts from.
struct PassPlace {
    /// Iframe element ids from the top document down.
    frames: Vec<String>,
    /// The subtree root (document scope), already serialized as a WebDriver element.
    root: Option<Value>,
    /// Whether the driver is already switched into `frames`.
    entered: bool,
    /// The frame document's browsing context, when it was found over BiDi: the pass then
    /// runs in that document's sandbox realm, with no frame switch ([`sandboxed_pass`]).
    context: Option<String>,
}

/// Perception without the library, for a frame document's sandbox realm (the library is
/// installed there): all controls, and with the form data script (mode `forms`).
static PERCEIVE_BODY: LazyLock<String> = LazyLock::new(|| call(PERCEIVE_FN, 2));
static PERCEIVE_FORMS_BODY: LazyLock<String> =
    LazyLock::new(|| format!("{FORMS_JS}\n{}", call(PERCEIVE_FN, 2)));

/// One frame pass in the sandbox realm of the frame document `context` (see [`PassPlace`]):
/// `Ok(None)` when `gate` refuses the document. Any failure: the caller takes the classic way
/// (a read, so trying again is harmless).
async fn sandboxed_pass(
    s: &mut Session,
    handle: &str,
    context: &str,
    gate: &Gate,
    options: &PassOptions,
    root: Option<&Value>,
) -> PortResult<Option<RawPass>> {
    let bidi = s
        .sandbox_for(handle, frames::SANDBOX_WAIT)
        .await?
        .ok_or_else(|| PortError::new(PortErrorKind::Unsupported, "no sandbox in this window"))?;
    // A frame document is perceived only once the gate admits it (its URL is read first).
    let url = frames::document_url_sandboxed(bidi, context).await?;
    if frames::admit(gate, &url).is_err() {
        return Ok(None);
    }
    let body = if options.mode == "forms" { &PERCEIVE_FORMS_BODY } else { &PERCEIVE_BODY };
    let args = [options.to_value()?, root.cloned().unwrap_or(Value::Null)];
    let answer = frames::apply_sandboxed_with_nodes(bidi, context, body, &args).await?;
    Ok(Some(RawPass::decode(answer)?))
}

/// The documents of one tab, reached by switching the session into frames.
struct TabDocuments<'a> {
    s: &'a mut Session,
    tab: &'a TabRef,
    handle: &'a str,
    /// The call's gate: a frame document it refuses is never perceived.
    gate: &'a Gate,
    /// A perception in an expected document: its top document's pass reads the page state
    /// too, and perceives only in that document.
    expected: Option<InExpected<'a>>,
}

/// The top document's pass of a perception in an expected document ([`perceive_in`]).
struct InExpected<'a> {
    /// The expected document.
    expected: &'a ExpectedDocument,
    /// `{nonce, epoch}` of the expected document (`page::expectation`).
    check: Value,
    /// The page state the pass read, once it ran.
    page: Option<PageState>,
    /// Whether the page showed the expected document (and was perceived).
    shown: bool,
}

impl Documents for TabDocuments<'_> {
    type Place = PassPlace;
    type Frame = Value;

    async fn pass(
        &mut self,
        place: &PassPlace,
        options: &PassOptions,
        depth_offset: u32,
    ) -> PortResult<Option<Pass<Value>>> {
        // A frame document that cannot be perceived in its sandbox (it hangs, it failed there,
        // its browsing context was not found) gives nothing, and the perception says it is cut
        // short: in a window with a sandbox a frame is never judged in its own realm, where
        // it could claim an admitted URL ([`Session::sandbox_for`]).
        let cut_short = || Ok(Some(Pass { elements: Vec::new(), truncated: true, frames: Vec::new() }));
        if !place.frames.is_empty() {
            match (place.context.as_deref(), self.s.sandbox_for(self.handle, frames::SANDBOX_WAIT).await) {
                (Some(context), Ok(Some(_))) => {
                    let root = place.root.as_ref();
                    return match sandboxed_pass(self.s, self.handle, context, self.gate, options, root).await
                    {
                        Ok(None) => Ok(None),
                        Ok(Some(raw)) => self.elements_of(place, raw, depth_offset).map(Some),
                        Err(_) => cut_short(),
                    };
                }
                (None, Ok(Some(_))) | (_, Err(_)) => return cut_short(),
                (_, Ok(None)) => {}
            }
        }
        if !place.entered {
            self.s.enter_frames(self.tab, &place.frames).await?;
        }
        if !place.frames.is_empty() {
            // A frame document is perceived only once the gate admits it (its URL is read
            // before anything else); a refused one, and every frame inside it, is left out.
            let url = self.s.execute(&super::authority_url_script(), Vec::new(), Sent::Read).await?;
            if frames::admit(self.gate, url.as_str().unwrap_or_default()).is_err() {
                return Ok(None);
            }
        }
        let args = vec![options.to_value()?, place.root.clone().unwrap_or(Value::Null)];
        let forms = options.mode == "forms";
        let first = self.expected.as_mut().filter(|first| first.page.is_none() && place.frames.is_empty());
        let raw = match first {
            // The top document of a perception in an expected document: the page state first,
            // then the pass, only in that document.
            Some(first) => {
                let scripts = if forms { &PERCEIVE_FORMS_IN } else { &PERCEIVE_IN };
                let script = scripts.get(first.expected.look_for_gate);
                let args = [args, vec![first.check.clone()]].concat();
                let answer = frames::read(self.s, script, args).await?;
                let (page, answer) = seen_in(self.s, answer, first.expected).await?;
                first.page = Some(page);
                let Some(answer) = answer else { return Ok(None) };
                first.shown = true;
                RawPass::decode(answer)?
            }
            None => {
                let script = if forms { &PERCEIVE_FORMS_SCRIPT } else { &PERCEIVE_SCRIPT };
                RawPass::decode(frames::read(self.s, script, args).await?)?
            }
        };
        self.elements_of(place, raw, depth_offset).map(Some)
    }

    async fn frame(&mut self, place: &PassPlace, frame: Value) -> PortResult<Option<PassPlace>> {
        let id = element_id(&frame).ok_or_else(|| malformed("perception"))?;
        // The frame's browsing context, from its parent's: the parent was read over BiDi (or
        // is the top document), so the frame can be too.
        let parent =
            if place.frames.is_empty() { Some(self.handle.to_owned()) } else { place.context.clone() };
        let context = match parent {
            Some(parent) => match self.s.sandbox_for(self.handle, frames::SANDBOX_WAIT).await {
                Ok(Some(bidi)) => frames::frame_context(bidi, &parent, &id).await.ok(),
                _ => None,
            },
            None => None,
        };
        let mut frames = place.frames.clone();
        frames.push(id);
        Ok(Some(PassPlace { frames, root: None, entered: false, context }))
    }
}

impl TabDocuments<'_> {
    /// The port's elements for the items of one pass in `place`.
    fn elements_of(&self, place: &PassPlace, raw: RawPass, depth_offset: u32) -> PortResult<Pass<Value>> {
        let elements = raw
            .items
            .into_iter()
            .map(|item| element_of(self.s, self.handle, &place.frames, item, depth_offset))
            .collect::<PortResult<_>>()?;
        Ok(Pass { elements, truncated: raw.truncated, frames: raw.frames })
    }
}

/// Perceive semantic elements.
pub(crate) async fn perceive(
    s: &mut Session,
    tab: &TabRef,
    input: &PerceiveInput,
    gate: &Gate,
) -> PortResult<Perception> {
    let (options, root) = PassOptions::perceive(&input.scope, input.max_items);
    Ok(gather_from(s, tab, options, root, gate).await?.into())
}

/// Run the perception passes for `options`, from `root` (switching to its frame) or from the
/// tab's top document.
async fn gather_from(
    s: &mut Session,
    tab: &TabRef,
    options: PassOptions,
    root: Option<&ElementRef>,
    gate: &Gate,
) -> PortResult<Gathered> {
    s.set_read_script_timeout().await?;
    let handle = s.tab(tab).await?;
    let place = match root {
        Some(root) => {
            let decoded = s.element_of(tab, root)?;
            let bidi = match decoded.frames.is_empty() {
                true => None,
                false => s.sandbox_for(&handle, frames::SANDBOX_WAIT).await?,
            };
            match bidi {
                // A root inside frames of a window with a sandbox: its document is found by
                // browsing context and perceived in its sandbox, like every frame document there.
                Some(bidi) => {
                    let context = frames::contexts_within(bidi, &handle, &decoded.frames).await?.pop();
                    let value = json!({ frames::ELEMENT_KEY: decoded.id });
                    PassPlace { frames: decoded.frames, root: Some(value), entered: false, context }
                }
                None => {
                    let element = s.element(tab, root).await?;
                    let value = serde_json::to_value(&element).map_err(|_| {
                        PortError::new(
                            PortErrorKind::Other,
                            "the subtree root could not be passed to the page",
                        )
                    })?;
                    PassPlace { frames: decoded.frames, root: Some(value), entered: true, context: None }
                }
            }
        }
        None => PassPlace { frames: Vec::new(), root: None, entered: true, context: None },
    };
    let mut docs = TabDocuments { s, tab, handle: &handle, gate, expected: None };
    perception::gather(&mut docs, place, options, 0).await
}

/// [`perceive`] of the whole page in the document `expected`, with the page state read by the
/// top document's pass (`ghostlight_page::scripts::in_document`): the page state and the
/// first pass in one Execute Script. A subtree, or an identity this adapter did not make,
/// takes the port's two-step way.
pub(crate) async fn perceive_in(
    s: &mut Session,
    tab: &TabRef,
    expected: &ExpectedDocument,
    input: &PerceiveInput,
    gate: &Gate,
) -> PortResult<InDocument<Perception>> {
    let (options, root) = PassOptions::perceive(&input.scope, input.max_items);
    let check = match (root, crate::page::expectation(expected)) {
        (None, Some(check)) => check,
        _ => {
            let page = match first_step(s, tab, expected).await? {
                Ok(page) => page,
                Err(elsewhere) => return Ok(elsewhere),
            };
            return Ok(InDocument { answer: Some(perceive(s, tab, input, gate).await?), page });
        }
    };
    s.set_read_script_timeout().await?;
    let handle = s.tab(tab).await?;
    let first = InExpected { expected, check, page: None, shown: false };
    let mut docs = TabDocuments { s, tab, handle: &handle, gate, expected: Some(first) };
    let place = PassPlace { frames: Vec::new(), root: None, entered: true, context: None };
    let gathered = perception::gather(&mut docs, place, options, 0).await?;
    let first = docs.expected.ok_or_else(|| malformed("perception"))?;
    let page = first.page.ok_or_else(|| malformed("page state"))?;
    Ok(InDocument { page, answer: first.shown.then(|| gathered.into()) })
}

/// The WebDriver element id in an element's JSON (`{"element-6066-…": id}`).
fn element_id(value: &Value) -> Option<String> {
    value.get(ELEMENT_KEY)?.as_str().filter(|id| !id.is_empty()).map(str::to_owned)
}

/// The port's element for one script item found in `frames` of window `handle`.
fn element_of(
    s: &Session,
    handle: &str,
    frames: &[String],
    item: RawItem,
    depth_offset: u32,
) -> PortResult<PerceivedElement> {
    let id = element_id(&item.e).ok_or_else(|| malformed("perception"))?;
    Ok(item.into_element(s.element_ref(handle, frames, &id), depth_offset))
}

// ---- focus and presence ---------------------------------------------------------------------

/// The focused element, if any, through frames of any origin (the driver switches into the
/// focused frame when the script cannot look inside it), with the URLs of the frame
/// documents it sits in. Those frames are read again in a BiDi sandbox realm when the driver
/// offers one ([`super::frames::focus_frames`]): a page that forges `activeElement` in its own
/// realm cannot hide that focus sits in a frame outside authority.
pub(crate) async fn focused_element(s: &mut Session, tab: &TabRef) -> PortResult<Option<FocusedElement>> {
    let found = focused_in_page(s, tab).await?;
    let handle = s.tab(tab).await?;
    let Some(frames) = super::frames::focus_frames(s, &handle).await? else { return Ok(found) };
    match found {
        // The frames the sandbox saw are the ones the executor checks, whatever the page's
        // own realm reported.
        Some(focused) => Ok(Some(FocusedElement { frames, ..focused })),
        None if frames.is_empty() => Ok(None),
        None => Err(PortError::new(
            PortErrorKind::Other,
            "the page reported no focus while focus sits in one of its frames",
        )),
    }
}

/// The focused element as the page's own realm describes it (see [`focused_element`]).
async fn focused_in_page(s: &mut Session, tab: &TabRef) -> PortResult<Option<FocusedElement>> {
    s.set_read_script_timeout().await?;
    let handle = s.tab(tab).await?;
    let options = PassOptions::focus().to_value()?;
    let mut frames: Vec<String> = Vec::new();
    let mut urls: Vec<Url> = Vec::new();
    for level in 0..=MAX_FRAME_DEPTH {
        if level > 0 {
            s.enter_frames(tab, &frames).await?;
        }
        let answer = frames::read(s, &PERCEIVE_SCRIPT, vec![options.clone(), Value::Null]).await?;
        let raw = RawPass::decode(answer)?;
        if level > 0 {
            // The frame document's own URL (one that does not parse is an adapter error:
            // keys are never sent into a document that cannot be named).
            let url =
                raw.url.as_deref().and_then(|url| Url::parse(url).ok()).ok_or_else(|| malformed("focus"))?;
            urls.push(url);
        }
        if let Some(item) = raw.items.into_iter().next() {
            let element = element_of(s, &handle, &frames, item, 0)?;
            return Ok(Some(FocusedElement { element, frames: urls }));
        }
        match raw.focus_frame.as_ref().and_then(element_id) {
            Some(frame) => frames.push(frame),
            // Focus is in this frame's document but on no element of it (its body): keys go
            // to the frame, so the frame element itself is the focused element, with the
            // frame's document among the frames (the executor checks it).
            None if level > 0 => {
                return Ok(Some(FocusedElement {
                    element: frame_element(s, &handle, &frames),
                    frames: urls,
                }));
            }
            None => return Ok(None),
        }
    }
    // Focus lies deeper than the frames followed: report nothing rather than guess.
    Ok(None)
}

/// The frame element at the end of `frames` (iframe element ids from the top document down),
/// as the focused element: a control with no name, focused.
fn frame_element(s: &Session, handle: &str, frames: &[String]) -> PerceivedElement {
    let (id, parents) = frames.split_last().map_or(("", frames), |(id, parents)| (id.as_str(), parents));
    PerceivedElement {
        element: s.element_ref(handle, parents, id),
        role: "iframe".to_owned(),
        name: None,
        states: vec![ElementState::Focused],
        credential: None,
        depth: None,
        text: None,
        control: true,
        form: None,
    }
}

/// Whether `element` is still attached and visible.
pub(crate) async fn element_present(s: &mut Session, tab: &TabRef, element: &ElementRef) -> PortResult<bool> {
    let found = match s.element(tab, element).await {
        Ok(found) => found,
        Err(e) if e.kind() == PortErrorKind::TargetStale => return Ok(false),
        Err(e) => return Err(e),
    };
    s.set_read_script_timeout().await?;
    let argument = serde_json::to_value(&found)
        .map_err(|_| PortError::new(PortErrorKind::Other, "the element could not be passed to the page"))?;
    match s.execute(&ELEMENT_PRESENT_SCRIPT, vec![argument], Sent::Read).await {
        Ok(answer) => Ok(answer.as_bool() == Some(true)),
        Err(e) if e.kind() == PortErrorKind::TargetStale => Ok(false),
        Err(e) => Err(e),
    }
}

// ---- text -----------------------------------------------------------------------------------

/// Read text of the page or of one element. Visible text joins the visible text of the
/// frame documents `gate` admits (see [`JoinFrames`]).
pub(crate) async fn read_text(
    s: &mut Session,
    tab: &TabRef,
    input: &ReadInput,
    gate: &Gate,
) -> PortResult<TextOutcome> {
    let options = ReadOptions::new(input.mode, input.max_chars);
    s.set_read_script_timeout().await?;
    let target = match &input.target {
        Some(target) => {
            let element = s.element(tab, target).await?;
            serde_json::to_value(&element).map_err(|_| {
                PortError::new(PortErrorKind::Other, "the element could not be passed to the page")
            })?
        }
        None => {
            s.tab(tab).await?;
            Value::Null
        }
    };
    let answer = frames::read(s, &READ_TEXT_SCRIPT, vec![options.to_value()?, target]).await?;
    finish_reading(s, tab, input, gate, answer).await
}

/// [`read_text`] of the whole page in the document `expected`, with the page state read by
/// the same script (`ghostlight_page::scripts::in_document`): one Execute Script where the
/// page state and the text took two. A target, or an identity this adapter did not make,
/// takes the port's two-step way.
pub(crate) async fn read_text_in(
    s: &mut Session,
    tab: &TabRef,
    expected: &ExpectedDocument,
    input: &ReadInput,
    gate: &Gate,
) -> PortResult<InDocument<TextOutcome>> {
    let check = match (&input.target, crate::page::expectation(expected)) {
        (None, Some(check)) => check,
        _ => {
            let page = match first_step(s, tab, expected).await? {
                Ok(page) => page,
                Err(elsewhere) => return Ok(elsewhere),
            };
            return Ok(InDocument { answer: Some(read_text(s, tab, input, gate).await?), page });
        }
    };
    let options = ReadOptions::new(input.mode, input.max_chars);
    s.set_read_script_timeout().await?;
    s.tab(tab).await?;
    let script = READ_TEXT_IN.get(expected.look_for_gate);
    let answer = frames::read(s, script, vec![options.to_value()?, Value::Null, check]).await?;
    let (page, answer) = seen_in(s, answer, expected).await?;
    let answer = match answer {
        Some(answer) => Some(finish_reading(s, tab, input, gate, answer).await?),
        None => None,
    };
    Ok(InDocument { page, answer })
}

/// The page state and the answer of a script of `in_document` (`{state, answer?}`), the
/// answer only when the state is the `expected` document's (the script compared nonce and
/// restore count; the whole identity is compared here too). A `null` answer (a dialog, or on
/// Firefox a navigation in progress, cut the script short) is an error the executor answers
/// by reading the page the ordinary way.
pub(super) async fn seen_in(
    s: &mut Session,
    answer: Value,
    expected: &ExpectedDocument,
) -> PortResult<(PageState, Option<Value>)> {
    let Value::Object(mut answer) = answer else {
        return Err(PortError::new(PortErrorKind::Other, "the page answered nothing while it was read"));
    };
    let state = answer.remove("state").ok_or_else(|| malformed("page state"))?;
    let page = s.accept_reading(state).await?.state;
    let answer = answer.remove("answer").filter(|_| expected.is_shown_by(&page));
    Ok((page, answer))
}

/// The first step of a read in `expected` that cannot be made in one script: the page state
/// when the expected document shows, else the answer that another document does (nothing read).
pub(super) async fn first_step<T>(
    s: &mut Session,
    tab: &TabRef,
    expected: &ExpectedDocument,
) -> PortResult<Result<PageState, InDocument<T>>> {
    let page = if expected.look_for_gate {
        super::tabs::page_and_gate(s, tab).await?
    } else {
        super::tabs::page(s, tab).await?
    };
    Ok(if expected.is_shown_by(&page) { Ok(page) } else { Err(InDocument { page, answer: None }) })
}

/// The text of `answer` (`read_text.js`'s), joined with the visible text of the admitted
/// frames when it is the page's visible text, bounded.
async fn finish_reading(
    s: &mut Session,
    tab: &TabRef,
    input: &ReadInput,
    gate: &Gate,
    answer: Value,
) -> PortResult<TextOutcome> {
    let max = ReadOptions::new(input.mode, input.max_chars).max;
    let raw: RawText = serde_json::from_value(answer).map_err(|_| malformed("reading"))?;
    let visible = raw.is_visible_text();
    let mut text = raw.text;
    let mut truncated = raw.truncated;
    let mut frames = 0;
    if input.target.is_none() && visible {
        let used = text.chars().count();
        let mut join = JoinFrames {
            options: ReadOptions::new(TextMode::Visible, 0).to_value()?,
            remaining: max.saturating_sub(used),
            texts: Vec::new(),
            truncated: false,
        };
        let walked = frames::visit_frames(s, tab, gate, &mut join).await?;
        for frame in &join.texts {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(frame);
        }
        frames = join.texts.len();
        truncated |= join.truncated || walked.truncated;
    }
    // The page bounds in UTF-16 units; bound again in characters so the contract holds.
    let (text, cut) = bound_chars(text, input.max_chars);
    Ok(TextOutcome { text, truncated: truncated || cut, frames })
}

/// Reads the visible text of each admitted frame document, within what is left of the
/// caller's `max_chars` (a line break separates each frame's text from what comes before).
struct JoinFrames {
    options: Value,
    remaining: usize,
    texts: Vec<String>,
    truncated: bool,
}

impl frames::FrameVisitor for JoinFrames {
    fn next(&mut self) -> Option<(frames::FrameScript, Vec<Value>)> {
        if self.remaining <= 1 {
            // A frame with text would not fit.
            self.truncated = true;
            return None;
        }
        let mut options = self.options.clone();
        options["max"] = Value::from(self.remaining - 1);
        let script =
            frames::FrameScript { composed: READ_TEXT_SCRIPT.as_str(), body: READ_TEXT_BODY.as_str() };
        Some((script, vec![options, Value::Null]))
    }

    fn answer(&mut self, answer: Value) {
        let Ok(raw) = serde_json::from_value::<RawText>(answer) else { return };
        self.truncated |= raw.truncated;
        if raw.text.is_empty() {
            return;
        }
        self.remaining = self.remaining.saturating_sub(raw.text.chars().count() + 1);
        self.texts.push(raw.text);
    }
}

/// Whether visible text of the page, or of a frame document `gate` admits, contains `text`.
pub(crate) async fn text_present(s: &mut Session, tab: &TabRef, text: &str, gate: &Gate) -> PortResult<bool> {
    s.set_read_script_timeout().await?;
    s.tab(tab).await?;
    let options = text_query(text);
    let answer = frames::read(s, &TEXT_PRESENT_SCRIPT, vec![options.clone()]).await?;
    if answer.as_bool().ok_or_else(|| malformed("text presence"))? {
        return Ok(true);
    }
    let mut search = SearchFrames { options, found: false };
    frames::visit_frames(s, tab, gate, &mut search).await?;
    Ok(search.found)
}

/// Wait in `tab`'s top document for at most `input.within` until its visible text contains
/// `input.text` (or no longer does); a page whose frames decide is checked once, its frames
/// searched as [`text_present`] searches them (see the module's "Waiting for text").
pub(crate) async fn wait_text(
    s: &mut Session,
    tab: &TabRef,
    input: &TextWaitInput,
    gate: &Gate,
) -> PortResult<TextWait> {
    let document = crate::page::nonce(&input.document).ok_or_else(|| {
        PortError::new(PortErrorKind::InvalidInput, "the document to wait in is not one this adapter named")
    })?;
    s.set_script_timeout_at_least(input.within.saturating_add(WATCH_SCRIPT_MARGIN)).await?;
    s.tab(tab).await?;
    let options = text_wait_options(&input.text, input.present, input.within, document);
    let started = Instant::now();
    let answer = match s.execute_async(&TEXT_WAIT_SCRIPT, vec![options], Sent::Read).await {
        Ok(Some(answer)) => answer,
        Ok(None) => return Ok(TextWait::DocumentGone),
        // Chromedriver answers a script timeout at once when the script's document unloads;
        // after `within`, the page kept its thread busy past it: it did not hold in time.
        Err(e) if e.kind() == PortErrorKind::Timeout => {
            return Ok(if started.elapsed() < input.within {
                TextWait::DocumentGone
            } else {
                TextWait::RanOut
            });
        }
        Err(e) => return Err(polled_instead(e)),
    };
    if answer.is_null() {
        // WebDriver answers `null` for a script a user prompt interrupted, and Firefox for one
        // a navigation in progress cut short.
        return match super::dialogs::probe(s).await? {
            Some(kind) => Err(match kind {
                Some(kind) => PortError::blocked_by(kind, "a dialog opened while the page was watched"),
                None => PortError::new(
                    PortErrorKind::BlockedByDialog,
                    "a dialog opened while the page was watched",
                ),
            }),
            None => Ok(TextWait::DocumentGone),
        };
    }
    ended(s, tab, input, gate, &answer).await
}

/// The error of an in-page text wait: a page that broke scripts in its own realm
/// ([`crate::errors::broken_in_page`]) cannot be watched there, so the wait is answered as
/// unsupported and the executor polls [`text_present`] instead (which reads such a page in
/// the sandbox); any other error stands.
fn polled_instead(error: PortError) -> PortError {
    if crate::errors::broken_in_page(&error) {
        PortError::new(
            PortErrorKind::Unsupported,
            "the page broke the in-page wait: the text is polled instead",
        )
    } else {
        error
    }
}

/// How a text wait ended, from `text_wait.js`'s answer (searching the admitted frames when it
/// says the answer depends on them).
async fn ended(
    s: &mut Session,
    tab: &TabRef,
    input: &TextWaitInput,
    gate: &Gate,
    answer: &Value,
) -> PortResult<TextWait> {
    match answer.get("end").and_then(Value::as_str) {
        Some("held") => Ok(TextWait::Held),
        Some("became") => Ok(TextWait::Became),
        Some("ran_out") => Ok(TextWait::RanOut),
        Some("gone") => Ok(TextWait::DocumentGone),
        Some("frames") => {
            let mut search = SearchFrames { options: text_query(&input.text), found: false };
            frames::visit_frames(s, tab, gate, &mut search).await?;
            Ok(if search.found == input.present { TextWait::Held } else { TextWait::NotYet })
        }
        _ => Err(malformed("text wait")),
    }
}

/// [`wait_text`] in the document `expected`, the page state read by the same script when the
/// wait ends (`ghostlight_page::scripts::text_wait_in`): one Execute Async Script where the
/// page state and the wait took two. A wait that did not end in the page (a navigation killed
/// the script, a dialog interrupted it) reads the page state once more; a page that kept its
/// thread busy past `within` answers the last page this adapter read.
pub(crate) async fn wait_text_in(
    s: &mut Session,
    tab: &TabRef,
    expected: &ExpectedDocument,
    input: &TextWaitInput,
    gate: &Gate,
) -> PortResult<InDocument<TextWait>> {
    let document = crate::page::nonce(&expected.document).ok_or_else(|| {
        PortError::new(PortErrorKind::Unsupported, "the expected document is not one this adapter named")
    })?;
    s.set_script_timeout_at_least(input.within.saturating_add(WATCH_SCRIPT_MARGIN)).await?;
    let handle = s.tab(tab).await?;
    let options = text_wait_options(&input.text, input.present, input.within, document);
    let script = TEXT_WAIT_IN.get(expected.look_for_gate);
    let started = Instant::now();
    match s.execute_async(script, vec![options], Sent::Read).await {
        Ok(Some(Value::Object(mut answer))) => {
            if let Some(state) = answer.remove("state").filter(|state| !state.is_null()) {
                let page = s.accept_reading(state).await?.state;
                let answer = Value::Object(answer);
                if answer.get("end").and_then(Value::as_str) == Some("gone") {
                    // Another document than the one expected: nothing was read in it.
                    return Ok(InDocument { page, answer: None });
                }
                let ended = ended(s, tab, input, gate, &answer).await?;
                return Ok(InDocument { page, answer: Some(ended) });
            }
        }
        // Chromedriver answers a script timeout at once when the script's document unloads;
        // after `within`, the page kept its thread busy past it: it did not hold in time.
        Err(e) if e.kind() == PortErrorKind::Timeout && started.elapsed() >= input.within => {
            let page = s.last_page(&handle).cloned().ok_or(e)?;
            return Ok(InDocument { page, answer: Some(TextWait::RanOut) });
        }
        Err(e) if e.kind() == PortErrorKind::Timeout => {}
        Ok(_) => {}
        Err(e) => return Err(polled_instead(e)),
    }
    // The document went away while it was watched, or a dialog interrupted the script: what
    // the tab shows now (a dialog answers its error).
    let page = s.settled_page_state().await?;
    Ok(InDocument { page, answer: Some(TextWait::DocumentGone) })
}

/// Looks for the text in each admitted frame document until it is found.
struct SearchFrames {
    options: Value,
    found: bool,
}

impl frames::FrameVisitor for SearchFrames {
    fn next(&mut self) -> Option<(frames::FrameScript, Vec<Value>)> {
        let script =
            frames::FrameScript { composed: TEXT_PRESENT_SCRIPT.as_str(), body: TEXT_PRESENT_BODY.as_str() };
        (!self.found).then(|| (script, vec![self.options.clone()]))
    }

    fn answer(&mut self, answer: Value) {
        self.found |= answer.as_bool().unwrap_or(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scripts_are_called_with_their_arguments() {
        // The DOM semantics come first, then one call of the script's function.
        let dom = with_dom("");
        assert!(PERCEIVE_SCRIPT.starts_with(&dom));
        assert!(PERCEIVE_SCRIPT.contains("\nreturn ("));
        assert!(PERCEIVE_SCRIPT.ends_with(")(arguments[0], arguments[1]);"));
        assert!(TEXT_PRESENT_SCRIPT.ends_with(")(arguments[0]);"));
        assert!(ELEMENT_PRESENT_SCRIPT.starts_with(&dom));
        assert!(ELEMENT_PRESENT_SCRIPT.ends_with(")(arguments[0]);"));
    }

    #[test]
    fn element_ids_come_from_webdriver_element_json() {
        assert_eq!(element_id(&json!({ ELEMENT_KEY: "abc" })), Some("abc".to_owned()));
        assert_eq!(element_id(&json!({ ELEMENT_KEY: "" })), None);
        assert_eq!(element_id(&json!({ "other": "abc" })), None);
        assert_eq!(element_id(&json!("abc")), None);
    }
}
