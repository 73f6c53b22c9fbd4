//! The streamable HTTP transport (feature `http`): a bearer token is required to start and on
//! every request, the Host check holds, and concurrent sessions are isolated workspaces.

#![cfg(feature = "http")]

mod support;

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use ghostlight_core::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};
use ghostlight_mcp::GhostlightServer;
use ghostlight_mcp::options::{BearerToken, DEFAULT_ALLOWED_HOSTS, HttpOptions, TOKEN_ENV};
use rmcp::service::{RoleClient, RunningService, ServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use support::{call, describe, envelope_of, status};

const TOKEN: &str = "test-token-0123456789abcdef";

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

fn browser() -> ScriptedBrowser {
    ScriptedBrowser::new().site("https://alpha.example/", ScriptedPage::new("Alpha").text("Alpha page")).site(
        "https://beta.example/",
        ScriptedPage::new("Beta").text("Beta page").element(ScriptedElement::button("Go")),
    )
}

/// Serve `GhostlightServer::new(browser())` over HTTP on a free loopback port.
async fn serve() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("{e}"));
    let address = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    let options = HttpOptions {
        listen: address,
        token: BearerToken::new(TOKEN).unwrap_or_else(|e| panic!("{e}")),
        allowed_hosts: DEFAULT_ALLOWED_HOSTS.iter().map(|h| (*h).to_owned()).collect(),
    };
    let server = GhostlightServer::new(Arc::new(browser()));
    tokio::spawn(async move {
        let served = ghostlight_mcp::http::serve_on(listener, server, &options, std::future::pending()).await;
        if let Err(error) = served {
            panic!("serving failed: {error}");
        }
    });
    format!("http://{address}/mcp")
}

/// A raw `initialize` POST with extra headers; answers the status code.
async fn post(url: &str, headers: &[(&str, &str)]) -> u16 {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(INITIALIZE);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap_or_else(|e| panic!("{e}"));
    response.status().as_u16()
}

async fn client(url: &str, token: &str) -> RunningService<RoleClient, ()> {
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token.to_owned());
    let transport = StreamableHttpClientTransport::from_config(config);
    ().serve(transport).await.unwrap_or_else(|e| panic!("the HTTP client did not initialize: {e}"))
}

async fn invoke(client: &RunningService<RoleClient, ()>, name: &str, arguments: Value) -> Value {
    envelope_of(&client.call_tool(call(name, arguments)).await.unwrap_or_else(|e| panic!("{name}: {e}")))
}

#[test]
fn refuses_to_start_without_a_token() {
    for (args, expected) in [
        (vec!["--transport", "http"], TOKEN_ENV),
        (vec!["--transport", "http", "--token", "short"], "at least 16"),
        (vec!["--transport", "http", "--token", "has spaces in the token"], "without spaces"),
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

#[tokio::test]
async fn every_request_needs_the_bearer_token_and_a_loopback_host() {
    let url = serve().await;
    let port = url.trim_start_matches("http://127.0.0.1:").trim_end_matches("/mcp").to_owned();
    let bearer = format!("Bearer {TOKEN}");
    assert_eq!(post(&url, &[]).await, 401, "no token");
    assert_eq!(post(&url, &[("Authorization", "Bearer wrong-token-0123456789")]).await, 401, "wrong token");
    assert_eq!(post(&url, &[("Authorization", TOKEN)]).await, 401, "no Bearer scheme");
    assert_eq!(post(&url, &[("Authorization", &format!("Basic {TOKEN}"))]).await, 401, "wrong scheme");
    let evil_host = format!("evil.example:{port}");
    assert_eq!(post(&url, &[("Authorization", &bearer), ("Host", &evil_host)]).await, 403, "DNS rebinding");
    assert_eq!(
        post(&url, &[("Authorization", &bearer), ("Origin", "https://evil.example")]).await,
        403,
        "origin"
    );
    assert_eq!(post(&url, &[("Authorization", &bearer)]).await, 200, "the right token");
    let localhost = format!("localhost:{port}");
    assert_eq!(post(&url, &[("Authorization", &bearer), ("Host", &localhost)]).await, 200, "localhost");

    // rmcp's own client with a wrong token cannot even initialize.
    let config =
        StreamableHttpClientTransportConfig::with_uri(url.clone()).auth_header("wrong-token-0123456789");
    let refused = ().serve(StreamableHttpClientTransport::from_config(config)).await;
    assert!(refused.is_err(), "a wrong token initialized a session");
}

/// Two HTTP sessions at once: each is its own workspace, listing and acting on its own tab
/// only.
#[tokio::test]
async fn two_sessions_each_see_only_their_own_tabs() {
    let url = serve().await;
    let (alpha, beta) = tokio::join!(client(&url, TOKEN), client(&url, TOKEN));

    let (alpha_opened, beta_opened) = tokio::join!(
        invoke(&alpha, "browser_navigate", json!({"url": "https://alpha.example/"})),
        invoke(&beta, "browser_navigate", json!({"url": "https://beta.example/"})),
    );
    assert_eq!(status(&alpha_opened), "succeeded", "{}", describe(&alpha_opened));
    assert_eq!(status(&beta_opened), "succeeded", "{}", describe(&beta_opened));
    let alpha_tab = alpha_opened["facts"]["tab"].as_str().unwrap_or_default().to_owned();
    let beta_tab = beta_opened["facts"]["tab"].as_str().unwrap_or_default().to_owned();

    for (session, own, title) in [(&alpha, &alpha_tab, "Alpha"), (&beta, &beta_tab, "Beta")] {
        let listed = invoke(session, "browser_tabs", json!({"action": "list"})).await;
        assert_eq!(status(&listed), "succeeded", "{}", describe(&listed));
        let tabs = listed["facts"]["tabs"].as_array().cloned().unwrap_or_default();
        assert_eq!(tabs.len(), 1, "{}", describe(&listed));
        assert_eq!(tabs[0]["tab"], own.as_str());
        assert_eq!(tabs[0]["title"], title);
        // The default tab is the session's own.
        let read = invoke(session, "browser_read", json!({})).await;
        assert_eq!(read["facts"]["tab"], own.as_str(), "{}", describe(&read));
    }

    // Another session's handle means nothing here: refused, nothing done.
    for (session, foreign) in [(&alpha, &beta_tab), (&beta, &alpha_tab)] {
        for (tool, arguments) in [
            ("browser_read", json!({"tab": foreign})),
            ("browser_tabs", json!({"action": "close", "tab": foreign})),
            ("browser_navigate", json!({"url": "https://alpha.example/", "tab": foreign})),
        ] {
            let refused = invoke(session, tool, arguments).await;
            assert_ne!(
                status(&refused),
                "succeeded",
                "{tool} acted on a foreign tab: {}",
                describe(&refused)
            );
            assert_eq!(refused["effect"], "none", "{}", describe(&refused));
        }
    }
    // Both tabs are still there, each still listed by its own session only.
    tokio::time::sleep(Duration::from_millis(10)).await;
    let listed = invoke(&beta, "browser_tabs", json!({"action": "list"})).await;
    assert_eq!(listed["facts"]["tabs"].as_array().map(Vec::len), Some(1), "{}", describe(&listed));
    let _ = alpha.cancel().await;
    let _ = beta.cancel().await;
}

/// The binary serves HTTP on the address it logs, behind the token from the environment.
#[tokio::test]
async fn binary_serves_http_behind_the_token() {
    let mut child = Command::new(support::binary())
        .args(["--transport", "http", "--listen", "127.0.0.1:0"])
        .env(TOKEN_ENV, TOKEN)
        .env("GHOSTLIGHT_MCP_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = child.stderr.take().unwrap_or_else(|| panic!("no stderr"));
    let (found, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(at) = line.find("http://") {
                let _ = found.send(line[at..].trim().to_owned());
            }
        }
    });
    let url =
        lines.recv_timeout(Duration::from_secs(20)).unwrap_or_else(|e| panic!("no address logged: {e}"));
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{url}");

    assert_eq!(post(&url, &[]).await, 401);
    let session = client(&url, TOKEN).await;
    let tools = session.list_all_tools().await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tools.len(), 24);
    let explained = invoke(&session, "policy_explain", json!({})).await;
    assert_eq!(status(&explained), "succeeded");
    let _ = session.cancel().await;
    let _ = child.kill();
    let _ = child.wait();
}
