//! `browser_window`: set a tab's zoom, or resize the window containing it.
//!
//! Zoom is tab-bound (it changes how the page renders, so the page must be inside
//! authority). Resize changes window geometry only and needs no page authorization: the tab
//! is leased and observed, never authorized against its page.
//!
//! Both report the geometry the browser observed afterwards, which may differ from what was
//! asked (window managers clamp sizes, engines round zoom). View handles captured before go
//! stale by themselves: `Run::point` compares a view's bound geometry with the current one.

use serde_json::{Map, Value, json};

use super::facts;
use crate::port::Geometry;
use crate::tools::window::{WindowAction, WindowRequest};

use crate::operation::outcome::Outcome;
use crate::operation::run::{Run, Step, host_of};

/// The next step after geometry changed: earlier views no longer map coordinates.
const RECAPTURE_AFTER: &str =
    "Call browser_screenshot for a new view before using coordinates; earlier views no longer match.";

pub(crate) async fn run(run: &Run<'_>, request: &WindowRequest) -> Outcome {
    window(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn window(run: &Run<'_>, request: &WindowRequest) -> Step<Outcome> {
    match request.action {
        WindowAction::Zoom { percent } => zoom(run, request, percent).await,
        WindowAction::Resize { width, height } => resize(run, request, width, height).await,
    }
}

async fn zoom(run: &Run<'_>, request: &WindowRequest, percent: u64) -> Step<Outcome> {
    let (lease, page) = run.enter(request.tab.as_ref()).await?;
    let host = host_of(&page.state.url);
    let requested = u32::try_from(percent).unwrap_or(u32::MAX);
    run.dispatching();
    let observed = run.port().set_zoom(&lease.tab, requested).await.map_err(|e| {
        run.fail_on(&lease, &e, &format!("set the zoom of {host} to {percent}%"), None)
            .fact(facts::ACTION, "zoom")
            .fact(facts::PERCENT, percent)
            .fact(facts::HOST, host.clone())
    })?;
    let viewport = format!("{}×{}", observed.viewport_width, observed.viewport_height);
    let summary = if observed.zoom_percent == requested {
        format!("Set the zoom of {host} to {percent}%; the viewport is now {viewport}.")
    } else {
        format!(
            "Asked for {percent}% zoom on {host}; the browser reports {}% (viewport {viewport}).",
            observed.zoom_percent
        )
    };
    Ok(Outcome::applied(summary, true)
        .with_readiness(page.state.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::ACTION, "zoom")
        .fact(facts::PERCENT, percent)
        .fact(facts::WIDTH, None::<u64>)
        .fact(facts::HEIGHT, None::<u64>)
        .fact(facts::OBSERVED, observed_fact(&observed))
        .fact(facts::HOST, host)
        .next(RECAPTURE_AFTER))
}

async fn resize(run: &Run<'_>, request: &WindowRequest, width: u64, height: u64) -> Step<Outcome> {
    // Window geometry, not page work: no page authorization (see the module documentation).
    let lease = run.lease(request.tab.as_ref()).await?;
    let page = run.observe(&lease).await?;
    let host = host_of(&page.state.url);
    let (w, h) = (u32::try_from(width).unwrap_or(u32::MAX), u32::try_from(height).unwrap_or(u32::MAX));
    run.dispatching();
    let observed = run.port().resize_window(&lease.tab, w, h).await.map_err(|e| {
        run.fail_on(&lease, &e, &format!("resize the window of {host} to {width}×{height}"), None)
            .fact(facts::ACTION, "resize")
            .fact(facts::WIDTH, width)
            .fact(facts::HEIGHT, height)
            .fact(facts::HOST, host.clone())
    })?;
    let viewport = format!("{}×{}", observed.viewport_width, observed.viewport_height);
    let summary = if (observed.window_width, observed.window_height) == (w, h) {
        format!("Resized the window of {host} to {width}×{height}; the viewport is now {viewport}.")
    } else {
        format!(
            "Asked for a {width}×{height} window for {host}; the browser made it {}×{} (viewport {viewport}).",
            observed.window_width, observed.window_height
        )
    };
    Ok(Outcome::applied(summary, true)
        .with_readiness(page.state.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::ACTION, "resize")
        .fact(facts::PERCENT, None::<u64>)
        .fact(facts::WIDTH, width)
        .fact(facts::HEIGHT, height)
        .fact(facts::OBSERVED, observed_fact(&observed))
        .fact(facts::HOST, host)
        .next(RECAPTURE_AFTER))
}

/// The `observed` fact: the geometry the browser reports afterwards.
fn observed_fact(geometry: &Geometry) -> Value {
    let mut observed = Map::new();
    observed.insert("viewport_width".into(), json!(geometry.viewport_width));
    observed.insert("viewport_height".into(), json!(geometry.viewport_height));
    observed.insert("window_width".into(), json!(geometry.window_width));
    observed.insert("window_height".into(), json!(geometry.window_height));
    observed.insert("zoom".into(), json!(geometry.zoom_percent));
    Value::Object(observed)
}
