//! Pages that try to wedge a session, one body for both adapters: every answer arrives within
//! its call's `timeout_ms` plus the documented grace, whatever the page does; the tab that
//! misbehaves can be closed, a new tab opened, and a second tab and a second session keep
//! answering.
//!
//! Wall-time assertions here are bounds with generous slack (a loaded CI machine), not
//! benchmarks.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_core::port::{BrowserPort, FACT_URL_CHARS, IMAGE_BLOCK_MAX_BYTES, URL_CUT_MARKER};
use ghostlight_core::{Envelope, Ghostlight, Readiness, Status, WorkspaceLimits};
use ghostlight_webdriver::Engine;
use serde_json::{Value, json};

use crate::support::dead_ends::Hanging;
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
/// The bound of a call without `timeout_ms` (the WebDriver adapter's `UNTIMED_CALL_LIMIT`).
const UNTIMED: Duration = ghostlight_webdriver::UNTIMED_CALL_LIMIT;

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
    /// Whether the adapter waits for work an action started in the page (a timer, a request)
    /// before it decides the action navigated nowhere (the WebDriver adapter; the extension
    /// waits a fixed 100 ms for a load to start).
    pub(crate) awaits_page_work: bool,
}

/// A call and how long its answer took.
pub(crate) async fn timed(g: &Ghostlight, tool: &str, arguments: Value) -> (Envelope, Duration) {
    let started = Instant::now();
    let envelope = call(g, tool, arguments).await;
    (envelope, started.elapsed())
}

/// A call that must succeed within [`CALM`].
pub(crate) async fn calm(g: &Ghostlight, what: &str, tool: &str, arguments: Value) -> Envelope {
    let (envelope, took) = timed(g, tool, arguments).await;
    assert_eq!(envelope.status, Status::Succeeded, "{what}: {} {:?}", envelope.summary, envelope.facts);
    assert!(took <= CALM, "{what} took {took:?}");
    envelope
}

/// Run the suite.
pub(crate) async fn run_all(ports: &Ports) {
    let site = hostile::start();
    // The second host serves the frame of another site (its own process) a scenario needs.
    let authority = json!({"hosts": {"allow": ["127.0.0.1", "127.0.0.2"]}});
    let g = governed(Arc::clone(&ports.port), authority.clone());
    let second = governed(Arc::clone(&ports.second), authority);
    // The second session's first call starts its browser: bounded like a hostile call (a
    // browser start on a loaded machine), not like a calm page.
    let (first, took) = timed(&second, "browser_navigate", json!({"url": site.url("/plain").as_str()})).await;
    assert_eq!(first.status, Status::Succeeded, "the second session's first page: {}", first.summary);
    assert!(took <= LATE, "the second session's first page (its browser starting) took {took:?}");
    scenario(ports.engine, "a 500 kB URL", long_url(&g, &site)).await;
    scenario(ports.engine, "a page that never finishes loading", slow_load(ports, &site)).await;
    scenario(ports.engine, "thousands of frames, a huge DOM", heavy_pages(&g, &second, &site)).await;
    scenario(ports.engine, "a full page of noise", tall_capture(&g, &second, &site)).await;
    scenario(ports.engine, "a frame that does not yield", hung_frame(&g, &site)).await;
    if !ports.trusted {
        eprintln!("[{}] skipped: the adapter sends no trusted input here", ports.engine.as_str());
        return;
    }
    scenario(ports.engine, "a click handler that never returns", spin(&g, &second, &site)).await;
    scenario(ports.engine, "an endless dialog loop", dialog_loop(&g, &site)).await;
    scenario(ports.engine, "a popup flood", popup_flood(ports, &second, &site)).await;
    scenario(ports.engine, "a page that closes its own tab", self_close(&g, &site)).await;
    scenario(ports.engine, "a page that breaks the builtins scripts use", broken_builtins(&g, &site)).await;
    if ports.awaits_page_work {
        scenario(ports.engine, "navigations a click starts late", late_navigation(&g, &site)).await;
    }
}

/// The late-work page in a new tab; answers its tab handle.
async fn late_page(g: &Ghostlight, site: &Site) -> Value {
    let url = site.url("/late");
    calm(g, "the late page", "browser_navigate", json!({"url": url.as_str(), "new_tab": true})).await.facts["tab"].clone()
}

/// A click whose handler navigates 100 ms later, one that navigates once a request it sent
/// answers, and one whose late work navigates nowhere: the first two report their landing
/// (and the next read reads the new page), the third answers with no landing.
async fn late_navigation(g: &Ghostlight, site: &Site) {
    for (button, landing) in [("Go a moment later", "/plain?late"), ("Go after a request", "/plain?fetched")]
    {
        let tab = late_page(g, site).await;
        let (clicked, took) =
            timed(g, "browser_click", json!({"selector": {"name": button}, "tab": tab})).await;
        eprintln!("  {button}: {:?} in {took:?}: {}", clicked.status, clicked.summary);
        assert_eq!(clicked.status, Status::Succeeded, "{}", clicked.summary);
        let landed = clicked.facts.get("landing").map(|l| l["url"].to_string()).unwrap_or_default();
        assert!(landed.contains(landing), "{button}: no landing on {landing}: {:?}", clicked.facts);
        let read = calm(g, "the landing", "browser_read", json!({"tab": tab})).await;
        assert!(read.facts["text"].to_string().contains("calm page"), "{:?}", read.facts);
        calm(g, "closing it", "browser_tabs", json!({"action": "close", "tab": tab})).await;
    }
    let tab = late_page(g, site).await;
    let (clicked, took) =
        timed(g, "browser_click", json!({"selector": {"name": "Retitle later"}, "tab": tab})).await;
    eprintln!("  late work that navigates nowhere: {:?} in {took:?}: {}", clicked.status, clicked.summary);
    assert_eq!(clicked.status, Status::Succeeded, "{}", clicked.summary);
    assert!(clicked.facts.get("landing").is_none(), "{:?}", clicked.facts);
    calm(g, "closing it", "browser_tabs", json!({"action": "close", "tab": tab})).await;
}

/// A first navigation to a page that commits but never finishes loading, in a fresh
/// workspace: the call answers within its timeout, the committed page is the controlled tab
/// (`readiness` not complete, said so), the next read reads it by default, and the next
/// navigation reuses that tab.
async fn slow_load(ports: &Ports, site: &Site) {
    let hanging = Hanging::start();
    let g = governed(Arc::clone(&ports.port), json!({"hosts": {"allow": ["127.0.0.1"]}}));
    let (opened, took) = timed(
        &g,
        "browser_navigate",
        json!({"url": hanging.url("/slow").as_str(), "timeout_ms": CALL_TIMEOUT_MS}),
    )
    .await;
    eprintln!(
        "  slow first page: {:?} ({:?}) in {took:?}: {}",
        opened.status, opened.readiness, opened.summary
    );
    assert!(took <= Duration::from_millis(CALL_TIMEOUT_MS) + LATE, "answered after {took:?}");
    assert_eq!(opened.status, Status::Succeeded, "{} {:?}", opened.summary, opened.facts);
    assert_eq!(opened.readiness, Readiness::Loading, "{}", opened.summary);
    assert!(opened.summary.contains("had not finished loading"), "{}", opened.summary);
    let read = calm(&g, "reading the loading page", "browser_read", json!({})).await;
    assert!(read.facts["text"].to_string().contains("Still loading"), "{:?}", read.facts);
    let next =
        calm(&g, "navigating on", "browser_navigate", json!({"url": site.url("/plain?after-slow").as_str()}))
            .await;
    assert_eq!(next.facts["tab"], opened.facts["tab"], "the same tab: {}", next.summary);
    assert_eq!(next.facts["created"], json!(false), "{}", next.summary);
    calm(&g, "closing it", "browser_tabs", json!({"action": "close", "tab": next.facts["tab"]})).await;
}

/// A page that adds 2,000 frames and one of 100,000 paragraphs (and as many links and
/// buttons): reading, inspecting, finding, waiting and capturing each answer within their
/// bounds (a call with `timeout_ms` within it plus the grace, one without within the adapter's
/// bound for untimed calls), and a second session answers meanwhile.
async fn heavy_pages(g: &Ghostlight, second: &Ghostlight, site: &Site) {
    for path in ["/frames", "/huge-dom"] {
        let opened =
            timed(g, "browser_navigate", json!({"url": site.url(path).as_str(), "new_tab": true})).await.0;
        eprintln!("  {path}: {:?}: {}", opened.status, opened.summary);
        let Some(tab) = opened.facts.get("tab").cloned() else { continue };
        let calls = [
            ("browser_read", json!({"tab": tab}), UNTIMED),
            ("browser_inspect", json!({"tab": tab}), UNTIMED),
            ("browser_find", json!({"tab": tab, "text": "Paragraph 99999"}), UNTIMED),
            (
                "browser_wait",
                json!({"tab": tab, "condition": "text_present", "value": "no such text", "timeout_ms": CALL_TIMEOUT_MS}),
                Duration::from_millis(CALL_TIMEOUT_MS),
            ),
            (
                "browser_screenshot",
                json!({"tab": tab, "timeout_ms": CALL_TIMEOUT_MS}),
                Duration::from_millis(CALL_TIMEOUT_MS),
            ),
        ];
        for (tool, arguments, bound) in calls {
            let work = timed(g, tool, arguments);
            let meanwhile = async {
                tokio::time::sleep(Duration::from_millis(200)).await;
                timed(second, "browser_read", json!({})).await
            };
            let ((envelope, took), (read, read_took)) = tokio::join!(work, meanwhile);
            eprintln!("  {path} {tool}: {:?} in {took:?}: {}", envelope.status, envelope.summary);
            assert!(took <= bound + LATE, "{path} {tool} answered after {took:?}");
            assert_eq!(read.status, Status::Succeeded, "the second session meanwhile: {}", read.summary);
            assert!(read_took <= bound + LATE, "the second session answered after {read_took:?}");
        }
        calm(g, "closing it", "browser_tabs", json!({"action": "close", "tab": tab})).await;
    }
}

/// A frame of another site (its own process) that spins for 8 s once loaded (longer than the
/// calls below take; bounded, so that a process the browser keeps after the tab closed does
/// not spin through the later scenarios): reading, inspecting and searching the page around it
/// answer within a calm call's bound, with the page's own text and controls; the tab can then
/// be closed.
async fn hung_frame(g: &Ghostlight, site: &Site) {
    let other_site = site.url_b("/");
    let url = format!("{}?b={}", site.url("/hung-frame"), other_site.as_str().trim_end_matches('/'));
    let opened =
        calm(g, "the page around the frame", "browser_navigate", json!({"url": url, "new_tab": true})).await;
    let tab = opened.facts["tab"].clone();
    // The frame loads, then starts spinning.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let (read, took) = timed(g, "browser_read", json!({"tab": tab, "mode": "visible"})).await;
    eprintln!("  read in {took:?}: {}", read.summary);
    assert_eq!(read.status, Status::Succeeded, "{}", read.summary);
    assert!(took <= CALM, "reading the page took {took:?}");
    assert!(read.facts["text"].to_string().contains("A calm page around a busy frame"), "{:?}", read.facts);
    let seen = calm(g, "inspecting the page", "browser_inspect", json!({"tab": tab})).await;
    eprintln!("  inspect: {}", seen.summary);
    let found = calm(g, "searching the page", "browser_find", json!({"tab": tab, "text": "calm page"})).await;
    eprintln!("  find: {}", found.summary);
    calm(g, "closing it", "browser_tabs", json!({"action": "close", "tab": tab})).await;
}

/// `history.replaceState` to a 500 kB URL (Firefox refuses one of 2 MB): every URL fact stays within its bound, cut with the
/// marker, its host whole.
async fn long_url(g: &Ghostlight, site: &Site) {
    let url = site.url("/long-url");
    let opened =
        calm(g, "the long URL page", "browser_navigate", json!({"url": url.as_str(), "new_tab": true})).await;
    let read = calm(g, "reading it", "browser_read", json!({"tab": opened.facts["tab"]})).await;
    let shown = read.facts["url"].as_str().unwrap_or_default().to_owned();
    eprintln!("  url fact: {} characters", shown.chars().count());
    assert!(shown.chars().count() <= FACT_URL_CHARS, "{} characters", shown.chars().count());
    let head: String = shown.chars().take(80).collect();
    assert!(shown.ends_with(URL_CUT_MARKER), "{head}");
    assert!(shown.starts_with(&format!("{}?xxx", url.as_str())), "{head}");
    let listed = calm(g, "the tab list", "browser_tabs", json!({"action": "list"})).await;
    let text = serde_json::to_string(&listed.facts).unwrap_or_default();
    assert!(text.len() < 20 * FACT_URL_CHARS, "the tab list is {} bytes", text.len());
}

/// A tall page of noise, whose full-page PNG is several times the image bound: the image
/// block stays within the bound (scaled down) or the capture is refused with its figures;
/// the second session answers meanwhile.
async fn tall_capture(g: &Ghostlight, second: &Ghostlight, site: &Site) {
    let opened = calm(
        g,
        "the tall page",
        "browser_navigate",
        json!({"url": site.url("/tall").as_str(), "new_tab": true}),
    )
    .await;
    let arguments = json!({"full_page": true, "timeout_ms": 30_000, "tab": opened.facts["tab"]});
    let shot = crate::support::tools::invoke(g, "browser_screenshot", &arguments);
    let meanwhile = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        calm(second, "the second session meanwhile", "browser_read", json!({})).await
    };
    let (shot, _) = tokio::join!(shot, meanwhile);
    let envelope = &shot.envelope;
    let bytes: usize = shot.attachments.iter().map(|a| a.bytes.len()).sum();
    eprintln!("  full page of noise: {:?}, {bytes} bytes: {}", envelope.status, envelope.summary);
    assert!(bytes as u64 <= IMAGE_BLOCK_MAX_BYTES, "{bytes} bytes");
    match envelope.status {
        Status::Succeeded => {
            assert_eq!(envelope.facts["downscaled"], json!(true), "{:?}", envelope.facts);
            assert_eq!(shot.attachments.len(), 1);
            let width = envelope.facts["width"].as_u64().unwrap_or(0);
            assert!(width > 0 && width < 1200, "{width}");
        }
        _ => assert_eq!(envelope.facts["reason"], "capture_too_large", "{}", envelope.summary),
    }
}

/// 60 `window.open`s in one click, with a session limit of 3 tabs: the click answers in time,
/// the session never holds more than its limit, and tabs past it are closed and counted.
async fn popup_flood(ports: &Ports, second: &Ghostlight, site: &Site) {
    let authority: ghostlight_core::Settings =
        serde_json::from_value(json!({"hosts": {"allow": ["127.0.0.1"]}})).expect("settings");
    let authority = ghostlight_core::AuthorityLayers { user: Some(authority), organization: None }.compile();
    let limits = WorkspaceLimits { tabs: 3, ..WorkspaceLimits::default() };
    let g = Ghostlight::builder(Arc::clone(&ports.port)).authority(authority).limits(limits).build();
    calm(
        &g,
        "a calm tab",
        "browser_navigate",
        json!({"url": site.url("/plain?flood").as_str(), "new_tab": true}),
    )
    .await;
    let mut clicks = Vec::new();
    let flooding = calm(
        &g,
        "the flooding page",
        "browser_navigate",
        json!({"url": site.url("/popups").as_str(), "new_tab": true}),
    )
    .await;
    let tab = flooding.facts["tab"].clone();
    for round in 0..3 {
        let flood = site.url(&format!("/popups?{round}"));
        calm(&g, "the flooding page", "browser_navigate", json!({"url": flood.as_str(), "tab": tab})).await;
        let (clicked, took) = timed(
            &g,
            "browser_click",
            json!({"selector": {"name": "Open many"}, "tab": tab, "timeout_ms": CALL_TIMEOUT_MS}),
        )
        .await;
        eprintln!("  flood click {round}: {:?} in {took:?}: {}", clicked.status, clicked.summary);
        assert!(took <= Duration::from_millis(CALL_TIMEOUT_MS) + LATE, "the click answered after {took:?}");
        clicks.push(clicked);
        let listed = calm(&g, "the tab list", "browser_tabs", json!({"action": "list"})).await;
        let held = listed.facts["tabs"].as_array().map_or(0, Vec::len);
        assert!(held <= limits.tabs, "the session holds {held} tabs, over its limit of {}", limits.tabs);
    }
    let closed: u64 = clicks.iter().filter_map(|c| c.facts.get("closed_tabs")?.as_u64()).sum();
    let opened: usize =
        clicks.iter().filter_map(|c| c.facts.get("opened_tabs")?.as_array().map(Vec::len)).sum();
    eprintln!("  adopted {opened}, closed {closed} past the limit");
    assert!(opened <= 1, "only the room left was filled: {opened}");
    assert!(closed >= 1, "a tab past the limit was closed and said so");
    let every = ports.port.tabs().await.map(|tabs| tabs.len()).unwrap_or(usize::MAX);
    eprintln!("  browser tabs afterwards: {every}");
    assert!(every <= 12, "the browser holds {every} tabs: popups were left running");
    calm(second, "the second session afterwards", "browser_read", json!({})).await;
}

/// A page that replaces builtins every script in its realm relies on (`JSON.stringify`,
/// `Promise.prototype.then`, `Function.prototype.apply`, `Object.defineProperty`,
/// `Array.prototype.push`; chromedriver's own Execute Script and Perform Actions fail on it):
/// it is still opened, read, searched, captured, waited on, clicked, filled and scrolled, and
/// the click and the fill reach it once each (judged by what the server saw).
async fn broken_builtins(g: &Ghostlight, site: &Site) {
    let url = site.url("/builtins");
    let opened =
        calm(g, "opening it", "browser_navigate", json!({"url": url.as_str(), "new_tab": true})).await;
    let tab = opened.facts["tab"].clone();
    let read = calm(g, "reading it", "browser_read", json!({"tab": tab})).await;
    let text = read.facts["text"].as_str().unwrap_or_default();
    assert!(text.contains("An article the page keeps"), "{text:?}");
    let found = calm(g, "searching it", "browser_find", json!({"text": "Press here", "tab": tab})).await;
    assert_eq!(found.facts["matches"].as_array().map(Vec::len), Some(1), "{:?}", found.facts);
    calm(g, "capturing it", "browser_screenshot", json!({"tab": tab})).await;
    calm(
        g,
        "waiting on it",
        "browser_wait",
        json!({"condition": "text_present", "value": "article", "tab": tab}),
    )
    .await;
    calm(g, "clicking in it", "browser_click", json!({"selector": {"name": "Press here"}, "tab": tab})).await;
    let pressed = site.hits_within("/builtins-pressed", Duration::from_secs(5)).await;
    assert_eq!(pressed, 1, "the click reached the page once");
    // What acts runs in the sandbox from the start once the page broke a read: once.
    let filled = calm(
        g,
        "filling a field",
        "browser_fill_form",
        json!({"fields": [{"selector": {"name": "Note"}, "value": "kept"}], "tab": tab}),
    )
    .await;
    assert_eq!(filled.facts["filled_count"], 1, "{:?}", filled.facts);
    let filled_heard = site.hits_within("/builtins-filled", Duration::from_secs(5)).await;
    assert_eq!(filled_heard, 1, "the page heard the fill once");
    let scrolled = calm(g, "scrolling it", "browser_scroll", json!({"tab": tab})).await;
    assert_eq!(scrolled.facts["scrolled"], true, "{:?}", scrolled.facts);
    calm(g, "closing it", "browser_tabs", json!({"action": "close", "tab": tab})).await;
}

/// A click whose handler closes its own tab: the answer says the page closed it (never that
/// it closed before the click), and the tab leaves the list.
async fn self_close(g: &Ghostlight, site: &Site) {
    let opener = calm(
        g,
        "the opener",
        "browser_navigate",
        json!({"url": site.url("/closer-opener").as_str(), "new_tab": true}),
    )
    .await;
    let opened = calm(
        g,
        "opening the closer",
        "browser_click",
        json!({"selector": {"name": "Open a closer"}, "tab": opener.facts["tab"]}),
    )
    .await;
    let Some(closer) = opened.facts["opened_tabs"][0]["tab"].as_str().map(str::to_owned) else {
        panic!("the page's tab was not adopted: {} {:?}", opened.summary, opened.facts);
    };
    let (clicked, took) =
        timed(g, "browser_click", json!({"selector": {"name": "Close this tab"}, "tab": closer})).await;
    eprintln!("  self-closing click: {:?} in {took:?}: {}", clicked.status, clicked.summary);
    assert!(!clicked.summary.contains("before Ghostlight could"), "{}", clicked.summary);
    // The click was delivered: it says so, or (where the close raced its receipt) that the
    // page most likely closed the tab in answer.
    let closed_by_page =
        clicked.summary.contains("closed its own tab") || clicked.facts["reason"] == "tab_closed_by_page";
    assert!(clicked.status == Status::Succeeded || closed_by_page, "{}", clicked.summary);
    assert!(took <= CALM, "{took:?}");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let listed = calm(g, "the tab list", "browser_tabs", json!({"action": "list"})).await;
        let tabs = listed.facts["tabs"].as_array().cloned().unwrap_or_default();
        if !tabs.iter().any(|t| t["tab"] == closer.as_str()) {
            break;
        }
        assert!(Instant::now() < deadline, "the closed tab is still listed: {tabs:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    calm(g, "the opener afterwards", "browser_read", json!({"tab": opener.facts["tab"]})).await;
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
