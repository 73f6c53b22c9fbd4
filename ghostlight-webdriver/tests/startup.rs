//! Manual startup: every call answers the startup refusal and nothing is started. A test
//! binary of its own, so that no other test's browser runs while child processes are counted.

mod common;
mod harness;

use std::time::Duration;

use ghostlight_core::port::{BrowserPort, NavigateInput, PortErrorKind, StartupRefusal};
use ghostlight_webdriver::{Engine, Startup, WebDriverBrowser, WebDriverConfig};

const TIMEOUT: Duration = Duration::from_secs(5);

#[tokio::test]
async fn manual_startup_refuses_without_starting_anything() {
    let children_before = common::own_children();
    for engine in [Engine::Chromium, Engine::Firefox] {
        let config = WebDriverConfig { startup: Startup::Manual, ..WebDriverConfig::for_engine(engine) };
        let browser = WebDriverBrowser::new(config);
        let error = browser.tabs().await.expect_err("manual startup refuses");
        assert_eq!(error.kind(), PortErrorKind::NotConnected);
        assert_eq!(
            error.startup_refusal(),
            Some(&StartupRefusal::Manual { browsers: vec![engine.display_name().to_owned()] })
        );
        let input =
            NavigateInput { url: "http://127.0.0.1:9/".parse().expect("a URL"), discard_beforeunload: false };
        assert_eq!(
            browser.open_tab(&input, TIMEOUT).await.expect_err("refused").kind(),
            PortErrorKind::NotConnected
        );
        assert_eq!(browser.testing_process().await, None);
    }
    assert_eq!(common::own_children(), children_before, "no process was started");
}
