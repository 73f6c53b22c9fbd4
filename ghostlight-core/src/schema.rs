//! Declarative field tables and their JSON Schema rendering.
//!
//! Each tool declares its inputs once as a table of [`Field`]s. The same table renders the
//! advertised input schema (one flat "teaching envelope": `type: object`, no `oneOf`/`anyOf`/
//! `allOf` at the root or around objects, `additionalProperties: false` on every object; a value
//! of several types is an `anyOf` of single-type scalar branches, never a `type` array, so
//! draft-07, 2020-12 and single-type dialects read it alike) and drives the decoder
//! ([`crate::decode::ObjectReader`]), which refuses undeclared fields and reads every bound
//! from the same [`crate::limits`] constants. Output schemas are rendered from each tool's
//! fact table by [`crate::facts`].
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
    /// A fill value: a bounded string, a boolean, a finite number, or a bounded list of
    /// bounded strings (the options of a multiple-choice list).
    FillValue {
        /// Characters of the string, and of each listed option.
        text: CountBound,
        /// Options in the list.
        options: CountBound,
    },
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
    "Only these patterns.",
);

/// The `restrict_capabilities` field every tool accepts.
pub(crate) const RESTRICT_CAPABILITIES: Field = Field::optional(
    "restrict_capabilities",
    FieldType::List {
        item: &FieldType::Choice { values: &Capability::NAMES, default: None },
        count: RESTRICTION_ENTRIES,
        unique: false,
    },
    "Only these.",
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
        FieldType::FillValue { text, options } => {
            let string = json!({"type": "string", "maxLength": text.max});
            out.insert(
                "anyOf".into(),
                json!([
                    string,
                    {"type": "boolean"},
                    {"type": "number"},
                    {"type": "array", "items": string, "maxItems": options.max},
                ]),
            );
        }
        FieldType::TextOrInteger(text, int) => {
            out.insert(
                "anyOf".into(),
                json!([
                    {"type": "string", "maxLength": text.max},
                    {"type": "integer", "minimum": int.min, "maximum": int.max},
                ]),
            );
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
/// advertised as a string whose description says the tokens are ARIA roles, with one example
/// (the decoder refuses any other role and lists them all); the name keeps its length bound.
fn render_selector() -> Map<String, Value> {
    let mut object = render_object(SELECTOR_FIELDS.iter());
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        properties.insert(
            SELECTOR_ROLE.name.into(),
            json!({"type": "string", "description": "ARIA role, e.g. button."}),
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
