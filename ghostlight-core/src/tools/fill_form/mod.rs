//! `browser_fill_form`: fill one or more ordinary controls, submitting only when asked.

pub(crate) mod op;

use std::fmt;

use crate::authority::Constraint;
use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, DecodeErrorKind, ObjectReader, Pointer};
use crate::facts::tool_facts;
use crate::handles::{Handle, HandleKind};
use crate::limits;
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::common::{SELECTOR, TAB, TARGET, TIMEOUT_MS, TargetRef, read_target, read_timeout};
use crate::vocab::FillValue;

const VALUE: Field = Field::required(
    "value",
    FieldType::FillValue { text: limits::FILL_VALUE_CHARS, options: limits::FILL_VALUE_OPTIONS },
    "Text, checkbox state, number, or list of multi-select options.",
)
.sensitive();
const ITEM_FIELDS: [Field; 3] = [TARGET, SELECTOR, VALUE];
const FIELDS: Field = Field::required(
    "fields",
    FieldType::List { item: &FieldType::Object(&ITEM_FIELDS), count: limits::FILL_FIELDS, unique: false },
    "Controls to fill, each once.",
);
const SUBMIT_TARGET: Field = Field::optional(
    "submit_target",
    FieldType::Handle(HandleKind::Target),
    "Control to click after filling.",
);
const SUBMIT_SELECTOR: Field =
    Field::optional("submit_selector", FieldType::Selector, "Submit control by name.");

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    FILLED_COUNT: Int("filled_count", "Controls filled."),
    SUBMITTED: Bool("submitted", "The submit control was activated."),
    LANDING: Json = crate::tools::common::LANDING,
    OPENED_TABS: Json = crate::tools::common::OPENED_TABS,
    CLOSED_TABS: Int = crate::tools::common::CLOSED_TABS,
    SUBMIT_TARGET: Str("submit_target", "Submit target clicked, if any."),
    FIELD: Int("field", "1-based field a refusal or failure concerns."),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::FillForm,
    description: "Set form control values; submits only if asked. Use type_text when key events matter.",
    fields: &[FIELDS, SUBMIT_TARGET, SUBMIT_SELECTOR, TAB, TIMEOUT_MS],
    example: r#"{"fields":[{"target":"target_1","value":"Ada"}]}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
};

/// One control to fill and the value it receives.
///
/// `Debug` never shows the value: fill values may be secrets.
#[derive(Clone, PartialEq)]
pub struct FillField {
    /// The control: a target handle or a typed selector.
    pub target: TargetRef,
    /// The value. Whether it fits the control is checked by the executor, before any field
    /// is filled.
    pub value: FillValue,
}

impl fmt::Debug for FillField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = match &self.value {
            FillValue::Text(text) => format!("<text of {} characters>", text.chars().count()),
            FillValue::Checked(_) => "<boolean>".to_owned(),
            FillValue::Number(_) => "<number>".to_owned(),
            FillValue::Options(options) => format!("<{} options>", options.len()),
        };
        f.debug_struct("FillField")
            .field("target", &self.target)
            .field("value", &format_args!("{value}"))
            .finish()
    }
}

/// A decoded `browser_fill_form` call.
#[derive(Debug, Clone, PartialEq)]
pub struct FillFormRequest {
    /// The controls to fill, in order; each control appears once.
    pub fields: Vec<FillField>,
    /// The control to activate after filling, if the call asks for a submit.
    pub submit: Option<TargetRef>,
    /// The explicitly named tab, if any.
    pub tab: Option<Handle>,
    /// Timeout in milliseconds.
    pub timeout_ms: u64,
}

impl Tool for FillFormRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;
    const MAY_OPEN_TABS: bool = true;

    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError> {
        decode(reader)
    }

    /// `read + write`, plus `action` when a submit control is given.
    fn capabilities(&self) -> CapabilitySet {
        let fill = CapabilitySet::of(&[Capability::Read, Capability::Write]);
        if self.submit.is_some() { fill.with(Capability::Action) } else { fill }
    }

    /// The explicitly named tab.
    fn tab(&self) -> Option<&Handle> {
        self.tab.as_ref()
    }

    /// Credential-class targets stop the call before any value is dispatched.
    fn constraints(&self) -> &'static [Constraint] {
        &[Constraint::CredentialPreflight]
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<FillFormRequest, DecodeError> {
    let fields = reader.list(&FIELDS, decode_item)?;
    let submit = read_target(reader, &SUBMIT_TARGET, &SUBMIT_SELECTOR)?;
    let tab = reader.handle(&TAB)?;
    let timeout_ms = read_timeout(reader)?;
    let fields = fields.ok_or_else(|| reader.missing(&FIELDS))?;
    for (index, field) in fields.iter().enumerate() {
        if let Some(earlier) = fields.iter().take(index).position(|e| e.target == field.target) {
            let list = reader.pointer(&FIELDS);
            return Err(DecodeError::new(
                DecodeErrorKind::Duplicate,
                list.index(index),
                format_args!("names the same control as {}: fill each control once", list.index(earlier)),
            ));
        }
    }
    Ok(FillFormRequest { fields, submit, tab, timeout_ms })
}

fn decode_item(value: &serde_json::Value, at: Pointer) -> Result<FillField, DecodeError> {
    let mut item = ObjectReader::new(value, at, &ITEM_FIELDS, false)?;
    let target = read_target(&mut item, &TARGET, &SELECTOR)?;
    let value = item.fill_value(&VALUE)?;
    let target = target.ok_or_else(|| item.missing_one_of(&[&TARGET, &SELECTOR]))?;
    let value = value.ok_or_else(|| item.missing(&VALUE))?;
    item.finish();
    Ok(FillField { target, value })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::{Value, json};

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::selector::{Role, Selector};
    use crate::tools::testing::{accept, handle, int_edges, refuse, with};

    const T: ToolName = ToolName::FillForm;

    fn decoded(arguments: Value) -> FillFormRequest {
        match accept(T, arguments) {
            Request::FillForm(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    fn target(text: &str) -> TargetRef {
        TargetRef::Handle(handle(text, HandleKind::Target))
    }

    fn selector(name: &str, role: Option<Role>) -> TargetRef {
        TargetRef::Selector(Selector { name: name.into(), role, exact: false })
    }

    /// `n` items naming distinct targets `target_0`, `target_1`, …
    fn items(n: usize) -> Value {
        Value::Array((0..n).map(|i| json!({"target": format!("target_{i}"), "value": "v"})).collect())
    }

    #[test]
    fn example_and_capabilities() {
        let request = decoded(DECLARATION.example());
        assert_eq!(
            request.fields,
            vec![FillField { target: target("target_1"), value: FillValue::Text("Ada".into()) }]
        );
        assert_eq!((&request.submit, request.tab(), request.timeout_ms), (&None, None, 8_000));
        assert_eq!(request.capabilities(), CapabilitySet::of(&[Capability::Read, Capability::Write]));

        let request = decoded(json!({"fields": items(1), "submit_target": "target_9", "tab": "tab_1"}));
        assert_eq!(request.submit, Some(target("target_9")));
        assert_eq!(request.tab(), Some(&handle("tab_1", HandleKind::Tab)));
        let all_three = CapabilitySet::of(&[Capability::Read, Capability::Write, Capability::Action]);
        assert_eq!(request.capabilities(), all_three);

        let request =
            decoded(json!({"fields": items(1), "submit_selector": {"name": "Send", "role": "button"}}));
        assert_eq!(request.submit, Some(selector("Send", Some(Role::Button))));
        assert_eq!(request.capabilities(), all_three);
    }

    #[test]
    fn value_kinds_and_locations() {
        let request = decoded(json!({"fields": [
            {"target": "target_1", "value": "Ada"},
            {"selector": {"name": "Subscribe", "role": "checkbox"}, "value": true},
            {"selector": {"name": "Age"}, "value": 42},
            {"target": "target_2", "value": -1.5},
            {"target": "target_3", "value": "42"},
            {"target": "target_4", "value": ""},
            {"target": "target_5", "value": false},
        ]}));
        let expected = vec![
            FillField { target: target("target_1"), value: FillValue::Text("Ada".into()) },
            FillField {
                target: selector("Subscribe", Some(Role::Checkbox)),
                value: FillValue::Checked(true),
            },
            FillField { target: selector("Age", None), value: FillValue::Number(42.0) },
            FillField { target: target("target_2"), value: FillValue::Number(-1.5) },
            FillField { target: target("target_3"), value: FillValue::Text("42".into()) },
            FillField { target: target("target_4"), value: FillValue::Text(String::new()) },
            FillField { target: target("target_5"), value: FillValue::Checked(false) },
        ];
        assert_eq!(request.fields, expected);
    }

    #[test]
    fn option_lists_for_multiple_choice_lists() {
        let value = |value: serde_json::Value| {
            decoded(json!({"fields": [{"target": "target_1", "value": value}]})).fields.remove(0).value
        };
        assert_eq!(value(json!(["red", "Blue"])), FillValue::Options(vec!["red".into(), "Blue".into()]));
        assert_eq!(value(json!([])), FillValue::Options(vec![]));
        let max = limits::FILL_VALUE_OPTIONS.max;
        let options: Vec<String> = (0..max).map(|n| format!("o{n}")).collect();
        assert_eq!(value(json!(options)), FillValue::Options(options.clone()));
        let mut over = options;
        over.push("one too many".into());
        let error = refuse(
            T,
            json!({"fields": [{"target": "target_1", "value": over}]}),
            "/fields/0/value",
            K::Length,
        );
        assert_eq!(
            error.message(),
            "/fields/0/value a list of options must hold at most 100 items (got 101)"
        );
        let debug =
            format!("{:?}", decoded(json!({"fields": [{"target": "target_1", "value": ["hunter2"]}]})));
        assert!(debug.contains("<1 options>") && !debug.contains("hunter2"), "{debug}");
    }

    #[test]
    fn field_count_edges() {
        let min = limits::FILL_FIELDS.min;
        let max = limits::FILL_FIELDS.max;
        assert_eq!(decoded(json!({"fields": items(min)})).fields.len(), min);
        assert_eq!(decoded(json!({"fields": items(max)})).fields.len(), max);
        refuse(T, json!({"fields": items(min - 1)}), "/fields", K::Length);
        let error = refuse(T, json!({"fields": items(max + 1)}), "/fields", K::Length);
        assert_eq!(error.message(), "/fields must be an array of 1 to 30 items (got 31 items)");
    }

    #[test]
    fn value_length_edges_never_echo_the_value() {
        let max = limits::FILL_VALUE_CHARS.max;
        let item = |text: String| json!({"fields": [{"target": "target_1", "value": text}]});
        let request = decoded(item("é".repeat(max)));
        assert_eq!(request.fields.first().map(|f| &f.value), Some(&FillValue::Text("é".repeat(max))));
        let secret = "hunter2".repeat(max / 7 + 1);
        let error = refuse(T, item(secret), "/fields/0/value", K::Length);
        assert!(!error.message().contains("hunter2"), "{error}");
        let error = refuse(
            T,
            json!({"fields": [{"target": "target_1", "value": ["a", ["hunter2"]]}]}),
            "/fields/0/value/1",
            K::WrongType,
        );
        assert!(!error.message().contains("hunter2"), "{error}");
        let error = refuse(
            T,
            json!({"fields": [{"target": "target_1", "value": ["a", "hunter2".repeat(max / 7 + 1)]}]}),
            "/fields/0/value/1",
            K::Length,
        );
        assert!(!error.message().contains("hunter2"), "{error}");
        refuse(
            T,
            json!({"fields": [{"target": "target_1", "value": null}]}),
            "/fields/0/value",
            K::WrongType,
        );
        refuse(
            T,
            json!({"fields": [{"target": "target_1", "value": {"v": 1}}]}),
            "/fields/0/value",
            K::WrongType,
        );
        let debug = format!("{:?}", decoded(json!({"fields": [{"target": "target_1", "value": "hunter2"}]})));
        assert!(!debug.contains("hunter2"), "{debug}");
    }

    #[test]
    fn item_refusals() {
        refuse(T, json!({}), "/fields", K::MissingField);
        refuse(T, json!({"fields": {"target": "target_1", "value": "a"}}), "/fields", K::WrongType);
        refuse(T, json!({"fields": ["target_1"]}), "/fields/0", K::WrongType);
        refuse(T, json!({"fields": [{"value": "a"}]}), "/fields/0/target", K::MissingField);
        refuse(T, json!({"fields": [{"target": "target_1"}]}), "/fields/0/value", K::MissingField);
        refuse(
            T,
            json!({"fields": [{"target": "target_1", "value": "a"}, {"target": "target_2", "selector": {"name": "B"}, "value": "b"}]}),
            "/fields/1/selector",
            K::Conflict,
        );
        refuse(
            T,
            json!({"fields": [{"target": "view_1", "value": "a"}]}),
            "/fields/0/target",
            K::InvalidHandle,
        );
        refuse(
            T,
            json!({"fields": [{"selector": {"name": "A", "role": "field"}, "value": "a"}]}),
            "/fields/0/selector/role",
            K::NotAllowed,
        );
        // Unknown members at each nested depth.
        refuse(
            T,
            json!({"fields": [{"target": "target_1", "valu": "a"}]}),
            "/fields/0/valu",
            K::UnknownField,
        );
        refuse(
            T,
            json!({"fields": [{"selector": {"name": "A", "label": "A"}, "value": "a"}]}),
            "/fields/0/selector/label",
            K::UnknownField,
        );
        refuse(
            T,
            json!({"fields": [{"target": "target_1", "value": "a", "restrict_hosts": []}]}),
            "/fields/0/restrict_hosts",
            K::UnknownField,
        );
        refuse(T, json!({"fields": items(1), "submit": true}), "/submit", K::UnknownField);
    }

    #[test]
    fn duplicates() {
        let error = refuse(
            T,
            json!({"fields": [{"target": "target_1", "value": "a"}, {"target": "target_1", "value": "secret"}]}),
            "/fields/1",
            K::Duplicate,
        );
        assert_eq!(error.message(), "/fields/1 names the same control as /fields/0: fill each control once");
        refuse(
            T,
            json!({"fields": [
                {"selector": {"name": "Email"}, "value": "a"},
                {"target": "target_1", "value": "b"},
                {"selector": {"name": "Email"}, "value": "c"},
            ]}),
            "/fields/2",
            K::Duplicate,
        );
        refuse(
            T,
            json!({"fields": [
                {"selector": {"name": "Email", "exact": false}, "value": "a"},
                {"selector": {"name": "Email"}, "value": "c"},
            ]}),
            "/fields/1",
            K::Duplicate,
        );
        // Different selectors, and a handle beside a selector, are different controls here.
        let request = decoded(json!({"fields": [
            {"selector": {"name": "Email"}, "value": "a"},
            {"selector": {"name": "Email", "role": "textbox"}, "value": "b"},
            {"selector": {"name": "Email", "exact": true}, "value": "c"},
            {"target": "target_1", "value": "d"},
            {"target": "target_2", "value": "e"},
        ]}));
        assert_eq!(request.fields.len(), 5);
    }

    #[test]
    fn submit_refusals() {
        let base = json!({"fields": items(1)});
        refuse(
            T,
            with(
                &with(&base, "submit_target", json!("target_9")),
                "submit_selector",
                json!({"name": "Send"}),
            ),
            "/submit_selector",
            K::Conflict,
        );
        refuse(T, with(&base, "submit_target", json!("tab_1")), "/submit_target", K::InvalidHandle);
        refuse(T, with(&base, "submit_selector", json!("Send")), "/submit_selector", K::WrongType);
        refuse(T, with(&base, "tab", json!("target_1")), "/tab", K::InvalidHandle);
    }

    #[test]
    fn bounds() {
        int_edges(T, DECLARATION.example(), "timeout_ms", limits::TIMEOUT_MS);
    }
}
