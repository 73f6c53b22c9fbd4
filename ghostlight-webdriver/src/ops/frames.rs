//! Frames and the call's [`Gate`]: which documents pointer input lands in, and which frames
//! a capture shows.
//!
//! - **Points.** The hit test (`glDeepTrace` in `scripts/input/lib.js`) reports the URL of
//!   every same-origin frame document it entered and stops at a frame of another origin with
//!   the point inside it; the check follows such a frame, reads its URL and traces on, and
//!   refuses the first document the gate refuses ([`PortError::outside_authority`]) before
//!   anything is dispatched. A document whose URL cannot be read is refused too (fail closed).
//!   The trace runs in a WebDriver BiDi sandbox realm of each document ([`check_point`]): a
//!   page that replaces `elementFromPoint` or the frame getters in its own realm cannot hide
//!   a frame from it. Only when the driver offers no BiDi does it run in the page's realm
//!   ([`check_trace`], following frames by switching into them), which such a page can
//!   mislead.
//! - **Captures.** [`refused_boxes`] lists the frames on screen (`scripts/frame_boxes.js`),
//!   follows frames of other origins the same way, and answers the boxes (document CSS
//!   pixels) of every frame whose document the gate refuses, or cannot tell; [`blank`] paints
//!   them over in an image. So a screenshot or a recording never shows a document outside
//!   authority, even framed in one inside it.
//!
//! - **Reads.** [`visit_frames`] walks the visible frames of a tab, of every origin, depth
//!   first in document order (`scripts/frames_here.js` lists each document's frames), reads
//!   each frame document's URL before anything else, and runs the caller's script only in the
//!   documents the gate admits. A refused frame, and every frame inside it, is left unread.
//!   Over WebDriver BiDi all of it runs in each document's sandbox realm, the frames
//!   addressed by browsing context: no frame switch (chromedriver takes 16–40 ms for one), and
//!   the listing is out of the page's reach. Perception's frame passes do the same
//!   ([`frame_context`], [`apply_sandboxed_with_nodes`]: the elements they answer come back
//!   as the WebDriver element references the rest of the adapter uses).
//!
//! The page could move a frame between the check and the input (a round trip later): the
//! check narrows what a page can make Ghostlight do, it is not atomic with the dispatch.

use std::io::Cursor;
use std::sync::LazyLock;
use std::time::Duration;

use ghostlight_core::port::{CssRect, Gate, PortError, PortErrorKind, PortResult, TabRef};
use image::{ImageEncoder, Rgba, RgbaImage};
use serde::Deserialize;
use serde_json::{Value, json};
use url::Url;

use crate::bidi::Bidi;
use crate::errors::{self, Sent};
use crate::ops::sandbox;
use crate::session::Session;
use ghostlight_page::scripts::FRAMES_HERE_BODY as FRAMES_HERE_JS;

/// How many frames deep a trace or a listing follows frames of other origins.
const MAX_CROSS_DEPTH: usize = 6;
/// The colour a refused frame is painted over with (opaque mid grey).
const BLANK: Rgba<u8> = Rgba([128, 128, 128, 255]);
/// The frame listing's body, for a sandbox realm (which has the library).
const FRAME_BOXES_BODY: &str = ghostlight_page::scripts::FRAME_BOXES_BODY;
/// The WebDriver element reference key.
pub(crate) const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";
/// The frame listing (see the script's header), with the library for a page's realm (a window
/// without a sandbox).
static FRAME_BOXES: LazyLock<String> = LazyLock::new(|| super::input::compose(FRAME_BOXES_BODY));
/// [`FRAMES_HERE_JS`] with the shared DOM semantics before it.
static FRAMES_HERE: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| super::with_dom(FRAMES_HERE_JS));
/// The most frame documents a walk enters.
use ghostlight_page::bounds::MAX_WALK_FRAMES;

/// A hit test's way through frames, as the input scripts answer it.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Trace {
    /// URLs of the same-origin frame documents entered, outermost first.
    #[serde(default)]
    pub(crate) frames: Vec<String>,
    /// The frame of another origin the hit stopped at, with the point inside it.
    #[serde(default)]
    pub(crate) cross: Option<Cross>,
}

/// A frame of another origin and a point inside its content box.
#[derive(Debug, Deserialize)]
pub(crate) struct Cross {
    /// The frame element (a WebDriver element reference; absent from a sandboxed trace).
    #[serde(default)]
    pub(crate) frame: Value,
    /// The point, in the frame's viewport.
    pub(crate) x: f64,
    /// The point, in the frame's viewport.
    pub(crate) y: f64,
}

/// The answer of the trace inside a frame of another origin.
#[derive(Debug, Deserialize)]
struct Inside {
    url: String,
    #[serde(flatten)]
    trace: Trace,
}

/// The script that traces viewport point `(arguments[0], arguments[1])` of the current
/// document (after the input helpers): its URL, and the trace.
static TRACE: LazyLock<String> = LazyLock::new(|| {
    super::input::compose(
        "const [x, y] = arguments;\nconst t = glDeepTrace(document, x, y);\n\
         return { url: glAuthorityUrl(document), frames: t.frames, \
         cross: t.cross ? { frame: t.cross.frame, x: t.cross.x, y: t.cross.y } : null };",
    )
});

pub(crate) use crate::bidi::SANDBOX_WAIT;
/// The longest wait for a capture's listing of the top document's frames in its sandbox: the
/// reading scripts' bound, so that a page busy for a few seconds delays a capture (bounded by
/// its own timeout) rather than fails it.
const TOP_LISTING_WAIT: Duration = ghostlight_page::bounds::READ_SCRIPT_TIMEOUT;

/// The body of the sandboxed trace of viewport point `(x, y)`: `[JSON of {url, frames,
/// cross: {x, y}}, the crossed frame's window or null]` (BiDi serializes the window as its
/// context id).
const SANDBOX_TRACE_BODY: &str = "const [x, y] = arguments;\nconst t = glDeepTrace(document, x, y);\n\
     const cross = t.cross ? { x: t.cross.x, y: t.cross.y } : null;\n\
     return [JSON.stringify({ url: glAuthorityUrl(document), frames: t.frames, cross }), \
     t.cross ? t.cross.frame.contentWindow : null];";

/// The sandboxed trace over the library installed in the document's sandbox
/// ([`sandbox::slim`]); `[MISSING, null]` where none is.
static SANDBOX_TRACE: LazyLock<String> = LazyLock::new(|| {
    let missing = format!("['{}', null]", sandbox::MISSING);
    format!("function () {{\n{}\n{SANDBOX_TRACE_BODY}\n}}", sandbox::slim(&missing))
});

/// The sandboxed trace with the whole library, which it installs ([`sandbox::full`]).
static SANDBOX_TRACE_FULL: LazyLock<String> =
    LazyLock::new(|| format!("function () {{\n{}\n}}", sandbox::full(SANDBOX_TRACE_BODY)));

/// Check that pointer input at viewport point `(x, y)` of `tab`'s top document lands only in
/// documents `gate` admits (the page itself was authorized by the executor). `trace`, when
/// the caller has one from the page's realm, is what is checked if the driver offers no
/// sandbox.
pub(crate) async fn check_point(
    s: &mut Session,
    tab: &TabRef,
    x: f64,
    y: f64,
    trace: Option<Trace>,
    gate: &Gate,
) -> PortResult<()> {
    let handle = s.tab(tab).await?;
    if let Some(bidi) = s.sandbox_for(&handle, SANDBOX_WAIT).await? {
        return check_sandboxed(bidi, &handle, x, y, gate).await;
    }
    let trace = match trace {
        Some(trace) => trace,
        None => trace_here(s, x, y).await?.trace,
    };
    check_trace(s, tab, &[], trace, gate).await
}

/// [`check_point`] with every trace in the sandbox realm of its document, from context `top`
/// (a window handle is its top document's BiDi context id; a frame's context checks a point of
/// that frame's viewport, the frame's own document judged by the caller) down through frames
/// of other origins.
pub(crate) async fn check_sandboxed(bidi: &Bidi, top: &str, x: f64, y: f64, gate: &Gate) -> PortResult<()> {
    let (mut context, mut x, mut y) = (top.to_owned(), x, y);
    for depth in 0..=MAX_CROSS_DEPTH {
        let (inside, next) = trace_sandboxed(bidi, &context, x, y).await?;
        if depth > 0 {
            admit(gate, &inside.url)?;
        }
        for url in &inside.trace.frames {
            admit(gate, url)?;
        }
        match (inside.trace.cross, next) {
            (None, _) => return Ok(()),
            (Some(cross), Some(next)) => (context, x, y) = (next, cross.x, cross.y),
            (Some(_), None) => {
                return Err(PortError::new(PortErrorKind::Other, "the hit test named no frame to follow"));
            }
        }
    }
    Err(PortError::new(PortErrorKind::Other, "the point lies in frames nested too deep to check"))
}

/// Where focus sits, read in the sandbox realm: `[JSON of {url, frames}, the window of the
/// frame of another origin focus went into, or null]`, following focus through open shadow
/// roots and same-origin frames (`frames`: the URLs of the frame documents entered).
static SANDBOX_FOCUS: LazyLock<String> = LazyLock::new(|| {
    format!("function () {{\n{}\n", super::AUTHORITY_URL_JS) + "
  let doc = document;
  const frames = [];
  let cross = null;
  for (let hop = 0; hop < 32; hop++) {
    let el = doc.activeElement;
    for (let i = 0; el && el.shadowRoot && el.shadowRoot.activeElement && i < 32; i++) el = el.shadowRoot.activeElement;
    if (!el || (el.localName !== 'iframe' && el.localName !== 'frame')) break;
    let inner = null;
    try {
      inner = el.contentDocument;
    } catch (_) {
      inner = null;
    }
    if (!inner) {
      cross = el.contentWindow;
      break;
    }
    frames.push(glAuthorityUrl(inner));
    doc = inner;
  }
  return [JSON.stringify({ url: glAuthorityUrl(document), frames }), cross];
}"
});

/// The frame documents focus sits in, from top context `top` down (each one's URL,
/// outermost first; empty when focus is in the top document), read in the sandbox realm of
/// each document, so a page cannot hide a frame focus went into (see [`check_point`]).
/// `None` when the driver offers no sandbox.
pub(crate) async fn focus_frames(s: &mut Session, top: &str) -> PortResult<Option<Vec<Url>>> {
    let Some(bidi) = s.sandbox_for(top, SANDBOX_WAIT).await? else { return Ok(None) };
    follow_focus(bidi, top).await.map(Some)
}

/// [`focus_frames`] through the session's BiDi connection `bidi`.
async fn follow_focus(bidi: &Bidi, top: &str) -> PortResult<Vec<Url>> {
    let mut urls = Vec::new();
    let mut context = top.to_owned();
    for depth in 0..=MAX_CROSS_DEPTH {
        let (inside, next) =
            sandboxed(bidi, &context, &SANDBOX_FOCUS, json!([])).await?.ok_or_else(trace_shape)?;
        let named = |url: &str| {
            Url::parse(url)
                .map_err(|_| PortError::new(PortErrorKind::Other, "a frame's document has no usable URL"))
        };
        if depth > 0 {
            urls.push(named(&inside.url)?);
        }
        for url in &inside.trace.frames {
            urls.push(named(url)?);
        }
        match next {
            Some(next) => context = next,
            None => return Ok(urls),
        }
    }
    Err(PortError::new(PortErrorKind::Other, "focus lies in frames nested too deep to check"))
}

/// An Execute Script `body` applied in the sandbox realm to the JSON arguments of its
/// `spec` (`{args, at}`), the elements passed beside it (BiDi shared references) put back at
/// the paths `at` (each a list of array indices and object keys from `args`, at any depth);
/// the answer as `__GHOSTLIGHT_ANSWER__` returns it ([`ANSWER_JSON`] or [`ANSWER_WITH_NODES`]). `__GHOSTLIGHT_LIBRARY__` is where the library goes: the slim
/// prelude, or the whole library ([`sandbox`]).
const SANDBOX_APPLY: &str = "function (json, ...elements) {
  __GHOSTLIGHT_LIBRARY__
  const spec = JSON.parse(json);
  const args = spec.args;
  spec.at.forEach((path, k) => {
    let holder = args;
    for (let i = 0; i < path.length - 1; i += 1) holder = holder[path[i]];
    holder[path[path.length - 1]] = elements[k];
  });
  const out = (function () { __GHOSTLIGHT_BODY__ }).apply(null, args);
  __GHOSTLIGHT_ANSWER__
}";

/// The answer as JSON text (`"null"` for none).
const ANSWER_JSON: &str = "return JSON.stringify(out === undefined ? null : out);";

/// The answer of a script that holds DOM nodes: `[JSON of the answer, each node]`, every node in
/// the JSON replaced by `{"__gl_node": index}` (BiDi serializes a node as its shared reference,
/// which is also its WebDriver element id).
const ANSWER_WITH_NODES: &str = "const nodes = [];
  const isNode = (v) => v !== null && typeof v === 'object' && typeof v.nodeType === 'number'
    && typeof v.nodeName === 'string';
  const text = JSON.stringify(out === undefined ? null : out,
    (key, value) => (isNode(value) ? { __gl_node: nodes.push(value) - 1 } : value));
  return [text, ...nodes];";

/// The key [`ANSWER_WITH_NODES`] marks a node's place with.
const NODE_MARK: &str = "__gl_node";

/// [`SANDBOX_APPLY`]'s library part over the sandbox's installed library ([`sandbox::slim`]).
static APPLY_SLIM: LazyLock<String> = LazyLock::new(|| sandbox::slim(&format!("'{}'", sandbox::MISSING)));
/// [`SANDBOX_APPLY`]'s library part with the whole library, which it installs ([`sandbox::full`]).
static APPLY_FULL: LazyLock<String> = LazyLock::new(|| sandbox::full(""));

/// Run the input script `body` (uncomposed: the library is the sandbox's, [`sandbox`]) with
/// `args` in the sandbox realm of the top document the driver is in (a WebDriver element
/// reference among `args` is passed as the node it names), so that what the script calls is
/// out of the page's reach. `None` when the driver is inside a frame or offers no sandbox: the
/// caller runs it in the page's realm.
pub(crate) async fn run_sandboxed(s: &mut Session, body: &str, args: &[Value]) -> Option<PortResult<Value>> {
    let context = s.at_top()?.to_owned();
    match s.sandbox_for(&context, SANDBOX_WAIT).await {
        Ok(Some(bidi)) => Some(apply_sandboxed(bidi, &context, body, args).await),
        Ok(None) => None,
        Err(error) => Some(Err(error)),
    }
}

/// Run the read `script` (an Execute Script body) with `args` in the page's own realm; when
/// the page broke scripts there, in the sandbox realm of the top document instead.
///
/// A page can make every script in its realm fail by replacing a builtin: chromedriver's own
/// wrapper of Execute Script fails once `JSON.stringify`, `Promise.prototype.then` or
/// `Function.prototype.apply` is replaced (measured), and a script of ours once a builtin it
/// calls is. The sandbox, which no page script reaches, runs the same script (its library
/// travels with it) and answers as the page's realm would have; a read has no effect, so
/// running it again there is harmless. The error stands inside a frame, in a window without
/// a sandbox, and for any other failure (a dialog, a timeout, a closed window).
pub(crate) async fn read(s: &mut Session, script: &str, args: Vec<Value>) -> PortResult<Value> {
    match s.execute(script, args.clone(), Sent::Read).await {
        Err(error) if errors::broken_in_page(&error) => match in_top_sandbox(s, script, &args).await {
            Some(Ok(value)) => {
                tracing::warn!("the page broke a read in its own realm: read in the sandbox instead");
                s.note_realm_broken();
                Ok(value)
            }
            _ => Err(error),
        },
        other => other,
    }
}

/// Run the Execute Script `script` that acts with `args`: in the page's own realm, or, when
/// the page broke the last read there ([`Session::page_realm_broken`]), straight in the top
/// document's sandbox (never in both: a script that ran and still failed would run twice).
pub(crate) async fn act(s: &mut Session, script: &str, args: Vec<Value>) -> PortResult<Value> {
    if s.page_realm_broken()
        && let Some(answer) = in_top_sandbox(s, script, &args).await
    {
        return answer.map_err(PortError::effect_unknown);
    }
    s.execute(script, args, Sent::Act).await
}

/// The composed Execute Script `script` (its library carried in it) run with `args` in the
/// sandbox realm of the top document the driver is in, its nodes answered as WebDriver
/// element references; `None` inside a frame or in a window without a sandbox.
async fn in_top_sandbox(s: &mut Session, script: &str, args: &[Value]) -> Option<PortResult<Value>> {
    let context = s.at_top()?.to_owned();
    let Ok(Some(bidi)) = s.sandbox_for(&context, SANDBOX_WAIT).await else { return None };
    Some(apply_in_sandbox(bidi, &context, script, args, Library::Carried, true, SANDBOX_WAIT).await)
}

/// Where the library of a script run in a sandbox comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Library {
    /// The copy installed in the sandbox (sent whole once when the document has none): the
    /// script is an input script's body.
    Installed,
    /// The script carries it (a composed Execute Script body).
    Carried,
}

/// Run the input script `body` with `args` in the sandbox realm of browsing context `context`
/// (see [`run_sandboxed`]): its answer, parsed.
pub(crate) async fn apply_sandboxed(
    bidi: &Bidi,
    context: &str,
    body: &str,
    args: &[Value],
) -> PortResult<Value> {
    apply_in_sandbox(bidi, context, body, args, Library::Installed, false, SANDBOX_WAIT).await
}

/// [`apply_sandboxed`] for a script whose answer holds DOM nodes (a perception's items and
/// frames): each comes back as a WebDriver element reference (`{"element-6066-…": id}`).
pub(crate) async fn apply_sandboxed_with_nodes(
    bidi: &Bidi,
    context: &str,
    body: &str,
    args: &[Value],
) -> PortResult<Value> {
    apply_in_sandbox(bidi, context, body, args, Library::Installed, true, SANDBOX_WAIT).await
}

/// [`apply_sandboxed`] with the library `library` names, the answer's nodes kept when
/// `with_nodes`.
async fn apply_in_sandbox(
    bidi: &Bidi,
    context: &str,
    body: &str,
    args: &[Value],
    library: Library,
    with_nodes: bool,
    wait: Duration,
) -> PortResult<Value> {
    let mut plain = Value::Array(args.to_vec());
    let mut at = Vec::new();
    let mut nodes = vec![Value::Null];
    lift_elements(&mut plain, &mut Vec::new(), &mut at, &mut nodes);
    nodes[0] = json!({ "type": "string", "value": json!({ "args": plain, "at": at }).to_string() });
    let call = |library: &str| {
        let answer = if with_nodes { ANSWER_WITH_NODES } else { ANSWER_JSON };
        let function = SANDBOX_APPLY
            .replace("__GHOSTLIGHT_ANSWER__", answer)
            .replace("__GHOSTLIGHT_BODY__", body)
            .replace("__GHOSTLIGHT_LIBRARY__", library);
        let mut params = crate::bidi::sandboxed_call_with(context, &function, json!(nodes));
        params["serializationOptions"] = json!({ "maxDomDepth": 0 });
        params
    };
    // (maxDomDepth 0: a node comes back as its reference, without its children.)
    let shape =
        || PortError::new(PortErrorKind::Other, "a sandboxed input script answered an unexpected shape");
    let first = if library == Library::Carried { "" } else { APPLY_SLIM.as_str() };
    let mut answer = bidi.command_within("script.callFunction", call(first), wait).await?;
    if library == Library::Installed && answer["result"]["value"].as_str() == Some(sandbox::MISSING) {
        // A document from before the library's preload: send it once, with the script.
        answer = bidi.command_within("script.callFunction", call(&APPLY_FULL), wait).await?;
    }
    if answer["type"] != "success" {
        return Err(PortError::new(PortErrorKind::Other, "a sandboxed input script failed in the page"));
    }
    if !with_nodes {
        let text = answer["result"]["value"].as_str().ok_or_else(shape)?;
        return serde_json::from_str(text).map_err(|_| shape());
    }
    let parts = answer["result"]["value"].as_array().ok_or_else(shape)?;
    let (text, nodes) = parts.split_first().ok_or_else(shape)?;
    let mut value: Value =
        serde_json::from_str(text["value"].as_str().ok_or_else(shape)?).map_err(|_| shape())?;
    let ids: Vec<&str> =
        nodes.iter().map(|node| node["sharedId"].as_str().ok_or_else(shape)).collect::<PortResult<_>>()?;
    put_elements(&mut value, &ids).ok_or_else(shape)?;
    Ok(value)
}

/// Replace each WebDriver element reference in `value` (at any depth) by `null`, noting its
/// path from the arguments' root in `at` and its BiDi shared reference in `nodes`.
fn lift_elements(value: &mut Value, path: &mut Vec<Value>, at: &mut Vec<Value>, nodes: &mut Vec<Value>) {
    let reference = value.as_object().is_some_and(|map| map.len() == 1);
    if let Some(id) = element_id(value).filter(|_| reference) {
        at.push(Value::Array(path.clone()));
        nodes.push(json!({ "sharedId": id }));
        *value = Value::Null;
        return;
    }
    match value {
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                path.push(json!(index));
                lift_elements(item, path, at, nodes);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                path.push(json!(key));
                lift_elements(item, path, at, nodes);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Replace each `{"__gl_node": index}` in `value` by the WebDriver element reference of
/// `ids[index]`; `None` when an index names no node.
fn put_elements(value: &mut Value, ids: &[&str]) -> Option<()> {
    match value {
        Value::Object(map) if map.len() == 1 && map.contains_key(NODE_MARK) => {
            let index = usize::try_from(map.get(NODE_MARK)?.as_u64()?).ok()?;
            *value = json!({ ELEMENT_KEY: ids.get(index)? });
        }
        Value::Object(map) => {
            for inner in map.values_mut() {
                put_elements(inner, ids)?;
            }
        }
        Value::Array(items) => {
            for inner in items {
                put_elements(inner, ids)?;
            }
        }
        _ => {}
    }
    Some(())
}

/// The browsing context of the frame element `frame` (a WebDriver element id) of the document
/// in context `parent`, asked in that document's sandbox realm.
pub(crate) async fn frame_context(bidi: &Bidi, parent: &str, frame: &str) -> PortResult<String> {
    let params = crate::bidi::sandboxed_call_with(
        parent,
        "function (frame) { return frame.contentWindow; }",
        json!([{ "sharedId": frame }]),
    );
    let answer = bidi.command_within("script.callFunction", params, SANDBOX_WAIT).await?;
    answer["result"]["value"]["context"]
        .as_str()
        .filter(|_| answer["type"] == "success")
        .map(str::to_owned)
        .ok_or_else(|| PortError::new(PortErrorKind::Other, "a frame's browsing context could not be found"))
}

/// The browsing contexts of the documents on the way into `frames` (iframe element ids from
/// the top document down) of top context `top`: `top` first, the innermost frame's document
/// last, found frame by frame in each parent's sandbox realm. A frame that cannot be followed
/// is [`PortErrorKind::TargetStale`] (it is no longer shown), a timeout stays one.
pub(crate) async fn contexts_within(bidi: &Bidi, top: &str, frames: &[String]) -> PortResult<Vec<String>> {
    let mut contexts = vec![top.to_owned()];
    for frame in frames {
        let parent = contexts.last().map_or(top, String::as_str);
        let context = frame_context(bidi, parent, frame).await.map_err(|error| match error.kind() {
            PortErrorKind::Timeout => error,
            _ => {
                PortError::new(PortErrorKind::TargetStale, "a frame on the element's way is no longer shown")
            }
        })?;
        contexts.push(context);
    }
    Ok(contexts)
}

/// The URL a document is governed by (`glAuthorityUrl`), read in the sandbox realm of
/// browsing context `context`.
pub(crate) async fn document_url_sandboxed(bidi: &Bidi, context: &str) -> PortResult<String> {
    let url = apply_sandboxed(bidi, context, "return glAuthorityUrl(document);", &[]).await?;
    url.as_str()
        .map(str::to_owned)
        .ok_or_else(|| PortError::new(PortErrorKind::Other, "a frame document's URL could not be read"))
}

/// One sandboxed trace in `context`: what it found, and the context of the frame of another
/// origin it stopped at.
async fn trace_sandboxed(bidi: &Bidi, context: &str, x: f64, y: f64) -> PortResult<(Inside, Option<String>)> {
    let arguments = json!([{ "type": "number", "value": x }, { "type": "number", "value": y }]);
    match sandboxed(bidi, context, &SANDBOX_TRACE, arguments.clone()).await? {
        Some(found) => Ok(found),
        // A document from before the library's preload: send it once, with the trace.
        None => sandboxed(bidi, context, &SANDBOX_TRACE_FULL, arguments).await?.ok_or_else(trace_shape),
    }
}

/// A sandboxed trace's answer was not what the script answers.
fn trace_shape() -> PortError {
    PortError::new(PortErrorKind::Other, "the sandboxed hit trace answered an unexpected shape")
}

/// Call `function` (answering `[JSON of an Inside, a window or null]`) with BiDi `arguments`
/// in the sandbox realm of `context`: the Inside, and the window's context; `None` when the
/// function answered [`sandbox::MISSING`] (the document's sandbox has no library yet).
async fn sandboxed(
    bidi: &Bidi,
    context: &str,
    function: &str,
    arguments: Value,
) -> PortResult<Option<(Inside, Option<String>)>> {
    let params = crate::bidi::sandboxed_call_with(context, function, arguments);
    let answer = bidi.command_within("script.callFunction", params, SANDBOX_WAIT).await?;
    if answer["type"] != "success" {
        return Err(PortError::new(PortErrorKind::Other, "the sandboxed hit trace failed in the page"));
    }
    let parts = answer["result"]["value"].as_array().ok_or_else(trace_shape)?;
    let found = parts.first().and_then(|part| part["value"].as_str()).ok_or_else(trace_shape)?;
    if found == sandbox::MISSING {
        return Ok(None);
    }
    let inside: Inside = serde_json::from_str(found).map_err(|_| trace_shape())?;
    let next = parts.get(1).and_then(|part| part["value"]["context"].as_str()).map(str::to_owned);
    Ok(Some((inside, next)))
}

/// Trace `(x, y)` in the current document.
async fn trace_here(s: &mut Session, x: f64, y: f64) -> PortResult<Inside> {
    let value = s.execute(&TRACE, vec![json!(x), json!(y)], Sent::Read).await?;
    serde_json::from_value(value)
        .map_err(|_| PortError::new(PortErrorKind::Other, "the frame trace answered an unexpected shape"))
}

/// Refuse a document the gate refuses; a URL that does not parse is refused too (fail closed:
/// nothing is dispatched into a document that cannot be named).
pub(crate) fn admit(gate: &Gate, url: &str) -> PortResult<()> {
    match Url::parse(url) {
        Ok(url) if gate.admits(&url) => Ok(()),
        Ok(url) => Err(PortError::outside_authority(url)),
        Err(_) => Err(PortError::new(PortErrorKind::Other, "a frame's document has no usable URL")),
    }
}

/// Check a hit test's `trace` (taken in the document of `tab` inside the frames `path`)
/// against `gate`, following frames of other origins. Leaves the driver in `tab`'s top
/// document when it followed any.
pub(crate) async fn check_trace(
    s: &mut Session,
    tab: &TabRef,
    path: &[String],
    trace: Trace,
    gate: &Gate,
) -> PortResult<()> {
    let mut path = path.to_vec();
    let mut trace = trace;
    let mut followed = false;
    for _ in 0..=MAX_CROSS_DEPTH {
        for url in &trace.frames {
            admit(gate, url)?;
        }
        let Some(cross) = trace.cross.take() else { break };
        let id = element_id(&cross.frame)
            .ok_or_else(|| PortError::new(PortErrorKind::Other, "the hit test named no frame element"))?;
        path.push(id);
        followed = true;
        s.enter_frames(tab, &path).await?;
        let inside = trace_here(s, cross.x, cross.y).await?;
        admit(gate, &inside.url)?;
        trace = inside.trace;
    }
    if trace.cross.is_some() {
        return Err(PortError::new(
            PortErrorKind::Other,
            "the point lies in frames nested too deep to check",
        ));
    }
    if followed {
        s.tab(tab).await?;
    }
    Ok(())
}

/// One frame as the listing answers it.
#[derive(Debug, Deserialize)]
struct RawBox {
    /// The box it is drawn in.
    x: f64,
    y: f64,
    w: f64,
    h: f64,
    /// Where its document's viewport starts, and the scale it is drawn at.
    cx: f64,
    cy: f64,
    sx: f64,
    sy: f64,
    /// Whether `cx`, `cy`, `sx`, `sy` place the frames inside it (not so for a frame drawn
    /// rotated, skewed or zoomed).
    placed: bool,
    url: Option<String>,
    e: Option<Value>,
}

/// The listing's answer.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Listing {
    scroll_x: f64,
    scroll_y: f64,
    width: f64,
    height: f64,
    scale: f64,
    frames: Vec<RawBox>,
}

/// The top document's view as a frame listing measured it: what a geometry read at the same
/// moment would answer of the viewport, its scale and its scroll offsets (CSS pixels).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ListedView {
    /// `innerWidth`.
    pub(crate) width: f64,
    /// `innerHeight`.
    pub(crate) height: f64,
    /// `devicePixelRatio`.
    pub(crate) scale: f64,
    /// `scrollX`.
    pub(crate) scroll_x: f64,
    /// `scrollY`.
    pub(crate) scroll_y: f64,
}

/// The frames on screen the gate refuses, and the view they were measured in.
#[derive(Debug, Clone, Default)]
pub(crate) struct Refused {
    /// The refused frames' boxes, in document CSS pixels.
    pub(crate) boxes: Vec<CssRect>,
    /// The page's scroll offsets when listed (the viewport's origin in the document).
    pub(crate) scroll: (f64, f64),
    /// The viewport's width in CSS pixels.
    pub(crate) viewport_width: f64,
}

impl Refused {
    /// Paint the boxes over a viewport screenshot taken at the listing's view.
    pub(crate) fn blank_viewport(&self, png: Vec<u8>) -> PortResult<Vec<u8>> {
        if self.boxes.is_empty() {
            return Ok(png);
        }
        let width = png_width(&png)?;
        blank(png, self.scroll, self.viewport_width / f64::from(width), &self.boxes)
    }
}

/// The width in a PNG's header.
fn png_width(png: &[u8]) -> PortResult<u32> {
    match png.get(16..20) {
        Some(&[a, b, c, d]) if png.starts_with(b"\x89PNG") => Ok(u32::from_be_bytes([a, b, c, d]).max(1)),
        _ => Err(PortError::new(PortErrorKind::Other, "a screenshot is not a PNG")),
    }
}

/// The boxes (document CSS pixels of `tab`'s page) of the frames on screen whose documents
/// `gate` refuses or whose URL cannot be read. Leaves the driver in `tab`'s top document.
pub(crate) async fn refused_boxes(s: &mut Session, tab: &TabRef, gate: &Gate) -> PortResult<Refused> {
    Ok(refused_boxes_and_view(s, tab, gate).await?.0)
}

/// [`refused_boxes`], with the top document's view its listing measured (one script when no
/// frame needs entering: what a capture reads after its screenshot).
pub(crate) async fn refused_boxes_and_view(
    s: &mut Session,
    tab: &TabRef,
    gate: &Gate,
) -> PortResult<(Refused, ListedView)> {
    let handle = s.tab(tab).await?;
    // Listed where the page cannot reach when the window has a sandbox (a page's realm could
    // misplace or hide a refused frame's box); a listing that stalls there fails the capture.
    let (listing, sandboxed) = match s.sandbox_for(&handle, SANDBOX_WAIT).await? {
        Some(bidi) => {
            let value = apply_in_sandbox(
                bidi,
                &handle,
                FRAME_BOXES_BODY,
                &[],
                Library::Installed,
                true,
                TOP_LISTING_WAIT,
            )
            .await?;
            (listing_of(value)?, true)
        }
        None => (list(s).await?, false),
    };
    let scroll = (listing.scroll_x, listing.scroll_y);
    let listed = ListedView {
        width: listing.width,
        height: listing.height,
        scale: listing.scale,
        scroll_x: listing.scroll_x,
        scroll_y: listing.scroll_y,
    };
    let view = Refused { boxes: Vec::new(), scroll, viewport_width: listing.width };
    if listing.frames.is_empty() {
        return Ok((view, listed));
    }
    // Where the window has a sandbox, a frame of another origin is listed in its own sandbox
    // realm (addressed by browsing context), never in its own realm, where it could claim an
    // admitted URL; one that cannot be listed there is blanked, and once one stalls, every
    // frame still to be read is (one wait, not one per frame).
    let mut stalled = false;
    let mut refused = Vec::new();
    // (frame path, where its viewport is placed in the top viewport, its frames, depth, the
    // listed document's browsing context when it was listed over BiDi)
    let top_context = Some(handle.clone());
    let mut pending = vec![(Vec::<String>::new(), Placement::TOP, listing.frames, 0, top_context)];
    while let Some((path, at, frames, depth, context)) = pending.pop() {
        for frame in frames {
            let (x, y) = at.point(frame.x, frame.y);
            let rect =
                CssRect { x: x + scroll.0, y: y + scroll.1, width: at.sx * frame.w, height: at.sy * frame.h };
            match (&frame.url, frame.e.as_ref().and_then(element_id)) {
                (Some(url), _) => {
                    if admit(gate, url).is_err() {
                        refused.push(rect);
                    }
                }
                (None, Some(id)) if depth < MAX_CROSS_DEPTH => {
                    let mut inner = path.clone();
                    inner.push(id.clone());
                    let entered = match (sandboxed, &context) {
                        (false, _) => {
                            enter_and_list(s, tab, &inner).await.map(|(url, list)| (url, list, None))
                        }
                        (true, Some(parent)) if !stalled => {
                            match s.sandbox_for(&handle, SANDBOX_WAIT).await {
                                Ok(Some(bidi)) => match list_sandboxed(bidi, parent, &id).await {
                                    Ok((url, list, inner_context)) => Some((url, list, Some(inner_context))),
                                    Err(error) => {
                                        stalled |= error.kind() == PortErrorKind::Timeout;
                                        None
                                    }
                                },
                                _ => None,
                            }
                        }
                        (true, _) => None,
                    };
                    match entered {
                        // A frame whose own frames cannot be placed is blanked whole.
                        Some((_, listing, _)) if !frame.placed && !listing.frames.is_empty() => {
                            refused.push(rect);
                        }
                        Some((url, listing, inner_context)) if admit(gate, &url).is_ok() => {
                            let inner_at = at.inner(&frame);
                            pending.push((inner, inner_at, listing.frames, depth + 1, inner_context));
                        }
                        _ => refused.push(rect),
                    }
                }
                // Another origin that cannot be entered from here: blanked.
                (None, _) => refused.push(rect),
            }
        }
    }
    s.tab(tab).await?;
    Ok((Refused { boxes: refused, ..view }, listed))
}

/// Where a listed document's viewport is drawn in the top viewport: point `(x, y)` of it is
/// `(ox + sx * x, oy + sy * y)` there.
#[derive(Debug, Clone, Copy)]
struct Placement {
    ox: f64,
    oy: f64,
    sx: f64,
    sy: f64,
}

impl Placement {
    /// The top document's own viewport.
    const TOP: Placement = Placement { ox: 0.0, oy: 0.0, sx: 1.0, sy: 1.0 };

    /// Point `(x, y)` of the placed viewport, in the top viewport.
    fn point(&self, x: f64, y: f64) -> (f64, f64) {
        (self.ox + self.sx * x, self.oy + self.sy * y)
    }

    /// Where the document of `frame` (listed in this viewport) is drawn.
    fn inner(&self, frame: &RawBox) -> Placement {
        let (ox, oy) = self.point(frame.cx, frame.cy);
        Placement { ox, oy, sx: self.sx * frame.sx, sy: self.sy * frame.sy }
    }
}

/// The frame listing of the current document, in the page's realm.
async fn list(s: &mut Session) -> PortResult<Listing> {
    listing_of(s.execute(&FRAME_BOXES, Vec::new(), Sent::Read).await?)
}

/// A listing's answer, parsed.
fn listing_of(value: Value) -> PortResult<Listing> {
    serde_json::from_value(value)
        .map_err(|_| PortError::new(PortErrorKind::Other, "the frame listing answered an unexpected shape"))
}

/// The browsing context, URL and frame listing of the document in frame element `frame` (a
/// WebDriver element id) of the document in context `parent`, all read in sandbox realms.
async fn list_sandboxed(bidi: &Bidi, parent: &str, frame: &str) -> PortResult<(String, Listing, String)> {
    let context = frame_context(bidi, parent, frame).await?;
    let url = document_url_sandboxed(bidi, &context).await?;
    let listing = listing_of(apply_sandboxed_with_nodes(bidi, &context, FRAME_BOXES_BODY, &[]).await?)?;
    Ok((url, listing, context))
}

/// Enter the frames `path` of `tab` and answer the frame document's URL and frame listing
/// (`None` when that fails: the frame is then treated as refused).
async fn enter_and_list(s: &mut Session, tab: &TabRef, path: &[String]) -> Option<(String, Listing)> {
    s.enter_frames(tab, path).await.ok()?;
    let url = s.execute(&super::authority_url_script(), Vec::new(), Sent::Read).await.ok()?;
    let url = url.as_str()?.to_owned();
    let listing = list(s).await.ok()?;
    Some((url, listing))
}

/// A script a frame walk runs in each admitted frame document, in the two forms the walk may
/// need: composed with the DOM library for the page's realm (classic Execute Script), and its
/// body alone for the document's sandbox realm, where the library is installed
/// ([`sandbox`]). Both read their `arguments` and `return` the answer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FrameScript {
    /// The Execute Script body with the library before it.
    pub(crate) composed: &'static str,
    /// The body over the sandbox's library.
    pub(crate) body: &'static str,
}

/// What a walk through frame documents asks of each admitted frame.
pub(crate) trait FrameVisitor: Send {
    /// The script and arguments to run in the next admitted frame document; `None` ends the
    /// walk (the visitor has what it needs).
    fn next(&mut self) -> Option<(FrameScript, Vec<Value>)>;

    /// The script's answer in that frame.
    fn answer(&mut self, answer: Value);
}

/// How a walk through frame documents went.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Walked {
    /// Frame documents the visitor's script ran in.
    pub(crate) visited: usize,
    /// Frames left out because the gate refused their document (their inner frames are not
    /// counted: they are never entered).
    pub(crate) refused: usize,
    /// Whether frames were left out for the walk's limits.
    pub(crate) truncated: bool,
}

/// One document's answer to `frames_here.js`.
#[derive(Debug, Deserialize)]
struct Here {
    url: String,
    frames: Vec<Value>,
}

/// Walk the visible frames of `tab`'s page (every origin, depth first, in document order),
/// running the visitor's script in each frame document `gate` admits. A frame that vanishes
/// during the walk is skipped. Leaves the driver in `tab`'s top document.
///
/// Over WebDriver BiDi the walk runs in each document's sandbox realm, addressing frames by
/// their browsing context ([`visit_sandboxed`]): no frame switches (a Switch To Frame costs
/// chromedriver 16–40 ms), and a page cannot hide a frame from the listing or lie about a
/// frame's URL. When the top document's listing cannot be made there (the page stalls it),
/// every frame is left out and the walk is cut short. Only in a window without a sandbox (no
/// BiDi, a Chromium popup: [`Session::sandbox_for`]) does the walk switch into each frame
/// through classic WebDriver.
pub(crate) async fn visit_frames(
    s: &mut Session,
    tab: &TabRef,
    gate: &Gate,
    visitor: &mut dyn FrameVisitor,
) -> PortResult<Walked> {
    let handle = s.tab(tab).await?;
    // Where the window has a sandbox, frames are judged there only: a listing that cannot be
    // made there (the page stalls it) leaves every frame out, the walk cut short.
    let cut_short = Walked { truncated: true, ..Walked::default() };
    match s.sandbox_for(&handle, SANDBOX_WAIT).await {
        Ok(Some(bidi)) => {
            return Ok(match here_sandboxed(bidi, &handle).await {
                Ok(top) => visit_sandboxed(bidi, top, gate, visitor).await,
                Err(_) => cut_short,
            });
        }
        Ok(None) => {}
        Err(error) if error.kind() == PortErrorKind::Timeout => return Ok(cut_short),
        Err(error) => return Err(error),
    }
    let top = here(s).await?;
    let mut walked = Walked::default();
    let mut pending: Vec<Vec<String>> = children(&[], &top.frames);
    let mut entered = 0;
    while let Some(path) = pending.pop() {
        if entered >= MAX_WALK_FRAMES {
            walked.truncated = true;
            break;
        }
        entered += 1;
        // The frame may have gone since it was listed: nothing to read there.
        if s.enter_frames(tab, &path).await.is_err() {
            continue;
        }
        let Ok(inside) = here(s).await else { continue };
        if admit(gate, &inside.url).is_err() {
            walked.refused += 1;
            continue;
        }
        let Some((script, args)) = visitor.next() else { break };
        match s.execute(script.composed, args, Sent::Read).await {
            Ok(answer) => visitor.answer(answer),
            Err(e) if matches!(e.kind(), PortErrorKind::TargetStale | PortErrorKind::TabGone) => continue,
            Err(e) => return Err(e),
        }
        walked.visited += 1;
        if path.len() < MAX_CROSS_DEPTH {
            pending.extend(children(&path, &inside.frames));
        } else if !inside.frames.is_empty() {
            walked.truncated = true;
        }
    }
    s.tab(tab).await?;
    Ok(walked)
}

/// [`visit_frames`] in the sandbox realm of each frame document, from the top document's
/// listing `top`. A frame whose listing or script fails (it navigated, was removed) is
/// skipped, as a frame that vanished is; one that gets no answer in time ends the walk,
/// `truncated`.
async fn visit_sandboxed(
    bidi: &Bidi,
    top: SandboxedHere,
    gate: &Gate,
    visitor: &mut dyn FrameVisitor,
) -> Walked {
    let mut walked = Walked::default();
    // (context, depth below the top document), popped in document order.
    let mut pending: Vec<(String, usize)> =
        top.frames.into_iter().rev().map(|context| (context, 1)).collect();
    let mut entered = 0;
    while let Some((context, depth)) = pending.pop() {
        if entered >= MAX_WALK_FRAMES {
            walked.truncated = true;
            break;
        }
        entered += 1;
        // A frame whose document hangs ends the walk (the answer says it is cut short), so a
        // page of hung frames costs one wait, not one per frame.
        let inside = match here_sandboxed(bidi, &context).await {
            Ok(inside) => inside,
            Err(error) if error.kind() == PortErrorKind::Timeout => {
                walked.truncated = true;
                break;
            }
            Err(_) => continue,
        };
        if admit(gate, &inside.url).is_err() {
            walked.refused += 1;
            continue;
        }
        let Some((script, args)) = visitor.next() else { break };
        match apply_sandboxed(bidi, &context, script.body, &args).await {
            Ok(answer) => visitor.answer(answer),
            Err(error) if error.kind() == PortErrorKind::Timeout => {
                walked.truncated = true;
                break;
            }
            Err(_) => continue,
        }
        walked.visited += 1;
        if depth < MAX_CROSS_DEPTH {
            pending.extend(inside.frames.into_iter().rev().map(|inner| (inner, depth + 1)));
        } else if !inside.frames.is_empty() {
            walked.truncated = true;
        }
    }
    walked
}

/// One document's URL and the browsing contexts of its visible frames, listed in its sandbox
/// realm.
#[derive(Debug)]
struct SandboxedHere {
    url: String,
    frames: Vec<String>,
}

/// `frames_here.js` in the sandbox realm: `[JSON of {url}, each listed frame's window]` (BiDi
/// serializes a window as its browsing context id).
fn sandbox_here(library: &str) -> String {
    format!(
        "function () {{\n{library}\nconst here = (function () {{\n{FRAMES_HERE_JS}\n}})();\n\
         return [JSON.stringify({{ url: here.url }}), ...here.frames.map((frame) => frame.contentWindow)];\n}}"
    )
}

/// [`sandbox_here`] over the sandbox's installed library; `[MISSING]` where none is.
static SANDBOX_HERE: LazyLock<String> =
    LazyLock::new(|| sandbox_here(&sandbox::slim(&format!("['{}']", sandbox::MISSING))));
/// [`sandbox_here`] with the whole library, which it installs.
static SANDBOX_HERE_FULL: LazyLock<String> = LazyLock::new(|| sandbox_here(&sandbox::full("")));

/// List the document of browsing context `context` in its sandbox realm.
async fn here_sandboxed(bidi: &Bidi, context: &str) -> PortResult<SandboxedHere> {
    let shape =
        || PortError::new(PortErrorKind::Other, "a sandboxed frame listing answered an unexpected shape");
    let call = |function: &str| crate::bidi::sandboxed_call(context, function);
    let mut answer = bidi.command_within("script.callFunction", call(&SANDBOX_HERE), SANDBOX_WAIT).await?;
    if answer["result"]["value"][0]["value"].as_str() == Some(sandbox::MISSING) {
        // A document from before the library's preload: send it once, with the listing.
        answer = bidi.command_within("script.callFunction", call(&SANDBOX_HERE_FULL), SANDBOX_WAIT).await?;
    }
    if answer["type"] != "success" {
        return Err(PortError::new(PortErrorKind::Other, "a sandboxed frame listing failed in the page"));
    }
    let parts = answer["result"]["value"].as_array().ok_or_else(shape)?;
    let (first, windows) = parts.split_first().ok_or_else(shape)?;
    #[derive(Deserialize)]
    struct Url {
        url: String,
    }
    let listed: Url =
        serde_json::from_str(first["value"].as_str().ok_or_else(shape)?).map_err(|_| shape())?;
    let frames =
        windows.iter().filter_map(|window| window["value"]["context"].as_str().map(str::to_owned)).collect();
    Ok(SandboxedHere { url: listed.url, frames })
}

/// The frame paths of `frames` (listed inside `path`), reversed so that popping them
/// visits them in document order.
fn children(path: &[String], frames: &[Value]) -> Vec<Vec<String>> {
    frames
        .iter()
        .rev()
        .filter_map(element_id)
        .map(|id| {
            let mut inner = path.to_vec();
            inner.push(id);
            inner
        })
        .collect()
}

/// The current document's URL and frames.
async fn here(s: &mut Session) -> PortResult<Here> {
    let value = s.execute(&FRAMES_HERE, Vec::new(), Sent::Read).await?;
    serde_json::from_value(value)
        .map_err(|_| PortError::new(PortErrorKind::Other, "the frame listing answered an unexpected shape"))
}

/// Paint `boxes` (document CSS pixels) over a PNG whose top-left pixel shows document point
/// `origin` at `css_per_pixel`. Answers the PNG unchanged when no box reaches it.
pub(crate) fn blank(
    png: Vec<u8>,
    origin: (f64, f64),
    css_per_pixel: f64,
    boxes: &[CssRect],
) -> PortResult<Vec<u8>> {
    if boxes.is_empty() || !(css_per_pixel.is_finite() && css_per_pixel > 0.0) {
        return Ok(png);
    }
    let bad = || PortError::new(PortErrorKind::Other, "a captured image could not be re-encoded");
    let mut image =
        image::load_from_memory_with_format(&png, image::ImageFormat::Png).map_err(|_| bad())?.to_rgba8();
    let (width, height) = image.dimensions();
    let mut painted = false;
    for rect in boxes {
        let to_px = |css: f64, from: f64| ((css - from) / css_per_pixel).max(0.0);
        let left = to_px(rect.x, origin.0).floor().min(f64::from(width)) as u32;
        let top = to_px(rect.y, origin.1).floor().min(f64::from(height)) as u32;
        let right = to_px(rect.x + rect.width, origin.0).ceil().min(f64::from(width)) as u32;
        let bottom = to_px(rect.y + rect.height, origin.1).ceil().min(f64::from(height)) as u32;
        for y in top..bottom {
            for x in left..right {
                image.put_pixel(x, y, BLANK);
            }
        }
        painted |= right > left && bottom > top;
    }
    if !painted {
        return Ok(png);
    }
    encode(&image).map_err(|_| bad())
}

fn encode(image: &RgbaImage) -> image::ImageResult<Vec<u8>> {
    let mut out = Cursor::new(Vec::new());
    image::codecs::png::PngEncoder::new(&mut out).write_image(
        image.as_raw(),
        image.width(),
        image.height(),
        image::ExtendedColorType::Rgba8,
    )?;
    Ok(out.into_inner())
}

/// The element id of a WebDriver element reference.
fn element_id(value: &Value) -> Option<String> {
    value.get(ELEMENT_KEY)?.as_str().filter(|id| !id.is_empty()).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let image = RgbaImage::from_pixel(width, height, Rgba([255, 0, 0, 255]));
        encode(&image).expect("encodes")
    }

    #[test]
    fn blanking_paints_the_boxes_where_they_show() {
        let boxes = [CssRect { x: 110.0, y: 210.0, width: 20.0, height: 10.0 }];
        // The image shows document (100, 200) onward at 2 image pixels per CSS pixel.
        let out = blank(png(100, 100), (100.0, 200.0), 0.5, &boxes).expect("blanked");
        let image = image::load_from_memory(&out).expect("png").to_rgba8();
        assert_eq!(*image.get_pixel(25, 25), BLANK, "inside the box");
        assert_eq!(*image.get_pixel(19, 19), Rgba([255, 0, 0, 255]), "before it");
        assert_eq!(*image.get_pixel(60, 25), Rgba([255, 0, 0, 255]), "after it");
    }

    #[test]
    fn boxes_outside_the_image_change_nothing() {
        let original = png(10, 10);
        let far = [CssRect { x: 500.0, y: 500.0, width: 10.0, height: 10.0 }];
        assert_eq!(blank(original.clone(), (0.0, 0.0), 1.0, &far).expect("same"), original);
        assert_eq!(blank(original.clone(), (0.0, 0.0), 1.0, &[]).expect("same"), original);
    }

    #[test]
    fn viewport_blanking_measures_the_scale_from_the_image() {
        // A 200 CSS px wide viewport captured at 2 image pixels per CSS pixel, scrolled by 50.
        let refused = Refused {
            boxes: vec![CssRect { x: 10.0, y: 60.0, width: 10.0, height: 10.0 }],
            scroll: (0.0, 50.0),
            viewport_width: 200.0,
        };
        let out = refused.blank_viewport(png(400, 100)).expect("blanked");
        let image = image::load_from_memory(&out).expect("png").to_rgba8();
        assert_eq!(*image.get_pixel(25, 25), BLANK);
        assert_eq!(*image.get_pixel(45, 25), Rgba([255, 0, 0, 255]));
        assert_eq!(png_width(b"not a png").map_err(|e| e.kind()), Err(PortErrorKind::Other));
    }

    #[test]
    fn urls_that_do_not_parse_are_refused() {
        let open = Gate::open();
        assert!(admit(&open, "https://example.com/").is_ok());
        assert!(admit(&open, "not a url").is_err());
        let none = Gate::new(|_| false);
        let refused = admit(&none, "https://denied.test/").expect_err("refused");
        assert_eq!(refused.kind(), PortErrorKind::OutsideAuthority);
        assert_eq!(refused.refused_document().map(Url::as_str), Some("https://denied.test/"));
    }
}
