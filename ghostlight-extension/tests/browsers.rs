//! The extension connector end to end on headless Chromium and Firefox: the repository's
//! `extension/` loaded (Chromium: `--load-extension`; Firefox: sideloaded into a fresh profile
//! through an extension proxy file), the native host registered where each browser looks (Chromium: the profile's
//! `NativeMessagingHosts/`; Firefox: `$HOME/.mozilla/native-messaging-hosts/`), this crate's
//! `ghostlight-native-host` relaying to an [`ExtensionBrowser`], driven against pages served on
//! 127.0.0.1.
//!
//! Each test has its own temporary HOME, profile, TMPDIR and socket directory; the browser runs
//! in its own process group, which teardown kills and checks empty; the socket must be gone
//! after the browser port is dropped. `GHOSTLIGHT_TEST_ENGINES` (e.g. `chromium`) limits the
//! engines.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_core::port::{
    BrowserPort, CaptureKind, Captured, ClickInput, CssRect, DiagnoseDetail, DiagnoseSource, DiagnosticEntry,
    DiagnosticSource, DiagnosticsQuery, DialogKind, DialogResolution, ElementRef, Gate, HistoryMove,
    HoverInput, InlineFile, Key, KeyInput, MouseButton, NamedKey, NavigateInput, NetworkError, PerceiveInput,
    PerceiveScope, PerceivedElement, Point, PointerTarget, PortEffect, PortErrorKind, ReadInput,
    RecordCommand, RecordDelivery, RecordReport, RecordingRef, RecordingState, ScrollDirection, ScrollInput,
    TabCall, TabRef, TextMode, TypeInput, UploadDestination, UploadFiles, UploadInput,
};
use ghostlight_core::{AuthorityLayers, Cancellation, Envelope, Ghostlight, Settings, Status, ToolResult};
use ghostlight_extension::ExtensionBrowser;
use ghostlight_extension::identity::CHROMIUM_EXTENSION_ID;
use ghostlight_webdriver::Engine;
use serde_json::json;
use url::Url;

// The WebDriver suite's loopback server and engine selection, shared by path (each test
// binary uses a subset of them).
#[allow(dead_code)]
#[path = "../../ghostlight-webdriver/tests/support/dom_table.rs"]
mod dom_table;
#[allow(dead_code)]
#[path = "../../ghostlight-webdriver/tests/support/engines.rs"]
mod engines;
#[allow(dead_code)]
#[path = "../../ghostlight-webdriver/tests/support/server.rs"]
mod server;
use server::{Reply, Site};
// The browser with the extension loaded, shared with the latency bench.
#[path = "support/world.rs"]
mod world;
use world::World;

/// The longest wait for a page load.
const LOAD: Duration = Duration::from_secs(15);

/// The loopback site: `/a`, `/b` (a title, a heading and a paragraph each), `/framed` (an
/// iframe of `/inner`), `/colour/RRGGBB` (a page of that one colour).
fn site() -> Site {
    Site::serve(|ask| {
        let body = match ask.path {
            "/framed" => {
                "<!doctype html><title>Framed</title><p>Outer</p><iframe src=\"/inner\"></iframe>".into()
            }
            colour if colour.starts_with("/colour/") => format!(
                "<!doctype html><title>Colour</title><style>html,body{{margin:0;height:100%;background:#{}}}</style>",
                colour.trim_start_matches("/colour/")
            ),
            other => {
                let name = other.trim_start_matches('/').to_uppercase();
                format!("<!doctype html><title>{name}</title><h1>{name}</h1><p>Hello   from {name}</p>")
            }
        };
        Reply::html(200, body)
    })
}

fn go(url: Url) -> NavigateInput {
    NavigateInput { url, discard_beforeunload: false }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_operations() {
    operations(Engine::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_operations() {
    operations(Engine::Firefox).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_perception() {
    perception(Engine::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_perception() {
    perception(Engine::Firefox).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_tools() {
    tools(Engine::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_tools() {
    tools(Engine::Firefox).await;
}

/// At most two browsers of this file at once (`cargo test` runs its tests in parallel on a
/// 2-core machine).
static BROWSERS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

/// A world for `engine` with its turn among this file's browsers, or `None` when the engine
/// is not wanted.
async fn begin(engine: Engine) -> Option<(tokio::sync::SemaphorePermit<'static>, World)> {
    if !engines::wanted(engine) {
        eprintln!("[{}] skipped: not in GHOSTLIGHT_TEST_ENGINES", engine.as_str());
        return None;
    }
    let turn = BROWSERS.acquire().await.expect("the semaphore stays open");
    Some((turn, World::start(engine).await))
}

/// Every implemented port operation, against the site.
async fn operations(engine: Engine) {
    let Some((_turn, world)) = begin(engine).await else { return };
    let site = site();
    let b = world.browser.as_ref();

    // Tabs: list, open with load waiting, page state.
    let before = b.tabs().await.expect("tabs");
    assert!(!before.is_empty(), "the browser's own tab is listed");
    let opened = b.open_tab(&go(site.url("/a")), LOAD).await.expect("a tab opens");
    assert_eq!((opened.page.title.as_str(), opened.page.http_status), ("A", Some(200)));
    assert_eq!(opened.page.url, site.url("/a"));
    let tab = opened.tab.clone();
    let page = b.page(&tab).await.expect("the page");
    assert_eq!(page.document, opened.page.document, "the same document reads the same identity");
    assert!(b.tabs().await.expect("tabs").iter().any(|t| t.tab == tab));

    // Navigation and history, each a new document.
    let on_b =
        b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/b"))).await.expect("navigated");
    assert_eq!(on_b.title, "B");
    assert_ne!(on_b.document, page.document);
    let back = b.history(&TabCall::new(&tab, &Gate::open(), LOAD), HistoryMove::Back).await.expect("back");
    assert_eq!(back.url, site.url("/a"));
    let forward =
        b.history(&TabCall::new(&tab, &Gate::open(), LOAD), HistoryMove::Forward).await.expect("forward");
    assert_eq!(forward.url, site.url("/b"));
    let reloaded = b
        .history(&TabCall::new(&tab, &Gate::open(), LOAD), HistoryMove::Reload { bypass_cache: true })
        .await
        .expect("reloaded");
    assert_ne!(reloaded.document, forward.document, "a reload is a new document");

    // Text.
    let visible = ReadInput { target: None, mode: TextMode::Visible, max_chars: 1000 };
    let text = b.read_text(&TabCall::reading(&tab, &Gate::open()), &visible).await.expect("text");
    assert_eq!(text.text, "B\nHello from B");
    assert!(!text.truncated);
    let short = b
        .read_text(&TabCall::reading(&tab, &Gate::open()), &ReadInput { max_chars: 3, ..visible.clone() })
        .await
        .expect("text");
    assert_eq!((short.text.as_str(), short.truncated), ("B\nH", true));
    assert!(b.text_present(&TabCall::reading(&tab, &Gate::open()), "hello FROM b").await.expect("searched"));
    assert!(!b.text_present(&TabCall::reading(&tab, &Gate::open()), "absent words").await.expect("searched"));

    // Scripts: completion values, function bodies, references, failures.
    let title = b.execute(&TabCall::new(&tab, &Gate::open(), LOAD), "document.title").await.expect("ran");
    assert_eq!(title.value, json!("B"));
    assert_eq!(title.page.document, reloaded.document);
    assert_eq!(
        b.execute(&TabCall::new(&tab, &Gate::open(), LOAD), "return 1 + 1").await.expect("ran").value,
        json!(2)
    );
    assert_eq!(
        b.execute(
            &TabCall::new(&tab, &Gate::open(), LOAD),
            "return await Promise.resolve([document.body, 'x'])"
        )
        .await
        .expect("ran")
        .value,
        json!(["[element]", "x"])
    );
    let thrown = b
        .execute(&TabCall::new(&tab, &Gate::open(), LOAD), "throw new TypeError('no')")
        .await
        .expect_err("threw");
    assert_eq!((thrown.kind(), thrown.effect()), (PortErrorKind::ScriptError, PortEffect::Unknown));
    assert_eq!(thrown.script_failure().map(|f| (f.name.as_str(), f.ran)), Some(("TypeError", true)));
    let broken =
        b.execute(&TabCall::new(&tab, &Gate::open(), LOAD), "let a = ;").await.expect_err("did not compile");
    assert_eq!((broken.kind(), broken.effect()), (PortErrorKind::ScriptError, PortEffect::None));
    assert_eq!(broken.script_failure().map(|f| (f.name.as_str(), f.ran)), Some(("SyntaxError", false)));

    // Geometry and zoom.
    let geometry = b.geometry(&tab).await.expect("geometry");
    assert!(geometry.viewport_width > 0 && geometry.viewport_height > 0);
    assert_eq!(b.set_zoom(&tab, 150).await.expect("zoomed").zoom_percent, 150);
    assert_eq!(b.set_zoom(&tab, 100).await.expect("zoomed").zoom_percent, 100);

    // Focus and capture.
    b.focus_tab(&tab).await.expect("focused");
    let shot =
        b.capture(&TabCall::new(&tab, &Gate::open(), LOAD), &CaptureKind::Viewport).await.expect("captured");
    assert!(shot.png.starts_with(b"\x89PNG"));
    assert!(shot.width > 0 && shot.height > 0);
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/framed"))).await.expect("navigated");
    // A frame the gate refuses is painted over; an admitted one is shown.
    let no_inner = Gate::new(|url: &Url| url.path() != "/inner");
    assert_eq!(frame_pixel(b, &tab, &no_inner).await, BLANK);
    assert_ne!(frame_pixel(b, &tab, &Gate::open()).await, BLANK);

    // The extension's own pages (its popup: the person's controls) are never driven.
    if engine == Engine::Chromium {
        let popup =
            Url::parse(&format!("chrome-extension://{CHROMIUM_EXTENSION_ID}/popup.html")).expect("a URL");
        let refused = b.open_tab(&go(popup.clone()), LOAD).await.expect_err("refused");
        assert_eq!((refused.kind(), refused.effect()), (PortErrorKind::InvalidInput, PortEffect::None));
        let refused =
            b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(popup)).await.expect_err("refused");
        assert_eq!((refused.kind(), refused.effect()), (PortErrorKind::InvalidInput, PortEffect::None));
    }

    // Close: the tab is gone afterwards.
    b.close_tab(&tab).await.expect("closed");
    assert_eq!(b.page(&tab).await.expect_err("gone").kind(), PortErrorKind::TabGone);
    assert_eq!(b.close_tab(&tab).await.expect_err("gone").kind(), PortErrorKind::TabGone);
    assert!(!b.tabs().await.expect("tabs").iter().any(|t| t.tab == tab));

    world.teardown().await;
}

/// Tool calls through the whole pipeline (`Ghostlight::invoke`) over a world's browser port,
/// with `browser_execute` allowed.
struct Tools {
    g: Ghostlight,
    never: Cancellation,
}

impl Tools {
    fn over(world: &World) -> Tools {
        Tools::with(world, json!({"capabilities": {"allow": ["execute"]}}))
    }

    /// Over a world's browser port with these user settings.
    fn with(world: &World, settings: serde_json::Value) -> Tools {
        let user: Settings = serde_json::from_value(settings).expect("settings");
        let authority = AuthorityLayers { user: Some(user), organization: None }.compile();
        let port: Arc<dyn BrowserPort> = world.browser.clone();
        Tools { g: Ghostlight::builder(port).authority(authority).build(), never: Cancellation::never() }
    }

    async fn call(&self, tool: &str, arguments: serde_json::Value) -> Envelope {
        self.result(tool, arguments).await.envelope
    }

    /// The whole result (the envelope and the attachments).
    async fn result(&self, tool: &str, arguments: serde_json::Value) -> ToolResult {
        self.g.invoke(tool, &arguments, &self.never).await.expect("a catalog tool")
    }

    /// Navigate a new tab to `url` (which must succeed): its handle.
    async fn open(&self, url: &Url) -> String {
        let navigated = self.call("browser_navigate", json!({"url": url.as_str(), "new_tab": true})).await;
        ok(&navigated);
        navigated.facts["tab"].as_str().expect("a tab handle").to_owned()
    }
}

/// Assert a tool call succeeded.
fn ok(e: &Envelope) {
    assert_eq!(e.status, Status::Succeeded, "{}: {:?}", e.summary, e.facts);
}

/// The first tool calls through the whole pipeline (`Ghostlight::invoke`) over the extension:
/// navigate, list, read, execute, screenshot, find, inspect, close; and a tool whose operation the
/// connector does not do yet answers as unsupported.
async fn tools(engine: Engine) {
    let Some((_turn, world)) = begin(engine).await else { return };
    let site = site();
    let tools = Tools::over(&world);
    let call = |tool, arguments| tools.call(tool, arguments);

    let navigated = call("browser_navigate", json!({"url": site.url("/a").as_str(), "new_tab": true})).await;
    ok(&navigated);
    let tab = navigated.facts["tab"].as_str().expect("a tab handle").to_owned();
    let listed = call("browser_tabs", json!({"action": "list"})).await;
    ok(&listed);
    assert_eq!(listed.facts["tabs"].as_array().map(Vec::len), Some(1), "only this workspace's tab");
    let read = call("browser_read", json!({"tab": tab, "mode": "visible"})).await;
    ok(&read);
    assert!(read.facts["text"].as_str().is_some_and(|t| t.contains("Hello from A")), "{:?}", read.facts);
    let executed = call("browser_execute", json!({"tab": tab, "script": "document.title + '!'"})).await;
    ok(&executed);
    assert_eq!(executed.facts["value"], json!("A!"));
    let shot = call("browser_screenshot", json!({"tab": tab})).await;
    ok(&shot);
    let found = call("browser_find", json!({"tab": tab, "text": "Hello"})).await;
    ok(&found);
    let inspected = call("browser_inspect", json!({"tab": tab})).await;
    ok(&inspected);
    // Console evidence: Chromium's debugger gives it; Firefox gives extensions none.
    let diagnosed = call("browser_diagnose", json!({"tab": tab, "source": "console"})).await;
    if engine == Engine::Firefox {
        assert_eq!(diagnosed.status, Status::Failed, "{}", diagnosed.summary);
        assert_eq!(diagnosed.facts["reason"], json!("unsupported"));
    } else {
        ok(&diagnosed);
    }
    let closed = call("browser_tabs", json!({"action": "close", "tab": tab})).await;
    ok(&closed);
    drop(tools);
    world.teardown().await;
}

// ---- input and dialogs ------------------------------------------------------------------

/// One test of `body` per engine named.
macro_rules! engine_tests {
    ($body:ident: $($test:ident => $engine:ident),+) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $test() {
            $body(Engine::$engine).await;
        }
    )+};
}

engine_tests!(input_and_dialogs: chromium_input_and_dialogs => Chromium, firefox_input_and_dialogs => Firefox);
engine_tests!(hostile_dialogs: chromium_hostile_dialogs => Chromium);
engine_tests!(input_tools: chromium_input_tools => Chromium);
engine_tests!(fill_tools: chromium_fill_tools => Chromium, firefox_fill_tools => Firefox);
engine_tests!(frame_targets: chromium_frame_targets => Chromium, firefox_frame_targets => Firefox);
engine_tests!(hostile_input: chromium_hostile_input => Chromium);
engine_tests!(forms_tools: chromium_forms_tools => Chromium, firefox_forms_tools => Firefox);

/// `browser_inspect` scope `forms` over the extension (the same page script as WebDriver's):
/// a form with constraints, an invalid field, a radio group in a fieldset, a select and a
/// filled password; a control outside any form; a same-origin frame's form. No value appears.
async fn forms_tools(engine: Engine) {
    let Some((_turn, world)) = begin(engine).await else { return };
    let site = Site::serve(|ask| {
        let body = match ask.path {
            "/inner" => {
                "<!doctype html><title>Inner</title><form aria-label=\"Subscribe\">\
                <label>Frame email <input type=email required></label></form>"
            }
            _ => {
                "<!doctype html><title>Forms</title><form aria-label=\"Sign up\">\
                <label>Full name <input name=n required></label>\
                <label>Age <input type=number min=18 max=99 value=7></label>\
                <fieldset><legend>Plan</legend><label><input type=radio name=plan> Free</label>\
                <label><input type=radio name=plan checked> Pro</label></fieldset>\
                <label>Country <select><option value=\"\">Pick</option><option>France</option></select></label>\
                <label>Password <input type=password id=pw></label><button>Go</button></form>\
                <label>Search <input type=search></label><iframe src=\"/inner\"></iframe>\
                <script>pw.value = 'ext-SECRET-typed';</script>"
            }
        };
        Reply::html(200, body.to_owned())
    });
    let tools = Tools::over(&world);
    let tab = tools.open(&site.url("/forms")).await;
    let inspected = tools.call("browser_inspect", json!({"tab": tab, "scope": "forms"})).await;
    ok(&inspected);
    let text = serde_json::to_string(&inspected).unwrap_or_default();
    assert!(!text.contains("ext-SECRET-typed"), "a password in the snapshot: {text}");
    let forms = inspected.facts["forms"].as_array().cloned().unwrap_or_default();
    assert_eq!(forms.len(), 2, "{:?}", inspected.facts);
    assert_eq!((&forms[0]["name"], &forms[1]["name"]), (&json!("Sign up"), &json!("Subscribe")));
    let fields = forms[0]["fields"].as_array().cloned().unwrap_or_default();
    let named = |name: &str| fields.iter().find(|f| f["name"] == name).cloned().unwrap_or_default();
    assert_eq!(named("Full name")["validity"], json!("valueMissing"));
    assert_eq!(named("Age")["constraints"], json!({"min": "18", "max": "99"}));
    assert_eq!(named("Age")["validity"], json!("rangeUnderflow"));
    let plan = named("Plan");
    assert_eq!((&plan["role"], &plan["value"]), (&json!("radiogroup"), &json!({"kind": "filled"})));
    assert_eq!(plan["options"].as_array().map(Vec::len), Some(2));
    assert_eq!(named("Country")["options"], json!(["Pick", "France"]));
    assert_eq!(named("Country")["value"], json!({"kind": "empty"}));
    assert_eq!(named("Password")["value"], json!({"kind": "redacted", "present": true}));
    assert_eq!(inspected.facts["outside"][0]["name"], json!("Search"));
    assert_eq!(forms[1]["fields"][0]["validity"], json!("valueMissing"));
    // Its handles are the extension's ordinary targets.
    let target = named("Full name")["target"].clone();
    ok(&tools
        .call("browser_fill_form", json!({"tab": tab, "fields": [{"target": target, "value": "Ada"}]}))
        .await);
    drop(tools);
    world.teardown().await;
}

/// A page that replaces what main-world input scripts would call (`elementFromPoint`,
/// `getClientRects`, `getBoundingClientRect`, `focus`, `addEventListener`, `scrollIntoView`)
/// changes nothing: the hit test, focus and key guard run in the extension's isolated world.
/// Its own attempt to move focus into a password field mid-typing has every later key
/// withheld.
async fn hostile_input(engine: Engine) {
    let Some((_turn, world)) = begin(engine).await else { return };
    let site = input_site();
    let tools = Tools::over(&world);
    let call = |tool, arguments| tools.call(tool, arguments);
    let tab = tools.open(&site.url("/hostile-input")).await;
    let state = || {
        call(
            "browser_execute",
            json!({"tab": tab, "script": "[window.clicks, window.trusted, q.value, pw.value]"}),
        )
    };

    let clicked = call("browser_click", json!({"tab": tab, "selector": {"name": "Go"}})).await;
    ok(&clicked);
    assert!(clicked.summary.contains("Go"), "{}", clicked.summary);
    let typed =
        call("browser_type_text", json!({"tab": tab, "selector": {"name": "Search"}, "text": "abcdef"}))
            .await;
    assert_ne!(typed.status, Status::Succeeded, "focus moved mid-typing: {}", typed.summary);
    let seen = state().await;
    assert_eq!(seen.facts["value"], json!([1, true, "ab", ""]), "{:?}", seen.facts);
    drop(tools);
    world.teardown().await;
}

/// Element targets inside frames, same-origin and cross-origin, through the whole pipeline:
/// trusted clicks and typing (Chromium), a fill over fields of three documents, a reveal
/// scroll; each frame's page notes what it saw in its own text, read back with `browser_read`.
/// A frame covered by something of its parent page refuses the click, naming the cover.
async fn frame_targets(engine: Engine) {
    let Some((_turn, world)) = begin(engine).await else { return };
    let site = input_site();
    let tools = Tools::over(&world);
    let call = |tool, arguments| tools.call(tool, arguments);
    let tab = tools.open(&site.url("/framed-form")).await;
    let text = |tab: String| page_text(&tools, tab);

    let filled = call(
        "browser_fill_form",
        json!({"tab": tab, "fields": [
            {"selector": {"name": "Top field"}, "value": "top"},
            {"selector": {"name": "Same field"}, "value": "same"},
            {"selector": {"name": "Cross agree"}, "value": true},
        ]}),
    )
    .await;
    ok(&filled);
    let seen = text(tab.clone()).await;
    assert!(seen.contains("Same typed same"), "{seen}");
    assert!(seen.contains("Cross agreed true"), "{seen}");
    let misfit = call(
        "browser_fill_form",
        json!({"tab": tab, "fields": [
            {"selector": {"name": "Same field"}, "value": "untouched?"},
            {"selector": {"name": "Cross agree"}, "value": "text for a checkbox"},
        ]}),
    )
    .await;
    assert_eq!(
        misfit.status,
        Status::Failed,
        "a misfit in one frame refuses the fill in every frame: {}",
        misfit.summary
    );
    assert!(!text(tab.clone()).await.contains("untouched?"), "nothing set by the misfit");

    let scrolled = call("browser_scroll", json!({"tab": tab, "selector": {"name": "Cross low"}})).await;
    ok(&scrolled);

    for who in ["Same", "Cross"] {
        let clicked =
            call("browser_click", json!({"tab": tab, "selector": {"name": format!("{who} go")}})).await;
        let typed = call(
            "browser_type_text",
            json!({"tab": tab, "selector": {"name": format!("{who} field")}, "text": "héllo", "clear_first": true}),
        )
        .await;
        match engine {
            Engine::Chromium => {
                ok(&clicked);
                assert!(clicked.summary.contains(&format!("{who} go")), "{}", clicked.summary);
                ok(&typed);
                let seen = text(tab.clone()).await;
                assert!(seen.contains(&format!("{who} clicked 1 true")), "{seen}");
                assert!(seen.contains(&format!("{who} typed héllo")), "{seen}");
            }
            Engine::Firefox => {
                for refused in [&clicked, &typed] {
                    assert_eq!(refused.facts["reason"], json!("unsupported"), "{:?}", refused.facts);
                }
            }
        }
    }

    if engine == Engine::Chromium {
        let covered = tools.open(&site.url("/covered")).await;
        let refused = call("browser_click", json!({"tab": covered, "selector": {"name": "Cross go"}})).await;
        assert_eq!(refused.facts["reason"], json!("obstructed"), "{}: {:?}", refused.summary, refused.facts);
        assert!(refused.summary.contains("Veil"), "the cover is named: {}", refused.summary);
        assert!(!text(covered).await.contains("Cross clicked"), "nothing was clicked");

        // At the port: an element of a frame the call's gate refuses is never clicked.
        let b = world.browser.as_ref();
        let opened = b.open_tab(&go(site.url("/framed-form")), LOAD).await.expect("a tab");
        let all = PerceiveInput { scope: PerceiveScope::All, max_items: dom_table::MAX_ITEMS };
        let seen = b.perceive(&TabCall::reading(&opened.tab, &Gate::open()), &all).await.expect("perceived");
        let cross = named(&seen.elements, "Cross go").expect("the cross-origin button").element.clone();
        let click = ClickInput {
            at: PointerTarget::Element(cross),
            button: MouseButton::Primary,
            count: 1,
            modifiers: Vec::new(),
        };
        let refused = b
            .click(&TabCall::new(&opened.tab, &only_a_gate(), LOAD), &click)
            .await
            .expect_err("outside authority");
        assert_eq!(refused.kind(), PortErrorKind::OutsideAuthority);
        b.close_tab(&opened.tab).await.expect("closed");
    }
    drop(tools);
    world.teardown().await;
}

/// The visible text of `tab` (frames included), read with `browser_read`.
async fn page_text(tools: &Tools, tab: String) -> String {
    let read = tools.call("browser_read", json!({"tab": tab, "mode": "visible"})).await;
    ok(&read);
    read.facts["text"].as_str().unwrap_or_default().to_owned()
}

/// `browser_fill_form` through the whole pipeline on both engines (its events are untrusted
/// page events, as with WebDriver, so Firefox fills too): fields by name, a checkbox, and a
/// misfit that leaves every field untouched.
async fn fill_tools(engine: Engine) {
    let Some((_turn, world)) = begin(engine).await else { return };
    let site = input_site();
    let tools = Tools::over(&world);
    let form = tools.open(&site.url("/form")).await;
    let fields = |search: &str, agree: serde_json::Value| {
        json!({"tab": form, "fields": [
            {"selector": {"name": "Search"}, "value": search},
            {"selector": {"name": "Agree"}, "value": agree},
        ]})
    };
    ok(&tools.call("browser_fill_form", fields("form value", json!(true))).await);
    let misfit = tools.call("browser_fill_form", fields("untouched?", json!("text for a checkbox"))).await;
    assert_eq!(misfit.status, Status::Failed, "{}", misfit.summary);
    let values =
        tools.call("browser_execute", json!({"tab": form, "script": "[q.value, agree.checked]"})).await;
    assert_eq!(values.facts["value"], json!(["form value", true]), "{:?}", values.facts);
    drop(tools);
    world.teardown().await;
}

/// Input and dialog tools through the whole pipeline: a click at a point of a screenshot's view
/// opens an alert, which the dialog tool sees and accepts.
async fn input_tools(engine: Engine) {
    let Some((_turn, world)) = begin(engine).await else { return };
    let site = input_site();
    let tools = Tools::over(&world);
    let call = |tool, arguments| tools.call(tool, arguments);

    let tab = tools.open(&site.url("/dialogs")).await;
    let shot = call("browser_screenshot", json!({"tab": tab})).await;
    ok(&shot);
    let view = shot.facts["view"].as_str().expect("a view handle").to_owned();
    let clicked = call("browser_click", json!({"tab": tab, "view": view, "x": 100, "y": 25})).await;
    ok(&clicked);
    assert_eq!(clicked.facts["activated"], json!(true));
    assert!(clicked.summary.contains("Alert"), "the receipt names the button: {}", clicked.summary);
    let status = call("browser_dialog", json!({"tab": tab, "action": "status"})).await;
    ok(&status);
    assert_eq!(
        (status.facts["present"].clone(), status.facts["dialog_type"].clone()),
        (json!(true), json!("alert"))
    );
    assert!(!status.summary.contains("secret alert text"), "dialog text never shows: {}", status.summary);
    let accepted = call("browser_dialog", json!({"tab": tab, "action": "accept"})).await;
    ok(&accepted);
    let after = call("browser_dialog", json!({"tab": tab, "action": "status"})).await;
    assert_eq!(after.facts["present"], json!(false), "{:?}", after.facts);

    // Element targets (references from perception): a button clicked and a field typed into by
    // name, a field cleared first, the page seeing trusted input.
    let form = tools.open(&site.url("/form")).await;
    let clicked = call("browser_click", json!({"tab": form, "selector": {"name": "Go"}})).await;
    ok(&clicked);
    assert!(clicked.summary.contains("Go"), "the receipt names the button: {}", clicked.summary);
    let typed =
        call("browser_type_text", json!({"tab": form, "selector": {"name": "Search"}, "text": "héllo"}))
            .await;
    ok(&typed);
    let again = call(
        "browser_type_text",
        json!({"tab": form, "selector": {"name": "Search"}, "text": "tide", "clear_first": true}),
    )
    .await;
    ok(&again);
    let filled = call(
        "browser_fill_form",
        json!({"tab": form, "fields": [
            {"selector": {"name": "Search"}, "value": "form value"},
            {"selector": {"name": "Agree"}, "value": true},
        ]}),
    )
    .await;
    ok(&filled);
    let misfit = call(
        "browser_fill_form",
        json!({"tab": form, "fields": [
            {"selector": {"name": "Search"}, "value": "untouched?"},
            {"selector": {"name": "Agree"}, "value": "text for a checkbox"},
        ]}),
    )
    .await;
    assert_eq!(misfit.status, Status::Failed, "a misfit refuses the whole fill: {}", misfit.summary);
    let filled_values =
        call("browser_execute", json!({"tab": form, "script": "[q.value, agree.checked]"})).await;
    assert_eq!(filled_values.facts["value"], json!(["form value", true]), "nothing set by the misfit");
    ok(&call("browser_execute", json!({"tab": form, "script": "q.value = ''"})).await);
    let typed_again =
        call("browser_type_text", json!({"tab": form, "selector": {"name": "Search"}, "text": "tide"})).await;
    ok(&typed_again);
    let seen =
        call("browser_execute", json!({"tab": form, "script": "[window.clicks, q.value, window.trusted]"}))
            .await;
    ok(&seen);
    assert_eq!(seen.facts["value"], json!([1, "tide", true]), "{:?}", seen.facts);
    drop(tools);
    world.teardown().await;
}

/// The pages of the input tests. `/input`: a button at (20, 20)–(220, 80), a box with mouse
/// drag handlers at (20, 200)–(100, 280), an HTML5 draggable at (300, 200) and its drop zone
/// at (500, 200), a tall page; every handler notes what it saw (and `isTrusted`) in
/// `window.log`. `/dialogs`: buttons opening an alert, a confirm and a prompt, noting the
/// answers. `/upload`: a file input taking several files (`#many`, "Attachments"), one taking
/// one (`#one`), a disabled one (`#off`) and a text field (`#text`); `input` and `change` events
/// are noted at the document (so only bubbling ones) in `window.log`, and after each `change`
/// the input's files (`name:type:size:text`) in `window.seen[id]`. `/loop`: a button
/// opening alerts without end. `/alerting`: an alert while it loads. `/leave`: a page asking
/// before it is left. `/framed-upload`: `/upload` in a frame.
fn input_site() -> Site {
    Site::serve(|ask| {
        let body = match ask.path {
            "/input" => concat!(
                "<!doctype html><title>Input</title><style>body{margin:0}",
                "#b,#drag,#src,#zone{position:absolute} #b{left:20px;top:20px;width:200px;height:60px}",
                "#drag{left:20px;top:200px;width:80px;height:80px}",
                "#src{left:300px;top:200px;width:80px;height:80px} #zone{left:500px;top:200px;width:150px;height:150px}",
                "#tall{height:5000px}</style>",
                "<button id=b>Press me</button><div id=drag>Box</div>",
                "<div id=src draggable=true>Source</div><div id=zone>Zone</div><div id=tall></div><script>",
                "window.log = [];",
                "b.addEventListener('click', e => log.push('click:' + e.isTrusted + ':' + e.detail));",
                "b.addEventListener('mouseenter', e => log.push('enter:' + e.isTrusted));",
                "document.addEventListener('keydown', e => log.push('key:' + e.key + ':' + e.isTrusted));",
                "let held = false;",
                "drag.addEventListener('mousedown', e => { held = true; log.push('down:' + e.isTrusted); });",
                "document.addEventListener('mouseup', e => { if (held) { held = false; log.push('up:' + e.clientX + ',' + e.clientY); } });",
                "src.addEventListener('dragstart', e => e.dataTransfer.setData('text/plain', 'moved'));",
                "zone.addEventListener('dragover', e => e.preventDefault());",
                "zone.addEventListener('drop', e => { e.preventDefault(); log.push('drop:' + e.dataTransfer.getData('text/plain')); });",
                "</script>"
            )
            .to_owned(),
            "/dialogs" => concat!(
                "<!doctype html><title>Dialogs</title><style>body{margin:0} button{display:block;height:50px;width:200px}</style>",
                "<button id=a onclick=\"alert('secret alert text')\">Alert</button>",
                "<button id=c onclick=\"window.confirmed = confirm('sure?')\">Confirm</button>",
                "<button id=p onclick=\"window.answered = prompt('name?', 'x')\">Prompt</button>",
            )
            .to_owned(),
            "/form" => concat!(
                "<!doctype html><title>Form</title><style>body{margin:0}</style>",
                "<input id=q aria-label=Search><label><input type=checkbox id=agree>Agree</label>",
                "<button id=go>Go</button><script>window.clicks = 0;",
                "go.addEventListener('click', e => { window.clicks += 1; window.trusted = e.isTrusted; });</script>"
            )
            .to_owned(),
            "/loop" => "<!doctype html><title>Loop</title><style>body{margin:0} button{height:50px;width:200px}</style>\
                <button onclick=\"for (;;) alert('again')\">Loop</button>"
                .to_owned(),
            "/drop" => concat!(
                "<!doctype html><title>Drop</title><style>body{margin:0} #zone{width:300px;height:300px}</style>",
                "<div id=zone>Drop here</div><script>window.log = [];",
                "zone.addEventListener('dragover', e => e.preventDefault());",
                "zone.addEventListener('drop', e => { e.preventDefault(); log.push(Array.from(e.dataTransfer.files, ",
                "f => f.name + ':' + f.type + ':' + f.size).join(',')); });</script>"
            )
            .to_owned(),
            "/upload" => concat!(
                "<!doctype html><title>Upload</title>",
                "<input type=file id=many multiple aria-label=Attachments>",
                "<input type=file id=one aria-label=Avatar><input type=file id=off disabled aria-label=Off>",
                "<input id=text aria-label=Text><script>window.log = []; window.seen = {};",
                "for (const type of ['input', 'change']) document.addEventListener(type, e => ",
                "log.push(type + ':' + e.target.id + ':' + e.isTrusted));",
                "document.addEventListener('change', async e => { const files = Array.from(e.target.files);",
                "const texts = await Promise.all(files.map(f => f.text()));",
                "seen[e.target.id] = files.map((f, i) => f.name + ':' + f.type + ':' + f.size + ':' + texts[i]); });",
                "</script>"
            )
            .to_owned(),
            "/framed-upload" => "<!doctype html><title>Framed upload</title><iframe src=\"/upload\"></iframe>".to_owned(),
            "/alerting" => "<!doctype html><title>Alerting</title><script>alert('loading')</script>".to_owned(),
            "/hostile-input" => concat!(
                "<!doctype html><title>Hostile input</title><style>body{margin:0}</style>",
                "<button id=go onclick=\"window.clicks = (window.clicks || 0) + 1; window.trusted = event.isTrusted\">Go</button>",
                "<input id=q aria-label=Search><input id=pw type=password aria-label=Secret><script>",
                "const realFocus = HTMLElement.prototype.focus;",
                "q.oninput = () => { if (q.value.length >= 2) realFocus.call(pw); };",
                "Document.prototype.elementFromPoint = function () { return null; };",
                "ShadowRoot.prototype.elementFromPoint = function () { return null; };",
                "Element.prototype.getClientRects = function () { return []; };",
                "Element.prototype.getBoundingClientRect = function () { return new DOMRect(); };",
                "Element.prototype.scrollIntoView = function () {};",
                "HTMLElement.prototype.focus = function () {};",
                "EventTarget.prototype.addEventListener = function () {};",
                "</script>"
            )
            .to_owned(),
            "/framed-form" => format!(
                "<!doctype html><title>Framed form</title><style>body{{margin:0}} iframe{{width:400px;height:300px}}</style>\
                 <input aria-label=\"Top field\"><br><iframe src=\"/inner-form/Same\"></iframe>\
                 <iframe src=\"http://{}:{}/inner-form/Cross\"></iframe>",
                server::HOST_B,
                ask.ports[1]
            ),
            "/covered" => format!(
                "<!doctype html><title>Covered</title><style>body{{margin:0}} iframe{{width:400px;height:300px}}\
                 #veil{{position:absolute;left:0;top:0;width:400px;height:300px;background:rgba(0,0,0,.1)}}</style>\
                 <iframe src=\"http://{}:{}/inner-form/Cross\"></iframe><div id=veil role=dialog aria-label=Veil></div>",
                server::HOST_B,
                ask.ports[1]
            ),
            inner if inner.starts_with("/inner-form/") => {
                let who = if inner.ends_with("Cross") { "Cross" } else { "Same" };
                format!(
                    "<!doctype html><title>{who}</title><style>body{{margin:0}}</style>\
                     <button id=go>{who} go</button><input id=f aria-label=\"{who} field\">\
                     <label><input type=checkbox id=agree>{who} agree</label>\
                     <p id=clicks></p><p id=typed></p><p id=agreed></p>\
                     <div style=\"height:600px\"></div><button>{who} low</button><script>\
                     let n = 0;\
                     go.addEventListener('click', e => {{ clicks.textContent = '{who} clicked ' + (++n) + ' ' + e.isTrusted; }});\
                     f.addEventListener('input', () => {{ typed.textContent = '{who} typed ' + f.value; }});\
                     agree.addEventListener('change', () => {{ agreed.textContent = '{who} agreed ' + agree.checked; }});\
                     </script>"
                )
            }
            "/leave" => "<!doctype html><title>Leave</title><style>body{margin:0} button{height:50px;width:200px}</style>\
                <button>Stay</button><script>onbeforeunload = (e) => { e.preventDefault(); e.returnValue = ''; };</script>"
                .to_owned(),
            _ => "<!doctype html><title>Elsewhere</title><p>Elsewhere</p>".to_owned(),
        };
        Reply::html(200, body)
    })
}

fn at(x: f64, y: f64) -> PointerTarget {
    PointerTarget::Point(Point { x, y })
}

fn click_at(x: f64, y: f64) -> ClickInput {
    ClickInput { at: at(x, y), button: MouseButton::Primary, count: 1, modifiers: Vec::new() }
}

fn keys(keys: Vec<Key>) -> KeyInput {
    KeyInput { keys, repeat: 1, modifiers: Vec::new(), into: None }
}

/// What the page's handlers noted.
async fn page_log(b: &ExtensionBrowser, tab: &TabRef) -> Vec<String> {
    let value =
        b.execute(&TabCall::new(tab, &Gate::open(), LOAD), "window.log").await.expect("the log").value;
    serde_json::from_value(value).expect("a list of strings")
}

/// Chromium: trusted pointer, wheel and key input at points and to the page, and every kind of
/// dialog. Firefox: the documented refusals, and the script scroll both engines do.
async fn input_and_dialogs(engine: Engine) {
    let Some((_turn, world)) = begin(engine).await else { return };
    let site = input_site();
    let b = world.browser.as_ref();
    let open = Gate::open();
    let tab = b.open_tab(&go(site.url("/input")), LOAD).await.expect("a tab opens").tab;

    // Scrolling by a fraction of the view is a page script on both engines.
    let down = ScrollInput::By { direction: ScrollDirection::Down, fraction: 0.5 };
    let scrolled = b.scroll(&TabCall::new(&tab, &open, LOAD), &down).await.expect("scrolled");
    assert!(scrolled.scrolled && scrolled.offset_y > 0.0, "{scrolled:?}");
    let up = ScrollInput::By { direction: ScrollDirection::Up, fraction: 100.0 };
    assert_eq!(b.scroll(&TabCall::new(&tab, &open, LOAD), &up).await.expect("scrolled back").offset_y, 0.0);

    // A forged element reference is refused before anything is sent, on every engine.
    let element = ElementRef::new("e1");
    let typing = TypeInput { into: element.clone(), text: "Ada".into(), clear_first: false };
    let refused =
        b.type_text(&TabCall::new(&tab, &Gate::open(), LOAD), &typing).await.expect_err("a forged reference");
    let refused_click = b
        .click(
            &TabCall::new(&tab, &open, LOAD),
            &ClickInput { at: PointerTarget::Element(element), ..click_at(0.0, 0.0) },
        )
        .await
        .expect_err("a forged reference");
    if engine == Engine::Chromium {
        for error in [&refused, &refused_click] {
            assert_eq!((error.kind(), error.effect()), (PortErrorKind::InvalidInput, PortEffect::None));
        }
    }

    // Files dropped at a point: carried into the page in parts (over one message's bound).
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/drop"))).await.expect("navigated");
    let files = vec![
        InlineFile { name: "shot.png".into(), bytes: b"png".to_vec() },
        InlineFile { name: "big.bin".into(), bytes: vec![7; 1_500_000] },
    ];
    let drop = |x: f64| UploadInput {
        to: UploadDestination::Drop(Point { x, y: 100.0 }),
        files: UploadFiles::Inline(files.clone()),
    };
    let dropped = b.upload(&TabCall::new(&tab, &open, LOAD), &drop(100.0)).await.expect("dropped");
    assert_eq!((dropped.count, dropped.bytes), (2, 1_500_003));
    assert_eq!(page_log(b, &tab).await, ["shot.png:image/png:3,big.bin::1500000"]);
    let nowhere = b
        .upload(&TabCall::new(&tab, &open, LOAD), &drop(600.0))
        .await
        .expect_err("nothing takes files there");
    assert_eq!(nowhere.kind(), PortErrorKind::InvalidInput);
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/input"))).await.expect("navigated");

    if engine == Engine::Firefox {
        let wheel = ScrollInput::Wheel { at: Point { x: 50.0, y: 50.0 }, delta_y: 300.0 };
        let refusals = [
            b.click(&TabCall::new(&tab, &open, LOAD), &click_at(50.0, 50.0))
                .await
                .expect_err("no trusted pointer input"),
            b.hover(
                &TabCall::new(&tab, &open, LOAD),
                &HoverInput { at: at(50.0, 50.0), modifiers: Vec::new() },
            )
            .await
            .expect_err("no trusted pointer input"),
            b.drag(&TabCall::new(&tab, &open, LOAD), &at(50.0, 50.0), &at(90.0, 90.0))
                .await
                .expect_err("no trusted drags"),
            b.scroll(&TabCall::new(&tab, &open, LOAD), &wheel).await.expect_err("no trusted wheel"),
            b.press_keys(&TabCall::new(&tab, &Gate::open(), LOAD), &keys(vec![Key::Char('a')]))
                .await
                .expect_err("no trusted keys"),
            refused,
            b.dialog(&tab).await.expect_err("no dialogs"),
            b.resolve_dialog(&tab, &DialogResolution::Accept).await.expect_err("no dialogs"),
        ];
        for error in refusals {
            assert_eq!((error.kind(), error.effect()), (PortErrorKind::Unsupported, PortEffect::None));
            assert!(error.message().contains("Firefox extension"), "{}", error.message());
        }
        assert!(page_log(b, &tab).await.is_empty(), "nothing reached the page");
        world.teardown().await;
        return;
    }

    // A hover, then a click at the button's point: trusted, and the receipt names the button.
    let hovered = b
        .hover(&TabCall::new(&tab, &open, LOAD), &HoverInput { at: at(120.0, 50.0), modifiers: Vec::new() })
        .await
        .expect("hovered");
    assert_eq!(hovered.element.as_ref().map(|e| e.role.as_str()), Some("button"));
    let clicked = b.click(&TabCall::new(&tab, &open, LOAD), &click_at(120.0, 50.0)).await.expect("clicked");
    let summary = clicked.element.expect("what was clicked");
    assert_eq!((summary.role.as_str(), summary.name.as_deref()), ("button", Some("Press me")));
    assert_eq!(clicked.page.url, site.url("/input"));
    let double = ClickInput { count: 2, ..click_at(120.0, 50.0) };
    b.click(&TabCall::new(&tab, &open, LOAD), &double).await.expect("double-clicked");
    assert_eq!(page_log(b, &tab).await, ["enter:true", "click:true:1", "click:true:1", "click:true:2"]);
    let outside = b
        .click(&TabCall::new(&tab, &open, LOAD), &click_at(5000.0, 50.0))
        .await
        .expect_err("outside the view");
    assert_eq!(outside.kind(), PortErrorKind::InvalidInput);

    // Keys to the page (nothing focused): trusted; a Tab moves focus to the button, so the key
    // after it is withheld, and the receipt names where focus went.
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/input")))
        .await
        .expect("a fresh page, nothing focused");
    let pressed = b
        .press_keys(
            &TabCall::new(&tab, &Gate::open(), LOAD),
            &keys(vec![Key::Named(NamedKey::Enter), Key::Char('x')]),
        )
        .await
        .expect("pressed");
    assert_eq!(pressed.keys_withheld, 0);
    let tabbed = b
        .press_keys(
            &TabCall::new(&tab, &Gate::open(), LOAD),
            &keys(vec![Key::Named(NamedKey::Tab), Key::Char('y')]),
        )
        .await
        .expect("pressed");
    assert_eq!(tabbed.keys_withheld, 1, "the key after the Tab is withheld");
    assert_eq!(tabbed.element.as_ref().and_then(|e| e.name.as_deref()), Some("Press me"));
    assert_eq!(page_log(b, &tab).await, ["key:Enter:true", "key:x:true", "key:Tab:true"]);
    let refused = b
        .press_keys(&TabCall::new(&tab, &Gate::open(), LOAD), &keys(vec![Key::Char('z')]))
        .await
        .expect_err("an element has focus");
    assert_eq!(refused.kind(), PortErrorKind::TargetStale);

    // Drags: mouse events between two points, and an HTML5 drag onto a drop zone.
    b.execute(&TabCall::new(&tab, &Gate::open(), LOAD), "window.log = []").await.expect("reset");
    let dragged =
        b.drag(&TabCall::new(&tab, &open, LOAD), &at(60.0, 240.0), &at(300.0, 400.0)).await.expect("dragged");
    assert_eq!(dragged.element.as_ref().and_then(|e| e.name.as_deref()), Some("Box"));
    b.drag(&TabCall::new(&tab, &open, LOAD), &at(340.0, 240.0), &at(575.0, 275.0)).await.expect("dragged");
    assert_eq!(page_log(b, &tab).await, ["down:true", "up:300,400", "drop:moved"]);

    // The wheel at a point.
    let wheel = ScrollInput::Wheel { at: Point { x: 600.0, y: 600.0 }, delta_y: 300.0 };
    let wheeled = b.scroll(&TabCall::new(&tab, &open, LOAD), &wheel).await.expect("wheeled");
    assert!(wheeled.scrolled && wheeled.offset_y > 0.0, "{wheeled:?}");

    // Dialogs: each kind seen, resolved, and its answer reaching the page.
    let dialogs = b
        .navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/dialogs")))
        .await
        .expect("navigated");
    assert_eq!(b.dialog(&tab).await.expect("no dialog"), None);
    let opened = b.click(&TabCall::new(&tab, &open, LOAD), &click_at(100.0, 25.0)).await.expect("clicked");
    assert_eq!(opened.page.document, dialogs.document, "the page before, as a dialog blocks reading it");
    assert_eq!(b.dialog(&tab).await.expect("a dialog"), Some(DialogKind::Alert));
    let blocked =
        b.click(&TabCall::new(&tab, &open, LOAD), &click_at(100.0, 75.0)).await.expect_err("blocked");
    assert_eq!((blocked.kind(), blocked.effect()), (PortErrorKind::BlockedByDialog, PortEffect::None));
    assert_eq!(blocked.blocking_dialog(), Some(DialogKind::Alert));
    let no_answer =
        b.resolve_dialog(&tab, &DialogResolution::Respond("x".into())).await.expect_err("an alert");
    assert_eq!(no_answer.kind(), PortErrorKind::InvalidInput);
    assert_eq!(b.resolve_dialog(&tab, &DialogResolution::Accept).await.expect("accepted"), DialogKind::Alert);
    assert_eq!(b.dialog(&tab).await.expect("no dialog"), None);
    let none = b.resolve_dialog(&tab, &DialogResolution::Accept).await.expect_err("nothing to resolve");
    assert_eq!(none.kind(), PortErrorKind::InvalidInput);

    b.click(&TabCall::new(&tab, &open, LOAD), &click_at(100.0, 75.0)).await.expect("clicked");
    assert_eq!(b.dialog(&tab).await.expect("a dialog"), Some(DialogKind::Confirm));
    assert_eq!(
        b.resolve_dialog(&tab, &DialogResolution::Dismiss).await.expect("dismissed"),
        DialogKind::Confirm
    );
    assert_eq!(
        b.execute(&TabCall::new(&tab, &Gate::open(), LOAD), "window.confirmed").await.expect("read").value,
        json!(false)
    );

    b.click(&TabCall::new(&tab, &open, LOAD), &click_at(100.0, 125.0)).await.expect("clicked");
    assert_eq!(b.dialog(&tab).await.expect("a dialog"), Some(DialogKind::Prompt));
    let responded = b.resolve_dialog(&tab, &DialogResolution::Respond("Ada".into())).await.expect("answered");
    assert_eq!(responded, DialogKind::Prompt);
    assert_eq!(
        b.execute(&TabCall::new(&tab, &Gate::open(), LOAD), "window.answered").await.expect("read").value,
        json!("Ada")
    );

    // A page that asks before it is left: the navigation stops at the prompt, and accepting it
    // lets the navigation go on.
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/leave"))).await.expect("navigated");
    b.click(&TabCall::new(&tab, &open, LOAD), &click_at(100.0, 25.0))
        .await
        .expect("a gesture, so the page may ask");
    let held = b
        .navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/elsewhere")))
        .await
        .expect_err("held by the prompt");
    assert_eq!(
        (held.kind(), held.blocking_dialog()),
        (PortErrorKind::BlockedByDialog, Some(DialogKind::BeforeUnload))
    );
    assert_eq!(b.dialog(&tab).await.expect("a dialog"), Some(DialogKind::BeforeUnload));
    let left = b.resolve_dialog(&tab, &DialogResolution::Accept).await.expect("accepted");
    assert_eq!(left, DialogKind::BeforeUnload);
    assert_eq!(b.page(&tab).await.expect("the page").url, site.url("/elsewhere"));
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/leave"))).await.expect("navigated");
    b.click(&TabCall::new(&tab, &open, LOAD), &click_at(100.0, 25.0))
        .await
        .expect("a gesture, so the page may ask");
    let discard = NavigateInput { url: site.url("/elsewhere"), discard_beforeunload: true };
    let gone =
        b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &discard).await.expect("left without asking");
    assert_eq!(gone.url, site.url("/elsewhere"));

    world.teardown().await;
}

// ---- uploads ------------------------------------------------------------------------------

engine_tests!(uploads: chromium_upload => Chromium, firefox_upload => Firefox);

/// The files the page read from input `id` after its last `change`, polled with a bound
/// (the page reads their text asynchronously).
async fn seen_files(b: &ExtensionBrowser, tab: &TabRef, id: &str) -> Vec<String> {
    let deadline = Instant::now() + LOAD;
    loop {
        let value = b
            .execute(&TabCall::new(tab, &Gate::open(), LOAD), &format!("window.seen[{id:?}] || null"))
            .await
            .expect("read")
            .value;
        if !value.is_null() || Instant::now() >= deadline {
            return serde_json::from_value(value).unwrap_or_default();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The element `selector` selects in `tab` (which must exist).
async fn element_of(b: &ExtensionBrowser, tab: &TabRef, selector: &str) -> ElementRef {
    b.testing_element(tab, selector).await.expect("select").expect("the element")
}

/// Uploads on both engines: inline files and local paths attached to file inputs (built in
/// the page: the page sees the names, types, sizes and bytes, and bubbling `input` and
/// `change`), the WebDriver adapter's refusals (not a file input, disabled, two files for a
/// single input, a missing path: nothing reaches the page), a file input inside a frame,
/// local files dropped at a point,
/// and `browser_upload` with paths under an uploads folder through the whole pipeline.
async fn uploads(engine: Engine) {
    let Some((_turn, world)) = begin(engine).await else { return };
    let site = input_site();
    let b = world.browser.as_ref();
    let open = Gate::open();
    let tab = b.open_tab(&go(site.url("/upload")), LOAD).await.expect("a tab opens").tab;
    let element = |selector| element_of(b, &tab, selector);
    let to = |element: ElementRef, files: UploadFiles| UploadInput {
        to: UploadDestination::Input(element),
        files,
    };
    let inline = |name: &str, bytes: &[u8]| InlineFile { name: name.into(), bytes: bytes.to_vec() };

    // Inline files to an input taking several (over one message's bound together).
    let big = vec![b'x'; 1_200_000];
    let files = UploadFiles::Inline(vec![inline("notes.txt", b"hello tides"), inline("big.bin", &big)]);
    let uploaded = b
        .upload(&TabCall::new(&tab, &open, LOAD), &to(element("#many").await, files))
        .await
        .expect("attached");
    assert_eq!((uploaded.count, uploaded.bytes), (2, 1_200_011));
    assert_eq!(uploaded.page.url, site.url("/upload"));
    let seen = seen_files(b, &tab, "many").await;
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0], "notes.txt:text/plain:11:hello tides");
    assert!(seen[1].starts_with("big.bin::1200000:xxx"), "{}", &seen[1][..40.min(seen[1].len())]);
    assert_eq!(page_log(b, &tab).await, ["input:many:false", "change:many:false"]);

    // Local paths: read by the server, the selection replaced.
    let dir = tempfile::tempdir().expect("a folder");
    let real = dir.path().canonicalize().expect("its real path");
    let photo = real.join("photo.png");
    std::fs::write(&photo, b"\x89PNG local").expect("a file");
    let one = to(element("#one").await, UploadFiles::Paths(vec![photo.clone()]));
    let attached = b.upload(&TabCall::new(&tab, &open, LOAD), &one).await.expect("attached");
    assert_eq!((attached.count, attached.bytes), (1, 10));
    assert_eq!(seen_files(b, &tab, "one").await, ["photo.png:image/png:10:\u{fffd}PNG local"]);
    let again = to(element("#many").await, UploadFiles::Paths(vec![photo.clone()]));
    b.upload(&TabCall::new(&tab, &open, LOAD), &again).await.expect("attached again");
    let count =
        b.execute(&TabCall::new(&tab, &Gate::open(), LOAD), "many.files.length").await.expect("read").value;
    assert_eq!(count, json!(1), "the selection is replaced, as a user's choice replaces it");

    // Refusals, as the WebDriver adapter's: nothing reaches the page.
    b.execute(&TabCall::new(&tab, &Gate::open(), LOAD), "window.log = []").await.expect("reset");
    let two = || UploadFiles::Inline(vec![inline("a.txt", b"a"), inline("b.txt", b"b")]);
    let refusals = [
        (to(element("#text").await, two()), "the element is not a file input"),
        (to(element("#off").await, two()), "the file input is disabled"),
        (to(element("#one").await, two()), "the file input takes one file only"),
        (
            to(element("#many").await, UploadFiles::Paths(vec![real.join("gone.txt")])),
            "a file changed (or became a link) between its check and the upload",
        ),
    ];
    for (refused, message) in refusals {
        let error = b.upload(&TabCall::new(&tab, &open, LOAD), &refused).await.expect_err(message);
        assert_eq!(
            (error.kind(), error.effect(), error.message()),
            (PortErrorKind::InvalidInput, PortEffect::None, message)
        );
        assert!(!error.message().contains("gone"), "no path in errors");
    }
    assert!(page_log(b, &tab).await.is_empty(), "nothing reached the page");
    assert_eq!(
        b.execute(&TabCall::new(&tab, &Gate::open(), LOAD), "one.files.length").await.expect("read").value,
        json!(1)
    );

    // A file input inside a frame: attached in the frame's document.
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/framed-upload")))
        .await
        .expect("navigated");
    let all = PerceiveInput { scope: PerceiveScope::All, max_items: dom_table::MAX_ITEMS };
    let seen = b.perceive(&TabCall::reading(&tab, &open), &all).await.expect("perceived");
    let framed = named(&seen.elements, "Avatar").expect("the frame's file input").element.clone();
    let files = UploadFiles::Inline(vec![inline("framed.txt", b"in a frame")]);
    b.upload(&TabCall::new(&tab, &open, LOAD), &to(framed, files)).await.expect("attached inside a frame");
    let inner = "document.querySelector('iframe').contentWindow.one.files[0]";
    let read = format!("{inner}.text().then(t => {inner}.name + ':' + t)");
    let framed = b.execute(&TabCall::new(&tab, &Gate::open(), LOAD), &read).await.expect("read").value;
    assert_eq!(framed, json!("framed.txt:in a frame"));

    // Local files dropped at a point.
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/drop"))).await.expect("navigated");
    let dropped = UploadInput {
        to: UploadDestination::Drop(Point { x: 100.0, y: 100.0 }),
        files: UploadFiles::Paths(vec![photo.clone()]),
    };
    let outcome = b.upload(&TabCall::new(&tab, &open, LOAD), &dropped).await.expect("dropped");
    assert_eq!((outcome.count, outcome.bytes), (1, 10));
    assert_eq!(page_log(b, &tab).await, ["photo.png:image/png:10"]);

    // `browser_upload` with paths under the uploads folder, through the whole pipeline.
    let tools = Tools::with(
        &world,
        json!({"capabilities": {"allow": ["execute"]}, "uploads": {"roots": [real.to_string_lossy()]}}),
    );
    let page = tools.open(&site.url("/upload")).await;
    let notes = real.join("notes.txt");
    std::fs::write(&notes, b"hello tides").expect("a file");
    let paths = json!([notes.to_string_lossy(), photo.to_string_lossy()]);
    let called = tools
        .call("browser_upload", json!({"tab": page, "selector": {"name": "Attachments"}, "paths": paths}))
        .await;
    ok(&called);
    assert!(!called.summary.contains("notes.txt") && !called.summary.contains(&*real.to_string_lossy()));
    let names = tools
        .call(
            "browser_execute",
            json!({"tab": page, "script": "Array.from(many.files, f => f.name + ':' + f.size)"}),
        )
        .await;
    assert_eq!(names.facts["value"], json!(["notes.txt:11", "photo.png:10"]), "{:?}", names.facts);
    drop(tools);
    world.teardown().await;
}

/// The dialog of `tab` once one shows (the page opens the next one a moment after the last
/// was resolved), polled with a bound.
async fn next_dialog(b: &ExtensionBrowser, tab: &TabRef) -> Option<DialogKind> {
    for _ in 0..100 {
        if let Some(kind) = b.dialog(tab).await.expect("the dialog state") {
            return Some(kind);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    None
}

/// A page that opens alerts without end never holds the port past its bounds: each dialog is
/// seen and resolved, input is refused while one is open, and the tab still closes.
async fn hostile_dialogs(engine: Engine) {
    let Some((_turn, world)) = begin(engine).await else { return };
    let site = input_site();
    let b = world.browser.as_ref();
    let open = Gate::open();
    let tab = b.open_tab(&go(site.url("/loop")), LOAD).await.expect("a tab opens").tab;
    b.click(&TabCall::new(&tab, &open, LOAD), &click_at(100.0, 25.0)).await.expect("clicked");
    for _ in 0..3 {
        assert_eq!(next_dialog(b, &tab).await, Some(DialogKind::Alert));
        assert_eq!(
            b.resolve_dialog(&tab, &DialogResolution::Accept).await.expect("accepted"),
            DialogKind::Alert
        );
    }
    assert_eq!(next_dialog(b, &tab).await, Some(DialogKind::Alert));
    let blocked =
        b.click(&TabCall::new(&tab, &open, LOAD), &click_at(100.0, 25.0)).await.expect_err("blocked");
    assert_eq!((blocked.kind(), blocked.effect()), (PortErrorKind::BlockedByDialog, PortEffect::None));
    let read = b.page(&tab).await.expect_err("blocked");
    assert_eq!(read.kind(), PortErrorKind::BlockedByDialog);
    let script = b.execute(&TabCall::new(&tab, &Gate::open(), LOAD), "1").await.expect_err("blocked");
    assert_eq!(script.kind(), PortErrorKind::BlockedByDialog);
    let listed = b.tabs().await.expect("tabs are listed while a dialog is open");
    let shown = listed.iter().find(|t| t.tab == tab).expect("the blocked tab is listed");
    assert_eq!(shown.page.url, site.url("/loop"));
    b.close_tab(&tab).await.expect("closed despite the dialogs");
    assert_eq!(b.page(&tab).await.expect_err("gone").kind(), PortErrorKind::TabGone);

    // A page that opens an alert while it loads stops the navigation at the alert, which
    // resolved lets the load finish.
    let tab = b.open_tab(&go(site.url("/elsewhere")), LOAD).await.expect("a tab opens").tab;
    let held = b
        .navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/alerting")))
        .await
        .expect_err("held by the alert");
    assert_eq!(
        (held.kind(), held.blocking_dialog()),
        (PortErrorKind::BlockedByDialog, Some(DialogKind::Alert))
    );
    assert_eq!(
        b.resolve_dialog(&tab, &DialogResolution::Dismiss).await.expect("dismissed"),
        DialogKind::Alert
    );
    let landed = b
        .navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/elsewhere")))
        .await
        .expect("navigated");
    assert_eq!(landed.title, "Elsewhere");
    b.close_tab(&tab).await.expect("closed");
    assert_eq!(b.page(&tab).await.expect_err("gone").kind(), PortErrorKind::TabGone);
    world.teardown().await;
}

// ---- diagnostics and failed loads -------------------------------------------------------

engine_tests!(diagnostics_and_failed_loads: chromium_diagnostics_and_failed_loads => Chromium, firefox_diagnostics_and_failed_loads => Firefox);

/// The pages of the diagnostics test. `/noisy`: logs an error, a warning and an info line and
/// shows an image that answers 404 (`/missing.png`); `/quiet` (any other path): a plain page.
fn diagnostics_site() -> Site {
    Site::serve(|ask| match ask.path {
        "/noisy" => Reply::html(
            200,
            "<!doctype html><title>Noisy</title><h1 id=\"part\">Noisy</h1><img src=\"/missing.png\">\
             <script>console.error('boom from the page'); console.warn('careful'); console.info('hello');\
             console.error('failed at ' + location.origin + '/api?token=secret');</script>",
        ),
        "/missing.png" => Reply::html(404, "no such image"),
        _ => Reply::html(200, "<!doctype html><title>Quiet</title><h1 id=\"part\">Quiet</h1><p>quiet</p>"),
    })
}

fn evidence_query(
    detail: DiagnoseDetail,
    source: DiagnoseSource,
    after: Option<String>,
    limit: usize,
) -> DiagnosticsQuery {
    DiagnosticsQuery { source, detail, pattern: None, after, limit }
}

/// Read `tab`'s problems until `found` holds for them (bounded: evidence arrives with events).
async fn problems_until(
    b: &ExtensionBrowser,
    tab: &TabRef,
    found: impl Fn(&[DiagnosticEntry]) -> bool,
) -> Vec<DiagnosticEntry> {
    let deadline = Instant::now() + LOAD;
    loop {
        let query = evidence_query(DiagnoseDetail::Problems, DiagnoseSource::Both, None, 200);
        let page = b.diagnostics(tab, &query).await.expect("diagnostics");
        if found(&page.entries) || Instant::now() >= deadline {
            return page.entries;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

// ---- recordings ---------------------------------------------------------------------------

engine_tests!(recording: chromium_recording => Chromium, firefox_recording => Firefox);

/// The longest wait for a recording to reach a count.
const RECORD_BOUND: Duration = Duration::from_secs(20);

async fn record(b: &ExtensionBrowser, command: RecordCommand) -> RecordReport {
    b.record(&command).await.unwrap_or_else(|e| panic!("{command:?}: {e:?}"))
}

/// Poll `Status` until `reached` holds for recording `id` (bounded); the last report.
async fn status_until(
    b: &ExtensionBrowser,
    id: &RecordingRef,
    reached: impl Fn(&RecordReport) -> bool,
) -> RecordReport {
    let deadline = Instant::now() + RECORD_BOUND;
    loop {
        let report = record(b, RecordCommand::Status(id.clone())).await;
        if reached(&report) || Instant::now() >= deadline {
            return report;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Console and network evidence (tracking starts on the first call; problems; cursor paging),
/// a refused connection's error code, and a fragment-only navigation.
async fn diagnostics_and_failed_loads(engine: Engine) {
    let Some((_turn, world)) = begin(engine).await else { return };
    let site = diagnostics_site();
    let b = world.browser.as_ref();
    let chromium = engine == Engine::Chromium;

    let opened = b.open_tab(&go(site.url("/quiet")), LOAD).await.expect("a tab opens");
    let tab = opened.tab.clone();
    let both = evidence_query(DiagnoseDetail::Problems, DiagnoseSource::Both, None, 50);
    let first = b.diagnostics(&tab, &both).await.expect("diagnostics");
    assert!(first.tracking_started, "the first call starts tracking");
    assert!(!b.diagnostics(&tab, &both).await.expect("diagnostics").tracking_started);

    // A console error and a 404 image: both problems (the console on Chromium only).
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/noisy"))).await.expect("navigated");
    let is_404 = |e: &DiagnosticEntry| {
        e.source == DiagnosticSource::Network
            && e.status == Some(404)
            && e.url.as_ref().is_some_and(|u| u.path() == "/missing.png")
    };
    let is_error = |e: &DiagnosticEntry| {
        e.source == DiagnosticSource::Console
            && e.level == "error"
            && e.text.as_deref() == Some("boom from the page")
    };
    let problems = problems_until(b, &tab, |entries| {
        entries.iter().any(is_404) && (!chromium || entries.iter().any(is_error))
    })
    .await;
    assert!(problems.iter().any(is_404), "[{}] the 404 image: {problems:?}", engine.as_str());
    assert!(problems.iter().all(|e| e.problem), "problems only: {problems:?}");
    assert!(!problems.iter().any(|e| e.level == "info"), "no ordinary entries: {problems:?}");
    let console = evidence_query(DiagnoseDetail::All, DiagnoseSource::Console, None, 50);
    if chromium {
        assert!(problems.iter().any(is_error), "the console error: {problems:?}");
        assert!(problems.iter().any(|e| e.level == "warning"), "the warning: {problems:?}");
        let all = b.diagnostics(&tab, &console).await.expect("the console");
        assert!(all.entries.iter().any(|e| e.text.as_deref() == Some("hello")), "{:?}", all.entries);
    } else {
        let refused = b.diagnostics(&tab, &console).await.expect_err("no console on Firefox");
        assert_eq!(refused.kind(), PortErrorKind::Unsupported);
        assert!(refused.message().contains("Firefox"), "{}", refused.message());
    }

    // Paging with the cursor: one entry at a time, each after the last, to the end.
    let everything = evidence_query(DiagnoseDetail::All, DiagnoseSource::Both, None, 200);
    let total = b.diagnostics(&tab, &everything).await.expect("diagnostics").entries;
    assert!(total.len() >= 2, "{total:?}");
    let mut paged = Vec::new();
    let mut after = None;
    for _ in 0..=total.len() {
        let page = b
            .diagnostics(&tab, &evidence_query(DiagnoseDetail::All, DiagnoseSource::Both, after.clone(), 1))
            .await
            .expect("a page");
        paged.extend(page.entries);
        after = page.next_cursor;
        if !page.truncated {
            break;
        }
    }
    assert_eq!(paged[..total.len()], total[..], "pages in order, none twice");
    let later = b
        .diagnostics(&tab, &evidence_query(DiagnoseDetail::All, DiagnoseSource::Both, after, 200))
        .await
        .expect("after the newest");
    assert!(later.entries.len() < total.len(), "nothing already read comes again: {:?}", later.entries);
    let foreign = evidence_query(DiagnoseDetail::All, DiagnoseSource::Both, Some("999999".into()), 5);
    assert_eq!(
        b.diagnostics(&tab, &foreign).await.expect_err("not a cursor of ours").kind(),
        PortErrorKind::InvalidInput
    );

    // A fragment of the same document: answered with that document, without a load.
    let noisy = b.page(&tab).await.expect("the page");
    let mut fragment = site.url("/noisy");
    fragment.set_fragment(Some("part"));
    let moved = b
        .navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(fragment.clone()))
        .await
        .expect("moved to the fragment");
    assert_eq!(moved.document, noisy.document, "the same document");
    assert_eq!(moved.url, fragment);

    // A refused connection (a closed port on 127.0.0.1) answers the browser's code.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = closed.local_addr().expect("its address").port();
    drop(closed);
    let nowhere = Url::parse(&format!("http://127.0.0.1:{port}/")).expect("a URL");
    let failed = b
        .navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(nowhere.clone()))
        .await
        .expect_err("refused");
    assert_eq!(
        (failed.kind(), failed.effect()),
        (PortErrorKind::Network, PortEffect::None),
        "{}",
        failed.message()
    );
    let failure = failed.network_failure().expect("a failure");
    assert_eq!(
        failure.error,
        NetworkError::ConnectionRefused,
        "[{}] {}",
        engine.as_str(),
        failure.browser_code
    );
    let expected = if chromium { "ERR_CONNECTION_REFUSED" } else { "NS_ERROR_CONNECTION_REFUSED" };
    assert_eq!(failure.browser_code, expected);
    // The same from a new tab, which is closed.
    let tabs_before = b.tabs().await.expect("tabs").len();
    let opened = b.open_tab(&go(nowhere), LOAD).await.expect_err("refused");
    assert_eq!(opened.network_failure().map(|f| f.error), Some(NetworkError::ConnectionRefused));
    assert_eq!(b.tabs().await.expect("tabs").len(), tabs_before, "the failed new tab is closed");
    // A port the browser refuses to use (Chromium: Firefox reports no event an extension sees).
    if chromium {
        let blocked = Url::parse("http://127.0.0.1:1/").expect("a URL");
        let refused = b
            .navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(blocked))
            .await
            .expect_err("a blocked port");
        let failure = refused.network_failure().expect("a failure");
        assert_eq!(
            (failure.error, failure.browser_code.as_str()),
            (NetworkError::PortBlocked, "ERR_UNSAFE_PORT")
        );
    }
    let back = b
        .navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/quiet")))
        .await
        .expect("the tab still navigates");
    assert_eq!(back.title, "Quiet");

    // Through the whole pipeline: the first call starts tracking, a reload shows the problems.
    let tools = Tools::over(&world);
    let call = |tool, arguments| tools.call(tool, arguments);
    let tab = tools.open(&site.url("/noisy")).await;
    let started = call("browser_diagnose", json!({"tab": tab})).await;
    ok(&started);
    assert_eq!(started.facts["tracking_started"], json!(true));
    ok(&call("browser_history", json!({"tab": tab, "action": "reload"})).await);
    let deadline = Instant::now() + LOAD;
    let diagnosed = loop {
        let diagnosed = call("browser_diagnose", json!({"tab": tab})).await;
        ok(&diagnosed);
        let wanted = if chromium { 4 } else { 1 };
        if diagnosed.facts["problem_count"].as_u64() >= Some(wanted) || Instant::now() >= deadline {
            break diagnosed;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(diagnosed.facts["problem_counts"]["http_error"].as_u64() >= Some(1), "{:?}", diagnosed.facts);
    if chromium {
        let errors = diagnosed.facts["problem_counts"]["console_error"].as_u64();
        assert!(errors >= Some(2), "{:?}", diagnosed.facts);
    }
    let shown = diagnosed.facts["entries"].to_string();
    assert!(!shown.contains("token=secret"), "quoted URLs lose their query: {shown}");
    drop(tools);
    world.teardown().await;
}

/// The inner document of the frame pages.
const INNER: &str = "<!doctype html><title>Inner</title><h1>Inner heading</h1><p>Hello from inner</p>\
    <button id=ib>Inner button</button><input id=ifield aria-label=\"Inner field\">";

/// Markup perception must report the same whether or not the page tampers with the DOM's
/// prototypes.
const HOSTILE_BODY: &str = "<nav aria-label=\"Main\"><a href=\"/a\">Home link</a></nav><h1>Title here</h1>\
    <button id=go>Go now</button><input id=pw type=password aria-label=\"Secret\">\
    <div style=\"display:none\"><button>Hidden button</button></div>\
    <p aria-hidden=\"true\"><button>Unread button</button></p><label>Mail <input id=mail></label>";

/// What a hostile page does to the main world's DOM before perception runs.
const TAMPERING: &str = "<script>\
    Element.prototype.getAttribute = function () { return 'button'; };\
    Element.prototype.hasAttribute = function () { return true; };\
    Element.prototype.matches = function () { return true; };\
    Element.prototype.querySelector = function () { return null; };\
    Element.prototype.checkVisibility = function () { return true; };\
    Element.prototype.getClientRects = function () { return [{width: 5, height: 5}]; };\
    Object.defineProperty(Node.prototype, 'textContent', { get() { return 'forged'; } });\
    Object.defineProperty(HTMLElement.prototype, 'innerText', { get() { return 'forged'; } });\
    document.querySelectorAll = function () { return []; };\
    Map.prototype.get = function () { return undefined; };\
    WeakMap.prototype.get = function () { return 1; };\
    </script>";

/// The perception site: the DOM semantics table, same-origin and cross-origin frames, an
/// article, and a clean and a hostile copy of one page.
fn perception_site() -> Site {
    Site::serve(|ask| {
        let body = match ask.path {
            "/table" => dom_table::page(),
            "/inner" => INNER.to_owned(),
            "/framed" => "<!doctype html><title>Framed</title><p>Outer text</p><button>Before</button>\
                <iframe src=\"/inner\"></iframe><button>After</button>"
                .to_owned(),
            "/cross" => format!(
                "<!doctype html><title>Cross</title><p>Outer text</p>\
                 <iframe src=\"http://{}:{}/inner\"></iframe>",
                server::HOST_B,
                ask.ports[1]
            ),
            "/article" => {
                let para = "This paragraph is long enough to count as a paragraph of the story. ".repeat(3);
                format!(
                    "<!doctype html><title>Story</title><nav><a href=\"/a\">Menu entry</a></nav>\
                     <article><h1>The headline</h1><p>{para}</p><p>{para}</p><p>{para}</p></article>\
                     <footer>Footer words</footer>"
                )
            }
            "/tall" => "<!doctype html><title>Tall</title><body style=\"margin:0\">\
                <div id=red style=\"position:absolute;left:0;top:0;width:100px;height:50px;background:#f00\"></div>\
                <div id=blue style=\"position:absolute;left:10px;top:1500px;width:200px;height:100px;background:#00f\"></div>\
                <div style=\"width:10px;height:3000px\"></div></body>"
                .to_owned(),
            "/odd" => "<!doctype html><title>Odd frames</title><button>Outer</button>\
                <iframe src=\"data:text/html,<button>In data</button>\"></iframe>\
                <iframe sandbox srcdoc=\"<button>In sandbox</button>\"></iframe>\
                <iframe src=\"about:blank\"></iframe>"
                .to_owned(),
            "/shadow-frame" => "<!doctype html><title>Shadow frame</title><div id=host></div><script>\
                document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = \
                '<iframe src=\"/inner\"></iframe>';</script>"
                .to_owned(),
            "/clean" => format!("<!doctype html><title>Clean</title>{HOSTILE_BODY}"),
            "/hostile" => format!("<!doctype html><title>Hostile</title>{HOSTILE_BODY}{TAMPERING}"),
            _ => "<!doctype html><title>Other</title><p>Other page</p>".to_owned(),
        };
        Reply::html(200, body)
    })
}

fn summaries(elements: &[PerceivedElement]) -> Vec<(String, Option<String>, bool, Option<String>)> {
    elements.iter().map(|e| (e.role.clone(), e.name.clone(), e.control, e.text.clone())).collect()
}

fn named<'a>(elements: &'a [PerceivedElement], name: &str) -> Option<&'a PerceivedElement> {
    elements.iter().find(|e| e.name.as_deref() == Some(name))
}

/// Perception, text, focus and presence through the extension, with the WebDriver suite's
/// DOM semantics table.
async fn perception(engine: Engine) {
    if !engines::wanted(engine) {
        eprintln!("[{}] skipped: not in GHOSTLIGHT_TEST_ENGINES", engine.as_str());
        return;
    }
    let _turn = BROWSERS.acquire().await.expect("the semaphore stays open");
    let site = perception_site();
    let world = World::start(engine).await;
    let b = world.browser.as_ref();
    let open = Gate::open();
    let all = PerceiveInput { scope: PerceiveScope::All, max_items: dom_table::MAX_ITEMS };

    // The DOM semantics table: the same rows, the same checks as the WebDriver suite.
    let tab = b.open_tab(&go(site.url("/table")), LOAD).await.expect("a tab opens").tab;
    let perceived = b.perceive(&TabCall::reading(&tab, &open), &all).await.expect("perceive");
    assert!(!perceived.truncated, "the whole table is perceived");
    let mut failures = Vec::new();
    for row in dom_table::ROWS {
        let element = if row.shadow {
            dom_table::shadow_element(row, &perceived.elements)
        } else {
            b.testing_element(&tab, &format!("#{}", row.id))
                .await
                .map_err(|e| e.to_string())
                .and_then(|found| found.ok_or_else(|| "no element".to_owned()))
        };
        let checked = match element {
            Ok(element) => dom_table::check_perception(b, &tab, row, &element, &perceived.elements).await,
            Err(why) => Err(why),
        };
        if let Err(why) = checked {
            failures.push(format!("{}: {why}", row.id));
        }
    }
    assert!(failures.is_empty(), "[{}] rows that disagree:\n{}", engine.as_str(), failures.join("\n"));

    // Same-origin frames: items spliced at the iframe's place, text joined, focus followed.
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/framed"))).await.expect("navigated");
    let framed = b.perceive(&TabCall::reading(&tab, &open), &all).await.expect("perceive");
    let names: Vec<Option<&str>> =
        framed.elements.iter().filter(|e| e.control).map(|e| e.name.as_deref()).collect();
    assert_eq!(names, [Some("Before"), Some("Inner button"), Some("Inner field"), Some("After")]);
    let no_inner = Gate::new(|url: &Url| url.path() != "/inner");
    let gated = b.perceive(&TabCall::reading(&tab, &no_inner), &all).await.expect("perceive");
    assert!(named(&gated.elements, "Inner button").is_none(), "a refused frame is not perceived");
    let visible = ReadInput { target: None, mode: TextMode::Visible, max_chars: 1000 };
    let text = b.read_text(&TabCall::reading(&tab, &open), &visible).await.expect("text");
    assert_eq!(
        (text.text.as_str(), text.frames),
        ("Outer text\nBeforeAfter\nInner heading\nHello from inner\nInner button", 1)
    );
    let refused = b.read_text(&TabCall::reading(&tab, &no_inner), &visible).await.expect("text");
    assert_eq!((refused.text.as_str(), refused.frames), ("Outer text\nBeforeAfter", 0));
    assert!(
        b.text_present(&TabCall::reading(&tab, &open), "hello FROM inner").await.expect("searched"),
        "frames are searched"
    );
    assert!(
        !b.text_present(&TabCall::reading(&tab, &no_inner), "hello from inner").await.expect("searched"),
        "unless refused"
    );
    let found = b
        .perceive(&TabCall::reading(&tab, &open), &PerceiveInput::matching("inner button", false, 10))
        .await
        .map(|found| found.elements)
        .expect("found");
    let inner_button = named(&found, "Inner button").expect("found in the frame").element.clone();
    assert!(b.element_present(&tab, &inner_button).await.expect("present"));
    // The centre of an element in a same-origin frame, in the top viewport (for pointer input).
    let at = b.element_centre(&tab, &inner_button, true).await.expect("a point");
    let inside: (f64, f64) = serde_json::from_value(
        eval(
            b,
            &tab,
            "const r = document.querySelector('iframe').contentDocument.getElementById('ib')\
            .getBoundingClientRect(); [r.left + r.width / 2, r.top + r.height / 2]",
        )
        .await,
    )
    .expect("a point");
    let corner = frame_corner(b, &tab).await;
    let near = |a: f64, b: f64| (a - b).abs() < 0.01;
    assert!(
        near(at.x, corner.0 + inside.0) && near(at.y, corner.1 + inside.1),
        "{at:?} {corner:?} {inside:?}"
    );
    let one = ReadInput { target: Some(inner_button.clone()), ..visible.clone() };
    assert_eq!(
        b.read_text(&TabCall::reading(&tab, &open), &one).await.expect("its text").text,
        "Inner button"
    );
    assert_eq!(b.focused_element(&tab).await.expect("focus"), None);
    b.execute(
        &TabCall::new(&tab, &Gate::open(), LOAD),
        "document.querySelector('iframe').contentDocument.getElementById('ifield').focus()",
    )
    .await
    .expect("focused");
    let focused = b.focused_element(&tab).await.expect("focus").expect("a focused element");
    assert_eq!(focused.element.name.as_deref(), Some("Inner field"));
    assert_eq!(focused.frames, vec![site.url("/inner")]);

    // A frame of another origin: perceived and read through its own frame id, gated by origin.
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/cross"))).await.expect("navigated");
    let cross = b.perceive(&TabCall::reading(&tab, &open), &all).await.expect("perceive");
    assert!(named(&cross.elements, "Inner button").is_some(), "{:?}", summaries(&cross.elements));
    // The centre of an element inside the frame of another origin: the frame's offset (read in
    // the page) plus the element's place in the frame (read in the frame).
    assert_eq!(frame_pixel(b, &tab, &only_a_gate()).await, BLANK, "a refused origin is painted over");
    assert_ne!(frame_pixel(b, &tab, &open).await, BLANK);
    let cross_button = named(&cross.elements, "Inner button").expect("perceived").element.clone();
    let at = b.element_centre(&tab, &cross_button, false).await.expect("a point");
    let corner = frame_corner(b, &tab).await;
    assert!(
        near(at.x, corner.0 + inside.0) && near(at.y, corner.1 + inside.1),
        "{at:?} {corner:?} {inside:?}"
    );
    let in_frame =
        b.capture(&TabCall::new(&tab, &open, LOAD), &CaptureKind::Element(cross_button.clone())).await;
    assert!(in_frame.is_ok(), "an element of a cross-origin frame is captured: {in_frame:?}");
    let only_a = only_a_gate();
    assert!(
        named(
            &b.perceive(&TabCall::reading(&tab, &only_a), &all).await.expect("perceive").elements,
            "Inner button"
        )
        .is_none()
    );
    let text = b.read_text(&TabCall::reading(&tab, &open), &visible).await.expect("text");
    assert_eq!(
        (text.text.as_str(), text.frames),
        ("Outer text\nInner heading\nHello from inner\nInner button", 1)
    );

    // Frames of opaque origins (a data: URL, a sandboxed srcdoc) and an empty about:blank frame
    // are perceived and read like any other.
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/odd"))).await.expect("navigated");
    let odd = b.perceive(&TabCall::reading(&tab, &open), &all).await.expect("perceive");
    let names: Vec<Option<&str>> = odd.elements.iter().map(|e| e.name.as_deref()).collect();
    assert_eq!(names, [Some("Outer"), Some("In data"), Some("In sandbox")]);
    let text = b.read_text(&TabCall::reading(&tab, &open), &visible).await.expect("text");
    assert_eq!((text.text.as_str(), text.frames), ("Outer\nIn data\nIn sandbox", 2));

    // A frame inside a shadow root: painted over when refused, perceived when admitted.
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/shadow-frame")))
        .await
        .expect("navigated");
    let shadow_frame = "document.getElementById('host').shadowRoot.querySelector('iframe')";
    let no_inner = Gate::new(|url: &Url| url.path() != "/inner");
    assert_eq!(frame_pixel_of(b, &tab, &no_inner, shadow_frame).await, BLANK);
    let in_shadow = b.perceive(&TabCall::reading(&tab, &open), &all).await.expect("perceive");
    assert!(named(&in_shadow.elements, "Inner button").is_some(), "{:?}", summaries(&in_shadow.elements));

    // Articles.
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/article"))).await.expect("navigated");
    let article = ReadInput { mode: TextMode::Article, ..visible.clone() };
    let story = b.read_text(&TabCall::reading(&tab, &open), &article).await.expect("the article");
    assert!(story.text.starts_with("The headline\nThis paragraph"), "{}", story.text);
    assert!(!story.text.contains("Menu entry") && !story.text.contains("Footer words"), "{}", story.text);

    // Stale and malformed references.
    let heading = named(
        &b.perceive(&TabCall::reading(&tab, &open), &all).await.expect("perceive").elements,
        "The headline",
    )
    .expect("the headline")
    .element
    .clone();
    b.execute(&TabCall::new(&tab, &Gate::open(), LOAD), "document.querySelector('h1').remove()")
        .await
        .expect("removed");
    assert!(!b.element_present(&tab, &heading).await.expect("present"), "a removed element is gone");
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/clean"))).await.expect("navigated");
    assert!(!b.element_present(&tab, &inner_button).await.expect("present"), "another document's element");
    let stale = b.read_text(&TabCall::reading(&tab, &open), &one).await.expect_err("stale");
    assert_eq!(stale.kind(), PortErrorKind::TargetStale);
    for token in ["", "[1,2]", "{\"doc\":1}", "not json", "[1,0,\"\",1]"] {
        let malformed = b.element_present(&tab, &ElementRef::new(token)).await.expect_err("malformed");
        assert_eq!(malformed.kind(), PortErrorKind::InvalidInput, "{token}");
    }

    // A hostile page: tampering with the main world's DOM changes nothing perception reports,
    // and the page cannot see or forge the registry.
    let clean = b.perceive(&TabCall::reading(&tab, &open), &all).await.expect("perceive");
    let clean_text = b.read_text(&TabCall::reading(&tab, &open), &visible).await.expect("text");
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/hostile"))).await.expect("navigated");
    assert_eq!(
        b.execute(&TabCall::new(&tab, &Gate::open(), LOAD), "document.body.textContent")
            .await
            .expect("ran")
            .value,
        json!("forged")
    );
    let hostile = b.perceive(&TabCall::reading(&tab, &open), &all).await.expect("perceive");
    assert_eq!(summaries(&hostile.elements), summaries(&clean.elements));
    assert_eq!(
        hostile.elements.iter().map(|e| e.credential).collect::<Vec<_>>(),
        clean.elements.iter().map(|e| e.credential).collect::<Vec<_>>()
    );
    assert_eq!(
        b.read_text(&TabCall::reading(&tab, &open), &visible).await.expect("text").text,
        clean_text.text
    );
    let go_button = named(&hostile.elements, "Go now").expect("the button").element.clone();
    assert!(b.element_present(&tab, &go_button).await.expect("present"));
    let probe =
        "[typeof globalThis[Symbol.for('ghostlight.page')], Object.getOwnPropertySymbols(globalThis).length]";
    assert_eq!(
        b.execute(&TabCall::new(&tab, &Gate::open(), LOAD), probe).await.expect("ran").value,
        json!(["undefined", 0])
    );
    let forged: (i64, i64, String, u64) = serde_json::from_str(go_button.as_str()).expect("our token");
    let other_document = ElementRef::new(json!([forged.0, forged.1, "forged", forged.3]).to_string());
    assert!(!b.element_present(&tab, &other_document).await.expect("present"));
    let other_id = ElementRef::new(json!([forged.0, forged.1, forged.2, forged.3 + 100_000]).to_string());
    assert!(!b.element_present(&tab, &other_id).await.expect("present"));

    // Captures: an element (scrolled into view), a region (resized), the full page.
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/tall"))).await.expect("navigated");
    let red = b.testing_element(&tab, "#red").await.expect("a lookup").expect("the red box");
    let blue = b.testing_element(&tab, "#blue").await.expect("a lookup").expect("the blue box");
    let shot =
        b.capture(&TabCall::new(&tab, &open, LOAD), &CaptureKind::Element(red)).await.expect("the red box");
    assert_eq!((shot.origin, shot.width as f64 * shot.css_per_pixel), ((0.0, 0.0), 100.0));
    assert_eq!(centre_pixel(&shot.png), [255, 0, 0]);
    let region =
        CaptureKind::Region { rect: CssRect { x: 0.0, y: 0.0, width: 100.0, height: 50.0 }, scale: 2.0 };
    let shot = b.capture(&TabCall::new(&tab, &open, LOAD), &region).await.expect("a region");
    assert_eq!((shot.width, shot.height, shot.css_per_pixel), (200, 100, 0.5));
    assert_eq!(centre_pixel(&shot.png), [255, 0, 0]);
    let centre = b.element_centre(&tab, &blue, true).await.expect("scrolled into view");
    let scroll_y = b.geometry(&tab).await.expect("geometry").scroll_y;
    assert!(scroll_y > 0.0, "scrolled to the blue box");
    assert_eq!((centre.x, centre.y), (110.0, 1550.0 - scroll_y));
    let shot =
        b.capture(&TabCall::new(&tab, &open, LOAD), &CaptureKind::Element(blue)).await.expect("the blue box");
    assert_eq!((shot.origin, shot.width as f64 * shot.css_per_pixel), ((10.0, 1500.0), 200.0));
    assert_eq!(centre_pixel(&shot.png), [0, 0, 255]);
    // Beyond the viewport (scrolled down to the blue box): the full page, and the red region.
    let full =
        b.capture(&TabCall::new(&tab, &open, LOAD), &CaptureKind::FullPage).await.expect("the full page");
    assert_eq!((full.origin, full.height as f64 * full.css_per_pixel), ((0.0, 0.0), 3000.0));
    assert_eq!(pixel_at(&full, 50.0, 25.0), [255, 0, 0], "the red box at the top");
    assert_eq!(pixel_at(&full, 110.0, 1550.0), [0, 0, 255], "the blue box further down");
    let outside =
        b.capture(&TabCall::new(&tab, &open, LOAD), &region).await.expect("a region beyond the viewport");
    assert_eq!((outside.width, outside.height), (200, 100));
    assert_eq!(centre_pixel(&outside.png), [255, 0, 0]);

    b.close_tab(&tab).await.expect("closed");
    world.teardown().await;
}

/// The completion value of `script` in `tab`, run as a block (its declarations stay local:
/// Chromium keeps a program's top-level `const`s between evaluations).
async fn eval(b: &ExtensionBrowser, tab: &TabRef, script: &str) -> serde_json::Value {
    b.execute(&TabCall::new(tab, &Gate::open(), LOAD), &format!("{{\n{script}\n}}")).await.expect("ran").value
}

/// The top-left corner of the page's first iframe's content box, in the viewport.
async fn frame_corner(b: &ExtensionBrowser, tab: &TabRef) -> (f64, f64) {
    let script = "const f = document.querySelector('iframe'); const o = f.getBoundingClientRect(); \
        [o.left + f.clientLeft, o.top + f.clientTop]";
    serde_json::from_value(eval(b, tab, script).await).expect("a point")
}

/// The colour refused frames are painted over with.
const BLANK: [u8; 3] = [128, 128, 128];

/// A gate admitting only the first loopback host.
fn only_a_gate() -> Gate {
    Gate::new(|url: &Url| url.host_str() == Some(server::HOST_A))
}

/// The colour of a viewport capture under `gate` at the centre of the page's first iframe.
async fn frame_pixel(b: &ExtensionBrowser, tab: &TabRef, gate: &Gate) -> [u8; 3] {
    frame_pixel_of(b, tab, gate, "document.querySelector('iframe')").await
}

/// The colour of a viewport capture under `gate` at the centre of the iframe `frame` evaluates
/// to.
async fn frame_pixel_of(b: &ExtensionBrowser, tab: &TabRef, gate: &Gate, frame: &str) -> [u8; 3] {
    let script =
        format!("const r = {frame}.getBoundingClientRect(); [r.left + r.width / 2, r.top + r.height / 2]");
    let script = script.as_str();
    let (x, y): (f64, f64) = serde_json::from_value(eval(b, tab, script).await).expect("a point");
    let shot = b.capture(&TabCall::new(tab, gate, LOAD), &CaptureKind::Viewport).await.expect("captured");
    let image =
        image::load_from_memory_with_format(&shot.png, image::ImageFormat::Png).expect("a PNG").to_rgb8();
    image.get_pixel((x / shot.css_per_pixel) as u32, (y / shot.css_per_pixel) as u32).0
}

/// The colour of a PNG's centre pixel.
fn centre_pixel(png: &[u8]) -> [u8; 3] {
    let image = image::load_from_memory_with_format(png, image::ImageFormat::Png).expect("a PNG").to_rgb8();
    image.get_pixel(image.width() / 2, image.height() / 2).0
}

/// The pixel of a capture at document point (`x`, `y`) (CSS pixels).
fn pixel_at(shot: &Captured, x: f64, y: f64) -> [u8; 3] {
    let image =
        image::load_from_memory_with_format(&shot.png, image::ImageFormat::Png).expect("a PNG").to_rgb8();
    let at = |css: f64, origin: f64| ((css - origin) / shot.css_per_pixel).floor() as u32;
    image.get_pixel(at(x, shot.origin.0), at(y, shot.origin.1)).0
}

/// A GIF's frame count, size, total delay (1/100 s) and its first frame's centre pixel.
fn decode(gif: &[u8]) -> (usize, u32, u32, u64, [u8; 3]) {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(gif).expect("a GIF");
    let (width, height) = (u32::from(decoder.width()), u32::from(decoder.height()));
    let (mut frames, mut delay, mut centre) = (0, 0u64, [0u8; 3]);
    while let Some(frame) = decoder.read_next_frame().expect("a frame") {
        if frames == 0 {
            let (w, h) = (usize::from(frame.width), usize::from(frame.height));
            let at = ((h / 2) * w + w / 2) * 4;
            centre = [frame.buffer[at], frame.buffer[at + 1], frame.buffer[at + 2]];
        }
        frames += 1;
        delay += u64::from(frame.delay);
    }
    (frames, width, height, delay, centre)
}

/// A `ghostlight-replay-*.gif` of `size` bytes in `dir`.
fn downloaded(dir: &Path, size: u64) -> Option<PathBuf> {
    std::fs::read_dir(dir).ok()?.flatten().find_map(|entry| {
        let name = entry.file_name().to_string_lossy().into_owned();
        let meta = entry.metadata().ok()?;
        (name.starts_with("ghostlight-replay-") && name.ends_with(".gif") && meta.len() == size)
            .then(|| entry.path())
    })
}

/// `browser_record`'s port commands over the extension: start, a page change, stop, status,
/// save to the client (decoded), again (the same bytes), a download, discard then save
/// (refused), a page outside the gate (skipped frames), and attach (not wired yet).
async fn recording(engine: Engine) {
    let Some((_turn, world)) = begin(engine).await else { return };
    let site = site();
    let b = world.browser.as_ref();
    let tab = b.open_tab(&go(site.url("/colour/ff0000")), LOAD).await.expect("a tab").tab;
    b.focus_tab(&tab).await.expect("focused");

    // Start: a first frame at once, a capture deadline.
    let started = Instant::now();
    let start = record(b, RecordCommand::Start(tab.clone(), Gate::open())).await;
    eprintln!("[{}] start (first frame): {} ms", engine.as_str(), started.elapsed().as_millis());
    assert_eq!(start.state, RecordingState::Recording, "{start:?}");
    assert!(start.capture_deadline_ms.is_some_and(|ms| ms > 0), "{start:?}");
    let id = start.recording.clone();
    let red = status_until(b, &id, |r| r.frames >= 1).await;
    assert!(red.frames >= 1 && red.width > 0 && red.width <= 640 && red.height > 0, "{red:?}");

    // A page change: a new frame is kept.
    b.navigate(&TabCall::new(&tab, &Gate::open(), LOAD), &go(site.url("/colour/0000ff")))
        .await
        .expect("navigated");
    let blue = status_until(b, &id, |r| r.frames > red.frames).await;
    assert!(blue.frames > red.frames, "{blue:?}");
    assert!(blue.captured_frames >= blue.frames);

    // Stop, status.
    let stopped = record(b, RecordCommand::Stop(id.clone())).await;
    assert_eq!(stopped.state, RecordingState::Stopped, "{stopped:?}");
    assert_eq!(stopped.stop_reason.as_deref(), Some("requested"));
    assert_eq!(stopped.capture_deadline_ms, None);
    assert!(stopped.retention_deadline_ms.is_some_and(|ms| ms > 0));
    let status = record(b, RecordCommand::Status(id.clone())).await;
    assert_eq!((status.state, status.frames), (RecordingState::Stopped, stopped.frames));

    // Save to the client: a GIF of the kept frames; the first shows the red page.
    let saving = Instant::now();
    let saved = record(b, RecordCommand::Save(id.clone(), RecordDelivery::Client)).await;
    let gif = saved.gif.clone().expect("a client save carries the GIF");
    eprintln!(
        "[{}] save: {} frames {}x{}, {} bytes, {} ms playing, in {} ms",
        engine.as_str(),
        saved.frames,
        saved.width,
        saved.height,
        gif.len(),
        saved.duration_ms,
        saving.elapsed().as_millis()
    );
    assert!(gif.starts_with(b"GIF89a"));
    assert_eq!(saved.bytes, u64::try_from(gif.len()).expect("small"));
    let (frames, width, height, delay, centre) = decode(&gif);
    assert_eq!(frames, usize::try_from(saved.frames).expect("small"));
    assert_eq!((width, height), (saved.width, saved.height));
    assert_eq!(delay * 10, saved.duration_ms);
    assert_eq!(centre, [255, 0, 0], "the first frame shows the red page");
    let again = record(b, RecordCommand::Save(id.clone(), RecordDelivery::Client)).await;
    assert_eq!(again.gif.as_deref(), Some(gif.as_slice()), "saving again delivers the same replay");

    // A download: the browser saves the same replay to its download folder.
    let downloads = world.home.join("Downloads");
    let sent = record(b, RecordCommand::Save(id.clone(), RecordDelivery::Download)).await;
    assert_eq!((sent.state, sent.gif.is_none()), (RecordingState::Stopped, true));
    let deadline = Instant::now() + RECORD_BOUND;
    let file = loop {
        let found = downloaded(&downloads, sent.bytes);
        if found.is_some() || Instant::now() >= deadline {
            break found;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let file = file.unwrap_or_else(|| panic!("the replay was downloaded into {}", downloads.display()));
    assert_eq!(std::fs::read(&file).expect("the download reads"), gif);

    // Attached to a file input of another tab from the extension's own copy: the page holds
    // the same replay, named as the WebDriver adapter names it, and saw bubbling `input` and
    // `change`; an element that is not a file input is refused (not as an expired recording).
    let inputs = input_site();
    let form = b.open_tab(&go(inputs.url("/upload")), LOAD).await.expect("a tab").tab;
    let element = |selector| element_of(b, &form, selector);
    let attach = RecordDelivery::Attach(form.clone(), element("#one").await);
    let attached = record(b, RecordCommand::Save(id.clone(), attach)).await;
    assert_eq!(
        (attached.state, attached.gif.is_none(), attached.bytes),
        (RecordingState::Stopped, true, sent.bytes)
    );
    let read = "one.files[0].arrayBuffer().then(b => [one.files.length, one.files[0].name, one.files[0].type, \
                Array.from(new Uint8Array(b))])";
    let held: (usize, String, String, Vec<u8>) = serde_json::from_value(
        b.execute(&TabCall::new(&form, &Gate::open(), LOAD), read).await.expect("read").value,
    )
    .expect("the file");
    let number = id.as_str().rsplit('-').next().expect("a number");
    assert_eq!(
        (held.0, held.1, held.2),
        (1, format!("ghostlight-replay-{number}.gif"), "image/gif".to_owned())
    );
    assert!(held.3 == gif, "the page holds the same replay");
    assert_eq!(page_log(b, &form).await, ["input:one:false", "change:one:false"]);
    let not_file = RecordDelivery::Attach(form.clone(), element("#text").await);
    let refused = b.record(&RecordCommand::Save(id.clone(), not_file)).await.expect_err("not a file input");
    assert_eq!(
        (refused.kind(), refused.message()),
        (PortErrorKind::Other, "the attach target is not a file input")
    );
    let forged = RecordDelivery::Attach(form.clone(), ElementRef::new("e1"));
    let refused = b.record(&RecordCommand::Save(id.clone(), forged)).await.expect_err("a forged reference");
    assert_eq!(refused.kind(), PortErrorKind::Other, "{refused:?}");
    b.close_tab(&form).await.expect("closed");

    // Discard, then save: refused as unknown (core: retention_expired).
    let discarded = record(b, RecordCommand::Discard(id.clone())).await;
    assert_eq!((discarded.state, discarded.frames, discarded.bytes), (RecordingState::Discarded, 0, 0));
    let gone = b.record(&RecordCommand::Save(id.clone(), RecordDelivery::Client)).await.expect_err("erased");
    assert_eq!(gone.kind(), PortErrorKind::InvalidInput);
    let unknown = RecordingRef::new("recording-000000-1");
    assert_eq!(
        b.record(&RecordCommand::Status(unknown)).await.expect_err("unknown").kind(),
        PortErrorKind::InvalidInput
    );

    // A page outside the gate: captures are skipped, nothing is kept.
    let no_colour = Gate::new(|url: &Url| !url.path().starts_with("/colour/"));
    let outside = record(b, RecordCommand::Start(tab.clone(), no_colour)).await;
    let skipped = status_until(b, &outside.recording, |r| r.skipped_frames >= 2).await;
    assert!(skipped.skipped_frames >= 2, "{skipped:?}");
    assert_eq!((skipped.frames, skipped.captured_frames), (0, 0));
    let empty = b.record(&RecordCommand::Save(outside.recording.clone(), RecordDelivery::Client)).await;
    assert_eq!(empty.expect_err("no frame").kind(), PortErrorKind::Other);
    record(b, RecordCommand::Discard(outside.recording)).await;

    // Closing the recorded tab stops capture; what was kept can still be saved.
    let closing = record(b, RecordCommand::Start(tab.clone(), Gate::open())).await.recording;
    status_until(b, &closing, |r| r.frames >= 1).await;
    b.close_tab(&tab).await.expect("closed");
    let closed = status_until(b, &closing, |r| r.state != RecordingState::Recording).await;
    assert_eq!((closed.state, closed.stop_reason.as_deref()), (RecordingState::Stopped, Some("tab_closed")));
    let kept = record(b, RecordCommand::Save(closing.clone(), RecordDelivery::Client)).await;
    assert!(kept.gif.is_some_and(|g| g.starts_with(b"GIF89a")));
    let on_closed = b.record(&RecordCommand::Start(tab.clone(), Gate::open())).await.expect_err("closed tab");
    assert_eq!(on_closed.kind(), PortErrorKind::TabGone);
    record(b, RecordCommand::Discard(closing)).await;

    // Through the tools: a tab opened in the background is selected by the start; a client
    // save answers one image/gif block.
    let tools = Tools::over(&world);
    let call = |tool, arguments| tools.call(tool, arguments);
    let navigated =
        call("browser_navigate", json!({"url": site.url("/colour/00ff00").as_str(), "new_tab": true})).await;
    let tab = navigated.facts["tab"].as_str().expect("a tab handle").to_owned();
    let started = call("browser_record", json!({"action": "start", "tab": tab})).await;
    ok(&started);
    let recording = started.facts["recording"].clone();
    let deadline = Instant::now() + RECORD_BOUND;
    while call("browser_record", json!({"action": "status", "recording": recording})).await.facts["frames"]
        .as_u64()
        .unwrap_or(0)
        < 1
    {
        assert!(Instant::now() < deadline, "no frame through the tools");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let saved = tools.result("browser_record", json!({"action": "save", "recording": recording})).await;
    ok(&saved.envelope);
    assert_eq!(saved.attachments.len(), 1);
    assert_eq!(saved.attachments[0].mime_type, "image/gif");
    assert_eq!(decode(&saved.attachments[0].bytes).4, [0, 255, 0], "the replay shows the green page");
    ok(&call("browser_record", json!({"action": "discard", "recording": recording})).await);
    let erased = call("browser_record", json!({"action": "save", "recording": recording})).await;
    assert_eq!(erased.facts["reason"], "recording_discarded", "{}", erased.summary);
    ok(&call("browser_tabs", json!({"action": "close", "tab": tab})).await);
    drop(tools);
    world.teardown().await;
}
