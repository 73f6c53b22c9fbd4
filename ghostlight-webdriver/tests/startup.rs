//! Startup: with manual startup every call answers the startup refusal and nothing is
//! started; a browser that cannot start says why. A test binary of its own, so that no other
//! test's browser runs while child processes are counted.

mod support;

use std::sync::Arc;
use std::time::Duration;

use ghostlight_core::port::{BrowserPort, NavigateInput, PortErrorKind, StartupRefusal};
use ghostlight_core::{Cancellation, Effect, Ghostlight, Status};
use ghostlight_webdriver::{DriverSource, Engine, Startup, WebDriverBrowser, WebDriverConfig};
use serde_json::json;
use support::processes::own_children;

const TIMEOUT: Duration = Duration::from_secs(5);

#[tokio::test]
async fn manual_startup_refuses_without_starting_anything() {
    let children_before = own_children();
    for engine in [Engine::Chromium, Engine::Firefox] {
        let config = WebDriverConfig { startup: Startup::Manual, ..WebDriverConfig::for_engine(engine) };
        let browser = WebDriverBrowser::new(config);
        let error = browser.tabs().await.expect_err("manual startup refuses");
        assert_eq!(error.kind(), PortErrorKind::NotConnected);
        assert_eq!(
            error.startup_refusal(),
            Some(&StartupRefusal::ManualLaunch { browser: engine.display_name().to_owned() })
        );
        let input =
            NavigateInput { url: "http://127.0.0.1:9/".parse().expect("a URL"), discard_beforeunload: false };
        assert_eq!(
            browser.open_tab(&input, TIMEOUT).await.expect_err("refused").kind(),
            PortErrorKind::NotConnected
        );
        assert_eq!(browser.testing_process().await, None);
    }
    assert_eq!(own_children(), children_before, "no process was started");
}

/// A browser that cannot start says why (a closed cause) and what the user can do, on every
/// call, with nothing left running. Each case is a real driver (or none) failing for real.
#[tokio::test]
async fn a_browser_that_cannot_start_says_why() {
    let children_before = own_children();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let closed_url: url::Url =
        format!("http://{}/", closed.local_addr().expect("an address")).parse().expect("a URL");
    drop(closed);
    for engine in [Engine::Chromium, Engine::Firefox] {
        let (driver, browser_name) = (engine.driver_name(), engine.display_name());
        let cases = [
            (
                DriverSource::Launch { driver_path: Some("/nonexistent/driver".into()), browser_path: None },
                "driver_not_executable",
                format!("the configured {driver} path is not an executable file"),
            ),
            (
                DriverSource::Connect(closed_url.clone()),
                "driver_unreachable",
                "nothing answered at the configured driver URL".to_owned(),
            ),
            (
                DriverSource::Launch { driver_path: None, browser_path: Some("/nonexistent/browser".into()) },
                "browser_not_found",
                format!("{driver} could not find {browser_name}"),
            ),
        ];
        for (source, cause, why) in cases {
            let config = WebDriverConfig { driver: source, ..WebDriverConfig::for_engine(engine) };
            let g = Ghostlight::new(Arc::new(WebDriverBrowser::new(config)));
            for (tool, arguments, doing) in [
                ("browser_tabs", json!({ "action": "list" }), "list the tabs"),
                ("browser_navigate", json!({ "url": "http://127.0.0.1:9/" }), "look for a tab to reuse"),
            ] {
                let result = g.invoke(tool, &arguments, &Cancellation::new()).await.expect("a catalog tool");
                let envelope = result.envelope;
                let context = format!("{engine:?} {cause} {tool}: {}", envelope.summary);
                assert_eq!(
                    (envelope.status, envelope.effect),
                    (Status::AttentionRequired, Effect::None),
                    "{context}"
                );
                assert_eq!(
                    envelope.summary,
                    format!("The browser could not start ({why}), so Ghostlight could not {doing}."),
                    "{context}"
                );
                assert_eq!(envelope.facts["reason"], json!("browser_not_started"), "{context}");
                assert_eq!(envelope.facts["cause"], json!(cause), "{context}");
                assert_eq!(envelope.facts["driver"], json!(driver), "{context}");
                assert_eq!(envelope.next_steps.len(), 1, "{context}");
                assert!(envelope.next_steps[0].starts_with("Ask the user to "), "{context}");
                assert!(!envelope.summary.contains("nonexistent"), "no operator path reaches the model");
            }
        }
    }
    assert_eq!(own_children(), children_before, "every failed start cleaned up after itself");
}
