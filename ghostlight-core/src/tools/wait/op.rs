//! `browser_wait`: wait for one observable condition, in the page or by polling it.
//!
//! Decisions where the contract is silent:
//! * `load_ready` holds once `document.readyState` is `complete` (not `interactive`): a model
//!   that waits for "load" expects subresources too.
//! * `text_present` and `text_absent` wait in the page (issue 32): each *slice* asks the
//!   port ([`wait_text`](crate::port::BrowserPort::wait_text)) to watch the page for at most
//!   what is left of `timeout_ms` and at most [`WATCH_SLICE`], answering as soon as the
//!   condition holds. The first slice is watched as the tab is entered, in the page the
//!   executor saw last there ([`wait_text_in`](crate::port::BrowserPort::wait_text_in), which
//!   reads the page state when the slice ends; another document is observed and authorized
//!   before it is watched). Between slices the page is observed and authorized again (below). A slice that checked once without
//!   watching (a page with frames, which the WebDriver adapter walks rather than watches) or
//!   whose document went away (a navigation) is followed by a [`POLL_INTERVAL`] pause, as a
//!   poll is. A port that cannot wait in the page (`unsupported`) is polled for the rest of
//!   the wait, as every other condition is.
//! * Polling checks the condition, then sleeps [`POLL_INTERVAL`] on the port's timer, until
//!   the condition holds or `timeout_ms` is used up (at most `timeout_ms / POLL_INTERVAL + 1`
//!   checks). `elapsed_ms` is measured: the wall-clock time from the first check to the
//!   answer, checks and slices included, and never less than the time slept plus the slices
//!   the port watched to their end (a scripted port's timer is virtual, so over it the figure
//!   stays deterministic). The loop ends once the measured time reaches `timeout_ms`; the
//!   last sleep, like the last slice, is cut to what is left, so slow checks cannot stretch
//!   the bound by more than one check. A timeout says both figures: how long it waited, and
//!   the limit.
//! * Each check after a sleep or a slice observes the page again and authorizes it again: a
//!   tab that moved outside authority while waiting ends the wait `blocked`, and its content
//!   is never read (a slice never outlives its document: the port reads only the document the
//!   slice began in). So `url_contains` always compares against a URL inside authority, in
//!   full.
//! * "No wait was needed" is said only when the first check held at once (no sleep, no slice
//!   that had to watch).
//! * A target handle from an older document generation names an element that is absent from
//!   the current document: `target_absent` holds at once, `target_present` fails as stale
//!   (it can never hold). A handle that goes stale while waiting is treated the same way.
//! * `selector_present` (and a selector given to `target_present`/`target_absent`) counts as
//!   present when at least one control matches, even if several do: the wait asks whether a
//!   matching control exists, not which one to act on.
//! * `duration` sleeps the whole value (the decoder already refused a shorter explicit
//!   `timeout_ms`).
//! * `value_equals`, `checked` and `unchecked` resolve their control once, as an action would
//!   (a selector that matches nothing or several controls is refused at once), then compare in
//!   the page ([`control_matches`](crate::port::BrowserPort::control_matches)): the value
//!   never comes back, and no sentence, fact or log carries it. A credential-class control is
//!   refused before anything is compared (`attention_required`, as a fill would be). A handle's
//!   control that goes away fails as stale; a selector's control is looked for again on the
//!   next check.
//! * `title_contains` compares case-sensitively, as `url_contains` does; `url_matches` matches
//!   the whole URL against the glob.
//! * `count_at_least` counts every perceived control the selector's name (and role) matches,
//!   at any rank, and says how many it saw (`match_count`).
//!
//! * A check (or a slice) the page does not answer within what is left of the timeout (plus
//!   [`CHECK_GRACE`]) is abandoned, and the wait times out: `timeout_ms` bounds the answer
//!   whatever the adapter's own bounds are.
//!
//! A timeout is `failed` with effect `none` and `satisfied: false` (CLARIFICATIONS).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::facts;
use crate::authority::Site;
use crate::envelope::Readiness;
use crate::handles::Handle;
use crate::language::{bound_visible, normalize_name};
use crate::limits::{ECHO_CHARS, READ_CALL_MS};
use crate::names::ToolName;
use async_trait::async_trait;

use crate::port::{
    BrowserPort, DocumentId, ElementRef, ExpectedDocument, FillValue, InDocument, PageState, PerceiveInput,
    PerceiveScope, PerceivedElement, PortErrorKind, PortResult, TabCall, TextWait, TextWaitInput,
};
use crate::selector::Selector;
use crate::tools::common::TargetRef;
use crate::tools::common::with_gate;
use crate::tools::wait::{WaitCondition, WaitRequest};

use crate::operation::outcome::Outcome;
use crate::operation::run::{Lease, Page, PageWork, Run, SELECTOR_SCAN_ITEMS, Step, host_of, stale_target};
use crate::operation::selector_match::{SelectorMatch, count_matches, match_selector};

/// How long to sleep between two checks of a condition.
const POLL_INTERVAL: Duration = Duration::from_millis(100);
/// How far past the wait's timeout one check may run before it is abandoned.
const CHECK_GRACE: Duration = Duration::from_millis(500);
/// The longest one wait in the page lasts before the page is observed and authorized again.
/// A navigation ends a slice at once (the port never reads the new document), so the slice
/// bounds how long one port call holds the browser: the WebDriver adapter's calls on other
/// tabs of the same browser wait for it, and a cancelled wait leaves the driver busy for
/// the rest of its slice. Two seconds keep a text that appears within about 1.5 s to one
/// slice (issue 32's measured case) while bounding that hold.
const WATCH_SLICE: Duration = Duration::from_secs(2);

pub(crate) async fn run(run: &Run<'_>, request: &WaitRequest) -> Outcome {
    wait(run, request).await.unwrap_or_else(|outcome| outcome)
}

/// What a target condition watches.
enum Watched {
    /// An element of one document generation, named by a handle.
    Element { element: ElementRef, generation: u64, handle: Handle, phrase: String },
    /// Whatever currently matches a selector.
    Selector(Selector),
    /// The control a selector resolved to, and the document generation it was found in
    /// (`None` once it went away: the selector is resolved again at the next check).
    Control { found: Mutex<Option<(ElementRef, u64)>>, selector: Selector, phrase: String },
}

/// The facts every wait outcome carries.
struct Progress<'p> {
    lease: &'p Lease,
    condition: &'static str,
    /// When the wait began (once the tab was entered; a text wait's first slice is watched
    /// as it is entered, and the wait begins when that slice is sent).
    started: Instant,
    /// The time slept on the port's timer so far, plus the slices the port watched to their
    /// end: a lower bound of the time waited.
    slept: u64,
    /// Whether the wait had to wait: it slept, or a slice did not hold at once.
    waited: bool,
}

impl Progress<'_> {
    /// The measured time since the wait began: wall clock, at least the time slept.
    fn elapsed(&self) -> u64 {
        let wall = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        wall.max(self.slept)
    }

    /// The wait's facts on `outcome`; `elapsed` is the figure its summary states (measured
    /// once, so the two never differ).
    fn facts(&self, outcome: Outcome, satisfied: bool, readiness: Readiness, elapsed: u64) -> Outcome {
        outcome
            .with_readiness(readiness)
            .fact(facts::TAB, self.lease.handle().as_str())
            .fact(facts::CONDITION, self.condition)
            .fact(facts::SATISFIED, satisfied)
            .fact(facts::ELAPSED_MS, elapsed)
            .fact(facts::READINESS, readiness.as_str())
    }
}

async fn wait(run: &Run<'_>, request: &WaitRequest) -> Step<Outcome> {
    let condition = request.condition.condition().as_str();
    let timeout = request.timeout_ms;
    // A text wait watches its first slice in the page last seen, with the page state read
    // when the slice ends (one round trip where entering and watching took two); the wait
    // begins when that slice is sent, as every other wait begins once the tab is entered.
    let (lease, mut page, mut first, started) = match &request.condition {
        WaitCondition::TextPresent(text) | WaitCondition::TextAbsent(text) => {
            let slice = TextSlice {
                text,
                present: matches!(request.condition, WaitCondition::TextPresent(_)),
                within: Duration::from_millis(timeout).min(WATCH_SLICE),
                condition,
                began: Mutex::new(None),
            };
            let (lease, page, ended) =
                run.enter_with(request.tab.as_ref(), true, &slice, "check the page while waiting on").await?;
            let started = slice.began().unwrap_or_else(Instant::now);
            (lease, page, Some((ended, slice.within)), started)
        }
        _ => {
            let (lease, page) = run.enter_gated(request.tab.as_ref()).await?;
            (lease, page, None, Instant::now())
        }
    };
    let mut progress = Progress { lease: &lease, condition, started, slept: 0, waited: false };
    // A refusal or port failure while waiting still says what was waited for, and how long.
    let fail_facts = |outcome: Outcome, elapsed: u64| unsatisfied(outcome, condition, elapsed);

    if let WaitCondition::Duration { ms } = request.condition {
        run.port().sleep(Duration::from_millis(ms)).await;
        progress.slept = ms;
        progress.waited = true;
        let page = run.observe_gated(&lease).await.map_err(|o| fail_facts(o, progress.elapsed()))?;
        let host = host_of(&page.state.url);
        let elapsed = progress.elapsed();
        let outcome = Outcome::read(format!("Waited {elapsed} ms on {host}.")).fact(facts::HOST, host);
        let outcome = with_gate(outcome, &page.state);
        return Ok(progress.facts(outcome, true, page.state.readiness, elapsed));
    }

    let watched = match &request.condition {
        WaitCondition::TargetPresent(target) | WaitCondition::TargetAbsent(target) => {
            match watch(run, &lease, &page, target).await.map_err(|o| fail_facts(o, 0))? {
                Ok(watched) => Some(watched),
                Err(Stale { phrase, handle })
                    if matches!(request.condition, WaitCondition::TargetAbsent(_)) =>
                {
                    // A handle of an older document: absent from the current one.
                    let host = host_of(&page.state.url);
                    let outcome = Outcome::read(format!(
                        "No wait was needed on {host}: {phrase} is gone (the page changed documents)."
                    ))
                    .fact(facts::HOST, host)
                    .fact(facts::TARGET, handle.as_str())
                    .fact(facts::TARGET_STALE, true);
                    return Ok(progress.facts(outcome, true, page.state.readiness, progress.elapsed()));
                }
                Err(Stale { handle, .. }) => {
                    let outcome = stale_target(&handle, lease.handle());
                    return Err(progress.facts(outcome, false, page.state.readiness, progress.elapsed()));
                }
            }
        }
        WaitCondition::ValueEquals { target, .. } | WaitCondition::Checked { target, .. } => {
            let resolved = run.target(&lease, &page, target).await.map_err(|o| fail_facts(o, 0))?;
            if let (Some(class), WaitCondition::ValueEquals { .. }) =
                (resolved.credential, &request.condition)
            {
                let site = Site::from_url(&page.state.url);
                let outcome = Outcome::handoff(ToolName::Wait, class, site, resolved.handle.clone())
                    .fact(facts::TAB, lease.handle().as_str());
                return Err(fail_facts(outcome, 0));
            }
            let phrase = run.phrase(resolved.role, resolved.name.as_deref());
            Some(match target {
                TargetRef::Handle(handle) => Watched::Element {
                    element: resolved.element,
                    generation: page.generation,
                    handle: handle.clone(),
                    phrase,
                },
                TargetRef::Selector(selector) => Watched::Control {
                    found: Mutex::new(Some((resolved.element, page.generation))),
                    selector: selector.clone(),
                    phrase,
                },
            })
        }
        _ => None,
    };
    // The last count a `count_at_least` check saw.
    let counted = Mutex::new(None::<usize>);

    // The text a wait in the page watches for, and whether it should be present; `None` once
    // the port said it cannot wait in the page (the wait then polls).
    let mut in_page = match &request.condition {
        WaitCondition::TextPresent(text) => Some((text.as_str(), true)),
        WaitCondition::TextAbsent(text) => Some((text.as_str(), false)),
        _ => None,
    };
    loop {
        let host = host_of(&page.state.url);
        // A check the page does not answer in what is left of the wait (a huge document, a
        // busy page) is abandoned: the wait's own bound holds whatever the page does.
        let left = Duration::from_millis(timeout).saturating_sub(progress.started.elapsed());
        let bound = left.saturating_add(CHECK_GRACE);
        let failed = |o: Outcome, elapsed: u64| fail_facts(o.fact(facts::HOST, host.clone()), elapsed);
        let mut checked = None;
        if let Some((ended, within)) = first.take() {
            // The first slice, watched as the tab was entered.
            match ended {
                Some(ended) => checked = Some(Checked::Watched(ended, within)),
                None => in_page = None,
            }
        } else if let Some((text, present)) = in_page {
            // What is left by the measured figure (a port's virtual time included).
            let within = Duration::from_millis(timeout.saturating_sub(progress.elapsed())).min(WATCH_SLICE);
            match run.within(bound, watch_text(run, &lease, &page, text, present, within)).await {
                Some(Ok(Some(ended))) => checked = Some(Checked::Watched(ended, within)),
                Some(Ok(None)) => in_page = None,
                Some(Err(o)) => return Err(failed(o, progress.elapsed())),
                None => checked = Some(Checked::Polled(Held::No)),
            }
        }
        let checked = match checked {
            Some(checked) => checked,
            None => {
                let checking = check(run, &lease, &page, &request.condition, watched.as_ref(), &counted);
                match run.within(bound, checking).await {
                    Some(held) => Checked::Polled(held.map_err(|o| failed(o, progress.elapsed()))?),
                    None => Checked::Polled(Held::No),
                }
            }
        };
        // Whether to pause before the next check: after a poll, and after a slice that did
        // not watch the page to its end.
        let (held, pause) = match checked {
            Checked::Polled(held) => (held, true),
            Checked::Watched(ended, within) => {
                progress.waited |= ended != TextWait::Held;
                if ended == TextWait::RanOut {
                    progress.slept += u64::try_from(within.as_millis()).unwrap_or(u64::MAX);
                }
                let held = if ended.held() { Held::Yes } else { Held::No };
                (held, ended != TextWait::RanOut)
            }
        };
        let clause = clause(&request.condition, watched.as_ref());
        match held {
            Held::Yes => {
                let elapsed = progress.elapsed();
                let summary = if progress.waited {
                    format!("Waited {elapsed} ms until {} on {host}.", clause.event)
                } else {
                    format!("No wait was needed on {host}: {}.", clause.state)
                };
                let outcome = with_count(Outcome::read(summary).fact(facts::HOST, host), &counted);
                let outcome = with_gate(outcome, &page.state);
                return Ok(progress.facts(outcome, true, page.state.readiness, elapsed));
            }
            Held::Never(handle) => {
                let outcome = stale_target(&handle, lease.handle()).fact(facts::HOST, host);
                return Err(progress.facts(outcome, false, page.state.readiness, progress.elapsed()));
            }
            Held::No => {}
        }
        let elapsed = progress.elapsed();
        if elapsed >= timeout {
            let outcome = Outcome::failed(
                "timeout",
                format!(
                    "Timed out after {elapsed} ms waiting until {} on {host} (the limit was {timeout} ms).",
                    clause.event
                ),
            )
            .fact(facts::TIMEOUT_MS, timeout)
            .fact(facts::HOST, host)
            .next("Call browser_screenshot or browser_read to see what the page shows now.")
            .next("Wait again with a longer timeout_ms (up to 30000) if the page is still working.");
            // A gate is often why the awaited content never came.
            let outcome = with_gate(with_count(outcome, &counted), &page.state);
            return Err(progress.facts(outcome, false, page.state.readiness, elapsed));
        }
        if pause {
            let step = POLL_INTERVAL.min(Duration::from_millis(timeout - elapsed));
            run.port().sleep(step).await;
            progress.slept += u64::try_from(step.as_millis()).unwrap_or(u64::MAX);
            progress.waited = true;
        }
        page = run.observe_gated(&lease).await.map_err(|o| fail_facts(o, progress.elapsed()))?;
        run.authorize(Some(&page.state.url))
            .map_err(|o| fail_facts(o, progress.elapsed()).fact(facts::TAB, lease.handle().as_str()))?;
    }
}

/// A refusal or port failure while waiting, saying what was waited for and how long.
fn unsatisfied(outcome: Outcome, condition: &'static str, elapsed: u64) -> Outcome {
    outcome.fact(facts::CONDITION, condition).fact(facts::SATISFIED, false).fact(facts::ELAPSED_MS, elapsed)
}

/// `outcome` with the count the last `count_at_least` check saw, if one ran.
fn with_count(outcome: Outcome, counted: &Mutex<Option<usize>>) -> Outcome {
    match *counted.lock().unwrap_or_else(|p| p.into_inner()) {
        Some(count) => outcome.fact(facts::MATCH_COUNT, count),
        None => outcome,
    }
}

/// What one check found.
enum Checked {
    /// A check of the page as it is now.
    Polled(Held),
    /// A wait in the page, given the duration, ended so.
    Watched(TextWait, Duration),
}

/// Wait in `page` (observed and authorized) for at most `within` until `text` is present (or
/// absent, `present: false`); `None` when the port cannot wait in the page.
async fn watch_text(
    run: &Run<'_>,
    lease: &Lease,
    page: &Page,
    text: &str,
    present: bool,
    within: Duration,
) -> Step<Option<TextWait>> {
    let input =
        TextWaitInput { text: text.to_owned(), present, within, document: page.state.document.clone() };
    // A slice is a read that may last `within`: bounded as a read is beyond it (the wait's
    // own bound, `CHECK_GRACE` past its timeout, abandons it sooner).
    let call = run.on(&lease.tab, within.saturating_add(Duration::from_millis(READ_CALL_MS)));
    match run.port().wait_text(&call, &input).await {
        Ok(ended) => Ok(Some(ended)),
        Err(e) if e.kind() == PortErrorKind::Unsupported => Ok(None),
        Err(e) => Err(run.fail_on(lease, &e, "check the page while waiting", None)),
    }
}

/// The first slice of a text wait, made as the tab is entered ([`Run::enter_with`]): in
/// the page last seen, with the page state read when it ends, where the port can. Answers how
/// the slice ended, or `None` when the port cannot wait in the page (the wait then polls).
struct TextSlice<'t> {
    text: &'t str,
    present: bool,
    within: Duration,
    /// The condition's name: a fact of a failed slice.
    condition: &'static str,
    /// When the slice was last sent to the port (the wait's start).
    began: Mutex<Option<Instant>>,
}

impl TextSlice<'_> {
    /// When the slice was sent (the last time, after a fallback), if it was.
    fn began(&self) -> Option<Instant> {
        *self.began.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The slice's input in `document`, noting when it is sent.
    fn input(&self, document: &DocumentId) -> TextWaitInput {
        *self.began.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
        TextWaitInput {
            text: self.text.to_owned(),
            present: self.present,
            within: self.within,
            document: document.clone(),
        }
    }
}

#[async_trait]
impl PageWork for TextSlice<'_> {
    type Answer = Option<TextWait>;

    /// A slice is a read that may last `within`: bounded as a read is beyond it.
    fn timeout(&self) -> Duration {
        self.within.saturating_add(Duration::from_millis(READ_CALL_MS))
    }

    fn failed(&self, failure: Outcome) -> Outcome {
        let elapsed =
            self.began().map_or(0, |began| u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX));
        unsatisfied(failure, self.condition, elapsed)
    }

    async fn in_document(
        &self,
        port: &dyn BrowserPort,
        call: &TabCall<'_>,
        expected: &ExpectedDocument,
    ) -> PortResult<InDocument<Option<TextWait>>> {
        let watched = port.wait_text_in(call, expected, &self.input(&expected.document)).await?;
        Ok(InDocument { page: watched.page, answer: watched.answer.map(Some) })
    }

    async fn plainly(
        &self,
        port: &dyn BrowserPort,
        call: &TabCall<'_>,
        page: &PageState,
    ) -> PortResult<Option<TextWait>> {
        match port.wait_text(call, &self.input(&page.document)).await {
            Ok(ended) => Ok(Some(ended)),
            Err(e) if e.kind() == PortErrorKind::Unsupported => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// Whether a condition holds now.
enum Held {
    Yes,
    No,
    /// It can never hold: the watched target's document is gone.
    Never(Handle),
}

/// A target handle from an older document generation.
struct Stale {
    handle: Handle,
    phrase: String,
}

/// Resolve the watched target: a selector as is, a current handle to its element, a handle
/// of an older document as [`Stale`]; other refusals (unknown handle, another tab's target)
/// are rendered by [`Run::target`].
async fn watch(
    run: &Run<'_>,
    lease: &Lease,
    page: &Page,
    target: &TargetRef,
) -> Step<Result<Watched, Stale>> {
    let handle = match target {
        TargetRef::Selector(selector) => return Ok(Ok(Watched::Selector(selector.clone()))),
        TargetRef::Handle(handle) => handle,
    };
    if let Some(entry) = run.workspace.target(handle)
        && &entry.slot == lease.handle()
        && entry.generation != page.generation
    {
        let phrase = run.phrase(entry.role, entry.name.as_deref());
        return Ok(Err(Stale { handle: handle.clone(), phrase }));
    }
    let resolved = run.target(lease, page, target).await?;
    Ok(Ok(Watched::Element {
        element: resolved.element,
        generation: page.generation,
        handle: handle.clone(),
        phrase: run.phrase(resolved.role, resolved.name.as_deref()),
    }))
}

/// Check the condition against `page` (observed and authorized); a `count_at_least` check
/// leaves the count it saw in `counted`.
async fn check(
    run: &Run<'_>,
    lease: &Lease,
    page: &Page,
    condition: &WaitCondition,
    watched: Option<&Watched>,
    counted: &Mutex<Option<usize>>,
) -> Step<Held> {
    let fail = |e| run.fail_on(lease, &e, "check the page while waiting", None);
    let held = |yes: bool| if yes { Held::Yes } else { Held::No };
    Ok(match condition {
        WaitCondition::LoadReady => held(page.state.readiness == Readiness::Complete),
        WaitCondition::UrlContains(value) => held(page.state.url.as_str().contains(value.as_str())),
        WaitCondition::TitleContains(value) => held(page.state.title.contains(value.as_str())),
        WaitCondition::UrlMatches(glob) => held(glob.matches(page.state.url.as_str())),
        WaitCondition::CountAtLeast { selector, count } => {
            let elements = scan(run, lease, "count the matching controls while waiting").await?;
            let matching = count_matches(selector, &elements);
            *counted.lock().unwrap_or_else(|p| p.into_inner()) = Some(matching);
            held(u64::try_from(matching).unwrap_or(u64::MAX) >= *count)
        }
        WaitCondition::ValueEquals { value, .. } => {
            control_check(run, lease, page, watched, &FillValue::Text(value.clone())).await?
        }
        WaitCondition::Checked { checked, .. } => {
            control_check(run, lease, page, watched, &FillValue::Checked(*checked)).await?
        }
        WaitCondition::TextPresent(text) => {
            held(run.port().text_present(&run.reading(&lease.tab), text).await.map_err(fail)?)
        }
        WaitCondition::TextAbsent(text) => {
            held(!run.port().text_present(&run.reading(&lease.tab), text).await.map_err(fail)?)
        }
        WaitCondition::TargetPresent(_)
        | WaitCondition::TargetAbsent(_)
        | WaitCondition::SelectorPresent(_) => {
            let want_present = !matches!(condition, WaitCondition::TargetAbsent(_));
            let present = match (watched, condition) {
                (Some(Watched::Element { element, generation, handle, .. }), _) => {
                    if *generation != page.generation {
                        return Ok(if want_present { Held::Never(handle.clone()) } else { Held::Yes });
                    }
                    run.port().element_present(&lease.tab, element).await.map_err(fail)?
                }
                (Some(Watched::Selector(selector)), _) | (None, WaitCondition::SelectorPresent(selector)) => {
                    selector_present(run, lease, selector).await?
                }
                (Some(Watched::Control { .. }) | None, _) => false,
            };
            held(present == want_present)
        }
        WaitCondition::Duration { .. } => Held::Yes,
    })
}

/// Compare the watched control with `expected` in the page: a handle's control that went away
/// can never hold (stale); a selector's is looked for again (not held until it is back).
async fn control_check(
    run: &Run<'_>,
    lease: &Lease,
    page: &Page,
    watched: Option<&Watched>,
    expected: &FillValue,
) -> Step<Held> {
    let (element, handle) = match watched {
        Some(Watched::Element { element, generation, handle, .. }) => {
            if *generation != page.generation {
                return Ok(Held::Never(handle.clone()));
            }
            (element.clone(), Some(handle))
        }
        Some(Watched::Control { found, selector, .. }) => {
            let known = found.lock().unwrap_or_else(|p| p.into_inner()).clone();
            match known {
                Some((element, generation)) if generation == page.generation => (element, None),
                _ => {
                    // Gone, or another document: resolve the selector again in this one.
                    let Ok(resolved) = run.target(lease, page, &TargetRef::Selector(selector.clone())).await
                    else {
                        return Ok(Held::No);
                    };
                    if resolved.credential.is_some() && matches!(expected, FillValue::Text(_)) {
                        return Ok(Held::No);
                    }
                    *found.lock().unwrap_or_else(|p| p.into_inner()) =
                        Some((resolved.element.clone(), page.generation));
                    (resolved.element, None)
                }
            }
        }
        _ => return Ok(Held::No),
    };
    let call = run.reading(&lease.tab);
    let matched = run
        .port()
        .control_matches(&call, &element, expected)
        .await
        .map_err(|e| run.fail_on(lease, &e, "compare the control while waiting", None))?;
    Ok(match (matched, handle, watched) {
        (Some(true), ..) => Held::Yes,
        (Some(false), ..) => Held::No,
        (None, Some(handle), _) => Held::Never(handle.clone()),
        (None, None, Some(Watched::Control { found, .. })) => {
            *found.lock().unwrap_or_else(|p| p.into_inner()) = None;
            Held::No
        }
        (None, None, _) => Held::No,
    })
}

/// Whether at least one element matches `selector` now.
async fn selector_present(run: &Run<'_>, lease: &Lease, selector: &Selector) -> Step<bool> {
    let elements = scan(run, lease, "look for the named control while waiting").await?;
    Ok(!matches!(match_selector(selector, &elements), SelectorMatch::None))
}

/// The page's elements as a selector scan perceives them now (`doing` names the step in a
/// failure).
async fn scan(run: &Run<'_>, lease: &Lease, doing: &str) -> Step<Vec<PerceivedElement>> {
    let input = PerceiveInput { scope: PerceiveScope::All, max_items: SELECTOR_SCAN_ITEMS };
    let perception = run
        .port()
        .perceive(&run.reading(&lease.tab), &input)
        .await
        .map_err(|e| run.fail_on(lease, &e, doing, None))?;
    Ok(perception.elements)
}

/// How a sentence says a condition: as an event (`"Saved" appeared`) and as a state
/// (`"Saved" is on the page`).
struct Clause {
    event: String,
    state: String,
}

fn clause(condition: &WaitCondition, watched: Option<&Watched>) -> Clause {
    let quoted = |text: &str| match bound_visible(text, ECHO_CHARS) {
        Some(text) => format!("\"{text}\""),
        None => "the text".to_owned(),
    };
    let target = || match watched {
        Some(Watched::Element { phrase, .. } | Watched::Control { phrase, .. }) => phrase.clone(),
        Some(Watched::Selector(selector)) => selector_phrase(selector),
        None => match condition {
            WaitCondition::SelectorPresent(selector) => selector_phrase(selector),
            _ => "the target".to_owned(),
        },
    };
    let (event, state) = match condition {
        WaitCondition::LoadReady => {
            ("the page finished loading".to_owned(), "the page is fully loaded".to_owned())
        }
        WaitCondition::UrlContains(value) => {
            (format!("the URL contained {}", quoted(value)), format!("the URL contains {}", quoted(value)))
        }
        WaitCondition::TextPresent(text) => {
            (format!("{} appeared", quoted(text)), format!("{} is on the page", quoted(text)))
        }
        WaitCondition::TextAbsent(text) => {
            (format!("{} disappeared", quoted(text)), format!("{} is not on the page", quoted(text)))
        }
        WaitCondition::TargetPresent(_) | WaitCondition::SelectorPresent(_) => {
            (format!("{} appeared", target()), format!("{} is present", target()))
        }
        WaitCondition::TargetAbsent(_) => {
            (format!("{} disappeared", target()), format!("{} is gone", target()))
        }
        WaitCondition::Duration { ms } => (format!("{ms} ms passed"), format!("{ms} ms passed")),
        WaitCondition::ValueEquals { .. } => (
            format!("{} held the expected value", target()),
            format!("{} holds the expected value", target()),
        ),
        WaitCondition::Checked { checked: true, .. } => {
            (format!("{} was checked", target()), format!("{} is checked", target()))
        }
        WaitCondition::Checked { checked: false, .. } => {
            (format!("{} was unchecked", target()), format!("{} is not checked", target()))
        }
        WaitCondition::TitleContains(value) => (
            format!("the title contained {}", quoted(value)),
            format!("the title contains {}", quoted(value)),
        ),
        WaitCondition::UrlMatches(glob) => (
            format!("the URL matched {}", quoted(glob.pattern())),
            format!("the URL matches {}", quoted(glob.pattern())),
        ),
        WaitCondition::CountAtLeast { selector, count } => (
            format!("{count} or more controls matched {}", selector_phrase(selector)),
            format!("{count} or more controls match {}", selector_phrase(selector)),
        ),
    };
    Clause { event, state }
}

/// `a button called "Save"`: the caller's selector, its name bounded for echo.
fn selector_phrase(selector: &Selector) -> String {
    let noun = selector.role.map_or("control", |role| role.noun());
    let name = normalize_name(&selector.name).and_then(|n| bound_visible(&n, ECHO_CHARS)).unwrap_or_default();
    format!("{} {noun} called \"{name}\"", crate::language::indefinite_article(noun))
}
