//! `browser_flow`: steps with references to earlier results (see `tools::composite`).

use std::collections::HashMap;
use std::sync::Arc;

use futures::lock::OwnedMutexGuard;
use serde_json::{Map, Value, json};

use crate::authority::Refusal;
use crate::decode::DecodeError;
use crate::envelope::{Effect, Envelope, Status};
use crate::handles::{Handle, HandleKind};
use crate::language::count;
use crate::limits::FLOW_CAPTURE_BUDGET_BYTES;
use crate::names::ToolName;
use crate::tools::Tool;
use crate::tools::flow::facts as flow_facts;
use crate::tools::flow::{ChildError, FlowChild, FlowRequest, FlowStep, OnError, ReferenceProblem};
use crate::tools::navigate::Destination;
use crate::tools::request::Request;

use crate::operation::outcome::Outcome;
use crate::operation::progress::StepProgress;
use crate::operation::run::{Run, Step, unknown_handle};
use crate::operation::workspace::TabSlot;

use crate::tools::composite::{
    ChildRun, DIFFERENT_TAB, OTHER_TAB, TIMEOUT, UNRESOLVED_REFERENCE, aggregate, assemble, capability_names,
    out_of_time, run_child, timeout_sentence, unresolved_child,
};

// ----- browser_flow -----------------------------------------------------------------------

/// The flow's tab, locked for the rest of the flow.
struct Binding {
    slot: Arc<TabSlot>,
    _guard: OwnedMutexGuard<()>,
}

impl Binding {
    async fn lock(slot: Arc<TabSlot>) -> Binding {
        let guard = slot.work.clone().lock_owned().await;
        Binding { slot, _guard: guard }
    }
}

/// The tab the flow runs on from its start: its `tab` (even when that tab has closed: a
/// navigate step reopens it under the same handle), or the default tab when any tab is open.
/// `None` when no tab is open: the first navigate step opens one.
async fn bind_at_start(run: &Run<'_>, request: &FlowRequest) -> Step<Option<Binding>> {
    let slot = match request.tab() {
        Some(handle) => run.workspace.slot(handle).ok_or_else(|| unknown_handle(handle))?,
        None => {
            if !run.workspace.slots().iter().any(|slot| slot.tab().is_some()) {
                return Ok(None);
            }
            run.default_slot().await?
        }
    };
    Ok(Some(Binding::lock(slot).await))
}

/// The live slot a navigate step's envelope names in `facts.tab`.
fn opened_slot(run: &Run<'_>, envelope: &Envelope) -> Option<Arc<TabSlot>> {
    let text = envelope.facts.get("tab").and_then(Value::as_str)?;
    let handle = Handle::parse(text, HandleKind::Tab).ok()?;
    run.workspace.slot(&handle).filter(|slot| slot.tab().is_some())
}

/// Why a resolved flow step may not run on the flow's tab: it asks for a new tab, or names a
/// tab other than `flow_tab`.
fn tab_refusal(request: &Request, flow_tab: Option<&Arc<TabSlot>>) -> Option<Outcome> {
    if let Request::Navigate(navigate) = request
        && navigate.destination == Destination::NewTab
    {
        let refusal = Outcome::failed(
            DIFFERENT_TAB,
            "This step asks for a new tab, but a flow runs on one tab; nothing was done.",
        )
        .next(OTHER_TAB);
        return Some(match flow_tab {
            Some(slot) => refusal.fact(flow_facts::TAB, slot.handle.as_str()),
            None => refusal,
        });
    }
    let named = request.tab()?;
    let flow_tab = flow_tab?;
    (named != &flow_tab.handle).then(|| {
        Outcome::failed(
            DIFFERENT_TAB,
            format!(
                "This step names {named}, but its flow runs on {}; steps cannot change tabs.",
                flow_tab.handle
            ),
        )
        .fact(flow_facts::TAB, flow_tab.handle.as_str())
        .next(OTHER_TAB)
    })
}

/// The next step after a reference that did not resolve.
const CHECK_REFERENCE: &str =
    "Check the step id and pointer against that step's envelope in facts.steps, then fix the reference.";

/// The next step after a dry run found a structurally wrong reference.
const NAME_EARLIER_STEP: &str =
    "Make each reference name an earlier step's id and a JSON Pointer into its envelope, such as /facts/url.";

/// The failure of a step whose reference did not resolve (the problem never shows a value).
fn reference_failure(step: &FlowStep, problem: &ReferenceProblem) -> Outcome {
    Outcome::failed(UNRESOLVED_REFERENCE, problem.to_string())
        .fact(flow_facts::TOOL, step.tool.as_str())
        .next(CHECK_REFERENCE)
}

/// The failure of a step whose substituted arguments its tool's decoder refused. The sentence
/// names the place and the rule but not the message, which could quote a substituted value
/// taken from a page.
fn decode_failure(step: &FlowStep, error: &DecodeError) -> Outcome {
    Outcome::failed(
        "invalid_arguments",
        format!(
            "{} refused the arguments of step \"{}\" once its references were substituted: the value at {} \
             breaks rule {}.",
            step.tool.as_str(),
            step.id,
            error.pointer().shown(),
            error.kind().code()
        ),
    )
    .fact(flow_facts::POINTER, error.pointer().shown().as_ref())
    .fact(flow_facts::RULE, error.kind().code())
    .fact(flow_facts::TOOL, step.tool.as_str())
    .next(format!("Point the reference at a value that {} accepts in that field.", step.tool.as_str()))
}

/// `step 2 ("login", browser_click)`, or with `total`, `step 2 of 5 ("login", browser_click)`.
fn step_phrase(index: usize, step: &FlowStep, total: Option<usize>) -> String {
    let of = total.map(|total| format!(" of {total}")).unwrap_or_default();
    format!("step {}{of} (\"{}\", {})", index + 1, step.id, step.tool.as_str())
}

/// Recording of step envelopes into the aggregate under [`FLOW_CAPTURE_BUDGET_BYTES`]: once
/// an envelope does not fit, it and every later one are left out.
#[derive(Default)]
struct Capture {
    spent: usize,
    exhausted: bool,
    omitted: usize,
}

impl Capture {
    /// Whether `envelope` (serialized) still fits; counts it as spent when it does.
    fn admit(&mut self, envelope: &Value) -> bool {
        let size = envelope.to_string().len();
        if !self.exhausted && self.spent + size <= FLOW_CAPTURE_BUDGET_BYTES {
            self.spent += size;
            return true;
        }
        self.exhausted = true;
        self.omitted += 1;
        false
    }
}

/// `browser_flow`: run the named steps on one tab, resolving references into earlier results;
/// `on_error` decides whether a non-success stops the flow; `dry_run` only checks.
async fn flow(run: &Run<'_>, request: &FlowRequest) -> Outcome {
    if request.dry_run {
        return dry_run(run, request);
    }
    let total = request.steps.len();
    let mut binding = match bind_at_start(run, request).await {
        Ok(binding) => binding,
        Err(refusal) => {
            return refusal
                .fact(flow_facts::COMPLETED, 0)
                .fact(flow_facts::TOTAL, total)
                .fact(flow_facts::STOPPED, true)
                .fact(flow_facts::STEPS, json!([]));
        }
    };

    // Every earlier step's canonical envelope, by id: references read these whether or not
    // the capture budget let them into the aggregate.
    let mut results: HashMap<&str, Value> = HashMap::new();
    let mut capture = Capture::default();
    let mut rows: Vec<Value> = Vec::with_capacity(total);
    let mut children: Vec<ChildRun> = Vec::with_capacity(total);
    let mut timed_out = false;
    for (index, step) in request.steps.iter().enumerate() {
        if out_of_time(run, request.timeout_ms) {
            timed_out = true;
            break;
        }
        let resolved = request.resolve_step(index, |id| results.get(id));
        let child = match resolved {
            None => break,
            Some(Err(ChildError::Reference(problem))) => {
                unresolved_child(run, step.tool, index, reference_failure(step, &problem))
            }
            Some(Err(ChildError::Decode(error))) => {
                unresolved_child(run, step.tool, index, decode_failure(step, &error))
            }
            Some(Ok(child_request)) => {
                let refusal = tab_refusal(&child_request, binding.as_ref().map(|b| &b.slot));
                let pinned = binding.as_ref().map(|b| b.slot.clone());
                let child = run_child(run, &child_request, index, pinned, refusal).await;
                if binding.is_none()
                    && step.tool == ToolName::Navigate
                    && let Some(slot) = opened_slot(run, &child.envelope)
                {
                    binding = Some(Binding::lock(slot).await);
                }
                child
            }
        };

        run.progress.step_finished(StepProgress {
            index,
            total,
            id: Some(&step.id),
            tool: step.tool,
            envelope: &child.envelope,
        });
        let envelope = serde_json::to_value(&child.envelope).unwrap_or(Value::Null);
        let mut row = Map::new();
        row.insert("id".into(), json!(step.id));
        row.insert("tool".into(), json!(step.tool.as_str()));
        row.insert("status".into(), json!(child.envelope.status.as_str()));
        row.insert("effect".into(), json!(child.envelope.effect.as_str()));
        if let Some(capabilities) = child.capabilities {
            row.insert("capabilities".into(), capability_names(capabilities));
        }
        if capture.admit(&envelope) {
            row.insert("envelope".into(), envelope.clone());
        }
        rows.push(Value::Object(row));
        results.insert(step.id.as_str(), envelope);

        let succeeded = child.succeeded();
        children.push(child);
        if !succeeded && request.on_error == OnError::Stop {
            break;
        }
    }

    let ran = children.len();
    let completed = children.iter().filter(|child| child.succeeded()).count();
    let totals = aggregate(&children, completed == total);
    let failures: Vec<(usize, &ChildRun)> =
        children.iter().enumerate().filter(|(_, child)| !child.succeeded()).collect();
    let mut summary = match failures.first() {
        None => format!("Ran {ran} of {total} flow steps."),
        Some(&(index, child)) if ran < total && !timed_out => format!(
            "Stopped after {}: {}",
            step_phrase(index, &request.steps[index], Some(total)),
            child.envelope.summary
        ),
        Some(&(index, child)) if failures.len() == 1 => format!(
            "Ran {ran} of {total} flow steps; {} did not succeed: {}",
            step_phrase(index, &request.steps[index], None),
            child.envelope.summary
        ),
        Some(&(index, child)) => format!(
            "Ran {ran} of {total} flow steps; {} did not succeed, the first being {}: {}",
            failures.len(),
            step_phrase(index, &request.steps[index], None),
            child.envelope.summary
        ),
    };
    let mut next_steps =
        failures.first().map(|(_, child)| child.envelope.next_steps.clone()).unwrap_or_default();
    let unsuccessful = failures.len();
    if timed_out {
        summary.push_str(&timeout_sentence("flow", request.timeout_ms, ran));
        next_steps
            .push("Run the remaining steps in a new call, or give the flow a larger timeout_ms.".into());
    }

    let mut outcome = assemble(summary, totals, &mut children)
        .fact(flow_facts::COMPLETED, completed)
        .fact(flow_facts::TOTAL, total)
        .fact(flow_facts::STOPPED, ran < total)
        .fact(flow_facts::RAN, ran)
        .fact(flow_facts::STEPS, Value::Array(rows));
    if unsuccessful > 0 {
        outcome = outcome.fact(flow_facts::UNSUCCESSFUL, unsuccessful);
    }
    if capture.omitted > 0 {
        outcome = outcome.fact(flow_facts::ENVELOPES_OMITTED, capture.omitted);
    }
    if let Some(binding) = &binding {
        outcome = outcome.fact(flow_facts::TAB, binding.slot.handle.as_str());
    }
    if timed_out {
        outcome = outcome.fact(flow_facts::REASON, TIMEOUT).fact(flow_facts::TIMEOUT_MS, request.timeout_ms);
    }
    outcome.next_steps = next_steps;
    outcome
}

/// A flow checked without running: every decoded step classified and authorized statically,
/// every reference checked structurally; nothing reaches the browser.
fn dry_run(run: &Run<'_>, request: &FlowRequest) -> Outcome {
    let total = request.steps.len();
    let issues = request.reference_problems();
    let mut rows = Vec::with_capacity(total);
    // (index, sentence, next steps) of each step that would not run.
    let mut problems: Vec<(usize, String, Vec<String>)> = Vec::new();
    let mut deferred = 0;
    for (index, step) in request.steps.iter().enumerate() {
        let mut row = Map::new();
        row.insert("id".into(), json!(step.id));
        row.insert("tool".into(), json!(step.tool.as_str()));
        let (status, reason) = match &step.child {
            FlowChild::Decoded(child) => {
                let requirement = child.requirement();
                row.insert("capabilities".into(), capability_names(requirement.capabilities()));
                match run.snapshot.authorize(&requirement, None) {
                    Ok(_) => (Status::Succeeded, None),
                    Err(blocked) => {
                        let refusal = Outcome::refused(&Refusal::Blocked(blocked));
                        let reason = refusal.facts.get("reason").cloned();
                        problems.push((index, refusal.summary, refusal.next_steps));
                        (refusal.status, reason)
                    }
                }
            }
            FlowChild::Deferred { .. } => match issues.iter().find(|issue| issue.step_index == index) {
                Some(issue) => {
                    problems.push((index, issue.problem.to_string(), vec![NAME_EARLIER_STEP.to_owned()]));
                    (Status::Failed, Some(json!(UNRESOLVED_REFERENCE)))
                }
                None => {
                    deferred += 1;
                    row.insert("deferred".into(), json!(true));
                    (Status::Succeeded, None)
                }
            },
        };
        row.insert("status".into(), json!(status.as_str()));
        row.insert("effect".into(), json!(Effect::None.as_str()));
        if let Some(reason) = reason {
            row.insert("reason".into(), reason);
        }
        rows.push(Value::Object(row));
    }

    let checked = format!("Checked {} without running them", count(total, "step", "steps"));
    let (summary, next_steps) = match problems.first() {
        None if deferred == 0 => (
            format!("{checked}; all would be admitted."),
            vec!["Call browser_flow again without dry_run to run the steps.".to_owned()],
        ),
        None => (
            format!(
                "{checked}; all would be admitted, and {} with references {} authorized when {} runs.",
                count(deferred, "step", "steps"),
                if deferred == 1 { "is" } else { "are" },
                if deferred == 1 { "it" } else { "each" },
            ),
            vec!["Call browser_flow again without dry_run to run the steps.".to_owned()],
        ),
        Some((index, sentence, next)) if problems.len() == 1 => (
            format!(
                "{checked}; {} would not run: {sentence}",
                step_phrase(*index, &request.steps[*index], None)
            ),
            next.clone(),
        ),
        Some((index, sentence, next)) => (
            format!(
                "{checked}; {} would not run, the first being {}: {sentence}",
                problems.len(),
                step_phrase(*index, &request.steps[*index], None)
            ),
            next.clone(),
        ),
    };
    let mut outcome = Outcome::read(summary)
        .fact(flow_facts::COMPLETED, 0)
        .fact(flow_facts::TOTAL, total)
        .fact(flow_facts::STOPPED, false)
        .fact(flow_facts::DRY_RUN, true)
        .fact(flow_facts::STEPS, Value::Array(rows));
    if !problems.is_empty() {
        outcome = outcome.fact(flow_facts::NOT_ADMITTED, problems.len());
    }
    if deferred > 0 {
        outcome = outcome.fact(flow_facts::DEFERRED_STEPS, deferred);
    }
    outcome.next_steps = next_steps;
    outcome
}

/// The operation (boxed: a composite's future holds its children's).
pub(crate) async fn run(run: &Run<'_>, request: &FlowRequest) -> Outcome {
    Box::pin(flow(run, request)).await
}
