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

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_core::port::{
    BrowserPort, CaptureKind, CssRect, ElementRef, Gate, HistoryMove, NavigateInput, PerceiveInput,
    PerceiveScope, PerceivedElement, PortEffect, PortErrorKind, ReadInput, TabRef, TextMode,
};
use ghostlight_core::{AuthorityLayers, Cancellation, Envelope, Ghostlight, Settings, Status};
use ghostlight_extension::endpoint::{SECRET_FILE_VAR, SOCKET_DIR_VAR};
use ghostlight_extension::identity::{CHROMIUM_EXTENSION_ID, CHROMIUM_ORIGIN, GECKO_ID, NATIVE_HOST_NAME};
use ghostlight_extension::{ExtensionBrowser, ExtensionConfig};
use ghostlight_webdriver::{CHROMIUM_FLAGS, Engine, NO_SANDBOX_FLAG};
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

/// The longest wait for the extension's hello after launch (measured: well under 3 s).
const HELLO_BOUND: Duration = Duration::from_secs(30);
/// The longest wait for a page load.
const LOAD: Duration = Duration::from_secs(15);
/// The longest wait for teardown to be observed.
const TEARDOWN_BOUND: Duration = Duration::from_secs(10);

/// The real Chromium binary (Debian's `/usr/bin/chromium` wrapper adds an empty
/// `--load-extension=` that would override ours).
fn chromium_binary() -> PathBuf {
    let debian = Path::new("/usr/lib/chromium/chromium");
    if debian.is_file() { debian.to_path_buf() } else { PathBuf::from("chromium") }
}

fn extension_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../extension").canonicalize().expect("the extension folder")
}

/// Headless Chromium with the extension loaded and the host registered in its profile.
fn chromium(profile: &Path) -> Command {
    let hosts = profile.join("NativeMessagingHosts");
    write_host_manifest(&hosts, json!({"allowed_origins": [CHROMIUM_ORIGIN]}));
    let mut command = Command::new(chromium_binary());
    command
        .arg("--headless=new")
        .args(CHROMIUM_FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--load-extension={}", extension_dir().display()))
        .arg("--window-size=1000,800")
        .arg("about:blank");
    if nix::unistd::geteuid().is_root() {
        command.arg(NO_SANDBOX_FLAG);
    }
    command
}

/// Headless Firefox with the extension sideloaded into a fresh profile (a proxy file naming
/// the folder; unsigned add-ons allowed, sideloads enabled) and the host registered in
/// `$HOME/.mozilla`.
fn firefox(profile: &Path, home: &Path) -> Command {
    write_host_manifest(
        &home.join(".mozilla/native-messaging-hosts"),
        json!({"allowed_extensions": [GECKO_ID]}),
    );
    // An extension proxy file: the profile's `extensions/<id>` holding the folder's path.
    let extensions = profile.join("extensions");
    std::fs::create_dir_all(&extensions).expect("the extensions folder");
    std::fs::write(extensions.join(GECKO_ID), extension_dir().as_os_str().as_encoded_bytes())
        .expect("the proxy file");
    let prefs = [
        ("xpinstall.signatures.required", "false"),
        ("extensions.autoDisableScopes", "0"),
        ("extensions.enabledScopes", "15"),
        ("browser.shell.checkDefaultBrowser", "false"),
        ("datareporting.policy.dataSubmissionEnabled", "false"),
        ("toolkit.telemetry.reportingpolicy.firstRun", "false"),
        ("browser.startup.homepage_override.mstone", "\"ignore\""),
        ("app.update.auto", "false"),
    ];
    let user_js: String = prefs.iter().map(|(k, v)| format!("user_pref(\"{k}\", {v});\n")).collect();
    std::fs::write(profile.join("user.js"), user_js).expect("user.js");
    let mut command = Command::new("firefox");
    command.args(["--headless", "--no-remote", "--profile"]).arg(profile).args([
        "-width",
        "1000",
        "-height",
        "800",
        "about:blank",
    ]);
    command
}

/// Write the host's manifest into `dir`, with the engine's caller list.
fn write_host_manifest(dir: &Path, callers: serde_json::Value) {
    std::fs::create_dir_all(dir).expect("the hosts folder");
    let mut manifest = json!({
        "name": NATIVE_HOST_NAME,
        "description": "Ghostlight native messaging host (test)",
        "path": env!("CARGO_BIN_EXE_ghostlight-native-host"),
        "type": "stdio",
    });
    if let (Some(m), Some(c)) = (manifest.as_object_mut(), callers.as_object()) {
        m.extend(c.clone());
    }
    std::fs::write(dir.join(format!("{NATIVE_HOST_NAME}.json")), manifest.to_string())
        .expect("the host manifest");
}

/// The loopback site: `/a`, `/b` (a title, a heading and a paragraph each), `/framed` (an
/// iframe of `/inner`).
fn site() -> Site {
    Site::serve(|ask| {
        let body = match ask.path {
            "/framed" => {
                "<!doctype html><title>Framed</title><p>Outer</p><iframe src=\"/inner\"></iframe>".into()
            }
            other => {
                let name = other.trim_start_matches('/').to_uppercase();
                format!("<!doctype html><title>{name}</title><h1>{name}</h1><p>Hello   from {name}</p>")
            }
        };
        Reply::html(200, body)
    })
}

/// One test's world: its folders, its browser port, and the browser's process group.
struct World {
    _dir: tempfile::TempDir,
    browser: Arc<ExtensionBrowser>,
    /// The browser's first process (its process group's leader).
    process: Child,
    /// Launch to the extension's hello.
    hello_after: Duration,
}

impl World {
    async fn start(engine: Engine) -> World {
        let dir = tempfile::tempdir().expect("a temp dir");
        let home = dir.path().join("home");
        let profile = dir.path().join("profile");
        let tmp = dir.path().join("tmp");
        for d in [&home, &profile, &tmp] {
            std::fs::create_dir_all(d).expect("a folder");
        }
        let config = ExtensionConfig {
            socket_dir: dir.path().join("run"),
            secret_file: home.join(".config/ghostlight/secret"),
        };
        let browser = Arc::new(ExtensionBrowser::listen(&config).expect("listening"));
        let mut command = match engine {
            Engine::Chromium => chromium(&profile),
            Engine::Firefox => firefox(&profile, &home),
        };
        command
            .env("HOME", &home)
            .env("TMPDIR", &tmp)
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("XDG_CONFIG_HOME")
            .env(SOCKET_DIR_VAR, &config.socket_dir)
            .env(SECRET_FILE_VAR, &config.secret_file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0);
        let launched = Instant::now();
        let process = command.spawn().expect("the browser starts");
        let hello = browser.wait_connected(HELLO_BOUND).await;
        let hello_after = launched.elapsed();
        let mut world = World { _dir: dir, browser, process, hello_after };
        if hello.is_none() {
            world.kill_group();
            panic!("[{}] no hello from the extension within {HELLO_BOUND:?}", engine.as_str());
        }
        assert_eq!(world.browser.engine(), engine.as_str());
        eprintln!("[{}] launch to hello: {} ms", engine.as_str(), world.hello_after.as_millis());
        world
    }

    fn group(&self) -> i32 {
        i32::try_from(self.process.id()).expect("a pid")
    }

    fn kill_group(&mut self) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(self.group()),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = self.process.wait();
    }

    /// Kill the browser's group; check the group is empty, the connection ended, and (once the
    /// port is dropped) the socket is gone.
    async fn teardown(mut self) {
        self.kill_group();
        let group = self.group();
        let deadline = Instant::now() + TEARDOWN_BOUND;
        while (!members(group).is_empty() || self.browser.connected().is_some()) && Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(members(group), Vec::<i32>::new(), "the browser's process group is empty");
        assert!(self.browser.connected().is_none(), "the connection ended with the browser");
        let gone = self.browser.page(&TabRef::new("1")).await.expect_err("no browser");
        assert_eq!(gone.kind(), PortErrorKind::NotConnected);
        let socket = self.browser.socket_path().to_path_buf();
        assert_eq!(Arc::strong_count(&self.browser), 1, "nothing else holds the browser port");
        drop(self.browser);
        assert!(!socket.exists(), "the socket is removed");
    }
}

/// Live (not zombie) processes of process group `group`.
fn members(group: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
            // After the command's closing parenthesis: state, ppid, pgrp.
            let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { return false };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.first() != Some(&"Z") && fields.get(2).and_then(|g| g.parse::<i32>().ok()) == Some(group)
        })
        .collect()
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

/// Every implemented port operation, against the site.
async fn operations(engine: Engine) {
    if !engines::wanted(engine) {
        eprintln!("[{}] skipped: not in GHOSTLIGHT_TEST_ENGINES", engine.as_str());
        return;
    }
    let _turn = BROWSERS.acquire().await.expect("the semaphore stays open");
    let site = site();
    let world = World::start(engine).await;
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
    let on_b = b.navigate(&tab, &go(site.url("/b")), LOAD).await.expect("navigated");
    assert_eq!(on_b.title, "B");
    assert_ne!(on_b.document, page.document);
    let back = b.history(&tab, HistoryMove::Back, LOAD).await.expect("back");
    assert_eq!(back.url, site.url("/a"));
    let forward = b.history(&tab, HistoryMove::Forward, LOAD).await.expect("forward");
    assert_eq!(forward.url, site.url("/b"));
    let reloaded = b.history(&tab, HistoryMove::Reload { bypass_cache: true }, LOAD).await.expect("reloaded");
    assert_ne!(reloaded.document, forward.document, "a reload is a new document");

    // Text.
    let visible = ReadInput { target: None, mode: TextMode::Visible, max_chars: 1000 };
    let text = b.read_text(&tab, &visible, &Gate::open()).await.expect("text");
    assert_eq!(text.text, "B\nHello from B");
    assert!(!text.truncated);
    let short =
        b.read_text(&tab, &ReadInput { max_chars: 3, ..visible.clone() }, &Gate::open()).await.expect("text");
    assert_eq!((short.text.as_str(), short.truncated), ("B\nH", true));
    assert!(b.text_present(&tab, "hello FROM b", &Gate::open()).await.expect("searched"));
    assert!(!b.text_present(&tab, "absent words", &Gate::open()).await.expect("searched"));

    // Scripts: completion values, function bodies, references, failures.
    let title = b.execute(&tab, "document.title", LOAD).await.expect("ran");
    assert_eq!(title.value, json!("B"));
    assert_eq!(title.page.document, reloaded.document);
    assert_eq!(b.execute(&tab, "return 1 + 1", LOAD).await.expect("ran").value, json!(2));
    assert_eq!(
        b.execute(&tab, "return await Promise.resolve([document.body, 'x'])", LOAD).await.expect("ran").value,
        json!(["[element]", "x"])
    );
    let thrown = b.execute(&tab, "throw new TypeError('no')", LOAD).await.expect_err("threw");
    assert_eq!((thrown.kind(), thrown.effect()), (PortErrorKind::ScriptError, PortEffect::Unknown));
    assert_eq!(thrown.script_failure().map(|f| (f.name.as_str(), f.ran)), Some(("TypeError", true)));
    let broken = b.execute(&tab, "let a = ;", LOAD).await.expect_err("did not compile");
    assert_eq!((broken.kind(), broken.effect()), (PortErrorKind::ScriptError, PortEffect::None));
    assert_eq!(broken.script_failure().map(|f| (f.name.as_str(), f.ran)), Some(("SyntaxError", false)));

    // Geometry and zoom.
    let geometry = b.geometry(&tab).await.expect("geometry");
    assert!(geometry.viewport_width > 0 && geometry.viewport_height > 0);
    assert_eq!(b.set_zoom(&tab, 150).await.expect("zoomed").zoom_percent, 150);
    assert_eq!(b.set_zoom(&tab, 100).await.expect("zoomed").zoom_percent, 100);

    // Focus and capture.
    b.focus_tab(&tab).await.expect("focused");
    let shot = b.capture(&tab, &CaptureKind::Viewport, &Gate::open(), LOAD).await.expect("captured");
    assert!(shot.png.starts_with(b"\x89PNG"));
    assert!(shot.width > 0 && shot.height > 0);
    b.navigate(&tab, &go(site.url("/framed")), LOAD).await.expect("navigated");
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
        let refused = b.navigate(&tab, &go(popup), LOAD).await.expect_err("refused");
        assert_eq!((refused.kind(), refused.effect()), (PortErrorKind::InvalidInput, PortEffect::None));
    }

    // Close: the tab is gone afterwards.
    b.close_tab(&tab).await.expect("closed");
    assert_eq!(b.page(&tab).await.expect_err("gone").kind(), PortErrorKind::TabGone);
    assert_eq!(b.close_tab(&tab).await.expect_err("gone").kind(), PortErrorKind::TabGone);
    assert!(!b.tabs().await.expect("tabs").iter().any(|t| t.tab == tab));

    world.teardown().await;
}

/// The first tool calls through the whole pipeline (`Ghostlight::invoke`) over the extension:
/// navigate, list, read, execute, screenshot, find, inspect, close; and a tool whose operation the
/// connector does not do yet answers as unsupported.
async fn tools(engine: Engine) {
    if !engines::wanted(engine) {
        eprintln!("[{}] skipped: not in GHOSTLIGHT_TEST_ENGINES", engine.as_str());
        return;
    }
    let _turn = BROWSERS.acquire().await.expect("the semaphore stays open");
    let site = site();
    let world = World::start(engine).await;
    let user: Settings =
        serde_json::from_value(json!({"capabilities": {"allow": ["execute"]}})).expect("settings");
    let authority = AuthorityLayers { user: Some(user), organization: None }.compile();
    let port: Arc<dyn BrowserPort> = world.browser.clone();
    let g = Ghostlight::builder(port).authority(authority).build();
    let never = Cancellation::never();
    let call = |tool: &'static str, arguments: serde_json::Value| {
        let g = &g;
        let never = &never;
        async move { g.invoke(tool, &arguments, never).await.expect("a catalog tool").envelope }
    };
    let ok = |e: &Envelope| assert_eq!(e.status, Status::Succeeded, "{}: {:?}", e.summary, e.facts);

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
    let diagnosed = call("browser_diagnose", json!({"tab": tab, "source": "console"})).await;
    assert_eq!(diagnosed.status, Status::Failed, "{}", diagnosed.summary);
    assert_eq!(diagnosed.facts["reason"], json!("unsupported"));
    let closed = call("browser_tabs", json!({"action": "close", "tab": tab})).await;
    ok(&closed);
    drop(g);
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
    let perceived = b.perceive(&tab, &all, &open).await.expect("perceive");
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
    b.navigate(&tab, &go(site.url("/framed")), LOAD).await.expect("navigated");
    let framed = b.perceive(&tab, &all, &open).await.expect("perceive");
    let names: Vec<Option<&str>> =
        framed.elements.iter().filter(|e| e.control).map(|e| e.name.as_deref()).collect();
    assert_eq!(names, [Some("Before"), Some("Inner button"), Some("Inner field"), Some("After")]);
    let no_inner = Gate::new(|url: &Url| url.path() != "/inner");
    let gated = b.perceive(&tab, &all, &no_inner).await.expect("perceive");
    assert!(named(&gated.elements, "Inner button").is_none(), "a refused frame is not perceived");
    let visible = ReadInput { target: None, mode: TextMode::Visible, max_chars: 1000 };
    let text = b.read_text(&tab, &visible, &open).await.expect("text");
    assert_eq!(
        (text.text.as_str(), text.frames),
        ("Outer text\nBeforeAfter\nInner heading\nHello from inner\nInner button", 1)
    );
    let refused = b.read_text(&tab, &visible, &no_inner).await.expect("text");
    assert_eq!((refused.text.as_str(), refused.frames), ("Outer text\nBeforeAfter", 0));
    assert!(b.text_present(&tab, "hello FROM inner", &open).await.expect("searched"), "frames are searched");
    assert!(!b.text_present(&tab, "hello from inner", &no_inner).await.expect("searched"), "unless refused");
    let found = b.find_text(&tab, "inner button", false, 10, &open).await.expect("found");
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
    assert_eq!(b.read_text(&tab, &one, &open).await.expect("its text").text, "Inner button");
    assert_eq!(b.focused_element(&tab).await.expect("focus"), None);
    b.execute(
        &tab,
        "document.querySelector('iframe').contentDocument.getElementById('ifield').focus()",
        LOAD,
    )
    .await
    .expect("focused");
    let focused = b.focused_element(&tab).await.expect("focus").expect("a focused element");
    assert_eq!(focused.element.name.as_deref(), Some("Inner field"));
    assert_eq!(focused.frames, vec![site.url("/inner")]);

    // A frame of another origin: perceived and read through its own frame id, gated by origin.
    b.navigate(&tab, &go(site.url("/cross")), LOAD).await.expect("navigated");
    let cross = b.perceive(&tab, &all, &open).await.expect("perceive");
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
    let in_frame = b.capture(&tab, &CaptureKind::Element(cross_button.clone()), &open, LOAD).await;
    assert!(in_frame.is_ok(), "an element of a cross-origin frame is captured: {in_frame:?}");
    let only_a = only_a_gate();
    assert!(
        named(&b.perceive(&tab, &all, &only_a).await.expect("perceive").elements, "Inner button").is_none()
    );
    let text = b.read_text(&tab, &visible, &open).await.expect("text");
    assert_eq!(
        (text.text.as_str(), text.frames),
        ("Outer text\nInner heading\nHello from inner\nInner button", 1)
    );

    // Frames of opaque origins (a data: URL, a sandboxed srcdoc) and an empty about:blank frame
    // are perceived and read like any other.
    b.navigate(&tab, &go(site.url("/odd")), LOAD).await.expect("navigated");
    let odd = b.perceive(&tab, &all, &open).await.expect("perceive");
    let names: Vec<Option<&str>> = odd.elements.iter().map(|e| e.name.as_deref()).collect();
    assert_eq!(names, [Some("Outer"), Some("In data"), Some("In sandbox")]);
    let text = b.read_text(&tab, &visible, &open).await.expect("text");
    assert_eq!((text.text.as_str(), text.frames), ("Outer\nIn data\nIn sandbox", 2));

    // A frame inside a shadow root: painted over when refused, perceived when admitted.
    b.navigate(&tab, &go(site.url("/shadow-frame")), LOAD).await.expect("navigated");
    let shadow_frame = "document.getElementById('host').shadowRoot.querySelector('iframe')";
    let no_inner = Gate::new(|url: &Url| url.path() != "/inner");
    assert_eq!(frame_pixel_of(b, &tab, &no_inner, shadow_frame).await, BLANK);
    let in_shadow = b.perceive(&tab, &all, &open).await.expect("perceive");
    assert!(named(&in_shadow.elements, "Inner button").is_some(), "{:?}", summaries(&in_shadow.elements));

    // Articles.
    b.navigate(&tab, &go(site.url("/article")), LOAD).await.expect("navigated");
    let article = ReadInput { mode: TextMode::Article, ..visible.clone() };
    let story = b.read_text(&tab, &article, &open).await.expect("the article");
    assert!(story.text.starts_with("The headline\nThis paragraph"), "{}", story.text);
    assert!(!story.text.contains("Menu entry") && !story.text.contains("Footer words"), "{}", story.text);

    // Stale and malformed references.
    let heading = named(&b.perceive(&tab, &all, &open).await.expect("perceive").elements, "The headline")
        .expect("the headline")
        .element
        .clone();
    b.execute(&tab, "document.querySelector('h1').remove()", LOAD).await.expect("removed");
    assert!(!b.element_present(&tab, &heading).await.expect("present"), "a removed element is gone");
    b.navigate(&tab, &go(site.url("/clean")), LOAD).await.expect("navigated");
    assert!(!b.element_present(&tab, &inner_button).await.expect("present"), "another document's element");
    let stale = b.read_text(&tab, &one, &open).await.expect_err("stale");
    assert_eq!(stale.kind(), PortErrorKind::TargetStale);
    for token in ["", "[1,2]", "{\"doc\":1}", "not json", "[1,0,\"\",1]"] {
        let malformed = b.element_present(&tab, &ElementRef::new(token)).await.expect_err("malformed");
        assert_eq!(malformed.kind(), PortErrorKind::InvalidInput, "{token}");
    }

    // A hostile page: tampering with the main world's DOM changes nothing perception reports,
    // and the page cannot see or forge the registry.
    let clean = b.perceive(&tab, &all, &open).await.expect("perceive");
    let clean_text = b.read_text(&tab, &visible, &open).await.expect("text");
    b.navigate(&tab, &go(site.url("/hostile")), LOAD).await.expect("navigated");
    assert_eq!(b.execute(&tab, "document.body.textContent", LOAD).await.expect("ran").value, json!("forged"));
    let hostile = b.perceive(&tab, &all, &open).await.expect("perceive");
    assert_eq!(summaries(&hostile.elements), summaries(&clean.elements));
    assert_eq!(
        hostile.elements.iter().map(|e| e.credential).collect::<Vec<_>>(),
        clean.elements.iter().map(|e| e.credential).collect::<Vec<_>>()
    );
    assert_eq!(b.read_text(&tab, &visible, &open).await.expect("text").text, clean_text.text);
    let go_button = named(&hostile.elements, "Go now").expect("the button").element.clone();
    assert!(b.element_present(&tab, &go_button).await.expect("present"));
    let probe =
        "[typeof globalThis[Symbol.for('ghostlight.page')], Object.getOwnPropertySymbols(globalThis).length]";
    assert_eq!(b.execute(&tab, probe, LOAD).await.expect("ran").value, json!(["undefined", 0]));
    let forged: (i64, i64, String, u64) = serde_json::from_str(go_button.as_str()).expect("our token");
    let other_document = ElementRef::new(json!([forged.0, forged.1, "forged", forged.3]).to_string());
    assert!(!b.element_present(&tab, &other_document).await.expect("present"));
    let other_id = ElementRef::new(json!([forged.0, forged.1, forged.2, forged.3 + 100_000]).to_string());
    assert!(!b.element_present(&tab, &other_id).await.expect("present"));

    // Captures: an element (scrolled into view), a region (resized), the full page.
    b.navigate(&tab, &go(site.url("/tall")), LOAD).await.expect("navigated");
    let red = b.testing_element(&tab, "#red").await.expect("a lookup").expect("the red box");
    let blue = b.testing_element(&tab, "#blue").await.expect("a lookup").expect("the blue box");
    let shot = b.capture(&tab, &CaptureKind::Element(red), &open, LOAD).await.expect("the red box");
    assert_eq!((shot.origin, shot.width as f64 * shot.css_per_pixel), ((0.0, 0.0), 100.0));
    assert_eq!(centre_pixel(&shot.png), [255, 0, 0]);
    let region =
        CaptureKind::Region { rect: CssRect { x: 0.0, y: 0.0, width: 100.0, height: 50.0 }, scale: 2.0 };
    let shot = b.capture(&tab, &region, &open, LOAD).await.expect("a region");
    assert_eq!((shot.width, shot.height, shot.css_per_pixel), (200, 100, 0.5));
    assert_eq!(centre_pixel(&shot.png), [255, 0, 0]);
    let centre = b.element_centre(&tab, &blue, true).await.expect("scrolled into view");
    let scroll_y = b.geometry(&tab).await.expect("geometry").scroll_y;
    assert!(scroll_y > 0.0, "scrolled to the blue box");
    assert_eq!((centre.x, centre.y), (110.0, 1550.0 - scroll_y));
    let shot = b.capture(&tab, &CaptureKind::Element(blue), &open, LOAD).await.expect("the blue box");
    assert_eq!((shot.origin, shot.width as f64 * shot.css_per_pixel), ((10.0, 1500.0), 200.0));
    assert_eq!(centre_pixel(&shot.png), [0, 0, 255]);
    let full = b.capture(&tab, &CaptureKind::FullPage, &open, LOAD).await;
    let outside = b.capture(&tab, &region, &open, LOAD).await;
    match engine {
        Engine::Chromium => {
            let full = full.expect("the full page");
            assert_eq!((full.origin, full.height as f64 * full.css_per_pixel), ((0.0, 0.0), 3000.0));
            assert_eq!(centre_pixel(&outside.expect("a region beyond the viewport").png), [255, 0, 0]);
        }
        Engine::Firefox => {
            for refused in [full.expect_err("no full page"), outside.expect_err("no region outside")] {
                assert_eq!(refused.kind(), PortErrorKind::Unsupported);
                assert!(refused.message().contains("Firefox"), "{}", refused.message());
            }
        }
    }

    b.close_tab(&tab).await.expect("closed");
    world.teardown().await;
}

/// The completion value of `script` in `tab`, run as a block (its declarations stay local:
/// Chromium keeps a program's top-level `const`s between evaluations).
async fn eval(b: &ExtensionBrowser, tab: &TabRef, script: &str) -> serde_json::Value {
    b.execute(tab, &format!("{{\n{script}\n}}"), LOAD).await.expect("ran").value
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
    let shot = b.capture(tab, &CaptureKind::Viewport, gate, LOAD).await.expect("captured");
    let image =
        image::load_from_memory_with_format(&shot.png, image::ImageFormat::Png).expect("a PNG").to_rgb8();
    image.get_pixel((x / shot.css_per_pixel) as u32, (y / shot.css_per_pixel) as u32).0
}

/// The colour of a PNG's centre pixel.
fn centre_pixel(png: &[u8]) -> [u8; 3] {
    let image = image::load_from_memory_with_format(png, image::ImageFormat::Png).expect("a PNG").to_rgb8();
    image.get_pixel(image.width() / 2, image.height() / 2).0
}
