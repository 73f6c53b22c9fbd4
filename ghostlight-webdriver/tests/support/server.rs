//! The loopback page server: one tiny_http server on 127.0.0.1 and one on 127.0.0.2 (Linux
//! routes all of 127/8 to loopback), each on its own port, answering every request with what a
//! responder makes of it. Stopped on drop.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use url::Url;

/// The first host (every page).
pub(crate) const HOST_A: &str = "127.0.0.1";
/// The second host, same machine and another origin: the fixture sites use it for
/// governance (a host outside authority) and cross-host landings.
pub(crate) const HOST_B: &str = "127.0.0.2";

/// What the server saw of requests, for pages and tests that ask.
#[derive(Debug, Default, Clone)]
pub(crate) struct Seen {
    /// Requests per path.
    pub(crate) hits: HashMap<String, u64>,
    /// The `Cache-Control` request header of the last request per path.
    pub(crate) cache_control: HashMap<String, String>,
}

/// What one request needs to know to be answered.
pub(crate) struct Ask<'a> {
    /// The path, without query or fragment.
    pub(crate) path: &'a str,
    /// The host the request came to ([`HOST_A`] or [`HOST_B`]).
    pub(crate) host: &'static str,
    /// The ports of both hosts.
    pub(crate) ports: [u16; 2],
    /// What the server saw so far (this request included).
    pub(crate) seen: &'a Seen,
    /// The request's `Cache-Control` header.
    pub(crate) cache_control: &'a str,
}

/// A response: status, content type, body, and extra headers.
pub(crate) struct Reply {
    /// HTTP status.
    pub(crate) status: u16,
    /// `Content-Type`.
    pub(crate) content_type: &'static str,
    /// Body.
    pub(crate) body: String,
    /// `Cache-Control` response header, if any.
    pub(crate) cache_control: Option<&'static str>,
    /// `Location` response header (a redirect), if any.
    pub(crate) location: Option<String>,
}

impl Reply {
    /// An HTML page with `status`.
    pub(crate) fn html(status: u16, body: impl Into<String>) -> Reply {
        Reply {
            status,
            content_type: "text/html; charset=utf-8",
            body: body.into(),
            cache_control: None,
            location: None,
        }
    }

    /// A redirect with `status` (302, 307, …) to `location`.
    pub(crate) fn redirect(status: u16, location: impl Into<String>) -> Reply {
        Reply { location: Some(location.into()), ..Reply::html(status, "") }
    }
}

/// The running server (see the module documentation).
pub(crate) struct Site {
    servers: Vec<Arc<tiny_http::Server>>,
    threads: Vec<std::thread::JoinHandle<()>>,
    ports: [u16; 2],
    seen: Arc<Mutex<Seen>>,
}

impl Site {
    /// Serve `respond` on both hosts until dropped.
    pub(crate) fn serve(respond: impl Fn(&Ask<'_>) -> Reply + Send + Sync + 'static) -> Site {
        let a = Arc::new(tiny_http::Server::http(format!("{HOST_A}:0")).expect("a server on 127.0.0.1"));
        let b = Arc::new(tiny_http::Server::http(format!("{HOST_B}:0")).expect("a server on 127.0.0.2"));
        let port = |s: &tiny_http::Server| s.server_addr().to_ip().expect("an IP listener").port();
        let ports = [port(&a), port(&b)];
        let seen = Arc::new(Mutex::new(Seen::default()));
        let respond = Arc::new(respond);
        let mut threads = Vec::new();
        for (server, host) in [(Arc::clone(&a), HOST_A), (Arc::clone(&b), HOST_B)] {
            let (seen, respond) = (Arc::clone(&seen), Arc::clone(&respond));
            threads.push(std::thread::spawn(move || answer(&server, host, ports, &seen, &*respond)));
        }
        Site { servers: vec![a, b], threads, ports, seen }
    }

    /// Serve HTML: `page(path, port of the first host)` answers the status and the page.
    pub(crate) fn html(page: impl Fn(&str, u16) -> (u16, String) + Send + Sync + 'static) -> Site {
        Site::serve(move |ask| {
            let (status, body) = page(ask.path, ask.ports[0]);
            Reply::html(status, body)
        })
    }

    /// Serve fixed `pages` (path → HTML); other paths answer 404.
    pub(crate) fn fixed(pages: &'static [(&'static str, &'static str)]) -> Site {
        Site::serve(move |ask| match pages.iter().find(|(path, _)| *path == ask.path) {
            Some((_, body)) => Reply::html(200, *body),
            None => Reply::html(404, "not found"),
        })
    }

    /// The URL of `path` on the first host.
    pub(crate) fn url(&self, path: &str) -> Url {
        Url::parse(&format!("http://{HOST_A}:{}{path}", self.ports[0])).expect("a site URL")
    }

    /// The URL of `path` on the second host.
    pub(crate) fn url_b(&self, path: &str) -> Url {
        Url::parse(&format!("http://{HOST_B}:{}{path}", self.ports[1])).expect("a site URL")
    }

    /// How many requests `path` got so far (both hosts).
    pub(crate) fn hits(&self, path: &str) -> u64 {
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

fn answer(
    server: &tiny_http::Server,
    host: &'static str,
    ports: [u16; 2],
    seen: &Mutex<Seen>,
    respond: &dyn Fn(&Ask<'_>) -> Reply,
) {
    for request in server.incoming_requests() {
        let path = request.url().split(['?', '#']).next().unwrap_or("/").to_owned();
        let cache_control = request
            .headers()
            .iter()
            .find(|h| h.field.equiv("Cache-Control"))
            .map(|h| h.value.as_str().to_owned())
            .unwrap_or_default();
        // A copy of what was seen, so that a slow responder holds no lock.
        let snapshot = {
            let Ok(mut seen) = seen.lock() else { return };
            *seen.hits.entry(path.clone()).or_default() += 1;
            seen.cache_control.insert(path.clone(), cache_control.clone());
            seen.clone()
        };
        let reply =
            respond(&Ask { path: &path, host, ports, seen: &snapshot, cache_control: &cache_control });
        let mut response = tiny_http::Response::from_string(reply.body).with_status_code(reply.status);
        let header = |name: &str, value: &str| {
            tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a static header")
        };
        response.add_header(header("Content-Type", reply.content_type));
        if let Some(cache) = reply.cache_control {
            response.add_header(header("Cache-Control", cache));
        }
        if let Some(location) = &reply.location {
            response.add_header(header("Location", location));
        }
        let _ = request.respond(response);
    }
}
