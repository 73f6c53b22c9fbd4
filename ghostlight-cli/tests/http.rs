//! The `ghostlight-mcp` binary over streamable HTTP (feature `http`): it refuses to start
//! without a usable bearer token, serves on the address it logs behind the token from the
//! environment, and, with headless Chromium, gives each MCP session a user context of its own
//! in one shared browser (or, with `--http-browsers per-session`, a browser of its own), so two
//! sessions share no cookies or storage, a page of one never hands a tab to the other, and a
//! slow navigation in one does not hold up the other.

#![cfg(all(feature = "http", target_os = "linux"))]

mod support;

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ghostlight_cli::options::TOKEN_ENV;
use rmcp::service::{RoleClient, RunningService, ServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use support::{describe, invoke, require_chromedriver, status};

const TOKEN: &str = "sessions-test-0123456789abcdef";
/// How long the slow page takes to answer.
const SLOW: Duration = Duration::from_secs(6);

/// A loopback site (every request answered on a thread of its own): `/set` stores a cookie and
/// a localStorage item, `/read` shows a page, `/opener` opens a private popup when its button is
/// clicked, `/slow` answers after [`SLOW`]. Serves until dropped.
fn site() -> support::site::Site {
    support::site::Site::serve(|ask| {
        let body = match ask.path {
            "/set" => {
                "<title>Set</title><script>document.cookie = 'sid=A; path=/'; \
                       localStorage.setItem('k', 'A');</script><h1>Set</h1>"
            }
            "/opener" => {
                "<title>Opener</title><h1>Opener</h1><button \
                          onclick=\"window.open('/private?token=SECRET')\">Open</button>"
            }
            "/slow" => {
                std::thread::sleep(SLOW);
                "<title>Slow</title><h1>Finally</h1>"
            }
            _ => "<title>Page</title><h1>A page</h1><p>Some text to read.</p>",
        };
        support::site::Reply::html(200, format!("<!doctype html><meta charset=utf-8>{body}"))
    })
}

/// Start the binary over HTTP on a free loopback port with `args` and the token in the
/// environment; answer it and the URL it logs.
fn start_server(args: &[&str]) -> (std::process::Child, String) {
    let mut child = Command::new(support::binary())
        .args(["--transport", "http", "--listen", "127.0.0.1:0"])
        .args(args)
        .env(TOKEN_ENV, TOKEN)
        .env("GHOSTLIGHT_MCP_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = child.stderr.take().unwrap_or_else(|| panic!("stderr"));
    let (found, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(at) = line.find("http://") {
                let _ = found.send(line[at..].trim().to_owned());
            }
        }
    });
    let url = lines.recv_timeout(Duration::from_secs(20)).unwrap_or_else(|e| panic!("no address: {e}"));
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{url}");
    (child, url)
}

async fn client(url: &str) -> RunningService<RoleClient, ()> {
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(TOKEN.to_owned());
    ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap_or_else(|e| panic!("{e}"))
}

/// A raw request to the binary's endpoint: `initialize` (no session) or `tools/list` in
/// `session`, with `token` and extra headers; answers the status and the session id handed out.
async fn raw(
    url: &str,
    token: &str,
    session: Option<&str>,
    headers: &[(&str, &str)],
) -> (u16, Option<String>) {
    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", format!("Bearer {token}"));
    request = match session {
        Some(id) => request
            .header("Mcp-Session-Id", id)
            .header("Mcp-Protocol-Version", "2025-11-25")
            .body(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#),
        None => request.body(INITIALIZE),
    };
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap_or_else(|e| panic!("{e}"));
    let id = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let status = response.status().as_u16();
    // Read the answer to its end, as a client does: until then the session is busy with the
    // call, and a session busy with a call is never ended to make room.
    let _ = response.bytes().await;
    (status, id)
}

/// The binary with two clients' tokens and `[limits] sessions = 2` (one per token): a
/// session answers only its own token, also after the other token opened and deleted many;
/// a token past its share ends its own least recently used idle session; the server's own
/// loopback origin is accepted and another refused, before any limit.
#[tokio::test]
async fn http_sessions_stay_their_tokens_and_share_the_places() {
    const TOKEN_B: &str = "second-client-token-7f3a9c2e";
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let config = dir.path().join("limits.toml");
    std::fs::write(&config, "[limits]\nsessions = 2\n").unwrap_or_else(|e| panic!("{e}"));
    let tokens = format!("{TOKEN},{TOKEN_B}");
    let config_arg = config.to_string_lossy().into_owned();
    let (mut server, url) = start_server(&["--config", &config_arg, "--token", &tokens]);
    let (status, a1) = raw(&url, TOKEN, None, &[]).await;
    assert_eq!(status, 200);
    let a1 = a1.unwrap_or_default();
    for _ in 0..40 {
        let (status, b) = raw(&url, TOKEN_B, None, &[]).await;
        assert_eq!(status, 200, "B's session beside A's");
        let deleted = reqwest::Client::new()
            .delete(&url)
            .header("Authorization", format!("Bearer {TOKEN_B}"))
            .header("Mcp-Session-Id", b.unwrap_or_default())
            .send()
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(deleted.status().is_success());
    }
    assert_eq!(raw(&url, TOKEN_B, Some(&a1), &[]).await.0, 404, "A's session with B's token");
    assert_eq!(raw(&url, TOKEN, Some(&a1), &[]).await.0, 200, "A's session with A's token");
    // A's second session takes A's one place: A's idle first session ends.
    assert_eq!(raw(&url, TOKEN, None, &[]).await.0, 200);
    assert_eq!(raw(&url, TOKEN, Some(&a1), &[]).await.0, 404, "ended to make room");
    let port = url.trim_start_matches("http://127.0.0.1:").trim_end_matches("/mcp").to_owned();
    let own = format!("http://localhost:{port}");
    assert_eq!(raw(&url, TOKEN_B, None, &[("Origin", &own)]).await.0, 200, "the server's own origin");
    assert_eq!(raw(&url, TOKEN_B, None, &[("Origin", "https://evil.example")]).await.0, 403);
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn refuses_to_start_without_a_token() {
    for (args, expected) in [
        (vec!["--transport", "http"], TOKEN_ENV),
        (vec!["--transport", "http", "--token", "short"], "at least 16"),
        (vec!["--transport", "http", "--token", "has spaces in the token"], "without spaces"),
        (vec!["--transport", "http", "--token", "aaaaaaaaaaaaaaaa"], "too easy to guess"),
        (vec!["--transport", "http", "--token", "0123456789abcdef,abababababababab"], "too easy to guess"),
    ] {
        let output = Command::new(support::binary())
            .args(&args)
            .env_remove(TOKEN_ENV)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty());
    }
}

/// The binary serves HTTP on the address it logs, behind the token from the environment: a
/// request without it is refused, a client with it lists the tools and calls one.
#[tokio::test]
async fn the_binary_serves_http_behind_the_token() {
    let (mut server, url) = start_server(&[]);
    let refused = reqwest::Client::new()
        .post(&url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(refused.status().as_u16(), 401);
    let session = client(&url).await;
    let tools = session.list_all_tools().await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tools.len(), 24);
    ok(&session, "policy_explain", json!({})).await;
    let _ = session.cancel().await;
    let _ = server.kill();
    let _ = server.wait();
}

async fn ok(client: &RunningService<RoleClient, ()>, tool: &str, arguments: Value) -> Value {
    let envelope = invoke(client, tool, arguments).await;
    assert_eq!(status(&envelope), "succeeded", "{tool}: {}", describe(&envelope));
    envelope
}

/// The default: the two sessions live in one browser (one driver), each in a user context of
/// its own.
#[tokio::test]
async fn sessions_in_one_shared_browser_share_no_storage_no_popups_and_no_lock() {
    isolated_sessions(&[], 1).await;
}

/// `--http-browsers per-session`: a browser (and driver) each, isolated the same way.
#[tokio::test]
async fn sessions_with_a_browser_each_share_no_profile_no_popups_and_no_lock() {
    isolated_sessions(&["--http-browsers", "per-session"], 2).await;
}

/// The processes named `name` among `pid`'s descendants.
fn descendants_named(pid: u32, name: &str) -> usize {
    let children = |pid: u32| -> Vec<u32> {
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).map(|d| d.flatten().collect::<Vec<_>>());
        let mut out = Vec::new();
        for task in tasks.unwrap_or_default() {
            let listed = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            out.extend(listed.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
        }
        out
    };
    let mut stack = children(pid);
    let mut found = 0;
    while let Some(next) = stack.pop() {
        let comm = std::fs::read_to_string(format!("/proc/{next}/comm")).unwrap_or_default();
        if comm.trim() == name {
            found += 1;
        }
        stack.extend(children(next));
    }
    found
}

/// Two sessions of the binary started with `args`, run by `drivers` chromedriver processes:
/// what one stores the other does not see, a popup one's page opens reaches only that
/// session, and a slow navigation in one does not hold up the other.
async fn isolated_sessions(args: &[&str], drivers: usize) {
    require_chromedriver();
    let site = site();
    let url = |path: &str| site.url(path).to_string();
    let dir = support::scratch::Scratch::new("sessions");
    let config = dir.join("config.toml");
    std::fs::write(&config, "[capabilities]\nallow = [\"execute\"]\n").unwrap_or_else(|e| panic!("{e}"));
    let config = config.to_string_lossy();
    let mut argv = vec!["--config", config.as_ref()];
    argv.extend(args);
    let (mut server, endpoint) = start_server(&argv);
    let (a, b) = tokio::join!(client(&endpoint), client(&endpoint));

    // Storage: what A's page stores, B's page on the same site does not see.
    ok(&a, "browser_navigate", json!({"url": url("/set")})).await;
    let seen_a =
        ok(&a, "browser_execute", json!({"script": "[document.cookie, localStorage.getItem('k')]"})).await;
    assert_eq!(seen_a["facts"]["value"], json!(["sid=A", "A"]));
    ok(&b, "browser_navigate", json!({"url": url("/read")})).await;
    let seen_b =
        ok(&b, "browser_execute", json!({"script": "[document.cookie, localStorage.getItem('k')]"})).await;
    assert_eq!(seen_b["facts"]["value"], json!(["", null]), "B sees none of A's cookie or storage");
    assert_eq!(descendants_named(server.id(), "chromedriver"), drivers, "drivers for two sessions");

    // Popups: A's page opens a private tab when A clicks; B's calls never see it.
    ok(&a, "browser_navigate", json!({"url": url("/opener")})).await;
    let read_b = ok(&b, "browser_read", json!({})).await;
    let clicked = ok(&a, "browser_click", json!({"selector": {"name": "Open"}})).await;
    assert!(clicked["facts"].get("opened_tabs").is_some(), "A's own call sees the popup its page opened");
    for read_b in [read_b, ok(&b, "browser_read", json!({})).await] {
        let text = serde_json::to_string(&read_b).unwrap_or_default();
        assert!(!text.contains("SECRET") && read_b["facts"].get("opened_tabs").is_none(), "{text}");
    }
    let listed_b = ok(&b, "browser_tabs", json!({"action": "list"})).await;
    assert_eq!(listed_b["facts"]["tabs"].as_array().map(Vec::len), Some(1), "{}", describe(&listed_b));

    // No shared lock: B reads its loaded tab while A's navigation waits on a slow server.
    let slow = async {
        let envelope =
            invoke(&a, "browser_navigate", json!({"url": url("/slow"), "timeout_ms": 30000})).await;
        (Instant::now(), envelope)
    };
    let quick = async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let envelope = invoke(&b, "browser_read", json!({})).await;
        (Instant::now(), envelope)
    };
    let ((a_done, a_env), (b_done, b_env)) = tokio::join!(slow, quick);
    assert_eq!(status(&a_env), "succeeded", "{}", describe(&a_env));
    assert_eq!(status(&b_env), "succeeded", "{}", describe(&b_env));
    assert!(b_done < a_done, "B's read finished before A's slow navigation");

    let _ = a.cancel().await;
    let _ = b.cancel().await;
    let _ = server.kill();
    let _ = server.wait();
}
