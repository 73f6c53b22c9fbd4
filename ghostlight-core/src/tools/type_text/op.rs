//! `browser_type_text`: type text through input events into a target, a selector's control,
//! or the focused control.
//!
//! * The credential preflight runs before any text is sent: on the resolved target, or on the
//!   control the browser reports focused (`focused: true`), whose frames must also be inside
//!   authority. The text is then typed into that same element, pinned: focus moving between
//!   the check and the typing, or during it, cannot redirect a character (see
//!   [`keyboard`](crate::operation::keyboard)).
//! * A `\t` moves focus: the text is typed in legs that end after each one, and the control
//!   focused after it is checked like the first before the next leg (a password field there
//!   stops the call: `attention_required`, effect `partial`).
//! * The text never appears in summaries, next steps, facts or audit: only its length
//!   (`character_count`, Unicode scalar values).
//! * Repeat-safety: typing appends, so repeating is unsafe; with `clear_first` the control
//!   ends with the same text however often the call runs, so it is repeat-safe (one leg).

use std::time::Duration;

use super::facts;
use crate::language::{count, target_phrase};
use crate::port::{ActionReceipt, TypeInput};
use crate::selector::Role;
use crate::tools::common::selects;
use crate::tools::type_text::{TypeInto, TypeTextRequest};

use crate::handles::Handle;

use crate::operation::keyboard::{Checked, check_focus, focus_moved, stopped_midway};
use crate::operation::outcome::Outcome;
use crate::operation::run::{Landing, Lease, Run, Step, host_of};

pub(crate) async fn run(run: &Run<'_>, request: &TypeTextRequest) -> Outcome {
    type_text(run, request).await.unwrap_or_else(|outcome| outcome)
}

/// The text in legs, each ending after a `\t` (the last may not).
fn legs(text: &str) -> Vec<&str> {
    let mut legs: Vec<&str> = text.split_inclusive('\t').collect();
    if legs.is_empty() {
        legs.push("");
    }
    legs
}

async fn type_text(run: &Run<'_>, request: &TypeTextRequest) -> Step<Outcome> {
    let (lease, page) = run
        .enter_selecting(
            request.tab.as_ref(),
            matches!(&request.into, TypeInto::Target(target) if selects(target)),
        )
        .await?;
    let host = host_of(&page.state.url);
    let (first, handle) = match &request.into {
        TypeInto::Target(target) => {
            let resolved = run.target(&lease, &page, target).await?;
            run.preflight(&lease, &page, resolved.credential, resolved.handle.as_ref())?;
            let checked =
                Checked { element: Some(resolved.element), role: resolved.role, name: resolved.name };
            (checked, resolved.handle)
        }
        TypeInto::Focused => (check_focus(run, &lease, &page, true).await?, None),
    };
    let Some(first_element) = first.element.clone() else {
        return Err(Outcome::failed(
            "nothing_focused",
            format!("No control has focus on {host}, so nothing was typed."),
        )
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::TYPED, false)
        .fact(facts::HOST, host)
        .next("Name the control with target or selector instead of focused."));
    };
    let characters = request.text.chars().count();
    let planned = run.phrase(first.role, first.name.as_deref());
    let doing =
        if request.text.is_empty() { format!("clear {planned}") } else { format!("type into {planned}") };
    let timeout = Duration::from_millis(request.timeout_ms);
    let legs = legs(&request.text);
    let last = legs.len() - 1;
    let stop = |outcome: Outcome, delivered: usize| {
        outcome
            .fact(facts::TAB, lease.handle().as_str())
            .fact(facts::TYPED, delivered > 0)
            .fact(facts::CHARACTER_COUNT, delivered)
    };
    let mut delivered = 0;
    let mut into = first_element;
    for (index, leg) in legs.iter().enumerate() {
        let done = typed_sentence(delivered, &planned, &host);
        if index > 0 {
            // The Tab that ended the last leg moved focus: check where before typing more.
            match check_focus(run, &lease, &page, true).await {
                Ok(Checked { element: Some(element), .. }) => into = element,
                // Focus left every control: the rest has nowhere to go.
                Ok(Checked { element: None, .. }) => {
                    return Err(stop(focus_moved(&done, characters - delivered, &host), delivered));
                }
                Err(refusal) => return Err(stop(stopped_midway(&done, refusal), delivered)),
            }
        }
        let input = TypeInput {
            into: into.clone(),
            text: (*leg).to_owned(),
            clear_first: request.clear_first && index == 0,
        };
        run.dispatching();
        let receipt = run.port().type_text(&run.on(&lease.tab, timeout), &input).await.map_err(|e| {
            run.fail_on(&lease, &e, &doing, Some(request.timeout_ms)).or_fact(facts::HOST, host.clone())
        })?;
        let leg_chars = leg.chars().count();
        let withheld = receipt.keys_withheld.min(leg_chars);
        delivered += leg_chars - withheld;
        let landing = run.land(&lease, &receipt.page);
        if withheld > 0 || (landing.is_some() && index < last) {
            // Focus left the control, or the page moved to another document: the rest of the
            // text was for a control that is no longer there.
            let done =
                if delivered == 0 { String::new() } else { typed_sentence(delivered, &planned, &host) };
            let outcome = stop(focus_moved(&done, characters - delivered, &host), delivered)
                .with_readiness(receipt.page.readiness);
            return Err(run.with_landing(outcome, landing, &receipt.page));
        }
        if index == last {
            return Ok(finish(run, request, &lease, &host, &planned, handle.as_ref(), receipt, landing));
        }
    }
    unreachable!("legs() answers at least one leg")
}

/// What was typed so far: `Typed 3 characters into the "User" text field on HOST.`
fn typed_sentence(delivered: usize, planned: &str, host: &str) -> String {
    format!("Typed {} into {planned} on {host}.", count(delivered, "character", "characters"))
}

/// The outcome of text typed in full.
#[allow(clippy::too_many_arguments)]
fn finish(
    run: &Run<'_>,
    request: &TypeTextRequest,
    lease: &Lease,
    host: &str,
    planned: &str,
    handle: Option<&Handle>,
    receipt: ActionReceipt,
    landing: Option<Landing>,
) -> Outcome {
    let characters = request.text.chars().count();
    let control = match &receipt.element {
        Some(element) => {
            target_phrase(Role::narrow(&element.role), element.name.as_deref(), run.preserve_names())
        }
        None => planned.to_owned(),
    };
    let typed = count(characters, "character", "characters");
    let summary = match (request.clear_first, characters) {
        (true, 0) => format!("Cleared {control} on {host}."),
        (true, _) => format!("Cleared {control} and typed {typed} into it on {host}."),
        (false, _) => format!("Typed {typed} into {control} on {host}."),
    };
    // A cleared-then-typed control ends the same however often the call runs, unless the
    // typing moved the page (then a repeat would act on another document) or moved focus.
    let repeat_safe = request.clear_first && landing.is_none() && !request.text.contains('\t');
    let mut outcome = Outcome::applied(summary, repeat_safe)
        .with_readiness(receipt.page.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::TYPED, true)
        .fact(facts::CHARACTER_COUNT, characters)
        .fact(facts::CLEARED, request.clear_first)
        .fact(facts::HOST, host);
    if let Some(handle) = handle {
        outcome = outcome.fact(facts::TARGET, handle.as_str());
    }
    run.with_landing(outcome, landing, &receipt.page)
}
