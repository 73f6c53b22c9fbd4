//! A navigation an action starts after the action's input answered (a form submission runs in
//! a later task) is reported as the action's landing, every time, on both engines: a click on
//! the submit button, a fill with `submit_selector`, Enter in the text field and typed text
//! ending in a newline, each [`RUNS`] times. An action that navigates nowhere answers without
//! waiting: its median time is printed next to the navigating ones.

mod support;

use std::time::{Duration, Instant};

use ghostlight_core::{Ghostlight, Status};
use ghostlight_webdriver::Engine;
use serde_json::{Value, json};
use support::engines::browser;
use support::tools::call;

/// Runs of each action.
const RUNS: usize = 50;

per_engine!(chromium, firefox => run);

async fn run(engine: Engine) {
    let site = support::sites::e2e::start();
    let browser = browser(engine);
    let g = Ghostlight::new(browser.clone());
    let form = site.url("/landing/form");
    let opened = call(&g, "browser_navigate", json!({"url": form.as_str()})).await;
    assert_eq!(opened.status, Status::Succeeded, "{}", opened.summary);
    let actions: [(&str, &str, Value); 4] = [
        // Generous timeouts: the time bound guards against hangs, a loaded machine is slow.
        ("click", "browser_click", json!({"selector": {"name": "Go"}, "timeout_ms": 30000})),
        (
            "fill+submit",
            "browser_fill_form",
            json!({
                "fields": [{"selector": {"name": "Query"}, "value": "ada"}],
                "submit_selector": {"name": "Go"},
                "timeout_ms": 30000
            }),
        ),
        ("Enter", "browser_press_key", json!({"key": "Enter", "selector": {"name": "Query"}})),
        (
            "typed newline",
            "browser_type_text",
            json!({"selector": {"name": "Query"}, "text": "abc\n", "timeout_ms": 30000}),
        ),
    ];
    let started = Instant::now();
    for (name, tool, arguments) in &actions {
        let mut landed = 0;
        let mut times = Vec::with_capacity(RUNS);
        for run in 0..RUNS {
            call(&g, "browser_navigate", json!({"url": form.as_str()})).await;
            let at = Instant::now();
            let envelope = call(&g, tool, arguments.clone()).await;
            times.push(at.elapsed());
            assert_eq!(envelope.status, Status::Succeeded, "{name} run {run}: {}", envelope.summary);
            let url = envelope.facts.get("landing").and_then(|l| l["url"].as_str()).unwrap_or_default();
            if url.contains("/landing/done") && envelope.summary.contains("the page moved to") {
                landed += 1;
            } else {
                panic!("[{}] {name} run {run}: no landing reported: {}", engine.as_str(), envelope.summary);
            }
        }
        times.sort();
        eprintln!(
            "[{}] {name}: {landed} of {RUNS} landings reported, median {} ms",
            engine.as_str(),
            times[RUNS / 2].as_millis()
        );
    }
    // An error status is reported, and said.
    let missing =
        call(&g, "browser_navigate", json!({"url": site.url("/landing/missing-page").as_str()})).await;
    assert_eq!(missing.facts["http_status"], 404, "{:?}", missing.facts);
    assert!(missing.summary.contains("the server answered 404 Not Found"), "{}", missing.summary);
    // Nothing navigates: no wait is added.
    call(&g, "browser_navigate", json!({"url": form.as_str()})).await;
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let at = Instant::now();
        let envelope = call(&g, "browser_click", json!({"selector": {"name": "Nothing"}})).await;
        times.push(at.elapsed());
        assert_eq!(envelope.status, Status::Succeeded, "{}", envelope.summary);
        assert!(envelope.facts.get("landing").is_none(), "{}", envelope.summary);
    }
    times.sort();
    eprintln!(
        "[{}] click that navigates nowhere: median {} ms; all in {} s",
        engine.as_str(),
        times[RUNS / 2].as_millis(),
        started.elapsed().as_secs()
    );
    assert!(started.elapsed() < Duration::from_secs(600), "bounded");
    browser.shutdown().await;
}
