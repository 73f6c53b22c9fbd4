//! Progress of a long invocation, reported while it runs: each step of a `browser_sequence`
//! or `browser_flow` as it ends. Hosts turn it into a terminal progress line or MCP progress
//! notifications; the envelope stays the one answer.

use crate::envelope::Envelope;
use crate::names::ToolName;

/// One step of a `browser_sequence` or `browser_flow`, just ended.
///
/// The envelope is the step's own (the same the aggregate's `steps` rows carry): its summary is
/// authored by Ghostlight and safe to show, like every summary.
#[derive(Debug, Clone, Copy)]
pub struct StepProgress<'e> {
    /// Position of the step, from 0.
    pub index: usize,
    /// Steps the composite asked for.
    pub total: usize,
    /// The step's id (`browser_flow` steps only).
    pub id: Option<&'e str>,
    /// The step's tool.
    pub tool: ToolName,
    /// The step's envelope.
    pub envelope: &'e Envelope,
}

/// Receives progress while an invocation runs ([`Ghostlight::invoke_observed`]).
///
/// Called on the invocation's own task, between steps: keep it quick (print a line, queue a
/// notification) and never block on the browser.
///
/// [`Ghostlight::invoke_observed`]: crate::Ghostlight::invoke_observed
pub trait Progress: Send + Sync {
    /// A child step of a composite ended (in any status).
    fn step_finished(&self, step: StepProgress<'_>);
}

/// Progress nobody watches (what [`Ghostlight::invoke`](crate::Ghostlight::invoke) uses).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn step_finished(&self, _step: StepProgress<'_>) {}
}

impl<F> Progress for F
where
    F: Fn(StepProgress<'_>) + Send + Sync,
{
    fn step_finished(&self, step: StepProgress<'_>) {
        self(step);
    }
}
