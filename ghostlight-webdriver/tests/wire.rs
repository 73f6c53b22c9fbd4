//! Authority holds on the wire, through the WebDriver adapter: the shared wire suite
//! (`support/wire_suite.rs`: one scenario per request kind, judged by the denied host's own
//! log) on headless Chromium and Firefox, each browser started behind the adapter's network
//! filter.
//!
//! Run one engine: `GHOSTLIGHT_TEST_ENGINES=firefox cargo nextest run -p ghostlight-webdriver
//! --all-features --test wire --no-capture`.

mod support;

use std::sync::Arc;

use ghostlight_webdriver::{Engine, WebDriverBrowser, WebDriverConfig};
use serde_json::json;
use support::e2e_suite::Adapter;
use support::wire_suite::{Ports, run_all};

per_engine!(#[tokio::test(flavor = "multi_thread")] chromium, firefox => run);

async fn run(engine: Engine) {
    let (governed, bare, open) = (browser(engine), browser(engine), browser(engine));
    let ports = Ports {
        adapter: Adapter::WebDriver,
        engine,
        governed: governed.clone(),
        bare: bare.clone(),
        open: open.clone(),
    };
    run_all(&ports).await;
    for browser in [governed, bare, open] {
        browser.shutdown().await;
    }
}

/// A browser of `engine`. Firefox leaves loopback addresses out of WebRTC by default, so the
/// denied host's STUN server (127.0.0.2) would be skipped anyway: the preference lets it in,
/// and the governed runs show that the network routing stops it.
fn browser(engine: Engine) -> Arc<WebDriverBrowser> {
    let mut config = WebDriverConfig::for_engine(engine);
    if engine == Engine::Firefox {
        let serde_json::Value::Object(extra) =
            json!({"moz:firefoxOptions": {"prefs": {"media.peerconnection.ice.loopback": true}}})
        else {
            unreachable!("an object literal")
        };
        config.extra_capabilities = extra;
    }
    Arc::new(WebDriverBrowser::new(config))
}
