//! Documents without an origin of their own and `<object>`/`<embed>` documents, through the
//! extension connector: the WebDriver adapter's nested-documents suite
//! (`ghostlight-webdriver/tests/support/nested_suite.rs`, included by path) on headless
//! Chromium and Firefox with the repository's `extension/` loaded.

#[path = "../../ghostlight-webdriver/tests/support/mod.rs"]
mod support;
#[path = "support/world.rs"]
mod world;

use ghostlight_webdriver::Engine;
use support::engines;
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
    support::nested_suite::run_all(engine, world.browser.as_ref(), engine == Engine::Chromium).await;
    world.teardown().await;
}
