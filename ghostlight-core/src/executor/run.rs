//! [`Run`]: one invocation's context, and the steps every tool shares — choose and lock the
//! tab, observe its page, authorize that page, resolve target and view handles, govern a
//! landing, render a port failure.
//!
//! Helpers answer `Step<T>` (`Result<T, Outcome>`): the error side is already the outcome to
//! return, so tool code reads as a straight line of `?`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use futures::lock::OwnedMutexGuard;
use serde_json::{Map, Value, json};
use url::Url;

use crate::authority::{AuditRecord, AuthoritySnapshot, Blocked, Refusal, Requirement, Site};
use crate::catalog::ToolName;
use crate::handles::Handle;
use crate::language::{bound_visible, normalize_name, target_phrase};
use crate::limits::TITLE_CHARS;
use crate::port::{
    BrowserPort, ElementRef, Gate, PageState, PerceiveInput, PerceiveScope, PerceivedElement, Point,
    PortError, PortErrorKind, TabRef,
};
use crate::selector::{Role, Selector};
use crate::tools::common::{TargetRef, ViewPoint};
use crate::vocab::CredentialClass;

use super::Shared;
use super::outcome::{LIST_TABS, Outcome, RECAPTURE, REINSPECT, port_failure};
use super::progress::{NoProgress, Progress};
use super::selector_match::{SelectorMatch, match_selector};
use super::workspace::{TabSlot, TargetEntry, ViewEntry, Workspace};

/// The result of a shared step: the value, or the outcome to answer with.
pub(crate) type Step<T> = Result<T, Outcome>;

/// How many elements a selector resolution looks at.
pub(crate) const SELECTOR_SCAN_ITEMS: usize = 2_000;
/// How many candidates an ambiguous selector lists.
pub(crate) const AMBIGUOUS_CANDIDATES: usize = 5;
/// Tolerance when comparing a view's bound scroll origin with the current one (CSS px).
const SCROLL_TOLERANCE: f64 = 0.5;

/// One invocation (or one child step of a sequence or flow).
pub(crate) struct Run<'a> {
    pub(crate) shared: &'a Shared,
    pub(crate) workspace: &'a Workspace,
    pub(crate) snapshot: AuthoritySnapshot,
    pub(crate) invocation: Handle,
    pub(crate) tool: ToolName,
    pub(crate) requirement: Requirement,
    /// Set when work that may have an effect is sent to the browser (shared with the
    /// canceller, which reports `effect: unknown` once it is set).
    pub(crate) dispatched: &'a AtomicBool,
    /// The tab a composite holds locked for its children.
    pub(crate) pinned: Option<Arc<TabSlot>>,
    pub(crate) started: Instant,
    /// Who watches this invocation's steps (children report to their composite's watcher).
    pub(crate) progress: &'a dyn Progress,
    audit: Mutex<Option<AuditRecord>>,
}

/// A tab chosen and locked for this invocation.
pub(crate) struct Lease {
    pub(crate) slot: Arc<TabSlot>,
    pub(crate) tab: TabRef,
    _guard: Option<OwnedMutexGuard<()>>,
}

impl Lease {
    /// The durable handle.
    pub(crate) fn handle(&self) -> &Handle {
        &self.slot.handle
    }
}

/// What a tab shows, with its generation.
#[derive(Debug, Clone)]
pub(crate) struct Page {
    pub(crate) state: PageState,
    pub(crate) generation: u64,
}

/// A target resolved to the browser's element.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub(crate) element: ElementRef,
    pub(crate) role: Role,
    pub(crate) name: Option<String>,
    pub(crate) credential: Option<CredentialClass>,
    /// The target handle, when the call used one.
    pub(crate) handle: Option<Handle>,
}

/// A committed navigation an action caused.
#[derive(Debug, Clone)]
pub(crate) struct Landing {
    pub(crate) fact: Value,
    pub(crate) host: String,
    pub(crate) inside: bool,
}

impl<'a> Run<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        shared: &'a Shared,
        workspace: &'a Workspace,
        snapshot: AuthoritySnapshot,
        invocation: Handle,
        requirement: Requirement,
        dispatched: &'a AtomicBool,
        pinned: Option<Arc<TabSlot>>,
    ) -> Self {
        Run {
            shared,
            workspace,
            snapshot,
            invocation,
            tool: requirement.tool(),
            requirement,
            dispatched,
            pinned,
            started: Instant::now(),
            progress: &NoProgress,
            audit: Mutex::new(None),
        }
    }

    /// Report this run's steps to `progress`.
    pub(crate) fn observed(mut self, progress: &'a dyn Progress) -> Self {
        self.progress = progress;
        self
    }

    /// The browser.
    pub(crate) fn port(&self) -> &dyn BrowserPort {
        self.shared.port.as_ref()
    }

    /// Mark that effectful work is being sent to the browser.
    pub(crate) fn dispatching(&self) {
        self.dispatched.store(true, Ordering::SeqCst);
    }

    /// Whether target names may appear in action summaries.
    pub(crate) fn preserve_names(&self) -> bool {
        self.snapshot.authority().preserve_target_names().value
    }

    /// A target as an action sentence names it (privacy applied).
    pub(crate) fn phrase(&self, role: Role, name: Option<&str>) -> String {
        target_phrase(role, name, self.preserve_names())
    }

    /// Authorize the requirement for the page at `url` (or statically, with `None`), and keep
    /// the audit record of the decision.
    pub(crate) fn authorize(&self, url: Option<&Url>) -> Step<()> {
        let decision = self.snapshot.authorize(&self.requirement, url);
        let record = AuditRecord::authorized(self.invocation.clone(), &self.requirement, &decision);
        *self.audit.lock().unwrap_or_else(|p| p.into_inner()) = Some(record);
        decision.map(|_| ()).map_err(|blocked| Outcome::refused(&Refusal::Blocked(blocked)))
    }

    /// The audit record so far (taken once, at the end).
    pub(crate) fn take_audit(&self) -> Option<AuditRecord> {
        self.audit.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// Render a port failure of `doing`.
    pub(crate) fn fail(&self, error: &PortError, doing: &str, timeout_ms: Option<u64>) -> Outcome {
        if error.kind() == PortErrorKind::CredentialTarget {
            return Outcome::handoff(self.tool, CredentialClass::Password, None, None);
        }
        if let Some(url) = error.refused_document() {
            // The adapter's gate refused a frame: the same refusal as the executor's own check
            // (a gate the executor built refuses only what `authorize_document` refuses).
            if let Err(blocked) = self.snapshot.authorize_document(self.tool, url) {
                return self.frame_blocked(blocked);
            }
        }
        port_failure(error, doing, self.port().engine(), timeout_ms)
    }

    /// The gate of this invocation: the documents its input and captures may reach (see
    /// [`Gate`]), from the same snapshot that authorized it.
    pub(crate) fn gate(&self) -> Gate {
        let snapshot = self.snapshot.clone();
        Gate::new(move |url| snapshot.admits_document(url))
    }

    /// Authorize reaching documents inside the tab's page: the frames `frames` (outermost
    /// first) that input would land in. The page itself was authorized on entry.
    pub(crate) fn authorize_frames(&self, lease: &Lease, frames: &[Url]) -> Step<()> {
        for url in frames {
            self.snapshot
                .authorize_document(self.tool, url)
                .map_err(|blocked| self.frame_blocked(blocked).fact("tab", lease.handle().as_str()))?;
        }
        Ok(())
    }

    /// The refusal of a frame outside authority, recorded in the audit as a block.
    fn frame_blocked(&self, blocked: Blocked) -> Outcome {
        let mut audit = self.audit.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(record) = audit.take() {
            *audit = Some(record.blocked_by(&blocked));
        }
        Outcome::refused(&Refusal::Blocked(blocked))
    }

    /// Render a port failure on `lease`'s tab; a tab found gone is unbound from its slot.
    pub(crate) fn fail_on(
        &self,
        lease: &Lease,
        error: &PortError,
        doing: &str,
        timeout_ms: Option<u64>,
    ) -> Outcome {
        if error.kind() == PortErrorKind::TabGone {
            self.forget_tab(&lease.slot);
        }
        self.fail(error, doing, timeout_ms).fact("tab", lease.handle().as_str())
    }

    /// The slot's tab is gone: unbind it and release the claim.
    pub(crate) fn forget_tab(&self, slot: &TabSlot) {
        if let Some(tab) = slot.unbind() {
            self.shared.claims.release(&tab);
        }
    }

    // ----- tabs -------------------------------------------------------------------------

    /// Choose the tab (`explicit`, or the default) and lock it for this invocation.
    pub(crate) async fn lease(&self, explicit: Option<&Handle>) -> Step<Lease> {
        if let Some(pinned) = &self.pinned {
            if let Some(handle) = explicit
                && handle != &pinned.handle
            {
                return Err(Outcome::failed(
                    "different_tab",
                    format!(
                        "This step names {handle}, but its {} runs on {}; steps cannot change tabs.",
                        self.composite_noun(),
                        pinned.handle
                    ),
                ));
            }
            let tab = pinned.tab().ok_or_else(|| self.closed(&pinned.handle))?;
            return Ok(Lease { slot: pinned.clone(), tab, _guard: None });
        }
        let slot = match explicit {
            Some(handle) => self.workspace.slot(handle).ok_or_else(|| unknown_handle(handle))?,
            None => self.default_slot().await?,
        };
        let guard = slot.work.clone().lock_owned().await;
        let tab = slot.tab().ok_or_else(|| self.closed(&slot.handle))?;
        Ok(Lease { slot, tab, _guard: Some(guard) })
    }

    /// Refuse to add a tab when the workspace already holds its limit of live tabs.
    pub(crate) fn within_tab_limit(&self) -> Step<()> {
        let limit = self.shared.limits.tabs;
        let live = self.workspace.slots().iter().filter(|slot| slot.tab().is_some()).count();
        if live < limit {
            return Ok(());
        }
        Err(Outcome::failed(
            "tab_limit",
            format!("This session already holds {live} tabs, its limit, so no tab was opened."),
        )
        .fact("tab_count", live)
        .fact("limit", limit)
        .next("Close a tab you no longer need with browser_tabs action \"close\", then repeat the call."))
    }

    fn composite_noun(&self) -> &'static str {
        "sequence or flow"
    }

    fn closed(&self, handle: &Handle) -> Outcome {
        Outcome::failed(
            "tab_closed",
            format!("The tab {handle} has closed. Navigate by its handle to reopen it, or pick another tab."),
        )
        .fact("tab", handle.as_str())
        .next(LIST_TABS)
    }

    /// The default tab: the workspace's only live tab, or the one of its tabs selected in its
    /// window when exactly one is.
    pub(crate) async fn default_slot(&self) -> Step<Arc<TabSlot>> {
        let live: Vec<Arc<TabSlot>> =
            self.workspace.slots().into_iter().filter(|slot| slot.tab().is_some()).collect();
        match live.as_slice() {
            [] => Err(Outcome::failed("no_tab", "No controlled tab is open yet.")
                .next(LIST_TABS)
                .next("Call browser_navigate with a url to open one.")),
            [one] => Ok(one.clone()),
            _ => {
                let tabs = self.port().tabs().await.map_err(|e| self.fail(&e, "choose a tab", None))?;
                // A tab that closed meanwhile (its page closed it) no longer counts.
                let live: Vec<Arc<TabSlot>> = live
                    .into_iter()
                    .filter(|slot| {
                        let open = slot.tab().is_some_and(|tab| tabs.iter().any(|info| info.tab == tab));
                        if !open {
                            self.forget_tab(slot);
                        }
                        open
                    })
                    .collect();
                match live.as_slice() {
                    [] => {
                        return Err(Outcome::failed("no_tab", "No controlled tab is open any more.")
                            .next(LIST_TABS)
                            .next("Call browser_navigate with a url to open one."));
                    }
                    [one] => return Ok(one.clone()),
                    _ => {}
                }
                let active: Vec<&Arc<TabSlot>> = live
                    .iter()
                    .filter(|slot| tabs.iter().any(|t| t.active && Some(&t.tab) == slot.tab().as_ref()))
                    .collect();
                match active.as_slice() {
                    [one] => Ok((*one).clone()),
                    _ => {
                        let why = match active.len() {
                            0 => "none of them is selected in its window".to_owned(),
                            n => format!("{n} of them are selected in their windows"),
                        };
                        Err(Outcome::failed(
                            "ambiguous_tab",
                            format!(
                                "{} controlled tabs are open and {why}, so name one with tab.",
                                live.len()
                            ),
                        )
                        .fact("tab_count", live.len())
                        .fact("selected_count", active.len())
                        .next(LIST_TABS))
                    }
                }
            }
        }
    }

    /// What the leased tab shows now; a new document starts a new generation.
    pub(crate) async fn observe(&self, lease: &Lease) -> Step<Page> {
        match self.port().page(&lease.tab).await {
            Ok(state) => {
                let (generation, _) = lease.slot.observe(&state.document, &state.url);
                Ok(Page { state, generation })
            }
            Err(error) => Err(self.fail_on(lease, &error, "read the tab's page", None)),
        }
    }

    /// Lease, observe and authorize the page: the opening of every tab-bound tool.
    pub(crate) async fn enter(&self, explicit: Option<&Handle>) -> Step<(Lease, Page)> {
        let lease = self.lease(explicit).await?;
        let page = self.observe(&lease).await?;
        self.authorize(Some(&page.state.url)).map_err(|o| o.fact("tab", lease.handle().as_str()))?;
        Ok((lease, page))
    }

    /// Record a page state an operation returned; answers the landing when it committed a
    /// new document.
    pub(crate) fn land(&self, lease: &Lease, state: &PageState) -> Option<Landing> {
        let (generation, changed) = lease.slot.observe(&state.document, &state.url);
        if !changed {
            return None;
        }
        let governed = self.snapshot.govern(&state.url);
        let mut fact = Map::new();
        fact.insert("url".into(), json!(governed.as_str()));
        if let Some(title) = self.title(state) {
            fact.insert("title".into(), json!(title));
        }
        fact.insert("document_generation".into(), json!(generation));
        if !governed.is_inside() {
            fact.insert("outside_authority".into(), json!(true));
        }
        Some(Landing { fact: Value::Object(fact), host: host_of(&state.url), inside: governed.is_inside() })
    }

    /// Add a landing to an action's outcome: the fact, a clause in the summary, the audit
    /// site, and a way back when it left authority.
    pub(crate) fn with_landing(
        &self,
        mut outcome: Outcome,
        landing: Option<Landing>,
        state: &PageState,
    ) -> Outcome {
        let Some(landing) = landing else { return outcome };
        outcome.facts.insert("landing".into(), landing.fact);
        outcome.landing = Site::from_url(&state.url);
        let end = outcome.summary.trim_end_matches('.').to_owned();
        if landing.inside {
            outcome.summary = format!("{end}; the page moved to {}.", landing.host);
        } else {
            outcome.summary =
                format!("{end}; the page moved to {}, which is outside authority.", landing.host);
            outcome
                .next_steps
                .insert(0, "Use browser_navigate to take the tab back to an allowed host.".into());
        }
        outcome.readiness = state.readiness;
        outcome
    }

    /// The page title, normalized and bounded; none for a page outside authority, which is
    /// described only by its governed URL (`scheme://host[:port]`).
    pub(crate) fn title(&self, state: &PageState) -> Option<String> {
        if !self.snapshot.govern(&state.url).is_inside() {
            return None;
        }
        bound_visible(&state.title, TITLE_CHARS)
    }

    /// The governed URL text of a page.
    pub(crate) fn url(&self, state: &PageState) -> String {
        self.snapshot.govern(&state.url).as_str().to_owned()
    }

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
            .fact("target", handle.as_str())
            .next(REINSPECT)
        })?;
        if &entry.slot != lease.handle() {
            return Err(Outcome::failed(
                "wrong_tab",
                format!("{handle} belongs to {}, not to {}.", entry.slot, lease.handle()),
            )
            .fact("target", handle.as_str())
            .fact("target_tab", entry.slot.as_str())
            .fact("tab", lease.handle().as_str()));
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
        let input = PerceiveInput { scope: PerceiveScope::All, max_items: SELECTOR_SCAN_ITEMS };
        let perception = self
            .port()
            .perceive(&lease.tab, &input, &self.gate())
            .await
            .map_err(|e| self.fail_on(lease, &e, "look for the named control", None))?;
        let mut matched = match_selector(selector, &perception.elements);
        // Nothing is called that: look for an element showing the text (a clickable `div`, a
        // drop zone's label), matched and named by its visible text (never an editable value).
        let by_text: Vec<PerceivedElement>;
        if matches!(matched, SelectorMatch::None) && matches!(selector.role, None | Some(Role::Control)) {
            let found = self
                .port()
                .find_text(&lease.tab, &selector.name, false, SELECTOR_SCAN_ITEMS, &self.gate())
                .await
                .map_err(|e| self.fail_on(lease, &e, "look for the named control", None))?;
            by_text = found
                .into_iter()
                .map(|mut element| {
                    if let Some(text) = element.text.take() {
                        element.name = Some(text);
                    }
                    element
                })
                .collect();
            matched = match_selector(selector, &by_text);
        }
        match matched {
            SelectorMatch::One(element) => {
                let _ = page;
                Ok(resolved_from(element))
            }
            SelectorMatch::None => Err(Outcome::failed(
                "no_match",
                format!("No {} is on the page.", selector_phrase(selector)),
            )
            .fact("tab", lease.handle().as_str())
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
                        if let Some(name) = element.name.as_deref().and_then(normalize_name) {
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
                .fact("tab", lease.handle().as_str())
                .fact("match_count", candidates.len())
                .fact("candidates", Value::Array(listed))
                .next("Call browser_find with the text to get one target handle per match, then use one."))
            }
        }
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
                .fact("view", handle.as_str())
                .next(RECAPTURE)
        })?;
        if &view.slot != lease.handle() {
            return Err(Outcome::failed(
                "wrong_tab",
                format!("{handle} was captured on {}, not on {}.", view.slot, lease.handle()),
            )
            .fact("view", handle.as_str())
            .fact("tab", lease.handle().as_str()));
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
        let changed = if geometry.viewport_width != bound.viewport_width
            || geometry.viewport_height != bound.viewport_height
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
            .fact("view", at.view.as_str())
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
            .fact("view", handle.as_str())
            .fact("width", view.width)
            .fact("height", view.height));
        }
        let to_f = |n: u64| n as f64;
        Ok((
            view.origin.0 + (to_f(x) + 0.5) * view.css_per_pixel,
            view.origin.1 + (to_f(y) + 0.5) * view.css_per_pixel,
        ))
    }
}

/// `the "Save" button`-style phrase for a selector (always named: the caller wrote it).
fn selector_phrase(selector: &Selector) -> String {
    let noun = selector.role.map_or("control", |role| role.noun());
    let name = normalize_name(&selector.name).unwrap_or_default();
    format!("{noun} called \"{name}\"")
}

fn resolved_from(element: &PerceivedElement) -> Resolved {
    Resolved {
        element: element.element.clone(),
        role: Role::narrow(&element.role),
        name: element.name.as_deref().and_then(normalize_name),
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
    .fact("target", handle.as_str())
    .fact("tab", tab.as_str())
    .next(REINSPECT)
}

/// The refusal of a stale view.
pub(crate) fn stale_view(handle: &Handle, why: &str) -> Outcome {
    Outcome::failed("view_stale", format!("{handle} is no longer current: {why}."))
        .fact("view", handle.as_str())
        .next(RECAPTURE)
}

/// The refusal of a tab handle this workspace never issued.
pub(crate) fn unknown_handle(handle: &Handle) -> Outcome {
    Outcome::failed("unknown_tab", format!("{handle} is not a tab of this session."))
        .fact("tab", handle.as_str())
        .next(LIST_TABS)
}

/// The host of a URL as a sentence names it (`example.com`, `localhost:8080`), or `a blank
/// page` / the scheme for pages without a web host.
pub(crate) fn host_of(url: &Url) -> String {
    match Site::from_url(url) {
        Some(site) => site.to_string(),
        None if url.as_str() == "about:blank" => "a blank page".to_owned(),
        None => format!("a {}: page", url.scheme()),
    }
}

// ----- credential preflight (input tools) -----------------------------------------------------

impl Run<'_> {
    /// The credential preflight: a credential-class control stops the call before any value
    /// is sent to it, asking for a visible user handoff (`attention_required`, effect none).
    /// `credential` is the control's class as resolved (or as the browser reports the focused
    /// control); `handle` its target handle when the call used one.
    pub(crate) fn preflight(
        &self,
        lease: &Lease,
        page: &Page,
        credential: Option<CredentialClass>,
        handle: Option<&Handle>,
    ) -> Step<()> {
        match credential {
            None => Ok(()),
            Some(class) => {
                Err(Outcome::handoff(self.tool, class, Site::from_url(&page.state.url), handle.cloned())
                    .fact("tab", lease.handle().as_str()))
            }
        }
    }
}
