//! The real binary driven end to end by a client that is not ours: the official MCP Python
//! SDK runs `tests/python/e2e_session.py` against a fixture page and headless Chromium.
//!
//! The interpreter is `GHOSTLIGHT_MCP_PYTHON`, else `<workspace>/.venv-mcp/bin/python` (CI
//! creates it: `python3 -m venv .venv-mcp && .venv-mcp/bin/pip install mcp`).

mod support;

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;
use support::fixture::Fixture;

#[test]
fn python_sdk_drives_the_binary_end_to_end() {
    let python = support::python();
    support::require_chromedriver();
    let fixture = Fixture::start();
    let scratch = support::scratch::Scratch::new("mcp-catalog");
    let catalog = scratch.join("catalog.json");
    std::fs::write(&catalog, ghostlight_core::render_catalog().to_string())
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", catalog.display()));
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/e2e_session.py");

    let started = Instant::now();
    let output = Command::new(&python)
        .arg(&script)
        .arg("--server")
        .arg(support::binary())
        .arg("--base-url")
        .arg(&fixture.base)
        .arg("--catalog")
        .arg(&catalog)
        // The most verbose filter: even then no argument, typed text, script or page text
        // may reach the log.
        .env("GHOSTLIGHT_MCP_LOG", "trace")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let _ = std::fs::remove_file(&catalog);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("e2e_session.py ran in {:?}", started.elapsed());

    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}"));
    assert!(
        output.status.success() && report["ok"] == true,
        "the Python scenario failed at {}\nreport:\n{stdout}\nserver and client stderr:\n{stderr}",
        report["failed"]
    );
    let steps: Vec<&str> =
        report["steps"].as_array().into_iter().flatten().filter_map(|s| s["step"].as_str()).collect();
    assert_eq!(
        steps,
        [
            "initialize",
            "tools/list",
            "policy_explain",
            "navigate",
            "execute refused",
            "inspect",
            "inspect document",
            "fill_form",
            "click",
            "read confirmation",
            "tabs",
            "screenshot",
            "unknown tool"
        ]
    );
    assert!(report["steps"].as_array().into_iter().flatten().all(|s| s["ok"] == true), "{stdout}");
    // The server logs to stderr only, and never the page's text, typed values or scripts.
    assert!(stderr.contains("tool call"), "no server log on stderr:\n{stderr}");
    for secret in ["Thank you, Ada", "\"Ada\"", "document.title", "Ghostlight fixture"] {
        assert!(!stderr.contains(secret), "{secret} reached the log:\n{stderr}");
    }
}
