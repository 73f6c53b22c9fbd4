//! Declarative field tables and their JSON Schema rendering.
//!
//! Each tool declares its inputs once as a table of [`Field`]s. The same table renders the
//! advertised input schema (one flat "teaching envelope": `type: object`, no `oneOf`/`anyOf`/
//! `allOf`, `additionalProperties: false` on every object) and drives the decoder
//! ([`crate::decode::ObjectReader`]), which refuses undeclared fields and reads every bound
//! from the same [`crate::limits`] constants. Output schemas are rendered from each tool's
//! [`Fact`] table inside the common envelope.
//!
//! The same tables also render the input schemas of OpenAI's strict function calling
//! ([`strict`]).

use serde_json::{Map, Value, json};

use crate::capability::Capability;
use crate::handles::HandleKind;
use crate::limits::{CountBound, HOST_PATTERN_CHARS, IntBound, RESTRICTION_ENTRIES};

pub(crate) mod strict;

/// One declared input field.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// Property name.
    pub name: &'static str,
    /// Value type and bounds.
    pub ty: FieldType,
    /// Concise description shown to the model.
    pub description: &'static str,
    /// Required in every branch (rendered into the schema's `required`). Branch-dependent
    /// requirements are enforced by the decoder alone.
    pub required: bool,
    /// A secret-bearing field: its received value is never echoed in an error.
    pub sensitive: bool,
}

impl Field {
    /// An optional, non-sensitive field.
    pub const fn optional(name: &'static str, ty: FieldType, description: &'static str) -> Self {
        Field { name, ty, description, required: false, sensitive: false }
    }

    /// A field required in every branch.
    pub const fn required(name: &'static str, ty: FieldType, description: &'static str) -> Self {
        Field { name, ty, description, required: true, sensitive: false }
    }

    /// The same field, marked secret-bearing.
    pub const fn sensitive(self) -> Self {
        Field { sensitive: true, ..self }
    }
}

/// The type and bounds of a declared field.
#[derive(Debug, Clone, Copy)]
pub enum FieldType {
    /// `true` or `false`, with an optional advertised default.
    Bool {
        /// Default when omitted.
        default: Option<bool>,
    },
    /// A whole number inside a range.
    Integer(IntBound),
    /// A finite number.
    Number,
    /// A UTF-8 string whose length, in Unicode scalar values, lies inside a bound.
    Text(CountBound),
    /// An absolute `http` or `https` URL.
    Url,
    /// One of a closed list of strings.
    Choice {
        /// Accepted values.
        values: &'static [&'static str],
        /// Default when omitted.
        default: Option<&'static str>,
    },
    /// An opaque handle of one kind.
    Handle(HandleKind),
    /// A typed semantic selector `{name, role?, exact?}`.
    Selector,
    /// A fill value: a bounded string, a boolean, or a finite number.
    FillValue(CountBound),
    /// A bounded string or a whole number inside a range (`browser_wait`'s `value`).
    TextOrInteger(CountBound, IntBound),
    /// An array of items of one type.
    List {
        /// Item type.
        item: &'static FieldType,
        /// Item count bound.
        count: CountBound,
        /// Whether items must be unique.
        unique: bool,
    },
    /// A nested closed object.
    Object(&'static [Field]),
    /// An open object whose members another decoder checks (a flow step's `arguments`).
    OpenObject,
}

/// The `restrict_hosts` field every tool accepts.
pub(crate) const RESTRICT_HOSTS: Field = Field::optional(
    "restrict_hosts",
    FieldType::List { item: &FieldType::Text(HOST_PATTERN_CHARS), count: RESTRICTION_ENTRIES, unique: false },
    "Only these host patterns.",
);

/// The `restrict_capabilities` field every tool accepts.
pub(crate) const RESTRICT_CAPABILITIES: Field = Field::optional(
    "restrict_capabilities",
    FieldType::List {
        item: &FieldType::Choice { values: &Capability::NAMES, default: None },
        count: RESTRICTION_ENTRIES,
        unique: false,
    },
    "Only these capabilities.",
);

/// The two restriction fields, appended to every tool's own fields.
pub(crate) const RESTRICTIONS: [Field; 2] = [RESTRICT_HOSTS, RESTRICT_CAPABILITIES];

/// A selector's `name`.
pub(crate) const SELECTOR_NAME: Field =
    Field::required("name", FieldType::Text(crate::limits::SELECTOR_NAME_CHARS), "Accessible name.");
/// A selector's optional `role` filter.
pub(crate) const SELECTOR_ROLE: Field =
    Field::optional("role", FieldType::Choice { values: &ROLE_TOKENS, default: None }, "Role filter.");
/// A selector's `exact` flag.
pub(crate) const SELECTOR_EXACT: Field =
    Field::optional("exact", FieldType::Bool { default: Some(false) }, "Exact match.");
/// The `selector` object's own fields.
pub(crate) const SELECTOR_FIELDS: [Field; 3] = [SELECTOR_NAME, SELECTOR_ROLE, SELECTOR_EXACT];

/// Role tokens accepted by a selector's `role`.
pub(crate) const ROLE_TOKENS: [&str; 19] = {
    let mut tokens = [""; 19];
    let mut i = 0;
    while i < 19 {
        tokens[i] = crate::selector::Role::ALL[i].token();
        i += 1;
    }
    tokens
};

/// Render an input schema: the tool's fields plus the restriction fields, with `example` as
/// the single entry of the standard `examples` keyword.
///
/// The restriction fields are rendered without their count and length bounds: they repeat on
/// all 24 tools, every model reads them on every turn, and the decoder's message states the
/// bound when one is exceeded.
pub(crate) fn render_input_schema(fields: &[Field], example: &Value) -> Value {
    let mut schema = render_object(fields.iter().chain(RESTRICTIONS.iter()));
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for restriction in &RESTRICTIONS {
            if let Some(Value::Object(property)) = properties.get_mut(restriction.name) {
                strip_bounds(property);
            }
        }
    }
    schema.insert("examples".into(), Value::Array(vec![example.clone()]));
    Value::Object(schema)
}

fn strip_bounds(property: &mut Map<String, Value>) {
    for keyword in ["minItems", "maxItems", "minLength", "maxLength"] {
        property.remove(keyword);
    }
    if let Some(Value::Object(items)) = property.get_mut("items") {
        strip_bounds(items);
    }
}

fn render_object<'a>(fields: impl Iterator<Item = &'a Field>) -> Map<String, Value> {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in fields {
        let mut property = render_type(&field.ty);
        property.insert("description".into(), Value::from(field.description));
        properties.insert(field.name.into(), Value::Object(property));
        if field.required {
            required.push(Value::from(field.name));
        }
    }
    let mut object = Map::new();
    object.insert("type".into(), json!("object"));
    object.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        object.insert("required".into(), Value::Array(required));
    }
    object.insert("additionalProperties".into(), Value::Bool(false));
    object
}

fn render_type(ty: &FieldType) -> Map<String, Value> {
    let mut out = Map::new();
    match *ty {
        FieldType::Bool { default } => {
            out.insert("type".into(), json!("boolean"));
            if let Some(default) = default {
                out.insert("default".into(), json!(default));
            }
        }
        FieldType::Integer(bound) => {
            out.insert("type".into(), json!("integer"));
            out.insert("minimum".into(), json!(bound.min));
            out.insert("maximum".into(), json!(bound.max));
            if let Some(default) = bound.default {
                out.insert("default".into(), json!(default));
            }
        }
        FieldType::Number => {
            out.insert("type".into(), json!("number"));
        }
        FieldType::Text(bound) => {
            out.insert("type".into(), json!("string"));
            insert_length(&mut out, bound);
        }
        FieldType::Url => {
            out.insert("type".into(), json!("string"));
            out.insert("format".into(), json!("uri"));
            out.insert("maxLength".into(), json!(crate::limits::URL_CHARS.max));
        }
        FieldType::Choice { values, default } => {
            out.insert("enum".into(), json!(values));
            if let Some(default) = default {
                out.insert("default".into(), json!(default));
            }
        }
        FieldType::Handle(_) => {
            out.insert("type".into(), json!("string"));
        }
        FieldType::Selector => {
            out = render_selector();
        }
        FieldType::FillValue(bound) => {
            out.insert("type".into(), json!(["string", "boolean", "number"]));
            out.insert("maxLength".into(), json!(bound.max));
        }
        FieldType::TextOrInteger(text, int) => {
            out.insert("type".into(), json!(["string", "integer"]));
            out.insert("maxLength".into(), json!(text.max));
            out.insert("minimum".into(), json!(int.min));
            out.insert("maximum".into(), json!(int.max));
        }
        FieldType::List { item, count, unique } => {
            out.insert("type".into(), json!("array"));
            out.insert("items".into(), Value::Object(render_type(item)));
            if count.min > 0 {
                out.insert("minItems".into(), json!(count.min));
            }
            out.insert("maxItems".into(), json!(count.max));
            if unique {
                out.insert("uniqueItems".into(), json!(true));
            }
        }
        FieldType::Object(fields) => {
            out = render_object(fields.iter());
        }
        FieldType::OpenObject => {
            out.insert("type".into(), json!("object"));
        }
    }
    out
}

/// The selector object, rendered compactly because it repeats on most tools: the role is
/// advertised as a string whose description names the closed set's common members (the
/// decoder refuses any other role and lists them all); the name keeps its length bound.
fn render_selector() -> Map<String, Value> {
    let mut object = render_object(SELECTOR_FIELDS.iter());
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        properties.insert(
            SELECTOR_ROLE.name.into(),
            json!({"type": "string", "description": "Role, e.g. button, link, textbox."}),
        );
    }
    object
}

fn insert_length(out: &mut Map<String, Value>, bound: CountBound) {
    if bound.min > 0 {
        out.insert("minLength".into(), json!(bound.min));
    }
    out.insert("maxLength".into(), json!(bound.max));
}

/// One declared output fact (a property of the envelope's `facts`).
#[derive(Debug, Clone, Copy)]
pub struct Fact {
    /// Property name.
    pub name: &'static str,
    /// Value type.
    pub ty: FactType,
    /// Concise description.
    pub description: &'static str,
}

impl Fact {
    /// A fact declaration.
    pub const fn new(name: &'static str, ty: FactType, description: &'static str) -> Self {
        Fact { name, ty, description }
    }
}

/// The JSON type of an output fact.
#[derive(Debug, Clone, Copy)]
pub enum FactType {
    /// A string.
    String,
    /// A string, or `null` when not applicable.
    NullableString,
    /// An integer.
    Integer,
    /// An integer, or `null` when not applicable.
    NullableInteger,
    /// A boolean.
    Boolean,
    /// Any JSON value (for example a script result).
    Any,
    /// An array of strings.
    StringArray,
    /// An array of objects with the listed members.
    ObjectArray(&'static [Fact]),
    /// An array of rows: each row an array whose positions are the listed columns, trailing
    /// empty columns omitted (compact: every agent reads facts twice).
    Rows(&'static [Fact]),
    /// An object with the listed members.
    Object(&'static [Fact]),
    /// A value of either type (a row column whose meaning the `columns` fact names).
    Either(&'static FactType, &'static FactType),
}

/// Facts that any envelope may carry whatever the tool: refusal reasons and their details.
pub(crate) const COMMON_FACTS: [Fact; 4] = [
    Fact::new(
        "host",
        FactType::String,
        "The page's host (with :port when not the default) the summary names.",
    ),
    Fact::new("reason", FactType::String, "Closed reason code of a refusal or failure."),
    Fact::new("browsers", FactType::StringArray, "Eligible browsers (startup refusals)."),
    Fact::new("browser", FactType::String, "The one eligible browser (startup refusals)."),
];

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

/// Where `facts` departs from the declared `declared` facts (and [`COMMON_FACTS`]): every member
/// whose value does not have its declared type, at any depth. Empty when the facts fit the
/// tool's output schema. Members the schema does not list are allowed (fact objects are open,
/// as the rendered schema says). Tests of adapters and hosts run every envelope they see
/// through it, so the published schema stays truthful.
pub(crate) fn fact_mismatches(declared: &[Fact], facts: &Map<String, Value>) -> Vec<String> {
    let mut mismatches = Vec::new();
    let all: Vec<&Fact> = declared.iter().chain(COMMON_FACTS.iter()).collect();
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
