//! A checker of the JSON Schema subset OpenAI's strict function calling accepts.

use serde_json::{Map, Value};

/// Object properties a strict schema may hold in all (OpenAI's first published limit; the
/// current one is 5,000).
const MAX_PROPERTIES: usize = 100;
/// Levels of object nesting a strict schema may have, the root object being level 1 (first
/// published limit; the current one is 10).
const MAX_DEPTH: usize = 5;
/// Enum values a strict schema may hold in all (first published limit; the current one is
/// 1,000).
const MAX_ENUM_VALUES: usize = 500;
/// Characters of all property names and enum values together (first published limit; the
/// current one is 120,000).
const MAX_NAME_CHARS: usize = 15_000;

/// The keywords a strict schema may use. Everything else is refused by strict mode
/// (`default`, `examples`, `minLength`, `maxLength`, `uniqueItems`, `patternProperties`,
/// `oneOf`, `allOf`, `not`, …) or, like `format`, accepted only in part; `$ref` and `$defs`
/// are accepted by OpenAI but not followed by this checker, so it refuses them too.
const KEYWORDS: [&str; 17] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "description",
    "title",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// The JSON types a strict schema may name.
const TYPES: [&str; 7] = ["string", "number", "integer", "boolean", "object", "array", "null"];

/// Where `schema`, a function's `parameters`, leaves the subset of JSON Schema that OpenAI's
/// strict function calling accepts (OpenAI, "Structured Outputs", supported schemas); empty
/// when it stays inside. Each entry names the JSON Pointer of the offending subschema.
///
/// The rules: the root is an object schema, not a union; every object lists all of its
/// properties in `required` and sets `additionalProperties: false`; only the supported
/// keywords and types appear (no `default`, `examples`, `minLength`, `maxLength`,
/// `uniqueItems`, `format`, `oneOf`, `allOf`, …); an array has `items`; a union is `anyOf`
/// of valid schemas; an `enum` on a nullable type holds `null`; and the limits hold, taken at
/// OpenAI's first published (tighter) figures: at most 100 object properties in all, 5 levels
/// of object nesting, 500 enum values, and 15,000 characters of property names and enum
/// values.
pub fn strict_subset_violations(schema: &Value) -> Vec<String> {
    let mut walk = Walk::default();
    match schema.as_object() {
        Some(root) if root.get("type") == Some(&Value::from("object")) && !root.contains_key("anyOf") => {
            walk.schema(schema, "", 0);
        }
        _ => walk.problems.push("/: the root must be an object schema, not a union".to_owned()),
    }
    if walk.properties > MAX_PROPERTIES {
        walk.problems.push(format!("{} object properties, over {MAX_PROPERTIES}", walk.properties));
    }
    if walk.enum_values > MAX_ENUM_VALUES {
        walk.problems.push(format!("{} enum values, over {MAX_ENUM_VALUES}", walk.enum_values));
    }
    if walk.name_chars > MAX_NAME_CHARS {
        walk.problems.push(format!(
            "{} characters of property names and enum values, over {MAX_NAME_CHARS}",
            walk.name_chars
        ));
    }
    walk.problems
}

#[derive(Default)]
struct Walk {
    problems: Vec<String>,
    properties: usize,
    enum_values: usize,
    name_chars: usize,
}

impl Walk {
    /// Check the subschema at `at`, which sits inside `depth` objects.
    fn schema(&mut self, schema: &Value, at: &str, depth: usize) {
        let Some(map) = schema.as_object() else {
            self.problems.push(format!("{at}: a schema must be an object"));
            return;
        };
        for keyword in map.keys() {
            if !KEYWORDS.contains(&keyword.as_str()) {
                self.problems.push(format!("{at}: {keyword} is not accepted in strict mode"));
            }
        }
        if let Some(description) = map.get("description")
            && !description.is_string()
        {
            self.problems.push(format!("{at}: description must be a string"));
        }
        let types = self.types(map, at);
        if types.is_empty() && !map.contains_key("anyOf") {
            self.problems.push(format!("{at}: neither a type nor anyOf"));
        }
        if let Some(branches) = map.get("anyOf") {
            match branches.as_array() {
                Some(branches) if !branches.is_empty() => {
                    for (index, branch) in branches.iter().enumerate() {
                        self.schema(branch, &format!("{at}/anyOf/{index}"), depth);
                    }
                }
                _ => self.problems.push(format!("{at}: anyOf must be a non-empty array of schemas")),
            }
        }
        if let Some(values) = map.get("enum") {
            self.enumeration(values, types.contains(&"null"), at);
        }
        if types.contains(&"object") {
            self.object(map, at, depth + 1);
        }
        if types.contains(&"array") {
            match map.get("items") {
                Some(items) => self.schema(items, &format!("{at}/items"), depth),
                None => self.problems.push(format!("{at}: an array needs items")),
            }
        }
        for bound in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"] {
            if map.get(bound).is_some_and(|value| !value.is_number()) {
                self.problems.push(format!("{at}: {bound} must be a number"));
            }
        }
        for count in ["minItems", "maxItems"] {
            if map.get(count).is_some_and(|value| value.as_u64().is_none()) {
                self.problems.push(format!("{at}: {count} must be a whole number"));
            }
        }
    }

    /// The types `map` names (`type` as one name or an array of names), checking each.
    fn types<'v>(&mut self, map: &'v Map<String, Value>, at: &str) -> Vec<&'v str> {
        let names: Vec<&Value> = match map.get("type") {
            None => return Vec::new(),
            Some(Value::Array(names)) if !names.is_empty() => names.iter().collect(),
            Some(name @ Value::String(_)) => vec![name],
            Some(_) => {
                self.problems.push(format!("{at}: type must be a name or a non-empty array of names"));
                return Vec::new();
            }
        };
        let mut types = Vec::with_capacity(names.len());
        for name in names {
            match name.as_str() {
                Some(name) if TYPES.contains(&name) && !types.contains(&name) => types.push(name),
                _ => self.problems.push(format!("{at}: type {name} is not one of {TYPES:?}, once")),
            }
        }
        types
    }

    /// An object schema at nesting level `level`: closed, every property required.
    fn object(&mut self, map: &Map<String, Value>, at: &str, level: usize) {
        if level > MAX_DEPTH {
            self.problems.push(format!("{at}: object nesting level {level}, over {MAX_DEPTH}"));
        }
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            self.problems.push(format!("{at}: additionalProperties must be false"));
        }
        let Some(properties) = map.get("properties").and_then(Value::as_object) else {
            self.problems.push(format!("{at}: an object needs properties"));
            return;
        };
        let required: Vec<&str> = match map.get("required").and_then(Value::as_array) {
            Some(names) => names.iter().filter_map(Value::as_str).collect(),
            None => Vec::new(),
        };
        for name in properties.keys() {
            if !required.contains(&name.as_str()) {
                self.problems.push(format!("{at}: property {name} is not in required"));
            }
        }
        for name in &required {
            if !properties.contains_key(*name) {
                self.problems.push(format!("{at}: required {name} is not a property"));
            }
        }
        self.properties += properties.len();
        for (name, property) in properties {
            self.name_chars += name.chars().count();
            self.schema(property, &format!("{at}/properties/{name}"), level);
        }
    }

    /// An `enum`: scalar values, holding `null` when the type is nullable.
    fn enumeration(&mut self, values: &Value, nullable: bool, at: &str) {
        let Some(values) = values.as_array().filter(|values| !values.is_empty()) else {
            self.problems.push(format!("{at}: enum must be a non-empty array"));
            return;
        };
        self.enum_values += values.len();
        for value in values {
            match value {
                Value::String(text) => self.name_chars += text.chars().count(),
                Value::Array(_) | Value::Object(_) => {
                    self.problems.push(format!("{at}: enum values must be scalars"));
                }
                _ => {}
            }
        }
        if nullable && !values.contains(&Value::Null) {
            self.problems.push(format!("{at}: a nullable enum must hold null"));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_strict_schema_passes() {
        let schema = json!({
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "City."},
                "unit": {"type": ["string", "null"], "enum": ["C", "F", null]},
                "days": {"anyOf": [{"type": "array", "items": {"type": "integer", "minimum": 1}, "maxItems": 7}, {"type": "null"}]},
            },
            "required": ["location", "unit", "days"],
            "additionalProperties": false,
        });
        assert_eq!(strict_subset_violations(&schema), Vec::<String>::new());
    }

    #[test]
    fn each_rule_is_checked() {
        let bad = json!({
            "type": "object",
            "properties": {
                "optional": {"type": "string", "maxLength": 5, "default": "x"},
                "open": {"type": "object"},
                "unit": {"type": ["string", "null"], "enum": ["C", "F"]},
                "list": {"type": "array", "uniqueItems": true},
                "when": {"type": "string", "format": "date-time"},
                "odd": {"type": "date"},
            },
            "required": ["open", "unit", "list", "when", "odd", "ghost"],
            "examples": [{}],
        });
        let problems = strict_subset_violations(&bad).join("\n");
        for expected in [
            ": additionalProperties must be false",
            "property optional is not in required",
            "required ghost is not a property",
            "/properties/optional: maxLength is not accepted",
            "/properties/optional: default is not accepted",
            ": examples is not accepted",
            "/properties/open: an object needs properties",
            "/properties/unit: a nullable enum must hold null",
            "/properties/list: uniqueItems is not accepted",
            "/properties/list: an array needs items",
            "/properties/when: format is not accepted",
            "/properties/odd: type \"date\" is not one of",
        ] {
            assert!(problems.contains(expected), "{expected} missing from:\n{problems}");
        }
        assert_eq!(
            strict_subset_violations(&json!({"anyOf": [{"type": "object"}]})),
            ["/: the root must be an object schema, not a union"]
        );
    }

    #[test]
    fn limits_are_checked() {
        let mut schema =
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false});
        for _ in 0..5 {
            schema = json!({"type": "object", "properties": {"a": schema}, "required": ["a"], "additionalProperties": false});
        }
        let problems = strict_subset_violations(&schema);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("object nesting level 6, over 5"), "{problems:?}");
        let wide: Map<String, Value> =
            (0..101).map(|i| (format!("p{i}"), json!({"type": "boolean"}))).collect();
        let names: Vec<String> = wide.keys().cloned().collect();
        let schema =
            json!({"type": "object", "properties": wide, "required": names, "additionalProperties": false});
        assert_eq!(strict_subset_violations(&schema), ["101 object properties, over 100"]);
    }
}
