//! Shared support of the end-to-end tests and the tool benchmark: engine selection, timed
//! scenarios, and a fixture web site served on two loopback hosts.
//!
//! `benches/tools/main.rs` includes this module by path, so it must not depend on anything
//! that only a test target has.
//!
//! Every test runs against both engines unless `GHOSTLIGHT_TEST_ENGINES` (a comma-separated
//! list, e.g. `chromium`) limits them. A selected engine whose driver is missing fails
//! loudly. `GHOSTLIGHT_TEST_SCENARIOS` (comma-separated name fragments) runs only the
//! scenarios whose names contain one of them.

#![allow(dead_code, unreachable_pub)]

pub mod pages;

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ghostlight_webdriver::Engine;
use url::Url;

#[allow(unused_imports)] // each test target uses its own subset
pub use crate::harness::{selected, wanted};

/// The longest one scenario may take.
pub const SCENARIO_TIMEOUT: Duration = Duration::from_secs(90);

/// Run one named scenario within [`SCENARIO_TIMEOUT`], printing its duration; answers its
/// wall time (`None` when `GHOSTLIGHT_TEST_SCENARIOS` skipped it).
pub async fn scenario<F: Future<Output = ()>>(engine: Engine, name: &str, body: F) -> Option<Duration> {
    crate::harness::scenario_within(SCENARIO_TIMEOUT, engine, name, body).await
}

/// The first fixture host (every page).
pub const HOST_A: &str = "127.0.0.1";
/// The second fixture host (Linux routes all of 127/8 to loopback): `/landing` and the
/// shared pages.
pub const HOST_B: &str = "127.0.0.2";

/// What the site saw of requests, for pages and tests that ask.
#[derive(Debug, Default)]
pub struct Seen {
    /// Requests per path.
    pub hits: HashMap<String, u64>,
    /// The `Cache-Control` request header of the last request per path.
    pub cache_control: HashMap<String, String>,
}

/// The fixture site: one tiny_http server on 127.0.0.1 and one on 127.0.0.2, each on its
/// own port, serving [`pages::respond`]. Stopped on drop.
pub struct Site {
    servers: Vec<Arc<tiny_http::Server>>,
    threads: Vec<std::thread::JoinHandle<()>>,
    ports: [u16; 2],
    seen: Arc<Mutex<Seen>>,
}

/// What one request needs to know to be answered.
pub struct Ask<'a> {
    /// The path, without query or fragment.
    pub path: &'a str,
    /// The host the request came to ([`HOST_A`] or [`HOST_B`]).
    pub host: &'static str,
    /// The ports of both hosts.
    pub ports: [u16; 2],
    /// What the site saw so far (this request included).
    pub seen: &'a Seen,
    /// The request's `Cache-Control` header.
    pub cache_control: &'a str,
}

/// A response: status, content type, body, and extra headers.
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// Body.
    pub body: String,
    /// `Cache-Control` response header, if any.
    pub cache_control: Option<&'static str>,
}

impl Site {
    /// Start both servers.
    pub fn start() -> Site {
        let a = Arc::new(tiny_http::Server::http(format!("{HOST_A}:0")).expect("a server on 127.0.0.1"));
        let b = Arc::new(tiny_http::Server::http(format!("{HOST_B}:0")).expect("a server on 127.0.0.2"));
        let port = |s: &tiny_http::Server| s.server_addr().to_ip().expect("an IP listener").port();
        let ports = [port(&a), port(&b)];
        let seen = Arc::new(Mutex::new(Seen::default()));
        let mut threads = Vec::new();
        for (server, host) in [(Arc::clone(&a), HOST_A), (Arc::clone(&b), HOST_B)] {
            let seen = Arc::clone(&seen);
            threads.push(std::thread::spawn(move || serve(&server, host, ports, &seen)));
        }
        Site { servers: vec![a, b], threads, ports, seen }
    }

    /// The URL of `path` on the first host.
    pub fn url(&self, path: &str) -> Url {
        Url::parse(&format!("http://{HOST_A}:{}{path}", self.ports[0])).expect("a site URL")
    }

    /// The URL of `path` on the second host.
    pub fn url_b(&self, path: &str) -> Url {
        Url::parse(&format!("http://{HOST_B}:{}{path}", self.ports[1])).expect("a site URL")
    }

    /// How many requests `path` got so far (both hosts).
    pub fn hits(&self, path: &str) -> u64 {
        self.seen.lock().map(|seen| seen.hits.get(path).copied().unwrap_or(0)).unwrap_or(0)
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        for server in &self.servers {
            server.unblock();
        }
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

fn serve(server: &tiny_http::Server, host: &'static str, ports: [u16; 2], seen: &Mutex<Seen>) {
    for request in server.incoming_requests() {
        let path = request.url().split(['?', '#']).next().unwrap_or("/").to_owned();
        let cache_control = request
            .headers()
            .iter()
            .find(|h| h.field.equiv("Cache-Control"))
            .map(|h| h.value.as_str().to_owned())
            .unwrap_or_default();
        let reply = {
            let Ok(mut seen) = seen.lock() else { return };
            *seen.hits.entry(path.clone()).or_default() += 1;
            seen.cache_control.insert(path.clone(), cache_control.clone());
            pages::respond(&Ask { path: &path, host, ports, seen: &seen, cache_control: &cache_control })
        };
        let mut response = tiny_http::Response::from_string(reply.body).with_status_code(reply.status);
        let header = |name: &str, value: &str| {
            tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a static header")
        };
        response.add_header(header("Content-Type", reply.content_type));
        if let Some(cache) = reply.cache_control {
            response.add_header(header("Cache-Control", cache));
        }
        let _ = request.respond(response);
    }
}
