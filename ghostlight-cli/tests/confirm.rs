//! Confirmation outside the page (`[confirm]`), through the real binaries.
//!
//! * MCP elicitation: the official MCP Python SDK runs `tests/python/confirm_elicitation.py`
//!   against the real `ghostlight-mcp` on headless Chromium, answering as the person: accept,
//!   decline, cancel, accept without a yes, and a client that declares no elicitation. The
//!   fixture page writes what it received into its own text, so a declined click is judged by
//!   what the page saw.
//!
//! Run: `cargo nextest run -p ghostlight-cli --test confirm`. It needs `chromedriver` on `PATH`
//! and the SDK's interpreter (see `support::python`).

mod support;

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;
use support::fixture::Fixture;

#[test]
fn mcp_elicitation_asks_the_person_and_binds_the_answer() {
    let python = support::python();
    support::require_chromedriver();
    let fixture = Fixture::start();
    let dir = tempfile::Builder::new().prefix("ghostlight-confirm-").tempdir().expect("a temporary folder");
    let audit = dir.path().join("audit.jsonl");
    let config = dir.path().join("confirm.toml");
    let audit_text = audit.to_string_lossy().into_owned();
    assert!(!audit_text.contains('\''), "a path with a quote: {audit_text}");
    std::fs::write(
        &config,
        format!(
            "[confirm]\nactions = [\"submit\"]\n\n\
             [audit]\ndestination = \"file\"\npath = '{audit_text}'\n"
        ),
    )
    .expect("write the configuration");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/confirm_elicitation.py");

    let started = Instant::now();
    let output = Command::new(&python)
        .arg(&script)
        .arg("--server")
        .arg(support::binary())
        .args(["--base-url", &fixture.base, "--audit", &audit_text, "--"])
        .args(["--browser", "chromium", "--config"])
        .arg(&config)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}"));
    let checks = report["checks"].as_array().map_or(0, Vec::len);
    eprintln!("confirm_elicitation.py: {checks} checks in {:?}", started.elapsed());
    assert!(
        output.status.success() && report["ok"] == true,
        "confirmation through elicitation failed at {}\nreport:\n{stdout}\nserver and client stderr:\n{stderr}",
        report["failed"]
    );
    assert_eq!(checks, 26, "every check of the script ran:\n{stdout}");
    assert!(!stderr.contains("Paris-7781"), "a typed value reached the log:\n{stderr}");
}

/// `ghostlight call` under a pseudo-terminal: the question on the terminal, `y`, `n` and end
/// of input as the person's answers; and without any terminal, nothing asked.
#[test]
fn ghostlight_call_asks_on_its_terminal() {
    let python = support::python();
    support::require_chromedriver();
    let fixture = Fixture::start();
    let dir =
        tempfile::Builder::new().prefix("ghostlight-confirm-tty-").tempdir().expect("a temporary folder");
    let config = dir.path().join("confirm.toml");
    std::fs::write(&config, "[confirm]\nactions = [\"new_host\"]\n").expect("write the configuration");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/confirm_terminal.py");
    let started = Instant::now();
    let output = Command::new(&python)
        .arg(&script)
        .arg("--ghostlight")
        .arg(env!("CARGO_BIN_EXE_ghostlight"))
        .args(["--url", &fixture.url("/hello"), "--", "--no-session", "--browser", "chromium", "--config"])
        .arg(&config)
        // Nothing the calls keep (sessions, state) outside the test's folder.
        .env("XDG_RUNTIME_DIR", dir.path())
        .env("XDG_CONFIG_HOME", dir.path())
        .env("XDG_STATE_HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .env_remove("GHOSTLIGHT_CONFIG")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}"));
    eprintln!("confirm_terminal.py ran in {:?}", started.elapsed());
    assert!(
        output.status.success() && report["ok"] == true,
        "the terminal confirmation failed at {}\nreport:\n{stdout}\nstderr:\n{stderr}",
        report["failed"]
    );
    assert_eq!(report["checks"].as_array().map_or(0, Vec::len), 4, "{stdout}");
}
