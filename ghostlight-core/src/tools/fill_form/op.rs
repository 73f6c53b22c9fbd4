//! `browser_fill_form`: set the values of ordinary controls, then submit only when asked.
//!
//! ```text
//! enter tab ─▶ resolve every field and the submit control ─▶ credential preflight
//!   ─▶ fill (all values checked by the browser before any is set) ─▶ click submit
//! ```
//!
//! * Every target is resolved before anything is dispatched, so a stale handle or an
//!   ambiguous selector in field 7 refuses the call with nothing filled.
//! * Any credential-class field stops the call before any value is sent (a user handoff).
//! * A value that does not fit its control refuses the whole fill: the failure names the field
//!   by position and control, never the value.
//! * Fill values never appear in summaries, next steps or audit; facts carry only counts.
//! * Repeat-safety: setting the same values again leaves the same values, so a fill without a
//!   submit is repeat-safe; a submit is an action that must not be replayed blindly.
//!
//! Partial outcomes: when the fill applied but the submit click failed, the envelope says so
//! (`effect: partial`, status `failed`; `unknown` when the click may have happened).

use std::time::Duration;

use super::facts;
use crate::envelope::{Effect, Status};
use crate::language::{count, target_phrase};
use crate::port::{ClickInput, FillInput, PointerTarget, PortEffect, PortError, PortErrorKind};
use crate::selector::Role;
use crate::tools::common::selects;
use crate::tools::fill_form::FillFormRequest;
use crate::vocab::MouseButton;

use crate::authority::ConfirmAction;
use crate::operation::outcome::Outcome;
use crate::operation::run::{Asking, Lease, Resolved, Run, Step, host_of};

/// The next step after a value that does not fit its control.
const CHECK_VALUES: &str =
    "Check the control with browser_inspect, then call browser_fill_form again with a value it accepts.";

pub(crate) async fn run(run: &Run<'_>, request: &FillFormRequest) -> Outcome {
    fill(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn fill(run: &Run<'_>, request: &FillFormRequest) -> Step<Outcome> {
    let (lease, page) = run
        .enter_selecting(
            request.tab.as_ref(),
            request.fields.iter().map(|field| &field.target).chain(&request.submit).any(selects),
        )
        .await?;
    let host = host_of(&page.state.url);
    let mut fields = Vec::with_capacity(request.fields.len());
    for field in &request.fields {
        fields.push(run.target(&lease, &page, &field.target).await?);
    }
    let submit = match &request.submit {
        Some(target) => Some(run.target(&lease, &page, target).await?),
        None => None,
    };
    // The preflight runs over every field before anything is dispatched.
    for field in &fields {
        run.preflight(&lease, &page, field.credential, field.handle.as_ref())?;
    }

    let input = FillInput {
        fields: fields
            .iter()
            .zip(&request.fields)
            .map(|(resolved, field)| (resolved.element.clone(), field.value.clone()))
            .collect(),
    };
    let timeout = Duration::from_millis(request.timeout_ms);
    // A fill that submits is asked about once, before any value is set.
    if let Some(submit) = &submit {
        let asking = Asking {
            host: host.clone(),
            tab: Some((&lease, page.generation)),
            control: Some(run.phrase(submit.role, submit.name.as_deref())),
            element: Some(&submit.element),
        };
        run.confirm(ConfirmAction::Submit, asking).await?;
    }
    run.dispatching();
    let filled = match run.port().fill(&run.on(&lease.tab, timeout), &input).await {
        Ok(filled) => filled,
        Err(error) => {
            if error.kind() == PortErrorKind::InvalidInput
                && error.effect() == PortEffect::None
                && let Some(index) = error.failed_field()
            {
                return Err(value_mismatch(run, &lease, &fields, index, &host));
            }
            let doing = format!("fill {} on {host}", count(fields.len(), "field", "fields"));
            return Err(run
                .fail_on(&lease, &error, &doing, Some(request.timeout_ms))
                .fact(facts::HOST, host));
        }
    };
    let mut landing = run.land(&lease, &filled.page);
    let mut state = filled.page;
    let fields_phrase = count(filled.filled, "field", "fields");

    let Some(submit) = submit else {
        // Setting the same values again leaves the same values, unless the fill moved the page.
        let repeat_safe = landing.is_none();
        let outcome = Outcome::applied(format!("Filled {fields_phrase} on {host}."), repeat_safe)
            .with_readiness(state.readiness)
            .fact(facts::TAB, lease.handle().as_str())
            .fact(facts::FILLED_COUNT, filled.filled)
            .fact(facts::SUBMITTED, false)
            .fact(facts::HOST, host);
        return Ok(run.with_landing(outcome, landing, &state));
    };

    let planned = run.phrase(submit.role, submit.name.as_deref());
    let click = ClickInput {
        at: PointerTarget::Element(submit.element.clone()),
        button: MouseButton::Primary,
        count: 1,
        modifiers: Vec::new(),
    };
    let receipt = match run.port().click(&run.on(&lease.tab, timeout), &click).await {
        Ok(receipt) => receipt,
        Err(error) => {
            let filled_sentence = format!("Filled {fields_phrase} on {host}.");
            let outcome = submit_failed(run, &lease, &error, &planned, &filled_sentence, request.timeout_ms)
                .fact(facts::FILLED_COUNT, filled.filled)
                .fact(facts::SUBMITTED, false)
                .fact(facts::HOST, host);
            return Err(run.with_landing(outcome, landing, &state));
        }
    };
    if let Some(moved) = run.land(&lease, &receipt.page) {
        landing = Some(moved);
    }
    state = receipt.page;
    let clicked = match &receipt.element {
        Some(element) => {
            target_phrase(Role::narrow(&element.role), element.name.as_deref(), run.preserve_names())
        }
        None => planned,
    };
    let mut outcome =
        Outcome::applied(format!("Filled {fields_phrase} and submitted with {clicked} on {host}."), false)
            .with_readiness(state.readiness)
            .fact(facts::TAB, lease.handle().as_str())
            .fact(facts::FILLED_COUNT, filled.filled)
            .fact(facts::SUBMITTED, true)
            .fact(facts::HOST, host);
    if let Some(handle) = &submit.handle {
        outcome = outcome.fact(facts::SUBMIT_TARGET, handle.as_str());
    }
    Ok(run.with_landing(outcome, landing, &state))
}

/// The refusal of a value that does not fit field `index` (0-based): named by position and
/// control, never by value.
fn value_mismatch(run: &Run<'_>, lease: &Lease, fields: &[Resolved], index: usize, host: &str) -> Outcome {
    let number = index + 1;
    let control = match fields.get(index) {
        Some(field) => format!(" ({})", run.phrase(field.role, field.name.as_deref())),
        None => String::new(),
    };
    let mut outcome = Outcome::failed(
        "value_mismatch",
        format!(
            "Field {number}{control} does not accept the value given for it, so nothing was filled on {host}."
        ),
    )
    .fact(facts::TAB, lease.handle().as_str())
    .fact(facts::FIELD, number)
    .fact(facts::FILLED_COUNT, 0)
    .fact(facts::SUBMITTED, false)
    .fact(facts::HOST, host);
    if let Some(handle) = fields.get(index).and_then(|field| field.handle.as_ref()) {
        outcome = outcome.fact(facts::TARGET, handle.as_str());
    }
    outcome.next(CHECK_VALUES)
}

/// The fields were filled but the submit click failed: `partial` when nothing was clicked,
/// `unknown` when the click may have happened. The port failure's own sentence follows the
/// one about the fill.
fn submit_failed(
    run: &Run<'_>,
    lease: &Lease,
    error: &PortError,
    planned: &str,
    filled: &str,
    timeout_ms: u64,
) -> Outcome {
    let mut outcome = run.fail_on(lease, error, &format!("click {planned}"), Some(timeout_ms));
    let clicked_maybe = error.effect() == PortEffect::Unknown;
    outcome.summary = if clicked_maybe {
        format!("{filled} {}", outcome.summary)
    } else {
        format!("{} but did not submit. {}", filled.trim_end_matches('.'), outcome.summary)
    };
    outcome.status = if clicked_maybe { Status::Unknown } else { Status::Failed };
    outcome.effect = if clicked_maybe { Effect::Unknown } else { Effect::Partial };
    outcome.repeat_safe = false;
    outcome
}
