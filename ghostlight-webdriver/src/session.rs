//! One live WebDriver session: the fantoccini [`Client`], the local driver process (when the
//! adapter launched it), and the little state the adapter keeps per session.
//!
//! A session has one *current* window (and frame) on the driver side. [`Session`] tracks it
//! so that each operation switches only when needed; see `ops/mod.rs` for how operations use
//! this API.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use fantoccini::Client;
use fantoccini::elements::Element as WdElement;
use fantoccini::wd::{TimeoutConfiguration, WindowHandle};
use ghostlight_core::port::{
    DialogKind, ElementRef, Geometry, LaunchCause, NetworkPolicy, PageState, PortError, PortErrorKind,
    PortResult, RequestKind, TabRef,
};
use ghostlight_page::bounds::{READ_SCRIPT_FLOOR, READ_SCRIPT_TIMEOUT};
use serde_json::{Value, json};
use url::Url;

use crate::bidi::{Bidi, Endpoint};
use crate::commands::SessionCommand;
use crate::config::{Diagnostics, DriverSource, Engine, Viewport, WebDriverConfig};
use crate::errors::{self, Sent};
use crate::filter::Filter;
use crate::launch::{self, DriverProcess};
use crate::page;
use crate::refs::{Element, Tab};
use crate::repair::{REPAIR_TIMEOUT, RepairQueue};
use crate::rescue::Rescue;
use crate::shared::{self, Seat};
use crate::storage_state::{self, StorageStateFile};
use crate::watch::Watchers;
use crate::watch::evidence::Tracker;
use crate::watch::prompts::{Move, PromptWatch};
use crate::wire::Wire;

/// How long creating a session may take (Firefox: 5–14 s on a loaded machine).
pub(crate) const SESSION_START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a polite `DELETE session` may take at shutdown before the processes are killed.
pub(crate) const SESSION_CLOSE_TIMEOUT: Duration = Duration::from_secs(5);
/// The script timeout a session starts with (operations narrow it to their own timeout): the
/// reading scripts' own bound, so that a session's first read sends no timeouts command.
pub(crate) const DEFAULT_SCRIPT_TIMEOUT: Duration = READ_SCRIPT_TIMEOUT;
/// The page-load timeout a session starts with (operations narrow it to their own timeout).
pub(crate) const DEFAULT_PAGE_LOAD_TIMEOUT: Duration = Duration::from_secs(30);
/// How many times a page read answered `null` without a dialog is repeated.
pub(crate) const SETTLE_READS: usize = 10;
/// The pause between those reads.
pub(crate) const SETTLE_STEP: Duration = Duration::from_millis(100);
/// The smallest timeout given to the driver (a zero timeout would fail at once).
pub(crate) const MIN_DRIVER_TIMEOUT: Duration = Duration::from_millis(100);
/// How long new windows' openers are waited for (one BiDi message; measured in milliseconds).
const OPENER_WAIT: Duration = Duration::from_secs(2);

/// The driver-side timeouts last set on the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Timeouts {
    script: Duration,
    page_load: Duration,
}

/// A live WebDriver session and what the adapter tracks about it.
#[derive(Debug)]
pub(crate) struct Session {
    client: Client,
    engine: Engine,
    /// The session number encoded in every [`TabRef`] and [`ElementRef`] of this session.
    number: u64,
    /// The window the driver is switched to; `None` when unknown (after a failed or
    /// cancelled switch, or after the current window was closed).
    current: Option<String>,
    /// Whether the driver is switched into a frame of `current` (not its top document).
    in_frame: bool,
    /// The tab most recently opened or focused through the adapter.
    ///
    /// Kept most recent last with the tabs active before it, so that closing the active
    /// tab makes the one active before it active again (as a browser does), never a tab
    /// the adapter did not open or select.
    recent: Vec<String>,
    /// Whether the last page state read found Chromium's error page ([`Session::read_error_page`]).
    read_error_page: bool,
    /// Whether page-state reads look for a gate too (`scripts/gate.js`): on only while a
    /// navigation, a history move or [`BrowserPort::page_and_gate`] reads its landing, and
    /// off again at the start of every port call.
    ///
    /// [`BrowserPort::page_and_gate`]: ghostlight_core::port::BrowserPort::page_and_gate
    detect_gates: bool,
    /// Window handles the adapter has seen: the first window, tabs it opened, and tabs
    /// already reported by [`Session::take_opened`]. Any other window is new.
    known_windows: HashSet<String>,
    /// Windows seen that no page of the session opened (the person's, another program's
    /// through DevTools), and what they opened in turn: never reported, never adopted.
    foreign_windows: HashSet<String>,
    /// Emulated zoom per window handle (Chromium only; absent means 100 %).
    zoom: HashMap<String, u32>,
    /// The outer size last read per window handle ([`Session::known_window_size`]).
    window_sizes: HashMap<String, WindowSize>,
    /// The last page state read per window handle (answered for a tab a dialog blocks).
    last_page: HashMap<String, PageState>,
    timeouts: Timeouts,
    headless: bool,
    /// The WebDriver BiDi URL the driver granted (`webSocketUrl`), if any, with the
    /// browser's command counters.
    bidi_url: Option<Endpoint>,
    /// Console and network evidence, once a `diagnostics` call asked for it (filed from
    /// the session's BiDi connection).
    evidence: Option<Tracker>,
    /// The dialog announcements (Chromium: attached with the session; `None` when the driver
    /// granted no BiDi URL or the connection failed).
    prompts: Option<PromptWatch>,
    /// The session's one WebDriver BiDi connection ([`Session::bidi`]): sandboxed scripts,
    /// tab reads, window openers and both watches share it. Opened with the session; `None`
    /// when the driver granted no BiDi URL or the connection could not be opened.
    bidi: Option<Bidi>,
    /// Where the connection's events go.
    watchers: Arc<Watchers>,
    /// Whether a sandboxed call answers in each window asked about so far
    /// ([`Session::sandbox_for`]).
    sandbox_windows: HashMap<String, bool>,
    /// The window whose page broke the last read in its own realm, read in its sandbox
    /// instead ([`Session::page_realm_broken`]); cleared by the next read that works there.
    broken_realm: Option<String>,
    process: Option<DriverProcess>,
    /// Repairs that dropped operations left to do ([`Session::run_repairs`]).
    repairs: RepairQueue,
    /// Where the storage state is saved when the session closes, with the loaded state's
    /// origins (saved again even when no tab shows them).
    save_state: Option<(StorageStateFile, Vec<String>)>,
    /// The network policy the browser's requests go through (behind the filter), whose
    /// refusals tell a navigation that will never commit.
    network: Option<NetworkPolicy>,
    /// The policy's refusal mark when the current port call began ([`Session::begin_call`]).
    call_mark: u64,
    /// The second channel to the browser, for a tab classic WebDriver cannot close.
    rescue: Rescue,
    /// The window the last switch went to (confirmed or not): the one a stuck command waits on.
    working: Option<String>,
    /// What the last command said about the current window's user prompt ([`Session::noted_prompt`]).
    prompt_note: Option<Noted<Prompt>>,
    /// The geometry the last command measured ([`Session::noted_geometry`]).
    geometry_note: Option<Noted<Geometry>>,
    /// The page state the last command read ([`Session::noted_page`]).
    page_note: Option<Noted<PageState>>,
    /// Counts every command sent, so a note is known to be the last command's.
    wire: Arc<Wire>,
    /// Where the session lives when it shares its browser (`shared.rs`): its user context is
    /// removed, with its tabs, when the session ends.
    seat: Option<Seat>,
    /// A seat's first window while no call has used it (blank; listing it does not count):
    /// it is closed once the session's first tab opens, so a seated session costs one window,
    /// not two ([`Session::take_untouched_first`]); the shared browser's own window keeps the
    /// browser open whatever a session's pages close.
    untouched_first: Option<String>,
    /// The blank first window of a browser started for this session alone, kept so that the
    /// browser outlives its last tab: a page may close its own tab (Firefox's tabs of one
    /// history entry, any engine's popups), and a browser whose last window closes is gone.
    /// It is never listed, never a tab and never navigated, and a page cannot close it.
    sentinel: Option<String>,
    /// Whether an input sequence failed part-way and its release failed too, so a button or
    /// key may still be down: the next sequence releases the input state first.
    input_unreleased: bool,
}

/// A window's outer size as the driver answered it, with the outer size its page read at the
/// same moment ([`Session::known_window_size`]).
#[derive(Debug, Clone, Copy, PartialEq)]
struct WindowSize {
    /// `outerWidth` and `outerHeight`, read in the page.
    outer_seen: (f64, f64),
    /// Width and height from Get Window Rect (or Set Window Rect's answer).
    size: (f64, f64),
}

/// Whether a user prompt blocks a window, as a command just found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prompt {
    /// None was open: the command ran.
    Closed,
    /// One was open (the command was refused for it), of this kind when the driver named it.
    Open(Option<DialogKind>),
}

/// What a command just read in `handle`'s window (whether a user prompt is open, the
/// geometry), standing for the same reading while no other command has been sent (`sent` is
/// the count of commands when it was noted) and for [`NOTE_LIFE`] (`at`). The reading is what a
/// command sent at that moment would answer, so a second read right after it would only cost a
/// round trip more. Past its life the note is stale: a page opens a dialog or scrolls whenever
/// it likes (a timer), and a reader must then look again.
///
/// The prompt: the WebDriver commands that run in a page all refuse to while a user prompt is
/// open, so a page-state read that ran (or was refused for a prompt) answers what a dialog
/// probe would.
#[derive(Debug, Clone)]
struct Noted<T> {
    handle: String,
    value: T,
    sent: u64,
    at: tokio::time::Instant,
}

/// How long a [`Noted`] reading stands. Within one call a second read follows the first in
/// microseconds; the bound keeps a caller that polls (sending nothing else) from reading an old
/// answer for more than this long.
const NOTE_LIFE: Duration = Duration::from_millis(100);

/// How long the driver's queue may take to answer a cheap command after a call ran out of
/// time before it counts as stuck (a moving queue answers in milliseconds).
pub(crate) const QUEUE_PROBE: Duration = Duration::from_secs(2);
/// How long the queue may take to move again once the stuck tab is closed (measured: the
/// stuck command fails within about 0.5 s on both engines).
pub(crate) const QUEUE_DRAIN: Duration = Duration::from_secs(3);

/// What [`Session::unstick`] found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unstuck {
    /// The queue moves: nothing was done.
    Moving,
    /// The queue was stuck on a tab's page; that tab was closed and the queue moves again.
    ClosedTab,
    /// The queue stays stuck: the session cannot go on.
    Stuck,
}

impl Session {
    /// A port call begins: later refusals are this call's.
    pub(crate) fn begin_call(&mut self) {
        self.detect_gates = false;
        self.call_mark = self.network.as_ref().map_or(0, |network| network.refusals().mark());
    }

    /// Whether, since this port call began, the filter refused a request that may be the
    /// document a navigation was going to (to `destination`'s origin, when given; else a
    /// request the browser's fetch metadata names a top-level document). Such a navigation
    /// never commits: the refused request was answered so that the tab keeps its document.
    pub(crate) fn navigation_refused(&self, destination: Option<&Url>) -> bool {
        let Some(network) = &self.network else { return false };
        let refused = network.refusals().since(self.call_mark);
        refused.entries.iter().any(|entry| match destination {
            Some(url) => entry.kind.may_be_document() && same_origin(&entry.origin, url),
            None => entry.kind == RequestKind::Document,
        })
    }
}

impl Session {
    /// Whether the tab now shows `url` because the filter refused it during this port call:
    /// a request that may be a document, to its host and port. The refusal is then reported
    /// as the document it was (a refused tunnel's kind was not visible to the filter).
    pub(crate) fn landed_on_refused(&self, url: &Url) -> bool {
        let Some(network) = &self.network else { return false };
        matches!(url.scheme(), "http" | "https") && network.refusals().confirm_document(url, self.call_mark)
    }
}

impl Session {
    /// Whether a navigation from `before` that left the tab on the blank page `now` was one
    /// the filter refused during this port call (an engine may answer a refused tunnel with
    /// a blank page rather than an error page): the newest refusal that may have been a
    /// top-level document is then reported as one.
    pub(crate) fn blanked_by_refusal(&self, before: &Url, now: &Url) -> bool {
        let Some(network) = &self.network else { return false };
        now.scheme() == "about"
            && matches!(before.scheme(), "http" | "https")
            && network.refusals().confirm_blank_document(self.call_mark)
    }

    /// Whether the filter refused, during this port call, a request that may have been a
    /// top-level document (without reporting it as one).
    pub(crate) fn top_document_may_be_refused(&self) -> bool {
        self.network
            .as_ref()
            .is_some_and(|network| network.refusals().top_document_may_be_refused(self.call_mark))
    }
}

/// Whether the refusal log's `origin` (`scheme://host:port`) is `url`'s host and port (a
/// tunnel is logged as `https`, so the scheme is not compared).
fn same_origin(origin: &str, url: &Url) -> bool {
    let Some((_, host_port)) = origin.split_once("://") else { return false };
    let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else { return false };
    host_port == format!("{host}:{port}")
}

/// How long the sandbox probe before a shared-browser session's first input in a window may
/// take.
const INPUT_PROBE_WAIT: Duration = Duration::from_secs(2);

/// How long a shared-browser session waits for a navigation its input started to commit or
/// raise a dialog.
const INPUT_NAVIGATION_WAIT: Duration = Duration::from_secs(2);

/// How long stopping a load over BiDi may take.
const STOP_WAIT: Duration = Duration::from_millis(500);

/// How often a navigation sent over BiDi looks for a dialog it raised.
const PROMPT_POLL: Duration = Duration::from_millis(20);

/// A session in a shared browser lists and opens its tabs over BiDi, which is gone.
fn shared_connection_closed() -> PortError {
    PortError::new(PortErrorKind::BrowserGone, "the shared browser's WebDriver BiDi connection closed")
}

/// Connect to `endpoint`, its events going to `watchers`, and register `preload` for the
/// sandbox realm of every new document; `None` (and a log line) when the connection cannot be
/// opened. A preload the driver refuses only costs bytes later (each document's first
/// sandboxed call installs the library itself).
async fn connect_bidi(endpoint: &Endpoint, watchers: &Arc<Watchers>, preload: &str) -> Option<Bidi> {
    match Bidi::connect(endpoint, watchers.handler()).await {
        Ok(bidi) => {
            let params =
                bidi.scoped(json!({ "functionDeclaration": preload, "sandbox": crate::bidi::SANDBOX }));
            if let Err(error) = bidi.command("script.addPreloadScript", params).await {
                tracing::warn!(detail = error.message(), "the sandbox library preload was refused");
            }
            Some(bidi)
        }
        Err(error) => {
            tracing::warn!(
                detail = error.message(),
                "the WebDriver BiDi connection failed: hit traces run in the page's own realm"
            );
            None
        }
    }
}

impl Session {
    /// Start the driver (when launching) and open a new session. `number` must differ from
    /// every earlier session of the same browser.
    /// `filter` is the network filter when the browser is started behind it; `wire` counts
    /// every command the session sends; `preload` is the script the BiDi connection installs
    /// in the sandbox realm of every new document (the operations' library). With a `seat`,
    /// the session starts in a browser it shares (`shared.rs`): no driver or browser is
    /// launched, the classic session attaches to the seat's browser and starts in the seat's
    /// window, and its BiDi connection keeps to the seat's user context. A session that fails
    /// to start gives its seat back (dropping it).
    pub(crate) async fn start(
        config: &WebDriverConfig,
        number: u64,
        filter: Option<&Filter>,
        wire: &Arc<Wire>,
        preload: &str,
        seat: Option<Seat>,
    ) -> PortResult<Session> {
        let launch_failed =
            |cause: LaunchCause, message: String| launch::launch_failed(config, cause, message);
        launch::check_config(config)?;
        let process = match (&seat, &config.driver) {
            (None, DriverSource::Launch { .. }) => {
                Some(DriverProcess::launch(config).await.map_err(|e| {
                    launch_failed(e.cause(), format!("the browser could not be started: {e}"))
                })?)
            }
            (Some(_), _) | (None, DriverSource::Connect(_)) => None,
        };
        let endpoint = match (&seat, &config.driver, &process) {
            (Some(seat), _, _) => seat.driver.clone(),
            (None, _, Some(process)) => process.url().clone(),
            (None, DriverSource::Connect(url), None) => with_trailing_slash(url),
            (None, DriverSource::Launch { .. }, None) => {
                return Err(launch_failed(LaunchCause::DriverExited, "the driver did not start".to_owned()));
            }
        };
        let mut caps = match &seat {
            Some(seat) => shared::attached_capabilities(seat),
            None => launch::capabilities(
                config,
                process.as_ref().and_then(DriverProcess::profile_dir),
                filter.map(Filter::address),
            ),
        };
        let timeouts = Timeouts { script: DEFAULT_SCRIPT_TIMEOUT, page_load: DEFAULT_PAGE_LOAD_TIMEOUT };
        caps.insert(
            "timeouts".into(),
            json!({
                "script": millis(timeouts.script),
                "pageLoad": millis(timeouts.page_load),
                "implicit": 0
            }),
        );
        let client = launch::new_session(config, &endpoint, caps, wire).await?;
        let handle = match &seat {
            Some(seat) => {
                let window = WindowHandle::try_from(seat.window.clone()).map_err(|_| {
                    PortError::new(PortErrorKind::Other, "the shared browser named no usable window")
                })?;
                client.switch_to_window(window).await.map_err(|error| errors::cmd(&error, Sent::Read))?;
                seat.window.clone()
            }
            None => match client.window().await {
                Ok(handle) => String::from(handle),
                Err(error) => return Err(errors::cmd(&error, Sent::Read)),
            },
        };
        let bidi_url = match &seat {
            Some(seat) => Some(Endpoint {
                url: seat.bidi_url.clone(),
                wire: Arc::clone(wire),
                user_context: Some(seat.user_context.clone()),
            }),
            None => client
                .capabilities()
                .and_then(|caps| caps.get("webSocketUrl"))
                .and_then(Value::as_str)
                .and_then(|url| Url::parse(url).ok())
                .map(|url| Endpoint::new(url, Arc::clone(wire))),
        };
        // The connection opens with the session, so the sandbox library reaches every
        // document the session's tabs show (connecting takes milliseconds; only Chromium's
        // dialog subscription below costs more).
        let watchers = Arc::new(Watchers::default());
        let bidi = match &bidi_url {
            Some(endpoint) => connect_bidi(endpoint, &watchers, preload).await,
            None => {
                tracing::warn!("hit traces run in the page's own realm: the driver granted no BiDi URL");
                None
            }
        };
        // Both engines: a read of a window whose dialog was announced answers without a
        // command, and Chromium's classic errors never name an alert, confirm or prompt (the
        // subscription takes 2–18 ms of the start). Not fatal: without it, the kind falls back
        // to what classic WebDriver tells.
        let prompts = match &bidi {
            Some(connection) => PromptWatch::attach(connection, &watchers, seat.is_some()).await.ok(),
            None => None,
        };
        let evidence = match (&bidi, config.diagnostics) {
            (Some(connection), Diagnostics::OnStart) => {
                match Tracker::attach(connection, &watchers, true).await {
                    Ok(tracker) => Some(tracker),
                    Err(error) => {
                        // Not fatal: the first diagnostics call subscribes as it would on demand.
                        tracing::warn!(
                            detail = error.message(),
                            "diagnostics could not start with the session"
                        );
                        None
                    }
                }
            }
            (_, Diagnostics::OnStart) => {
                tracing::warn!("diagnostics cannot start with the session: no WebDriver BiDi connection");
                None
            }
            (_, Diagnostics::OnDemand) => None,
        };
        let save_state = match &config.storage_state {
            Some(file) => load_storage_state(file, bidi_url.as_ref()).await.map_err(|message| {
                launch_failed(
                    LaunchCause::InvalidConfiguration,
                    format!("the browser could not be started: {message}"),
                )
            })?,
            None => None,
        };
        let rescue = match (&seat, &bidi_url) {
            (Some(seat), Some(endpoint)) => Rescue::seated(&seat.debugger_address, endpoint),
            _ => Rescue::of(
                config.engine,
                client.capabilities(),
                bidi_url.as_ref(),
                matches!(config.driver, DriverSource::Launch { .. }),
            ),
        };
        // A seat starts with one blank window, closed once the first tab opens; a browser
        // started for the session (without a person's profile, which may restore pages) keeps
        // its blank first window as its sentinel.
        let untouched_first = seat.is_some().then(|| handle.clone());
        let sentinel = (seat.is_none()
            && matches!(config.driver, DriverSource::Launch { .. })
            && config.profile.is_none())
        .then(|| handle.clone());
        let mut session = Session {
            untouched_first,
            sentinel,
            seat,
            rescue,
            working: None,
            save_state,
            bidi_url,
            evidence,
            prompts,
            bidi,
            watchers,
            sandbox_windows: HashMap::new(),
            broken_realm: None,
            client,
            engine: config.engine,
            number,
            current: Some(handle.clone()),
            in_frame: false,
            known_windows: HashSet::from([handle.clone()]),
            foreign_windows: HashSet::new(),
            read_error_page: false,
            detect_gates: false,
            recent: vec![handle],
            zoom: HashMap::new(),
            window_sizes: HashMap::new(),
            last_page: HashMap::new(),
            timeouts,
            headless: config.headless,
            process,
            repairs: RepairQueue::default(),
            network: filter.map(|filter| filter.policy().clone()),
            call_mark: 0,
            prompt_note: None,
            geometry_note: None,
            page_note: None,
            wire: Arc::clone(wire),
            input_unreleased: false,
        };
        if let Some(viewport) = config.viewport
            && let Err(error) = session.fit_viewport(viewport).await
        {
            // The session works at another size; geometry facts report what is observed.
            tracing::warn!(
                width = viewport.width,
                height = viewport.height,
                detail = error.message(),
                "the configured viewport could not be set"
            );
        }
        Ok(session)
    }

    /// Resize the current window so that its CSS viewport (`innerWidth` × `innerHeight`) is
    /// `wanted`: measure how much the window adds around the viewport, set the outer size to
    /// `wanted` plus that, and measure again (at most [`VIEWPORT_PASSES`] resizes). Tabs
    /// opened later open in this window and share its size, so every tab gets the viewport.
    async fn fit_viewport(&mut self, wanted: Viewport) -> PortResult<()> {
        let target = (i64::from(wanted.width), i64::from(wanted.height));
        for _ in 0..VIEWPORT_PASSES {
            let inner = self.inner_size().await?;
            if inner == target {
                return Ok(());
            }
            let rect = self.command(SessionCommand::window_rect(), Sent::Read).await?;
            let outer = |key: &str| rect.get(key).and_then(Value::as_f64).map_or(0, |v| v.round() as i64);
            let width = u32::try_from(outer("width") + target.0 - inner.0).unwrap_or(wanted.width);
            let height = u32::try_from(outer("height") + target.1 - inner.1).unwrap_or(wanted.height);
            self.command(SessionCommand::set_window_size(width, height), Sent::Act).await?;
        }
        match self.inner_size().await? {
            inner if inner == target => Ok(()),
            (width, height) => Err(PortError::new(
                PortErrorKind::Other,
                format!("the viewport stayed {width}x{height} after resizing the window"),
            )),
        }
    }

    /// The current window's `innerWidth` and `innerHeight`.
    async fn inner_size(&mut self) -> PortResult<(i64, i64)> {
        let value = self.execute(VIEWPORT_SCRIPT, Vec::new(), Sent::Read).await?;
        let sizes: Vec<i64> =
            value.as_array().map(|l| l.iter().filter_map(Value::as_i64).collect()).unwrap_or_default();
        match sizes.as_slice() {
            &[width, height] => Ok((width, height)),
            _ => Err(PortError::new(PortErrorKind::Other, "the browser answered an unexpected viewport")),
        }
    }

    /// Close the session politely (bounded), then kill the driver and browser and remove the
    /// profile.
    pub(crate) async fn close(self) {
        if let (Some((file, origins)), Some(url)) = (&self.save_state, &self.bidi_url) {
            save_storage_state(file, url, origins).await;
        }
        let Session { client, process, evidence, prompts, bidi, seat, .. } = self;
        // Close the BiDi connection (and end its task) before the session goes.
        drop((evidence, prompts, bidi));
        // An attached session's end leaves the shared browser running; its seat goes after.
        let _ = tokio::time::timeout(SESSION_CLOSE_TIMEOUT, client.close()).await;
        if let Some(seat) = seat {
            seat.release().await;
        }
        if let Some(process) = process {
            process.shutdown().await;
        }
    }

    /// Drop a session whose browser or driver is gone: kill what is left, without asking the
    /// driver anything (a session in a shared browser gives its user context back, which
    /// fails at once when that browser is gone).
    pub(crate) async fn discard(self) {
        let Session { client, process, evidence, prompts, bidi, seat, .. } = self;
        drop((evidence, prompts, bidi));
        // Dropping the last client lets fantoccini send its own best-effort DELETE.
        drop(client);
        if let Some(seat) = seat {
            seat.release().await;
        }
        if let Some(process) = process {
            process.shutdown().await;
        }
    }

    // ---- identity --------------------------------------------------------------------

    /// The engine of this session.
    pub(crate) fn engine(&self) -> Engine {
        self.engine
    }

    /// The number of this session (tokens of earlier sessions carry smaller numbers).
    pub(crate) fn number(&self) -> u64 {
        self.number
    }

    /// The session's windows in the driver's order (creation order): every window of its
    /// browser, or, when it shares its browser, those of its user context (listed over BiDi;
    /// classic WebDriver would list every session's).
    ///
    /// The session's [sentinel](Session::sentinel) is never among them.
    pub(crate) async fn windows(&mut self) -> PortResult<Vec<String>> {
        if let Some(user_context) = self.user_context() {
            let bidi = self.bidi().ok_or_else(shared_connection_closed)?;
            let tree = bidi.command("browsingContext.getTree", json!({ "maxDepth": 0 })).await?;
            return Ok(crate::rescue::top_contexts_of(&tree, Some(user_context)));
        }
        let handles = self.client.windows().await.map_err(|e| errors::cmd(&e, Sent::Read))?;
        Ok(self.without_sentinel(handles.into_iter().map(String::from).collect()))
    }

    /// `handles` without the session's sentinel window.
    pub(crate) fn without_sentinel(&self, mut handles: Vec<String>) -> Vec<String> {
        if let Some(sentinel) = &self.sentinel {
            handles.retain(|handle| handle != sentinel);
        }
        handles
    }

    /// The blank window that keeps a browser of the session's own open (see
    /// [`Session::sentinel`]); `None` for a seat, or a browser the session did not start.
    pub(crate) fn sentinel(&self) -> Option<&str> {
        self.sentinel.as_deref()
    }

    /// Open a blank tab (in the session's user context when it shares its browser) and
    /// answer its window handle; the driver stays on its current window.
    pub(crate) async fn new_tab(&mut self) -> PortResult<String> {
        if let Some(user_context) = self.user_context() {
            let params = json!({ "type": "tab", "userContext": user_context });
            let bidi = self.bidi().ok_or_else(shared_connection_closed)?;
            let created =
                bidi.command("browsingContext.create", params).await.map_err(PortError::effect_unknown)?;
            return created.get("context").and_then(Value::as_str).map(str::to_owned).ok_or_else(|| {
                PortError::new(PortErrorKind::Other, "the browser did not name the tab it opened")
                    .effect_unknown()
            });
        }
        let created = self.client.new_window(true).await.map_err(|e| errors::cmd(&e, Sent::Act))?;
        Ok(String::from(created.handle))
    }

    /// The session's BiDi connection (scripts in a sandbox realm, tab reads, the watches)
    /// while it is open; `None` when the session has none (a caller falls back to classic
    /// WebDriver or the page's own realm).
    pub(crate) fn bidi(&self) -> Option<&Bidi> {
        self.bidi.as_ref().filter(|bidi| bidi.is_open())
    }

    /// Whether the session's BiDi connection is open.
    pub(crate) fn bidi_is_open(&self) -> bool {
        self.bidi().is_some()
    }

    /// Where the BiDi connection's events go (to attach a watch).
    pub(crate) fn watchers(&self) -> &Arc<Watchers> {
        &self.watchers
    }

    /// The BiDi connection for sandboxed scripts in window `handle`'s documents.
    ///
    /// - `Ok(Some(_))`: sandboxed calls answer there. Every check of a frame document in such
    ///   a window is made in its sandbox realm; one that cannot be made there leaves the
    ///   document out or fails the call, and never falls back to the page's own realm, which
    ///   the page controls (a frame of a refused host could claim an admitted URL there).
    /// - `Ok(None)`: the window has no sandbox: no BiDi connection, or a Chromium window a page
    ///   opened (it has an opener), where BiDi never answers scripts
    ///   (`docs/webdriver-findings.md`). Its checks run in the page's realm; the log says so.
    /// - `Err`: the probe failed in a window that is not such a popup ([`PortErrorKind::Timeout`]
    ///   when it got no answer in `wait`: the page keeps its main thread busy, or a dialog
    ///   holds it). Nothing is decided; the next call asks again. A page cannot push the
    ///   checks into its own realm by stalling them.
    ///
    /// The first time a window is asked about, a trivial sandboxed call probes it.
    pub(crate) async fn sandbox_for(&mut self, handle: &str, wait: Duration) -> PortResult<Option<&Bidi>> {
        if !self.sandbox_windows.contains_key(handle) {
            let Some(bidi) = self.bidi() else { return Ok(None) };
            let params = crate::bidi::sandboxed_call(handle, crate::bidi::ANSWERS);
            let answered = bidi.command_within("script.callFunction", params, wait).await;
            let answers = match answered {
                Ok(answer) => answer["type"] == "success",
                Err(error) if !self.is_popup_without_sandbox(handle).await => {
                    return Err(if error.kind() == PortErrorKind::Timeout {
                        PortError::new(
                            PortErrorKind::Timeout,
                            "the page did not answer in time: its main thread is busy or a dialog holds it",
                        )
                    } else {
                        error
                    });
                }
                Err(_) => false,
            };
            if !answers {
                tracing::warn!(
                    "a window does not answer sandboxed scripts: its checks run in the page's own realm"
                );
            }
            self.sandbox_windows.insert(handle.to_owned(), answers);
        }
        match self.sandbox_windows.get(handle) {
            Some(true) => Ok(self.bidi()),
            _ => Ok(None),
        }
    }

    /// Whether window `handle` is one where Chromium's BiDi never answers scripts: a window a
    /// page opened (it has an opener, `browsingContext.getTree`'s `originalOpener`).
    async fn is_popup_without_sandbox(&mut self, handle: &str) -> bool {
        if self.engine != Engine::Chromium {
            return false;
        }
        self.openers().await.is_some_and(|openers| openers.get(handle).is_some_and(Option::is_some))
    }

    /// A command to the current window (navigation, history, input; its `params` gain the
    /// window's `context`) of a session in a shared browser, sent over BiDi: chromedriver's
    /// classic-only session, which such a session has, accepts a leave-page prompt the command
    /// raises (`docs/webdriver-findings.md` §8), and the spec says such a prompt is reported,
    /// never accepted. Answers when the command does,
    /// within `wait` ([`PortErrorKind::Timeout`]), or as soon as the prompt watch announces a
    /// dialog in the window ([`PortErrorKind::BlockedByDialog`]: the dialog holds the command,
    /// which is left to end when it is answered).
    pub(crate) async fn window_command_over_bidi(
        &mut self,
        method: &str,
        mut params: Value,
        wait: Duration,
    ) -> PortResult<()> {
        let handle = self
            .current
            .clone()
            .ok_or_else(|| PortError::new(PortErrorKind::Other, "no window is current to navigate"))?;
        if let Some(object) = params.as_object_mut() {
            object.insert("context".into(), json!(handle));
        }
        self.over_bidi_until_prompt(&handle, method, params, wait).await
    }

    /// Send `method` with `params` over BiDi, answering when it does (within `wait`) or, as
    /// [`PortErrorKind::BlockedByDialog`], as soon as the prompt watch announces a dialog in
    /// window `handle` (see [`Session::window_command_over_bidi`]).
    async fn over_bidi_until_prompt(
        &self,
        handle: &str,
        method: &str,
        params: Value,
        wait: Duration,
    ) -> PortResult<()> {
        let bidi = self.bidi().ok_or_else(shared_connection_closed)?;
        let prompts = self.prompts.as_ref();
        let command = bidi.command_within(method, params, wait);
        tokio::pin!(command);
        loop {
            tokio::select! {
                answer = &mut command => return answer.map(drop).map_err(PortError::effect_unknown),
                () = tokio::time::sleep(PROMPT_POLL) => {
                    if prompts.is_some_and(|watch| watch.kind(handle).is_some()) {
                        return Err(PortError::new(PortErrorKind::BlockedByDialog, "a dialog opened during the navigation"));
                    }
                }
            }
        }
    }

    /// Stop the current window's load (`window.stop()` in its sandbox realm, over BiDi;
    /// bounded): for a session in a shared browser, whose classic commands all wait for a
    /// pending load (chromedriver stops one only at its own navigation's timeout).
    pub(crate) async fn stop_loading_over_bidi(&mut self) -> PortResult<()> {
        let handle = self
            .current
            .clone()
            .ok_or_else(|| PortError::new(PortErrorKind::Other, "no window is current"))?;
        let bidi = self.bidi().ok_or_else(shared_connection_closed)?;
        let params = crate::bidi::sandboxed_call(&handle, "() => { window.stop(); }");
        bidi.command_within("script.callFunction", params, STOP_WAIT).await.map(drop)
    }

    /// The current window's navigation announcements so far ([`PromptWatch::moved`]).
    pub(crate) fn moved(&self) -> u64 {
        match (&self.prompts, &self.current) {
            (Some(watch), Some(handle)) => watch.moved(handle).0,
            _ => 0,
        }
    }

    /// Wait until the current window announces a navigation after the `before`th (answering
    /// how it moved) or a dialog ([`PortErrorKind::BlockedByDialog`]), until `deadline`
    /// ([`PortErrorKind::Timeout`]). For a history move of a session in a shared browser.
    pub(crate) async fn await_move(&self, before: u64, deadline: tokio::time::Instant) -> PortResult<Move> {
        let (Some(watch), Some(handle)) = (&self.prompts, &self.current) else {
            return Err(PortError::new(PortErrorKind::Other, "no navigation announcements to wait for"));
        };
        loop {
            if watch.kind(handle).is_some() {
                return Err(PortError::new(
                    PortErrorKind::BlockedByDialog,
                    "a dialog opened during the history move",
                ));
            }
            if let (count, Some(kind)) = watch.moved(handle)
                && count > before
            {
                return Ok(kind);
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(PortError::new(PortErrorKind::Timeout, "the history move did not start in time")
                    .effect_unknown());
            }
            tokio::time::sleep(PROMPT_POLL).await;
        }
    }

    /// Accept or dismiss the dialog open in the current window: over BiDi for a session in a
    /// shared browser (see [`Session::answer_prompt_over_bidi`]), else through classic
    /// WebDriver. Its announcement no longer stands either way.
    pub(crate) async fn answer_current_prompt(&mut self, accept: bool) -> PortResult<()> {
        if self.seat.is_some() {
            let handle = self.current.clone().unwrap_or_default();
            return self.answer_prompt_over_bidi(&handle, accept, None).await;
        }
        self.forget_prompt();
        let answered =
            if accept { self.client.accept_alert().await } else { self.client.dismiss_alert().await };
        answered.map_err(|e| errors::cmd(&e, Sent::Act))
    }

    /// Answer the dialog BiDi announced in window `handle` over BiDi
    /// (`browsingContext.handleUserPrompt`): accept (with `text` for a prompt) or dismiss. For a
    /// session in a shared browser, whose classic session would accept a leave-page prompt on
    /// any command (see [`Session::switch_to`]).
    pub(crate) async fn answer_prompt_over_bidi(
        &mut self,
        handle: &str,
        accept: bool,
        text: Option<&str>,
    ) -> PortResult<()> {
        let mut params = json!({ "context": handle, "accept": accept });
        if let (Some(text), Some(object)) = (text, params.as_object_mut()) {
            object.insert("userText".into(), json!(text));
        }
        let bidi = self.bidi().ok_or_else(shared_connection_closed)?;
        bidi.command("browsingContext.handleUserPrompt", params).await.map_err(PortError::effect_unknown)?;
        if let Some(watch) = &self.prompts {
            watch.forget(handle);
        }
        Ok(())
    }

    /// Whether input to the current window goes over BiDi: a session in a shared browser, in a
    /// window BiDi answers (not a Chromium popup that keeps its opener, where BiDi never
    /// answers and the classic session's input is the only one; see [`Session::sandbox_for`]).
    pub(crate) async fn input_over_bidi(&mut self) -> bool {
        let Some(handle) = self.current.clone() else { return false };
        self.seat.is_some() && matches!(self.sandbox_for(&handle, INPUT_PROBE_WAIT).await, Ok(Some(_)))
    }

    /// Navigations BiDi announced as started in the current window so far.
    pub(crate) fn navigation_starts(&self) -> u64 {
        match (&self.prompts, &self.current) {
            (Some(watch), Some(handle)) => watch.starts(handle),
            _ => 0,
        }
    }

    /// After input over BiDi (a session in a shared browser): a navigation the input started
    /// may raise a leave-page prompt a moment after the input answered, and the classic
    /// command that met it would accept it. One sandboxed call in the window orders things
    /// (the input's navigation request leaves the page before the call's answer, and BiDi
    /// announces a navigation as started before the prompt it raises); when the window then
    /// announced a navigation after the `before`th, wait (at most [`INPUT_NAVIGATION_WAIT`])
    /// until it commits or raises a dialog. Work the input started later (a timer) is not
    /// waited for.
    pub(crate) async fn await_input_navigation(&self, before: u64) {
        let Some(handle) = self.current.as_deref() else { return };
        let params = crate::bidi::sandboxed_call(handle, crate::bidi::ANSWERS);
        // A prompt holds the call (BiDi scripts wait under a dialog on Chromium): the watch
        // ends it.
        let _ =
            self.over_bidi_until_prompt(handle, "script.callFunction", params, INPUT_NAVIGATION_WAIT).await;
        let Some(watch) = &self.prompts else { return };
        if watch.starts(handle) <= before {
            return;
        }
        let (moved_before, _) = watch.moved(handle);
        let started = tokio::time::Instant::now();
        while watch.kind(handle).is_none()
            && watch.moved(handle).0 <= moved_before
            && started.elapsed() < INPUT_NAVIGATION_WAIT
        {
            tokio::time::sleep(PROMPT_POLL).await;
        }
    }

    /// The session's first window, while no call has used it: the caller closes it once the
    /// first tab it opens shows its page (see [`Session::untouched_first`]). Answered once.
    pub(crate) fn take_untouched_first(&mut self) -> Option<String> {
        self.untouched_first.take()
    }

    /// Give the untouched first window back (the first tab failed to open).
    pub(crate) fn restore_untouched_first(&mut self, handle: String) {
        self.untouched_first = Some(handle);
    }

    /// `handle` is a call's tab (named by its token): it is no longer untouched.
    fn touch(&mut self, handle: &str) {
        if self.untouched_first.as_deref() == Some(handle) {
            self.untouched_first = None;
        }
    }

    /// Whether the session shares its browser (`shared.rs`).
    pub(crate) fn is_seated(&self) -> bool {
        self.seat.is_some()
    }

    /// The dialog announcements, when the session has them.
    pub(crate) fn prompts(&self) -> Option<&PromptWatch> {
        self.prompts.as_ref()
    }

    /// The kind of the dialog BiDi announced as open in the current window, if any.
    pub(crate) fn announced_prompt(&self) -> Option<DialogKind> {
        self.prompts.as_ref()?.kind(self.current.as_deref()?)
    }

    /// Forget the current window's announced dialog (see [`PromptWatch::forget`]).
    pub(crate) fn forget_prompt(&self) {
        if let (Some(watch), Some(handle)) = (&self.prompts, &self.current) {
            watch.forget(handle);
        }
    }

    /// The session's console and network evidence tracker (`None` until the first
    /// `diagnostics` call).
    pub(crate) fn evidence(&mut self) -> &mut Option<Tracker> {
        &mut self.evidence
    }

    /// Whether the browser runs headless.
    pub(crate) fn headless(&self) -> bool {
        self.headless
    }

    /// The fantoccini client. Commands sent through it act on the current window and frame:
    /// call [`Session::tab`] or [`Session::element`] first.
    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    /// The driver process id and profile directory (local launches only; for tests).
    #[cfg(feature = "testing")]
    pub(crate) fn process_info(&self) -> Option<(u32, std::path::PathBuf)> {
        let process = self.process.as_ref()?;
        Some((process.pid()?, process.profile_dir()?.to_path_buf()))
    }

    /// A temporary folder of this session's browser, removed at shutdown, for files the
    /// browser reads later (local launches only; never a persistent profile).
    pub(crate) fn scratch_dir(&self) -> Option<&std::path::Path> {
        match &self.seat {
            Some(seat) => seat.scratch.as_deref(),
            None => self.process.as_ref()?.scratch_dir(),
        }
    }

    /// The session's user context when it shares its browser (`shared.rs`).
    pub(crate) fn user_context(&self) -> Option<&str> {
        self.seat.as_ref().map(|seat| seat.user_context.as_str())
    }

    /// The [`TabRef`] of window `handle` in this session.
    pub(crate) fn tab_ref(&self, handle: &str) -> TabRef {
        Tab { session: self.number, handle: handle.to_owned() }.to_ref()
    }

    /// The [`ElementRef`] of element `id` inside `frames` (iframe element ids from the top
    /// document down) of window `handle`.
    pub(crate) fn element_ref(&self, handle: &str, frames: &[String], id: &str) -> ElementRef {
        let tab = Tab { session: self.number, handle: handle.to_owned() };
        Element { tab, frames: frames.to_vec(), id: id.to_owned() }.to_ref()
    }

    /// Decode `tab` and check it belongs to this session ([`PortErrorKind::TabGone`] when it
    /// is from an earlier one).
    pub(crate) fn handle_of(&self, tab: &TabRef) -> PortResult<String> {
        let tab = Tab::parse(tab)?;
        if tab.session != self.number {
            return Err(PortError::new(
                PortErrorKind::TabGone,
                "the tab belonged to an earlier browser session",
            ));
        }
        Ok(tab.handle)
    }

    // ---- switching -------------------------------------------------------------------

    /// Make `tab`'s top-level document the driver's current browsing context, switching only
    /// when needed. Answers the window handle.
    pub(crate) async fn tab(&mut self, tab: &TabRef) -> PortResult<String> {
        let handle = self.handle_of(tab)?;
        self.own_window(&handle).await?;
        self.touch(&handle);
        self.switch_to(&handle).await?;
        Ok(handle)
    }

    /// Refuse ([`PortErrorKind::TabGone`]) the session's sentinel window, and, in a shared
    /// browser, a window outside the session's user context: one it has not seen yet is looked
    /// up once (one BiDi message).
    async fn own_window(&mut self, handle: &str) -> PortResult<()> {
        if self.sentinel.as_deref() == Some(handle) {
            return Err(PortError::new(PortErrorKind::TabGone, "the tab is not one of this session's"));
        }
        if self.seat.is_none()
            || (self.known_windows.contains(handle) && !self.foreign_windows.contains(handle))
        {
            return Ok(());
        }
        if self.windows().await?.iter().any(|own| own == handle) {
            return Ok(());
        }
        Err(PortError::new(PortErrorKind::TabGone, "the tab is not one of this session's"))
    }

    /// Switch to window `handle` (top-level document).
    ///
    /// In a shared browser, a window whose leave-page prompt BiDi announced is refused
    /// ([`PortErrorKind::BlockedByDialog`]) without a command: chromedriver's classic-only
    /// session accepts such a prompt on the next command it runs there
    /// (`docs/webdriver-findings.md` §8); `browser_dialog` answers it over BiDi.
    pub(crate) async fn switch_to(&mut self, handle: &str) -> PortResult<()> {
        if self.leave_prompt_in(handle) {
            return Err(PortError::blocked_by(
                DialogKind::BeforeUnload,
                "a leave-page prompt is open in the tab; answer it first",
            ));
        }
        if self.current.as_deref() == Some(handle) && !self.in_frame {
            return Ok(());
        }
        // Unknown until the switch is confirmed (a cancelled call leaves it unknown).
        self.current = None;
        self.working = Some(handle.to_owned());
        let window = WindowHandle::try_from(handle.to_owned())
            .map_err(|_| PortError::new(PortErrorKind::InvalidInput, "the tab reference is malformed"))?;
        // Switch To Window also resets to the top-level document, and (unlike Switch To
        // Frame) it works while a dialog is open.
        self.client.switch_to_window(window).await.map_err(|e| errors::cmd(&e, Sent::Read))?;
        self.current = Some(handle.to_owned());
        self.in_frame = false;
        Ok(())
    }

    /// Switch into `frames` (iframe element ids from the top document down) of `tab`.
    /// Operations that ran in a frame need not switch back: the next [`Session::tab`] does.
    pub(crate) async fn enter_frames(&mut self, tab: &TabRef, frames: &[String]) -> PortResult<String> {
        let handle = self.tab(tab).await?;
        for frame in frames {
            self.in_frame = true;
            self.command(SessionCommand::enter_frame(frame), Sent::Read).await?;
        }
        Ok(handle)
    }

    /// Resolve `element` to a fantoccini element in its own frame, switching window and
    /// frames. The element must belong to `tab` ([`PortErrorKind::TargetStale`] otherwise).
    pub(crate) async fn element(&mut self, tab: &TabRef, element: &ElementRef) -> PortResult<WdElement> {
        let decoded = self.element_of(tab, element)?;
        self.enter_frames(tab, &decoded.frames).await?;
        Ok(WdElement::from_element_id(self.client.clone(), decoded.id.into()))
    }

    /// Decode `element` and check it belongs to `tab` of this session
    /// ([`PortErrorKind::TargetStale`] otherwise), without switching anywhere.
    pub(crate) fn element_of(&self, tab: &TabRef, element: &ElementRef) -> PortResult<Element> {
        let decoded = Element::parse(element)?;
        let handle = self.handle_of(tab)?;
        if decoded.tab.session != self.number || decoded.tab.handle != handle {
            return Err(PortError::new(
                PortErrorKind::TargetStale,
                "the element belongs to another tab or session",
            ));
        }
        Ok(decoded)
    }

    /// The window the driver is switched to, when it is in that window's top document.
    pub(crate) fn at_top(&self) -> Option<&str> {
        self.current.as_deref().filter(|_| !self.in_frame)
    }

    /// The window the driver is switched to, if known.
    pub(crate) fn current(&self) -> Option<&str> {
        self.current.as_deref()
    }

    /// Whether a button or key may still be down in the driver's input state (a sequence
    /// failed part-way and so did its release).
    pub(crate) fn input_unreleased(&self) -> bool {
        self.input_unreleased
    }

    /// Record whether a button or key may still be down in the driver's input state.
    pub(crate) fn set_input_unreleased(&mut self, unreleased: bool) {
        self.input_unreleased = unreleased;
    }

    /// Note what a command just found about the current window's user prompt.
    pub(crate) fn note_prompt(&mut self, prompt: Prompt) {
        self.prompt_note = self.note(prompt);
    }

    /// What the last command sent found about the current window's user prompt, if it found
    /// anything, was indeed the last, and did so a moment ago (see [`Noted`]).
    pub(crate) fn noted_prompt(&self) -> Option<Prompt> {
        self.fresh(self.prompt_note.as_ref()).copied()
    }

    /// Note the geometry a command just measured in the current window.
    pub(crate) fn note_geometry(&mut self, geometry: &Geometry) {
        self.geometry_note = self.note(*geometry);
    }

    /// The geometry the last command sent measured in the current window, a moment ago (see
    /// [`Noted`]).
    pub(crate) fn noted_geometry(&self) -> Option<Geometry> {
        self.fresh(self.geometry_note.as_ref()).copied()
    }

    /// The page state the last command sent read in the current window a moment ago (see
    /// [`Noted`]), with that window: the page before an input that follows a read at once
    /// (a selector's perception, then its click) without reading it again.
    pub(crate) fn noted_page(&self) -> Option<(String, PageState)> {
        let page = self.fresh(self.page_note.as_ref())?.clone();
        self.current.clone().map(|handle| (handle, page))
    }

    /// `value`, read by the command just sent in the current window, as a note.
    fn note<T>(&self, value: T) -> Option<Noted<T>> {
        let (sent, at) = (self.commands_sent(), tokio::time::Instant::now());
        self.current.clone().map(|handle| Noted { handle, value, sent, at })
    }

    /// The value of `note` while it stands (see [`Noted`]).
    fn fresh<'a, T>(&self, note: Option<&'a Noted<T>>) -> Option<&'a T> {
        let note = note?;
        let stands = note.at.elapsed() < NOTE_LIFE
            && self.current.as_deref() == Some(note.handle.as_str())
            && note.sent == self.commands_sent();
        stands.then_some(&note.value)
    }

    /// Commands of both protocols sent so far.
    fn commands_sent(&self) -> u64 {
        let counts = self.wire.counts();
        counts.classic_commands + counts.bidi_commands
    }

    /// Forget the current window (after closing it: the driver does not switch by itself).
    pub(crate) fn forget_current(&mut self) {
        self.current = None;
        self.in_frame = false;
    }

    /// The tabs opened or focused through the adapter, most recent first.
    pub(crate) fn recent_tabs(&self) -> impl Iterator<Item = &str> {
        self.recent.iter().rev().map(String::as_str)
    }

    /// Record `handle` as the most recently opened or focused tab.
    pub(crate) fn set_active(&mut self, handle: &str) {
        self.recent.retain(|h| h != handle);
        self.recent.push(handle.to_owned());
    }

    /// Forget per-tab state of a closed window.
    /// Remember a window the adapter opened itself (it is never reported as opened by a page).
    pub(crate) fn know_window(&mut self, handle: &str) {
        self.known_windows.insert(handle.to_owned());
    }

    /// The windows pages of this session opened by themselves since the last call, in the
    /// driver's order (which is creation order on both engines); each is reported once. A new
    /// window's opener is read in one WebDriver BiDi message (`browsingContext.getTree`,
    /// `originalOpener`, which `noopener` does not clear): a window with no opener, or one a
    /// foreign window opened, is foreign and never reported. Without BiDi every new window is
    /// reported (the opener cannot be told).
    pub(crate) async fn take_opened(&mut self) -> PortResult<Vec<TabRef>> {
        let handles = self.windows().await?;
        let fresh: Vec<String> = handles.into_iter().filter(|h| !self.known_windows.contains(h)).collect();
        if fresh.is_empty() {
            return Ok(Vec::new());
        }
        let openers = self.openers().await;
        let mut opened = Vec::new();
        for handle in fresh {
            self.known_windows.insert(handle.clone());
            let by_page = match &openers {
                Some(openers) => openers
                    .get(&handle)
                    .and_then(Option::as_deref)
                    .is_some_and(|opener| !self.foreign_windows.contains(opener)),
                None => true,
            };
            if by_page {
                opened.push(self.tab_ref(&handle));
            } else {
                self.foreign_windows.insert(handle);
            }
        }
        Ok(opened)
    }

    /// Every top-level window's opener (`None`: opened by no page), or `None` when BiDi cannot
    /// tell.
    async fn openers(&mut self) -> Option<HashMap<String, Option<String>>> {
        let bidi = self.bidi()?;
        let tree =
            bidi.command_within("browsingContext.getTree", json!({ "maxDepth": 0 }), OPENER_WAIT).await;
        let tree = match tree {
            Ok(tree) => tree,
            Err(error) => {
                tracing::warn!(
                    detail = error.message(),
                    "new windows are taken as a page's: their openers are unknown"
                );
                return None;
            }
        };
        let contexts = tree.get("contexts")?.as_array()?;
        Some(
            contexts
                .iter()
                .filter_map(|c| {
                    let context = c.get("context")?.as_str()?.to_owned();
                    let opener = c.get("originalOpener").and_then(Value::as_str).map(str::to_owned);
                    Some((context, opener))
                })
                .collect(),
        )
    }

    pub(crate) fn forget_tab(&mut self, handle: &str) {
        self.sandbox_windows.remove(handle);
        self.zoom.remove(handle);
        self.window_sizes.remove(handle);
        self.last_page.remove(handle);
        self.recent.retain(|h| h != handle);
    }

    // ---- commands --------------------------------------------------------------------

    /// Send a custom session command; errors are mapped with `sent`.
    pub(crate) async fn command(&mut self, command: SessionCommand, sent: Sent) -> PortResult<Value> {
        self.refuse_under_leave_prompt()?;
        self.client.issue_cmd(command).await.map_err(|e| errors::cmd(&e, sent))
    }

    /// Run `script` (a function body) with `args` in the current browsing context.
    pub(crate) async fn execute(&mut self, script: &str, args: Vec<Value>, sent: Sent) -> PortResult<Value> {
        self.refuse_under_leave_prompt()?;
        self.client.execute(script, args).await.map_err(|e| errors::cmd(&e, sent))
    }

    /// Whether BiDi announced a leave-page prompt in the current window of a session in a
    /// shared browser, whose classic session would accept it on its next command there (see
    /// [`Session::switch_to`]).
    fn leave_prompt_held(&self) -> bool {
        self.current.as_deref().is_some_and(|handle| self.leave_prompt_in(handle))
    }

    /// [`Session::leave_prompt_held`] for window `handle`.
    fn leave_prompt_in(&self, handle: &str) -> bool {
        self.seat.is_some()
            && self.prompts.as_ref().and_then(|watch| watch.kind(handle)) == Some(DialogKind::BeforeUnload)
    }

    /// Refuse a classic command while [`Session::leave_prompt_held`], as classic WebDriver
    /// refuses one under any other dialog.
    fn refuse_under_leave_prompt(&self) -> PortResult<()> {
        if self.leave_prompt_held() {
            return Err(PortError::blocked_by(
                DialogKind::BeforeUnload,
                "a leave-page prompt is open in the tab",
            ));
        }
        Ok(())
    }

    /// Run `script` (a function body whose last argument is the driver's callback) with
    /// `args` in the current browsing context, answering what it passed to the callback;
    /// `None` when its document went away (a navigation) before it answered.
    pub(crate) async fn execute_async(
        &mut self,
        script: &str,
        args: Vec<Value>,
        sent: Sent,
    ) -> PortResult<Option<Value>> {
        self.refuse_under_leave_prompt()?;
        match self.client.execute_async(script, args).await {
            Ok(answer) => Ok(Some(answer)),
            Err(e) if errors::document_unloaded(&e) => Ok(None),
            Err(e) => Err(errors::cmd(&e, sent)),
        }
    }

    /// The driver's script timeout for a script that runs for up to `at_least`: kept when it
    /// lies between `at_least` and [`READ_SCRIPT_TIMEOUT`] (so a run of such scripts, or a
    /// read after one, sends no timeouts command), else the larger of the two.
    pub(crate) async fn set_script_timeout_at_least(&mut self, at_least: Duration) -> PortResult<()> {
        if (at_least..=READ_SCRIPT_TIMEOUT.max(at_least)).contains(&self.timeouts.script) {
            return Ok(());
        }
        self.set_script_timeout(READ_SCRIPT_TIMEOUT.max(at_least)).await
    }

    /// Run a Chrome DevTools Protocol command on the current window (Chromium only).
    pub(crate) async fn cdp(&mut self, command: &str, params: Value, sent: Sent) -> PortResult<Value> {
        if self.engine != Engine::Chromium {
            return Err(PortError::new(PortErrorKind::Unsupported, "DevTools commands need Chromium"));
        }
        self.command(SessionCommand::cdp(command, params), sent).await
    }

    /// The page state of the current tab's top-level document (switching out of a frame
    /// first). Installs the page-side hooks on first sight of a document.
    pub(crate) async fn page_state(&mut self) -> PortResult<PageState> {
        self.page_reading().await.map(|reading| reading.state)
    }

    /// [`Session::page_state`], with where a navigation to another document the page started
    /// is going while the page still shows, and whether work an input started is pending (see
    /// `scripts/page_state.js`, `gl.nav` and `gl.work`).
    pub(crate) async fn page_reading(&mut self) -> PortResult<page::Reading> {
        self.try_page_reading().await?.ok_or_else(|| {
            // WebDriver answers `null` for a script interrupted by a user prompt.
            PortError::new(PortErrorKind::BlockedByDialog, "a dialog opened while the page was read")
        })
    }

    /// [`Session::page_reading`]; `None` when the script answered `null` (a user prompt
    /// interrupted it, or, on Firefox, a navigation in progress cut it short).
    async fn try_page_reading(&mut self) -> PortResult<Option<page::Reading>> {
        // A dialog BiDi announced in this window refuses the read without a command, as the
        // driver would (the announcement of its closing is awaited only for dialogs the adapter
        // did not resolve itself: [`PromptWatch::forget`]).
        if let Some(kind) = self.announced_prompt() {
            self.note_prompt(Prompt::Open(Some(kind)));
            return Err(PortError::blocked_by(kind, "a dialog blocks the page"));
        }
        if self.in_frame {
            self.command(SessionCommand::top_frame(), Sent::Read).await?;
            self.in_frame = false;
        }
        let script = if self.detect_gates { page::gated_state_script() } else { page::state_script() };
        let value = match self.client.execute(&script, Vec::new()).await {
            Ok(value) => value,
            Err(e) => {
                if errors::is_dialog(&e) {
                    self.note_prompt(Prompt::Open(errors::dialog_hint(&e)));
                    return Err(errors::cmd(&e, Sent::Read));
                }
                // A document that went away under the read is not one that broke it (its
                // sandbox could still answer under an identity of its own for a moment).
                if errors::document_unloaded(&e) {
                    return Err(errors::cmd(&e, Sent::Read));
                }
                return self.read_in_sandbox_instead(errors::cmd(&e, Sent::Read)).await.map(Some);
            }
        };
        if value.is_null() {
            return Ok(None);
        }
        // The read ran, so no prompt blocked the window (until the next command).
        self.note_prompt(Prompt::Closed);
        match self.accept_reading(value).await {
            Ok(reading) => {
                if self.broken_realm == self.current {
                    self.broken_realm = None;
                }
                Ok(Some(reading))
            }
            Err(error) => self.read_in_sandbox_instead(error).await.map(Some),
        }
    }

    /// Note that the current window's page broke a read in its own realm (it was read in its
    /// sandbox instead).
    pub(crate) fn note_realm_broken(&mut self) {
        self.broken_realm = self.current.clone();
    }

    /// Whether the current window's page broke the last page read in its own realm: a script
    /// that acts there then runs in its sandbox, never in the page's realm first (where it
    /// could run and still fail, and would then run twice).
    pub(crate) fn page_realm_broken(&self) -> bool {
        self.broken_realm.is_some() && self.broken_realm == self.current
    }

    /// The page state read in the sandbox realm of the current window's top document, after
    /// the read in the page's own realm failed with `error`. A page can break every script
    /// run in its realm by replacing a builtin: chromedriver's own wrapper of Execute Script
    /// fails once `JSON.stringify`, `Promise.prototype.then` or `Function.prototype.apply` is
    /// replaced, and the page-state script once `Object.defineProperty` is. The sandbox, which
    /// no page script reaches, still reads the page (stamped with an identity of the sandbox's
    /// own, so the document reads as new once, and the page-realm hooks that follow navigations
    /// and pending work are not there: the reading says nothing is pending). `error` stands
    /// when it was not a failing script, or the window has no sandbox.
    async fn read_in_sandbox_instead(&mut self, error: PortError) -> PortResult<page::Reading> {
        if !errors::broken_in_page(&error) {
            return Err(error);
        }
        let Some(handle) = self.current.clone() else { return Err(error) };
        let Ok(Some(bidi)) = self.sandbox_for(&handle, crate::bidi::SANDBOX_WAIT).await else {
            return Err(error);
        };
        let params = crate::bidi::sandboxed_call(&handle, &page::state_function());
        let answered = bidi.command_within("script.callFunction", params, crate::bidi::SANDBOX_WAIT).await;
        let Some(value) = answered.ok().as_ref().and_then(page::state_answer) else { return Err(error) };
        tracing::warn!("the page broke the page-state script in its own realm: read in the sandbox instead");
        let reading = self.accept_reading(value).await?;
        self.note_realm_broken();
        Ok(reading)
    }

    /// The page state `value` (the page-state script's answer, read in the current tab's
    /// top-level document), remembered as the tab's last page; Chromium's error page reports
    /// the URL that failed.
    pub(crate) async fn accept_reading(&mut self, value: Value) -> PortResult<page::Reading> {
        let mut reading = page::parse_reading(value)?;
        self.read_error_page = reading.state.url.scheme() == "chrome-error";
        if self.read_error_page {
            // Chromium's error page: the URL that failed is what WebDriver reports.
            if let Ok(url) = self.client().current_url().await {
                reading.state.url = url;
            }
        }
        self.remember_page(&reading.state);
        self.page_note = self.note(reading.state.clone());
        Ok(reading)
    }

    /// Make later page-state reads of this call look for a gate too (`on`), or stop.
    pub(crate) fn detect_gates(&mut self, on: bool) {
        self.detect_gates = on;
    }

    /// The page state, read again (up to [`SETTLE_READS`] times, [`SETTLE_STEP`] apart) while
    /// a read answers `null` with no dialog open: WebDriver answers `null` both for a script a
    /// user prompt interrupted and (Firefox) for one cut short by a navigation in progress.
    /// A dialog that is open answers [`PortErrorKind::BlockedByDialog`] (at once when the
    /// driver's own error says so: only a `null` answer is asked about).
    pub(crate) async fn settled_page_state(&mut self) -> PortResult<PageState> {
        for _ in 0..SETTLE_READS {
            if let Some(reading) = self.try_page_reading().await? {
                return Ok(reading.state);
            }
            if self.dialog_open().await? {
                return Err(PortError::new(
                    PortErrorKind::BlockedByDialog,
                    "a dialog opened while the page was read",
                ));
            }
            tokio::time::sleep(SETTLE_STEP).await;
        }
        Err(PortError::new(PortErrorKind::BlockedByDialog, "the page answered nothing while it was read"))
    }

    /// Whether a user prompt is open in the current tab (its text is dropped unread).
    pub(crate) async fn dialog_open(&mut self) -> PortResult<bool> {
        // A shared-browser session trusts the announcement: its classic session would accept
        // a leave-page prompt it asked about (see `Session::switch_to`).
        if self.seat.is_some() && self.announced_prompt().is_some() {
            return Ok(true);
        }
        match self.client.get_alert_text().await {
            Ok(_) => Ok(true),
            Err(e) if e.is_no_such_alert() => Ok(false),
            Err(e) => Err(errors::cmd(&e, Sent::Read)),
        }
    }

    /// Whether the last page state read found Chromium's own error page (a load that failed
    /// although the navigation command succeeded); its answer carries the URL that failed.
    pub(crate) fn read_error_page(&self) -> bool {
        self.read_error_page
    }

    /// Remember `state` as the current tab's last known page.
    pub(crate) fn remember_page(&mut self, state: &PageState) {
        if let Some(handle) = &self.current {
            self.last_page.insert(handle.clone(), state.clone());
        }
    }

    /// Remember `state` as window `handle`'s last known page (read without switching to it).
    pub(crate) fn remember_page_of(&mut self, handle: &str, state: &PageState) {
        self.last_page.insert(handle.to_owned(), state.clone());
    }

    /// The last page state read from window `handle`, if any.
    pub(crate) fn last_page(&self, handle: &str) -> Option<&PageState> {
        self.last_page.get(handle)
    }

    /// Narrow the driver's script timeout to `timeout` (at least [`MIN_DRIVER_TIMEOUT`]);
    /// sends nothing when it is already set.
    pub(crate) async fn set_script_timeout(&mut self, timeout: Duration) -> PortResult<()> {
        let wanted = Timeouts { script: timeout.max(MIN_DRIVER_TIMEOUT), ..self.timeouts };
        self.update_timeouts(wanted).await
    }

    /// The driver's script timeout for a reading script: kept when it lies between
    /// [`READ_SCRIPT_FLOOR`] and [`READ_SCRIPT_TIMEOUT`] (an action before it set its own),
    /// else [`READ_SCRIPT_TIMEOUT`]. Sends nothing in the first case.
    pub(crate) async fn set_read_script_timeout(&mut self) -> PortResult<()> {
        if (READ_SCRIPT_FLOOR..=READ_SCRIPT_TIMEOUT).contains(&self.timeouts.script) {
            return Ok(());
        }
        self.set_script_timeout(READ_SCRIPT_TIMEOUT).await
    }

    /// Narrow the driver's page-load timeout to `timeout` (at least [`MIN_DRIVER_TIMEOUT`]);
    /// sends nothing when it is already set.
    pub(crate) async fn set_page_load_timeout(&mut self, timeout: Duration) -> PortResult<()> {
        let wanted = Timeouts { page_load: timeout.max(MIN_DRIVER_TIMEOUT), ..self.timeouts };
        self.update_timeouts(wanted).await
    }

    async fn update_timeouts(&mut self, wanted: Timeouts) -> PortResult<()> {
        // Left for later while a leave-page prompt holds a shared-browser session's window:
        // the command would accept it (the read that follows is refused for the prompt).
        if wanted == self.timeouts || self.leave_prompt_held() {
            return Ok(());
        }
        let config =
            TimeoutConfiguration::new(Some(wanted.script), Some(wanted.page_load), Some(Duration::ZERO));
        self.client.update_timeouts(config).await.map_err(|e| errors::cmd(&e, Sent::Read))?;
        self.timeouts = wanted;
        Ok(())
    }

    /// Window `handle`'s outer size (CSS px) as Get Window Rect last answered it, when the page
    /// now reads the outer size it read then (`outer_seen`: `outerWidth`, `outerHeight`): any
    /// resize of the window changes what the page reads, so the size read before still holds.
    pub(crate) fn known_window_size(&self, handle: &str, outer_seen: (f64, f64)) -> Option<(f64, f64)> {
        let known = self.window_sizes.get(handle)?;
        (known.outer_seen == outer_seen && outer_seen.0 > 0.0 && outer_seen.1 > 0.0).then_some(known.size)
    }

    /// Record window `handle`'s outer size (`size`, from the driver) with the outer size the
    /// page read at the same moment (`outer_seen`).
    pub(crate) fn remember_window_size(&mut self, handle: &str, outer_seen: (f64, f64), size: (f64, f64)) {
        self.window_sizes.insert(handle.to_owned(), WindowSize { outer_seen, size });
    }

    /// The emulated zoom of window `handle` in percent (100 when none).
    pub(crate) fn zoom(&self, handle: &str) -> u32 {
        self.zoom.get(handle).copied().unwrap_or(100)
    }

    /// Record the emulated zoom of window `handle` (100 clears it).
    pub(crate) fn set_zoom_record(&mut self, handle: &str, percent: u32) {
        if percent == 100 {
            self.zoom.remove(handle);
        } else {
            self.zoom.insert(handle.to_owned(), percent);
        }
    }

    // ---- repairs ---------------------------------------------------------------------

    /// The queue an operation's guard pushes its repair onto when the operation is dropped.
    pub(crate) fn repair_queue(&self) -> RepairQueue {
        self.repairs.clone()
    }

    /// Run every queued repair, each bounded by [`REPAIR_TIMEOUT`]. A repair that fails (its
    /// tab closed meanwhile) is dropped: there is nothing left to put back.
    pub(crate) async fn run_repairs(&mut self) {
        for repair in self.repairs.take() {
            let _ = tokio::time::timeout(REPAIR_TIMEOUT, repair.apply(self)).await;
        }
    }

    /// After a call ran out of time (its last command may still wait on a page): when the
    /// driver's queue does not answer a cheap command within [`QUEUE_PROBE`], close the tab
    /// the call worked in through the second channel ([`Rescue`]; a blank tab is opened first
    /// so the browser keeps a window) and wait up to [`QUEUE_DRAIN`] for the queue to move.
    ///
    /// A session in a shared browser sends input and navigations over BiDi, whose command to
    /// a page that never yields waits as a classic one would: its window counts as stuck too
    /// when a sandboxed call there gets no answer within [`QUEUE_PROBE`].
    pub(crate) async fn unstick(&mut self) -> Unstuck {
        let working = self.working.clone().or_else(|| self.current.clone());
        let classic_moves =
            matches!(tokio::time::timeout(QUEUE_PROBE, self.client.windows()).await, Ok(Ok(_)));
        if classic_moves && !self.page_holds_bidi(working.as_deref()).await {
            return Unstuck::Moving;
        }
        let Some(stuck) = working else {
            return Unstuck::Stuck;
        };
        if !self.rescue.is_available() {
            tracing::warn!(
                engine = self.engine.as_str(),
                "a page holds the driver and no second channel can close its tab"
            );
            return Unstuck::Stuck;
        }
        // Closing a browser's last tab would end it: a blank tab is opened first then (Firefox
        // may make it wait for the stuck page's process, so only then).
        let last = self.rescue.tabs().await.map_or(true, |tabs| tabs.iter().all(|t| *t == stuck));
        if last && let Ok(blank) = self.rescue.open_blank().await {
            self.know_window(&blank);
        }
        if let Err(error) = self.rescue.close(&stuck).await {
            tracing::warn!(
                detail = error.message(),
                "the tab whose page holds the driver could not be closed"
            );
            return Unstuck::Stuck;
        }
        self.forget_current();
        self.forget_tab(&stuck);
        if !matches!(tokio::time::timeout(QUEUE_DRAIN, self.client.windows()).await, Ok(Ok(_))) {
            return Unstuck::Stuck;
        }
        tracing::warn!(
            engine = self.engine.as_str(),
            "a page held the driver past a call's deadline: its tab was closed"
        );
        Unstuck::ClosedTab
    }

    /// Whether the page in window `handle` of a session in a shared browser holds its BiDi
    /// commands: a window whose sandbox answered before gets no answer to a trivial sandboxed
    /// call within [`QUEUE_PROBE`]. Never for a session with a browser of its own, or a
    /// window BiDi never answers (a Chromium popup: its input went through classic WebDriver).
    async fn page_holds_bidi(&self, handle: Option<&str>) -> bool {
        let Some(handle) = handle else { return false };
        if self.seat.is_none() || self.sandbox_windows.get(handle) != Some(&true) {
            return false;
        }
        let Some(bidi) = self.bidi() else { return false };
        let params = crate::bidi::sandboxed_call(handle, crate::bidi::ANSWERS);
        matches!(
            bidi.command_within("script.callFunction", params, QUEUE_PROBE).await,
            Err(error) if error.kind() == PortErrorKind::Timeout
        )
    }

    /// Close window `handle` through the second channel (for a tab classic WebDriver cannot
    /// close, such as one in an endless dialog loop), keeping the browser open.
    pub(crate) async fn close_past_driver(&mut self, handle: &str) -> PortResult<()> {
        self.rescue.close(handle).await?;
        self.forget_current();
        self.forget_tab(handle);
        Ok(())
    }

    /// Open a blank tab through the second channel (when the current tab's dialog keeps
    /// classic WebDriver from opening one); answers its handle.
    pub(crate) async fn open_past_driver(&mut self) -> PortResult<String> {
        let handle = self.rescue.open_blank().await?;
        self.know_window(&handle);
        Ok(handle)
    }

    /// Whether the session still answers (a cheap command that needs the browser).
    pub(crate) async fn probe(&mut self) -> PortResult<()> {
        self.client.windows().await.map(|_| ()).map_err(|e| errors::cmd(&e, Sent::Read))
    }
}

/// How many times [`Session::fit_viewport`] resizes the window at most (a later pass
/// corrects an engine or window manager that did not take the first size exactly).
const VIEWPORT_PASSES: usize = 3;

/// The current window's CSS viewport.
const VIEWPORT_SCRIPT: &str = "return [window.innerWidth, window.innerHeight];";

/// Load `file`'s state into the new browser; what to save at the end (`None` when the file
/// is not to be saved), or why the state could not be loaded.
async fn load_storage_state(
    file: &StorageStateFile,
    bidi_url: Option<&Endpoint>,
) -> Result<Option<(StorageStateFile, Vec<String>)>, String> {
    let state = file.read().map_err(|e| e.to_string())?;
    let url = bidi_url.ok_or("a storage state needs WebDriver BiDi, which the driver did not grant")?;
    storage_state::load(url, &state).await.map_err(|e| {
        format!("the storage state {} could not be loaded: {}", file.path.display(), e.message())
    })?;
    tracing::info!(cookies = state.cookies.len(), origins = state.origins.len(), "storage state loaded");
    Ok(file.save.then(|| (file.clone(), storage_state::origins_of(&state))))
}

/// Save the browser's storage state to `file` (failures are logged: the session closes
/// anyway).
async fn save_storage_state(file: &StorageStateFile, endpoint: &Endpoint, origins: &[String]) {
    match storage_state::save(endpoint, origins).await {
        Ok(state) => match file.write(&state) {
            Ok(()) => tracing::info!(
                cookies = state.cookies.len(),
                origins = state.origins.len(),
                "storage state saved"
            ),
            Err(error) => tracing::warn!(detail = %error, "the storage state could not be saved"),
        },
        Err(error) => {
            tracing::warn!(detail = error.message(), "the storage state could not be read from the browser")
        }
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// fantoccini joins paths onto the endpoint, so a Grid URL like `…/wd/hub` needs its slash.
fn with_trailing_slash(url: &Url) -> Url {
    let mut url = url.clone();
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_urls_get_a_trailing_slash() {
        let url = Url::parse("http://127.0.0.1:4444/wd/hub").expect("static URL");
        assert_eq!(with_trailing_slash(&url).as_str(), "http://127.0.0.1:4444/wd/hub/");
        let root = Url::parse("http://127.0.0.1:4444").expect("static URL");
        assert_eq!(with_trailing_slash(&root).as_str(), "http://127.0.0.1:4444/");
    }
}
