//! Click, hover and drag at viewport points (trusted DevTools mouse events, Chromium).
//!
//! A point is hit tested first (`scripts/input/target.js` of the WebDriver adapter: the
//! topmost element there, through open shadow roots and same-origin frames): a point outside
//! the viewport answers `InvalidInput`, a hit in a frame the gate refuses
//! `OutsideAuthority`, and the receipt names the element there (or its nearest meaningful
//! ancestor). A click is one move then `count` press/release pairs (`clickCount` 1, 2, 3:
//! the page sees `dblclick` and `detail`). A drag is a press, a small lift, ten moves onto
//! the destination and a release; a drag that starts an HTML5 drag (`draggable`) is finished
//! with DevTools drag events, since a headless browser has no system drag loop.

use std::time::Duration;

use ghostlight_core::port::{
    ActionReceipt, ClickInput, ElementRef, ElementSummary, Gate, HoverInput, Modifier, MouseButton,
    PageState, Point, PointerTarget, PortError, PortErrorKind, PortResult, TabRef,
};
use ghostlight_page::bounds::NAME_MAX_CHARS;
use ghostlight_page::input::{HitTest, RawSummary, click_count};
use serde::Deserialize;
use serde_json::{Value, json};
use url::Url;

use super::keyboard::held;
use super::{Place, ScriptArg, TARGET, act, admit, finite, run_input_on_page, trusted_input};
use crate::browser::{ExtensionBrowser, millis};
use crate::perception::{FrameDocs, admitted, frame_gone, frame_offset, page_call};
use crate::protocol::{Op, PageFn, WireButton, WirePoint};

/// The hit test's answer.
#[derive(Debug, Deserialize)]
struct Probe {
    #[serde(flatten)]
    hit: HitTest,
    /// The URLs of the same-origin frame documents the hit entered.
    #[serde(default)]
    frames: Vec<String>,
    /// The frame of another origin the hit stopped at, if any.
    #[serde(default)]
    cross: Option<Value>,
}

/// A point, checked: where it is and what is there.
struct Located {
    point: WirePoint,
    summary: Option<ElementSummary>,
    before: PageState,
}

/// Click.
pub(crate) async fn click(
    b: &ExtensionBrowser,
    tab: &TabRef,
    input: &ClickInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    click_count(input.count)?;
    pointer(
        b,
        tab,
        &input.at,
        Press { button: input.button, count: input.count, modifiers: &input.modifiers },
        gate,
        timeout,
    )
    .await
}

/// Move the pointer over a point.
pub(crate) async fn hover(
    b: &ExtensionBrowser,
    tab: &TabRef,
    input: &HoverInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    let press = Press { button: MouseButton::Primary, count: 0, modifiers: &input.modifiers };
    pointer(b, tab, &input.at, press, gate, timeout).await
}

/// What the pointer does once it is there: `count` clicks of `button` (0: a hover), with
/// `modifiers` held.
struct Press<'a> {
    button: MouseButton,
    count: u8,
    modifiers: &'a [Modifier],
}

/// A move to `at` and the press.
async fn pointer(
    b: &ExtensionBrowser,
    tab: &TabRef,
    at: &PointerTarget,
    press: Press<'_>,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    trusted_input(b, "pointer input")?;
    let id = b.tab_id(tab)?;
    let located = locate(b, id, at, true, gate, timeout).await?;
    let WirePoint { x, y } = located.point;
    let (_, modifiers) = held(press.modifiers);
    let op = Op::Mouse {
        tab: id,
        x,
        y,
        button: wire_button(press.button),
        count: press.count,
        modifiers,
        timeout_ms: millis(timeout),
    };
    let page = act(b, op, located.before, timeout).await?;
    Ok(ActionReceipt { element: located.summary, page, keys_withheld: 0 })
}

/// Drag from one point to another.
pub(crate) async fn drag(
    b: &ExtensionBrowser,
    tab: &TabRef,
    from: &PointerTarget,
    to: &PointerTarget,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    trusted_input(b, "pointer input")?;
    let id = b.tab_id(tab)?;
    let source = locate(b, id, from, true, gate, timeout).await?;
    let target = locate(b, id, to, false, gate, timeout).await?;
    let op = Op::Drag { tab: id, from: source.point, to: target.point, timeout_ms: millis(timeout) };
    let page = act(b, op, source.before, timeout).await?;
    Ok(ActionReceipt { element: source.summary, page, keys_withheld: 0 })
}

/// Hit test a pointer target. A point is used as given (floored); an element is scrolled to
/// the centre of the view when `scroll`, and its in-view centre is the point, refused when
/// another element covers it. An element inside a frame: [`locate_in_frame`].
async fn locate(
    b: &ExtensionBrowser,
    tab: i64,
    at: &PointerTarget,
    scroll: bool,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<Located> {
    let options = json!({ "scroll": scroll, "check": scroll, "state": false, "cap": NAME_MAX_CHARS });
    let (args, given) = match at {
        PointerTarget::Element(element) => {
            if let Place::Frame(frame) = Place::of(tab, element)? {
                return locate_in_frame(b, tab, frame, element, options, gate, timeout).await;
            }
            let args = vec![
                ScriptArg::Element(element.clone()),
                ScriptArg::Json(Value::Null),
                ScriptArg::Json(options),
            ];
            (args, None)
        }
        PointerTarget::Point(Point { x, y }) => {
            let point = WirePoint { x: finite(*x)?, y: finite(*y)? };
            let at = ScriptArg::Json(json!({ "x": point.x, "y": point.y }));
            (vec![ScriptArg::Json(Value::Null), at, ScriptArg::Json(options)], Some(point))
        }
    };
    let (probe, before): (Probe, PageState) =
        run_input_on_page(b, tab, Place::Top, TARGET, args, timeout).await?;
    let (found, summary, frames, cross) = probe.found()?;
    let point = match (given, found) {
        (Some(point), _) => point,
        (None, Some((x, y))) => WirePoint { x: finite(x)?, y: finite(y)? },
        _ => return Err(PortError::new(PortErrorKind::Other, "the hit test answered no point")),
    };
    admit(b, tab, &frames, cross, gate).await?;
    Ok(Located { point, summary, before })
}

/// Hit test an element inside frame document `frame`: its own document's hit test (run in
/// that frame, `options` as for the top) gives its in-view centre there; the point is carried
/// up frame by frame to the top viewport, each parent document confirming that input at that
/// point goes into the frame on the way (something of the parent's covering the frame answers
/// obstructed). The element's document and every document on its way must be admitted by
/// `gate`, as where the input lands.
async fn locate_in_frame(
    b: &ExtensionBrowser,
    tab: i64,
    frame: i64,
    element: &ElementRef,
    options: Value,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<Located> {
    let args =
        vec![ScriptArg::Element(element.clone()), ScriptArg::Json(Value::Null), ScriptArg::Json(options)];
    let (probe, before): (Probe, PageState) =
        run_input_on_page(b, tab, Place::Frame(frame), TARGET, args, timeout).await?;
    let (found, summary, _, _) = probe.found()?;
    let (mut x, mut y) =
        found.ok_or_else(|| PortError::new(PortErrorKind::Other, "the hit test answered no point"))?;
    let mut docs = FrameDocs::default();
    let path = docs.path_of(b, tab, frame).await?;
    for depth in (1..=path.len()).rev() {
        let doc = docs.at(b, tab, &path[..depth]).await?.ok_or_else(frame_gone)?;
        if !admitted(gate, &doc.url) {
            return Err(Url::parse(&doc.url).map_or_else(|_| frame_gone(), PortError::outside_authority));
        }
        let parent = match depth {
            1 => 0,
            _ => docs.at(b, tab, &path[..depth - 1]).await?.map(|doc| doc.frame).ok_or_else(frame_gone)?,
        };
        let index = path[depth - 1];
        (x, y) = frame_offset(b, tab, parent, index).await?.ok_or_else(frame_gone)?.carry(x, y)?;
        let at: FrameAt =
            page_call(b, tab, parent, PageFn::FrameAt, vec![json!(x), json!(y), json!(index)]).await?;
        if at.outside {
            return Err(PortError::new(PortErrorKind::InvalidInput, "the element is outside the viewport"));
        }
        if !at.ok {
            return Err(PortError::obstructed(at.by.map(Into::into)));
        }
    }
    Ok(Located { point: WirePoint { x: finite(x)?, y: finite(y)? }, summary, before })
}

/// The page API's `frameAt` answer: whether input at a point goes into a frame.
#[derive(Debug, Deserialize)]
struct FrameAt {
    #[serde(default)]
    ok: bool,
    /// No element is at the point (it is outside the viewport).
    #[serde(default)]
    outside: bool,
    /// What is there instead.
    by: Option<RawSummary>,
}

impl Probe {
    /// The hit test's point (when it answers one), the element there, the same-origin frame
    /// documents it entered and whether it stopped at a frame of another origin; its refusals
    /// as errors.
    #[allow(clippy::type_complexity)]
    fn found(mut self) -> PortResult<(Option<(f64, f64)>, Option<ElementSummary>, Vec<String>, bool)> {
        self.hit.accept()?;
        let point = self.hit.point().ok();
        let cross = self.cross.is_some_and(|c| !c.is_null());
        Ok((point, self.hit.summary(), self.frames, cross))
    }
}

/// The wire's button.
fn wire_button(button: MouseButton) -> WireButton {
    match button {
        MouseButton::Primary => WireButton::Primary,
        MouseButton::Middle => WireButton::Middle,
        MouseButton::Secondary => WireButton::Secondary,
    }
}

/// A viewport point, hit tested and checked against `gate` as for a click (wheel input).
pub(super) async fn checked_point(
    b: &ExtensionBrowser,
    tab: i64,
    at: &PointerTarget,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<Point> {
    let located = locate(b, tab, at, false, gate, timeout).await?;
    Ok(Point { x: located.point.x, y: located.point.y })
}
