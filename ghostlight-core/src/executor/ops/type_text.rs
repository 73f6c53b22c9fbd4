//! `browser_type_text`: type text through input events into a target, a selector's control,
//! or the focused control.
//!
//! * The credential preflight runs before any text is sent: on the resolved target, or on the
//!   control the browser reports focused (`focused: true`). The text is then typed into that
//!   same element, so focus moving between the check and the typing cannot redirect it.
//! * The text never appears in summaries, next steps, facts or audit: only its length
//!   (`character_count`, Unicode scalar values).
//! * Repeat-safety: typing appends, so repeating is unsafe; with `clear_first` the control
//!   ends with the same text however often the call runs, so it is repeat-safe.

use std::time::Duration;

use crate::language::{count, target_phrase};
use crate::port::TypeInput;
use crate::selector::Role;
use crate::tools::type_text::{TypeInto, TypeTextRequest};

use super::super::outcome::Outcome;
use super::super::run::{Run, Step, host_of};

pub(crate) async fn run(run: &Run<'_>, request: &TypeTextRequest) -> Outcome {
    type_text(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn type_text(run: &Run<'_>, request: &TypeTextRequest) -> Step<Outcome> {
    let (lease, page) = run.enter(request.tab.as_ref()).await?;
    let host = host_of(&page.state.url);
    let (element, role, name, handle) = match &request.into {
        TypeInto::Target(target) => {
            let resolved = run.target(&lease, &page, target).await?;
            run.preflight(&lease, &page, resolved.credential, resolved.handle.as_ref())?;
            (resolved.element, resolved.role, resolved.name, resolved.handle)
        }
        TypeInto::Focused => {
            let focused = run
                .port()
                .focused_element(&lease.tab)
                .await
                .map_err(|e| run.fail_on(&lease, &e, "find the focused control", None))?;
            let Some(focused) = focused else {
                return Err(Outcome::failed(
                    "nothing_focused",
                    format!("No control has focus on {host}, so nothing was typed."),
                )
                .fact("tab", lease.handle().as_str())
                .fact("typed", false)
                .fact("host", host)
                .next("Name the control with target or selector instead of focused."));
            };
            run.preflight(&lease, &page, focused.credential, None)?;
            let name = focused.name.as_deref().and_then(crate::language::normalize_name);
            (focused.element, Role::narrow(&focused.role), name, None)
        }
    };
    let characters = request.text.chars().count();
    let planned = run.phrase(role, name.as_deref());
    let doing =
        if request.text.is_empty() { format!("clear {planned}") } else { format!("type into {planned}") };
    let input =
        TypeInput { into: Some(element), text: request.text.clone(), clear_first: request.clear_first };
    run.dispatching();
    let receipt =
        run.port().type_text(&lease.tab, &input, Duration::from_millis(request.timeout_ms)).await.map_err(
            |e| run.fail_on(&lease, &e, &doing, Some(request.timeout_ms)).fact("host", host.clone()),
        )?;
    let control = match &receipt.element {
        Some(element) => {
            target_phrase(Role::narrow(&element.role), element.name.as_deref(), run.preserve_names())
        }
        None => planned,
    };
    let typed = count(characters, "character", "characters");
    let summary = match (request.clear_first, characters) {
        (true, 0) => format!("Cleared {control} on {host}."),
        (true, _) => format!("Cleared {control} and typed {typed} into it on {host}."),
        (false, _) => format!("Typed {typed} into {control} on {host}."),
    };
    // A cleared-then-typed control ends the same however often the call runs, unless the
    // typing moved the page (then a repeat would act on another document).
    let landing = run.land(&lease, &receipt.page);
    let mut outcome = Outcome::applied(summary, request.clear_first && landing.is_none())
        .with_readiness(receipt.page.readiness)
        .fact("tab", lease.handle().as_str())
        .fact("typed", true)
        .fact("character_count", characters)
        .fact("cleared", request.clear_first)
        .fact("host", host);
    if let Some(handle) = &handle {
        outcome = outcome.fact("target", handle.as_str());
    }
    Ok(run.with_landing(outcome, landing, &receipt.page))
}
