//! The MCP surface over a scripted browser, through rmcp's own client in-process: tools/list,
//! both renderings, protocol errors, concurrency, cancellation and progress.

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ghostlight_core::MemoryAuditSink;
use ghostlight_core::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};
use ghostlight_core::{Cancellation, Ghostlight, Status};
use ghostlight_mcp::GhostlightServer;
use rmcp::model::{ErrorCode, NumberOrString, ProgressNotificationParam, ProgressToken, RequestMetaObject};
use rmcp::service::{NotificationContext, RoleClient, ServiceExt};
use rmcp::{ClientHandler, ServiceError};
use serde_json::{Value, json};
use support::{Paced, call, connect, describe, envelope_of, status};

fn site() -> ScriptedBrowser {
    let mut browser = ScriptedBrowser::new();
    for n in 1..=4 {
        browser = browser.site(
            &format!("https://site{n}.example/"),
            ScriptedPage::new(&format!("Site {n}"))
                .text(&format!("Page {n}"))
                .element(ScriptedElement::button("Go")),
        );
    }
    browser
}

#[tokio::test]
async fn tools_list_is_the_catalog() {
    let client = connect(GhostlightServer::new(Arc::new(site()))).await;
    let info = client.peer_info().unwrap_or_else(|| panic!("no server info"));
    assert_eq!(info.server_info.as_ref().map(|i| i.name.as_str()), Some("ghostlight-mcp"));
    let tools = client.list_all_tools().await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tools.len(), 24);
    assert_eq!(serde_json::to_value(&tools).unwrap_or_default(), ghostlight_core::render_catalog());
    let _ = client.cancel().await;
}

#[tokio::test]
async fn results_render_twice_and_errors_are_envelopes() {
    let client = connect(GhostlightServer::new(Arc::new(site()))).await;

    let opened = client.call_tool(call("browser_navigate", json!({"url": "https://site1.example/"}))).await;
    let opened = envelope_of(&opened.unwrap_or_else(|e| panic!("{e}")));
    assert_eq!(status(&opened), "succeeded", "{}", describe(&opened));
    assert_eq!(opened["summary"], "Opened site1.example.");

    // Malformed arguments: a failed envelope with isError, never a protocol error.
    for bad in [json!({"url": 5}), json!({"url": "https://site1.example/", "bogus": true}), json!({})] {
        let result =
            client.call_tool(call("browser_navigate", bad.clone())).await.unwrap_or_else(|e| panic!("{e}"));
        let envelope = envelope_of(&result);
        assert_eq!(status(&envelope), "failed", "{bad}: {}", describe(&envelope));
        assert_eq!(envelope["facts"]["reason"], "invalid_arguments");
        assert_eq!(envelope["effect"], "none");
    }

    // Refused by authority: blocked, with isError.
    let blocked = client
        .call_tool(call(
            "browser_navigate",
            json!({"url": "https://site2.example/", "restrict_hosts": ["site1.example"]}),
        ))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status(&envelope_of(&blocked)), "blocked");
    let blocked = client.call_tool(call("browser_execute", json!({"script": "1"}))).await;
    assert_eq!(status(&envelope_of(&blocked.unwrap_or_else(|e| panic!("{e}")))), "blocked");

    // An unknown tool is a protocol error (invalid params).
    let error = client.call_tool(call("browser_teleport", json!({}))).await.err();
    match error {
        Some(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
            assert!(error.message.contains("browser_teleport"), "{}", error.message);
        }
        other => panic!("expected an invalid-params error, got {other:?}"),
    }
    let _ = client.cancel().await;
}

/// 20 calls in flight across 4 tabs: every one answered, none lost, each tab used by one call
/// at a time, the tabs in parallel.
#[tokio::test]
async fn twenty_calls_in_flight_across_four_tabs() {
    const DELAY: Duration = Duration::from_millis(100);
    let browser = Paced::new(site(), DELAY);
    let scripted = browser.inner.clone();
    let client = connect(GhostlightServer::new(Arc::new(browser))).await;

    let mut tabs = Vec::new();
    for n in 1..=4 {
        let opened = client
            .call_tool(call(
                "browser_navigate",
                json!({"url": format!("https://site{n}.example/"), "new_tab": true}),
            ))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let envelope = envelope_of(&opened);
        assert_eq!(status(&envelope), "succeeded", "{}", describe(&envelope));
        tabs.push(envelope["facts"]["tab"].as_str().unwrap_or_default().to_owned());
    }

    let started = Instant::now();
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..20 {
        let peer = client.peer().clone();
        let (n, tab) = (i % 4 + 1, tabs[i % 4].clone());
        calls.spawn(async move {
            let result = peer.call_tool(call("browser_read", json!({"tab": tab}))).await;
            (n, tab, result)
        });
    }
    let mut invocations = std::collections::BTreeSet::new();
    let mut answered = 0;
    while let Some(joined) = calls.join_next().await {
        let (n, tab, result) = joined.unwrap_or_else(|e| panic!("{e}"));
        let envelope = envelope_of(&result.unwrap_or_else(|e| panic!("{e}")));
        assert_eq!(status(&envelope), "succeeded", "{}", describe(&envelope));
        assert_eq!(envelope["facts"]["tab"], tab.as_str());
        assert!(envelope["facts"]["text"].as_str().unwrap_or_default().contains(&format!("Page {n}")));
        invocations.insert(envelope["invocation"].as_str().unwrap_or_default().to_owned());
        answered += 1;
    }
    let elapsed = started.elapsed();
    assert_eq!(answered, 20);
    assert_eq!(invocations.len(), 20, "invocation handles are unique");
    assert_eq!(scripted.max_in_flight_per_tab(), 1, "one call per tab at a time");
    assert!(scripted.max_in_flight_total() >= 2, "tabs ran in parallel");
    // Five reads per tab run one after another; the four tabs overlap.
    assert!(elapsed >= DELAY * 5, "{elapsed:?}");
    assert!(elapsed < DELAY * 20, "the tabs did not overlap: {elapsed:?}");
    let _ = client.cancel().await;
}

/// Library level: firing the cancellation stops a long wait, which answers `cancelled`.
#[tokio::test]
async fn cancellation_stops_the_call_and_answers_cancelled() {
    let server = GhostlightServer::new(Arc::new(Paced::new(site(), Duration::ZERO)));
    let never = Cancellation::never();
    let opened = server.call("browser_navigate", &json!({"url": "https://site1.example/"}), &never).await;
    assert_eq!(status(&envelope_of(&opened.unwrap_or_else(|e| panic!("{e:?}")))), "succeeded");

    let cancellation = Cancellation::new();
    let fire = cancellation.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        fire.cancel();
    });
    let started = Instant::now();
    let waited = server
        .call("browser_wait", &json!({"condition": "duration", "value": 10_000}), &cancellation)
        .await
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(started.elapsed() < Duration::from_secs(5), "the wait was not cut short");
    let envelope = envelope_of(&waited);
    assert_eq!(status(&envelope), "cancelled", "{}", describe(&envelope));
    assert_eq!(waited.is_error, Some(true), "every status but succeeded sets isError");
}

/// Protocol level: a client that abandons a call sends `notifications/cancelled`; the server
/// stops the invocation (its audit record says `cancelled`) and the tab is free again.
#[tokio::test]
async fn notifications_cancelled_stops_the_invocation() {
    let audit = Arc::new(MemoryAuditSink::new());
    let port = Arc::new(Paced::new(site(), Duration::ZERO));
    let ghostlight = Ghostlight::builder(port).audit(audit.clone()).build();
    let client = connect(GhostlightServer::over(ghostlight)).await;
    let opened = client.call_tool(call("browser_navigate", json!({"url": "https://site1.example/"}))).await;
    assert_eq!(status(&envelope_of(&opened.unwrap_or_else(|e| panic!("{e}")))), "succeeded");

    // Dropping the call future makes rmcp's client send notifications/cancelled.
    let long = client.call_tool(call("browser_wait", json!({"condition": "duration", "value": 10_000})));
    assert!(tokio::time::timeout(Duration::from_millis(300), long).await.is_err());

    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let records = audit.records();
        if let Some(record) = records.iter().find(|r| r.tool().as_str() == "browser_wait") {
            assert_eq!(record.status(), Status::Cancelled);
            assert!(record.duration_ms() < 5_000);
            break;
        }
        assert!(Instant::now() < deadline, "the wait was not cancelled: {:?}", records.len());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let read = client.call_tool(call("browser_read", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status(&envelope_of(&read)), "succeeded");
    let _ = client.cancel().await;
}

#[derive(Clone, Default)]
struct Progress(Arc<Mutex<Vec<ProgressNotificationParam>>>);

impl ClientHandler for Progress {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(params);
    }
}

/// With a progress token, `browser_wait` reports its start and end, `browser_flow` and
/// `browser_sequence` their start and each step as it ends (and an end when they stopped
/// early); other tools send none. Values only increase.
#[tokio::test]
async fn waits_and_flows_report_progress() {
    let server = GhostlightServer::new(Arc::new(site()));
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let progress = Progress::default();
    let client = progress.clone().serve(client_io).await.unwrap_or_else(|e| panic!("{e}"));

    let with_token = |name: &str, arguments: Value, token: i64| {
        let mut params = call(name, arguments);
        params.meta =
            Some(RequestMetaObject::with_progress_token(ProgressToken(NumberOrString::Number(token))));
        params
    };
    let opened =
        client.call_tool(with_token("browser_navigate", json!({"url": "https://site1.example/"}), 1)).await;
    assert_eq!(status(&envelope_of(&opened.unwrap_or_else(|e| panic!("{e}")))), "succeeded");
    let waited = client.call_tool(with_token("browser_wait", json!({"condition": "load_ready"}), 2)).await;
    assert_eq!(status(&envelope_of(&waited.unwrap_or_else(|e| panic!("{e}")))), "succeeded");
    let flow = json!({"steps": [{"id": "read", "tool": "browser_read", "arguments": {}}]});
    let flowed = client.call_tool(with_token("browser_flow", flow, 3)).await;
    assert_eq!(status(&envelope_of(&flowed.unwrap_or_else(|e| panic!("{e}")))), "succeeded");
    let steps = json!({"steps": [
        {"action": "click", "selector": {"name": "Nowhere at all"}},
        {"action": "wait", "condition": "load_ready"},
    ]});
    let stopped = client.call_tool(with_token("browser_sequence", steps, 4)).await;
    assert_eq!(status(&envelope_of(&stopped.unwrap_or_else(|e| panic!("{e}")))), "failed");
    let read = client.call_tool(with_token("browser_read", json!({}), 5)).await;
    assert_eq!(status(&envelope_of(&read.unwrap_or_else(|e| panic!("{e}")))), "succeeded");

    // Notifications may trail the response a little.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let seen = progress.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    // rmcp's client assigns its own token per request; pair them by message.
    let summary: Vec<(String, f64, Option<f64>)> =
        seen.iter().map(|p| (p.message.clone().unwrap_or_default(), p.progress, p.total)).collect();
    let expected = [
        ("browser_wait started", 0.0, 1.0),
        ("browser_wait finished", 1.0, 1.0),
        ("browser_flow started", 0.0, 1.0),
        (r#"browser_flow step 1 of 1 ("read"): browser_read succeeded"#, 1.0, 1.0),
        ("browser_sequence started", 0.0, 2.0),
        ("browser_sequence step 1 of 2: browser_click failed", 1.0, 2.0),
        ("browser_sequence finished", 2.0, 2.0),
    ]
    .map(|(message, value, total)| (message.to_owned(), value, Some(total)));
    assert_eq!(summary, expected, "{seen:?}");
    let token = |index: usize| seen[index].progress_token.clone();
    assert_eq!(token(0), token(1));
    assert_eq!(token(2), token(3));
    assert!(token(4) == token(5) && token(5) == token(6));
    assert_ne!(token(0), token(2));
    assert_ne!(token(2), token(4));
    let _ = client.cancel().await;
}

/// A screenshot adds one `image/png` block; a replay saved to the client adds one `image/gif`
/// block, a replay saved inside the browser none. The bytes are in neither rendering
/// (`envelope_of` checks).
#[tokio::test]
async fn images_travel_as_blocks_beside_the_envelope() {
    let client = connect(GhostlightServer::new(Arc::new(site()))).await;
    let opened = client.call_tool(call("browser_navigate", json!({"url": "https://site1.example/"}))).await;
    assert_eq!(status(&envelope_of(&opened.unwrap_or_else(|e| panic!("{e}")))), "succeeded");

    let mime_types = |result: &rmcp::model::CallToolResult| -> Vec<String> {
        result
            .content
            .iter()
            .filter_map(|block| block.as_image().map(|image| image.mime_type.clone()))
            .collect()
    };
    let shot =
        client.call_tool(call("browser_screenshot", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
    let envelope = envelope_of(&shot);
    assert_eq!(status(&envelope), "succeeded", "{}", describe(&envelope));
    assert_eq!(mime_types(&shot), ["image/png"]);

    for (download, expected) in [(false, vec!["image/gif"]), (true, vec![])] {
        let started = client.call_tool(call("browser_record", json!({"action": "start"}))).await;
        let started = envelope_of(&started.unwrap_or_else(|e| panic!("{e}")));
        assert_eq!(status(&started), "succeeded", "{}", describe(&started));
        let recording = started["facts"]["recording"].clone();
        let save = json!({"action": "save", "recording": recording, "download": download});
        let saved =
            client.call_tool(call("browser_record", save.clone())).await.unwrap_or_else(|e| panic!("{e}"));
        let envelope = envelope_of(&saved);
        assert_eq!(status(&envelope), "succeeded", "{save}: {}", describe(&envelope));
        assert_eq!(mime_types(&saved), expected, "{save}");
    }
    let _ = client.cancel().await;
}

/// Log messages a client received.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<Value>>>);

impl ClientHandler for Logs {
    #[allow(deprecated)] // MCP logging (rmcp marks it deprecated by a later revision)
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let message = json!({"level": params.level, "logger": params.logger, "data": params.data});
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(message);
    }
}

/// The `logging` capability: nothing is sent until the client sets a level; then each call is
/// one `info` message of what the server logs (tool, invocation, status, effect), never the
/// arguments, summary or page content.
#[tokio::test]
#[allow(deprecated)]
async fn logging_set_level_then_one_payload_free_message_per_call() {
    let server = GhostlightServer::new(Arc::new(site()));
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let logs = Logs::default();
    let client = logs.clone().serve(client_io).await.unwrap_or_else(|e| panic!("{e}"));
    let info = client.peer_info().unwrap_or_else(|| panic!("no server info"));
    assert!(info.capabilities.logging.is_some(), "the logging capability is declared");
    const SECRET: &str = "https://site1.example/?token=4711";
    let before = client.call_tool(call("browser_navigate", json!({"url": SECRET}))).await;
    assert!(before.is_ok());
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(logs.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_empty(), "no level set yet");
    let level = rmcp::model::SetLevelRequestParams::new(rmcp::model::LoggingLevel::Info);
    client.set_level(level).await.unwrap_or_else(|e| panic!("{e}"));
    let read = client.call_tool(call("browser_read", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
    let invocation = envelope_of(&read)["invocation"].clone();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let seen = logs.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0]["level"], "info");
    assert_eq!(seen[0]["logger"], "ghostlight");
    assert_eq!(seen[0]["data"]["tool"], "browser_read");
    assert_eq!(seen[0]["data"]["status"], "succeeded");
    assert_eq!(seen[0]["data"]["invocation"], invocation);
    let text = serde_json::to_string(&seen).unwrap_or_default();
    assert!(!text.contains("4711") && !text.contains("site1"), "{text}");
    // A higher level: no info messages.
    let level = rmcp::model::SetLevelRequestParams::new(rmcp::model::LoggingLevel::Error);
    client.set_level(level).await.unwrap_or_else(|e| panic!("{e}"));
    let _ = client.call_tool(call("browser_read", json!({}))).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(logs.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len(), 1);
}
