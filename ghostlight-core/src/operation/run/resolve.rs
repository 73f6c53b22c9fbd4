//! Resolving a call's target, selector and view handles to the port's references, and
//! screenshot points to document points.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::facts::detail;
use crate::handles::Handle;
use crate::language::normalize_name;
use crate::operation::outcome::{LIST_TABS, Outcome, RECAPTURE, REINSPECT};
use crate::operation::selector_match::{SelectorMatch, match_selector, shown_name};
use crate::operation::workspace::{TargetEntry, ViewEntry};
use crate::port::{PerceiveInput, PerceiveScope, PerceivedElement, Point};
use crate::selector::{Role, Selector};
use crate::selector::{TargetRef, ViewPoint};

use super::{
    AMBIGUOUS_CANDIDATES, Lease, Page, Resolved, Run, SCROLL_TOLERANCE, SELECTOR_SCAN_ITEMS, SelectorScan,
    Step, VIEWPORT_SIZE_TOLERANCE, host_of,
};

impl Run<'_> {
    // ----- targets ------------------------------------------------------------------------

    /// Resolve a target handle or semantic selector on the leased tab at `page`'s generation.
    pub(crate) async fn target(&self, lease: &Lease, page: &Page, target: &TargetRef) -> Step<Resolved> {
        match target {
            TargetRef::Handle(handle) => self.target_handle(lease, page, handle),
            TargetRef::Selector(selector) => self.select(lease, page, selector).await,
        }
    }

    fn target_handle(&self, lease: &Lease, page: &Page, handle: &Handle) -> Step<Resolved> {
        let entry = self.workspace.target(handle).ok_or_else(|| {
            Outcome::failed(
                "unknown_target",
                format!("{handle} is not a target this session has seen (or it was forgotten)."),
            )
            .fact(detail::TARGET, handle.as_str())
            .next(REINSPECT)
        })?;
        if &entry.slot != lease.handle() {
            return Err(Outcome::failed(
                "wrong_tab",
                format!("{handle} belongs to {}, not to {}.", entry.slot, lease.handle()),
            )
            .fact(detail::TARGET, handle.as_str())
            .fact(detail::TARGET_TAB, entry.slot.as_str())
            .fact(detail::TAB, lease.handle().as_str()));
        }
        if entry.generation != page.generation {
            return Err(stale_target(handle, lease.handle()));
        }
        Ok(Resolved {
            element: entry.element,
            role: entry.role,
            name: entry.name,
            credential: entry.credential,
            handle: Some(handle.clone()),
        })
    }

    async fn select(&self, lease: &Lease, page: &Page, selector: &Selector) -> Step<Resolved> {
        let elements = self.scanned(lease, page).await?;
        let mut matched = match_selector(selector, &elements);
        // Nothing is called that: look for an element showing the text or called so (a
        // clickable `div`, a drop zone), as `browser_find` would find it.
        let by_text: Vec<PerceivedElement>;
        if matches!(matched, SelectorMatch::None) && matches!(selector.role, None | Some(Role::Control)) {
            by_text = self
                .port()
                .perceive(
                    &self.reading(&lease.tab),
                    &PerceiveInput::matching(&selector.name, false, SELECTOR_SCAN_ITEMS),
                )
                .await
                .map(|found| found.elements)
                .map_err(|e| self.fail_on(lease, &e, "look for the named control", None))?;
            matched = match_selector(selector, &by_text);
        }
        match matched {
            SelectorMatch::One(element) => Ok(resolved_from(element)),
            SelectorMatch::None => Err(Outcome::failed(
                "no_match",
                format!("No {} is on the page.", selector_phrase(selector)),
            )
            .fact(detail::TAB, lease.handle().as_str())
            .next(
                "Call browser_find with part of the name, or browser_inspect, to see what the page offers.",
            )),
            SelectorMatch::Ambiguous(candidates) => {
                let listed: Vec<Value> = candidates
                    .iter()
                    .take(AMBIGUOUS_CANDIDATES)
                    .map(|element| {
                        let mut item = Map::new();
                        item.insert("role".into(), json!(Role::narrow(&element.role).token()));
                        if let Some(name) = shown_name(element) {
                            item.insert("name".into(), json!(name));
                        }
                        Value::Object(item)
                    })
                    .collect();
                Err(Outcome::failed(
                    "ambiguous_selector",
                    format!(
                        "{} controls match {}; Ghostlight acts only on one.",
                        candidates.len(),
                        selector_phrase(selector)
                    ),
                )
                .fact(detail::TAB, lease.handle().as_str())
                .fact(detail::MATCH_COUNT, candidates.len())
                .fact(detail::CANDIDATES, Value::Array(listed))
                .next("Call browser_find with the text to get one target handle per match, then use one."))
            }
        }
    }

    /// The page's elements for selector resolution: the scan this run already made of the
    /// same tab and document generation (no input sent since), else a new perception.
    async fn scanned(&self, lease: &Lease, page: &Page) -> Step<Arc<[PerceivedElement]>> {
        {
            let scan = self.scan.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(scan) =
                scan.as_ref().filter(|s| s.tab == lease.tab && s.generation == page.generation)
            {
                return Ok(Arc::clone(&scan.elements));
            }
        }
        let input = PerceiveInput { scope: PerceiveScope::All, max_items: SELECTOR_SCAN_ITEMS };
        let doing = format!("look for the named control on {}", host_of(&page.state.url));
        let perception = self
            .port()
            .perceive(&self.reading(&lease.tab), &input)
            .await
            .map_err(|e| self.fail_on(lease, &e, &doing, None))?;
        let elements: Arc<[PerceivedElement]> = perception.elements.into();
        self.keep_scan(lease, page, Arc::clone(&elements));
        Ok(elements)
    }

    /// Keep `elements`, perceived on the leased tab at `page`, as the scan the next selectors
    /// of this invocation resolve against (until input is dispatched).
    pub(crate) fn keep_scan(&self, lease: &Lease, page: &Page, elements: Arc<[PerceivedElement]>) {
        *self.scan.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(SelectorScan { tab: lease.tab.clone(), generation: page.generation, elements });
    }

    /// Register perceived elements as fresh targets of the leased tab at `generation`.
    pub(crate) fn register(&self, lease: &Lease, generation: u64, element: &PerceivedElement) -> Handle {
        self.workspace.add_target(TargetEntry {
            slot: lease.handle().clone(),
            generation,
            element: element.element.clone(),
            role: Role::narrow(&element.role),
            name: element.name.as_deref().and_then(normalize_name),
            credential: element.credential,
        })
    }

    // ----- views --------------------------------------------------------------------------

    /// Look up a view of the leased tab that is still current at `page`.
    pub(crate) fn view(&self, lease: &Lease, page: &Page, handle: &Handle) -> Step<ViewEntry> {
        let view = self.workspace.view(handle).ok_or_else(|| {
            Outcome::failed("unknown_view", format!("{handle} is not a view this session has captured."))
                .fact(detail::VIEW, handle.as_str())
                .next(RECAPTURE)
        })?;
        if &view.slot != lease.handle() {
            return Err(Outcome::failed(
                "wrong_tab",
                format!("{handle} was captured on {}, not on {}.", view.slot, lease.handle()),
            )
            .fact(detail::VIEW, handle.as_str())
            .fact(detail::TAB, lease.handle().as_str()));
        }
        if view.generation != page.generation {
            return Err(stale_view(handle, "the page has navigated since it was captured"));
        }
        Ok(view)
    }

    /// A view of the leased tab whose geometry binding still holds now (same viewport size,
    /// device scale and zoom, and, for a viewport or region view, the same scroll origin),
    /// with the tab's current geometry: what coordinate input and region captures need.
    pub(crate) async fn current_view(
        &self,
        lease: &Lease,
        page: &Page,
        handle: &Handle,
    ) -> Step<(ViewEntry, crate::port::Geometry)> {
        let view = self.view(lease, page, handle)?;
        let geometry = self
            .port()
            .geometry(&lease.tab)
            .await
            .map_err(|e| self.fail_on(lease, &e, "read the tab's geometry", None))?;
        let bound = view.geometry;
        let drift = |a: f64, b: f64| (a - b).abs() > SCROLL_TOLERANCE;
        let resized = |a: u32, b: u32| a.abs_diff(b) > VIEWPORT_SIZE_TOLERANCE;
        let changed = if resized(geometry.viewport_width, bound.viewport_width)
            || resized(geometry.viewport_height, bound.viewport_height)
        {
            Some("the viewport was resized")
        } else if drift(geometry.device_scale, bound.device_scale) {
            Some("the device scale changed")
        } else if geometry.zoom_percent != bound.zoom_percent {
            Some("the zoom changed")
        } else if !view.full_page
            && (drift(geometry.scroll_x, bound.scroll_x) || drift(geometry.scroll_y, bound.scroll_y))
        {
            Some("the page scrolled")
        } else {
            None
        };
        if let Some(why) = changed {
            return Err(stale_view(handle, why));
        }
        Ok((view, geometry))
    }

    /// Map image pixel `(x, y)` of a current view to a viewport point, checking that the
    /// view's geometry binding still holds.
    pub(crate) async fn point(&self, lease: &Lease, page: &Page, at: &ViewPoint) -> Step<Point> {
        let (view, geometry) = self.current_view(lease, page, &at.view).await?;
        let doc = self.pixel_to_document(&view, &at.view, at.x, at.y)?;
        let point = Point { x: doc.0 - geometry.scroll_x, y: doc.1 - geometry.scroll_y };
        let inside = point.x >= 0.0
            && point.y >= 0.0
            && point.x < f64::from(geometry.viewport_width)
            && point.y < f64::from(geometry.viewport_height);
        if !inside {
            return Err(Outcome::failed(
                "point_outside_viewport",
                format!("Pixel ({}, {}) of {} is outside the visible viewport now.", at.x, at.y, at.view),
            )
            .fact(detail::VIEW, at.view.as_str())
            .next("Scroll it into view, take a viewport screenshot, and use that view's coordinates."));
        }
        Ok(point)
    }

    /// Document CSS coordinates of the centre of image pixel `(x, y)`.
    pub(crate) fn pixel_to_document(
        &self,
        view: &ViewEntry,
        handle: &Handle,
        x: u64,
        y: u64,
    ) -> Step<(f64, f64)> {
        if x >= u64::from(view.width) || y >= u64::from(view.height) {
            return Err(Outcome::failed(
                "outside_view",
                format!(
                    "Pixel ({x}, {y}) is outside {handle}, whose image is {}×{} pixels (from (0, 0)).",
                    view.width, view.height
                ),
            )
            .fact(detail::VIEW, handle.as_str())
            .fact(detail::WIDTH, view.width)
            .fact(detail::HEIGHT, view.height));
        }
        let to_f = |n: u64| n as f64;
        Ok((
            view.origin.0 + (to_f(x) + 0.5) * view.css_per_pixel,
            view.origin.1 + (to_f(y) + 0.5) * view.css_per_pixel,
        ))
    }
}

/// `the "Save" button`-style phrase for a selector (always named: the caller wrote it).
pub(super) fn selector_phrase(selector: &Selector) -> String {
    let noun = selector.role.map_or("control", |role| role.noun());
    let name = normalize_name(&selector.name).unwrap_or_default();
    format!("{noun} called \"{name}\"")
}

pub(super) fn resolved_from(element: &PerceivedElement) -> Resolved {
    Resolved {
        element: element.element.clone(),
        role: Role::narrow(&element.role),
        name: shown_name(element),
        credential: element.credential,
        handle: None,
    }
}

/// The refusal of a stale target.
pub(crate) fn stale_target(handle: &Handle, tab: &Handle) -> Outcome {
    Outcome::failed(
        "target_stale",
        format!("{handle} is stale: the page on {tab} has changed documents since it was inspected."),
    )
    .fact(detail::TARGET, handle.as_str())
    .fact(detail::TAB, tab.as_str())
    .next(REINSPECT)
}

/// The refusal of a stale view.
pub(crate) fn stale_view(handle: &Handle, why: &str) -> Outcome {
    Outcome::failed("view_stale", format!("{handle} is no longer current: {why}."))
        .fact(detail::VIEW, handle.as_str())
        .next(RECAPTURE)
}

/// The refusal of a tab handle this workspace never issued.
pub(crate) fn unknown_handle(handle: &Handle) -> Outcome {
    Outcome::failed("unknown_tab", format!("{handle} is not a tab of this session."))
        .fact(detail::TAB, handle.as_str())
        .next(LIST_TABS)
}
