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
    ActionReceipt, ClickInput, ElementSummary, Gate, MouseButton, PageState, Point, PointerTarget, PortError,
    PortErrorKind, PortResult, TabRef,
};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Arg, NAME_CAP, RawSummary, act, admit, element_expression, finite, page_script, trusted_input};
use crate::browser::{ExtensionBrowser, millis};
use crate::protocol::{Op, WireButton, WirePoint};

/// The hit test.
const TARGET_JS: &str = include_str!("../../page-scripts/input/target.js");

/// The most clicks one click may be (a triple click).
const MAX_CLICKS: u8 = 3;

/// The hit test's answer.
#[derive(Debug, Deserialize)]
struct Probe {
    status: String,
    x: Option<f64>,
    y: Option<f64>,
    summary: Option<RawSummary>,
    /// What covers an element target.
    by: Option<RawSummary>,
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
    if !(1..=MAX_CLICKS).contains(&input.count) {
        return Err(PortError::new(PortErrorKind::InvalidInput, "a click is one to three clicks"));
    }
    pointer(b, tab, &input.at, input.button, input.count, gate, timeout).await
}

/// Move the pointer over a point.
pub(crate) async fn hover(
    b: &ExtensionBrowser,
    tab: &TabRef,
    at: &PointerTarget,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    pointer(b, tab, at, MouseButton::Primary, 0, gate, timeout).await
}

/// A move to `at` and `count` clicks of `button` (0: a hover).
async fn pointer(
    b: &ExtensionBrowser,
    tab: &TabRef,
    at: &PointerTarget,
    button: MouseButton,
    count: u8,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    trusted_input(b, "pointer input")?;
    let id = b.tab_id(tab)?;
    let located = locate(b, id, at, true, gate, timeout).await?;
    let WirePoint { x, y } = located.point;
    let op = Op::Mouse { tab: id, x, y, button: wire_button(button), count, timeout_ms: millis(timeout) };
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

/// Hit test a pointer target. A point is used as given (floored); an element (through
/// [`element_expression`]) is scrolled to the centre of the view when `scroll`, and its
/// in-view centre is the point, refused when another element covers it.
async fn locate(
    b: &ExtensionBrowser,
    tab: i64,
    at: &PointerTarget,
    scroll: bool,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<Located> {
    let options = json!({ "scroll": scroll, "check": scroll, "state": false, "cap": NAME_CAP });
    let (args, given) = match at {
        PointerTarget::Element(element) => {
            let element = Arg::Expression(element_expression(b, tab, element).await?);
            ([element, Arg::Json(Value::Null), Arg::Json(options)], None)
        }
        PointerTarget::Point(Point { x, y }) => {
            let point = WirePoint { x: finite(*x)?, y: finite(*y)? };
            let at = Arg::Json(json!({ "x": point.x, "y": point.y }));
            ([Arg::Json(Value::Null), at, Arg::Json(options)], Some(point))
        }
    };
    let (mut probe, before): (Probe, PageState) = page_script(b, tab, TARGET_JS, &args, timeout).await?;
    match probe.status.as_str() {
        "ok" => {}
        "covered" => return Err(PortError::obstructed(probe.by.take().map(Into::into))),
        "nobox" => {
            return Err(PortError::new(
                PortErrorKind::InvalidInput,
                "the element is not shown (hidden, inert or without a box)",
            ));
        }
        "outside" => {
            return Err(PortError::new(PortErrorKind::InvalidInput, "the point is outside the viewport"));
        }
        _ => return Err(PortError::new(PortErrorKind::Other, "the hit test answered an unknown status")),
    }
    let point = match (given, probe.x, probe.y) {
        (Some(point), _, _) => point,
        (None, Some(x), Some(y)) => WirePoint { x: finite(x)?, y: finite(y)? },
        _ => return Err(PortError::new(PortErrorKind::Other, "the hit test answered no point")),
    };
    admit(b, tab, &probe.frames, probe.cross.is_some_and(|c| !c.is_null()), gate).await?;
    Ok(Located { point, summary: probe.summary.map(Into::into), before })
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
