//! `browser_click`: a current target or a point of a current view.

use std::time::Duration;

use super::facts;
use crate::authority::ConfirmAction;
use crate::envelope::Readiness;
use crate::language::target_phrase;
use crate::port::{ClickInput, PointerTarget, PortEffect, PortErrorKind};
use crate::selector::Role;
use crate::tools::click::ClickRequest;
use crate::tools::common::selects;
use crate::tools::common::{Location, held_clause};
use crate::vocab::MouseButton;

use crate::operation::outcome::{LIST_TABS, Outcome};
use crate::operation::run::{Asking, Run, Step, host_of};

pub(crate) async fn run(run: &Run<'_>, request: &ClickRequest) -> Outcome {
    click(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn click(run: &Run<'_>, request: &ClickRequest) -> Step<Outcome> {
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
    let verb = verb(request.button, request.click_count);
    let planned = match &resolved {
        Some(target) => run.phrase(target.role, target.name.as_deref()),
        None => "the point".to_owned(),
    };
    let input = ClickInput {
        at,
        button: request.button,
        count: u8::try_from(request.click_count).unwrap_or(1),
        modifiers: request.modifiers.clone(),
    };
    let held = held_clause(&request.modifiers);
    // `submit`: what the port can tell before dispatch is the resolved role, not whether the
    // control sits in a form, so every primary click on a button asks, and so does a point
    // click (what lies under the point is unknown until the browser hit-tests it).
    let submits = request.button == MouseButton::Primary
        && resolved.as_ref().is_none_or(|target| target.role == Role::Button);
    if submits {
        let asking = Asking {
            host: host.clone(),
            tab: Some((&lease, page.generation)),
            control: Some(planned.clone()),
            element: resolved.as_ref().map(|target| &target.element),
        };
        run.confirm(ConfirmAction::Submit, asking).await?;
    }
    run.dispatching();
    let clicked =
        run.port().click(&run.on(&lease.tab, Duration::from_millis(request.timeout_ms)), &input).await;
    let receipt = match clicked {
        Ok(receipt) => receipt,
        // The tab vanished once the input was delivered: the page closed it in answer.
        Err(error) if error.kind() == PortErrorKind::TabGone && error.effect() == PortEffect::Unknown => {
            run.forget_tab(&lease.slot);
            let summary = format!(
                "{} {planned}{held} on {host}; the page then closed its own tab, so {} no longer shows it.",
                verb.past,
                lease.handle()
            );
            return Ok(Outcome::applied(summary, false)
                .with_readiness(Readiness::Unknown)
                .fact(facts::TAB, lease.handle().as_str())
                .fact(facts::ACTIVATED, true)
                .fact(facts::HOST, host)
                .next(LIST_TABS));
        }
        Err(error) => {
            let doing = format!("{} {planned}{held}", verb.infinitive);
            return Err(run.fail_on(&lease, &error, &doing, Some(request.timeout_ms)));
        }
    };
    // The receipt's role and name describe what was physically clicked; fall back to what
    // was perceived.
    let clicked = match (&receipt.element, &resolved) {
        (Some(element), _) => {
            Some(target_phrase(Role::narrow(&element.role), element.name.as_deref(), run.preserve_names()))
        }
        (None, Some(target)) => Some(run.phrase(target.role, target.name.as_deref())),
        (None, None) => None,
    };
    let summary = match (&clicked, &request.location) {
        (Some(what), Location::Point(point)) => {
            format!("{} {what} at ({}, {}) of {}{held} on {host}.", verb.past, point.x, point.y, point.view)
        }
        (Some(what), _) => format!("{} {what}{held} on {host}.", verb.past),
        (None, Location::Point(point)) => {
            format!("{} at ({}, {}) of {}{held} on {host}.", verb.past, point.x, point.y, point.view)
        }
        (None, _) => format!("{}{held} on {host}.", verb.past),
    };
    let mut outcome = Outcome::applied(summary, false)
        .with_readiness(receipt.page.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::ACTIVATED, true)
        .fact(facts::HOST, host);
    match &request.location {
        Location::Target(_) => {
            if let Some(handle) = resolved.as_ref().and_then(|r| r.handle.as_ref()) {
                outcome = outcome.fact(facts::TARGET, handle.as_str());
            }
        }
        Location::Point(point) => outcome = outcome.fact(facts::VIEW, point.view.as_str()),
    }
    let landing = run.land(&lease, &receipt.page);
    Ok(run.with_landing(outcome, landing, &receipt.page))
}

struct Verb {
    infinitive: &'static str,
    past: &'static str,
}

fn verb(button: MouseButton, count: u64) -> Verb {
    match (button, count) {
        (MouseButton::Primary, 2) => Verb { infinitive: "double-click", past: "Double-clicked" },
        (MouseButton::Primary, 3) => Verb { infinitive: "triple-click", past: "Triple-clicked" },
        (MouseButton::Primary, _) => Verb { infinitive: "click", past: "Clicked" },
        (MouseButton::Secondary, _) => Verb { infinitive: "right-click", past: "Right-clicked" },
        (MouseButton::Middle, _) => Verb { infinitive: "middle-click", past: "Middle-clicked" },
    }
}
