//! Concurrent MCP sessions over streamable HTTP, in process (`http::serve_on`), headless
//! Chromium through the WebDriver adapter. Printed, never asserted:
//!
//! * for 1, 2, 4 and 8 sessions at once, each doing `ROUNDS` rounds of `browser_read`,
//!   `browser_find` and `browser_click` (by selector) on its own tab: calls per second over
//!   the whole run, the p50/p95 latency of one call, and the browsers' memory (PSS) after the
//!   run; once with a browser per session (`--http-browsers per-session`) and once with every
//!   session in a user context of one shared browser (`SharedBrowser`, the binary's default
//!   for Chromium); then the memory each added session cost, (PSS at 8 − PSS at 1) / 7;
//! * the p95 of one session's calls while another session's navigation waits on a page that
//!   answers after `SLOW`, in both modes.
//!
//! Run with `cargo bench -p ghostlight-mcp --features http --bench sessions`; needs
//! `chromedriver` on `PATH`. Bounded: at most 8 sessions, `ROUNDS` rounds each.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_core::{BrowserPort, Ghostlight};
use ghostlight_mcp::GhostlightServer;
use ghostlight_mcp::http::{BearerToken, HttpOptions};
use ghostlight_webdriver::{SharedBrowser, WebDriverBrowser, WebDriverConfig};
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService, ServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

const TOKEN: &str = "bench-token-0123456789abcdef";
/// Rounds of read, find and click per session.
const ROUNDS: usize = 10;
/// How long the slow page takes.
const SLOW: Duration = Duration::from_secs(5);

fn main() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap_or_else(|e| panic!("{e}"));
    runtime.block_on(run());
}

/// A loopback site (a thread per request): `/` a page with text and a button, `/slow` after
/// [`SLOW`].
fn site() -> u16 {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let port = server.server_addr().to_ip().map(|a| a.port()).unwrap_or(0);
    std::thread::spawn(move || {
        for request in server.incoming_requests() {
            std::thread::spawn(move || {
                if request.url().starts_with("/slow") {
                    std::thread::sleep(SLOW);
                }
                let page = "<!doctype html><meta charset=utf-8><title>Bench</title><h1>Bench page</h1>\
                            <p>Some text for a session to read.</p>\
                            <button onclick=\"this.dataset.n = (+this.dataset.n || 0) + 1\">Go</button>";
                let mut response = tiny_http::Response::from_string(page);
                if let Ok(header) = tiny_http::Header::from_bytes(&b"Content-Type"[..], &b"text/html"[..]) {
                    response.add_header(header);
                }
                let _ = request.respond(response);
            });
        }
    });
    port
}

/// How each session gets its browser.
#[derive(Clone, Copy)]
enum Mode {
    /// A browser of its own.
    BrowserEach,
    /// A user context of one shared browser.
    UserContextEach,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::BrowserEach => "a browser each",
            Mode::UserContextEach => "a user context each",
        }
    }
}

/// Serve over HTTP in process, each session's browser as `mode` says; answers the URL and
/// the shared browser (to stop after the run), if any.
async fn serve(mode: Mode) -> (String, Option<SharedBrowser>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("{e}"));
    let address = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    let options = HttpOptions::new(address, vec![BearerToken::new(TOKEN).unwrap_or_else(|e| panic!("{e}"))]);
    let prototype: Arc<dyn BrowserPort> = Arc::new(WebDriverBrowser::new(WebDriverConfig::default()));
    let server = GhostlightServer::over(Ghostlight::new(prototype));
    let (server, shared) = match mode {
        Mode::BrowserEach => (
            server.with_browser_per_session(Arc::new(|| {
                Arc::new(WebDriverBrowser::new(WebDriverConfig::default())) as Arc<dyn BrowserPort>
            })),
            None,
        ),
        Mode::UserContextEach => {
            let shared = SharedBrowser::new(WebDriverConfig::default()).unwrap_or_else(|e| panic!("{e}"));
            let seats = shared.clone();
            let server = server.with_browser_per_session(Arc::new(move || {
                Arc::new(WebDriverBrowser::seated(&seats)) as Arc<dyn BrowserPort>
            }));
            (server, Some(shared))
        }
    };
    tokio::spawn(async move {
        let _ = ghostlight_mcp::http::serve_on(listener, server, &options, std::future::pending()).await;
    });
    (format!("http://{address}/mcp"), shared)
}

async fn client(url: &str) -> RunningService<RoleClient, ()> {
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(TOKEN.to_owned());
    ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap_or_else(|e| panic!("{e}"))
}

/// One call's latency (panics unless it succeeded).
async fn timed(client: &RunningService<RoleClient, ()>, tool: &str, arguments: Value) -> Duration {
    let started = Instant::now();
    let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
    let result = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    let took = started.elapsed();
    let envelope = result.structured_content.unwrap_or(Value::Null);
    assert_eq!(envelope["status"], "succeeded", "{tool}: {envelope}");
    took
}

/// The p-th percentile of `times` (sorted in place).
fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort();
    let index = ((times.len() as f64 - 1.0) * p).round() as usize;
    times.get(index).copied().unwrap_or_default()
}

/// The proportional memory (PSS: shared pages split between the processes sharing them) of
/// every browser and driver this process started (their profile folders name it), in MiB.
fn browser_pss_mib() -> u64 {
    let marker = format!("-{}-", std::process::id());
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    let mut kib = 0;
    let mut ours: Vec<u32> = Vec::new();
    let status = |pid: u32| std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(&marker) {
            ours.push(pid);
        }
    }
    for pid in ours {
        if let Some(line) = status(pid).lines().find(|l| l.starts_with("Pss:")) {
            kib += line.split_whitespace().nth(1).and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
        }
    }
    kib / 1024
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

async fn run() {
    let port = site();
    let page = format!("http://127.0.0.1:{port}/");
    println!("| Browsers | Sessions | Calls/s | p50 | p95 | Browser PSS |");
    println!("|---|---|---|---|---|---|");
    let mut per_added = Vec::new();
    for mode in [Mode::BrowserEach, Mode::UserContextEach] {
        let mut memory_at = Vec::new();
        for sessions in [1usize, 2, 4, 8] {
            let (url, shared) = serve(mode).await;
            let clients: Vec<_> = futures::future::join_all((0..sessions).map(|_| client(&url))).await;
            futures::future::join_all(
                clients.iter().map(|c| timed(c, "browser_navigate", json!({"url": page}))),
            )
            .await;
            let started = Instant::now();
            let runs = clients.iter().map(|c| async move {
                let mut times = Vec::with_capacity(ROUNDS * 3);
                for _ in 0..ROUNDS {
                    times.push(timed(c, "browser_read", json!({})).await);
                    times.push(timed(c, "browser_find", json!({"text": "Go"})).await);
                    times.push(timed(c, "browser_click", json!({"selector": {"name": "Go"}})).await);
                }
                times
            });
            let mut times: Vec<Duration> =
                futures::future::join_all(runs).await.into_iter().flatten().collect();
            let wall = started.elapsed();
            let rate = times.len() as f64 / wall.as_secs_f64();
            let (p50, p95) = (percentile(&mut times, 0.5), percentile(&mut times, 0.95));
            let memory = browser_pss_mib();
            memory_at.push(memory);
            println!(
                "| {} | {sessions} | {rate:.1} | {} | {} | {memory} MiB |",
                mode.name(),
                ms(p50),
                ms(p95)
            );
            for c in clients {
                let _ = c.cancel().await;
            }
            // Let ended sessions' browsers stop before the next row measures memory.
            tokio::time::sleep(Duration::from_secs(2)).await;
            if let Some(shared) = shared {
                shared.shutdown().await;
            }
        }
        if let (Some(first), Some(last)) = (memory_at.first(), memory_at.last()) {
            per_added.push((mode.name(), last.saturating_sub(*first) / 7));
        }
    }
    println!();
    println!("| Browsers | PSS per added session (8 sessions − 1) / 7 |");
    println!("|---|---|");
    for (mode, mib) in per_added {
        println!("| {mode} | {mib} MiB |");
    }
    println!();
    println!(
        "| Browsers | p95 of session B while session A waits {} s on a page | p95 alone |",
        SLOW.as_secs()
    );
    println!("|---|---|---|");
    for mode in [Mode::BrowserEach, Mode::UserContextEach] {
        let (url, shared) = serve(mode).await;
        let (a, b) = tokio::join!(client(&url), client(&url));
        timed(&a, "browser_navigate", json!({"url": page})).await;
        timed(&b, "browser_navigate", json!({"url": page})).await;
        let mut alone: Vec<Duration> = Vec::new();
        for _ in 0..ROUNDS {
            alone.push(timed(&b, "browser_read", json!({})).await);
        }
        let slow = format!("http://127.0.0.1:{port}/slow");
        let waiting = timed(&a, "browser_navigate", json!({"url": slow, "timeout_ms": 30000}));
        let reading = async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let mut times = Vec::new();
            for _ in 0..ROUNDS {
                times.push(timed(&b, "browser_read", json!({})).await);
            }
            times
        };
        let (_, mut during) = tokio::join!(waiting, reading);
        println!(
            "| {} | {} | {} |",
            mode.name(),
            ms(percentile(&mut during, 0.95)),
            ms(percentile(&mut alone, 0.95))
        );
        let _ = a.cancel().await;
        let _ = b.cancel().await;
        if let Some(shared) = shared {
            shared.shutdown().await;
        }
    }
}
