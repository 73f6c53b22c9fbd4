//! The `ghostlight` command end to end: help, exit codes, exports, configuration, doctor, and
//! `call` / `flow` against headless Chromium on a fixture page.

// The loopback page server of the WebDriver suites (this file uses only part of it).
#[path = "support/scratch.rs"]
mod scratch;
#[allow(dead_code)]
#[path = "../../ghostlight-webdriver/tests/support/server.rs"]
mod server;

use std::path::Path;
use std::process::{Command, Output};

use scratch::Scratch;
use serde_json::Value;

/// The binary with a private, empty configuration directory, and a runtime directory of its
/// own (so that no `ghostlight session` of the person running the tests is used), both
/// removed after it ran.
fn ghostlight(home: &str, args: &[&str]) -> Output {
    ghostlight_in(&scratch(home), args)
}

/// The binary with `dir` as its configuration and runtime directory.
fn ghostlight_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ghostlight"))
        .args(args)
        .env("XDG_CONFIG_HOME", dir)
        .env("XDG_RUNTIME_DIR", dir)
        .env_remove("GHOSTLIGHT_CONFIG")
        .output()
        .unwrap_or_else(|e| panic!("the binary runs: {e}"))
}

/// A private directory for one test, removed when it is dropped.
fn scratch(name: &str) -> Scratch {
    Scratch::new(&format!("cli-test-{name}"))
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn help_teaches_every_command() {
    let help = stdout(&ghostlight("help", &["--help"]));
    for command in
        ["mcp", "call", "flow", "session", "tools", "policy", "config", "audit", "doctor", "Exit codes"]
    {
        assert!(help.contains(command), "{command} missing from --help:\n{help}");
    }
    let call = stdout(&ghostlight("help", &["call", "--help"]));
    assert!(call.contains("ARGS_JSON") && call.contains("--out") && call.contains("--browser"), "{call}");
    assert!(call.contains("--session <NAME>") && call.contains("--no-session"), "{call}");
    let session = stdout(&ghostlight("help", &["session", "--help"]));
    for word in ["start", "stop", "status", "0700", "0600", "no TCP"] {
        assert!(session.contains(word), "{word} missing from session --help:\n{session}");
    }
    let mcp = stdout(&ghostlight("help", &["mcp", "--help"]));
    assert!(mcp.contains("--transport") && mcp.contains("--config"), "{mcp}");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(ghostlight("usage", &["bogus"]).status.code(), Some(2));
    assert_eq!(ghostlight("usage", &["call"]).status.code(), Some(2));
    let bad_json = ghostlight("usage", &["call", "browser_read", "{not json"]);
    assert_eq!(bad_json.status.code(), Some(2));
    assert!(stderr(&bad_json).contains("not valid JSON"));
    let unknown = ghostlight("usage", &["call", "browser_teleport", "{}"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("unknown tool"));
    assert!(!stderr(&unknown).contains("did you mean"), "{}", stderr(&unknown));
}

#[test]
fn a_mistyped_tool_gets_a_did_you_mean() {
    for (typed, meant) in [
        ("browser_clik", "browser_click"),
        ("navigate", "browser_navigate"),
        ("Browser-Read", "browser_read"),
    ] {
        let output = ghostlight("did-you-mean", &["call", typed, "{}"]);
        assert_eq!(output.status.code(), Some(2), "{typed}");
        let error = stderr(&output);
        assert!(error.contains(&format!("unknown tool {typed:?}; did you mean {meant}?")), "{error}");
        assert!(stdout(&output).is_empty());
    }
    // A flow step names its tool too: the flow's decoder says the same, and no browser starts.
    let dir = scratch("did-you-mean");
    let file = dir.join("typo.json");
    let flow = serde_json::json!({"steps": [{"id": "a", "tool": "browser_clik", "arguments": {}}]});
    std::fs::write(&file, flow.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let output = ghostlight_without_browsers("did-you-mean", &["flow", &file.display().to_string()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("(got \"browser_clik\"; did you mean browser_click?)"),
        "{}",
        stdout(&output)
    );
}

/// The binary with nothing on `PATH`: any browser work would fail for want of a driver.
fn ghostlight_without_browsers(home: &str, args: &[&str]) -> Output {
    let dir = scratch(home);
    let empty = scratch(&format!("{home}-empty-path"));
    Command::new(env!("CARGO_BIN_EXE_ghostlight"))
        .args(args)
        .env("PATH", &empty)
        .env("XDG_CONFIG_HOME", &dir)
        .env("XDG_RUNTIME_DIR", &dir)
        .env_remove("GHOSTLIGHT_CONFIG")
        .output()
        .unwrap_or_else(|e| panic!("the binary runs: {e}"))
}

#[test]
fn an_out_that_is_a_file_is_refused_before_any_browser_work() {
    let dir = scratch("out-file");
    let file = dir.join("shots.png");
    std::fs::write(&file, b"not a directory").unwrap_or_else(|e| panic!("{e}"));
    let file = file.display().to_string();
    let below = format!("{file}/more");
    let flow = dir.join("flow.json");
    let steps = serde_json::json!({"steps": [{"id": "shot", "tool": "browser_screenshot", "arguments": {}}]});
    std::fs::write(&flow, steps.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let flow = flow.display().to_string();
    for args in [
        vec!["call", "--out", &file, "browser_navigate", r#"{"url":"http://127.0.0.1:9/"}"#],
        vec!["call", "--out", &below, "browser_screenshot"],
        vec!["flow", "--out", &file, &flow],
    ] {
        let output = ghostlight_without_browsers("out-file", &args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}{}", stdout(&output), stderr(&output));
        let error = stderr(&output);
        assert!(error.contains("must be a directory"), "{error}");
        assert!(!error.contains("chromedriver") && stdout(&output).is_empty(), "{error}");
    }
    assert_eq!(std::fs::read(&file).ok().as_deref(), Some(&b"not a directory"[..]));
}

#[test]
fn policy_explain_help_lists_only_the_flags_it_uses() {
    let help = stdout(&ghostlight("help", &["policy", "explain", "--help"]));
    for used in ["--json", "--config", "--startup"] {
        assert!(help.contains(used), "{used} missing:\n{help}");
    }
    for unused in ["--browser", "--headed", "--driver-url", "--window", "--sandbox"] {
        assert!(!help.contains(unused), "{unused} listed:\n{help}");
    }
    let refused = ghostlight("help", &["policy", "explain", "--headed"]);
    assert_eq!(refused.status.code(), Some(2));
    let manual = ghostlight("help", &["policy", "explain", "--startup", "manual"]);
    assert_eq!(manual.status.code(), Some(0), "{}", stderr(&manual));
    assert!(stdout(&manual).contains("startup: manual"), "{}", stdout(&manual));
}

#[cfg(unix)]
#[test]
fn doctor_finds_chromium_where_chromedriver_finds_it() {
    use std::os::unix::fs::PermissionsExt as _;
    // Debian's layout: PATH has a chromedriver that links into a directory holding the
    // browser; the browser itself is not on PATH.
    let root = scratch("doctor-chromedriver-dir");
    let (lib, bin) = (root.join("lib"), root.join("bin"));
    for dir in [&lib, &bin] {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
    }
    for (name, version) in [("chromedriver", "ChromeDriver 1.2.3"), ("chromium", "Chromium 1.2.3")] {
        let path = lib.join(name);
        std::fs::write(&path, format!("#!/bin/sh\necho '{version}'\n")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let link = bin.join("chromedriver");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(lib.join("chromedriver"), &link).unwrap_or_else(|e| panic!("{e}"));
    let output = Command::new(env!("CARGO_BIN_EXE_ghostlight"))
        .arg("doctor")
        .env("PATH", &bin)
        .env("XDG_CONFIG_HOME", &root)
        .env_remove("GHOSTLIGHT_CONFIG")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = stdout(&output);
    let chromium = lib.join("chromium").display().to_string();
    assert!(text.contains(&format!("found   chromium      {chromium} (Chromium 1.2.3")), "{text}");
    assert!(text.contains("not on PATH"), "{text}");
    assert!(text.contains("found   chromedriver"), "{text}");
    assert_eq!(output.status.code(), Some(0), "{text}");

    // Debian's `/usr/bin/chromium` is a wrapper script of the binary: doctor names it.
    let wrapper = bin.join("chromium");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh
exec {chromium} \"$@\"\n"
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
    let output = Command::new(env!("CARGO_BIN_EXE_ghostlight"))
        .arg("doctor")
        .env("PATH", &bin)
        .env("XDG_CONFIG_HOME", &root)
        .env_remove("GHOSTLIGHT_CONFIG")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = stdout(&output);
    let runs_it = format!("the binary chromedriver starts; {} on PATH runs it", wrapper.display());
    assert!(text.contains(&runs_it) && !text.contains("not on PATH"), "{text}");
}

#[cfg(not(feature = "http"))]
#[test]
fn mcp_over_http_without_the_feature_names_this_binary() {
    let output = ghostlight("http", &["mcp", "--transport", "http"]);
    assert_eq!(output.status.code(), Some(2));
    let error = stderr(&output);
    assert!(error.contains("this build of ghostlight has no HTTP transport"), "{error}");
    assert!(error.contains("--features http") && !error.contains("ghostlight-mcp"), "{error}");
}

#[test]
fn a_refused_call_exits_1_without_a_browser() {
    let output = ghostlight("refused", &["call", "browser_execute", r#"{"script":"1"}"#]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("[blocked] browser_execute\nBlocked: "), "{text}");
    assert!(text.contains("execute capability"), "{text}");
    let json = ghostlight("refused", &["call", "--json", "browser_execute", r#"{"script":"1"}"#]);
    let envelope: Value = serde_json::from_slice(&json.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(envelope["status"], "blocked");
}

#[test]
fn tools_export_for_openai_and_anthropic() {
    let openai: Value = serde_json::from_slice(&ghostlight("tools", &["tools", "--format", "openai"]).stdout)
        .unwrap_or_else(|e| panic!("{e}"));
    let openai = openai.as_array().unwrap_or_else(|| panic!("an array"));
    assert_eq!(openai.len(), 24);
    for tool in openai {
        assert_eq!(tool["type"], "function");
        let keys: Vec<&String> = tool["function"].as_object().map(|o| o.keys().collect()).unwrap_or_default();
        assert_eq!(keys.len(), 3, "{keys:?}");
        assert!(tool["function"]["name"].is_string());
        assert!(tool["function"]["description"].is_string());
        assert_eq!(tool["function"]["parameters"]["type"], "object");
    }
    let anthropic: Value =
        serde_json::from_slice(&ghostlight("tools", &["tools", "--format", "anthropic"]).stdout)
            .unwrap_or_else(|e| panic!("{e}"));
    let anthropic = anthropic.as_array().unwrap_or_else(|| panic!("an array"));
    assert_eq!(anthropic.len(), 24);
    for tool in anthropic {
        assert_eq!(tool.as_object().map(|o| o.len()), Some(3));
        assert!(tool["name"].is_string() && tool["description"].is_string());
        assert_eq!(tool["input_schema"]["type"], "object");
    }
    let mcp = ghostlight("tools", &["tools", "--format", "mcp"]);
    assert_eq!(mcp.stdout, ghostlight("tools", &["tools", "--json"]).stdout);
}

#[test]
fn config_init_then_check() {
    let dir = scratch("config-init");
    let path = dir.join("ghostlight").join("config.toml");
    let init = ghostlight_in(&dir, &["config", "init"]);
    assert_eq!(init.status.code(), Some(0), "{}", stderr(&init));
    assert!(path.exists());
    let again = ghostlight_in(&dir, &["config", "init"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("--force"));
    assert_eq!(ghostlight_in(&dir, &["config", "init", "--force"]).status.code(), Some(0));
    let check = ghostlight_in(&dir, &["config", "check"]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    assert!(stdout(&check).contains(&format!("ok: {}", path.display())), "{}", stdout(&check));
    let where_ = stdout(&ghostlight_in(&dir, &["config", "path"]));
    assert!(
        where_.contains(&path.display().to_string()) && where_.contains("/etc/ghostlight/organization.toml")
    );
}

#[test]
fn config_check_names_file_line_and_key() {
    let dir = scratch("config-bad");
    let file = dir.join("bad.toml");
    std::fs::write(&file, "[browser]\nheadless = true\n[hosts]\nalow = [\"example.com\"]\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let path = file.display().to_string();
    let check = ghostlight("config-bad", &["config", "check", &path]);
    assert_eq!(check.status.code(), Some(2));
    let error = stderr(&check);
    assert!(error.contains(&format!("{path}:4:")), "{error}");
    assert!(error.contains("alow"), "{error}");
    // The same file refuses every browser command with exit 2.
    let call = ghostlight("config-bad", &["call", "--config", &path, "browser_tabs", r#"{"action":"list"}"#]);
    assert_eq!(call.status.code(), Some(2));
    let org = dir.join("org.toml");
    std::fs::write(&org, "[organization]\nname = \"Acme\"\n[ceilings]\ncapabilities = [\"read\"]\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let checked =
        ghostlight("config-bad", &["config", "check", "--organization", &org.display().to_string()]);
    assert_eq!(checked.status.code(), Some(0), "{}", stderr(&checked));
}

#[test]
fn policy_explain_for_a_person() {
    let dir = scratch("policy");
    let file = dir.join("policy.toml");
    std::fs::write(&file, "[capabilities]\nallow = [\"execute\"]\n").unwrap_or_else(|e| panic!("{e}"));
    let output = ghostlight("policy", &["policy", "explain"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(text.contains("execute is denied by the defaults layer."), "{text}");
    let output = ghostlight("policy", &["policy", "explain", "--config", &file.display().to_string()]);
    let text = stdout(&output);
    assert!(text.contains("execute is allowed by the user layer."), "{text}");
}

#[test]
fn doctor_lists_what_it_found() {
    let output = ghostlight("doctor", &["doctor"]);
    let text = stdout(&output);
    for role in ["chromium", "chromedriver", "firefox", "geckodriver"] {
        assert!(text.contains(role), "{role} missing:\n{text}");
    }
    assert!(text.contains("config"), "{text}");
    // The sandbox is on unless this runs as root (or the configuration turns it off).
    let sandbox = if ghostlight_webdriver::runs_as_root() {
        "sandbox off: this process runs as root"
    } else {
        "sandbox on"
    };
    assert!(text.contains(sandbox), "{sandbox}:\n{text}");
    let on = ghostlight("doctor sandbox on", &["doctor", "--sandbox", "on"]);
    assert!(stdout(&on).contains("sandbox on (configured)"), "{}", stdout(&on));
    // Without anything on PATH it says what to install and exits 1.
    let empty = scratch("doctor-path");
    let bare = Command::new(env!("CARGO_BIN_EXE_ghostlight"))
        .arg("doctor")
        .env("PATH", &empty)
        .env("XDG_CONFIG_HOME", &empty)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bare.status.code(), Some(1));
    // Chromium may still be found where chromedriver would look (/usr/bin); the driver not.
    assert!(stdout(&bare).contains("missing chromedriver"), "{}", stdout(&bare));
    assert!(stdout(&bare).contains("chromium-driver"), "{}", stdout(&bare));
}

/// A page server on 127.0.0.1.
/// A static page.
const HELLO_PAGE: &str =
    "<!doctype html><title>Fixture</title><h1>Hello from the fixture</h1><p>Ghostlight reads this.</p>";

/// A page whose button writes a greeting, by the page's own script, 1.5 s after a click.
const GREET_PAGE: &str = r#"<!doctype html><title>Greeter</title>
<label>Name <input id="name" value="Ada"></label>
<button onclick="setTimeout(() => { document.getElementById('out').textContent =
  'Hello, ' + document.getElementById('name').value + '!'; }, 1500)">Greet</button>
<p id="out">Nobody greeted yet.</p>"#;

/// A page with a long paragraph and three controls.
fn long_page() -> String {
    format!(
        "<!doctype html><title>Long</title><h1>A long page</h1><p>{}</p>\
         <label>Name <input value=\"Ada\"></label><button>Greet</button><a href=\"/hello\">Hello page</a>",
        "Ghostlight reads this sentence. ".repeat(100)
    )
}

/// The fixture site on 127.0.0.1: `/greet` is [`GREET_PAGE`], `/long` [`long_page`], anything
/// else [`HELLO_PAGE`].
struct Fixture {
    _server: server::Site,
    base: String,
}

impl Fixture {
    fn start() -> Fixture {
        let served = server::Site::serve(|ask| {
            let body = if ask.path.starts_with("/greet") {
                GREET_PAGE.to_owned()
            } else if ask.path.starts_with("/long") {
                long_page()
            } else {
                HELLO_PAGE.to_owned()
            };
            server::Reply::html(200, body)
        });
        let base = served.url("/").as_str().trim_end_matches('/').to_owned();
        Fixture { _server: served, base }
    }
}

fn have(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn call_and_flow_against_headless_chromium() {
    if !(have("chromium") && have("chromedriver")) {
        assert!(std::env::var_os("CI").is_none(), "CI must install chromium and chromedriver");
        eprintln!("skipped: chromium and chromedriver are not installed");
        return;
    }
    let fixture = Fixture::start();
    let url = format!("{}/hello", fixture.base);
    let navigate = ghostlight("browser", &["call", "browser_navigate", &format!(r#"{{"url":"{url}"}}"#)]);
    assert_eq!(navigate.status.code(), Some(0), "{}{}", stdout(&navigate), stderr(&navigate));
    assert!(
        stdout(&navigate).starts_with("[succeeded] browser_navigate\nOpened 127.0.0.1"),
        "{}",
        stdout(&navigate)
    );

    // A fresh process is a fresh browser: reading needs a controlled tab first, so a lone read
    // answers honestly rather than reading some other page.
    let read = ghostlight("browser", &["call", "--json", "browser_read", "{}"]);
    let envelope: Value = serde_json::from_slice(&read.stdout).unwrap_or_else(|e| panic!("{e}"));
    let succeeded = envelope["status"] == "succeeded";
    assert_eq!(read.status.code(), Some(if succeeded { 0 } else { 1 }), "{envelope}");

    let dir = scratch("flow");
    let good = dir.join("good.json");
    let tab = serde_json::json!({"flow_ref": {"step": "open", "pointer": "/facts/tab"}});
    let flow = serde_json::json!({"steps": [
        {"id": "open", "tool": "browser_navigate", "arguments": {"url": format!("{}/greet", fixture.base)}},
        {"id": "greet", "tool": "browser_click", "arguments": {"tab": tab, "selector": {"role": "button", "name": "Greet"}}},
        {"id": "greeted", "tool": "browser_wait", "arguments": {"tab": tab, "condition": "text_present", "value": "Hello, Ada!", "timeout_ms": 15000}},
        {"id": "read", "tool": "browser_read", "arguments": {"tab": tab}},
    ]});
    std::fs::write(&good, flow.to_string()).unwrap_or_else(|e| panic!("{e}"));

    // Lines arrive as steps end: the click's line is out while the wait (≥ 1.5 s, the page's
    // own timer) is still running.
    let (config_home, runtime) = (scratch("browser"), scratch("browser-run"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_ghostlight"))
        .args(["flow", &good.display().to_string()])
        .env("XDG_CONFIG_HOME", &config_home)
        .env("XDG_RUNTIME_DIR", &runtime)
        .env_remove("GHOSTLIGHT_CONFIG")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("the binary runs: {e}"));
    let stdout_pipe = child.stdout.take().unwrap_or_else(|| panic!("a piped stdout"));
    let mut lines = Vec::new();
    let mut running_after_click = None;
    for line in std::io::BufRead::lines(std::io::BufReader::new(stdout_pipe)) {
        let line = line.unwrap_or_else(|e| panic!("{e}"));
        if line.starts_with("[2/4]") {
            running_after_click = Some(child.try_wait().map(|status| status.is_none()).unwrap_or(false));
        }
        lines.push(line);
    }
    let status = child.wait().unwrap_or_else(|e| panic!("{e}"));
    let text = lines.join("\n");
    assert_eq!(status.code(), Some(0), "{text}");
    assert_eq!(running_after_click, Some(true), "the step line came only at the end:\n{text}");
    assert!(text.starts_with("[1/4] open browser_navigate succeeded — Opened 127.0.0.1"), "{text}");
    assert!(text.contains("[2/4] greet browser_click succeeded — Clicked"), "{text}");
    assert!(text.contains("[3/4] greeted browser_wait succeeded"), "{text}");
    assert!(text.contains("[4/4] read browser_read succeeded"), "{text}");
    assert!(text.contains("[succeeded] browser_flow\nRan 4 of 4 flow steps."), "{text}");

    // The page's own result, through the JSON envelope.
    let json = ghostlight("browser", &["flow", "--json", &good.display().to_string()]);
    assert_eq!(json.status.code(), Some(0), "{}{}", stdout(&json), stderr(&json));
    let envelope: Value = serde_json::from_slice(&json.stdout).unwrap_or_else(|e| panic!("{e}"));
    let read = &envelope["facts"]["steps"][3]["envelope"]["facts"]["text"];
    assert!(read.as_str().is_some_and(|t| t.contains("Hello, Ada!")), "{envelope}");

    let bad = dir.join("bad.json");
    let flow = serde_json::json!({"steps": [
        {"id": "open", "tool": "browser_navigate", "arguments": {"url": url}},
        {"id": "read", "tool": "browser_read", "arguments": {"tab": {"flow_ref": {"step": "open", "pointer": "/facts/no_such_fact"}}}},
    ]});
    std::fs::write(&bad, flow.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let failed = ghostlight("browser", &["flow", &bad.display().to_string()]);
    assert_eq!(failed.status.code(), Some(1), "{}{}", stdout(&failed), stderr(&failed));
    assert!(stdout(&failed).contains("[1/2] open browser_navigate succeeded"), "{}", stdout(&failed));
}

#[test]
fn each_flow_step_shows_what_it_read_found_and_saved() {
    if !(have("chromium") && have("chromedriver")) {
        assert!(std::env::var_os("CI").is_none(), "CI must install chromium and chromedriver");
        eprintln!("skipped: chromium and chromedriver are not installed");
        return;
    }
    let fixture = Fixture::start();
    let out = scratch("human-out");
    let _ = std::fs::remove_dir_all(&out);
    let flow = serde_json::json!({"steps": [
        {"id": "open", "tool": "browser_navigate", "arguments": {"url": format!("{}/long", fixture.base)}},
        {"id": "read", "tool": "browser_read", "arguments": {}},
        {"id": "find", "tool": "browser_find", "arguments": {"text": "Greet"}},
        {"id": "controls", "tool": "browser_inspect", "arguments": {}},
        {"id": "shot", "tool": "browser_screenshot", "arguments": {}},
    ]});
    // `call browser_flow` prints exactly what `flow` does.
    let output = ghostlight(
        "human",
        &["call", "--out", &out.display().to_string(), "browser_flow", &flow.to_string()],
    );
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}{}", stderr(&output));

    // The text read, bounded per step, with a note saying it was cut.
    let read = text.split("[2/5] read browser_read succeeded").nth(1).unwrap_or_else(|| panic!("{text}"));
    assert!(read.contains("\n    | A long page\n    | Ghostlight reads this sentence."), "{text}");
    assert!(read.contains("    … showing 600 of "), "{text}");
    assert!(read.contains(" characters; --json prints all of them\n[3/5]"), "{text}");
    // Rows found and inspected, as tables under their step.
    let find = text.split("[3/5] find").nth(1).unwrap_or_else(|| panic!("{text}"));
    assert!(find.contains("\n    matches (1):\n      target        role    name\n      target_"), "{text}");
    assert!(find.contains("  button  Greet\n[4/5]"), "{text}");
    let inspect = text.split("[4/5] controls").nth(1).unwrap_or_else(|| panic!("{text}"));
    assert!(inspect.contains("\n    items (3):\n      target        role     name\n"), "{text}");
    for row in ["  textbox  Name\n", "  button   Greet\n", "  link     Hello page\n"] {
        assert!(inspect.contains(row), "{row:?} missing:\n{text}");
    }
    // Where the screenshot was saved, with the step that took it.
    let saved = text
        .lines()
        .find_map(|line| line.strip_prefix("Saved: ").and_then(|rest| rest.strip_suffix(" (step shot)")))
        .unwrap_or_else(|| panic!("no saved screenshot:\n{text}"));
    assert!(saved.starts_with(&out.display().to_string()) && saved.ends_with("-1.png"), "{saved}");
    let png = std::fs::read(saved).unwrap_or_else(|e| panic!("{saved}: {e}"));
    assert!(png.starts_with(b"\x89PNG"), "{saved} is not a PNG");
    // The file is named after the step's own invocation, as its envelope in --json says.
    let name = std::path::Path::new(saved).file_name().and_then(|n| n.to_str()).unwrap_or_default();
    assert!(name.starts_with("inv_"), "{name}");
}

/// Run `command` under a pseudo-terminal (util-linux `script`); its transcript.
fn on_a_terminal(command: &str) -> Option<String> {
    if !have("script") {
        return None;
    }
    let output = Command::new("script")
        .args(["-q", "-e", "-c", command, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("script runs: {e}"));
    Some(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[test]
fn the_running_line_never_names_a_step_that_does_not_run() {
    // No driver on PATH: the first step cannot start the browser (it needs a person), which
    // stops the flow; the terminal must not be left saying that step 2 is running.
    let dir = scratch("running-line");
    let empty = scratch("running-line-empty-path");
    let file = dir.join("flow.json");
    let flow = serde_json::json!({"steps": [
        {"id": "open", "tool": "browser_navigate", "arguments": {"url": "http://127.0.0.1:9/"}},
        {"id": "read", "tool": "browser_read", "arguments": {}},
    ]});
    std::fs::write(&file, flow.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let command = format!(
        "env PATH={} XDG_CONFIG_HOME={} XDG_RUNTIME_DIR={} {} flow {}",
        empty.display(),
        dir.display(),
        dir.display(),
        env!("CARGO_BIN_EXE_ghostlight"),
        file.display()
    );
    let Some(screen) = on_a_terminal(&command) else {
        assert!(std::env::var_os("CI").is_none(), "CI must have util-linux `script`");
        eprintln!("skipped: no `script` to run under a terminal");
        return;
    };
    assert!(screen.contains("running step 1 of 2…"), "no running line on a terminal:\n{screen:?}");
    assert!(screen.contains("[1/2] open browser_navigate attention_required"), "{screen:?}");
    assert!(!screen.contains("running step 2 of 2"), "a step that never ran was shown running:\n{screen:?}");
    // Every running line was erased: the last one is followed by an erase.
    let last = screen.rfind("running step").unwrap_or_default();
    assert!(screen[last..].contains("\r\x1b[2K"), "the running line stayed:\n{screen:?}");
    assert!(screen.contains("browser_flow\r\nStopped after step 1 of 2"), "{screen:?}");

    // A flow that goes on after a failure (on_error continue) does show the next step running.
    let flow = serde_json::json!({"on_error": "continue", "steps": [
        {"id": "open", "tool": "browser_navigate", "arguments": {"url": "http://127.0.0.1:9/"}},
        {"id": "again", "tool": "browser_navigate", "arguments": {"url": "http://127.0.0.1:9/"}},
    ]});
    std::fs::write(&file, flow.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let screen = on_a_terminal(&command).unwrap_or_default();
    assert!(screen.contains("running step 2 of 2…"), "{screen:?}");
    let last = screen.rfind("running step").unwrap_or_default();
    assert!(screen[last..].contains("\r\x1b[2K"), "the running line stayed:\n{screen:?}");
}

/// A call without a session that finds no tab says why (each call's browser closes with it)
/// and how to keep one: `ghostlight session start`.
#[test]
fn a_one_shot_call_without_a_tab_points_to_sessions() {
    let root = scratch("one-shot-no-tab");
    let empty = root.join("bin");
    std::fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{e}"));
    let output = Command::new(env!("CARGO_BIN_EXE_ghostlight"))
        .args(["call", "browser_read", "--no-session"])
        .env("PATH", &empty)
        .env("XDG_CONFIG_HOME", &root)
        .env_remove("GHOSTLIGHT_CONFIG")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(1), "a failed envelope");
    assert!(stdout(&output).contains("No controlled tab is open yet."), "{}", stdout(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("ghostlight session start"), "{stderr}");
}
