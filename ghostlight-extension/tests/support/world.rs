//! One browser with the Ghostlight extension loaded, for the browser tests and the latency
//! bench: the repository's `extension/` loaded (Chromium: `--load-extension`; Firefox:
//! sideloaded into a fresh profile through an extension proxy file), the native host
//! registered where each browser looks (Chromium: the profile's `NativeMessagingHosts/`;
//! Firefox: `$HOME/.mozilla/native-messaging-hosts/`), this crate's `ghostlight-native-host`
//! relaying to an [`ExtensionBrowser`]. Its own temporary HOME, profile, TMPDIR and socket
//! directory; the browser in its own process group, which teardown kills and checks empty.

// Shared by test binaries and the bench, each using a part of it.
#![allow(dead_code)]

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_core::port::{BrowserPort, PortErrorKind};
use ghostlight_extension::endpoint::{SECRET_FILE_VAR, SOCKET_DIR_VAR};
use ghostlight_extension::identity::{CHROMIUM_ORIGIN, GECKO_ID, NATIVE_HOST_NAME};
use ghostlight_extension::{ExtensionBrowser, ExtensionConfig};
use ghostlight_webdriver::{CHROMIUM_FLAGS, Engine, NO_SANDBOX_FLAG};
use serde_json::json;

/// The longest wait for the extension's hello after launch (measured: well under 3 s).
const HELLO_BOUND: Duration = Duration::from_secs(30);
/// The longest wait for teardown to be observed.
const TEARDOWN_BOUND: Duration = Duration::from_secs(10);

/// The real Chromium binary (Debian's `/usr/bin/chromium` wrapper adds an empty
/// `--load-extension=` that would override ours).
fn chromium_binary() -> PathBuf {
    let debian = Path::new("/usr/lib/chromium/chromium");
    if debian.is_file() { debian.to_path_buf() } else { PathBuf::from("chromium") }
}

/// The extension as `ghostlight install` places it (the repository's `extension/` folder and
/// the page API composed from the page scripts), in this test binary's folder of the target
/// directory; written again only where it differs.
fn extension_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(concat!("extension-", env!("CARGO_CRATE_NAME")));
    ghostlight_extension::bundle::place(&dir).expect("the extension placed");
    dir.canonicalize().expect("the extension folder")
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
        // A DevTools port a test may attach a driver to (to play the person in the popup); the
        // browser writes it to the profile's `DevToolsActivePort`.
        .arg("--remote-debugging-port=0")
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

/// One test's world: its folders, its browser port, and the browser's process group.
pub(crate) struct World {
    dir: tempfile::TempDir,
    engine: Engine,
    config: ExtensionConfig,
    /// The browser's HOME (its downloads go to `Downloads/` there).
    pub(crate) home: PathBuf,
    /// The port over the extension.
    pub(crate) browser: Arc<ExtensionBrowser>,
    /// The browser's first process (its process group's leader).
    process: Child,
    /// Launch to the extension's hello.
    pub(crate) hello_after: Duration,
}

impl World {
    /// Launch `engine` with the extension and wait for its hello (panics past the bound).
    pub(crate) async fn start(engine: Engine) -> World {
        let dir = tempfile::tempdir().expect("a temp dir");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).expect("a folder");
        let config = ExtensionConfig {
            socket_dir: dir.path().join("run"),
            secret_file: home.join(".config/ghostlight/secret"),
        };
        let browser = Arc::new(ExtensionBrowser::listen(&config).expect("listening"));
        let launched = Instant::now();
        let process = launch(engine, dir.path(), &home, &config);
        let mut world = World { dir, engine, config, home, browser, process, hello_after: Duration::ZERO };
        world.hello_after = world.hello_since(launched).await;
        eprintln!("[{}] launch to hello: {} ms", engine.as_str(), world.hello_after.as_millis());
        world
    }

    /// Chromium's DevTools address (`127.0.0.1:PORT`), once it has written it.
    pub(crate) fn devtools(&self) -> Option<String> {
        let text = std::fs::read_to_string(self.dir.path().join("profile/DevToolsActivePort")).ok()?;
        let port = text.lines().next()?.trim();
        (!port.is_empty()).then(|| format!("127.0.0.1:{port}"))
    }

    /// Wait for the extension's hello (panics, after killing the browser, past the bound);
    /// the time since `since`.
    async fn hello_since(&mut self, since: Instant) -> Duration {
        let hello = self.browser.wait_connected(HELLO_BOUND).await;
        if hello.is_none() {
            self.kill_group();
            panic!("[{}] no hello from the extension within {HELLO_BOUND:?}", self.engine.as_str());
        }
        assert_eq!(self.browser.engine(), self.engine.as_str());
        since.elapsed()
    }

    /// Close the browser (its whole process group, the native host with it) and wait until
    /// the port has noticed.
    pub(crate) async fn close_browser(&mut self) {
        self.kill_group();
        self.until_disconnected().await;
    }

    /// Start the browser again in the same profile after [`World::close_browser`] (as a
    /// person does), connecting to the same port; the time to its hello.
    pub(crate) async fn reopen_browser(&mut self) -> Duration {
        let launched = Instant::now();
        self.process = launch(self.engine, self.dir.path(), &self.home, &self.config);
        self.hello_since(launched).await
    }

    /// Kill the native host only (the browser stays); the time until the extension has
    /// reconnected through a new host.
    pub(crate) async fn kill_host(&mut self) -> Duration {
        let hosts: Vec<i32> = members(self.group())
            .into_iter()
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|line| line.windows(HOST_BINARY.len()).any(|w| w == HOST_BINARY.as_bytes()))
            })
            .collect();
        assert_eq!(hosts.len(), 1, "one native host runs in the browser's group");
        let killed = Instant::now();
        let _ =
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(hosts[0]), nix::sys::signal::Signal::SIGKILL);
        self.until_disconnected().await;
        self.hello_since(killed).await
    }

    /// Stop listening (the server goes away: its socket is removed, the host exits) and
    /// listen again at the same place; the time until the extension has reconnected.
    pub(crate) async fn restart_server(&mut self) -> Duration {
        assert_eq!(Arc::strong_count(&self.browser), 1, "nothing else holds the browser port");
        let stopped = Instant::now();
        // Replaced in two steps, so the old port's socket is gone before the new one binds.
        let placeholder = ExtensionConfig {
            socket_dir: self.dir.path().join("placeholder"),
            secret_file: self.dir.path().join("placeholder.secret"),
        };
        self.browser = Arc::new(ExtensionBrowser::listen(&placeholder).expect("a placeholder port"));
        self.browser = Arc::new(ExtensionBrowser::listen(&self.config).expect("listening again"));
        self.hello_since(stopped).await
    }

    /// Wait (bounded) until the port has noticed the connection ended.
    async fn until_disconnected(&self) {
        let deadline = Instant::now() + TEARDOWN_BOUND;
        while self.browser.connected().is_some() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(self.browser.connected().is_none(), "the connection ended");
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
    pub(crate) async fn teardown(mut self) {
        self.kill_group();
        let group = self.group();
        let deadline = Instant::now() + TEARDOWN_BOUND;
        while (!members(group).is_empty() || self.browser.connected().is_some()) && Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(members(group), Vec::<i32>::new(), "the browser's process group is empty");
        assert!(self.browser.connected().is_none(), "the connection ended with the browser");
        let gone = self.browser.tabs().await.expect_err("no browser");
        assert_eq!(gone.kind(), PortErrorKind::NotConnected);
        let socket = self.browser.socket_path().to_path_buf();
        assert_eq!(Arc::strong_count(&self.browser), 1, "nothing else holds the browser port");
        drop(self.browser);
        assert!(!socket.exists(), "the socket is removed");
    }
}

/// The native host's executable name, as it shows in a process's command line.
const HOST_BINARY: &str = "ghostlight-native-host";

/// Start `engine` (its profile under `dir`) with the extension, in its own process group, its
/// environment pointing at `config`.
fn launch(engine: Engine, dir: &Path, home: &Path, config: &ExtensionConfig) -> Child {
    let profile = dir.join("profile");
    let tmp = dir.join("tmp");
    for d in [&profile, &tmp] {
        std::fs::create_dir_all(d).expect("a folder");
    }
    let mut command = match engine {
        Engine::Chromium => chromium(&profile),
        Engine::Firefox => firefox(&profile, home),
    };
    command
        .env("HOME", home)
        .env("TMPDIR", &tmp)
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .env(SOCKET_DIR_VAR, &config.socket_dir)
        .env(SECRET_FILE_VAR, &config.secret_file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    command.spawn().expect("the browser starts")
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
