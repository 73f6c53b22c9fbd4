//! The real binary driven by the official MCP TypeScript SDK (`@modelcontextprotocol/sdk`, the
//! client most MCP hosts are built on), with every result validated by Ajv in JSON Schema
//! draft-07 and 2020-12 mode, and the tool list checked by the MCP Inspector CLI's `--strict`
//! portability check.
//!
//! The SDK validates `structuredContent` against each tool's `outputSchema` with draft-07 Ajv
//! and throws on a mismatch; the Python SDK reads 2020-12. A schema both must accept has to be
//! written in the forms the two drafts read alike (`testing::portability_violations` states
//! them; these tests prove them with the real validators).
//!
//! Needs `chromedriver` (and `geckodriver` for the Firefox run) on `PATH` and the Node packages
//! of `tests/node` (`npm ci --prefix ghostlight-cli/tests/node`, which `scripts/test.sh` runs;
//! it also brings the pinned Node 22 the Inspector needs). Run:
//! `cargo nextest run -p ghostlight-cli --all-features --test e2e_typescript --no-capture`.

mod support;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;
use support::fixture::Fixture;

/// A configuration in which every tool can succeed: all four capabilities, 127.0.0.2 denied.
fn write_config(dir: &Path) -> std::path::PathBuf {
    let config = dir.join("main.toml");
    std::fs::write(
        &config,
        "[capabilities]\nallow = [\"read\", \"action\", \"write\", \"execute\"]\n\n[hosts]\ndeny = [\"127.0.0.2\"]\n",
    )
    .expect("write main.toml");
    config
}

/// Run `ts_sdk.mjs` on `browser` over `transport` and assert every call passed.
fn typescript_sdk(browser: &str, transport: &str) {
    let node = support::node();
    let project = support::node_project();
    let fixture = Fixture::start();
    let dir = tempfile::Builder::new().prefix("ghostlight-ts-sdk-").tempdir().expect("a temporary folder");
    let config = write_config(dir.path());

    let started = Instant::now();
    let output = Command::new(&node)
        .arg(project.join("ts_sdk.mjs"))
        .arg("--server")
        .arg(support::binary())
        .args(["--base-url", &fixture.base, "--browser", browser, "--transport", transport])
        .arg("--config")
        .arg(&config)
        .current_dir(&project)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", node.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("ts_sdk.mjs ({browser}, {transport}) ran in {:?}", started.elapsed());

    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}"));
    assert!(
        output.status.success() && report["ok"] == true,
        "the TypeScript SDK run failed at {}\nreport:\n{stdout}\nserver and client stderr:\n{stderr}",
        report["failed"]
    );
    let runs = report["runs"].as_array().cloned().unwrap_or_default();
    let expected_runs = if transport == "both" { 2 } else { 1 };
    assert_eq!(runs.len(), expected_runs, "{stdout}");
    for run in &runs {
        let calls = run["calls"].as_array().cloned().unwrap_or_default();
        assert!(calls.iter().all(|call| call["ok"] == true), "{stdout}");
        // Every one of the 24 tools answered at least once, through the SDK's validation.
        let mut tools: Vec<&str> = calls.iter().filter_map(|call| call["tool"].as_str()).collect();
        tools.sort_unstable();
        tools.dedup();
        assert_eq!(tools.len(), 24, "tools called over {}: {tools:?}", run["transport"]);
        eprintln!("{} over {}: {} calls validated", run["browser"], run["transport"], calls.len());
    }
}

#[test]
fn the_typescript_sdk_accepts_every_result_on_chromium_over_stdio_and_http() {
    support::require_chromedriver();
    typescript_sdk("chromium", "both");
}

#[test]
fn the_typescript_sdk_accepts_every_result_on_firefox() {
    assert!(
        support::on_path("geckodriver").is_some(),
        "geckodriver is not on PATH (cargo install geckodriver)"
    );
    typescript_sdk("firefox", "stdio");
}

/// `inspector --cli --method tools/list --strict`: exit 6 and one finding per line on any
/// error-severity portability problem; warnings are counted too and must be none.
#[test]
fn the_inspector_strict_check_finds_nothing() {
    let node = support::node();
    let project = support::node_project();
    let cli = project.join("node_modules/@modelcontextprotocol/inspector/clients/cli/build/index.js");
    let output = Command::new(&node)
        .arg(&cli)
        .args(["--method", "tools/list", "--strict", "--"])
        .arg(support::binary())
        .env("GHOSTLIGHT_MCP_LOG", "warn")
        .current_dir(&project)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", node.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the Inspector's strict check failed ({}):\n{stderr}", output.status);
    let listed: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("the Inspector printed no tool list ({e}):\n{stdout}\n{stderr}"));
    assert_eq!(listed["tools"].as_array().map(Vec::len), Some(24), "{stdout}");
    for finding in ["Error:", "Warning:", "Schema portability"] {
        assert!(!stderr.contains(finding), "the Inspector reports a portability finding:\n{stderr}");
    }
}
