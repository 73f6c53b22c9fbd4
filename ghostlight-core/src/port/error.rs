//! [`PortError`]: how a browser adapter reports that work could not be done.
//!
//! Modelled on a driver error normalised through a kind: the executor never matches adapter
//! internals, only [`PortErrorKind`] and [`PortError::effect`], which is what an envelope
//! needs to say `effect: none` or `effect: unknown` truthfully.
//!
//! The message is written by the adapter for operators (logs, `Debug`), never shown to the
//! model and never copied from a driver verbatim: drivers put page content (dialog text,
//! typed values) into their messages.

use super::types::{DialogKind, ElementSummary};

/// What went wrong, as far as the executor needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PortErrorKind {
    /// No browser is connected and the adapter will not start one; see
    /// [`PortError::startup`] for the refusal the model should read.
    NotConnected,
    /// The browser or driver stopped answering, or the connection broke.
    Transport,
    /// The browser process is gone (the adapter may start a new one on the next call).
    BrowserGone,
    /// The tab no longer exists.
    TabGone,
    /// The element reference belongs to a document that has gone (or the element was removed).
    TargetStale,
    /// Another element covers the target; [`PortError::obstruction`] names it.
    Obstructed,
    /// A JavaScript dialog blocks the page.
    BlockedByDialog,
    /// The browser did not finish in time.
    Timeout,
    /// This engine cannot do this operation.
    Unsupported,
    /// The input does not fit the page (e.g. a fill value that no option matches, a file input
    /// that is not one, a point outside the page). Nothing was done.
    InvalidInput,
    /// A credential-class control was reached before anything was dispatched to it.
    CredentialTarget,
    /// The page threw while running a script.
    ScriptError,
    /// The browser could not load the URL (no such host, connection refused, TLS rejected, …);
    /// [`PortError::network_failure`] says why. The page was not reached.
    Network,
    /// The capture would exceed what the browser can render in one image;
    /// [`PortError::oversize`] gives the size and the limit. Nothing was captured.
    TooLarge,
    /// The browser's local preserve-tabs interlock keeps this tab open.
    TabPreserved,
    /// The work would reach a document the call's [`Gate`](super::Gate) refuses (a frame
    /// outside authority); nothing was delivered ([`PortError::refused_document`] names it).
    OutsideAuthority,
    /// Anything else.
    Other,
}

impl PortErrorKind {
    /// A short lowercase code used in facts (`reason`) and logs.
    pub const fn code(self) -> &'static str {
        match self {
            PortErrorKind::NotConnected => "not_connected",
            PortErrorKind::Transport => "transport",
            PortErrorKind::BrowserGone => "browser_gone",
            PortErrorKind::TabGone => "tab_gone",
            PortErrorKind::TargetStale => "target_stale",
            PortErrorKind::Obstructed => "obstructed",
            PortErrorKind::BlockedByDialog => "blocked_by_dialog",
            PortErrorKind::Timeout => "timeout",
            PortErrorKind::Unsupported => "unsupported",
            PortErrorKind::InvalidInput => "invalid_input",
            PortErrorKind::CredentialTarget => "credential_target",
            PortErrorKind::ScriptError => "script_error",
            PortErrorKind::TabPreserved => "tab_preserved",
            PortErrorKind::OutsideAuthority => "frame_outside_authority",
            PortErrorKind::Network => "network_error",
            PortErrorKind::TooLarge => "capture_too_large",
            PortErrorKind::Other => "browser_error",
        }
    }
}

/// Whether the failed operation may already have changed the page or browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PortEffect {
    /// Nothing happened: the failure was detected before any effect.
    None,
    /// Something may have happened (the request was sent and the answer was lost).
    Unknown,
}

/// Why no browser is available when startup belongs to a person (the spec's startup
/// refusals). Carried by [`PortErrorKind::NotConnected`] errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartupRefusal {
    /// `browser.startup = "manual"`, or several installed browsers could serve: the user must
    /// open one of `browsers` (display names, e.g. `Chromium`).
    Manual {
        /// Every eligible installed browser.
        browsers: Vec<String>,
    },
    /// `browser.startup = "manual"` with a connector that drives a browser it starts itself
    /// (WebDriver): no window a person opens can connect, so the person must let Ghostlight
    /// start `browser`, or use the extension connector with their own browser.
    ManualLaunch {
        /// The browser the connector would start (display name).
        browser: String,
    },
    /// No installed browser has a usable registration; `browsers` are the browsers found.
    NoRegistration {
        /// The browsers found.
        browsers: Vec<String>,
    },
    /// The browser registration names a connector of another Ghostlight installation.
    OwnedElsewhere,
}

crate::vocab::wire_choice! {
    /// Why an adapter could not start or reach its browser: a closed, non-secret cause for
    /// the envelope (the `cause` fact). The operator detail (paths, the driver's own message)
    /// stays in the adapter's log. Carried by [`PortErrorKind::NotConnected`] errors made with
    /// [`PortError::launch_failed`].
    pub enum LaunchCause {
        /// The driver executable is not on `PATH`.
        DriverNotFound => "driver_not_found",
        /// The configured driver path is not an executable file.
        DriverNotExecutable => "driver_not_executable",
        /// The driver exited while starting.
        DriverExited => "driver_exited",
        /// The driver did not become ready in time.
        DriverNotReady => "driver_not_ready",
        /// Nothing answered at the configured driver URL.
        DriverUnreachable => "driver_unreachable",
        /// The driver could not find the browser's executable.
        BrowserNotFound => "browser_not_found",
        /// The browser exited as the driver started it.
        BrowserExited => "browser_exited",
        /// The browser session did not start in time.
        BrowserNotReady => "browser_not_ready",
        /// The driver does not support the installed browser's version.
        VersionMismatch => "version_mismatch",
        /// The driver refused to start a session for another reason.
        SessionRefused => "session_refused",
        /// The machine could not provide a loopback port or a profile folder.
        HostResources => "host_resources",
        /// The configured persistent browser profile is in use by another Ghostlight browser
        /// (another server, or another session of the same HTTP server).
        ProfileInUse => "profile_in_use",
        /// The browser configuration cannot be used as given (e.g. an option the engine does
        /// not support).
        InvalidConfiguration => "invalid_configuration",
    }
}

/// A browser that could not start: the closed cause and the public names of the pieces
/// involved, so a summary can say `geckodriver was not found on PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchFailure {
    /// Why.
    pub cause: LaunchCause,
    /// The driver's executable name (`chromedriver`, `geckodriver`).
    pub driver: String,
    /// The browser's display name (`Chromium`, `Firefox`).
    pub browser: String,
}

/// A browser adapter's error: a kind, whether an effect may have happened, and an
/// operator-facing message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}: {}", kind.code(), detail.message)]
pub struct PortError {
    kind: PortErrorKind,
    effect: PortEffect,
    /// Boxed so `PortResult` stays small on every path.
    detail: Box<Detail>,
}

#[derive(Debug, Clone, PartialEq)]
struct Detail {
    message: String,
    startup: Option<StartupRefusal>,
    launch: Option<LaunchFailure>,
    obstruction: Option<ElementSummary>,
    failed_field: Option<usize>,
    script: Option<ScriptFailure>,
    network: Option<NetworkFailure>,
    oversize: Option<Oversize>,
    refused: Option<url::Url>,
    dialog: Option<DialogKind>,
    closed_tab: bool,
}

/// A capture refused for its size (for [`PortErrorKind::TooLarge`]), in image pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Oversize {
    /// The image width the capture would have.
    pub width: u64,
    /// The image height the capture would have.
    pub height: u64,
    /// The most pixels a side may have.
    pub max_side: u64,
    /// The most pixels the image may have in all.
    pub max_pixels: u64,
}

/// Why the browser could not load a URL, as a closed category plus the browser's own code
/// (for [`PortErrorKind::Network`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkFailure {
    /// The closed category.
    pub error: NetworkError,
    /// The browser's code, e.g. `ERR_NAME_NOT_RESOLVED` (Chromium) or `dnsNotFound` (Firefox).
    pub browser_code: String,
}

crate::vocab::wire_choice! {
    /// Closed categories of a failed page load.
    pub enum NetworkError {
        /// The host name does not resolve.
        NameNotResolved => "name_not_resolved",
        /// Nothing accepted the connection.
        ConnectionRefused => "connection_refused",
        /// The connection was reset or closed early.
        ConnectionReset => "connection_reset",
        /// The connection or the response timed out.
        TimedOut => "timed_out",
        /// The site's certificate or TLS setup was rejected.
        Tls => "tls_error",
        /// The browser refuses that port (a port kept for other protocols).
        PortBlocked => "port_blocked",
        /// The browser has no network.
        Offline => "offline",
        /// The browser or a policy blocked the request.
        Blocked => "blocked",
        /// Any other load failure.
        Other => "other",
    }
}

/// How a caller's script failed in the page (for [`PortErrorKind::ScriptError`]). It is the
/// script's own output, like its result: it goes to the model in facts and never into
/// messages, logs or audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptFailure {
    /// The error's name as the page reports it (`SyntaxError`, `TypeError`, …).
    pub name: String,
    /// The error's message.
    pub message: String,
    /// Whether any of the script ran: `false` for a script that did not compile.
    pub ran: bool,
}

impl PortError {
    /// An error of `kind` with nothing done (`effect: none`).
    pub fn new(kind: PortErrorKind, message: impl Into<String>) -> Self {
        PortError {
            kind,
            effect: PortEffect::None,
            detail: Box::new(Detail {
                message: message.into(),
                startup: None,
                launch: None,
                obstruction: None,
                failed_field: None,
                script: None,
                network: None,
                oversize: None,
                refused: None,
                dialog: None,
                closed_tab: false,
            }),
        }
    }

    /// The same error, but the work may already have taken effect.
    pub fn effect_unknown(mut self) -> Self {
        self.effect = PortEffect::Unknown;
        self
    }

    /// A connection or driver failure after the request was sent: effect unknown.
    pub fn transport(message: impl Into<String>) -> Self {
        PortError::new(PortErrorKind::Transport, message).effect_unknown()
    }

    /// No browser is connected and a person must start one.
    pub fn startup(refusal: StartupRefusal) -> Self {
        let mut error = PortError::new(PortErrorKind::NotConnected, "no browser is connected");
        error.detail.startup = Some(refusal);
        error
    }

    /// The browser could not be started or reached, for `failure`'s closed cause; `message`
    /// is the operator detail (never shown to the model).
    pub fn launch_failed(failure: LaunchFailure, message: impl Into<String>) -> Self {
        let mut error = PortError::new(PortErrorKind::NotConnected, message);
        error.detail.launch = Some(failure);
        error
    }

    /// Why the browser could not start, for [`PortErrorKind::NotConnected`] from
    /// [`PortError::launch_failed`].
    pub fn launch_failure(&self) -> Option<&LaunchFailure> {
        self.detail.launch.as_ref()
    }

    /// This error, for a call whose tab the adapter closed because its page stopped
    /// answering (a command waited on it past the call's deadline and would have held every
    /// later call of the browser session).
    #[must_use]
    pub fn closed_unresponsive_tab(mut self) -> Self {
        self.detail.closed_tab = true;
        self
    }

    /// Whether the adapter closed the call's tab because its page stopped answering
    /// ([`PortError::closed_unresponsive_tab`]).
    pub fn closed_tab(&self) -> bool {
        self.detail.closed_tab
    }

    /// A [`PortErrorKind::BlockedByDialog`] whose dialog is known to be `kind` and is still
    /// open for the caller to resolve (e.g. the leave-page prompt a history move raised).
    pub fn blocked_by(kind: DialogKind, message: impl Into<String>) -> Self {
        let mut error = PortError::new(PortErrorKind::BlockedByDialog, message);
        error.detail.dialog = Some(kind);
        error
    }

    /// The open dialog's kind, for [`PortErrorKind::BlockedByDialog`] from
    /// [`PortError::blocked_by`].
    pub fn blocking_dialog(&self) -> Option<DialogKind> {
        self.detail.dialog
    }

    /// The target is covered by `by`; nothing was clicked.
    pub fn obstructed(by: Option<ElementSummary>) -> Self {
        let mut error = PortError::new(PortErrorKind::Obstructed, "another element covers the target");
        error.detail.obstruction = by;
        error
    }

    /// An [`PortErrorKind::InvalidInput`] about the fill field at `index` (0-based).
    pub fn invalid_field(index: usize, message: impl Into<String>) -> Self {
        let mut error = PortError::new(PortErrorKind::InvalidInput, message);
        error.detail.failed_field = Some(index);
        error
    }

    /// The caller's script failed: it did not compile (`ran: false`, nothing happened) or it
    /// threw while running (effect unknown: it may have acted before it threw).
    pub fn script_failed(failure: ScriptFailure) -> Self {
        let message = if failure.ran { "the script threw" } else { "the script did not compile" };
        let mut error = PortError::new(PortErrorKind::ScriptError, message);
        if failure.ran {
            error = error.effect_unknown();
        }
        error.detail.script = Some(failure);
        error
    }

    /// The browser could not load the URL; nothing was reached (effect none).
    pub fn network(failure: NetworkFailure) -> Self {
        let mut error = PortError::new(
            PortErrorKind::Network,
            format!("the page did not load: {}", failure.browser_code),
        );
        error.detail.network = Some(failure);
        error
    }

    /// The capture would be `oversize.width`×`oversize.height` pixels, over the limits it
    /// names; nothing was captured.
    pub fn too_large(oversize: Oversize) -> Self {
        let mut error = PortError::new(
            PortErrorKind::TooLarge,
            format!(
                "the capture would be {}×{} pixels, over {} a side or {} in all",
                oversize.width, oversize.height, oversize.max_side, oversize.max_pixels
            ),
        );
        error.detail.oversize = Some(oversize);
        error
    }

    /// The work would reach the document at `url`, which the call's gate refuses; nothing was
    /// delivered. The URL is for the executor's refusal and never shown as is.
    pub fn outside_authority(url: url::Url) -> Self {
        let mut error = PortError::new(
            PortErrorKind::OutsideAuthority,
            "the input would land in a frame whose document the gate refuses",
        );
        error.detail.refused = Some(url);
        error
    }

    /// The refused document, for [`PortErrorKind::OutsideAuthority`].
    pub fn refused_document(&self) -> Option<&url::Url> {
        self.detail.refused.as_ref()
    }

    /// The refused capture's size and limits, for [`PortErrorKind::TooLarge`].
    pub fn oversize(&self) -> Option<Oversize> {
        self.detail.oversize
    }

    /// Why the page did not load, for [`PortErrorKind::Network`].
    pub fn network_failure(&self) -> Option<&NetworkFailure> {
        self.detail.network.as_ref()
    }

    /// How the caller's script failed, for [`PortErrorKind::ScriptError`] from
    /// [`PortError::script_failed`].
    pub fn script_failure(&self) -> Option<&ScriptFailure> {
        self.detail.script.as_ref()
    }

    /// What went wrong.
    pub fn kind(&self) -> PortErrorKind {
        self.kind
    }

    /// Whether the work may have taken effect.
    pub fn effect(&self) -> PortEffect {
        self.effect
    }

    /// The operator-facing message (never shown to the model).
    pub fn message(&self) -> &str {
        &self.detail.message
    }

    /// The startup refusal, for [`PortErrorKind::NotConnected`].
    pub fn startup_refusal(&self) -> Option<&StartupRefusal> {
        self.detail.startup.as_ref()
    }

    /// The element covering the target, for [`PortErrorKind::Obstructed`].
    pub fn obstruction(&self) -> Option<&ElementSummary> {
        self.detail.obstruction.as_ref()
    }

    /// The fill field (0-based) an [`PortErrorKind::InvalidInput`] is about.
    pub fn failed_field(&self) -> Option<usize> {
        self.detail.failed_field
    }

    /// Whether the connection to the browser is lost (transport or browser gone).
    pub fn is_connection_lost(&self) -> bool {
        matches!(self.kind, PortErrorKind::Transport | PortErrorKind::BrowserGone)
    }
}

/// The result of a port operation.
pub type PortResult<T> = Result<T, PortError>;
