//! Faults against the real adapter, through `ghostlight_core::Ghostlight` over
//! `WebDriverBrowser`, on both engines. Every fault must end the call it hits with a truthful
//! envelope (status, effect, `repeat_safe` false unless known safe, a `reason` fact), and
//! Ghostlight must keep answering afterwards:
//!
//! - the browser process, or the driver, killed in the middle of a long call: the next call
//!   works again on a fresh session the adapter launches;
//! - the session's only tab closed by its own page (Firefox's first tab; a popup left alone
//!   once the model closed its opener, both engines): the browser is not lost with its last
//!   window, and the next navigation opens a tab;
//! - a tab closed by its own page (`window.close()`): calls on it fail `tab_gone` (or
//!   `tab_closed`, when the click saw the page close it) without
//!   effect, the tab list drops it, and navigating by its handle reopens it;
//! - a page that never finishes loading (the server holds the response open): the navigation
//!   ends within its own timeout, and the tab navigates elsewhere afterwards;
//! - a dialog opened by a step of a `browser_flow`: the next step reports the dialog, the flow
//!   is partial, and `browser_dialog` resolves it;
//! - a `browser_sequence` whose click lands on a second host: outside authority the next step
//!   is refused (the click stays counted: effect partial); inside authority it goes on.
//!
//! Each engine prints a fault matrix (run with `--nocapture`): fault → status/effect/reason of
//! the hit call, then what the following calls answered.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_core::Ghostlight;
use ghostlight_core::port::BrowserPort;
use ghostlight_webdriver::{Engine, WebDriverBrowser};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};
use support::dead_ends::Hanging;
use support::engines::{browser, scenario};
use support::processes::{browser_main, driver_of};
use support::server::{HOST_B, Site};
use support::sites::{e2e, plain};
use support::tools;

/// The timeout of the navigation to the page that never finishes loading.
const HANG_TIMEOUT_MS: u64 = 3_000;

per_engine!(chromium, firefox => run);

async fn run(engine: Engine) {
    let started = Instant::now();
    let site = plain::start();
    let hosts = e2e::start();
    let mut matrix = Vec::new();
    for fault in [Fault::Browser, Fault::Driver] {
        let name = format!("{fault:?}_killed_mid_call");
        scenario(engine, &name, async { matrix.push(killed_mid_call(engine, &site, fault).await) }).await;
    }
    scenario(engine, "only_tab_closed_by_its_page", async {
        matrix.push(only_tab_closed_by_page(engine, &site).await);
    })
    .await;
    scenario(engine, "last_popup_closed_by_its_page", async {
        matrix.push(last_popup_closed_by_page(engine, &site).await);
    })
    .await;
    // The remaining faults share one browser: each must leave it answering for the next.
    let browser = browser(engine);
    let g = Ghostlight::new(browser.clone());
    scenario(engine, "tab_closed_by_its_page", async {
        matrix.push(tab_closed_by_page(engine, &browser, &g, &site).await);
    })
    .await;
    scenario(engine, "page_never_finishes_loading", async {
        matrix.push(never_finishes_loading(&g, &site).await);
    })
    .await;
    scenario(engine, "dialog_during_flow", async { matrix.push(dialog_during_flow(&g, &hosts).await) }).await;
    scenario(engine, "second_host_mid_sequence", async {
        matrix.extend(second_host_mid_sequence(&browser, &hosts).await);
    })
    .await;
    browser.shutdown().await;
    eprintln!("fault matrix ({engine:?}, {:.1}s):", started.elapsed().as_secs_f32());
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

/// A call's envelope as JSON.
async fn call(ghostlight: &Ghostlight, tool: &str, arguments: Value) -> Value {
    serde_json::to_value(tools::call(ghostlight, tool, arguments).await).expect("an envelope serialises")
}

/// A call that must succeed, its envelope as JSON.
async fn ok(ghostlight: &Ghostlight, tool: &str, arguments: Value) -> Value {
    serde_json::to_value(tools::ok(ghostlight, tool, arguments).await).expect("an envelope serialises")
}

/// The invariant of every failure: no success claimed, and never repeat-safe when the effect
/// is unknown or partial.
fn truthful(envelope: &Value) {
    assert_ne!(envelope["reason"], "invalid_arguments", "{envelope}");
    if matches!(envelope["effect"].as_str(), Some("unknown" | "partial")) || envelope["status"] != "succeeded"
    {
        assert_eq!(envelope["repeat_safe"], false, "{envelope}");
    }
}

fn tab_of(envelope: &Value) -> String {
    envelope["facts"]["tab"].as_str().expect("a tab handle").to_owned()
}

/// The tab handles `browser_tabs` lists.
async fn listed(ghostlight: &Ghostlight) -> Vec<String> {
    let list = ok(ghostlight, "browser_tabs", json!({"action": "list"})).await;
    list["facts"]["tabs"]
        .as_array()
        .expect("a tab list")
        .iter()
        .filter_map(|tab| tab["tab"].as_str().map(str::to_owned))
        .collect()
}

async fn killed_mid_call(engine: Engine, site: &Site, fault: Fault) -> String {
    let browser = browser(engine);
    let ghostlight = Ghostlight::new(browser.clone());
    let opened = call(&ghostlight, "browser_navigate", json!({"url": site.url("/one").as_str()})).await;
    assert_eq!(opened["status"], "succeeded", "{opened}");
    let tab = tab_of(&opened);
    let process = browser.testing_process().await.expect("a launched browser");
    let victim = match fault {
        Fault::Browser => {
            browser_main(process.group_pid, &process.profile_dir).expect("the browser's main process")
        }
        Fault::Driver => driver_of(process.group_pid).expect("the driver"),
    };
    let killer = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        kill(Pid::from_raw(i32::try_from(victim).expect("a pid")), Signal::SIGKILL).expect("kill");
    });
    let started = Instant::now();
    let waited = call(
        &ghostlight,
        "browser_wait",
        json!({"tab": tab, "condition": "text_present", "value": "never appears", "timeout_ms": 5000}),
    )
    .await;
    let elapsed = started.elapsed();
    killer.await.expect("the killer ran");
    truthful(&waited);
    // The truth: the call did not succeed, and it says so without claiming an effect.
    assert_ne!(waited["status"], "succeeded", "{waited}");
    assert!(matches!(waited["effect"].as_str(), Some("none" | "unknown")), "{waited}");

    // The Ghostlight keeps answering: the old tab is gone, navigation opens a fresh session.
    let started = Instant::now();
    let old = call(&ghostlight, "browser_read", json!({"tab": tab})).await;
    let old_took = started.elapsed();
    truthful(&old);
    assert_ne!(old["status"], "succeeded", "{old}");
    let started = Instant::now();
    let again = call(&ghostlight, "browser_navigate", json!({"url": site.url("/two").as_str()})).await;
    let again_took = started.elapsed();
    assert_eq!(again["status"], "succeeded", "{again}");
    let fresh = browser.testing_process().await.expect("a second browser");
    assert_ne!(fresh.profile_dir, process.profile_dir);
    let started = Instant::now();
    browser.shutdown().await;
    eprintln!(
        "[{}]   shutdown after {fault:?} killed: {} ms",
        engine.as_str(),
        started.elapsed().as_millis()
    );
    format!(
        "{fault:?} killed during browser_wait → {} after {:.1}s; old tab → {} after {:.1}s; navigate (a new \
         browser) → {} after {:.1}s",
        outcome(&waited),
        elapsed.as_secs_f32(),
        outcome(&old),
        old_took.as_secs_f32(),
        outcome(&again),
        again_took.as_secs_f32()
    )
}

/// A tab whose page closes it (`window.close()` after a click): calls on it fail without
/// effect, the list drops it, and navigating by its handle reopens it.
///
/// Browsers let a script close only a tab it opened, or one with a single history entry.
/// Firefox's WebDriver tab (`new_tab`) has one entry; Chromium's has two (the WebDriver
/// `about:blank` stays in its history), so on Chromium the page opens the tab by script and
/// a second workspace adopts it.
async fn tab_closed_by_page(
    engine: Engine,
    browser: &Arc<WebDriverBrowser>,
    g: &Ghostlight,
    site: &Site,
) -> String {
    let first =
        ok(g, "browser_navigate", json!({"url": site.url("/opener").as_str(), "reuse": "never"})).await;
    let keep = tab_of(&first);
    let adopter;
    let (g, how) = match engine {
        Engine::Firefox => {
            let opened =
                ok(g, "browser_navigate", json!({"url": site.url("/closer").as_str(), "new_tab": true}))
                    .await;
            (g, ("new_tab", tab_of(&opened)))
        }
        _ => {
            ok(g, "browser_click", json!({"tab": keep, "selector": {"name": "Open a closer"}})).await;
            let popup = site.url("/closer?popup");
            let deadline = Instant::now() + Duration::from_secs(5);
            while !browser.tabs().await.expect("the tabs").iter().any(|info| info.page.url == popup) {
                assert!(Instant::now() < deadline, "the page opened no tab");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            adopter = Ghostlight::new(browser.clone());
            let adopted = ok(&adopter, "browser_navigate", json!({"url": popup.as_str()})).await;
            assert_eq!(adopted["facts"]["reused"], true, "{adopted}");
            (&adopter, ("opened by script, adopted", tab_of(&adopted)))
        }
    };
    let (how, closing) = how;
    let before = browser.tabs().await.expect("the tabs").len();
    let clicked =
        call(g, "browser_click", json!({"tab": closing, "selector": {"name": "Close this tab"}})).await;
    assert_eq!(clicked["status"], "succeeded", "{clicked}");
    // Wait for the close through the port, so Ghostlight itself first learns of it from the
    // call on the closed tab.
    let deadline = Instant::now() + Duration::from_secs(5);
    while browser.tabs().await.expect("the tabs").len() >= before {
        assert!(Instant::now() < deadline, "the page did not close its tab");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let read = call(g, "browser_read", json!({"tab": closing})).await;
    truthful(&read);
    assert_eq!((read["status"].as_str(), read["effect"].as_str()), (Some("failed"), Some("none")), "{read}");
    // `tab_closed` when the click already saw its page close the tab, `tab_gone` when the
    // close came after the click's answer.
    assert!(matches!(read["facts"]["reason"].as_str(), Some("tab_gone" | "tab_closed")), "{read}");
    let list = ok(g, "browser_tabs", json!({"action": "list"})).await;
    assert!(!list.to_string().contains(&closing), "browser_tabs no longer lists {closing}: {list}");
    let click =
        call(g, "browser_click", json!({"tab": closing, "selector": {"name": "Close this tab"}})).await;
    truthful(&click);
    assert_eq!(
        (click["status"].as_str(), click["effect"].as_str()),
        (Some("failed"), Some("none")),
        "{click}"
    );
    assert!(matches!(click["facts"]["reason"].as_str(), Some("tab_gone" | "tab_closed")), "{click}");

    // Still answering: the closed handle reopens by navigation.
    let reopened = ok(g, "browser_navigate", json!({"tab": closing, "url": site.url("/two").as_str()})).await;
    assert_eq!(reopened["facts"]["reopened"], true, "{reopened}");
    assert!(listed(g).await.contains(&closing));
    ok(g, "browser_tabs", json!({"action": "close", "tab": closing})).await;
    format!(
        "tab ({how}) closed by its page → click {}; read {}; tabs list {} (without it); click {}; navigate by \
         handle {} (reopened)",
        outcome(&clicked),
        outcome(&read),
        outcome(&list),
        outcome(&click),
        outcome(&reopened)
    )
}

/// A page that closes the session's only tab, a fresh browser's first (Firefox lets a page
/// close a tab with one history entry; Chromium keeps WebDriver's `about:blank` in the history,
/// so there the page cannot): the browser is not lost with its last window, and the next
/// navigation opens a tab as usual.
async fn only_tab_closed_by_page(engine: Engine, site: &Site) -> String {
    let browser = browser(engine);
    let g = Ghostlight::new(browser.clone());
    let first = ok(&g, "browser_navigate", json!({"url": site.url("/closer").as_str()})).await;
    let closing = tab_of(&first);
    assert_eq!(browser.tabs().await.expect("the tabs").len(), 1, "the first tab is the only window");
    let clicked =
        call(&g, "browser_click", json!({"tab": closing, "selector": {"name": "Close this tab"}})).await;
    assert_eq!(clicked["status"], "succeeded", "{clicked}");
    // The page closes its tab 300 ms after the click (where the engine lets it).
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let closed = browser.tabs().await.map(|tabs| tabs.is_empty()).unwrap_or(true);
    let next = ok(&g, "browser_navigate", json!({"url": site.url("/after").as_str()})).await;
    // A closed tab's handle may be reopened by the navigation (the same token, a new window).
    let tabs = listed(&g).await;
    assert_eq!(
        tabs,
        vec![tab_of(&next)],
        "{engine:?}: the navigated tab alone (closed: {closed}, was {closing})"
    );
    browser.shutdown().await;
    format!(
        "only tab closed by its page ({}) → navigate {}",
        if closed { "closed" } else { "the engine kept it" },
        outcome(&next)
    )
}

/// A popup a page opened, left as the session's only tab (the model closed its opener), that
/// closes itself (a script may close a window a script opened, on every engine): the browser
/// is not lost with it, and the next navigation opens a tab as usual.
async fn last_popup_closed_by_page(engine: Engine, site: &Site) -> String {
    let browser = browser(engine);
    let g = Ghostlight::new(browser.clone());
    let opener = tab_of(&ok(&g, "browser_navigate", json!({"url": site.url("/opener").as_str()})).await);
    let clicked =
        ok(&g, "browser_click", json!({"tab": opener, "selector": {"name": "Open a closer"}})).await;
    let popup = clicked["facts"]["opened_tabs"][0]["tab"].as_str().map(str::to_owned);
    let popup = match popup {
        Some(popup) => popup,
        None => {
            // The popup opened after the click answered: the next call reports it.
            tokio::time::sleep(Duration::from_millis(500)).await;
            let read = ok(&g, "browser_read", json!({"tab": opener})).await;
            read["facts"]["opened_tabs"][0]["tab"].as_str().expect("the popup is reported").to_owned()
        }
    };
    ok(&g, "browser_tabs", json!({"action": "close", "tab": opener})).await;
    assert_eq!(listed(&g).await, vec![popup.clone()], "{engine:?}: the popup alone");
    let closing =
        call(&g, "browser_click", json!({"tab": popup, "selector": {"name": "Close this tab"}})).await;
    assert_eq!(closing["status"], "succeeded", "{closing}");
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let next = ok(&g, "browser_navigate", json!({"url": site.url("/after").as_str()})).await;
    let tabs = listed(&g).await;
    assert_eq!(tabs, vec![tab_of(&next)], "{engine:?}: the new tab alone");
    browser.shutdown().await;
    format!("last tab, a popup, closed by its page → navigate {}", outcome(&next))
}

/// A navigation to a page whose response never ends: the call ends within its timeout with
/// an unknown effect (the page started loading; whether it will finish is unknown), and the
/// same tab navigates elsewhere afterwards.
async fn never_finishes_loading(g: &Ghostlight, site: &Site) -> String {
    let mut hanging = Hanging::start();
    let start = ok(g, "browser_navigate", json!({"url": site.url("/one").as_str(), "reuse": "never"})).await;
    let tab = tab_of(&start);
    let started = Instant::now();
    let hung = call(
        g,
        "browser_navigate",
        json!({"tab": tab, "url": hanging.url("/hang").as_str(), "timeout_ms": HANG_TIMEOUT_MS}),
    )
    .await;
    let took = started.elapsed();
    assert!(hanging.accepted() > 0, "the browser asked the hanging server");
    truthful(&hung);
    assert!(
        took < Duration::from_millis(HANG_TIMEOUT_MS + 4_000),
        "the navigation overran its {HANG_TIMEOUT_MS} ms timeout: {took:?}"
    );
    // Truthful: either it says the page is still loading, or it timed out with the effect
    // unknown (the navigation was sent).
    match hung["status"].as_str() {
        Some("succeeded") => assert_ne!(hung["readiness"], "complete", "{hung}"),
        _ => {
            assert_eq!(hung["facts"]["reason"], "timeout", "{hung}");
            assert_eq!(hung["effect"], "unknown", "{hung}");
        }
    }

    let started = Instant::now();
    let read = call(g, "browser_read", json!({"tab": tab})).await;
    let read_took = started.elapsed();
    truthful(&read);
    let away = ok(g, "browser_navigate", json!({"tab": tab, "url": site.url("/two").as_str()})).await;
    let text = ok(g, "browser_read", json!({"tab": tab, "mode": "visible"})).await;
    assert!(text["facts"]["text"].as_str().is_some_and(|t| t.contains("TWO")), "{text}");
    hanging.release();
    ok(g, "browser_tabs", json!({"action": "close", "tab": tab})).await;
    format!(
        "page never finishes loading → navigate {} (readiness {}) after {:.1}s; read {} (readiness {}, on the \
         hanging page: {}) after {:.1}s; navigate elsewhere {}",
        outcome(&hung),
        hung["readiness"].as_str().unwrap_or("?"),
        took.as_secs_f32(),
        outcome(&read),
        read["readiness"].as_str().unwrap_or("?"),
        read["facts"]["url"].as_str().is_some_and(|url| url.starts_with(hanging.url("/").as_str())),
        read_took.as_secs_f32(),
        outcome(&away)
    )
}

/// A `browser_flow` whose second step opens an alert: the third step reports the dialog, the
/// flow stops partial before its fourth, and `browser_dialog` resolves the dialog afterwards.
async fn dialog_during_flow(g: &Ghostlight, hosts: &Site) -> String {
    let start =
        ok(g, "browser_navigate", json!({"url": hosts.url("/counter").as_str(), "reuse": "never"})).await;
    let tab = tab_of(&start);
    let steps = json!([
        { "id": "open", "tool": "browser_navigate", "arguments": { "url": hosts.url("/dialogs").as_str() } },
        { "id": "alert", "tool": "browser_click", "arguments": { "selector": { "name": "Show alert" } } },
        { "id": "confirm", "tool": "browser_click", "arguments": { "selector": { "name": "Ask confirm" } } },
        { "id": "see", "tool": "browser_read", "arguments": { "mode": "visible" } },
    ]);
    let flow = call(g, "browser_flow", json!({"tab": tab, "steps": steps})).await;
    truthful(&flow);
    assert_ne!(flow["status"], "succeeded", "{flow}");
    assert_eq!(flow["effect"], "partial", "{flow}");
    // Steps 1 and 2 succeeded, step 3 was refused, step 4 never ran.
    let counts = (flow["facts"]["completed"].clone(), flow["facts"]["stopped"].clone());
    assert_eq!(counts, (json!(2), json!(true)), "{flow}");
    let rows = flow["facts"]["steps"].as_array().expect("step rows");
    let blocked = rows.iter().find_map(|row| row.get("envelope").filter(|e| e["status"] != "succeeded"));
    let blocked = blocked.expect("the step the dialog blocked");
    assert_eq!(blocked["facts"]["reason"], "blocked_by_dialog", "{blocked}");
    assert_eq!(blocked["effect"], "none", "{blocked}");

    let status = ok(g, "browser_dialog", json!({"tab": tab, "action": "status"})).await;
    assert_eq!(status["facts"]["present"], true, "{status}");
    let accepted = ok(g, "browser_dialog", json!({"tab": tab, "action": "accept"})).await;
    let text = ok(g, "browser_read", json!({"tab": tab, "mode": "visible"})).await;
    let seen = text["facts"]["text"].as_str().unwrap_or_default();
    assert!(seen.contains("alert closed"), "the page went on after the alert: {text}");
    assert!(!seen.contains("confirm:"), "the blocked step never clicked: {text}");
    let clicked = ok(g, "browser_click", json!({"tab": tab, "selector": {"name": "Ask confirm"}})).await;
    ok(g, "browser_dialog", json!({"tab": tab, "action": "dismiss"})).await;
    ok(g, "browser_tabs", json!({"action": "close", "tab": tab})).await;
    format!(
        "dialog opened by a flow step → flow {} (completed {}, blocked step {} ); dialog status {} ({}); accept \
         {}; next click {}",
        outcome(&flow),
        flow["facts"]["completed"],
        outcome(blocked),
        outcome(&status),
        status["facts"]["dialog_type"].as_str().unwrap_or("?"),
        outcome(&accepted),
        outcome(&clicked)
    )
}

/// A `browser_sequence` on 127.0.0.1 whose click follows a link to 127.0.0.2: under an
/// authority allowing only the first host the landing is reported outside authority and the
/// next step is refused; with both hosts allowed the sequence completes.
async fn second_host_mid_sequence(browser: &Arc<WebDriverBrowser>, hosts: &Site) -> Vec<String> {
    let mut rows = Vec::new();
    for allowed in [vec!["127.0.0.1"], vec!["127.0.0.1", HOST_B]] {
        let g = tools::governed(browser.clone(), json!({ "hosts": { "allow": allowed } }));
        let before = hosts.hits("/landing");
        let start =
            ok(&g, "browser_navigate", json!({"url": hosts.url("/links").as_str(), "reuse": "never"})).await;
        let tab = tab_of(&start);
        let steps = json!([
            { "action": "click", "selector": { "name": "Visit the second host" } },
            { "action": "wait", "condition": "text_present", "value": "landed on", "timeout_ms": 3000 },
        ]);
        let sequence = call(&g, "browser_sequence", json!({"tab": tab, "steps": steps})).await;
        truthful(&sequence);
        assert!(hosts.hits("/landing") > before, "the click reached the second host");
        let completed = sequence["facts"]["completed_steps"].clone();
        let inside = allowed.len() == 2;
        if inside {
            assert_eq!(sequence["status"], "succeeded", "{sequence}");
            assert_eq!(sequence["effect"], "applied", "{sequence}");
            assert_eq!(completed, json!(2), "{sequence}");
        } else {
            assert_eq!(sequence["status"], "blocked", "{sequence}");
            // The click happened: the sequence is partial, never "none".
            assert_eq!(sequence["effect"], "partial", "{sequence}");
            assert_eq!(completed, json!(1), "{sequence}");
            let steps = sequence["facts"]["steps"].as_array().expect("step rows");
            assert_eq!(steps[0]["effect"], "applied", "the click's row: {sequence}");
            let wait = steps.get(1).expect("the wait's row");
            assert_eq!(wait["status"], "blocked", "the wait was refused on the foreign page: {sequence}");
        }
        // Still answering: back to an allowed host in the same tab.
        let back =
            ok(&g, "browser_navigate", json!({"tab": tab, "url": hosts.url("/counter").as_str()})).await;
        ok(&g, "browser_tabs", json!({"action": "close", "tab": tab})).await;
        rows.push(format!(
            "click lands on {HOST_B} mid-sequence, allowed {allowed:?} → sequence {} (completed {completed}, \
             stopped at {}); navigate back {}",
            outcome(&sequence),
            sequence["facts"].get("stopped_at").map_or_else(|| "-".to_owned(), Value::to_string),
            outcome(&back)
        ));
    }
    rows
}
