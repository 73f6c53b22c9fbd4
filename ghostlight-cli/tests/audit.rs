//! Tamper-evident audit files end to end: the real `ghostlight` binary drives headless Chromium
//! against pages served on 127.0.0.1 with `[audit] destination = "file"` (three runs append to
//! one file), then `ghostlight audit verify` and `audit show` read it, intact and after each of
//! delete, swap, edit, a cut inside a line and a forged anchor (exit 1, the line named). A
//! `ghostlight session` and one-shot calls of other processes, writing one file at the same
//! time, keep one chain.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;

use support::fixture::Fixture;
use support::scratch::Scratch;

/// A private directory for one test.
fn scratch(name: &str) -> Scratch {
    Scratch::new(&format!("audit-test-{name}"))
}

/// The binary with `args`, its configuration and runtime directories in `dir` (so that no
/// session of the person running the tests is used; the runtime directory `dir/run`, 0700).
fn ghostlight(dir: &Path, args: &[&str]) -> Output {
    use std::os::unix::fs::PermissionsExt as _;
    let runtime = dir.join("run");
    std::fs::create_dir_all(&runtime).unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700))
        .unwrap_or_else(|e| panic!("{e}"));
    Command::new(env!("CARGO_BIN_EXE_ghostlight"))
        .args(args)
        .env("XDG_CONFIG_HOME", dir)
        .env("XDG_RUNTIME_DIR", runtime)
        .env_remove("GHOSTLIGHT_CONFIG")
        .output()
        .unwrap_or_else(|e| panic!("the binary runs: {e}"))
}

/// A configuration file in `dir` auditing to `dir/audit.jsonl`: (the audit file, the
/// configuration file).
fn configure(dir: &Path) -> (PathBuf, String) {
    let audit = dir.join("audit.jsonl");
    let config = dir.join("config.toml");
    let quoted = serde_json::to_string(&audit.display().to_string()).unwrap_or_default();
    std::fs::write(&config, format!("[audit]\ndestination = \"file\"\npath = {quoted}\n"))
        .unwrap_or_else(|e| panic!("{e}"));
    (audit, config.display().to_string())
}

/// Stops the test's session however the test ends.
struct Stop<'d>(&'d Path);

impl Drop for Stop<'_> {
    fn drop(&mut self) {
        let _ = ghostlight(self.0, &["session", "stop", "--session", "audit"]);
    }
}

fn text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

fn have(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// `ghostlight audit verify` on a copy holding `contents`.
fn verify_copy(dir: &Path, name: &str, contents: &str) -> Output {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap_or_else(|e| panic!("{e}"));
    ghostlight(dir, &["audit", "verify", &path.display().to_string()])
}

fn joined(lines: &[&str]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

#[test]
fn a_real_session_writes_an_audit_file_that_verifies_and_tampering_is_caught() {
    if !(have("chromium") && have("chromedriver")) {
        assert!(std::env::var_os("CI").is_none(), "CI must install chromium and chromedriver");
        eprintln!("skipped: chromium and chromedriver are not installed");
        return;
    }
    const SCRIPT: &str = "document.title + 'audit-secret-5f1d'";
    let fixture = Fixture::start();
    let dir = scratch("runs");
    let (audit, config) = configure(&dir);

    // Run 1: one call. Run 2: a flow (its record and one per step). Run 3: a script call.
    let navigate = serde_json::json!({"url": fixture.url("/form")}).to_string();
    let output = ghostlight(&dir, &["call", "--config", &config, "browser_navigate", &navigate]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let flow = dir.join("flow.json");
    let tab = serde_json::json!({"flow_ref": {"step": "open", "pointer": "/facts/tab"}});
    let steps = serde_json::json!({"steps": [
        {"id": "open", "tool": "browser_navigate", "arguments": {"url": fixture.url("/hello")}},
        {"id": "read", "tool": "browser_read", "arguments": {"tab": tab}},
    ]});
    std::fs::write(&flow, steps.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let output = ghostlight(&dir, &["flow", "--config", &config, &flow.display().to_string()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let script = serde_json::json!({"script": SCRIPT}).to_string();
    let output = ghostlight(&dir, &["call", "--config", &config, "browser_execute", &script]);
    assert!(matches!(output.status.code(), Some(0 | 1)), "{}", text(&output));

    let file = audit.display().to_string();
    let contents = std::fs::read_to_string(&audit).unwrap_or_else(|e| panic!("{e}"));
    for secret in [SCRIPT, "audit-secret", "/form", "/hello", &fixture.base] {
        assert!(!contents.contains(secret), "{secret:?} reached the audit:\n{contents}");
    }
    let lines: Vec<&str> = contents.lines().collect();
    assert!(lines.len() >= 8, "3 anchors and at least 5 records:\n{contents}");

    let verified = ghostlight(&dir, &["audit", "verify", &file]);
    let summary = text(&verified);
    assert_eq!(verified.status.code(), Some(0), "{summary}");
    let records = lines.len() - 3;
    assert!(summary.contains(&format!("{records} records from 3 runs, chain intact; anchor ")), "{summary}");
    assert!(summary.contains("last hash ") && summary.contains("copy kept elsewhere"), "{summary}");

    let shown = ghostlight(&dir, &["audit", "show", &file]);
    let table = text(&shown);
    assert_eq!(shown.status.code(), Some(0), "{table}");
    for word in [
        "TOOL",
        "browser_navigate",
        "browser_flow",
        "  browser_read (step 1)",
        "browser_execute",
        "anchor",
        "127.0.0.1",
        "chain intact",
    ] {
        assert!(table.contains(word), "{word} missing from audit show:\n{table}");
    }

    // Tampered copies: exit 1, the first broken line named.
    let broken = |name: &str, contents: &str, expected: &str| {
        let output = verify_copy(&dir, name, contents);
        let said = text(&output);
        assert_eq!(output.status.code(), Some(1), "{name}: {said}");
        assert!(said.contains(expected), "{name}: expected {expected:?} in {said}");
    };
    let mut deleted = lines.clone();
    deleted.remove(2);
    broken(
        "deleted",
        &joined(&deleted),
        "chain broken at line 3 (seq 3): sequence gap: expected seq 2, found 3",
    );
    let mut swapped = lines.clone();
    swapped.swap(1, 2);
    broken(
        "swapped",
        &joined(&swapped),
        "chain broken at line 2 (seq 2): sequence gap: expected seq 1, found 2",
    );
    let mut edited: Vec<String> = lines.iter().map(|line| (*line).to_owned()).collect();
    edited[1] = edited[1].replace(r#""status":"succeeded""#, r#""status":"failed""#);
    assert_ne!(edited[1], lines[1]);
    let edited: Vec<&str> = edited.iter().map(String::as_str).collect();
    broken(
        "edited",
        &joined(&edited),
        "chain broken at line 3 (seq 2): hash mismatch: prev is not the hash of line 2 (line 2 was edited",
    );
    let cut = joined(&lines[..3]).len() + lines[3].len() / 2;
    broken("cut", &contents[..cut], "chain broken at line 4: bad JSON");
    // The second run's anchor, stripped of the link to the first run.
    let anchor = lines.iter().rposition(|line| line.contains("audit_anchor")).unwrap_or_default();
    let value: serde_json::Value = serde_json::from_str(lines[anchor]).unwrap_or_default();
    let mut forged = value.as_object().cloned().unwrap_or_default();
    forged.remove("prev");
    let forged = serde_json::to_string(&forged).unwrap_or_default();
    let mut reanchored = lines.clone();
    reanchored[anchor] = &forged;
    let expected = format!(
        "chain broken at line {} (seq {anchor}): an anchor that does not chain to line {anchor}",
        anchor + 1
    );
    broken("reanchored", &joined(&reanchored), &expected);

    let missing = ghostlight(&dir, &["audit", "verify", &dir.join("missing.jsonl").display().to_string()]);
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing));
    let directory = ghostlight(&dir, &["audit", "show", &dir.display().to_string()]);
    assert_eq!(directory.status.code(), Some(2), "{}", text(&directory));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_session_and_other_processes_writing_one_file_keep_one_chain() {
    if !(have("chromium") && have("chromedriver")) {
        assert!(std::env::var_os("CI").is_none(), "CI must install chromium and chromedriver");
        eprintln!("skipped: chromium and chromedriver are not installed");
        return;
    }
    let fixture = Fixture::start();
    let dir = scratch("session");
    let (audit, config) = configure(&dir);
    let started = ghostlight(&dir, &["session", "start", "--session", "audit", "--config", &config]);
    let _stop = Stop(&dir);
    assert_eq!(started.status.code(), Some(0), "{}", text(&started));
    let navigate = serde_json::json!({"url": fixture.url("/hello")}).to_string();
    let read = serde_json::json!({}).to_string();
    // The session's own writes (its calls) and one-shot processes' writes, at the same time.
    std::thread::scope(|scope| {
        scope.spawn(|| {
            for (tool, arguments) in [("browser_navigate", &navigate), ("browser_read", &read)].repeat(3) {
                let output = ghostlight(&dir, &["call", "--session", "audit", tool, arguments]);
                assert_eq!(output.status.code(), Some(0), "{}", text(&output));
            }
        });
        scope.spawn(|| {
            for _ in 0..2 {
                let output = ghostlight(
                    &dir,
                    &["call", "--no-session", "--config", &config, "browser_navigate", &navigate],
                );
                assert_eq!(output.status.code(), Some(0), "{}", text(&output));
            }
        });
    });
    let stopped = ghostlight(&dir, &["session", "stop", "--session", "audit"]);
    assert_eq!(stopped.status.code(), Some(0), "{}", text(&stopped));
    let verified = ghostlight(&dir, &["audit", "verify", &audit.display().to_string()]);
    let summary = text(&verified);
    assert_eq!(verified.status.code(), Some(0), "{summary}");
    // Six session calls and two one-shot calls; the session's run and the two others.
    assert!(summary.contains("8 records from 3 runs, chain intact"), "{summary}");
    let _ = std::fs::remove_dir_all(&dir);
}
