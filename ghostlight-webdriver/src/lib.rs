//! # ghostlight-webdriver
//!
//! The WebDriver adapter of Ghostlight: a [`BrowserPort`] over chromedriver (Chromium) and
//! geckodriver (Firefox), through fantoccini.
//!
//! [`WebDriverBrowser::new`] starts nothing. The first port call that needs the browser
//! starts the driver on a free loopback port (or connects to a configured driver URL), opens
//! a session, and keeps it; [`WebDriverBrowser::shutdown`] (or dropping the browser) closes
//! the session, kills the driver and browser process group and removes the temporary
//! profile. When the browser or driver dies, the failing call answers a
//! [`PortErrorKind::BrowserGone`]/[`PortErrorKind::Transport`] error and the next call starts
//! a fresh session (tabs of the old one then answer [`PortErrorKind::TabGone`]).
//!
//! ```no_run
//! use std::time::Duration;
//! use ghostlight_core::port::{BrowserPort, NavigateInput};
//! use ghostlight_webdriver::{Engine, WebDriverBrowser, WebDriverConfig};
//!
//! # async fn demo() -> Result<(), ghostlight_core::port::PortError> {
//! let browser = WebDriverBrowser::new(WebDriverConfig::for_engine(Engine::Firefox));
//! let input = NavigateInput { url: "https://example.com/".parse().expect("a URL"), discard_beforeunload: false };
//! let opened = browser.open_tab(&input, Duration::from_secs(10)).await?;
//! println!("{} shows {}", opened.page.url, opened.page.title);
//! browser.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! ## A driver elsewhere: Selenium Grid, or a driver you started
//!
//! [`DriverSource::Connect`] points the adapter at a WebDriver endpoint it did not start: a
//! chromedriver or geckodriver you run yourself, or a Selenium Grid hub (its URL, e.g.
//! `http://grid.internal:4444/`, or `…/wd/hub/` for an old hub). The adapter opens and closes
//! its session there and starts or kills no process. What a Grid routes on goes into
//! [`WebDriverConfig::extra_capabilities`], merged into the adapter's own capabilities (see
//! that field for the rule; `unhandledPromptBehavior`, `webSocketUrl`, `pageLoadStrategy` and
//! `timeouts` are the adapter's and are never replaced):
//!
//! ```no_run
//! use ghostlight_webdriver::{DriverSource, Engine, WebDriverBrowser, WebDriverConfig};
//! use serde_json::json;
//!
//! let serde_json::Value::Object(extra) = json!({
//!     "platformName": "linux",
//!     "browserVersion": "stable",
//!     "se:name": "ghostlight",
//!     "goog:loggingPrefs": { "browser": "ALL" },
//! }) else { unreachable!() };
//! let config = WebDriverConfig {
//!     driver: DriverSource::Connect("http://grid.internal:4444/".parse().expect("a URL")),
//!     extra_capabilities: extra,
//!     ..WebDriverConfig::for_engine(Engine::Chromium)
//! };
//! let browser = WebDriverBrowser::new(config);
//! ```
//!
//! Known gaps with a remote driver:
//! - **Uploads.** `paths` are sent to the driver as local paths, so they work only when the
//!   driver runs on this machine; a Grid node would need each file pushed through Grid's
//!   file endpoint (`POST /session/{id}/se/file`), which the adapter does not use yet. Inline
//!   `files` and captured images are staged in the local browser profile, which a remote
//!   session does not have: they answer [`PortErrorKind::Unsupported`]. Drops of a captured
//!   image at a point work (the bytes travel in a script).
//! - **Diagnostics and Chromium's dialog kinds** need WebDriver BiDi: the Grid must grant
//!   `webSocketUrl` and proxy the `ws://` connection (Selenium 4.x does). TLS (`wss://`) is
//!   not built in; without BiDi, diagnostics answer `unsupported` and an open dialog whose
//!   kind the driver does not name is reported as a confirm.
//! - **Window size** comes from the browser arguments the adapter adds (`--window-size`,
//!   `-width`/`-height`); a node that ignores them keeps its own size (`browser_window`
//!   resize still works).
//! - **Persistent profile.** [`WebDriverConfig::profile`] needs a driver the adapter launches
//!   (it locks the folder locally); with [`DriverSource::Connect`] it is refused
//!   ([`ConfigProblem::ProfileWithRemoteDriver`]).
//!
//! `tests/remote.rs` starts chromedriver on a free port and drives it this way.
//!
//! ## Launch options
//!
//! [`WebDriverConfig`] also carries a persistent [`profile`](WebDriverConfig::profile)
//! (locked while the browser runs, never deleted), a [`Proxy`] with its bypass list, a CSS
//! [`Viewport`] (the window is resized after the session starts until `innerWidth` ×
//! `innerHeight` match), [`accept_insecure_certs`](WebDriverConfig::accept_insecure_certs),
//! extra [`browser_args`](WebDriverConfig::browser_args) and [`Diagnostics::OnStart`] (console
//! and network tracking connected with the session). [`WebDriverConfig::check`] says what
//! cannot be used before anything starts; [`check_profile`] whether a profile is free.
//! `tests/launch_options.rs` drives each against both engines.
//!
//! Module map: `config` (what to drive), `launch` (driver and browser processes),
//! `session` (one WebDriver session and the adapter's per-session state), `errors` (driver
//! errors → [`PortError`]), `refs` (opaque tokens), `page` (page state and document
//! identity), `commands` (custom WebDriver commands), and `ops/` (one module per area of
//! operations; `ops/mod.rs` documents the internal API for adding one).

#![forbid(unsafe_code)]

mod bidi;
mod commands;
mod config;
mod errors;
mod filter;
mod launch;
mod ops;
mod page;
mod refs;
mod repair;
mod rescue;
mod session;
mod shared;
mod storage_state;
#[cfg(feature = "testing")]
mod testing;
mod watch;
mod wire;

use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::Duration;

use async_trait::async_trait;
use ghostlight_core::port::{
    ActionReceipt, BrowserPort, CaptureKind, Captured, ClickInput, DiagnosticsPage, DiagnosticsQuery,
    DialogKind, DialogResolution, ElementRef, ExpectedDocument, FileStat, FillInput, FillOutcome, FillValue,
    Focused, FocusedElement, Geometry, HistoryMove, HoverInput, InDocument, KeyInput, NavigateInput,
    NetworkEnforcement, NetworkPolicy, OpenedTab, PageState, PerceiveInput, Perception, PointerTarget,
    PortError, PortErrorKind, PortResult, ReadInput, RecordCommand, RecordDelivery, RecordReport,
    ScriptOutcome, ScrollInput, ScrollOutcome, StartupRefusal, TabCall, TabInfo, TabRef, TextOutcome,
    TextWait, TextWaitInput, TypeInput, UploadInput, UploadOutcome,
};
use tokio::sync::{Mutex, MutexGuard};

pub use config::{
    CHROMIUM_FLAGS, ConfigProblem, DEFAULT_WINDOW_HEIGHT, DEFAULT_WINDOW_WIDTH, Diagnostics, DriverSource,
    Engine, MAX_BROWSER_ARG_BYTES, MAX_BROWSER_ARGS, MAX_PROXY_BYPASS, MAX_PROXY_BYPASS_BYTES,
    NO_SANDBOX_FLAG, PROFILE_LOCK_FILE, Proxy, ProxyScheme, RESERVED_ARGS, RESERVED_CAPABILITIES, Sandbox,
    Startup, UnknownName, Viewport, WebDriverConfig, runs_as_root,
};
pub use launch::{ProfileError, check_profile};
pub use shared::{NotShareable, SharedBrowser, shareable};
pub use storage_state::{
    MAX_STORAGE_STATE_BYTES, MAX_STORED_COOKIES, MAX_STORED_ORIGINS, OriginStorage, SameSite, StorageItem,
    StorageState, StorageStateError, StorageStateFile, StoredCookie,
};
#[cfg(feature = "testing")]
pub use testing::ProcessInfo;
pub use wire::WireCounts;

use session::Session;

/// How long the liveness probe after an unexplained driver error may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// A browser driven through WebDriver. Implements [`BrowserPort`].
///
/// One WebDriver session serves every tab; calls are serialized on it (a session has one
/// current window, which each call switches as needed).
#[derive(Debug)]
pub struct WebDriverBrowser {
    config: WebDriverConfig,
    /// Shared with recording tasks (weakly), which take the lock for one frame at a time.
    slot: Arc<Mutex<Slot>>,
    /// Recordings (frames in memory); they outlive a session restart.
    recorder: ops::recording::Recorder,
    /// The network authority the browser is started behind, once governed.
    network: std::sync::Mutex<Option<NetworkPolicy>>,
    /// What every session of this browser sent its driver, counted.
    wire: Arc<wire::Wire>,
    /// The browser this one's sessions live in, each in a user context of its own
    /// ([`WebDriverBrowser::seated`]); `None`: each session starts a browser of its own.
    shared: Option<SharedBrowser>,
}

/// The browser's session, when one is open.
#[derive(Debug, Default)]
pub(crate) struct Slot {
    /// The live session.
    pub(crate) session: Option<Session>,
    /// Sessions started so far (the next one gets `started + 1`).
    started: u64,
    /// The network filter every session's browser is started behind (started with the first
    /// session, kept for the browser's life, so restarts reuse its address).
    filter: Option<filter::Filter>,
}

/// Run `$body` with `$s: &mut Session` (started on demand, its queued repairs run first),
/// within `$bound` ([`CallBound`]), then settle the session. When the call is dropped
/// half-way, [`RepairsOnDrop`] runs what the body left queued.
///
/// A call that runs out of time (its own timeout, or the bound) may leave a command waiting
/// on a page that never answers, and every later command of the session would wait behind
/// it: [`Session::unstick`] then closes that tab through the second channel, or the session
/// is given up (the next call starts a fresh one). Either way the call answers within its
/// bound plus [`UNSTICK_MAX`].
macro_rules! with_session {
    ($self:ident, $bound:expr, |$s:ident| $body:expr) => {{
        let bound: CallBound = $bound;
        let mut slot = $self.acquire().await?;
        let mut stuck = false;
        let result = match slot.session.as_mut() {
            Some($s) => {
                $s.begin_call();
                let _repairs = RepairsOnDrop { slot: Arc::downgrade(&$self.slot), queue: $s.repair_queue() };
                $s.run_repairs().await;
                let result = match tokio::time::timeout(bound.limit, $body).await {
                    Ok(result) => result,
                    Err(_) => Err(bound.ran_out()),
                };
                match result {
                    Err(error) if error.kind() == PortErrorKind::Timeout => match $s.unstick().await {
                        session::Unstuck::Moving => Err(error),
                        session::Unstuck::ClosedTab => Err(error.closed_unresponsive_tab()),
                        session::Unstuck::Stuck => {
                            stuck = true;
                            Err(error)
                        }
                    },
                    other => other,
                }
            }
            None => Err(PortError::new(PortErrorKind::NotConnected, "no browser session is open")),
        };
        if stuck && let Some(session) = slot.session.take() {
            tracing::warn!(
                "a page holds the driver and its tab could not be closed: the browser session is given up"
            );
            session.discard().await;
        }
        settle(&mut slot, result).await
    }};
}

/// How long a port call without a timeout of its own may take (page state, tab lists,
/// perception, dialogs): a bound against a page that never answers, far above what a
/// healthy page needs.
pub const UNTIMED_CALL_LIMIT: Duration = Duration::from_secs(20);
/// How long handing a saved recording to the page may take (its bytes travel in a script).
pub const RECORDING_CALL_LIMIT: Duration = Duration::from_secs(60);
/// How far beyond its `timeout` a timed call may run before it is cut short (the
/// operation's own bound answers first when it can).
pub const CALL_GRACE: Duration = Duration::from_secs(1);
/// The most a call's answer can come after its bound: probing the driver's queue, then
/// closing a stuck tab and waiting for the queue to move.
pub const UNSTICK_MAX: Duration = Duration::from_secs(
    session::QUEUE_PROBE.as_secs() + 3 * rescue::RESCUE_TIMEOUT.as_secs() + session::QUEUE_DRAIN.as_secs(),
);

/// The time bound of one port call and what running out of it means.
#[derive(Debug, Clone, Copy)]
struct CallBound {
    /// How long the call may take.
    limit: Duration,
    /// Whether the call may change a page (then running out leaves the effect unknown).
    acts: bool,
}

impl CallBound {
    /// A call with `timeout` of its own, which may change a page.
    fn acting(timeout: Duration) -> CallBound {
        CallBound { limit: timeout.saturating_add(CALL_GRACE), acts: true }
    }

    /// A call with `timeout` of its own that only reads.
    fn reading_within(timeout: Duration) -> CallBound {
        CallBound { limit: timeout.saturating_add(CALL_GRACE), acts: false }
    }

    /// Handing a saved recording to the page (its bytes travel in a script).
    fn recording() -> CallBound {
        CallBound { limit: RECORDING_CALL_LIMIT, acts: true }
    }

    /// A call without a timeout that only reads.
    fn reading() -> CallBound {
        CallBound { limit: UNTIMED_CALL_LIMIT, acts: false }
    }

    /// A call without a timeout that may change a page.
    fn untimed_act() -> CallBound {
        CallBound { limit: UNTIMED_CALL_LIMIT, acts: true }
    }

    /// The error of a call that ran out of its bound.
    fn ran_out(&self) -> PortError {
        let error = PortError::new(PortErrorKind::Timeout, "the browser did not answer in time");
        if self.acts { error.effect_unknown() } else { error }
    }
}

/// Dropped with a call's future: when that left repairs queued (the call was cancelled in the
/// middle of an operation that changes a page for a moment), a task waits for the session and
/// runs them, so the page is put back even if no other call follows.
struct RepairsOnDrop {
    /// The browser's session slot (weak: the task must not keep a dropped browser alive).
    slot: Weak<Mutex<Slot>>,
    /// The session's repair queue (a completed call leaves it empty).
    queue: repair::RepairQueue,
}

impl Drop for RepairsOnDrop {
    fn drop(&mut self) {
        if self.queue.is_empty() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let weak = self.slot.clone();
        runtime.spawn(async move {
            let Some(slot) = weak.upgrade() else { return };
            let mut slot = slot.lock().await;
            if let Some(session) = slot.session.as_mut() {
                session.run_repairs().await;
            }
        });
    }
}

impl WebDriverBrowser {
    /// A browser for `config`. Starts nothing: the browser starts on the first call that
    /// needs it (and never with [`Startup::Manual`]).
    pub fn new(config: WebDriverConfig) -> Self {
        WebDriverBrowser {
            config,
            slot: Arc::new(Mutex::new(Slot::default())),
            recorder: ops::recording::Recorder::default(),
            network: std::sync::Mutex::new(None),
            wire: Arc::default(),
            shared: None,
        }
    }

    /// A browser whose sessions live in `shared`, each in a user context of its own with its
    /// own cookies, storage, tabs and network filter (see [`SharedBrowser`]): a session costs
    /// a user context and a window instead of a browser.
    pub fn seated(shared: &SharedBrowser) -> Self {
        WebDriverBrowser { shared: Some(shared.clone()), ..WebDriverBrowser::new(shared.config().clone()) }
    }

    /// The next hop of the network filter for this configuration: straight to the web, or
    /// the configured proxy; `None` when the browser cannot be put behind the filter (a
    /// driver elsewhere, whose browser cannot reach this machine's loopback; an `https://`
    /// proxy, which the filter cannot speak to).
    fn filter_upstream(&self) -> Option<filter::Upstream> {
        if !matches!(self.config.driver, DriverSource::Launch { .. }) {
            return None;
        }
        match &self.config.proxy {
            None => Some(filter::Upstream::direct()),
            Some(proxy) => filter::Upstream::through(proxy).ok(),
        }
    }

    /// The governed network policy, if any.
    fn network_policy(&self) -> Option<NetworkPolicy> {
        self.network.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// The configuration.
    pub fn config(&self) -> &WebDriverConfig {
        &self.config
    }

    /// What this browser's sessions sent their driver so far: classic WebDriver and
    /// WebDriver BiDi commands and their bytes. Take a snapshot before and after a call and
    /// subtract ([`WireCounts::since`]) for the round trips the call cost.
    pub fn wire_counts(&self) -> WireCounts {
        self.wire.counts()
    }

    /// Start (`true`) or stop logging the commands this browser sends: method and path of
    /// each classic command, the method of each BiDi command; never a body. For finding
    /// where round trips go; [`WebDriverBrowser::take_command_log`] reads the log.
    pub fn log_commands(&self, on: bool) {
        self.wire.keep_log(on);
    }

    /// The commands logged since the last call (the most recent ones: the log is bounded),
    /// oldest first.
    pub fn take_command_log(&self) -> Vec<String> {
        self.wire.take_log()
    }

    /// Close the session, stop the driver and browser, and remove the temporary profile.
    /// The next port call would start a new browser.
    pub async fn shutdown(&self) {
        let session = self.slot.lock().await.session.take();
        if let Some(session) = session {
            session.close().await;
        }
    }

    /// Lock the slot and make sure a session is live (starting one when allowed).
    async fn acquire(&self) -> PortResult<MutexGuard<'_, Slot>> {
        if self.config.startup == Startup::Manual {
            return Err(PortError::startup(StartupRefusal::ManualLaunch {
                browser: self.config.engine.display_name().to_owned(),
            }));
        }
        let mut slot = self.slot.lock().await;
        if slot.session.is_none() {
            let number = match &self.shared {
                Some(shared) => shared.session_number(slot.started),
                None => slot.started + 1,
            };
            let filter = match (self.network_policy(), self.filter_upstream()) {
                (Some(policy), Some(upstream)) => {
                    if slot.filter.is_none() {
                        let quiet: &'static [&'static str] = match self.config.engine {
                            Engine::Chromium => &config::CHROMIUM_SERVICE_HOSTS,
                            Engine::Firefox => &config::FIREFOX_SERVICE_HOSTS,
                        };
                        slot.filter = Some(filter::Filter::listen(policy, upstream, quiet).await?);
                    }
                    true
                }
                _ => false,
            };
            let filter = if filter { slot.filter.as_ref() } else { None };
            let seat = match &self.shared {
                Some(shared) => Some(shared.seat(filter.map(filter::Filter::address)).await?),
                None => None,
            };
            let session =
                Session::start(&self.config, number, filter, &self.wire, &ops::sandbox::PRELOAD, seat)
                    .await
                    .inspect_err(|error| {
                        // The operator's detail; the model reads the closed cause in the envelope.
                        let cause = error.launch_failure().map_or(error.kind().code(), |f| f.cause.as_str());
                        tracing::warn!(
                            engine = self.config.engine.as_str(),
                            cause,
                            detail = error.message(),
                            "the browser could not start"
                        );
                    })?;
            slot.started = number;
            slot.session = Some(session);
        }
        Ok(slot)
    }
}

/// After an operation: tear the session down when its browser or driver is gone, so that
/// the next call starts a fresh one.
async fn settle<T>(slot: &mut Slot, result: PortResult<T>) -> PortResult<T> {
    let Err(error) = result else { return result };
    let gone = match error.kind() {
        PortErrorKind::BrowserGone | PortErrorKind::Transport => true,
        PortErrorKind::NotConnected => error.startup_refusal().is_none(),
        // Firefox answers `UnknownError` to the call in flight when its browser dies.
        PortErrorKind::Other => match slot.session.as_mut() {
            Some(session) => match tokio::time::timeout(PROBE_TIMEOUT, session.probe()).await {
                Ok(Ok(())) => false,
                Ok(Err(probe)) => probe.is_connection_lost() || probe.kind() == PortErrorKind::NotConnected,
                Err(_) => true,
            },
            None => false,
        },
        _ => false,
    };
    if !gone {
        return Err(error);
    }
    if let Some(session) = slot.session.take() {
        session.discard().await;
    }
    if error.kind() == PortErrorKind::Other {
        let gone =
            PortError::new(PortErrorKind::BrowserGone, "the browser stopped answering during the call");
        return Err(match error.effect() {
            ghostlight_core::port::PortEffect::Unknown => gone.effect_unknown(),
            ghostlight_core::port::PortEffect::None => gone,
        });
    }
    Err(error)
}

#[async_trait]
impl BrowserPort for WebDriverBrowser {
    fn engine(&self) -> &str {
        self.config.engine.as_str()
    }

    /// The browser starts behind the loopback network filter (`filter`), which decides every
    /// connection by `policy`. Not for a driver elsewhere or an `https://` proxy (answers
    /// [`NetworkEnforcement::NotEnforced`], and says so in the log); a session already
    /// running keeps its routing until the browser restarts.
    fn govern_network(&self, policy: NetworkPolicy) -> NetworkEnforcement {
        *self.network.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(policy);
        if self.filter_upstream().is_some() {
            NetworkEnforcement::Enforced
        } else {
            tracing::warn!(
                engine = self.config.engine.as_str(),
                "requests are not governed on the wire: the browser is not one this process starts behind its network filter (a remote driver, or an https:// proxy)"
            );
            NetworkEnforcement::NotEnforced
        }
    }

    async fn tabs(&self) -> PortResult<Vec<TabInfo>> {
        with_session!(self, CallBound::reading(), |s| ops::tabs::tabs(s))
    }

    /// Never starts a browser: without a session no page can have opened anything.
    async fn opened_tabs(&self) -> PortResult<Vec<TabRef>> {
        let mut slot = self.slot.lock().await;
        let result = match slot.session.as_mut() {
            Some(session) => session.take_opened().await,
            None => return Ok(Vec::new()),
        };
        settle(&mut slot, result).await
    }

    async fn open_tab(&self, input: &NavigateInput, timeout: Duration) -> PortResult<OpenedTab> {
        with_session!(self, CallBound::acting(timeout), |s| ops::tabs::open_tab(s, input, timeout))
    }

    async fn focus_tab(&self, tab: &TabRef) -> PortResult<Focused> {
        with_session!(self, CallBound::untimed_act(), |s| ops::tabs::focus_tab(s, tab))
    }

    async fn close_tab(&self, tab: &TabRef) -> PortResult<()> {
        with_session!(self, CallBound::untimed_act(), |s| ops::tabs::close_tab(s, tab))
    }

    async fn page(&self, tab: &TabRef) -> PortResult<PageState> {
        with_session!(self, CallBound::reading(), |s| ops::tabs::page(s, tab))
    }

    async fn page_and_gate(&self, tab: &TabRef) -> PortResult<PageState> {
        with_session!(self, CallBound::reading(), |s| ops::tabs::page_and_gate(s, tab))
    }

    async fn navigate(&self, call: &TabCall<'_>, input: &NavigateInput) -> PortResult<PageState> {
        let (tab, timeout) = (call.tab, call.timeout);
        with_session!(self, CallBound::acting(timeout), |s| ops::navigation::navigate(s, tab, input, timeout))
    }

    async fn history(&self, call: &TabCall<'_>, step: HistoryMove) -> PortResult<PageState> {
        let (tab, timeout) = (call.tab, call.timeout);
        with_session!(self, CallBound::acting(timeout), |s| ops::navigation::history(s, tab, step, timeout))
    }

    async fn geometry(&self, tab: &TabRef) -> PortResult<Geometry> {
        with_session!(self, CallBound::reading(), |s| ops::window::geometry(s, tab))
    }

    async fn set_zoom(&self, tab: &TabRef, percent: u32) -> PortResult<Geometry> {
        with_session!(self, CallBound::untimed_act(), |s| ops::window::set_zoom(s, tab, percent))
    }

    async fn resize_window(&self, tab: &TabRef, width: u32, height: u32) -> PortResult<Geometry> {
        with_session!(self, CallBound::untimed_act(), |s| ops::window::resize_window(s, tab, width, height))
    }

    async fn read_text(&self, call: &TabCall<'_>, input: &ReadInput) -> PortResult<TextOutcome> {
        let (tab, gate) = (call.tab, &call.gate);
        with_session!(self, CallBound::reading_within(call.timeout), |s| ops::perception::read_text(
            s, tab, input, gate
        ))
    }

    async fn perceive(&self, call: &TabCall<'_>, input: &PerceiveInput) -> PortResult<Perception> {
        let (tab, gate) = (call.tab, &call.gate);
        with_session!(self, CallBound::reading_within(call.timeout), |s| ops::perception::perceive(
            s, tab, input, gate
        ))
    }

    async fn read_text_in(
        &self,
        call: &TabCall<'_>,
        expected: &ExpectedDocument,
        input: &ReadInput,
    ) -> PortResult<InDocument<TextOutcome>> {
        let (tab, gate) = (call.tab, &call.gate);
        with_session!(self, CallBound::reading_within(call.timeout), |s| ops::perception::read_text_in(
            s, tab, expected, input, gate
        ))
    }

    async fn perceive_in(
        &self,
        call: &TabCall<'_>,
        expected: &ExpectedDocument,
        input: &PerceiveInput,
    ) -> PortResult<InDocument<Perception>> {
        let (tab, gate) = (call.tab, &call.gate);
        with_session!(self, CallBound::reading_within(call.timeout), |s| ops::perception::perceive_in(
            s, tab, expected, input, gate
        ))
    }

    async fn focused_element(&self, tab: &TabRef) -> PortResult<Option<FocusedElement>> {
        with_session!(self, CallBound::reading(), |s| ops::perception::focused_element(s, tab))
    }

    async fn element_present(&self, tab: &TabRef, element: &ElementRef) -> PortResult<bool> {
        with_session!(self, CallBound::reading(), |s| ops::perception::element_present(s, tab, element))
    }

    async fn control_matches(
        &self,
        call: &TabCall<'_>,
        element: &ElementRef,
        expected: &FillValue,
    ) -> PortResult<Option<bool>> {
        let tab = call.tab;
        with_session!(self, CallBound::reading_within(call.timeout), |s| ops::input::control_matches(
            s, tab, element, expected
        ))
    }

    async fn text_present(&self, call: &TabCall<'_>, text: &str) -> PortResult<bool> {
        let (tab, gate) = (call.tab, &call.gate);
        with_session!(self, CallBound::reading_within(call.timeout), |s| ops::perception::text_present(
            s, tab, text, gate
        ))
    }

    async fn wait_text(&self, call: &TabCall<'_>, input: &TextWaitInput) -> PortResult<TextWait> {
        let (tab, gate) = (call.tab, &call.gate);
        let bound = call.timeout.max(input.within);
        with_session!(self, CallBound::reading_within(bound), |s| ops::perception::wait_text(
            s, tab, input, gate
        ))
    }

    async fn wait_text_in(
        &self,
        call: &TabCall<'_>,
        expected: &ExpectedDocument,
        input: &TextWaitInput,
    ) -> PortResult<InDocument<TextWait>> {
        let (tab, gate) = (call.tab, &call.gate);
        let bound = call.timeout.max(input.within);
        with_session!(self, CallBound::reading_within(bound), |s| ops::perception::wait_text_in(
            s, tab, expected, input, gate
        ))
    }

    async fn capture(&self, call: &TabCall<'_>, kind: &CaptureKind) -> PortResult<Captured> {
        let (tab, gate, timeout) = (call.tab, &call.gate, call.timeout);
        with_session!(self, CallBound::reading_within(timeout), |s| ops::capture::capture(
            s, tab, kind, gate, timeout
        ))
    }

    async fn click(&self, call: &TabCall<'_>, input: &ClickInput) -> PortResult<ActionReceipt> {
        let (tab, gate, timeout) = (call.tab, &call.gate, call.timeout);
        with_session!(self, CallBound::acting(timeout), |s| ops::input::click(s, tab, input, gate, timeout))
    }

    async fn hover(&self, call: &TabCall<'_>, input: &HoverInput) -> PortResult<ActionReceipt> {
        let (tab, gate, timeout) = (call.tab, &call.gate, call.timeout);
        with_session!(self, CallBound::acting(timeout), |s| ops::input::hover(s, tab, input, gate, timeout))
    }

    async fn scroll(&self, call: &TabCall<'_>, input: &ScrollInput) -> PortResult<ScrollOutcome> {
        let (tab, gate, timeout) = (call.tab, &call.gate, call.timeout);
        with_session!(self, CallBound::acting(timeout), |s| ops::input::scroll(s, tab, input, gate, timeout))
    }

    async fn scroll_in(
        &self,
        call: &TabCall<'_>,
        expected: &ExpectedDocument,
        input: &ScrollInput,
    ) -> PortResult<InDocument<ScrollOutcome>> {
        let (tab, gate, timeout) = (call.tab, &call.gate, call.timeout);
        with_session!(self, CallBound::acting(timeout), |s| ops::input::scroll_in(
            s, tab, expected, input, gate, timeout
        ))
    }

    async fn drag(
        &self,
        call: &TabCall<'_>,
        from: &PointerTarget,
        to: &PointerTarget,
    ) -> PortResult<ActionReceipt> {
        let (tab, gate, timeout) = (call.tab, &call.gate, call.timeout);
        with_session!(self, CallBound::acting(timeout), |s| ops::input::drag(s, tab, from, to, gate, timeout))
    }

    async fn fill(&self, call: &TabCall<'_>, input: &FillInput) -> PortResult<FillOutcome> {
        let (tab, timeout) = (call.tab, call.timeout);
        with_session!(self, CallBound::acting(timeout), |s| ops::input::fill(s, tab, input, timeout))
    }

    async fn type_text(&self, call: &TabCall<'_>, input: &TypeInput) -> PortResult<ActionReceipt> {
        let (tab, timeout) = (call.tab, call.timeout);
        with_session!(self, CallBound::acting(timeout), |s| ops::input::type_text(s, tab, input, timeout))
    }

    async fn press_keys(&self, call: &TabCall<'_>, input: &KeyInput) -> PortResult<ActionReceipt> {
        let (tab, timeout) = (call.tab, call.timeout);
        with_session!(self, CallBound::acting(timeout), |s| ops::input::press_keys(s, tab, input, timeout))
    }

    async fn dialog(&self, tab: &TabRef) -> PortResult<Option<DialogKind>> {
        with_session!(self, CallBound::reading(), |s| ops::dialogs::dialog(s, tab))
    }

    async fn resolve_dialog(&self, tab: &TabRef, resolution: &DialogResolution) -> PortResult<DialogKind> {
        with_session!(self, CallBound::untimed_act(), |s| ops::dialogs::resolve_dialog(s, tab, resolution))
    }

    async fn stat_files(&self, paths: &[PathBuf]) -> PortResult<Vec<FileStat>> {
        // Local metadata only: no browser needed, and none is started.
        Ok(ghostlight_page::upload::stat_files(paths))
    }

    async fn upload(&self, call: &TabCall<'_>, input: &UploadInput) -> PortResult<UploadOutcome> {
        let (tab, gate, timeout) = (call.tab, &call.gate, call.timeout);
        with_session!(self, CallBound::acting(timeout), |s| ops::input::upload(s, tab, input, gate, timeout))
    }

    async fn execute(&self, call: &TabCall<'_>, script: &str) -> PortResult<ScriptOutcome> {
        let (tab, timeout) = (call.tab, call.timeout);
        with_session!(self, CallBound::acting(timeout), |s| ops::script::execute(s, tab, script, timeout))
    }

    async fn record(&self, command: &RecordCommand) -> PortResult<RecordReport> {
        match command {
            RecordCommand::Start(tab, gate) => {
                let weak = Arc::downgrade(&self.slot);
                with_session!(self, CallBound::untimed_act(), |s| ops::recording::start(
                    s,
                    &self.recorder,
                    weak,
                    tab,
                    gate
                ))
            }
            RecordCommand::Save(
                recording,
                delivery @ (RecordDelivery::Download | RecordDelivery::Attach(..)),
            ) => {
                let saved = ops::recording::save(&self.slot, &self.recorder, recording).await?;
                with_session!(self, CallBound::recording(), |s| ops::recording::deliver(s, saved, delivery))
            }
            // Status, stop, discard and a client save need no session of their own.
            _ => ops::recording::record(&self.slot, &self.recorder, command).await,
        }
    }

    async fn diagnostics(&self, tab: &TabRef, query: &DiagnosticsQuery) -> PortResult<DiagnosticsPage> {
        with_session!(self, CallBound::reading(), |s| ops::evidence::diagnostics(s, tab, query))
    }

    async fn sleep(&self, duration: Duration) {
        tokio::time::sleep(duration).await;
    }
}
