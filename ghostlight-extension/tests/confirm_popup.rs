//! Confirmation in the extension's popup, on headless Chromium with the repository's
//! extension loaded: the adapter asks (`ExtensionBrowser::ask_person`, what the CLI's
//! `PopupConfirmer` binds to a call's digest), and the test plays
//! the person by opening the popup page through chromedriver attached to the browser's
//! DevTools port and pressing Allow or Deny. Nothing else answers: the page cannot reach the
//! extension's pages, and Ghostlight refuses to drive them.
//!
//! Needs `chromedriver` on `PATH`. Run: `cargo test -p ghostlight-extension --test confirm_popup`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ghostlight_core::{ConfirmAction, ConfirmationRequest};
use ghostlight_extension::PopupAnswer;
use ghostlight_extension::identity::CHROMIUM_EXTENSION_ID;
use ghostlight_webdriver::Engine;
use serde_json::{Value, json};

#[path = "support/world.rs"]
mod world;
use world::World;

/// A chromedriver of the test's own, killed when dropped.
struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// One JSON request to chromedriver (HTTP/1.1, connection closed after the answer).
fn webdriver(port: u16, method: &str, path: &str, body: &Value) -> Value {
    let body = body.to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("chromedriver answers");
    stream.set_read_timeout(Some(Duration::from_secs(30))).expect("a timeout");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("the request is sent");
    let mut reader = BufReader::new(stream);
    let mut length = None;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("a header line");
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut text = Vec::new();
    match length {
        Some(n) => {
            text.resize(n, 0);
            reader.read_exact(&mut text).expect("the body");
        }
        None => {
            reader.read_to_end(&mut text).expect("the body");
        }
    }
    serde_json::from_slice(&text).unwrap_or(Value::Null)
}

fn start_driver() -> Driver {
    let port = free_port();
    let child = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    Driver { child, port }
}

/// Open the popup in a tab of the browser at `devtools` and press `button` (`allow` or
/// `deny`) once the question `needle` shows.
fn person_answers(devtools: &str, needle: &str, button: &str) -> Result<String, String> {
    let driver = start_driver();
    let session = webdriver(
        driver.port,
        "POST",
        "/session",
        &json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {"debuggerAddress": devtools}}}}),
    );
    let id = session["value"]["sessionId"].as_str().ok_or(format!("no session: {session}"))?.to_owned();
    let popup = format!("chrome-extension://{CHROMIUM_EXTENSION_ID}/popup.html");
    webdriver(driver.port, "POST", &format!("/session/{id}/url"), &json!({"url": popup}));
    let deadline = Instant::now() + Duration::from_secs(20);
    let shown = loop {
        let asked = webdriver(
            driver.port,
            "POST",
            &format!("/session/{id}/execute/sync"),
            &json!({"script": "const c = document.getElementById('confirm'); return c && !c.hidden ? document.getElementById('question').textContent : null;", "args": []}),
        );
        if let Some(text) = asked["value"].as_str() {
            break text.to_owned();
        }
        if Instant::now() > deadline {
            return Err(format!("the popup never showed the question: {asked}"));
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    if !shown.contains(needle) {
        return Err(format!("the popup shows {shown:?}"));
    }
    webdriver(
        driver.port,
        "POST",
        &format!("/session/{id}/execute/sync"),
        &json!({"script": format!("document.getElementById('{button}').click(); return true;"), "args": []}),
    );
    // Leave the tab on an ordinary page: chromedriver attaches only to a browser that shows one.
    webdriver(driver.port, "POST", &format!("/session/{id}/url"), &json!({"url": "about:blank"}));
    Ok(shown)
}

fn question(control: &str) -> ConfirmationRequest {
    ConfirmationRequest {
        tool: "browser_click",
        action: ConfirmAction::Submit,
        host: "shop.example".into(),
        control: Some(control.into()),
        digest: digest_of(control),
    }
}

/// A digest for the test's questions (the executor computes real ones).
fn digest_of(control: &str) -> ghostlight_core::ConfirmationDigest {
    // Any digest serves: the popup never sees it, and the answer must carry it back.
    let _ = control;
    ghostlight_core::ConfirmationDigest::from_bytes([7; 32])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_popup_asks_and_the_person_answers() {
    assert!(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .any(|d| d.join("chromedriver").is_file()),
        "chromedriver is not on PATH"
    );
    let world = World::start(Engine::Chromium).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let devtools = loop {
        if let Some(address) = world.devtools() {
            break address;
        }
        assert!(Instant::now() < deadline, "Chromium wrote no DevToolsActivePort");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };

    for (button, expected) in [("allow", "accepted"), ("deny", "declined")] {
        let request = question("the \"Pay\" button");
        let browser = world.browser.clone();
        let asking = tokio::spawn(async move { browser.ask_person(request.question()).await });
        let address = devtools.clone();
        let shown = tokio::task::spawn_blocking(move || {
            person_answers(
                &address,
                "Allow browser_click to submit with the \"Pay\" button on shop.example?",
                button,
            )
        })
        .await
        .expect("the person's side ran");
        let shown = shown.unwrap_or_else(|e| panic!("{button}: {e}"));
        let answer = asking.await.expect("the question ended");
        let kind = match answer {
            Some(PopupAnswer::Allowed) => "accepted",
            Some(PopupAnswer::Denied) => "declined",
            Some(PopupAnswer::Dismissed) => "cancelled",
            None => "unavailable",
        };
        assert_eq!(kind, expected, "{button} on {shown:?}");
    }
    world.teardown().await;
}
