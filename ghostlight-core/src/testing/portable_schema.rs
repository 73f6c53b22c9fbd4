//! A checker of tool schemas that every common validator and tool-schema consumer reads alike.

use serde_json::{Map, Value};

/// The JSON types a `type` keyword may name.
const TYPES: [&str; 7] = ["string", "number", "integer", "boolean", "object", "array", "null"];

/// Keywords whose meaning differs between JSON Schema draft-07 and 2020-12, or that one of the
/// two does not know: a validator of the other draft ignores them (or reads them otherwise), so
/// a schema that relies on them is not the same contract everywhere. References are refused
/// too: tool-schema consumers that map schemas onto their own dialects do not follow them.
const DRAFT_DEPENDENT: [&str; 14] = [
    "prefixItems",
    "additionalItems",
    "unevaluatedItems",
    "unevaluatedProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "$schema",
    "$defs",
    "definitions",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "$id",
];

/// Keywords that constrain a value: a subschema with none of them accepts anything, which
/// portability checks (the MCP Inspector's among them) flag as an untyped schema.
const CONSTRAINING: [&str; 23] = [
    "type",
    "$ref",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "properties",
    "additionalProperties",
    "items",
    "required",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
];

/// Where `schema` (a tool's input or output schema) is not portable; empty when it is. Each
/// entry names the JSON Pointer of the offending subschema.
///
/// Portable means read the same way by a JSON Schema draft-07 validator (the MCP TypeScript
/// SDK's Ajv), a 2020-12 one (the Python SDK's `jsonschema`, and the MCP default dialect), and
/// by clients that map tool schemas onto a single-`type` dialect. The rules, a superset of the
/// MCP Inspector's `--strict` portability check:
///
/// - every subschema is an object: no bare `true`/`false` schema (`additionalProperties: false`
///   is a keyword's value, not a subschema, and is allowed);
/// - `type` names one JSON type: a union is `anyOf` of single-type branches, never a `type`
///   array;
/// - no keyword whose meaning differs between the drafts or that one of them lacks
///   (`prefixItems`, array-valued `items`, `additionalItems`, `dependentRequired`, `$defs`,
///   `$ref`, `$schema`, …);
/// - every subschema constrains its value (no `{}` that accepts anything).
pub fn portability_violations(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(schema, "", &mut out);
    out
}

fn walk(schema: &Value, at: &str, out: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        out.push(format!("{at}: {schema} is not a schema object"));
        return;
    };
    check_node(map, at, out);
    for keyword in ["properties", "patternProperties"] {
        if let Some(Value::Object(members)) = map.get(keyword) {
            for (name, member) in members {
                walk(member, &format!("{at}/{keyword}/{}", escape(name)), out);
            }
        }
    }
    for keyword in ["anyOf", "oneOf", "allOf"] {
        match map.get(keyword) {
            Some(Value::Array(branches)) => {
                for (index, branch) in branches.iter().enumerate() {
                    walk(branch, &format!("{at}/{keyword}/{index}"), out);
                }
            }
            Some(other) => out.push(format!("{at}/{keyword}: {other} is not an array of schemas")),
            None => {}
        }
    }
    match map.get("items") {
        Some(Value::Array(_)) => out.push(format!("{at}/items: positional items (draft-07 only)")),
        Some(items) => walk(items, &format!("{at}/items"), out),
        None => {}
    }
    match map.get("additionalProperties") {
        Some(Value::Bool(_)) | None => {}
        Some(other) => walk(other, &format!("{at}/additionalProperties"), out),
    }
    if let Some(not) = map.get("not") {
        // Under `not`, `{}` is the always-true schema negated: allowed as it is.
        if !not.as_object().is_some_and(Map::is_empty) {
            walk(not, &format!("{at}/not"), out);
        }
    }
}

fn check_node(map: &Map<String, Value>, at: &str, out: &mut Vec<String>) {
    match map.get("type") {
        Some(Value::String(name)) if TYPES.contains(&name.as_str()) => {}
        Some(Value::Array(names)) => out.push(format!(
            "{at}: type is an array ({}); use anyOf of single-type branches",
            Value::from(names.clone())
        )),
        Some(other) => out.push(format!("{at}: type {other} is not a JSON type")),
        None => {}
    }
    for keyword in DRAFT_DEPENDENT {
        if map.contains_key(keyword) {
            out.push(format!("{at}: uses {keyword}, which draft-07 and 2020-12 read differently"));
        }
    }
    if !CONSTRAINING.iter().any(|keyword| map.contains_key(*keyword)) {
        out.push(format!("{at}: constrains nothing (accepts any value)"));
    }
}

/// `name` as a JSON Pointer reference token (RFC 6901).
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::portability_violations;

    #[test]
    fn a_portable_schema_passes() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "Name."},
                "rows": {"type": "array", "items": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "boolean"}]}, "maxItems": 3}},
                "state": {"type": "string", "enum": ["on", "off"]},
                "counts": {"type": "object", "additionalProperties": {"type": "integer"}}
            },
            "additionalProperties": false
        });
        assert_eq!(portability_violations(&schema), Vec::<String>::new());
    }

    #[test]
    fn the_forms_validators_read_differently_are_named() {
        let schema = json!({
            "type": "object",
            "properties": {
                "row": {"type": "array", "prefixItems": [{"type": "string"}], "items": false},
                "tuple": {"type": "array", "items": [{"type": "string"}]},
                "maybe": {"type": ["integer", "null"]},
                "anything": {"description": "No constraint."},
                "a/b": {"$ref": "#/$defs/x"}
            }
        });
        let problems = portability_violations(&schema);
        let expected = [
            "/properties/row: uses prefixItems, which draft-07 and 2020-12 read differently",
            "/properties/row/items: false is not a schema object",
            "/properties/tuple/items: positional items (draft-07 only)",
            "/properties/maybe: type is an array ([\"integer\",\"null\"]); use anyOf of single-type branches",
            "/properties/anything: constrains nothing (accepts any value)",
            "/properties/a~1b: uses $ref, which draft-07 and 2020-12 read differently",
        ];
        for problem in expected {
            assert!(problems.iter().any(|p| p == problem), "{problem} not in {problems:#?}");
        }
        assert_eq!(problems.len(), expected.len(), "{problems:#?}");
    }
}
