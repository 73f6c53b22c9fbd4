//! No page can wedge a session, through the WebDriver adapter: the shared hostile suite
//! (`support/hostile_suite.rs`) on headless Chromium and Firefox, then what only this adapter's
//! tests can do: a tab another program opens (as DevTools or the person would) is never adopted
//! by the next click, even under `restrict_hosts` that exclude its host.

mod support;

use std::sync::Arc;

use ghostlight_core::port::BrowserPort;
use ghostlight_webdriver::{Engine, WebDriverBrowser};
use serde_json::json;
use support::engines::{browser, scenario};
use support::hostile_suite::{Ports, calm, run_all};
use support::server::Site;
use support::sites::hostile;
use support::tools::governed;

per_engine!(#[tokio::test(flavor = "multi_thread")] chromium, firefox => run);

async fn run(engine: Engine) {
    let (port, second) = (browser(engine), browser(engine));
    let ports =
        Ports { engine, port: port.clone(), second: second.clone(), trusted: true, awaits_page_work: true };
    run_all(&ports).await;
    scenario(engine, "a tab another program opens", foreign_tab(&port)).await;
    for browser in [port, second] {
        browser.shutdown().await;
    }
}

/// A tab opened past every page (BiDi `browsingContext.create`, `originalOpener: null`) on the
/// denied host: the next clicks adopt nothing, and the session's list never shows it.
async fn foreign_tab(browser: &Arc<WebDriverBrowser>) {
    let site: Site = hostile::start();
    let port: Arc<dyn BrowserPort> = browser.clone();
    let g = governed(port, json!({"hosts": {"allow": ["127.0.0.1", "127.0.0.2"]}}));
    let page = calm(
        &g,
        "the opener page",
        "browser_navigate",
        json!({"url": site.url("/closer-opener").as_str(), "new_tab": true}),
    )
    .await;
    browser.testing_open_foreign_tab(site.url_b("/plain?foreign").as_str()).await.expect("a foreign tab");
    let clicked = calm(
        &g,
        "a click under restrict_hosts",
        "browser_click",
        json!({"selector": {"name": "Open a closer"}, "tab": page.facts["tab"], "restrict_hosts": ["127.0.0.1"]}),
    )
    .await;
    let opened = clicked.facts.get("opened_tabs").and_then(|o| o.as_array()).cloned().unwrap_or_default();
    eprintln!("  click beside a foreign tab: {}", clicked.summary);
    assert_eq!(opened.len(), 1, "only the page's own popup is adopted: {opened:?}");
    assert!(opened[0]["url"].as_str().is_some_and(|u| u.contains("/self-close")), "{opened:?}");
    let again = calm(
        &g,
        "a second click",
        "browser_click",
        json!({"selector": {"name": "Open a closer"}, "tab": page.facts["tab"]}),
    )
    .await;
    let listed = calm(&g, "the tab list", "browser_tabs", json!({"action": "list"})).await;
    let text = listed.facts["tabs"].to_string();
    assert!(!text.contains("foreign") && !text.contains("127.0.0.2"), "{text}");
    assert!(!again.summary.contains("127.0.0.2"), "{}", again.summary);
}
