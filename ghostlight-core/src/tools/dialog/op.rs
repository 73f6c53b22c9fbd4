//! `browser_dialog`: report, accept, dismiss or answer the JavaScript dialog blocking a tab.
//!
//! A dialog may block the page itself: an adapter can answer `page()` with
//! `BlockedByDialog`. So this tool does not use [`Run::enter`]: it leases the tab, tries to
//! observe its page, and when the dialog blocks observation it authorizes against the last
//! URL the tab slot saw (the page the dialog belongs to, since a new document cannot commit
//! while the dialog is open). A tab never observed at all is refused.
//!
//! The dialog's own text is never asked for, and the `respond` text is never echoed in
//! summaries, facts, next steps or audit (CLARIFICATIONS). Before resolving, the open dialog
//! is checked: none open fails `no_dialog`, and `respond` to a dialog that takes no text
//! fails `not_a_prompt`, both with nothing dispatched.

use super::facts;
use crate::envelope::Readiness;
use crate::language::indefinite_article;
use crate::port::{DialogKind, DialogResolution, PortErrorKind};
use crate::tools::dialog::{DialogAction, DialogRequest};

use crate::operation::outcome::{Outcome, SEE_DIALOG};
use crate::operation::run::{Lease, Run, Step, host_of};

pub(crate) async fn run(run: &Run<'_>, request: &DialogRequest) -> Outcome {
    dialog(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn dialog(run: &Run<'_>, request: &DialogRequest) -> Step<Outcome> {
    let lease = run.lease(request.tab.as_ref()).await?;
    let tab = lease.handle().as_str().to_owned();
    let (url, readiness) = match run.port().page(&lease.tab).await {
        Ok(state) => {
            lease.slot.observe(&state.document, &state.url);
            (state.url, state.readiness)
        }
        Err(error) if error.kind() == PortErrorKind::BlockedByDialog => {
            let url = lease.slot.state().url.ok_or_else(|| {
                Outcome::failed(
                    "page_unknown",
                    "A dialog blocks this tab and Ghostlight has not seen its page yet, so it cannot check \
                     the host.",
                )
                .fact(facts::TAB, tab.as_str())
            })?;
            (url, Readiness::Unknown)
        }
        Err(error) => return Err(run.fail_on(&lease, &error, "read the tab's page", None)),
    };
    run.authorize(Some(&url)).map_err(|o| o.fact(facts::TAB, tab.as_str()))?;
    let host = host_of(&url);
    let open = run
        .port()
        .dialog(&lease.tab)
        .await
        .map_err(|e| run.fail_on(&lease, &e, &format!("check for a dialog on {host}"), None))?;
    let (resolution, verb, accepted) = match &request.action {
        DialogAction::Status => return Ok(status(&tab, &host, open, readiness)),
        DialogAction::Accept => (DialogResolution::Accept, Verb::ACCEPT, true),
        DialogAction::Dismiss => (DialogResolution::Dismiss, Verb::DISMISS, false),
        DialogAction::Respond { text } => (DialogResolution::Respond(text.clone()), Verb::RESPOND, true),
    };
    let Some(kind) = open else {
        return Err(Outcome::failed(
            "no_dialog",
            format!("No dialog is open on {host}, so there was nothing to {}.", verb.infinitive),
        )
        .with_readiness(readiness)
        .fact(facts::TAB, tab.as_str())
        .fact(facts::PRESENT, false)
        .fact(facts::DIALOG_TYPE, None::<&str>)
        .fact(facts::HANDLED, false)
        .fact(facts::HOST, host)
        .next("Call browser_dialog with action \"status\" after the page opens one."));
    };
    if matches!(resolution, DialogResolution::Respond(_)) && kind != DialogKind::Prompt {
        return Err(Outcome::failed(
            "not_a_prompt",
            format!("The {} on {host} takes no text; nothing was answered.", noun(kind)),
        )
        .with_readiness(readiness)
        .fact(facts::TAB, tab.as_str())
        .fact(facts::PRESENT, true)
        .fact(facts::DIALOG_TYPE, kind.as_str())
        .fact(facts::HANDLED, false)
        .fact(facts::HOST, host)
        .next("Call browser_dialog with action \"accept\" or \"dismiss\" instead."));
    }
    run.dispatching();
    let resolved = run.port().resolve_dialog(&lease.tab, &resolution).await.map_err(|e| {
        if e.kind() == PortErrorKind::InvalidInput {
            // The dialog closed between the check and the resolution.
            Outcome::failed(
                "no_dialog",
                format!("The dialog on {host} closed before Ghostlight could {}.", verb.infinitive),
            )
            .fact(facts::TAB, tab.as_str())
            .fact(facts::HANDLED, false)
            .fact(facts::HOST, host.clone())
        } else {
            run.fail_on(&lease, &e, &format!("{} the {} on {host}", verb.infinitive, noun(kind)), None)
        }
    })?;
    // A dialog can itself navigate (a leave-page prompt, a confirm that submits), so what the
    // tab shows afterwards decides readiness and any landing.
    let outcome = Outcome::applied(format!("{} the {} on {host}.", verb.past, noun(resolved)), false)
        .fact(facts::TAB, tab.as_str())
        .fact(facts::DIALOG_TYPE, resolved.as_str())
        .fact(facts::ACCEPTED, accepted)
        .fact(facts::HANDLED, true)
        .fact(facts::HOST, host);
    Ok(after(run, &lease, outcome).await)
}

/// Observe the tab after a resolution: a committed landing, or another dialog.
async fn after(run: &Run<'_>, lease: &Lease, outcome: Outcome) -> Outcome {
    match run.port().page(&lease.tab).await {
        Ok(state) => {
            let landing = run.land(lease, &state);
            let outcome = outcome.with_readiness(state.readiness);
            run.with_landing(outcome, landing, &state)
        }
        Err(error) if error.kind() == PortErrorKind::BlockedByDialog => {
            outcome.with_readiness(Readiness::Unknown).fact(facts::PRESENT, true).next(SEE_DIALOG)
        }
        Err(_) => outcome.with_readiness(Readiness::Unknown),
    }
}

/// The `status` report.
fn status(tab: &str, host: &str, open: Option<DialogKind>, readiness: Readiness) -> Outcome {
    let outcome = match open {
        Some(kind) => {
            Outcome::read(format!("{} {} is blocking {host}.", capitalized_article(noun(kind)), noun(kind)))
                .fact(facts::DIALOG_TYPE, kind.as_str())
                .next(match kind {
                    DialogKind::Prompt => {
                        "Call browser_dialog with action \"respond\" and text, or \"dismiss\", to resolve it."
                    }
                    _ => "Call browser_dialog with action \"accept\" or \"dismiss\" to resolve it.",
                })
        }
        None => {
            Outcome::read(format!("No dialog is blocking {host}.")).fact(facts::DIALOG_TYPE, None::<&str>)
        }
    };
    outcome
        .with_readiness(readiness)
        .fact(facts::TAB, tab)
        .fact(facts::PRESENT, open.is_some())
        .fact(facts::HOST, host)
}

/// A dialog kind as a sentence names it.
fn noun(kind: DialogKind) -> &'static str {
    match kind {
        DialogKind::Alert => "alert dialog",
        DialogKind::Confirm => "confirm dialog",
        DialogKind::Prompt => "prompt dialog",
        DialogKind::BeforeUnload => "leave-page dialog",
    }
}

/// `A` or `An` opening a sentence about `noun`.
fn capitalized_article(noun: &str) -> &'static str {
    match indefinite_article(noun) {
        "an" => "An",
        _ => "A",
    }
}

/// How a sentence says the resolution.
struct Verb {
    infinitive: &'static str,
    past: &'static str,
}

impl Verb {
    const ACCEPT: Verb = Verb { infinitive: "accept", past: "Accepted" };
    const DISMISS: Verb = Verb { infinitive: "dismiss", past: "Dismissed" };
    const RESPOND: Verb = Verb { infinitive: "answer", past: "Answered" };
}
