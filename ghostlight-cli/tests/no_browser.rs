//! The real binary with no browser or driver on `PATH`: calls that need no browser are
//! answered correctly and start nothing (no driver process ever appears).

#![cfg(target_os = "linux")]

mod support;

use std::path::PathBuf;

use rmcp::ServiceError;
use rmcp::model::ErrorCode;
use serde_json::json;
use support::scratch::Scratch;
use support::{call, children, describe, invoke, spawn_binary, status};

/// A scratch directory holding an empty directory for `PATH` and a configuration file
/// allowing one host: (the directory, the `PATH` directory, the file).
fn setup(name: &str) -> (Scratch, PathBuf, PathBuf) {
    let dir = Scratch::new(&format!("mcp-{name}"));
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("{e}"));
    let config = dir.join("ghostlight.toml");
    std::fs::write(&config, "[hosts]\nallow = [\"allowed.example\"]\n").unwrap_or_else(|e| panic!("{e}"));
    (dir, bin, config)
}

#[tokio::test]
async fn answers_without_a_browser_and_starts_none() {
    let (_dir, bin, config) = setup("no-browser");
    let config_arg = config.to_string_lossy().into_owned();
    let (client, pid) = spawn_binary(&["--config", &config_arg], Some(&bin)).await;

    let explained = invoke(&client, "policy_explain", json!({})).await;
    assert_eq!(status(&explained), "succeeded", "{}", describe(&explained));
    assert_eq!(explained["effect"], "none");

    for (tool, arguments) in [
        ("browser_navigate", json!({"url": 5})),
        ("browser_navigate", json!({"url": "https://allowed.example/", "timeout_ms": 50})),
        ("browser_read", json!({"bogus": true})),
        ("browser_click", json!({})),
        ("browser_tabs", json!({"action": "list", "restrict_capabilities": ["teleport"]})),
    ] {
        let envelope = invoke(&client, tool, arguments.clone()).await;
        assert_eq!(status(&envelope), "failed", "{tool} {arguments}: {}", describe(&envelope));
        assert_eq!(envelope["facts"]["reason"], "invalid_arguments", "{tool} {arguments}");
        assert_eq!(envelope["effect"], "none");
    }

    match client.call_tool(call("browser_teleport", json!({}))).await {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code, ErrorCode::INVALID_PARAMS),
        other => panic!("an unknown tool answered {other:?}"),
    }

    // Outside the configured host allow list, and outside a call's own restriction.
    let outside = invoke(&client, "browser_navigate", json!({"url": "https://elsewhere.example/"})).await;
    assert_eq!(status(&outside), "blocked", "{}", describe(&outside));
    let restricted = invoke(
        &client,
        "browser_navigate",
        json!({"url": "https://allowed.example/", "restrict_hosts": ["other.example"]}),
    )
    .await;
    assert_eq!(status(&restricted), "blocked", "{}", describe(&restricted));
    // Execute is denied by default.
    let script = invoke(&client, "browser_execute", json!({"script": "1"})).await;
    assert_eq!(status(&script), "blocked", "{}", describe(&script));

    assert_eq!(children(pid), [], "a process was started for calls that need no browser");

    // A call that needs the browser says why none can start and what to do, and the server
    // stays up.
    let needs_browser = invoke(&client, "browser_navigate", json!({"url": "https://allowed.example/"})).await;
    assert_eq!(status(&needs_browser), "attention_required", "{}", describe(&needs_browser));
    assert_eq!(needs_browser["facts"]["reason"], "browser_not_started");
    assert_eq!(needs_browser["facts"]["cause"], "driver_not_found");
    assert!(
        needs_browser["summary"].as_str().is_some_and(|s| s.contains("chromedriver was not found on PATH")),
        "{}",
        describe(&needs_browser)
    );
    assert!(
        needs_browser["next_steps"][0].as_str().is_some_and(|s| s.contains("install chromedriver")),
        "{}",
        describe(&needs_browser)
    );
    let again = invoke(&client, "policy_explain", json!({})).await;
    assert_eq!(status(&again), "succeeded");
    assert_eq!(children(pid), []);
    let _ = client.cancel().await;
}

/// With `--startup manual` a call that needs the browser asks the person to open it, and
/// nothing is started.
#[tokio::test]
async fn manual_startup_asks_the_person() {
    let (_dir, bin, _config) = setup("manual");
    let (client, pid) = spawn_binary(&["--startup", "manual"], Some(&bin)).await;
    let envelope = invoke(&client, "browser_navigate", json!({"url": "https://example.com/"})).await;
    assert_eq!(status(&envelope), "attention_required", "{}", describe(&envelope));
    assert_eq!(envelope["facts"]["reason"], "browser_startup_manual");
    let explained = invoke(&client, "policy_explain", json!({})).await;
    assert!(explained.to_string().contains("manual"), "{}", describe(&explained));
    assert_eq!(children(pid), []);
    let _ = client.cancel().await;
}

/// The binary applies its configuration's `[audit]` section: one JSON line per invocation in
/// the named file after the run's anchor, payload-free (the script's source and the arguments'
/// values never appear), chained (`seq`, `prev`).
#[tokio::test]
async fn the_audit_file_of_the_configuration_gets_one_payload_free_line_per_call() {
    let (_dir, bin, _) = setup("audit");
    let dir = bin.parent().unwrap_or_else(|| panic!("a parent")).to_owned();
    let audit = dir.join("audit.jsonl");
    let _ = std::fs::remove_file(&audit);
    let config = dir.join("audit.toml");
    let text = format!(
        "[capabilities]\nallow = [\"read\", \"action\", \"write\", \"execute\"]\n[hosts]\nallow = [\"allowed.example\"]\n\
         [audit]\ndestination = \"file\"\npath = {:?}\n",
        audit.display().to_string()
    );
    std::fs::write(&config, text).unwrap_or_else(|e| panic!("{e}"));
    let config_arg = config.to_string_lossy().into_owned();
    let (client, _pid) = spawn_binary(&["--config", &config_arg], Some(&bin)).await;

    const SECRET: &str = "secret-script-source-4711";
    let calls = [
        ("policy_explain", json!({})),
        ("browser_navigate", json!({"url": "https://elsewhere.example/"})),
        ("browser_read", json!({"bogus": SECRET})),
        ("browser_execute", json!({"script": SECRET, "restrict_hosts": ["other.example"]})),
    ];
    let mut expected = Vec::new();
    for (tool, arguments) in calls {
        let envelope = invoke(&client, tool, arguments).await;
        expected.push((tool, envelope["status"].as_str().unwrap_or("?").to_owned()));
    }
    let _ = client.cancel().await;

    let written = std::fs::read_to_string(&audit).unwrap_or_else(|e| panic!("{}: {e}", audit.display()));
    assert!(!written.contains(SECRET), "a payload reached the audit file:\n{written}");
    let mut records: Vec<serde_json::Value> = written
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let anchor = records.remove(0);
    assert_eq!(
        (anchor["kind"].as_str(), anchor["seq"].as_u64()),
        (Some("audit_anchor"), Some(0)),
        "{written}"
    );
    for (seq, record) in (1u64..).zip(&records) {
        assert_eq!(record["seq"].as_u64(), Some(seq), "{record}");
        assert!(record["prev"].as_str().is_some_and(|prev| prev.len() == 64), "{record}");
    }
    let seen: Vec<(&str, String)> = records
        .iter()
        .map(|r| (r["tool"].as_str().unwrap_or("?"), r["status"].as_str().unwrap_or("?").to_owned()))
        .collect();
    assert_eq!(seen, expected, "{written}");
    assert_eq!(expected[1].1, "blocked", "the configured host allow list applied");
    assert_eq!(expected[2].1, "failed");
    // Every record has its time (RFC 3339, UTC) and the session's opaque id, one per session.
    let session = records[0]["session"].as_str().unwrap_or_default().to_owned();
    assert!(session.starts_with("ses_") && session.len() > 8, "{session}");
    for record in &records {
        assert_eq!(record["session"], session.as_str(), "{record}");
        let time = record["time"].as_str().unwrap_or_default();
        assert!(time.len() >= 20 && time.ends_with('Z') && time.as_bytes()[10] == b'T', "{time}");
    }
    // The file is the user's alone, whatever the umask.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&audit).map(|m| m.permissions().mode() & 0o777).unwrap_or(0);
    assert_eq!(mode, 0o600, "the audit file's mode");
}

/// An audit path another local user prepared is refused at start, and what it points at is
/// untouched: a symbolic link to a file of another user (uid 65534 when the test runs as
/// root and can give it away; else a file of this user, and the link is refused all the
/// same), a FIFO (before, the server never answered `initialize`), and a file others may
/// read (refused, never `chmod`-ed).
#[test]
fn a_planted_audit_path_is_refused_at_start() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let (_dir, bin, _) = setup("planted-audit");
    let dir = bin.parent().unwrap_or_else(|| panic!("a parent")).to_owned();
    let victim = dir.join("victim.conf");
    std::fs::write(&victim, "precious\n").unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644))
        .unwrap_or_else(|e| panic!("{e}"));
    if nix::unistd::geteuid().is_root() {
        let nobody = Some(nix::unistd::Uid::from_raw(65534));
        nix::unistd::chown(&victim, nobody, None).unwrap_or_else(|e| panic!("{e}"));
    } else {
        eprintln!("not root: the link points at a file of this user (its owner cannot be given away)");
    }
    let owner_before = std::fs::metadata(&victim).map(|m| m.uid()).unwrap_or(0);
    let link = dir.join("link-audit.jsonl");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&victim, &link).unwrap_or_else(|e| panic!("{e}"));
    let fifo = dir.join("fifo-audit.jsonl");
    let _ = std::fs::remove_file(&fifo);
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600))
        .unwrap_or_else(|e| panic!("{e}"));
    let open = dir.join("open-audit.jsonl");
    std::fs::write(&open, "").unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).unwrap_or_else(|e| panic!("{e}"));

    for (path, says) in [(&link, "symbolic link"), (&fifo, "FIFO"), (&open, "chmod 600")] {
        let config = dir.join("planted.toml");
        let text = format!("[audit]\ndestination = \"file\"\npath = {:?}\n", path.display().to_string());
        std::fs::write(&config, text).unwrap_or_else(|e| panic!("{e}"));
        let started = std::time::Instant::now();
        let output = std::process::Command::new(support::binary())
            .arg("--config")
            .arg(&config)
            .env("PATH", &bin)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{}: the server started", path.display());
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{}: {:?}",
            path.display(),
            started.elapsed()
        );
        assert!(stderr.contains(says), "{}: {stderr}", path.display());
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap_or_default(), "precious\n");
    let meta = std::fs::metadata(&victim).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((meta.permissions().mode() & 0o777, meta.uid()), (0o644, owner_before), "the link's target");
    assert_eq!(std::fs::metadata(&open).map(|m| m.permissions().mode() & 0o777).unwrap_or(0), 0o644);
}

/// The organization file is compiled as the organization layer by the same path the binaries
/// use (`ConfigSources::load` → `ServeArgs::resolve_loaded` → `browser::ghostlight`): its
/// ceilings bind a user file that allows more, and `policy_explain` names the organization.
/// (The binaries read it from `ORGANIZATION_PATH`, which no flag or variable overrides.)
#[tokio::test]
async fn the_organization_file_binds_the_user_file() {
    use ghostlight_cli::config::ConfigSources;
    use ghostlight_cli::options::ServeArgs;
    use ghostlight_core::Cancellation;

    let (_dir, bin, _) = setup("organization");
    let dir = bin.parent().unwrap_or_else(|| panic!("a parent")).to_owned();
    let user = dir.join("user.toml");
    std::fs::write(&user, "[capabilities]\nallow = [\"read\", \"action\", \"write\", \"execute\"]\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let organization = dir.join("organization.toml");
    std::fs::write(
        &organization,
        "[organization]\nname = \"Acme\"\n[ceilings]\ncapabilities = [\"read\"]\nhosts = [\"*.acme.example\"]\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let loaded = ConfigSources { user: Some((user, true)), organization: Some(organization) }
        .load()
        .unwrap_or_else(|e| panic!("{e}"));
    let options = ServeArgs::default().resolve_loaded(&loaded).unwrap_or_else(|e| panic!("{e}"));
    let (browser, ghostlight) =
        ghostlight_cli::browser::ghostlight(&options).unwrap_or_else(|e| panic!("{e}"));
    let call = |tool: &'static str, arguments: serde_json::Value| {
        let ghostlight = ghostlight.clone();
        async move {
            let result = ghostlight.invoke(tool, &arguments, &Cancellation::never()).await;
            serde_json::to_value(result.unwrap_or_else(|e| panic!("{e}")).envelope).unwrap_or_default()
        }
    };

    let script = call("browser_execute", json!({"script": "1"})).await;
    assert_eq!(script["status"], "blocked", "{script}");
    assert!(script["summary"].as_str().is_some_and(|s| s.contains("organization")), "{script}");
    let click = call("browser_click", json!({"selector": {"name": "Save"}})).await;
    assert_eq!(click["status"], "blocked", "a ceiling of read only: {click}");
    let outside = call("browser_navigate", json!({"url": "https://example.com/"})).await;
    assert_eq!(outside["status"], "blocked", "outside the host ceiling: {outside}");
    let explained = call("policy_explain", json!({})).await;
    assert!(explained.to_string().contains("Acme"), "{explained}");
    browser.shutdown().await;
}

/// Raw JSON-RPC lines a strict client library would never send: `arguments` that are not an
/// object still answer a `failed` envelope (the contract's invalid-arguments rule); a call
/// without a tool name or with an unknown one is a protocol error (invalid params), and so is
/// an unknown method (method not found). The server keeps answering.
#[test]
fn malformed_tool_calls_on_the_wire() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    let (_dir, bin, config) = setup("raw-lines");
    let mut child = Command::new(support::binary())
        .args(["--config", &config.to_string_lossy()])
        .env("PATH", &bin)
        .env("GHOSTLIGHT_MCP_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start ghostlight-mcp: {e}"));
    let lines = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
            "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "browser_read", "arguments": "x"}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "browser_read", "arguments": [1]}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "browser_teleport", "arguments": 3}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "browser/teleport"}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
    ];
    let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
    for line in &lines {
        writeln!(stdin, "{line}").unwrap_or_else(|e| panic!("{e}"));
    }
    let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
    let (sender, answers) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    let mut by_id = std::collections::BTreeMap::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while by_id.len() < 7 {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let line = answers.recv_timeout(left).unwrap_or_else(|_| panic!("answers so far: {by_id:?}"));
        let answer: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if let Some(id) = answer["id"].as_u64() {
            by_id.insert(id, answer);
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();

    for id in [2, 3] {
        let result = &by_id[&id]["result"];
        assert_eq!(result["isError"], true, "{result}");
        let envelope = &result["structuredContent"];
        assert_eq!(envelope["status"], "failed", "{envelope}");
        assert_eq!(envelope["facts"]["reason"], "invalid_arguments", "{envelope}");
        assert_eq!(envelope["facts"]["tool"], "browser_read", "{envelope}");
    }
    assert_eq!(by_id[&4]["error"]["code"], -32602, "{}", by_id[&4]);
    assert_eq!(by_id[&5]["error"]["code"], -32602, "{}", by_id[&5]);
    assert_eq!(by_id[&6]["error"]["code"], -32601, "{}", by_id[&6]);
    assert_eq!(by_id[&7]["result"], json!({}), "still answering");
}

/// Every request line gets an answer, even one the server cannot parse: the real binary over
/// raw standard input and output (what a client that writes its own JSON sees).
#[tokio::test]
async fn unparsable_request_lines_are_answered_with_their_id() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (_dir, bin, config) = setup("raw-lines");
    let mut child = tokio::process::Command::new(support::binary())
        .args(["--config", &config.to_string_lossy()])
        .env("PATH", &bin)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("stdin"));
    let mut lines = BufReader::new(child.stdout.take().unwrap_or_else(|| panic!("stdout"))).lines();
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"browser_read","arguments":{{"x":{}1{}}}}}}}"#,
        "[".repeat(300),
        "]".repeat(300)
    );
    let sent = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        deep,
        r#"{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"browser_read","arguments":{"max_chars":1e400}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/list""#.to_owned(),
        r#"{"jsonrpc":"2.0","id":10,"method":17}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":11,"method":"tools/list"}"#.to_owned(),
    ];
    for line in &sent {
        stdin.write_all(line.as_bytes()).await.unwrap_or_else(|e| panic!("{e}"));
        stdin.write_all(b"\n").await.unwrap_or_else(|e| panic!("{e}"));
    }
    stdin.flush().await.unwrap_or_else(|e| panic!("{e}"));
    let mut answered = std::collections::BTreeMap::new();
    let read = async {
        while answered.len() < 6 {
            let Some(line) = lines.next_line().await.unwrap_or_else(|e| panic!("{e}")) else { break };
            let value: serde_json::Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            answered.insert(value["id"].to_string(), value);
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(30), read)
        .await
        .unwrap_or_else(|_| panic!("no answer"));
    let code = |id: &str| answered.get(id).map(|v| v["error"]["code"].clone());
    assert_eq!(code("7"), Some(json!(-32700)), "nested 300 deep: {answered:?}");
    assert_eq!(code("\"big\""), Some(json!(-32700)), "1e400");
    assert_eq!(code("9"), Some(json!(-32700)), "cut short");
    assert_eq!(code("10"), Some(json!(-32600)), "not a request");
    assert!(
        answered.get("11").is_some_and(|v| v["result"]["tools"].is_array()),
        "the session goes on: {answered:?}"
    );
    drop(stdin);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), child.wait()).await;
}
