//! End to end: all 24 tools through `Ghostlight::invoke` over the extension connector
//! (`ExtensionBrowser`), against headless Chromium and headless Firefox with the repository's
//! `extension/` loaded — the same scenarios and assertions as the WebDriver adapter's
//! `ghostlight-webdriver/tests/tools_e2e.rs` (one suite, two adapters: the suite is
//! `ghostlight-webdriver/tests/support/e2e_suite.rs`, included here by path with the rest of
//! that support module). Where an engine's extension APIs cannot do something, the scenario
//! asserts the `unsupported` envelope naming the engine instead.
//!
//! Run one engine: `GHOSTLIGHT_TEST_ENGINES=chromium cargo test -p ghostlight-extension
//! --all-features --test tools_e2e -- --nocapture`; some scenarios only:
//! `GHOSTLIGHT_TEST_SCENARIOS=fill,dialog`. Each scenario prints its wall time, and each
//! engine ends with a table of the envelope statuses every tool answered.

// The WebDriver suite's support module, shared by path (this binary uses a part of it).
#[path = "../../ghostlight-webdriver/tests/support/mod.rs"]
mod support;
// The browser with the extension loaded, shared with the browser tests and the latency bench.
#[path = "support/world.rs"]
mod world;

use std::time::Instant;

use ghostlight_webdriver::Engine;
use support::e2e_suite::{Adapter, E2e, run_all};
use support::engines;
use support::sites::e2e;
use world::World;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium() {
    run(Engine::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox() {
    run(Engine::Firefox).await;
}

/// The suite over a browser of `engine` with the extension loaded (skipped when
/// `GHOSTLIGHT_TEST_ENGINES` leaves the engine out).
async fn run(engine: Engine) {
    if !engines::wanted(engine) {
        eprintln!("[{}] skipped: not in GHOSTLIGHT_TEST_ENGINES", engine.as_str());
        return;
    }
    let site = e2e::start();
    let uploads = tempfile::tempdir().expect("an uploads folder");
    let started = Instant::now();
    let world = World::start(engine).await;
    let e = E2e::new(engine, Adapter::Extension, world.browser.clone(), &site, uploads.path());
    let times = run_all(&e).await;
    let total = started.elapsed();
    e.report(&times, total);
    drop(e);
    world.teardown().await;
}
