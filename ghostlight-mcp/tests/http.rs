//! The streamable HTTP transport (feature `http`) in process: a bearer token is required on
//! every request, the Host check holds, a session belongs to its token, sessions are limited,
//! and concurrent sessions are isolated workspaces. (The binaries over HTTP are tested in
//! ghostlight-cli.)

#![cfg(feature = "http")]

mod support;

use std::sync::Arc;
use std::time::Duration;

use ghostlight_core::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};
use ghostlight_mcp::GhostlightServer;
use ghostlight_mcp::http::{BearerToken, DEFAULT_ALLOWED_HOSTS, DEFAULT_MAX_SESSIONS, HttpOptions};
use rmcp::service::{RoleClient, RunningService, ServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use support::{describe, invoke, status};

const TOKEN: &str = "test-token-0123456789abcdef";
/// A second client's token.
const TOKEN_B: &str = "other-client-fedcba9876543210";

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

fn browser() -> ScriptedBrowser {
    ScriptedBrowser::new().site("https://alpha.example/", ScriptedPage::new("Alpha").text("Alpha page")).site(
        "https://beta.example/",
        ScriptedPage::new("Beta").text("Beta page").element(ScriptedElement::button("Go")),
    )
}

/// Serve `GhostlightServer::new(browser())` over HTTP on a free loopback port.
async fn serve() -> String {
    serve_with(Arc::new(browser()), DEFAULT_MAX_SESSIONS).await
}

/// Serve a server over `browser` with both tokens and at most `max_sessions` sessions.
async fn serve_with(browser: Arc<ScriptedBrowser>, max_sessions: usize) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("{e}"));
    let address = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    let options = HttpOptions {
        listen: address,
        tokens: [TOKEN, TOKEN_B]
            .iter()
            .map(|t| BearerToken::new(t).unwrap_or_else(|e| panic!("{e}")))
            .collect(),
        allowed_hosts: DEFAULT_ALLOWED_HOSTS.iter().map(|h| (*h).to_owned()).collect(),
        max_sessions,
    };
    let server = GhostlightServer::new(browser);
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

/// A raw `initialize` POST with `token`: the status and the session id rmcp handed out.
async fn open_raw(url: &str, token: &str) -> (u16, Option<String>) {
    let response = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", format!("Bearer {token}"))
        .body(INITIALIZE)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let session = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    (response.status().as_u16(), session)
}

/// A raw `tools/list` POST in `session` with `token`; answers the status.
async fn list_raw(url: &str, token: &str, session: &str) -> u16 {
    let response = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", format!("Bearer {token}"))
        .header("Mcp-Session-Id", session)
        .header("Mcp-Protocol-Version", "2025-11-25")
        .body(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    response.status().as_u16()
}

/// A session answers only to the token that opened it: another client holding its id gets
/// the answer an unknown session gets.
#[tokio::test]
async fn a_session_belongs_to_the_token_that_opened_it() {
    let url = serve().await;
    let (status, session) = open_raw(&url, TOKEN).await;
    assert_eq!(status, 200);
    let session = session.unwrap_or_else(|| panic!("no session id"));
    assert_eq!(list_raw(&url, TOKEN_B, &session).await, 404, "another client's token");
    assert_ne!(list_raw(&url, TOKEN, &session).await, 404, "its own token");
}

/// Sessions past the limit are refused with a reason; ending one makes room, and its tabs
/// are closed.
#[tokio::test]
async fn sessions_are_limited_and_end_with_their_tabs() {
    let browser = Arc::new(browser());
    let url = serve_with(browser.clone(), 2).await;
    let (first, second) = tokio::join!(client(&url, TOKEN), client(&url, TOKEN));
    let opened = invoke(&first, "browser_navigate", json!({"url": "https://alpha.example/"})).await;
    assert_eq!(status(&opened), "succeeded", "{}", describe(&opened));
    let response = reqwest::Client::new()
        .post(&url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", format!("Bearer {TOKEN}"))
        .body(INITIALIZE)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status().as_u16(), 503, "a third session");
    let body = response.text().await.unwrap_or_default();
    assert!(body.contains("limit of 2 MCP sessions"), "{body}");

    use ghostlight_core::BrowserPort as _;
    assert_eq!(browser.tabs().await.map(|t| t.len()).unwrap_or(0), 1);
    let _ = first.cancel().await;
    // The first session's tab closes once its session is gone (a condition, bounded).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while browser.tabs().await.map(|t| t.len()).unwrap_or(0) > 0 {
        assert!(tokio::time::Instant::now() < deadline, "the ended session's tab is still open");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let third = client(&url, TOKEN).await;
    let listed = invoke(&third, "browser_tabs", json!({"action": "list"})).await;
    assert_eq!(status(&listed), "succeeded", "{}", describe(&listed));
    let _ = second.cancel().await;
    let _ = third.cancel().await;
}
