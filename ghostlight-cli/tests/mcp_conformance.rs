//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `tests/node`) against the real binary over streamable HTTP, with the baseline
//! `tests/node/conformance-expected-failures.yml`: only the scenarios that need the suite's own
//! fixture tools, resources or prompts may fail; any other failure, and any baseline entry that
//! starts passing, fails this test.
//!
//! The suite cannot send headers, so a loopback proxy (`conformance_proxy.mjs`) adds the bearer
//! token; the server accepts the proxy's origin with `--allow-origin`, as an operator would for
//! such a front. No browser is needed: no scenario that passes calls a tool.

mod support;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::Duration;

const TOKEN: &str = "conformance-token-5e1f0a9c7d3b";

#[test]
fn the_mcp_conformance_suite_passes_but_for_fixture_scenarios() {
    let node = support::node();
    let project = support::node_project();
    // The server's port, chosen before the proxy that forwards to it.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut proxy = Command::new(&node)
        .arg(project.join("conformance_proxy.mjs"))
        .args([port.to_string().as_str(), TOKEN])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("the proxy: {e}"));
    let mut line = String::new();
    let stdout = proxy.stdout.take().unwrap_or_else(|| panic!("the proxy's output"));
    BufReader::new(stdout).read_line(&mut line).unwrap_or_else(|e| panic!("{e}"));
    let proxy_port: u16 = line.trim().parse().unwrap_or_else(|e| panic!("the proxy's port {line:?}: {e}"));
    let mut server = Command::new(support::binary())
        .args(["--transport", "http", "--listen", &format!("127.0.0.1:{port}")])
        .args(["--allow-origin", &format!("http://localhost:{proxy_port}")])
        .env("GHOSTLIGHT_MCP_TOKEN", TOKEN)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("the server: {e}"));
    // Until the server listens.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "the server did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    let results = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let output = Command::new(&node)
        .arg(project.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"))
        .args(["server", "--url", &format!("http://localhost:{proxy_port}/mcp")])
        .arg("--expected-failures")
        .arg(project.join("conformance-expected-failures.yml"))
        .arg("--output-dir")
        .arg(results.path())
        .current_dir(&project)
        .output()
        .unwrap_or_else(|e| panic!("the conformance suite: {e}"));
    let _ = server.kill();
    let _ = server.wait();
    let _ = proxy.kill();
    let _ = proxy.wait();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary = stdout.rsplit("=== SUMMARY ===").next().unwrap_or_default();
    eprintln!("{summary}");
    assert!(
        output.status.success(),
        "the conformance suite failed beyond its baseline ({}):\n{summary}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    for passing in
        ["server-initialize", "logging-set-level", "ping", "tools-list", "dns-rebinding-protection"]
    {
        assert!(summary.contains(&format!("✓ {passing}")), "{passing} did not pass:\n{summary}");
    }
}
