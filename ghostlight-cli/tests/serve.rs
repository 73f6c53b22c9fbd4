//! `scripts/serve.sh`, the README's run command: it builds the `ghostlight` command exactly as
//! the README's build line does (so the two share artifacts), shows cargo's progress on
//! standard error, keeps standard output for MCP messages, and serves at once when the binary
//! is current.
//!
//! `cargo` here is a stand-in on `PATH` that records its arguments, writes a progress line on
//! standard error and answers like a current build (JSON messages naming this test's
//! `ghostlight` binary): a real release build would take minutes. The stand-in browser and
//! driver keep the script's installer out of the way; listing tools never starts a browser.

#![cfg(unix)]

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use scratch::Scratch;
use serde_json::Value;

#[path = "support/scratch.rs"]
mod scratch;

/// The README's build of the `ghostlight` command.
const README_BUILD: &str = "cargo build --release -p ghostlight-cli --all-features";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A directory of stand-ins: `cargo`, `chromium` and `chromedriver` (the scratch directory
/// that holds them, its `bin`, and the file the stand-in `cargo` records its arguments in).
fn stand_ins(name: &str) -> (Scratch, PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = Scratch::new(&format!("serve-test-{name}"));
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("{e}"));
    let record = dir.join("cargo-args");
    let ghostlight = env!("CARGO_BIN_EXE_ghostlight");
    let cargo = format!(
        "#!/bin/sh\n\
         echo \"$*\" >> '{record}'\n\
         echo '   Compiling ghostlight-cli v0.1.0 (stand-in)' >&2\n\
         echo '{{\"reason\":\"compiler-artifact\",\"target\":{{\"name\":\"ghostlight\"}},\"executable\":\"{ghostlight}\",\"fresh\":true}}'\n\
         echo '{{\"reason\":\"build-finished\",\"success\":true}}'\n\
         echo '    Finished `release` profile [optimized] target(s) in 0.01s' >&2\n",
        record = record.display(),
    );
    for (program, text) in [
        ("cargo", cargo.as_str()),
        ("chromium", "#!/bin/sh\necho 'Chromium 1.0 (stand-in)'\n"),
        ("chromedriver", "#!/bin/sh\necho 'ChromeDriver 1.0 (stand-in)'\n"),
    ] {
        let path = bin.join(program);
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    (dir, bin, record)
}

fn path_with(bin: &Path) -> String {
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default())
}

#[test]
fn serve_builds_like_the_readme_and_serves_at_once_when_current() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap_or_else(|e| panic!("{e}"));
    assert!(readme.contains(README_BUILD), "the README no longer shows `{README_BUILD}`");

    let (_dir, bin, record) = stand_ins("current");
    let config = bin.with_file_name("config");
    let started = Instant::now();
    let mut child = Command::new("bash")
        .arg(workspace().join("scripts").join("serve.sh"))
        .env("PATH", path_with(&bin))
        .env("XDG_CONFIG_HOME", &config)
        .env_remove("GHOSTLIGHT_CONFIG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("bash runs: {e}"));
    let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("a piped stdin"));
    let stdout = child.stdout.take().unwrap_or_else(|| panic!("a piped stdout"));
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"serve-test","version":"1"}}}}}}"#
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut lines = BufReader::new(stdout).lines();
    let first = lines.next().and_then(Result::ok).unwrap_or_else(|| panic!("no answer to initialize"));
    let answered = started.elapsed();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#)
        .unwrap_or_else(|e| panic!("{e}"));
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#).unwrap_or_else(|e| panic!("{e}"));
    let second = lines.next().and_then(Result::ok).unwrap_or_else(|| panic!("no answer to tools/list"));
    drop(stdin);
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap_or_else(|e| panic!("{e}"));
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        std::io::Read::read_to_string(&mut pipe, &mut stderr).unwrap_or_else(|e| panic!("{e}"));
    }

    // Standard output: MCP messages and nothing else.
    for line in std::iter::once(&first).chain(std::iter::once(&second)).chain(&rest) {
        let message: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }
    let initialize: Value = serde_json::from_str(&first).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(initialize["id"], 1, "{first}");
    let tools: Value = serde_json::from_str(&second).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tools["result"]["tools"].as_array().map(Vec::len), Some(24), "{second}");
    assert_eq!(status.code(), Some(0), "{stderr}");

    // The README's build, with cargo's progress on standard error.
    let args = std::fs::read_to_string(&record).unwrap_or_else(|e| panic!("cargo never ran: {e}"));
    assert_eq!(args.lines().count(), 1, "{args}");
    assert!(
        args.starts_with(README_BUILD.trim_start_matches("cargo ")),
        "serve.sh built with `cargo {args}`, the README with `{README_BUILD}`"
    );
    assert!(!args.split_whitespace().any(|a| a == "-q" || a == "--quiet"), "{args}");
    assert!(stderr.contains("Compiling ghostlight-cli v0.1.0 (stand-in)"), "no cargo progress:\n{stderr}");
    assert!(stderr.contains("serve.sh: serving MCP on stdio"), "{stderr}");

    // A current binary serves at once: the script adds little to the binary's own start.
    assert!(answered < Duration::from_secs(1), "initialize answered after {answered:?}");
}

#[test]
fn serve_passes_its_arguments_to_ghostlight_mcp_and_stops_on_a_failed_build() {
    let (_dir, bin, _) = stand_ins("arguments");
    let output = Command::new("bash")
        .arg(workspace().join("scripts").join("serve.sh"))
        .arg("--window")
        .arg("banana")
        .env("PATH", path_with(&bin))
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("bash runs: {e}"));
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("banana"), "{stderr}");

    // A failed build stops the script with nothing on standard output.
    std::fs::write(
        bin.join("cargo"),
        "#!/bin/sh\necho 'error: could not compile (stand-in)' >&2\nexit 101\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let output = Command::new("bash")
        .arg(workspace().join("scripts").join("serve.sh"))
        .env("PATH", path_with(&bin))
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("bash runs: {e}"));
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("could not compile (stand-in)") && stderr.contains("the build failed"),
        "{stderr}"
    );
}
