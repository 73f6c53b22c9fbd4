//! Recordings over the extension (`browser_record`).
//!
//! The extension owns each recording: its identity (an id with a per-start random prefix, so
//! an id from before a background restart is unknown rather than someone else's), its frames,
//! bounds, capture and retention deadlines, stop, erase and the GIF encode (`recording.js`).
//! Frames never leave the browser; only a client save carries the GIF out, and nothing is
//! written to extension storage, logs or disk.
//!
//! The server holds two things only: the [`Gate`] of the call that started each recording
//! (a predicate over URLs, which cannot travel), and the pace. Every
//! [`interval_ms`](RecordBounds::interval_ms) it asks the extension what the recorded tab shows
//! (`record_target`: its URL and its frames' URLs, while it is the active tab of its window),
//! judges that with the gate, and tells the extension to capture a frame of that page or to
//! count it skipped (`record_frame`); the extension captures only when the tab still shows
//! the judged URL before and after the capture. A tab that is not the active tab of its
//! window is not captured and not counted (the replay shows the last kept frame longer). A
//! page whose frame documents could not be read, or with a frame the gate refuses, is
//! skipped (frames are not blanked yet). The bounds are [`RECORD_BOUNDS`], sent with the start.
//!
//! `Stop` is one more such tick that also stops; `Save` stops the same way, then asks the
//! extension to encode (once) and deliver: to the client, as a download, or to a file input
//! (the extension runs the attach script with the GIF it holds: the replay never leaves the
//! browser, see [`attach_replay`]). A recording the extension does not know (never
//! started, discarded, past retention, or lost when the background restarted) answers
//! [`PortErrorKind::InvalidInput`] (core: `retention_expired`).

use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use base64::Engine as _;
use ghostlight_core::port::{
    ElementRef, Gate, PortEffect, PortError, PortErrorKind, PortResult, RECORD_BOUNDS, RecordBounds,
    RecordCommand, RecordDelivery, RecordReport, RecordingRef, RecordingState, TabRef,
};
use url::Url;

use crate::browser::{ExtensionBrowser, call_on};
use crate::convert::all_admitted;
use crate::input::{attach_replay as attach_held, random_token};
use crate::listener::Slot;
use crate::protocol::{
    Op, WireDelivery, WireRecordBounds, WireRecordReport, WireRecordTarget, WireRecordingState,
};

/// The longest wait for an answer that involves no capture.
const OP_WAIT: Duration = Duration::from_secs(10);
/// The longest wait for one frame (capture, decode, downscale, quantize, compress).
const FRAME_WAIT: Duration = Duration::from_secs(15);
/// The longest wait for a save (the encode writes the already compressed frames out).
const SAVE_WAIT: Duration = Duration::from_secs(60);
/// The longest wait for the attach script of a save to a file input.
const ATTACH_WAIT: Duration = Duration::from_secs(15);
/// Gates remembered at most (recordings the extension erased on its own leave theirs behind
/// until this many newer ones push them out).
const GATES_KEPT: usize = 16;

/// The gates of the recordings this server started, by the extension's recording id.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    gates: Mutex<Vec<(String, Gate)>>,
}

impl Recorder {
    fn remember(&self, recording: &str, gate: &Gate) {
        let mut gates = self.gates.lock().unwrap_or_else(PoisonError::into_inner);
        gates.retain(|(id, _)| id != recording);
        if gates.len() >= GATES_KEPT {
            gates.remove(0);
        }
        gates.push((recording.to_owned(), gate.clone()));
    }

    fn gate(&self, recording: &str) -> Option<Gate> {
        let gates = self.gates.lock().unwrap_or_else(PoisonError::into_inner);
        gates.iter().find(|(id, _)| id == recording).map(|(_, gate)| gate.clone())
    }

    fn forget(&self, recording: &str) {
        self.gates.lock().unwrap_or_else(PoisonError::into_inner).retain(|(id, _)| id != recording);
    }
}

/// The bounds as the start operation carries them.
fn wire_bounds(b: &RecordBounds) -> WireRecordBounds {
    let wide = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    WireRecordBounds {
        interval_ms: b.interval_ms,
        max_frames: wide(b.max_frames),
        max_frame_bytes: b.max_frame_bytes,
        time_limit_ms: b.time_limit_ms,
        retention_ms: b.retention_ms,
        max_recordings: wide(b.max_recordings),
        max_frame_width: b.max_frame_width,
        max_frame_height: b.max_frame_height,
        max_gif_bytes: wide(b.max_gif_bytes),
        min_delay_cs: b.min_delay_cs,
    }
}

/// Run a recording command over the extension connected to `slot` (`b`'s).
pub(crate) async fn record(
    b: &ExtensionBrowser,
    slot: &Arc<Slot>,
    recorder: &Recorder,
    command: &RecordCommand,
) -> PortResult<RecordReport> {
    let answer = match command {
        RecordCommand::Start(tab, gate) => start(slot, recorder, tab, gate).await,
        RecordCommand::Status(recording) => {
            call_on(slot, Op::RecordStatus { recording: recording.as_str().to_owned() }, OP_WAIT).await
        }
        RecordCommand::Stop(recording) => stop(slot, recorder, recording).await,
        RecordCommand::Save(recording, delivery) => {
            let delivery = match delivery {
                RecordDelivery::Client => WireDelivery::Client,
                RecordDelivery::Download => WireDelivery::Download,
                RecordDelivery::Attach(tab, element) => {
                    return report(attach_replay(b, slot, recorder, recording, tab, element).await?);
                }
            };
            stop(slot, recorder, recording).await?;
            let op = Op::RecordSave { recording: recording.as_str().to_owned(), delivery };
            call_on(slot, op, SAVE_WAIT).await
        }
        RecordCommand::Discard(recording) => {
            let op = Op::RecordDiscard { recording: recording.as_str().to_owned() };
            let answer = call_on(slot, op, OP_WAIT).await;
            recorder.forget(recording.as_str());
            answer
        }
    };
    if let (Err(error), Some(recording)) = (&answer, command_recording(command))
        && error.kind() == PortErrorKind::InvalidInput
    {
        recorder.forget(recording.as_str());
    }
    report(answer?)
}

/// The recording a command names (none for a start).
fn command_recording(command: &RecordCommand) -> Option<&RecordingRef> {
    match command {
        RecordCommand::Start(..) => None,
        RecordCommand::Status(r)
        | RecordCommand::Stop(r)
        | RecordCommand::Save(r, _)
        | RecordCommand::Discard(r) => Some(r),
    }
}

/// `Save` to a file input: stopped as for every save, then the extension encodes (once) and
/// holds the replay under a fresh key (`record_hold`), and `attach_replay.js` makes it the
/// input's only file, in the input's document ([`attach_held`]): the replay never leaves the
/// browser. Named `ghostlight-replay-N.gif`, as the WebDriver adapter names it; an element
/// that is not a file input answers [`PortErrorKind::Other`], as there. A failure of the
/// delivery itself is never [`PortErrorKind::InvalidInput`], which core reads as an expired
/// recording.
async fn attach_replay(
    b: &ExtensionBrowser,
    slot: &Slot,
    recorder: &Recorder,
    recording: &RecordingRef,
    tab: &TabRef,
    element: &ElementRef,
) -> PortResult<WireRecordReport> {
    stop(slot, recorder, recording).await?;
    let id = slot.tab_id(tab).map_err(not_retention)?;
    let key = random_token();
    let op = Op::RecordHold { recording: recording.as_str().to_owned(), key: key.clone() };
    let report: WireRecordReport = call_on(slot, op, SAVE_WAIT).await?;
    let name = replay_name(recording.as_str());
    let attached = attach_held(b, id, element, key, &name, ATTACH_WAIT).await.map_err(not_retention)?;
    if !attached {
        return Err(PortError::new(PortErrorKind::Other, "the attach target is not a file input"));
    }
    Ok(report)
}

/// The file name of the replay of recording `id` (`recording-<start>-<n>`):
/// `ghostlight-replay-<n>.gif`.
fn replay_name(id: &str) -> String {
    let number = id.rsplit('-').next().filter(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()));
    format!("ghostlight-replay-{}.gif", number.unwrap_or("1"))
}

/// A delivery's error as a save's: never [`PortErrorKind::InvalidInput`] (core reads that as
/// an expired recording), the effect kept.
fn not_retention(error: PortError) -> PortError {
    if error.kind() != PortErrorKind::InvalidInput {
        return error;
    }
    let other = PortError::new(PortErrorKind::Other, "the browser refused the replay delivery");
    if error.effect() == PortEffect::Unknown { other.effect_unknown() } else { other }
}

/// `Start`: an empty recording in the extension, its first frame, then the pace.
async fn start(
    slot: &Arc<Slot>,
    recorder: &Recorder,
    tab: &TabRef,
    gate: &Gate,
) -> PortResult<WireRecordReport> {
    let op = Op::RecordStart { tab: slot.tab_id(tab)?, bounds: wire_bounds(&RECORD_BOUNDS) };
    let started: WireRecordReport = call_on(slot, op, OP_WAIT).await?;
    let id = started.recording.clone();
    recorder.remember(&id, gate);
    // A first frame that fails (a slow page) leaves it to the next tick.
    let first = tick(slot, &id, Some(gate), false).await.unwrap_or(started);
    if first.state == WireRecordingState::Recording {
        tokio::spawn(pace(Arc::downgrade(slot), id, gate.clone()));
    }
    Ok(first)
}

/// `Stop`: a final frame, then stopped (a stopped recording answers its report).
async fn stop(slot: &Slot, recorder: &Recorder, recording: &RecordingRef) -> PortResult<WireRecordReport> {
    let gate = recorder.gate(recording.as_str());
    tick(slot, recording.as_str(), gate.as_ref(), true).await
}

/// One frame of `recording`: what the tab shows, judged by `gate` (no gate: nothing is
/// captured), then captured or counted skipped; stopped after it when `stop`.
async fn tick(slot: &Slot, recording: &str, gate: Option<&Gate>, stop: bool) -> PortResult<WireRecordReport> {
    let target: WireRecordTarget =
        call_on(slot, Op::RecordTarget { recording: recording.to_owned() }, OP_WAIT).await?;
    let (url, admitted) = match (gate, target.recording, target.url) {
        (Some(gate), true, Some(url)) => {
            let admitted = Url::parse(&url).is_ok_and(|u| gate.admits(&u))
                && target.frames.as_deref().is_some_and(|frames| all_admitted(gate, frames));
            (Some(url), admitted)
        }
        _ => (None, false),
    };
    let op = Op::RecordFrame { recording: recording.to_owned(), url, admitted, stop };
    call_on(slot, op, FRAME_WAIT).await
}

/// The pace of `recording`: a tick every interval until it stops, the extension forgets it,
/// the time limit (plus a margin) passes, or the browser port is dropped. A tick that fails
/// otherwise (a slow page, a reconnect) is tried again at the next interval.
async fn pace(slot: Weak<Slot>, recording: String, gate: Gate) {
    let interval = Duration::from_millis(RECORD_BOUNDS.interval_ms);
    let until = tokio::time::Instant::now() + Duration::from_millis(RECORD_BOUNDS.time_limit_ms) + OP_WAIT;
    while tokio::time::Instant::now() < until {
        tokio::time::sleep(interval).await;
        let Some(slot) = slot.upgrade() else { return };
        match tick(&slot, &recording, Some(&gate), false).await {
            Ok(report) if report.state != WireRecordingState::Recording => return,
            Err(error) if error.kind() == PortErrorKind::InvalidInput => return,
            Ok(_) | Err(_) => {}
        }
    }
}

/// A wire report as the port's.
fn report(wire: WireRecordReport) -> PortResult<RecordReport> {
    let gif = match wire.gif {
        Some(data) => {
            Some(base64::engine::general_purpose::STANDARD.decode(data.as_bytes()).map_err(|_| {
                PortError::new(PortErrorKind::Other, "the extension's replay is not base64").effect_unknown()
            })?)
        }
        None => None,
    };
    Ok(RecordReport {
        recording: RecordingRef::new(wire.recording),
        state: match wire.state {
            WireRecordingState::Recording => RecordingState::Recording,
            WireRecordingState::Stopped => RecordingState::Stopped,
            WireRecordingState::Discarded => RecordingState::Discarded,
        },
        frames: wire.frames,
        captured_frames: wire.captured_frames,
        skipped_frames: wire.skipped_frames,
        bytes: wire.bytes,
        duration_ms: wire.duration_ms,
        width: wire.width,
        height: wire.height,
        capture_deadline_ms: wire.capture_deadline_ms,
        retention_deadline_ms: wire.retention_deadline_ms,
        stop_reason: wire.stop_reason,
        gif,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::FromExtension;

    #[test]
    fn a_saved_report_decodes_with_its_gif() {
        let answer: FromExtension = serde_json::from_value(json!({
            "type": "result", "id": 9, "value": {
                "recording": "recording-ab12-1", "state": "stopped", "frames": 3, "captured_frames": 5,
                "skipped_frames": 1, "bytes": 6, "duration_ms": 1700, "width": 640, "height": 357,
                "capture_deadline_ms": null, "retention_deadline_ms": 599_000,
                "stop_reason": "requested", "gif": "R0lGODlh"
            }
        }))
        .expect("a result");
        let FromExtension::Result { value, .. } = answer else { panic!("a result") };
        let wire: WireRecordReport = serde_json::from_value(value).expect("a report");
        let report = report(wire).expect("converts");
        assert_eq!(report.recording.as_str(), "recording-ab12-1");
        assert_eq!(report.state, RecordingState::Stopped);
        assert_eq!((report.frames, report.captured_frames, report.skipped_frames), (3, 5, 1));
        assert_eq!((report.width, report.height, report.duration_ms), (640, 357, 1700));
        assert_eq!((report.capture_deadline_ms, report.retention_deadline_ms), (None, Some(599_000)));
        assert_eq!(report.stop_reason.as_deref(), Some("requested"));
        assert_eq!(report.gif.as_deref(), Some(&b"GIF89a"[..]));
    }

    #[test]
    fn a_recording_report_without_a_gif_and_a_bad_gif() {
        let value = json!({
            "recording": "r", "state": "recording", "frames": 0, "captured_frames": 0,
            "skipped_frames": 2, "bytes": 0, "duration_ms": 0, "width": 0, "height": 0,
            "capture_deadline_ms": 59_500
        });
        let wire: WireRecordReport = serde_json::from_value(value.clone()).expect("a report");
        let report = report(wire.clone()).expect("converts");
        assert_eq!((report.state, report.gif, report.stop_reason), (RecordingState::Recording, None, None));
        assert_eq!(report.capture_deadline_ms, Some(59_500));
        let bad = report_of(WireRecordReport { gif: Some("*".into()), ..wire });
        assert_eq!(bad.expect_err("not base64").kind(), PortErrorKind::Other);
    }

    fn report_of(wire: WireRecordReport) -> PortResult<RecordReport> {
        report(wire)
    }

    #[test]
    fn the_start_carries_the_shared_bounds() {
        let op = Op::RecordStart { tab: 4, bounds: wire_bounds(&RECORD_BOUNDS) };
        let value = serde_json::to_value(&op).expect("encodes");
        assert_eq!(value["op"], "record_start");
        assert_eq!(value["args"]["bounds"]["max_frames"], json!(RECORD_BOUNDS.max_frames));
        assert_eq!(value["args"]["bounds"]["interval_ms"], json!(RECORD_BOUNDS.interval_ms));
    }

    #[test]
    fn a_frame_request_carries_the_verdict() {
        let op = Op::RecordFrame { recording: "r".into(), url: None, admitted: false, stop: true };
        let value = serde_json::to_value(&op).expect("encodes");
        assert_eq!(
            value,
            json!({"op": "record_frame", "args": {"recording": "r", "url": null, "admitted": false, "stop": true}})
        );
        let target: WireRecordTarget =
            serde_json::from_value(json!({"recording": true, "url": "http://127.0.0.1/", "frames": null}))
                .expect("a target");
        assert_eq!((target.url.as_deref(), target.frames), (Some("http://127.0.0.1/"), None));
    }

    #[test]
    fn replays_are_named_as_webdriver_names_them_and_gates_are_bounded() {
        assert_eq!(replay_name("recording-ab12-7"), "ghostlight-replay-7.gif");
        assert_eq!(replay_name("odd"), "ghostlight-replay-1.gif");
        let expired = PortError::new(PortErrorKind::InvalidInput, "a malformed reference").effect_unknown();
        let refused = not_retention(expired);
        assert_eq!((refused.kind(), refused.effect()), (PortErrorKind::Other, PortEffect::Unknown));
        let stale = not_retention(PortError::new(PortErrorKind::TargetStale, "gone"));
        assert_eq!(stale.kind(), PortErrorKind::TargetStale);
        let recorder = Recorder::default();
        for i in 0..(GATES_KEPT + 3) {
            recorder.remember(&format!("r{i}"), &Gate::open());
        }
        assert!(recorder.gate("r0").is_none());
        assert!(recorder.gate(&format!("r{}", GATES_KEPT + 2)).is_some());
        recorder.forget(&format!("r{}", GATES_KEPT + 2));
        assert!(recorder.gate(&format!("r{}", GATES_KEPT + 2)).is_none());
    }
}
