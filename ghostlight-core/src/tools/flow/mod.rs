//! `browser_flow`: compose one to twenty uniquely named tool calls on one controlled tab,
//! where any argument value may refer to an earlier step's result.
//!
//! Decoding checks the flow's shape, each step's `id` and `tool`, and the syntax of every
//! `{"flow_ref":{"step","pointer"}}` reference. A step without references is decoded at once
//! by its tool's own decoder ([`decode_child`]); a step with references is kept as JSON and
//! decoded by the same decoder after the executor substitutes the references
//! ([`FlowRequest::resolve_step`], [`resolve_arguments`]). Whether a reference names an
//! earlier step and holds a valid, resolving JSON Pointer is decided per step at run time
//! ([`check_reference`] is the structural check a dry run reports).

pub(crate) mod op;

use serde_json::{Map, Value};

use crate::capability::CapabilitySet;
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, DecodeErrorKind, ObjectReader, Pointer, json_type};
use crate::facts::tool_facts;
use crate::handles::{Handle, HandleKind};
use crate::limits::{
    ECHO_CHARS, FLOW_ARGUMENTS_TEXT_CHARS, FLOW_POINTER_CHARS, FLOW_STEP_ID_CHARS, FLOW_STEPS,
    FLOW_TOOL_NAME_CHARS,
};
use crate::names::ToolName;
use crate::schema::{Field, FieldType, RESTRICTIONS};
use crate::tools::Tool;
use crate::tools::catalog::decode_child;
use crate::tools::common::{TAB, TIMEOUT_MS, read_timeout};
use crate::tools::request::Request;
use crate::vocab::WireChoice;
use crate::vocab::wire_choice;

wire_choice! {
    /// What the flow does after a step that does not succeed.
    pub enum OnError {
        /// Stop: later steps do not run.
        Stop => "stop",
        /// Continue with the next step.
        Continue => "continue",
    }
}

/// The member name of a reference object.
pub(crate) const FLOW_REF: &str = "flow_ref";
const REF_STEP: &str = "step";
const REF_POINTER: &str = "pointer";

const ID: Field = Field::required("id", FieldType::Text(FLOW_STEP_ID_CHARS), "Unique step name.");
const TOOL: Field =
    Field::required("tool", FieldType::Text(FLOW_TOOL_NAME_CHARS), "Non-composite tool name.");
/// A step's `arguments`: the one schema object that cannot be closed, because it carries
/// another tool's arguments ([`FieldType::OpenObject`]). Its members are checked by that
/// tool's own decoder, restriction fields are refused, and any value may be a `flow_ref`.
const ARGUMENTS: Field = Field::optional(
    "arguments",
    FieldType::OpenObject,
    r#"The tool's arguments; any value may be {"flow_ref":{step,pointer}}."#,
);
const STEP_FIELDS: [Field; 3] = [ID, TOOL, ARGUMENTS];

const STEPS: Field = Field::required(
    "steps",
    FieldType::List { item: &FieldType::Object(&STEP_FIELDS), count: FLOW_STEPS, unique: false },
    "Tool calls, run in order.",
);
const ON_ERROR: Field = Field::optional(
    "on_error",
    FieldType::Choice { values: OnError::NAMES, default: Some("stop") },
    "After a failed step.",
);
const DRY_RUN: Field =
    Field::optional("dry_run", FieldType::Bool { default: Some(false) }, "Check and classify only.");

tool_facts! {
    COMPLETED: Int("completed", "Steps that succeeded."),
    TOTAL: Int("total", "Steps requested."),
    STOPPED: Bool("stopped", "The flow stopped before its last step."),
    STEPS: Json(
        "steps",
        FactType::ObjectArray(&[
                Fact::new("id", FactType::String, "Step name."),
                Fact::new("tool", FactType::String, "Tool name."),
                Fact::new("status", FactType::String, "The step's status."),
                Fact::new("effect", FactType::String, "The step's effect."),
                Fact::new("capabilities", FactType::StringArray, "Capabilities the step requires."),
                Fact::new("envelope", FactType::Object(&[]), "The step's envelope, while the budget allows."),
            ]),
        "Per-step rows."
    ),
    RAN: Int("ran", "Steps that ran."),
    UNSUCCESSFUL: Int("unsuccessful", "Steps that ran without succeeding."),
    ENVELOPES_OMITTED: Int("envelopes_omitted", "Step envelopes left out past the capture budget."),
    DRY_RUN: Bool("dry_run", "Decoded and classified only."),
    NOT_ADMITTED: Int("not_admitted", "Steps that would be refused (dry run)."),
    DEFERRED_STEPS: Int("deferred_steps", "Steps whose arguments wait on earlier results (dry run)."),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Flow,
    description: "Run named tool calls in order on one tab; a value may refer to an earlier result.",
    fields: &[STEPS, ON_ERROR, DRY_RUN, TAB, TIMEOUT_MS],
    example: r#"{"steps":[{"id":"open","tool":"browser_navigate","arguments":{"url":"https://example.com"}}]}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
};

/// An explicit reference to a value in an earlier step's canonical result envelope.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FlowRef {
    /// The `id` of the step whose envelope is read.
    pub step: String,
    /// An RFC 6901 JSON Pointer into that envelope (checked at run time).
    pub pointer: String,
}

/// A reference and where it stands in a step's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocatedRef {
    /// The JSON Pointer of the reference object, relative to the step's `arguments` object.
    pub location: Pointer,
    /// The reference.
    pub reference: FlowRef,
}

/// Why a reference cannot be used. Messages name the step and pointer the model wrote and
/// never echo any value of a step's result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReferenceProblem {
    /// No step of the flow has this id.
    #[error("No step of this flow is named {}.", shown(.step))]
    UnknownStep {
        /// The referenced id.
        step: String,
    },
    /// The step is this one or a later one.
    #[error("Step {} does not run before this step; a reference may name only an earlier step.", shown(.step))]
    NotEarlier {
        /// The referenced id.
        step: String,
    },
    /// The pointer is not an RFC 6901 JSON Pointer.
    #[error(
        "{} is not a JSON Pointer: it must be empty or start with \"/\", and each \"~\" must be followed by 0 or 1.",
        shown(.pointer)
    )]
    InvalidPointer {
        /// The pointer as written.
        pointer: String,
    },
    /// The earlier step left no result envelope to read (it did not run).
    #[error("Step {} has no result to refer to.", shown(.step))]
    NoResult {
        /// The referenced id.
        step: String,
    },
    /// The pointer designates nothing in the step's result envelope.
    #[error("The result of step {} has nothing at {}.", shown(.step), shown(.pointer))]
    Unresolved {
        /// The referenced id.
        step: String,
        /// The pointer as written.
        pointer: String,
    },
    /// A value holding `flow_ref` is not a well-formed reference object.
    #[error("The flow_ref at {} is not a valid reference object.", shown(.location))]
    Malformed {
        /// Where it stands, relative to the step's arguments.
        location: String,
    },
}

/// A model-written string for a sentence: quoted and bounded.
fn shown(text: &str) -> String {
    let bounded: String = text.chars().take(ECHO_CHARS).collect();
    let ellipsis = if text.chars().count() > ECHO_CHARS { "…" } else { "" };
    format!("{bounded:?}{ellipsis}")
}

/// Whether `text` is an RFC 6901 JSON Pointer: empty, or `/`-separated reference tokens in which
/// every `~` starts the escape `~0` or `~1`.
pub fn is_json_pointer(text: &str) -> bool {
    if text.is_empty() {
        return true;
    }
    if !text.starts_with('/') {
        return false;
    }
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
            return false;
        }
    }
    true
}

/// The structural check of one reference made by step `step_index` of a flow whose step ids
/// are `step_ids` (in order): the referenced step exists and runs earlier, and the pointer is
/// an RFC 6901 JSON Pointer. This is what a dry run reports; it reads no result.
pub fn check_reference(r: &FlowRef, step_index: usize, step_ids: &[&str]) -> Result<(), ReferenceProblem> {
    let earlier = step_ids.get(..step_index).unwrap_or(step_ids);
    if !earlier.contains(&r.step.as_str()) {
        return Err(if step_ids.contains(&r.step.as_str()) {
            ReferenceProblem::NotEarlier { step: r.step.clone() }
        } else {
            ReferenceProblem::UnknownStep { step: r.step.clone() }
        });
    }
    if !is_json_pointer(&r.pointer) {
        return Err(ReferenceProblem::InvalidPointer { pointer: r.pointer.clone() });
    }
    Ok(())
}

/// Every reference in a step's `arguments`, in document order, with its location relative to
/// `arguments`. Reference objects are syntax-checked; errors point under `at` (the pointer of
/// `arguments` in the call). The `arguments` object itself is not an argument value, so a
/// `flow_ref` member at its top level is refused.
pub fn find_references(arguments: &Value, at: &Pointer) -> Result<Vec<LocatedRef>, DecodeError> {
    let mut found = Vec::new();
    let Value::Object(map) = arguments else { return Ok(found) };
    if map.contains_key(FLOW_REF) {
        return Err(DecodeError::new(
            DecodeErrorKind::InvalidReference,
            at.key(FLOW_REF),
            "cannot stand for the whole arguments object: a reference replaces one argument value",
        ));
    }
    // Depth-first in document order, without recursion: (value, location, absolute pointer).
    let mut pending: Vec<(&Value, Pointer, Pointer)> =
        map.iter().rev().map(|(key, value)| (value, Pointer::root().key(key), at.key(key))).collect();
    while let Some((value, location, absolute)) = pending.pop() {
        match value {
            Value::Object(map) if map.contains_key(FLOW_REF) => {
                let reference = parse_reference(map, &absolute)?;
                found.push(LocatedRef { location, reference });
            }
            Value::Object(map) => {
                pending.extend(
                    map.iter().rev().map(|(key, value)| (value, location.key(key), absolute.key(key))),
                );
            }
            Value::Array(items) => {
                pending.extend(
                    items
                        .iter()
                        .enumerate()
                        .rev()
                        .map(|(i, value)| (value, location.index(i), absolute.index(i))),
                );
            }
            _ => {}
        }
    }
    Ok(found)
}

/// Parse `{"flow_ref":{"step":…,"pointer":…}}` (an object known to hold `flow_ref`) at `at`.
fn parse_reference(map: &Map<String, Value>, at: &Pointer) -> Result<FlowRef, DecodeError> {
    let invalid = |at: Pointer, rule: &str| DecodeError::new(DecodeErrorKind::InvalidReference, at, rule);
    if let Some(other) = map.keys().find(|key| *key != FLOW_REF) {
        return Err(invalid(
            at.key(other),
            "is not accepted beside flow_ref: a reference object has the single member flow_ref",
        ));
    }
    let at = at.key(FLOW_REF);
    let Some(Value::Object(inner)) = map.get(FLOW_REF) else {
        let got = map.get(FLOW_REF).map_or("nothing", json_type);
        return Err(DecodeError::new(
            DecodeErrorKind::InvalidReference,
            at,
            format_args!("must be an object {{\"step\":…,\"pointer\":…}} (got {got})"),
        ));
    };
    if let Some(other) = inner.keys().find(|key| *key != REF_STEP && *key != REF_POINTER) {
        return Err(invalid(at.key(other), "is not a member of a reference: give only step and pointer"));
    }
    let step = reference_text(inner, REF_STEP, FLOW_STEP_ID_CHARS.min, FLOW_STEP_ID_CHARS.max, &at)?;
    let pointer = reference_text(inner, REF_POINTER, FLOW_POINTER_CHARS.min, FLOW_POINTER_CHARS.max, &at)?;
    Ok(FlowRef { step, pointer })
}

/// Read member `name` of a reference as a string of `min..=max` characters.
fn reference_text(
    inner: &Map<String, Value>,
    name: &str,
    min: usize,
    max: usize,
    at: &Pointer,
) -> Result<String, DecodeError> {
    let at = at.key(name);
    let rule = if min == 0 {
        format!("must be a string of at most {max} characters")
    } else {
        format!("must be a non-empty string of at most {max} characters")
    };
    let error = |got: String| {
        DecodeError::new(DecodeErrorKind::InvalidReference, at.clone(), format!("{rule} {got}"))
    };
    match inner.get(name) {
        None => Err(DecodeError::new(DecodeErrorKind::InvalidReference, at.clone(), "is required")),
        Some(Value::String(text)) => {
            let count = text.chars().count();
            if count < min || count > max {
                Err(error(format!("(got {count} characters)")))
            } else {
                Ok(text.clone())
            }
        }
        Some(other) => Err(error(format!("(got {})", json_type(other)))),
    }
}

/// Substitute every reference in step `step_index`'s `arguments` by the value its pointer
/// designates in the referenced earlier step's canonical result envelope, as given by
/// `envelopes_by_id`. The first problem fails the step (nothing is dispatched for it); no value
/// of any envelope appears in a problem.
pub fn resolve_arguments<'e>(
    arguments: &Value,
    step_index: usize,
    step_ids: &[&str],
    envelopes_by_id: impl Fn(&str) -> Option<&'e Value>,
) -> Result<Value, ReferenceProblem> {
    let references = find_references(arguments, &Pointer::root())
        .map_err(|error| ReferenceProblem::Malformed { location: error.pointer().as_str().to_owned() })?;
    let mut resolved = arguments.clone();
    for LocatedRef { location, reference } in references {
        check_reference(&reference, step_index, step_ids)?;
        let envelope = envelopes_by_id(&reference.step)
            .ok_or_else(|| ReferenceProblem::NoResult { step: reference.step.clone() })?;
        let value = envelope.pointer(&reference.pointer).ok_or_else(|| ReferenceProblem::Unresolved {
            step: reference.step.clone(),
            pointer: reference.pointer.clone(),
        })?;
        if let Some(slot) = resolved.pointer_mut(location.as_str()) {
            *slot = value.clone();
        }
    }
    Ok(resolved)
}

/// A step's child call, as far as it can be decoded before the flow runs.
#[derive(Debug, Clone, PartialEq)]
pub enum FlowChild {
    /// Arguments without references, decoded by the tool's own decoder.
    Decoded(Request),
    /// Arguments holding references: decoded by the same decoder after substitution.
    Deferred {
        /// The arguments object as written (references included).
        arguments: Value,
        /// Every reference in it, in document order (at least one).
        refs: Vec<LocatedRef>,
    },
}

/// One named step of a flow.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowStep {
    /// The step's unique id (`[A-Za-z0-9_-]`).
    pub id: String,
    /// The non-composite tool it runs.
    pub tool: ToolName,
    /// Its child call.
    pub child: FlowChild,
}

/// A structural reference problem found by a dry run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceIssue {
    /// Index of the step holding the reference.
    pub step_index: usize,
    /// The reference's location, relative to that step's arguments.
    pub location: Pointer,
    /// What is wrong.
    pub problem: ReferenceProblem,
}

/// Why a step's child call could not be produced at run time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChildError {
    /// A reference did not resolve; the step fails without effect.
    #[error(transparent)]
    Reference(#[from] ReferenceProblem),
    /// The substituted arguments were refused by the tool's decoder.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

/// A decoded `browser_flow` call.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowRequest {
    /// The steps, in order (ids unique).
    pub steps: Vec<FlowStep>,
    /// What to do after a step that does not succeed.
    pub on_error: OnError,
    /// Decode and classify every step without dispatching anything.
    pub dry_run: bool,
    /// The tab the flow runs on (`None`: the default tab at its start).
    pub tab: Option<Handle>,
    /// The flow's own timeout in milliseconds, bounding the whole run; each step keeps the
    /// timeout its own decoder reads.
    pub timeout_ms: u64,
}

impl FlowRequest {
    /// The step ids, in order.
    pub fn step_ids(&self) -> Vec<&str> {
        self.steps.iter().map(|step| step.id.as_str()).collect()
    }

    /// Every structural reference problem (unknown or not-earlier step, invalid pointer), as a
    /// dry run reports them. Resolves nothing.
    pub fn reference_problems(&self) -> Vec<ReferenceIssue> {
        let ids = self.step_ids();
        let mut issues = Vec::new();
        for (step_index, step) in self.steps.iter().enumerate() {
            if let FlowChild::Deferred { refs, .. } = &step.child {
                for located in refs {
                    if let Err(problem) = check_reference(&located.reference, step_index, &ids) {
                        issues.push(ReferenceIssue {
                            step_index,
                            location: located.location.clone(),
                            problem,
                        });
                    }
                }
            }
        }
        issues
    }

    /// The child request of step `step_index`, given the canonical envelopes of the steps that
    /// ran: a decoded step as is; a deferred one after substituting its references and decoding
    /// the result with the tool's own decoder (errors point at `/steps/i/arguments/…`).
    /// `None` when there is no such step.
    pub fn resolve_step<'e>(
        &self,
        step_index: usize,
        envelopes_by_id: impl Fn(&str) -> Option<&'e Value>,
    ) -> Option<Result<Request, ChildError>> {
        let step = self.steps.get(step_index)?;
        Some(match &step.child {
            FlowChild::Decoded(request) => Ok(request.clone()),
            FlowChild::Deferred { arguments, .. } => {
                let ids = self.step_ids();
                resolve_arguments(arguments, step_index, &ids, envelopes_by_id)
                    .map_err(ChildError::from)
                    .and_then(|resolved| {
                        decode_child(step.tool, &resolved, arguments_pointer(step_index))
                            .map_err(ChildError::from)
                    })
            }
        })
    }
}

impl Tool for FlowRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;
    const REPORTS_PROGRESS: bool = true;

    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError> {
        decode(reader)
    }

    /// The wrapper requires no capability; each step is classified on its own.
    fn capabilities(&self) -> CapabilitySet {
        CapabilitySet::EMPTY
    }

    /// The explicitly named tab.
    fn tab(&self) -> Option<&Handle> {
        self.tab.as_ref()
    }

    /// Not tab-bound: its steps are classified one by one.
    fn tab_bound(&self) -> bool {
        false
    }
}

/// `/steps/i/arguments`.
fn arguments_pointer(step_index: usize) -> Pointer {
    Pointer::root().key(STEPS.name).index(step_index).key(ARGUMENTS.name)
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<FlowRequest, DecodeError> {
    let tab = reader.handle(&TAB)?;
    let on_error = reader.choice_or_default::<OnError>(&ON_ERROR)?;
    let dry_run = reader.bool_or_default(&DRY_RUN)?;
    let timeout_ms = read_timeout(reader)?;
    let mut seen: Vec<String> = Vec::new();
    let steps = reader.list(&STEPS, |value, at| decode_step(value, at, tab.as_ref(), &mut seen))?;
    let steps = steps.ok_or_else(|| reader.missing(&STEPS))?;
    Ok(FlowRequest { steps, on_error, dry_run, tab, timeout_ms })
}

/// Decode step `/steps/i` at `at`; `seen` holds the ids of the steps before it.
fn decode_step(
    value: &Value,
    at: Pointer,
    flow_tab: Option<&Handle>,
    seen: &mut Vec<String>,
) -> Result<FlowStep, DecodeError> {
    let mut reader = ObjectReader::new(value, at.clone(), &STEP_FIELDS, false)?;
    let id = reader.text(&ID)?;
    let tool = reader.text(&TOOL)?;
    let arguments = reader.open_object_or_text(&ARGUMENTS, FLOW_ARGUMENTS_TEXT_CHARS)?;
    let id = id.ok_or_else(|| reader.missing(&ID))?;
    if !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        return Err(reader.invalid(
            &ID,
            DecodeErrorKind::InvalidValue,
            "must use only letters, digits, _ and -",
        ));
    }
    if seen.contains(&id) {
        return Err(reader.invalid(
            &ID,
            DecodeErrorKind::Duplicate,
            "repeats an earlier step's id: ids must be unique",
        ));
    }
    let tool = tool.ok_or_else(|| reader.missing(&TOOL))?;
    let tool = match ToolName::parse(&tool) {
        Some(tool) if tool.is_composite() => {
            return Err(reader.invalid(
                &TOOL,
                DecodeErrorKind::UnknownTool,
                format_args!("must name a non-composite tool: {tool} cannot be a flow step"),
            ));
        }
        Some(tool) => tool,
        None => {
            return Err(reader.invalid(
                &TOOL,
                DecodeErrorKind::UnknownTool,
                format_args!(
                    "must name a Ghostlight tool other than browser_sequence and browser_flow (got {}{})",
                    shown(&tool),
                    match ToolName::suggest(&tool).filter(|tool| !tool.is_composite()) {
                        Some(meant) => format!("; did you mean {meant}?"),
                        None => String::new(),
                    }
                ),
            ));
        }
    };
    reader.finish();

    let at = at.key(ARGUMENTS.name);
    let given = arguments.is_some();
    let arguments = Value::Object(arguments.unwrap_or_default());
    check_arguments(tool, &arguments, &at, flow_tab)?;
    let refs = find_references(&arguments, &at)?;
    let child = if refs.is_empty() {
        let decoded = decode_child(tool, &arguments, at.clone()).map_err(|error| {
            if given {
                error
            } else {
                // Omitted arguments are `{}`; point at the missing object, not inside it.
                DecodeError::new(
                    DecodeErrorKind::MissingField,
                    at.clone(),
                    format_args!("is required: {tool} refused empty arguments ({error})"),
                )
            }
        })?;
        FlowChild::Decoded(decoded)
    } else {
        // The members themselves are known now, even though their values are not.
        ObjectReader::new(&arguments, at, tool.declaration().fields, false)?;
        FlowChild::Deferred { arguments, refs }
    };
    seen.push(id.clone());
    Ok(FlowStep { id, tool, child })
}

/// Rules on a step's arguments that hold whether or not they carry references: no restriction
/// fields, no new tab, and no tab other than the flow's own.
fn check_arguments(
    tool: ToolName,
    arguments: &Value,
    at: &Pointer,
    flow_tab: Option<&Handle>,
) -> Result<(), DecodeError> {
    let Value::Object(map) = arguments else { return Ok(()) };
    if let Some(restriction) = RESTRICTIONS.iter().find(|f| map.contains_key(f.name)) {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownField,
            at.key(restriction.name),
            "is not accepted inside a step: restrictions apply to the whole call",
        ));
    }
    if tool == ToolName::Navigate && map.get("new_tab") == Some(&Value::Bool(true)) {
        return Err(DecodeError::new(
            DecodeErrorKind::Conflict,
            at.key("new_tab"),
            "cannot be true in a flow: a flow runs on one tab",
        ));
    }
    if let (Some(flow_tab), Some(Value::String(text))) = (flow_tab, map.get(TAB.name))
        && let Ok(tab) = Handle::parse(text, HandleKind::Tab)
        && tab != *flow_tab
    {
        return Err(DecodeError::new(
            DecodeErrorKind::Conflict,
            at.key(TAB.name),
            format_args!("must be the flow's tab {flow_tab} or absent: a flow runs on one tab"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::limits;
    use crate::tools::navigate::{Destination, NavigateRequest};
    use crate::tools::testing::{accept, int_edges, refuse};

    const T: ToolName = ToolName::Flow;

    pub(super) fn decoded(arguments: Value) -> FlowRequest {
        match accept(T, arguments) {
            Request::Flow(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    /// A step whose meaning is stable: `browser_read` with no arguments reads the page.
    fn read(id: &str) -> Value {
        json!({"id": id, "tool": "browser_read"})
    }

    fn flow(steps: Vec<Value>) -> Value {
        json!({"steps": steps})
    }

    fn r(step: &str, pointer: &str) -> Value {
        json!({"flow_ref": {"step": step, "pointer": pointer}})
    }

    fn fref(step: &str, pointer: &str) -> FlowRef {
        FlowRef { step: step.into(), pointer: pointer.into() }
    }

    fn navigate(url: &str) -> Request {
        accept(ToolName::Navigate, json!({"url": url}))
    }

    #[test]
    fn step_arguments_may_be_the_json_text_of_the_object() {
        // Strict function calling sends an open object as its text: it means the object.
        let text = json!({"steps": [{"id": "open", "tool": "browser_navigate", "arguments": "{\"url\":\"https://example.com\"}"}]});
        assert_eq!(decoded(text), decoded(DECLARATION.example()));
        let reference = json!({"steps": [read("a"), {"id": "b", "tool": "browser_navigate",
            "arguments": json!({"url": r("a", "/facts/url")}).to_string()}]});
        assert!(matches!(decoded(reference).steps[1].child, FlowChild::Deferred { .. }));
        for bad in [json!("[1, 2]"), json!("not json"), json!(7)] {
            let arguments = json!({"steps": [{"id": "x", "tool": "browser_read", "arguments": bad}]});
            refuse(T, arguments, "/steps/0/arguments", K::WrongType);
        }
        let long = "x".repeat(limits::FLOW_ARGUMENTS_TEXT_CHARS + 1);
        let arguments = json!({"steps": [{"id": "x", "tool": "browser_read", "arguments": long}]});
        refuse(T, arguments, "/steps/0/arguments", K::Length);
    }

    #[test]
    fn the_example_decodes() {
        let request = decoded(DECLARATION.example());
        assert_eq!(request.steps.len(), 1);
        let step = &request.steps[0];
        assert_eq!((step.id.as_str(), step.tool), ("open", ToolName::Navigate));
        assert_eq!(step.child, FlowChild::Decoded(navigate("https://example.com")));
        assert_eq!(request.on_error, OnError::Stop);
        assert!(!request.dry_run);
        assert_eq!(request.tab, None);
        assert_eq!(request.timeout_ms, 8_000);
        assert_eq!(request.capabilities(), CapabilitySet::EMPTY);
        assert_eq!(Request::Flow(request).capabilities(), CapabilitySet::EMPTY);
    }

    #[test]
    fn step_count_edges() {
        let n = |count: usize| flow((0..count).map(|i| read(&format!("s{i}"))).collect());
        refuse(T, n(FLOW_STEPS.min - 1), "/steps", K::Length);
        assert_eq!(decoded(n(FLOW_STEPS.min)).steps.len(), 1);
        let request = decoded(n(FLOW_STEPS.max));
        assert_eq!(request.steps.len(), 20);
        assert_eq!(request.step_ids().last(), Some(&"s19"));
        for step in &request.steps {
            assert_eq!(step.tool, ToolName::Read);
            assert!(matches!(&step.child, FlowChild::Decoded(Request::Read(_))));
        }
        let error = refuse(T, n(FLOW_STEPS.max + 1), "/steps", K::Length);
        assert_eq!(error.message(), "/steps must be an array of 1 to 20 items (got 21 items)");
    }

    #[test]
    fn wrapper_fields() {
        let base = flow(vec![read("a")]);
        let mut arguments = base.clone();
        arguments["on_error"] = json!("continue");
        arguments["dry_run"] = json!(true);
        arguments["tab"] = json!("tab_1");
        arguments["timeout_ms"] = json!(30_000);
        arguments["restrict_hosts"] = json!(["example.com"]);
        arguments["restrict_capabilities"] = json!(["read"]);
        let request = decoded(arguments);
        assert_eq!(request.on_error, OnError::Continue);
        assert!(request.dry_run);
        assert_eq!(request.tab().map(Handle::as_str), Some("tab_1"));
        assert_eq!(request.timeout_ms, 30_000);
        let explicit = decoded(json!({"steps": [read("a")], "on_error": "stop", "dry_run": false}));
        assert_eq!((explicit.on_error, explicit.dry_run), (OnError::Stop, false));

        refuse(T, json!({}), "/steps", K::MissingField);
        refuse(T, json!({"steps": {}}), "/steps", K::WrongType);
        refuse(T, json!({"steps": [read("a")], "on_error": "retry"}), "/on_error", K::NotAllowed);
        refuse(T, json!({"steps": [read("a")], "dry_run": "yes"}), "/dry_run", K::WrongType);
        refuse(T, json!({"steps": [read("a")], "tab": "target_1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"steps": [read("a")], "dryrun": true}), "/dryrun", K::UnknownField);
        int_edges(T, base, "timeout_ms", limits::TIMEOUT_MS);
    }

    #[test]
    fn step_objects_are_closed() {
        refuse(T, flow(vec![json!("a")]), "/steps/0", K::WrongType);
        refuse(
            T,
            flow(vec![read("a"), json!({"id": "b", "tool": "browser_read", "args": {}})]),
            "/steps/1/args",
            K::UnknownField,
        );
        // Restriction fields are refused inside a step, with their own reason.
        for field in ["restrict_hosts", "restrict_capabilities"] {
            let mut step = read("a");
            step[field] = json!([]);
            let error = refuse(T, flow(vec![step]), &format!("/steps/0/{field}"), K::UnknownField);
            assert!(error.message().ends_with("restrictions apply to the whole call"), "{error}");
        }
    }

    #[test]
    fn step_ids() {
        refuse(T, flow(vec![json!({"tool": "browser_read"})]), "/steps/0/id", K::MissingField);
        refuse(T, flow(vec![json!({"id": 1, "tool": "browser_read"})]), "/steps/0/id", K::WrongType);
        refuse(T, flow(vec![read("")]), "/steps/0/id", K::Length);
        let max = "a".repeat(FLOW_STEP_ID_CHARS.max);
        assert_eq!(decoded(flow(vec![read(&max)])).steps[0].id, max);
        refuse(T, flow(vec![read(&"a".repeat(FLOW_STEP_ID_CHARS.max + 1))]), "/steps/0/id", K::Length);
        assert_eq!(decoded(flow(vec![read("Az09_-")])).step_ids(), ["Az09_-"]);
        for bad in ["a b", "a.b", "a/b", "é", "a~0", "step!"] {
            let error = refuse(T, flow(vec![read(bad)]), "/steps/0/id", K::InvalidValue);
            assert_eq!(error.message(), "/steps/0/id must use only letters, digits, _ and -");
        }
        // Unique: the later one is refused.
        let error = refuse(T, flow(vec![read("a"), read("b"), read("a")]), "/steps/2/id", K::Duplicate);
        assert_eq!(error.message(), "/steps/2/id repeats an earlier step's id: ids must be unique");
        // Case matters.
        assert_eq!(decoded(flow(vec![read("a"), read("A")])).step_ids(), ["a", "A"]);
    }

    #[test]
    fn step_tools() {
        refuse(T, flow(vec![json!({"id": "a"})]), "/steps/0/tool", K::MissingField);
        refuse(T, flow(vec![json!({"id": "a", "tool": 3})]), "/steps/0/tool", K::WrongType);
        refuse(T, flow(vec![json!({"id": "a", "tool": ""})]), "/steps/0/tool", K::Length);
        for composite in ["browser_sequence", "browser_flow"] {
            let error =
                refuse(T, flow(vec![json!({"id": "a", "tool": composite})]), "/steps/0/tool", K::UnknownTool);
            assert_eq!(
                error.message(),
                format!("/steps/0/tool must name a non-composite tool: {composite} cannot be a flow step")
            );
        }
        let error = refuse(
            T,
            flow(vec![json!({"id": "a", "tool": "browser_clik"})]),
            "/steps/0/tool",
            K::UnknownTool,
        );
        assert!(
            error.message().ends_with("(got \"browser_clik\"; did you mean browser_click?)"),
            "{}",
            error.message()
        );
        for unknown in ["browser_nope", "navigate", "Browser_read", "browser_read "] {
            let error =
                refuse(T, flow(vec![json!({"id": "a", "tool": unknown})]), "/steps/0/tool", K::UnknownTool);
            assert!(
                error
                    .message()
                    .contains("must name a Ghostlight tool other than browser_sequence and browser_flow")
            );
        }
        // Tools whose shortest call is {} decode with arguments omitted or empty.
        for tool in [
            ToolName::Read,
            ToolName::Inspect,
            ToolName::Screenshot,
            ToolName::Scroll,
            ToolName::Diagnose,
            ToolName::PolicyExplain,
        ] {
            let request = decoded(flow(vec![
                json!({"id": "a", "tool": tool.as_str()}),
                json!({"id": "b", "tool": tool.as_str(), "arguments": {}}),
            ]));
            for step in &request.steps {
                assert_eq!(step.tool, tool);
                assert_eq!(step.child, FlowChild::Decoded(accept(tool, json!({}))));
            }
        }
    }

    #[test]
    fn arguments_go_to_the_tools_decoder() {
        refuse(
            T,
            flow(vec![json!({"id": "a", "tool": "browser_read", "arguments": []})]),
            "/steps/0/arguments",
            K::WrongType,
        );
        // Omitted arguments are `{}`: the error points at the missing object and names the field.
        let error = refuse(
            T,
            flow(vec![json!({"id": "a", "tool": "browser_navigate"})]),
            "/steps/0/arguments",
            K::MissingField,
        );
        assert!(error.message().contains("/steps/0/arguments/url is required"), "{error}");
        let step = |arguments: Value| {
            flow(vec![read("a"), json!({"id": "b", "tool": "browser_navigate", "arguments": arguments})])
        };
        refuse(T, step(json!({"url": "ftp://example.com"})), "/steps/1/arguments/url", K::InvalidUrl);
        refuse(
            T,
            step(json!({"url": "https://a.test", "urll": 1})),
            "/steps/1/arguments/urll",
            K::UnknownField,
        );
        refuse(
            T,
            step(json!({"url": "https://a.test", "timeout_ms": 99})),
            "/steps/1/arguments/timeout_ms",
            K::OutOfRange,
        );
        refuse(
            T,
            step(json!({"url": "https://a.test", "reuse": "always"})),
            "/steps/1/arguments/reuse",
            K::NotAllowed,
        );
        let request = decoded(step(json!({"url": "https://a.test/x", "reuse": "never", "timeout_ms": 500})));
        assert_eq!(
            request.steps[1].child,
            FlowChild::Decoded(accept(
                ToolName::Navigate,
                json!({"url": "https://a.test/x", "reuse": "never", "timeout_ms": 500})
            ))
        );
    }

    #[test]
    fn restrictions_are_refused_inside_arguments() {
        for field in ["restrict_hosts", "restrict_capabilities"] {
            // Without references (decoded at once) and with them (deferred).
            for url in [json!("https://a.test"), r("a", "/facts/url")] {
                let error = refuse(
                    T,
                    flow(vec![
                        read("a"),
                        json!({"id": "b", "tool": "browser_navigate", "arguments": {"url": url, field: []}}),
                    ]),
                    &format!("/steps/1/arguments/{field}"),
                    K::UnknownField,
                );
                assert!(error.message().ends_with("restrictions apply to the whole call"), "{error}");
            }
        }
    }

    #[test]
    fn a_flow_runs_on_one_tab() {
        let nav = |arguments: Value| json!({"id": "n", "tool": "browser_navigate", "arguments": arguments});
        let error = refuse(
            T,
            flow(vec![nav(json!({"url": "https://a.test", "new_tab": true}))]),
            "/steps/0/arguments/new_tab",
            K::Conflict,
        );
        assert_eq!(
            error.message(),
            "/steps/0/arguments/new_tab cannot be true in a flow: a flow runs on one tab"
        );
        refuse(
            T,
            flow(vec![nav(json!({"url": r("x", "/facts/url"), "new_tab": true}))]),
            "/steps/0/arguments/new_tab",
            K::Conflict,
        );
        // The explicit default is fine.
        let request = decoded(flow(vec![nav(json!({"url": "https://a.test", "new_tab": false}))]));
        assert!(matches!(
            &request.steps[0].child,
            FlowChild::Decoded(Request::Navigate(NavigateRequest {
                destination: Destination::Default { .. },
                ..
            }))
        ));
        // Another tab than the flow's is refused; the flow's own tab is fine.
        let with_tab =
            |tab: &str| json!({"tab": "tab_1", "steps": [nav(json!({"url": "https://a.test", "tab": tab}))]});
        let error = refuse(T, with_tab("tab_2"), "/steps/0/arguments/tab", K::Conflict);
        assert_eq!(
            error.message(),
            "/steps/0/arguments/tab must be the flow's tab tab_1 or absent: a flow runs on one tab"
        );
        let request = decoded(with_tab("tab_1"));
        assert_eq!(
            request.steps[0].child,
            FlowChild::Decoded(accept(ToolName::Navigate, json!({"url": "https://a.test", "tab": "tab_1"})))
        );
        // Without a flow tab, the default tab is known only when the flow starts.
        decoded(flow(vec![nav(json!({"url": "https://a.test", "tab": "tab_2"}))]));
    }

    #[test]
    fn references_defer_decoding() {
        let request = decoded(flow(vec![
            read("a"),
            json!({"id": "b", "tool": "browser_navigate", "arguments": {"url": r("a", "/facts/url"), "timeout_ms": 500}}),
        ]));
        let FlowChild::Deferred { arguments, refs } = &request.steps[1].child else {
            panic!("not deferred: {:?}", request.steps[1].child);
        };
        assert_eq!(arguments, &json!({"url": r("a", "/facts/url"), "timeout_ms": 500}));
        assert_eq!(
            refs,
            &[LocatedRef { location: Pointer::root().key("url"), reference: fref("a", "/facts/url") }]
        );
        assert_eq!(request.steps[1].tool, ToolName::Navigate);

        // Whether the step is earlier and the pointer valid is decided at run time.
        for (step, pointer) in
            [("b", "/facts/url"), ("later", "/facts/url"), ("nobody", ""), ("a", "facts/x"), ("a", "/a~2")]
        {
            let request = decoded(flow(vec![
                read("a"),
                json!({"id": "b", "tool": "browser_navigate", "arguments": {"url": r(step, pointer)}}),
                read("later"),
            ]));
            assert!(matches!(request.steps[1].child, FlowChild::Deferred { .. }), "{step} {pointer}");
        }

        // The members are checked now, though their values are not.
        refuse(
            T,
            flow(vec![
                read("a"),
                json!({"id": "b", "tool": "browser_navigate", "arguments": {"url": r("a", "/facts/url"), "bogus": 1}}),
            ]),
            "/steps/1/arguments/bogus",
            K::UnknownField,
        );
    }

    #[test]
    fn references_are_found_at_any_depth() {
        let arguments = json!({
            "url": r("a", "/facts/url"),
            "fields": [
                {"target": r("a", "/facts/items/0/target"), "value": "plain"},
                {"selector": {"name": r("a", "/facts/label")}, "value": [1, r("b", "/facts/n")]},
            ],
            "deep": {"x": {"y": {"z": r("c", "")}}},
            "odd/key~": r("a", "/facts/o"),
            "plain": {"not": "a reference", "flow_refs": 1},
        });
        let found = find_references(&arguments, &Pointer::root()).unwrap_or_default();
        let mut located: Vec<(&str, &FlowRef)> =
            found.iter().map(|l| (l.location.as_str(), &l.reference)).collect();
        located.sort_by_key(|(location, _)| *location);
        assert_eq!(
            located,
            [
                ("/deep/x/y/z", &fref("c", "")),
                ("/fields/0/target", &fref("a", "/facts/items/0/target")),
                ("/fields/1/selector/name", &fref("a", "/facts/label")),
                ("/fields/1/value/1", &fref("b", "/facts/n")),
                ("/odd~1key~0", &fref("a", "/facts/o")),
                ("/url", &fref("a", "/facts/url")),
            ]
        );
        assert_eq!(find_references(&json!({}), &Pointer::root()), Ok(vec![]));
    }

    #[test]
    fn reference_syntax() {
        let step = |value: Value| {
            flow(vec![read("a"), json!({"id": "b", "tool": "browser_navigate", "arguments": {"url": value}})])
        };
        let at = "/steps/1/arguments/url";
        let bad = |value: Value, pointer: &str| {
            refuse(T, step(value), &format!("{at}{pointer}"), K::InvalidReference)
        };
        bad(json!({"flow_ref": {"step": "a", "pointer": "/x"}, "extra": 1}), "/extra");
        bad(json!({"flow_ref": "a"}), "/flow_ref");
        bad(json!({"flow_ref": null}), "/flow_ref");
        bad(json!({"flow_ref": ["a", "/x"]}), "/flow_ref");
        bad(json!({"flow_ref": {"pointer": "/x"}}), "/flow_ref/step");
        bad(json!({"flow_ref": {"step": "a"}}), "/flow_ref/pointer");
        bad(json!({"flow_ref": {"step": "a", "pointer": "/x", "default": 1}}), "/flow_ref/default");
        bad(json!({"flow_ref": {"step": "", "pointer": "/x"}}), "/flow_ref/step");
        bad(json!({"flow_ref": {"step": 1, "pointer": "/x"}}), "/flow_ref/step");
        bad(json!({"flow_ref": {"step": "a", "pointer": 0}}), "/flow_ref/pointer");
        let long_id = "a".repeat(FLOW_STEP_ID_CHARS.max + 1);
        let error = bad(json!({"flow_ref": {"step": long_id, "pointer": "/x"}}), "/flow_ref/step");
        assert_eq!(
            error.message(),
            format!(
                "{at}/flow_ref/step must be a non-empty string of at most 64 characters (got 65 characters)"
            )
        );
        let long_pointer = format!("/{}", "a".repeat(FLOW_POINTER_CHARS.max));
        let error = bad(json!({"flow_ref": {"step": "a", "pointer": long_pointer}}), "/flow_ref/pointer");
        assert_eq!(
            error.message(),
            format!(
                "{at}/flow_ref/pointer must be a string of at most 1024 characters (got 1025 characters)"
            )
        );
        // Edges accepted: the longest id and pointer, and the empty pointer.
        let max_pointer = format!("/{}", "a".repeat(FLOW_POINTER_CHARS.max - 1));
        for (id, pointer) in [("a".repeat(FLOW_STEP_ID_CHARS.max), max_pointer.as_str()), ("a".into(), "")] {
            let request = decoded(step(r(&id, pointer)));
            let FlowChild::Deferred { refs, .. } = &request.steps[1].child else { panic!("not deferred") };
            assert_eq!(refs[0].reference, fref(&id, pointer));
        }
        // Nested: the pointer names the reference's own place.
        refuse(
            T,
            flow(vec![
                read("a"),
                json!({"id": "b", "tool": "browser_fill_form", "arguments": {"fields": [{"target": "target_1", "value": {"flow_ref": {"step": "a"}}}]}}),
            ]),
            "/steps/1/arguments/fields/0/value/flow_ref/pointer",
            K::InvalidReference,
        );
        // The arguments object itself cannot be a reference.
        refuse(
            T,
            flow(vec![
                read("a"),
                json!({"id": "b", "tool": "browser_navigate", "arguments": r("a", "/facts")}),
            ]),
            "/steps/1/arguments/flow_ref",
            K::InvalidReference,
        );
    }

    #[test]
    fn pointer_syntax() {
        for good in ["", "/", "/facts", "/facts/items/0/target", "/a~0b~1c", "/~01", "//", "/facts/ünï"] {
            assert!(is_json_pointer(good), "{good}");
        }
        for bad in ["facts/x", "facts", "#/facts", "/a~2", "/a~", "/~", "/a~x/b", " /facts"] {
            assert!(!is_json_pointer(bad), "{bad}");
        }
    }

    #[test]
    fn structural_checks() {
        let ids = ["open", "find", "fill", "later"];
        assert_eq!(check_reference(&fref("open", "/facts/url"), 2, &ids), Ok(()));
        assert_eq!(check_reference(&fref("find", "/facts/matches/0/target"), 2, &ids), Ok(()));
        assert_eq!(check_reference(&fref("open", ""), 1, &ids), Ok(()));
        // Self and forward references.
        assert_eq!(
            check_reference(&fref("fill", "/facts"), 2, &ids),
            Err(ReferenceProblem::NotEarlier { step: "fill".into() })
        );
        assert_eq!(
            check_reference(&fref("later", "/facts"), 2, &ids),
            Err(ReferenceProblem::NotEarlier { step: "later".into() })
        );
        assert_eq!(
            check_reference(&fref("open", "/facts"), 0, &ids),
            Err(ReferenceProblem::NotEarlier { step: "open".into() })
        );
        assert_eq!(
            check_reference(&fref("nobody", "/facts"), 2, &ids),
            Err(ReferenceProblem::UnknownStep { step: "nobody".into() })
        );
        for pointer in ["facts/x", "/a~2"] {
            assert_eq!(
                check_reference(&fref("open", pointer), 2, &ids),
                Err(ReferenceProblem::InvalidPointer { pointer: pointer.into() })
            );
        }
        // The step is judged before the pointer.
        assert_eq!(
            check_reference(&fref("nobody", "facts/x"), 2, &ids),
            Err(ReferenceProblem::UnknownStep { step: "nobody".into() })
        );
    }

    #[test]
    fn dry_run_reports_structural_problems() {
        let request = decoded(json!({"dry_run": true, "steps": [
            read("a"),
            {"id": "b", "tool": "browser_navigate", "arguments": {"url": r("a", "/facts/url")}},
            {"id": "c", "tool": "browser_navigate", "arguments": {"url": r("d", "/facts/url")}},
            {"id": "d", "tool": "browser_navigate", "arguments": {"url": r("zz", "/facts/url"), "timeout_ms": r("a", "facts/x")}},
        ]}));
        assert!(request.dry_run);
        let mut problems = request.reference_problems();
        problems
            .sort_by(|a, b| (a.step_index, a.location.as_str()).cmp(&(b.step_index, b.location.as_str())));
        assert_eq!(
            problems,
            [
                ReferenceIssue {
                    step_index: 2,
                    location: Pointer::root().key("url"),
                    problem: ReferenceProblem::NotEarlier { step: "d".into() },
                },
                ReferenceIssue {
                    step_index: 3,
                    location: Pointer::root().key("timeout_ms"),
                    problem: ReferenceProblem::InvalidPointer { pointer: "facts/x".into() },
                },
                ReferenceIssue {
                    step_index: 3,
                    location: Pointer::root().key("url"),
                    problem: ReferenceProblem::UnknownStep { step: "zz".into() },
                },
            ]
        );
    }

    fn envelope() -> Value {
        json!({
            "status": "succeeded",
            "facts": {
                "url": "https://example.com/next",
                "items": [{"target": "target_7", "name": "Save"}, {"target": "target_8"}],
                "nested": {"deeper": {"n": 1200, "list": [true, null]}},
                "a/b": "slash", "m~n": "tilde",
            },
        })
    }

    #[test]
    fn resolution_substitutes_values_at_any_depth() {
        let env = envelope();
        let envelopes = |id: &str| (id == "find").then_some(&env);
        let ids = ["find", "act"];
        let arguments = json!({
            "url": r("find", "/facts/url"),
            "fields": [{"target": r("find", "/facts/items/0/target"), "value": r("find", "/facts/nested/deeper/n")}],
            "deep": {"x": [r("find", "/facts/nested/deeper/list/1"), r("find", "/facts/nested")]},
            "keys": [r("find", "/facts/a~1b"), r("find", "/facts/m~0n")],
            "whole": r("find", ""),
            "kept": {"value": 5, "text": "as written"},
        });
        let resolved = resolve_arguments(&arguments, 1, &ids, envelopes);
        assert_eq!(
            resolved,
            Ok(json!({
                "url": "https://example.com/next",
                "fields": [{"target": "target_7", "value": 1200}],
                "deep": {"x": [null, {"deeper": {"n": 1200, "list": [true, null]}}]},
                "keys": ["slash", "tilde"],
                "whole": envelope(),
                "kept": {"value": 5, "text": "as written"},
            }))
        );
        // No references: unchanged.
        assert_eq!(resolve_arguments(&json!({"a": [1]}), 1, &ids, envelopes), Ok(json!({"a": [1]})));
    }

    #[test]
    fn resolution_problems() {
        let env = envelope();
        let envelopes = |id: &str| (id == "find").then_some(&env);
        let ids = ["find", "skipped", "act", "later"];
        let resolve = |reference: Value| resolve_arguments(&json!({"v": reference}), 2, &ids, envelopes);
        assert_eq!(
            resolve(r("find", "/facts/items/2/target")),
            Err(ReferenceProblem::Unresolved {
                step: "find".into(),
                pointer: "/facts/items/2/target".into()
            })
        );
        assert_eq!(
            resolve(r("find", "/facts/url/x")),
            Err(ReferenceProblem::Unresolved { step: "find".into(), pointer: "/facts/url/x".into() })
        );
        assert_eq!(
            resolve(r("skipped", "/facts")),
            Err(ReferenceProblem::NoResult { step: "skipped".into() })
        );
        assert_eq!(resolve(r("later", "/facts")), Err(ReferenceProblem::NotEarlier { step: "later".into() }));
        assert_eq!(resolve(r("act", "/facts")), Err(ReferenceProblem::NotEarlier { step: "act".into() }));
        assert_eq!(
            resolve(r("ghost", "/facts")),
            Err(ReferenceProblem::UnknownStep { step: "ghost".into() })
        );
        assert_eq!(
            resolve(r("find", "facts/x")),
            Err(ReferenceProblem::InvalidPointer { pointer: "facts/x".into() })
        );
        assert_eq!(
            resolve(r("find", "/a~2")),
            Err(ReferenceProblem::InvalidPointer { pointer: "/a~2".into() })
        );
        assert_eq!(
            resolve(json!({"flow_ref": {"step": "find"}})),
            Err(ReferenceProblem::Malformed { location: "/v/flow_ref/pointer".into() })
        );
    }

    #[test]
    fn problems_are_sentences_without_values() {
        let env = envelope();
        let problem =
            resolve_arguments(&json!({"v": r("find", "/facts/secret")}), 1, &["find", "x"], |_| Some(&env))
                .err()
                .map(|p| p.to_string());
        assert_eq!(problem.as_deref(), Some(r#"The result of step "find" has nothing at "/facts/secret"."#));
        let problem =
            resolve_arguments(&json!({"v": r("find", "/facts/items")}), 1, &["find", "x"], |_| Some(&env));
        assert!(problem.is_ok());
        let cases = [
            (ReferenceProblem::UnknownStep { step: "x".into() }, r#"No step of this flow is named "x"."#),
            (
                ReferenceProblem::NotEarlier { step: "x".into() },
                r#"Step "x" does not run before this step; a reference may name only an earlier step."#,
            ),
            (
                ReferenceProblem::InvalidPointer { pointer: "facts/x".into() },
                r#""facts/x" is not a JSON Pointer: it must be empty or start with "/", and each "~" must be followed by 0 or 1."#,
            ),
            (ReferenceProblem::NoResult { step: "x".into() }, r#"Step "x" has no result to refer to."#),
            (
                ReferenceProblem::Malformed { location: "/v".into() },
                r#"The flow_ref at "/v" is not a valid reference object."#,
            ),
        ];
        for (problem, sentence) in cases {
            assert_eq!(problem.to_string(), sentence);
        }
        let long =
            ReferenceProblem::Unresolved { step: "s".into(), pointer: format!("/{}", "p".repeat(300)) }
                .to_string();
        assert!(long.chars().count() < 120, "{long}");
    }

    #[test]
    fn deferred_steps_decode_after_substitution() {
        let request = decoded(flow(vec![
            read("find"),
            json!({"id": "go", "tool": "browser_navigate", "arguments": {"url": r("find", "/facts/url"), "timeout_ms": r("find", "/facts/nested/deeper/n")}}),
            json!({"id": "bad", "tool": "browser_navigate", "arguments": {"url": r("find", "/facts/items")}}),
        ]));
        let env = envelope();
        let envelopes = |id: &str| (id == "find").then_some(&env);
        assert_eq!(request.resolve_step(0, envelopes), Some(Ok(accept(ToolName::Read, json!({})))));
        assert_eq!(
            request.resolve_step(1, envelopes),
            Some(Ok(accept(
                ToolName::Navigate,
                json!({"url": "https://example.com/next", "timeout_ms": 1200})
            )))
        );
        // The same decoder refuses a substituted value, pointing into the step's arguments.
        match request.resolve_step(2, envelopes) {
            Some(Err(ChildError::Decode(error))) => {
                assert_eq!(error.pointer().as_str(), "/steps/2/arguments/url");
                assert_eq!(error.kind(), K::WrongType);
            }
            other => panic!("{other:?}"),
        }
        // An unresolved reference fails the step.
        assert_eq!(
            request.resolve_step(1, |_| None),
            Some(Err(ChildError::Reference(ReferenceProblem::NoResult { step: "find".into() })))
        );
        assert_eq!(request.resolve_step(3, envelopes), None);
    }

    #[test]
    fn every_declared_field_is_read() {
        decoded(DECLARATION.example());
        decoded(flow(vec![
            read("a"),
            json!({"id": "b", "tool": "browser_navigate", "arguments": {"url": r("a", "/x")}}),
        ]));
    }

    #[test]
    fn declaration() {
        let a = DECLARATION.annotations;
        assert_eq!((a.read_only, a.destructive, a.idempotent, a.open_world), (false, true, false, true));
        assert!(DECLARATION.description.len() <= 90);
        let schema = DECLARATION.input_schema();
        let step = &schema["properties"]["steps"]["items"];
        assert_eq!(step["additionalProperties"], false);
        assert_eq!(step["required"], json!(["id", "tool"]));
        // The one open object: it carries another tool's arguments.
        assert_eq!(step["properties"]["arguments"]["type"], "object");
        assert!(step["properties"]["arguments"].get("additionalProperties").is_none());
        assert_eq!(schema["properties"]["on_error"]["default"], "stop");
        assert_eq!(schema["properties"]["dry_run"]["default"], false);
        let facts: Vec<&str> = DECLARATION.facts.iter().map(|f| f.name).collect();
        assert_eq!(
            facts,
            [
                "completed",
                "total",
                "stopped",
                "steps",
                "ran",
                "unsuccessful",
                "envelopes_omitted",
                "dry_run",
                "not_admitted",
                "deferred_steps"
            ]
        );
    }

    /// Flow steps decoded by the other tools' own decoders (read, fill_form, click, …).
    mod through_child_decoders {
        use super::*;

        #[test]
        fn a_target_from_an_earlier_result() {
            let request = decoded(flow(vec![
                json!({"id": "find", "tool": "browser_find", "arguments": {"text": "Save"}}),
                json!({"id": "click", "tool": "browser_click", "arguments": {"target": r("find", "/facts/matches/0/target")}}),
                json!({"id": "wait", "tool": "browser_wait", "arguments": {"condition": "load_ready"}}),
            ]));
            assert!(matches!(request.steps[0].child, FlowChild::Decoded(Request::Find(_))));
            assert!(matches!(request.steps[2].child, FlowChild::Decoded(Request::Wait(_))));
            let env =
                json!({"facts": {"matches": [{"target": "target_9", "role": "button", "name": "Save"}]}});
            let resolved = request.resolve_step(1, |id| (id == "find").then_some(&env));
            let expected = accept(ToolName::Click, json!({"target": "target_9"}));
            assert_eq!(resolved, Some(Ok(expected.clone())));
            assert_eq!(expected.capabilities().to_string(), "action");
            // A substituted handle of the wrong kind is refused by the click decoder.
            let env = json!({"facts": {"matches": [{"target": "view_1"}]}});
            match request.resolve_step(1, |id| (id == "find").then_some(&env)) {
                Some(Err(ChildError::Decode(error))) => {
                    assert_eq!(error.pointer().as_str(), "/steps/1/arguments/target");
                    assert_eq!(error.kind(), K::InvalidHandle);
                }
                other => panic!("{other:?}"),
            }
        }

        /// The decoder's null rule holds after substitution: a reference that resolves to
        /// `null` in an optional field is that field's absence, in a required one a type error.
        #[test]
        fn a_reference_that_resolves_to_null() {
            let request = decoded(flow(vec![
                read("read"),
                json!({"id": "more", "tool": "browser_read", "arguments": {"max_chars": r("read", "/facts/limit")}}),
                json!({"id": "fill", "tool": "browser_fill_form", "arguments": {
                    "fields": [{"target": "target_1", "value": r("read", "/facts/limit")}]
                }}),
            ]));
            let env = json!({"facts": {"limit": null}});
            assert_eq!(
                request.resolve_step(1, |id| (id == "read").then_some(&env)),
                Some(Ok(accept(ToolName::Read, json!({}))))
            );
            match request.resolve_step(2, |id| (id == "read").then_some(&env)) {
                Some(Err(ChildError::Decode(error))) => {
                    assert_eq!(error.pointer().as_str(), "/steps/2/arguments/fields/0/value");
                    assert_eq!(error.kind(), K::WrongType);
                }
                other => panic!("{other:?}"),
            }
        }

        #[test]
        fn a_fill_value_at_depth() {
            let request = decoded(flow(vec![
                read("read"),
                json!({"id": "fill", "tool": "browser_fill_form", "arguments": {
                    "fields": [{"target": "target_1", "value": r("read", "/facts/title")}]
                }}),
            ]));
            let env = json!({"facts": {"title": "Ada"}});
            assert_eq!(
                request.resolve_step(1, |id| (id == "read").then_some(&env)),
                Some(Ok(accept(
                    ToolName::FillForm,
                    json!({"fields": [{"target": "target_1", "value": "Ada"}]})
                )))
            );
        }

        #[test]
        fn child_errors_point_into_arguments() {
            let step = |arguments: Value| {
                flow(vec![json!({"id": "a", "tool": "browser_click", "arguments": arguments})])
            };
            refuse(T, step(json!({"target": "view_1"})), "/steps/0/arguments/target", K::InvalidHandle);
            refuse(
                T,
                step(json!({"target": "target_1", "click_count": 4})),
                "/steps/0/arguments/click_count",
                K::OutOfRange,
            );
            refuse(
                T,
                flow(vec![json!({"id": "a", "tool": "browser_wait", "arguments": {"condition": "soon"}})]),
                "/steps/0/arguments/condition",
                K::NotAllowed,
            );
            refuse(
                T,
                flow(vec![
                    json!({"id": "a", "tool": "browser_fill_form", "arguments": {"fields": [{"target": "target_1", "value": "x", "valu": 1}]}}),
                ]),
                "/steps/0/arguments/fields/0/valu",
                K::UnknownField,
            );
        }
    }
}
