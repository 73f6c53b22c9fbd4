//! `browser_drag`: drag one current target onto another, or between two points of one
//! current view.
//!
//! Both ends resolve before anything is dispatched (a stale end refuses the whole drag). A
//! drag moves something, so it is never repeat-safe; a drag that commits a navigation reports
//! the landing.

use std::time::Duration;

use super::facts;
use crate::language::target_phrase;
use crate::port::PointerTarget;
use crate::selector::Role;
use crate::tools::common::selects;
use crate::tools::common::{TargetRef, ViewPoint};
use crate::tools::drag::{DragPath, DragRequest};

use crate::operation::outcome::Outcome;
use crate::operation::run::{Run, Step, host_of};

pub(crate) async fn run(run: &Run<'_>, request: &DragRequest) -> Outcome {
    drag(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn drag(run: &Run<'_>, request: &DragRequest) -> Step<Outcome> {
    let (lease, page) = run.enter_selecting(request.tab.as_ref(), matches!(&request.path, DragPath::Targets { source, destination } if selects(source) || selects(destination))).await?;
    let host = host_of(&page.state.url);
    let mut handles = Vec::new();
    let (from, to, planned) = match &request.path {
        DragPath::Targets { source, destination } => {
            let source_resolved = run.target(&lease, &page, source).await?;
            let destination_resolved = run.target(&lease, &page, destination).await?;
            for (key, target) in [(facts::SOURCE_TARGET, source), (facts::DESTINATION_TARGET, destination)] {
                if let TargetRef::Handle(handle) = target {
                    handles.push((key, handle.clone()));
                }
            }
            let source_phrase = run.phrase(source_resolved.role, source_resolved.name.as_deref());
            let destination_phrase =
                run.phrase(destination_resolved.role, destination_resolved.name.as_deref());
            (
                PointerTarget::Element(source_resolved.element),
                PointerTarget::Element(destination_resolved.element),
                Planned::Targets { source: source_phrase, destination: destination_phrase },
            )
        }
        DragPath::Points { view, start, end } => {
            let start_at = ViewPoint { view: view.clone(), x: start.x, y: start.y };
            let end_at = ViewPoint { view: view.clone(), x: end.x, y: end.y };
            let from = run.point(&lease, &page, &start_at).await?;
            let to = run.point(&lease, &page, &end_at).await?;
            let path = format!("from ({}, {}) to ({}, {}) of {view}", start.x, start.y, end.x, end.y);
            (PointerTarget::Point(from), PointerTarget::Point(to), Planned::Points { path })
        }
    };
    let doing = match &planned {
        Planned::Targets { source, destination } => format!("drag {source} to {destination}"),
        Planned::Points { path } => format!("drag {path}"),
    };
    run.dispatching();
    let receipt = run
        .port()
        .drag(&run.on(&lease.tab, Duration::from_millis(request.timeout_ms)), &from, &to)
        .await
        .map_err(|e| run.fail_on(&lease, &e, &doing, Some(request.timeout_ms)))?;
    // The receipt describes what was physically picked up; fall back to what was perceived.
    let picked = receipt.element.as_ref().map(|element| {
        target_phrase(Role::narrow(&element.role), element.name.as_deref(), run.preserve_names())
    });
    let summary = match (&planned, picked) {
        (Planned::Targets { destination, .. }, Some(source)) => {
            format!("Dragged {source} to {destination} on {host}.")
        }
        (Planned::Targets { source, destination }, None) => {
            format!("Dragged {source} to {destination} on {host}.")
        }
        (Planned::Points { path }, Some(source)) => format!("Dragged {source} {path} on {host}."),
        (Planned::Points { path }, None) => format!("Dragged {path} on {host}."),
    };
    let mut outcome = Outcome::applied(summary, false)
        .with_readiness(receipt.page.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::DRAGGED, true)
        .fact(facts::HOST, host);
    for (key, handle) in handles {
        outcome = outcome.fact(key, handle.as_str());
    }
    if let DragPath::Points { view, .. } = &request.path {
        outcome = outcome.fact(facts::VIEW, view.as_str());
    }
    let landing = run.land(&lease, &receipt.page);
    Ok(run.with_landing(outcome, landing, &receipt.page))
}

/// What the drag was planned to move, as sentences name it.
enum Planned {
    /// Between two targets (phrases with privacy applied).
    Targets { source: String, destination: String },
    /// Between two points: `from (x, y) to (x, y) of view_…`.
    Points { path: String },
}
