//! Round trips, counted: each tool runs once against a fixture page on headless Chromium and
//! Firefox, and the classic WebDriver commands and WebDriver BiDi commands it sent (with
//! their bytes, as the adapter counts them: `WebDriverBrowser::wire_counts`) are compared
//! with the table the repository keeps, `tests/round_trips/<engine>.md`. With
//! `GHOSTLIGHT_TEST_SHARED=1` a Chromium session is seated in a user context of a shared
//! browser (as the HTTP server runs them) and its table is `tests/round_trips/chromium-seated.md`.
//!
//! Counts, not times: a call that waits for nothing sends the same commands every run, so
//! this guard never flakes on a slow machine. A change that adds a round trip fails here until
//! the table is updated on purpose; a change that saves one fails too, so the table stays
//! true. Bytes may drift by a few per cent (port numbers, element ids), and only growth
//! past [`BYTES_SLACK`] fails.
//!
//! Rewrite the tables after a deliberate change:
//! `GHOSTLIGHT_BLESS=1 cargo test -p ghostlight-webdriver --all-features --test round_trips`.
//! A call whose counts differ prints the commands it sent; `GHOSTLIGHT_ROUND_TRIPS_LOG=1`
//! prints them for every call.

mod support;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ghostlight_core::port::TabRef;
use ghostlight_core::{BrowserPort, Envelope, Ghostlight, Status};
use ghostlight_webdriver::{Engine, WebDriverBrowser, WireCounts};
use serde_json::{Value, json};
use support::engines::browser;
use support::server::Site;
use support::sites::e2e;
use support::tools::{call, governed, ok};

/// Growth of a call's bytes sent that fails the guard: 10 % of the table's figure, plus this
/// many bytes (URLs carry the test server's port; element ids differ in length).
const BYTES_SLACK: u64 = 512;

per_engine!(#[tokio::test(flavor = "multi_thread")] chromium, firefox => run);

/// One measured call: its tool, a short description, and what it sent.
struct Measured {
    tool: &'static str,
    call: &'static str,
    sent: WireCounts,
    /// The commands, as the adapter logs them (method and path).
    commands: Vec<String>,
}

/// The browser, Ghostlight over it, the fixture site, and the measurements so far.
struct Guard {
    browser: Arc<WebDriverBrowser>,
    g: Ghostlight,
    site: Site,
    rows: Vec<Measured>,
}

impl Guard {
    /// Load the fixture at `path` (not measured).
    async fn goto(&self, path: &str) {
        ok(&self.g, "browser_navigate", json!({ "url": self.site.url(path).as_str() })).await;
    }

    /// The tab the measured calls run in (the only one Ghostlight controls).
    async fn tab(&self) -> TabRef {
        let listed = self.browser.tabs().await.expect("tabs");
        let url =
            call(&self.g, "browser_tabs", json!({ "action": "list" })).await.facts["tabs"][0]["url"].clone();
        listed.into_iter().find(|t| json!(t.page.url.as_str()) == url).expect("the controlled tab").tab
    }

    /// Run `tool` once, which must succeed, and record what it sent; answers its envelope.
    async fn measure(&mut self, tool: &'static str, description: &'static str, arguments: Value) -> Envelope {
        self.browser.take_command_log();
        let before = self.browser.wire_counts();
        let envelope = call(&self.g, tool, arguments.clone()).await;
        let sent = self.browser.wire_counts().since(&before);
        let commands = self.browser.take_command_log();
        assert_eq!(envelope.status, Status::Succeeded, "{tool} {arguments}: {}", envelope.summary);
        if std::env::var_os("GHOSTLIGHT_ROUND_TRIPS_LOG").is_some() {
            eprintln!("{tool} ({description}):\n  {}", commands.join("\n  "));
        }
        self.rows.push(Measured { tool, call: description, sent, commands });
        envelope
    }
}

async fn run(engine: Engine) {
    let uploads = tempfile::tempdir().expect("an uploads folder");
    let browser = browser(engine);
    let g = governed(
        browser.clone(),
        json!({
            "capabilities": { "allow": ["execute"] },
            "uploads": { "roots": [uploads.path().canonicalize().expect("a folder").to_string_lossy()] },
        }),
    );
    browser.log_commands(true);
    let mut guard = Guard { browser: browser.clone(), g, site: e2e::start(), rows: Vec::new() };
    // The session starts (and its first page loads) before anything is measured.
    guard.goto("/counter").await;
    cases(&mut guard).await;
    browser.shutdown().await;
    compare(engine, &guard.rows);
}

async fn cases(t: &mut Guard) {
    // Tabs, navigation, window.
    t.goto("/counter").await;
    t.measure("browser_tabs", "list (one tab)", json!({ "action": "list" })).await;
    let form = t.site.url("/form");
    t.measure("browser_navigate", "to another page", json!({ "url": form.as_str() })).await;
    t.measure("browser_history", "reload", json!({ "action": "reload" })).await;
    t.measure("browser_window", "resize", json!({ "action": "resize", "width": 1200, "height": 760 })).await;
    t.measure("browser_window", "resize back", json!({ "action": "resize", "width": 1280, "height": 800 }))
        .await;

    // Perception.
    t.goto("/article").await;
    t.measure("browser_read", "article", json!({ "mode": "article" })).await;
    // A page with a frame: its visible text joins the frame's, read where the frame is.
    t.goto("/frames").await;
    let read = t.measure("browser_read", "visible text, one frame", json!({ "mode": "visible" })).await;
    let text = read.facts["text"].as_str().expect("the text read");
    assert!(text.contains("Frame clicks") && text.contains("Frame button"), "{text}");
    let seen = t.measure("browser_inspect", "controls, one frame", json!({})).await;
    let items = seen.facts["items"].to_string();
    assert!(items.contains("Frame button"), "{items}");
    t.measure("browser_click", "a button in the frame", json!({ "selector": { "name": "Frame button" } }))
        .await;
    t.goto("/form").await;
    t.measure("browser_inspect", "controls", json!({})).await;
    t.measure("browser_find", "a button's text", json!({ "text": "Create account" })).await;
    t.measure("browser_inspect", "forms", json!({ "scope": "forms" })).await;

    // Forms and keys.
    t.goto("/form").await;
    t.measure(
        "browser_fill_form",
        "7 fields by selector + submit",
        json!({
            "fields": [
                { "selector": { "name": "Full name" }, "value": "Ada Lovelace" },
                { "selector": { "name": "Email" }, "value": "ada@example.com" },
                { "selector": { "name": "Bio" }, "value": "Mathematician" },
                { "selector": { "name": "Country" }, "value": "fr" },
                { "selector": { "name": "Agree to terms" }, "value": true },
                { "selector": { "name": "Seats" }, "value": "3" },
                { "selector": { "name": "Start date" }, "value": "2026-12-06" },
            ],
            "submit_selector": { "name": "Create account" },
        }),
    )
    .await;
    t.goto("/keys").await;
    t.measure(
        "browser_type_text",
        "5 characters, clear_first",
        json!({ "selector": { "name": "Search" }, "text": "hello", "clear_first": true }),
    )
    .await;
    t.measure(
        "browser_press_key",
        "one key into a field",
        json!({ "key": "a", "selector": { "name": "Search" } }),
    )
    .await;

    // Pointer, capture, waits.
    t.goto("/counter").await;
    t.measure("browser_click", "a button by selector", json!({ "selector": { "name": "Increment" } })).await;
    t.measure("browser_hover", "a button by selector", json!({ "selector": { "name": "Hover target" } }))
        .await;
    // A document whose sandbox lacks the library (as one from before its preload): the first
    // sandboxed call sends it once, the next is slim again.
    let tab = t.tab().await;
    t.browser.testing_forget_sandbox_library(&tab).await.expect("the library removed");
    t.measure(
        "browser_click",
        "library missing in the sandbox",
        json!({ "selector": { "name": "Increment" } }),
    )
    .await;
    t.measure("browser_click", "library installed again", json!({ "selector": { "name": "Increment" } }))
        .await;
    t.measure("browser_scroll", "page down", json!({ "direction": "down" })).await;
    t.measure("browser_scroll", "page up", json!({ "direction": "up" })).await;
    let shot = t.measure("browser_screenshot", "viewport", json!({})).await;
    let view = shot.facts["view"].as_str().expect("a view handle").to_owned();
    t.measure(
        "browser_screenshot",
        "a region of that view",
        json!({ "view": view, "x": 0, "y": 0, "width": 200, "height": 100 }),
    )
    .await;
    t.measure(
        "browser_wait",
        "text_present (holds)",
        json!({ "condition": "text_present", "value": "Count" }),
    )
    .await;
    t.measure(
        "browser_sequence",
        "click + wait",
        json!({ "steps": [
            { "action": "click", "selector": { "name": "Increment" } },
            { "action": "wait", "condition": "text_present", "value": "Count" },
        ] }),
    )
    .await;
    t.measure(
        "browser_flow",
        "inspect, click (flow_ref), read",
        json!({ "steps": [
            { "id": "look", "tool": "browser_inspect", "arguments": {} },
            { "id": "press", "tool": "browser_click",
              "arguments": { "target": { "flow_ref": { "step": "look", "pointer": "/facts/items/0/0" } } } },
            { "id": "see", "tool": "browser_read", "arguments": { "mode": "visible" } },
        ] }),
    )
    .await;
    t.measure("browser_execute", "document.title", json!({ "script": "document.title" })).await;
    t.measure("browser_diagnose", "first call (tracking starts)", json!({})).await;
    t.measure("browser_diagnose", "again", json!({})).await;
    t.measure("policy_explain", "-", json!({})).await;

    // Drag and upload.
    t.goto("/drag").await;
    t.measure(
        "browser_drag",
        "HTML5 card to its target",
        json!({ "source_selector": { "name": "Drag card" }, "destination_selector": { "name": "Drop target" } }),
    )
    .await;
    t.goto("/upload").await;
    t.measure(
        "browser_upload",
        "1 inline file by selector",
        json!({ "selector": { "name": "Attachments" }, "files": [{ "name": "a.txt", "data_base64": "YWFh" }] }),
    )
    .await;

    // Dialogs: an alert opened (not measured), then its status and accept.
    t.goto("/dialogs").await;
    t.measure("browser_dialog", "status, none open", json!({ "action": "status" })).await;
    ok(&t.g, "browser_execute", json!({ "script": "setTimeout(() => alert('guard'), 0); 0" })).await;
    let mut open = false;
    for _ in 0..100 {
        let status = call(&t.g, "browser_dialog", json!({ "action": "status" })).await;
        if status.facts.get("present") == Some(&json!(true)) {
            open = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(open, "the alert opened");
    let status = t.measure("browser_dialog", "status, an alert open", json!({ "action": "status" })).await;
    assert_eq!(status.facts["present"], true, "{}", status.summary);
    let accepted = t.measure("browser_dialog", "accept an alert", json!({ "action": "accept" })).await;
    assert_eq!(accepted.facts["dialog_type"], "alert", "{}", accepted.summary);

    // A wait for text that appears 1.5 s after the page loaded (issue 32: one round trip where
    // one will do; the count must not depend on how long the text took).
    t.goto("/slow-text").await;
    let waited = t
        .measure(
            "browser_wait",
            "text appears after 1.5 s",
            json!({ "condition": "text_present", "value": "Report ready", "timeout_ms": 5000 }),
        )
        .await;
    eprintln!("text appears after 1.5 s: {}", waited.summary);
}

/// The table's path for `engine`: `<engine>.md`, or `<engine>-seated.md` for a session in a
/// user context of a shared browser (`GHOSTLIGHT_TEST_SHARED=1`, as the HTTP server runs
/// Chromium sessions).
fn table_path(engine: Engine) -> PathBuf {
    let seated = if support::engines::seated(engine) { "-seated" } else { "" };
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/round_trips")
        .join(format!("{}{seated}.md", engine.as_str()))
}

/// The measurements as the table the repository keeps.
fn render(engine: Engine, rows: &[Measured]) -> String {
    let seated = support::engines::seated(engine);
    let mut out = format!(
        "# Round trips on {}{} (`tests/round_trips.rs`)\n\n\
         Commands each tool sent its driver for one call on the fixture pages. Rewrite with\n\
         `{}GHOSTLIGHT_BLESS=1 cargo test -p ghostlight-webdriver --all-features --test round_trips`.\n\n\
         | tool | call | classic | BiDi | BiDi connections opened | bytes sent |\n\
         | --- | --- | ---: | ---: | ---: | ---: |\n",
        engine.display_name(),
        if seated { ", a session in a user context of a shared browser" } else { "" },
        if seated { "GHOSTLIGHT_TEST_SHARED=1 GHOSTLIGHT_TEST_ENGINES=chromium " } else { "" },
    );
    for row in rows {
        let s = &row.sent;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            row.tool,
            row.call,
            s.classic_commands,
            s.bidi_commands,
            s.bidi_connections,
            s.bytes()
        );
    }
    out
}

/// One kept row's figures.
#[derive(Debug, Clone, Copy)]
struct Kept {
    classic: u64,
    bidi: u64,
    connections: u64,
    bytes: u64,
}

/// The table's rows: `(tool, call)` → figures.
fn parse(table: &str) -> BTreeMap<(String, String), Kept> {
    table
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> =
                line.trim().strip_prefix('|')?.strip_suffix('|')?.split('|').map(str::trim).collect();
            let [tool, call, classic, bidi, connections, bytes] = cells.as_slice() else { return None };
            let kept = Kept {
                classic: classic.parse().ok()?,
                bidi: bidi.parse().ok()?,
                connections: connections.parse().ok()?,
                bytes: bytes.parse().ok()?,
            };
            Some(((tool.to_string(), call.to_string()), kept))
        })
        .collect()
}

/// Compare the measurements with the kept table (or rewrite it with `GHOSTLIGHT_BLESS=1`).
fn compare(engine: Engine, rows: &[Measured]) {
    let rendered = render(engine, rows);
    eprintln!("{rendered}");
    let path = table_path(engine);
    if std::env::var_os("GHOSTLIGHT_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("the tables' folder");
        std::fs::write(&path, &rendered).expect("the table written");
        return;
    }
    let kept = parse(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    let mut problems = Vec::new();
    for row in rows {
        let key = (row.tool.to_owned(), row.call.to_owned());
        let s = &row.sent;
        match kept.get(&key) {
            None => problems.push(format!("{} ({}): not in the table", row.tool, row.call)),
            Some(&Kept { classic, bidi, connections, bytes }) => {
                if (s.classic_commands, s.bidi_commands) != (classic, bidi) {
                    problems.push(format!(
                        "{} ({}): {} classic + {} BiDi commands, the table says {classic} + {bidi}:\n    {}",
                        row.tool,
                        row.call,
                        s.classic_commands,
                        s.bidi_commands,
                        row.commands.join("\n    ")
                    ));
                }
                if s.bidi_connections != connections {
                    problems.push(format!(
                        "{} ({}): opened {} BiDi connections, the table says {connections}",
                        row.tool, row.call, s.bidi_connections
                    ));
                }
                if s.bytes() > bytes + bytes / 10 + BYTES_SLACK {
                    problems.push(format!(
                        "{} ({}): {} bytes sent, the table says {bytes}",
                        row.tool,
                        row.call,
                        s.bytes()
                    ));
                }
            }
        }
    }
    if kept.len() != rows.len() {
        problems.push(format!("the table has {} rows, {} calls were measured", kept.len(), rows.len()));
    }
    assert!(
        problems.is_empty(),
        "{} round trips differ from {}:\n- {}\nUpdate the table on purpose (GHOSTLIGHT_BLESS=1).",
        engine.as_str(),
        path.display(),
        problems.join("\n- ")
    );
}
