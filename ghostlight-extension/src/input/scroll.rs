//! Scrolling, answered once the offsets have settled (the WebDriver adapter's
//! `scripts/input/scroll.js` notes and reads the offsets).
//!
//! - `By`: `window.scrollBy` of the fraction of the viewport, instantly: a page script, the
//!   same on every engine (WebDriver does the same).
//! - `Wheel`: a trusted DevTools wheel event at the point (Chromium), the point hit tested
//!   and checked against the gate first as for a click.
//! - `Reveal`: an element target, scrolled where it lives ([`run_input`]; inside a frame, its
//!   frame document's scroll moves its ancestors' too, as `scrollIntoView` does).
//!
//! After scrolling, the offsets are read every [`STEP`] until two reads agree (and moved, or
//! [`QUIET_WHEEL`] passed without movement for the wheel, whose smooth scroll starts late),
//! for at most [`CAP`].

use std::time::Duration;

use ghostlight_core::port::{
    Gate, Point, PointerTarget, PortError, PortErrorKind, PortResult, ScrollDirection, ScrollInput,
    ScrollOutcome, TabRef,
};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::{Place, SCROLL, ScriptArg, finite, run_input, trusted_input};
use crate::browser::{ExtensionBrowser, millis};
use crate::protocol::Op;

/// Time between two reads of the offsets.
const STEP: Duration = Duration::from_millis(100);
/// The longest wait for offsets to settle.
const CAP: Duration = Duration::from_millis(1000);
/// How long unchanged offsets after wheel input count as "did not scroll".
const QUIET_WHEEL: Duration = Duration::from_millis(400);
/// The largest viewport fraction one `By` scroll may move.
const MAX_FRACTION: f64 = 100.0;

/// One read of the noted offsets.
#[derive(Debug, Deserialize, PartialEq)]
struct Offsets {
    status: String,
    #[serde(default)]
    offsets: Vec<f64>,
    #[serde(default)]
    changed: bool,
    #[serde(default)]
    x: f64,
    #[serde(default)]
    y: f64,
}

/// Scroll.
pub(crate) async fn scroll(
    b: &ExtensionBrowser,
    tab: &TabRef,
    input: &ScrollInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ScrollOutcome> {
    let id = b.tab_id(tab)?;
    let (place, first, quiet) = match input {
        ScrollInput::Reveal(element) => {
            let place = Place::of(id, element)?;
            let element = ScriptArg::Element(element.clone());
            let revealed = script(b, id, place, "reveal", element, Value::Null, Value::Null, timeout).await?;
            (place, revealed, Duration::ZERO)
        }
        ScrollInput::By { direction, fraction } => {
            if !fraction.is_finite() || *fraction <= 0.0 || *fraction > MAX_FRACTION {
                return Err(PortError::new(
                    PortErrorKind::InvalidInput,
                    "the scroll fraction is out of range",
                ));
            }
            let (x, y) = match direction {
                ScrollDirection::Up => (0.0, -fraction),
                ScrollDirection::Down => (0.0, *fraction),
                ScrollDirection::Left => (-fraction, 0.0),
                ScrollDirection::Right => (*fraction, 0.0),
            };
            let by = json!({ "x": x, "y": y });
            let null = ScriptArg::Json(Value::Null);
            (
                Place::Top,
                script(b, id, Place::Top, "by", null, by, Value::Null, timeout).await?,
                Duration::ZERO,
            )
        }
        ScrollInput::Wheel { at, delta_y } => {
            trusted_input(b, "wheel input")?;
            let delta_y = finite(*delta_y)?;
            // Hit tested and gated as a click's point is.
            let point =
                super::pointer::checked_point(b, id, &PointerTarget::Point(*at), gate, timeout).await?;
            let Point { x, y } = point;
            let noted = script(
                b,
                id,
                Place::Top,
                "watch",
                ScriptArg::Json(Value::Null),
                Value::Null,
                json!({ "x": x, "y": y }),
                timeout,
            )
            .await?;
            if noted.status == "outside" {
                return Err(PortError::new(PortErrorKind::InvalidInput, "the point is outside the viewport"));
            }
            let op = Op::Wheel { tab: id, x, y, delta_y, timeout_ms: millis(timeout) };
            b.call::<Value>(op, crate::browser::waited(timeout)).await?;
            (Place::Top, read(b, id, Place::Top, timeout).await?, QUIET_WHEEL)
        }
    };
    let settled = settle(b, id, place, first, quiet, timeout).await?;
    Ok(ScrollOutcome { scrolled: settled.changed, offset_x: settled.x, offset_y: settled.y })
}

/// Run the scroll script in `mode` at `place`.
#[allow(clippy::too_many_arguments)]
async fn script(
    b: &ExtensionBrowser,
    tab: i64,
    place: Place,
    mode: &str,
    element: ScriptArg,
    by: Value,
    point: Value,
    timeout: Duration,
) -> PortResult<Offsets> {
    let args = vec![ScriptArg::Json(json!(mode)), element, ScriptArg::Json(by), ScriptArg::Json(point)];
    run_input(b, tab, place, SCROLL, args, timeout).await
}

/// Read the offsets noted at `place` (the scroll was sent: effect unknown on failure).
async fn read(b: &ExtensionBrowser, tab: i64, place: Place, timeout: Duration) -> PortResult<Offsets> {
    script(b, tab, place, "read", ScriptArg::Json(Value::Null), Value::Null, Value::Null, timeout)
        .await
        .map_err(PortError::effect_unknown)
}

/// Read until two reads agree (see the module docs).
async fn settle(
    b: &ExtensionBrowser,
    tab: i64,
    place: Place,
    first: Offsets,
    quiet: Duration,
    timeout: Duration,
) -> PortResult<Offsets> {
    let started = Instant::now();
    let mut last = first;
    loop {
        tokio::time::sleep(STEP).await;
        let now = read(b, tab, place, timeout).await?;
        let waited = started.elapsed();
        if (now.offsets == last.offsets && (now.changed || waited >= quiet.max(STEP))) || waited >= CAP {
            return Ok(now);
        }
        last = now;
    }
}
