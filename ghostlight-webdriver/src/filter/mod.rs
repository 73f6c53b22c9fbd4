//! The loopback filter: an HTTP proxy on `127.0.0.1` that a browser Ghostlight starts sends
//! every request through, and that decides each one by the session's [`NetworkPolicy`]
//! before anything is connected or resolved.
//!
//! Measured here (`../shared/NETWORK.md`, `docs/DECISIONS.md`): WebDriver BiDi interception
//! misses the Chromium WebSocket handshake and a Firefox `<object>` document, while a proxy
//! sees every TCP connection the browser opens for the web, whatever opened it: documents,
//! redirect hops, frames, form submissions, popups, downloads, pings, subresources, beacons,
//! EventSource, WebSocket, workers and service workers. So the browser is started with this
//! filter as its only proxy (loopback included, nothing bypasses it), and non-proxied UDP is
//! disabled (WebRTC).
//!
//! What it sees of a request:
//! - `CONNECT host:port` (every `https:` and `wss:` request, and `ws:` on Chromium): the host
//!   and port only ([`RequestKind::Unknown`]). A refusal answers `403`; the browser then fails
//!   the request (a navigation shows its own error page for the refused host).
//! - an absolute-form request (`GET http://host:port/path`, plain `http:`): the host and the
//!   browser's fetch metadata (`Sec-Fetch-Dest`, `Sec-Fetch-Mode`), which a page cannot set.
//!   A refused request that may be a document answers `403` with a page of the filter's own
//!   ([`refusal_page`]: the host, nothing of the denied one), which the browser commits as it
//!   commits its own error page for a refused tunnel; a refused subresource answers `403`.
//!
//! Admitted requests go to their host, or through the person's own proxy ([`Upstream`]).
//! Nothing of a refused request is kept but `scheme://host:port` and its kind (the policy's
//! refusal log). The filter holds at most [`MAX_CONNECTIONS`] browser connections at once
//! and gives a connection [`HEADER_TIMEOUT`] to send its request head; it ends with the
//! [`Filter`] value (every connection task with it).

mod upstream;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use ghostlight_core::port::{NetworkPolicy, PortError, PortErrorKind, PortResult, RequestKind};
use http::{HeaderMap, Method, Request, Response, StatusCode, Uri, header};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Empty};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::task::{JoinHandle, JoinSet};
use url::Url;

pub(crate) use upstream::Upstream;

/// Browser connections the filter serves at once; more wait to be accepted.
pub(crate) const MAX_CONNECTIONS: usize = 512;
/// How long a browser connection may take to send a request head.
pub(crate) const HEADER_TIMEOUT: Duration = Duration::from_secs(30);
/// How long connecting to an admitted host (or the upstream proxy) may take.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// The body of every response the filter sends.
type Body = BoxBody<Bytes, hyper::Error>;

/// A running filter; dropping it closes the listener and every connection.
#[derive(Debug)]
pub(crate) struct Filter {
    address: SocketAddr,
    policy: NetworkPolicy,
    task: JoinHandle<()>,
}

impl Filter {
    /// Listen on a free port of `127.0.0.1` and serve until dropped. `quiet` lists the
    /// browser's own service hosts (see [`Shared::decide`]).
    pub(crate) async fn start(
        policy: NetworkPolicy,
        upstream: Upstream,
        quiet: &'static [&'static str],
    ) -> std::io::Result<Filter> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let address = listener.local_addr()?;
        let shared = Arc::new(Shared { policy: policy.clone(), upstream, quiet });
        let task = tokio::spawn(serve(listener, shared));
        Ok(Filter { address, policy, task })
    }

    /// [`Filter::start`], a failure to listen answered as the port call's error.
    pub(crate) async fn listen(
        policy: NetworkPolicy,
        upstream: Upstream,
        quiet: &'static [&'static str],
    ) -> PortResult<Filter> {
        Filter::start(policy, upstream, quiet).await.map_err(|error| {
            PortError::new(
                PortErrorKind::Other,
                format!("the network filter could not listen on 127.0.0.1: {error}"),
            )
        })
    }

    /// Where the filter listens.
    pub(crate) fn address(&self) -> SocketAddr {
        self.address
    }

    /// The policy it enforces (whose log holds its refusals).
    pub(crate) fn policy(&self) -> &NetworkPolicy {
        &self.policy
    }
}

impl Drop for Filter {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What every connection task needs.
struct Shared {
    policy: NetworkPolicy,
    upstream: Upstream,
    /// The browser's own service hosts: refused like any other host outside authority, but
    /// not logged (no page asked for them, so no call reports them).
    quiet: &'static [&'static str],
}

impl Shared {
    /// Whether a request of `kind` to `url` may go; a refusal is logged unless it is one of
    /// the browser's own service requests.
    fn decide(&self, url: &Url, kind: RequestKind) -> bool {
        if self.policy.admits(url, kind) {
            return true;
        }
        let host = url.host_str().unwrap_or_default();
        if !self.quiet.iter().any(|pattern| matches_service(pattern, host)) {
            self.policy.refuse(url, kind);
        }
        false
    }
}

/// Whether `host` is the service host `pattern` names (`*.suffix` for its subdomains).
fn matches_service(pattern: &str, host: &str) -> bool {
    match pattern.strip_prefix("*.") {
        Some(suffix) => {
            host.len() > suffix.len()
                && host.ends_with(suffix)
                && host[..host.len() - suffix.len()].ends_with('.')
        }
        None => pattern == host,
    }
}

/// Accept browser connections until the task is aborted (which drops every connection task).
async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut connections = JoinSet::new();
    loop {
        let Ok(permit) = Arc::clone(&permits).acquire_owned().await else { return };
        let stream = loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => break stream,
                    // A transient failure (descriptors exhausted): wait a little, go on.
                    Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                },
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
            }
        };
        let shared = Arc::clone(&shared);
        connections.spawn(async move {
            let _permit = permit;
            let _ = stream.set_nodelay(true);
            let service = service_fn(move |request| {
                let shared = Arc::clone(&shared);
                async move { Ok::<_, Infallible>(handle(request, &shared).await) }
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.timer(TokioTimer::new()).header_read_timeout(HEADER_TIMEOUT).preserve_header_case(true);
            let _ = builder.serve_connection(TokioIo::new(stream), service).with_upgrades().await;
        });
    }
}

/// Answer one request of the browser.
async fn handle(request: Request<Incoming>, shared: &Shared) -> Response<Body> {
    if request.method() == Method::CONNECT {
        return tunnel(request, shared).await;
    }
    match request.uri().scheme_str() {
        Some("http" | "ws") => forward(request, shared).await,
        // Not a proxy request (someone asked the filter for a page of its own), or a scheme
        // a browser never sends to an HTTP proxy in absolute form.
        _ => status(StatusCode::BAD_REQUEST),
    }
}

/// `CONNECT host:port`: decide, connect, answer `200`, then copy bytes both ways.
async fn tunnel(request: Request<Incoming>, shared: &Shared) -> Response<Body> {
    let Some(authority) = request.uri().authority().cloned() else {
        return status(StatusCode::BAD_REQUEST);
    };
    let Some(url) = Url::parse(&format!("https://{authority}/")).ok().filter(|url| url.host_str().is_some())
    else {
        return status(StatusCode::BAD_REQUEST);
    };
    if !shared.decide(&url, RequestKind::Unknown) {
        return status(StatusCode::FORBIDDEN);
    }
    let Some(target) = Target::of(&url) else { return status(StatusCode::BAD_REQUEST) };
    let server = match tokio::time::timeout(CONNECT_TIMEOUT, shared.upstream.open(&target)).await {
        Ok(Ok(server)) => server,
        Ok(Err(_)) => return status(StatusCode::BAD_GATEWAY),
        Err(_) => return status(StatusCode::GATEWAY_TIMEOUT),
    };
    tokio::spawn(async move {
        let Ok(upgraded) = hyper::upgrade::on(request).await else { return };
        let mut client = TokioIo::new(upgraded);
        let mut server = server;
        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
    });
    status(StatusCode::OK)
}

/// An absolute-form request (`GET http://host/path`): decide, then send it on and stream the
/// answer back (an upgrade to a WebSocket included).
async fn forward(mut request: Request<Incoming>, shared: &Shared) -> Response<Body> {
    let Some(url) = Url::parse(&request.uri().to_string()).ok().filter(|url| url.host_str().is_some()) else {
        return status(StatusCode::BAD_REQUEST);
    };
    let kind = request_kind(request.headers());
    if !shared.decide(&url, kind) {
        return if kind.may_be_document() { refusal_page(&url) } else { status(StatusCode::FORBIDDEN) };
    }
    let Some(target) = Target::of(&url) else { return status(StatusCode::BAD_REQUEST) };
    let via_proxy = shared.upstream.forwards_in_absolute_form(&target);
    let server =
        match tokio::time::timeout(CONNECT_TIMEOUT, shared.upstream.open_for_forwarding(&target)).await {
            Ok(Ok(server)) => server,
            Ok(Err(_)) => return status(StatusCode::BAD_GATEWAY),
            Err(_) => return status(StatusCode::GATEWAY_TIMEOUT),
        };
    let upgrade = is_upgrade(request.headers()).then(|| hyper::upgrade::on(&mut request));
    strip_proxy_headers(request.headers_mut());
    if !via_proxy {
        // Straight to the origin: the request target is the origin form (`/path?query`).
        let origin_form = request.uri().path_and_query().map_or("/", |pq| pq.as_str()).to_owned();
        match origin_form.parse::<Uri>() {
            Ok(uri) => *request.uri_mut() = uri,
            Err(_) => return status(StatusCode::BAD_REQUEST),
        }
    }
    let Ok((mut sender, connection)) = hyper::client::conn::http1::Builder::new()
        .preserve_header_case(true)
        .handshake::<_, Incoming>(TokioIo::new(server))
        .await
    else {
        return status(StatusCode::BAD_GATEWAY);
    };
    tokio::spawn(connection.with_upgrades());
    let mut response = match sender.send_request(request).await {
        Ok(response) => response,
        Err(_) => return status(StatusCode::BAD_GATEWAY),
    };
    if response.status() == StatusCode::SWITCHING_PROTOCOLS
        && let Some(client_upgrade) = upgrade
    {
        let server_upgrade = hyper::upgrade::on(&mut response);
        tokio::spawn(async move {
            let (Ok(client), Ok(server)) = (client_upgrade.await, server_upgrade.await) else { return };
            let (mut client, mut server) = (TokioIo::new(client), TokioIo::new(server));
            let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
        });
    }
    response.map(BodyExt::boxed)
}

/// Where an admitted request goes: a host name or IP literal (without brackets) and a port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// The host, as a URL names it (an IPv6 literal without its brackets).
    pub(crate) host: String,
    /// The port (the scheme's default when the URL names none).
    pub(crate) port: u16,
}

impl Target {
    fn of(url: &Url) -> Option<Target> {
        let host = match url.host()? {
            url::Host::Domain(domain) => domain.to_owned(),
            url::Host::Ipv4(address) => address.to_string(),
            url::Host::Ipv6(address) => address.to_string(),
        };
        Some(Target { host, port: url.port_or_known_default()? })
    }
}

/// What kind of request the browser's fetch metadata says this is. Browsers send it to
/// potentially trustworthy origins (HTTPS, loopback) and a page cannot set or change it;
/// without it, the request may be anything.
fn request_kind(headers: &HeaderMap) -> RequestKind {
    let value = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    match (value("sec-fetch-dest"), value("sec-fetch-mode")) {
        (Some("document"), _) => RequestKind::Document,
        (Some("iframe" | "frame" | "object" | "embed" | "fencedframe"), _) => RequestKind::Frame,
        (_, Some("navigate" | "nested-navigate")) => RequestKind::Document,
        (Some(_), _) => RequestKind::Resource,
        (None, _) => RequestKind::Unknown,
    }
}

/// Whether the request asks to switch protocols (a WebSocket handshake over plain HTTP).
fn is_upgrade(headers: &HeaderMap) -> bool {
    headers.contains_key(header::UPGRADE)
}

/// Remove what is meant for the filter, not the next hop.
fn strip_proxy_headers(headers: &mut HeaderMap) {
    headers.remove("proxy-connection");
    headers.remove(header::PROXY_AUTHORIZATION);
    headers.remove("keep-alive");
}

/// The document a refused navigation (or frame) shows instead of the denied host's: it
/// names the host, never the path or query, and loads nothing. A browser commits it like any
/// page (an empty `204` would leave the tab on its document, but Chromium's driver then waits
/// on a popup whose first load was abandoned until its page-load timeout), and the adapter
/// takes the tab back to the document it showed before.
fn refusal_page(url: &Url) -> Response<Body> {
    let host = url.host_str().unwrap_or_default();
    let host = match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    };
    let host: String = host.chars().filter(|c| !matches!(c, '<' | '>' | '&' | '"')).collect();
    let page = format!(
        "<!doctype html><meta charset=utf-8><title>Blocked by Ghostlight</title>\
         <p>Ghostlight stopped this page: {host} is outside authority. Nothing was sent.</p>"
    );
    let mut response =
        Response::new(http_body_util::Full::new(Bytes::from(page)).map_err(|never| match never {}).boxed());
    *response.status_mut() = StatusCode::FORBIDDEN;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, header::HeaderValue::from_static("text/html; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, header::HeaderValue::from_static("no-store"));
    headers.insert("content-security-policy", header::HeaderValue::from_static("default-src 'none'"));
    response
}

/// An empty response with `code`.
fn status(code: StatusCode) -> Response<Body> {
    let mut response = Response::new(Empty::<Bytes>::new().map_err(|never| match never {}).boxed());
    *response.status_mut() = code;
    response
}

#[cfg(test)]
mod tests;
