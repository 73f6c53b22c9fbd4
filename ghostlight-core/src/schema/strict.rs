//! Input schemas for OpenAI's strict function calling, rendered from the same field tables as
//! the catalog.
//!
//! Strict mode constrains the model's output to the schema, which it accepts only in a subset
//! of JSON Schema (OpenAI, "Structured Outputs", supported schemas): every object lists all of
//! its properties in `required` and sets `additionalProperties: false`; `default`, `examples`,
//! `minLength`, `maxLength`, `uniqueItems` and most `format`s are not accepted. So here:
//!
//! - an optional field is required and nullable: a scalar's `type` gains `"null"` (an enum
//!   also gains `null` among its values), an object, array or union gains a `{"type":"null"}`
//!   branch of `anyOf`. The model sends `null` for a field it leaves out, and the decoder reads
//!   an optional `null` as absence ([`crate::decode::reads_as_absent`]), so a strict call
//!   means what the same call without its nulls means;
//! - a default the catalog would state goes into the description (`Default: 8000.`);
//! - closed sets are `enum`s, the selector's role filter and the capability list included
//!   (constrained decoding makes a wrong value impossible rather than refused);
//! - integer ranges and item counts, which strict mode accepts, are kept, safety caps too;
//!   string lengths and uniqueness are left to the decoder;
//! - multi-type values (a fill value, a wait value) are an `anyOf` of their types.
//!
//! An open object cannot be expressed: strict mode closes every object, so an open one would
//! accept only `{}`. The one open object of the contract is a flow step's `arguments`, which
//! carries another tool's arguments (`flow_ref`s included): its strict schema is a string, the
//! arguments' JSON text, which the decoder reads as the object. So every tool has a strict
//! schema; [`NotStrict`] remains for a future open field without such a form.

use serde_json::{Map, Value, json};

use super::{Field, FieldType, RESTRICTIONS, SELECTOR_FIELDS};
use crate::names::ToolName;

/// Why a tool has no strict-mode schema: its input holds an open object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{tool} has no strict-mode schema: {field} is an open object, which strict mode cannot express")]
pub struct NotStrict {
    tool: ToolName,
    field: &'static str,
}

impl NotStrict {
    /// The tool.
    pub fn tool(&self) -> ToolName {
        self.tool
    }

    /// The name of the open field (`arguments`, in a `browser_flow` step).
    pub fn field(&self) -> &'static str {
        self.field
    }
}

/// The strict-mode input schema of `tool`, whose own fields are `fields` (the restriction
/// fields are added). Every field type has a strict form today, so this never refuses; the
/// `Result` keeps [`NotStrict`] for a future field without one.
pub(crate) fn render_strict_input_schema(tool: ToolName, fields: &[Field]) -> Result<Value, NotStrict> {
    let _ = tool;
    let all: Vec<&Field> = fields.iter().chain(RESTRICTIONS.iter()).collect();
    Ok(Value::Object(strict_object(&all)))
}

/// A closed object of `fields`, every one required (optional ones nullable).
fn strict_object(fields: &[&Field]) -> Map<String, Value> {
    let mut properties = Map::new();
    let mut required = Vec::with_capacity(fields.len());
    for field in fields {
        let mut property = value_type(&field.ty);
        if !field.required {
            property = nullable(property);
        }
        property.insert("description".into(), Value::from(described(field)));
        properties.insert(field.name.into(), Value::Object(property));
        required.push(Value::from(field.name));
    }
    let mut object = Map::new();
    object.insert("type".into(), json!("object"));
    object.insert("properties".into(), Value::Object(properties));
    object.insert("required".into(), Value::Array(required));
    object.insert("additionalProperties".into(), Value::Bool(false));
    object
}

/// The field's description, with the default the decoder applies when it is absent (strict
/// mode has no `default` keyword).
fn described(field: &Field) -> String {
    let default = match field.ty {
        FieldType::Bool { default: Some(value) } => Some(value.to_string()),
        FieldType::Integer(bound) => bound.default.map(|value| value.to_string()),
        FieldType::Choice { default: Some(value), .. } => Some(value.to_owned()),
        _ => None,
    };
    match (default, field.ty) {
        (Some(default), _) => format!("{} Default: {default}.", field.description),
        (None, FieldType::OpenObject) => format!("{} As JSON text of an object.", field.description),
        (None, _) => field.description.to_owned(),
    }
}

/// The non-null schema of a field's type.
fn value_type(ty: &FieldType) -> Map<String, Value> {
    let schema = match *ty {
        FieldType::Bool { .. } => json!({"type": "boolean"}),
        FieldType::Integer(bound) => {
            json!({"type": "integer", "minimum": bound.min, "maximum": bound.max})
        }
        FieldType::Number => json!({"type": "number"}),
        FieldType::Text(_) | FieldType::Url | FieldType::Handle(_) => json!({"type": "string"}),
        FieldType::Choice { values, .. } => json!({"type": "string", "enum": values}),
        FieldType::Selector => {
            let fields: Vec<&Field> = SELECTOR_FIELDS.iter().collect();
            return strict_object(&fields);
        }
        FieldType::FillValue { options, .. } => json!({"anyOf": [
            {"type": "string"},
            {"type": "boolean"},
            {"type": "number"},
            {"type": "array", "items": {"type": "string"}, "maxItems": options.max},
        ]}),
        FieldType::TextOrInteger(_, int) => json!({"anyOf": [
            {"type": "string"},
            {"type": "integer", "minimum": int.min, "maximum": int.max},
        ]}),
        FieldType::List { item, count, .. } => {
            let mut list = Map::new();
            list.insert("type".into(), json!("array"));
            list.insert("items".into(), Value::Object(value_type(item)));
            if count.min > 0 {
                list.insert("minItems".into(), json!(count.min));
            }
            list.insert("maxItems".into(), json!(count.max));
            return list;
        }
        FieldType::Object(fields) => {
            let fields: Vec<&Field> = fields.iter().collect();
            return strict_object(&fields);
        }
        // Strict mode closes every object: the open one travels as its JSON text, which the
        // decoder reads as the object (`ObjectReader::open_object_or_text`).
        FieldType::OpenObject => json!({"type": "string"}),
    };
    match schema {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// `schema`, also accepting `null`: a scalar `type` gains `"null"` (and an `enum` gains
/// `null`); an object, an array or a union gains a `{"type":"null"}` branch of `anyOf`.
fn nullable(mut schema: Map<String, Value>) -> Map<String, Value> {
    let scalar = match schema.get("type") {
        Some(Value::String(name)) => !matches!(name.as_str(), "object" | "array"),
        _ => false,
    };
    if scalar {
        if let Some(Value::String(name)) = schema.remove("type") {
            schema.insert("type".into(), json!([name, "null"]));
        }
        if let Some(Value::Array(values)) = schema.get_mut("enum") {
            values.push(Value::Null);
        }
        return schema;
    }
    if let Some(Value::Array(branches)) = schema.get_mut("anyOf") {
        branches.push(json!({"type": "null"}));
        return schema;
    }
    let mut union = Map::new();
    union.insert("anyOf".into(), json!([Value::Object(schema), {"type": "null"}]));
    union
}
