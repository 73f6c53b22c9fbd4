//! `browser_scroll`: reveal a target, step the page in a direction, or turn the wheel at a
//! point of a current view. The offsets reported are the ones the browser observed once
//! scrolling settled.
//!
//! Revealing a target is repeat-safe (it ends in the same place); relative scrolls are not
//! (each one moves further).

use std::time::Duration;

use async_trait::async_trait;

use super::facts;
use crate::envelope::Effect;
use crate::language::count;
use crate::port::{
    BrowserPort, ExpectedDocument, InDocument, PageState, PortResult, ScrollInput, ScrollOutcome, TabCall,
};
use crate::tools::common::TargetRef;
use crate::tools::common::selects;
use crate::tools::scroll::{ScrollAction, ScrollAmount, ScrollRequest, WheelDirection};
use crate::vocab::ScrollDirection;

use crate::operation::outcome::Outcome;
use crate::operation::run::{Lease, PageWork, Run, Step, host_of};

/// Fraction of the viewport a `small` step scrolls.
pub(crate) const SMALL_FRACTION: f64 = 0.25;
/// Fraction of the viewport a `medium` step scrolls (the default).
pub(crate) const MEDIUM_FRACTION: f64 = 0.5;
/// Fraction of the viewport a `large` step scrolls.
pub(crate) const LARGE_FRACTION: f64 = 0.75;
/// Fraction of the viewport a `page` step scrolls (a little overlap keeps context).
pub(crate) const PAGE_FRACTION: f64 = 0.9;
/// CSS pixels one wheel tick scrolls.
pub(crate) const WHEEL_TICK_PX: f64 = 100.0;

pub(crate) async fn run(run: &Run<'_>, request: &ScrollRequest) -> Outcome {
    scroll(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn scroll(run: &Run<'_>, request: &ScrollRequest) -> Step<Outcome> {
    let (lease, page, moved, revealed) = match &request.action {
        // A step needs no target: it runs in the page last seen, with the page state read
        // with it (one round trip).
        ScrollAction::Step { direction, amount } => {
            let step = StepScroll {
                input: ScrollInput::By { direction: *direction, fraction: fraction(*amount) },
                timeout_ms: request.timeout_ms,
            };
            let doing = format!("scroll {} on", direction.as_str());
            let (lease, page, moved) = run.enter_with(request.tab.as_ref(), false, &step, &doing).await?;
            (lease, page, moved, None)
        }
        ScrollAction::Reveal(target) => {
            let (lease, page) = run.enter_selecting(request.tab.as_ref(), selects(target)).await?;
            let host = host_of(&page.state.url);
            let resolved = run.target(&lease, &page, target).await?;
            let phrase = run.phrase(resolved.role, resolved.name.as_deref());
            let doing = format!("scroll {phrase} into view on {host}");
            let input = ScrollInput::Reveal(resolved.element.clone());
            let moved = dispatch(run, &lease, &input, &doing, request.timeout_ms).await?;
            (lease, page, moved, Some(phrase))
        }
        ScrollAction::Wheel { point, direction, ticks } => {
            let (lease, page) = run.enter(request.tab.as_ref()).await?;
            let host = host_of(&page.state.url);
            let at = run.point(&lease, &page, point).await?;
            let sign = match direction {
                WheelDirection::Up => -1.0,
                WheelDirection::Down => 1.0,
            };
            let delta_y = sign * *ticks as f64 * WHEEL_TICK_PX;
            let input = ScrollInput::Wheel { at, delta_y };
            let doing = format!("turn the wheel on {host}");
            let moved = dispatch(run, &lease, &input, &doing, request.timeout_ms).await?;
            (lease, page, moved, None)
        }
    };
    let host = host_of(&page.state.url);
    let (x, y) = (moved.offset_x.round() as i64, moved.offset_y.round() as i64);
    let summary = match (&request.action, &revealed, moved.scrolled) {
        (_, Some(phrase), true) => format!("Scrolled {phrase} into view on {host} (now at {x}, {y})."),
        (_, Some(phrase), false) => {
            format!("{} was already in view on {host} (at {x}, {y}).", capitalized(phrase))
        }
        (ScrollAction::Wheel { point, direction, ticks }, None, scrolled) => {
            let turned = format!(
                "Turned the wheel {} {} at ({}, {}) of {} on {host}",
                wheel_word(*direction),
                count(usize::try_from(*ticks).unwrap_or(usize::MAX), "tick", "ticks"),
                point.x,
                point.y,
                point.view
            );
            if scrolled {
                format!("{turned} (now at {x}, {y}).")
            } else {
                format!("{turned}; nothing scrolled (still at {x}, {y}).")
            }
        }
        (ScrollAction::Step { direction, .. }, None, true) => {
            format!("Scrolled {} on {host} (now at {x}, {y}).", direction.as_str())
        }
        (ScrollAction::Step { direction, .. }, None, false) => {
            format!("Already at the {} of {host} (at {x}, {y}); nothing scrolled.", edge(*direction))
        }
        (ScrollAction::Reveal(_), None, _) => format!("Scrolled on {host} (now at {x}, {y})."),
    };
    let repeat_safe = matches!(request.action, ScrollAction::Reveal(_));
    let mut outcome = Outcome::applied(summary, repeat_safe)
        .with_readiness(page.state.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::SCROLLED, moved.scrolled)
        .fact(facts::OFFSET_X, x)
        .fact(facts::OFFSET_Y, y)
        .fact(facts::HOST, host);
    if !moved.scrolled {
        outcome = outcome.with_effect(Effect::None);
    }
    match &request.action {
        ScrollAction::Reveal(TargetRef::Handle(handle)) => {
            outcome = outcome.fact(facts::TARGET, handle.as_str())
        }
        ScrollAction::Reveal(TargetRef::Selector(_)) => {}
        ScrollAction::Step { direction, amount } => {
            outcome = outcome.fact(facts::DIRECTION, direction.as_str()).fact(facts::AMOUNT, amount.as_str());
        }
        ScrollAction::Wheel { point, direction, ticks } => {
            outcome = outcome
                .fact(facts::VIEW, point.view.as_str())
                .fact(facts::DIRECTION, wheel_word(*direction))
                .fact(facts::TICKS, *ticks);
        }
    }
    Ok(outcome)
}

/// Send `input` to the leased tab, entered and authorized, within `timeout_ms`.
async fn dispatch(
    run: &Run<'_>,
    lease: &Lease,
    input: &ScrollInput,
    doing: &str,
    timeout_ms: u64,
) -> Step<ScrollOutcome> {
    run.dispatching();
    run.port()
        .scroll(&run.on(&lease.tab, Duration::from_millis(timeout_ms)), input)
        .await
        .map_err(|e| run.fail_on(lease, &e, doing, Some(timeout_ms)))
}

/// A step in a direction: input with no target, made in the page the executor saw last when
/// the tab still shows it ([`Run::enter_with`]).
struct StepScroll {
    /// The step.
    input: ScrollInput,
    /// The call's bound.
    timeout_ms: u64,
}

#[async_trait]
impl PageWork for StepScroll {
    type Answer = ScrollOutcome;

    fn acts(&self) -> bool {
        true
    }

    async fn in_document(
        &self,
        port: &dyn BrowserPort,
        call: &TabCall<'_>,
        expected: &ExpectedDocument,
    ) -> PortResult<InDocument<ScrollOutcome>> {
        port.scroll_in(call, expected, &self.input).await
    }

    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    fn bound_ms(&self) -> Option<u64> {
        Some(self.timeout_ms)
    }

    async fn plainly(
        &self,
        port: &dyn BrowserPort,
        call: &TabCall<'_>,
        _: &PageState,
    ) -> PortResult<ScrollOutcome> {
        port.scroll(call, &self.input).await
    }
}

/// The fraction of the viewport an amount scrolls.
fn fraction(amount: ScrollAmount) -> f64 {
    match amount {
        ScrollAmount::Small => SMALL_FRACTION,
        ScrollAmount::Medium => MEDIUM_FRACTION,
        ScrollAmount::Large => LARGE_FRACTION,
        ScrollAmount::Page => PAGE_FRACTION,
    }
}

/// Where a step in `direction` stops when nothing moves.
fn edge(direction: ScrollDirection) -> &'static str {
    match direction {
        ScrollDirection::Up => "top",
        ScrollDirection::Down => "bottom",
        ScrollDirection::Left => "left edge",
        ScrollDirection::Right => "right edge",
    }
}

fn wheel_word(direction: WheelDirection) -> &'static str {
    match direction {
        WheelDirection::Up => "up",
        WheelDirection::Down => "down",
    }
}

/// `phrase` with its first letter in upper case, to open a sentence.
fn capitalized(phrase: &str) -> String {
    let mut chars = phrase.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
