//! Per-tool latency through the extension connector next to the WebDriver adapter, on the same
//! loopback page and the same headless engine, through the whole pipeline
//! (`Ghostlight::invoke`): medians of [`ROUNDS`] calls each, and the time from launching the
//! browser to its first answered call.
//!
//! `cargo bench -p ghostlight-extension --bench latency` (`GHOSTLIGHT_TEST_ENGINES=chromium`
//! limits the engines). Prints figures; asserts nothing about them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_core::port::BrowserPort;
use ghostlight_core::{AuthorityLayers, Cancellation, Envelope, Ghostlight, Settings, Status};
use ghostlight_webdriver::{Engine, WebDriverBrowser, WebDriverConfig};
use serde_json::{Value, json};

#[allow(dead_code)]
#[path = "../../ghostlight-webdriver/tests/support/engines.rs"]
mod engines;
#[allow(dead_code)]
#[path = "../../ghostlight-webdriver/tests/support/server.rs"]
mod server;
#[path = "../tests/support/world.rs"]
mod world;

use server::{Reply, Site};
use world::World;

/// Calls timed per tool and connector.
const ROUNDS: usize = 10;

/// The page every call works on: a heading, text, a field and a button.
const PAGE: &str = "<!doctype html><title>Bench</title><h1>Bench page</h1>\
    <p>Some text to read and to find, in a short paragraph.</p>\
    <input aria-label=Search><button onclick=\"window.clicks = (window.clicks || 0) + 1\">Go</button>";

/// The tools timed, with their arguments (`TAB` is replaced by the tab's handle).
fn calls(url: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("browser_navigate", json!({"tab": "TAB", "url": url})),
        ("browser_tabs", json!({"action": "list"})),
        ("browser_read", json!({"tab": "TAB", "mode": "visible"})),
        ("browser_find", json!({"tab": "TAB", "text": "Go"})),
        ("browser_inspect", json!({"tab": "TAB"})),
        ("browser_screenshot", json!({"tab": "TAB"})),
        ("browser_click", json!({"tab": "TAB", "selector": {"name": "Go"}})),
        (
            "browser_type_text",
            json!({"tab": "TAB", "selector": {"name": "Search"}, "text": "abc", "clear_first": true}),
        ),
        ("browser_execute", json!({"tab": "TAB", "script": "document.title"})),
    ]
}

/// A Ghostlight over `port` with `browser_execute` allowed.
fn ghostlight(port: Arc<dyn BrowserPort>) -> Ghostlight {
    let user: Settings =
        serde_json::from_value(json!({"capabilities": {"allow": ["execute"]}})).expect("settings");
    let authority = AuthorityLayers { user: Some(user), organization: None }.compile();
    Ghostlight::builder(port).authority(authority).build()
}

async fn call(g: &Ghostlight, tool: &str, arguments: &Value) -> Envelope {
    g.invoke(tool, arguments, &Cancellation::never()).await.expect("a catalog tool").envelope
}

/// Open the page in a new tab (timed from `since`, the browser's launch): the tab's handle and
/// the launch-to-first-call time.
async fn first_call(g: &Ghostlight, url: &str, since: Instant) -> (String, Duration) {
    let opened = call(g, "browser_navigate", &json!({"url": url, "new_tab": true})).await;
    let elapsed = since.elapsed();
    assert_eq!(opened.status, Status::Succeeded, "{}", opened.summary);
    (opened.facts["tab"].as_str().expect("a tab").to_owned(), elapsed)
}

/// Each tool's median over [`ROUNDS`] calls (`None`: the call did not succeed here).
async fn medians(g: &Ghostlight, tab: &str, url: &str) -> Vec<(&'static str, Option<Duration>)> {
    let mut out = Vec::new();
    for (tool, arguments) in calls(url) {
        let arguments: Value =
            serde_json::from_str(&arguments.to_string().replace("\"TAB\"", &format!("\"{tab}\"")))
                .expect("json");
        let mut times = Vec::with_capacity(ROUNDS);
        let mut failed = None;
        for _ in 0..ROUNDS {
            let started = Instant::now();
            let answer = call(g, tool, &arguments).await;
            if answer.status != Status::Succeeded {
                failed = Some(answer.summary);
                break;
            }
            times.push(started.elapsed());
        }
        if let Some(summary) = failed {
            eprintln!("  {tool}: not timed ({summary})");
            out.push((tool, None));
            continue;
        }
        times.sort();
        out.push((tool, Some(times[times.len() / 2])));
    }
    out
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    runtime.block_on(async {
        let site = Site::serve(|_| Reply::html(200, PAGE));
        let url = site.url("/bench").to_string();
        for engine in [Engine::Chromium, Engine::Firefox] {
            if !engines::selected(engine) {
                continue;
            }
            let launched = Instant::now();
            let world = World::start(engine).await;
            let over_extension = ghostlight(world.browser.clone());
            let (tab, extension_first) = first_call(&over_extension, &url, launched).await;
            let extension = medians(&over_extension, &tab, &url).await;
            drop(over_extension);
            let hello = world.hello_after;
            world.teardown().await;

            let launched = Instant::now();
            let browser = Arc::new(WebDriverBrowser::new(WebDriverConfig::for_engine(engine)));
            let over_webdriver = ghostlight(browser.clone());
            let (tab, webdriver_first) = first_call(&over_webdriver, &url, launched).await;
            let webdriver = medians(&over_webdriver, &tab, &url).await;
            drop(over_webdriver);
            browser.shutdown().await;

            println!("\n[{}] medians of {ROUNDS} calls through Ghostlight::invoke", engine.as_str());
            println!("| tool | extension | WebDriver |");
            println!("|---|---|---|");
            for ((tool, ext), (_, wd)) in extension.iter().zip(&webdriver) {
                let show = |d: &Option<Duration>| d.map_or_else(|| "not available".to_owned(), ms);
                println!("| {tool} | {} | {} |", show(ext), show(wd));
            }
            println!(
                "| launch to first answered call | {} (hello after {}) | {} |",
                ms(extension_first),
                ms(hello),
                ms(webdriver_first)
            );
        }
    });
}
