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
            "status": {"enum": crate::envelope::Status::NAMES},
            "effect": {"enum": crate::envelope::Effect::NAMES},
            "readiness": {"enum": crate::envelope::Readiness::NAMES},
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

fn render_fact_type(ty: &FactType) -> Value {
    match *ty {
        FactType::String => json!({"type": "string"}),
        FactType::NullableString => json!({"type": ["string", "null"]}),
        FactType::Integer => json!({"type": "integer"}),
        FactType::NullableInteger => json!({"type": ["integer", "null"]}),
        FactType::Boolean => json!({"type": "boolean"}),
        FactType::Any => json!({}),
        FactType::StringArray => json!({"type": "array", "items": {"type": "string"}}),
        FactType::ObjectArray(members) => {
            json!({"type": "array", "items": render_fact_object(members.iter())})
        }
        FactType::Object(members) => render_fact_object(members.iter()),
        FactType::Either(first, second) => {
            json!({"anyOf": [render_fact_type(first), render_fact_type(second)]})
        }
        FactType::Rows(columns) => {
            let prefix: Vec<Value> = columns
                .iter()
                .map(|column| {
                    let mut item = match render_fact_type(&column.ty) {
                        Value::Object(map) => map,
                        _ => Map::new(),
                    };
                    item.insert("description".into(), Value::from(column.description));
                    Value::Object(item)
                })
                .collect();
            json!({"type": "array", "items": {"type": "array", "prefixItems": prefix, "items": false}})
        }
    }
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
        FactType::Rows(columns) => match value.as_array() {
            Some(rows) => {
                for (index, row) in rows.iter().enumerate() {
                    let at = format!("{at}/{index}");
                    match row.as_array() {
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
        FactType::Rows(_) => "an array of rows",
        FactType::Object(_) => "an object",
        FactType::Either(..) => "either declared type",
    }
}
