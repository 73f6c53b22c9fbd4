//! Helpers of the perception tests: engine selection, timed scenarios, and a loopback site
//! serving the fixture pages (`pages.rs`).
//!
//! Every test runs against both engines unless `GHOSTLIGHT_TEST_ENGINES` (a comma-separated
//! list, e.g. `chromium`) limits them. A selected engine whose driver is missing fails loudly.

#![allow(dead_code, unreachable_pub)]

pub mod pages;

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_webdriver::Engine;
use url::Url;

/// The longest one scenario may take.
pub const SCENARIO_TIMEOUT: Duration = Duration::from_secs(120);

/// Whether `engine` is selected for this run; panics when it is selected but its driver is
/// not on `PATH`.
pub fn selected(engine: Engine) -> bool {
    let wanted = std::env::var("GHOSTLIGHT_TEST_ENGINES").unwrap_or_else(|_| "chromium,firefox".into());
    if !wanted.split(',').any(|name| name.trim().eq_ignore_ascii_case(engine.as_str())) {
        eprintln!("[{}] skipped: not in GHOSTLIGHT_TEST_ENGINES", engine.as_str());
        return false;
    }
    let driver = engine.driver_name();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path).any(|dir| dir.join(driver).is_file());
    assert!(
        found,
        "{driver} is not on PATH: install it, or limit GHOSTLIGHT_TEST_ENGINES to the engines you have"
    );
    true
}

/// Run one named scenario with a time bound, printing its duration.
pub async fn scenario<F: Future<Output = ()>>(engine: Engine, name: &str, body: F) {
    let started = Instant::now();
    eprintln!("[{}] {name} …", engine.as_str());
    match tokio::time::timeout(SCENARIO_TIMEOUT, body).await {
        Ok(()) => eprintln!("[{}] {name}: ok in {} ms", engine.as_str(), started.elapsed().as_millis()),
        Err(_) => panic!("[{}] {name} did not finish within {SCENARIO_TIMEOUT:?}", engine.as_str()),
    }
}

/// A loopback web site (tiny_http on 127.0.0.1:0) serving [`pages::page`], stopped on drop.
/// The same server answers as `127.0.0.1` and as `localhost`: two origins, for cross-origin
/// frames.
pub struct Site {
    server: Arc<tiny_http::Server>,
    port: u16,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Site {
    /// Start the site.
    pub fn start() -> Site {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("a loopback test server"));
        let port = server.server_addr().to_ip().expect("an IP listener").port();
        let serving = Arc::clone(&server);
        let thread = std::thread::spawn(move || {
            for request in serving.incoming_requests() {
                let path = request.url().split(['?', '#']).next().unwrap_or("/").to_owned();
                let (status, body) = match pages::page(&path, port) {
                    Some(body) => (200, body),
                    None => (404, "<!doctype html><title>Not found</title>".to_owned()),
                };
                let header =
                    tiny_http::Header::from_bytes(&b"Content-Type"[..], &b"text/html; charset=utf-8"[..])
                        .expect("a static header");
                let response =
                    tiny_http::Response::from_string(body).with_header(header).with_status_code(status);
                let _ = request.respond(response);
            }
        });
        Site { server, port, thread: Some(thread) }
    }

    /// The URL of `path` on this site (origin `http://127.0.0.1:<port>`).
    pub fn url(&self, path: &str) -> Url {
        Url::parse(&format!("http://127.0.0.1:{}{path}", self.port)).expect("a site URL")
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
