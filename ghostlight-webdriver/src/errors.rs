//! Mapping fantoccini errors onto [`PortError`]s.
//!
//! The mapping follows `docs/webdriver-findings.md` ("How the spike's errors map onto these
//! kinds"). Driver messages are never copied: Chromium puts dialog text into them. A message
//! written here is our own words plus the name of the error variant. A few messages are
//! *inspected* (never stored) for a keyword: Chromium's `beforeunload` prompt shows up as an
//! `InvalidArgument` "Unexpected dialog type beforeunload", and Firefox names the open
//! dialog's type in `UnexpectedAlertOpen`.

use fantoccini::error::{CmdError, ErrorStatus, NewSessionError, WebDriver};
use ghostlight_core::port::{DialogKind, LaunchCause, LaunchFailure, PortError, PortErrorKind};

use crate::config::Engine;

/// Whether the failing command could have changed the page or browser. It decides between
/// `effect: none` and `effect: unknown` when the answer was lost or the work was cut short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    /// The command only reads (title, URL, window rect, alert text): nothing can have
    /// happened.
    Read,
    /// The command can act (navigate, click, run a script, resolve a dialog).
    Act,
}

impl Sent {
    fn apply(self, error: PortError) -> PortError {
        match self {
            Sent::Read => error,
            Sent::Act => error.effect_unknown(),
        }
    }
}

/// Map a failed WebDriver command. `sent` says whether the command could have had an effect.
pub(crate) fn cmd(error: &CmdError, sent: Sent) -> PortError {
    match error {
        CmdError::FailedC(e) if e.is_connect() => {
            // Nothing reached the driver.
            PortError::new(
                PortErrorKind::NotConnected,
                "the WebDriver endpoint refused the connection (FailedC)",
            )
        }
        CmdError::FailedC(_) => {
            sent.apply(PortError::new(PortErrorKind::Transport, "the WebDriver connection broke (FailedC)"))
        }
        CmdError::Failed(_) => {
            sent.apply(PortError::new(PortErrorKind::Transport, "the WebDriver request failed (Failed)"))
        }
        CmdError::Lost(_) => {
            sent.apply(PortError::new(PortErrorKind::Transport, "the WebDriver connection was lost (Lost)"))
        }
        CmdError::NotJson(_) | CmdError::Json(_) | CmdError::NotW3C(_) => sent.apply(PortError::new(
            PortErrorKind::Transport,
            format!("the driver gave a malformed answer ({})", variant(error)),
        )),
        CmdError::BadUrl(_) => PortError::new(
            PortErrorKind::InvalidInput,
            "the browser reported a URL that does not parse (BadUrl)",
        ),
        CmdError::InvalidArgument(..) => PortError::new(
            PortErrorKind::InvalidInput,
            "an argument was refused before sending (InvalidArgument)",
        ),
        CmdError::ImageDecodeError(_) | CmdError::PdfDecodeError(_) => sent.apply(PortError::new(
            PortErrorKind::Other,
            format!("the driver's encoded answer did not decode ({})", variant(error)),
        )),
        CmdError::WaitTimeout => {
            sent.apply(PortError::new(PortErrorKind::Timeout, "a wait ran out of time (WaitTimeout)"))
        }
        CmdError::Standard(w) => standard(w, sent),
        _ => {
            sent.apply(PortError::new(PortErrorKind::Other, "the WebDriver command failed (unknown variant)"))
        }
    }
}

fn standard(w: &WebDriver, sent: Sent) -> PortError {
    let name = format!("{:?}", w.error);
    let kind = match w.error {
        ErrorStatus::InvalidSessionId => PortErrorKind::BrowserGone,
        ErrorStatus::NoSuchWindow => PortErrorKind::TabGone,
        ErrorStatus::StaleElementReference
        | ErrorStatus::NoSuchElement
        | ErrorStatus::DetachedShadowRoot
        | ErrorStatus::NoSuchShadowRoot
        | ErrorStatus::NoSuchFrame => PortErrorKind::TargetStale,
        ErrorStatus::UnexpectedAlertOpen => PortErrorKind::BlockedByDialog,
        ErrorStatus::InvalidArgument if beforeunload_hint(w) => PortErrorKind::BlockedByDialog,
        ErrorStatus::Timeout | ErrorStatus::ScriptTimeout => PortErrorKind::Timeout,
        ErrorStatus::UnsupportedOperation
        | ErrorStatus::UnknownCommand
        | ErrorStatus::UnknownMethod
        | ErrorStatus::UnknownPath => PortErrorKind::Unsupported,
        ErrorStatus::InvalidArgument
        | ErrorStatus::NoSuchAlert
        | ErrorStatus::ElementNotInteractable
        | ErrorStatus::ElementNotSelectable
        | ErrorStatus::InvalidElementState
        | ErrorStatus::InvalidSelector
        | ErrorStatus::InvalidCoordinates
        | ErrorStatus::MoveTargetOutOfBounds => PortErrorKind::InvalidInput,
        ErrorStatus::ElementClickIntercepted => {
            return PortError::obstructed(None);
        }
        ErrorStatus::JavascriptError => PortErrorKind::ScriptError,
        ErrorStatus::SessionNotCreated => PortErrorKind::NotConnected,
        _ => PortErrorKind::Other,
    };
    let error = PortError::new(kind, format!("the driver answered an error ({name})"));
    match kind {
        // Refused before any effect: the dialog, a wrong argument, a missing target.
        PortErrorKind::BlockedByDialog
        | PortErrorKind::InvalidInput
        | PortErrorKind::TargetStale
        | PortErrorKind::TabGone
        | PortErrorKind::Unsupported
        | PortErrorKind::NotConnected => error,
        _ => sent.apply(error),
    }
}

/// Map a failed session creation. Nothing was done to any page. A failure to reach or start
/// the browser carries a closed [`LaunchCause`]; the driver's own message is only inspected
/// for keywords (no page exists yet) and kept, first line only, in the operator message.
pub(crate) fn new_session(error: &NewSessionError, engine: Engine) -> PortError {
    let failed = |cause: LaunchCause, message: String| {
        let failure = LaunchFailure {
            cause,
            driver: engine.driver_name().to_owned(),
            browser: engine.display_name().to_owned(),
        };
        PortError::launch_failed(failure, message)
    };
    match error {
        NewSessionError::BadWebdriverUrl(_) => failed(
            LaunchCause::DriverUnreachable,
            "the configured WebDriver URL is invalid (BadWebdriverUrl)".to_owned(),
        ),
        NewSessionError::FailedC(e) if e.is_connect() => failed(
            LaunchCause::DriverUnreachable,
            "the WebDriver endpoint refused the connection (FailedC)".to_owned(),
        ),
        NewSessionError::Failed(_) | NewSessionError::FailedC(_) | NewSessionError::Lost(_) => {
            PortError::new(
                PortErrorKind::Transport,
                "the WebDriver connection broke while starting a session",
            )
        }
        NewSessionError::NotW3C(_) => PortError::new(
            PortErrorKind::Transport,
            "the WebDriver endpoint does not speak W3C WebDriver (NotW3C)",
        ),
        NewSessionError::SessionNotCreated(w) => failed(
            session_refusal_cause(w),
            format!("the driver refused to start a browser session: {}", first_line(w)),
        ),
        NewSessionError::UnexpectedError(CmdError::Standard(w)) => failed(
            session_refusal_cause(w),
            format!("starting a browser session failed ({:?}): {}", w.error, first_line(w)),
        ),
        NewSessionError::UnexpectedError(e) => {
            let mapped = cmd(e, Sent::Read);
            failed(
                LaunchCause::SessionRefused,
                format!("starting a browser session failed ({})", mapped.kind().code()),
            )
        }
    }
}

/// Why a driver refused a new session, from keywords of its message (measured with
/// chromedriver and geckodriver: a missing or wrong binary, a version the driver does not
/// support, a browser that exits at once).
fn session_refusal_cause(w: &WebDriver) -> LaunchCause {
    let message = w.message.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|word| message.contains(word));
    if has(&["only supports", "version mismatch", "unsupported browser version"]) {
        LaunchCause::VersionMismatch
    } else if has(&[
        "no chrome binary",
        "cannot find chrome binary",
        "unable to find binary",
        "not a firefox executable",
        "binary is not",
        "no such file or directory",
    ]) {
        LaunchCause::BrowserNotFound
    } else if has(&["exited", "crashed", "failed to start", "devtoolsactiveport"]) {
        LaunchCause::BrowserExited
    } else {
        LaunchCause::SessionRefused
    }
}

/// The first line of a driver's message (the rest is a stack trace).
fn first_line(w: &WebDriver) -> String {
    let message: &str = w.message.as_ref();
    message.lines().find(|line| !line.trim().is_empty()).unwrap_or_default().chars().take(300).collect()
}

/// The dialog kind an error names, when the driver names one. Only keywords are matched; the
/// message itself is dropped.
pub(crate) fn dialog_hint(error: &CmdError) -> Option<DialogKind> {
    let CmdError::Standard(w) = error else { return None };
    match w.error {
        ErrorStatus::InvalidArgument if beforeunload_hint(w) => Some(DialogKind::BeforeUnload),
        // Firefox: "Unexpected <type> dialog detected. Performed handler …". Chromium's message
        // carries the dialog text instead, so only the fixed prefix is trusted.
        ErrorStatus::UnexpectedAlertOpen => {
            let message = w.message.as_ref();
            let kind = message.strip_prefix("Unexpected ")?.split(' ').next()?;
            let rest = message.strip_prefix("Unexpected ")?.strip_prefix(kind)?;
            if !rest.starts_with(" dialog detected") {
                return None;
            }
            match kind {
                "alert" => Some(DialogKind::Alert),
                "confirm" => Some(DialogKind::Confirm),
                "prompt" => Some(DialogKind::Prompt),
                "beforeunload" => Some(DialogKind::BeforeUnload),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Chromium's odd shape for an open `beforeunload` prompt.
fn beforeunload_hint(w: &WebDriver) -> bool {
    w.message.contains("Unexpected dialog type beforeunload")
}

/// Whether the error says the document a script ran in went away before it answered (a
/// navigation): chromedriver's "document unloaded while waiting for result", geckodriver's
/// "Document was unloaded". Only the keyword is matched; the message is dropped.
pub(crate) fn document_unloaded(error: &CmdError) -> bool {
    match error {
        CmdError::Standard(w) => {
            w.error == ErrorStatus::JavascriptError && w.message.to_ascii_lowercase().contains("unloaded")
        }
        _ => false,
    }
}

/// Whether `error` says a script failed in the page's own realm, which a page can make every
/// script there do by replacing a builtin the driver's wrapper or the script relies on (such a
/// read is answered in the page's sandbox instead: `Session::page_reading`, `ops::frames::read`).
pub(crate) fn broken_in_page(error: &PortError) -> bool {
    matches!(error.kind(), PortErrorKind::Other | PortErrorKind::ScriptError)
}

/// Whether the error says a dialog is open (either engine's shape).
pub(crate) fn is_dialog(error: &CmdError) -> bool {
    match error {
        CmdError::Standard(w) => {
            w.error == ErrorStatus::UnexpectedAlertOpen
                || (w.error == ErrorStatus::InvalidArgument && beforeunload_hint(w))
        }
        _ => false,
    }
}

fn variant(error: &CmdError) -> &'static str {
    match error {
        CmdError::Standard(_) => "Standard",
        CmdError::BadUrl(_) => "BadUrl",
        CmdError::Failed(_) => "Failed",
        CmdError::FailedC(_) => "FailedC",
        CmdError::Lost(_) => "Lost",
        CmdError::NotJson(_) => "NotJson",
        CmdError::Json(_) => "Json",
        CmdError::NotW3C(_) => "NotW3C",
        CmdError::InvalidArgument(..) => "InvalidArgument",
        CmdError::ImageDecodeError(_) => "ImageDecodeError",
        CmdError::PdfDecodeError(_) => "PdfDecodeError",
        CmdError::WaitTimeout => "WaitTimeout",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ghostlight_core::port::PortEffect;

    fn wd(status: ErrorStatus, message: &'static str) -> CmdError {
        CmdError::Standard(WebDriver::new(status, message))
    }

    /// The messages measured with chromedriver and geckodriver (see `new_session`).
    #[test]
    fn refused_sessions_carry_a_closed_cause() {
        let cases = [
            (
                ErrorStatus::SessionNotCreated,
                "session not created\nfrom unknown error: no chrome binary at /opt/x/chrome",
                LaunchCause::BrowserNotFound,
            ),
            (
                ErrorStatus::InvalidArgument,
                "binary is not a Firefox executable",
                LaunchCause::BrowserNotFound,
            ),
            (
                ErrorStatus::SessionNotCreated,
                "Expected browser binary location, but unable to find binary in default location",
                LaunchCause::BrowserNotFound,
            ),
            (
                ErrorStatus::SessionNotCreated,
                "session not created: This version of ChromeDriver only supports Chrome version 114",
                LaunchCause::VersionMismatch,
            ),
            (
                ErrorStatus::SessionNotCreated,
                "session not created: Chrome instance exited. Examine ChromeDriver verbose log",
                LaunchCause::BrowserExited,
            ),
            (ErrorStatus::SessionNotCreated, "something else", LaunchCause::SessionRefused),
        ];
        for (status, message, cause) in cases {
            let error = match status {
                ErrorStatus::SessionNotCreated => {
                    NewSessionError::SessionNotCreated(WebDriver::new(status, message))
                }
                _ => NewSessionError::UnexpectedError(wd(status, message)),
            };
            let mapped = new_session(&error, Engine::Chromium);
            assert_eq!(mapped.kind(), PortErrorKind::NotConnected, "{message}");
            assert_eq!(mapped.launch_failure().map(|f| f.cause), Some(cause), "{message}");
            assert!(!mapped.message().contains('\n'), "first line only: {}", mapped.message());
        }
    }

    #[test]
    fn standard_errors_map_to_kinds() {
        let cases = [
            (ErrorStatus::InvalidSessionId, PortErrorKind::BrowserGone),
            (ErrorStatus::NoSuchWindow, PortErrorKind::TabGone),
            (ErrorStatus::StaleElementReference, PortErrorKind::TargetStale),
            (ErrorStatus::NoSuchElement, PortErrorKind::TargetStale),
            (ErrorStatus::DetachedShadowRoot, PortErrorKind::TargetStale),
            (ErrorStatus::UnexpectedAlertOpen, PortErrorKind::BlockedByDialog),
            (ErrorStatus::Timeout, PortErrorKind::Timeout),
            (ErrorStatus::ScriptTimeout, PortErrorKind::Timeout),
            (ErrorStatus::UnsupportedOperation, PortErrorKind::Unsupported),
            (ErrorStatus::UnknownCommand, PortErrorKind::Unsupported),
            (ErrorStatus::InvalidArgument, PortErrorKind::InvalidInput),
            (ErrorStatus::JavascriptError, PortErrorKind::ScriptError),
        ];
        for (status, kind) in cases {
            assert_eq!(cmd(&wd(status, "x"), Sent::Read).kind(), kind);
        }
    }

    #[test]
    fn chromium_beforeunload_shape_is_a_dialog() {
        let error = wd(ErrorStatus::InvalidArgument, "invalid argument: Unexpected dialog type beforeunload");
        assert_eq!(cmd(&error, Sent::Act).kind(), PortErrorKind::BlockedByDialog);
        assert_eq!(cmd(&error, Sent::Act).effect(), PortEffect::None);
        assert_eq!(dialog_hint(&error), Some(DialogKind::BeforeUnload));
        assert!(is_dialog(&error));
    }

    #[test]
    fn firefox_names_the_dialog_type_and_chromium_text_is_not_trusted() {
        let firefox =
            wd(ErrorStatus::UnexpectedAlertOpen, "Unexpected confirm dialog detected. Performed handler");
        assert_eq!(dialog_hint(&firefox), Some(DialogKind::Confirm));
        let chromium = wd(ErrorStatus::UnexpectedAlertOpen, "unexpected alert open: {Alert text : prompt}");
        assert_eq!(dialog_hint(&chromium), None);
        let tricky = wd(ErrorStatus::UnexpectedAlertOpen, "Unexpected prompt");
        assert_eq!(dialog_hint(&tricky), None);
    }

    #[test]
    fn messages_never_carry_driver_text() {
        let error = wd(ErrorStatus::UnexpectedAlertOpen, "unexpected alert open: {Alert text : secret}");
        let mapped = cmd(&error, Sent::Act);
        assert!(!mapped.message().contains("secret"));
        assert!(mapped.message().contains("UnexpectedAlertOpen"));
    }

    #[test]
    fn effect_follows_the_command() {
        let timeout = wd(ErrorStatus::Timeout, "x");
        assert_eq!(cmd(&timeout, Sent::Read).effect(), PortEffect::None);
        assert_eq!(cmd(&timeout, Sent::Act).effect(), PortEffect::Unknown);
        let lost = CmdError::Lost(std::io::Error::other("gone"));
        assert_eq!(cmd(&lost, Sent::Act).kind(), PortErrorKind::Transport);
        assert_eq!(cmd(&lost, Sent::Act).effect(), PortEffect::Unknown);
    }
}
