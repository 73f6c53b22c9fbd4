//! Support for the input tests: engine selection, a loopback site serving fixed pages, and
//! timed scenarios.
//!
//! Every test runs against both engines unless `GHOSTLIGHT_TEST_ENGINES` (a comma-separated
//! list, e.g. `chromium`) limits them. A selected engine whose driver is missing fails loudly.

#![allow(dead_code, unreachable_pub)]

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_webdriver::Engine;
use url::Url;

/// The longest one scenario may take.
pub const SCENARIO_TIMEOUT: Duration = Duration::from_secs(90);

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
    assert!(found, "{driver} is not on PATH: install it, or limit GHOSTLIGHT_TEST_ENGINES");
    true
}

/// Run one named scenario with a time bound, printing its duration. When
/// `GHOSTLIGHT_TEST_SCENARIOS` is set (a comma-separated list of name fragments), only the
/// scenarios whose name contains one of them run.
pub async fn scenario<F: Future<Output = ()>>(engine: Engine, name: &str, body: F) {
    if let Ok(wanted) = std::env::var("GHOSTLIGHT_TEST_SCENARIOS")
        && !wanted.split(',').any(|part| !part.trim().is_empty() && name.contains(part.trim()))
    {
        return;
    }
    let started = Instant::now();
    eprintln!("[{}] {name} …", engine.as_str());
    match tokio::time::timeout(SCENARIO_TIMEOUT, body).await {
        Ok(()) => eprintln!("[{}] {name}: ok in {} ms", engine.as_str(), started.elapsed().as_millis()),
        Err(_) => panic!("[{}] {name} did not finish within {SCENARIO_TIMEOUT:?}", engine.as_str()),
    }
}

/// A loopback web site (tiny_http on 127.0.0.1:0) serving `pages` (path → HTML), stopped on
/// drop. Unknown paths answer 404.
pub struct Site {
    server: Arc<tiny_http::Server>,
    port: u16,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Site {
    /// Start serving `pages`.
    pub fn start(pages: &[(&'static str, &'static str)]) -> Site {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("a loopback test server"));
        let port = server.server_addr().to_ip().expect("an IP listener").port();
        let serving = Arc::clone(&server);
        let pages: Vec<(&'static str, &'static str)> = pages.to_vec();
        let thread = std::thread::spawn(move || {
            for request in serving.incoming_requests() {
                let path = request.url().split(['?', '#']).next().unwrap_or("/").to_owned();
                let header =
                    tiny_http::Header::from_bytes(&b"Content-Type"[..], &b"text/html; charset=utf-8"[..])
                        .expect("a static header");
                let response = match pages.iter().find(|(p, _)| *p == path) {
                    Some((_, body)) => tiny_http::Response::from_string(*body).with_header(header),
                    None => tiny_http::Response::from_string("not found").with_status_code(404),
                };
                let _ = request.respond(response);
            }
        });
        Site { server, port, thread: Some(thread) }
    }

    /// The URL of `path` on this site.
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
