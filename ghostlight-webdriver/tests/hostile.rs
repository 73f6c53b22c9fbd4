//! No page can wedge a session, through the WebDriver adapter: the shared hostile suite
//! (`support/hostile_suite.rs`) on headless Chromium and Firefox.

mod support;

use ghostlight_webdriver::Engine;
use support::engines::browser;
use support::hostile_suite::{Ports, run_all};

per_engine!(#[tokio::test(flavor = "multi_thread")] chromium, firefox => run);

async fn run(engine: Engine) {
    let (port, second) = (browser(engine), browser(engine));
    let ports = Ports { engine, port: port.clone(), second: second.clone(), trusted: true };
    run_all(&ports).await;
    for browser in [port, second] {
        browser.shutdown().await;
    }
}
