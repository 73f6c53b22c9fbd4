//! Pointer, wheel and key input through the extension (`click`, `hover`, `drag`, `scroll`,
//! `type_text`, `press_keys`), with the semantics of the WebDriver adapter's input.
//!
//! - **Trusted input, Chromium only.** The extension dispatches DevTools `Input.*` events
//!   through `chrome.debugger` (the page sees `isTrusted: true`). Firefox gives extensions no
//!   trusted input; events a content script makes are untrusted (a page can tell, and many
//!   frameworks ignore them), so pointer, wheel and key input answer
//!   [`PortErrorKind::Unsupported`] there, naming the engine ([`trusted_input`]). Scrolling
//!   by a fraction of the viewport is a script scroll on both engines (as with WebDriver).
//! - **One DOM semantics, out of the page's reach.** Hit tests, focus checks, the key guard,
//!   fills and scroll offsets are the page scripts both adapters run
//!   (`ghostlight-page`'s `scripts/`: `dom.js`, `input/lib.js` and one body each), packaged
//!   in the extension's `page/dom.js` and run in the extension's isolated world of the
//!   document the call's element lives in ([`Place`], [`run_input`]): the top document or a
//!   frame of any origin. Element references are looked up there directly, and a page that
//!   replaces DOM prototypes or `addEventListener` changes nothing these scripts see or do.
//!   Receipts name an element exactly as perception does, and never from an editable value.
//!   Pointer input at an element inside a frame is aimed at the top viewport point it shows
//!   at, checked frame by frame ([`pointer`]).
//! - **Files dropped at a point** still run `drop.js` in the page's main world, composed with
//!   the parts the extension holds; files for a file input are checked and attached where the
//!   input lives, like any element target ([`upload`]).
//! - **Receipts.** The page state before acting comes with the hit test's answer; after
//!   acting the extension answers the page (once a load the input started landed, bounded),
//!   or the dialog the input opened, in which case the receipt carries the page before (a
//!   dialog does not change the document). Input is refused while a dialog is open
//!   ([`PortErrorKind::BlockedByDialog`], nothing sent).

mod fill;
mod keyboard;
mod pointer;
mod scroll;
mod upload;

use std::time::Duration;

use ghostlight_core::port::{
    ElementRef, Gate, PageState, PortError, PortErrorKind, PortResult, TARGET_NAME_CHARS,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use url::Url;

/// A finite coordinate or delta, in range, floored.
use ghostlight_page::input::coordinate as finite;

use crate::browser::{ExtensionBrowser, OP_WAIT, millis, waited};
use crate::convert::page_state;
use crate::protocol::{Op, PageFn, WireActed, WireFrameDoc, WirePage, WireScript};
use crate::refs::Element;

pub(crate) use fill::{compare as control_matches, fill};
pub(crate) use keyboard::{press_keys, type_text};
pub(crate) use pointer::{click, drag, hover};
pub(crate) use scroll::scroll;
pub(crate) use upload::{attach_replay, upload};

/// The DOM semantics every input script starts with, and the input helpers (composed-tree
/// walks, deep hit testing), for the drop script.
use ghostlight_page::scripts::{DOM_JS, input::LIB_JS};

/// One of the shared input scripts (`ghostlight-page`'s `scripts/input/`), by its name in the
/// page API's `input` (`page/dom.js` packages each body as a function; see
/// [`ghostlight_page::bundle`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Script(&'static str);

/// The hit test (`target.js`).
pub(crate) const TARGET: Script = Script("target");
/// Focus and the key guard's arming (`focus.js`).
pub(crate) const FOCUS: Script = Script("focus");
/// The key guard's disarm and counts (`key_guard.js`).
pub(crate) const KEY_GUARD: Script = Script("keyGuard");
/// Form fill (`fill.js`).
pub(crate) const FILL: Script = Script("fill");
/// Scrolling and offsets (`scroll.js`).
pub(crate) const SCROLL: Script = Script("scroll");
/// The file input check (`upload.js`).
pub(crate) const UPLOAD: Script = Script("upload");
/// Files attached to a file input (`attach.js`).
pub(crate) const ATTACH: Script = Script("attach");
/// A replay attached to a file input (`attach_replay.js`).
pub(crate) const ATTACH_REPLAY: Script = Script("attachReplay");

/// Where a call's input scripts run: the document its element targets live in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// The tab's top document, in the page's main world (elements handed over).
    Top,
    /// A frame document (the extension's frame id), in the extension's isolated world.
    Frame(i64),
}

impl Place {
    /// The document `element` of `tab` lives in.
    pub(crate) fn of(tab: i64, element: &ElementRef) -> PortResult<Place> {
        Ok(match Element::parse(element, tab)?.frame {
            0 => Place::Top,
            frame => Place::Frame(frame),
        })
    }
}

/// Run `script` with `args` at `place`, in that document's isolated world (the extension's,
/// where element references live and the page's own scripts cannot reach: no prototype the
/// page replaced is called, no element is handed over through the DOM): its answer. Element
/// arguments must live at `place`.
pub(crate) async fn run_input<T: DeserializeOwned>(
    b: &ExtensionBrowser,
    tab: i64,
    place: Place,
    script: Script,
    args: Vec<ScriptArg>,
    timeout: Duration,
) -> PortResult<T> {
    let frame = match place {
        Place::Top => 0,
        Place::Frame(frame) => frame,
    };
    let here = |element: &ElementRef| -> PortResult<Value> {
        let parsed = Element::parse(element, tab)?;
        if parsed.frame != frame {
            return Err(PortError::new(PortErrorKind::InvalidInput, "the element lives in another document"));
        }
        Ok(json!({ "glRef": parsed.page_ref() }))
    };
    let mut values = Vec::with_capacity(args.len());
    let mut stash = None;
    for arg in args {
        values.push(match arg {
            ScriptArg::Held(key) => {
                stash = Some(key);
                json!(upload::STASH_MARKER)
            }
            ScriptArg::Json(value) => value,
            ScriptArg::Element(element) => here(&element)?,
            ScriptArg::Elements(elements) => {
                Value::Array(elements.iter().map(here).collect::<PortResult<_>>()?)
            }
        });
    }
    let args = vec![json!(script.0), Value::Array(values)];
    let op = Op::PageCall { tab, frame, call: PageFn::Input, args, stash };
    b.call(op, waited(timeout)).await
}

/// [`run_input`] with the page state read just before it: the page before any input of the
/// call, for its receipt.
pub(crate) async fn run_input_on_page<T: DeserializeOwned>(
    b: &ExtensionBrowser,
    tab: i64,
    place: Place,
    script: Script,
    args: Vec<ScriptArg>,
    timeout: Duration,
) -> PortResult<(T, PageState)> {
    let before = page_state(b.call::<WirePage>(Op::Page { tab, gate: false }, OP_WAIT).await?)?;
    Ok((run_input(b, tab, place, script, args, timeout).await?, before))
}

/// A fresh random token, 32 hex digits (std's per-instance random hash keys, and a counter):
/// the keys of held parts.
pub(crate) fn random_token() -> String {
    use std::hash::{BuildHasher as _, Hasher as _};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNT.fetch_add(1, Ordering::Relaxed));
    format!(
        "{:016x}{:016x}",
        hasher.finish(),
        std::collections::hash_map::RandomState::new().build_hasher().finish()
    )
}

/// One argument of a composed input script (top document).
pub(crate) enum Arg {
    /// A JSON value.
    Json(Value),
    /// A JavaScript expression ([`element_expression`], or the parts the extension holds for
    /// an upload).
    Expression(String),
}

/// One argument of an input script run where its elements live ([`run_input`]).
pub(crate) enum ScriptArg {
    /// A JSON value.
    Json(Value),
    /// An element.
    Element(ElementRef),
    /// A list of elements, all of one document.
    Elements(Vec<ElementRef>),
    /// The text the extension holds under this key (JSON, see `upload::stash`), dropped once
    /// used (at most one per call).
    Held(String),
}

/// The source the extension runs for `body` (a WebDriver-style script body reading
/// `arguments`): the DOM semantics and input helpers, then the body, applied to `args`.
fn compose(body: &str, args: &[Arg]) -> String {
    let args: Vec<String> = args
        .iter()
        .map(|arg| match arg {
            Arg::Json(value) => value.to_string(),
            Arg::Expression(source) => format!("({source})"),
        })
        .collect();
    format!(
        "(function () {{\nconst GL_GENERIC_NAME_CHARS = {TARGET_NAME_CHARS};\n\
         const glPageState = () => null;\n{DOM_JS}\n{LIB_JS}\n{body}\n}}).apply(null, [{}])",
        args.join(", ")
    )
}

/// Refuse trusted input on an engine whose extension cannot send it (`what` names it).
pub(crate) fn trusted_input(b: &ExtensionBrowser, what: &str) -> PortResult<()> {
    b.refuse_on_firefox(
        what,
        "Firefox gives extensions no trusted input, and events a page script makes are untrusted",
    )
}

/// Run an input script, the extension splicing the parts held under `stash` in for
/// [`upload::STASH_MARKER`].
async fn run_script<T: DeserializeOwned>(
    b: &ExtensionBrowser,
    tab: i64,
    body: &str,
    args: &[Arg],
    stash: Option<String>,
    timeout: Duration,
) -> PortResult<(T, PageState)> {
    let op = Op::PageScript { tab, source: compose(body, args), stash, timeout_ms: millis(timeout) };
    let answer: WireScript = b.call(op, waited(timeout)).await?;
    let value = serde_json::from_value(answer.value)
        .map_err(|_| PortError::new(PortErrorKind::Other, "an input script answered an unexpected shape"))?;
    Ok((value, page_state(answer.page)?))
}

/// Send trusted input: the page afterwards, or `before` when a dialog the input opened
/// blocks reading it. Failures after sending have an unknown effect.
async fn act(b: &ExtensionBrowser, op: Op, before: PageState, timeout: Duration) -> PortResult<PageState> {
    let acted: WireActed = b.call(op, waited(timeout)).await.map_err(|error| {
        // The tab was there a moment ago (the target was just located in it): the input
        // reached the page, which closed its own tab in answer.
        if error.kind() == PortErrorKind::TabGone { error.effect_unknown() } else { error }
    })?;
    match acted.page {
        Some(page) if acted.dialog.is_none() => page_state(page).map_err(PortError::effect_unknown),
        _ => Ok(before),
    }
}

/// Refuse input whose hit enters a frame `gate` refuses: a same-origin frame document on the
/// way (`frames`), or, when the hit stops at a frame of another origin (`cross`), which the
/// page cannot look into, any frame of the tab the gate refuses.
async fn admit(
    b: &ExtensionBrowser,
    tab: i64,
    frames: &[String],
    cross: bool,
    gate: &Gate,
) -> PortResult<()> {
    let refused =
        |urls: &[String]| urls.iter().filter_map(|u| Url::parse(u).ok()).find(|url| !gate.admits(url));
    if let Some(url) = refused(frames) {
        return Err(PortError::outside_authority(url));
    }
    if cross {
        let docs: Vec<WireFrameDoc> = b.call(Op::PageFrames { tab }, OP_WAIT).await?;
        let urls: Vec<String> = docs.into_iter().filter(|doc| doc.frame != 0).map(|doc| doc.url).collect();
        if let Some(url) = refused(&urls) {
            return Err(PortError::outside_authority(url));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scripts_are_composed_with_the_dom_semantics_and_applied() {
        let source =
            compose("return arguments[0];", &[Arg::Json(json!({"a": 1})), Arg::Expression("x".into())]);
        assert!(source.starts_with("(function () {"));
        let dom = source.find("function glName(el, role, cap)").expect("dom.js's names");
        let lib = source.find("function glDeepHit(doc, x, y)").expect("lib.js's hit test");
        assert!(dom < lib);
        assert!(source.ends_with("}).apply(null, [{\"a\":1}, (x)])"));
    }

    #[test]
    fn tokens_differ_and_are_plain() {
        let (a, b) = (random_token(), random_token());
        assert_ne!(a, b);
        assert!(a.len() == 32 && a.chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn coordinates_are_floored_and_bounded() {
        assert_eq!(finite(10.7).ok(), Some(10.0));
        assert!(finite(f64::NAN).is_err());
        assert!(finite(1e12).is_err());
    }
}
