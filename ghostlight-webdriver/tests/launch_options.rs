//! Launch options against real browsers: the configured browser and driver executables, a
//! persistent profile (kept across two runs, locked against a second browser, never deleted,
//! no upload staged in it), a storage state file (loaded at start, saved at exit), a proxy on 127.0.0.1 that sees the requests (and a bypass entry
//! that does not reach it), a self-signed HTTPS server reachable only with
//! `accept_insecure_certs`, the CSS viewport, extra browser arguments, and diagnostics
//! tracked from the session's start (the first `browser_diagnose` holds the load's errors).
//!
//! The HTTPS server is `openssl s_server` with a certificate `openssl req` makes at test time
//! (no TLS crate is a dependency); without the `openssl` command that scenario says so and
//! passes.

mod support;

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ghostlight_core::Ghostlight;
use ghostlight_core::port::{
    BrowserPort, Gate, InlineFile, LaunchCause, NetworkError, TabCall, UploadDestination, UploadFiles,
    UploadInput,
};
use ghostlight_webdriver::{
    ConfigProblem, Diagnostics, DriverSource, Engine, PROFILE_LOCK_FILE, Proxy, StorageStateFile, Viewport,
    WebDriverBrowser, WebDriverConfig,
};
use serde_json::json;
use support::engines::scenario;
use support::port::go;
use support::processes::processes_with;
use support::server::Site;
use support::tools;
use url::Url;

const TIMEOUT: Duration = Duration::from_secs(15);
/// How long a navigation that must not succeed may take.
const SHORT: Duration = Duration::from_secs(5);

per_engine!(#[tokio::test(flavor = "multi_thread", worker_threads = 2)] chromium, firefox => run);

async fn run(engine: Engine) {
    let site = Site::html(|path, _| page(path));
    scenario(engine, "profile_kept_across_runs_and_locked", profile(engine, &site)).await;
    scenario(engine, "storage_state_loaded_then_saved", storage_state(engine, &site)).await;
    scenario(engine, "browser_and_driver_paths_are_used", paths(engine, &site)).await;
    scenario(engine, "proxy_sees_requests_bypass_goes_direct", proxy(engine)).await;
    scenario(engine, "self_signed_https_only_with_the_option", https(engine)).await;
    scenario(engine, "viewport_args_and_diagnostics_from_start", viewport_args_diagnostics(engine, &site))
        .await;
}

/// The test site: `/set` stores a cookie (an hour long) and a localStorage item, `/get` shows
/// both in its title; `/load-problems` logs an error while loading and loads a missing image
/// (404); anything else is a plain page.
fn page(path: &str) -> (u16, String) {
    let html = |title: &str, body: &str| format!("<!doctype html><title>{title}</title>{body}");
    match path {
        "/set" => (
            200,
            html(
                "Set",
                "<script>document.cookie = 'gl=kept; max-age=3600; path=/';\
                 localStorage.setItem('gl', 'stored');</script>",
            ),
        ),
        "/get" => (
            200,
            html(
                "Get",
                "<script>document.title = 'cookie=' + document.cookie + \
                 ' storage=' + localStorage.getItem('gl');</script>",
            ),
        ),
        "/load-problems" => (
            200,
            html(
                "Load problems",
                "<script>console.error('gl-load-error');</script><img src=\"/missing.png\" alt=\"\">",
            ),
        ),
        "/upload" => (200, html("Upload", "<input type=file id=file>")),
        "/missing.png" | "/favicon.ico" => (404, String::new()),
        _ => (200, html("Plain", "<p>plain</p>")),
    }
}

/// A browser whose profile is `profile`.
fn with_profile(engine: Engine, profile: &Path) -> WebDriverBrowser {
    WebDriverBrowser::new(WebDriverConfig {
        profile: Some(profile.to_owned()),
        ..WebDriverConfig::for_engine(engine)
    })
}

/// Run one: set a cookie and a storage item, stop. Run two: both are there; a third browser
/// on the same profile is refused while run two holds it; after run two the profile and
/// its lock file are still there.
async fn profile(engine: Engine, site: &Site) {
    let home = tempfile::tempdir().expect("a temporary folder");
    let profile = home.path().join("profile");
    let started = Instant::now();
    let first = with_profile(engine, &profile);
    let set = first.open_tab(&go(site.url("/set")), TIMEOUT).await.expect("run one opens /set");
    assert_eq!(set.page.title, "Set");
    first.shutdown().await;
    assert!(profile.join(PROFILE_LOCK_FILE).is_file(), "the profile stays after run one");
    eprintln!("[{}] run one: {} ms", engine.as_str(), started.elapsed().as_millis());

    let started = Instant::now();
    let second = with_profile(engine, &profile);
    let got = second.open_tab(&go(site.url("/get")), TIMEOUT).await.expect("run two opens /get");
    eprintln!(
        "[{}] run two: {} ms, title {:?}",
        engine.as_str(),
        started.elapsed().as_millis(),
        got.page.title
    );
    assert_eq!(got.page.title, "cookie=gl=kept storage=stored", "the cookie and the storage carried over");

    // Inline upload files are staged outside the person's profile.
    let upload = second.open_tab(&go(site.url("/upload")), TIMEOUT).await.expect("the upload page").tab;
    let input = second.testing_element(&upload, &[], "#file").await.expect("the file input");
    let files = vec![InlineFile { name: "staged.txt".into(), bytes: b"staged".to_vec() }];
    let upload_input = UploadInput { to: UploadDestination::Input(input), files: UploadFiles::Inline(files) };
    second
        .upload(&TabCall::new(&upload, &Gate::open(), TIMEOUT), &upload_input)
        .await
        .expect("an inline upload");
    assert!(!profile.join("ghostlight-uploads").exists(), "nothing is staged in the profile");

    let third = with_profile(engine, &profile);
    let refused = third.open_tab(&go(site.url("/plain")), TIMEOUT).await.expect_err("the profile is in use");
    let failure = refused.launch_failure().expect("a launch failure");
    assert_eq!(failure.cause, LaunchCause::ProfileInUse, "{refused}");
    let message = refused.message();
    assert!(
        message.contains(&profile.display().to_string()) && message.contains("another Ghostlight server"),
        "the message names the profile: {message}"
    );
    assert!(ghostlight_webdriver::check_profile(&profile).is_err(), "the lock is held while run two runs");
    second.shutdown().await;
    third.shutdown().await;
    assert!(ghostlight_webdriver::check_profile(&profile).is_ok(), "released when run two stops");
    assert!(
        profile.join(PROFILE_LOCK_FILE).is_file() && profile.read_dir().is_ok_and(|mut d| d.nth(1).is_some())
    );
}

/// A storage state file with a cookie and a `localStorage` item of the site: both are there
/// on the first page (and loading them sent nothing to the site); what the page then sets is
/// in the file after shutdown, which is private to this user; a state with a profile, or a
/// missing file that is not to be saved, is refused before anything starts.
async fn storage_state(engine: Engine, site: &Site) {
    use std::os::unix::fs::PermissionsExt as _;
    let home = tempfile::tempdir().expect("a temporary folder");
    let path = home.path().join("state.json");
    let origin = site.url("/").origin().ascii_serialization();
    let state = json!({
        "cookies": [{"name": "gl", "value": "loaded", "domain": "127.0.0.1", "path": "/",
                     "expires": -1, "httpOnly": false, "secure": false, "sameSite": "Lax"}],
        "origins": [{"origin": origin, "localStorage": [{"name": "gl", "value": "from-file"}]}],
    });
    std::fs::write(&path, state.to_string()).expect("the state file");
    let file = StorageStateFile { path: path.clone(), save: true };
    let config = WebDriverConfig { storage_state: Some(file.clone()), ..WebDriverConfig::for_engine(engine) };
    let root_hits = site.hits("/");
    let browser = WebDriverBrowser::new(config);
    let got = browser.open_tab(&go(site.url("/get")), TIMEOUT).await.expect("the state loads");
    assert_eq!(got.page.title, "cookie=gl=loaded storage=from-file", "the state was loaded");
    assert_eq!(site.hits("/"), root_hits, "seeding an origin's storage sends it nothing");
    browser.open_tab(&go(site.url("/set")), TIMEOUT).await.expect("/set");
    browser.shutdown().await;

    let saved = file.read().expect("the saved state");
    let cookie = saved.cookies.iter().find(|c| c.name == "gl").expect("the cookie was saved");
    assert_eq!((cookie.value.as_str(), cookie.domain.as_str()), ("kept", "127.0.0.1"));
    let storage = saved.origins.iter().find(|o| o.origin == origin).expect("the origin was saved");
    let items: Vec<(&str, &str)> =
        storage.local_storage.iter().map(|i| (i.name.as_str(), i.value.as_str())).collect();
    assert_eq!(items, vec![("gl", "stored")]);
    let mode = std::fs::metadata(&path).expect("the file").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the saved state is private");

    // Refused before any browser starts.
    let with_profile = WebDriverConfig {
        storage_state: Some(file),
        profile: Some(home.path().join("profile")),
        ..WebDriverConfig::for_engine(engine)
    };
    assert_eq!(with_profile.check(), Err(ConfigProblem::StorageStateWithProfile));
    let missing = StorageStateFile { path: home.path().join("missing.json"), save: false };
    let config = WebDriverConfig { storage_state: Some(missing), ..WebDriverConfig::for_engine(engine) };
    let refused = WebDriverBrowser::new(config)
        .open_tab(&go(site.url("/plain")), TIMEOUT)
        .await
        .expect_err("a missing state file is refused");
    let failure = refused.launch_failure().expect("a launch failure");
    assert_eq!(failure.cause, LaunchCause::InvalidConfiguration, "{refused}");
    assert!(refused.message().contains("missing.json"), "{refused}");
}

/// The first executable called one of `names` on `PATH`.
fn on_path(names: &[&str]) -> std::path::PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    names
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| panic!("none of {names:?} is on PATH"))
}

/// A wrapper script at `dir/name` that notes each start in `dir/name.ran`, then runs `real`.
fn wrapper(dir: &Path, name: &str, real: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let script = dir.join(name);
    let marker = dir.join(format!("{name}.ran"));
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho \"$@\" >> '{}'\nexec '{}' \"$@\"\n", marker.display(), real.display()),
    )
    .expect("a script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    script
}

/// The configured browser and driver executables are the ones that run: wrappers that note
/// their start; a missing one answers the closed launch cause.
async fn paths(engine: Engine, site: &Site) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (browsers, driver): (&[&str], &str) = match engine {
        Engine::Chromium => (&["chromium", "chromium-browser", "google-chrome", "chrome"], "chromedriver"),
        Engine::Firefox => (&["firefox-esr", "firefox"], "geckodriver"),
    };
    let browser_path = wrapper(dir.path(), "browser", &on_path(browsers));
    let driver_path = wrapper(dir.path(), "driver", &on_path(&[driver]));
    let config = WebDriverConfig {
        driver: DriverSource::Launch { driver_path: Some(driver_path), browser_path: Some(browser_path) },
        ..WebDriverConfig::for_engine(engine)
    };
    let browser = WebDriverBrowser::new(config);
    let opened = browser.open_tab(&go(site.url("/plain")), TIMEOUT).await.expect("the wrapped browser opens");
    assert_eq!(opened.page.title, "Plain");
    browser.shutdown().await;
    for name in ["browser", "driver"] {
        let ran = std::fs::read_to_string(dir.path().join(format!("{name}.ran"))).unwrap_or_default();
        assert!(!ran.is_empty(), "the configured {name} ran");
    }
    let missing = WebDriverBrowser::new(WebDriverConfig {
        driver: DriverSource::Launch {
            driver_path: None,
            browser_path: Some(dir.path().join("no-such-browser")),
        },
        ..WebDriverConfig::for_engine(engine)
    });
    let error = missing.open_tab(&go(site.url("/plain")), TIMEOUT).await.expect_err("no browser there");
    let cause = error.launch_failure().map(|f| f.cause);
    eprintln!("[{}] a missing browser_path: {cause:?}", engine.as_str());
    assert_eq!(cause, Some(LaunchCause::BrowserNotFound), "{error}");
    missing.shutdown().await;
}

/// A minimal HTTP proxy on 127.0.0.1: records each request line and answers every request
/// with a page titled after the host asked for.
struct RecordingProxy {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
}

impl RecordingProxy {
    fn start() -> RecordingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback listener");
        let port = listener.local_addr().expect("an address").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = Arc::clone(&log);
                std::thread::spawn(move || {
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                    let mut reader = BufReader::new(&stream);
                    let mut line = String::new();
                    if reader.read_line(&mut line).is_err() {
                        return;
                    }
                    let request = line.trim().to_owned();
                    loop {
                        let mut header = String::new();
                        match reader.read_line(&mut header) {
                            Ok(0) | Err(_) => break,
                            Ok(_) if header.trim().is_empty() => break,
                            Ok(_) => {}
                        }
                    }
                    let host = request
                        .split_whitespace()
                        .nth(1)
                        .and_then(|target| Url::parse(target).ok())
                        .and_then(|url| url.host_str().map(str::to_owned))
                        .unwrap_or_default();
                    log.lock().expect("the log").push(request);
                    let body = format!("<!doctype html><title>Proxied {host}</title><p>via the proxy</p>");
                    let response = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let mut stream = &stream;
                    let _ = stream.write_all(response.as_bytes());
                });
            }
        });
        RecordingProxy { port, seen }
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().expect("the log").clone()
    }
}

/// Pages of made-up hosts load through the proxy (which resolves nothing: it answers
/// itself); a bypassed host goes direct, where its name does not resolve.
async fn proxy(engine: Engine) {
    let recorder = RecordingProxy::start();
    let mut proxy = Proxy::parse(&format!("http://127.0.0.1:{}", recorder.port)).expect("a proxy URL");
    proxy.bypass = vec!["bypassed.test".into()];
    let home = tempfile::tempdir().expect("a temporary folder");
    let profile = home.path().join("profile");
    let config = WebDriverConfig {
        proxy: Some(proxy),
        profile: Some(profile.clone()),
        ..WebDriverConfig::for_engine(engine)
    };
    let browser = WebDriverBrowser::new(config);
    let url = Url::parse("http://through.test/page").expect("a URL");
    let opened = browser.open_tab(&go(url.clone()), TIMEOUT).await.expect("the proxy answers");
    assert_eq!(opened.page.title, "Proxied through.test");
    let bypassed = Url::parse("http://bypassed.test/page").expect("a URL");
    let direct = browser.navigate(&TabCall::new(&opened.tab, &Gate::open(), SHORT), &go(bypassed)).await;
    browser.shutdown().await;
    let seen = recorder.seen();
    let ours: Vec<&String> = seen.iter().filter(|line| line.contains(".test")).collect();
    eprintln!(
        "[{}] the proxy saw {} requests ({} of the browser's own), the test's: {ours:?}; bypassed.test: {:?}",
        engine.as_str(),
        seen.len(),
        seen.len() - ours.len(),
        direct.as_ref().err().map(|e| e.kind())
    );
    assert!(seen.iter().any(|line| line == "GET http://through.test/page HTTP/1.1"), "{seen:?}");
    assert!(
        !seen.iter().any(|line| line.contains("bypassed.test")),
        "the bypassed host went direct: {seen:?}"
    );
    assert!(direct.is_err(), "bypassed.test does not resolve without the proxy");

    // The same profile without a proxy goes direct: nothing of the first run's proxy stays
    // in force (geckodriver leaves its preferences in the profile's user.js).
    let before = recorder.seen().iter().filter(|line| line.contains("through.test")).count();
    let plain = WebDriverBrowser::new(WebDriverConfig {
        profile: Some(profile),
        ..WebDriverConfig::for_engine(engine)
    });
    let unproxied = plain.open_tab(&go(url), SHORT).await;
    plain.shutdown().await;
    let after = recorder.seen().iter().filter(|line| line.contains("through.test")).count();
    assert!(unproxied.is_err(), "through.test does not resolve without the proxy");
    assert_eq!(before, after, "a later run without a proxy does not use the earlier run's proxy");
}

/// `openssl s_server -www` on a free loopback port with a fresh self-signed certificate.
struct TlsServer {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl TlsServer {
    /// Start it, or `None` when the `openssl` command is missing.
    fn start() -> Option<TlsServer> {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
        let made = Command::new("openssl")
            .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"])
            .args(["-addext", "subjectAltName=IP:127.0.0.1"])
            .arg("-keyout")
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if !made.is_ok_and(|status| status.success()) {
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0").expect("a port").local_addr().expect("an address").port();
        let child = Command::new("openssl")
            .args(["s_server", "-www", "-quiet", "-accept"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("-cert")
            .arg(&cert)
            .arg("-key")
            .arg(&key)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "openssl s_server did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(TlsServer { child, port, _dir: dir })
    }

    fn url(&self) -> Url {
        Url::parse(&format!("https://127.0.0.1:{}/", self.port)).expect("a URL")
    }
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A self-signed certificate is refused by default and accepted with the option.
async fn https(engine: Engine) {
    let Some(server) = TlsServer::start() else {
        eprintln!("[{}] skipped: the openssl command is missing", engine.as_str());
        return;
    };
    let strict = WebDriverBrowser::new(WebDriverConfig::for_engine(engine));
    let refused = strict.open_tab(&go(server.url()), TIMEOUT).await.expect_err("the certificate is refused");
    let network = refused.network_failure().map(|f| (f.error, f.browser_code.clone()));
    eprintln!("[{}] without the option: {:?} {network:?}", engine.as_str(), refused.kind());
    assert_eq!(network.map(|n| n.0), Some(NetworkError::Tls), "{refused}");
    strict.shutdown().await;

    let lenient = WebDriverBrowser::new(WebDriverConfig {
        accept_insecure_certs: true,
        ..WebDriverConfig::for_engine(engine)
    });
    let opened = lenient.open_tab(&go(server.url()), TIMEOUT).await.expect("the certificate is accepted");
    assert_eq!(opened.page.url.scheme(), "https");
    let text = lenient
        .execute(&TabCall::new(&opened.tab, &Gate::open(), TIMEOUT), "document.body.innerText")
        .await
        .expect("the page reads");
    eprintln!("[{}] with the option: {}", engine.as_str(), opened.page.url);
    assert!(
        text.value.as_str().is_some_and(|t| t.contains("s_server")),
        "openssl's status page: {:?}",
        text.value
    );
    lenient.shutdown().await;
}

/// One browser with a viewport, an extra argument and diagnostics from the start: every tab
/// has the viewport, the browser runs with the argument, and the first `browser_diagnose`
/// after a load holds the load's console error and its 404.
async fn viewport_args_diagnostics(engine: Engine, site: &Site) {
    let marker = match engine {
        Engine::Chromium => "--user-agent=GhostlightLaunchOptions/1.0",
        Engine::Firefox => "-purgecaches",
    };
    let config = WebDriverConfig {
        viewport: Some(Viewport { width: 1000, height: 700 }),
        browser_args: vec![marker.to_owned()],
        diagnostics: Diagnostics::OnStart,
        ..WebDriverConfig::for_engine(engine)
    };
    let browser = Arc::new(WebDriverBrowser::new(config));
    let ghostlight = Ghostlight::new(browser.clone());
    tools::ok(&ghostlight, "browser_navigate", json!({"url": site.url("/load-problems").as_str()})).await;
    let started = Instant::now();
    let first = tools::call(&ghostlight, "browser_diagnose", json!({})).await;
    let facts = &first.facts;
    eprintln!(
        "[{}] first browser_diagnose ({} ms): {}",
        engine.as_str(),
        started.elapsed().as_millis(),
        first.summary
    );
    assert_eq!(facts["tracking_started"], json!(false), "{facts:#?}");
    let entries = facts["entries"].as_array().cloned().unwrap_or_default();
    let console = entries.iter().any(|e| {
        e["source"] == "console"
            && e["level"] == "error"
            && e["text"].as_str().is_some_and(|t| t.contains("gl-load-error"))
    });
    let missing = entries.iter().any(|e| {
        e["source"] == "network"
            && e["status"] == 404
            && e["url"].as_str().is_some_and(|u| u.ends_with("/missing.png"))
    });
    assert!(console && missing, "the first call holds the load's error and its 404: {facts:#?}");

    // Every tab has the viewport: the one core opened, and one more.
    browser.open_tab(&go(site.url("/plain")), TIMEOUT).await.expect("a second tab");
    let tabs = browser.tabs().await.expect("the tabs");
    assert!(tabs.len() >= 2);
    for info in &tabs {
        let geometry = browser.geometry(&info.tab).await.expect("geometry");
        eprintln!(
            "[{}] {}: viewport {}x{}, window {}x{}",
            engine.as_str(),
            info.page.url,
            geometry.viewport_width,
            geometry.viewport_height,
            geometry.window_width,
            geometry.window_height
        );
        assert_eq!((geometry.viewport_width, geometry.viewport_height), (1000, 700));
    }

    let process = browser.testing_process().await.expect("a launched browser");
    let with_marker = processes_with(Path::new(marker));
    assert!(
        processes_with(&process.profile_dir).iter().any(|pid| with_marker.contains(pid)),
        "the browser runs with {marker}"
    );
    if engine == Engine::Chromium {
        let tab = &tabs[0].tab;
        let agent = browser
            .execute(&TabCall::new(tab, &Gate::open(), TIMEOUT), "navigator.userAgent")
            .await
            .expect("a script");
        assert_eq!(agent.value, json!("GhostlightLaunchOptions/1.0"));
    }
    browser.shutdown().await;
}
