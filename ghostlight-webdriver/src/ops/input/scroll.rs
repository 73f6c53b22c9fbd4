//! Scrolling, answered once the offsets have settled.
//!
//! - `Reveal`: `scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'})` in
//!   the element's document (which scrolls its frames' ancestors too).
//! - `By`: `window.scrollBy` of `fraction` × `innerWidth`/`innerHeight`, instantly.
//! - `Wheel`: a WebDriver wheel action at the viewport point.
//!
//! Before scrolling, `scripts/input/scroll.js` notes the offsets of everything the scroll may
//! move (the windows from the element's document up, and the scrollable composed ancestors of
//! the element concerned, or of the element under the wheel). An instant step (`By`) is final
//! when the script answers on both engines, and so is Chromium's `Reveal`: that answer is the
//! outcome. Offsets that may still move are read again every
//! [`SETTLE_STEP`](ghostlight_page::input::SETTLE_STEP) until two reads agree (after a change,
//! or after [`QUIET_WHEEL`] without one for the wheel, whose smooth scroll starts late), for at
//! most [`SETTLE_CAP`](ghostlight_page::input::SETTLE_CAP): a step in a window that snaps (the
//! snap may follow, smoothly), Firefox's `Reveal` (it moves a pixel after answering), and every
//! wheel scroll. `scrolled` says whether any noted offset changed; `offset_x`/`offset_y` are
//! the top window's offsets.

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use super::actions::Source;
use ghostlight_core::port::{
    ExpectedDocument, Gate, InDocument, PortError, PortErrorKind, PortResult, ScrollInput, ScrollOutcome,
    TabRef,
};
use serde_json::{Value, json};

use ghostlight_page::input::{QUIET_WHEEL, SETTLE_STEP, ScrollRead, outside, scroll_by};

use super::{compose, compose_in_document, decode, element_arg, perform, pixel, run};
use crate::config::Engine;
use crate::errors::Sent;
use crate::ops::{frames, perception};
use crate::page;
use crate::session::Session;

/// The scroll script (`scripts/input/scroll.js`).
static SCROLL: LazyLock<String> = LazyLock::new(|| compose(ghostlight_page::scripts::input::SCROLL_BODY));
/// The scroll script made only in an expected document (its four arguments, then the
/// expectation).
static SCROLL_IN: LazyLock<String> =
    LazyLock::new(|| compose_in_document(ghostlight_page::scripts::input::SCROLL_BODY, 4));

/// The id of the wheel input source.
const WHEEL_ID: &str = "ghostlight-wheel";
/// How long unchanged offsets after an instant scroll count as settled (one step).
const QUIET_INSTANT: Duration = SETTLE_STEP;

/// How a scroll's first answer becomes its outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settle {
    /// The offsets were final when the script answered.
    Final,
    /// The offsets may still move: read again until they agree, still for at least this long
    /// when they did not change.
    Quiet(Duration),
}

impl Settle {
    /// A step (`By`): final unless its window snaps.
    fn step(first: &ScrollRead) -> Settle {
        if first.step_is_final() { Settle::Final } else { Settle::Quiet(QUIET_INSTANT) }
    }

    /// An element scrolled into view: final on Chromium; Firefox moves it by a pixel after the
    /// script answers.
    fn reveal(engine: Engine) -> Settle {
        match engine {
            Engine::Chromium => Settle::Final,
            Engine::Firefox => Settle::Quiet(QUIET_INSTANT),
        }
    }
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
    let (first, settle) = match input {
        ScrollInput::Reveal(element) => {
            let element = s.element(tab, element).await?;
            let args = vec![json!("reveal"), element_arg(&element)?, Value::Null, Value::Null];
            (run::<ScrollRead>(s, &SCROLL, args, Sent::Act).await?, Settle::reveal(s.engine()))
        }
        ScrollInput::By { direction, fraction } => {
            let (x, y) = scroll_by(*direction, *fraction)?;
            s.tab(tab).await?;
            let args = vec![json!("by"), Value::Null, json!({ "x": x, "y": y }), Value::Null];
            let first: ScrollRead = run(s, &SCROLL, args, Sent::Act).await?;
            let settle = Settle::step(&first);
            (first, settle)
        }
        ScrollInput::Wheel { at, delta_y } => {
            let (x, y, delta) = (pixel(at.x)?, pixel(at.y)?, pixel(*delta_y)?);
            frames::check_point(s, tab, x as f64, y as f64, None, gate).await?;
            let args = vec![json!("watch"), Value::Null, Value::Null, json!({ "x": x, "y": y })];
            let noted: ScrollRead = run(s, &SCROLL, args, Sent::Read).await?;
            if noted.status == "outside" {
                return Err(outside());
            }
            let wheel = Source::wheel(WHEEL_ID).scroll(x, y, delta);
            perform(s, wheel).await?;
            (read(s).await?, Settle::Quiet(QUIET_WHEEL))
        }
    };
    Ok(outcome(&settled(s, first, settle).await?))
}

/// [`scroll`] in the document `expected`. A step (`By`) is one Execute Script that reads the
/// page state and scrolls only while the tab still shows that document
/// ([`compose_in_document`]); when it scrolled, its answer is kept whatever the adapter's own
/// comparison of the identity says (the scroll happened in the page the state names, which
/// the executor authorizes again), so a step never scrolls twice. Other inputs, or an identity
/// this adapter did not make, take two steps: the page state, then [`scroll`].
pub(super) async fn scroll_in(
    s: &mut Session,
    tab: &TabRef,
    expected: &ExpectedDocument,
    input: &ScrollInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<InDocument<ScrollOutcome>> {
    let step = match input {
        ScrollInput::By { direction, fraction } if !expected.look_for_gate => Some((direction, fraction)),
        _ => None,
    };
    let (Some((direction, fraction)), Some(check)) = (step, page::expectation(expected)) else {
        let page = match perception::first_step(s, tab, expected).await? {
            Ok(page) => page,
            Err(elsewhere) => return Ok(elsewhere),
        };
        return Ok(InDocument { answer: Some(scroll(s, tab, input, gate, timeout).await?), page });
    };
    let (x, y) = scroll_by(*direction, *fraction)?;
    s.set_script_timeout(timeout).await?;
    s.tab(tab).await?;
    let args = vec![json!("by"), Value::Null, json!({ "x": x, "y": y }), Value::Null, check];
    let answer = frames::act(s, &SCROLL_IN, args).await?;
    let Value::Object(mut answer) = answer else {
        let error = PortError::new(PortErrorKind::BlockedByDialog, "a dialog opened while the page scrolled");
        return Err(error.effect_unknown());
    };
    let state = answer.remove("state").ok_or_else(|| {
        PortError::new(PortErrorKind::Other, "the scroll answered no page state").effect_unknown()
    })?;
    let page = s.accept_reading(state).await.map_err(PortError::effect_unknown)?.state;
    let Some(first) = answer.remove("answer") else {
        return Ok(InDocument { page, answer: None });
    };
    let first: ScrollRead = decode(first, Sent::Act)?;
    let settle = Settle::step(&first);
    let settled = settled(s, first, settle).await?;
    Ok(InDocument { page, answer: Some(outcome(&settled)) })
}

/// The outcome of a scroll whose offsets settled.
fn outcome(settled: &ScrollRead) -> ScrollOutcome {
    ScrollOutcome { scrolled: settled.changed, offset_x: settled.x, offset_y: settled.y }
}

/// The offsets once they settle: `first` itself when they were final, else read again until
/// they agree.
async fn settled(s: &mut Session, first: ScrollRead, settle: Settle) -> PortResult<ScrollRead> {
    match settle {
        Settle::Final => Ok(first),
        Settle::Quiet(quiet) => settle_reads(s, first, quiet).await,
    }
}

/// Read the noted offsets (the scroll was sent: effect unknown on failure), with the small
/// script that only reads them.
async fn read(s: &mut Session) -> PortResult<ScrollRead> {
    run(s, ghostlight_page::scripts::input::SCROLL_READ_BODY, Vec::new(), Sent::Act).await
}

/// Read until two reads agree (see the module docs).
async fn settle_reads(s: &mut Session, first: ScrollRead, quiet: Duration) -> PortResult<ScrollRead> {
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
