//! [`Outcome`]: the typed result of one invocation before it becomes an [`Envelope`], and
//! the language of failures shared by every tool.
//!
//! The invariants of the envelope are enforced here, once: a `partial` or `unknown` effect is
//! never repeat-safe (and no op suggests replaying a call: next steps name other tools), summaries are
//! bounded, next steps are at most two.

use serde_json::{Map, Value, json};

use crate::authority::{CredentialHandoff, Refusal, Site};
use crate::envelope::{Effect, Envelope, Readiness, Status};
use crate::facts::{FactKey, IntoFact, common, detail};
use crate::handles::Handle;
use crate::language::{bound_visible, target_phrase};
use crate::limits::{NEXT_STEPS_MAX, SUMMARY_CHARS};
use crate::names::ToolName;
use crate::port::{
    LaunchCause, LaunchFailure, NetworkError, PortEffect, PortError, PortErrorKind, StartupRefusal,
};
use crate::selector::Role;
use crate::vocab::CredentialClass;

/// Rich content that travels beside the envelope (never inside it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// `image/png` or `image/gif`.
    pub mime_type: &'static str,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// The typed result of an invocation.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub(crate) status: Status,
    pub(crate) effect: Effect,
    pub(crate) readiness: Readiness,
    pub(crate) repeat_safe: bool,
    pub(crate) summary: String,
    pub(crate) facts: Map<String, Value>,
    pub(crate) next_steps: Vec<String>,
    pub(crate) attachments: Vec<Attachment>,
    /// A committed landing's site, for the audit record.
    pub(crate) landing: Option<Site>,
}

impl Outcome {
    /// A success with no effect (a read), repeat-safe.
    pub(crate) fn read(summary: impl Into<String>) -> Self {
        Outcome {
            status: Status::Succeeded,
            effect: Effect::None,
            readiness: Readiness::NotApplicable,
            repeat_safe: true,
            summary: summary.into(),
            facts: Map::new(),
            next_steps: Vec::new(),
            attachments: Vec::new(),
            landing: None,
        }
    }

    /// A success that changed something. `repeat_safe` says whether doing it again is
    /// harmless (scrolling to a target is; clicking is not).
    pub(crate) fn applied(summary: impl Into<String>, repeat_safe: bool) -> Self {
        Outcome { effect: Effect::Applied, repeat_safe, ..Outcome::read(summary) }
    }

    /// A failure with nothing done; `reason` is the closed `reason` fact.
    pub(crate) fn failed(reason: &str, summary: impl Into<String>) -> Self {
        let mut outcome = Outcome { status: Status::Failed, repeat_safe: false, ..Outcome::read(summary) };
        outcome.facts.insert("reason".into(), json!(reason));
        outcome
    }

    /// An authority refusal or credential handoff.
    pub(crate) fn refused(refusal: &Refusal) -> Self {
        Outcome {
            status: refusal.status(),
            effect: refusal.effect(),
            repeat_safe: refusal.repeat_safe(),
            facts: refusal.facts(),
            next_steps: refusal.next_steps(),
            ..Outcome::read(refusal.summary())
        }
    }

    /// The credential handoff for `class` on `site`.
    pub(crate) fn handoff(
        tool: ToolName,
        class: CredentialClass,
        site: Option<Site>,
        target: Option<Handle>,
    ) -> Self {
        Outcome::refused(&Refusal::CredentialHandoff(CredentialHandoff::new(tool, class, site, target)))
    }

    pub(crate) fn with_status(mut self, status: Status) -> Self {
        self.status = status;
        self
    }

    pub(crate) fn with_effect(mut self, effect: Effect) -> Self {
        self.effect = effect;
        self
    }

    pub(crate) fn with_readiness(mut self, readiness: Readiness) -> Self {
        self.readiness = readiness;
        self
    }

    /// Add (or replace) the fact `key`; its kind fixes the values it accepts.
    pub(crate) fn fact<K>(mut self, key: FactKey<K>, value: impl IntoFact<K>) -> Self {
        self.facts.insert(key.name().to_owned(), value.into_fact());
        self
    }

    /// Add a fact unless the outcome already has one of that name (a refusal's own `host`).
    pub(crate) fn or_fact<K>(mut self, key: FactKey<K>, value: impl IntoFact<K>) -> Self {
        self.facts.entry(key.name().to_owned()).or_insert_with(|| value.into_fact());
        self
    }

    pub(crate) fn next(mut self, step: impl Into<String>) -> Self {
        self.next_steps.push(step.into());
        self
    }

    pub(crate) fn attach(mut self, attachment: Attachment) -> Self {
        self.attachments.push(attachment);
        self
    }

    /// The envelope, with the invariants applied.
    pub(crate) fn into_parts(mut self, invocation: &Handle) -> (Envelope, Vec<Attachment>, Option<Site>) {
        if matches!(self.effect, Effect::Partial | Effect::Unknown)
            || !matches!(self.status, Status::Succeeded)
        {
            self.repeat_safe = false;
        }
        self.next_steps.truncate(NEXT_STEPS_MAX);
        let summary = bound_visible(&self.summary, SUMMARY_CHARS).unwrap_or_default();
        let envelope = Envelope {
            invocation: invocation.as_str().to_owned(),
            status: self.status,
            effect: self.effect,
            readiness: self.readiness,
            repeat_safe: self.repeat_safe,
            summary,
            facts: self.facts,
            next_steps: self.next_steps,
        };
        (envelope, self.attachments, self.landing)
    }
}

/// The next step after a stale target.
pub(crate) const REINSPECT: &str =
    "Call browser_inspect or browser_find on this tab for fresh targets, then act on those.";
/// The next step after a stale view.
pub(crate) const RECAPTURE: &str = "Call browser_screenshot for a current view, then use its coordinates.";
/// The next step to see the tabs.
pub(crate) const LIST_TABS: &str = "Call browser_tabs with action \"list\" to see the controlled tabs.";
/// The next step after a dialog blocked work.
pub(crate) const SEE_DIALOG: &str =
    "Call browser_dialog with action \"status\", then accept or dismiss the dialog.";

/// Render a port failure of the work described by `doing` (an infinitive phrase such as
/// `click the "Save" button`). `timeout_ms` is the bound the call ran under.
pub(crate) fn port_failure(error: &PortError, doing: &str, engine: &str, timeout_ms: Option<u64>) -> Outcome {
    if let Some(refusal) = error.startup_refusal() {
        return startup_refusal(refusal);
    }
    if let Some(failure) = error.launch_failure() {
        return launch_failure(failure, doing);
    }
    let unknown = error.effect() == PortEffect::Unknown;
    let outcome = match error.kind() {
        PortErrorKind::NotConnected => Outcome::failed(
            "not_connected",
            format!("No browser is connected, so Ghostlight could not {doing}."),
        ),
        PortErrorKind::Transport | PortErrorKind::BrowserGone if unknown => Outcome::failed(
            error.kind().code(),
            format!("Lost the browser connection while trying to {doing}; whether it happened is unknown."),
        )
        .next(LIST_TABS),
        PortErrorKind::Transport | PortErrorKind::BrowserGone => Outcome::failed(
            error.kind().code(),
            format!("Could not reach the browser to {doing}; nothing was done."),
        ),
        // The tab vanished after the work was sent: the page closed it in answer (a click on
        // a "Close" button), so the work most likely happened.
        PortErrorKind::TabGone if unknown => Outcome::failed(
            "tab_closed_by_page",
            format!("The tab closed as Ghostlight went to {doing}: the page most likely closed it itself in answer."),
        )
        .next(LIST_TABS),
        PortErrorKind::TabGone => {
            Outcome::failed("tab_gone", format!("The tab closed before Ghostlight could {doing}."))
                .next(LIST_TABS)
        }
        PortErrorKind::TargetStale => Outcome::failed(
            "target_stale",
            format!("Could not {doing}: the element is gone from the page since it was inspected."),
        )
        .next(REINSPECT),
        PortErrorKind::Obstructed => {
            let cover = match error.obstruction() {
                Some(by) => target_phrase(Role::narrow(&by.role), by.name.as_deref(), true),
                None => "another element".to_owned(),
            };
            let mut outcome = Outcome::failed(
                "obstructed",
                format!("Did not {doing}: {cover} covers it, and Ghostlight does not click through."),
            )
            .next("Close or dismiss the covering element first, then try again.");
            if let Some(by) = error.obstruction() {
                let mut covering = Map::new();
                covering.insert("role".into(), json!(Role::narrow(&by.role).token()));
                if let Some(name) = by.name.as_deref().and_then(crate::language::normalize_name) {
                    covering.insert("name".into(), json!(name));
                }
                outcome = outcome.fact(detail::OBSTRUCTED_BY, Value::Object(covering));
            }
            outcome
        }
        PortErrorKind::BlockedByDialog => Outcome::failed(
            "blocked_by_dialog",
            format!("A JavaScript dialog blocks the page, so Ghostlight did not {doing}."),
        )
        .next(SEE_DIALOG),
        PortErrorKind::Timeout => {
            let bound = timeout_ms.map(|ms| format!(" after {ms} ms")).unwrap_or_default();
            let tail = if unknown { "; whether it happened is unknown" } else { "" };
            let closed = if error.closed_tab() {
                " The page stopped answering, so Ghostlight closed its tab to keep the browser usable."
            } else {
                ""
            };
            let mut outcome =
                Outcome::failed("timeout", format!("Timed out{bound} trying to {doing}{tail}.{closed}"));
            if let Some(ms) = timeout_ms {
                outcome = outcome.fact(detail::TIMEOUT_MS, ms);
            }
            if error.closed_tab() {
                outcome = outcome.next(LIST_TABS);
            }
            outcome
        }
        PortErrorKind::Unsupported => {
            Outcome::failed("unsupported", format!("This browser ({engine}) cannot {doing}."))
                .fact(detail::ENGINE, engine)
        }
        PortErrorKind::InvalidInput => Outcome::failed(
            "invalid_input",
            format!("The page did not accept the input, so Ghostlight did not {doing}."),
        ),
        PortErrorKind::Network => {
            let (error_code, browser_code) = match error.network_failure() {
                Some(failure) => (failure.error, failure.browser_code.as_str()),
                None => (NetworkError::Other, ""),
            };
            let code = bounded_code(browser_code);
            let shown = if code.is_empty() { String::new() } else { format!(" ({code})") };
            Outcome::failed(
                "network_error",
                format!("Could not {doing}: {}{shown}; nothing was loaded.", network_phrase(error_code)),
            )
            .fact(detail::NETWORK_ERROR, error_code.as_str())
            .fact(detail::BROWSER_CODE, code)
            .next("Check the URL, or that the site is up and reachable from this browser, then try again.")
        }
        PortErrorKind::TooLarge => {
            let outcome = match error.oversize() {
                Some(size) => Outcome::failed(
                    "capture_too_large",
                    format!(
                        "Did not {doing}: it would be {}×{} pixels, over the limit of {} pixels a side and {} in all.",
                        size.width, size.height, size.max_side, size.max_pixels
                    ),
                )
                .fact(detail::WIDTH, size.width)
                .fact(detail::HEIGHT, size.height)
                .fact(detail::MAX_SIDE, size.max_side)
                .fact(detail::MAX_PIXELS, size.max_pixels),
                None => Outcome::failed(
                    "capture_too_large",
                    format!("Did not {doing}: it is too large for one image."),
                ),
            };
            outcome.next("Capture the viewport (scroll with browser_scroll first) or one target instead.")
        }
        PortErrorKind::CredentialTarget => {
            return Outcome::handoff(ToolName::TypeText, CredentialClass::Password, None, None);
        }
        PortErrorKind::ScriptError => Outcome::failed(
            "script_error",
            "The script threw an error in the page; its message is not shown.",
        ),
        _ => Outcome::failed(error.kind().code(), format!("The browser could not {doing}.")),
    };
    if unknown {
        // Work was sent and its end not seen: the page's state is not known either.
        outcome.with_status(Status::Unknown).with_effect(Effect::Unknown).with_readiness(Readiness::Unknown)
    } else {
        outcome
    }
}

/// What a failed page load means, as a clause.
fn network_phrase(error: NetworkError) -> &'static str {
    match error {
        NetworkError::NameNotResolved => "the host name does not resolve",
        NetworkError::ConnectionRefused => "the connection was refused",
        NetworkError::ConnectionReset => "the connection was reset",
        NetworkError::TimedOut => "the connection timed out",
        NetworkError::Tls => "the site's certificate or TLS setup was rejected",
        NetworkError::PortBlocked => "the browser refuses that port",
        NetworkError::Offline => "the browser is offline",
        NetworkError::Blocked => "the browser blocked the request",
        NetworkError::Other => "the browser could not load it",
    }
}

/// A browser's error code as shown: ASCII letters, digits, `_` and `-`, at most 64 of them
/// (the code comes from the page's error document).
fn bounded_code(code: &str) -> String {
    code.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-')).take(64).collect()
}

/// A browser that could not start: `attention_required` (a person must install or fix
/// something), the closed cause and the pieces involved in facts, and one next step.
pub(crate) fn launch_failure(failure: &LaunchFailure, doing: &str) -> Outcome {
    let LaunchFailure { cause, driver, browser } = failure;
    let doctor = "run `ghostlight doctor` to see what is missing";
    let (why, next) = match cause {
        LaunchCause::DriverNotFound => {
            (format!("{driver} was not found on PATH"), format!("install {driver} (or {doctor})"))
        }
        LaunchCause::DriverNotExecutable => (
            format!("the configured {driver} path is not an executable file"),
            format!("fix the configured {driver} path (or {doctor})"),
        ),
        LaunchCause::DriverExited => (format!("{driver} exited while starting"), doctor.to_owned()),
        LaunchCause::DriverNotReady => (format!("{driver} did not become ready in time"), doctor.to_owned()),
        LaunchCause::DriverUnreachable => (
            "nothing answered at the configured driver URL".to_owned(),
            format!(
                "start {driver} at the configured driver URL, or remove the URL so Ghostlight starts one"
            ),
        ),
        LaunchCause::BrowserNotFound => {
            (format!("{driver} could not find {browser}"), format!("install {browser} (or {doctor})"))
        }
        LaunchCause::BrowserExited => (format!("{browser} exited as it started"), doctor.to_owned()),
        LaunchCause::BrowserNotReady => (format!("{browser} did not start in time"), doctor.to_owned()),
        LaunchCause::VersionMismatch => (
            format!("{driver} does not support the installed version of {browser}"),
            format!("install the {driver} that matches the installed {browser}"),
        ),
        LaunchCause::SessionRefused => (format!("{driver} refused to start {browser}"), doctor.to_owned()),
        LaunchCause::HostResources => (
            "this machine could not provide a loopback port or a profile folder".to_owned(),
            doctor.to_owned(),
        ),
        LaunchCause::ProfileInUse => (
            "its browser profile is in use by another Ghostlight server".to_owned(),
            "stop the other Ghostlight server that uses the browser profile, or configure another profile"
                .to_owned(),
        ),
        LaunchCause::InvalidConfiguration => (
            format!("the {browser} configuration cannot be used as given"),
            "fix the browser configuration (`ghostlight config check` and the server's log say what is wrong)"
                .to_owned(),
        ),
    };
    Outcome::read(format!("The browser could not start ({why}), so Ghostlight could not {doing}."))
        .with_status(Status::AttentionRequired)
        .fact(common::REASON, "browser_not_started")
        .fact(detail::CAUSE, cause.as_str())
        .fact(detail::DRIVER, driver.as_str())
        .fact(common::BROWSER, browser.as_str())
        .next(format!("Ask the user to {next}, then repeat the call."))
}

/// The spec's startup refusals, word for word: the summary holds the whole recovery
/// instruction (no next steps), except for a registration owned elsewhere.
pub(crate) fn startup_refusal(refusal: &StartupRefusal) -> Outcome {
    let attention = |summary: String| Outcome::read(summary).with_status(Status::AttentionRequired);
    let mut outcome = match refusal {
        StartupRefusal::Manual { browsers } => {
            let mut outcome = attention(format!(
                "No browser is connected. Ask the user to open a {} window with the Ghostlight extension \
                 installed, then repeat the call.",
                or_list(browsers)
            ))
            .fact(common::REASON, "browser_startup_manual")
            .fact(common::BROWSERS, browsers);
            if let [one] = browsers.as_slice() {
                outcome = outcome.fact(common::BROWSER, one.as_str());
            }
            outcome
        }
        StartupRefusal::ManualLaunch { browser } => attention(format!(
            "No browser is connected, and Ghostlight is set to start none (startup is manual, and the \
             WebDriver connector cannot use a window the user opens). Ask the user to restart Ghostlight \
             with `--startup auto` so it starts {browser}, or with `--connector extension` to use their own \
             browser, then repeat the call."
        ))
        .fact(common::REASON, "browser_startup_manual")
        .fact(common::BROWSERS, [browser.as_str()])
        .fact(common::BROWSER, browser.as_str()),
        StartupRefusal::NoRegistration { browsers } => {
            let found = if browsers.is_empty() {
                "no supported browser was found".to_owned()
            } else {
                format!("found {}", and_list(browsers))
            };
            let mut outcome = attention(format!(
                "No installed browser can connect to Ghostlight yet ({found}). Ask the user to run \
                 `ghostlight install`, then repeat the call."
            ))
            .fact(common::REASON, "browser_startup_manual")
            .fact(common::BROWSERS, browsers);
            if let [one] = browsers.as_slice() {
                outcome = outcome.fact(common::BROWSER, one.as_str());
            }
            outcome
        }
        StartupRefusal::OwnedElsewhere => attention(
            "Another Ghostlight installation owns the browser registration.".to_owned(),
        )
        .fact(common::REASON, "native_host_owned_elsewhere")
        .next("Ask the user to run `ghostlight install` from the installation that should own the browsers."),
    };
    outcome.repeat_safe = false;
    outcome
}

fn or_list(items: &[String]) -> String {
    join(items, "or")
}

fn and_list(items: &[String]) -> String {
    join(items, "and")
}

fn join(items: &[String], conjunction: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} {conjunction} {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(outcome: Outcome) -> Envelope {
        outcome.into_parts(&Handle::from_token(crate::handles::HandleKind::Invocation, "t")).0
    }

    #[test]
    fn a_browser_that_cannot_start_says_why_for_every_cause() {
        use crate::vocab::WireChoice as _;
        let mut summaries = std::collections::BTreeSet::new();
        for name in LaunchCause::NAMES {
            let Some(cause) = LaunchCause::from_wire(name) else { panic!("{name}") };
            let failure = LaunchFailure { cause, driver: "geckodriver".into(), browser: "Firefox".into() };
            let error = PortError::launch_failed(failure, "/opt/secret/path: operator detail");
            let shown = envelope(port_failure(&error, "list the tabs", "Firefox", None));
            assert_eq!((shown.status, shown.effect), (Status::AttentionRequired, Effect::None), "{name}");
            assert!(shown.summary.starts_with("The browser could not start ("), "{name}: {}", shown.summary);
            assert!(
                shown.summary.ends_with("), so Ghostlight could not list the tabs."),
                "{}",
                shown.summary
            );
            assert_eq!(
                (&shown.facts["reason"], &shown.facts["cause"]),
                (&json!("browser_not_started"), &json!(name))
            );
            assert_eq!(
                (&shown.facts["driver"], &shown.facts["browser"]),
                (&json!("geckodriver"), &json!("Firefox"))
            );
            assert_eq!(shown.next_steps.len(), 1, "{name}");
            assert!(shown.next_steps[0].starts_with("Ask the user to "), "{:?}", shown.next_steps);
            assert!(!shown.summary.contains("secret") && !shown.next_steps[0].contains("secret"));
            summaries.insert(shown.summary);
        }
        assert_eq!(summaries.len(), LaunchCause::NAMES.len(), "every cause reads differently");
        let missing = LaunchFailure {
            cause: LaunchCause::DriverNotFound,
            driver: "geckodriver".into(),
            browser: "Firefox".into(),
        };
        let shown =
            envelope(port_failure(&PortError::launch_failed(missing, "x"), "list the tabs", "Firefox", None));
        assert_eq!(
            shown.summary,
            "The browser could not start (geckodriver was not found on PATH), so Ghostlight could not list the tabs."
        );
        assert_eq!(
            shown.next_steps,
            [
                "Ask the user to install geckodriver (or run `ghostlight doctor` to see what is missing), then repeat the call."
            ]
        );
    }

    #[test]
    fn a_capture_too_large_names_its_size_and_the_limit_in_sentence_and_facts() {
        let oversize =
            crate::port::Oversize { width: 1265, height: 21_198, max_side: 16_384, max_pixels: 100_000_000 };
        let error = PortError::too_large(oversize);
        let failed =
            envelope(port_failure(&error, "capture the full page of example.com", "chromium", Some(8000)));
        assert_eq!(
            failed.summary,
            "Did not capture the full page of example.com: it would be 1265×21198 pixels, over the limit of \
             16384 pixels a side and 100000000 in all."
        );
        assert_eq!((failed.status, failed.effect), (Status::Failed, Effect::None));
        assert_eq!(failed.facts["reason"], "capture_too_large");
        assert_eq!((&failed.facts["width"], &failed.facts["height"]), (&json!(1265), &json!(21_198)));
        assert_eq!(failed.next_steps.len(), 1);
    }

    #[test]
    fn a_timeout_whose_tab_was_closed_says_so_and_points_to_the_tab_list() {
        let error =
            PortError::new(PortErrorKind::Timeout, "stuck").effect_unknown().closed_unresponsive_tab();
        let failed = envelope(port_failure(&error, "click the \"Go\" button", "firefox", Some(3000)));
        assert_eq!(
            failed.summary,
            "Timed out after 3000 ms trying to click the \"Go\" button; whether it happened is unknown. The \
             page stopped answering, so Ghostlight closed its tab to keep the browser usable."
        );
        assert_eq!(failed.effect, Effect::Unknown);
        assert_eq!(failed.facts["reason"], "timeout");
        assert_eq!(failed.next_steps.len(), 1, "{:?}", failed.next_steps);
        let plain = envelope(port_failure(
            &PortError::new(PortErrorKind::Timeout, "slow"),
            "read the page",
            "firefox",
            None,
        ));
        assert!(!plain.summary.contains("closed its tab"), "{}", plain.summary);
    }

    #[test]
    fn unknown_effects_and_failures_are_never_repeat_safe() {
        let unknown = envelope(Outcome::applied("Clicked.", true).with_effect(Effect::Unknown));
        assert!(!unknown.repeat_safe);
        let partial = envelope(Outcome::applied("Filled.", true).with_effect(Effect::Partial));
        assert!(!partial.repeat_safe);
        let failed = envelope(Outcome::failed("timeout", "Timed out."));
        assert!(!failed.repeat_safe);
        assert!(envelope(Outcome::read("Read.")).repeat_safe);
    }

    #[test]
    fn startup_refusals_read_as_the_spec_says() {
        let one = envelope(startup_refusal(&StartupRefusal::Manual { browsers: vec!["Chromium".into()] }));
        assert_eq!(one.status, Status::AttentionRequired);
        assert_eq!(
            one.summary,
            "No browser is connected. Ask the user to open a Chromium window with the Ghostlight extension \
             installed, then repeat the call."
        );
        assert_eq!(one.facts["browser"], "Chromium");
        assert!(one.next_steps.is_empty());
        let two = envelope(startup_refusal(&StartupRefusal::Manual {
            browsers: vec!["Chromium".into(), "Firefox".into()],
        }));
        assert!(two.summary.contains("open a Chromium or Firefox window"), "{}", two.summary);
        assert!(!two.facts.contains_key("browser"));
        assert!(!two.summary.contains("choose"));
        let launch = envelope(startup_refusal(&StartupRefusal::ManualLaunch { browser: "Firefox".into() }));
        assert!(!launch.summary.contains("extension installed"), "{}", launch.summary);
        assert!(
            launch.summary.contains("--startup auto") && launch.summary.contains("Firefox"),
            "{}",
            launch.summary
        );
        assert_eq!(launch.facts["reason"], "browser_startup_manual");
        assert_eq!(
            (&launch.facts["browser"], &launch.facts["browsers"]),
            (&json!("Firefox"), &json!(["Firefox"]))
        );
        assert!(launch.next_steps.is_empty());
        let elsewhere = envelope(startup_refusal(&StartupRefusal::OwnedElsewhere));
        assert_eq!(elsewhere.summary, "Another Ghostlight installation owns the browser registration.");
        assert_eq!(elsewhere.facts["reason"], "native_host_owned_elsewhere");
        assert_eq!(elsewhere.next_steps.len(), 1);
    }
}
