//! Scrolling, answered once the offsets have settled.
//!
//! - `Reveal`: `scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'})` in
//!   the element's document (which scrolls its frames' ancestors too).
//! - `By`: `window.scrollBy` of `fraction` × `innerWidth`/`innerHeight`, instantly.
//! - `Wheel`: a WebDriver wheel action at the viewport point.
//!
//! Before scrolling, `scripts/input/scroll.js` notes the offsets of everything the scroll may
//! move (the windows from the element's document up, and the scrollable composed ancestors of
//! the element concerned, or of the element under the wheel). Chromium's instant scrolls
//! (`Reveal`, `By`) are final when the script answers, so that answer is the outcome. Firefox
//! scrolls smoothly, and every engine's wheel scroll ends later, so the adapter then reads the offsets every [`SETTLE_STEP`](ghostlight_page::input::SETTLE_STEP) until two reads agree (after a
//! change, or after [`QUIET_WHEEL`] without one for the wheel, whose smooth scroll starts
//! late), for at most [`SETTLE_CAP`](ghostlight_page::input::SETTLE_CAP). `scrolled` says whether any noted offset changed;
//! `offset_x`/`offset_y` are the top window's offsets.

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, WheelAction, WheelActions};
use ghostlight_core::port::{Gate, PortResult, ScrollInput, ScrollOutcome, TabRef};
use serde_json::{Value, json};

use ghostlight_page::input::{QUIET_WHEEL, SETTLE_STEP, ScrollRead, outside, scroll_by};

use super::{Release, compose, element_arg, perform, pixel, run};
use crate::config::Engine;
use crate::errors::Sent;
use crate::ops::frames;
use crate::session::Session;

/// The scroll script (`scripts/input/scroll.js`).
static SCROLL: LazyLock<String> = LazyLock::new(|| compose(ghostlight_page::scripts::input::SCROLL_BODY));

/// The id of the wheel input source.
const WHEEL_ID: &str = "ghostlight-wheel";
/// How long unchanged offsets after an instant scroll count as settled (one step).
const QUIET_INSTANT: Duration = SETTLE_STEP;

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
            (run::<ScrollRead>(s, &SCROLL, args, Sent::Act).await?, QUIET_INSTANT)
        }
        ScrollInput::By { direction, fraction } => {
            let (x, y) = scroll_by(*direction, *fraction)?;
            s.tab(tab).await?;
            let args = vec![json!("by"), Value::Null, json!({ "x": x, "y": y }), Value::Null];
            (run::<ScrollRead>(s, &SCROLL, args, Sent::Act).await?, QUIET_INSTANT)
        }
        ScrollInput::Wheel { at, delta_y } => {
            let (x, y, delta) = (pixel(at.x)?, pixel(at.y)?, pixel(*delta_y)?);
            frames::check_point(s, tab, x as f64, y as f64, None, gate).await?;
            let args = vec![json!("watch"), Value::Null, Value::Null, json!({ "x": x, "y": y })];
            let noted: ScrollRead = run(s, &SCROLL, args, Sent::Read).await?;
            if noted.status == "outside" {
                return Err(outside());
            }
            let wheel = WheelActions::new(WHEEL_ID.to_owned()).then(WheelAction::Scroll {
                duration: None,
                x,
                y,
                delta_x: 0,
                delta_y: delta,
            });
            perform(s, wheel, Release::OnFailure).await?;
            (read(s).await?, QUIET_WHEEL)
        }
    };
    let settled = if s.engine() == Engine::Chromium && quiet == QUIET_INSTANT {
        first
    } else {
        settle(s, first, quiet).await?
    };
    Ok(ScrollOutcome { scrolled: settled.changed, offset_x: settled.x, offset_y: settled.y })
}

/// Read the noted offsets (the scroll was sent: effect unknown on failure).
async fn read(s: &mut Session) -> PortResult<ScrollRead> {
    let args = vec![json!("read"), Value::Null, Value::Null, Value::Null];
    run(s, &SCROLL, args, Sent::Act).await
}

/// Read until two reads agree (see the module docs).
async fn settle(s: &mut Session, first: ScrollRead, quiet: Duration) -> PortResult<ScrollRead> {
    let started = Instant::now();
    let mut last = first;
    loop {
        tokio::time::sleep(SETTLE_STEP).await;
        let now = read(s).await?;
        let elapsed = started.elapsed();
        if now.settled(&last, elapsed, quiet) {
            return Ok(now);
        }
        last = now;
    }
}
