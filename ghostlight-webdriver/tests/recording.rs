//! `record` (frames in memory, GIF encoded in memory) against real headless browsers, plus
//! `browser_record` end to end through core.

mod support;

use std::time::{Duration, Instant, SystemTime};

use ghostlight_core::port::{
    BrowserPort, Gate, PortErrorKind, RecordCommand, RecordDelivery, RecordReport, RecordingRef,
    RecordingState, TabCall,
};
use ghostlight_core::{Ghostlight, Status};
use ghostlight_webdriver::{Engine, WebDriverBrowser, WebDriverConfig};
use serde_json::json;
use support::engines::{browser, scenario};
use support::port::open;
use support::server::Site;
use support::sites::evidence;
use support::tools;

const TIMEOUT: Duration = Duration::from_secs(15);
/// The adapter's frame width bound (`ops::recording::MAX_FRAME_WIDTH`).
const MAX_FRAME_WIDTH: u32 = 640;
/// The adapter's capture limit (`ops::recording::CAPTURE_LIMIT`).
const CAPTURE_LIMIT_MS: u64 = 60_000;
/// The adapter's retention (`ops::recording::RETENTION`).
const RETENTION_MS: u64 = 600_000;

per_engine!(#[tokio::test(flavor = "multi_thread", worker_threads = 2)] chromium, firefox => run);

per_engine!(
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    chromium_through_core, firefox_through_core =>
    |engine| scenario(engine, "browser_record_end_to_end", through_core(engine))
);

per_engine!(
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    chromium_tasks_end_with_the_browser, firefox_tasks_end_with_the_browser =>
    |engine| scenario(engine, "no_task_outlives_the_browser", no_task_outlives_the_browser(engine))
);

async fn run(engine: Engine) {
    let site = evidence::start();
    let browser = browser(engine);
    let (b, site) = (&*browser, &site);
    scenario(engine, "record_stop_save_discard", record_stop_save_discard(b, site)).await;
    scenario(engine, "save_attaches_to_a_file_input", save_attaches(b, site)).await;
    scenario(engine, "save_downloads_in_the_browser", save_downloads(b, site)).await;
    scenario(engine, "closing_the_tab_stops_capture", closing_the_tab_stops_capture(b, site)).await;
    browser.shutdown().await;
}

async fn record(b: &WebDriverBrowser, command: RecordCommand) -> RecordReport {
    b.record(&command).await.expect("record")
}

async fn record_stop_save_discard(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/anim").await;
    let started = record(b, RecordCommand::Start(tab.clone(), Gate::open())).await;
    let id = started.recording.clone();
    assert_eq!(started.state, RecordingState::Recording);
    assert!(started.capture_deadline_ms.is_some_and(|ms| ms > 0 && ms <= CAPTURE_LIMIT_MS), "{started:?}");
    assert_eq!((started.retention_deadline_ms, started.stop_reason.as_deref()), (None, None));
    assert!(started.frames <= 1, "a first frame at most");

    // About 1.5 s of capture (longer on a loaded machine: until two frames were taken).
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let status = frames_taken(b, &id, 2).await;
    assert_eq!(status.state, RecordingState::Recording);
    assert!(status.capture_deadline_ms.is_some_and(|ms| ms < started.capture_deadline_ms.unwrap_or(0)));
    assert!(status.captured_frames >= 2, "{status:?}");
    // Other calls run between frames.
    let page = b.page(&tab).await.expect("page while recording");
    assert_eq!(page.title, "Anim");

    let stopped = record(b, RecordCommand::Stop(id.clone())).await;
    assert_eq!(stopped.state, RecordingState::Stopped);
    assert_eq!(stopped.stop_reason.as_deref(), Some("requested"));
    assert_eq!(stopped.capture_deadline_ms, None);
    assert!(stopped.retention_deadline_ms.is_some_and(|ms| ms > 0 && ms <= RETENTION_MS));
    assert!(stopped.frames >= 2 && stopped.captured_frames >= stopped.frames, "{stopped:?}");
    assert!(stopped.width > 0 && stopped.width <= MAX_FRAME_WIDTH && stopped.height > 0, "{stopped:?}");
    // Stopping again changes nothing.
    let again = record(b, RecordCommand::Stop(id.clone())).await;
    assert_eq!((again.frames, again.stop_reason.clone()), (stopped.frames, stopped.stop_reason.clone()));

    let saved = record(b, RecordCommand::Save(id.clone(), RecordDelivery::Client)).await;
    let gif = saved.gif.clone().expect("a client save carries the GIF");
    assert!(gif.starts_with(b"GIF89a"), "a GIF89a");
    assert_eq!(saved.bytes, u64::try_from(gif.len()).expect("small"));
    assert!(saved.frames >= 2 && saved.duration_ms > 0, "{saved:?}");
    assert_eq!(saved.duration_ms, stopped.duration_ms, "the stopped replay's length");
    assert!(saved.duration_ms >= 1_000, "about the recorded time: {saved:?}");
    let decoded = decode(&gif);
    assert_eq!(decoded.0, usize::try_from(saved.frames).expect("small"));
    assert_eq!((decoded.1, decoded.2), (saved.width, saved.height));
    assert_eq!(decoded.3 * 10, saved.duration_ms, "the GIF's delays add up to duration_ms");
    // Saving again delivers the same replay.
    let twice = record(b, RecordCommand::Save(id.clone(), RecordDelivery::Client)).await;
    assert_eq!(twice.gif.as_deref(), Some(gif.as_slice()));

    let discarded = record(b, RecordCommand::Discard(id.clone())).await;
    assert_eq!((discarded.state, discarded.frames, discarded.bytes), (RecordingState::Discarded, 0, 0));
    for command in [
        RecordCommand::Save(id.clone(), RecordDelivery::Client),
        RecordCommand::Status(id.clone()),
        RecordCommand::Stop(id.clone()),
        RecordCommand::Discard(id.clone()),
    ] {
        let error = b.record(&command).await.expect_err("a discarded recording");
        assert_eq!(error.kind(), PortErrorKind::InvalidInput, "{command:?}");
    }
    let unknown = b.record(&RecordCommand::Status(RecordingRef::new("nonsense"))).await.expect_err("unknown");
    assert_eq!(unknown.kind(), PortErrorKind::InvalidInput);

    // Save while recording stops first.
    let second = record(b, RecordCommand::Start(tab.clone(), Gate::open())).await.recording;
    frames_taken(b, &second, 1).await;
    let saved = record(b, RecordCommand::Save(second.clone(), RecordDelivery::Client)).await;
    assert_eq!(saved.state, RecordingState::Stopped);
    assert_eq!(saved.stop_reason.as_deref(), Some("requested"));
    assert!(saved.gif.is_some_and(|g| g.starts_with(b"GIF89a")));
    record(b, RecordCommand::Discard(second)).await;
    b.close_tab(&tab).await.expect("close");
}

async fn save_attaches(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/anim").await;
    let id = record(b, RecordCommand::Start(tab.clone(), Gate::open())).await.recording;
    frames_taken(b, &id, 1).await;
    let input = b.testing_element(&tab, &[], "#file").await.expect("the file input");
    let attached =
        record(b, RecordCommand::Save(id.clone(), RecordDelivery::Attach(tab.clone(), input.clone()))).await;
    assert_eq!(attached.gif, None, "an attach returns no bytes");
    assert_eq!(attached.state, RecordingState::Stopped);
    // The page reads the attached file, and saw one change event.
    let read = "(async () => { const f = document.querySelector('#file').files; \
                const head = new Uint8Array(await f[0].slice(0, 6).arrayBuffer()); \
                return [f.length, f[0].name.endsWith('.gif'), f[0].type, f[0].size, String.fromCharCode(...head), window.changes]; })()";
    let value =
        b.execute(&TabCall::new(&tab, &Gate::open(), TIMEOUT), read).await.expect("read the file").value;
    assert_eq!(value, json!([1, true, "image/gif", attached.bytes, "GIF89a", 1]));
    // Attaching again replaces the selection instead of adding to it.
    record(b, RecordCommand::Save(id.clone(), RecordDelivery::Attach(tab.clone(), input))).await;
    let count = b
        .execute(&TabCall::new(&tab, &Gate::open(), TIMEOUT), "document.querySelector('#file').files.length")
        .await
        .expect("count");
    assert_eq!(count.value, json!(1));
    // The target must be a file input.
    let heading = b.testing_element(&tab, &[], "#n").await.expect("the counter");
    let error = b
        .record(&RecordCommand::Save(id.clone(), RecordDelivery::Attach(tab.clone(), heading)))
        .await
        .expect_err("not a file input");
    assert_ne!(error.kind(), PortErrorKind::InvalidInput, "must not read as an expired recording");
    record(b, RecordCommand::Discard(id)).await;
    b.close_tab(&tab).await.expect("close");
}

async fn save_downloads(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/anim").await;
    let id = record(b, RecordCommand::Start(tab.clone(), Gate::open())).await.recording;
    frames_taken(b, &id, 1).await;
    let before = SystemTime::now();
    let saved = record(b, RecordCommand::Save(id.clone(), RecordDelivery::Download)).await;
    assert_eq!((saved.state, saved.gif.is_none()), (RecordingState::Stopped, true));
    assert!(saved.bytes > 0);
    // The browser saves it to its download directory (both engines: ~/Downloads here);
    // find it by name and size, then remove it.
    if let Some(dir) = std::env::var_os("HOME").map(|home| std::path::Path::new(&home).join("Downloads")) {
        let deadline = Instant::now() + Duration::from_secs(10);
        let found = loop {
            let found = downloaded(&dir, saved.bytes, before);
            if found.is_some() || Instant::now() >= deadline {
                break found;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        let path = found.unwrap_or_else(|| panic!("the replay was downloaded into {}", dir.display()));
        let bytes = std::fs::read(&path).expect("the download reads");
        assert!(bytes.starts_with(b"GIF89a"));
        std::fs::remove_file(&path).expect("the download is removed");
    }
    record(b, RecordCommand::Discard(id)).await;
    b.close_tab(&tab).await.expect("close");
}

/// A `ghostlight-replay-*.gif` of `size` bytes in `dir`, written after `since`.
fn downloaded(dir: &std::path::Path, size: u64, since: SystemTime) -> Option<std::path::PathBuf> {
    std::fs::read_dir(dir).ok()?.flatten().find_map(|entry| {
        let name = entry.file_name().to_string_lossy().into_owned();
        let meta = entry.metadata().ok()?;
        let fresh = meta.modified().ok()? >= since - Duration::from_secs(1);
        (name.starts_with("ghostlight-replay-") && name.ends_with(".gif") && meta.len() == size && fresh)
            .then(|| entry.path())
    })
}

async fn closing_the_tab_stops_capture(b: &WebDriverBrowser, site: &Site) {
    let keep = open(b, site, "/quiet").await;
    let tab = open(b, site, "/anim").await;
    let id = record(b, RecordCommand::Start(tab.clone(), Gate::open())).await.recording;
    frames_taken(b, &id, 1).await;
    b.close_tab(&tab).await.expect("close");
    let deadline = Instant::now() + Duration::from_secs(10);
    let report = loop {
        let report = record(b, RecordCommand::Status(id.clone())).await;
        if report.state != RecordingState::Recording || Instant::now() >= deadline {
            break report;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(report.state, RecordingState::Stopped, "{report:?}");
    assert_eq!(report.stop_reason.as_deref(), Some("tab_closed"));
    // The frames taken before can still be returned to the client.
    let saved = record(b, RecordCommand::Save(id.clone(), RecordDelivery::Client)).await;
    assert!(saved.gif.is_some_and(|g| g.starts_with(b"GIF89a")));
    // Starting on a closed tab fails.
    let error = b.record(&RecordCommand::Start(tab.clone(), Gate::open())).await.expect_err("closed tab");
    assert_eq!(error.kind(), PortErrorKind::TabGone);
    record(b, RecordCommand::Discard(id)).await;
    b.close_tab(&keep).await.expect("close");
}

/// The BiDi socket task, a capture task (still recording) and an expiry task (stopped) all
/// end with the browser: its own runtime's task count returns to where it started.
async fn no_task_outlives_the_browser(engine: Engine) {
    let metrics = tokio::runtime::Handle::current().metrics();
    let baseline = metrics.num_alive_tasks();
    let site = evidence::start();
    let browser = WebDriverBrowser::new(WebDriverConfig::for_engine(engine));
    let tab = open(&browser, &site, "/anim").await;
    let q = ghostlight_core::port::DiagnosticsQuery {
        source: ghostlight_core::port::DiagnoseSource::Both,
        detail: ghostlight_core::port::DiagnoseDetail::All,
        pattern: None,
        after: None,
        limit: 10,
    };
    browser.diagnostics(&tab, &q).await.expect("diagnostics");
    let stopped = record(&browser, RecordCommand::Start(tab.clone(), Gate::open())).await.recording;
    record(&browser, RecordCommand::Stop(stopped)).await;
    let running = record(&browser, RecordCommand::Start(tab.clone(), Gate::open())).await.recording;
    frames_taken(&browser, &running, 1).await;
    assert!(metrics.num_alive_tasks() > baseline + 2, "socket, capture and expiry tasks run");
    browser.shutdown().await;
    drop(browser);
    let deadline = Instant::now() + Duration::from_secs(10);
    while metrics.num_alive_tasks() > baseline && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(metrics.num_alive_tasks(), baseline, "every task ended");
}

/// `(frames, width, height, sum of delays in 1/100 s)` of a GIF.
fn decode(gif: &[u8]) -> (usize, u32, u32, u64) {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options.read_info(gif).expect("a GIF");
    let (width, height) = (u32::from(decoder.width()), u32::from(decoder.height()));
    let (mut frames, mut delay) = (0, 0u64);
    while let Some(frame) = decoder.read_next_frame().expect("a frame") {
        frames += 1;
        delay += u64::from(frame.delay);
    }
    (frames, width, height, delay)
}

/// Poll `Status` until recording `id` captured `count` frames (bounded); answers the last
/// report.
async fn frames_taken(b: &WebDriverBrowser, id: &RecordingRef, count: u32) -> RecordReport {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let report = record(b, RecordCommand::Status(id.clone())).await;
        if report.captured_frames >= count || Instant::now() >= deadline {
            return report;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Ghostlight over the WebDriver adapter: start a recording, save it to the client.
async fn through_core(engine: Engine) {
    let site = evidence::start();
    let browser = browser(engine);
    let ghostlight = Ghostlight::new(browser.clone());
    tools::ok(&ghostlight, "browser_navigate", json!({"url": site.url("/anim").as_str()})).await;

    let started = tools::ok(&ghostlight, "browser_record", json!({"action": "start"})).await;
    assert_eq!(started.facts["state"], json!("recording"));
    assert!(started.facts["capture_deadline_ms"].as_u64().is_some_and(|ms| ms > 0));
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    // On a loaded machine, wait until two frames were taken.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let status = tools::ok(&ghostlight, "browser_record", json!({"action": "status"})).await;
        let taken = status.facts["captured_frames"].as_u64().unwrap_or(0);
        if taken >= 2 || Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let saved = tools::invoke(&ghostlight, "browser_record", &json!({"action": "save"})).await;
    assert_eq!(saved.envelope.status, Status::Succeeded, "{:?}", saved.envelope);
    let facts = &saved.envelope.facts;
    assert_eq!(facts["state"], json!("stopped"));
    assert_eq!(facts["delivery"], json!("client"));
    assert!(facts["frames"].as_u64().is_some_and(|n| n >= 2), "{facts:?}");
    assert!(facts["duration_ms"].as_u64().is_some_and(|ms| ms > 0));
    assert_eq!(saved.attachments.len(), 1);
    let attachment = &saved.attachments[0];
    assert_eq!(attachment.mime_type, "image/gif");
    assert!(attachment.bytes.starts_with(b"GIF89a"));
    assert_eq!(facts["bytes"].as_u64(), Some(u64::try_from(attachment.bytes.len()).expect("small")));
    assert!(saved.envelope.summary.starts_with("Saved a "), "{}", saved.envelope.summary);

    tools::ok(&ghostlight, "browser_record", json!({"action": "discard"})).await;
    browser.shutdown().await;
}
