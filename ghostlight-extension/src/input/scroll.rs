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
//! A step is final when its script answers, unless its window snaps (CSS `scroll-snap-type`:
//! the snap may follow). Otherwise the offsets are read every [`SETTLE_STEP`] until two reads
//! agree (and moved, or [`QUIET_WHEEL`] passed without movement for the wheel, whose smooth
//! scroll starts late), for at most [`SETTLE_CAP`](ghostlight_page::input::SETTLE_CAP)
//! ([`ScrollRead::settled`]).

use std::time::Duration;

use ghostlight_core::port::{
    Gate, Point, PointerTarget, PortError, PortResult, ScrollInput, ScrollOutcome, TabRef,
};
use ghostlight_page::input::{QUIET_WHEEL, SETTLE_STEP, ScrollRead, outside, scroll_by};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::{Place, SCROLL, ScriptArg, finite, run_input, trusted_input};
use crate::browser::{ExtensionBrowser, millis};
use crate::protocol::Op;

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
            let (x, y) = scroll_by(*direction, *fraction)?;
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
                return Err(outside());
            }
            let op = Op::Wheel { tab: id, x, y, delta_y, timeout_ms: millis(timeout) };
            b.call::<Value>(op, crate::browser::waited(timeout)).await?;
            (Place::Top, read(b, id, Place::Top, timeout).await?, QUIET_WHEEL)
        }
    };
    let step = matches!(input, ScrollInput::By { .. });
    let settled = if step && first.step_is_final() {
        first
    } else {
        settle(b, id, place, first, quiet, timeout).await?
    };
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
) -> PortResult<ScrollRead> {
    let args = vec![ScriptArg::Json(json!(mode)), element, ScriptArg::Json(by), ScriptArg::Json(point)];
    run_input(b, tab, place, SCROLL, args, timeout).await
}

/// Read the offsets noted at `place` (the scroll was sent: effect unknown on failure).
async fn read(b: &ExtensionBrowser, tab: i64, place: Place, timeout: Duration) -> PortResult<ScrollRead> {
    script(b, tab, place, "read", ScriptArg::Json(Value::Null), Value::Null, Value::Null, timeout)
        .await
        .map_err(PortError::effect_unknown)
}

/// Read until two reads agree (see the module docs).
async fn settle(
    b: &ExtensionBrowser,
    tab: i64,
    place: Place,
    first: ScrollRead,
    quiet: Duration,
    timeout: Duration,
) -> PortResult<ScrollRead> {
    let started = Instant::now();
    let mut last = first;
    loop {
        tokio::time::sleep(SETTLE_STEP).await;
        let now = read(b, tab, place, timeout).await?;
        if now.settled(&last, started.elapsed(), quiet.max(SETTLE_STEP)) {
            return Ok(now);
        }
        last = now;
    }
}
