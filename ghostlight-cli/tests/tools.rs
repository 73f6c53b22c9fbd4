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

#[test]
fn usage_errors_exit_with_2() {
    let output = ghostlight(&["tools", "--yaml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--yaml"));
    assert_eq!(ghostlight(&["frobnicate"]).status.code(), Some(2));
}
