//! Starting and stopping a local driver (chromedriver, geckodriver) and its browser.
//!
//! The driver runs in its own process group, and the browser it starts inherits that group.
//! Stopping kills the whole group: when a driver dies, its browser survives as an orphan (see
//! `docs/webdriver-findings.md` §9), so killing the driver alone is not enough. The browser
//! profile is a fresh temporary directory, removed after the kill.
//!
//! **Nothing outlives the server.** The group's leader is a tiny `sh` watchdog
//! ([`WATCHDOG`]): it starts the driver, and kills its whole group as soon as its standard
//! input (a pipe only this process holds) reaches end of file, which happens however this
//! process ends, SIGKILL included; it kills the group too when the driver exits. A profile
//! folder's name carries the owning process id, and every launch first removes the folders
//! of owners that are gone ([`sweep_stale_profiles`]), so a killed server's profile does not
//! stay behind either.
//!
//! **A persistent profile** ([`WebDriverConfig::profile`]) is the person's data: it is created
//! when missing, locked while the browser runs ([`lock_profile`]: an exclusive `flock` on
//! [`PROFILE_LOCK_FILE`] inside it, released when the process ends however it ends) and never
//! removed; the sweep leaves alone any folder holding that file. Inline upload files are then
//! staged in a temporary scratch folder of their own, not in the profile.

use std::fs::File;
use std::io::{Read as _, Seek as _, Write as _};
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use fantoccini::{Client, ClientBuilder};
use ghostlight_core::port::{LaunchCause, LaunchFailure, PortError, PortResult};
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::rt::TokioExecutor;
use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde_json::{Map, Value, json};
use tokio::process::{Child, Command};
use url::Url;

use crate::config::{
    CHROMIUM_FLAGS, DriverSource, Engine, NO_SANDBOX_FLAG, PROFILE_LOCK_FILE, RESERVED_CAPABILITIES,
    WebDriverConfig,
};
use crate::config::{Proxy, ProxyScheme};
use crate::errors;
use crate::session::SESSION_START_TIMEOUT;
use crate::wire::{CountingConnector, Wire};

/// How long a freshly spawned driver may take to answer `GET /status` with `ready: true`.
pub(crate) const DRIVER_READY_TIMEOUT: Duration = Duration::from_secs(20);
/// Pause between two `GET /status` polls.
const READY_POLL_INTERVAL: Duration = Duration::from_millis(50);
/// One `GET /status` request may take this long.
const STATUS_REQUEST_TIMEOUT: Duration = Duration::from_secs(2);
/// How long to wait for the killed driver to be reaped.
const REAP_TIMEOUT: Duration = Duration::from_secs(5);
/// The prefix of every profile folder this adapter makes (then the engine, the owning
/// process id and a random part: `ghostlight-chromium-4242-AbC123`).
const PROFILE_PREFIX: &str = "ghostlight-";

/// The watchdog leading the driver's process group: the driver runs in the background with
/// no standard streams; a background reader holds the watchdog's standard input (this
/// process's pipe, moved to fd 3 because background jobs read `/dev/null`) and kills the
/// group (`kill 0`) at end of file; the foreground waits for the driver and kills the group
/// when it exits.
pub(crate) const WATCHDOG: &str = "exec 3<&0 </dev/null
\"$@\" >/dev/null 2>&1 &
driver=$!
{ read -r _ <&3; kill -KILL 0; } &
wait \"$driver\"
kill -KILL 0";

/// Why a local driver could not be started. Messages name no page content; paths are the
/// operator's own configuration.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LaunchError {
    /// No driver executable on `PATH`.
    #[error("{driver} was not found on PATH")]
    DriverNotFound {
        /// The executable looked for.
        driver: &'static str,
    },
    /// The configured driver path is not an executable file.
    #[error("the configured driver path is not an executable file")]
    DriverNotExecutable,
    /// No free loopback port could be reserved.
    #[error("no free loopback port: {0}")]
    Port(#[source] std::io::Error),
    /// The persistent profile could not be prepared or is in use.
    #[error(transparent)]
    PersistentProfile(#[from] ProfileError),
    /// The temporary profile directory could not be created.
    #[error("the browser profile directory could not be created: {0}")]
    Profile(#[source] std::io::Error),
    /// The driver process could not be spawned.
    #[error("the driver could not be started: {0}")]
    Spawn(#[source] std::io::Error),
    /// The driver exited before it was ready.
    #[error("the driver exited during startup")]
    Exited,
    /// The driver did not report ready in time.
    #[error("the driver was not ready within {0:?}")]
    NotReady(Duration),
}

impl LaunchError {
    /// The closed cause the envelope carries.
    pub(crate) fn cause(&self) -> LaunchCause {
        match self {
            LaunchError::DriverNotFound { .. } => LaunchCause::DriverNotFound,
            LaunchError::DriverNotExecutable => LaunchCause::DriverNotExecutable,
            LaunchError::Port(_) | LaunchError::Profile(_) => LaunchCause::HostResources,
            LaunchError::PersistentProfile(ProfileError::InUse { .. }) => LaunchCause::ProfileInUse,
            LaunchError::PersistentProfile(ProfileError::Folder { .. }) => LaunchCause::HostResources,
            LaunchError::Spawn(_) | LaunchError::Exited => LaunchCause::DriverExited,
            LaunchError::NotReady(_) => LaunchCause::DriverNotReady,
        }
    }
}

/// A persistent profile that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileError {
    /// Another browser holds the profile's lock.
    #[error(
        "the browser profile {} is in use by another Ghostlight server{} (it holds {PROFILE_LOCK_FILE} \
         inside it); stop that server, or configure another profile",
        path.display(),
        holder.map(|pid| format!(" (process {pid})")).unwrap_or_default()
    )]
    InUse {
        /// The profile folder.
        path: PathBuf,
        /// The process id the holder wrote into the lock file, when readable.
        holder: Option<u32>,
    },
    /// The folder or its lock file could not be created or opened.
    #[error("the browser profile {} cannot be used: {source}", path.display())]
    Folder {
        /// The profile folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// An exclusive lock on a persistent profile, held until dropped (or the process ends).
#[derive(Debug)]
pub(crate) struct ProfileLock {
    /// The locked [`PROFILE_LOCK_FILE`].
    _lock: Flock<File>,
    /// The profile folder.
    path: PathBuf,
}

impl ProfileLock {
    /// The profile folder.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

/// Create the persistent profile `path` when missing (mode 0700) and take the exclusive lock
/// on its [`PROFILE_LOCK_FILE`], writing this process's id into it. Refused with
/// [`ProfileError::InUse`] while another process (or another browser of this one) holds it.
pub(crate) fn lock_profile(path: &Path) -> Result<ProfileLock, ProfileError> {
    use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
    let folder = |source| ProfileError::Folder { path: path.to_owned(), source };
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(path).map_err(folder)?;
    if !path.is_dir() {
        return Err(folder(std::io::Error::other("it is not a folder")));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path.join(PROFILE_LOCK_FILE))
        .map_err(folder)?;
    let mut lock = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(lock) => lock,
        Err((mut file, Errno::EWOULDBLOCK)) => {
            let mut text = String::new();
            let holder = file.read_to_string(&mut text).ok().and_then(|_| text.trim().parse().ok());
            return Err(ProfileError::InUse { path: path.to_owned(), holder });
        }
        Err((_, errno)) => return Err(folder(std::io::Error::from(errno))),
    };
    // Who holds it, for the message another server prints; the lock works without it.
    let _ =
        lock.set_len(0).and_then(|()| lock.rewind()).and_then(|()| write!(lock, "{}", std::process::id()));
    Ok(ProfileLock { _lock: lock, path: path.to_owned() })
}

/// Whether the persistent profile `path` could be used now: `Ok` when it is free or does not
/// exist yet, [`ProfileError::InUse`] while another browser holds it. Takes and releases the
/// lock; creates nothing.
pub fn check_profile(path: &Path) -> Result<(), ProfileError> {
    if !path.join(PROFILE_LOCK_FILE).exists() {
        return Ok(());
    }
    lock_profile(path).map(drop)
}

/// The browser profile of a launched driver.
#[derive(Debug)]
enum Profile {
    /// A fresh temporary folder, removed at shutdown; it also holds staged files.
    Temporary(tempfile::TempDir),
    /// The person's folder: locked while the browser runs, never removed. Staged files go to
    /// `scratch`, a temporary folder removed at shutdown.
    Persistent {
        /// The lock (it knows the folder).
        lock: ProfileLock,
        /// The temporary folder for staged files.
        scratch: tempfile::TempDir,
    },
}

/// A running local driver: its watchdog (the group leader), endpoint and the browser profile.
#[derive(Debug)]
pub(crate) struct DriverProcess {
    child: Child,
    /// The watchdog's standard input: while it is open, the driver lives.
    _lifeline: Option<tokio::process::ChildStdin>,
    group: Option<Pid>,
    url: Url,
    profile: Option<Profile>,
}

impl DriverProcess {
    /// Start the configured driver on a free loopback port and wait until it is ready.
    pub(crate) async fn launch(config: &WebDriverConfig) -> Result<DriverProcess, LaunchError> {
        let driver_path = match &config.driver {
            DriverSource::Launch { driver_path: Some(path), .. } => {
                if !is_executable(path) {
                    return Err(LaunchError::DriverNotExecutable);
                }
                path.clone()
            }
            _ => find_on_path(config.engine.driver_name())
                .ok_or(LaunchError::DriverNotFound { driver: config.engine.driver_name() })?,
        };
        let port = free_port()?;
        sweep_stale_profiles(&std::env::temp_dir());
        let temporary = tempfile::Builder::new()
            .prefix(&format!("{PROFILE_PREFIX}{}-{}-", config.engine.as_str(), std::process::id()))
            .tempdir()
            .map_err(LaunchError::Profile)?;
        let profile = match &config.profile {
            Some(path) => Profile::Persistent { lock: lock_profile(path)?, scratch: temporary },
            None => Profile::Temporary(temporary),
        };
        let mut command = Command::new("sh");
        command.arg("-c").arg(WATCHDOG).arg("ghostlight-watchdog").arg(&driver_path);
        match config.engine {
            Engine::Chromium => {
                command.arg(format!("--port={port}"));
            }
            Engine::Firefox => {
                let websocket_port = free_port()?;
                command
                    .args(["--host", "127.0.0.1", "--port"])
                    .arg(port.to_string())
                    .arg("--websocket-port")
                    .arg(websocket_port.to_string());
            }
        }
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .process_group(0);
        let mut child = command.spawn().map_err(LaunchError::Spawn)?;
        let lifeline = child.stdin.take();
        let group = child.id().and_then(|id| i32::try_from(id).ok()).map(Pid::from_raw);
        let url = Url::parse(&format!("http://127.0.0.1:{port}/"))
            .map_err(|_| LaunchError::Port(std::io::Error::other("the driver URL does not parse")))?;
        let mut process = DriverProcess { child, _lifeline: lifeline, group, url, profile: Some(profile) };
        process.wait_ready().await?;
        Ok(process)
    }

    /// The driver's WebDriver endpoint.
    pub(crate) fn url(&self) -> &Url {
        &self.url
    }

    /// The browser profile directory (the Chromium `--user-data-dir` / Firefox `-profile`).
    pub(crate) fn profile_dir(&self) -> Option<&Path> {
        match self.profile.as_ref()? {
            Profile::Temporary(dir) => Some(dir.path()),
            Profile::Persistent { lock, .. } => Some(lock.path()),
        }
    }

    /// A temporary folder removed at shutdown, for files the browser reads (staged uploads):
    /// the temporary profile, or the scratch folder beside a persistent one.
    pub(crate) fn scratch_dir(&self) -> Option<&Path> {
        match self.profile.as_ref()? {
            Profile::Temporary(dir) | Profile::Persistent { scratch: dir, .. } => Some(dir.path()),
        }
    }

    /// The watchdog's process id (also the driver's process group id; for tests).
    #[cfg(feature = "testing")]
    pub(crate) fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    async fn wait_ready(&mut self) -> Result<(), LaunchError> {
        let status = format!("{}status", self.url);
        let uri: http::Uri =
            status.parse().map_err(|_| LaunchError::Port(std::io::Error::other("bad status URL")))?;
        let http = HttpClient::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
        let deadline = tokio::time::Instant::now() + DRIVER_READY_TIMEOUT;
        loop {
            if let Ok(Some(_)) = self.child.try_wait() {
                return Err(LaunchError::Exited);
            }
            let probe = async {
                let response = http.get(uri.clone()).await.ok()?;
                let body = response.into_body().collect().await.ok()?.to_bytes();
                let value: Value = serde_json::from_slice(&body).ok()?;
                value.pointer("/value/ready").and_then(Value::as_bool)
            };
            if let Ok(Some(true)) = tokio::time::timeout(STATUS_REQUEST_TIMEOUT, probe).await {
                return Ok(());
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(LaunchError::NotReady(DRIVER_READY_TIMEOUT));
            }
            tokio::time::sleep(READY_POLL_INTERVAL).await;
        }
    }

    /// Kill the driver's whole process group (driver and browser) at once.
    fn kill_group(&mut self) {
        if let Some(group) = self.group {
            // ESRCH (already gone) is the expected answer after a clean exit.
            let _ = killpg(group, Signal::SIGKILL);
        }
        let _ = self.child.start_kill();
    }

    /// Kill the driver and browser, reap the driver, and remove the profile directory.
    pub(crate) async fn shutdown(mut self) {
        self.kill_group();
        let _ = tokio::time::timeout(REAP_TIMEOUT, self.child.wait()).await;
        self.remove_profile();
    }

    /// Remove the temporary folder (the profile, or the scratch folder beside a persistent
    /// profile, which stays and is unlocked). Called after the browser was killed.
    fn remove_profile(&mut self) {
        let temporary = match self.profile.take() {
            Some(Profile::Temporary(dir)) => dir,
            // The lock is released as it drops here, after the browser was killed.
            Some(Profile::Persistent { scratch, .. }) => scratch,
            None => return,
        };
        let path = temporary.path().to_path_buf();
        if temporary.close().is_err() {
            // A dying browser may still have been writing; one more try.
            let _ = std::fs::remove_dir_all(path);
        }
    }
}

impl Drop for DriverProcess {
    fn drop(&mut self) {
        self.kill_group();
        self.remove_profile();
    }
}

/// Remove the profile folders under `dir` this adapter made for processes that are gone (a
/// server killed before it could clean up). Folders of live processes, anything that does
/// not carry this adapter's name, and any folder holding a persistent profile's
/// [`PROFILE_LOCK_FILE`] (a person's profile that happens to carry such a name) are left
/// alone.
pub(crate) fn sweep_stale_profiles(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(owner) = name.to_str().and_then(profile_owner) else { continue };
        let alive = Path::new("/proc").join(owner.to_string()).exists();
        let persistent = entry.path().join(PROFILE_LOCK_FILE).exists();
        if !alive && !persistent && entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The owning process id in a profile folder's name (`ghostlight-<engine>-<pid>-<random>`).
fn profile_owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PROFILE_PREFIX)?;
    let (engine, rest) = rest.split_once('-')?;
    if ![Engine::Chromium, Engine::Firefox].iter().any(|known| known.as_str() == engine) {
        return None;
    }
    rest.split_once('-')?.0.parse().ok()
}

/// The capabilities every WebDriver session of the adapter asks for, launched or attached:
/// dialogs left to the adapter (the map form: plain `"ignore"` silently accepts beforeunload
/// prompts on both engines) and loads waited for.
pub(crate) fn base_capabilities() -> Map<String, Value> {
    let mut caps = Map::new();
    caps.insert("unhandledPromptBehavior".into(), json!({ "default": "ignore", "beforeUnload": "ignore" }));
    caps.insert("pageLoadStrategy".into(), json!("normal"));
    caps
}

/// A launch failure of `config`'s driver and browser: `cause`, and the operator's `message`.
pub(crate) fn launch_failed(config: &WebDriverConfig, cause: LaunchCause, message: String) -> PortError {
    let failure = LaunchFailure {
        cause,
        driver: config.engine.driver_name().to_owned(),
        browser: config.engine.display_name().to_owned(),
    };
    PortError::launch_failed(failure, message)
}

/// `config`, checked before anything starts (an invalid one is a launch failure naming the
/// problem).
pub(crate) fn check_config(config: &WebDriverConfig) -> PortResult<()> {
    config.check().map_err(|problem| {
        launch_failed(
            config,
            LaunchCause::InvalidConfiguration,
            format!("the browser could not be started: {problem}"),
        )
    })
}

/// Open a WebDriver session with `caps` at the driver `endpoint` (its commands counted in
/// `wire`), within [`SESSION_START_TIMEOUT`].
pub(crate) async fn new_session(
    config: &WebDriverConfig,
    endpoint: &Url,
    caps: Map<String, Value>,
    wire: &Arc<Wire>,
) -> PortResult<Client> {
    let mut builder = ClientBuilder::new(CountingConnector::new(Arc::clone(wire)));
    let connect = builder.capabilities(caps).connect(endpoint.as_str());
    match tokio::time::timeout(SESSION_START_TIMEOUT, connect).await {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(error)) => Err(errors::new_session(&error, config.engine)),
        Err(_) => Err(launch_failed(
            config,
            LaunchCause::BrowserNotReady,
            "the browser session did not start in time".to_owned(),
        )),
    }
}

/// chromedriver's `goog:chromeOptions.debuggerAddress` in session capabilities (the browser's
/// DevTools address, `host:port`).
pub(crate) fn debugger_address(capabilities: &Map<String, Value>) -> Option<String> {
    capabilities
        .get("goog:chromeOptions")
        .and_then(|options| options.get("debuggerAddress"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The session capabilities for `config`. `profile` is the local profile directory (none
/// when connecting to a driver elsewhere); `filter` the address of the network filter the
/// browser is started behind (the configured proxy is then the filter's upstream, not the
/// browser's).
pub(crate) fn capabilities(
    config: &WebDriverConfig,
    profile: Option<&Path>,
    filter: Option<SocketAddr>,
) -> Map<String, Value> {
    let mut caps = base_capabilities();
    caps.insert("webSocketUrl".into(), json!(true));
    if config.accept_insecure_certs {
        caps.insert("acceptInsecureCerts".into(), json!(true));
    }
    let browser = match &config.driver {
        DriverSource::Launch { browser_path, .. } => browser_path.clone(),
        DriverSource::Connect(_) => None,
    };
    let (width, height) = (config.window_width, config.window_height);
    match config.engine {
        Engine::Chromium => {
            let mut args: Vec<String> = Vec::new();
            if config.headless {
                args.push("--headless=new".into());
            }
            args.extend(CHROMIUM_FLAGS.map(String::from));
            if config.sandbox.disabled() {
                args.push(NO_SANDBOX_FLAG.to_owned());
            }
            if let Some(profile) = profile {
                args.push(format!("--user-data-dir={}", profile.display()));
            }
            args.push(format!("--window-size={width},{height}"));
            match (filter, &config.proxy) {
                (Some(filter), _) => args.extend(chromium_filter_args(filter)),
                (None, Some(proxy)) => args.extend(chromium_proxy_args(proxy)),
                (None, None) => {}
            }
            args.extend(config.browser_args.iter().cloned());
            let mut options = Map::new();
            options.insert("args".into(), json!(args));
            // chromedriver turns the popup blocker off; on, a page opens at most one tab per
            // user gesture, as in the person's own browser (a flood of `window.open` is one).
            options.insert("excludeSwitches".into(), json!(["disable-popup-blocking"]));
            if let Some(binary) = browser {
                options.insert("binary".into(), json!(binary));
            }
            caps.insert("browserName".into(), json!("chrome"));
            caps.insert("goog:chromeOptions".into(), Value::Object(options));
        }
        Engine::Firefox => {
            let mut args: Vec<String> = Vec::new();
            if config.headless {
                args.push("-headless".into());
            }
            args.extend(["-width".into(), width.to_string(), "-height".into(), height.to_string()]);
            if let Some(profile) = profile {
                args.extend(["-profile".into(), profile.display().to_string()]);
            }
            args.extend(config.browser_args.iter().cloned());
            let mut options = Map::new();
            options.insert("args".into(), json!(args));
            if let Some(binary) = browser {
                options.insert("binary".into(), json!(binary));
            }
            let mut prefs = match (filter, &config.proxy) {
                (Some(filter), _) => firefox_filter_prefs(filter),
                (None, Some(proxy)) => firefox_proxy_prefs(proxy),
                (None, None) => firefox_no_proxy_prefs(),
            };
            // geckodriver turns the popup blocker off; on, a page opens at most one window per
            // user gesture, as in the person's own browser (a flood of `window.open` is one).
            prefs.insert("dom.disable_open_during_load".into(), json!(true));
            options.insert("prefs".into(), Value::Object(prefs));
            caps.insert("browserName".into(), json!("firefox"));
            caps.insert("moz:firefoxOptions".into(), Value::Object(options));
        }
    }
    merge_extra(&mut caps, &config.extra_capabilities);
    caps
}

/// Chromium behind the network filter: the filter is the proxy of every scheme, loopback
/// included (`<-loopback>` removes Chromium's implicit loopback bypass), and WebRTC may not
/// send UDP outside the proxy.
fn chromium_filter_args(filter: SocketAddr) -> Vec<String> {
    vec![
        format!("--proxy-server=http://{filter}"),
        "--proxy-bypass-list=<-loopback>".to_owned(),
        "--webrtc-ip-handling-policy=disable_non_proxied_udp".to_owned(),
    ]
}

/// Firefox behind the network filter: the filter is the HTTP and TLS proxy, loopback
/// included (`allow_hijacking_localhost`), no host bypasses it, a failed proxy never falls
/// back to a direct connection, WebRTC uses the proxy only (no UDP), and neither DNS
/// prefetching nor DNS over HTTPS resolves names beside it.
fn firefox_filter_prefs(filter: SocketAddr) -> Map<String, Value> {
    let mut prefs = Map::new();
    prefs.insert("network.proxy.type".into(), json!(1));
    for kind in ["http", "ssl"] {
        prefs.insert(format!("network.proxy.{kind}"), json!(filter.ip().to_string()));
        prefs.insert(format!("network.proxy.{kind}_port"), json!(filter.port()));
    }
    prefs.insert("network.proxy.socks".into(), json!(""));
    prefs.insert("network.proxy.no_proxies_on".into(), json!(""));
    prefs.insert("network.proxy.allow_hijacking_localhost".into(), json!(true));
    prefs.insert("network.proxy.failover_direct".into(), json!(false));
    prefs.insert("media.peerconnection.ice.proxy_only".into(), json!(true));
    prefs.insert("network.dns.disablePrefetch".into(), json!(true));
    prefs.insert("network.trr.mode".into(), json!(5));
    prefs
}

/// Chromium's proxy arguments: `--proxy-server=scheme://host:port` and, with bypass entries,
/// `--proxy-bypass-list=a;b` (loopback bypasses the proxy anyway).
fn chromium_proxy_args(proxy: &Proxy) -> Vec<String> {
    let mut args = vec![format!("--proxy-server={proxy}")];
    if !proxy.bypass.is_empty() {
        args.push(format!("--proxy-bypass-list={}", proxy.bypass.join(";")));
    }
    args
}

/// Firefox's proxy type when no proxy is configured: its own default (the system's proxy
/// settings).
const FIREFOX_DEFAULT_PROXY_TYPE: u8 = 5;

/// Firefox's preferences without a proxy: the default proxy type, written explicitly.
/// geckodriver writes preferences into a persistent profile's `user.js` and leaves them there
/// (0.37 does not restore the file at the end of a session), so a proxy one run set would
/// stay in force in every later run of that profile unless each run says what it wants.
fn firefox_no_proxy_prefs() -> Map<String, Value> {
    let mut prefs = Map::new();
    prefs.insert("network.proxy.type".into(), json!(FIREFOX_DEFAULT_PROXY_TYPE));
    prefs
}

/// Firefox's proxy preferences (`network.proxy.*`, manual configuration): an HTTP proxy
/// serves `http` and `https`; a SOCKS proxy serves everything (v5 resolves host names
/// remotely). Bypass entries go to `no_proxies_on`, with `*.example.com` written as Firefox
/// reads it (`.example.com`). Loopback bypasses the proxy anyway
/// (`network.proxy.allow_hijacking_localhost` stays off).
fn firefox_proxy_prefs(proxy: &Proxy) -> Map<String, Value> {
    let mut prefs = Map::new();
    prefs.insert("network.proxy.type".into(), json!(1));
    match proxy.scheme {
        ProxyScheme::Http | ProxyScheme::Https => {
            for kind in ["http", "ssl"] {
                prefs.insert(format!("network.proxy.{kind}"), json!(proxy.host));
                prefs.insert(format!("network.proxy.{kind}_port"), json!(proxy.port));
            }
        }
        ProxyScheme::Socks4 | ProxyScheme::Socks5 => {
            let version = if proxy.scheme == ProxyScheme::Socks4 { 4 } else { 5 };
            prefs.insert("network.proxy.socks".into(), json!(proxy.host));
            prefs.insert("network.proxy.socks_port".into(), json!(proxy.port));
            prefs.insert("network.proxy.socks_version".into(), json!(version));
            prefs.insert("network.proxy.socks_remote_dns".into(), json!(version == 5));
        }
    }
    let bypass: Vec<String> = proxy
        .bypass
        .iter()
        .map(|entry| entry.strip_prefix('*').map_or_else(|| entry.clone(), str::to_owned))
        .collect();
    prefs.insert("network.proxy.no_proxies_on".into(), json!(bypass.join(", ")));
    prefs
}

/// Merge the configured extra capabilities into `caps` (the rule is documented on
/// [`WebDriverConfig::extra_capabilities`]).
fn merge_extra(caps: &mut Map<String, Value>, extra: &Map<String, Value>) {
    for (key, value) in extra {
        if RESERVED_CAPABILITIES.contains(&key.as_str()) {
            continue;
        }
        match (caps.get_mut(key), value) {
            (Some(Value::Object(ours)), Value::Object(theirs)) => {
                for (inner, value) in theirs {
                    match (ours.get_mut(inner), value) {
                        // Arguments the adapter manages (the proxy, the profile…) stay its own.
                        (Some(Value::Array(list)), Value::Array(more)) if inner == "args" => {
                            list.extend(
                                more.iter().filter(|arg| !arg.as_str().is_some_and(reserved_arg)).cloned(),
                            );
                        }
                        // Preferences merge one key deeper; the network routing ones stay ours.
                        (Some(Value::Object(prefs)), Value::Object(more)) if inner == "prefs" => {
                            for (name, value) in more {
                                if !ROUTING_PREFS.iter().any(|prefix| name.starts_with(prefix)) {
                                    prefs.insert(name.clone(), value.clone());
                                }
                            }
                        }
                        _ => {
                            ours.insert(inner.clone(), value.clone());
                        }
                    }
                }
            }
            _ => {
                caps.insert(key.clone(), value.clone());
            }
        }
    }
}

/// Firefox preferences (by prefix) that route the browser's traffic: the adapter's own, never
/// replaced by extra capabilities.
const ROUTING_PREFS: [&str; 4] =
    ["network.proxy.", "network.trr.", "network.dns.disablePrefetch", "media.peerconnection.ice.proxy_only"];

/// Whether `arg` is one of [`RESERVED_ARGS`] (alone or with `=value`).
fn reserved_arg(arg: &str) -> bool {
    crate::config::RESERVED_ARGS
        .iter()
        .any(|reserved| arg == *reserved || arg.starts_with(&format!("{reserved}=")))
}

/// Reserve a free loopback port: bind port 0, read the port, release it.
fn free_port() -> Result<u16, LaunchError> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(LaunchError::Port)?;
    let port = listener.local_addr().map_err(LaunchError::Port)?.port();
    drop(listener);
    Ok(port)
}

/// The first executable file called `name` in a `PATH` directory.
fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromium_capabilities_follow_the_findings() {
        let config = WebDriverConfig::default();
        let caps = capabilities(&config, Some(Path::new("/tmp/p")), None);
        assert_eq!(caps["unhandledPromptBehavior"], json!({"default": "ignore", "beforeUnload": "ignore"}));
        assert_eq!(caps["webSocketUrl"], json!(true));
        let args = caps["goog:chromeOptions"]["args"].as_array().expect("args");
        for expected in ["--headless=new", "--user-data-dir=/tmp/p", "--window-size=1280,800"] {
            assert!(args.contains(&json!(expected)), "{expected}");
        }
        use crate::config::Sandbox;
        let sandboxed = |sandbox| {
            let caps = capabilities(&WebDriverConfig { sandbox, ..WebDriverConfig::default() }, None, None);
            let args = caps["goog:chromeOptions"]["args"].as_array().cloned().unwrap_or_default();
            !args.contains(&json!(NO_SANDBOX_FLAG))
        };
        assert!(sandboxed(Sandbox::On), "the sandbox stays on when asked");
        assert!(!sandboxed(Sandbox::Off));
        assert_eq!(sandboxed(Sandbox::Auto), !crate::config::runs_as_root(), "auto: off only as root");
    }

    #[test]
    fn stale_profiles_of_gone_owners_are_swept() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let gone = dir.path().join("ghostlight-chromium-999999999-abc");
        let mine = dir.path().join(format!("ghostlight-firefox-{}-def", std::process::id()));
        let other = dir.path().join("somebody-else-999999999");
        for folder in [&gone, &mine, &other] {
            std::fs::create_dir(folder).expect("a folder");
        }
        sweep_stale_profiles(dir.path());
        assert!(!gone.exists(), "a dead owner's profile is removed");
        assert!(mine.exists() && other.exists(), "a live owner's profile and foreign folders stay");
        assert_eq!(profile_owner("ghostlight-chromium-42-xyz"), Some(42));
        assert_eq!(profile_owner("ghostlight-opera-42-xyz"), None);
    }

    #[test]
    fn firefox_without_a_proxy_says_so_for_a_profile_a_proxy_run_left_behind() {
        let caps = capabilities(&WebDriverConfig::for_engine(Engine::Firefox), None, None);
        assert_eq!(
            caps["moz:firefoxOptions"]["prefs"],
            json!({"network.proxy.type": 5, "dom.disable_open_during_load": true})
        );
    }

    #[test]
    fn both_engines_keep_their_popup_blockers() {
        let chromium = capabilities(&WebDriverConfig::for_engine(Engine::Chromium), None, None);
        assert_eq!(chromium["goog:chromeOptions"]["excludeSwitches"], json!(["disable-popup-blocking"]));
        let firefox = capabilities(&WebDriverConfig::for_engine(Engine::Firefox), None, None);
        assert_eq!(firefox["moz:firefoxOptions"]["prefs"]["dom.disable_open_during_load"], json!(true));
    }

    #[test]
    fn firefox_capabilities_carry_profile_size_and_binary() {
        let config = WebDriverConfig {
            driver: DriverSource::Launch { driver_path: None, browser_path: Some("/opt/ff".into()) },
            ..WebDriverConfig::for_engine(Engine::Firefox)
        };
        let caps = capabilities(&config, Some(Path::new("/tmp/q")), None);
        let options = &caps["moz:firefoxOptions"];
        assert_eq!(options["binary"], json!("/opt/ff"));
        assert_eq!(
            options["args"],
            json!(["-headless", "-width", "1280", "-height", "800", "-profile", "/tmp/q"])
        );
    }

    #[test]
    fn extra_capabilities_are_merged_but_never_replace_reserved_keys() {
        let extra = json!({
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {"args": ["--lang=de"], "prefs": {"intl.accept_languages": "de"}},
            "unhandledPromptBehavior": "accept",
            "se:name": "ghostlight",
        });
        let Value::Object(extra) = extra else { unreachable!("an object literal") };
        let config = WebDriverConfig { extra_capabilities: extra, ..WebDriverConfig::default() };
        let caps = capabilities(&config, None, None);
        assert_eq!(caps["goog:loggingPrefs"], json!({"browser": "ALL"}));
        assert_eq!(caps["se:name"], json!("ghostlight"));
        assert_eq!(caps["unhandledPromptBehavior"], json!({"default": "ignore", "beforeUnload": "ignore"}));
        let options = &caps["goog:chromeOptions"];
        let args = options["args"].as_array().expect("args");
        assert!(args.contains(&json!("--headless=new")) && args.last() == Some(&json!("--lang=de")));
        assert_eq!(options["prefs"], json!({"intl.accept_languages": "de"}));
    }

    #[test]
    fn launch_options_reach_both_engines_capabilities() {
        let mut proxy = Proxy::parse("http://127.0.0.1:3128").expect("a proxy");
        proxy.bypass = vec!["intranet.example".into(), "*.corp.example".into()];
        let config = WebDriverConfig {
            proxy: Some(proxy),
            accept_insecure_certs: true,
            browser_args: vec!["--lang=de".into()],
            ..WebDriverConfig::default()
        };
        let caps = capabilities(&config, Some(Path::new("/srv/profile")), None);
        assert_eq!(caps["acceptInsecureCerts"], json!(true));
        let args = caps["goog:chromeOptions"]["args"].as_array().expect("args");
        for expected in [
            "--user-data-dir=/srv/profile",
            "--proxy-server=http://127.0.0.1:3128",
            "--proxy-bypass-list=intranet.example;*.corp.example",
        ] {
            assert!(args.contains(&json!(expected)), "{expected}: {args:?}");
        }
        assert_eq!(args.last(), Some(&json!("--lang=de")), "extra arguments come last");

        let firefox =
            WebDriverConfig { engine: Engine::Firefox, browser_args: vec!["-safe-mode".into()], ..config };
        let caps = capabilities(&firefox, Some(Path::new("/srv/profile")), None);
        assert_eq!(caps["acceptInsecureCerts"], json!(true));
        let options = &caps["moz:firefoxOptions"];
        assert_eq!(options["args"].as_array().and_then(|a| a.last()), Some(&json!("-safe-mode")));
        let prefs = &options["prefs"];
        assert_eq!(prefs["network.proxy.type"], json!(1));
        assert_eq!(
            (&prefs["network.proxy.http"], &prefs["network.proxy.http_port"]),
            (&json!("127.0.0.1"), &json!(3128))
        );
        assert_eq!(
            (&prefs["network.proxy.ssl"], &prefs["network.proxy.ssl_port"]),
            (&json!("127.0.0.1"), &json!(3128))
        );
        assert_eq!(prefs["network.proxy.no_proxies_on"], json!("intranet.example, .corp.example"));

        let socks = Proxy::parse("socks5://10.0.0.2:1080").expect("a proxy");
        let prefs = firefox_proxy_prefs(&socks);
        assert_eq!(prefs["network.proxy.socks_version"], json!(5));
        assert_eq!(prefs["network.proxy.socks_remote_dns"], json!(true));
        assert!(!WebDriverConfig::default().accept_insecure_certs);
        assert!(!capabilities(&WebDriverConfig::default(), None, None).contains_key("acceptInsecureCerts"));
    }

    #[test]
    fn a_persistent_profile_is_locked_once_and_never_swept() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let profile = dir.path().join("nested").join("profile");
        assert!(check_profile(&profile).is_ok(), "a profile that does not exist yet is free");
        let held = lock_profile(&profile).expect("the first lock");
        assert!(profile.is_dir(), "the folder is created");
        let again = lock_profile(&profile).expect_err("a second lock is refused");
        let text = again.to_string();
        assert!(matches!(again, ProfileError::InUse { holder: Some(pid), .. } if pid == std::process::id()));
        assert!(
            text.contains(&profile.display().to_string()) && text.contains("another Ghostlight server"),
            "{text}"
        );
        assert!(check_profile(&profile).is_err());
        drop(held);
        assert!(check_profile(&profile).is_ok(), "released on drop");
        // A person's profile carrying an adapter-like name in the temporary folder stays.
        let lookalike = dir.path().join("ghostlight-chromium-999999999-mine");
        drop(lock_profile(&lookalike).expect("a lock"));
        sweep_stale_profiles(dir.path());
        assert!(lookalike.exists(), "a persistent profile is never swept");
        let file = dir.path().join("a-file");
        std::fs::write(&file, "").expect("a file");
        assert!(matches!(lock_profile(&file), Err(ProfileError::Folder { .. })));
    }

    #[test]
    fn free_ports_are_nonzero_and_missing_drivers_are_not_found() {
        assert_ne!(free_port().expect("a free port"), 0);
        assert_eq!(find_on_path("ghostlight-no-such-driver-binary"), None);
    }
}
