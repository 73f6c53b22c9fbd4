//! No page can wedge a session, through the extension connector: the WebDriver adapter's
//! hostile suite (`ghostlight-webdriver/tests/support/hostile_suite.rs`, included by path) on
//! headless Chromium and Firefox with the repository's `extension/` loaded. The second session
//! is a second workspace over the same connector. On Firefox, where the extension sends no
//! trusted input, the pages never start and the suite says so.

#[path = "../../ghostlight-webdriver/tests/support/mod.rs"]
mod support;
#[path = "support/world.rs"]
mod world;

use ghostlight_core::port::BrowserPort;
use ghostlight_webdriver::Engine;
use std::sync::Arc;
use support::engines;
use support::hostile_suite::{Ports, run_all};
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
    let ports = Ports {
        engine,
        port: port.clone(),
        second: port,
        trusted: engine == Engine::Chromium,
        awaits_page_work: false,
    };
    run_all(&ports).await;
    drop(ports);
    world.teardown().await;
}
