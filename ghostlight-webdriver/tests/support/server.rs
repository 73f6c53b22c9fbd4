//! The loopback page server: one HTTP/1.1 server on 127.0.0.1 and one on 127.0.0.2 (Linux
//! routes all of 127/8 to loopback), each on its own port, answering every request with what a
//! responder makes of it. Stopped on drop.
//!
//! Built on hyper, one task per connection on a runtime of its own: tiny_http, used before,
//! reads each connection on a pool thread for the connection's life and can leave a new
//! connection queued behind kept-alive ones when two arrive together (its pool's idle count is
//! read before the woken thread takes the first), so a page's sixth frame request sat unread
//! in the socket (seen under load: `ss` showed it in `CLOSE-WAIT` with its bytes unread).

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
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
    /// Serves both hosts; shut down (its tasks dropped) with the site.
    runtime: Option<tokio::runtime::Runtime>,
    ports: [u16; 2],
    seen: Arc<Mutex<Seen>>,
}

/// What every connection task shares.
struct Shared {
    ports: [u16; 2],
    seen: Arc<Mutex<Seen>>,
    respond: Box<dyn Fn(&Ask<'_>) -> Reply + Send + Sync>,
}

impl Site {
    /// Serve `respond` on both hosts until dropped.
    pub(crate) fn serve(respond: impl Fn(&Ask<'_>) -> Reply + Send + Sync + 'static) -> Site {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("the page server's runtime");
        let bind = |host: &str| {
            let listener = std::net::TcpListener::bind(format!("{host}:0")).expect("a page server listener");
            listener.set_nonblocking(true).expect("a non-blocking listener");
            listener
        };
        let (a, b) = (bind(HOST_A), bind(HOST_B));
        let port =
            |l: &std::net::TcpListener| l.local_addr().map(|at: SocketAddr| at.port()).expect("a port");
        let ports = [port(&a), port(&b)];
        let seen = Arc::new(Mutex::new(Seen::default()));
        let shared = Arc::new(Shared { ports, seen: Arc::clone(&seen), respond: Box::new(respond) });
        for (listener, host) in [(a, HOST_A), (b, HOST_B)] {
            let shared = Arc::clone(&shared);
            runtime.spawn(async move {
                let Ok(listener) = tokio::net::TcpListener::from_std(listener) else { return };
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        // A transient failure (descriptors exhausted): wait a little, go on.
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                        continue;
                    };
                    let shared = Arc::clone(&shared);
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |request| {
                            let shared = Arc::clone(&shared);
                            async move { Ok::<_, Infallible>(answer(request, host, shared).await) }
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
            });
        }
        Site { runtime: Some(runtime), ports, seen }
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

    /// [`Site::hits`] once `path` got a request, or once `bound` passed without one (a
    /// request a page sends on its own time: a beacon from a handler, a fetch after a loop).
    pub(crate) async fn hits_within(&self, path: &str, bound: std::time::Duration) -> u64 {
        let deadline = std::time::Instant::now() + bound;
        while self.hits(path) == 0 && std::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        self.hits(path)
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        // Not a blocking shutdown: a site is dropped inside the tests' own runtime.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Answer one request: count it, then ask the responder (on a blocking thread: a responder may
/// take its time, and must not hold up other requests).
async fn answer(
    request: Request<Incoming>,
    host: &'static str,
    shared: Arc<Shared>,
) -> Response<Full<Bytes>> {
    let path = request.uri().path().to_owned();
    let cache_control = request
        .headers()
        .get(hyper::header::CACHE_CONTROL)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    drop(request);
    let reply = tokio::task::spawn_blocking(move || {
        // A copy of what was seen, so that a slow responder holds no lock.
        let snapshot = {
            let Ok(mut seen) = shared.seen.lock() else { return None };
            *seen.hits.entry(path.clone()).or_default() += 1;
            seen.cache_control.insert(path.clone(), cache_control.clone());
            seen.clone()
        };
        let ask =
            Ask { path: &path, host, ports: shared.ports, seen: &snapshot, cache_control: &cache_control };
        Some((shared.respond)(&ask))
    })
    .await
    .ok()
    .flatten()
    .unwrap_or_else(|| Reply::html(500, "the responder failed"));
    let mut response =
        Response::builder().status(reply.status).header(hyper::header::CONTENT_TYPE, reply.content_type);
    if let Some(cache) = reply.cache_control {
        response = response.header(hyper::header::CACHE_CONTROL, cache);
    }
    if let Some(location) = &reply.location {
        response = response.header(hyper::header::LOCATION, location.as_str());
    }
    response.body(Full::new(Bytes::from(reply.body))).expect("a response of known parts")
}
