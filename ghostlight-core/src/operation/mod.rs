//! The operation layer: what every tool's operation is made of, below `tools/` and above the
//! port. [`run::Run`] is one invocation's context (the shared browser, the workspace, the
//! authority snapshot) with the steps operations share: lease a tab ([`run::Lease`]), observe
//! and authorize its page, resolve target and view handles, govern landings. An operation
//! answers an [`outcome::Outcome`] (a [`run::Step`] returns early with one). Beside them: the
//! workspace's registries ([`workspace`]), handle minting, cancellation, progress, keyboard
//! checks, selector matching, adopted popups and the wire's refusals.
//!
//! This layer names no tool module: tools build on it (`tools/<tool>/op.rs`), and the
//! executor runs them.

// `Step<T>` is `Result<T, Outcome>`: its error side is the invocation's answer, built once and
// returned straight up; boxing it would cost an allocation and buy nothing.
#![allow(clippy::result_large_err)]

mod cancel;
pub(crate) mod keyboard;
mod mint;
pub(crate) mod outcome;
pub(crate) mod popups;
pub(crate) mod progress;
pub(crate) mod run;
pub(crate) mod selector_match;
pub(crate) mod wire;
pub(crate) mod workspace;

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::authority::network::NetworkAuthority;
use crate::authority::{AuditSink, CompiledAuthority};
use crate::facts::detail;
use crate::handles::Handle;
use crate::names::ToolName;
use crate::port::{BrowserPort, NetworkEnforcement, NetworkPolicy};

pub use cancel::{Cancellation, Cancelled};
pub use outcome::Attachment;
pub use progress::{NoProgress, Progress, StepProgress};

use outcome::Outcome;
use run::Run;
use workspace::Claims;

/// What is shared by every workspace over one browser.
pub(crate) struct Shared {
    pub(crate) port: Arc<dyn BrowserPort>,
    pub(crate) authority: CompiledAuthority,
    /// The browser's network authority (narrowed while invocations that restrict hosts run).
    pub(crate) network: Arc<NetworkAuthority>,
    /// The policy the port enforces on the wire, and its refusal log.
    pub(crate) wire: NetworkPolicy,
    /// Whether the port governs requests on the wire.
    pub(crate) enforcement: NetworkEnforcement,
    pub(crate) audit: Arc<dyn AuditSink>,
    pub(crate) limits: WorkspaceLimits,
    pub(crate) claims: Claims,
    /// Mint reproducible handles (tests only).
    pub(crate) deterministic: bool,
    /// Workspaces made so far (seeds deterministic minters).
    pub(crate) workspaces: AtomicU64,
}

/// What one workspace may hold at once. A call that would exceed a limit is refused
/// (`failed`, reason `tab_limit` or `recording_limit`) with a next step that frees room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkspaceLimits {
    /// Tabs the workspace holds open (tabs pages open by themselves count once adopted).
    pub tabs: usize,
    /// Recordings the workspace holds (recording or stopped and kept).
    pub recordings: usize,
}

impl WorkspaceLimits {
    /// The default number of tabs per workspace.
    pub const DEFAULT_TABS: usize = 20;
    /// The default number of recordings per workspace.
    pub const DEFAULT_RECORDINGS: usize = 3;
}

impl Default for WorkspaceLimits {
    fn default() -> Self {
        WorkspaceLimits { tabs: Self::DEFAULT_TABS, recordings: Self::DEFAULT_RECORDINGS }
    }
}

impl Shared {
    /// What the workspaces over `port` share; the port starts governing the network.
    pub(crate) fn new(
        port: Arc<dyn BrowserPort>,
        authority: CompiledAuthority,
        audit: Arc<dyn AuditSink>,
        limits: WorkspaceLimits,
        deterministic: bool,
        workspaces: u64,
    ) -> Shared {
        let network = NetworkAuthority::new(authority.clone());
        let wire = network.policy();
        let enforcement = port.govern_network(wire.clone());
        Shared {
            port,
            authority,
            network,
            wire,
            enforcement,
            audit,
            limits,
            claims: Claims::default(),
            deterministic,
            workspaces: AtomicU64::new(workspaces),
        }
    }
}

/// The envelope of arguments that did not decode: `failed`, effect `none`, the pointer and
/// rule in facts.
pub(crate) fn invalid_arguments(tool: ToolName, error: &crate::decode::DecodeError) -> Outcome {
    Outcome::failed("invalid_arguments", format!("Invalid arguments for {}: {error}.", tool.as_str()))
        .fact(detail::POINTER, error.pointer().shown().as_ref())
        .fact(detail::RULE, error.kind().code())
        .fact(detail::TOOL, tool.as_str())
}

/// Finish `run`'s audit record with `outcome` (status, effect, elapsed time, landing site) and
/// send it to the sink; a child step of a sequence or flow names its parent invocation and
/// zero-based step index. Every path through [`execute`] authorizes first; a run cancelled
/// before that point holds no record of a decision, and nothing happened to record.
pub(crate) fn record_audit(run: &Run<'_>, outcome: &Outcome, parent: Option<(&Handle, usize)>) {
    let Some(record) = run.take_audit() else { return };
    let mut record = record
        .finish(outcome.status, outcome.effect, run.started.elapsed())
        .stamped(std::time::SystemTime::now(), run.workspace.session());
    if let Some((invocation, step)) = parent {
        record = record.child_of(invocation.clone(), step);
    }
    if let Some(site) = outcome.landing.clone() {
        record = record.with_landing(site);
    }
    run.shared.audit.record(&record);
}
