//! The extension connector in a changing environment, on headless Chromium and Firefox (the
//! same world as `browsers.rs`: the repository's extension loaded, the real native host):
//!
//! - the native host killed while the browser lives: the extension reconnects (with backoff)
//!   through a new host, and the tabs Ghostlight drives are still reachable;
//! - the server stopping and listening again while the browser lives: the same;
//! - the browser closing: calls answer `not_connected` while no browser is there, and once a
//!   browser starts again (a new browser run, which numbers its tabs afresh), the old tabs
//!   answer `tab_gone`, never another tab that now has the same id.
//!
//! Each test has its own HOME, profiles, TMPDIR and socket directory; every browser runs in its
//! own process group, which teardown kills and checks empty. `GHOSTLIGHT_TEST_ENGINES` limits
//! the engines.

use std::time::Duration;

use ghostlight_core::port::{BrowserPort, NavigateInput, PortErrorKind};
use ghostlight_core::{Envelope, Ghostlight, Status};
use ghostlight_webdriver::Engine;
use serde_json::{Value, json};

#[allow(dead_code)]
#[path = "../../ghostlight-webdriver/tests/support/engines.rs"]
mod engines;
#[allow(dead_code)]
#[path = "../../ghostlight-webdriver/tests/support/server.rs"]
mod server;
#[allow(dead_code)]
#[path = "../../ghostlight-webdriver/tests/support/tools.rs"]
mod tools;
#[path = "support/world.rs"]
mod world;
use server::{Reply, Site};
use world::World;

/// The longest wait for a page load.
const LOAD: Duration = Duration::from_secs(15);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_environment() {
    environment(Engine::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_environment() {
    environment(Engine::Firefox).await;
}

/// `/a` and `/b`: a title and a heading each.
fn site() -> Site {
    Site::serve(|ask| {
        let name = ask.path.trim_start_matches('/').to_uppercase();
        Reply::html(200, format!("<!doctype html><title>{name}</title><h1>{name}</h1>"))
    })
}

/// A tool call's envelope.
async fn call(g: &Ghostlight, tool: &str, arguments: Value) -> Envelope {
    tools::invoke(g, tool, &arguments).await.envelope
}

fn reason(e: &Envelope) -> Option<&str> {
    e.facts.get("reason").and_then(Value::as_str)
}

async fn environment(engine: Engine) {
    if !engines::wanted(engine) {
        eprintln!("[{}] skipped: not in GHOSTLIGHT_TEST_ENGINES", engine.as_str());
        return;
    }
    let site = site();
    let mut world = World::start(engine).await;
    let name = engine.as_str();

    // A tab Ghostlight opened, at the port.
    let input = NavigateInput { url: site.url("/a"), discard_beforeunload: false };
    let opened = world.browser.open_tab(&input, LOAD).await.expect("a tab opens");
    let tab = opened.tab;

    // The host dies: the extension reconnects through a new one; the tab is still reachable.
    let back = world.kill_host().await;
    eprintln!("[{name}] host killed → reconnected in {} ms", back.as_millis());
    let page = world.browser.page(&tab).await.expect("the tab after a new host");
    assert_eq!(page.url.path(), "/a");

    // The server goes away and listens again: the same.
    let back = world.restart_server().await;
    eprintln!("[{name}] server restarted → reconnected in {} ms", back.as_millis());
    let page = world.browser.page(&tab).await.expect("the tab after the server restarted");
    assert_eq!(page.url.path(), "/a");

    // Through the tools: a workspace with a tab of its own.
    let g = tools::governed(world.browser.clone(), json!({}));
    let navigated = call(&g, "browser_navigate", json!({ "url": site.url("/b").as_str() })).await;
    assert_eq!(navigated.status, Status::Succeeded, "{}", navigated.summary);
    let handle = navigated.facts["tab"].as_str().expect("a tab handle").to_owned();
    let read = call(&g, "browser_read", json!({ "tab": handle })).await;
    assert_eq!(read.status, Status::Succeeded, "{}", read.summary);

    // The browser closes. While none is there, calls say so and change nothing.
    world.close_browser().await;
    let absent = call(&g, "browser_read", json!({ "tab": handle })).await;
    assert_eq!(
        (absent.status, reason(&absent)),
        (Status::Failed, Some("not_connected")),
        "{}",
        absent.summary
    );
    let port = world.browser.page(&tab).await.expect_err("no browser");
    assert_eq!(port.kind(), PortErrorKind::NotConnected);

    // A browser starts again: a new run. The old tabs are gone, at the port and in the tools.
    let again = world.reopen_browser().await;
    eprintln!("[{name}] browser started again → hello in {} ms", again.as_millis());
    let gone = world.browser.page(&tab).await.expect_err("the old tab is gone");
    assert_eq!(gone.kind(), PortErrorKind::TabGone);
    let gone = call(&g, "browser_read", json!({ "tab": handle })).await;
    assert_eq!((gone.status, reason(&gone)), (Status::Failed, Some("tab_gone")), "{}", gone.summary);
    let listed = call(&g, "browser_tabs", json!({ "action": "list" })).await;
    assert_eq!(listed.status, Status::Succeeded, "{}", listed.summary);
    assert_eq!(listed.facts["count"], json!(0), "the workspace holds no tab of the closed browser");
    // The new browser is driven as usual.
    let fresh = call(&g, "browser_navigate", json!({ "url": site.url("/a").as_str() })).await;
    assert_eq!(fresh.status, Status::Succeeded, "{}", fresh.summary);
    assert_ne!(fresh.facts["tab"].as_str(), Some(handle.as_str()), "a new handle for a new tab");

    drop(g);
    world.teardown().await;
}
