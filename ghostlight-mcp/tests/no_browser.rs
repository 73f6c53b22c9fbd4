//! The real binary with no browser or driver on `PATH`: calls that need no browser are
//! answered correctly and start nothing (no driver process ever appears).

#![cfg(target_os = "linux")]

mod support;

use std::path::PathBuf;

use rmcp::ServiceError;
use rmcp::model::ErrorCode;
use serde_json::json;
use support::{call, children, describe, invoke, spawn_binary, status};

/// An empty directory for `PATH`, and a configuration file allowing one host.
fn setup(name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("ghostlight-mcp-{name}-{}", std::process::id()));
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("{e}"));
    let config = dir.join("ghostlight.toml");
    std::fs::write(&config, "[hosts]\nallow = [\"allowed.example\"]\n").unwrap_or_else(|e| panic!("{e}"));
    (bin, config)
}

#[tokio::test]
async fn answers_without_a_browser_and_starts_none() {
    let (bin, config) = setup("no-browser");
    let config_arg = config.to_string_lossy().into_owned();
    let (client, pid) = spawn_binary(&["--config", &config_arg], Some(&bin)).await;

    let explained = invoke(&client, "policy_explain", json!({})).await;
    assert_eq!(status(&explained), "succeeded", "{}", describe(&explained));
    assert_eq!(explained["effect"], "none");

    for (tool, arguments) in [
        ("browser_navigate", json!({"url": 5})),
        ("browser_navigate", json!({"url": "https://allowed.example/", "timeout_ms": 50})),
        ("browser_read", json!({"bogus": true})),
        ("browser_click", json!({})),
        ("browser_tabs", json!({"action": "list", "restrict_capabilities": ["teleport"]})),
    ] {
        let envelope = invoke(&client, tool, arguments.clone()).await;
        assert_eq!(status(&envelope), "failed", "{tool} {arguments}: {}", describe(&envelope));
        assert_eq!(envelope["facts"]["reason"], "invalid_arguments", "{tool} {arguments}");
        assert_eq!(envelope["effect"], "none");
    }

    match client.call_tool(call("browser_teleport", json!({}))).await {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code, ErrorCode::INVALID_PARAMS),
        other => panic!("an unknown tool answered {other:?}"),
    }

    // Outside the configured host allow list, and outside a call's own restriction.
    let outside = invoke(&client, "browser_navigate", json!({"url": "https://elsewhere.example/"})).await;
    assert_eq!(status(&outside), "blocked", "{}", describe(&outside));
    let restricted = invoke(
        &client,
        "browser_navigate",
        json!({"url": "https://allowed.example/", "restrict_hosts": ["other.example"]}),
    )
    .await;
    assert_eq!(status(&restricted), "blocked", "{}", describe(&restricted));
    // Execute is denied by default.
    let script = invoke(&client, "browser_execute", json!({"script": "1"})).await;
    assert_eq!(status(&script), "blocked", "{}", describe(&script));

    assert_eq!(children(pid), [], "a process was started for calls that need no browser");

    // A call that needs the browser reports that none can start, and the server stays up.
    let needs_browser = invoke(&client, "browser_navigate", json!({"url": "https://allowed.example/"})).await;
    assert_eq!(status(&needs_browser), "failed", "{}", describe(&needs_browser));
    assert_eq!(needs_browser["facts"]["reason"], "not_connected");
    let again = invoke(&client, "policy_explain", json!({})).await;
    assert_eq!(status(&again), "succeeded");
    assert_eq!(children(pid), []);
    let _ = client.cancel().await;
}

/// With `--startup manual` a call that needs the browser asks the person to open it, and
/// nothing is started.
#[tokio::test]
async fn manual_startup_asks_the_person() {
    let (bin, _config) = setup("manual");
    let (client, pid) = spawn_binary(&["--startup", "manual"], Some(&bin)).await;
    let envelope = invoke(&client, "browser_navigate", json!({"url": "https://example.com/"})).await;
    assert_eq!(status(&envelope), "attention_required", "{}", describe(&envelope));
    assert_eq!(envelope["facts"]["reason"], "browser_startup_manual");
    let explained = invoke(&client, "policy_explain", json!({})).await;
    assert!(explained.to_string().contains("manual"), "{}", describe(&explained));
    assert_eq!(children(pid), []);
    let _ = client.cancel().await;
}
