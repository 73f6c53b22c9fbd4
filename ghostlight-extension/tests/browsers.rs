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
    BrowserPort, CaptureKind, ElementRef, Gate, HistoryMove, NavigateInput, PortEffect, PortErrorKind,
    ReadInput, RecordCommand, RecordDelivery, RecordReport, RecordingRef, RecordingState, TabRef, TextMode,
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

/// One test's world: its folders, its browser port, and the browser's process group.
struct World {
    _dir: tempfile::TempDir,
    /// The browser's HOME (its downloads go to `Downloads/` there).
    home: PathBuf,
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
        let mut world = World { _dir: dir, home, browser, process, hello_after };
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
    let article = ReadInput { mode: TextMode::Article, ..visible };
    let unsupported = b.read_text(&tab, &article, &Gate::open()).await.expect_err("not yet");
    assert_eq!(unsupported.kind(), PortErrorKind::Unsupported);
    assert!(unsupported.message().contains("extension connector"));

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
    let no_inner = Gate::new(|url: &Url| url.path() != "/inner");
    let refused =
        b.capture(&tab, &CaptureKind::Viewport, &no_inner, LOAD).await.expect_err("a refused frame");
    assert_eq!(refused.kind(), PortErrorKind::Unsupported);
    assert!(b.capture(&tab, &CaptureKind::FullPage, &Gate::open(), LOAD).await.is_err());

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
/// navigate, list, read, execute, screenshot, close; and a tool whose operation the connector does not
/// do yet answers as unsupported.
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
    assert_eq!(found.status, Status::Failed, "{}", found.summary);
    assert_eq!(found.facts["reason"], json!("unsupported"));
    let closed = call("browser_tabs", json!({"action": "close", "tab": tab})).await;
    ok(&closed);
    drop(g);
    world.teardown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_recording() {
    recording(Engine::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_recording() {
    recording(Engine::Firefox).await;
}

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
    if !engines::wanted(engine) {
        eprintln!("[{}] skipped: not in GHOSTLIGHT_TEST_ENGINES", engine.as_str());
        return;
    }
    let _turn = BROWSERS.acquire().await.expect("the semaphore stays open");
    let site = site();
    let world = World::start(engine).await;
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
    b.navigate(&tab, &go(site.url("/colour/0000ff")), LOAD).await.expect("navigated");
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

    // Attaching to a file input is not wired yet.
    let attach = RecordDelivery::Attach(tab.clone(), ElementRef::new("e1"));
    let refused = b.record(&RecordCommand::Save(id.clone(), attach)).await.expect_err("not yet");
    assert_eq!(refused.kind(), PortErrorKind::Unsupported);

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
    let port: Arc<dyn BrowserPort> = world.browser.clone();
    let g = Ghostlight::builder(port).build();
    let never = Cancellation::never();
    let call = |tool: &'static str, arguments: serde_json::Value| {
        let g = &g;
        let never = &never;
        async move { g.invoke(tool, &arguments, never).await.expect("a catalog tool") }
    };
    let navigated =
        call("browser_navigate", json!({"url": site.url("/colour/00ff00").as_str(), "new_tab": true})).await;
    let tab = navigated.envelope.facts["tab"].as_str().expect("a tab handle").to_owned();
    let started = call("browser_record", json!({"action": "start", "tab": tab})).await.envelope;
    assert_eq!(started.status, Status::Succeeded, "{}: {:?}", started.summary, started.facts);
    let recording = started.facts["recording"].clone();
    let deadline = Instant::now() + RECORD_BOUND;
    while call("browser_record", json!({"action": "status", "recording": recording})).await.envelope.facts
        ["frames"]
        .as_u64()
        .unwrap_or(0)
        < 1
    {
        assert!(Instant::now() < deadline, "no frame through the tools");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let saved = call("browser_record", json!({"action": "save", "recording": recording})).await;
    assert_eq!(saved.envelope.status, Status::Succeeded, "{}", saved.envelope.summary);
    assert_eq!(saved.attachments.len(), 1);
    assert_eq!(saved.attachments[0].mime_type, "image/gif");
    assert_eq!(decode(&saved.attachments[0].bytes).4, [0, 255, 0], "the replay shows the green page");
    let discarded = call("browser_record", json!({"action": "discard", "recording": recording})).await;
    assert_eq!(discarded.envelope.status, Status::Succeeded, "{}", discarded.envelope.summary);
    let erased = call("browser_record", json!({"action": "save", "recording": recording})).await.envelope;
    assert_eq!(erased.facts["reason"], "recording_discarded", "{}", erased.summary);
    call("browser_tabs", json!({"action": "close", "tab": tab})).await;
    drop(g);
    world.teardown().await;
}
