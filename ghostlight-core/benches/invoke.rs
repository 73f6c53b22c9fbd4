//! In-process overhead of one invocation (decode → authorize → resolve → dispatch → render →
//! audit) over the scripted port, whose operations cost next to nothing: what is measured is
//! Ghostlight's own work. Run with `cargo bench -p ghostlight-core --features testing`.
//! Figures are printed by divan (median, mean, min, max); nothing is asserted.

use std::sync::Arc;

use futures::executor::block_on;
use ghostlight_core::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};
use ghostlight_core::{Cancellation, Ghostlight};
use serde_json::{Value, json};

const HOME: &str = "https://example.com/";

fn main() {
    divan::main();
}

fn page() -> ScriptedPage {
    let mut page = ScriptedPage::new("Bench").text("Some text to read. ".repeat(50).as_str());
    for i in 0..40 {
        page = page.element(ScriptedElement::button(&format!("Button {i}")));
    }
    page.element(ScriptedElement::textbox("Name")).element(ScriptedElement::button("Save"))
}

/// A Ghostlight with one open tab on the bench page.
fn ready() -> Ghostlight {
    let browser = ScriptedBrowser::new().site(HOME, page());
    let ghostlight = Ghostlight::new(Arc::new(browser));
    let opened =
        block_on(ghostlight.invoke("browser_navigate", &json!({"url": HOME}), &Cancellation::never()));
    assert!(opened.is_ok());
    ghostlight
}

fn invoke(ghostlight: &Ghostlight, tool: &str, arguments: &Value) {
    let result = block_on(ghostlight.invoke(tool, arguments, &Cancellation::never()));
    divan::black_box(result.ok());
}

/// Arguments that fail to decode: decode → render → audit, no browser.
#[divan::bench]
fn invalid_arguments(bencher: divan::Bencher) {
    let ghostlight = ready();
    let arguments = json!({"url": "https://example.com", "timeout_ms": 50});
    bencher.bench_local(|| invoke(&ghostlight, "browser_navigate", &arguments));
}

/// `policy_explain`: decode → snapshot → explain → render, no browser.
#[divan::bench]
fn policy_explain(bencher: divan::Bencher) {
    let ghostlight = ready();
    let arguments = json!({});
    bencher.bench_local(|| invoke(&ghostlight, "policy_explain", &arguments));
}

/// `browser_read` of the default tab: the whole pipeline with two port calls.
#[divan::bench]
fn read(bencher: divan::Bencher) {
    let ghostlight = ready();
    let arguments = json!({"max_chars": 500});
    bencher.bench_local(|| invoke(&ghostlight, "browser_read", &arguments));
}

/// `browser_click` by selector: the pipeline plus a perception of 42 elements and matching.
#[divan::bench]
fn click_by_selector(bencher: divan::Bencher) {
    let ghostlight = ready();
    let arguments = json!({"selector": {"name": "Name"}});
    bencher.bench_local(|| invoke(&ghostlight, "browser_click", &arguments));
}

/// `browser_inspect` of 42 controls: registering 42 fresh target handles and rendering them.
#[divan::bench]
fn inspect_controls(bencher: divan::Bencher) {
    let ghostlight = ready();
    let arguments = json!({});
    bencher.bench_local(|| invoke(&ghostlight, "browser_inspect", &arguments));
}
