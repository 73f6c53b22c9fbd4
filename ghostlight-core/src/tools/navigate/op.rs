//! `browser_navigate`: go to a governed URL in the unambiguous tab, a named tab (reopened
//! under the same handle when it closed), or a new tab; with no tab, adopt an unbound
//! same-host tab (exact URL preferred) unless `reuse: "never"`.

use std::sync::Arc;
use std::time::Duration;

use super::facts;
use crate::authority::Site;
use crate::port::{DialogKind, NavigateInput, PageState, PortError, PortErrorKind, Readiness, TabRef};
use crate::tools::common::with_gate;
use crate::tools::navigate::{BeforeUnload, Destination, NavigateRequest, Reuse};

use crate::authority::ConfirmAction;
use crate::operation::outcome::Outcome;
use crate::operation::run::{Asking, Run, Step, host_of, unknown_handle};
use crate::operation::workspace::TabSlot;

/// How the tab was come by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    /// An existing controlled tab navigated.
    Navigated,
    /// A new tab opened.
    Opened,
    /// A closed tab's handle got a new tab.
    Reopened,
    /// An unbound tab adopted.
    Reused,
}

pub(crate) async fn run(run: &Run<'_>, request: &NavigateRequest) -> Outcome {
    navigate(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn navigate(run: &Run<'_>, request: &NavigateRequest) -> Step<Outcome> {
    let input = NavigateInput {
        url: request.url.clone(),
        discard_beforeunload: request.beforeunload == Some(BeforeUnload::Discard),
    };
    let timeout = Duration::from_millis(request.timeout_ms);
    // `new_host`: the first navigation of this workspace to a host asks, before any tab is
    // chosen or touched (a click that lands on a new host cannot be asked: where it goes is
    // known only once it has gone).
    if run.needs_confirmation(ConfirmAction::NewHost) {
        let host = host_of(&request.url);
        if !run.workspace.host_confirmed(&host) {
            let asking = Asking { host: host.clone(), tab: None, control: None, element: None };
            run.confirm(ConfirmAction::NewHost, asking).await?;
            run.workspace.confirm_host(host);
        }
    }
    match &request.destination {
        Destination::NewTab => {
            if let Some(pinned) = &run.pinned {
                return Err(Outcome::failed(
                    "different_tab",
                    format!(
                        "This step asks for a new tab, but its sequence or flow runs on {}; steps cannot change \
                         tabs.",
                        pinned.handle
                    ),
                )
                .fact(facts::TAB, pinned.handle.as_str()));
            }
            open(run, request, &input, None).await
        }
        Destination::Tab(handle) => {
            if let Some(pinned) = &run.pinned
                && handle != &pinned.handle
            {
                return Err(Outcome::failed(
                    "different_tab",
                    format!(
                        "This step names {handle}, but its sequence or flow runs on {}; steps cannot change tabs.",
                        pinned.handle
                    ),
                )
                .fact(facts::TAB, pinned.handle.as_str()));
            }
            let slot = run.workspace.slot(handle).ok_or_else(|| unknown_handle(handle))?;
            in_slot(run, request, &input, slot).await
        }
        Destination::Default { reuse } => {
            if let Some(pinned) = &run.pinned {
                return in_slot(run, request, &input, pinned.clone()).await;
            }
            let live = run.workspace.slots().into_iter().filter(|slot| slot.tab().is_some()).count();
            if live > 0 {
                let slot = run.default_slot().await?;
                return in_slot(run, request, &input, slot).await;
            }
            if *reuse == Reuse::Domain
                && let Some(tab) = adoptable(run, &request.url).await?
            {
                return adopt(run, request, &input, tab, timeout).await;
            }
            open(run, request, &input, None).await
        }
    }
}

/// Navigate the tab of `slot`, or reopen it under the same handle when it has closed.
async fn in_slot(
    run: &Run<'_>,
    request: &NavigateRequest,
    input: &NavigateInput,
    slot: Arc<TabSlot>,
) -> Step<Outcome> {
    // A sequence or flow already holds its own tab's lock; taking it again would deadlock.
    let pinned = run.pinned.as_ref().is_some_and(|pinned| Arc::ptr_eq(pinned, &slot));
    let _guard = if pinned { None } else { Some(slot.work.clone().lock_owned().await) };
    let Some(tab) = slot.tab() else { return open(run, request, input, Some(slot)).await };
    run.dispatching();
    match run.port().navigate(&run.on(&tab, Duration::from_millis(request.timeout_ms)), input).await {
        Ok(page) => Ok(report(run, request, &slot, &page, How::Navigated)),
        Err(error) if error.kind() == PortErrorKind::TabGone => {
            run.forget_tab(&slot);
            open(run, request, input, Some(slot)).await
        }
        Err(error) => {
            Err(failure_on(run, request, &tab, &error).await.fact(facts::TAB, slot.handle.as_str()))
        }
    }
}

/// Open a new tab (for `slot` when reopening a closed handle), within the workspace's tab
/// limit.
async fn open(
    run: &Run<'_>,
    request: &NavigateRequest,
    input: &NavigateInput,
    slot: Option<Arc<TabSlot>>,
) -> Step<Outcome> {
    run.within_tab_limit()?;
    run.dispatching();
    let opened = run
        .port()
        .open_tab(input, Duration::from_millis(request.timeout_ms))
        .await
        .map_err(|e| failure(run, request, &e, None))?;
    run.shared.claims.claim(&opened.tab);
    let (slot, how) = match slot {
        Some(slot) => {
            slot.bind(opened.tab);
            (slot, How::Reopened)
        }
        None => (run.workspace.add_slot(opened.tab), How::Opened),
    };
    Ok(report(run, request, &slot, &opened.page, how))
}

/// An unbound tab on the destination's site, exact URL first.
async fn adoptable(run: &Run<'_>, url: &url::Url) -> Step<Option<TabRef>> {
    let Some(site) = Site::from_url(url) else { return Ok(None) };
    let tabs = run.port().tabs().await.map_err(|e| run.fail(&e, "look for a tab to reuse", None))?;
    let unbound = tabs.iter().filter(|info| !run.shared.claims.is_claimed(&info.tab));
    let same_site: Vec<_> =
        unbound.filter(|info| Site::from_url(&info.page.url).as_ref() == Some(&site)).collect();
    let exact = same_site.iter().find(|info| &info.page.url == url);
    Ok(exact.or(same_site.first()).map(|info| info.tab.clone()))
}

/// Adopt an unbound tab: claim it, bind a slot, and navigate it unless it already shows the
/// exact URL.
async fn adopt(
    run: &Run<'_>,
    request: &NavigateRequest,
    input: &NavigateInput,
    tab: TabRef,
    timeout: Duration,
) -> Step<Outcome> {
    if !run.shared.claims.claim(&tab) {
        return open(run, request, input, None).await;
    }
    if let Err(refused) = run.within_tab_limit() {
        run.shared.claims.release(&tab);
        return Err(refused);
    }
    let slot = run.workspace.add_slot(tab.clone());
    let _guard = slot.work.clone().lock_owned().await;
    let current = run.port().page(&tab).await.map_err(|e| failure(run, request, &e, None))?;
    let page = if current.url == request.url {
        current
    } else {
        run.dispatching();
        match run.port().navigate(&run.on(&tab, timeout), input).await {
            Ok(page) => page,
            Err(error) => {
                return Err(failure_on(run, request, &tab, &error)
                    .await
                    .fact(facts::TAB, slot.handle.as_str()));
            }
        }
    };
    Ok(report(run, request, &slot, &page, How::Reused))
}

/// Render a failed navigation of `tab`. A dialog that blocked it is asked about (its kind,
/// never its text), so the sentence says which dialog it was and what resolves it.
async fn failure_on(run: &Run<'_>, request: &NavigateRequest, tab: &TabRef, error: &PortError) -> Outcome {
    let dialog = if error.kind() == PortErrorKind::BlockedByDialog {
        run.port().dialog(tab).await.ok().flatten()
    } else {
        None
    };
    failure(run, request, error, dialog)
}

/// Render a failed navigation; `dialog` is the dialog still open on the tab, if any.
fn failure(
    run: &Run<'_>,
    request: &NavigateRequest,
    error: &PortError,
    dialog: Option<DialogKind>,
) -> Outcome {
    let host = host_of(&request.url);
    let leaving = || {
        Outcome::failed(
            "beforeunload",
            format!(
                "The current page asked to confirm leaving, so the navigation to {host} stopped; nothing was \
                 accepted."
            ),
        )
        .fact(facts::HOST, host.clone())
        .fact(facts::DIALOG_TYPE, DialogKind::BeforeUnload.as_str())
    };
    match (error.kind(), dialog) {
        // The prompt is still open: only resolving it moves on.
        (PortErrorKind::BlockedByDialog, Some(DialogKind::BeforeUnload)) => {
            return leaving().next(
                "Call browser_dialog with action \"accept\" to leave the page, or \"dismiss\" to stay.",
            );
        }
        // The prompt stopped the navigation and is gone.
        (PortErrorKind::BlockedByDialog, None) => {
            return leaving().next("Repeat with beforeunload: \"discard\" to leave anyway.");
        }
        // Another dialog (an alert, a confirm) blocks the page: the shared dialog failure.
        _ => {}
    }
    run.fail(error, &format!("navigate to {host}"), Some(request.timeout_ms)).fact(facts::HOST, host)
}

/// The page's HTTP status in the facts, and an error status in the summary (the tab did
/// navigate: the status stays `succeeded`).
pub(crate) fn with_http_status(mut outcome: Outcome, page: &PageState) -> Outcome {
    let Some(status) = page.http_status else { return outcome };
    if let Some(clause) = crate::language::http_error_clause(status) {
        let end = outcome.summary.trim_end_matches('.').to_owned();
        outcome.summary = format!("{end}; {clause}.");
    }
    outcome.fact(facts::HTTP_STATUS, status)
}

fn report(run: &Run<'_>, request: &NavigateRequest, slot: &TabSlot, page: &PageState, how: How) -> Outcome {
    let (generation, _) = slot.observe(&page.document, &page.url);
    let governed = run.snapshot.govern(&page.url);
    let host = host_of(&page.url);
    let summary = match how {
        How::Navigated => format!("Navigated to {host}."),
        How::Opened => format!("Opened {host}."),
        How::Reused => format!("Reused the {host} tab."),
        How::Reopened => {
            format!(
                "{} had closed, so Ghostlight opened {host} in a new tab under the same handle.",
                slot.handle
            )
        }
    };
    // Opening a new tab twice opens two tabs; every other path lands on the same page again.
    let repeat_safe = !matches!(request.destination, Destination::NewTab);
    let mut outcome = Outcome::applied(summary, repeat_safe)
        .with_readiness(page.readiness)
        .fact(facts::TAB, slot.handle.as_str())
        .fact(facts::URL, governed.as_str())
        .fact(facts::TITLE, run.title(page).unwrap_or_default())
        .fact(facts::CREATED, matches!(how, How::Opened | How::Reopened))
        .fact(facts::REUSED, how == How::Reused)
        .fact(facts::DOCUMENT_GENERATION, generation)
        .fact(facts::HOST, host.clone());
    if how == How::Reopened {
        outcome = outcome.fact(facts::REOPENED, true);
    }
    if governed.is_inside() {
        // A page outside authority is its governed URL and nothing else.
        outcome = with_http_status(outcome, page);
        outcome = with_gate(outcome, page);
    }
    if matches!(page.readiness, Readiness::Loading | Readiness::Interactive) {
        // The call ran out of time after the document committed (its load event is still
        // pending): it is the tab's page now.
        let end = outcome.summary.trim_end_matches('.').to_owned();
        outcome.summary = format!("{end}; the page had not finished loading when the call's time ran out.");
        outcome = outcome.next("Call browser_wait with condition \"load_ready\", or read the page as it is.");
    }
    outcome.landing = Site::from_url(&page.url);
    if !governed.is_inside() {
        outcome.summary =
            format!("{} The page landed on {host}, which is outside authority.", outcome.summary);
        outcome = outcome
            .fact(facts::OUTSIDE_AUTHORITY, true)
            .next("Use browser_navigate to take the tab back to an allowed host.");
    }
    outcome
}
