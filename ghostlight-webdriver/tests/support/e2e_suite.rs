//! The end-to-end suite of all 24 tools through `Ghostlight::invoke`, shared by the two
//! adapters: one suite, two ports. `ghostlight-webdriver/tests/tools_e2e.rs` runs it over the
//! WebDriver adapter, `ghostlight-extension/tests/tools_e2e.rs` over the extension connector
//! (which includes this support module by path), each on headless Chromium and Firefox.
//!
//! Every scenario checks what the page itself observed — read back with `browser_execute`
//! (the authority here allows `execute`) or `browser_read` — not only the envelope. The
//! fixture site (`sites/e2e.rs`) serves 127.0.0.1 and, for host governance, 127.0.0.2.
//! Where an engine's extension APIs cannot do something, the scenario asserts the exact
//! `unsupported` envelope naming the engine for that adapter and engine ([`E2e::lacks`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use ghostlight_core::port::{BrowserPort, Gate, NetworkEnforcement, TabCall};
use ghostlight_core::{Effect, Envelope, Ghostlight, Status, ToolName, ToolResult};
use ghostlight_webdriver::Engine;
use serde_json::{Value, json};

use crate::support::engines::scenario;
use crate::support::port::{go, png_size};
use crate::support::server::{HOST_B, Site};
use crate::support::sites::e2e::{ARTICLE_BOILERPLATE, ARTICLE_PARAGRAPHS};
use crate::support::tools;

/// How long `until` polls the page for an asynchronous effect.
const SETTLE: Duration = Duration::from_secs(5);
/// The largest text block (summary, next steps, compact envelope JSON) a read of the
/// ≈3,700-byte fixture article may take.
const READ_TEXT_BLOCK_MAX: usize = 4_500;
/// Calls slower than this are printed.
const SLOW_CALL: Duration = Duration::from_millis(1_000);

/// The port a suite runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Adapter {
    /// `ghostlight-webdriver`'s `WebDriverBrowser`.
    WebDriver,
    /// `ghostlight-extension`'s `ExtensionBrowser`.
    Extension,
}

/// Run every scenario (those `GHOSTLIGHT_TEST_SCENARIOS` selects) in sequence; answers the
/// wall time of each one run.
pub(crate) async fn run_all(e: &E2e<'_>) -> Vec<(&'static str, Duration)> {
    let engine = e.engine;
    let mut times = Vec::new();
    macro_rules! step {
        ($name:literal, $body:expr) => {
            if let Some(took) = scenario(engine, $name, $body).await {
                times.push(($name, took));
            }
        };
    }
    step!("start_browser", start_browser(e));
    step!("governance_blocks_second_host_and_policy_explain", governance_and_policy(e));
    step!("navigate_and_tabs", navigate_and_tabs(e));
    step!("navigate_reuses_an_unbound_tab", reuse(e));
    step!("history_back_forward_reload", history(e));
    step!("navigate_beforeunload_blocked_and_discard", beforeunload(e));
    step!("window_zoom_and_resize", window(e));
    step!("read_article", read(e));
    step!("gates_are_said", gates(e));
    step!("inspect_find_shadow_frame", inspect_and_find(e));
    step!("screenshot_and_region_click", screenshots(e));
    step!("click_hover_scroll", click_hover_scroll(e));
    step!("fill_form_and_credential_handoff", fill_form(e));
    step!("type_text_and_press_key", keyboard(e));
    step!("drag_pointer_and_html5", drag(e));
    step!("wait_conditions", wait(e));
    step!("multi_select_modifiers_and_outcome_waits", outcomes(e));
    step!("dialogs", dialogs(e));
    step!("upload_paths_inline_image", upload(e));
    step!("execute", execute(e));
    step!("sequence_and_flow", composites(e));
    step!("record", record(e));
    step!("diagnose", diagnose(e));
    step!("landing_outside_authority", landing_outside(e));
    step!("tabs_the_page_opens_join_the_workspace", popups(e));
    times
}

// ---- harness -----------------------------------------------------------------------------

/// Ghostlight over one browser, with an authority that allows `execute` and uploads from a
/// temporary folder; every call's status is tallied per tool.
pub(crate) struct E2e<'s> {
    engine: Engine,
    adapter: Adapter,
    g: Ghostlight,
    site: &'s Site,
    uploads: PathBuf,
    tally: Mutex<BTreeMap<&'static str, BTreeMap<String, u32>>>,
}

impl<'s> E2e<'s> {
    /// Ghostlight over `port` (a browser of `engine` through `adapter`), serving `site`, with
    /// uploads allowed from `uploads`.
    pub(crate) fn new(
        engine: Engine,
        adapter: Adapter,
        port: Arc<dyn BrowserPort>,
        site: &'s Site,
        uploads: &Path,
    ) -> Self {
        let uploads = uploads.canonicalize().expect("a canonical uploads folder");
        let g = tools::governed(
            port,
            json!({
                "capabilities": {"allow": ["execute"]},
                "uploads": {"roots": [uploads.to_string_lossy()]},
            }),
        );
        E2e { engine, adapter, g, site, uploads, tally: Mutex::default() }
    }

    fn chromium(&self) -> bool {
        self.engine == Engine::Chromium
    }

    /// Whether this is the extension connector on Firefox, whose extension APIs send no
    /// trusted pointer, wheel or key input and see no dialogs and no console messages.
    fn extension_on_firefox(&self) -> bool {
        self.adapter == Adapter::Extension && self.engine == Engine::Firefox
    }

    /// `browser_click` with `arguments`, which must succeed; where the adapter and engine send
    /// no trusted input (the extension on Firefox), the `unsupported` envelope is asserted and
    /// the page's own element `css` is clicked from a script instead, so the scenario goes on.
    async fn click(&self, arguments: Value, css: &str) {
        if self.extension_on_firefox() {
            self.unsupported("browser_click", arguments).await;
            self.js(&format!("document.querySelector({css:?}).click(); 0")).await;
        } else {
            self.ok("browser_click", arguments).await;
        }
    }

    /// Invoke a tool this adapter and engine cannot do: the envelope is `failed` with reason
    /// `unsupported`, and its summary or facts name the engine; answers it.
    async fn unsupported(&self, tool: &'static str, arguments: Value) -> Envelope {
        let e = self.expect(Status::Failed, tool, arguments.clone()).await;
        assert_eq!(e.facts["reason"], json!("unsupported"), "{tool} {arguments}: {}", e.summary);
        let engine = self.engine.as_str();
        assert!(
            e.summary.contains(engine) || e.facts["engine"] == json!(engine),
            "{tool}: the engine is named: {}\n{:?}",
            e.summary,
            e.facts
        );
        e
    }

    /// Invoke a tool; the envelope's status (and failure reason) is tallied.
    async fn call(&self, tool: &'static str, arguments: Value) -> ToolResult {
        self.call_in(&self.g, tool, arguments).await
    }

    /// Invoke a tool in workspace `g` (tallied like [`E2e::call`]).
    async fn call_in(&self, g: &Ghostlight, tool: &'static str, arguments: Value) -> ToolResult {
        let started = Instant::now();
        let result = tools::invoke(g, tool, &arguments).await;
        let took = started.elapsed();
        let e = &result.envelope;
        let declaration = ToolName::parse(tool).expect("a catalog tool").declaration();
        let mismatches = declaration.fact_mismatches(&e.facts);
        assert!(mismatches.is_empty(), "{tool}: facts depart from the output schema: {mismatches:?}\n{e:?}");
        if took > SLOW_CALL {
            eprintln!(
                "[{}]   slow call: {tool} took {} ms ({})",
                self.engine.as_str(),
                took.as_millis(),
                e.summary
            );
        }
        let mut label = format!("{:?}", e.status).to_lowercase();
        if let Some(reason) = e.facts.get("reason").and_then(Value::as_str) {
            label = format!("{label}:{reason}");
        }
        if let Ok(mut tally) = self.tally.lock() {
            *tally.entry(tool).or_default().entry(label).or_default() += 1;
        }
        result
    }

    /// Invoke a tool that must succeed; answers its envelope.
    async fn ok(&self, tool: &'static str, arguments: Value) -> Envelope {
        let result = self.call(tool, arguments.clone()).await;
        let e = result.envelope;
        assert_eq!(e.status, Status::Succeeded, "{tool} {arguments}: {}\n{:?}", e.summary, e.facts);
        e
    }

    /// Invoke a tool that must answer `status`; answers its envelope.
    async fn expect(&self, status: Status, tool: &'static str, arguments: Value) -> Envelope {
        let e = self.call(tool, arguments.clone()).await.envelope;
        assert_eq!(e.status, status, "{tool} {arguments}: {}\n{:?}", e.summary, e.facts);
        e
    }

    /// The value of `script` in the default tab.
    async fn js(&self, script: &str) -> Value {
        self.ok("browser_execute", json!({ "script": script })).await.facts["value"].clone()
    }

    /// The value of `script` in `tab`.
    async fn js_in(&self, tab: &str, script: &str) -> Value {
        self.ok("browser_execute", json!({ "script": script, "tab": tab })).await.facts["value"].clone()
    }

    /// The text content of the element matching the CSS `selector`.
    async fn text(&self, selector: &str) -> String {
        let value = self.js(&format!("document.querySelector({selector:?}).textContent")).await;
        value.as_str().unwrap_or_default().to_owned()
    }

    /// Poll the text of `selector` until it equals `expected` (bounded); answers the last text.
    async fn until_text(&self, selector: &str, expected: &str) -> String {
        let deadline = Instant::now() + SETTLE;
        loop {
            let text = self.text(selector).await;
            if text == expected || Instant::now() >= deadline {
                return text;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Navigate the default tab (opening one when there is none) to `path` on 127.0.0.1.
    async fn goto(&self, path: &str) -> Envelope {
        self.ok("browser_navigate", json!({ "url": self.site.url(path).as_str() })).await
    }

    /// A fresh viewport screenshot, its pixels per CSS pixel, and the centre (CSS pixels) of
    /// the element matching the CSS `selector`.
    async fn view_and_centre(&self, selector: &str) -> (Envelope, f64, (f64, f64)) {
        let view = self.ok("browser_screenshot", json!({})).await;
        let scale = u64_fact(&view, "/width") as f64 / self.js("innerWidth").await.as_f64().expect("a width");
        let script = format!(
            "const r = document.querySelector({selector:?}).getBoundingClientRect(); [r.left + r.width / 2, r.top + r.height / 2]"
        );
        let centre = serde_json::from_value(self.js(&script).await).expect("a point");
        (view, scale, centre)
    }

    /// The target handle of the control called exactly `name`, found with `browser_find`.
    async fn target(&self, name: &str) -> String {
        let e = self.ok("browser_find", json!({ "text": name, "scope": "control" })).await;
        row_target(&e.facts["matches"], name).unwrap_or_else(|| panic!("no control {name:?}: {:?}", e.facts))
    }

    /// Print each scenario's wall time and the envelope statuses every tool answered; assert
    /// that every catalog tool was invoked (when all scenarios ran).
    pub(crate) fn report(&self, times: &[(&str, Duration)], total: Duration) {
        let engine = self.engine.as_str();
        eprintln!("\n[{engine}] scenario wall times over {:?}:", self.adapter);
        for (name, took) in times {
            eprintln!("[{engine}]   {:>6} ms  {name}", took.as_millis());
        }
        eprintln!("[{engine}]   {:>6} ms  all (with browser start)", total.as_millis());
        eprintln!("\n[{engine}] envelope statuses per tool:");
        let tally = self.tally.lock().map(|t| t.clone()).unwrap_or_default();
        for (tool, statuses) in &tally {
            let listed: Vec<String> = statuses.iter().map(|(s, n)| format!("{s}×{n}")).collect();
            eprintln!("[{engine}]   {tool:<20} {}", listed.join(", "));
        }
        let missing: Vec<&str> = ghostlight_core::CATALOG
            .iter()
            .map(|d| d.name.as_str())
            .filter(|name| !tally.contains_key(name))
            .collect();
        if std::env::var_os("GHOSTLIGHT_TEST_SCENARIOS").is_none() {
            assert!(missing.is_empty(), "tools never invoked: {missing:?}");
        }
    }
}

/// The target of the row (`[target, role, name, …]`) whose name is `name`.
fn row_target(rows: &Value, name: &str) -> Option<String> {
    rows.as_array()?
        .iter()
        .find(|row| row.get(2).and_then(Value::as_str) == Some(name))
        .and_then(|row| row.get(0)?.as_str().map(str::to_owned))
}

/// The row whose name is `name`.
fn row<'v>(rows: &'v Value, name: &str) -> &'v Value {
    rows.as_array()
        .and_then(|rows| rows.iter().find(|row| row.get(2).and_then(Value::as_str) == Some(name)))
        .unwrap_or_else(|| panic!("no row named {name:?} in {rows}"))
}

/// The MCP text block of an envelope: summary, next steps, compact JSON of the envelope.
fn text_block(e: &Envelope) -> String {
    let json = serde_json::to_string(e).expect("an envelope serializes");
    format!("{}\n{}\n{json}", e.summary, e.next_steps.join("\n"))
}

fn u64_fact(e: &Envelope, pointer: &str) -> u64 {
    let facts = Value::Object(e.facts.clone());
    facts.pointer(pointer).and_then(Value::as_u64).unwrap_or_else(|| panic!("no {pointer} in {facts}"))
}

// ---- scenarios ---------------------------------------------------------------------------

/// Start the browser (listing tabs needs a connected browser): no tab is controlled yet.
async fn start_browser(e: &E2e<'_>) {
    let listed = e.ok("browser_tabs", json!({ "action": "list" })).await;
    assert_eq!(listed.facts["count"], json!(0), "{}", listed.summary);
}

/// `policy_explain`, and a navigation to the second host refused by `restrict_hosts` before
/// anything is dispatched (the second host's server sees no request).
async fn governance_and_policy(e: &E2e<'_>) {
    let explained = e.ok("policy_explain", json!({})).await;
    assert_eq!(explained.summary, "Explained 4 capability areas over 2 layers in force.");
    assert_eq!(explained.effect, Effect::None);
    let lines = explained.facts["capabilities"].to_string();
    assert!(lines.contains("execute"), "{lines}");

    let before = e.site.hits("/landing");
    let refused = e
        .expect(
            Status::Blocked,
            "browser_navigate",
            json!({ "url": e.site.url_b("/landing").as_str(), "restrict_hosts": ["127.0.0.1"] }),
        )
        .await;
    assert_eq!(refused.effect, Effect::None);
    assert!(refused.summary.contains(HOST_B), "{}", refused.summary);
    assert_eq!(e.site.hits("/landing"), before, "nothing reached the second host");
    // The same call narrowed to the first host's own pages is admitted.
    let admitted = e
        .ok(
            "browser_navigate",
            json!({ "url": e.site.url("/counter").as_str(), "restrict_hosts": ["127.0.0.1"] }),
        )
        .await;
    assert_eq!(admitted.facts["created"], json!(true));
    assert_eq!(e.js("location.pathname").await, json!("/counter"));
}

/// `browser_navigate` (default, `tab`, `new_tab`, a closed handle reopened) and
/// `browser_tabs` (list, focus, close). The pages observe focus (the default tab follows
/// it, so an unqualified click lands there) and closing (a `pagehide` broadcast).
async fn navigate_and_tabs(e: &E2e<'_>) {
    let first = e.goto("/served/a").await;
    let t1 = first.facts["tab"].as_str().expect("a tab").to_owned();
    assert_eq!(e.text("#served").await, format!("served {}", e.site.hits("/served/a")));

    let by_tab = e.ok("browser_navigate", json!({ "url": e.site.url("/counter").as_str(), "tab": t1 })).await;
    assert_eq!(
        (by_tab.facts["tab"].as_str(), by_tab.facts["created"].as_bool()),
        (Some(t1.as_str()), Some(false))
    );
    assert_eq!(e.js_in(&t1, "location.pathname").await, json!("/counter"));

    let second =
        e.ok("browser_navigate", json!({ "url": e.site.url("/tabs/two").as_str(), "new_tab": true })).await;
    let t2 = second.facts["tab"].as_str().expect("a tab").to_owned();
    assert_ne!(t1, t2);
    assert_eq!(second.facts["created"], json!(true));
    assert_eq!(e.js_in(&t2, "document.title").await, json!("Tab two"));

    let listed = e.ok("browser_tabs", json!({ "action": "list" })).await;
    assert_eq!(listed.facts["count"], json!(2));
    let active: Vec<&str> = listed.facts["tabs"]
        .as_array()
        .expect("tabs")
        .iter()
        .filter(|t| t["active"] == json!(true))
        .filter_map(|t| t["tab"].as_str())
        .collect();
    match e.adapter {
        Adapter::WebDriver => assert_eq!(active, vec![t2.as_str()], "the new tab is the active one"),
        // Adapter-specific: the extension opens tabs in the background (`active: false`), so
        // the person's own selected tab stays selected and no controlled tab is active.
        Adapter::Extension => assert_eq!(active, Vec::<&str>::new(), "new tabs open in the background"),
    }

    let focused = e.ok("browser_tabs", json!({ "action": "focus", "tab": t1 })).await;
    assert_eq!(focused.facts["active"], json!(true));
    // The default tab is now the focused one: an unqualified click counts there.
    e.click(json!({ "selector": { "name": "Increment" } }), "#inc").await;
    assert_eq!(e.js_in(&t1, "document.querySelector('#count').textContent").await, json!("Count: 1"));
    assert_eq!(e.js_in(&t1, "document.visibilityState").await, json!("visible"));

    // Closing the second tab: the first hears its pagehide broadcast.
    e.js_in(
        &t1,
        "window.__heard = []; new BroadcastChannel('gl-tabs').onmessage = (m) => __heard.push(m.data); 0",
    )
    .await;
    e.js_in(
        &t2,
        "addEventListener('pagehide', () => new BroadcastChannel('gl-tabs').postMessage('closed two')); 0",
    )
    .await;
    let closed = e.ok("browser_tabs", json!({ "action": "close", "tab": t2 })).await;
    assert_eq!(closed.facts["closed"], json!(true));
    let deadline = Instant::now() + SETTLE;
    loop {
        let heard = e.js_in(&t1, "window.__heard").await;
        if heard == json!(["closed two"]) {
            break;
        }
        assert!(Instant::now() < deadline, "the closed tab's pagehide was never heard: {heard}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let listed = e.ok("browser_tabs", json!({ "action": "list" })).await;
    assert_eq!(listed.facts["count"], json!(1));
    // Closing it again succeeds without touching the browser.
    let again = e.ok("browser_tabs", json!({ "action": "close", "tab": t2 })).await;
    assert_eq!(again.facts["tab"], json!(t2));

    // Navigating by the closed handle reopens it under the same handle.
    let reopened =
        e.ok("browser_navigate", json!({ "url": e.site.url("/tabs/three").as_str(), "tab": t2 })).await;
    assert_eq!(
        (reopened.facts["reopened"].as_bool(), reopened.facts["created"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(e.js_in(&t2, "document.title").await, json!("Tab three"));
    e.ok("browser_tabs", json!({ "action": "close", "tab": t2 })).await;
    assert_eq!(e.ok("browser_tabs", json!({ "action": "list" })).await.facts["count"], json!(1));
}

/// `browser_navigate` without a tab in a fresh workspace adopts an unbound tab already on
/// the page (the page keeps its state: it was not loaded again), and `reuse: "never"`
/// opens a fresh one.
async fn reuse(e: &E2e<'_>) {
    let url = e.site.url("/served/reuse");
    let port = e.g.port();
    let unbound =
        port.open_tab(&go(url.clone()), Duration::from_secs(15)).await.expect("a tab nobody controls");
    port.execute(
        &TabCall::new(&unbound.tab, &Gate::open(), Duration::from_secs(5)),
        "window.marker = 'from before'",
    )
    .await
    .expect("a marker");
    let hits = e.site.hits("/served/reuse");

    let fresh = e.g.workspace();
    let adopted = e.call_in(&fresh, "browser_navigate", json!({ "url": url.as_str() })).await.envelope;
    assert_eq!(adopted.status, Status::Succeeded, "{}", adopted.summary);
    assert_eq!(
        (adopted.facts["reused"].clone(), adopted.facts["created"].clone()),
        (json!(true), json!(false))
    );
    assert!(adopted.summary.starts_with("Reused the 127.0.0.1:"), "{}", adopted.summary);
    let marker = e.call_in(&fresh, "browser_execute", json!({ "script": "window.marker" })).await.envelope;
    assert_eq!(marker.facts["value"], json!("from before"), "the adopted page was not reloaded");
    assert_eq!(e.site.hits("/served/reuse"), hits);

    let other = e.g.workspace();
    let never = json!({ "url": url.as_str(), "reuse": "never" });
    let opened = e.call_in(&other, "browser_navigate", never).await.envelope;
    assert_eq!(
        (opened.facts["reused"].clone(), opened.facts["created"].clone()),
        (json!(false), json!(true))
    );
    let marker =
        e.call_in(&other, "browser_execute", json!({ "script": "window.marker ?? null" })).await.envelope;
    assert_eq!(marker.facts["value"], Value::Null, "a fresh page (possibly from the HTTP cache)");
    for g in [&fresh, &other] {
        let tab =
            e.call_in(g, "browser_tabs", json!({ "action": "list" })).await.envelope.facts["tabs"][0]["tab"]
                .clone();
        let closed = e.call_in(g, "browser_tabs", json!({ "action": "close", "tab": tab })).await.envelope;
        assert_eq!(closed.status, Status::Succeeded, "{}", closed.summary);
    }
}

/// `browser_history`: back, forward, reload, and reload bypassing the cache (the server sees
/// each reload and the request's `Cache-Control`).
async fn history(e: &E2e<'_>) {
    e.goto("/served/h1").await;
    e.js("window.marker = 'kept'; 0").await;
    e.goto("/served/h2").await;
    let back = e.ok("browser_history", json!({ "action": "back" })).await;
    assert_eq!(back.facts["action"], json!("back"));
    assert_eq!(e.js("location.pathname").await, json!("/served/h1"));
    let forward = e.ok("browser_history", json!({ "action": "forward" })).await;
    assert!(forward.facts["url"].as_str().is_some_and(|u| u.ends_with("/served/h2")), "{:?}", forward.facts);
    assert_eq!(e.js("location.pathname").await, json!("/served/h2"));

    let hits = e.site.hits("/served/h2");
    e.js("window.marker = 'before reload'; 0").await;
    let reloaded = e.ok("browser_history", json!({ "action": "reload" })).await;
    assert_eq!(e.js("window.marker === undefined").await, json!(true), "a new document");
    assert_eq!(e.site.hits("/served/h2"), hits + 1);
    assert_eq!(e.text("#served").await, format!("served {}", hits + 1));
    let generation = u64_fact(&reloaded, "/document_generation");

    let bypass = e.ok("browser_history", json!({ "action": "reload", "bypass_cache": true })).await;
    assert!(u64_fact(&bypass, "/document_generation") > generation);
    assert_eq!(e.site.hits("/served/h2"), hits + 2, "the bypassing reload reached the server");
    let cache = e.text("#cache").await;
    assert!(cache.contains("no-cache"), "the page saw {cache:?}");
}

/// `browser_navigate` away from a page with unsaved changes: blocked (the page stays, same
/// document), then `beforeunload: "discard"` leaves. `browser_history` back or reload: the
/// prompt stays open for `browser_dialog` (issue 15).
async fn beforeunload(e: &E2e<'_>) {
    e.goto("/unload").await;
    if e.extension_on_firefox() {
        // No trusted click gives the page a user activation, and the extension sees no
        // dialogs on Firefox: both answer `unsupported`; leaving with discard still works.
        e.unsupported("browser_click", json!({ "selector": { "name": "Edit the draft" } })).await;
        e.unsupported("browser_dialog", json!({ "action": "status" })).await;
        let discard = json!({ "url": e.site.url("/counter").as_str(), "beforeunload": "discard" });
        e.ok("browser_navigate", discard).await;
        assert_eq!(e.js("location.pathname").await, json!("/counter"));
        return;
    }
    // A real click gives the page the user activation a leave prompt needs.
    e.ok("browser_click", json!({ "selector": { "name": "Edit the draft" } })).await;
    let nonce = e.js("window.nonce").await;
    let leave = json!({ "url": e.site.url("/counter").as_str() });
    let blocked = e.expect(Status::Failed, "browser_navigate", leave.clone()).await;
    assert_eq!(blocked.facts["reason"], json!("beforeunload"), "{}", blocked.summary);
    assert_eq!(blocked.effect, Effect::None);
    if e.adapter == Adapter::Extension {
        // Adapter-specific: the extension keeps the leave prompt open (the envelope says how
        // to answer it, ghostlight-core's `navigate` failure) where WebDriver dismisses it;
        // dismissing it keeps the page.
        assert!(blocked.next_steps.iter().any(|s| s.contains("browser_dialog")), "{:?}", blocked.next_steps);
        e.ok("browser_dialog", json!({ "action": "dismiss" })).await;
    }
    assert_eq!(e.js("[location.pathname, window.nonce]").await, json!(["/unload", nonce]));
    assert_eq!(e.text("#edited").await, "Edited: yes");

    let mut discard = leave;
    discard["beforeunload"] = json!("discard");
    e.ok("browser_navigate", discard).await;
    assert_eq!(e.js("location.pathname").await, json!("/counter"));

    // `browser_history` has no discard option: the leave prompt a move raises stays open as
    // the blocking dialog; dismissing it keeps the page, accepting it lets the move go on.
    e.goto("/unload").await;
    e.ok("browser_click", json!({ "selector": { "name": "Edit the draft" } })).await;
    let nonce = e.js("window.nonce").await;
    for action in ["back", "reload"] {
        let held = e.expect(Status::Failed, "browser_history", json!({ "action": action })).await;
        assert_eq!(held.facts["reason"], json!("beforeunload"), "{action}: {}", held.summary);
        assert_eq!(held.facts["dialog_type"], json!("beforeunload"), "{action}");
        assert_eq!(held.effect, Effect::None, "{action}");
        assert!(held.summary.contains("the leave-page dialog is open"), "{}", held.summary);
        let status = e.ok("browser_dialog", json!({ "action": "status" })).await;
        assert_eq!(status.facts["present"], json!(true), "{action}: status sees the prompt");
        assert_eq!(status.facts["dialog_type"], json!("beforeunload"), "{action}");
        e.ok("browser_dialog", json!({ "action": "dismiss" })).await;
        assert_eq!(
            e.js("[location.pathname, window.nonce]").await,
            json!(["/unload", nonce.clone()]),
            "{action}"
        );
    }
    e.expect(Status::Failed, "browser_history", json!({ "action": "back" })).await;
    let accepted = e.ok("browser_dialog", json!({ "action": "accept" })).await;
    assert_eq!(
        accepted.facts["landing"]["url"],
        json!(e.site.url("/counter").as_str()),
        "{:?}",
        accepted.facts
    );
    assert_eq!(e.js("location.pathname").await, json!("/counter"));
}

/// `browser_window`: zoom (Chromium: the page's own viewport shrinks; Firefox: `unsupported`
/// naming the engine) and resize (the page sees the new outer size).
async fn window(e: &E2e<'_>) {
    let home = e.goto("/counter").await;
    if e.adapter == Adapter::Extension {
        // The extension opens tabs in the background, and a page in a background tab does not
        // see its window's size: select it first (when this scenario runs alone).
        e.ok("browser_tabs", json!({ "action": "focus", "tab": home.facts["tab"] })).await;
    }
    let before = e.js("innerWidth").await.as_u64().expect("a width");
    let zoom = e.call("browser_window", json!({ "action": "zoom", "percent": 200 })).await.envelope;
    // The extension zooms through `tabs.setZoom` on both engines.
    if e.chromium() || e.adapter == Adapter::Extension {
        assert_eq!(zoom.status, Status::Succeeded, "{}", zoom.summary);
        let observed = u64_fact(&zoom, "/observed/viewport_width");
        assert_eq!(u64_fact(&zoom, "/observed/zoom"), 200);
        assert_eq!(e.js("innerWidth").await.as_u64(), Some(observed), "the page sees the observed viewport");
        assert!(observed.abs_diff(before / 2) <= 2, "{observed} is half of {before}");
        let reset = e.ok("browser_window", json!({ "action": "zoom", "percent": 100 })).await;
        assert_eq!(u64_fact(&reset, "/observed/viewport_width"), before);
    } else {
        assert_eq!(zoom.status, Status::Failed, "{}", zoom.summary);
        assert_eq!(zoom.facts["reason"], json!("unsupported"));
        assert_eq!(zoom.facts["engine"], json!("firefox"));
        assert!(zoom.summary.contains("firefox"), "{}", zoom.summary);
        assert_eq!(e.js("innerWidth").await.as_u64(), Some(before), "nothing changed");
    }

    let resized = e.ok("browser_window", json!({ "action": "resize", "width": 1000, "height": 700 })).await;
    assert_eq!(
        (u64_fact(&resized, "/observed/window_width"), u64_fact(&resized, "/observed/window_height")),
        (1000, 700)
    );
    let seen = e.js("[outerWidth, outerHeight, innerWidth]").await;
    assert_eq!(seen[0], json!(1000));
    assert_eq!(seen[1], json!(700));
    assert_eq!(seen[2].as_u64(), Some(u64_fact(&resized, "/observed/viewport_width")));
    // Back to the window size the harness launched with (the extension's headless Chromium
    // cannot grow its window past the 1000×800 screen it started with).
    let (width, height) = match e.adapter {
        Adapter::WebDriver => (1280, 800),
        Adapter::Extension => (1000, 800),
    };
    e.ok("browser_window", json!({ "action": "resize", "width": width, "height": height })).await;
    assert_eq!(e.js("outerWidth").await, json!(width));
}

/// `browser_read`: article mode keeps the article and drops navigation, ad, banner and
/// footer; the text block of that envelope stays small.
/// Gate detection (issue 33) through either connector: a sign-in wall and a consent layer
/// are said by navigate, read, wait and history; an ordinary page says nothing.
async fn gates(e: &E2e<'_>) {
    let kind = |envelope: &Envelope| envelope.facts.get("gate").map(|gate| gate["kind"].clone());
    let login = e.goto("/gate/login").await;
    assert_eq!(kind(&login), Some(json!("login")), "{}: {:?}", login.summary, login.facts);
    assert!(login.summary.ends_with("The page shows a sign-in wall, not the content asked for."));
    assert_eq!(kind(&e.ok("browser_read", json!({})).await), Some(json!("login")));
    let waited = e.ok("browser_wait", json!({ "condition": "load_ready" })).await;
    assert_eq!(kind(&waited), Some(json!("login")));
    let consent = e.goto("/gate/consent").await;
    assert_eq!(kind(&consent), Some(json!("consent")), "{}: {:?}", consent.summary, consent.facts);
    let back = e.ok("browser_history", json!({ "action": "back" })).await;
    assert_eq!(kind(&back), Some(json!("login")), "{}: {:?}", back.summary, back.facts);
    let plain = e.goto("/article").await;
    assert_eq!(kind(&plain), None, "{:?}", plain.facts);
    assert_eq!(kind(&e.ok("browser_read", json!({})).await), None);
}

async fn read(e: &E2e<'_>) {
    e.goto("/article").await;
    let article = e.ok("browser_read", json!({ "mode": "article" })).await;
    let text = article.facts["text"].as_str().expect("text");
    assert!(text.starts_with("Wendlebury and the tide"), "{text:.80}");
    for paragraph in ARTICLE_PARAGRAPHS {
        assert!(text.contains(paragraph), "the article keeps {paragraph:.40}");
    }
    for noise in ARTICLE_BOILERPLATE {
        assert!(!text.contains(noise), "article text holds {noise:?}");
    }
    assert_eq!(article.facts["truncated"], json!(false));
    let block = text_block(&article);
    eprintln!(
        "[{}]   read: article {} bytes, text block {} bytes (limit {READ_TEXT_BLOCK_MAX})",
        e.engine.as_str(),
        text.len(),
        block.len()
    );
    assert!((3_500..=3_900).contains(&text.len()), "the article is ≈3,700 bytes: {}", text.len());
    assert!(block.len() <= READ_TEXT_BLOCK_MAX, "text block {} bytes", block.len());

    // Visible mode has the boilerplate too; the default mode is the article.
    let visible = e.ok("browser_read", json!({ "mode": "visible" })).await;
    assert!(visible.facts["text"].as_str().is_some_and(|t| t.contains(ARTICLE_BOILERPLATE[2])));
    let default = e.ok("browser_read", json!({})).await;
    assert_eq!(default.facts["text"], article.facts["text"]);
    // A bounded read says it was cut.
    let short = e.ok("browser_read", json!({ "mode": "article", "max_chars": 500 })).await;
    assert_eq!(short.facts["truncated"], json!(true));
    assert_eq!(short.facts["text"].as_str().map(|t| t.chars().count()), Some(500));
}

/// `browser_inspect` (controls with compact rows, the credential column, a truncated list of
/// 500 controls, the document scope and its diff) and `browser_find`; shadow-DOM and iframe
/// targets clicked, the page counting each.
async fn inspect_and_find(e: &E2e<'_>) {
    e.goto("/form").await;
    let controls = e.ok("browser_inspect", json!({})).await;
    assert_eq!(controls.facts["columns"], json!(["target", "role", "name", "state", "credential"]));
    let items = &controls.facts["items"];
    assert_eq!(row(items, "Full name")[1], json!("textbox"));
    let password = row(items, "Password");
    assert_eq!((password[1].clone(), password[4].clone()), (json!("textbox"), json!(true)), "{password}");
    assert_eq!(row(items, "Agree to terms")[1], json!("checkbox"));
    assert_eq!(row(items, "Country")[1], json!("combobox"));
    assert_eq!(row(items, "Free plan")[3], json!(["checked"]));
    assert_eq!(row(items, "Create account")[1], json!("button"));

    // The document scope: a structure tree, a snapshot, and a diff after the page changes.
    let tree = e.ok("browser_inspect", json!({ "scope": "document", "max_depth": 6 })).await;
    assert_eq!(tree.facts["columns"], json!(["target", "role", "name", "depth"]));
    assert!(tree.facts["snapshot"].as_str().is_some_and(|s| s.starts_with("snap_")));
    e.js("document.querySelector('h1').insertAdjacentHTML('afterend', '<h2>Added later</h2>'); 0").await;
    let again = e.ok("browser_inspect", json!({ "scope": "document", "max_depth": 6 })).await;
    assert_eq!(again.facts["previous_snapshot"], tree.facts["snapshot"]);
    assert_eq!(again.facts["diff"]["added"], json!(1), "{}", again.summary);

    // 500 controls: the first 200, and a truncation flag.
    e.goto("/many").await;
    let many = e.ok("browser_inspect", json!({ "max_items": 200 })).await;
    assert_eq!(many.facts["count"], json!(200));
    assert_eq!(many.facts["truncated"], json!(true));
    assert_eq!(many.facts["items"][0][2], json!("Button 0"));
    let by_default = e.ok("browser_inspect", json!({})).await;
    assert_eq!(by_default.facts["count"], json!(80));
    let found = e.ok("browser_find", json!({ "text": "Button 99", "scope": "control" })).await;
    assert_eq!(found.facts["matches"][0][2], json!("Button 99"));

    // A shadow-DOM button and a same-origin iframe button, each clicked through its target.
    e.goto("/frames").await;
    let inspected = e.ok("browser_inspect", json!({})).await;
    let shadow = row_target(&inspected.facts["items"], "Shadow button").expect("the shadow button");
    let framed = row_target(&inspected.facts["items"], "Frame button").expect("the frame button");
    if e.extension_on_firefox() {
        e.unsupported("browser_click", json!({ "target": shadow })).await;
        e.js("document.querySelector('#host').shadowRoot.querySelector('#shadow').click(); 0").await;
    } else {
        e.ok("browser_click", json!({ "target": shadow })).await;
    }
    assert_eq!(e.text("#shadow-count").await, "Shadow clicks: 1");
    let framed_click = |target: String| async move {
        let arguments = json!({ "target": target });
        if e.extension_on_firefox() {
            e.unsupported("browser_click", arguments).await;
            e.js("document.querySelector('#frame').contentDocument.querySelector('#inner').click(); 0").await;
        } else {
            e.ok("browser_click", arguments).await;
        }
    };
    framed_click(framed).await;
    assert_eq!(e.text("#frame-count").await, "Frame clicks: 1");
    // Found by text, then clicked again.
    framed_click(e.target("Frame button").await).await;
    assert_eq!(e.text("#frame-count").await, "Frame clicks: 2");
    let text_match = e.ok("browser_find", json!({ "text": "Shadow clicks", "scope": "text" })).await;
    assert!(text_match.facts["count"].as_u64().is_some_and(|n| n >= 1), "{:?}", text_match.facts);
}

/// `browser_screenshot` (viewport, full page, target, region) and a click at a pixel of the
/// region's view that hits the button (the page counts it).
async fn screenshots(e: &E2e<'_>) {
    e.goto("/counter").await;
    let viewport = e.call("browser_screenshot", json!({})).await;
    let v = &viewport.envelope;
    assert_eq!(v.status, Status::Succeeded, "{}", v.summary);
    let (width, height) = (u64_fact(v, "/width"), u64_fact(v, "/height"));
    assert_eq!(viewport.attachments.len(), 1);
    assert_eq!(png_size(&viewport.attachments[0].bytes), (width as u32, height as u32));
    let view = v.facts["view"].as_str().expect("a view").to_owned();
    let inner: (f64, f64) = serde_json::from_value(e.js("[innerWidth, innerHeight]").await).expect("sizes");
    let px_per_css = width as f64 / inner.0;

    let full = e.call("browser_screenshot", json!({ "full_page": true })).await;
    assert_eq!(full.envelope.status, Status::Succeeded, "{}", full.envelope.summary);
    let (_, full_h) = png_size(&full.attachments[0].bytes);
    assert!(f64::from(full_h) / px_per_css > 3_800.0, "the whole page: {full_h} px");
    assert_eq!(e.js("scrollY").await, json!(0), "a full-page capture leaves the scroll alone");

    let inc = e.target("Increment").await;
    let shot = e.call("browser_screenshot", json!({ "target": inc })).await;
    assert_eq!(shot.envelope.status, Status::Succeeded, "{}", shot.envelope.summary);
    let rect: (f64, f64, f64, f64) = serde_json::from_value(
        e.js("const r = document.querySelector('#inc').getBoundingClientRect(); [r.left, r.top, r.width, r.height]").await,
    )
    .expect("a rect");
    let (tw, th) = png_size(&shot.attachments[0].bytes);
    assert!((f64::from(tw) - rect.2 * px_per_css).abs() <= 2.0, "{tw} px for {} css", rect.2);
    assert!((f64::from(th) - rect.3 * px_per_css).abs() <= 2.0, "{th} px for {} css", rect.3);

    // A region around the button, magnified; click its middle.
    let px = |css: f64| (css * px_per_css).round() as u64;
    let (rx, ry) = (px((rect.0 - 4.0).max(0.0)), px((rect.1 - 4.0).max(0.0)));
    let (rw, rh) = (px(rect.2 + 8.0), px(rect.3 + 8.0));
    let region = e
        .call("browser_screenshot", json!({ "view": view, "x": rx, "y": ry, "width": rw, "height": rh }))
        .await;
    let r = &region.envelope;
    assert_eq!(r.status, Status::Succeeded, "{}", r.summary);
    assert_eq!(r.facts["parent_view"], json!(view));
    let (gw, gh) = (u64_fact(r, "/width"), u64_fact(r, "/height"));
    assert!(gw > rw, "magnified: {gw} > {rw}");
    let region_view = r.facts["view"].as_str().expect("a view").to_owned();
    let before = e.text("#count").await;
    let at = json!({ "view": region_view, "x": gw / 2, "y": gh / 2 });
    if e.extension_on_firefox() {
        e.unsupported("browser_click", at).await;
        assert_eq!(e.text("#count").await, before, "nothing was clicked");
        return;
    }
    e.ok("browser_click", at).await;
    assert_ne!(e.text("#count").await, before);
    assert_eq!(e.js("window.clicks").await, json!(1), "one click hit the button");
}

/// `browser_click` (target, selector, obstructed by a named cover), `browser_hover` (the page
/// sees `mouseover`), `browser_scroll` (a direction, revealing a target, a wheel at a point).
async fn click_hover_scroll(e: &E2e<'_>) {
    e.goto("/counter").await;
    let inc = e.target("Increment").await;
    if e.extension_on_firefox() {
        // No trusted pointer input: clicks, the hover and the wheel answer `unsupported`.
        e.click(json!({ "target": inc }), "#inc").await;
        e.click(json!({ "selector": { "name": "Increment", "role": "button" } }), "#inc").await;
        assert_eq!(e.text("#count").await, "Count: 2");
        e.unsupported("browser_click", json!({ "selector": { "name": "Covered action" } })).await;
        e.unsupported("browser_hover", json!({ "selector": { "name": "Hover target" } })).await;
        assert_eq!(e.text("#hovered").await, "Hovered: no");
    } else {
        click_and_hover(e, &inc).await;
    }
    scroll(e).await;
}

/// The clicks and the hover of [`click_hover_scroll`].
async fn click_and_hover(e: &E2e<'_>, inc: &str) {
    let clicked = e.ok("browser_click", json!({ "target": inc })).await;
    assert_eq!(
        clicked.summary,
        format!("Clicked the \"Increment\" button on 127.0.0.1:{}.", e.site.url("/").port().unwrap_or(0))
    );
    assert_eq!(e.text("#count").await, "Count: 1");
    e.ok("browser_click", json!({ "selector": { "name": "Increment", "role": "button" } })).await;
    assert_eq!(e.text("#count").await, "Count: 2");

    let covered =
        e.expect(Status::Failed, "browser_click", json!({ "selector": { "name": "Covered action" } })).await;
    assert_eq!(covered.facts["reason"], json!("obstructed"));
    assert_eq!(covered.facts["obstructed_by"]["name"], json!("Cookie notice"), "{}", covered.summary);
    assert!(covered.summary.contains("Cookie notice"), "{}", covered.summary);
    assert_eq!(e.js("window.__log.includes('covered')").await, json!(false), "not clicked through");

    let hovered = e.ok("browser_hover", json!({ "selector": { "name": "Hover target" } })).await;
    assert_eq!(hovered.facts["hovered"], json!(true));
    assert_eq!(e.text("#hovered").await, "Hovered: yes");
}

/// The scrolls of [`click_hover_scroll`]: a direction, revealing a target, a wheel.
async fn scroll(e: &E2e<'_>) {
    let down = e.ok("browser_scroll", json!({})).await;
    let y = e.js("scrollY").await.as_f64().expect("scrollY");
    assert!(y > 0.0, "the page scrolled");
    assert_eq!(down.facts["offset_y"].as_f64().map(f64::round), Some(y.round()));
    let far = e.target("Far button").await;
    let revealed = e.ok("browser_scroll", json!({ "target": far })).await;
    assert_eq!(revealed.facts["scrolled"], json!(true));
    let visible = e
        .js("const r = document.querySelector('#far').getBoundingClientRect(); r.top >= 0 && r.bottom <= innerHeight")
        .await;
    assert_eq!(visible, json!(true), "the far button is in view");
    let top = e.js("scrollY").await.as_f64().expect("scrollY");
    let shot = e.ok("browser_screenshot", json!({})).await;
    let view = shot.facts["view"].as_str().expect("a view");
    let wheel = json!({ "view": view, "x": 100, "y": 100, "ticks": 3, "direction": "up" });
    if e.extension_on_firefox() {
        e.unsupported("browser_scroll", wheel).await;
        assert_eq!(e.js("scrollY").await.as_f64(), Some(top), "the page did not scroll");
        return;
    }
    let wheeled = e.ok("browser_scroll", wheel).await;
    let after = e.js("scrollY").await.as_f64().expect("scrollY");
    assert!(after < top, "the wheel scrolled up: {top} → {after}");
    assert_eq!(wheeled.facts["offset_y"].as_f64().map(f64::round), Some(after.round()));
}

/// `browser_fill_form` with every control kind and a submit target (the page reports the
/// submission), then a password field: a credential handoff, and the field stays empty.
async fn fill_form(e: &E2e<'_>) {
    e.goto("/form").await;
    let submit = e.target("Create account").await;
    let fields = json!([
        { "selector": { "name": "Full name" }, "value": "Ada Lovelace" },
        { "selector": { "name": "Email" }, "value": "ada@example.com" },
        { "selector": { "name": "Bio" }, "value": "Wrote the first program." },
        { "selector": { "name": "Country" }, "value": "France" },
        { "selector": { "name": "Agree to terms" }, "value": true },
        { "selector": { "name": "Pro plan" }, "value": true },
        { "selector": { "name": "Seats" }, "value": 3 },
        { "selector": { "name": "Volume" }, "value": 7 },
        { "selector": { "name": "Start date" }, "value": "2024-05-01" },
        { "selector": { "name": "Favourite colour" }, "value": "#ff0000" },
        { "selector": { "name": "Notes" }, "value": "Hello notes" },
    ]);
    let arguments = json!({ "fields": fields, "submit_target": submit });
    if e.extension_on_firefox() {
        // Filled, but the submit click answers `unsupported`: the page submits from a script.
        let filled = e.unsupported("browser_fill_form", arguments).await;
        assert_eq!(
            (filled.facts["filled_count"].clone(), filled.facts["submitted"].clone()),
            (json!(11), json!(false))
        );
        e.js("document.querySelector('#submit').click(); 0").await;
    } else {
        let filled = e.ok("browser_fill_form", arguments).await;
        assert_eq!(
            (filled.facts["filled_count"].clone(), filled.facts["submitted"].clone()),
            (json!(11), json!(true))
        );
    }
    assert_eq!(e.text("#result").await, "Created the account of Ada Lovelace (pro plan, 3 seats)");
    let submitted = e.js("window.__submitted").await;
    assert_eq!(
        submitted,
        json!({
            "name": "Ada Lovelace", "email": "ada@example.com", "password": "",
            "bio": "Wrote the first program.", "country": "fr", "agree": "on", "plan": "pro",
            "seats": "3", "volume": "7", "start": "2024-05-01", "colour": "#ff0000",
            "notes": "Hello notes", "password_length": 0,
        })
    );

    let handoff = e
        .expect(
            Status::AttentionRequired,
            "browser_fill_form",
            json!({ "fields": [
                { "selector": { "name": "Full name" }, "value": "Grace" },
                { "selector": { "name": "Password" }, "value": "correct horse battery staple" },
            ] }),
        )
        .await;
    assert_eq!(handoff.effect, Effect::None, "{}", handoff.summary);
    assert!(!text_block(&handoff).contains("correct horse"), "the password is never echoed");
    assert_eq!(e.js("document.querySelector('#password').value").await, json!(""));
    assert_eq!(
        e.js("document.querySelector('#name').value").await,
        json!("Ada Lovelace"),
        "nothing was filled"
    );
}

/// `browser_type_text` (into the focused field, and clearing first) and `browser_press_key`
/// (Enter submits, strokes, a modifier chord).
async fn keyboard(e: &E2e<'_>) {
    e.goto("/keys").await;
    if e.extension_on_firefox() {
        // No trusted key input: every keyboard call answers `unsupported`; nothing is typed.
        e.unsupported("browser_click", json!({ "selector": { "name": "Search" } })).await;
        e.unsupported("browser_type_text", json!({ "selector": { "name": "Search" }, "text": "tide" })).await;
        e.unsupported("browser_press_key", json!({ "key": "Enter", "selector": { "name": "Search" } })).await;
        assert_eq!(e.js("document.querySelector('#q').value").await, json!(""));
        assert_eq!(e.text("#submitted").await, "Nothing searched");
        return;
    }
    e.ok("browser_click", json!({ "selector": { "name": "Search" } })).await;
    let typed = e.ok("browser_type_text", json!({ "focused": true, "text": "héllo" })).await;
    assert_eq!(typed.facts["character_count"], json!(5));
    assert_eq!(e.js("document.querySelector('#q').value").await, json!("héllo"));
    e.ok(
        "browser_type_text",
        json!({ "selector": { "name": "Search" }, "text": "tide", "clear_first": true }),
    )
    .await;
    assert_eq!(e.js("document.querySelector('#q').value").await, json!("tide"));

    let entered = e.ok("browser_press_key", json!({ "key": "Enter" })).await;
    assert_eq!(entered.facts["pressed"], json!(true));
    assert_eq!(e.text("#submitted").await, "Searched for tide");

    e.ok("browser_press_key", json!({ "strokes": ["s", "x", "Backspace", "!"] })).await;
    assert_eq!(e.js("document.querySelector('#q').value").await, json!("tides!"));
    e.ok("browser_press_key", json!({ "key": "a", "modifiers": ["Control"] })).await;
    let log = e.js("window.__log").await;
    assert!(log.as_array().is_some_and(|l| l.contains(&json!("keydown:ctrl+a"))), "{log}");
    let selection = e.js("const q = document.querySelector('#q'); [q.selectionStart, q.selectionEnd]").await;
    assert_eq!(selection, json!([0, 6]), "Control+A selected the text");
    e.ok("browser_press_key", json!({ "key": "Backspace", "selector": { "name": "Search" } })).await;
    assert_eq!(e.js("document.querySelector('#q').value").await, json!(""));
}

/// `browser_drag`: a pointer-driven box onto its parking spot, an HTML5 card onto its drop
/// target, and a box drag between two points of a view.
async fn drag(e: &E2e<'_>) {
    e.goto("/drag").await;
    // The drop areas are regions (structure), so inspect everything.
    let inspected = e.ok("browser_inspect", json!({ "scope": "all" })).await;
    let items = &inspected.facts["items"];
    let target = |name: &str| row_target(items, name).unwrap_or_else(|| panic!("no {name:?} in {items}"));
    if e.extension_on_firefox() {
        // No trusted pointer input: drags answer `unsupported`; nothing moves.
        let drag =
            json!({ "source_target": target("Movable box"), "destination_target": target("Parking spot") });
        e.unsupported("browser_drag", drag).await;
        let by_text = json!({ "source_selector": { "name": "Drag card" }, "destination_selector": { "name": "Drop here" } });
        e.unsupported("browser_drag", by_text).await;
        assert_eq!(e.text("#drop-status").await, "Nothing dropped");
        return;
    }
    let parked = e
        .ok(
            "browser_drag",
            json!({ "source_target": target("Movable box"), "destination_target": target("Parking spot") }),
        )
        .await;
    assert_eq!(parked.facts["dragged"], json!(true));
    assert!(e.text("#box-status").await.starts_with("Box parked"), "{}", e.text("#box-status").await);

    e.ok(
        "browser_drag",
        json!({ "source_target": target("Drag card"), "destination_target": target("Drop target") }),
    )
    .await;
    assert_eq!(e.until_text("#drop-status", "Dropped: card-payload").await, "Dropped: card-payload");
    // Selectors: the card by its label, the drop zone by the text it shows.
    e.js("document.getElementById('drop-status').textContent = 'Nothing dropped'").await;
    let by_text = json!({ "source_selector": { "name": "Drag card" }, "destination_selector": { "name": "Drop here" } });
    e.ok("browser_drag", by_text).await;
    assert_eq!(e.until_text("#drop-status", "Dropped: card-payload").await, "Dropped: card-payload");
    // The drop zone by what it is called ("Drop target", not the text it shows), in the case
    // a model writes it: a selector matches whatever browser_find finds.
    e.js("document.getElementById('drop-status').textContent = 'Nothing dropped'").await;
    let found = e.ok("browser_find", json!({ "text": "drop target" })).await;
    assert!(row_target(&found.facts["matches"], "Drop target").is_some(), "{:?}", found.facts);
    let by_name = json!({ "source_selector": { "name": "drag card" }, "destination_selector": { "name": "drop target" } });
    e.ok("browser_drag", by_name).await;
    assert_eq!(e.until_text("#drop-status", "Dropped: card-payload").await, "Dropped: card-payload");

    let (shot, scale, centre) = e.view_and_centre("#box").await;
    let px = |css: f64| (css * scale).round() as u64;
    let arguments = json!({
        "view": shot.facts["view"], "start_x": px(centre.0), "start_y": px(centre.1),
        "end_x": px(centre.0 - 200.0), "end_y": px(centre.1 + 60.0),
    });
    let moved = e.ok("browser_drag", arguments).await;
    assert!(moved.summary.contains("\"Movable box\""), "{}", moved.summary);
    let status = e.text("#box-status").await;
    assert!(status.starts_with("Box moved"), "{status}");
}

/// `browser_wait`: every condition, on a page whose content changes after "Start".
async fn wait(e: &E2e<'_>) {
    e.goto("/late").await;
    let ready = e.ok("browser_wait", json!({ "condition": "load_ready" })).await;
    assert_eq!(
        (ready.facts["satisfied"].clone(), ready.facts["readiness"].clone()),
        (json!(true), json!("complete"))
    );
    e.ok("browser_wait", json!({ "condition": "url_contains", "value": "/late" })).await;
    let vanish = e.target("Vanishing button").await;
    e.ok("browser_wait", json!({ "condition": "target_present", "target": vanish })).await;

    e.click(json!({ "selector": { "name": "Start" } }), "#start").await;
    let late =
        e.ok("browser_wait", json!({ "condition": "text_present", "value": "Late content arrived" })).await;
    assert!(late.facts["elapsed_ms"].as_u64().is_some_and(|ms| ms > 0), "{:?}", late.facts);
    e.ok("browser_wait", json!({ "condition": "selector_present", "selector": { "name": "Late button" } }))
        .await;
    e.ok("browser_wait", json!({ "condition": "target_absent", "target": vanish })).await;
    e.ok("browser_wait", json!({ "condition": "text_absent", "value": "Loading the report" })).await;
    let page =
        e.js("[!!document.querySelector('#vanish'), document.querySelector('#later').textContent]").await;
    assert_eq!(page, json!([false, "Late content arrivedLate button"]));

    // `elapsed_ms` is measured: at least what was asked, at most the call's own wall time.
    let called = Instant::now();
    let slept = e.ok("browser_wait", json!({ "condition": "duration", "value": 200 })).await;
    assert_measured(&slept, 200, called.elapsed());
    let said = format!("Waited {} ms on 127.0.0.1", slept.facts["elapsed_ms"]);
    assert!(slept.summary.starts_with(&said), "{}", slept.summary);
    // A timeout long enough for checks to add up: the old figure summed only the sleeps
    // between checks and fell short of the limit it claimed to have reached.
    let timeout = json!({ "condition": "text_present", "value": "Never shown", "timeout_ms": 1500 });
    let called = Instant::now();
    let timed_out = e.expect(Status::Failed, "browser_wait", timeout).await;
    assert_measured(&timed_out, 1500, called.elapsed());
    assert_eq!((timed_out.facts["satisfied"].clone(), timed_out.effect), (json!(false), Effect::None));
    let elapsed = &timed_out.facts["elapsed_ms"];
    assert!(
        timed_out.summary.starts_with(&format!("Timed out after {elapsed} ms waiting until"))
            && timed_out.summary.ends_with("(the limit was 1500 ms)."),
        "{}",
        timed_out.summary
    );
}

/// A `<select multiple>` filled with a list, clicks with modifiers (judged by the event the
/// page saw), and the outcome waits before and after the page reaches them.
async fn outcomes(e: &E2e<'_>) {
    e.goto("/outcomes").await;
    let toppings = json!({ "name": "Toppings" });
    e.ok(
        "browser_fill_form",
        json!({ "fields": [{ "selector": toppings, "value": ["cheese", "Black olives"] }] }),
    )
    .await;
    let selected = "Array.from(document.querySelector('#toppings').selectedOptions).map((o) => o.value)";
    assert_eq!(e.js(selected).await, json!(["cheese", "olives"]));
    e.ok("browser_fill_form", json!({ "fields": [{ "selector": toppings, "value": ["basil"] }] })).await;
    assert_eq!(e.js(selected).await, json!(["basil"]));
    let held = e
        .ok("browser_wait", json!({ "condition": "value_equals", "selector": toppings, "value": "Basil" }))
        .await;
    assert_eq!(held.facts["satisfied"], json!(true));

    let probe = json!({ "selector": { "name": "Modifier probe" }, "modifiers": ["Shift", "Control"] });
    if e.extension_on_firefox() {
        e.unsupported("browser_click", probe).await;
    } else {
        let clicked = e.ok("browser_click", probe).await;
        assert!(clicked.summary.contains("with Shift and Control held"), "{}", clicked.summary);
        assert_eq!(e.text("#probed").await, "shift+ctrl");
        e.ok(
            "browser_click",
            json!({ "selector": { "name": "Modifier probe" }, "modifiers": ["Alt", "Meta"] }),
        )
        .await;
        assert_eq!(e.text("#probed").await, "alt+meta");
        e.ok("browser_click", json!({ "selector": { "name": "Modifier probe" } })).await;
        assert_eq!(e.text("#probed").await, "none");
    }

    let city = json!({ "name": "City" });
    let items = json!({ "name": "Item", "role": "button" });
    let waits = [
        json!({ "condition": "value_equals", "selector": city, "value": "Paris" }),
        json!({ "condition": "checked", "selector": { "name": "Remember me" } }),
        json!({ "condition": "title_contains", "value": "Done" }),
        json!({ "condition": "url_matches", "value": "**/outcomes/done?step=2" }),
        json!({ "condition": "count_at_least", "selector": items, "value": 3 }),
    ];
    for wait in &waits {
        let mut early = wait.clone();
        early["timeout_ms"] = json!(200);
        let timed_out = e.expect(Status::Failed, "browser_wait", early).await;
        assert_eq!(timed_out.facts["reason"], json!("timeout"), "{wait}: {}", timed_out.summary);
    }
    e.ok("browser_wait", json!({ "condition": "unchecked", "selector": { "name": "Remember me" } })).await;
    e.click(json!({ "selector": { "name": "Later" } }), "#later").await;
    for wait in &waits {
        let held = e.ok("browser_wait", wait.clone()).await;
        assert_eq!(held.facts["satisfied"], json!(true), "{wait}");
        assert!(!text_block(&held).contains("Paris"), "the compared value never comes back");
    }
    let refused = e
        .expect(
            Status::AttentionRequired,
            "browser_wait",
            json!({ "condition": "value_equals", "selector": { "name": "Password" }, "value": "hunter2" }),
        )
        .await;
    assert_eq!(refused.facts["reason"], json!("credential_handoff"));
}

/// `elapsed_ms` lies between the time the wait was asked to take and the call's wall time.
fn assert_measured(envelope: &Envelope, at_least: u64, wall: Duration) {
    let elapsed = envelope.facts["elapsed_ms"].as_u64().expect("elapsed_ms");
    let wall = u64::try_from(wall.as_millis()).expect("a short call");
    assert!(
        (at_least..=wall).contains(&elapsed),
        "elapsed_ms {elapsed}, asked {at_least}, call took {wall} ms"
    );
}

/// `browser_dialog`: status, accept, dismiss and respond, the page recording each answer.
async fn dialogs(e: &E2e<'_>) {
    e.goto("/dialogs").await;
    if e.extension_on_firefox() {
        // The extension sees no dialogs on Firefox (and sends no trusted clicks).
        e.unsupported("browser_dialog", json!({ "action": "status" })).await;
        e.unsupported("browser_dialog", json!({ "action": "accept" })).await;
        e.unsupported("browser_click", json!({ "selector": { "name": "Show alert" } })).await;
        return;
    }
    let none = e.ok("browser_dialog", json!({ "action": "status" })).await;
    assert_eq!(none.facts["present"], json!(false));

    e.ok("browser_click", json!({ "selector": { "name": "Show alert" } })).await;
    let open = e.ok("browser_dialog", json!({ "action": "status" })).await;
    assert_eq!(open.facts["present"], json!(true), "{}", open.summary);
    let accepted = e.ok("browser_dialog", json!({ "action": "accept" })).await;
    assert_eq!(
        (accepted.facts["handled"].clone(), accepted.facts["accepted"].clone()),
        (json!(true), json!(true))
    );
    assert_eq!(e.text("#outcome").await, "alert closed");

    e.ok("browser_click", json!({ "selector": { "name": "Ask confirm" } })).await;
    e.ok("browser_dialog", json!({ "action": "dismiss" })).await;
    assert_eq!(e.text("#outcome").await, "confirm: false");
    e.ok("browser_click", json!({ "selector": { "name": "Ask confirm" } })).await;
    e.ok("browser_dialog", json!({ "action": "accept" })).await;
    assert_eq!(e.text("#outcome").await, "confirm: true");

    e.ok("browser_click", json!({ "selector": { "name": "Ask prompt" } })).await;
    let prompt = e.ok("browser_dialog", json!({ "action": "status" })).await;
    eprintln!("[{}]   dialog status of a prompt: {}", e.engine.as_str(), prompt.summary);
    let answered = e.ok("browser_dialog", json!({ "action": "respond", "text": "Ada" })).await;
    assert_eq!(answered.facts["dialog_type"], json!("prompt"));
    assert!(!text_block(&answered).contains("Ada"), "the answer is never echoed");
    assert_eq!(e.text("#outcome").await, "prompt: Ada");
    e.ok("browser_click", json!({ "selector": { "name": "Ask prompt" } })).await;
    e.ok("browser_dialog", json!({ "action": "dismiss" })).await;
    assert_eq!(e.text("#outcome").await, "prompt: null");
    let nothing = e.expect(Status::Failed, "browser_dialog", json!({ "action": "accept" })).await;
    assert_eq!(nothing.facts["reason"], json!("no_dialog"));
}

/// `browser_upload`: files under the configured uploads root, inline files, and a captured
/// image attached and dropped; the page reports names and sizes.
async fn upload(e: &E2e<'_>) {
    e.goto("/upload").await;
    let notes = e.uploads.join("notes.txt");
    std::fs::write(&notes, b"hello tides").expect("a file");
    let shot = e.ok("browser_screenshot", json!({ "full_page": false })).await;
    let image = shot.facts["view"].as_str().expect("a view").to_owned();
    let bytes = upload_into_inputs(e, &notes, &image).await;
    drop_image(e, &image, bytes).await;
}

/// Files into file inputs: paths under the uploads root (and one outside it, refused), inline
/// files, and the captured `image`; answers the image's size in bytes.
async fn upload_into_inputs(e: &E2e<'_>, notes: &Path, image: &str) -> u64 {
    let data = e.uploads.join("data.bin");
    std::fs::write(&data, vec![7u8; 300]).expect("a file");
    let paths = json!([notes.to_string_lossy(), data.to_string_lossy()]);
    let uploaded =
        e.ok("browser_upload", json!({ "selector": { "name": "Attachments" }, "paths": paths })).await;
    assert_eq!((u64_fact(&uploaded, "/uploaded_count"), u64_fact(&uploaded, "/uploaded_bytes")), (2, 311));
    assert!(!text_block(&uploaded).contains("notes.txt"), "file names never reach presentation");
    assert_eq!(e.text("#chosen").await, "2 attached: notes.txt (11 bytes), data.bin (300 bytes)");

    let outside = std::env::temp_dir().join(format!("gl-e2e-outside-{}.txt", std::process::id()));
    std::fs::write(&outside, b"x").expect("a file");
    let refused = e
        .call(
            "browser_upload",
            json!({ "selector": { "name": "Attachments" }, "paths": [outside.to_string_lossy()] }),
        )
        .await
        .envelope;
    let _ = std::fs::remove_file(&outside);
    assert_ne!(refused.status, Status::Succeeded, "{}", refused.summary);
    assert_eq!(e.text("#chosen").await, "2 attached: notes.txt (11 bytes), data.bin (300 bytes)");

    let inline = base64::engine::general_purpose::STANDARD.encode(b"inline bytes");
    let files = json!([{ "name": "inline.txt", "data_base64": inline }]);
    e.ok("browser_upload", json!({ "selector": { "name": "Attachments" }, "files": files })).await;
    assert_eq!(e.text("#chosen").await, "1 attached: inline.txt (12 bytes)");

    let attached =
        e.ok("browser_upload", json!({ "selector": { "name": "Avatar" }, "source_image": image })).await;
    let bytes = u64_fact(&attached, "/uploaded_bytes");
    let avatar = e.text("#avatar-chosen").await;
    assert!(
        avatar.starts_with("Avatar: ") && avatar.contains(&format!("({bytes} bytes) image/png")),
        "{avatar}"
    );
    bytes
}

/// Drop the captured `image` at the drop zone's centre (the same `bytes` as the avatar).
async fn drop_image(e: &E2e<'_>, image: &str, bytes: u64) {
    let (view, scale, centre) = e.view_and_centre("#zone").await;
    let drop = json!({
        "source_image": image, "view": view.facts["view"],
        "x": (centre.0 * scale).round() as u64, "y": (centre.1 * scale).round() as u64,
    });
    let dropped = e.ok("browser_upload", drop).await;
    assert_eq!(u64_fact(&dropped, "/uploaded_bytes"), bytes, "the same image as the avatar");
    let text = e.text("#dropped").await;
    assert!(text.starts_with("Dropped: ") && text.contains(&format!("({bytes} bytes) image/png")), "{text}");
}

/// `browser_execute`: a value the page computed, a result cut to `max_result_chars`, and a
/// refusal where the call narrows `execute` away.
async fn execute(e: &E2e<'_>) {
    e.goto("/counter").await;
    let ran = e.ok("browser_execute", json!({ "script": "document.querySelector('#inc').click(); ({ clicks: window.clicks, title: document.title })" })).await;
    assert_eq!(ran.facts["value"], json!({ "clicks": 1, "title": "Counter" }));
    assert_eq!(ran.facts["truncated"], json!(false));
    assert_eq!(e.text("#count").await, "Count: 1");
    let long =
        e.ok("browser_execute", json!({ "script": "'x'.repeat(5000)", "max_result_chars": 100 })).await;
    assert_eq!(long.facts["truncated"], json!(true));
    assert_eq!(long.facts["value"].as_str().map(str::len), Some(100));
    let narrowed = json!({ "script": "window.clicks = 99", "restrict_capabilities": ["read"] });
    e.expect(Status::Blocked, "browser_execute", narrowed).await;
    assert_eq!(e.js("window.clicks").await, json!(1), "the refused script never ran");
}

/// `browser_sequence` (click, then wait for its effect) and `browser_flow` (navigate,
/// inspect, click the first item through a `flow_ref`, read).
async fn composites(e: &E2e<'_>) {
    e.goto("/counter").await;
    let steps = json!([
        { "action": "click", "selector": { "name": "Increment" } },
        { "action": "wait", "condition": "text_present", "value": "Count: 1" },
    ]);
    if e.extension_on_firefox() {
        // The click step answers `unsupported` (no trusted input) and stops the sequence.
        let sequence = e.expect(Status::Failed, "browser_sequence", json!({ "steps": steps })).await;
        assert_eq!(sequence.facts["stopped_at"]["reason"], json!("unsupported"), "{:?}", sequence.facts);
        assert_eq!(sequence.facts["completed_steps"], json!(0));
        assert!(sequence.summary.contains("firefox"), "{}", sequence.summary);
        assert_eq!(e.text("#count").await, "Count: 0");
        e.js("document.querySelector('#inc').click(); 0").await;
    } else {
        let sequence = e.ok("browser_sequence", json!({ "steps": steps })).await;
        assert_eq!(
            (sequence.facts["completed_steps"].clone(), sequence.facts["total_steps"].clone()),
            (json!(2), json!(2))
        );
    }
    assert_eq!(e.text("#count").await, "Count: 1");

    let steps = json!([
        { "id": "open", "tool": "browser_navigate", "arguments": { "url": e.site.url("/counter?flow").as_str() } },
        { "id": "look", "tool": "browser_inspect", "arguments": {} },
        { "id": "press", "tool": "browser_click",
          "arguments": { "target": { "flow_ref": { "step": "look", "pointer": "/facts/items/0/0" } } } },
        { "id": "see", "tool": "browser_read", "arguments": { "mode": "visible" } },
    ]);
    if e.extension_on_firefox() {
        // The click step answers `unsupported` and stops the flow after two steps.
        let flow = e.expect(Status::Failed, "browser_flow", json!({ "steps": steps })).await;
        let press = flow.facts["steps"][2]["envelope"].clone();
        assert_eq!(
            (press["facts"]["reason"].clone(), press["facts"]["engine"].clone()),
            (json!("unsupported"), json!("firefox"))
        );
        assert_eq!((flow.facts["completed"].clone(), flow.facts["stopped"].clone()), (json!(2), json!(true)));
        assert!(flow.summary.contains("firefox"), "{}", flow.summary);
        assert_eq!(e.js("[location.search, window.clicks]").await, json!(["?flow", 0]));
        return;
    }
    let flow = e.ok("browser_flow", json!({ "steps": steps })).await;
    assert_eq!((flow.facts["completed"].clone(), flow.facts["stopped"].clone()), (json!(4), json!(false)));
    let rows = flow.facts["steps"].as_array().expect("step rows");
    let read = rows.iter().find_map(|r| r.pointer("/envelope/facts/text")).and_then(Value::as_str);
    assert!(read.is_some_and(|t| t.contains("Count: 1")), "the flow read the click's effect: {rows:?}");
    assert_eq!(e.js("[location.search, window.clicks]").await, json!(["?flow", 1]));
}

/// `browser_record`: start, work, save to the client; a GIF attachment comes back.
async fn record(e: &E2e<'_>) {
    e.goto("/counter").await;
    let started = e.ok("browser_record", json!({ "action": "start" })).await;
    let recording = started.facts["recording"].as_str().expect("a recording").to_owned();
    for _ in 0..3 {
        e.click(json!({ "selector": { "name": "Increment" } }), "#inc").await;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let status = e.ok("browser_record", json!({ "action": "status" })).await;
    assert_eq!(status.facts["state"], json!("recording"), "{}", status.summary);
    let saved = e.call("browser_record", json!({ "action": "save", "recording": recording })).await;
    assert_eq!(saved.envelope.status, Status::Succeeded, "{}", saved.envelope.summary);
    assert_eq!(saved.attachments.len(), 1);
    let gif = &saved.attachments[0];
    assert_eq!(gif.mime_type, "image/gif");
    assert!(gif.bytes.starts_with(b"GIF8"), "a GIF");
    assert!(u64_fact(&saved.envelope, "/frames") >= 1);
    assert_eq!(u64_fact(&saved.envelope, "/bytes"), gif.bytes.len() as u64);
    assert_eq!(e.text("#count").await, "Count: 3");
    e.ok("browser_record", json!({ "action": "discard", "recording": recording })).await;
}

/// `browser_diagnose`: tracking starts, the page logs an error and fetches a missing
/// resource, and both problems come back.
async fn diagnose(e: &E2e<'_>) {
    e.goto("/problems").await;
    let first = e.ok("browser_diagnose", json!({})).await;
    assert_eq!(first.facts["tracking_started"], json!(true), "{}", first.summary);
    e.click(json!({ "selector": { "name": "Cause problems" } }), "#cause").await;
    assert_eq!(e.until_text("#state", "fetched 404").await, "fetched 404");
    // The extension reads no console on Firefox: asking for it answers `unsupported`, and
    // both sources (the default) give the network evidence only.
    let console = !e.extension_on_firefox();
    if !console {
        e.unsupported("browser_diagnose", json!({ "source": "console" })).await;
    }
    let deadline = Instant::now() + SETTLE;
    let found = loop {
        let found = e.ok("browser_diagnose", json!({})).await;
        let counts = &found.facts["problem_counts"];
        if (!console || counts["console_error"].as_u64() >= Some(1))
            && counts["http_error"].as_u64() >= Some(1)
        {
            break found;
        }
        assert!(Instant::now() < deadline, "problems never reported: {}", found.summary);
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let entries = found.facts["entries"].as_array().expect("entries");
    let logged =
        entries.iter().any(|x| x["text"].as_str().is_some_and(|t| t.contains("gl-e2e console error")));
    assert_eq!(logged, console, "{entries:?}");
    assert!(
        entries.iter().any(|x| x["status"] == json!(404)
            && x["url"].as_str().is_some_and(|u| u.ends_with("/missing-resource"))),
        "{entries:?}"
    );
    eprintln!("[{}]   diagnose: {}", e.engine.as_str(), found.summary);
}

/// A click on a link to the second host under `restrict_hosts` to the first. Where the port
/// governs the wire, the click happens and its navigation is refused before anything is sent:
/// `blocked`, the tab still on its page. Elsewhere the landing is reported outside authority.
async fn landing_outside(e: &E2e<'_>) {
    e.goto("/links").await;
    let arguments =
        json!({ "selector": { "name": "Visit the second host" }, "restrict_hosts": ["127.0.0.1"] });
    if e.extension_on_firefox() {
        // No trusted click: nothing lands.
        e.unsupported("browser_click", arguments).await;
        assert_eq!(e.js("location.pathname").await, json!("/links"));
        return;
    }
    let clicked = e.call("browser_click", arguments).await.envelope;
    if e.g.network_enforcement() == NetworkEnforcement::Enforced {
        assert_eq!(clicked.status, Status::Blocked, "{}", clicked.summary);
        let port = e.site.url_b("/").port().unwrap_or(0);
        let said =
            format!("the page tried to open {HOST_B}:{port}, which is outside authority; nothing was sent.");
        assert!(clicked.summary.contains(&said), "{}", clicked.summary);
        assert_eq!(e.js("location.pathname").await, json!("/links"));
        return;
    }
    assert_eq!(clicked.status, Status::Succeeded, "{}", clicked.summary);
    let landing = &clicked.facts["landing"];
    assert_eq!(landing["outside_authority"], json!(true), "{:?}", clicked.facts);
    assert!(clicked.summary.contains("outside authority"), "{}", clicked.summary);
    assert_eq!(landing["url"], json!(format!("http://{HOST_B}:{}", e.site.url_b("/").port().unwrap_or(0))));
    // The page on the second host (allowed without the restriction) says where it is.
    assert_eq!(e.text("#where").await, format!("landed on {HOST_B}"));
    let back = json!({ "selector": { "name": "Visit the second host" }, "restrict_hosts": ["127.0.0.1"] });
    let refused = e.expect(Status::Blocked, "browser_click", back).await;
    assert_eq!(refused.effect, Effect::None);
}

/// A tab the page opens (`window.open`, a `target=_blank` link) while a click runs joins the
/// workspace: the click names it, it can be read by its handle and closed again.
async fn popups(e: &E2e<'_>) {
    let home = e.goto("/popups").await;
    let tab = home.facts["tab"].as_str().expect("a tab").to_owned();
    if e.extension_on_firefox() {
        // No trusted click or key: nothing opens.
        e.unsupported("browser_click", json!({ "tab": tab, "selector": { "name": "Open help" } })).await;
        e.unsupported("browser_press_key", json!({ "tab": tab, "key": "End" })).await;
        let listed = e.ok("browser_tabs", json!({ "action": "list" })).await;
        assert_eq!(listed.facts["count"], json!(1), "{}", listed.summary);
        return;
    }
    for (control, path, title) in
        [("Open help", "/tabs/help", "Tab help"), ("Read the terms", "/tabs/terms", "Tab terms")]
    {
        let clicked = e.ok("browser_click", json!({ "tab": tab, "selector": { "name": control } })).await;
        let mut opened = clicked.facts.get("opened_tabs").cloned().unwrap_or(Value::Null);
        // A link's tab may appear just after the click answered: a later action sees it.
        let deadline = Instant::now() + Duration::from_secs(10);
        while opened.is_null() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let again = e.ok("browser_press_key", json!({ "tab": tab, "key": "End" })).await;
            opened = again.facts.get("opened_tabs").cloned().unwrap_or(Value::Null);
        }
        let popup = opened[0]["tab"]
            .as_str()
            .unwrap_or_else(|| panic!("{control}: no opened tab in {:?}", clicked.facts))
            .to_owned();
        assert_ne!(popup, tab);
        assert_eq!(opened[0]["url"], json!(e.site.url(path).as_str()), "{control}");
        assert_eq!(opened[0]["title"], json!(title), "{control}");
        let read = e.ok("browser_read", json!({ "tab": popup })).await;
        assert!(read.facts["text"].as_str().is_some_and(|t| t.contains(title)), "{:?}", read.facts);
        let listed = e.ok("browser_tabs", json!({ "action": "list" })).await;
        let handles: Vec<&str> =
            listed.facts["tabs"].as_array().into_iter().flatten().filter_map(|t| t["tab"].as_str()).collect();
        assert!(handles.contains(&popup.as_str()), "{handles:?}");
        e.ok("browser_tabs", json!({ "action": "close", "tab": popup })).await;
    }
}
