//! `ghostlight session`: one browser and workspace kept between commands behind a user-only
//! Unix socket; `call` and `flow` use it, so tabs and handles carry from one command to the
//! next. Real headless Chromium against pages served on 127.0.0.1.

#![cfg(unix)]

// The loopback page server of the WebDriver suites (this file uses only part of it).
#[allow(dead_code)]
#[path = "../../ghostlight-webdriver/tests/support/server.rs"]
mod server;

use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A page whose button writes a greeting a moment after a click.
const GREET_PAGE: &str = r#"<!doctype html><title>Greeter</title><h1>Greeter</h1>
<label>Name <input id="name" value="Ada"></label>
<button onclick="setTimeout(() => { document.getElementById('out').textContent =
  'Hello, ' + document.getElementById('name').value + '!'; }, 300)">Greet</button>
<p id="out">Nobody greeted yet.</p>"#;

/// Every path of the fixture site on 127.0.0.1 serves [`GREET_PAGE`].
struct Fixture {
    _server: server::Site,
    url: String,
}

impl Fixture {
    fn start() -> Fixture {
        let served = server::Site::serve(|_| server::Reply::html(200, GREET_PAGE));
        let url = served.url("/greet").to_string();
        Fixture { _server: served, url }
    }
}

/// A private runtime directory (so no session of the person running the tests is touched)
/// and configuration directory.
struct Home {
    root: PathBuf,
}

impl Home {
    fn new(name: &str) -> Home {
        let root = std::env::temp_dir().join(format!("gl-session-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("run")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(root.join("run"), std::fs::Permissions::from_mode(0o700))
            .unwrap_or_else(|e| panic!("{e}"));
        Home { root }
    }

    fn runtime(&self) -> PathBuf {
        self.root.join("run")
    }

    fn dir(&self) -> PathBuf {
        self.runtime().join("ghostlight")
    }

    fn ghostlight(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ghostlight"))
            .args(args)
            .env("XDG_RUNTIME_DIR", self.runtime())
            .env("XDG_CONFIG_HOME", &self.root)
            .env_remove("GHOSTLIGHT_CONFIG")
            .output()
            .unwrap_or_else(|e| panic!("the binary runs: {e}"))
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Stops the named sessions however the test ends.
struct Stop<'h>(&'h Home, Vec<&'static str>);

impl Drop for Stop<'_> {
    fn drop(&mut self) {
        for name in &self.1 {
            let _ = self.0.ghostlight(&["session", "stop", "--session", name]);
        }
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn both(output: &Output) -> String {
    format!("{}{}", stdout(output), stderr(output))
}

fn have(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// The session's process id, from `session status`.
fn pid(home: &Home, name: &str) -> u32 {
    let status = stdout(&home.ghostlight(&["session", "status", "--session", name]));
    status
        .split("pid ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {status:?}"))
}

/// Whether process `pid` is gone (reaped or a zombie) within `within`.
fn ends(pid: u32, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    loop {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let zombie = state.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z'));
        if state.is_empty() || zombie || !Path::new("/proc").exists() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_session_keeps_its_browser_tabs_and_handles_between_commands() {
    if !(have("chromium") && have("chromedriver")) {
        assert!(std::env::var_os("CI").is_none(), "CI must install chromium and chromedriver");
        eprintln!("skipped: chromium and chromedriver are not installed");
        return;
    }
    let fixture = Fixture::start();
    let home = Home::new("keeps");
    let _stop = Stop(&home, vec!["default", "other"]);

    let started = home.ghostlight(&["session", "start"]);
    assert_eq!(started.status.code(), Some(0), "{}", both(&started));
    assert!(stdout(&started).starts_with("session \"default\": running, pid "), "{}", both(&started));
    // User-only: the directory 0700, the socket 0600.
    let dir = std::fs::metadata(home.dir()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dir.permissions().mode() & 0o777, 0o700);
    let socket = std::fs::symlink_metadata(home.dir().join("default.sock")).unwrap_or_else(|e| panic!("{e}"));
    assert!(socket.file_type().is_socket());
    assert_eq!(socket.permissions().mode() & 0o777, 0o600);
    let again = home.ghostlight(&["session", "start"]);
    assert_eq!(again.status.code(), Some(2), "{}", both(&again));
    assert!(stderr(&again).contains("already running"), "{}", both(&again));

    // One call opens a tab; the next reads it without naming it.
    let url = serde_json::json!({"url": fixture.url}).to_string();
    let opened = home.ghostlight(&["call", "--json", "browser_navigate", &url]);
    assert_eq!(opened.status.code(), Some(0), "{}", both(&opened));
    let opened: Value = serde_json::from_slice(&opened.stdout).unwrap_or_else(|e| panic!("{e}"));
    let tab = opened["facts"]["tab"].as_str().unwrap_or_else(|| panic!("{opened}")).to_owned();
    let read = home.ghostlight(&["call", "browser_read"]);
    assert_eq!(read.status.code(), Some(0), "{}", both(&read));
    assert!(stdout(&read).contains(&format!("  tab: {tab}\n")), "{}", both(&read));
    assert!(stdout(&read).contains("\n  | Greeter\n"), "{}", both(&read));

    // A target handle found by one command is acted on by the next.
    let found = home.ghostlight(&["call", "--json", "browser_find", r#"{"text":"Greet","scope":"control"}"#]);
    let found: Value = serde_json::from_slice(&found.stdout).unwrap_or_else(|e| panic!("{e}"));
    let target = found["facts"]["matches"][0][0].as_str().unwrap_or_else(|| panic!("{found}")).to_owned();
    let click = serde_json::json!({"tab": tab, "target": target}).to_string();
    let clicked = home.ghostlight(&["call", "browser_click", &click]);
    assert_eq!(clicked.status.code(), Some(0), "{}", both(&clicked));
    assert!(stdout(&clicked).contains("Clicked the \"Greet\" button"), "{}", both(&clicked));

    // A screenshot crosses the socket; `call` says where it was saved.
    let out = home.root.join("shots");
    let shot = home.ghostlight(&["call", "--out", &out.display().to_string(), "browser_screenshot"]);
    assert_eq!(shot.status.code(), Some(0), "{}", both(&shot));
    let saved = stdout(&shot)
        .lines()
        .find_map(|line| line.strip_prefix("Saved: ").map(str::to_owned))
        .unwrap_or_else(|| panic!("no screenshot saved:\n{}", both(&shot)));
    assert!(std::fs::read(&saved).is_ok_and(|png| png.starts_with(b"\x89PNG")), "{saved}");

    // A flow runs on the session's tab too; its screenshot crosses the socket.
    let flow = home.root.join("flow.json");
    let steps = serde_json::json!({"steps": [
        {"id": "greeted", "tool": "browser_wait", "arguments": {"condition": "text_present", "value": "Hello, Ada!", "timeout_ms": 10000}},
        {"id": "read", "tool": "browser_read", "arguments": {}},
        {"id": "shot", "tool": "browser_screenshot", "arguments": {}},
    ]});
    std::fs::write(&flow, steps.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let flowed = home.ghostlight(&["flow", "--out", &out.display().to_string(), &flow.display().to_string()]);
    let text = stdout(&flowed);
    assert_eq!(flowed.status.code(), Some(0), "{}", both(&flowed));
    assert!(text.contains("[2/3] read browser_read succeeded"), "{text}");
    assert!(text.contains("    | Hello, Ada!\n"), "{text}");
    let saved = text
        .lines()
        .find_map(|line| line.strip_prefix("Saved: ").and_then(|rest| rest.strip_suffix(" (step shot)")))
        .unwrap_or_else(|| panic!("no screenshot saved:\n{text}"));
    let png = std::fs::read(saved).unwrap_or_else(|e| panic!("{saved}: {e}"));
    assert!(png.starts_with(b"\x89PNG"), "{saved}");

    // A command that goes away mid-call cancels its call in the session.
    let mut waiting = Command::new(env!("CARGO_BIN_EXE_ghostlight"))
        .args(["call", "browser_wait", r#"{"condition":"duration","value":10000}"#])
        .env("XDG_RUNTIME_DIR", home.runtime())
        .env("XDG_CONFIG_HOME", &home.root)
        .env_remove("GHOSTLIGHT_CONFIG")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    std::thread::sleep(Duration::from_millis(1000));
    let _ = waiting.kill();
    let _ = waiting.wait();
    let log_file = home.dir().join("default.log");
    let deadline = Instant::now() + Duration::from_secs(5);
    let cancelled = loop {
        let log = std::fs::read_to_string(&log_file).unwrap_or_default();
        if log.contains("the client hung up") && log.contains("status=\"cancelled\"") {
            break true;
        }
        if Instant::now() > deadline {
            break false;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(cancelled, "{}", std::fs::read_to_string(&log_file).unwrap_or_default());

    // Without the session, a fresh browser has no tab to read.
    let alone = home.ghostlight(&["call", "--no-session", "browser_read"]);
    assert_eq!(alone.status.code(), Some(1), "{}", both(&alone));
    let status = home.ghostlight(&["session", "status"]);
    assert_eq!(status.status.code(), Some(0));
    assert!(stdout(&status).contains("calls: 7\n"), "{}", both(&status));

    // Several sessions by name, each with its own workspace.
    let other = home.ghostlight(&["session", "start", "--session", "other"]);
    assert_eq!(other.status.code(), Some(0), "{}", both(&other));
    let tabs = home.ghostlight(&["call", "--session", "other", "browser_tabs", r#"{"action":"list"}"#]);
    assert_eq!(tabs.status.code(), Some(0), "{}", both(&tabs));
    assert!(stdout(&tabs).contains("No controlled tabs"), "{}", both(&tabs));
    let nope = home.ghostlight(&["call", "--session", "nope", "browser_tabs", r#"{"action":"list"}"#]);
    assert_eq!(nope.status.code(), Some(2));
    assert!(stderr(&nope).contains("no session \"nope\" is running"), "{}", both(&nope));

    // Stopping closes the browser and the socket; the process ends.
    for name in ["other", "default"] {
        let pid = pid(&home, name);
        let stopped = home.ghostlight(&["session", "stop", "--session", name]);
        assert_eq!(stopped.status.code(), Some(0), "{}", both(&stopped));
        assert!(!home.dir().join(format!("{name}.sock")).exists());
        assert!(ends(pid, Duration::from_secs(5)), "session {name} (pid {pid}) still runs");
    }
    let gone = home.ghostlight(&["session", "status"]);
    assert_eq!(gone.status.code(), Some(1));
    assert!(stdout(&gone).contains("not running"), "{}", both(&gone));
    // The session's log names tools and statuses, never what was read or typed.
    let log = std::fs::read_to_string(home.dir().join("default.log")).unwrap_or_default();
    assert!(log.contains("session call") && log.contains("browser_read"), "{log}");
    assert!(!log.contains("Hello, Ada") && !log.contains("Greeter"), "{log}");
}

/// The inodes of TCP sockets listening on this machine (`/proc/net/tcp{,6}`, state `0A`).
fn listening_tcp_inodes() -> Vec<String> {
    let mut inodes = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.get(3) == Some(&"0A")
                && let Some(inode) = fields.get(9)
            {
                inodes.push((*inode).to_owned());
            }
        }
    }
    inodes
}

#[test]
fn a_session_listens_only_on_a_private_unix_socket() {
    let home = Home::new("private");
    let _stop = Stop(&home, vec!["default"]);
    // A directory others may enter is refused, and nothing is started.
    std::fs::create_dir_all(home.dir()).unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(home.dir(), std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
    let refused = home.ghostlight(&["session", "start"]);
    assert_eq!(refused.status.code(), Some(2), "{}", both(&refused));
    assert!(stderr(&refused).contains("nobody else may enter (mode 0700)"), "{}", both(&refused));
    assert!(!home.dir().join("default.sock").exists());
    // So is a call that would use a session there.
    let call = home.ghostlight(&["call", "browser_tabs", r#"{"action":"list"}"#]);
    assert_eq!(call.status.code(), Some(2), "{}", both(&call));

    std::fs::set_permissions(home.dir(), std::fs::Permissions::from_mode(0o700))
        .unwrap_or_else(|e| panic!("{e}"));
    let stopped = home.ghostlight(&["session", "stop"]);
    assert_eq!(stopped.status.code(), Some(1), "{}", both(&stopped));
    let started = home.ghostlight(&["session", "start"]);
    assert_eq!(started.status.code(), Some(0), "{}", both(&started));
    let pid = pid(&home, "default");
    // No socket of the session's own process listens on TCP (the browser is not started).
    if Path::new("/proc/net/tcp").exists() {
        let listening = listening_tcp_inodes();
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).unwrap_or_else(|e| panic!("{e}"));
        let mut sockets = 0;
        for fd in fds.flatten() {
            let target = std::fs::read_link(fd.path()).map(|t| t.display().to_string()).unwrap_or_default();
            if let Some(inode) = target.strip_prefix("socket:[").and_then(|rest| rest.strip_suffix(']')) {
                sockets += 1;
                assert!(!listening.iter().any(|l| l == inode), "the session listens on TCP (inode {inode})");
            }
        }
        assert!(sockets >= 1, "the session holds no socket at all");
    }
    let stopped = home.ghostlight(&["session", "stop"]);
    assert_eq!(stopped.status.code(), Some(0), "{}", both(&stopped));
    assert!(ends(pid, Duration::from_secs(5)), "the session (pid {pid}) still runs");
}

#[test]
fn session_names_are_checked() {
    let home = Home::new("names");
    for bad in ["../escape", "a b", ""] {
        let output = home.ghostlight(&["session", "start", "--session", bad]);
        assert_eq!(output.status.code(), Some(2), "{bad}: {}", both(&output));
        assert!(stderr(&output).contains("a session name is 1 to 32"), "{}", both(&output));
    }
    let both_flags = home.ghostlight(&["call", "--session", "x", "--no-session", "browser_tabs"]);
    assert_eq!(both_flags.status.code(), Some(2));
}

/// A command that gives a configuration file or browser flags the running session was not
/// started with is refused (exit 2, naming them), never run with the session's own; the same
/// flags, or none, use the session.
#[test]
fn a_command_whose_flags_differ_from_the_sessions_is_refused() {
    let home = Home::new("flags");
    let narrow = home.root.join("narrow.toml");
    std::fs::write(&narrow, "[hosts]\nallow = [\"example.com\"]\n").unwrap_or_else(|e| panic!("{e}"));
    let wide = home.root.join("wide.toml");
    std::fs::write(&wide, "[hosts]\nallow = [\"*\"]\n").unwrap_or_else(|e| panic!("{e}"));
    let wide_arg = wide.to_string_lossy().into_owned();
    let narrow_arg = narrow.to_string_lossy().into_owned();
    let started = home.ghostlight(&["session", "start", "--config", &wide_arg]);
    assert_eq!(started.status.code(), Some(0), "{}", both(&started));
    let _stop = Stop(&home, vec!["default"]);
    let refused = home.ghostlight(&["call", "policy_explain", "--config", &narrow_arg]);
    assert_eq!(refused.status.code(), Some(2), "{}", both(&refused));
    assert!(
        stderr(&refused).contains("--config") && stderr(&refused).contains("--no-session"),
        "{}",
        both(&refused)
    );
    let browser = home.ghostlight(&["call", "policy_explain", "--browser", "firefox", "--config", &wide_arg]);
    assert_eq!(browser.status.code(), Some(2), "{}", both(&browser));
    assert!(stderr(&browser).contains("--browser"), "{}", both(&browser));
    for same in [vec!["call", "policy_explain", "--config", &wide_arg], vec!["call", "policy_explain"]] {
        let output = home.ghostlight(&same);
        assert_eq!(output.status.code(), Some(0), "{same:?}: {}", both(&output));
    }
}
