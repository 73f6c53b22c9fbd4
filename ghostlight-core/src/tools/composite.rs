//! What `browser_sequence` and `browser_flow` share (their bodies are in their folders'
//! `op.rs`): children run through the same path as a direct call under the parent's one
//! authority snapshot.
//!
//! ```text
//! composite
//!   bind      the tab: leased once and held locked for every step (children are pinned to it)
//!   for each step
//!     produce   the child request (a flow resolves references into earlier envelopes and
//!               decodes again; a problem fails that step without effect)
//!     execute   a child Run: own invocation handle, the same snapshot, the parent's dispatch
//!               flag; static authorization, then the tool's op — exactly as a direct call
//!     audit     one record per child, `child_of` the parent and the step's index
//!     stop      at the first non-success (a flow with `on_error: "continue"` goes on)
//!   aggregate status, effect (none / applied / partial / unknown), per-step rows, summary
//! ```
//!
//! The wrapper's own `timeout_ms` bounds the whole run between steps: once it has elapsed, no
//! further step starts (a step already running keeps its own timeout).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};

use crate::authority::AuditRecord;
use crate::capability::CapabilitySet;
use crate::envelope::{Effect, Envelope, Readiness, Status};
use crate::handles::{Handle, HandleKind};
use crate::names::ToolName;
use crate::tools::request::Request;

use crate::operation::outcome::{Attachment, Outcome};
use crate::operation::run::Run;
use crate::operation::workspace::TabSlot;

/// The closed `reason` of a step refused because it names another tab or a new one.
pub(crate) const DIFFERENT_TAB: &str = "different_tab";
/// The next step after a flow step was refused for naming another tab or a new one.
pub(crate) const OTHER_TAB: &str =
    "Work on another tab in a separate call that names it (browser_navigate opens new tabs).";
/// The closed `reason` of a flow step whose reference did not resolve.
pub(crate) const UNRESOLVED_REFERENCE: &str = "unresolved_reference";
/// The closed `reason` of a composite whose own `timeout_ms` ran out between steps.
pub(crate) const TIMEOUT: &str = "timeout";

// ----- children ---------------------------------------------------------------------------

/// One child step as it ended.
pub(crate) struct ChildRun {
    /// Its canonical envelope (invariants applied), under its own invocation handle.
    pub(crate) envelope: Envelope,
    /// Images it produced (they travel beside the aggregate envelope).
    pub(crate) attachments: Vec<Attachment>,
    /// The capabilities it required; `None` when it was never classified (its arguments did
    /// not resolve or decode).
    pub(crate) capabilities: Option<CapabilitySet>,
}

impl ChildRun {
    pub(crate) fn succeeded(&self) -> bool {
        self.envelope.status == Status::Succeeded
    }

    /// The child's closed `reason` fact, or its status when it has none.
    pub(crate) fn reason(&self) -> String {
        match self.envelope.facts.get("reason").and_then(Value::as_str) {
            Some(reason) => reason.to_owned(),
            None => self.envelope.status.as_str().to_owned(),
        }
    }
}

/// Records a child's audit exactly once: with its outcome, or — when the parent's work is
/// dropped mid-step by a cancellation — as cancelled (effect unknown once anything was
/// dispatched).
struct ChildAudit<'r, 'a> {
    child: &'r Run<'a>,
    parent: &'r Handle,
    index: usize,
    armed: bool,
}

impl ChildAudit<'_, '_> {
    fn finish(mut self, outcome: &Outcome) {
        self.armed = false;
        crate::operation::record_audit(self.child, outcome, Some((self.parent, self.index)));
    }
}

impl Drop for ChildAudit<'_, '_> {
    fn drop(&mut self) {
        if self.armed {
            let effect =
                if self.child.dispatched.load(Ordering::SeqCst) { Effect::Unknown } else { Effect::None };
            let cancelled = Outcome::read(String::new()).with_status(Status::Cancelled).with_effect(effect);
            crate::operation::record_audit(self.child, &cancelled, Some((self.parent, self.index)));
        }
    }
}

/// Run step `index`'s `request` as a child of `run`: its own invocation handle, the parent's
/// snapshot and dispatch flag, pinned to the composite's tab. With `refusal`, the child is
/// authorized statically (authority refusals come first) and then refused without dispatch.
pub(crate) async fn run_child(
    run: &Run<'_>,
    request: &Request,
    index: usize,
    pinned: Option<Arc<TabSlot>>,
    refusal: Option<Outcome>,
) -> ChildRun {
    let invocation = run.workspace.mint(HandleKind::Invocation);
    let requirement = request.requirement();
    let capabilities = requirement.capabilities();
    let child = Run::new(
        run.shared,
        run.workspace,
        run.snapshot.clone(),
        invocation.clone(),
        requirement,
        run.dispatched,
        pinned,
    )
    .observed(run.progress)
    .confirming(run.confirmer, run.fingerprint.child(index));
    let audit = ChildAudit { child: &child, parent: &run.invocation, index, armed: true };
    let outcome = match refusal {
        None => crate::tools::dispatch::execute(&child, request).await,
        Some(refusal) => match child.authorize(None) {
            Err(blocked) => blocked,
            Ok(()) => refusal,
        },
    };
    audit.finish(&outcome);
    let (envelope, attachments, _) = outcome.into_parts(&invocation);
    ChildRun { envelope, attachments, capabilities: Some(capabilities) }
}

/// A flow step that never became a request (its reference did not resolve, or the resolved
/// arguments did not decode): failed without effect, audited as invalid.
pub(crate) fn unresolved_child(run: &Run<'_>, tool: ToolName, index: usize, outcome: Outcome) -> ChildRun {
    let invocation = run.workspace.mint(HandleKind::Invocation);
    let record = AuditRecord::invalid(invocation.clone(), tool).child_of(run.invocation.clone(), index);
    run.shared.audit.record(&record);
    let (envelope, attachments, _) = outcome.into_parts(&invocation);
    ChildRun { envelope, attachments, capabilities: None }
}

// ----- aggregation ------------------------------------------------------------------------

/// What a composite's children add up to. `clean` says every requested step ran and
/// succeeded.
pub(crate) struct Aggregate {
    status: Status,
    effect: Effect,
    repeat_safe: bool,
    readiness: Readiness,
}

/// Add up the children: effect `unknown` if any child's is; `none` if nothing took effect;
/// `applied` when every step ran and succeeded; `partial` otherwise. Status `succeeded` only
/// when clean, else `unknown` if any child's is, else the first non-success's.
pub(crate) fn aggregate(children: &[ChildRun], clean: bool) -> Aggregate {
    let envelopes = || children.iter().map(|child| &child.envelope);
    let effect = if envelopes().any(|e| e.effect == Effect::Unknown) {
        Effect::Unknown
    } else if !envelopes().any(|e| matches!(e.effect, Effect::Applied | Effect::Partial)) {
        Effect::None
    } else if clean && !envelopes().any(|e| e.effect == Effect::Partial) {
        Effect::Applied
    } else {
        Effect::Partial
    };
    let status = if clean {
        Status::Succeeded
    } else if envelopes().any(|e| e.status == Status::Unknown) {
        Status::Unknown
    } else {
        envelopes().map(|e| e.status).find(|s| *s != Status::Succeeded).unwrap_or(Status::Failed)
    };
    Aggregate {
        status,
        effect,
        repeat_safe: clean && envelopes().all(|e| e.repeat_safe),
        // The page as the last step that observed one left it.
        readiness: children
            .iter()
            .rev()
            .map(|child| child.envelope.readiness)
            .find(|r| *r != Readiness::NotApplicable)
            .unwrap_or(Readiness::NotApplicable),
    }
}

/// The aggregate outcome with its status, effect, readiness and the children's attachments.
pub(crate) fn assemble(summary: String, totals: Aggregate, children: &mut [ChildRun]) -> Outcome {
    let mut outcome = Outcome::read(summary)
        .with_status(totals.status)
        .with_effect(totals.effect)
        .with_readiness(totals.readiness);
    outcome.repeat_safe = totals.repeat_safe;
    for child in children.iter_mut() {
        for attachment in child.attachments.drain(..) {
            outcome = outcome.attach(attachment);
        }
    }
    outcome
}

/// Capability names in canonical order, as a JSON array.
pub(crate) fn capability_names(capabilities: CapabilitySet) -> Value {
    Value::Array(capabilities.iter().map(|c| json!(c.as_str())).collect())
}

/// The sentence saying the wrapper's own timeout stopped it before step `next` (zero-based).
pub(crate) fn timeout_sentence(noun: &str, timeout_ms: u64, next: usize) -> String {
    format!(" The {noun}'s {timeout_ms} ms timeout ran out before step {}.", next + 1)
}

/// Whether the wrapper's own timeout has run out.
pub(crate) fn out_of_time(run: &Run<'_>, timeout_ms: u64) -> bool {
    run.started.elapsed() >= Duration::from_millis(timeout_ms)
}
