//! What authority on the wire costs: page loads through the loopback network filter against
//! the same loads without it, on headless Chromium and Firefox. Figures are printed, never
//! asserted.
//!
//! ```sh
//! cargo bench -p ghostlight-webdriver --bench wire
//! GHOSTLIGHT_BENCH_REPS=30 GHOSTLIGHT_TEST_ENGINES=chromium cargo bench -p ghostlight-webdriver --bench wire
//! ```
//!
//! Three browsers per engine, one after the other (never two at once): the bare port (no
//! filter: what a browser Ghostlight did not govern does), the port governed with every host
//! open (every request through the filter, none refused), and the port governed with
//! `hosts.allow = ["127.0.0.1"]` (the denied host's requests refused). Each loads the same
//! pages: a small form page, a 60 KB article, and a page with 40 images, 10 scripts and 10
//! stylesheets on its own host. One timed repetition is one
//! `navigate` of the port to the page (then, untimed, back to a tiny page); the median, min and max of
//! the navigations to the page are printed.

#![allow(missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_core::port::{BrowserPort, Gate, NavigateInput, TabCall, TabRef};
use ghostlight_core::{AuthorityLayers, Ghostlight, Settings};
use ghostlight_webdriver::{Engine, WebDriverBrowser, WebDriverConfig};
use serde_json::json;
use support::server::{Reply, Site};

/// Repetitions per page unless `GHOSTLIGHT_BENCH_REPS` says otherwise.
const DEFAULT_REPS: usize = 15;
/// Bound of one navigation.
const LOAD_TIMEOUT: Duration = Duration::from_secs(20);

/// A page with many subresources on its own host.
fn heavy() -> String {
    let mut page = String::from("<!doctype html><title>Heavy</title><h1>Heavy</h1>");
    for n in 0..40 {
        page.push_str(&format!("<img src=\"/res/img{n}.svg\" width=8 height=8>"));
    }
    for n in 0..10 {
        page.push_str(&format!(
            "<script src=\"/res/s{n}.js\"></script><link rel=stylesheet href=\"/res/c{n}.css\">"
        ));
    }
    page
}

fn serve() -> Site {
    Site::serve(|ask| match ask.path {
        "/heavy" => Reply::html(200, heavy()),
        "/tiny" => Reply::html(200, "<!doctype html><title>Tiny</title>"),
        path if path.starts_with("/res/") && path.ends_with(".svg") => Reply {
            content_type: "image/svg+xml",
            ..Reply::html(200, "<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'/>")
        },
        path if path.starts_with("/res/") && path.ends_with(".js") => {
            Reply { content_type: "text/javascript", ..Reply::html(200, "window.n = (window.n || 0) + 1;") }
        }
        path if path.starts_with("/res/") => {
            Reply { content_type: "text/css", ..Reply::html(200, "h1 { color: #333 }") }
        }
        _ => Reply::html(404, "not found"),
    })
}

fn governed(browser: Arc<WebDriverBrowser>, settings: Option<serde_json::Value>) -> Arc<dyn BrowserPort> {
    let port: Arc<dyn BrowserPort> = browser;
    if let Some(settings) = settings {
        let user: Settings = serde_json::from_value(settings).expect("settings");
        let authority = AuthorityLayers { user: Some(user), organization: None }.compile();
        // Building the Ghostlight governs the port's network; the loads below go to the port.
        let _ = Ghostlight::builder(Arc::clone(&port)).authority(authority).build();
    }
    port
}

/// Navigate `tab` to `url` (timed), then back to the tiny page `rest` (not timed); `None`
/// (printed as a failure) when either navigation failed.
async fn load(port: &dyn BrowserPort, tab: &TabRef, url: &str, rest: &str) -> Option<Duration> {
    let input = NavigateInput { url: url.parse().expect("a URL"), discard_beforeunload: false };
    let started = Instant::now();
    let loaded = port.navigate(&TabCall::new(tab, &Gate::open(), LOAD_TIMEOUT), &input).await;
    let took = started.elapsed();
    let back = NavigateInput { url: rest.parse().expect("a URL"), discard_beforeunload: false };
    let returned = port.navigate(&TabCall::new(tab, &Gate::open(), LOAD_TIMEOUT), &back).await;
    match (loaded, returned) {
        (Ok(_), Ok(_)) => Some(took),
        (loaded, returned) => {
            eprintln!(
                "a load failed: {:?} / {:?}",
                loaded.err().map(|e| e.message().to_owned()),
                returned.err().map(|e| e.message().to_owned())
            );
            None
        }
    }
}

/// Median, min and max in milliseconds, and how many repetitions failed.
fn stats(runs: Vec<Option<Duration>>) -> (f64, f64, f64, usize) {
    let failed = runs.iter().filter(|run| run.is_none()).count();
    let mut times: Vec<Duration> = runs.into_iter().flatten().collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    if times.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN, failed);
    }
    (ms(times[times.len() / 2]), ms(times[0]), ms(times[times.len() - 1]), failed)
}

async fn run(engine: Engine, reps: usize) {
    let pages = serve();
    let e2e = support::sites::e2e::start();
    let targets = [
        ("form page", e2e.url("/form").to_string()),
        ("article (60 KB)", e2e.url("/article").to_string()),
        ("40 images, 10 scripts, 10 styles", pages.url("/heavy").to_string()),
    ];
    println!("\n{} — page load (navigate), ms: median [min–max] over {reps}", engine.as_str());
    println!("| page | no filter | filter, every host open | filter, 127.0.0.1 only |");
    println!("| --- | --- | --- | --- |");
    let mut columns: Vec<Vec<(f64, f64, f64, usize)>> = Vec::new();
    for settings in [None, Some(json!({})), Some(json!({"hosts": {"allow": ["127.0.0.1"]}}))] {
        let browser = Arc::new(WebDriverBrowser::new(WebDriverConfig::for_engine(engine)));
        let port = governed(Arc::clone(&browser), settings);
        let rest = pages.url("/tiny").to_string();
        let first = NavigateInput { url: rest.parse().expect("a URL"), discard_beforeunload: false };
        let tab = port.open_tab(&first, LOAD_TIMEOUT).await.expect("a tab").tab;
        let mut column = Vec::new();
        for (_, url) in &targets {
            load(port.as_ref(), &tab, url, &rest).await; // warm-up
            let mut times = Vec::with_capacity(reps);
            for _ in 0..reps {
                times.push(load(port.as_ref(), &tab, url, &rest).await);
            }
            column.push(stats(times));
        }
        browser.shutdown().await;
        columns.push(column);
    }
    for (row, (name, _)) in targets.iter().enumerate() {
        let cell = |c: &Vec<(f64, f64, f64, usize)>| {
            let (median, min, max, failed) = c[row];
            let failures = if failed > 0 { format!(", {failed} failed") } else { String::new() };
            format!("{median:.1} [{min:.1}–{max:.1}]{failures}")
        };
        println!("| {name} | {} | {} | {} |", cell(&columns[0]), cell(&columns[1]), cell(&columns[2]));
    }
}

fn main() {
    let reps =
        std::env::var("GHOSTLIGHT_BENCH_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_REPS);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    for engine in [Engine::Chromium, Engine::Firefox] {
        if support::engines::wanted(engine) {
            runtime.block_on(run(engine, reps));
        }
    }
}
