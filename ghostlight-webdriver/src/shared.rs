//! One Chromium shared by many sessions, each in a WebDriver BiDi user context of its own
//! (issue 32 item 3; `docs/DECISIONS.md`, "A user context per HTTP session on Chromium").
//!
//! The browser is started once, on the first seat, by an *owner*: a WebDriver session with
//! BiDi whose only window stays blank, behind a network filter that refuses everything (the
//! browser's own requests, and the default user context, which no session uses). Each session
//! of a [`WebDriverBrowser::seated`](crate::WebDriverBrowser::seated) browser then takes a
//! [`Seat`]:
//!
//! - a user context whose requests go through that session's own network filter (BiDi's
//!   per-user-context proxy, loopback included), so cookies, storage, cache and authority are
//!   the session's own;
//! - a window in that user context;
//! - a classic WebDriver session of its own attached to the browser
//!   (`goog:chromeOptions.debuggerAddress`, without BiDi), so every session keeps its own
//!   current window and no command waits behind another session's;
//! - its BiDi connections to the owner's BiDi endpoint, subscribed (and preloading) for its
//!   user context only.
//!
//! Closing the session removes its user context, and with it every tab it had. The browser
//! lives until [`SharedBrowser::shutdown`] (or the last handle drops), and starts again on the
//! next seat after it died.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use fantoccini::Client;
use ghostlight_core::port::{NetworkPolicy, PortError, PortErrorKind, PortResult};
use serde_json::{Map, Value, json};
use tokio::sync::Mutex;
use url::Url;

use crate::bidi::{Bidi, Endpoint};
use crate::config::{self, DriverSource, Engine, Startup, WebDriverConfig};
use crate::filter::{self, Filter};
use crate::launch::{self, DriverProcess};
use crate::session::SESSION_CLOSE_TIMEOUT;
use crate::wire::Wire;

/// Why a configuration keeps a browser per session instead of sharing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotShareable {
    /// Firefox: geckodriver allows one WebDriver session per browser.
    #[error("Firefox sessions cannot share a browser (geckodriver allows one WebDriver session per browser)")]
    Firefox,
    /// A driver elsewhere: its browser is not one this process starts.
    #[error("a driver elsewhere starts its own browsers")]
    RemoteDriver,
    /// A persistent profile belongs to one browser, and its cookies to one person.
    #[error("a persistent profile cannot be shared between sessions")]
    Profile,
    /// A storage state file is loaded into, and saved from, one session.
    #[error("a storage state file belongs to one session")]
    StorageState,
    /// A configured proxy: sessions reach it through their own network filter only.
    #[error("a configured proxy keeps a browser per session")]
    Proxy,
    /// A browser started by hand.
    #[error("a browser started by hand is not shared")]
    Manual,
}

/// Whether sessions of `config` can share one browser, each in a user context of its own.
pub fn shareable(config: &WebDriverConfig) -> Result<(), NotShareable> {
    match () {
        () if config.engine == Engine::Firefox => Err(NotShareable::Firefox),
        () if !matches!(config.driver, DriverSource::Launch { .. }) => Err(NotShareable::RemoteDriver),
        () if config.profile.is_some() => Err(NotShareable::Profile),
        () if config.storage_state.is_some() => Err(NotShareable::StorageState),
        () if config.proxy.is_some() => Err(NotShareable::Proxy),
        () if config.startup == Startup::Manual => Err(NotShareable::Manual),
        () => Ok(()),
    }
}

/// One browser the sessions of a server share, each in a user context of its own (see the
/// module documentation). Cheap to clone; the browser starts on the first seat.
#[derive(Debug, Clone)]
pub struct SharedBrowser {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: WebDriverConfig,
    owner: Mutex<Option<Owner>>,
    /// The last session number handed out: the sessions of one shared browser never share
    /// one, so no session's tab token names a window of another.
    numbers: std::sync::atomic::AtomicU64,
}

/// The browser's process, the owner's WebDriver session and BiDi connection, and the filter
/// its own requests meet.
#[derive(Debug)]
struct Owner {
    process: DriverProcess,
    /// Kept open for the browser's life (its window stays blank).
    client: Client,
    /// Creates and removes the sessions' user contexts.
    bidi: Bidi,
    /// The owner's BiDi endpoint, which every seat's connections use too.
    bidi_url: Url,
    /// Where a seat's classic session attaches (`host:port` of the browser's DevTools).
    debugger_address: String,
    /// Refuses every request that is no session's (held for the browser's life).
    filter: Filter,
}

/// What a session needs to live in the shared browser: its user context, its first window,
/// and where its classic session attaches and its BiDi connections go. Dropped (or
/// [released](Seat::release)), it removes its user context, and with it every tab the session
/// left open.
#[derive(Debug)]
pub(crate) struct Seat {
    /// The session's user context.
    pub(crate) user_context: String,
    /// The window made for the session in its user context.
    pub(crate) window: String,
    /// The driver the classic session attaches through.
    pub(crate) driver: Url,
    /// The owner's BiDi endpoint.
    pub(crate) bidi_url: Url,
    /// The browser's DevTools address (`goog:chromeOptions.debuggerAddress`).
    pub(crate) debugger_address: String,
    /// A folder the browser reads staged uploads from (removed with the browser).
    pub(crate) scratch: Option<PathBuf>,
    /// The browser the seat is in; `None` once given back.
    shared: Option<SharedBrowser>,
}

impl Seat {
    /// Give the seat back now: remove its user context (bounded, best effort: a browser that
    /// died took it along).
    pub(crate) async fn release(mut self) {
        if let Some(shared) = self.shared.take() {
            shared.release(&self.user_context).await;
        }
    }
}

impl Drop for Seat {
    /// A session dropped without closing (its browser handle dropped) still gives its seat
    /// back, on the Tokio runtime it was dropped on.
    fn drop(&mut self) {
        let Some(shared) = self.shared.take() else { return };
        let user_context = std::mem::take(&mut self.user_context);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { shared.release(&user_context).await });
        }
    }
}

/// How long removing a session's user context may take.
const RELEASE_TIMEOUT: Duration = Duration::from_secs(3);

impl SharedBrowser {
    /// A browser for sessions of `config` to share; `Err` names why they cannot
    /// ([`shareable`]). Starts nothing.
    pub fn new(config: WebDriverConfig) -> Result<SharedBrowser, NotShareable> {
        shareable(&config)?;
        let numbers = std::sync::atomic::AtomicU64::new(0);
        Ok(SharedBrowser { inner: Arc::new(Inner { config, owner: Mutex::new(None), numbers }) })
    }

    /// A session number no other session of this shared browser has had (above `after`, the
    /// asking browser's last one).
    pub(crate) fn session_number(&self, after: u64) -> u64 {
        use std::sync::atomic::Ordering;
        let next = self.inner.numbers.fetch_add(1, Ordering::Relaxed) + 1;
        next.max(after + 1)
    }

    /// The configuration every seated session starts with.
    pub fn config(&self) -> &WebDriverConfig {
        &self.inner.config
    }

    /// A seat for a new session: a user context whose requests go through `filter` (none:
    /// straight out), and a window in it. Starts the browser first when it is not running (or
    /// died).
    pub(crate) async fn seat(&self, filter: Option<SocketAddr>) -> PortResult<Seat> {
        let mut owner = self.inner.owner.lock().await;
        if owner.as_ref().is_some_and(|owner| !owner.bidi.is_open())
            && let Some(dead) = owner.take()
        {
            tracing::warn!("the shared browser stopped answering: it starts again");
            dead.shutdown().await;
        }
        if owner.is_none() {
            *owner = Some(Owner::start(&self.inner.config).await?);
        }
        let Some(owner) = owner.as_ref() else {
            return Err(PortError::new(PortErrorKind::NotConnected, "the shared browser is not running"));
        };
        let proxy = proxy(filter, owner.filter.address());
        let created = owner.bidi.command("browser.createUserContext", json!({ "proxy": proxy })).await?;
        let user_context = string_field(&created, "userContext")?;
        if let Some(folder) = download_folder() {
            // A user context Chromium makes refuses downloads until told otherwise; a browser
            // of its own saves them to the person's download folder.
            let behavior = json!({
                "downloadBehavior": { "type": "allowed", "destinationFolder": folder },
                "userContexts": [user_context],
            });
            if let Err(error) = owner.bidi.command("browser.setDownloadBehavior", behavior).await {
                tracing::debug!(
                    detail = error.message(),
                    "downloads stay refused in a session's user context"
                );
            }
        }
        let window = owner
            .bidi
            .command("browsingContext.create", json!({ "type": "window", "userContext": user_context }))
            .await;
        let window = match window.and_then(|created| string_field(&created, "context")) {
            Ok(window) => window,
            Err(error) => {
                let _ = owner
                    .bidi
                    .command("browser.removeUserContext", json!({ "userContext": user_context }))
                    .await;
                return Err(error);
            }
        };
        Ok(Seat {
            user_context,
            window,
            driver: owner.process.url().clone(),
            bidi_url: owner.bidi_url.clone(),
            debugger_address: owner.debugger_address.clone(),
            scratch: owner.process.scratch_dir().map(Path::to_path_buf),
            shared: Some(self.clone()),
        })
    }

    /// Remove `user_context` (bounded; nothing to do when the browser is gone or was started
    /// again since).
    async fn release(&self, user_context: &str) {
        let owner = self.inner.owner.lock().await;
        let Some(owner) = owner.as_ref().filter(|owner| owner.bidi.is_open()) else { return };
        let params = json!({ "userContext": user_context });
        let removed = owner.bidi.command_within("browser.removeUserContext", params, RELEASE_TIMEOUT).await;
        if let Err(error) = removed {
            tracing::debug!(detail = error.message(), "a session's user context could not be removed");
        }
    }

    /// Stop the browser (every seated session's next call fails, then starts it again).
    pub async fn shutdown(&self) {
        if let Some(owner) = self.inner.owner.lock().await.take() {
            owner.shutdown().await;
        }
    }
}

#[cfg(feature = "testing")]
impl SharedBrowser {
    /// The browser's process group and profile, while it runs (for tests).
    pub(crate) async fn process_info(&self) -> Option<(u32, PathBuf)> {
        let owner = self.inner.owner.lock().await;
        let process = &owner.as_ref()?.process;
        Some((process.pid()?, process.profile_dir()?.to_path_buf()))
    }

    /// How many user contexts besides the default one the browser holds (for tests).
    pub(crate) async fn user_contexts(&self) -> Option<usize> {
        let owner = self.inner.owner.lock().await;
        let listed = owner.as_ref()?.bidi.command("browser.getUserContexts", json!({})).await.ok()?;
        let all = listed.get("userContexts")?.as_array()?;
        Some(all.iter().filter(|c| c.get("userContext").and_then(Value::as_str) != Some("default")).count())
    }
}

/// A user context's proxy: the session's network filter for every scheme, loopback included
/// (`<-loopback>` removes Chromium's implicit loopback bypass, as the browser-wide flag does);
/// without one, every host bypasses `fallback` (the browser's own filter), which is straight
/// out (Chromium reads `proxyType: direct` as "the browser's proxy", which refuses all).
fn proxy(filter: Option<SocketAddr>, fallback: SocketAddr) -> Value {
    let (through, bypass) = match filter {
        Some(filter) => (filter, "<-loopback>"),
        None => (fallback, "*"),
    };
    json!({
        "proxyType": "manual",
        "httpProxy": through.to_string(),
        "sslProxy": through.to_string(),
        "noProxy": [bypass],
    })
}

/// The person's download folder (`$HOME/Downloads`), where a browser of its own saves.
fn download_folder() -> Option<String> {
    let home = std::env::var_os("HOME")?;
    Some(Path::new(&home).join("Downloads").to_string_lossy().into_owned())
}

/// `value[key]` as a string, or an error saying the browser answered without it.
fn string_field(value: &Value, key: &str) -> PortResult<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned).ok_or_else(|| {
        PortError::new(PortErrorKind::Other, format!("the shared browser answered without a {key}"))
    })
}

impl Owner {
    /// Start the driver and browser behind a filter refusing everything, with the owner's
    /// WebDriver session and BiDi connection.
    async fn start(config: &WebDriverConfig) -> PortResult<Owner> {
        launch::check_config(config)?;
        let refuse_all = NetworkPolicy::new(|_, _| false);
        let filter =
            Filter::listen(refuse_all, filter::Upstream::direct(), &config::CHROMIUM_SERVICE_HOSTS).await?;
        let process = DriverProcess::launch(config).await.map_err(|e| {
            launch::launch_failed(config, e.cause(), format!("the browser could not be started: {e}"))
        })?;
        let caps = launch::capabilities(config, process.profile_dir(), Some(filter.address()));
        let wire = Arc::new(Wire::default());
        let client = launch::new_session(config, process.url(), caps, &wire).await?;
        let capabilities = client.capabilities().cloned().unwrap_or_default();
        let bidi_url = capabilities
            .get("webSocketUrl")
            .and_then(Value::as_str)
            .and_then(|url| Url::parse(url).ok())
            .ok_or_else(|| {
                PortError::new(PortErrorKind::Unsupported, "the driver granted no WebDriver BiDi URL")
            })?;
        let debugger_address = launch::debugger_address(&capabilities).ok_or_else(|| {
            PortError::new(
                PortErrorKind::Unsupported,
                "the driver named no DevTools address to attach sessions to",
            )
        })?;
        let bidi = Bidi::connect(&Endpoint::new(bidi_url.clone(), wire), Box::new(|_, _| {})).await?;
        Ok(Owner { process, client, bidi, bidi_url, debugger_address, filter })
    }

    /// End the owner's session (bounded), then kill the driver and browser.
    async fn shutdown(self) {
        let Owner { process, client, bidi, .. } = self;
        drop(bidi);
        let _ = tokio::time::timeout(SESSION_CLOSE_TIMEOUT, client.close()).await;
        process.shutdown().await;
    }
}

/// The capabilities of a seat's classic session: attached to the shared browser, without BiDi
/// (its connections go to the owner's endpoint), dialogs left to the adapter as a session of
/// its own leaves them.
pub(crate) fn attached_capabilities(seat: &Seat) -> Map<String, Value> {
    let mut caps = launch::base_capabilities();
    caps.insert("browserName".into(), json!("chrome"));
    caps.insert("goog:chromeOptions".into(), json!({ "debuggerAddress": seat.debugger_address }));
    caps
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::config::{Proxy, Startup};

    #[test]
    fn only_a_launched_chromium_without_a_profile_state_or_proxy_is_shared() {
        let chromium = WebDriverConfig::for_engine(Engine::Chromium);
        assert_eq!(shareable(&chromium), Ok(()));
        assert_eq!(shareable(&WebDriverConfig::for_engine(Engine::Firefox)), Err(NotShareable::Firefox));
        let remote = WebDriverConfig {
            driver: DriverSource::Connect(Url::parse("http://127.0.0.1:9515/").expect("a URL")),
            ..chromium.clone()
        };
        assert_eq!(shareable(&remote), Err(NotShareable::RemoteDriver));
        let profile = WebDriverConfig { profile: Some(PathBuf::from("/srv/profile")), ..chromium.clone() };
        assert_eq!(shareable(&profile), Err(NotShareable::Profile));
        let proxy = WebDriverConfig {
            proxy: Some(Proxy::parse("http://proxy.test:3128").expect("a proxy")),
            ..chromium.clone()
        };
        assert_eq!(shareable(&proxy), Err(NotShareable::Proxy));
        let manual = WebDriverConfig { startup: Startup::Manual, ..chromium };
        assert_eq!(shareable(&manual), Err(NotShareable::Manual));
    }

    #[test]
    fn a_seat_proxy_is_its_filter_for_every_scheme_loopback_included() {
        let filter: SocketAddr = "127.0.0.1:4000".parse().expect("an address");
        let browser: SocketAddr = "127.0.0.1:5000".parse().expect("an address");
        assert_eq!(
            proxy(Some(filter), browser),
            json!({ "proxyType": "manual", "httpProxy": "127.0.0.1:4000", "sslProxy": "127.0.0.1:4000", "noProxy": ["<-loopback>"] })
        );
        assert_eq!(
            proxy(None, browser),
            json!({ "proxyType": "manual", "httpProxy": "127.0.0.1:5000", "sslProxy": "127.0.0.1:5000", "noProxy": ["*"] })
        );
    }

    #[test]
    fn an_attached_session_names_the_browser_and_asks_for_no_bidi() {
        let seat = Seat {
            user_context: "U".into(),
            window: "W".into(),
            driver: Url::parse("http://127.0.0.1:9515/").expect("a URL"),
            bidi_url: Url::parse("ws://127.0.0.1:9515/session/1").expect("a URL"),
            debugger_address: "localhost:40000".into(),
            scratch: None,
            shared: None,
        };
        let caps = attached_capabilities(&seat);
        assert_eq!(caps["goog:chromeOptions"], json!({ "debuggerAddress": "localhost:40000" }));
        assert!(!caps.contains_key("webSocketUrl"));
        assert_eq!(caps["unhandledPromptBehavior"]["default"], "ignore");
    }
}
