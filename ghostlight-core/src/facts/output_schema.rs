//! The output schema rendered from a tool's fact table, and the check that an envelope's facts
//! fit it.

use serde_json::{Map, Value, json};

use super::declaration::{Fact, FactType};
use super::shared::common::COMMON_FACTS;
use super::shared::detail::DETAIL_FACTS;

/// Render the output schema: the envelope, whose `facts` lists this tool's facts.
pub(crate) fn render_output_schema(facts: &[Fact]) -> Value {
    let facts_schema = render_fact_object(facts.iter().chain(COMMON_FACTS.iter()));
    json!({
        "type": "object",
        "properties": {
            "invocation": {"type": "string", "description": "Opaque correlation handle."},
            "status": {"type": "string", "enum": crate::envelope::Status::NAMES},
            "effect": {"type": "string", "enum": crate::envelope::Effect::NAMES},
            "readiness": {"type": "string", "enum": crate::envelope::Readiness::NAMES},
            "repeat_safe": {"type": "boolean", "description": "Whether repeating the call is known safe."},
            "summary": {"type": "string", "description": "Ghostlight-authored explanation."},
            "facts": facts_schema,
            "next_steps": {"type": "array", "items": {"type": "string"}, "maxItems": crate::limits::NEXT_STEPS_MAX}
        },
        "required": ["invocation", "status", "effect", "readiness", "repeat_safe", "summary", "facts", "next_steps"]
    })
}

fn render_fact_object<'a>(facts: impl Iterator<Item = &'a Fact>) -> Value {
    let mut properties = Map::new();
    for fact in facts {
        let mut property = match render_fact_type(&fact.ty) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        property.insert("description".into(), Value::from(fact.description));
        properties.insert(fact.name.into(), Value::Object(property));
    }
    json!({"type": "object", "properties": properties})
}

/// The JSON types a value may have, as single-type branches: what [`FactType::Any`] renders as.
const ANY_TYPES: [&str; 6] = ["string", "number", "boolean", "object", "array", "null"];

/// The schema of one fact type, in the form draft-07 and 2020-12 validators read alike: every
/// `type` names one type (a union is `anyOf` of single-type branches, as portable tool schemas
/// ask), no boolean schemas, no positional (`prefixItems` / array `items`) forms.
fn render_fact_type(ty: &FactType) -> Value {
    match *ty {
        FactType::String => json!({"type": "string"}),
        FactType::NullableString => json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
        FactType::Integer => json!({"type": "integer"}),
        FactType::NullableInteger => json!({"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        FactType::Boolean => json!({"type": "boolean"}),
        FactType::Any => {
            let branches: Vec<Value> = ANY_TYPES.iter().map(|name| json!({"type": name})).collect();
            json!({"anyOf": branches})
        }
        FactType::StringArray => json!({"type": "array", "items": {"type": "string"}}),
        FactType::ObjectArray(members) => {
            json!({"type": "array", "items": render_fact_object(members.iter())})
        }
        FactType::Object(members) => render_fact_object(members.iter()),
        FactType::Counts => json!({"type": "object", "additionalProperties": {"type": "integer"}}),
        FactType::Either(first, second) => {
            let mut union = branches(first);
            union.extend(branches(second));
            json!({"anyOf": union})
        }
        FactType::Rows { columns, always } => {
            let mut cells = Vec::new();
            for column in columns {
                for branch in branches(&column.ty) {
                    if !cells.contains(&branch) {
                        cells.push(branch);
                    }
                }
            }
            let cell = match <[Value; 1]>::try_from(cells) {
                Ok([single]) => single,
                Err(cells) => json!({"anyOf": cells}),
            };
            json!({"type": "array", "items": {
                "type": "array",
                "items": cell,
                "minItems": always,
                "maxItems": columns.len(),
                "description": row_description(columns, always),
            }})
        }
    }
}

/// The single-type branches a value of `ty` may take: one for a plain type, each side of an
/// `Either`, a nullable type's two.
fn branches(ty: &FactType) -> Vec<Value> {
    match render_fact_type(ty) {
        Value::Object(mut map) => match map.remove("anyOf") {
            Some(Value::Array(branches)) if map.is_empty() => branches,
            Some(other) => {
                map.insert("anyOf".into(), other);
                vec![Value::Object(map)]
            }
            None => vec![Value::Object(map)],
        },
        other => vec![other],
    }
}

/// A row's description: its columns in order with their meanings, and which may be left out.
fn row_description(columns: &[Fact], always: usize) -> String {
    let names: Vec<&str> = columns.iter().map(|column| column.name).collect();
    let mut text = format!("[{}]", names.join(", "));
    if always < columns.len() {
        text.push_str(&format!(", trailing empty columns after the first {always} omitted"));
    }
    text.push('.');
    for column in columns {
        text.push_str(&format!(" {}: {}", column.name, column.description));
    }
    text
}

/// Where `facts` departs from the declared `declared` facts: every top-level member that
/// neither the tool, the common facts nor the shared details declare, and every member whose
/// value does not have its declared type, at any depth. Empty when the facts fit. Nested fact
/// objects are open (members they do not list are allowed). Tests of adapters and hosts run
/// every envelope they see through it, so the published schema stays truthful.
pub(crate) fn fact_mismatches(declared: &[Fact], facts: &Map<String, Value>) -> Vec<String> {
    let mut mismatches = Vec::new();
    // The tool's own declaration first: it wins over a shared detail of the same name.
    let all: Vec<&Fact> = declared.iter().chain(COMMON_FACTS).chain(DETAIL_FACTS).collect();
    for name in facts.keys() {
        if !all.iter().any(|fact| fact.name == name) {
            mismatches.push(format!("facts/{name} is not declared"));
        }
    }
    check_members(&all, facts, "facts", &mut mismatches);
    mismatches
}

fn check_members(declared: &[&Fact], actual: &Map<String, Value>, at: &str, out: &mut Vec<String>) {
    for (name, value) in actual {
        if let Some(fact) = declared.iter().find(|fact| fact.name == name) {
            check_value(&fact.ty, value, &format!("{at}/{name}"), out);
        }
    }
}

fn check_value(ty: &FactType, value: &Value, at: &str, out: &mut Vec<String>) {
    let fits = match *ty {
        FactType::String => value.is_string(),
        FactType::NullableString => value.is_string() || value.is_null(),
        FactType::Integer => value.is_i64() || value.is_u64(),
        FactType::NullableInteger => value.is_i64() || value.is_u64() || value.is_null(),
        FactType::Boolean => value.is_boolean(),
        FactType::Any => true,
        FactType::StringArray => value.as_array().is_some_and(|items| items.iter().all(Value::is_string)),
        FactType::Either(first, second) => {
            let mut scratch = Vec::new();
            check_value(first, value, at, &mut scratch);
            let first_fits = scratch.is_empty();
            scratch.clear();
            check_value(second, value, at, &mut scratch);
            first_fits || scratch.is_empty()
        }
        FactType::Object(members) => match value.as_object() {
            Some(object) => {
                let members: Vec<&Fact> = members.iter().collect();
                check_members(&members, object, at, out);
                true
            }
            None => false,
        },
        FactType::ObjectArray(members) => match value.as_array() {
            Some(items) => {
                let members: Vec<&Fact> = members.iter().collect();
                for (index, item) in items.iter().enumerate() {
                    match item.as_object() {
                        Some(object) => check_members(&members, object, &format!("{at}/{index}"), out),
                        None => out.push(format!("{at}/{index} is not an object")),
                    }
                }
                true
            }
            None => false,
        },
        FactType::Counts => match value.as_object() {
            Some(counts) => {
                for (name, count) in counts {
                    if !(count.is_i64() || count.is_u64()) {
                        out.push(format!("{at}/{name} is not an integer: {count}"));
                    }
                }
                true
            }
            None => false,
        },
        FactType::Rows { columns, always } => match value.as_array() {
            Some(rows) => {
                for (index, row) in rows.iter().enumerate() {
                    let at = format!("{at}/{index}");
                    match row.as_array() {
                        Some(cells) if cells.len() < always => {
                            out.push(format!("{at} has {} columns, under {always}", cells.len()))
                        }
                        Some(cells) if cells.len() <= columns.len() => {
                            for (cell, column) in cells.iter().zip(columns) {
                                check_value(&column.ty, cell, &format!("{at}/{}", column.name), out);
                            }
                        }
                        Some(cells) => {
                            out.push(format!("{at} has {} columns, over {}", cells.len(), columns.len()))
                        }
                        None => out.push(format!("{at} is not a row (an array)")),
                    }
                }
                true
            }
            None => false,
        },
    };
    if !fits {
        out.push(format!("{at} is not {}: {value}", type_phrase(ty)));
    }
}

fn type_phrase(ty: &FactType) -> &'static str {
    match ty {
        FactType::String => "a string",
        FactType::NullableString => "a string or null",
        FactType::Integer => "an integer",
        FactType::NullableInteger => "an integer or null",
        FactType::Boolean => "a boolean",
        FactType::Any => "any value",
        FactType::StringArray => "an array of strings",
        FactType::ObjectArray(_) => "an array of objects",
        FactType::Rows { .. } => "an array of rows",
        FactType::Counts => "an object of counts",
        FactType::Object(_) => "an object",
        FactType::Either(..) => "either declared type",
    }
}
