//! Figures of the real `ghostlight-mcp` binary over stdio with headless Chromium (the
//! WebDriver default), through rmcp's child-process client. Printed, never asserted:
//!
//! * spawn to `tools/list`: the time from starting the process to holding the 24-tool list
//!   (initialize handshake included), over `GHOSTLIGHT_BENCH_SPAWNS` spawns (default 10):
//!   median, min and max;
//! * the bytes of large results as the MCP text block carries them (and as
//!   `structuredContent` serializes): `browser_read` of a long article (about 60 KB of text)
//!   at the default and the largest `max_chars`, and `browser_inspect` of a page of 500
//!   controls at the default and the largest `max_items`.
//!
//! Run with `cargo bench -p ghostlight-cli --bench mcp`; needs `chromedriver` on `PATH`.

#[path = "../tests/support/fixture.rs"]
#[allow(dead_code)]
mod fixture;
// The loopback page server the fixture site runs on.
#[path = "../../ghostlight-webdriver/tests/support/server.rs"]
#[allow(dead_code)]
mod site;

use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::{RoleClient, RunningService, ServiceExt};
use serde_json::{Map, Value, json};

/// The binary Cargo built for this bench.
const BINARY: &str = env!("CARGO_BIN_EXE_ghostlight-mcp");

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("tokio runtime: {e}"));
    runtime.block_on(run());
}

async fn run() {
    let spawns: usize =
        std::env::var("GHOSTLIGHT_BENCH_SPAWNS").ok().and_then(|n| n.parse().ok()).unwrap_or(10);
    let mut times = Vec::with_capacity(spawns);
    for _ in 0..spawns {
        let started = Instant::now();
        let client = spawn().await;
        let tools = client.list_all_tools().await.unwrap_or_else(|e| panic!("tools/list: {e}"));
        times.push(started.elapsed());
        assert_eq!(tools.len(), 24);
        let _ = client.cancel().await;
    }
    times.sort();
    println!("| Measure | Median | Min | Max | N |");
    println!("|---|---|---|---|---|");
    println!(
        "| spawn to tools/list | {} | {} | {} | {spawns} |",
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1])
    );

    let site = fixture::Fixture::start();
    let client = spawn().await;
    let started = Instant::now();
    let opened = envelope(&client, "browser_navigate", json!({"url": site.url("/article")})).await;
    println!("\nfirst navigate (browser start + page load): {}", ms(started.elapsed()));
    assert_eq!(opened.1["status"], "succeeded", "{}", opened.1);

    println!("\n| Result | Text block bytes | structuredContent bytes | Notes |");
    println!("|---|---|---|---|");
    for (label, max_chars) in [("default max_chars (8,000)", None), ("max_chars 50,000", Some(50_000))] {
        let arguments = match max_chars {
            Some(n) => json!({"max_chars": n}),
            None => json!({}),
        };
        let (text, structured) = envelope(&client, "browser_read", arguments).await;
        let chars = structured["facts"]["text"].as_str().map_or(0, |t| t.chars().count());
        let truncated = &structured["facts"]["truncated"];
        println!(
            "| browser_read, long article, {label} | {} | {} | {chars} characters of text, truncated: {truncated} |",
            text.len(),
            structured.to_string().len()
        );
    }

    let opened = envelope(&client, "browser_navigate", json!({"url": site.url("/controls")})).await;
    assert_eq!(opened.1["status"], "succeeded", "{}", opened.1);
    for (label, max_items) in [("default max_items (80)", None), ("max_items 200", Some(200))] {
        let arguments = match max_items {
            Some(n) => json!({"max_items": n}),
            None => json!({}),
        };
        let (text, structured) = envelope(&client, "browser_inspect", arguments).await;
        let items = structured["facts"]["items"].as_array().map_or(0, Vec::len);
        println!(
            "| browser_inspect, 500 controls, {label} | {} | {} | {items} rows, {} bytes per row in the text |",
            text.len(),
            structured.to_string().len(),
            text.len() / items.max(1)
        );
    }
    let _ = client.cancel().await;
}

/// The binary, initialized, as an rmcp client.
async fn spawn() -> RunningService<RoleClient, ()> {
    let command = tokio::process::Command::new(BINARY);
    let (transport, _stderr) = rmcp::transport::TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start ghostlight-mcp: {e}"));
    ().serve(transport).await.unwrap_or_else(|e| panic!("ghostlight-mcp did not initialize: {e}"))
}

/// Call `tool`; answer its text block and its `structuredContent`.
async fn envelope(client: &RunningService<RoleClient, ()>, tool: &str, arguments: Value) -> (String, Value) {
    let arguments = match arguments {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    let result: CallToolResult = client.call_tool(params).await.unwrap_or_else(|e| panic!("{tool}: {e}"));
    let text = match result.content.first() {
        Some(ContentBlock::Text(text)) => text.text.clone(),
        other => panic!("{tool}: the first block is not text: {other:?}"),
    };
    (text, result.structured_content.unwrap_or_default())
}

/// A duration in milliseconds with one decimal.
fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}
