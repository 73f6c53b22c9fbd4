//! `browser_sequence`: run two to eight fully specified page actions on one controlled tab.
//!
//! A step is a typo-closed object discriminated by `action`. Its advertised schema is one flat
//! closed object: `action` plus the union of the seven step tools' own fields, derived at
//! compile time from those tools' declarations (so it follows whatever they declare). Decoding a
//! step refuses the fields its action's tool does not accept, then hands the rest to that
//! tool's own decoder through [`decode_child`], so a step means exactly what the direct call
//! means.

pub(crate) mod op;

use serde_json::{Map, Value};

use crate::capability::CapabilitySet;
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, DecodeErrorKind, ObjectReader, Pointer, reads_as_absent};
use crate::facts::tool_facts;
use crate::handles::Handle;
use crate::limits::SEQUENCE_STEPS;
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::catalog::decode_child;
use crate::tools::common::{TAB, TIMEOUT_MS, read_timeout};
use crate::tools::request::Request;
use crate::tools::{click, fill_form, hover, press_key, scroll, type_text, wait};
use crate::vocab::WireChoice;
use crate::vocab::wire_choice;

wire_choice! {
    /// What one sequence step does; each action is one catalog tool.
    pub enum StepAction {
        /// `browser_click`.
        Click => "click",
        /// `browser_fill_form`.
        Fill => "fill",
        /// `browser_type_text`.
        TypeText => "type_text",
        /// `browser_press_key`.
        PressKey => "press_key",
        /// `browser_scroll`.
        Scroll => "scroll",
        /// `browser_hover`.
        Hover => "hover",
        /// `browser_wait`.
        Wait => "wait",
    }
}

impl StepAction {
    /// Every action, in declaration order.
    pub const ALL: [StepAction; 7] = [
        StepAction::Click,
        StepAction::Fill,
        StepAction::TypeText,
        StepAction::PressKey,
        StepAction::Scroll,
        StepAction::Hover,
        StepAction::Wait,
    ];

    /// The catalog tool this action runs.
    pub const fn tool(self) -> ToolName {
        match self {
            StepAction::Click => ToolName::Click,
            StepAction::Fill => ToolName::FillForm,
            StepAction::TypeText => ToolName::TypeText,
            StepAction::PressKey => ToolName::PressKey,
            StepAction::Scroll => ToolName::Scroll,
            StepAction::Hover => ToolName::Hover,
            StepAction::Wait => ToolName::Wait,
        }
    }
}

/// The step tools' own declared fields, in [`StepAction::ALL`] order.
const STEP_TOOL_FIELDS: [&[Field]; 7] = [
    click::DECLARATION.fields,
    fill_form::DECLARATION.fields,
    type_text::DECLARATION.fields,
    press_key::DECLARATION.fields,
    scroll::DECLARATION.fields,
    hover::DECLARATION.fields,
    wait::DECLARATION.fields,
];

/// The description of a union field: the action (in [`StepAction::ALL`] order) whose tool
/// declares it first. The action names its tool, whose own schema says the same of the field.
const AS_IN: [&str; 7] = [
    "As in click.",
    "As in fill.",
    "As in type_text.",
    "As in press_key.",
    "As in scroll.",
    "As in hover.",
    "As in wait.",
];

const ACTION: Field = Field::required(
    "action",
    FieldType::Choice { values: StepAction::NAMES, default: None },
    "What the step does.",
);

/// Byte-wise string equality usable in constant evaluation.
const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether field `index` of step tool `tool` joins the union: not `action`, not `tab` (steps
/// run on the sequence's tab), and not declared by an earlier tool or earlier in the same tool.
const fn joins_union(tool: usize, index: usize) -> bool {
    let name = STEP_TOOL_FIELDS[tool][index].name;
    if same_name(name, ACTION.name) || same_name(name, TAB.name) {
        return false;
    }
    let mut t = 0;
    while t <= tool {
        let fields = STEP_TOOL_FIELDS[t];
        let end = if t == tool { index } else { fields.len() };
        let mut i = 0;
        while i < end {
            if same_name(fields[i].name, name) {
                return false;
            }
            i += 1;
        }
        t += 1;
    }
    true
}

/// Whether any step tool marks a field of this name secret-bearing.
const fn any_sensitive(name: &str) -> bool {
    let mut t = 0;
    while t < STEP_TOOL_FIELDS.len() {
        let fields = STEP_TOOL_FIELDS[t];
        let mut i = 0;
        while i < fields.len() {
            if fields[i].sensitive && same_name(fields[i].name, name) {
                return true;
            }
            i += 1;
        }
        t += 1;
    }
    false
}

/// `action` plus the number of union fields.
const fn step_field_count() -> usize {
    let mut count = 1;
    let mut t = 0;
    while t < STEP_TOOL_FIELDS.len() {
        let mut i = 0;
        while i < STEP_TOOL_FIELDS[t].len() {
            if joins_union(t, i) {
                count += 1;
            }
            i += 1;
        }
        t += 1;
    }
    count
}

/// `action`, then every union field (optional: which ones apply depends on the action).
const fn step_fields<const N: usize>() -> [Field; N] {
    let mut out = [ACTION; N];
    let mut n = 1;
    let mut t = 0;
    while t < STEP_TOOL_FIELDS.len() {
        let fields = STEP_TOOL_FIELDS[t];
        let mut i = 0;
        while i < fields.len() {
            if joins_union(t, i) {
                let field = fields[i];
                out[n] = Field {
                    name: field.name,
                    ty: field.ty,
                    description: AS_IN[t],
                    required: false,
                    sensitive: any_sensitive(field.name),
                };
                n += 1;
            }
            i += 1;
        }
        t += 1;
    }
    out
}

const STEP_FIELD_COUNT: usize = step_field_count();

/// One step's declared fields: `action` and the union of the step tools' own fields.
const STEP_FIELDS: &[Field] = &step_fields::<STEP_FIELD_COUNT>();

const STEPS: Field = Field::required(
    "steps",
    FieldType::List { item: &FieldType::Object(STEP_FIELDS), count: SEQUENCE_STEPS, unique: false },
    "Steps, run in order.",
);

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    COMPLETED_STEPS: Int("completed_steps", "Steps that succeeded."),
    TOTAL_STEPS: Int("total_steps", "Steps requested."),
    STEPS: Json(
        "steps",
        FactType::ObjectArray(&[
                Fact::new("action", FactType::String, "The step's action."),
                Fact::new("status", FactType::String, "The step's status."),
                Fact::new("effect", FactType::String, "The step's effect."),
            ]),
        "Per-step outcomes, up to the first non-success."
    ),
    STOPPED_AT: Json(
        "stopped_at",
        FactType::Object(&[
            Fact::new("index", FactType::Integer, "1-based step."),
            Fact::new("action", FactType::String, "Step tool."),
            Fact::new("reason", FactType::String, "Why it stopped."),
        ]),
        "The step that stopped the sequence, if any."
    ),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Sequence,
    description: "Run page actions in order on one tab, stopping at the first failure.",
    fields: &[STEPS, TAB, TIMEOUT_MS],
    example: r#"{"steps":[{"action":"click","target":"target_1"},{"action":"wait","condition":"load_ready"}]}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
};

/// One decoded step: its action and the request its tool's own decoder produced.
#[derive(Debug, Clone, PartialEq)]
pub struct SequenceStep {
    /// What the step does.
    pub action: StepAction,
    /// The step's typed request (always of the action's tool; never names a tab). It is
    /// classified on its own: see [`Request::capabilities`].
    pub request: Request,
}

/// A decoded `browser_sequence` call.
#[derive(Debug, Clone, PartialEq)]
pub struct SequenceRequest {
    /// The tab every step runs on (`None`: the default tab).
    pub tab: Option<Handle>,
    /// The sequence's own timeout in milliseconds, bounding the whole run; each step keeps the
    /// timeout its own decoder read.
    pub timeout_ms: u64,
    /// The steps, in order.
    pub steps: Vec<SequenceStep>,
}

impl Tool for SequenceRequest {
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

fn decode(reader: &mut ObjectReader<'_>) -> Result<SequenceRequest, DecodeError> {
    let tab = reader.handle(&TAB)?;
    let timeout_ms = read_timeout(reader)?;
    let steps = reader.list(&STEPS, decode_step)?;
    let steps = steps.ok_or_else(|| reader.missing(&STEPS))?;
    Ok(SequenceRequest { tab, timeout_ms, steps })
}

/// Decode one step at `at` (`/steps/i`).
fn decode_step(value: &Value, at: Pointer) -> Result<SequenceStep, DecodeError> {
    if let Value::Object(map) = value
        && map.contains_key(TAB.name)
    {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownField,
            at.key(TAB.name),
            "is not accepted in a step: steps run on the sequence's tab",
        ));
    }
    let mut reader = ObjectReader::new(value, at.clone(), STEP_FIELDS, false)?;
    let action = reader.choice::<StepAction>(&ACTION)?;
    let action = action.ok_or_else(|| reader.missing(&ACTION))?;
    let accepted = action.tool().declaration().fields;
    for field in STEP_FIELDS.iter().filter(|f| f.name != ACTION.name) {
        if reader.present(field) && !accepted.iter().any(|f| f.name == field.name) {
            return Err(
                reader.not_here(field, format_args!("is not accepted for action {}", action.as_str()))
            );
        }
    }
    reader.finish();
    // The child gets the step's members but `action`, and but the union fields that read as
    // absent (an optional `null`): a field of another action's tool is not the child's to see.
    let arguments: Map<String, Value> = match value {
        Value::Object(map) => map
            .iter()
            .filter(|(key, value)| {
                *key != ACTION.name
                    && !STEP_FIELDS.iter().any(|field| field.name == *key && reads_as_absent(field, value))
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        _ => Map::new(),
    };
    let request = decode_child(action.tool(), &Value::Object(arguments), at)?;
    Ok(SequenceStep { action, request })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::limits;
    use crate::schema::render_input_schema;
    use crate::tools::testing::{accept, int_edges, refuse};

    const T: ToolName = ToolName::Sequence;

    /// A step whose meaning is stable: `browser_scroll` with no fields scrolls down a medium
    /// amount.
    fn scroll_step() -> Value {
        json!({"action": "scroll"})
    }

    fn steps(n: usize) -> Value {
        json!({"steps": vec![scroll_step(); n]})
    }

    pub(super) fn decoded(arguments: Value) -> SequenceRequest {
        match accept(T, arguments) {
            Request::Sequence(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    #[test]
    fn step_count_edges() {
        refuse(T, steps(SEQUENCE_STEPS.min - 1), "/steps", K::Length);
        let request = decoded(steps(SEQUENCE_STEPS.min));
        assert_eq!(request.steps.len(), SEQUENCE_STEPS.min);
        let request = decoded(steps(SEQUENCE_STEPS.max));
        assert_eq!(request.steps.len(), SEQUENCE_STEPS.max);
        for step in &request.steps {
            assert_eq!(step.action, StepAction::Scroll);
            assert_eq!(step.request.tool(), ToolName::Scroll);
            assert_eq!(step.request.tab(), None);
        }
        let error = refuse(T, steps(SEQUENCE_STEPS.max + 1), "/steps", K::Length);
        assert_eq!(error.message(), "/steps must be an array of 2 to 8 items (got 9 items)");
        refuse(T, steps(0), "/steps", K::Length);
    }

    #[test]
    fn wrapper_fields() {
        let request = decoded(steps(2));
        assert_eq!(request.tab, None);
        assert_eq!(request.timeout_ms, limits::TIMEOUT_MS.default.unwrap_or_default());
        assert_eq!(request.capabilities(), CapabilitySet::EMPTY);
        assert_eq!(Request::Sequence(request).capabilities(), CapabilitySet::EMPTY);

        let mut arguments = steps(2);
        arguments["tab"] = json!("tab_1");
        arguments["timeout_ms"] = json!(20_000);
        let request = decoded(arguments.clone());
        assert_eq!(request.tab().map(Handle::as_str), Some("tab_1"));
        assert_eq!(request.timeout_ms, 20_000);

        // Restrictions belong to the whole call.
        arguments["restrict_capabilities"] = json!(["action"]);
        arguments["restrict_hosts"] = json!(["example.com"]);
        decoded(arguments);

        int_edges(T, steps(2), "timeout_ms", limits::TIMEOUT_MS);
        refuse(
            T,
            json!({"steps": [scroll_step(), scroll_step()], "tab": "view_1"}),
            "/tab",
            K::InvalidHandle,
        );
    }

    #[test]
    fn wrapper_refusals() {
        refuse(T, json!({}), "/steps", K::MissingField);
        refuse(T, json!({"tab": "tab_1"}), "/steps", K::MissingField);
        refuse(T, json!({"steps": {"action": "scroll"}}), "/steps", K::WrongType);
        refuse(T, json!({"steps": [scroll_step(), 7]}), "/steps/1", K::WrongType);
        refuse(T, json!({"steps": [scroll_step(), scroll_step()], "stepz": 1}), "/stepz", K::UnknownField);
        refuse(
            T,
            json!({"steps": [scroll_step(), scroll_step()], "on_error": "stop"}),
            "/on_error",
            K::UnknownField,
        );
    }

    #[test]
    fn action_is_required_and_closed() {
        refuse(T, json!({"steps": [scroll_step(), {}]}), "/steps/1/action", K::MissingField);
        for other in ["navigate", "drag", "upload", "execute", "Click", "browser_click", "sequence", ""] {
            let error = refuse(
                T,
                json!({"steps": [{"action": other}, scroll_step()]}),
                "/steps/0/action",
                K::NotAllowed,
            );
            assert!(error.message().contains(r#""click", "fill", "type_text""#), "{error}");
        }
        refuse(T, json!({"steps": [{"action": 1}, scroll_step()]}), "/steps/0/action", K::WrongType);
        refuse(T, json!({"steps": [{"action": null}, scroll_step()]}), "/steps/0/action", K::WrongType);
    }

    #[test]
    fn steps_are_typo_closed_and_tabless() {
        refuse(
            T,
            json!({"steps": [scroll_step(), {"action": "scroll", "bogus": 1}]}),
            "/steps/1/bogus",
            K::UnknownField,
        );
        refuse(T, json!({"steps": [scroll_step(), {"acton": "scroll"}]}), "/steps/1/acton", K::UnknownField);
        let error = refuse(
            T,
            json!({"steps": [{"action": "scroll", "tab": "tab_1"}, scroll_step()]}),
            "/steps/0/tab",
            K::UnknownField,
        );
        assert_eq!(
            error.message(),
            "/steps/0/tab is not accepted in a step: steps run on the sequence's tab"
        );
        // Even a tab of the right value, and even when the action is missing.
        refuse(T, json!({"steps": [scroll_step(), {"tab": "tab_1"}]}), "/steps/1/tab", K::UnknownField);
    }

    #[test]
    fn restrictions_are_refused_in_a_step() {
        for (field, value) in
            [("restrict_hosts", json!(["example.com"])), ("restrict_capabilities", json!([]))]
        {
            let mut step = scroll_step();
            step[field] = value;
            let error = refuse(
                T,
                json!({"steps": [scroll_step(), step]}),
                &format!("/steps/1/{field}"),
                K::UnknownField,
            );
            assert!(error.message().ends_with("restrictions apply to the whole call"), "{error}");
        }
    }

    #[test]
    fn actions_map_to_tools() {
        let tools: Vec<ToolName> = StepAction::ALL.iter().map(|a| a.tool()).collect();
        assert_eq!(
            tools,
            [
                ToolName::Click,
                ToolName::FillForm,
                ToolName::TypeText,
                ToolName::PressKey,
                ToolName::Scroll,
                ToolName::Hover,
                ToolName::Wait
            ]
        );
        assert_eq!(StepAction::NAMES.len(), StepAction::ALL.len());
        for action in StepAction::ALL {
            assert_eq!(StepAction::from_wire(action.as_str()), Some(action));
            assert!(!action.tool().is_composite());
        }
    }

    #[test]
    fn step_schema_is_one_flat_closed_object() {
        let schema = DECLARATION.input_schema();
        let step = &schema["properties"]["steps"]["items"];
        assert_eq!(step["type"], "object");
        assert_eq!(step["additionalProperties"], false);
        assert_eq!(step["required"], json!(["action"]));
        assert_eq!(step["properties"]["action"]["enum"], json!(StepAction::NAMES));
        for absent in ["tab", "restrict_hosts", "restrict_capabilities", "oneOf", "anyOf", "allOf"] {
            assert!(step["properties"].get(absent).is_none(), "{absent}");
            assert!(step.get(absent).is_none(), "{absent}");
        }
        assert_eq!(schema["properties"]["steps"]["minItems"], SEQUENCE_STEPS.min);
        assert_eq!(schema["properties"]["steps"]["maxItems"], SEQUENCE_STEPS.max);
        assert_eq!(schema["required"], json!(["steps"]));
    }

    /// The union holds every field a step tool declares (except `tab`), once, optional.
    #[test]
    fn step_fields_are_the_union_of_the_step_tools_fields() {
        let names: Vec<&str> = STEP_FIELDS.iter().map(|f| f.name).collect();
        assert_eq!(names.first(), Some(&"action"));
        for (index, name) in names.iter().enumerate() {
            assert!(!names[..index].contains(name), "{name} twice");
        }
        for action in StepAction::ALL {
            for field in action.tool().declaration().fields {
                assert_eq!(
                    names.contains(&field.name),
                    field.name != "tab",
                    "{} of {:?}",
                    field.name,
                    action
                );
            }
        }
        for field in STEP_FIELDS.iter().skip(1) {
            assert!(!field.required, "{}", field.name);
            let first = StepAction::ALL
                .into_iter()
                .find(|a| a.tool().declaration().fields.iter().any(|f| f.name == field.name))
                .expect("a step tool declares every union field");
            assert_eq!(field.description, format!("As in {}.", first.as_str()), "{}", field.name);
        }
    }

    /// A name shared by several step tools must mean the same thing in each, or the one flat
    /// step schema would advertise only one of the meanings.
    #[test]
    fn shared_step_field_names_have_one_type() {
        let rendered = |field: &Field| {
            let mut schema = render_input_schema(std::slice::from_ref(field), &json!({}));
            let mut property = schema["properties"][field.name].take();
            if let Value::Object(map) = &mut property {
                map.remove("description");
            }
            (property, field.sensitive)
        };
        for union_field in STEP_FIELDS.iter().skip(1) {
            for action in StepAction::ALL {
                for field in action.tool().declaration().fields.iter().filter(|f| f.name == union_field.name)
                {
                    assert_eq!(rendered(field), rendered(union_field), "{} in {:?}", field.name, action);
                }
            }
        }
    }

    #[test]
    fn every_declared_field_is_read() {
        decoded(steps(2));
    }

    #[test]
    fn annotations_and_facts() {
        let a = DECLARATION.annotations;
        assert_eq!((a.read_only, a.destructive, a.idempotent, a.open_world), (false, true, false, true));
        let facts: Vec<&str> = DECLARATION.facts.iter().map(|f| f.name).collect();
        assert_eq!(facts, ["tab", "completed_steps", "total_steps", "steps", "stopped_at"]);
        assert!(DECLARATION.description.len() <= 90);
    }

    /// Steps decoded by the step tools' own decoders (click, fill_form, type_text, press_key,
    /// scroll, hover, wait), and the step schema derived from their declarations.
    mod through_step_decoders {
        use super::*;
        use crate::capability::Capability;

        fn click() -> Value {
            json!({"action": "click", "target": "target_1"})
        }

        fn wait() -> Value {
            json!({"action": "wait", "condition": "load_ready"})
        }

        #[test]
        fn the_example_decodes() {
            let request = decoded(DECLARATION.example());
            assert_eq!(request.steps.len(), 2);
            assert_eq!(request.steps[0].action, StepAction::Click);
            assert_eq!(request.steps[0].request.tool(), ToolName::Click);
            assert_eq!(request.steps[1].action, StepAction::Wait);
            assert_eq!(request.steps[1].request.tool(), ToolName::Wait);
            // Each step is classified on its own; the wrapper requires nothing.
            assert_eq!(request.steps[0].request.capabilities().to_string(), "action");
            assert_eq!(request.steps[1].request.capabilities().to_string(), "read");
            assert_eq!(request.capabilities(), CapabilitySet::EMPTY);
        }

        #[test]
        fn a_step_means_what_the_direct_call_means() {
            let cases = [
                (click(), json!({"target": "target_1"})),
                (
                    json!({"action": "click", "view": "view_1", "x": 3, "y": 4}),
                    json!({"view": "view_1", "x": 3, "y": 4}),
                ),
                (
                    json!({"action": "fill", "fields": [{"target": "target_1", "value": "Ada"}]}),
                    json!({"fields": [{"target": "target_1", "value": "Ada"}]}),
                ),
                (
                    json!({"action": "type_text", "target": "target_1", "text": "Ada"}),
                    json!({"target": "target_1", "text": "Ada"}),
                ),
                (json!({"action": "press_key", "key": "Enter"}), json!({"key": "Enter"})),
                (json!({"action": "scroll", "target": "target_1"}), json!({"target": "target_1"})),
                (json!({"action": "hover", "target": "target_1"}), json!({"target": "target_1"})),
                (wait(), json!({"condition": "load_ready"})),
                (
                    json!({"action": "click", "target": "target_1", "timeout_ms": 500}),
                    json!({"target": "target_1", "timeout_ms": 500}),
                ),
            ];
            for (step, direct) in cases {
                let Some(action) = step["action"].as_str().and_then(StepAction::from_wire) else {
                    panic!("bad case {step}");
                };
                let request = decoded(json!({"steps": [step.clone(), wait()]}));
                assert_eq!(request.steps[0].action, action);
                assert_eq!(request.steps[0].request, accept(action.tool(), direct), "{step}");
            }
            let fill = decoded(json!({"steps": [
                {"action": "fill", "fields": [{"target": "target_1", "value": "Ada"}], "submit_target": "target_2"},
                wait(),
            ]}));
            assert_eq!(
                fill.steps[0].request.capabilities(),
                CapabilitySet::of(&[Capability::Read, Capability::Write, Capability::Action])
            );
        }

        #[test]
        fn a_field_of_another_action_is_refused() {
            let error = refuse(
                T,
                json!({"steps": [wait(), {"action": "click", "target": "target_1", "ticks": 2}]}),
                "/steps/1/ticks",
                K::Conflict,
            );
            assert_eq!(error.message(), "/steps/1/ticks is not accepted for action click");
            refuse(
                T,
                json!({"steps": [wait(), {"action": "wait", "condition": "load_ready", "text": "x"}]}),
                "/steps/1/text",
                K::Conflict,
            );
            refuse(
                T,
                json!({"steps": [{"action": "hover", "target": "target_1", "button": "primary"}, wait()]}),
                "/steps/0/button",
                K::Conflict,
            );
            refuse(
                T,
                json!({"steps": [{"action": "scroll", "fields": []}, wait()]}),
                "/steps/0/fields",
                K::Conflict,
            );
            // browser_press_key lists no timeout_ms.
            refuse(
                T,
                json!({"steps": [{"action": "press_key", "key": "Enter", "timeout_ms": 500}, wait()]}),
                "/steps/0/timeout_ms",
                K::Conflict,
            );
            // A field no step tool declares at all is an unknown field.
            refuse(
                T,
                json!({"steps": [{"action": "click", "target": "target_1", "url": "https://a.test"}, wait()]}),
                "/steps/0/url",
                K::UnknownField,
            );
            // tab is refused before anything else, with its own reason.
            refuse(
                T,
                json!({"steps": [{"action": "click", "target": "target_1", "tab": "tab_1"}, wait()]}),
                "/steps/0/tab",
                K::UnknownField,
            );
        }

        #[test]
        fn child_errors_point_into_the_step() {
            refuse(
                T,
                json!({"steps": [wait(), {"action": "click", "target": "view_1"}]}),
                "/steps/1/target",
                K::InvalidHandle,
            );
            refuse(
                T,
                json!({"steps": [click(), {"action": "wait", "condition": "soon"}]}),
                "/steps/1/condition",
                K::NotAllowed,
            );
            refuse(
                T,
                json!({"steps": [click(), {"action": "click", "target": "target_1", "click_count": 4}]}),
                "/steps/1/click_count",
                K::OutOfRange,
            );
            refuse(
                T,
                json!({"steps": [click(), {"action": "click", "target": "target_1", "timeout_ms": 99}]}),
                "/steps/1/timeout_ms",
                K::OutOfRange,
            );
            refuse(
                T,
                json!({"steps": [click(), {"action": "fill", "fields": [{"target": "target_1", "value": "Ada", "valu": 1}]}]}),
                "/steps/1/fields/0/valu",
                K::UnknownField,
            );
            refuse(
                T,
                json!({"steps": [click(), {"action": "click", "selector": {"name": "Save", "rol": "button"}}]}),
                "/steps/1/selector/rol",
                K::UnknownField,
            );
            // A refused secret is never echoed.
            let secret = "hunter2-secret";
            let error = refuse(
                T,
                json!({"steps": [click(), {"action": "type_text", "target": "target_1", "text": secret, "clear_first": "yes"}]}),
                "/steps/1/clear_first",
                K::WrongType,
            );
            assert!(!error.message().contains(secret));
        }

        #[test]
        fn the_union_covers_the_step_tools() {
            let names: Vec<&str> = STEP_FIELDS.iter().map(|f| f.name).collect();
            for name in [
                "action",
                "target",
                "selector",
                "view",
                "x",
                "y",
                "button",
                "click_count",
                "fields",
                "text",
                "key",
                "condition",
                "timeout_ms",
            ] {
                assert!(names.contains(&name), "{name}");
            }
            assert!(STEP_FIELDS.iter().any(|f| f.name == "text" && f.sensitive));
        }
    }
}
