//! Invariants over the whole catalog table, the rendered `tools/list` snapshot, and property
//! tests of the decoders.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::*;
use crate::decode::UNREAD_FIELDS;
use crate::schema::{Field, FieldType, RESTRICTIONS, SELECTOR_FIELDS};

/// The specification's catalog order.
const SPEC_ORDER: [&str; 24] = [
    "browser_tabs",
    "browser_navigate",
    "browser_history",
    "browser_window",
    "browser_read",
    "browser_inspect",
    "browser_find",
    "browser_screenshot",
    "browser_click",
    "browser_scroll",
    "browser_hover",
    "browser_fill_form",
    "browser_type_text",
    "browser_press_key",
    "browser_drag",
    "browser_wait",
    "browser_dialog",
    "browser_upload",
    "browser_execute",
    "browser_sequence",
    "browser_flow",
    "browser_record",
    "browser_diagnose",
    "policy_explain",
];

/// The one schema object that cannot be closed: a flow step's `arguments` carries another
/// tool's arguments, which that tool's decoder checks after `flow_ref` substitution.
const OPEN_OBJECTS: [(&str, &str); 1] = [("browser_flow", "/properties/steps/items/properties/arguments")];

#[test]
fn twenty_four_unique_tools_in_spec_order() {
    let names: Vec<&str> = CATALOG.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, SPEC_ORDER);
    for (index, tool) in ToolName::ALL.iter().enumerate() {
        assert_eq!(CATALOG[index].name, *tool, "CATALOG and ToolName::ALL disagree at {index}");
        assert_eq!(ToolName::parse(tool.as_str()), Some(*tool));
        assert_eq!(tool.declaration().name, *tool);
    }
    assert_eq!(ToolName::parse("browser_unknown"), None);
}

/// Walk every subschema, checking the portable-envelope rules; `path` is a JSON Pointer into
/// the tool's input schema.
fn check_schema(tool: &str, path: &str, schema: &Value, problems: &mut Vec<String>) {
    let Value::Object(map) = schema else {
        problems.push(format!("{tool}{path}: schema is not an object"));
        return;
    };
    for combinator in ["oneOf", "allOf", "not", "if", "$ref"] {
        if map.contains_key(combinator) {
            problems.push(format!("{tool}{path}: uses {combinator}"));
        }
    }
    // A union is allowed below the root only as anyOf of single-type branches that are
    // scalars or arrays of one scalar type (the portable spelling of a multi-type value: a
    // fill value is text, a state, a number or a list of options); never at the root, never
    // around objects.
    if let Some(branches) = map.get("anyOf") {
        let single_scalar = |branch: &Value| {
            branch["type"].as_str().is_some_and(|t| !matches!(t, "object" | "array"))
                && branch.get("anyOf").is_none()
        };
        let scalar = |branch: &Value| {
            single_scalar(branch) || (branch["type"] == "array" && single_scalar(&branch["items"]))
        };
        let fine = !path.is_empty() && branches.as_array().is_some_and(|b| b.iter().all(scalar));
        if !fine {
            problems.push(format!("{tool}{path}: anyOf that is not a union of scalar types"));
        }
    }
    let is_object = map.get("type") == Some(&json!("object"));
    if is_object {
        let open_allowed = OPEN_OBJECTS.contains(&(tool, path));
        match map.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            None if open_allowed => {}
            other => problems.push(format!("{tool}{path}: additionalProperties is {other:?}")),
        }
        if !open_allowed && !map.contains_key("properties") {
            problems.push(format!("{tool}{path}: closed object without properties"));
        }
    }
    if let Some(Value::Object(properties)) = map.get("properties") {
        for (name, property) in properties {
            let described = property
                .get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| !d.trim().is_empty() && d.len() <= 120);
            if !described {
                problems.push(format!("{tool}{path}/properties/{name}: missing or long description"));
            }
            check_schema(tool, &format!("{path}/properties/{name}"), property, problems);
        }
        if let Some(Value::Array(required)) = map.get("required") {
            for name in required {
                if !name.as_str().is_some_and(|n| properties.contains_key(n)) {
                    problems.push(format!("{tool}{path}: required {name} is not a property"));
                }
            }
        }
    }
    if let Some(items) = map.get("items") {
        check_schema(tool, &format!("{path}/items"), items, problems);
    }
}

#[test]
fn input_schemas_are_flat_closed_and_described() {
    let mut problems = Vec::new();
    for declaration in &CATALOG {
        let tool = declaration.name.as_str();
        let schema = declaration.input_schema();
        assert_eq!(schema["type"], "object", "{tool}");
        check_schema(tool, "", &schema, &mut problems);
        let properties = schema["properties"].as_object().cloned().unwrap_or_default();
        for restriction in ["restrict_hosts", "restrict_capabilities"] {
            if !properties.contains_key(restriction) {
                problems.push(format!("{tool}: no {restriction}"));
            }
        }
        let has_tab = properties.contains_key("tab");
        if has_tab == (declaration.name == ToolName::PolicyExplain) {
            problems.push(format!("{tool}: tab presence is wrong ({has_tab})"));
        }
        if schema["examples"].as_array().map(Vec::len) != Some(1) {
            problems.push(format!("{tool}: examples must hold exactly one entry"));
        }
        assert!(!declaration.description.is_empty(), "{tool}");
    }
    assert!(problems.is_empty(), "schema problems:\n{}", problems.join("\n"));
}

#[test]
fn input_and_output_schemas_are_portable() {
    let mut problems = Vec::new();
    for declaration in &CATALOG {
        let tool = declaration.name.as_str();
        for (which, schema) in
            [("input", declaration.input_schema()), ("output", declaration.output_schema())]
        {
            for problem in crate::testing::portability_violations(&schema) {
                problems.push(format!("{tool} {which}{problem}"));
            }
        }
    }
    assert!(problems.is_empty(), "unportable schemas:\n{}", problems.join("\n"));
}

#[test]
fn output_schemas_are_envelopes() {
    for declaration in &CATALOG {
        let schema = declaration.output_schema();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["facts"]["type"], "object");
        let required: Vec<&str> =
            schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        assert_eq!(
            required,
            ["invocation", "status", "effect", "readiness", "repeat_safe", "summary", "facts", "next_steps"]
        );
        let facts = schema["properties"]["facts"]["properties"].as_object().map(Map::len).unwrap_or(0);
        assert!(facts > crate::facts::common::COMMON_FACTS.len(), "{} declares no facts", declaration.name);
    }
}

#[test]
fn every_example_decodes_and_reads_every_declared_field() {
    for declaration in &CATALOG {
        UNREAD_FIELDS.with(|cell| cell.borrow_mut().clear());
        let example = declaration.example();
        assert!(example.is_object(), "{}: example is not a JSON object", declaration.name);
        let call = decode_call(declaration.name, &example)
            .unwrap_or_else(|error| panic!("{} example refused: {error}", declaration.name));
        assert_eq!(call.request.tool(), declaration.name);
        let unread = UNREAD_FIELDS.with(|cell| cell.borrow().clone());
        assert!(unread.is_empty(), "{}: declared but never read: {unread:?}", declaration.name);
    }
}

#[test]
fn an_unknown_key_of_any_length_gives_a_bounded_message_and_an_exact_pointer() {
    // Found by fuzzing: a 2,800-character key with `/`s in a flow step made a 4 KB message.
    let key = format!("a b/{}", "x/".repeat(2_000));
    let arguments = json!({"steps": [{"id": "open", "tool": "browser_navigate",
        "arguments": {key.clone(): 1, "url": "https://example.com"}}]});
    let error = decode_call(ToolName::Flow, &arguments).expect_err("unknown field accepted");
    assert_eq!(error.kind(), DecodeErrorKind::UnknownField);
    let exact = format!("/steps/0/arguments/{}", key.replace('/', "~1"));
    assert_eq!(error.pointer().as_str(), exact);
    let shown = error.pointer().shown();
    assert_eq!(shown.chars().count(), crate::limits::POINTER_ECHO_CHARS + 1);
    assert!(shown.starts_with("/steps/0/arguments/a b~1x~1") && shown.ends_with('…'), "{shown}");
    // The rule survives the relocation of the child's error under the flow (the key has a space).
    assert!(
        error.message().ends_with(
            "… is not an accepted field (accepted: url, tab, new_tab, reuse, beforeunload, timeout_ms)"
        ),
        "{error}"
    );
    assert!(error.message().chars().count() < 400, "{}", error.message().len());
}

#[test]
fn every_tool_refuses_unknown_fields_and_non_objects() {
    for declaration in &CATALOG {
        let tool = declaration.name;
        let mut arguments = declaration.example();
        if let Value::Object(map) = &mut arguments {
            map.insert("surprise".into(), json!(1));
        }
        let error = decode_call(tool, &arguments).expect_err("unknown field accepted");
        assert_eq!((error.kind(), error.pointer().as_str()), (DecodeErrorKind::UnknownField, "/surprise"));
        for value in [json!(null), json!([]), json!("{}"), json!(3)] {
            let error = decode_call(tool, &value).expect_err("non-object accepted");
            assert_eq!((error.kind(), error.pointer().as_str()), (DecodeErrorKind::WrongType, ""));
            assert!(error.message().starts_with("arguments must be an object"), "{error}");
        }
    }
}

#[test]
fn restrictions_decode_and_narrow_only() {
    let call = decode_call(
        ToolName::PolicyExplain,
        &json!({"restrict_capabilities": ["read", "write"], "restrict_hosts": ["example.com"]}),
    )
    .expect("restrictions accepted");
    assert_eq!(
        call.restrictions.capabilities,
        Some(CapabilitySet::of(&[Capability::Read, Capability::Write]))
    );
    assert_eq!(call.restrictions.hosts.as_ref().map(Vec::len), Some(1));
    let none = decode_call(ToolName::PolicyExplain, &json!({"restrict_capabilities": []})).expect("empty");
    assert_eq!(none.restrictions.capabilities, Some(CapabilitySet::EMPTY));
    let error = decode_call(ToolName::PolicyExplain, &json!({"restrict_capabilities": ["admin"]}))
        .expect_err("unknown capability accepted");
    assert_eq!(error.pointer().as_str(), "/restrict_capabilities/0");
    assert_eq!(error.kind(), DecodeErrorKind::NotAllowed);
    // A capability named twice is still one capability (set semantics).
    let twice = decode_call(ToolName::PolicyExplain, &json!({"restrict_capabilities": ["read", "read"]}))
        .expect("duplicates are harmless");
    assert_eq!(twice.restrictions.capabilities, Some(CapabilitySet::of(&[Capability::Read])));
    let too_many: Vec<String> =
        (0..=crate::limits::RESTRICTION_ENTRIES.max).map(|i| format!("h{i}.test")).collect();
    let error =
        decode_call(ToolName::PolicyExplain, &json!({"restrict_hosts": too_many})).expect_err("bound");
    assert_eq!((error.kind(), error.pointer().as_str()), (DecodeErrorKind::Length, "/restrict_hosts"));
}

/// `value`, an object read against `fields`, with `null` in every optional member it leaves
/// out, at every depth the field tables describe: a call as OpenAI's strict function calling
/// sends it.
pub(crate) fn with_nulls(value: &Value, fields: &[Field]) -> Value {
    let Value::Object(map) = value else { return value.clone() };
    let mut out = map.clone();
    for field in fields {
        match map.get(field.name) {
            Some(member) => {
                out.insert(field.name.into(), nested_nulls(member, &field.ty));
            }
            None if !field.required => {
                out.insert(field.name.into(), Value::Null);
            }
            None => {}
        }
    }
    Value::Object(out)
}

fn nested_nulls(value: &Value, ty: &FieldType) -> Value {
    match (ty, value) {
        (FieldType::Object(fields), _) => with_nulls(value, fields),
        (FieldType::Selector, _) => with_nulls(value, &SELECTOR_FIELDS),
        (FieldType::List { item, .. }, Value::Array(items)) => {
            Value::Array(items.iter().map(|item_value| nested_nulls(item_value, item)).collect())
        }
        _ => value.clone(),
    }
}

/// Calls beyond the examples that reach the nested objects: selectors, fill fields, inline
/// files, sequence steps of several actions.
fn nested_calls() -> Vec<(ToolName, Value)> {
    vec![
        (ToolName::Click, json!({"selector": {"name": "Save"}})),
        (ToolName::Click, json!({"view": "view_1", "x": 3, "y": 4, "button": "middle"})),
        (
            ToolName::Wait,
            json!({"condition": "selector_present", "selector": {"name": "Done", "role": "button"}}),
        ),
        (
            ToolName::FillForm,
            json!({"fields": [{"selector": {"name": "Email"}, "value": "a@b.c"}, {"target": "target_2", "value": true}],
                   "submit_selector": {"name": "Send", "exact": true}}),
        ),
        (
            ToolName::Upload,
            json!({"target": "target_1", "files": [{"name": "a.txt", "data_base64": "YQ=="}]}),
        ),
        (ToolName::Drag, json!({"source_selector": {"name": "A"}, "destination_target": "target_2"})),
        (
            ToolName::Sequence,
            json!({"steps": [
                {"action": "fill", "fields": [{"selector": {"name": "Q"}, "value": "x"}]},
                {"action": "press_key", "key": "Enter"},
                {"action": "wait", "condition": "duration", "value": 10}
            ]}),
        ),
    ]
}

#[test]
fn optional_nulls_read_as_absent_in_every_tool() {
    let calls = CATALOG.iter().map(|d| (d.name, d.example())).chain(nested_calls());
    for (tool, arguments) in calls {
        let fields: Vec<Field> =
            tool.declaration().fields.iter().chain(RESTRICTIONS.iter()).copied().collect();
        let nulled = with_nulls(&arguments, &fields);
        assert_ne!(nulled, arguments, "{tool}: nothing to null");
        let plain = decode_call(tool, &arguments).unwrap_or_else(|error| panic!("{tool}: {error}"));
        let strict = decode_call(tool, &nulled).unwrap_or_else(|error| panic!("{tool} with nulls: {error}"));
        assert_eq!(strict, plain, "{tool}: {nulled}");
    }
}

#[test]
fn nulls_that_could_change_a_meaning_are_still_refused() {
    // A required member's null keeps its type rule.
    let error = decode_call(ToolName::History, &json!({"action": null})).expect_err("required null");
    assert_eq!((error.kind(), error.pointer().as_str()), (DecodeErrorKind::WrongType, "/action"));
    let error = decode_call(ToolName::FillForm, &json!({"fields": [{"target": "target_1", "value": null}]}))
        .expect_err("a fill value is required");
    assert_eq!(error.kind(), DecodeErrorKind::WrongType);
    // An undeclared member is refused whatever its value.
    let error = decode_call(ToolName::Read, &json!({"surprise": null})).expect_err("unknown null");
    assert_eq!((error.kind(), error.pointer().as_str()), (DecodeErrorKind::UnknownField, "/surprise"));
    let error = decode_call(ToolName::Sequence, &json!({"steps": [{"action": "hover", "target": "target_1", "tab": null}, {"action": "press_key", "key": "a"}]}))
        .expect_err("a step names no tab");
    assert_eq!((error.kind(), error.pointer().as_str()), (DecodeErrorKind::UnknownField, "/steps/0/tab"));
    // Restrictions are refused inside a flow step's arguments, even as null.
    let error = decode_call(
        ToolName::Flow,
        &json!({"steps": [{"id": "a", "tool": "browser_read", "arguments": {"restrict_hosts": null}}]}),
    )
    .expect_err("a restriction in a step");
    assert_eq!(error.pointer().as_str(), "/steps/0/arguments/restrict_hosts");
    // `[]` still narrows to nothing; `null` is the omission strict mode sends.
    let none = decode_call(ToolName::PolicyExplain, &json!({"restrict_capabilities": []})).expect("empty");
    assert_eq!(none.restrictions.capabilities, Some(CapabilitySet::EMPTY));
    let omitted =
        decode_call(ToolName::PolicyExplain, &json!({"restrict_capabilities": null, "restrict_hosts": null}))
            .expect("null restrictions");
    assert_eq!(omitted.restrictions, Restrictions::default());
    // A null that stands for a branch's required member is its absence, refused as missing.
    let error =
        decode_call(ToolName::Dialog, &json!({"action": "respond", "text": null})).expect_err("no text");
    assert_eq!((error.kind(), error.pointer().as_str()), (DecodeErrorKind::MissingField, "/text"));
}

// ---------------------------------------------------------------------------------------------
// Strict function calling: the schemas stay in OpenAI's subset, and a strict call (every
// optional member sent as null) decodes to what the plain call decodes to.
// ---------------------------------------------------------------------------------------------

#[test]
fn strict_schemas_stay_in_the_openai_subset() {
    let mut strict = 0;
    for declaration in &CATALOG {
        let tool = declaration.name;
        match declaration.strict_input_schema() {
            Ok(schema) => {
                let problems = crate::testing::strict_subset_violations(&schema);
                assert!(problems.is_empty(), "{tool}:\n{}", problems.join("\n"));
                // The same properties as the catalog's schema, all required.
                let catalog = declaration.input_schema();
                let names = |schema: &Value| -> Vec<String> {
                    schema["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default()
                };
                assert_eq!(names(&schema), names(&catalog), "{tool}");
                strict += 1;
            }
            Err(not_strict) => panic!("{not_strict}"),
        }
    }
    assert_eq!(strict, 24, "every tool, browser_flow's open step arguments as JSON text");
}

#[test]
fn strict_schemas_make_optional_fields_nullable() {
    let click = ToolName::Click.declaration().strict_input_schema().expect("click is strict");
    let properties = &click["properties"];
    let required: Vec<&str> =
        click["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    assert_eq!(required.len(), properties.as_object().map_or(0, Map::len));
    assert_eq!(
        properties["timeout_ms"],
        json!({"type": ["integer", "null"], "minimum": 100, "maximum": 30000, "description": "Timeout. Default: 8000."})
    );
    assert_eq!(
        properties["button"],
        json!({"type": ["string", "null"], "enum": ["primary", "middle", "secondary", null],
               "description": "Mouse button. Default: primary."})
    );
    let selector = &properties["selector"];
    assert_eq!(selector["anyOf"][1], json!({"type": "null"}));
    assert_eq!(selector["anyOf"][0]["required"], json!(["name", "role", "exact"]));
    assert_eq!(selector["anyOf"][0]["properties"]["role"]["enum"].as_array().map(Vec::len), Some(20));
    assert_eq!(selector["anyOf"][0]["properties"]["name"]["type"], "string");
    let capabilities = &properties["restrict_capabilities"]["anyOf"][0];
    assert_eq!(capabilities["items"]["enum"], json!(Capability::NAMES));
    let fill = ToolName::FillForm.declaration().strict_input_schema().expect("fill_form is strict");
    let item = &fill["properties"]["fields"]["items"];
    assert_eq!(item["properties"]["value"]["anyOf"].as_array().map(Vec::len), Some(4), "a required union");
    assert_eq!(item["properties"]["value"]["anyOf"][3]["items"], json!({"type": "string"}));
    assert_eq!(fill["properties"]["fields"]["minItems"], 1);
    let wait = ToolName::Wait.declaration().strict_input_schema().expect("wait is strict");
    assert_eq!(wait["properties"]["value"]["anyOf"][2], json!({"type": "null"}));
    for keyword in ["default", "examples", "minLength", "maxLength", "uniqueItems", "format"] {
        for declaration in &CATALOG {
            if let Ok(schema) = declaration.strict_input_schema() {
                assert!(
                    !schema.to_string().contains(&format!("\"{keyword}\"")),
                    "{}: {keyword}",
                    declaration.name
                );
            }
        }
    }
}

/// `value` with `null` for every property `schema` requires and `value` leaves out, at every
/// depth: a call as strict mode sends it, derived from the strict schema itself.
fn strict_call(schema: &Value, value: &Value) -> Value {
    if let Some(branches) = schema["anyOf"].as_array() {
        let wanted = if value.is_object() { "object" } else { "array" };
        return match branches.iter().find(|b| b["type"] == wanted) {
            Some(branch) => strict_call(branch, value),
            None => value.clone(),
        };
    }
    let texts =
        |kind: &Value| kind == "string" || kind.as_array().is_some_and(|k| k.contains(&json!("string")));
    if value.is_object() && texts(&schema["type"]) {
        // An open object (a flow step's arguments) travels as its JSON text.
        return Value::String(value.to_string());
    }
    match value {
        Value::Object(map) => {
            let mut out = map.clone();
            for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                let filled = map.get(name).map_or(Value::Null, |member| strict_call(property, member));
                out.insert(name.clone(), filled);
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|item| strict_call(&schema["items"], item)).collect())
        }
        other => other.clone(),
    }
}

/// Whether `value` fits `schema` (the strict subset's keywords only); `Err` says where not.
fn fits(schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    if let Some(branches) = schema["anyOf"].as_array() {
        return if branches.iter().any(|branch| fits(branch, value, at).is_ok()) {
            Ok(())
        } else {
            Err(format!("{at}: no branch of anyOf fits {value}"))
        };
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(name) => vec![name.as_str()],
        Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let type_fits = types.iter().any(|name| match *name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    });
    if !type_fits {
        return Err(format!("{at}: {value} is not of type {types:?}"));
    }
    if let Some(values) = schema["enum"].as_array()
        && !values.contains(value)
    {
        return Err(format!("{at}: {value} is not in the enum"));
    }
    if let Some(number) = value.as_f64()
        && (schema["minimum"].as_f64().is_some_and(|min| number < min)
            || schema["maximum"].as_f64().is_some_and(|max| number > max))
    {
        return Err(format!("{at}: {number} out of range"));
    }
    match value {
        Value::Object(map) => {
            let properties = schema["properties"].as_object().cloned().unwrap_or_default();
            for name in schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                if !map.contains_key(name) {
                    return Err(format!("{at}: {name} is missing"));
                }
            }
            for (name, member) in map {
                match properties.get(name) {
                    Some(property) => fits(property, member, &format!("{at}/{name}"))?,
                    None => return Err(format!("{at}: {name} is not a property")),
                }
            }
            Ok(())
        }
        Value::Array(items) => {
            if schema["minItems"].as_u64().is_some_and(|min| (items.len() as u64) < min)
                || schema["maxItems"].as_u64().is_some_and(|max| (items.len() as u64) > max)
            {
                return Err(format!("{at}: {} items out of range", items.len()));
            }
            for (index, item) in items.iter().enumerate() {
                fits(&schema["items"], item, &format!("{at}/{index}"))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[test]
fn a_strict_call_fits_its_schema_and_means_the_plain_call() {
    let calls = CATALOG.iter().map(|d| (d.name, d.example())).chain(nested_calls());
    let mut checked = 0;
    for (tool, arguments) in calls {
        let Ok(schema) = tool.declaration().strict_input_schema() else { continue };
        let strict = strict_call(&schema, &arguments);
        fits(&schema, &strict, "").unwrap_or_else(|problem| panic!("{tool}: {problem}\n{strict}"));
        let plain = decode_call(tool, &arguments).unwrap_or_else(|error| panic!("{tool}: {error}"));
        let decoded =
            decode_call(tool, &strict).unwrap_or_else(|error| panic!("{tool} strict: {error}\n{strict}"));
        assert_eq!(decoded, plain, "{tool}");
        checked += 1;
    }
    assert_eq!(checked, 24 + nested_calls().len());
}

#[test]
fn catalog_snapshot() {
    insta::assert_json_snapshot!("tools_list", render_catalog());
}

/// The part of `tools/list` a model reads on every turn: everything but output schemas.
fn model_facing_bytes() -> usize {
    let mut tools = render_catalog();
    if let Value::Array(list) = &mut tools {
        for tool in list {
            if let Value::Object(map) = tool {
                map.remove("outputSchema");
            }
        }
    }
    tools.to_string().len()
}

#[test]
fn model_facing_catalog_does_not_grow_unnoticed() {
    // A regression guard, not the goal: issue 18 asked for 28,000 bytes and the leading peer
    // spends 20,286 on 25 tools. This catalog measured 33,894 bytes when the guard was set
    // (every bound, default, annotation hint, example and restriction advertised; no display
    // titles; BENCHMARKS.md says why 28,000 is out of reach under the spec's declaration
    // rules). Lower the guard whenever it shrinks. Issue 26 added 94 bytes: the two multi-type
    // inputs (a fill value, a wait value) spelled as `anyOf` of single-type branches instead of
    // a `type` array, the form every client's validator and portability check reads alike.
    // Issue 33 (at most 1,200 bytes for all of it) added 726 for click and hover modifiers,
    // option lists for multi-selects and six wait conditions, and 8 for inspect's `forms`
    // scope (33,988 before).
    let bytes = model_facing_bytes();
    eprintln!("model-facing catalog: {bytes} bytes");
    assert!(bytes <= 34_722, "model-facing catalog grew to {bytes} bytes");
}

// ---------------------------------------------------------------------------------------------
// Property tests: no input panics a decoder, and every error points somewhere real.
// ---------------------------------------------------------------------------------------------

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (0u64..40_000).prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "\\PC{0,12}".prop_map(Value::String),
        prop::sample::select(vec![
            "target_1",
            "view_1",
            "tab_1",
            "snap_1",
            "rec_1",
            "list",
            "close",
            "zoom",
            "resize",
            "reload",
            "document",
            "duration",
            "save",
            "respond",
            "click",
            "wait",
            "https://example.com",
            "/tmp/a",
            "browser_navigate",
            "Enter",
            "",
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(field_name(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Field names: mostly ones some tool declares, sometimes anything.
fn field_name() -> impl Strategy<Value = String> {
    let mut known: Vec<String> = Vec::new();
    for declaration in &CATALOG {
        collect_names(&declaration.input_schema(), &mut known);
    }
    known.sort();
    known.dedup();
    prop_oneof![4 => prop::sample::select(known), 1 => "[a-z_]{1,8}"]
}

fn collect_names(schema: &Value, out: &mut Vec<String>) {
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (name, property) in properties {
            out.push(name.clone());
            collect_names(property, out);
        }
    }
    if let Some(items) = schema.get("items") {
        collect_names(items, out);
    }
}

/// The error's pointer designates a member of `input`, or a missing member of an object that
/// exists in `input`.
fn pointer_is_real(input: &Value, error: &DecodeError) -> bool {
    let pointer = error.pointer().as_str();
    if input.pointer(pointer).is_some() {
        return true;
    }
    if error.kind() != DecodeErrorKind::MissingField {
        return false;
    }
    match pointer.rsplit_once('/') {
        Some((parent, _)) => input.pointer(parent).is_some_and(Value::is_object),
        None => false,
    }
}

/// Apply one mutation, chosen by `choice`, at a member chosen by `index`.
fn mutate(example: &Value, choice: u8, index: usize, replacement: Value, name: String) -> Value {
    let mut out = example.clone();
    let mut paths = Vec::new();
    collect_paths(&out, String::new(), &mut paths);
    let path = paths.get(index % paths.len().max(1)).cloned().unwrap_or_default();
    match choice % 3 {
        0 => {
            if let Some(slot) = out.pointer_mut(&path) {
                *slot = replacement;
            }
        }
        1 => {
            if let Some(Value::Object(map)) = out.pointer_mut(&path) {
                map.insert(name, replacement);
            }
        }
        _ => {
            if let Some((parent, key)) = path.rsplit_once('/') {
                match out.pointer_mut(parent) {
                    Some(Value::Object(map)) => {
                        map.remove(key);
                    }
                    Some(Value::Array(items)) if !items.is_empty() => {
                        items.pop();
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

fn collect_paths(value: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match value {
        Value::Object(map) => {
            for (key, member) in map {
                collect_paths(member, format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")), out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                collect_paths(item, format!("{at}/{index}"), out);
            }
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

    #[test]
    fn arbitrary_arguments_never_panic(tool in prop::sample::select(ToolName::ALL.to_vec()), input in arbitrary_json()) {
        if let Err(error) = decode_call(tool, &input) {
            prop_assert!(pointer_is_real(&input, &error), "{tool}: {error} does not point into {input}");
            prop_assert!(error.message().len() < 2_000);
        }
    }

    #[test]
    fn mutated_examples_never_panic(
        tool in prop::sample::select(ToolName::ALL.to_vec()),
        choice in any::<u8>(),
        index in any::<usize>(),
        replacement in arbitrary_json(),
        name in field_name(),
    ) {
        let input = mutate(&tool.declaration().example(), choice, index, replacement, name);
        if let Err(error) = decode_call(tool, &input) {
            prop_assert!(pointer_is_real(&input, &error), "{tool}: {error} does not point into {input}");
        }
    }
}
