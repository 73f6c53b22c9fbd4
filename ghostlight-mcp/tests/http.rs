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
use ghostlight_mcp::http::{BearerToken, DEFAULT_MAX_SESSIONS, HttpOptions, default_sessions_per_token};
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
    serve_options(browser, |options| {
        options.max_sessions = max_sessions;
        options.sessions_per_token = default_sessions_per_token(max_sessions);
    })
    .await
}

/// Serve a server over `browser` with both tokens and the options `tweak` leaves.
async fn serve_options(browser: Arc<ScriptedBrowser>, tweak: impl FnOnce(&mut HttpOptions)) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("{e}"));
    let address = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    let tokens =
        [TOKEN, TOKEN_B].iter().map(|t| BearerToken::new(t).unwrap_or_else(|e| panic!("{e}"))).collect();
    let mut options = HttpOptions::new(address, tokens);
    tweak(&mut options);
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
    let status = response.status().as_u16();
    // Read the answer to its end, as a client does: until then the session is busy with the
    // call, and a busy session is never ended to make room.
    let _ = response.bytes().await;
    (status, session)
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
    let status = response.status().as_u16();
    let _ = response.bytes().await;
    status
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

/// A session's `tools/list` POST whose body never finishes: the session is busy with it
/// until the server's body read timeout (the connection is returned, to be dropped).
async fn busy(url: &str, token: &str, session: &str) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt as _;
    let address = url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap_or_else(|e| panic!("{e}"));
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nMcp-Session-Id: {session}\r\n\
         Mcp-Protocol-Version: 2025-11-25\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{{\"jsonrpc\""
    );
    stream.write_all(head.as_bytes()).await.unwrap_or_else(|e| panic!("{e}"));
    // Let the server see the request begin.
    tokio::time::sleep(Duration::from_millis(200)).await;
    stream
}

/// The binding of a session to its token lasts its whole life: another token that opens and
/// deletes hundreds of sessions meanwhile never gets it (before, the owners' table was cleared
/// wholesale past `4 × max_sessions` entries, and the session was then anyone's).
#[tokio::test]
async fn a_session_stays_its_tokens_however_many_others_come_and_go() {
    let url = serve_with(Arc::new(browser()), 4).await;
    let (_, a) = open_raw(&url, TOKEN).await;
    let a = a.unwrap_or_else(|| panic!("no session id"));
    for _ in 0..100 {
        let (status, b) = open_raw(&url, TOKEN_B).await;
        assert_eq!(status, 200);
        let b = b.unwrap_or_else(|| panic!("no session id"));
        let deleted = reqwest::Client::new()
            .delete(&url)
            .header("Authorization", format!("Bearer {TOKEN_B}"))
            .header("Mcp-Session-Id", &b)
            .send()
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(deleted.status().is_success(), "{}", deleted.status());
        assert_eq!(list_raw(&url, TOKEN_B, &b).await, 404, "a deleted session is gone");
    }
    assert_eq!(list_raw(&url, TOKEN_B, &a).await, 404, "another client's token");
    assert_ne!(list_raw(&url, TOKEN, &a).await, 404, "its own token");
}

/// One token cannot take every place: past its share its own least recently used idle session
/// makes room, and with all of its sessions busy it is refused naming its limit, while another
/// token still gets in. A full server evicts the least recently used idle session before it
/// refuses, and refuses (naming `[limits] sessions`) only when every session is busy.
#[tokio::test]
async fn places_are_shared_fairly_and_idle_sessions_make_room() {
    let url = serve_options(Arc::new(browser()), |options| {
        options.max_sessions = 3;
        options.sessions_per_token = 2;
    })
    .await;
    let (_, a1) = open_raw(&url, TOKEN).await;
    let (_, a2) = open_raw(&url, TOKEN).await;
    let (a1, a2) = (a1.unwrap_or_default(), a2.unwrap_or_default());
    // A's third session: A's oldest idle one (a1) makes room.
    let (status, a3) = open_raw(&url, TOKEN).await;
    assert_eq!(status, 200);
    let a3 = a3.unwrap_or_default();
    assert_eq!(list_raw(&url, TOKEN, &a1).await, 404, "the evicted session is gone");
    // Both of A's sessions busy: A is refused with its own limit named; B gets in.
    let _held = (busy(&url, TOKEN, &a2).await, busy(&url, TOKEN, &a3).await);
    let response = reqwest::Client::new()
        .post(&url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", format!("Bearer {TOKEN}"))
        .body(INITIALIZE)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status().as_u16(), 503, "A past its share with every session busy");
    let body = response.text().await.unwrap_or_default();
    assert!(body.contains("sessions_per_token"), "{body}");
    let (status, b1) = open_raw(&url, TOKEN_B).await;
    assert_eq!(status, 200, "another token still gets in");
    // The server is full (a2, a3 busy, b1): B's second session evicts B's own idle b1...
    let (status, _) = open_raw(&url, TOKEN_B).await;
    assert_eq!(status, 200);
    assert_eq!(list_raw(&url, TOKEN_B, &b1.unwrap_or_default()).await, 404);
    // The Host and Origin checks answer before any limit: 403, never 503.
    assert_eq!(
        post(&url, &[("Authorization", &format!("Bearer {TOKEN}")), ("Host", "evil.example")]).await,
        403
    );
}

/// A session idle past the timeout ends: its id is unknown afterwards, and its tabs close.
#[tokio::test]
async fn idle_sessions_end_with_their_tabs() {
    let browser = Arc::new(browser());
    let url =
        serve_options(browser.clone(), |options| options.idle_timeout = Duration::from_millis(500)).await;
    let first = client(&url, TOKEN).await;
    let opened = invoke(&first, "browser_navigate", json!({"url": "https://alpha.example/"})).await;
    assert_eq!(status(&opened), "succeeded", "{}", describe(&opened));
    let (_, session) = open_raw(&url, TOKEN_B).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    // Any request sweeps: the idle sessions end.
    let (status_now, _) = open_raw(&url, TOKEN_B).await;
    assert_eq!(status_now, 200);
    assert_eq!(list_raw(&url, TOKEN_B, &session.unwrap_or_default()).await, 404, "expired");
    use ghostlight_core::BrowserPort as _;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while browser.tabs().await.map(|t| t.len()).unwrap_or(0) > 0 {
        assert!(tokio::time::Instant::now() < deadline, "the expired session's tab is still open");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = first.cancel().await;
}

/// The server's own loopback origin is accepted (the conformance suite's localhost check),
/// any other refused; a configured one is accepted too.
#[tokio::test]
async fn loopback_origins_of_the_server_are_accepted_and_others_refused() {
    let url = serve_options(Arc::new(browser()), |options| {
        options.allowed_origins = vec!["https://app.example".into()];
    })
    .await;
    let port = url.trim_start_matches("http://127.0.0.1:").trim_end_matches("/mcp").to_owned();
    let bearer = format!("Bearer {TOKEN}");
    for origin in
        [format!("http://localhost:{port}"), format!("http://127.0.0.1:{port}"), "https://app.example".into()]
    {
        assert_eq!(post(&url, &[("Authorization", &bearer), ("Origin", &origin)]).await, 200, "{origin}");
    }
    for origin in ["http://localhost:1", "https://evil.example", "null"] {
        assert_eq!(post(&url, &[("Authorization", &bearer), ("Origin", origin)]).await, 403, "{origin}");
    }
}

/// The median time of 15 `browser_tabs` list calls in `session`.
async fn median_call(session: &RunningService<RoleClient, ()>) -> Duration {
    let mut times = Vec::new();
    for _ in 0..15 {
        let started = tokio::time::Instant::now();
        let listed = invoke(session, "browser_tabs", json!({"action": "list"})).await;
        assert_eq!(status(&listed), "succeeded", "{}", describe(&listed));
        times.push(started.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

/// Slow clients are shed: 200 connections sending half a request's headers and never more
/// are all closed within the header read timeout (past the cap on unauthenticated
/// connections, the oldest at once), while an authenticated client keeps its figures: the
/// median of its calls before and during (printed; the bound asserted is generous).
#[tokio::test]
async fn slow_clients_are_shed_and_a_real_client_keeps_working() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    const SLOW: usize = 200;
    let url = serve().await;
    let address = url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let session = client(&url, TOKEN).await;
    let before = median_call(&session).await;
    let started = tokio::time::Instant::now();
    let mut slow = Vec::new();
    for _ in 0..SLOW {
        let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap_or_else(|e| panic!("{e}"));
        let _ = stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ").await;
        slow.push(stream);
    }
    let during = median_call(&session).await;
    // Every slow connection is closed by the server (a read answers end of stream or an error).
    let bound = ghostlight_mcp::http::HEADER_READ_TIMEOUT + Duration::from_secs(10);
    let mut closed = 0;
    for stream in &mut slow {
        let mut buffer = [0_u8; 256];
        let left = bound.saturating_sub(started.elapsed());
        match tokio::time::timeout(left, stream.read(&mut buffer)).await {
            Ok(Ok(_) | Err(_)) => closed += 1,
            Err(_) => break,
        }
    }
    let took = started.elapsed();
    eprintln!(
        "  {SLOW} slow connections: {closed} closed by the server within {took:?}; an authenticated client's \
         median call: {before:?} before, {during:?} during"
    );
    assert_eq!(closed, SLOW, "slow connections left open after {took:?}");
    assert!(during < Duration::from_secs(2), "the authenticated client slowed to {during:?}");
    let again = invoke(&session, "browser_tabs", json!({"action": "list"})).await;
    assert_eq!(status(&again), "succeeded", "{}", describe(&again));
    let _ = session.cancel().await;
}
