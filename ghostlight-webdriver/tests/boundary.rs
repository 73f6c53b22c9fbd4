//! The authority boundary against real browsers (issue 13), through `Ghostlight::invoke` over
//! the WebDriver adapter, on headless Chromium and Firefox. The authority allows 127.0.0.1
//! and `localhost` (a second origin inside authority) only; 127.0.0.2 (the fixture's second
//! host, same machine) plays the denied site, and its server's request counts prove what
//! reached it.
//!
//! Probes (each was a way around the boundary before):
//! - a `\t` in typed text, or a `Tab` stroke, moving focus into a password field;
//! - a page moving focus into its password field while keys are typed;
//! - a click, hover, drag or wheel at a screenshot point over a frame from the denied host;
//! - focused typing and keys while focus sits in such a frame;
//! - screenshots and recordings showing such a frame, or a page of the denied host;
//! - a download save handing the replay to a page's script;
//! - titles of pages outside authority.
//!
//! And the other side of the frame rule (issue 15): frames inside authority, same-origin and
//! cross-origin, are read, found and awaited.

mod support;

use std::sync::Arc;
use std::time::Duration;

use ghostlight_core::{Effect, Envelope, Ghostlight, Status, ToolResult};
use ghostlight_webdriver::{Engine, WebDriverBrowser};
use serde_json::{Value, json};
use support::engines::{browser, scenario};
use support::server::{HOST_B, Site};
use support::tools;

per_engine!(chromium, firefox => run);

async fn run(engine: Engine) {
    let site = support::sites::e2e::start();
    let uploads = tempfile::tempdir().expect("an uploads folder");
    let elsewhere = tempfile::tempdir().expect("a folder outside it");
    let browser = browser(engine);
    let b = Boundary::new(browser.clone(), &site, uploads.path());
    scenario(engine, "tab_in_typed_text_stops_before_the_password", tab_in_typed_text(&b)).await;
    scenario(engine, "tab_stroke_stops_before_the_password", tab_stroke(&b)).await;
    scenario(engine, "page_moving_focus_withholds_the_keys", page_moves_focus(&b)).await;
    scenario(engine, "pointer_input_into_a_denied_frame_is_blocked", pointer_into_denied_frame(&b)).await;
    scenario(
        engine,
        "a_page_hiding_a_denied_frame_from_the_hit_test_is_still_blocked",
        hidden_denied_frame(&b),
    )
    .await;
    scenario(engine, "keys_into_a_denied_frame_are_blocked", keys_into_denied_frame(&b)).await;
    scenario(engine, "a_page_hiding_focus_in_a_denied_frame_is_still_blocked", hidden_focus(&b)).await;
    scenario(engine, "a_page_disabling_listeners_cannot_disarm_the_key_guard", disabled_guard(&b)).await;
    scenario(engine, "screenshots_blank_denied_frames", screenshots_blank(&b)).await;
    scenario(engine, "frames_inside_authority_are_read_found_and_awaited", frames_inside(&b)).await;
    scenario(engine, "recordings_keep_nothing_of_a_denied_page", recordings(&b)).await;
    scenario(engine, "download_never_reaches_page_script", download(&b)).await;
    scenario(engine, "pages_outside_authority_have_no_title", titles(&b)).await;
    scenario(engine, "links_do_not_escape_upload_folders", links(&b, uploads.path(), elsewhere.path())).await;
    browser.shutdown().await;
}

/// Ghostlight allowing 127.0.0.1 and localhost only (and `execute`, to read fields back).
struct Boundary<'s> {
    g: Ghostlight,
    browser: Arc<WebDriverBrowser>,
    site: &'s Site,
}

impl<'s> Boundary<'s> {
    fn new(browser: Arc<WebDriverBrowser>, site: &'s Site, uploads: &std::path::Path) -> Self {
        let g = tools::governed(
            browser.clone(),
            json!({
                "capabilities": {"allow": ["execute"]},
                "hosts": {"allow": ["127.0.0.1", "localhost"]},
                "uploads": {"roots": [uploads.to_string_lossy()]},
            }),
        );
        Boundary { g, browser, site }
    }

    async fn result(&self, tool: &str, arguments: Value) -> ToolResult {
        tools::invoke(&self.g, tool, &arguments).await
    }

    async fn call(&self, tool: &str, arguments: Value) -> Envelope {
        tools::call(&self.g, tool, arguments).await
    }

    async fn ok(&self, tool: &str, arguments: Value) -> Envelope {
        tools::ok(&self.g, tool, arguments).await
    }

    /// Open `path` of the allowed host in a new tab; answers the tab handle.
    async fn open(&self, path: &str) -> String {
        let opened =
            self.ok("browser_navigate", json!({"url": self.site.url(path).as_str(), "new_tab": true})).await;
        opened.facts["tab"].as_str().expect("a tab").to_owned()
    }

    /// Run `script` on the tab's (allowed) page and answer its value.
    async fn eval(&self, tab: &str, script: &str) -> Value {
        self.ok("browser_execute", json!({"tab": tab, "script": script})).await.facts["value"].clone()
    }

    async fn close(&self, tab: &str) {
        self.ok("browser_tabs", json!({"action": "close", "tab": tab})).await;
    }

    /// The denied host as sentences name it.
    fn denied_host(&self) -> String {
        self.site
            .url_b("/")
            .host_str()
            .map(|host| format!("{host}:{}", self.site.url_b("/").port().unwrap_or(80)))
            .unwrap_or_default()
    }
}

/// A blocked refusal naming the denied frame's host.
fn assert_frame_blocked(b: &Boundary<'_>, probe: &str, envelope: &Envelope) {
    assert_eq!(envelope.status, Status::Blocked, "{probe}: {}", envelope.summary);
    assert_eq!(envelope.effect, Effect::None, "{probe}");
    assert_eq!(envelope.facts["reason"], "frame_outside_authority", "{probe}: {:?}", envelope.facts);
    assert_eq!(envelope.facts["host"], b.denied_host(), "{probe}");
}

async fn tab_in_typed_text(b: &Boundary<'_>) {
    let tab = b.open("/boundary/login").await;
    let typed = b
        .call(
            "browser_type_text",
            json!({"tab": tab, "selector": {"name": "User"}, "text": "bob\tS3cr3t", "clear_first": true}),
        )
        .await;
    assert_eq!(typed.status, Status::AttentionRequired, "{}", typed.summary);
    assert_eq!(typed.effect, Effect::Partial);
    assert_eq!(typed.facts["credential"], "password");
    let text = serde_json::to_string(&typed).unwrap_or_default();
    assert!(!text.contains("S3cr3t") && !text.contains("bob"), "{text}");
    let fields = b.eval(&tab, "[user.value, pw.value]").await;
    eprintln!("  fields {fields}");
    assert_eq!(fields, json!(["bob", ""]), "nothing reached the password field");
    b.close(&tab).await;
}

async fn tab_stroke(b: &Boundary<'_>) {
    let tab = b.open("/boundary/login").await;
    b.eval(&tab, "user.focus(); 0").await;
    let pressed =
        b.call("browser_press_key", json!({"tab": tab, "strokes": ["a", "Tab", "S", "3", "c", "X"]})).await;
    assert_eq!(pressed.status, Status::AttentionRequired, "{}", pressed.summary);
    assert_eq!(pressed.effect, Effect::Partial);
    assert_eq!(pressed.facts["key"], "chars:1 Tab chars:4", "letters are never echoed");
    assert_eq!(b.eval(&tab, "[user.value, pw.value]").await, json!(["a", ""]));
    b.close(&tab).await;
}

async fn page_moves_focus(b: &Boundary<'_>) {
    let tab = b.open("/boundary/advance").await;
    let typed = b
        .call("browser_type_text", json!({"tab": tab, "selector": {"name": "Code"}, "text": "123456"}))
        .await;
    assert_eq!(typed.status, Status::Failed, "{}", typed.summary);
    assert_eq!(typed.facts["reason"], "focus_moved");
    assert_eq!(typed.effect, Effect::Partial);
    assert_eq!(typed.facts["character_count"], 3);
    assert_eq!(b.eval(&tab, "[code.value, pw.value]").await, json!(["123", ""]));
    b.close(&tab).await;
}

/// A viewport screenshot of `tab` and the image pixel of CSS point `(x, y)`.
async fn view_point(b: &Boundary<'_>, tab: &str, x: f64, y: f64) -> (String, u64, u64) {
    let shot = b.ok("browser_screenshot", json!({"tab": tab})).await;
    let width = shot.facts["width"].as_f64().expect("width");
    let css_width = b.eval(tab, "window.innerWidth").await.as_f64().expect("innerWidth");
    let scale = width / css_width;
    let view = shot.facts["view"].as_str().expect("a view").to_owned();
    (view, (x * scale) as u64, (y * scale) as u64)
}

async fn pointer_into_denied_frame(b: &Boundary<'_>) {
    let tab = b.open("/boundary/framed").await;
    // The red "Press" button fills the frame #deny at (20, 120) 400×160 CSS px.
    let (view, x, y) = view_point(b, &tab, 220.0, 200.0).await;
    let (_, mx, my) = view_point(b, &tab, 500.0, 140.0).await;
    let before = b.site.hits("/boundary/clicked");
    for (probe, tool, arguments) in [
        ("click", "browser_click", json!({"tab": tab, "view": view, "x": x, "y": y})),
        ("hover", "browser_hover", json!({"tab": tab, "view": view, "x": x, "y": y})),
        (
            "drag into",
            "browser_drag",
            json!({"tab": tab, "view": view, "start_x": mx, "start_y": my, "end_x": x, "end_y": y}),
        ),
        (
            "wheel",
            "browser_scroll",
            json!({"tab": tab, "view": view, "x": x, "y": y, "ticks": 1, "direction": "down"}),
        ),
    ] {
        let envelope = b.call(tool, arguments).await;
        assert_frame_blocked(b, probe, &envelope);
    }
    assert_eq!(b.site.hits("/boundary/clicked"), before, "the denied host saw no click");
    // Perception never reaches into the denied frame, so no target or selector can name its
    // button, and reading the page shows none of its text.
    let read = b.ok("browser_read", json!({"tab": tab, "mode": "visible"})).await;
    assert!(!read.facts["text"].as_str().unwrap_or_default().contains("Press"), "{:?}", read.facts);
    let found = b.ok("browser_find", json!({"tab": tab, "text": "Press"})).await;
    assert_eq!(found.facts["matches"], json!([]), "{:?}", found.facts);
    let inspected = b.ok("browser_inspect", json!({"tab": tab, "scope": "all"})).await;
    assert!(
        !serde_json::to_string(&inspected.facts).unwrap_or_default().contains("Press"),
        "{:?}",
        inspected.facts
    );
    let by_name = b.call("browser_click", json!({"tab": tab, "selector": {"name": "Press"}})).await;
    assert_eq!(by_name.facts["reason"], "no_match", "{}", by_name.summary);
    // A point on the page's own button is fine.
    let (view, mx, my) = view_point(b, &tab, 500.0, 140.0).await;
    b.ok("browser_click", json!({"tab": tab, "view": view, "x": mx, "y": my})).await;
    b.close(&tab).await;
}

/// A page that replaces `elementFromPoint` in its own realm so that every point seems to hit
/// its own button, while a denied frame covers it: the hit trace runs in a sandbox realm and
/// still finds the frame, for a point and for the covered button as an element target.
async fn hidden_denied_frame(b: &Boundary<'_>) {
    let tab = b.open("/boundary/hostile-framed").await;
    let (view, x, y) = view_point(b, &tab, 220.0, 200.0).await;
    let before = b.site.hits("/boundary/clicked");
    let at_point = b.call("browser_click", json!({"tab": tab, "view": view, "x": x, "y": y})).await;
    assert_frame_blocked(b, "a point", &at_point);
    let by_name = b.call("browser_click", json!({"tab": tab, "selector": {"name": "Covered"}})).await;
    assert_frame_blocked(b, "the covered button", &by_name);
    assert_eq!(b.site.hits("/boundary/clicked"), before, "the denied host saw no click");
    b.close(&tab).await;
}

/// A page that replaces `activeElement` in its own realm so that focus seems to sit on its own
/// field while it sits in a denied frame's field: focus is followed in a sandbox realm, and
/// the keys are blocked.
async fn hidden_focus(b: &Boundary<'_>) {
    let tab = b.open("/boundary/hostile-focus").await;
    b.person_clicks("/boundary/hostile-focus", "#denyform").await;
    let keys_before = b.site.hits("/boundary/key");
    for (probe, tool, arguments) in [
        ("focused typing", "browser_type_text", json!({"tab": tab, "focused": true, "text": "hello"})),
        ("a character", "browser_press_key", json!({"tab": tab, "key": "x"})),
    ] {
        let envelope = b.call(tool, arguments).await;
        assert_frame_blocked(b, probe, &envelope);
    }
    assert_eq!(b.site.hits("/boundary/key"), keys_before, "no key reached the denied frame");
    b.close(&tab).await;
}

/// A page that replaces `addEventListener` in its own realm (which would keep a page-realm key
/// guard from ever arming) and moves focus into a denied frame after two typed characters:
/// the guard runs in a sandbox realm, so every later key is withheld.
async fn disabled_guard(b: &Boundary<'_>) {
    let tab = b.open("/boundary/hostile-guard").await;
    let keys_before = b.site.hits("/boundary/key");
    let typed = b
        .call("browser_type_text", json!({"tab": tab, "selector": {"name": "Code"}, "text": "123456"}))
        .await;
    let code = b.eval(&tab, "[code.value, document.activeElement.id]").await;
    assert_eq!(b.site.hits("/boundary/key"), keys_before, "no key reached the denied frame");
    if code == json!(["123456", "code"]) {
        // Firefox keeps focus on the field the keys are for when a page focuses a frame of
        // another origin from an input handler: nothing moved, everything was typed there.
        assert_eq!(typed.status, Status::Succeeded, "{}", typed.summary);
    } else {
        assert_ne!(typed.status, Status::Succeeded, "{}", typed.summary);
        assert_eq!(code[0], json!("12"), "the keys after the focus move were withheld");
    }
    b.close(&tab).await;
}

/// Frames whose documents are inside authority (same-origin and cross-origin alike) are read,
/// found and awaited in document order; the denied host's frame stays out of all three.
async fn frames_inside(b: &Boundary<'_>) {
    let tab = b.open("/boundary/frames").await;
    let read = b.ok("browser_read", json!({"tab": tab, "mode": "visible"})).await;
    let text = read.facts["text"].as_str().unwrap_or_default();
    let order: Vec<Option<usize>> =
        ["Top text.", "After the frames.", "Inner same-origin words.", "Cross-origin words."]
            .iter()
            .map(|words| text.find(words))
            .collect();
    assert!(order.iter().all(Option::is_some), "every admitted text is read: {text:?}");
    assert!(
        order.windows(2).all(|pair| pair[0] < pair[1]),
        "page text, then frames in document order: {text:?}"
    );
    assert!(!text.contains("Press"), "the denied frame is not read: {text:?}");
    assert_eq!(read.facts["frames"], 2, "{:?}", read.facts);

    for (words, expected) in [("Inner same-origin", 1), ("Cross button", 1), ("Press", 0)] {
        let found = b.ok("browser_find", json!({"tab": tab, "text": words})).await;
        let matches = found.facts["matches"].as_array().map_or(0, Vec::len);
        assert_eq!(matches, expected, "find {words:?}: {:?}", found.facts);
    }
    // A found target inside a cross-origin frame is actionable.
    let button = b.ok("browser_find", json!({"tab": tab, "text": "Cross button"})).await;
    let target = button.facts["matches"][0][0].as_str().expect("a target").to_owned();
    b.ok("browser_click", json!({"tab": tab, "target": target})).await;

    let waited = b
        .call(
            "browser_wait",
            json!({"tab": tab, "condition": "text_present", "value": "Arrived later", "timeout_ms": 5000}),
        )
        .await;
    assert_eq!(
        waited.status,
        Status::Succeeded,
        "text appearing in a frame ends the wait: {}",
        waited.summary
    );
    let denied = b
        .call(
            "browser_wait",
            json!({"tab": tab, "condition": "text_present", "value": "Press", "timeout_ms": 300}),
        )
        .await;
    assert_eq!(
        denied.status,
        Status::Failed,
        "the denied frame's text never satisfies a wait: {}",
        denied.summary
    );
    b.close(&tab).await;
}

async fn keys_into_denied_frame(b: &Boundary<'_>) {
    let tab = b.open("/boundary/framed").await;
    // Give the denied frame's field focus, as a person's click would (the adapter's test
    // click, outside Ghostlight).
    b.person_clicks("/boundary/framed", "#denyform").await;
    let keys_before = b.site.hits("/boundary/key");
    // The frame's document holding focus without a focused element is the frame too.
    b.eval(&tab, "document.getElementById('deny').focus(); 0").await;
    let body_focus = b.call("browser_press_key", json!({"tab": tab, "key": "Enter"})).await;
    assert_frame_blocked(b, "Enter with focus in the frame's document", &body_focus);
    b.person_clicks("/boundary/framed", "#denyform").await;
    for (probe, tool, arguments) in [
        ("focused typing", "browser_type_text", json!({"tab": tab, "focused": true, "text": "hello"})),
        ("Enter", "browser_press_key", json!({"tab": tab, "key": "Enter"})),
        ("a character", "browser_press_key", json!({"tab": tab, "key": "x"})),
    ] {
        let envelope = b.call(tool, arguments).await;
        assert_frame_blocked(b, probe, &envelope);
    }
    assert_eq!(b.site.hits("/boundary/key"), keys_before, "no key reached the denied frame");
    assert_eq!(b.site.hits("/boundary/typed"), 0, "nothing was submitted there");
    b.close(&tab).await;
}

/// The RGB of image pixel `(x, y)` of a PNG.
fn pixel(png: &[u8], x: u32, y: u32) -> [u8; 3] {
    let image = image::load_from_memory_with_format(png, image::ImageFormat::Png).expect("a PNG").to_rgb8();
    image.get_pixel(x.min(image.width() - 1), y.min(image.height() - 1)).0
}

async fn screenshots_blank(b: &Boundary<'_>) {
    let tab = b.open("/boundary/framed").await;
    let css_width = b.eval(&tab, "window.innerWidth").await.as_f64().expect("innerWidth");
    for arguments in [json!({"tab": tab}), json!({"tab": tab, "full_page": true})] {
        let shot = b.result("browser_screenshot", arguments.clone()).await;
        assert_eq!(shot.envelope.status, Status::Succeeded, "{}", shot.envelope.summary);
        let png = &shot.attachments[0].bytes;
        let scale = shot.envelope.facts["width"].as_f64().expect("width") / css_width;
        let at = |x: f64, y: f64| pixel(png, (x * scale) as u32, (y * scale) as u32);
        assert_eq!(at(220.0, 200.0), [128, 128, 128], "{arguments}: the denied frame is blanked");
        assert_eq!(at(220.0, 380.0), [128, 128, 128], "{arguments}: both denied frames");
        assert_eq!(at(600.0, 60.0), [255, 255, 255], "{arguments}: the page itself shows");
    }
    b.close(&tab).await;
}

/// Whether any frame of a GIF shows pure red (the denied pages' colour).
fn gif_shows_red(gif: &[u8]) -> bool {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(gif).expect("a GIF");
    while let Some(frame) = decoder.read_next_frame().expect("a frame") {
        if frame.buffer.chunks(4).any(|p| p[0] > 200 && p[1] < 60 && p[2] < 60) {
            return true;
        }
    }
    false
}

async fn recordings(b: &Boundary<'_>) {
    let tab = b.open("/boundary/login").await;
    let started = b.ok("browser_record", json!({"action": "start", "tab": tab})).await;
    let recording = started.facts["recording"].clone();
    b.first_frame(&recording).await;
    // Away to the denied host (a script redirect), stopped there: the final frame is skipped.
    b.call("browser_navigate", json!({"tab": tab, "url": b.site.url("/boundary/out").as_str()})).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while b.eval_url(&tab).await.is_none_or(|url| !url.contains(HOST_B)) {
        assert!(tokio::time::Instant::now() < deadline, "the redirect did not land");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    b.ok("browser_record", json!({"action": "stop", "recording": recording})).await;
    b.ok("browser_navigate", json!({"tab": tab, "url": b.site.url("/boundary/login").as_str()})).await;
    let saved = b.result("browser_record", json!({"action": "save", "recording": recording})).await;
    assert_eq!(saved.envelope.status, Status::Succeeded, "{}", saved.envelope.summary);
    assert!(saved.envelope.facts["skipped_frames"].as_u64().unwrap_or(0) >= 1, "{:?}", saved.envelope.facts);
    assert!(!gif_shows_red(&saved.attachments[0].bytes), "no frame shows the denied page");
    b.close(&tab).await;
}

async fn download(b: &Boundary<'_>) {
    let tab = b.open("/boundary/wrap").await;
    let started = b.ok("browser_record", json!({"action": "start", "tab": tab})).await;
    let recording = started.facts["recording"].clone();
    b.first_frame(&recording).await;
    let leaks = b.site.hits("/boundary/leak");
    let downloads = dirs_downloads();
    let saved =
        b.ok("browser_record", json!({"action": "save", "download": true, "recording": recording})).await;
    assert_eq!(saved.facts["delivery"], "download");
    assert_eq!(b.eval(&tab, "window.captured").await, json!(0), "the page's wrapper never saw the replay");
    assert_eq!(b.site.hits("/boundary/leak"), leaks);
    // The browser saved it (both engines use ~/Downloads here): remove what this test made.
    if let Some(dir) = downloads {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("ghostlight-replay-") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    b.close(&tab).await;
}

/// The browsers' download folder here.
fn dirs_downloads() -> Option<std::path::PathBuf> {
    std::env::var_os("HOME").map(|home| std::path::PathBuf::from(home).join("Downloads"))
}

async fn titles(b: &Boundary<'_>) {
    let tab = b.open("/boundary/login").await;
    let moved =
        b.call("browser_navigate", json!({"tab": tab, "url": b.site.url("/boundary/out").as_str()})).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while b.eval_url(&tab).await.is_none_or(|url| !url.contains(HOST_B)) {
        assert!(tokio::time::Instant::now() < deadline, "the redirect did not land");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let listed = b.ok("browser_tabs", json!({"action": "list"})).await;
    for envelope in [&moved, &listed] {
        let text = serde_json::to_string(envelope).unwrap_or_default();
        assert!(!text.contains("Denied secret title"), "{text}");
        assert!(!text.contains("/boundary/secret"), "no path of a page outside authority: {text}");
    }
    b.close(&tab).await;
}

async fn links(b: &Boundary<'_>, uploads: &std::path::Path, elsewhere: &std::path::Path) {
    std::fs::write(elsewhere.join("secret.txt"), b"the secret").expect("write");
    std::fs::write(uploads.join("ok.txt"), b"fine").expect("write");
    std::os::unix::fs::symlink(elsewhere.join("secret.txt"), uploads.join("link.txt")).expect("a file link");
    std::os::unix::fs::symlink(elsewhere, uploads.join("d")).expect("a folder link");
    let tab = b.open("/boundary/upload").await;
    for path in [uploads.join("link.txt"), uploads.join("d").join("secret.txt")] {
        let refused = b
            .call("browser_upload", json!({"tab": tab, "selector": {"name": "Attachment"}, "paths": [path]}))
            .await;
        assert_eq!(refused.status, Status::Blocked, "{}: {}", path.display(), refused.summary);
        assert_eq!(refused.facts["reason"], "upload_root_denied");
        assert_eq!(b.eval(&tab, "document.getElementById('file').files.length").await, json!(0));
    }
    let ok = uploads.join("ok.txt");
    b.ok("browser_upload", json!({"tab": tab, "selector": {"name": "Attachment"}, "paths": [ok]})).await;
    assert_eq!(b.eval(&tab, "document.getElementById('file').files[0].name").await, json!("ok.txt"));
    b.close(&tab).await;
}

impl Boundary<'_> {
    /// Wait until `recording` holds a frame of the allowed page (a condition: under load the
    /// first capture can miss, and the capture task takes one every half second).
    async fn first_frame(&self, recording: &Value) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let status = self.ok("browser_record", json!({"action": "status", "recording": recording})).await;
            if status.facts["frames"].as_u64().unwrap_or(0) >= 1 {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no frame of the allowed page: {:?}",
                status.facts
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A real click (the adapter's test helper, not a Ghostlight call) on the element matching
    /// `selector` in the tab showing `path`, as a person's click would land.
    async fn person_clicks(&self, path: &str, selector: &str) {
        use ghostlight_core::port::BrowserPort;
        let url = self.site.url(path);
        let tabs = self.browser.tabs().await.expect("tabs");
        let tab = tabs.iter().find(|t| t.page.url == url).expect("the tab showing the page");
        self.browser.testing_click(&tab.tab, selector).await.expect("a real click");
    }

    /// The tab's governed URL as `browser_tabs` lists it (the page may be outside authority).
    async fn eval_url(&self, tab: &str) -> Option<String> {
        let listed = self.ok("browser_tabs", json!({"action": "list"})).await;
        listed.facts["tabs"]
            .as_array()?
            .iter()
            .find(|row| row["tab"] == tab)
            .and_then(|row| row["url"].as_str())
            .map(str::to_owned)
    }
}
