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

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use ghostlight_core::port::LaunchCause;
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::rt::TokioExecutor;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde_json::{Map, Value, json};
use tokio::process::{Child, Command};
use url::Url;

use crate::config::{
    CHROMIUM_FLAGS, DriverSource, Engine, NO_SANDBOX_FLAG, RESERVED_CAPABILITIES, WebDriverConfig,
};

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
            LaunchError::Spawn(_) | LaunchError::Exited => LaunchCause::DriverExited,
            LaunchError::NotReady(_) => LaunchCause::DriverNotReady,
        }
    }
}

/// A running local driver: its watchdog (the group leader), endpoint and the browser profile.
#[derive(Debug)]
pub(crate) struct DriverProcess {
    child: Child,
    /// The watchdog's standard input: while it is open, the driver lives.
    _lifeline: Option<tokio::process::ChildStdin>,
    group: Option<Pid>,
    url: Url,
    profile: Option<tempfile::TempDir>,
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
        let profile = tempfile::Builder::new()
            .prefix(&format!("{PROFILE_PREFIX}{}-{}-", config.engine.as_str(), std::process::id()))
            .tempdir()
            .map_err(LaunchError::Profile)?;
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
        self.profile.as_ref().map(tempfile::TempDir::path)
    }

    /// The watchdog's process id (also the driver's process group id).
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

    fn remove_profile(&mut self) {
        if let Some(profile) = self.profile.take() {
            let path = profile.path().to_path_buf();
            if profile.close().is_err() {
                // A dying browser may still have been writing; one more try.
                let _ = std::fs::remove_dir_all(path);
            }
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
/// server killed before it could clean up). Folders of live processes, and anything that
/// does not carry this adapter's name, are left alone.
pub(crate) fn sweep_stale_profiles(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(owner) = name.to_str().and_then(profile_owner) else { continue };
        let alive = Path::new("/proc").join(owner.to_string()).exists();
        if !alive && entry.file_type().is_ok_and(|kind| kind.is_dir()) {
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

/// The session capabilities for `config`. `profile` is the local profile directory (none
/// when connecting to a driver elsewhere).
pub(crate) fn capabilities(config: &WebDriverConfig, profile: Option<&Path>) -> Map<String, Value> {
    let mut caps = Map::new();
    // The map form: plain "ignore" silently accepts beforeunload prompts on both engines.
    caps.insert("unhandledPromptBehavior".into(), json!({ "default": "ignore", "beforeUnload": "ignore" }));
    caps.insert("webSocketUrl".into(), json!(true));
    caps.insert("pageLoadStrategy".into(), json!("normal"));
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
            let mut options = Map::new();
            options.insert("args".into(), json!(args));
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
            let mut options = Map::new();
            options.insert("args".into(), json!(args));
            if let Some(binary) = browser {
                options.insert("binary".into(), json!(binary));
            }
            caps.insert("browserName".into(), json!("firefox"));
            caps.insert("moz:firefoxOptions".into(), Value::Object(options));
        }
    }
    merge_extra(&mut caps, &config.extra_capabilities);
    caps
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
                        (Some(Value::Array(list)), Value::Array(more)) if inner == "args" => {
                            list.extend(more.iter().cloned());
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
        let caps = capabilities(&config, Some(Path::new("/tmp/p")));
        assert_eq!(caps["unhandledPromptBehavior"], json!({"default": "ignore", "beforeUnload": "ignore"}));
        assert_eq!(caps["webSocketUrl"], json!(true));
        let args = caps["goog:chromeOptions"]["args"].as_array().expect("args");
        for expected in ["--headless=new", "--user-data-dir=/tmp/p", "--window-size=1280,800"] {
            assert!(args.contains(&json!(expected)), "{expected}");
        }
        use crate::config::Sandbox;
        let sandboxed = |sandbox| {
            let caps = capabilities(&WebDriverConfig { sandbox, ..WebDriverConfig::default() }, None);
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
    fn firefox_capabilities_carry_profile_size_and_binary() {
        let config = WebDriverConfig {
            driver: DriverSource::Launch { driver_path: None, browser_path: Some("/opt/ff".into()) },
            ..WebDriverConfig::for_engine(Engine::Firefox)
        };
        let caps = capabilities(&config, Some(Path::new("/tmp/q")));
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
        let caps = capabilities(&config, None);
        assert_eq!(caps["goog:loggingPrefs"], json!({"browser": "ALL"}));
        assert_eq!(caps["se:name"], json!("ghostlight"));
        assert_eq!(caps["unhandledPromptBehavior"], json!({"default": "ignore", "beforeUnload": "ignore"}));
        let options = &caps["goog:chromeOptions"];
        let args = options["args"].as_array().expect("args");
        assert!(args.contains(&json!("--headless=new")) && args.last() == Some(&json!("--lang=de")));
        assert_eq!(options["prefs"], json!({"intl.accept_languages": "de"}));
    }

    #[test]
    fn free_ports_are_nonzero_and_missing_drivers_are_not_found() {
        assert_ne!(free_port().expect("a free port"), 0);
        assert_eq!(find_on_path("ghostlight-no-such-driver-binary"), None);
    }
}
