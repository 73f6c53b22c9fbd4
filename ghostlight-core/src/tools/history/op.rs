//! `browser_history`: one step back or forward through a tab's history, or a reload.
//!
//! The move starts from the page the tab shows, so it is tab-bound: a tab outside authority
//! blocks it. Where it lands is governed like any landing (the URL fact is projected, and a
//! landing outside authority says so). A move that commits a new document starts a new
//! document generation, which makes earlier target and view handles stale.
//!
//! `browser_history` has no discard option: a leave-page (`beforeunload`) prompt the move
//! raises stays open (the port answers it as the blocking dialog), and the refusal says so
//! and points to `browser_dialog`, whose accept lets the move go on and reports the landing.

use std::time::Duration;

use super::facts;
use crate::authority::Site;
use crate::port::{DialogKind, HistoryMove, PortErrorKind};
use crate::tools::history::{HistoryAction, HistoryRequest};

use crate::operation::outcome::Outcome;
use crate::operation::run::{Run, Step, host_of};

/// The next step while a leave-page prompt holds the move.
const LEAVE_OR_STAY: &str = "Call browser_dialog with action \"accept\" to leave the page (its unsaved changes are \
                             lost and the move goes on), or \"dismiss\" to stay.";
/// The next step when there is no history entry to move to.
const ELSEWHERE: &str = "Call browser_navigate with a url to go somewhere else.";

pub(crate) async fn run(run: &Run<'_>, request: &HistoryRequest) -> Outcome {
    history(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn history(run: &Run<'_>, request: &HistoryRequest) -> Step<Outcome> {
    let (lease, page) = run.enter(request.tab.as_ref()).await?;
    let from = host_of(&page.state.url);
    let step = match request.action {
        HistoryAction::Back => HistoryMove::Back,
        HistoryAction::Forward => HistoryMove::Forward,
        HistoryAction::Reload { bypass_cache } => HistoryMove::Reload { bypass_cache },
    };
    run.dispatching();
    let state = match run
        .port()
        .history(&run.on(&lease.tab, Duration::from_millis(request.timeout_ms)), step)
        .await
    {
        Ok(state) => state,
        // At either end of history the port refuses the move as input that does not fit.
        Err(error)
            if error.kind() == PortErrorKind::InvalidInput && !matches!(step, HistoryMove::Reload { .. }) =>
        {
            let (way, entry) = match step {
                HistoryMove::Forward => ("forward", "later"),
                _ => ("back", "earlier"),
            };
            return Err(Outcome::failed(
                "history_end",
                format!(
                    "There is no {entry} page in this tab's history to go {way} to, so the tab stayed on {from}."
                ),
            )
            .fact(facts::TAB, lease.handle().as_str())
            .fact(facts::ACTION, request.action.name().as_str())
            .fact(facts::HOST, from)
            .next(ELSEWHERE));
        }
        // The page asks to confirm leaving it: the prompt stays open for the model to resolve.
        Err(error) if error.blocking_dialog() == Some(DialogKind::BeforeUnload) => {
            let not_yet = match step {
                HistoryMove::Back => format!("has not gone back from {from}"),
                HistoryMove::Forward => format!("has not gone forward from {from}"),
                HistoryMove::Reload { .. } => format!("has not reloaded {from}"),
            };
            return Err(Outcome::failed(
                "beforeunload",
                format!(
                    "The page asks to confirm leaving it (it may have unsaved changes), so Ghostlight {not_yet}; \
                     the leave-page dialog is open."
                ),
            )
            .fact(facts::TAB, lease.handle().as_str())
            .fact(facts::ACTION, request.action.name().as_str())
            .fact(facts::DIALOG_TYPE, DialogKind::BeforeUnload.as_str())
            .fact(facts::PRESENT, true)
            .fact(facts::HOST, from)
            .next(LEAVE_OR_STAY));
        }
        Err(error) => {
            let doing = match step {
                HistoryMove::Back => format!("go back from {from}"),
                HistoryMove::Forward => format!("go forward from {from}"),
                HistoryMove::Reload { .. } => format!("reload {from}"),
            };
            return Err(run
                .fail_on(&lease, &error, &doing, Some(request.timeout_ms))
                .fact(facts::ACTION, request.action.name().as_str()));
        }
    };
    let (generation, _) = lease.slot.observe(&state.document, &state.url);
    let governed = run.snapshot.govern(&state.url);
    let host = host_of(&state.url);
    let summary = match request.action {
        HistoryAction::Back => format!("Went back to {host}."),
        HistoryAction::Forward => format!("Went forward to {host}."),
        HistoryAction::Reload { bypass_cache: false } => format!("Reloaded {host}."),
        HistoryAction::Reload { bypass_cache: true } => format!("Reloaded {host} without the cache."),
    };
    // Going back twice goes back two pages; a reload lands on the same page again.
    let repeat_safe = matches!(request.action, HistoryAction::Reload { .. });
    let mut outcome = Outcome::applied(summary, repeat_safe)
        .with_readiness(state.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::ACTION, request.action.name().as_str())
        .fact(facts::URL, governed.as_str())
        .fact(facts::TITLE, run.title(&state).unwrap_or_default())
        .fact(facts::DOCUMENT_GENERATION, generation)
        .fact(facts::HOST, host.clone());
    if governed.is_inside() {
        outcome = crate::tools::navigate::op::with_http_status(outcome, &state);
        outcome = crate::tools::common::with_gate(outcome, &state);
    }
    outcome.landing = Site::from_url(&state.url);
    if !governed.is_inside() {
        outcome.summary = format!("{} The page on {host} is outside authority.", outcome.summary);
        outcome = outcome
            .fact(facts::OUTSIDE_AUTHORITY, true)
            .next("Use browser_navigate to take the tab back to an allowed host.");
    }
    Ok(outcome)
}
