//! What every browser test target shares: engine selection, time-bounded scenarios, and a
//! one-host loopback site. Each target declares `mod harness;` once; its support module
//! re-exports what it uses and adds its own pages (`Site::start` there). `benches/tools/main.rs`
//! includes it by path, so it depends on nothing only a test target has.
//!
//! Every test runs against both engines unless `GHOSTLIGHT_TEST_ENGINES` (a comma-separated
//! list, e.g. `chromium`) limits them; a selected engine whose driver is missing fails loudly.
//! `GHOSTLIGHT_TEST_SCENARIOS` (comma-separated name fragments) runs only the scenarios whose
//! names contain one of them.

#![allow(dead_code, unreachable_pub)]

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_webdriver::Engine;
use url::Url;

/// Whether `GHOSTLIGHT_TEST_ENGINES` (default both) names `engine`.
pub fn wanted(engine: Engine) -> bool {
    let wanted = std::env::var("GHOSTLIGHT_TEST_ENGINES").unwrap_or_else(|_| "chromium,firefox".into());
    wanted.split(',').any(|name| name.trim().eq_ignore_ascii_case(engine.as_str()))
}

/// Whether `engine` is selected for this run; panics when it is selected but its driver is
/// not on `PATH`.
pub fn selected(engine: Engine) -> bool {
    if !wanted(engine) {
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

/// Run one named scenario within `limit`, printing its duration; answers its wall time
/// (`None` when `GHOSTLIGHT_TEST_SCENARIOS` skipped it).
pub async fn scenario_within<F: Future<Output = ()>>(
    limit: Duration,
    engine: Engine,
    name: &str,
    body: F,
) -> Option<Duration> {
    if let Ok(wanted) = std::env::var("GHOSTLIGHT_TEST_SCENARIOS")
        && !wanted.split(',').any(|part| !part.trim().is_empty() && name.contains(part.trim()))
    {
        return None;
    }
    let started = Instant::now();
    eprintln!("[{}] {name} …", engine.as_str());
    match tokio::time::timeout(limit, body).await {
        Ok(()) => {
            let took = started.elapsed();
            eprintln!("[{}] {name}: ok in {} ms", engine.as_str(), took.as_millis());
            Some(took)
        }
        Err(_) => panic!("[{}] {name} did not finish within {limit:?}", engine.as_str()),
    }
}

/// A loopback web site (tiny_http on 127.0.0.1:0) answering every request with the
/// `(status, HTML)` its responder gives for the path (without query or fragment) and the
/// site's port. Stopped on drop.
pub struct Site {
    server: Arc<tiny_http::Server>,
    port: u16,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Site {
    /// Serve `respond` until dropped.
    pub fn serve(respond: impl Fn(&str, u16) -> (u16, String) + Send + 'static) -> Site {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("a loopback test server"));
        let port = server.server_addr().to_ip().expect("an IP listener").port();
        let serving = Arc::clone(&server);
        let thread = std::thread::spawn(move || {
            for request in serving.incoming_requests() {
                let path = request.url().split(['?', '#']).next().unwrap_or("/").to_owned();
                let (status, body) = respond(&path, port);
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
