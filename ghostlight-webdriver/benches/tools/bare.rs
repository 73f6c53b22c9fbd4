//! The "bare" column: for each tool row, the WebDriver commands a hand-written client would
//! send to get the same result, issued directly with fantoccini on a plain [`Client`].
//!
//! The bare session runs on its own chromedriver, started here after the Ghostlight browser
//! was shut down (the two never run at the same time: on a 2-core machine a second idle
//! browser adds noise to the first). Chromium gets the adapter's flags (`launch.rs`):
//! `--headless=new`, the same `--disable-*` set, a fresh `--user-data-dir` and the same window
//! size, and the same `unhandledPromptBehavior` and `pageLoadStrategy`. It does not ask for
//! `webSocketUrl`: a hand-written classic client opens no BiDi connection (Ghostlight uses one
//! for dialog announcements and diagnostics; that cost is part of what the ratio shows).
//!
//! What "bare" means per tool is in [`NOTES`] (printed under the table) and in each case
//! below. Rows with no honest bare equivalent are listed in [`NO_BARE`] and print "-".

use std::future::Future;
use std::net::{Ipv4Addr, TcpListener};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};
use fantoccini::error::CmdError;
use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder, Locator};
use ghostlight_webdriver::{
    CHROMIUM_FLAGS, DEFAULT_WINDOW_HEIGHT, DEFAULT_WINDOW_WIDTH, NO_SANDBOX_FLAG, Sandbox,
};
use hyper_util::client::legacy::connect::HttpConnector;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde_json::{Map, Value, json};
use tokio::process::{Child, Command};

use super::Timing;
use super::support::server::Site;

/// The driver the bare session runs on.
const CHROMEDRIVER: &str = "chromedriver";
/// The adapter's default window size.
const WINDOW: (u32, u32) = (DEFAULT_WINDOW_WIDTH, DEFAULT_WINDOW_HEIGHT);
/// How long chromedriver may take to accept the session.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// Pause between two session attempts while chromedriver starts.
const START_RETRY: Duration = Duration::from_millis(100);
/// Pause between two alert probes while a scheduled alert opens.
const ALERT_POLL: Duration = Duration::from_millis(10);
/// Alert probes before giving up.
const ALERT_POLLS: usize = 100;
/// Characters a bare read keeps of `document.body.innerText`.
const READ_CHARS: usize = 20_000;
/// The pointer source of the bare actions.
const MOUSE: &str = "bare-mouse";
/// The adapter's drag shape (`ops/input/pointer.rs`): a lift after the press, a move, a
/// nudge. Chromium needs the intermediate moves to start an HTML5 drag; the pauses dominate
/// both columns.
const DRAG_LIFT: f64 = 5.0;
/// See [`DRAG_LIFT`].
const DRAG_MOVE: Duration = Duration::from_millis(300);
/// See [`DRAG_LIFT`].
const DRAG_NUDGE: Duration = Duration::from_millis(50);
/// The size of the uploaded file, as in the Ghostlight row.
const UPLOAD_BYTES: usize = 1026;

/// The small query script of bare `inspect` and `find`: every interactive element's tag, id,
/// type and a short label, optionally only those whose label contains `arguments[0]`.
const QUERY_SCRIPT: &str = r"
const text = arguments[0];
const label = (e) => ((e.labels && e.labels[0] && e.labels[0].innerText) || e.getAttribute('aria-label')
  || e.innerText || e.value || '').trim().slice(0, 80);
return [...document.querySelectorAll('a[href], button, input, select, textarea, [role], [contenteditable], [tabindex]')]
  .map((e) => [e.tagName.toLowerCase(), e.id, e.type || '', label(e)])
  .filter((row) => !text || row[3].includes(text));";
/// The bare read: the page's visible text, sliced.
const READ_SCRIPT: &str = "return document.body.innerText.slice(0, arguments[0]);";
/// The bare wait: whether the page's text holds `arguments[0]` now.
const TEXT_SCRIPT: &str = "return document.body.innerText.includes(arguments[0]);";

/// Tools whose row has no bare figure, and why (printed as footnotes).
pub(crate) const NO_BARE: [(&str, &str); 3] = [
    (
        "browser_diagnose",
        "reads evidence the adapter already collected over BiDi; no browser command to compare",
    ),
    ("policy_explain", "no browser work at all"),
    (
        "browser_record",
        "the timed call is `save`: stopping and GIF-encoding frames captured before the timer; \
         a bare client has no recorder, and N screenshots would time the capture window instead",
    ),
];

/// What the bare column sends per tool (printed under the table).
pub(crate) const NOTES: [(&str, &str); 21] = [
    ("browser_tabs", "`GET window/handles` (Ghostlight also reads each tab's URL, title and readiness)"),
    ("browser_navigate", "one `POST url` (fantoccini's `goto` would add a `GET url` first)"),
    ("browser_history", "`POST refresh`"),
    ("browser_window", "`POST window/rect` with the size"),
    ("browser_read", "one `execute` of `document.body.innerText.slice(0, 20000)` (no article extraction)"),
    ("browser_inspect", "one `execute` of a small query script listing interactive elements"),
    ("browser_find", "the same query script, filtered by text"),
    ("browser_fill_form", "per field: find (CSS) + clear + send_keys"),
    ("browser_screenshot", "`GET screenshot`"),
    ("browser_click", "find (CSS) + element click"),
    ("browser_hover", "find (CSS) + one pointer move action"),
    ("browser_scroll", "one `execute` of `window.scrollBy` by half the viewport"),
    ("browser_wait", "one `execute` checking the text"),
    ("browser_sequence", "the bare click, then the bare wait"),
    ("browser_flow", "the bare inspect, click (find + click) and read"),
    ("browser_execute", "one `execute` of `return document.title`"),
    ("browser_type_text", "find (CSS) + clear + send_keys"),
    ("browser_press_key", "find (CSS) + send_keys of one key"),
    ("browser_drag", "2 finds + one pointer action sequence of the adapter's shape (350 ms of pauses)"),
    ("browser_upload", "find (CSS) + send_keys of a file already on disk (Ghostlight writes it first)"),
    ("browser_dialog", "`POST alert/accept`"),
];

/// `POST url`: navigation without fantoccini's preceding `GET url`.
#[derive(Debug, Clone)]
struct NavigateTo(String);

impl WebDriverCompatibleCommand for NavigateTo {
    fn endpoint(&self, base: &url::Url, session: Option<&str>) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/url", session.unwrap_or_default()))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(json!({ "url": self.0 }).to_string()))
    }
}

/// The bare chromedriver, its browser profile and the session.
struct Driver {
    child: Child,
    group: Option<Pid>,
    _profile: tempfile::TempDir,
    client: Client,
}

impl Driver {
    async fn start() -> Driver {
        let port = {
            let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("a free loopback port");
            listener.local_addr().expect("a bound port").port()
        };
        let profile = tempfile::Builder::new().prefix("ghostlight-bare-").tempdir().expect("a profile");
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .process_group(0)
            .spawn()
            .expect("chromedriver on PATH");
        let group = child.id().and_then(|id| i32::try_from(id).ok()).map(Pid::from_raw);
        // The adapter's own launch flags, headless.
        let mut args: Vec<String> = vec!["--headless=new".to_owned()];
        args.extend(CHROMIUM_FLAGS.map(String::from));
        if Sandbox::Auto.disabled() {
            args.push(NO_SANDBOX_FLAG.to_owned());
        }
        args.push(format!("--user-data-dir={}", profile.path().display()));
        args.push(format!("--window-size={},{}", WINDOW.0, WINDOW.1));
        let mut caps = Map::new();
        caps.insert("browserName".into(), json!("chrome"));
        caps.insert("goog:chromeOptions".into(), json!({ "args": args }));
        caps.insert(
            "unhandledPromptBehavior".into(),
            json!({ "default": "ignore", "beforeUnload": "ignore" }),
        );
        caps.insert("pageLoadStrategy".into(), json!("normal"));
        let endpoint = format!("http://127.0.0.1:{port}/");
        let deadline = Instant::now() + START_TIMEOUT;
        let client = loop {
            let mut builder = ClientBuilder::new(HttpConnector::new());
            match builder.capabilities(caps.clone()).connect(&endpoint).await {
                Ok(client) => break client,
                // Not listening yet: chromedriver is still starting.
                Err(_) if Instant::now() < deadline => tokio::time::sleep(START_RETRY).await,
                Err(error) => panic!("the bare session did not start: {error}"),
            }
        };
        Driver { child, group, _profile: profile, client }
    }

    async fn shutdown(mut self) {
        let _ = self.client.clone().close().await;
        if let Some(group) = self.group {
            // Driver and browser share the group; ESRCH (already gone) is fine.
            let _ = killpg(group, Signal::SIGKILL);
        }
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
    }
}

/// The bare rows, timed one after the other on their own session.
struct Bare {
    client: Client,
    reps: usize,
    rows: Vec<(&'static str, Timing)>,
}

impl Bare {
    /// Time `reps` runs of `call(client, i)`, each after `setup(client, i)` (untimed).
    async fn time_with<S, SF, C, CF>(&mut self, tool: &'static str, mut setup: S, mut call: C)
    where
        S: FnMut(Client, usize) -> SF,
        SF: Future<Output = Result<(), CmdError>>,
        C: FnMut(Client, usize) -> CF,
        CF: Future<Output = Result<(), CmdError>>,
    {
        let mut timing = Timing::default();
        for i in 0..self.reps {
            if let Err(error) = setup(self.client.clone(), i).await {
                timing.failures.push(format!("setup: {error}"));
                continue;
            }
            let started = Instant::now();
            let result = call(self.client.clone(), i).await;
            timing.times.push(started.elapsed());
            if let Err(error) = result {
                timing.failures.push(error.to_string());
            }
        }
        eprintln!("  bare {tool}: done");
        self.rows.push((tool, timing));
    }

    /// Time `reps` runs of `call(client, i)`.
    async fn time<C, CF>(&mut self, tool: &'static str, call: C)
    where
        C: FnMut(Client, usize) -> CF,
        CF: Future<Output = Result<(), CmdError>>,
    {
        self.time_with(tool, |_, _| async { Ok(()) }, call).await;
    }

    /// Navigate outside the timed part.
    async fn goto(&self, url: &str) {
        navigate(self.client.clone(), url.to_owned()).await.expect("a bare navigation");
    }
}

async fn navigate(c: Client, url: String) -> Result<(), CmdError> {
    c.issue_cmd(NavigateTo(url)).await.map(drop)
}

async fn execute(c: &Client, script: &str, args: Vec<Value>) -> Result<(), CmdError> {
    c.execute(script, args).await.map(drop)
}

async fn click(c: &Client, css: &str) -> Result<(), CmdError> {
    c.find(Locator::Css(css)).await?.click().await
}

async fn inspect(c: &Client) -> Result<(), CmdError> {
    execute(c, QUERY_SCRIPT, vec![Value::Null]).await
}

async fn read(c: &Client) -> Result<(), CmdError> {
    execute(c, READ_SCRIPT, vec![json!(READ_CHARS)]).await
}

async fn retype(c: &Client, css: &str, text: &str) -> Result<(), CmdError> {
    let element = c.find(Locator::Css(css)).await?;
    element.clear().await?;
    element.send_keys(text).await
}

/// Time every bare row against `site`; answers the rows by tool name.
pub(crate) async fn run(site: &Site, reps: usize) -> Vec<(&'static str, Timing)> {
    let driver = Driver::start().await;
    let files = tempfile::tempdir().expect("a folder for the bare upload");
    let upload: PathBuf = files.path().join("a.txt");
    std::fs::write(&upload, "a".repeat(UPLOAD_BYTES)).expect("the bare upload file");
    let upload = upload.to_string_lossy().into_owned();
    let mut b = Bare { client: driver.client.clone(), reps, rows: Vec::new() };
    let url = |path: &str| site.url(path).to_string();

    // Tabs, navigation, window.
    b.goto(&url("/counter")).await;
    b.time("browser_tabs", |c, _| async move { c.windows().await.map(drop) }).await;
    let nav = url("/served/nav");
    b.time("browser_navigate", |c, i| navigate(c, format!("{nav}?{i}"))).await;
    b.time("browser_history", |c, _| async move { c.refresh().await }).await;
    b.time("browser_window", |c, i| async move {
        let (w, h) = if i.is_multiple_of(2) { (1200, 760) } else { WINDOW };
        c.set_window_size(w, h).await
    })
    .await;
    b.client.set_window_size(WINDOW.0, WINDOW.1).await.expect("the window size back");

    // Perception.
    b.goto(&url("/article")).await;
    b.time("browser_read", |c, _| async move { read(&c).await }).await;
    b.goto(&url("/form")).await;
    b.time("browser_inspect", |c, _| async move { inspect(&c).await }).await;
    b.time(
        "browser_find",
        |c, _| async move { execute(&c, QUERY_SCRIPT, vec![json!("Create account")]).await },
    )
    .await;
    b.time("browser_fill_form", |c, i| async move {
        retype(&c, "#name", &format!("Ada {i}")).await?;
        retype(&c, "#email", "ada@example.com").await
    })
    .await;

    // Capture and pointer input.
    b.goto(&url("/counter")).await;
    b.time("browser_screenshot", |c, _| async move { c.screenshot().await.map(drop) }).await;
    b.time("browser_click", |c, _| async move { click(&c, "#inc").await }).await;
    b.time("browser_hover", |c, _| async move {
        let element = c.find(Locator::Css("#hover")).await?;
        let to = PointerAction::MoveToElement { element, duration: None, x: 0.0, y: 0.0 };
        c.perform_actions(MouseActions::new(MOUSE.to_owned()).then(to)).await
    })
    .await;
    b.time("browser_scroll", |c, i| async move {
        let sign = if i.is_multiple_of(2) { 1 } else { -1 };
        execute(&c, "window.scrollBy(0, arguments[0] * innerHeight / 2);", vec![json!(sign)]).await
    })
    .await;
    b.time("browser_wait", |c, _| async move { execute(&c, TEXT_SCRIPT, vec![json!("Count")]).await }).await;
    b.time("browser_sequence", |c, _| async move {
        click(&c, "#inc").await?;
        execute(&c, TEXT_SCRIPT, vec![json!("Count")]).await
    })
    .await;
    b.time("browser_flow", |c, _| async move {
        inspect(&c).await?;
        click(&c, "#inc").await?;
        read(&c).await
    })
    .await;
    b.time("browser_execute", |c, _| async move { execute(&c, "return document.title;", Vec::new()).await })
        .await;

    // Keyboard.
    b.goto(&url("/keys")).await;
    b.time("browser_type_text", |c, _| async move { retype(&c, "#q", "hello").await }).await;
    b.time("browser_press_key", |c, _| async move { c.find(Locator::Css("#q")).await?.send_keys("a").await })
        .await;

    // Drag (HTML5 card onto its target).
    b.goto(&url("/drag")).await;
    b.time("browser_drag", |c, _| async move {
        let card = c.find(Locator::Css("#card")).await?;
        let target = c.find(Locator::Css("#target")).await?;
        let button = MOUSE_BUTTON_LEFT;
        let to = |element: &fantoccini::elements::Element, duration| PointerAction::MoveToElement {
            element: element.clone(),
            duration: Some(duration),
            x: 0.0,
            y: 0.0,
        };
        let mouse = MouseActions::new(MOUSE.to_owned())
            .then(PointerAction::MoveToElement { element: card, duration: None, x: 0.0, y: 0.0 })
            .then(PointerAction::Down { button })
            .then(PointerAction::MoveBy { duration: Some(DRAG_NUDGE), x: DRAG_LIFT, y: DRAG_LIFT })
            .then(to(&target, DRAG_MOVE))
            .then(to(&target, DRAG_NUDGE))
            .then(PointerAction::Up { button });
        c.perform_actions(mouse).await
    })
    .await;

    // Upload (one small file already on disk).
    b.goto(&url("/upload")).await;
    b.time("browser_upload", |c, _| {
        let upload = upload.clone();
        async move { c.find(Locator::Css("#files")).await?.send_keys(&upload).await }
    })
    .await;

    // A dialog opened before each repetition (untimed), then accepted.
    b.goto(&url("/dialogs")).await;
    let open_alert = |c: Client, _| async move {
        execute(&c, "setTimeout(() => alert('bench'), 0); return 0;", Vec::new()).await?;
        for _ in 0..ALERT_POLLS {
            if c.get_alert_text().await.is_ok() {
                return Ok(());
            }
            tokio::time::sleep(ALERT_POLL).await;
        }
        panic!("the bare alert never opened");
    };
    b.time_with("browser_dialog", open_alert, |c, _| async move { c.accept_alert().await }).await;

    let rows = std::mem::take(&mut b.rows);
    driver.shutdown().await;
    rows
}
