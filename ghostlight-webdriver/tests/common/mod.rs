//! Shared helpers of the integration tests: engine selection, a loopback test site, process
//! inspection, and timed scenarios.
//!
//! Every test runs against both engines unless `GHOSTLIGHT_TEST_ENGINES` (a comma-separated
//! list, e.g. `chromium`) limits them locally. A selected engine whose driver is missing
//! fails the test loudly: CI installs both.

#![allow(dead_code, unreachable_pub)]

use std::future::Future;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ghostlight_webdriver::Engine;
use url::Url;

#[allow(unused_imports)] // each test target uses its own subset
pub use crate::harness::{Site, selected};

/// The longest one scenario may take.
pub const SCENARIO_TIMEOUT: Duration = Duration::from_secs(90);

/// Run one named scenario within [`SCENARIO_TIMEOUT`], printing its duration.
pub async fn scenario<F: Future<Output = ()>>(engine: Engine, name: &str, body: F) {
    crate::harness::scenario_within(SCENARIO_TIMEOUT, engine, name, body).await;
}

/// How long `/slow` takes to answer: longer than Firefox's prompt probe (2 s), so a Firefox
/// navigation to it goes through the adapter's own wait for the page.
pub const SLOW_PAGE_DELAY: Duration = Duration::from_millis(2500);

/// The site's pages:
///
/// - `/unload`: a page that asks to confirm leaving (`beforeunload`) once it was clicked;
/// - `/slow`: a page whose response is delayed by [`SLOW_PAGE_DELAY`];
/// - `/closer`: a page whose "Close this tab" button makes the page close its own tab
///   (`window.close()` shortly after the click, so the click itself answers first);
/// - `/opener`: a page whose "Open a closer" button opens `/closer?popup` by script;
/// - any other path: a page titled after the path (`/a` → `A`) with a button.
impl Site {
    /// Start the site.
    pub fn start() -> Site {
        Site::serve(|path, _| {
            if path == "/slow" {
                std::thread::sleep(SLOW_PAGE_DELAY);
            }
            (200, page(path))
        })
    }
}

fn page(path: &str) -> String {
    if path == "/unload" {
        return "<!doctype html><title>Unload</title>\
            <button id=arm onclick=\"window.armed = true\">Arm</button>\
            <script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; });</script>"
            .into();
    }
    if path == "/closer" {
        return "<!doctype html><title>Closer</title><h1>Closer</h1>\
            <button id=close onclick=\"setTimeout(() => window.close(), 300)\">Close this tab</button>\
"
        .into();
    }
    if path == "/opener" {
        return "<!doctype html><title>Opener</title><h1>Opener</h1>\
            <button id=open onclick=\"window.open('/closer?popup')\">Open a closer</button>"
            .into();
    }
    let name = path.trim_start_matches('/');
    let title = name.to_uppercase();
    format!(
        "<!doctype html><title>{title}</title><h1>{title}</h1><button id=b>Button {title}</button>\
         <div style=\"height: 3000px\"></div>"
    )
}

/// A loopback server (its own port on 127.0.0.1) whose every answer never finishes: it sends
/// the headers and the start of a page, then holds the connection open until the server is
/// released (on drop at the latest), so the page never finishes loading.
pub struct Hanging {
    port: u16,
    released: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Connections accepted so far.
    accepted: Arc<AtomicUsize>,
}

impl Hanging {
    /// Start the server.
    pub fn start() -> Hanging {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback listener");
        listener.set_nonblocking(true).expect("a non-blocking listener");
        let port = listener.local_addr().expect("a bound address").port();
        let released = Arc::new(AtomicBool::new(false));
        let accepted = Arc::new(AtomicUsize::new(0));
        let (flag, count) = (Arc::clone(&released), Arc::clone(&accepted));
        let thread = std::thread::spawn(move || {
            let mut held = Vec::new();
            while !flag.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        count.fetch_add(1, Ordering::SeqCst);
                        let flag = Arc::clone(&flag);
                        held.push(std::thread::spawn(move || hold(stream, &flag)));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
            for connection in held {
                let _ = connection.join();
            }
        });
        Hanging { port, released, thread: Some(thread), accepted }
    }

    /// The URL of `path` on this server.
    pub fn url(&self, path: &str) -> Url {
        Url::parse(&format!("http://127.0.0.1:{}{path}", self.port)).expect("a hanging URL")
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    /// Close every held connection and stop accepting; waits for the server's threads.
    pub fn release(&mut self) {
        self.released.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Hanging {
    fn drop(&mut self) {
        self.release();
    }
}

/// Answer one connection with headers and half a page, then hold it until `released`.
fn hold(mut stream: TcpStream, released: &AtomicBool) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut request = Vec::new();
    let mut buffer = [0_u8; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => request.extend_from_slice(&buffer[..n]),
        }
    }
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: 100000\r\n\r\n\
                <!doctype html><title>Hanging</title><h1>Still loading</h1><p>The rest never comes";
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.flush();
    while !released.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// Processes (not zombies) whose command line contains `needle`.
pub fn processes_with(needle: &Path) -> Vec<u32> {
    let needle = needle.to_string_lossy().into_owned();
    scan(|pid, cmdline, _| (!cmdline.is_empty() && cmdline.contains(&needle)).then_some(pid))
}

/// Live (not zombie) processes of process group `group`.
pub fn processes_in_group(group: u32) -> Vec<u32> {
    scan(|pid, _, stat| (stat.group == group && stat.state != 'Z').then_some(pid))
}

/// The driver: the child of the group's watchdog that is not the watchdog's own reader.
pub fn driver_of(group: u32) -> Option<u32> {
    scan(|pid, cmdline, stat| {
        (stat.parent == group
            && stat.state != 'Z'
            && (cmdline.contains("chromedriver") || cmdline.contains("geckodriver")))
        .then_some(pid)
    })
    .first()
    .copied()
}

/// The browser's main process: a child of the driver (in `group`) whose command line names
/// the profile.
pub fn browser_main(group: u32, profile: &Path) -> Option<u32> {
    let driver = driver_of(group)?;
    let needle = profile.to_string_lossy().into_owned();
    scan(|pid, cmdline, stat| (stat.parent == driver && cmdline.contains(&needle)).then_some(pid))
        .first()
        .copied()
}

/// The live child processes of this test process.
pub fn own_children() -> Vec<u32> {
    let me = std::process::id();
    scan(|pid, _, stat| (stat.parent == me && stat.state != 'Z').then_some(pid))
}

/// Poll `check` until it answers true or `limit` passes.
pub async fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if check() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

struct Stat {
    state: char,
    parent: u32,
    group: u32,
}

fn scan(mut keep: impl FnMut(u32, &str, &Stat) -> Option<u32>) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return found };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline"))
            .map(|bytes| String::from_utf8_lossy(&bytes).replace('\0', " "))
            .unwrap_or_default();
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // Fields after the parenthesised command name: state ppid pgrp …
        let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let (Some(state), Some(parent), Some(group)) = (
            fields.first().and_then(|s| s.chars().next()),
            fields.get(1).and_then(|s| s.parse().ok()),
            fields.get(2).and_then(|s| s.parse().ok()),
        ) else {
            continue;
        };
        if let Some(pid) = keep(pid, &cmdline, &Stat { state, parent, group }) {
            found.push(pid);
        }
    }
    found
}
