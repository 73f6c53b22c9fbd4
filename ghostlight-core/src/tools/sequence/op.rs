//! `browser_sequence`: its steps run in one tab, one after another (see `tools::composite`).

use serde_json::{Value, json};

use crate::tools::Tool;
use crate::tools::sequence::SequenceRequest;
use crate::tools::sequence::facts as sequence_facts;

use crate::operation::outcome::Outcome;
use crate::operation::progress::StepProgress;
use crate::operation::run::{Run, host_of};

use crate::tools::composite::{
    ChildRun, TIMEOUT, aggregate, assemble, out_of_time, run_child, timeout_sentence,
};

// ----- browser_sequence -------------------------------------------------------------------

/// `browser_sequence`: lease the tab once and run the steps on it, stopping at the first
/// non-success.
async fn sequence(run: &Run<'_>, request: &SequenceRequest) -> Outcome {
    let total = request.steps.len();
    let lease = match run.lease(request.tab()).await {
        Ok(lease) => lease,
        Err(refusal) => {
            return refusal
                .fact(sequence_facts::COMPLETED_STEPS, 0)
                .fact(sequence_facts::TOTAL_STEPS, total)
                .fact(sequence_facts::STEPS, json!([]));
        }
    };
    let mut children: Vec<ChildRun> = Vec::with_capacity(total);
    let mut timed_out = false;
    for (index, step) in request.steps.iter().enumerate() {
        if out_of_time(run, request.timeout_ms) {
            timed_out = true;
            break;
        }
        let child = run_child(run, &step.request, index, Some(lease.slot.clone()), None).await;
        run.progress.step_finished(StepProgress {
            index,
            total,
            id: None,
            tool: step.request.requirement().tool(),
            envelope: &child.envelope,
        });
        let succeeded = child.succeeded();
        children.push(child);
        if !succeeded {
            break;
        }
    }

    let completed = children.iter().filter(|child| child.succeeded()).count();
    let totals = aggregate(&children, completed == total);
    let rows: Vec<Value> = request
        .steps
        .iter()
        .zip(&children)
        .map(|(step, child)| {
            json!({
                "action": step.action.as_str(),
                "status": child.envelope.status.as_str(),
                "effect": child.envelope.effect.as_str(),
            })
        })
        .collect();
    let host = lease.slot.state().url.map(|url| host_of(&url));
    let failed = children.iter().position(|child| !child.succeeded());
    let mut summary = match failed.map(|index| (index, &children[index])) {
        Some((index, child)) => format!(
            "Stopped at step {} of {total} ({}): {}",
            index + 1,
            request.steps[index].action.as_str(),
            child.envelope.summary
        ),
        None => {
            let place = host.clone().unwrap_or_else(|| lease.handle().to_string());
            format!("Ran {completed} of {total} steps on {place}.")
        }
    };
    let mut stopped_at = failed.map(|index| (index, children[index].reason()));
    let mut next_steps = failed.map(|index| children[index].envelope.next_steps.clone()).unwrap_or_default();
    if timed_out {
        summary.push_str(&timeout_sentence("sequence", request.timeout_ms, children.len()));
        stopped_at = Some((children.len(), TIMEOUT.to_owned()));
        next_steps
            .push("Run the remaining steps in a new call, or give the sequence a larger timeout_ms.".into());
    }

    let mut outcome = assemble(summary, totals, &mut children)
        .fact(sequence_facts::TAB, lease.handle().as_str())
        .fact(sequence_facts::COMPLETED_STEPS, completed)
        .fact(sequence_facts::TOTAL_STEPS, total)
        .fact(sequence_facts::STEPS, Value::Array(rows));
    if let Some((index, reason)) = stopped_at {
        let action = request.steps.get(index).map_or("", |step| step.action.as_str());
        outcome = outcome.fact(
            sequence_facts::STOPPED_AT,
            json!({"index": index + 1, "action": action, "reason": reason}),
        );
    }
    if timed_out {
        outcome = outcome
            .fact(sequence_facts::REASON, TIMEOUT)
            .fact(sequence_facts::TIMEOUT_MS, request.timeout_ms);
    }
    // The host the summary names: the failing step's (its sentence is repeated), else the tab's.
    let named_host = failed
        .and_then(|index| {
            children[index].envelope.facts.get("host").and_then(Value::as_str).map(str::to_owned)
        })
        .or(host);
    if let Some(host) = named_host {
        outcome = outcome.fact(sequence_facts::HOST, host);
    }
    outcome.next_steps = next_steps;
    outcome
}

/// The operation (boxed: a composite's future holds its children's).
pub(crate) async fn run(run: &Run<'_>, request: &SequenceRequest) -> Outcome {
    Box::pin(sequence(run, request)).await
}
