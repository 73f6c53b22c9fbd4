//! `browser_tabs`: list, focus or close this workspace's tabs.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::facts;
use crate::envelope::{Effect, Status};
use crate::handles::Handle;
use crate::language::count;
use crate::port::PortErrorKind;
use crate::tools::tabs::{TabsAction, TabsRequest};

use crate::operation::outcome::Outcome;
use crate::operation::run::{Run, Step, host_of, unknown_handle};

pub(crate) async fn run(run: &Run<'_>, request: &TabsRequest) -> Outcome {
    let result = match &request.action {
        TabsAction::List => list(run).await,
        TabsAction::Focus { tab } => focus(run, tab).await,
        TabsAction::Close { tab } => close(run, tab).await,
    };
    result.unwrap_or_else(|outcome| outcome)
}

/// The live list of this workspace's tabs; slots whose tab vanished are unbound.
async fn list(run: &Run<'_>) -> Step<Outcome> {
    let tabs = run.port().tabs().await.map_err(|e| run.fail(&e, "list the tabs", None))?;
    let mut listed = Vec::new();
    for slot in run.workspace.slots() {
        let Some(tab) = slot.tab() else { continue };
        let Some(info) = tabs.iter().find(|info| info.tab == tab) else {
            run.forget_tab(&slot);
            continue;
        };
        slot.observe(&info.page.document, &info.page.url);
        let mut item = Map::new();
        item.insert("tab".into(), json!(slot.handle.as_str()));
        item.insert("title".into(), json!(run.title(&info.page).unwrap_or_default()));
        item.insert("url".into(), json!(run.url(&info.page)));
        item.insert("active".into(), json!(info.active));
        item.insert("readiness".into(), json!(info.page.readiness.as_str()));
        listed.push(Value::Object(item));
    }
    let summary = match listed.len() {
        0 => "No controlled tabs are open in this session.".to_owned(),
        n => format!("Listed {}.", count(n, "controlled tab", "controlled tabs")),
    };
    let mut outcome =
        Outcome::read(summary).fact(facts::COUNT, listed.len()).fact(facts::TABS, Value::Array(listed));
    if outcome.facts["count"] == 0 {
        outcome = outcome.next("Call browser_navigate with a url to open a tab.");
    }
    Ok(outcome)
}

async fn focus(run: &Run<'_>, handle: &Handle) -> Step<Outcome> {
    let lease = run.lease(Some(handle)).await?;
    run.dispatching();
    let focused =
        run.port().focus_tab(&lease.tab).await.map_err(|e| run.fail_on(&lease, &e, "focus the tab", None))?;
    let host = lease.slot.state().url.map(|url| host_of(&url));
    let summary = match &host {
        Some(host) => format!("Focused the {host} tab."),
        None => format!("Focused {handle}."),
    };
    let mut outcome = Outcome::applied(summary, true)
        .fact(facts::TAB, handle.as_str())
        .fact(facts::ACTIVE, true)
        .fact(facts::WINDOW_FOCUSED, focused.window_focused);
    if let Some(host) = host {
        outcome = outcome.fact(facts::HOST, host);
    }
    Ok(outcome)
}

/// Close a tab; a tab already gone succeeds without touching the browser.
async fn close(run: &Run<'_>, handle: &Handle) -> Step<Outcome> {
    let slot = run.workspace.slot(handle).ok_or_else(|| unknown_handle(handle))?;
    // A sequence or flow already holds its own tab's lock; taking it again would deadlock.
    let pinned = run.pinned.as_ref().is_some_and(|pinned| Arc::ptr_eq(pinned, &slot));
    let _guard = if pinned { None } else { Some(slot.work.clone().lock_owned().await) };
    let already = || {
        Outcome::read(format!("{handle} was already closed; nothing to do."))
            .fact(facts::TAB, handle.as_str())
            .fact(facts::CLOSED, true)
    };
    let Some(tab) = slot.tab() else { return Ok(already()) };
    let place = slot.state().url.map(|url| host_of(&url));
    run.dispatching();
    match run.port().close_tab(&tab).await {
        Ok(()) => {}
        Err(error) if error.kind() == PortErrorKind::TabGone => {
            run.forget_tab(&slot);
            return Ok(already());
        }
        Err(error) if error.kind() == PortErrorKind::TabPreserved => {
            return Err(Outcome::failed(
                "tab_preserved",
                format!("The browser's preserve-tabs setting keeps {handle} open; it was not closed."),
            )
            .with_status(Status::Blocked)
            .fact(facts::TAB, handle.as_str())
            .fact(facts::CLOSED, false));
        }
        Err(error) => return Err(run.fail(&error, "close the tab", None).fact(facts::TAB, handle.as_str())),
    }
    run.forget_tab(&slot);
    let summary = match &place {
        Some(host) => format!("Closed the {host} tab."),
        None => format!("Closed {handle}."),
    };
    let mut outcome = Outcome::applied(summary, true)
        .with_effect(Effect::Applied)
        .fact(facts::TAB, handle.as_str())
        .fact(facts::CLOSED, true);
    if let Some(host) = place {
        outcome = outcome.fact(facts::HOST, host);
    }
    Ok(outcome)
}
