//! Recording: viewport frames of one tab, held in memory only, encoded to a GIF in memory.
//!
//! - **Capture.** `Start` takes a first frame at once and spawns a task that takes one every
//!   [`CAPTURE_INTERVAL`]. The session lock serializes WebDriver commands, so the task takes
//!   that lock only for one frame (switch to the tab, viewport screenshot; bounded by
//!   [`SCREENSHOT_TIMEOUT`]) and lets other calls run in between; it holds only weak
//!   references to the browser's session slot and to the recordings, so it ends when either
//!   goes. Off the async threads, each screenshot is decoded, downscaled to at most
//!   `MAX_FRAME_WIDTH`×`MAX_FRAME_HEIGHT`, quantized to 256 colours (NeuQuant at
//!   `GIF_SPEED`, in `codec`) and kept as an LZW-compressed GIF frame: the encode work is spread over
//!   the capture, and a frame takes about what it will take in the GIF. A frame identical to
//!   the one before is counted as captured but not kept: the kept frame simply shows longer.
//! - **Bounds.** Capture stops by itself at [`MAX_FRAMES`] kept frames (`frame_limit`), when
//!   a frame would take the kept frame bytes over [`MAX_FRAME_BYTES`] (`byte_limit`, that
//!   frame dropped), after [`CAPTURE_LIMIT`] (`time_limit`), or when the tab, its session or the
//!   browser is gone (`tab_closed`). `Stop` takes one final frame and stops (`requested`).
//!   At most [`MAX_RECORDINGS`] recordings are held at once.
//! - **Retention.** A stopped recording keeps its frames for [`RETENTION`]; then, or on
//!   `Discard`, they are erased and the recording is forgotten: any later command on it
//!   answers [`PortErrorKind::InvalidInput`] (core reports `retention_expired`).
//! - **Save.** Stops first when still recording, then writes the GIF in memory (`gif` crate;
//!   each frame's delay is the time to the next kept frame, in 1/100 s; the last frame shows
//!   until the stop, at least one interval; `duration_ms` is the sum). The GIF is kept with
//!   the frames, so saving again delivers the same replay. `bytes` reports the GIF's size
//!   after a save, the kept frames' bytes before. Delivery:
//!   - `Client`: the report carries the bytes.
//!   - `Download`: a script in a blank tab of its own (opened for it, no opener, closed right
//!     after) clicks an `<a download>` anchor on a Blob URL of the GIF; the browser saves it to
//!     its own download directory. No page's script ever holds the bytes (the recorded tab may
//!     show another host by now); nothing is written by the adapter.
//!   - `Attach(tab, element)`: a script in the element's frame builds a `File` from the
//!     bytes, makes it the input's only file (a `DataTransfer`'s `FileList` assigned to
//!     `input.files`) and fires `input` and `change` (untrusted events). Not WebDriver's
//!     Send Keys with a temporary file: both engines read such a file lazily, so removing it
//!     right after (as memory-only requires) left Chromium with an empty file and Firefox with
//!     an unreadable one (tried while building this adapter). From memory, nothing touches the disk
//!     and a remote driver (Grid) works the same.
//!
//! Nothing here writes frames or replays to disk, and no frame leaves the process except
//! through a save.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use base64::Engine as _;
use ghostlight_core::port::{
    ElementRef, Gate, PortError, PortErrorKind, PortResult, RECORD_BOUNDS, RecordCommand, RecordDelivery,
    RecordReport, RecordingRef, RecordingState, TabRef,
};
use serde_json::{Value, json};
use tokio::sync::{Mutex as AsyncMutex, Notify};
use tokio::task::JoinHandle;
use url::Url;

use crate::Slot;

mod codec;

use crate::errors::{self, Sent};
use crate::ops::frames;
use crate::session::Session;
use codec::{Frame, Shrunk, encode, quantize};

/// Time between two captured frames.
pub(crate) const CAPTURE_INTERVAL: Duration = Duration::from_millis(RECORD_BOUNDS.interval_ms);
/// Frames kept at most; capture stops when reached.
pub(crate) const MAX_FRAMES: usize = RECORD_BOUNDS.max_frames;
/// Bytes of kept (compressed) frames at most; a frame that would exceed it stops capture.
pub(crate) const MAX_FRAME_BYTES: u64 = RECORD_BOUNDS.max_frame_bytes;
/// How long capture may run.
pub(crate) const CAPTURE_LIMIT: Duration = Duration::from_millis(RECORD_BOUNDS.time_limit_ms);
/// How long a stopped recording keeps its frames.
pub(crate) const RETENTION: Duration = Duration::from_millis(RECORD_BOUNDS.retention_ms);
/// Recordings held at once (recording or stopped).
pub(crate) const MAX_RECORDINGS: usize = RECORD_BOUNDS.max_recordings;
/// How long one frame's screenshot may take.
pub(crate) const SCREENSHOT_TIMEOUT: Duration = Duration::from_secs(5);
/// Shortest frame delay written, in 1/100 s (browsers slow down shorter delays).
const MIN_DELAY_CS: u64 = RECORD_BOUNDS.min_delay_cs as u64;
/// How long the download's Blob URL lives in the page.
const DOWNLOAD_URL_LIFETIME_MS: u64 = 60_000;
/// The script that downloads a replay in the page.
const DOWNLOAD_SCRIPT: &str = ghostlight_page::scripts::DOWNLOAD_REPLAY_BODY;
/// The script that sets a replay as a file input's only file.
const ATTACH_SCRIPT: &str = ghostlight_page::scripts::ATTACH_REPLAY_BODY;
/// Prefix of recording tokens.
const TOKEN_PREFIX: &str = "recording-";

/// Why capture stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StopReason {
    /// `Stop` (or a save while recording).
    Requested,
    /// [`MAX_FRAMES`] kept.
    FrameLimit,
    /// [`CAPTURE_LIMIT`] passed.
    TimeLimit,
    /// [`MAX_FRAME_BYTES`] reached.
    ByteLimit,
    /// The tab, its session or the browser went away.
    TabClosed,
}

impl StopReason {
    /// The report's `stop_reason` token.
    fn as_str(self) -> &'static str {
        match self {
            StopReason::Requested => "requested",
            StopReason::FrameLimit => "frame_limit",
            StopReason::TimeLimit => "time_limit",
            StopReason::ByteLimit => "byte_limit",
            StopReason::TabClosed => "tab_closed",
        }
    }
}

/// Where a recording is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The task captures frames.
    Recording,
    /// `Stop` is taking the final frame.
    Stopping,
    /// Frames frozen until the retention deadline.
    Stopped,
}

/// One recording and everything it holds.
#[derive(Debug)]
struct Recording {
    /// The recorded tab.
    tab: TabRef,
    /// The documents frames may show (the starting call's authority).
    gate: Gate,
    /// Frame captures skipped because the tab showed a page the gate refuses.
    skipped: u32,
    /// The session the tab belongs to.
    session: u64,
    /// The tab's window handle.
    handle: String,
    /// Where it is in its life.
    phase: Phase,
    /// Kept frames, in capture order.
    frames: Vec<Frame>,
    /// Frames captured, kept or not.
    captured: u32,
    /// Bytes of the kept frames.
    frame_bytes: u64,
    /// Frame width (0 before the first frame).
    width: u32,
    /// Frame height (0 before the first frame).
    height: u32,
    /// When `Start` ran.
    started: Instant,
    /// When capture stopped.
    stopped: Option<Instant>,
    /// Why capture stopped.
    stop_reason: Option<StopReason>,
    /// The encoded replay, after the first save.
    gif: Option<Arc<Vec<u8>>>,
    /// Wakes the capture task to end it.
    wake: Arc<Notify>,
    /// The capture task.
    capture: Option<JoinHandle<()>>,
    /// The task that erases the frames at the retention deadline.
    expiry: Option<JoinHandle<()>>,
}

impl Recording {
    /// A recording of window `handle` (tab `tab`, session `session`) that starts now, empty.
    fn new(tab: TabRef, gate: Gate, session: u64, handle: String) -> Self {
        Recording {
            tab,
            gate,
            session,
            handle,
            skipped: 0,
            phase: Phase::Recording,
            frames: Vec::new(),
            captured: 0,
            frame_bytes: 0,
            width: 0,
            height: 0,
            started: Instant::now(),
            stopped: None,
            stop_reason: None,
            gif: None,
            wake: Arc::new(Notify::new()),
            capture: None,
            expiry: None,
        }
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        for task in [self.capture.take(), self.expiry.take()].into_iter().flatten() {
            task.abort();
        }
    }
}

/// The recordings of one browser (they outlive a session restart: a stopped recording can
/// still be saved to the client).
#[derive(Debug, Default)]
struct Book {
    /// The number of the last recording started.
    next: u64,
    /// Recordings held, by number.
    recordings: HashMap<u64, Recording>,
}

/// The recordings of a [`crate::WebDriverBrowser`].
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    /// Shared with the capture and expiry tasks (weakly).
    book: Arc<Mutex<Book>>,
}

/// A stopped and encoded recording, ready for a browser-side delivery.
#[derive(Debug)]
pub(crate) struct Saved {
    /// The report after the save.
    report: RecordReport,
    /// The replay.
    gif: Arc<Vec<u8>>,
    /// The recorded tab (where a download runs).
    tab: TabRef,
    /// The recording's number (names the file).
    number: u64,
}

/// Lock `mutex`, also after a panic elsewhere poisoned it.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The error for a recording that is gone (core: `retention_expired`).
fn expired() -> PortError {
    PortError::new(PortErrorKind::InvalidInput, "the recording is unknown, discarded or past its retention")
}

/// The file name a delivered replay gets.
fn file_name(number: u64) -> String {
    format!("ghostlight-replay-{number}.gif")
}

/// The token of recording `number`.
fn token(number: u64) -> RecordingRef {
    RecordingRef::new(format!("{TOKEN_PREFIX}{number}"))
}

/// The number in a recording token.
fn number_of(recording: &RecordingRef) -> PortResult<u64> {
    recording.as_str().strip_prefix(TOKEN_PREFIX).and_then(|n| n.parse().ok()).ok_or_else(expired)
}

/// `Start`: a first frame now, then a capture task.
pub(crate) async fn start(
    s: &mut Session,
    recorder: &Recorder,
    slot: Weak<AsyncMutex<Slot>>,
    tab: &TabRef,
    gate: &Gate,
) -> PortResult<RecordReport> {
    let handle = s.tab(tab).await?;
    let number = {
        let mut book = lock(&recorder.book);
        if book.recordings.len() >= MAX_RECORDINGS {
            return Err(PortError::new(
                PortErrorKind::Other,
                "the browser already holds the most recordings it keeps; save or discard one first",
            ));
        }
        book.next += 1;
        let number = book.next;
        let recording = Recording::new(tab.clone(), gate.clone(), s.number(), handle.clone());
        book.recordings.insert(number, recording);
        number
    };
    // The first screenshot, while this call holds the session anyway; the task files it
    // (off the session lock). A failure here (a dialog, say) leaves the task to try again.
    let first = match screenshot(s, tab, &handle, gate).await {
        Grab::Png(png, at) => Some((png, at)),
        Grab::Outside => {
            skip(&recorder.book, number);
            None
        }
        Grab::Skipped | Grab::Gone => None,
    };
    let task = tokio::spawn(capture(slot, Arc::downgrade(&recorder.book), number, first));
    let mut book = lock(&recorder.book);
    let recording = book.recordings.get_mut(&number).ok_or_else(expired)?;
    recording.capture = Some(task);
    Ok(report(number, recording, Instant::now()))
}

/// The commands that need no browser session of their own: `Status`, `Stop`, `Discard` and
/// `Save` to the client.
pub(crate) async fn record(
    slot: &AsyncMutex<Slot>,
    recorder: &Recorder,
    command: &RecordCommand,
) -> PortResult<RecordReport> {
    match command {
        RecordCommand::Status(recording) => {
            let number = number_of(recording)?;
            let book = lock(&recorder.book);
            let recording = book.recordings.get(&number).ok_or_else(expired)?;
            Ok(report(number, recording, Instant::now()))
        }
        RecordCommand::Stop(recording) => stop(slot, recorder, number_of(recording)?).await,
        RecordCommand::Discard(recording) => {
            let number = number_of(recording)?;
            let removed = lock(&recorder.book).recordings.remove(&number).ok_or_else(expired)?;
            let mut report = report(number, &removed, Instant::now());
            report.state = RecordingState::Discarded;
            report.frames = 0;
            report.bytes = 0;
            report.capture_deadline_ms = None;
            report.retention_deadline_ms = None;
            Ok(report)
        }
        RecordCommand::Save(recording, delivery) => {
            let saved = save(slot, recorder, recording).await?;
            match delivery {
                RecordDelivery::Client => {
                    let mut report = saved.report;
                    report.gif = Some(saved.gif.as_ref().clone());
                    Ok(report)
                }
                // Browser-side deliveries go through `deliver` with a session.
                RecordDelivery::Download | RecordDelivery::Attach(..) => Err(PortError::new(
                    PortErrorKind::Other,
                    "a browser-side delivery needs the browser session",
                )),
            }
        }
        RecordCommand::Start(..) => {
            Err(PortError::new(PortErrorKind::Other, "starting a recording needs the browser session"))
        }
    }
}

/// `Stop`: take a final frame and stop (nothing when already stopped).
async fn stop(slot: &AsyncMutex<Slot>, recorder: &Recorder, number: u64) -> PortResult<RecordReport> {
    let target = {
        let mut book = lock(&recorder.book);
        let recording = book.recordings.get_mut(&number).ok_or_else(expired)?;
        if recording.phase == Phase::Recording {
            recording.phase = Phase::Stopping;
            recording.wake.notify_one();
            Some((recording.session, recording.tab.clone(), recording.handle.clone(), recording.gate.clone()))
        } else {
            None
        }
    };
    let mut reason = StopReason::Requested;
    if let Some((session, tab, handle, gate)) = target {
        let grab = {
            let mut slot = slot.lock().await;
            match slot.session.as_mut().filter(|s| s.number() == session) {
                Some(s) => screenshot(s, &tab, &handle, &gate).await,
                None => Grab::Gone,
            }
        };
        match grab {
            Grab::Png(png, at) => file(&recorder.book, number, png, at, &[Phase::Stopping]).await,
            Grab::Outside => skip(&recorder.book, number),
            Grab::Skipped => {}
            Grab::Gone => reason = StopReason::TabClosed,
        }
    }
    let mut book = lock(&recorder.book);
    let recording = book.recordings.get_mut(&number).ok_or_else(expired)?;
    // Also completes a stop that was cancelled while it took the final frame.
    if recording.phase == Phase::Stopping {
        freeze(&recorder.book, number, recording, reason);
    }
    Ok(report(number, recording, Instant::now()))
}

/// `Save`: stop when recording, then encode (once) and answer the replay.
pub(crate) async fn save(
    slot: &AsyncMutex<Slot>,
    recorder: &Recorder,
    recording: &RecordingRef,
) -> PortResult<Saved> {
    let number = number_of(recording)?;
    stop(slot, recorder, number).await?;
    let (cached, frames, delays, size, tab) = {
        let book = lock(&recorder.book);
        let recording = book.recordings.get(&number).ok_or_else(expired)?;
        let delays = delays(recording, Instant::now());
        let size = (recording.width, recording.height);
        (recording.gif.clone(), recording.frames.clone(), delays, size, recording.tab.clone())
    };
    let gif = match cached {
        Some(gif) => gif,
        None => {
            if frames.is_empty() {
                return Err(PortError::new(PortErrorKind::Other, "the recording captured no frame"));
            }
            let encoded = tokio::task::spawn_blocking(move || encode(&frames, &delays, size))
                .await
                .map_err(|_| PortError::new(PortErrorKind::Other, "the replay encoder stopped"))??;
            Arc::new(encoded)
        }
    };
    let mut book = lock(&recorder.book);
    let recording = book.recordings.get_mut(&number).ok_or_else(expired)?;
    recording.gif = Some(Arc::clone(&gif));
    Ok(Saved { report: report(number, recording, Instant::now()), gif, tab, number })
}

/// Deliver a saved replay inside the browser: a download in the recording's tab, or an
/// attach to a file input.
pub(crate) async fn deliver(
    s: &mut Session,
    saved: Saved,
    delivery: &RecordDelivery,
) -> PortResult<RecordReport> {
    match delivery {
        RecordDelivery::Client => {
            let mut report = saved.report;
            report.gif = Some(saved.gif.as_ref().clone());
            Ok(report)
        }
        RecordDelivery::Download => {
            download(s, &saved).await.map_err(not_retention)?;
            Ok(saved.report)
        }
        RecordDelivery::Attach(tab, element) => {
            let name = file_name(saved.number);
            attach(s, tab, element, &saved.gif, &name).await.map_err(not_retention)?;
            Ok(saved.report)
        }
    }
}

/// Download a replay from a blank tab of its own: no page's script ever holds the bytes (a
/// page that wraps `URL.createObjectURL` would otherwise capture the replay, whatever host it
/// is on). The tab has no opener, so no page can reach it; it is closed once the download has
/// begun. The tab Ghostlight works in is not touched.
async fn download(s: &mut Session, saved: &Saved) -> PortResult<()> {
    // The recorded tab must still belong to this session (an earlier session's tab is gone).
    s.handle_of(&saved.tab)?;
    let handle = s.new_tab().await?;
    s.know_window(&handle);
    let data = base64::engine::general_purpose::STANDARD.encode(saved.gif.as_slice());
    let args =
        vec![Value::String(data), Value::String(file_name(saved.number)), json!(DOWNLOAD_URL_LIFETIME_MS)];
    let result = async {
        s.switch_to(&handle).await?;
        s.execute(DOWNLOAD_SCRIPT, args, Sent::Act).await
    }
    .await;
    // Close the blank tab whatever happened (a failure to close leaves an empty tab).
    if s.switch_to(&handle).await.is_ok() {
        let _ = s.client().close_window().await;
    }
    s.forget_current();
    s.forget_tab(&handle);
    result.map(|_| ())
}

/// Core reads [`PortErrorKind::InvalidInput`] from a save as "retention expired"; a delivery
/// that fails for another reason must not say that.
fn not_retention(error: PortError) -> PortError {
    if error.kind() != PortErrorKind::InvalidInput {
        return error;
    }
    let other = PortError::new(PortErrorKind::Other, "the browser refused the replay delivery");
    match error.effect() {
        ghostlight_core::port::PortEffect::Unknown => other.effect_unknown(),
        ghostlight_core::port::PortEffect::None => other,
    }
}

/// Set `gif` as the only file of the file input `element` (from memory, by script).
async fn attach(
    s: &mut Session,
    tab: &TabRef,
    element: &ElementRef,
    gif: &[u8],
    name: &str,
) -> PortResult<()> {
    let input = s.element(tab, element).await?;
    let reference = serde_json::to_value(&input)
        .map_err(|_| PortError::new(PortErrorKind::Other, "the file input could not be referenced"))?;
    let data = base64::engine::general_purpose::STANDARD.encode(gif);
    let args = vec![reference, Value::String(data), Value::String(name.to_owned())];
    match s.execute(ATTACH_SCRIPT, args, Sent::Act).await? {
        Value::Bool(true) => Ok(()),
        _ => Err(PortError::new(PortErrorKind::Other, "the attach target is not a file input")),
    }
}

/// One screenshot attempt.
enum Grab {
    /// A viewport PNG (frames outside the gate painted over) and when it was taken.
    Png(Vec<u8>, Instant),
    /// The tab showed a page the gate refuses: nothing was kept.
    Outside,
    /// No frame this time (a dialog, a slow page).
    Skipped,
    /// The tab, session or browser is gone.
    Gone,
}

/// A viewport screenshot of `tab` (window `handle`), bounded by [`SCREENSHOT_TIMEOUT`]: none
/// while the page, read before and after the shot, is one `gate` refuses; frames it refuses
/// painted over.
async fn screenshot(s: &mut Session, tab: &TabRef, handle: &str, gate: &Gate) -> Grab {
    let at = Instant::now();
    let shot = async {
        s.switch_to(handle).await?;
        if !page_admitted(s, gate).await? {
            return Ok(None);
        }
        let png = s.client().screenshot().await.map_err(|e| errors::cmd(&e, Sent::Read))?;
        if !page_admitted(s, gate).await? {
            return Ok(None);
        }
        let refused = frames::refused_boxes(s, tab, gate).await?;
        refused.blank_viewport(png).map(Some)
    };
    match tokio::time::timeout(SCREENSHOT_TIMEOUT, shot).await {
        Ok(Ok(Some(png))) => Grab::Png(png, at),
        Ok(Ok(None)) => Grab::Outside,
        Ok(Err(error))
            if matches!(
                error.kind(),
                PortErrorKind::TabGone
                    | PortErrorKind::BrowserGone
                    | PortErrorKind::NotConnected
                    | PortErrorKind::Transport
            ) =>
        {
            Grab::Gone
        }
        _ => Grab::Skipped,
    }
}

/// The capture task of recording `number`, starting with the `first` screenshot.
async fn capture(
    slot: Weak<AsyncMutex<Slot>>,
    book: Weak<Mutex<Book>>,
    number: u64,
    first: Option<(Vec<u8>, Instant)>,
) {
    if let (Some((png, at)), Some(strong)) = (first, book.upgrade()) {
        file(&strong, number, png, at, &[Phase::Recording]).await;
    }
    let mut next = tokio::time::Instant::now() + CAPTURE_INTERVAL;
    loop {
        let Some((wake, session, tab, handle, gate, deadline)) = book.upgrade().and_then(|book| {
            let book = lock(&book);
            let recording = book.recordings.get(&number).filter(|r| r.phase == Phase::Recording)?;
            let deadline = tokio::time::Instant::from_std(recording.started + CAPTURE_LIMIT);
            Some((
                Arc::clone(&recording.wake),
                recording.session,
                recording.tab.clone(),
                recording.handle.clone(),
                recording.gate.clone(),
                deadline,
            ))
        }) else {
            return;
        };
        tokio::select! {
            () = tokio::time::sleep_until(next.min(deadline)) => {}
            () = wake.notified() => return,
        }
        if tokio::time::Instant::now() >= deadline {
            finish(&book, number, StopReason::TimeLimit);
            return;
        }
        let Some(slot) = slot.upgrade() else { return };
        let grab = {
            let mut slot = slot.lock().await;
            match slot.session.as_mut().filter(|s| s.number() == session) {
                Some(s) => screenshot(s, &tab, &handle, &gate).await,
                None => Grab::Gone,
            }
        };
        drop(slot);
        next = tokio::time::Instant::now() + CAPTURE_INTERVAL;
        match grab {
            Grab::Png(png, at) => {
                let Some(strong) = book.upgrade() else { return };
                file(&strong, number, png, at, &[Phase::Recording]).await;
            }
            Grab::Outside => {
                let Some(strong) = book.upgrade() else { return };
                skip(&strong, number);
            }
            Grab::Skipped => {}
            Grab::Gone => {
                finish(&book, number, StopReason::TabClosed);
                return;
            }
        }
    }
}

/// Count a frame capture skipped because the page was outside the recording's gate.
fn skip(book: &Arc<Mutex<Book>>, number: u64) {
    if let Some(recording) = lock(book).recordings.get_mut(&number) {
        recording.skipped = recording.skipped.saturating_add(1);
    }
}

/// Whether the current tab's page is one `gate` admits (a URL that does not parse is not).
async fn page_admitted(s: &mut Session, gate: &Gate) -> PortResult<bool> {
    let url = s.execute(&crate::ops::authority_url_script(), Vec::new(), Sent::Read).await?;
    Ok(url.as_str().and_then(|url| Url::parse(url).ok()).is_some_and(|url| gate.admits(&url)))
}

/// Stop recording `number` for `reason` if it is still recording.
fn finish(book: &Weak<Mutex<Book>>, number: u64, reason: StopReason) {
    let Some(book) = book.upgrade() else { return };
    let mut guard = lock(&book);
    if let Some(recording) = guard.recordings.get_mut(&number)
        && recording.phase == Phase::Recording
    {
        freeze(&book, number, recording, reason);
    }
}

/// Freeze `recording` (stopped for `reason`) and arm its retention deadline.
fn freeze(book: &Arc<Mutex<Book>>, number: u64, recording: &mut Recording, reason: StopReason) {
    recording.phase = Phase::Stopped;
    recording.stopped = Some(Instant::now());
    recording.stop_reason = Some(reason);
    recording.wake.notify_one();
    let book = Arc::downgrade(book);
    recording.expiry = Some(tokio::spawn(async move {
        tokio::time::sleep(RETENTION).await;
        if let Some(book) = book.upgrade() {
            // Dropping the recording erases its frames (and aborts this very task, which
            // has nothing left to do).
            let removed = lock(&book).recordings.remove(&number);
            drop(removed);
        }
    }));
}

/// Downscale a screenshot and keep it as a frame of `number` (when the recording is in one
/// of `phases`), applying the bounds.
async fn file(book: &Arc<Mutex<Book>>, number: u64, png: Vec<u8>, at: Instant, phases: &[Phase]) {
    let size = {
        let guard = lock(book);
        match guard.recordings.get(&number) {
            Some(r) if r.width > 0 => Some((r.width, r.height)),
            Some(_) => None,
            None => return,
        }
    };
    let Ok(Some(shrunk)) = tokio::task::spawn_blocking(move || quantize(&png, size)).await else { return };
    let mut guard = lock(book);
    let Some(recording) = guard.recordings.get_mut(&number) else { return };
    if !phases.contains(&recording.phase) {
        return;
    }
    let limit = keep(recording, shrunk, at);
    if let Some(reason) = limit
        && recording.phase == Phase::Recording
    {
        freeze(book, number, recording, reason);
    }
}

/// Add a frame to `recording` within the bounds; answers the limit reached, if any.
fn keep(recording: &mut Recording, frame: Shrunk, at: Instant) -> Option<StopReason> {
    recording.captured = recording.captured.saturating_add(1);
    if recording
        .frames
        .last()
        .is_some_and(|last| last.gif.buffer == frame.frame.buffer && last.gif.palette == frame.frame.palette)
    {
        return None;
    }
    if recording.width > 0 && (frame.width, frame.height) != (recording.width, recording.height) {
        return None;
    }
    if recording.frames.len() >= MAX_FRAMES {
        return Some(StopReason::FrameLimit);
    }
    let kept = Frame { gif: Arc::new(frame.frame), at };
    let bytes = kept.bytes();
    if recording.frame_bytes.saturating_add(bytes) > MAX_FRAME_BYTES {
        return Some(StopReason::ByteLimit);
    }
    recording.frame_bytes += bytes;
    recording.width = frame.width;
    recording.height = frame.height;
    recording.frames.push(kept);
    (recording.frames.len() >= MAX_FRAMES).then_some(StopReason::FrameLimit)
}

/// Each kept frame's delay in 1/100 s: until the next frame, the last until the stop (or
/// `now`), at least one interval.
fn delays(recording: &Recording, now: Instant) -> Vec<u16> {
    let end = recording.stopped.unwrap_or(now);
    let cs = |d: Duration| {
        let value = (d.as_millis().saturating_add(5) / 10).max(u128::from(MIN_DELAY_CS));
        u16::try_from(value).unwrap_or(u16::MAX)
    };
    let frames = &recording.frames;
    frames
        .iter()
        .enumerate()
        .map(|(i, frame)| match frames.get(i + 1) {
            Some(next) => cs(next.at.saturating_duration_since(frame.at)),
            None => cs(end.saturating_duration_since(frame.at).max(CAPTURE_INTERVAL)),
        })
        .collect()
}

/// The report of `recording` at `now`.
fn report(number: u64, recording: &Recording, now: Instant) -> RecordReport {
    let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    let delays = delays(recording, now);
    let (state, capture_deadline_ms, retention_deadline_ms) = match (recording.phase, recording.stopped) {
        (Phase::Stopped, Some(stopped)) => {
            let left = (stopped + RETENTION).saturating_duration_since(now);
            (RecordingState::Stopped, None, Some(millis(left)))
        }
        _ => {
            let left = (recording.started + CAPTURE_LIMIT).saturating_duration_since(now);
            (RecordingState::Recording, Some(millis(left)), None)
        }
    };
    RecordReport {
        recording: token(number),
        state,
        frames: u32::try_from(recording.frames.len()).unwrap_or(u32::MAX),
        captured_frames: recording.captured,
        skipped_frames: recording.skipped,
        bytes: recording
            .gif
            .as_ref()
            .map_or(recording.frame_bytes, |gif| u64::try_from(gif.len()).unwrap_or(u64::MAX)),
        duration_ms: delays.iter().map(|cs| u64::from(*cs) * 10).sum(),
        width: recording.width,
        height: recording.height,
        capture_deadline_ms,
        retention_deadline_ms,
        stop_reason: recording.stop_reason.map(|r| r.as_str().to_owned()),
        gif: None,
    }
}

#[cfg(test)]
mod tests {
    use image::ImageEncoder;

    use super::codec::fit;
    use super::*;

    fn png(width: u32, height: u32, shade: u8) -> Vec<u8> {
        let image = image::RgbImage::from_pixel(width, height, image::Rgb([shade, 128, 255 - shade]));
        let mut out = Vec::new();
        image::codecs::png::PngEncoder::new(&mut out)
            .write_image(image.as_raw(), width, height, image::ExtendedColorType::Rgb8)
            .expect("encodes");
        out
    }

    fn recording() -> Recording {
        Recording::new(TabRef::new("1:w"), Gate::open(), 1, "w".into())
    }

    #[test]
    fn frames_fit_the_bounds() {
        assert_eq!(fit(1280, 657), (640, 329));
        assert_eq!(fit(320, 200), (320, 200));
        assert_eq!(fit(500, 4_000), (128, 1_024));
        assert_eq!(fit(0, 0), (1, 1));
        let shrunk = quantize(&png(1280, 714, 10), None).expect("quantizes");
        assert_eq!((shrunk.width, shrunk.height), (640, 357));
        assert_eq!((shrunk.frame.width, shrunk.frame.height), (640, 357));
        let resized = quantize(&png(1000, 700, 10), Some((640, 357))).expect("quantizes");
        assert_eq!((resized.width, resized.height), (640, 357));
        assert!(quantize(b"not a png", None).is_none());
    }

    #[test]
    fn identical_frames_are_counted_not_kept_and_limits_stop() {
        let mut rec = recording();
        let t0 = Instant::now();
        let a = || quantize(&png(4, 4, 1), None).expect("quantizes");
        assert_eq!(keep(&mut rec, a(), t0), None);
        assert_eq!(keep(&mut rec, a(), t0 + Duration::from_millis(500)), None);
        assert_eq!((rec.frames.len(), rec.captured), (1, 2));
        // A frame of another size (a resize during a race) is not kept.
        assert_eq!(keep(&mut rec, quantize(&png(5, 4, 2), None).expect("quantizes"), t0), None);
        assert_eq!(rec.frames.len(), 1);
        let mut last = None;
        for i in 0..(MAX_FRAMES + 2) {
            let shade = u8::try_from(i % 250).expect("small") + 2;
            last = keep(&mut rec, quantize(&png(4, 4, shade), None).expect("quantizes"), t0);
            if last.is_some() {
                break;
            }
        }
        assert_eq!(last, Some(StopReason::FrameLimit));
        assert_eq!(rec.frames.len(), MAX_FRAMES);
        let mut rec = recording();
        rec.frame_bytes = MAX_FRAME_BYTES;
        assert_eq!(keep(&mut rec, a(), t0), Some(StopReason::ByteLimit));
        assert!(rec.frames.is_empty());
    }

    #[test]
    fn delays_follow_capture_times_and_the_gif_encodes() {
        let mut rec = recording();
        let t0 = rec.started;
        for (i, ms) in [0u64, 500, 1_200].iter().enumerate() {
            let shade = u8::try_from(i * 60).expect("small");
            let frame = quantize(&png(8, 6, shade), None).expect("quantizes");
            keep(&mut rec, frame, t0 + Duration::from_millis(*ms));
        }
        rec.phase = Phase::Stopped;
        rec.stopped = Some(t0 + Duration::from_millis(1_300));
        assert_eq!(delays(&rec, Instant::now()), vec![50, 70, 50]);
        let report = report(7, &rec, t0 + Duration::from_millis(1_300));
        assert_eq!(report.duration_ms, 1_700);
        assert_eq!(report.recording.as_str(), "recording-7");
        assert_eq!(report.state, RecordingState::Stopped);
        assert_eq!(report.retention_deadline_ms, Some(millis(RETENTION)));
        assert_eq!(report.capture_deadline_ms, None);
        let gif = encode(&rec.frames, &delays(&rec, Instant::now()), (8, 6)).expect("encodes");
        assert!(gif.starts_with(b"GIF89a"));
        assert_eq!(number_of(&RecordingRef::new("recording-7")).expect("parses"), 7);
        assert_eq!(
            number_of(&RecordingRef::new("7")).expect_err("refused").kind(),
            PortErrorKind::InvalidInput
        );
    }

    fn millis(d: Duration) -> u64 {
        u64::try_from(d.as_millis()).expect("small")
    }
}
