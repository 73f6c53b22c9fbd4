//! Faults against the real adapter, through `ghostlight_core::Ghostlight` over
//! `WebDriverBrowser`: a process killed in the middle of a long call must end that call with a
//! truthful envelope, and the next call must work again on a fresh session. The test prints a
//! fault matrix (fault → status/effect/reason, next call outcome).

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{Site, browser_main, scenario, selected};
use ghostlight_core::{Cancellation, Ghostlight};
use ghostlight_webdriver::{Engine, WebDriverBrowser, WebDriverConfig};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};

#[tokio::test]
async fn chromium() {
    if selected(Engine::Chromium) {
        run(Engine::Chromium).await;
    }
}

async fn run(engine: Engine) {
    let site = Site::start();
    let mut matrix = Vec::new();
    for fault in [Fault::Browser, Fault::Driver] {
        let name = format!("{fault:?}_killed_mid_call");
        scenario(engine, &name, async { matrix.push(killed_mid_call(engine, &site, fault).await) }).await;
    }
    eprintln!("fault matrix ({engine:?}):");
    for row in &matrix {
        eprintln!("  {row}");
    }
}

#[derive(Debug, Clone, Copy)]
enum Fault {
    Browser,
    Driver,
}

/// status/effect/reason of an envelope.
fn outcome(envelope: &Value) -> String {
    format!(
        "{}/{}/{}",
        envelope["status"].as_str().unwrap_or("?"),
        envelope["effect"].as_str().unwrap_or("?"),
        envelope["facts"]["reason"].as_str().unwrap_or("-")
    )
}

async fn call(ghostlight: &Ghostlight, tool: &str, arguments: Value) -> Value {
    let result = ghostlight.invoke(tool, &arguments, &Cancellation::new()).await.expect("a catalog tool");
    serde_json::to_value(&result.envelope).expect("an envelope serialises")
}

async fn killed_mid_call(engine: Engine, site: &Site, fault: Fault) -> String {
    let browser = Arc::new(WebDriverBrowser::new(WebDriverConfig::for_engine(engine)));
    let ghostlight = Ghostlight::new(browser.clone());
    let opened = call(&ghostlight, "browser_navigate", json!({"url": site.url("/one").as_str()})).await;
    assert_eq!(opened["status"], "succeeded", "{opened}");
    let tab = opened["facts"]["tab"].as_str().expect("a tab handle").to_owned();
    let process = browser.testing_process().await.expect("a launched browser");
    let victim = match fault {
        Fault::Browser => {
            browser_main(process.driver_pid, &process.profile_dir).expect("the browser's main process")
        }
        Fault::Driver => process.driver_pid,
    };
    let killer = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        kill(Pid::from_raw(i32::try_from(victim).expect("a pid")), Signal::SIGKILL).expect("kill");
    });
    let started = std::time::Instant::now();
    let waited = call(
        &ghostlight,
        "browser_wait",
        json!({"tab": tab, "condition": "text_present", "value": "never appears", "timeout_ms": 5000}),
    )
    .await;
    let elapsed = started.elapsed();
    killer.await.expect("the killer ran");
    assert_ne!(waited["facts"]["reason"], "invalid_arguments", "{waited}");
    // The truth: the call did not succeed, and it says so without claiming an effect.
    assert_ne!(waited["status"], "succeeded", "{waited}");
    assert!(matches!(waited["effect"].as_str(), Some("none" | "unknown")), "{waited}");
    if waited["effect"] == "unknown" {
        assert_eq!(waited["repeat_safe"], false, "{waited}");
    }

    // The Ghostlight keeps answering: the old tab is gone, navigation opens a fresh session.
    let old = call(&ghostlight, "browser_read", json!({"tab": tab})).await;
    let again = call(&ghostlight, "browser_navigate", json!({"url": site.url("/two").as_str()})).await;
    assert_eq!(again["status"], "succeeded", "{again}");
    let fresh = browser.testing_process().await.expect("a second browser");
    assert_ne!(fresh.profile_dir, process.profile_dir);
    browser.shutdown().await;
    format!(
        "{fault:?} killed during browser_wait → {} after {:.1}s; old tab → {}; navigate → {}",
        outcome(&waited),
        elapsed.as_secs_f32(),
        outcome(&old),
        outcome(&again)
    )
}
