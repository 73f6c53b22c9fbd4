//! Pointer, wheel and key input through the extension (`click`, `hover`, `drag`, `scroll`,
//! `type_text`, `press_keys`), with the semantics of the WebDriver adapter's input.
//!
//! - **Trusted input, Chromium only.** The extension dispatches DevTools `Input.*` events
//!   through `chrome.debugger` (the page sees `isTrusted: true`). Firefox gives extensions no
//!   trusted input; events a content script makes are untrusted (a page can tell, and many
//!   frameworks ignore them), so pointer, wheel and key input answer
//!   [`PortErrorKind::Unsupported`] there, naming the engine ([`trusted_input`]). Scrolling
//!   by a fraction of the viewport is a script scroll on both engines (as with WebDriver).
//! - **One DOM semantics.** Hit tests, focus checks, the key guard and scroll offsets are the
//!   WebDriver adapter's own page scripts (`ghostlight-webdriver/src/scripts/`: `dom.js`,
//!   `input/lib.js` and one body each), composed here and run in the page's main world by
//!   the extension's `page_script` (DevTools `Runtime.evaluate` on Chromium, without a user
//!   gesture). Receipts therefore name an element exactly as perception does, and never
//!   from an editable value.
//! - **Element targets** decide where a call's scripts run ([`Place`], [`run_input`]): for an
//!   element of the top document, in the page's main world, the isolated world (where element
//!   references live) handing the element over with a one-time mark
//!   ([`element_expression`]); for an element inside a frame (of any origin), the same
//!   scripts, packaged in `page/dom.js`, in that frame document's isolated world, where the
//!   element is looked up in its registry. Pointer input at a frame's element is then aimed
//!   at the top viewport point it shows at, checked frame by frame ([`pointer`]).
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
    ElementRef, ElementSummary, Gate, PageState, PortError, PortErrorKind, PortResult, TARGET_NAME_CHARS,
};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use url::Url;

use crate::browser::{ExtensionBrowser, OP_WAIT, millis, waited};
use crate::convert::page_state;
use crate::perception::page_call;
use crate::protocol::{Op, PageFn, WireActed, WireFrameDoc, WirePage, WireScript};
use crate::refs::Element;

pub(crate) use fill::fill;
pub(crate) use keyboard::{press_keys, type_text};
pub(crate) use pointer::{click, drag, hover};
pub(crate) use scroll::scroll;
pub(crate) use upload::upload;

/// The DOM semantics every input script starts with (the WebDriver adapter's, shared by path).
const DOM_JS: &str = include_str!("../../page-scripts/dom.js");
/// The input helpers (composed-tree walks, deep hit testing, the key guard).
const LIB_JS: &str = include_str!("../../page-scripts/input/lib.js");

/// The longest name a receipt carries from the page (core bounds it again).
const NAME_CAP: usize = 160;

/// The attribute an element is handed over in (see [`element_expression`]).
const HANDOVER_ATTRIBUTE: &str = "data-ghostlight-handover";

/// One of the WebDriver adapter's input scripts (`scripts/input/`): its body, run in the top
/// document's main world, and its name in the page API's `input`, for frame documents (the
/// same body, packaged in `page/dom.js`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Script {
    name: &'static str,
    body: &'static str,
}

/// The hit test (`target.js`).
pub(crate) const TARGET: Script =
    Script { name: "target", body: include_str!("../../page-scripts/input/target.js") };
/// Focus and the key guard's arming (`focus.js`).
pub(crate) const FOCUS: Script =
    Script { name: "focus", body: include_str!("../../page-scripts/input/focus.js") };
/// The key guard's disarm and counts (`key_guard.js`).
pub(crate) const KEY_GUARD: Script =
    Script { name: "keyGuard", body: include_str!("../../page-scripts/input/key_guard.js") };
/// Form fill (`fill.js`).
pub(crate) const FILL: Script =
    Script { name: "fill", body: include_str!("../../page-scripts/input/fill.js") };
/// Scrolling and offsets (`scroll.js`).
pub(crate) const SCROLL: Script =
    Script { name: "scroll", body: include_str!("../../page-scripts/input/scroll.js") };

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

/// Run `script` with `args` at `place`: its answer, and the page state before any input of
/// this call. Element arguments must live at `place`.
pub(crate) async fn run_input<T: DeserializeOwned>(
    b: &ExtensionBrowser,
    tab: i64,
    place: Place,
    script: Script,
    args: Vec<ScriptArg>,
    timeout: Duration,
) -> PortResult<(T, PageState)> {
    match place {
        Place::Top => {
            let mut composed = Vec::with_capacity(args.len());
            for arg in args {
                composed.push(match arg {
                    ScriptArg::Json(value) => Arg::Json(value),
                    ScriptArg::Element(element) => {
                        Arg::Expression(element_expression(b, tab, &element).await?)
                    }
                    ScriptArg::Elements(elements) => {
                        let mut each = Vec::with_capacity(elements.len());
                        for element in &elements {
                            each.push(element_expression(b, tab, element).await?);
                        }
                        Arg::Expression(format!("[{}]", each.join(", ")))
                    }
                });
            }
            page_script(b, tab, script.body, &composed, timeout).await
        }
        Place::Frame(frame) => {
            let here = |element: &ElementRef| -> PortResult<Value> {
                let parsed = Element::parse(element, tab)?;
                if parsed.frame != frame {
                    return Err(PortError::new(
                        PortErrorKind::InvalidInput,
                        "the element lives in another document",
                    ));
                }
                Ok(json!({ "glRef": parsed.page_ref() }))
            };
            let mut values = Vec::with_capacity(args.len());
            for arg in args {
                values.push(match arg {
                    ScriptArg::Json(value) => value,
                    ScriptArg::Element(element) => here(&element)?,
                    ScriptArg::Elements(elements) => {
                        Value::Array(elements.iter().map(here).collect::<PortResult<_>>()?)
                    }
                });
            }
            let before = page_state(b.call::<WirePage>(Op::Page { tab }, OP_WAIT).await?)?;
            let value =
                page_call(b, tab, frame, PageFn::Input, vec![json!(script.name), Value::Array(values)])
                    .await?;
            Ok((value, before))
        }
    }
}

/// An expression that evaluates, in the tab's top document's main world, to the element
/// `element` names. Element references live in the extension's isolated world (perception's
/// registry, out of the page's reach), which the main world's input scripts cannot read: the
/// isolated world marks the element with a one-time random token in [`HANDOVER_ATTRIBUTE`],
/// and the expression finds it (through open shadow roots) and removes the mark at once.
/// A stale reference answers [`PortErrorKind::TargetStale`], a malformed one or one of another
/// tab [`PortErrorKind::InvalidInput`]; an element inside a frame is refused (its scripts run
/// in its frame: [`Place::Frame`]).
async fn element_expression(b: &ExtensionBrowser, tab: i64, element: &ElementRef) -> PortResult<String> {
    let parsed = Element::parse(element, tab)?;
    if parsed.frame != 0 {
        return Err(PortError::new(PortErrorKind::InvalidInput, "the element lives in a frame document"));
    }
    let token = random_token();
    let _: Value =
        page_call(b, tab, 0, PageFn::HandOver, vec![parsed.page_ref(), Value::from(token.clone())]).await?;
    // Self-contained: arguments are evaluated outside the composed script's scope.
    let take = TAKE_HANDOVER_JS.replace("HANDOVER", HANDOVER_ATTRIBUTE);
    Ok(format!("({take})({})", Value::from(token)))
}

/// A fresh random token, 32 hex digits (std's per-instance random hash keys, and a counter):
/// hand-over marks and the keys of held parts.
fn random_token() -> String {
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

/// The main world's half of the hand-over (a function expression): the element marked with `token` (searching open
/// shadow roots too), its mark removed; throws when it is gone.
const TAKE_HANDOVER_JS: &str = r#"function (token) {
  const selector = '[HANDOVER="' + token + '"]';
  const roots = [document];
  while (roots.length > 0) {
    const root = roots.pop();
    const found = root.querySelector(selector);
    if (found) {
      found.removeAttribute('HANDOVER');
      return found;
    }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
  }
  throw new Error('ghostlight: the element is gone');
}"#;

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

/// Run an input script: its answer, and the page (before any input of this call).
async fn page_script<T: DeserializeOwned>(
    b: &ExtensionBrowser,
    tab: i64,
    body: &str,
    args: &[Arg],
    timeout: Duration,
) -> PortResult<(T, PageState)> {
    run_script(b, tab, body, args, None, timeout).await
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
    let acted: WireActed = b.call(op, waited(timeout)).await?;
    match acted.page {
        Some(page) if acted.dialog.is_none() => page_state(page).map_err(PortError::effect_unknown),
        _ => Ok(before),
    }
}

/// A role and name as the input scripts answer them.
#[derive(Debug, Deserialize)]
struct RawSummary {
    role: String,
    name: Option<String>,
}

impl From<RawSummary> for ElementSummary {
    fn from(raw: RawSummary) -> Self {
        ElementSummary { role: raw.role, name: raw.name.filter(|name| !name.is_empty()) }
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

/// A finite coordinate or delta, in range.
fn finite(value: f64) -> PortResult<f64> {
    if !value.is_finite() || value.abs() > MAX_COORDINATE {
        return Err(PortError::new(PortErrorKind::InvalidInput, "a coordinate is not a usable number"));
    }
    Ok(value.floor())
}

/// The largest coordinate or delta accepted, in CSS pixels.
const MAX_COORDINATE: f64 = 1_000_000.0;

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
    fn handover_tokens_differ_and_are_plain() {
        let (a, b) = (random_token(), random_token());
        assert_ne!(a, b);
        assert!(a.len() == 32 && a.chars().all(|c| c.is_ascii_hexdigit()));
        let take = TAKE_HANDOVER_JS.replace("HANDOVER", HANDOVER_ATTRIBUTE);
        assert!(take.contains("[data-ghostlight-handover=\"") && !take.contains("HANDOVER"));
    }

    #[test]
    fn coordinates_are_floored_and_bounded() {
        assert_eq!(finite(10.7).ok(), Some(10.0));
        assert!(finite(f64::NAN).is_err());
        assert!(finite(1e12).is_err());
    }
}
