//! `ghostlight tools` on the real binary.

use std::process::Command;

use serde_json::Value;

fn ghostlight(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ghostlight")).args(args).output().expect("the binary runs")
}

#[test]
fn tools_json_prints_the_24_declarations() {
    let output = ghostlight(&["tools", "--json"]);
    assert!(output.status.success());
    let tools: Value = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
    let tools = tools.as_array().expect("a JSON array");
    assert_eq!(tools.len(), 24);
    for tool in tools {
        let keys: Vec<&str> = tool.as_object().expect("an object").keys().map(String::as_str).collect();
        assert_eq!(keys.len(), 5, "{keys:?}");
        for key in ["name", "description", "inputSchema", "outputSchema", "annotations"] {
            assert!(keys.contains(&key), "{key} missing from {keys:?}");
        }
        let example = &tool["inputSchema"]["examples"][0];
        assert!(example.is_object(), "{} has no example", tool["name"]);
    }
    assert_eq!(tools[0]["name"], "browser_tabs");
    assert_eq!(tools[23]["name"], "policy_explain");
    // Exactly what the core renders.
    assert_eq!(Value::Array(tools.clone()), ghostlight_core::render_catalog());
}

#[test]
fn tools_lists_one_line_per_tool() {
    let output = ghostlight(&["tools"]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    assert_eq!(text.lines().count(), 24);
    assert!(text.lines().all(|line| line.starts_with("browser_") || line.starts_with("policy_explain")));
}

/// The JSON array `ghostlight tools ARGS` prints, and its standard error.
fn exported(args: &[&str]) -> (Vec<Value>, String) {
    let output = ghostlight(args);
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    let tools: Value = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
    let tools = tools.as_array().cloned().expect("a JSON array");
    assert_eq!(tools.len(), 24, "{args:?}");
    (tools, String::from_utf8_lossy(&output.stderr).into_owned())
}

fn keys(object: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = object.as_object().expect("an object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    keys
}

#[test]
fn strict_exports_stay_in_the_openai_subset() {
    for format in ["openai", "openai-responses"] {
        let (tools, stderr) = exported(&["tools", "--format", format, "--strict"]);
        let mut strict = 0;
        for tool in &tools {
            // Chat Completions nests the function; the Responses API's shape is flat.
            let function = if format == "openai" {
                assert_eq!(keys(tool), ["function", "type"]);
                &tool["function"]
            } else {
                tool
            };
            assert_eq!(tool["type"], "function");
            let expected: &[&str] = if format == "openai" {
                &["description", "name", "parameters", "strict"]
            } else {
                &["description", "name", "parameters", "strict", "type"]
            };
            assert_eq!(keys(function), expected, "{format}");
            let name = function["name"].as_str().expect("a name");
            let declaration = ghostlight_core::ToolName::parse(name).expect("a catalog tool").declaration();
            let parameters = &function["parameters"];
            assert_eq!(function["strict"], true, "{format} {name}");
            let problems = ghostlight_core::testing::strict_subset_violations(parameters);
            assert!(problems.is_empty(), "{format} {name}:\n{}", problems.join("\n"));
            assert_eq!(Some(parameters.clone()), declaration.strict_input_schema().ok());
            strict += 1;
        }
        assert!(stderr.is_empty(), "nothing left non-strict: {stderr}");
        assert_eq!(strict, 24, "{format}");
    }
}

#[test]
fn non_strict_openai_exports() {
    // Chat Completions without --strict: the catalog schemas, no `strict` member (false by
    // default there), as before.
    let (tools, stderr) = exported(&["tools", "--format", "openai"]);
    assert!(stderr.is_empty(), "{stderr}");
    for tool in &tools {
        assert_eq!(keys(&tool["function"]), ["description", "name", "parameters"]);
    }
    // The Responses API's `strict` defaults to true, so a non-strict export says false.
    let (tools, _) = exported(&["tools", "--format", "openai-responses"]);
    for tool in &tools {
        assert_eq!(tool["strict"], false, "{}", tool["name"]);
        let name = tool["name"].as_str().expect("a name");
        let declaration = ghostlight_core::ToolName::parse(name).expect("a catalog tool").declaration();
        assert_eq!(tool["parameters"], declaration.input_schema());
    }
    let (tools, _) = exported(&["tools", "--format", "anthropic"]);
    assert_eq!(keys(&tools[0]), ["description", "input_schema", "name"]);
}

#[test]
fn strict_needs_an_openai_format() {
    for args in [
        &["tools", "--strict"][..],
        &["tools", "--json", "--strict"],
        &["tools", "--format", "anthropic", "--strict"],
    ] {
        let output = ghostlight(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("--strict applies to --format openai"));
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn usage_errors_exit_with_2() {
    let output = ghostlight(&["tools", "--yaml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--yaml"));
    assert_eq!(ghostlight(&["frobnicate"]).status.code(), Some(2));
}
