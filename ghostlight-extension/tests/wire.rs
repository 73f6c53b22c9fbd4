//! Authority holds on the wire, through the extension connector: the WebDriver adapter's wire
//! suite (`ghostlight-webdriver/tests/support/wire_suite.rs`, included by path) on headless
//! Chromium and Firefox with the repository's `extension/` loaded. The extension governs the
//! tabs Ghostlight drives (Chromium: `declarativeNetRequest` session rules; Firefox: blocking
//! `webRequest`); WebRTC's UDP is left out (an extension can change it only for the whole
//! browser), and on Firefox, where the extension sends no trusted input, the actions answer
//! `unsupported` and the sink is still checked.

#[path = "../../ghostlight-webdriver/tests/support/mod.rs"]
mod support;
#[path = "support/world.rs"]
mod world;

use ghostlight_core::port::BrowserPort;
use ghostlight_webdriver::Engine;
use std::sync::Arc;
use support::e2e_suite::Adapter;
use support::engines;
use support::wire_suite::{Ports, run_all};
use world::World;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium() {
    run(Engine::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox() {
    run(Engine::Firefox).await;
}

async fn run(engine: Engine) {
    if !engines::wanted(engine) {
        eprintln!("[{}] skipped: not in GHOSTLIGHT_TEST_ENGINES", engine.as_str());
        return;
    }
    let world = World::start(engine).await;
    let port: Arc<dyn BrowserPort> = world.browser.clone();
    // One browser: the control runs before any rules were sent, the `restrict_hosts`
    // scenario last.
    let ports =
        Ports { adapter: Adapter::Extension, engine, governed: port.clone(), bare: port.clone(), open: port };
    run_all(&ports).await;
    drop(ports);
    world.teardown().await;
}
