//! Wall time of each of the 24 tools through `Ghostlight::invoke` on headless Chromium,
//! next to the bare WebDriver commands a hand-written client would send for the same result
//! (`bare.rs`): median, min and max over N repetitions of one representative call per tool,
//! and the ratio of the medians, printed as one table. Figures are printed, never asserted;
//! they include the driver round trips, so they depend on the machine and its load.
//!
//! ```sh
//! cargo bench -p ghostlight-webdriver --bench tools
//! # fewer or more repetitions (default 15):
//! GHOSTLIGHT_BENCH_REPS=5 cargo bench -p ghostlight-webdriver --bench tools
//! ```
//!
//! Each row times the call only: what a repetition needs first (an open alert, a started
//! recording, a fresh page) is set up outside the timed part. The Ghostlight rows run first;
//! their browser is shut down before the bare session starts on its own chromedriver, so the
//! two never share the machine (one after the other is less noisy on a small machine).
//! Chromium and chromedriver must be on `PATH`. The fixture pages are the end-to-end tests'
//! (`tests/support`), served once for both passes.

#![allow(missing_docs)]

#[path = "../../tests/support/mod.rs"]
mod support;

mod bare;

use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_core::port::{Gate, TabCall, TabRef};
use ghostlight_core::{BrowserPort, Cancellation, Envelope, Ghostlight, Status};
use ghostlight_webdriver::Engine;
use serde_json::{Value, json};
use support::engines::browser;
use support::server::Site;
use support::sites::e2e;
use support::tools;

/// Repetitions per tool unless `GHOSTLIGHT_BENCH_REPS` says otherwise.
const DEFAULT_REPS: usize = 15;
/// Bound of one port call made while setting a repetition up.
const SETUP_TIMEOUT: Duration = Duration::from_secs(15);

/// The repetitions of one row in one column: their wall times and failures.
#[derive(Debug, Default)]
struct Timing {
    times: Vec<Duration>,
    failures: Vec<String>,
}

impl Timing {
    /// Median, min and max in milliseconds (NaN when nothing was timed).
    fn stats(&self) -> (f64, f64, f64) {
        let mut ms: Vec<f64> = self.times.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        ms.sort_by(f64::total_cmp);
        let median = match ms.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => ms[n / 2],
            n => (ms[n / 2 - 1] + ms[n / 2]) / 2.0,
        };
        (median, ms.first().copied().unwrap_or(f64::NAN), ms.last().copied().unwrap_or(f64::NAN))
    }

    /// `median (min–max)`, with the failure count when there were failures.
    fn cell(&self) -> String {
        let (median, min, max) = self.stats();
        let failed = match self.failures.len() {
            0 => String::new(),
            n => format!(", {n} failed"),
        };
        format!("{median:.2} ({min:.2}–{max:.2}){failed}")
    }
}

/// One table row: the Ghostlight call and, once the bare pass ran, its bare equivalent.
struct Row {
    tool: &'static str,
    call: &'static str,
    ghostlight: Timing,
    bare: Option<Timing>,
}

struct Bench {
    g: Ghostlight,
    port: Arc<dyn BrowserPort>,
    site: Site,
    reps: usize,
    rows: Vec<Row>,
}

impl Bench {
    async fn invoke(&self, tool: &str, arguments: &Value) -> Envelope {
        tools::invoke(&self.g, tool, arguments).await.envelope
    }

    /// Invoke a setup call that must succeed.
    async fn must(&self, tool: &str, arguments: Value) -> Envelope {
        let e = self.invoke(tool, &arguments).await;
        assert_eq!(e.status, Status::Succeeded, "setup {tool} {arguments}: {}", e.summary);
        e
    }

    async fn goto(&self, path: &str) {
        self.must("browser_navigate", json!({ "url": self.site.url(path).as_str() })).await;
    }

    /// The target handle of the control called `name`.
    async fn target(&self, name: &str) -> String {
        let found = self.must("browser_find", json!({ "text": name, "scope": "control" })).await;
        found.facts["matches"]
            .as_array()
            .and_then(|rows| rows.iter().find(|row| row[2] == json!(name)))
            .and_then(|row| row[0].as_str())
            .unwrap_or_else(|| panic!("no control {name:?}"))
            .to_owned()
    }

    /// The tab Ghostlight controls (the bench uses one).
    async fn tab(&self) -> TabRef {
        let listed = self.port.tabs().await.expect("tabs");
        let url =
            self.must("browser_tabs", json!({ "action": "list" })).await.facts["tabs"][0]["url"].clone();
        listed.into_iter().find(|t| json!(t.page.url.as_str()) == url).expect("the controlled tab").tab
    }

    /// Time `reps` calls of `tool` with the arguments `arguments(i)`, after `setup(i)`.
    async fn time<A, S, F>(&mut self, tool: &'static str, call: &'static str, mut arguments: A, mut setup: S)
    where
        A: FnMut(usize) -> Value,
        S: FnMut(usize) -> F,
        F: std::future::Future<Output = ()>,
    {
        let mut row = Row { tool, call, ghostlight: Timing::default(), bare: None };
        for i in 0..self.reps {
            setup(i).await;
            let args = arguments(i);
            let started = Instant::now();
            let e = self.invoke(tool, &args).await;
            row.ghostlight.times.push(started.elapsed());
            if e.status != Status::Succeeded {
                row.ghostlight.failures.push(e.summary);
            }
        }
        eprintln!("  {tool}: done");
        self.rows.push(row);
    }

    /// Attach the bare timings to their rows by tool name.
    fn attach(&mut self, bare: Vec<(&'static str, Timing)>) {
        for (tool, timing) in bare {
            if let Some(row) = self.rows.iter_mut().find(|row| row.tool == tool) {
                row.bare = Some(timing);
            }
        }
    }

    fn print(&self, total: Duration) {
        let engine = Engine::Chromium.as_str();
        println!(
            "\nGhostlight tools vs bare WebDriver on headless {engine}, {} repetitions each (ms):\n",
            self.reps
        );
        println!("| tool | call | Ghostlight median (min–max) | bare median (min–max) | ratio |");
        println!("| --- | --- | ---: | ---: | ---: |");
        for row in &self.rows {
            let (bare, ratio) = match &row.bare {
                Some(bare) => (bare.cell(), format!("{:.1}×", row.ghostlight.stats().0 / bare.stats().0)),
                None => ("-".to_owned(), "-".to_owned()),
            };
            println!("| {} | {} | {} | {bare} | {ratio} |", row.tool, row.call, row.ghostlight.cell());
        }
        println!("\nBare column, per tool:");
        for (tool, note) in bare::NOTES {
            println!("- {tool}: {note}");
        }
        println!("\nNo bare figure (\"-\"):");
        for (tool, why) in bare::NO_BARE {
            println!("- {tool}: {why}");
        }
        for (column, row, timing) in self
            .rows
            .iter()
            .flat_map(|row| [("Ghostlight", row, Some(&row.ghostlight)), ("bare", row, row.bare.as_ref())])
        {
            if let Some(timing) = timing.filter(|t| !t.failures.is_empty()) {
                println!(
                    "\n{column} {} failed {} times, e.g.: {}",
                    row.tool,
                    timing.failures.len(),
                    timing.failures[0]
                );
            }
        }
        println!("\nwhole run (both browser starts included): {:.1} s", total.as_secs_f64());
    }
}

fn main() {
    let reps =
        std::env::var("GHOSTLIGHT_BENCH_REPS").ok().and_then(|n| n.parse().ok()).unwrap_or(DEFAULT_REPS);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(run(reps.max(1)));
}

async fn run(reps: usize) {
    let started = Instant::now();
    let site = e2e::start();
    let uploads = tempfile::tempdir().expect("an uploads folder");
    let browser = browser(Engine::Chromium);
    let g = tools::governed(
        browser.clone(),
        json!({
            "capabilities": { "allow": ["execute"] },
            "uploads": { "roots": [uploads.path().canonicalize().expect("a folder").to_string_lossy()] },
        }),
    );
    let port: Arc<dyn BrowserPort> = browser.clone();
    let mut b = Bench { g, port, site, reps, rows: Vec::new() };
    cases(&mut b).await;
    browser.shutdown().await;
    let bare = bare::run(&b.site, reps).await;
    b.attach(bare);
    b.print(started.elapsed());
}

async fn cases(b: &mut Bench) {
    b.goto("/counter").await;
    let nothing = |_| async {};

    // Tabs, navigation, window.
    b.time("browser_tabs", "list", |_| json!({ "action": "list" }), nothing).await;
    let site = b.site.url("/served/nav");
    b.time("browser_navigate", "same tab, new URL", |i| json!({ "url": format!("{site}?{i}") }), nothing)
        .await;
    b.time("browser_history", "reload", |_| json!({ "action": "reload" }), nothing).await;
    let size = |i: usize| {
        if i.is_multiple_of(2) {
            json!({ "width": 1200, "height": 760 })
        } else {
            json!({ "width": 1280, "height": 800 })
        }
    };
    b.time(
        "browser_window",
        "resize",
        |i| {
            let mut args = size(i);
            args["action"] = json!("resize");
            args
        },
        nothing,
    )
    .await;
    b.must("browser_window", json!({ "action": "resize", "width": 1280, "height": 800 })).await;

    // Perception.
    b.goto("/article").await;
    b.time("browser_read", "article (3.7 kB)", |_| json!({ "mode": "article" }), nothing).await;
    b.goto("/form").await;
    b.time("browser_inspect", "controls of /form", |_| json!({}), nothing).await;
    b.time("browser_find", "\"Create account\"", |_| json!({ "text": "Create account" }), nothing).await;
    let name = b.target("Full name").await;
    let email = b.target("Email").await;
    b.time(
        "browser_fill_form",
        "2 text fields",
        |i| json!({ "fields": [{ "target": name, "value": format!("Ada {i}") }, { "target": email, "value": "ada@example.com" }] }),
        nothing,
    )
    .await;

    // Capture and pointer input.
    b.goto("/counter").await;
    b.time("browser_screenshot", "viewport", |_| json!({}), nothing).await;
    let inc = b.target("Increment").await;
    b.time("browser_click", "target", |_| json!({ "target": inc }), nothing).await;
    let hover = b.target("Hover target").await;
    b.time("browser_hover", "target", |_| json!({ "target": hover }), nothing).await;
    let direction = |i: usize| if i.is_multiple_of(2) { "down" } else { "up" };
    b.time("browser_scroll", "medium, down/up", |i| json!({ "direction": direction(i) }), nothing).await;
    b.time(
        "browser_wait",
        "text_present (holds)",
        |_| json!({ "condition": "text_present", "value": "Count" }),
        nothing,
    )
    .await;
    let steps = json!([
        { "action": "click", "target": inc },
        { "action": "wait", "condition": "text_present", "value": "Count" },
    ]);
    b.time("browser_sequence", "click + wait", |_| json!({ "steps": steps }), nothing).await;
    let flow = json!([
        { "id": "look", "tool": "browser_inspect", "arguments": {} },
        { "id": "press", "tool": "browser_click",
          "arguments": { "target": { "flow_ref": { "step": "look", "pointer": "/facts/items/0/0" } } } },
        { "id": "see", "tool": "browser_read", "arguments": { "mode": "visible" } },
    ]);
    b.time("browser_flow", "inspect, click (flow_ref), read", |_| json!({ "steps": flow }), nothing).await;
    b.time("browser_execute", "document.title", |_| json!({ "script": "document.title" }), nothing).await;
    b.must("browser_diagnose", json!({})).await;
    b.time("browser_diagnose", "problems (tracking on)", |_| json!({}), nothing).await;
    b.time("policy_explain", "-", |_| json!({}), nothing).await;

    // Keyboard.
    b.goto("/keys").await;
    let search = b.target("Search").await;
    b.time(
        "browser_type_text",
        "5 chars, clear_first",
        |_| json!({ "target": search, "text": "hello", "clear_first": true }),
        nothing,
    )
    .await;
    b.time(
        "browser_press_key",
        "one key into a target",
        |_| json!({ "key": "a", "target": search }),
        nothing,
    )
    .await;

    // Drag (HTML5 card onto its target).
    b.goto("/drag").await;
    let all = b.must("browser_inspect", json!({ "scope": "all" })).await;
    let pick = |name: &str| {
        all.facts["items"]
            .as_array()
            .and_then(|rows| rows.iter().find(|row| row[2] == json!(name)))
            .and_then(|row| row[0].as_str())
            .unwrap_or_else(|| panic!("no {name:?}"))
            .to_owned()
    };
    let (card, target) = (pick("Drag card"), pick("Drop target"));
    b.time(
        "browser_drag",
        "HTML5 card to target",
        |_| json!({ "source_target": card, "destination_target": target }),
        nothing,
    )
    .await;

    // Upload (one small inline file).
    b.goto("/upload").await;
    b.time(
        "browser_upload",
        "1 inline file (1 kB)",
        |_| json!({ "selector": { "name": "Attachments" }, "files": [{ "name": "a.txt", "data_base64": "YWFh".repeat(342) }] }),
        nothing,
    )
    .await;

    // A dialog opened before each repetition, then accepted.
    b.goto("/dialogs").await;
    let tab = b.tab().await;
    let port = Arc::clone(&b.port);
    let open_alert = |_| {
        let (port, tab) = (Arc::clone(&port), tab.clone());
        async move {
            port.execute(
                &TabCall::new(&tab, &Gate::open(), SETUP_TIMEOUT),
                "setTimeout(() => alert('bench'), 0); 0",
            )
            .await
            .expect("schedule");
            for _ in 0..100 {
                if port.dialog(&tab).await.expect("dialog status").is_some() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            panic!("the alert never opened");
        }
    };
    b.time("browser_dialog", "accept an alert", |_| json!({ "action": "accept" }), open_alert).await;

    // A recording started before each repetition (≈0.5 s of frames), then saved to the client.
    b.goto("/counter").await;
    let g = b.g.clone();
    let start = |_| {
        let g = g.clone();
        async move {
            let never = Cancellation::never();
            for action in ["discard", "start"] {
                let _ = g.invoke("browser_record", &json!({ "action": action }), &never).await;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    };
    b.time("browser_record", "save to client (0.5 s)", |_| json!({ "action": "save" }), start).await;
}
