//! Scrolling, answered once the offsets have settled.
//!
//! - `Reveal`: `scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'})` in
//!   the element's document (which scrolls its frames' ancestors too).
//! - `By`: `window.scrollBy` of `fraction` × `innerWidth`/`innerHeight`, instantly.
//! - `Wheel`: a WebDriver wheel action at the viewport point.
//!
//! Before scrolling, `scripts/input/scroll.js` notes the offsets of everything the scroll may
//! move (the windows from the element's document up, and the scrollable composed ancestors of
//! the element concerned, or of the element under the wheel). Firefox scrolls smoothly, so
//! the adapter then reads the offsets every [`SETTLE_STEP`] until two reads agree (after a
//! change, or after [`QUIET_WHEEL`] without one for the wheel, whose smooth scroll starts
//! late), for at most [`SETTLE_CAP`]. `scrolled` says whether any noted offset changed;
//! `offset_x`/`offset_y` are the top window's offsets.

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, WheelAction, WheelActions};
use ghostlight_core::port::ScrollDirection;
use ghostlight_core::port::{Gate, PortError, PortErrorKind, PortResult, ScrollInput, ScrollOutcome, TabRef};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{compose, element_arg, perform, pixel, run};
use crate::errors::Sent;
use crate::ops::frames;
use crate::session::Session;

/// The scroll script (`scripts/input/scroll.js`).
static SCROLL: LazyLock<String> = LazyLock::new(|| compose(include_str!("../../scripts/input/scroll.js")));

/// The id of the wheel input source.
const WHEEL_ID: &str = "ghostlight-wheel";
/// Time between two reads of the offsets while waiting for them to settle.
const SETTLE_STEP: Duration = Duration::from_millis(100);
/// The longest wait for offsets to settle.
const SETTLE_CAP: Duration = Duration::from_millis(1000);
/// How long unchanged offsets after an instant scroll count as settled (one step).
const QUIET_INSTANT: Duration = SETTLE_STEP;
/// How long unchanged offsets after wheel input count as "did not scroll" (Firefox's smooth
/// scroll shows no movement for its first 100–200 ms).
const QUIET_WHEEL: Duration = Duration::from_millis(400);
/// The largest viewport fraction one `By` scroll may move.
const MAX_FRACTION: f64 = 100.0;

/// One read of the noted offsets.
#[derive(Debug, Deserialize, PartialEq)]
struct Read {
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
pub(super) async fn scroll(
    s: &mut Session,
    tab: &TabRef,
    input: &ScrollInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ScrollOutcome> {
    s.set_script_timeout(timeout).await?;
    let (first, quiet) = match input {
        ScrollInput::Reveal(element) => {
            let element = s.element(tab, element).await?;
            let args = vec![json!("reveal"), element_arg(&element)?, Value::Null, Value::Null];
            (run::<Read>(s, &SCROLL, args, Sent::Act).await?, QUIET_INSTANT)
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
            s.tab(tab).await?;
            let args = vec![json!("by"), Value::Null, json!({ "x": x, "y": y }), Value::Null];
            (run::<Read>(s, &SCROLL, args, Sent::Act).await?, QUIET_INSTANT)
        }
        ScrollInput::Wheel { at, delta_y } => {
            let (x, y, delta) = (pixel(at.x)?, pixel(at.y)?, pixel(*delta_y)?);
            frames::check_point(s, tab, x as f64, y as f64, None, gate).await?;
            let args = vec![json!("watch"), Value::Null, Value::Null, json!({ "x": x, "y": y })];
            let noted: Read = run(s, &SCROLL, args, Sent::Read).await?;
            if noted.status == "outside" {
                return Err(PortError::new(PortErrorKind::InvalidInput, "the point is outside the viewport"));
            }
            let wheel = WheelActions::new(WHEEL_ID.to_owned()).then(WheelAction::Scroll {
                duration: None,
                x,
                y,
                delta_x: 0,
                delta_y: delta,
            });
            perform(s, wheel).await?;
            (read(s).await?, QUIET_WHEEL)
        }
    };
    let settled = settle(s, first, quiet).await?;
    Ok(ScrollOutcome { scrolled: settled.changed, offset_x: settled.x, offset_y: settled.y })
}

/// Read the noted offsets (the scroll was sent: effect unknown on failure).
async fn read(s: &mut Session) -> PortResult<Read> {
    let args = vec![json!("read"), Value::Null, Value::Null, Value::Null];
    run(s, &SCROLL, args, Sent::Act).await
}

/// Read until two reads agree (see the module docs).
async fn settle(s: &mut Session, first: Read, quiet: Duration) -> PortResult<Read> {
    let started = Instant::now();
    let mut last = first;
    loop {
        tokio::time::sleep(SETTLE_STEP).await;
        let now = read(s).await?;
        let elapsed = started.elapsed();
        let agree = now.offsets == last.offsets;
        if (agree && (now.changed || elapsed >= quiet)) || elapsed >= SETTLE_CAP {
            return Ok(now);
        }
        last = now;
    }
}
