//! `browser_hover`: rest the pointer over a current target or a point of a current view.
//!
//! The sentence names what the pointer rests over as the browser's receipt describes it
//! (privacy applied), falling back to what was perceived. Hovering again ends in the same
//! place, so it is repeat-safe; a hover that commits a navigation reports the landing.

use std::time::Duration;

use super::facts;
use crate::language::target_phrase;
use crate::port::{HoverInput, PointerTarget};
use crate::selector::Role;
use crate::tools::common::selects;
use crate::tools::common::{Location, held_clause};
use crate::tools::hover::HoverRequest;

use crate::operation::outcome::Outcome;
use crate::operation::run::{Run, Step, host_of};

pub(crate) async fn run(run: &Run<'_>, request: &HoverRequest) -> Outcome {
    hover(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn hover(run: &Run<'_>, request: &HoverRequest) -> Step<Outcome> {
    let (lease, page) = run
        .enter_selecting(
            request.tab.as_ref(),
            matches!(&request.location, Location::Target(target) if selects(target)),
        )
        .await?;
    let host = host_of(&page.state.url);
    let (at, resolved) = match &request.location {
        Location::Target(target) => {
            let resolved = run.target(&lease, &page, target).await?;
            (PointerTarget::Element(resolved.element.clone()), Some(resolved))
        }
        Location::Point(point) => (PointerTarget::Point(run.point(&lease, &page, point).await?), None),
    };
    let planned = match &resolved {
        Some(target) => run.phrase(target.role, target.name.as_deref()),
        None => "the point".to_owned(),
    };
    let held = held_clause(&request.modifiers);
    let input = HoverInput { at, modifiers: request.modifiers.clone() };
    run.dispatching();
    let receipt = run
        .port()
        .hover(&run.on(&lease.tab, Duration::from_millis(request.timeout_ms)), &input)
        .await
        .map_err(|e| {
            run.fail_on(&lease, &e, &format!("hover over {planned}{held}"), Some(request.timeout_ms))
        })?;
    let hovered = match (&receipt.element, &resolved) {
        (Some(element), _) => {
            Some(target_phrase(Role::narrow(&element.role), element.name.as_deref(), run.preserve_names()))
        }
        (None, Some(target)) => Some(run.phrase(target.role, target.name.as_deref())),
        (None, None) => None,
    };
    let summary = match (&hovered, &request.location) {
        (Some(what), Location::Point(point)) => {
            format!("Hovered over {what} at ({}, {}) of {}{held} on {host}.", point.x, point.y, point.view)
        }
        (Some(what), Location::Target(_)) => format!("Hovered over {what}{held} on {host}."),
        (None, Location::Point(point)) => {
            format!("Hovered at ({}, {}) of {}{held} on {host}.", point.x, point.y, point.view)
        }
        (None, Location::Target(_)) => format!("Hovered{held} on {host}."),
    };
    let landing = run.land(&lease, &receipt.page);
    // Resting the pointer again ends in the same place, unless the hover moved the page.
    let mut outcome = Outcome::applied(summary, landing.is_none())
        .with_readiness(receipt.page.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::HOVERED, true)
        .fact(facts::HOST, host);
    match &request.location {
        Location::Target(_) => {
            if let Some(handle) = resolved.as_ref().and_then(|r| r.handle.as_ref()) {
                outcome = outcome.fact(facts::TARGET, handle.as_str());
            }
        }
        Location::Point(point) => outcome = outcome.fact(facts::VIEW, point.view.as_str()),
    }
    Ok(run.with_landing(outcome, landing, &receipt.page))
}
