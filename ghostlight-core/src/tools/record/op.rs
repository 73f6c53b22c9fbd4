//! `browser_record`: a short memory-only GIF of browser work, owned by the browser side.
//!
//! * `start` is tab-bound (lease, observe, authorize the page) and registers a `rec_…`
//!   handle, remembering the tab it records.
//! * `status`, `stop` and `discard` are recording bookkeeping: not tab-bound, no capability.
//! * `save` is tab-bound on the recorded tab when it is still open (a replay attached to a
//!   file input needs that tab; a closed tab still lets a client or download save run under
//!   the static authorization).
//! * An omitted `recording` resolves to the workspace's only recording; none or several
//!   refuse the call.
//! * A save after retention expired (the browser answers `InvalidInput`, or reports the
//!   recording erased) is a refusal (`retention_expired`), never an empty success.
//! * The workspace remembers how a recording ended (discarded, expired): a later call naming
//!   it says so (`recording_discarded` / `retention_expired` for stop and save, a plain report
//!   for status and a repeated discard), and an omitted `recording` with none left names the
//!   one that ended last.
//!
//! Repeat-safety: `start` is not (it starts another recording); `status` is a read; `stop`
//! is (a stopped recording stays stopped); `discard` is destructive but repeat-safe (the
//! frames are gone either way; a second discard says it was already discarded, and changes
//! nothing); a client save is (it returns the same replay again), a download or
//! attach save is not (each is a real effect in the browser).
//!
//! The GIF travels as an `image/gif` attachment beside the envelope, never in facts.

use super::facts;
use crate::handles::Handle;
use crate::port::{
    PortError, PortErrorKind, RecordCommand, RecordDelivery, RecordReport, RecordingRef, RecordingState,
};
use crate::tools::record::{Delivery, RecordAction, RecordRequest};

use crate::authority::ConfirmAction;
use crate::operation::outcome::{Attachment, Outcome};
use crate::operation::run::{Asking, Run, Step, host_of};
use crate::operation::workspace::RecordingEnd;

/// The next step when there is no recording to act on.
const START_ONE: &str = "Call browser_record with action \"start\" to start a recording.";
/// The next step after starting.
const THEN_SAVE: &str = "Do the browser work, then call browser_record with action \"save\".";

pub(crate) async fn run(run: &Run<'_>, request: &RecordRequest) -> Outcome {
    let result = match &request.action {
        RecordAction::Start { tab } => start(run, tab.as_ref()).await,
        RecordAction::Status { recording } => status(run, recording.as_ref()).await,
        RecordAction::Stop { recording } => stop(run, recording.as_ref()).await,
        RecordAction::Discard { recording } => discard(run, recording.as_ref()).await,
        RecordAction::Save { recording, delivery } => save(run, recording.as_ref(), delivery).await,
    };
    result.unwrap_or_else(|outcome| outcome)
}

async fn start(run: &Run<'_>, tab: Option<&Handle>) -> Step<Outcome> {
    let held = run.workspace.recordings().len();
    let limit = run.shared.limits.recordings;
    if held >= limit {
        return Err(Outcome::failed(
            "recording_limit",
            format!("This session already holds {held} recordings, its limit, so none was started."),
        )
        .fact(facts::RECORDING_COUNT, held)
        .fact(facts::LIMIT, limit)
        .next("Save or discard a recording with browser_record, then start again."));
    }
    let (lease, page) = run.enter(tab).await?;
    let host = host_of(&page.state.url);
    run.dispatching();
    let report = run
        .port()
        .record(&RecordCommand::Start(lease.tab.clone(), run.gate()))
        .await
        .map_err(|e| run.fail_on(&lease, &e, &format!("record {host}"), None))?;
    let handle = run.workspace.add_recording(report.recording.clone());
    run.workspace.set_recording_tab(&handle, lease.handle());
    let limit = match report.capture_deadline_ms {
        Some(ms) => format!("; capture stops on its own after {} seconds", seconds(ms)),
        None => String::new(),
    };
    let outcome = Outcome::applied(format!("Started recording {host} as {handle}{limit}."), false)
        .with_readiness(page.state.readiness)
        .fact(facts::HOST, host)
        .next(THEN_SAVE);
    Ok(facts(outcome, &handle, Some(lease.handle()), &report, None))
}

async fn status(run: &Run<'_>, recording: Option<&Handle>) -> Step<Outcome> {
    if let Some((handle, end)) = ended(run, recording) {
        let summary = match end {
            RecordingEnd::Discarded => format!("{handle} was discarded; nothing is left to save."),
            RecordingEnd::Expired => {
                format!("{handle} has expired: the browser erased its frames when retention ran out.")
            }
        };
        return Ok(end_facts(Outcome::read(summary), &handle, end).next(START_ONE));
    }
    let (handle, reference) = resolve(run, recording)?;
    let tab = run.workspace.recording_tab(&handle);
    let report = match run.port().record(&RecordCommand::Status(reference)).await {
        Ok(report) => report,
        Err(error) if error.kind() == PortErrorKind::InvalidInput => {
            run.workspace.end_recording(&handle, RecordingEnd::Expired);
            let summary =
                format!("{handle} has expired: the browser erased its frames when retention ran out.");
            return Ok(end_facts(Outcome::read(summary), &handle, RecordingEnd::Expired).next(START_ONE));
        }
        Err(error) => return Err(failure(run, &error, "report on the recording", &handle)),
    };
    let summary = match report.state {
        RecordingState::Recording => {
            let limit = report
                .capture_deadline_ms
                .map(|ms| format!("; capture stops on its own in {} seconds", seconds(ms)))
                .unwrap_or_default();
            format!("{handle} is recording{limit}.")
        }
        RecordingState::Stopped => {
            let kept = report
                .retention_deadline_ms
                .map(|ms| format!(", kept for another {} seconds", seconds(ms)))
                .unwrap_or_default();
            format!("{handle} is stopped with a {}-second replay{kept}.", seconds(report.duration_ms))
        }
        RecordingState::Discarded => format!("{handle} has been discarded; nothing is left to save."),
    };
    Ok(facts(Outcome::read(summary), &handle, tab.as_ref(), &report, None))
}

async fn stop(run: &Run<'_>, recording: Option<&Handle>) -> Step<Outcome> {
    if let Some((handle, end)) = ended(run, recording) {
        return Err(gone(&handle, end, "stopped"));
    }
    let (handle, reference) = resolve(run, recording)?;
    let tab = run.workspace.recording_tab(&handle);
    run.dispatching();
    let report = run.port().record(&RecordCommand::Stop(reference)).await.map_err(|error| {
        if error.kind() == PortErrorKind::InvalidInput {
            expired(run, &handle, "stopped")
        } else {
            failure(run, &error, "stop the recording", &handle)
        }
    })?;
    if report.state == RecordingState::Discarded {
        return Err(expired(run, &handle, "stopped"));
    }
    let kept = report
        .retention_deadline_ms
        .map(|ms| format!(", kept for {} seconds", seconds(ms)))
        .unwrap_or_default();
    let summary = format!("Stopped {handle}: a {}-second replay{kept}.", seconds(report.duration_ms));
    let outcome = Outcome::applied(summary, true)
        .next("Call browser_record with action \"save\" to get the replay, or \"discard\" to erase it.");
    Ok(facts(outcome, &handle, tab.as_ref(), &report, None))
}

async fn discard(run: &Run<'_>, recording: Option<&Handle>) -> Step<Outcome> {
    if let Some((handle, end)) = ended(run, recording) {
        // The frames are gone either way: a repeated discard changes nothing.
        let summary = match end {
            RecordingEnd::Discarded => format!("{handle} was already discarded; its frames are gone."),
            RecordingEnd::Expired => {
                format!("{handle} had already expired; the browser erased its frames when retention ran out.")
            }
        };
        return Ok(end_facts(Outcome::read(summary), &handle, end));
    }
    let (handle, reference) = resolve(run, recording)?;
    let tab = run.workspace.recording_tab(&handle);
    run.dispatching();
    let report = match run.port().record(&RecordCommand::Discard(reference)).await {
        Ok(report) => Some(report),
        // Already erased by retention: the result the caller asked for.
        Err(error) if error.kind() == PortErrorKind::InvalidInput => None,
        Err(error) => return Err(failure(run, &error, "discard the recording", &handle)),
    };
    run.workspace.end_recording(&handle, RecordingEnd::Discarded);
    let outcome = Outcome::applied(format!("Discarded {handle}; its frames are erased."), true);
    Ok(match report {
        Some(report) => facts(outcome, &handle, tab.as_ref(), &report, None),
        None => {
            let mut outcome = outcome.fact(facts::RECORDING, handle.as_str()).fact(facts::STATE, "discarded");
            if let Some(tab) = &tab {
                outcome = outcome.fact(facts::TAB, tab.as_str());
            }
            outcome
        }
    })
}

async fn save(run: &Run<'_>, recording: Option<&Handle>, delivery: &Delivery) -> Step<Outcome> {
    if let Some((handle, end)) = ended(run, recording) {
        return Err(gone(&handle, end, "saved"));
    }
    let (handle, reference) = resolve(run, recording)?;
    let recorded = run.workspace.recording_tab(&handle);
    // The recorded tab, when it is still open, is the page this save is authorized against;
    // an attach needs a tab (the recorded one, else the default).
    let open = recorded.as_ref().filter(|slot| run.workspace.slot(slot).and_then(|s| s.tab()).is_some());
    let entered = match (open, delivery) {
        (Some(slot), _) => Some(run.enter(Some(slot)).await?),
        (None, Delivery::Attach(_)) => Some(run.enter(None).await?),
        (None, _) => None,
    };
    let mut attach_doing = String::new();
    let (port_delivery, place, tab) = match (delivery, &entered) {
        (Delivery::Client, _) => {
            (RecordDelivery::Client, "returned it to the client".to_owned(), recorded.clone())
        }
        (Delivery::Download, _) => {
            (RecordDelivery::Download, "the browser saved it as a download".to_owned(), recorded.clone())
        }
        (Delivery::Attach(target), Some((lease, page))) => {
            let resolved = run.target(lease, page, target).await?;
            run.preflight(lease, page, resolved.credential, resolved.handle.as_ref())?;
            let input = match resolved.name.as_deref().and_then(crate::language::normalize_name) {
                Some(name) if run.preserve_names() => format!("the \"{name}\" file input"),
                _ => "a file input".to_owned(),
            };
            let place = format!("attached it to {input} on {}", host_of(&page.state.url));
            let phrase = run.phrase(resolved.role, resolved.name.as_deref());
            attach_doing = format!("attach the replay to {phrase} (only a file input takes one)");
            (RecordDelivery::Attach(lease.tab.clone(), resolved.element), place, Some(lease.handle().clone()))
        }
        // `entered` is always set for an attach above.
        (Delivery::Attach(_), None) => {
            return Err(Outcome::failed("no_tab", "No controlled tab is open to attach the replay in."));
        }
    };
    let delivered = match delivery {
        Delivery::Client => "client",
        Delivery::Download => "download",
        Delivery::Attach(_) => "attach",
    };
    // A save that leaves the browser for a file input uploads; one saved as a download
    // downloads.
    let action = match delivery {
        Delivery::Client => None,
        Delivery::Download => Some(ConfirmAction::Download),
        Delivery::Attach(_) => Some(ConfirmAction::Upload),
    };
    if let Some(action) = action {
        let element = match &port_delivery {
            RecordDelivery::Attach(_, element) => Some(element),
            _ => None,
        };
        let asking = match &entered {
            Some((lease, page)) => Asking {
                host: host_of(&page.state.url),
                tab: Some((lease, page.generation)),
                control: None,
                element,
            },
            None => Asking { host: "the browser".to_owned(), tab: None, control: None, element },
        };
        run.confirm(action, asking).await?;
    }
    run.dispatching();
    let report =
        run.port().record(&RecordCommand::Save(reference, port_delivery)).await.map_err(|error| {
            if error.kind() == PortErrorKind::InvalidInput {
                expired(run, &handle, "saved")
            } else if attach_doing.is_empty() {
                failure(run, &error, "save the replay", &handle)
            } else {
                failure(run, &error, &attach_doing, &handle)
            }
        })?;
    if report.state == RecordingState::Discarded {
        return Err(expired(run, &handle, "saved"));
    }
    let gif = match delivery {
        Delivery::Client => Some(report.gif.clone().ok_or_else(|| {
            Outcome::failed("browser_error", format!("The browser returned no replay for {handle}."))
                .fact(facts::RECORDING, handle.as_str())
        })?),
        Delivery::Download | Delivery::Attach(_) => None,
    };
    let mut summary = format!("Saved a {}-second replay and {place}.", seconds(report.duration_ms));
    if report.skipped_frames > 0 {
        summary = format!("{} It has no frames of the time the tab was outside authority.", summary);
    }
    // Returning the same replay again is harmless; a download or attach is an effect each time.
    let mut outcome = Outcome::applied(summary, matches!(delivery, Delivery::Client));
    if let Some((_, page)) = &entered {
        outcome = outcome.with_readiness(page.state.readiness).fact(facts::HOST, host_of(&page.state.url));
    }
    if let Some(bytes) = gif {
        outcome = outcome.attach(Attachment { mime_type: "image/gif", bytes });
    }
    Ok(facts(outcome, &handle, tab.as_ref(), &report, Some(delivered)))
}

/// The recording named, or the workspace's only one.
fn resolve(run: &Run<'_>, recording: Option<&Handle>) -> Step<(Handle, RecordingRef)> {
    if let Some(handle) = recording {
        let reference = run.workspace.recording(handle).ok_or_else(|| {
            Outcome::failed("unknown_recording", format!("{handle} is not a recording of this session."))
                .fact(facts::RECORDING, handle.as_str())
                .next(START_ONE)
        })?;
        return Ok((handle.clone(), reference));
    }
    let mut all = run.workspace.recordings();
    all.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    match all.len() {
        0 => Err(match run.workspace.last_ended_recording() {
            Some((handle, end)) => {
                let how = match end {
                    RecordingEnd::Discarded => "was discarded",
                    RecordingEnd::Expired => "expired when retention ran out",
                };
                end_facts(
                    Outcome::failed(
                        "no_recording",
                        format!("This session has no recording left: {handle} {how}."),
                    ),
                    &handle,
                    end,
                )
            }
            None => Outcome::failed("no_recording", "This session has no recording."),
        }
        .next(START_ONE)),
        1 => Ok(all.remove(0)),
        n => Err(Outcome::failed(
            "ambiguous_recording",
            format!("This session has {n} recordings, so name one with recording."),
        )
        .fact(facts::RECORDING_COUNT, n)
        .fact(facts::RECORDINGS, all.iter().map(|(h, _)| h.as_str()))),
    }
}

/// The refusal for a recording the browser says is gone (its retention ran out): remembered
/// as expired.
fn expired(run: &Run<'_>, handle: &Handle, done: &str) -> Outcome {
    run.workspace.end_recording(handle, RecordingEnd::Expired);
    gone(handle, RecordingEnd::Expired, done)
}

/// The named recording, when it is one of this session that already ended.
fn ended(run: &Run<'_>, recording: Option<&Handle>) -> Option<(Handle, RecordingEnd)> {
    let handle = recording?;
    run.workspace.recording_end(handle).map(|end| (handle.clone(), end))
}

/// The refusal to act on a recording whose frames are gone, saying how they went.
fn gone(handle: &Handle, end: RecordingEnd, done: &str) -> Outcome {
    let outcome = match end {
        RecordingEnd::Discarded => Outcome::failed(
            "recording_discarded",
            format!("{handle} was discarded, so it can no longer be {done}."),
        ),
        RecordingEnd::Expired => Outcome::failed(
            "retention_expired",
            format!(
                "{handle} can no longer be {done}: the browser erased its frames when retention ran out."
            ),
        ),
    };
    end_facts(outcome, handle, end).next(START_ONE)
}

/// The facts of a recording that ended.
fn end_facts(outcome: Outcome, handle: &Handle, end: RecordingEnd) -> Outcome {
    let state = match end {
        RecordingEnd::Discarded => "discarded",
        RecordingEnd::Expired => "expired",
    };
    outcome.fact(facts::RECORDING, handle.as_str()).fact(facts::STATE, state)
}

/// A port failure of a recording command.
fn failure(run: &Run<'_>, error: &PortError, doing: &str, handle: &Handle) -> Outcome {
    run.fail(error, doing, None).fact(facts::RECORDING, handle.as_str())
}

/// The recording facts every report carries.
fn facts(
    mut outcome: Outcome,
    handle: &Handle,
    tab: Option<&Handle>,
    report: &RecordReport,
    delivery: Option<&str>,
) -> Outcome {
    if let Some(tab) = tab {
        outcome = outcome.fact(facts::TAB, tab.as_str());
    }
    outcome
        .fact(facts::RECORDING, handle.as_str())
        .fact(facts::STATE, report.state.as_str())
        .fact(facts::FRAMES, report.frames)
        .fact(facts::CAPTURED_FRAMES, report.captured_frames)
        .fact(facts::SKIPPED_FRAMES, report.skipped_frames)
        .fact(facts::BYTES, report.bytes)
        .fact(facts::DURATION_MS, report.duration_ms)
        .fact(facts::WIDTH, report.width)
        .fact(facts::HEIGHT, report.height)
        .fact(facts::CAPTURE_DEADLINE_MS, report.capture_deadline_ms)
        .fact(facts::RETENTION_DEADLINE_MS, report.retention_deadline_ms)
        .fact(facts::STOP_REASON, report.stop_reason.as_deref().and_then(stop_reason))
        .fact(facts::DELIVERY, delivery)
}

/// A stop reason as a bounded token (the adapter's words are not echoed beyond this).
fn stop_reason(reason: &str) -> Option<&str> {
    let token = reason.len() <= STOP_REASON_CHARS
        && !reason.is_empty()
        && reason.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    token.then_some(reason)
}

/// Longest stop-reason token echoed.
const STOP_REASON_CHARS: usize = 32;

/// Milliseconds as seconds for a sentence: `4.2`, `60`.
fn seconds(ms: u64) -> String {
    let tenths = ms.saturating_add(50) / 100;
    if tenths.is_multiple_of(10) {
        format!("{}", tenths / 10)
    } else {
        format!("{}.{}", tenths / 10, tenths % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_read_naturally() {
        assert_eq!(seconds(4_200), "4.2");
        assert_eq!(seconds(4_249), "4.2");
        assert_eq!(seconds(4_250), "4.3");
        assert_eq!(seconds(60_000), "60");
        assert_eq!(seconds(999), "1");
        assert_eq!(seconds(0), "0");
    }

    #[test]
    fn stop_reasons_are_tokens() {
        assert_eq!(stop_reason("frame_limit"), Some("frame_limit"));
        assert_eq!(stop_reason("Frame limit!"), None);
        assert_eq!(stop_reason(""), None);
    }
}
