//! The executor: one call in, one truthful envelope out.
//!
//! ```text
//! invoke(tool, arguments, cancellation)
//!   decode     arguments ─▶ typed Request            (refusal: failed, nothing dispatched)
//!   snapshot   authority ∩ restrictions ─▶ AuthoritySnapshot (immutable, shared with children)
//!   classify   Request ─▶ Requirement
//!   authorize  capabilities, tab-close policy, destination — before any browser contact
//!   resolve    tab (leased: one call per tab at a time), its page (authorized again: a tab
//!              outside authority blocks tab-bound work), target / view handles
//!   confirm    an action `[confirm]` names: the person's yes through the Confirmer, bound to
//!              this call by digest and re-checked against the page before dispatch
//!   dispatch   BrowserPort operation ─▶ typed outcome or PortError
//!   govern     a committed landing is projected under the snapshot
//!   render     Outcome ─▶ Envelope (+ attachments kept apart)
//!   audit      payload-free record to the AuditSink
//! ```
//!
//! Tool-specific steps live in `tools/<tool>/op.rs`; the steps they share live in `run`.

// `Step<T>` is `Result<T, Outcome>`: its error side is the invocation's answer, built once and
// returned straight up; boxing it would cost an allocation and buy nothing.
#![allow(clippy::result_large_err)]

#[cfg(test)]
mod tests;

use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::future::{Either, select};
use serde_json::Value;

use crate::authority::{
    ArgumentsFingerprint, AuditRecord, AuditSink, CompiledAuthority, Confirmer, NoConfirmer,
};
use crate::envelope::{Effect, Envelope, Status};
use crate::facts::detail;
use crate::handles::{Handle, HandleKind};
use crate::names::ToolName;
use crate::port::{BrowserPort, NetworkEnforcement};
use crate::tools::catalog::decode_call;

pub use crate::operation::{
    Attachment, Cancellation, Cancelled, NoProgress, Progress, StepProgress, WorkspaceLimits,
};

use crate::operation::outcome::Outcome;
use crate::operation::run::Run;
use crate::operation::workspace::Workspace;
use crate::operation::{Shared, invalid_arguments, record_audit};
use crate::tools::dispatch::execute;

/// An audit sink that drops records (the default until the host supplies one).
#[derive(Debug, Default)]
pub struct DiscardAudit;

impl AuditSink for DiscardAudit {
    fn record(&self, _record: &AuditRecord) {}
}

/// The result of one invocation: the envelope, and rich content that travels beside it
/// (screenshot PNGs, replay GIFs — never inside the envelope).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The envelope.
    pub envelope: Envelope,
    /// Images, in order.
    pub attachments: Vec<Attachment>,
}

impl ToolResult {
    /// Whether an MCP edge sets `isError`: for every status but `succeeded` (one rule: a
    /// call that did not do what it was asked, or whose effect is not known, is an error to
    /// the client).
    pub fn is_error(&self) -> bool {
        self.envelope.status != Status::Succeeded
    }
}

/// A tool name outside the catalog (a protocol error at an MCP edge, not an envelope).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool {name:?}: Ghostlight 1.0 has 24 tools, listed by tools/list")]
pub struct UnknownTool {
    /// The name asked for (bounded).
    pub name: String,
}

impl UnknownTool {
    /// The refusal of `name`, bounded to what a message may echo (visible characters only).
    pub fn new(name: &str) -> Self {
        UnknownTool {
            name: crate::language::bound_visible(name, crate::limits::ECHO_CHARS).unwrap_or_default(),
        }
    }
}

/// Ghostlight over one browser, as one workspace (one client's tabs and handles).
///
/// Cheap to clone (clones share the workspace); [`Ghostlight::workspace`] makes a sibling
/// workspace over the same browser and authority, whose tabs the others can never see.
#[derive(Clone)]
pub struct Ghostlight {
    shared: Arc<Shared>,
    workspace: Arc<Workspace>,
    confirmer: Arc<dyn Confirmer>,
}

impl std::fmt::Debug for Ghostlight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ghostlight").field("engine", &self.shared.port.engine()).finish_non_exhaustive()
    }
}

/// Builds a [`Ghostlight`].
pub struct GhostlightBuilder {
    port: Arc<dyn BrowserPort>,
    authority: CompiledAuthority,
    audit: Arc<dyn AuditSink>,
    limits: WorkspaceLimits,
    deterministic: bool,
    confirmer: Arc<dyn Confirmer>,
}

impl GhostlightBuilder {
    /// Mint the same handles in every run, for snapshot tests. Handles are then guessable:
    /// never use this outside tests.
    #[cfg(any(test, feature = "testing"))]
    pub fn deterministic_handles(mut self) -> Self {
        self.deterministic = true;
        self
    }

    /// Use this compiled authority (default: the built-in defaults).
    pub fn authority(mut self, authority: CompiledAuthority) -> Self {
        self.authority = authority;
        self
    }

    /// Send audit records here (default: dropped).
    pub fn audit(mut self, sink: Arc<dyn AuditSink>) -> Self {
        self.audit = sink;
        self
    }

    /// Ask the person through `confirmer` before the actions `[confirm]` names (default:
    /// [`NoConfirmer`], so such calls answer `attention_required`).
    pub fn confirmer(mut self, confirmer: Arc<dyn Confirmer>) -> Self {
        self.confirmer = confirmer;
        self
    }

    /// What each workspace may hold (default: [`WorkspaceLimits::default`]).
    pub fn limits(mut self, limits: WorkspaceLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The first workspace. The port is told the network authority to enforce
    /// ([`BrowserPort::govern_network`]).
    pub fn build(self) -> Ghostlight {
        let shared = Shared::new(self.port, self.authority, self.audit, self.limits, self.deterministic, 1);
        Ghostlight {
            shared: Arc::new(shared),
            workspace: Arc::new(Workspace::new(self.deterministic.then_some(0))),
            confirmer: self.confirmer,
        }
    }
}

impl Ghostlight {
    /// Ghostlight over `port` with the default authority and no audit sink.
    pub fn new(port: Arc<dyn BrowserPort>) -> Ghostlight {
        Ghostlight::builder(port).build()
    }

    /// A builder over `port`.
    pub fn builder(port: Arc<dyn BrowserPort>) -> GhostlightBuilder {
        GhostlightBuilder {
            port,
            authority: CompiledAuthority::default(),
            audit: Arc::new(DiscardAudit),
            limits: WorkspaceLimits::default(),
            deterministic: false,
            confirmer: Arc::new(NoConfirmer),
        }
    }

    /// A new Ghostlight over another browser `port`, with this one's authority, audit sink
    /// and limits, and a new, empty workspace (for a session that gets a browser of its own).
    pub fn over_port(&self, port: Arc<dyn BrowserPort>) -> Ghostlight {
        let seed = self.shared.workspaces.fetch_add(1, Ordering::Relaxed);
        let shared = Shared::new(
            port,
            self.shared.authority.clone(),
            self.shared.audit.clone(),
            self.shared.limits,
            self.shared.deterministic,
            seed + 1,
        );
        Ghostlight {
            shared: Arc::new(shared),
            workspace: Arc::new(Workspace::new(self.shared.deterministic.then_some(seed))),
            confirmer: self.confirmer.clone(),
        }
    }

    /// A new, empty workspace over the same browser, authority and audit sink.
    pub fn workspace(&self) -> Ghostlight {
        let seed = self.shared.workspaces.fetch_add(1, Ordering::Relaxed);
        let workspace = Workspace::new(self.shared.deterministic.then_some(seed));
        Ghostlight {
            shared: self.shared.clone(),
            workspace: Arc::new(workspace),
            confirmer: self.confirmer.clone(),
        }
    }

    /// The channel confirmations are asked through by default (see
    /// [`GhostlightBuilder::confirmer`]).
    pub fn confirmer(&self) -> Arc<dyn Confirmer> {
        self.confirmer.clone()
    }

    /// This Ghostlight (the same workspace) asking confirmations through `confirmer`.
    pub fn with_confirmer(&self, confirmer: Arc<dyn Confirmer>) -> Ghostlight {
        Ghostlight { shared: self.shared.clone(), workspace: self.workspace.clone(), confirmer }
    }

    /// End this workspace (its MCP session ended, or the host is done with it): close every
    /// tab it still holds, discard its recordings, release its claims and forget its handles.
    /// Each tab waits for the call running on it, if any, to finish first. Failures are
    /// ignored (a tab may already be gone); answers how many tabs were closed. Handles issued
    /// before stay unknown afterwards; the workspace can be used again, empty.
    pub async fn end(&self) -> usize {
        let mut closed = 0;
        for slot in self.workspace.slots() {
            let _turn = slot.work.clone().lock_owned().await;
            if let Some(tab) = slot.unbind() {
                self.shared.claims.release(&tab);
                if self.shared.port.close_tab(&tab).await.is_ok() {
                    closed += 1;
                }
            }
        }
        for (_, recording) in self.workspace.recordings() {
            let _ = self.shared.port.record(&crate::port::RecordCommand::Discard(recording)).await;
        }
        self.workspace.clear();
        closed
    }

    /// The compiled authority.
    pub fn authority(&self) -> &CompiledAuthority {
        &self.shared.authority
    }

    /// The browser port.
    pub fn port(&self) -> &Arc<dyn BrowserPort> {
        &self.shared.port
    }

    /// Whether the port governs the browser's requests on the wire (every request to a host
    /// outside authority refused before it is sent), or only what the model sees and does.
    pub fn network_enforcement(&self) -> NetworkEnforcement {
        self.shared.enforcement
    }

    /// Invoke `tool` by name. Only a name outside the catalog is an error; everything else,
    /// including invalid arguments, is an envelope.
    pub async fn invoke(
        &self,
        tool: &str,
        arguments: &Value,
        cancellation: &Cancellation,
    ) -> Result<ToolResult, UnknownTool> {
        self.invoke_observed(tool, arguments, cancellation, &NoProgress).await
    }

    /// Invoke `tool` by name like [`Ghostlight::invoke`], reporting each step of a
    /// `browser_sequence` or `browser_flow` to `progress` as it ends.
    pub async fn invoke_observed(
        &self,
        tool: &str,
        arguments: &Value,
        cancellation: &Cancellation,
        progress: &dyn Progress,
    ) -> Result<ToolResult, UnknownTool> {
        let name = ToolName::parse(tool).ok_or_else(|| UnknownTool::new(tool))?;
        Ok(self.invoke_tool_observed(name, arguments, cancellation, progress).await)
    }

    /// Invoke a catalog tool.
    pub async fn invoke_tool(
        &self,
        tool: ToolName,
        arguments: &Value,
        cancellation: &Cancellation,
    ) -> ToolResult {
        self.invoke_tool_observed(tool, arguments, cancellation, &NoProgress).await
    }

    /// Invoke a catalog tool like [`Ghostlight::invoke_tool`], reporting each step of a
    /// `browser_sequence` or `browser_flow` to `progress` as it ends (for an edge that has
    /// already parsed the tool's name).
    pub async fn invoke_tool_observed(
        &self,
        tool: ToolName,
        arguments: &Value,
        cancellation: &Cancellation,
        progress: &dyn Progress,
    ) -> ToolResult {
        self.invoke_tool_confirmed(tool, arguments, cancellation, progress, self.confirmer.as_ref()).await
    }

    /// Invoke a catalog tool like [`Ghostlight::invoke_tool_observed`], asking the person
    /// through `confirmer` (for this call only) before an action `[confirm]` names: an edge
    /// whose channel belongs to the request, such as the MCP client that sent it.
    pub async fn invoke_tool_confirmed(
        &self,
        tool: ToolName,
        arguments: &Value,
        cancellation: &Cancellation,
        progress: &dyn Progress,
        confirmer: &dyn Confirmer,
    ) -> ToolResult {
        let invocation = self.workspace.mint(HandleKind::Invocation);
        let call = match decode_call(tool, arguments) {
            Ok(call) => call,
            Err(error) => {
                let record = AuditRecord::invalid(invocation.clone(), tool)
                    .stamped(std::time::SystemTime::now(), self.workspace.session());
                self.shared.audit.record(&record);
                return finish(invalid_arguments(tool, &error), &invocation);
            }
        };
        let snapshot = self.shared.authority.snapshot(&call.restrictions);
        // While the call runs, the wire is narrowed to its restrictions too; the guard ends
        // the narrowing however the call ends (cancellation included).
        let narrowing = self.shared.network.narrow(&snapshot);
        let refusal_mark = self.shared.wire.refusals().mark();
        let dispatched = AtomicBool::new(false);
        let run = Run::new(
            &self.shared,
            &self.workspace,
            snapshot,
            invocation.clone(),
            call.request.requirement(),
            &dispatched,
            None,
        )
        .observed(progress);
        // Only a call that may be asked about needs its arguments' fingerprint: without
        // `[confirm]` no call pays for hashing its arguments (an upload's inline bytes).
        let confirms = !self.shared.authority.confirmations().is_empty();
        let run = if confirms { run.confirming(confirmer, ArgumentsFingerprint::of(arguments)) } else { run };
        let narrowed = narrowing.is_some();
        let work = pin!(async {
            // A port that enforces the wire declaratively brings the narrower rules into force
            // before anything is dispatched; when it cannot, nothing is.
            if narrowed && self.shared.port.sync_network().await.is_err() {
                if let Err(refusal) = run.authorize(None) {
                    return refusal;
                }
                return restriction_unavailable(tool);
            }
            execute(&run, &call.request).await
        });
        let cancelled = pin!(cancellation.cancelled());
        let outcome = match select(work, cancelled).await {
            Either::Left((outcome, _)) => outcome,
            Either::Right(((), _)) => cancelled_outcome(tool, dispatched.load(Ordering::SeqCst)),
        };
        let outcome =
            crate::operation::wire::report(tool, outcome, self.shared.wire.refusals().since(refusal_mark));
        if narrowing.is_some() {
            drop(narrowing);
            // Best effort: rules left narrower than the configuration only refuse more.
            let _ = self.shared.port.sync_network().await;
        }
        self.audit(&run, &outcome);
        finish(outcome, &invocation)
    }

    fn audit(&self, run: &Run<'_>, outcome: &Outcome) {
        record_audit(run, outcome, None);
    }
}

fn finish(outcome: Outcome, invocation: &Handle) -> ToolResult {
    let (envelope, attachments, _) = outcome.into_parts(invocation);
    ToolResult { envelope, attachments }
}

/// The answer when a call's `restrict_hosts` could not be put in force on the browser's
/// network (nothing was dispatched).
fn restriction_unavailable(tool: ToolName) -> Outcome {
    Outcome::failed(
        "restriction_unavailable",
        format!(
            "Did not run {}: its restrict_hosts could not be put in force on the browser's network.",
            tool.as_str()
        ),
    )
    .fact(detail::TOOL, tool.as_str())
    .next("Call browser_tabs to check that the browser is still connected.")
}

fn cancelled_outcome(tool: ToolName, dispatched: bool) -> Outcome {
    let (summary, effect) = if dispatched {
        (
            format!(
                "Cancelled {} after it reached the browser; whether it took effect is unknown.",
                tool.as_str()
            ),
            Effect::Unknown,
        )
    } else {
        (format!("Cancelled {} before anything was sent to the browser.", tool.as_str()), Effect::None)
    };
    Outcome::read(summary)
        .with_status(Status::Cancelled)
        .with_effect(effect)
        .fact(detail::TOOL, tool.as_str())
}
