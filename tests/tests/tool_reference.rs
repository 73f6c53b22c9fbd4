//! `docs/TOOLS.md`, the tool reference in the repository, is generated from the catalog
//! (`render_catalog`, what every client reads at `tools/list`): each tool's description,
//! annotations, shortest call, input fields with their types, bounds and defaults, and the
//! facts its answers may carry. This test fails when the file differs from what the catalog
//! renders; `GHOSTLIGHT_BLESS=1 cargo test -p ghostlight-tests --test tool_reference`
//! rewrites it.

use std::path::PathBuf;

use serde_json::Value;

fn reference_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/TOOLS.md")
}

/// A field's type as a person reads it: `integer 100–30000 (default 8000)`, `"a" | "b"`, …
fn type_of(schema: &Value) -> String {
    let mut text = if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(" \\| ")
    } else {
        match schema.get("type") {
            Some(Value::String(kind)) if kind == "array" => match schema.get("items") {
                Some(items) => format!("array of {}", type_of(items)),
                None => "array".to_owned(),
            },
            Some(Value::String(kind)) => kind.clone(),
            Some(Value::Array(kinds)) => {
                kinds.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or ")
            }
            _ if schema.get("properties").is_some() => "object".to_owned(),
            _ => "any".to_owned(),
        }
    };
    let bound = |low: &str, high: &str| match (schema.get(low), schema.get(high)) {
        (Some(a), Some(b)) => Some(format!("{a}–{b}")),
        (Some(a), None) => Some(format!("≥ {a}")),
        (None, Some(b)) => Some(format!("≤ {b}")),
        (None, None) => None,
    };
    if let Some(range) = bound("minimum", "maximum") {
        text.push_str(&format!(" {range}"));
    }
    if let Some(range) = bound("minItems", "maxItems") {
        text.push_str(&format!(", {range} items"));
    }
    if let Some(range) = bound("minLength", "maxLength") {
        text.push_str(&format!(", {range} characters"));
    }
    if let Some(default) = schema.get("default") {
        text.push_str(&format!(" (default `{default}`)"));
    }
    text
}

/// Table cells never hold a raw `|` or a line break.
fn cell(text: &str) -> String {
    text.replace('\n', " ").replace('|', "\\|").replace("\\\\|", "\\|")
}

/// The reference, rendered from the catalog.
fn render() -> String {
    let catalog = ghostlight_core::render_catalog();
    let tools = catalog.as_array().cloned().unwrap_or_default();
    let mut out = String::from(
        "# Tool reference\n\n\
         Generated from the catalog every client reads at `tools/list` (`ghostlight tools --json`);\n\
         `tests/tests/tool_reference.rs` checks that it matches. Every envelope has `invocation`,\n\
         `status`, `effect`, `readiness`, `repeat_safe`, `summary`, `facts` and `next_steps`; the\n\
         facts below are each tool's own (any answer may also carry the refusal details the output\n\
         schemas describe). Every tool also accepts `restrict_hosts` and `restrict_capabilities`,\n\
         which only narrow the configured authority.\n\n",
    );
    out.push_str(&format!("{} tools:\n\n", tools.len()));
    for tool in &tools {
        let name = tool["name"].as_str().unwrap_or_default();
        out.push_str(&format!("- [`{name}`](#{name})\n"));
    }
    for tool in &tools {
        let name = tool["name"].as_str().unwrap_or_default();
        out.push_str(&format!("\n## `{name}`\n\n{}\n\n", tool["description"].as_str().unwrap_or_default()));
        let hints = &tool["annotations"];
        let flag = |key: &str| hints.get(key).and_then(Value::as_bool) == Some(true);
        let mut traits = Vec::new();
        for (key, word) in [
            ("readOnlyHint", "read-only"),
            ("destructiveHint", "destructive"),
            ("idempotentHint", "idempotent"),
            ("openWorldHint", "open world"),
        ] {
            if flag(key) {
                traits.push(word);
            }
        }
        if !traits.is_empty() {
            out.push_str(&format!("Annotations: {}.\n\n", traits.join(", ")));
        }
        let input = &tool["inputSchema"];
        if let Some(example) = input.get("examples").and_then(|e| e.get(0)) {
            out.push_str(&format!("Shortest call: `{example}`\n\n"));
        }
        let required: Vec<&str> = input
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        out.push_str("| input | type | required | meaning |\n| --- | --- | --- | --- |\n");
        if let Some(properties) = input.get("properties").and_then(Value::as_object) {
            for (field, schema) in properties {
                if field.starts_with("restrict_") {
                    continue;
                }
                let description = schema.get("description").and_then(Value::as_str).unwrap_or_default();
                let needed = if required.contains(&field.as_str()) { "yes" } else { "" };
                out.push_str(&format!(
                    "| `{field}` | {} | {needed} | {} |\n",
                    cell(&type_of(schema)),
                    cell(description)
                ));
            }
        }
        let facts = tool["outputSchema"]["properties"]["facts"]["properties"].as_object();
        if let Some(facts) = facts {
            out.push_str("\n| fact | type | meaning |\n| --- | --- | --- |\n");
            for (fact, schema) in facts {
                let mut description =
                    schema.get("description").and_then(Value::as_str).unwrap_or_default().to_owned();
                // Rows say what their positions hold (and that trailing empty ones are left out).
                if let Some(row) =
                    schema.get("items").and_then(|i| i.get("description")).and_then(Value::as_str)
                {
                    description.push_str(&format!(" Each row: {row}"));
                }
                out.push_str(&format!(
                    "| `{fact}` | {} | {} |\n",
                    cell(&type_of(schema)),
                    cell(&description)
                ));
            }
        }
    }
    out
}

#[test]
fn the_tool_reference_is_the_catalogs() {
    let rendered = render();
    let path = reference_path();
    if std::env::var_os("GHOSTLIGHT_BLESS").is_some() {
        std::fs::write(&path, &rendered).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == rendered,
        "docs/TOOLS.md differs from the catalog: run `GHOSTLIGHT_BLESS=1 cargo test -p ghostlight-tests --test tool_reference`"
    );
}
