//! Pages that try to wedge a session, one body for both adapters: every answer arrives within
//! its call's `timeout_ms` plus the documented grace, whatever the page does; the tab that
//! misbehaves can be closed, a new tab opened, and a second tab and a second session keep
//! answering.
//!
//! Wall-time assertions here are bounds with generous slack (a loaded CI machine), not
//! benchmarks.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_core::port::BrowserPort;
use ghostlight_core::{Envelope, Ghostlight, Status};
use ghostlight_webdriver::Engine;
use serde_json::{Value, json};

use crate::support::engines::scenario;
use crate::support::server::Site;
use crate::support::sites::hostile;
use crate::support::tools::{call, governed};

/// The timeout the hostile calls are given.
const CALL_TIMEOUT_MS: u64 = 3_000;
/// How late beyond its timeout a hostile call may answer: the adapter's documented grace and
/// unsticking bound (`CALL_GRACE` + `UNSTICK_MAX`: 1 s + 14 s) with slack for a loaded machine.
const LATE: Duration = Duration::from_secs(20);
/// How long a call on a calm page may take meanwhile or afterwards.
const CALM: Duration = Duration::from_secs(10);

/// The ports of one run.
pub(crate) struct Ports {
    /// The engine.
    pub(crate) engine: Engine,
    /// The port the hostile pages are driven through.
    pub(crate) port: Arc<dyn BrowserPort>,
    /// A second, independent session (a browser of its own, or a second workspace over the
    /// same extension connector).
    pub(crate) second: Arc<dyn BrowserPort>,
    /// Whether the adapter sends trusted input on this engine (the extension on Firefox does
    /// not: its clicks answer `unsupported`, and the pages never start spinning).
    pub(crate) trusted: bool,
}

/// A call and how long its answer took.
async fn timed(g: &Ghostlight, tool: &str, arguments: Value) -> (Envelope, Duration) {
    let started = Instant::now();
    let envelope = call(g, tool, arguments).await;
    (envelope, started.elapsed())
}

/// A call that must succeed within [`CALM`].
async fn calm(g: &Ghostlight, what: &str, tool: &str, arguments: Value) -> Envelope {
    let (envelope, took) = timed(g, tool, arguments).await;
    assert_eq!(envelope.status, Status::Succeeded, "{what}: {} {:?}", envelope.summary, envelope.facts);
    assert!(took <= CALM, "{what} took {took:?}");
    envelope
}

/// Run the suite.
pub(crate) async fn run_all(ports: &Ports) {
    let site = hostile::start();
    let authority = json!({"hosts": {"allow": ["127.0.0.1"]}});
    let g = governed(Arc::clone(&ports.port), authority.clone());
    let second = governed(Arc::clone(&ports.second), authority);
    calm(
        &second,
        "the second session's first page",
        "browser_navigate",
        json!({"url": site.url("/plain").as_str()}),
    )
    .await;
    if !ports.trusted {
        eprintln!("[{}] skipped: the adapter sends no trusted input here", ports.engine.as_str());
        return;
    }
    scenario(ports.engine, "a click handler that never returns", spin(&g, &second, &site)).await;
    scenario(ports.engine, "an endless dialog loop", dialog_loop(&g, &site)).await;
}

/// `for(;;){}` in a click handler: the click answers within its timeout plus the grace,
/// truthfully (the effect is unknown), while a second session answers; afterwards the other
/// tab of the same session answers and a new tab opens.
async fn spin(g: &Ghostlight, second: &Ghostlight, site: &Site) {
    let other =
        calm(g, "the calm tab", "browser_navigate", json!({"url": site.url("/plain").as_str()})).await;
    let spin = calm(
        g,
        "the spinning page",
        "browser_navigate",
        json!({"url": site.url("/spin").as_str(), "new_tab": true}),
    )
    .await;
    let click = timed(
        g,
        "browser_click",
        json!({"selector": {"name": "Spin forever"}, "tab": spin.facts["tab"], "timeout_ms": CALL_TIMEOUT_MS}),
    );
    let meanwhile = async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        calm(second, "the second session meanwhile", "browser_read", json!({})).await
    };
    let ((clicked, took), read) = tokio::join!(click, meanwhile);
    eprintln!("  click on a spinning handler: {:?} in {took:?}: {}", clicked.status, clicked.summary);
    assert!(took <= Duration::from_millis(CALL_TIMEOUT_MS) + LATE, "the click answered after {took:?}");
    assert_ne!(clicked.status, Status::Succeeded, "{}", clicked.summary);
    assert!(!clicked.repeat_safe, "{}", clicked.summary);
    eprintln!("  effect {:?}", clicked.effect);
    assert!(
        read.summary.contains("calm page") || read.facts["text"].to_string().contains("calm"),
        "{}",
        read.summary
    );
    let read = calm(g, "the other tab afterwards", "browser_read", json!({"tab": other.facts["tab"]})).await;
    assert!(read.facts["text"].to_string().contains("calm page"), "{:?}", read.facts);
    let listed = calm(g, "the tab list afterwards", "browser_tabs", json!({"action": "list"})).await;
    eprintln!("  tabs afterwards: {}", listed.facts["count"]);
    // The spinning tab is gone or closable.
    let closed = call(g, "browser_tabs", json!({"action": "close", "tab": spin.facts["tab"]})).await;
    eprintln!("  closing the spinning tab: {:?}: {}", closed.status, closed.summary);
    calm(
        g,
        "a new tab",
        "browser_navigate",
        json!({"url": site.url("/plain?after-spin").as_str(), "new_tab": true}),
    )
    .await;
}

/// `for(;;){alert()}` after a click: the tab can be closed and a new one opened, also while
/// the looping tab is the current one.
async fn dialog_loop(g: &Ghostlight, site: &Site) {
    let looping = calm(
        g,
        "the looping page",
        "browser_navigate",
        json!({"url": site.url("/alerts").as_str(), "new_tab": true}),
    )
    .await;
    let (clicked, took) = timed(
        g,
        "browser_click",
        json!({"selector": {"name": "Alert forever"}, "tab": looping.facts["tab"], "timeout_ms": CALL_TIMEOUT_MS}),
    )
    .await;
    eprintln!("  click that starts the loop: {:?} in {took:?}: {}", clicked.status, clicked.summary);
    assert!(took <= Duration::from_millis(CALL_TIMEOUT_MS) + LATE, "the click answered after {took:?}");
    let (answered, _) =
        timed(g, "browser_dialog", json!({"action": "accept", "tab": looping.facts["tab"]})).await;
    eprintln!("  accepting one dialog: {:?}: {}", answered.status, answered.summary);
    let opened = calm(
        g,
        "a new tab while the loop runs",
        "browser_navigate",
        json!({"url": site.url("/plain?beside-loop").as_str(), "new_tab": true}),
    )
    .await;
    calm(
        g,
        "closing the looping tab",
        "browser_tabs",
        json!({"action": "close", "tab": looping.facts["tab"]}),
    )
    .await;
    let listed = calm(g, "the tab list afterwards", "browser_tabs", json!({"action": "list"})).await;
    let tabs = listed.facts["tabs"].as_array().cloned().unwrap_or_default();
    assert!(!tabs.iter().any(|t| t["tab"] == looping.facts["tab"]), "the looping tab is gone: {tabs:?}");
    calm(g, "reading the new tab", "browser_read", json!({"tab": opened.facts["tab"]})).await;
}
