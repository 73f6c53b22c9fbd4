//! [`Run`]: one invocation's context, and the steps every tool shares — choose and lock the
//! tab, observe its page, authorize that page, resolve target and view handles, govern a
//! landing, render a port failure.
//!
//! The steps live in rooms of their own: `tabs` (choose and lock the tab, observe and enter
//! its page), `in_place` (a read of the whole page, or a step scroll, in the document last seen
//! there, checked in the same round trip), `resolve` (target, selector and view handles,
//! screenshot points), `landing` (where an action left the tab) and `preflight` (credential
//! handoff).
//!
//! Helpers answer `Step<T>` (`Result<T, Outcome>`): the error side is already the outcome to
//! return, so tool code reads as a straight line of `?`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::lock::OwnedMutexGuard;
use serde_json::Value;
use url::Url;

use crate::authority::{
    ArgumentsFingerprint, AuditRecord, AuthoritySnapshot, Blocked, ConfirmAction, ConfirmationAnswer,
    Confirmer, NoConfirmer, Refusal, Requirement, Site,
};
use crate::facts::detail;
use crate::handles::Handle;
use crate::language::target_phrase;
use crate::names::ToolName;
use crate::port::{
    BrowserPort, ElementRef, Gate, PageState, PerceivedElement, PortError, PortErrorKind, TabCall, TabRef,
};
use crate::selector::Role;
use crate::vocab::CredentialClass;

use super::Shared;
use super::outcome::{Outcome, port_failure};
use super::progress::{NoProgress, Progress};
mod confirm;
mod in_place;
mod landing;
mod preflight;
mod resolve;
mod tabs;

pub(crate) use confirm::Asking;
pub(crate) use in_place::PageWork;
pub(crate) use resolve::{stale_target, unknown_handle};

use super::workspace::{TabSlot, Workspace};

/// The result of a shared step: the value, or the outcome to answer with.
pub(crate) type Step<T> = Result<T, Outcome>;

/// How many elements a selector resolution looks at.
pub(crate) const SELECTOR_SCAN_ITEMS: usize = 2_000;
/// How many candidates an ambiguous selector lists.
pub(crate) const AMBIGUOUS_CANDIDATES: usize = 5;
/// Tolerance when comparing a view's bound scroll origin with the current one (CSS px).
const SCROLL_TOLERANCE: f64 = 0.5;
/// How far (CSS px) a viewport's width or height may differ from a view's bound one for the
/// view to stay current: Chromium's own rounding after a zoom or a window resize can move it
/// by one pixel (measured: a 656 px viewport became 657 with nothing asked of it), which
/// moves nothing the view shows by more than that pixel.
const VIEWPORT_SIZE_TOLERANCE: u32 = 1;

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
    /// Who asks the person before an action `[confirm]` names (default: nobody can).
    pub(crate) confirmer: &'a dyn Confirmer,
    /// A one-way fingerprint of the call's decoded arguments (confirmation digests).
    pub(crate) fingerprint: ArgumentsFingerprint,
    audit: Mutex<Option<AuditRecord>>,
    /// The page's elements as the last selector resolution perceived them, reused by the
    /// next one on the same tab and document generation until input is dispatched (a form's
    /// fields are resolved against one perception, not one each).
    scan: Mutex<Option<SelectorScan>>,
}

/// One perception of a tab's page made to resolve selectors (see `Run::scan`).
struct SelectorScan {
    tab: TabRef,
    generation: u64,
    elements: Arc<[PerceivedElement]>,
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
            confirmer: &NoConfirmer,
            fingerprint: ArgumentsFingerprint([0; 32]),
            audit: Mutex::new(None),
            scan: Mutex::new(None),
        }
    }

    /// Report this run's steps to `progress`.
    pub(crate) fn observed(mut self, progress: &'a dyn Progress) -> Self {
        self.progress = progress;
        self
    }

    /// Ask confirmations through `confirmer`, for the call whose arguments have `fingerprint`.
    pub(crate) fn confirming(
        mut self,
        confirmer: &'a dyn Confirmer,
        fingerprint: ArgumentsFingerprint,
    ) -> Self {
        self.confirmer = confirmer;
        self.fingerprint = fingerprint;
        self
    }

    /// Record in the audit record the confirmation asked during this call.
    pub(crate) fn note_confirmation(&self, action: ConfirmAction, answer: ConfirmationAnswer) {
        let mut audit = self.audit.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(record) = audit.take() {
            *audit = Some(record.confirmed(action, answer));
        }
    }

    /// The browser.
    pub(crate) fn port(&self) -> &dyn BrowserPort {
        self.shared.port.as_ref()
    }

    /// `work`'s answer, or `None` when it has not answered within `limit`
    /// ([`BrowserPort::deadline`]; the work is then dropped: only for work without effect,
    /// such as a read).
    pub(crate) async fn within<T>(
        &self,
        limit: std::time::Duration,
        work: impl Future<Output = T>,
    ) -> Option<T> {
        let work = std::pin::pin!(work);
        let timer = self.port().deadline(limit);
        match futures::future::select(work, timer).await {
            futures::future::Either::Left((answer, _)) => Some(answer),
            futures::future::Either::Right(_) => None,
        }
    }

    /// Mark that effectful work is being sent to the browser.
    pub(crate) fn dispatching(&self) {
        self.dispatched.store(true, Ordering::SeqCst);
        // Input may change the page: the next selector is resolved against a new perception.
        *self.scan.lock().unwrap_or_else(|p| p.into_inner()) = None;
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

    /// A port call on `tab` under this invocation's gate, within `timeout`.
    pub(crate) fn on<'t>(&self, tab: &'t TabRef, timeout: Duration) -> TabCall<'t> {
        TabCall { tab, gate: self.gate(), timeout }
    }

    /// A read of `tab`'s page under this invocation's gate, within the read bound.
    pub(crate) fn reading<'t>(&self, tab: &'t TabRef) -> TabCall<'t> {
        self.on(tab, Duration::from_millis(crate::limits::READ_CALL_MS))
    }

    /// Authorize reaching documents inside the tab's page: the frames `frames` (outermost
    /// first) that input would land in. The page itself was authorized on entry.
    pub(crate) fn authorize_frames(&self, lease: &Lease, frames: &[Url]) -> Step<()> {
        for url in frames {
            self.snapshot
                .authorize_document(self.tool, url)
                .map_err(|blocked| self.frame_blocked(blocked).fact(detail::TAB, lease.handle().as_str()))?;
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
        self.fail(error, doing, timeout_ms).fact(detail::TAB, lease.handle().as_str())
    }
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
