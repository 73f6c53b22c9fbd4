//! Multi-select fills, modifier clicks and hovers, and the outcome waits (`value_equals`,
//! `checked`, `unchecked`, `title_contains`, `url_matches`, `count_at_least`) through the real
//! `ghostlight-mcp` binary, on headless Chromium and on headless Firefox.
//!
//! The official MCP Python SDK runs `tests/python/form_outcomes.py` against
//! `tests/support/conformance/outcomes.html` served here on 127.0.0.1. Fills and input are
//! judged by what the page saw (it writes the options it received and the modifier flags of
//! the events into its own text); each wait is asked once before the page reaches its outcome
//! (it must time out) and once after (it must hold). The values a wait compares never come
//! back, and none reach the audit file.
//!
//! Run: `cargo nextest run -p ghostlight-cli --all-features --test form_outcomes`. It needs
//! `chromedriver` and `geckodriver` on `PATH` and the SDK's interpreter (see `support::python`).

mod support;

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;
use support::fixture::Fixture;

fn outcomes(engine: &str, driver: &str) {
    assert!(support::on_path(driver).is_some(), "{driver} is not on PATH");
    let python = support::python();
    let fixture = Fixture::start();
    let dir = tempfile::Builder::new().prefix("ghostlight-outcomes-").tempdir().expect("a temporary folder");
    let audit = dir.path().join("audit.jsonl");
    let config = dir.path().join("outcomes.toml");
    let audit_text = audit.to_string_lossy().into_owned();
    assert!(!audit_text.contains('\''), "a path with a quote: {audit_text}");
    std::fs::write(
        &config,
        format!(
            "[capabilities]\nallow = [\"read\", \"action\", \"write\"]\n\n\
             [audit]\ndestination = \"file\"\npath = '{audit_text}'\n"
        ),
    )
    .expect("write the configuration");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/form_outcomes.py");

    let started = Instant::now();
    let output = Command::new(&python)
        .arg(&script)
        .arg("--server")
        .arg(support::binary())
        .args(["--base-url", &fixture.base, "--audit", &audit_text, "--"])
        .args(["--browser", engine, "--config"])
        .arg(&config)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}"));
    let checks = report["checks"].as_array().map_or(0, Vec::len);
    eprintln!("form_outcomes.py on {engine}: {checks} checks in {:?}", started.elapsed());
    assert!(
        output.status.success() && report["ok"] == true,
        "form outcomes on {engine} failed at {}\nreport:\n{stdout}\nserver and client stderr:\n{stderr}",
        report["failed"]
    );
    assert_eq!(checks, 38, "every check of the script runs on {engine}:\n{stdout}");
}

#[test]
fn multi_selects_modifiers_and_outcome_waits_on_chromium() {
    outcomes("chromium", "chromedriver");
}

#[test]
fn multi_selects_modifiers_and_outcome_waits_on_firefox() {
    outcomes("firefox", "geckodriver");
}
