//! End to end: all 24 tools through `Ghostlight::invoke` over the WebDriver adapter, against
//! headless Chromium and headless Firefox (one browser per engine, scenarios in sequence).
//!
//! The scenarios and their harness are `support/e2e_suite.rs`, shared with the extension
//! connector's `ghostlight-extension/tests/tools_e2e.rs` (one suite, two adapters). Every
//! scenario checks what the page itself observed, not only the envelope; the fixture site
//! (`support/sites/e2e.rs`) serves 127.0.0.1 and, for host governance, 127.0.0.2.
//!
//! Run one engine: `GHOSTLIGHT_TEST_ENGINES=chromium cargo test -p ghostlight-webdriver
//! --all-features --test tools_e2e -- --nocapture`; some scenarios only:
//! `GHOSTLIGHT_TEST_SCENARIOS=fill,dialog`. Each scenario prints its wall time, and each
//! engine ends with a table of the envelope statuses every tool answered.

mod support;

use std::time::Instant;

use ghostlight_webdriver::Engine;
use support::e2e_suite::{Adapter, E2e, run_all};
use support::engines::browser;
use support::sites::e2e;

per_engine!(chromium, firefox => run);

async fn run(engine: Engine) {
    let site = e2e::start();
    let uploads = tempfile::tempdir().expect("an uploads folder");
    let browser = browser(engine);
    let e = E2e::new(engine, Adapter::WebDriver, browser.clone(), &site, uploads.path());
    let started = Instant::now();
    let times = run_all(&e).await;
    let total = started.elapsed();
    browser.shutdown().await;
    e.report(&times, total);
}
