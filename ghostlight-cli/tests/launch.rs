//! Launch options on the real binary: every command that starts a browser takes the same
//! flags, `config init` and the README document every key, a proxy password is never
//! repeated, and against headless Chromium: a `--profile` keeps a cookie across two runs and
//! is refused to a second server while a session holds it, a `--storage-state` file saved by
//! one run (`--save-storage-state`) is loaded by the next, and a session started with
//! `--diagnostics on_start --proxy … --viewport …` answers the load's errors in its first
//! `browser_diagnose` and sends requests through the proxy.

#![cfg(unix)]

// The loopback page server of the WebDriver suites (this file uses only part of it).
#[allow(dead_code)]
#[path = "../../ghostlight-webdriver/tests/support/server.rs"]
mod server;

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// The `[browser]` keys this work added, with the flag of each.
const LAUNCH_OPTIONS: [(&str, &str); 11] = [
    ("browser_path", "--browser-path"),
    ("driver_path", "--driver-path"),
    ("profile", "--profile"),
    ("storage_state", "--storage-state"),
    ("save_storage_state", "--save-storage-state"),
    ("proxy", "--proxy"),
    ("proxy_bypass", "--proxy-bypass"),
    ("viewport", "--viewport"),
    ("ignore_https_errors", "--ignore-https-errors"),
    ("args", "--browser-arg"),
    ("diagnostics", "--diagnostics"),
];

/// A private home: configuration and runtime folders of its own (no session of the person
/// running the tests is touched).
struct Home {
    root: PathBuf,
}

impl Home {
    fn new(name: &str) -> Home {
        let root = std::env::temp_dir().join(format!("gl-launch-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("run")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(root.join("run"), std::fs::Permissions::from_mode(0o700))
            .unwrap_or_else(|e| panic!("{e}"));
        Home { root }
    }

    fn ghostlight(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ghostlight"))
            .args(args)
            .env("XDG_RUNTIME_DIR", self.root.join("run"))
            .env("XDG_CONFIG_HOME", &self.root)
            .env_remove("GHOSTLIGHT_CONFIG")
            .output()
            .unwrap_or_else(|e| panic!("the binary runs: {e}"))
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = self.ghostlight(&["session", "stop"]);
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn both(output: &Output) -> String {
    format!("{}{}", stdout(output), String::from_utf8_lossy(&output.stderr))
}

fn have(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Chromium and chromedriver are installed (CI must have them).
fn chromium() -> bool {
    if have("chromium") && have("chromedriver") {
        return true;
    }
    assert!(std::env::var_os("CI").is_none(), "CI must install chromium and chromedriver");
    eprintln!("skipped: chromium and chromedriver are not installed");
    false
}

#[test]
fn every_browser_command_takes_the_launch_flags_and_every_key_is_documented() {
    let home = Home::new("flags");
    for command in [&["mcp"][..], &["call"], &["flow"], &["session", "start"], &["doctor"]] {
        let help = stdout(&home.ghostlight(&[command, &["--help"]].concat()));
        for (_, flag) in LAUNCH_OPTIONS {
            assert!(help.contains(flag), "{command:?} --help lacks {flag}:\n{help}");
        }
    }
    // `config init` writes each key, commented out, and the file parses.
    let file = home.root.join("init.toml");
    let init = home.ghostlight(&["config", "init", "--config", &file.display().to_string()]);
    assert_eq!(init.status.code(), Some(0), "{}", both(&init));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
        .unwrap_or_else(|e| panic!("{e}"));
    for (key, flag) in LAUNCH_OPTIONS {
        assert!(text.contains(&format!("\n# {key} = ")), "config init lacks {key}:\n{text}");
        assert!(readme.contains(&format!("| `[browser] {key}` |")), "the README table lacks {key}");
        assert!(readme.contains(&format!("`{flag}")), "the README lacks {flag}");
    }
    let check = home.ghostlight(&["config", "check", &file.display().to_string()]);
    assert_eq!(check.status.code(), Some(0), "{}", both(&check));
}

#[test]
fn a_proxy_password_is_refused_and_never_repeated() {
    let home = Home::new("proxy-secret");
    let call = home.ghostlight(&["call", "--proxy", "http://ada:hunter2@proxy.example:3128", "browser_tabs"]);
    assert_eq!(call.status.code(), Some(2), "{}", both(&call));
    assert!(both(&call).contains("credentials") && !both(&call).contains("hunter2"), "{}", both(&call));
    let file = home.root.join("secret.toml");
    std::fs::write(&file, "[browser]\nproxy = \"socks5://ada:hunter2@proxy.example\"\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let check = home.ghostlight(&["config", "check", &file.display().to_string()]);
    assert_eq!(check.status.code(), Some(2), "{}", both(&check));
    assert!(both(&check).contains("secret.toml:2") && !both(&check).contains("hunter2"), "{}", both(&check));
    // Engine limits are checked before a browser starts.
    let firefox = home.ghostlight(&[
        "call",
        "--browser",
        "firefox",
        "--proxy",
        "https://proxy.example",
        "browser_tabs",
    ]);
    assert_eq!(firefox.status.code(), Some(2), "{}", both(&firefox));
    assert!(both(&firefox).contains("needs Chromium"), "{}", both(&firefox));
    let reserved = home.ghostlight(&["call", "--browser-arg=--user-data-dir=/tmp/x", "browser_tabs"]);
    assert_eq!(reserved.status.code(), Some(2), "{}", both(&reserved));
    assert!(both(&reserved).contains("use the profile setting"), "{}", both(&reserved));
}

/// A site on 127.0.0.1: `/set` stores a cookie for an hour, `/get` puts the cookies in its
/// title, `/load-problems` logs an error while loading and loads a missing image (404).
struct Site {
    _server: server::Site,
    base: String,
}

impl Site {
    fn start() -> Site {
        let served = server::Site::serve(|ask| {
            let (status, body) = match ask.path {
                "/set" => (
                    200,
                    "<title>Set</title><script>document.cookie='gl=kept; max-age=3600; path=/'</script>",
                ),
                "/get" => {
                    (200, "<title>Get</title><script>document.title = 'cookie ' + document.cookie</script>")
                }
                "/load-problems" => (
                    200,
                    "<title>Problems</title><script>console.error('gl-load-error')</script><img src=/missing.png>",
                ),
                "/missing.png" | "/favicon.ico" => (404, ""),
                _ => (200, "<title>Plain</title><p>plain</p>"),
            };
            server::Reply::html(status, body)
        });
        let base = served.url("/").as_str().trim_end_matches('/').to_owned();
        Site { _server: served, base }
    }

    fn navigate(&self, path: &str) -> String {
        json!({"url": format!("{}{path}", self.base)}).to_string()
    }
}

/// The envelope of a `call --json`.
fn envelope(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", both(output)))
}

#[test]
fn a_profile_keeps_a_cookie_across_two_runs_and_is_locked_while_in_use() {
    if !chromium() {
        return;
    }
    let site = Site::start();
    let home = Home::new("profile");
    let profile = home.root.join("profile");
    let profile_flag = profile.display().to_string();
    let own = |args: &[&str]| {
        home.ghostlight(&[&["call", "--no-session", "--json", "--profile", &profile_flag], args].concat())
    };

    let set = own(&["browser_navigate", &site.navigate("/set")]);
    assert_eq!(set.status.code(), Some(0), "{}", both(&set));
    let get = own(&["browser_navigate", &site.navigate("/get")]);
    assert_eq!(get.status.code(), Some(0), "{}", both(&get));
    assert_eq!(
        envelope(&get)["facts"]["title"],
        json!("cookie gl=kept"),
        "the second run sees the first run's cookie"
    );

    // A session holds the profile once its browser runs; another server is refused.
    let started = home.ghostlight(&["session", "start", "--profile", &profile_flag]);
    assert_eq!(started.status.code(), Some(0), "{}", both(&started));
    let through_session = home.ghostlight(&["call", "--json", "browser_navigate", &site.navigate("/get")]);
    assert_eq!(envelope(&through_session)["facts"]["title"], json!("cookie gl=kept"));
    let refused = own(&["browser_tabs"]);
    assert_eq!(refused.status.code(), Some(2), "{}", both(&refused));
    let message = both(&refused);
    assert!(
        message.contains(&profile_flag) && message.contains("in use by another Ghostlight server"),
        "{message}"
    );
    let stopped = home.ghostlight(&["session", "stop"]);
    assert_eq!(stopped.status.code(), Some(0), "{}", both(&stopped));
    assert!(profile.join("ghostlight.lock").is_file(), "the profile is never deleted");
    let again = own(&["browser_navigate", &site.navigate("/get")]);
    assert_eq!(again.status.code(), Some(0), "free again once the session stopped: {}", both(&again));
}

#[test]
fn a_storage_state_file_carries_cookies_from_one_run_to_the_next() {
    if !chromium() {
        return;
    }
    let site = Site::start();
    let home = Home::new("storage-state");
    let state = home.root.join("state.json");
    let state_flag = state.display().to_string();
    let run = |extra: &[&str], args: &[&str]| {
        home.ghostlight(
            &[&["call", "--no-session", "--json", "--storage-state", &state_flag], extra, args].concat(),
        )
    };

    // Without --save-storage-state a missing file is refused before any browser work.
    let missing = run(&[], &["browser_tabs"]);
    assert_eq!(missing.status.code(), Some(2), "{}", both(&missing));
    assert!(both(&missing).contains("does not exist"), "{}", both(&missing));

    let set = run(&["--save-storage-state"], &["browser_navigate", &site.navigate("/set")]);
    assert_eq!(set.status.code(), Some(0), "{}", both(&set));
    let saved: Value = serde_json::from_slice(&std::fs::read(&state).unwrap_or_else(|e| panic!("{e}")))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        saved["cookies"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["name"] == "gl" && c["value"] == "kept")),
        "the cookie was saved at exit: {saved}"
    );
    let mode = std::fs::metadata(&state).map(|m| m.permissions().mode() & 0o777).unwrap_or_default();
    assert_eq!(mode, 0o600, "the state file is private");

    let get = run(&[], &["browser_navigate", &site.navigate("/get")]);
    assert_eq!(get.status.code(), Some(0), "{}", both(&get));
    assert_eq!(envelope(&get)["facts"]["title"], json!("cookie gl=kept"), "the next run loads it");

    let with_profile = run(&["--profile", &home.root.join("p").display().to_string()], &["browser_tabs"]);
    assert_eq!(with_profile.status.code(), Some(2), "{}", both(&with_profile));
    assert!(both(&with_profile).contains("--profile"), "{}", both(&with_profile));
}

/// A proxy on 127.0.0.1 that answers every request itself and records the request lines.
fn recording_proxy() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let port = listener.local_addr().map(|a| a.port()).unwrap_or_else(|e| panic!("{e}"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let log = log.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(&stream);
                let mut request = String::new();
                let _ = reader.read_line(&mut request);
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                log.lock().unwrap_or_else(|e| e.into_inner()).push(request.trim().to_owned());
                let body = "<title>Proxied</title><p>via the proxy</p>";
                let mut stream = &stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    (port, seen)
}

#[test]
fn a_session_started_with_launch_flags_tracks_from_the_start_through_the_proxy() {
    if !chromium() {
        return;
    }
    let site = Site::start();
    let (port, seen) = recording_proxy();
    let home = Home::new("session-flags");
    let proxy = format!("http://127.0.0.1:{port}");
    let started = home.ghostlight(&[
        "session",
        "start",
        "--diagnostics",
        "on_start",
        "--proxy",
        &proxy,
        "--proxy-bypass",
        "bypassed.test",
        "--viewport",
        "1000x700",
    ]);
    assert_eq!(started.status.code(), Some(0), "{}", both(&started));

    let opened = home.ghostlight(&["call", "--json", "browser_navigate", &site.navigate("/load-problems")]);
    assert_eq!(opened.status.code(), Some(0), "{}", both(&opened));
    let first = home.ghostlight(&["call", "--json", "browser_diagnose"]);
    let facts = &envelope(&first)["facts"];
    assert_eq!(facts["tracking_started"], json!(false), "{facts:#}");
    let entries = facts["entries"].as_array().cloned().unwrap_or_default();
    assert!(
        entries.iter().any(|e| e["text"].as_str().is_some_and(|t| t.contains("gl-load-error"))),
        "the load's console error: {facts:#}"
    );
    assert!(
        entries
            .iter()
            .any(|e| e["status"] == json!(404)
                && e["url"].as_str().is_some_and(|u| u.ends_with("/missing.png"))),
        "the load's 404: {facts:#}"
    );

    // The viewport: a screenshot of the view is 1000×700 CSS pixels (device scale 1 headless).
    let shots = home.root.join("shots").display().to_string();
    let shot = home.ghostlight(&["call", "--json", "--out", &shots, "browser_screenshot"]);
    let shot = envelope(&shot);
    assert_eq!((&shot["facts"]["width"], &shot["facts"]["height"]), (&json!(1000), &json!(700)), "{shot:#}");

    let proxied =
        home.ghostlight(&["call", "--json", "browser_navigate", r#"{"url":"http://through.test/"}"#]);
    assert_eq!(envelope(&proxied)["facts"]["title"], json!("Proxied"), "{}", both(&proxied));
    let lines = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
    assert!(lines.iter().any(|l| l == "GET http://through.test/ HTTP/1.1"), "{lines:?}");
    assert!(!lines.iter().any(|l| l.contains("127.0.0.1")), "loopback goes direct: {lines:?}");
}
