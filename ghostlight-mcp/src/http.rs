//! Streamable HTTP transport (cargo feature `http`): rmcp's streamable HTTP service on axum,
//! at `/mcp`, behind bearer tokens.
//!
//! - **Host and Origin first.** A request whose `Host` is not an allowed host, or whose
//!   `Origin` is neither one of the server's own loopback origins (a loopback-bound server, the
//!   same port) nor a configured one, is answered `403` before anything else is looked at
//!   (a defence against DNS rebinding and against web pages; MCP clients send no `Origin`).
//! - **Tokens.** Every request must carry `Authorization: Bearer <token>` with one of the
//!   configured tokens (compared in constant time) or is answered `401`. Refusals are logged
//!   at most once per [`REFUSAL_LOG_INTERVAL`], with the number left unlogged, so whoever can
//!   reach the port cannot grow the log without bound.
//! - **Sessions belong to their token** for their whole life (`sessions`): a request naming a
//!   session with another token, or a session that ended, is answered `404`, so one client
//!   cannot act in another's session.
//! - **Limits.** At most [`HttpOptions::max_sessions`] sessions, and
//!   [`HttpOptions::sessions_per_token`] of one token. A session ends when its client deletes
//!   it, after [`HttpOptions::idle_timeout`] without a request, or when the least recently
//!   used idle session makes room for a new one; an `initialize` is refused (`503`, the limit
//!   named) only when every candidate is busy with a call. A session's workspace ends with it
//!   (tabs closed, recordings discarded).
//! - **Slow clients are shed.** Request headers must arrive within [`HEADER_READ_TIMEOUT`] and
//!   a request body within [`BODY_READ_TIMEOUT`]; at most [`MAX_UNAUTHENTICATED_CONNECTIONS`]
//!   connections may be open before their first authorized request (a new one closes the
//!   oldest, so sockets held open without a token never keep a real client out).
//!   A request body may be up to [`MAX_BODY_BYTES`] (the largest upload the contract allows,
//!   as base64, with room for the rest of the message).

use std::collections::HashSet;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use ghostlight_core::port::UPLOAD_TOTAL_MAX_BYTES;
use rmcp::transport::streamable_http_server::session::SessionManager as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq as _;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::error::ServeError;
use crate::server::GhostlightServer;

mod sessions;
mod token;

use sessions::Sessions;
pub use token::{BearerToken, TOKEN_ADVICE, TOKEN_MIN_BITS, TOKEN_MIN_CHARS, TOKEN_MIN_DISTINCT, TokenError};

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";
/// The largest request body: the contract's largest upload as base64, plus 1 MiB for the
/// rest of the message.
pub const MAX_BODY_BYTES: usize = (UPLOAD_TOTAL_MAX_BYTES as usize).div_ceil(3) * 4 + 1024 * 1024;
/// Refused requests are logged at most once per this interval.
pub const REFUSAL_LOG_INTERVAL: Duration = Duration::from_secs(60);
/// The MCP session header.
const SESSION_HEADER: &str = "mcp-session-id";
/// The `Host` values accepted by default (rmcp's loopback list).
pub const DEFAULT_ALLOWED_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];
/// The default number of MCP sessions a server holds at once.
pub const DEFAULT_MAX_SESSIONS: usize = 16;
/// How long a session may go without a request before it ends, by default.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(5 * 60);
/// How long a client may take to send a request's headers.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a client may take to send a request's body.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Connections open at once before their first authorized request; a new one closes the oldest.
pub const MAX_UNAUTHENTICATED_CONNECTIONS: usize = 64;
/// How often sessions idle past their timeout are looked for (at most).
const EXPIRY_SWEEP: Duration = Duration::from_secs(30);

/// Where and for whom the transport serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// Listen address.
    pub listen: SocketAddr,
    /// The tokens a request may carry as `Authorization: Bearer <token>` (one per client, so
    /// that a session can be bound to the client that opened it; at least one).
    pub tokens: Vec<BearerToken>,
    /// Accepted `Host` header values (host or `host:port`).
    pub allowed_hosts: Vec<String>,
    /// `Origin` values accepted besides the server's own loopback origins (`scheme://host[:port]`).
    pub allowed_origins: Vec<String>,
    /// MCP sessions held at once.
    pub max_sessions: usize,
    /// MCP sessions one token holds at once (at least 1, at most `max_sessions`).
    pub sessions_per_token: usize,
    /// How long a session may go without a request before it ends.
    pub idle_timeout: Duration,
}

impl HttpOptions {
    /// Options for `listen` and `tokens` with every default: loopback `Host` values only, no
    /// other origin, [`DEFAULT_MAX_SESSIONS`] sessions, half of them per token, and
    /// [`DEFAULT_IDLE_TIMEOUT`].
    pub fn new(listen: SocketAddr, tokens: Vec<BearerToken>) -> HttpOptions {
        HttpOptions {
            listen,
            tokens,
            allowed_hosts: DEFAULT_ALLOWED_HOSTS.iter().map(|h| (*h).to_owned()).collect(),
            allowed_origins: Vec::new(),
            max_sessions: DEFAULT_MAX_SESSIONS,
            sessions_per_token: default_sessions_per_token(DEFAULT_MAX_SESSIONS),
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
        }
    }
}

/// The default per-token limit of a server holding `max_sessions`: half of them, at least 1.
pub fn default_sessions_per_token(max_sessions: usize) -> usize {
    (max_sessions / 2).max(1)
}

/// The index of the configured token `headers` carry as `Authorization: Bearer <token>`
/// (scheme case-insensitive, every token compared in constant time).
pub fn authorized(headers: &HeaderMap, tokens: &[BearerToken]) -> Option<usize> {
    let value = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok())?;
    let (scheme, credentials) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let given = credentials.trim().as_bytes();
    let mut found = None;
    for (index, token) in tokens.iter().enumerate() {
        if bool::from(given.ct_eq(token.expose().as_bytes())) {
            found = Some(index);
        }
    }
    found
}

/// What the gate in front of rmcp shares across requests.
struct Gatekeeper {
    tokens: Vec<BearerToken>,
    sessions: Arc<Sessions>,
    manager: Arc<LocalSessionManager>,
    /// Accepted `Host` values, lower-cased.
    hosts: HashSet<String>,
    /// Accepted `Origin` values, lower-cased (the server's own loopback ones included).
    origins: HashSet<String>,
    refusals: Mutex<RefusalLog>,
}

/// Rate-limited logging of refused requests.
#[derive(Default)]
struct RefusalLog {
    last: Option<Instant>,
    unlogged: u64,
}

impl RefusalLog {
    /// Log a refusal unless one was logged within [`REFUSAL_LOG_INTERVAL`].
    fn refused(&mut self, why: &str) {
        let now = Instant::now();
        if self.last.is_some_and(|last| now.duration_since(last) < REFUSAL_LOG_INTERVAL) {
            self.unlogged += 1;
            return;
        }
        tracing::warn!(unlogged_since_last = self.unlogged, "HTTP request refused: {why}");
        self.last = Some(now);
        self.unlogged = 0;
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Gatekeeper {
    fn refused(&self, why: &str) {
        lock(&self.refusals).refused(why);
    }

    /// Whether the request's `Host` is an accepted one and its `Origin` (if any) too; the
    /// refusal's text when not.
    fn host_and_origin(&self, headers: &HeaderMap) -> Result<(), &'static str> {
        let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).map(str::to_ascii_lowercase);
        let host_ok =
            host.as_deref().is_some_and(|host| self.hosts.contains(host) || self.hosts.contains(bare(host)));
        if !host_ok {
            self.refused("a Host header that is not allowed");
            return Err("Forbidden: Host header is not allowed\n");
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin =
                origin.to_str().map(|o| o.trim_end_matches('/').to_ascii_lowercase()).unwrap_or_default();
            if !self.origins.contains(&origin) {
                self.refused("an Origin that is not allowed");
                return Err("Forbidden: Origin is not allowed\n");
            }
        }
        Ok(())
    }

    /// End sessions (rmcp closes their transports; their workspaces end with them).
    fn close(&self, ids: Vec<String>) {
        for id in ids {
            let manager = Arc::clone(&self.manager);
            tokio::spawn(async move {
                let id: rmcp::transport::streamable_http_server::SessionId = id.into();
                if let Err(error) = manager.close_session(&id).await {
                    tracing::debug!(%error, "a session could not be closed");
                }
            });
        }
    }
}

/// A `Host` value without its port (`[::1]:80` → `::1`, `localhost:7861` → `localhost`).
fn bare(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// The server's own loopback origins, for a server bound to loopback at `bound`.
fn loopback_origins(bound: SocketAddr) -> Vec<String> {
    if !bound.ip().is_loopback() {
        return Vec::new();
    }
    let port = bound.port();
    ["localhost", "127.0.0.1", "[::1]"]
        .iter()
        .flat_map(|host| ["http", "https"].map(|scheme| format!("{scheme}://{host}:{port}")))
        .collect()
}

fn unavailable(message: String) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": -32000, "message": message },
    });
    (StatusCode::SERVICE_UNAVAILABLE, [(header::CONTENT_TYPE, "application/json")], body.to_string())
        .into_response()
}

async fn gate(State(gate): State<Arc<Gatekeeper>>, request: Request, next: Next) -> Response {
    if let Err(refusal) = gate.host_and_origin(request.headers()) {
        return (StatusCode::FORBIDDEN, refusal).into_response();
    }
    let Some(token) = authorized(request.headers(), &gate.tokens) else {
        gate.refused("missing or wrong bearer token");
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "Unauthorized: a bearer token is required\n",
        )
            .into_response();
    };
    gate.close(gate.sessions.expire());
    let session = request.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()).map(str::to_owned);
    match session {
        Some(id) => {
            if gate.sessions.owner(&id) != Some(token) {
                gate.refused("a session that ended, or used with another client's token");
                return (StatusCode::NOT_FOUND, "Not Found: no such session\n").into_response();
            }
            let method = request.method().clone();
            let running = gate.sessions.begin(&id, method == Method::POST);
            let response = next.run(request).await;
            if method == Method::DELETE && response.status().is_success() {
                gate.sessions.end(&id);
            }
            // The call runs until its answer's body has ended (an SSE stream's last event).
            match running {
                Some(running) => response.map(|body| holding(body, running)),
                None => response,
            }
        }
        None if request.method() == Method::POST => {
            let (reservation, evicted) = match gate.sessions.reserve(token) {
                Ok(held) => held,
                Err(full) => {
                    gate.refused("no room for a new session");
                    return unavailable(full.message());
                }
            };
            gate.close(evicted);
            let response = next.run(request).await;
            if let Some(opened) = response.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
                reservation.bind(opened);
            }
            response
        }
        None => next.run(request).await,
    }
}

/// `body`, holding `running` until its last frame has been sent (or the client went away).
fn holding(body: Body, running: sessions::Running) -> Body {
    use futures::StreamExt as _;
    Body::from_stream(body.into_data_stream().map(move |chunk| {
        let _held = &running;
        chunk
    }))
}

/// The axum router: `/mcp` served by rmcp, each new MCP session a new session of
/// `prototype` whose workspace ends with it, everything behind the gate (see the module
/// docs); `bound` is the address the server listens on (its own loopback origins follow from
/// it). Answers the router, a closure that cancels serving (it ends open sessions and their
/// streams), and the sweep that ends sessions idle past their timeout (call it now and then;
/// [`serve_on`] does).
pub fn router(
    prototype: GhostlightServer,
    options: &HttpOptions,
    bound: SocketAddr,
) -> (Router, impl Fn() + Send + Sync + 'static, impl Fn() + Send + Sync + 'static) {
    // The Origin check is the gate's (it accepts the server's own loopback origins); rmcp
    // keeps its Host check as a second line.
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(options.allowed_hosts.iter().cloned())
        .with_max_request_body_bytes(MAX_BODY_BYTES);
    let stop = config.cancellation_token.clone();
    // rmcp's own idle end comes after ours (it keeps a session's entry past it otherwise).
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(options.idle_timeout.saturating_add(Duration::from_secs(60)));
    let manager = Arc::new(manager);
    let service =
        StreamableHttpService::new(move || Ok(prototype.ending_session(|| {})), Arc::clone(&manager), config);
    let lower = |values: &[String]| values.iter().map(|v| v.to_ascii_lowercase()).collect::<HashSet<_>>();
    let mut origins = lower(&options.allowed_origins);
    origins.extend(loopback_origins(bound));
    let gatekeeper = Arc::new(Gatekeeper {
        tokens: options.tokens.clone(),
        sessions: Sessions::new(options.max_sessions, options.sessions_per_token, options.idle_timeout),
        manager,
        hosts: lower(&options.allowed_hosts),
        origins,
        refusals: Mutex::new(RefusalLog::default()),
    });
    let sweeper = Arc::clone(&gatekeeper);
    let sweep = move || sweeper.close(sweeper.sessions.expire());
    let router = Router::new()
        .route_service(MCP_PATH, service)
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(BODY_READ_TIMEOUT))
        .layer(middleware::from_fn_with_state(gatekeeper, gate));
    (router, move || stop.cancel(), sweep)
}

/// Bind `options.listen` and serve until `shutdown` completes.
pub async fn serve(
    prototype: GhostlightServer,
    options: &HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let listener = TcpListener::bind(options.listen).await?;
    serve_on(listener, prototype, options, shutdown).await
}

/// Serve on an already bound listener until `shutdown` completes: one HTTP/1.1 connection
/// task per client, request headers within [`HEADER_READ_TIMEOUT`], and at most
/// [`MAX_UNAUTHENTICATED_CONNECTIONS`] connections before their first authorized request
/// (the oldest is closed for a new one).
pub async fn serve_on(
    listener: TcpListener,
    prototype: GhostlightServer,
    options: &HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let address: SocketAddr = listener.local_addr()?;
    if !address.ip().is_loopback() {
        tracing::warn!(%address, "listening beyond loopback: the bearer token is the only gate");
    }
    tracing::info!("MCP over streamable HTTP at http://{address}{MCP_PATH}");
    let (router, stop, sweep) = router(prototype, options, address);
    let (closing, closed) = watch::channel(false);
    let sweeping = tokio::spawn(async move {
        let mut every = tokio::time::interval(EXPIRY_SWEEP);
        loop {
            every.tick().await;
            sweep();
        }
    });
    let waiting = Arc::new(Unauthenticated::default());
    let tokens = Arc::new(options.tokens.clone());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            // Out of file descriptors and the like: pause instead of spinning.
            Err(error) => {
                tracing::warn!(%error, "a connection could not be accepted");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        connection(stream, router.clone(), Arc::clone(&tokens), Arc::clone(&waiting), closed.clone());
    }
    stop();
    sweeping.abort();
    let _ = closing.send(true);
    Ok(())
}

/// The connections that have not sent an authorized request yet, oldest first: past
/// [`MAX_UNAUTHENTICATED_CONNECTIONS`] the oldest is closed to let a new one in, so clients
/// that hold sockets open without a token can never keep a real client out.
#[derive(Default)]
struct Unauthenticated {
    next: std::sync::atomic::AtomicU64,
    queue: Mutex<std::collections::VecDeque<(u64, tokio::sync::oneshot::Sender<()>)>>,
}

impl Unauthenticated {
    /// Admit a new connection: its number and the signal that it must close.
    fn admit(&self) -> (u64, tokio::sync::oneshot::Receiver<()>) {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (shed, signal) = tokio::sync::oneshot::channel();
        let mut queue = lock(&self.queue);
        while queue.len() >= MAX_UNAUTHENTICATED_CONNECTIONS {
            if let Some((_, oldest)) = queue.pop_front() {
                let _ = oldest.send(());
            }
        }
        queue.push_back((id, shed));
        (id, signal)
    }

    /// Connection `id` authenticated, or ended: it is no longer waiting.
    fn leave(&self, id: u64) {
        lock(&self.queue).retain(|(waiting, _)| *waiting != id);
    }
}

/// Serve one connection; it is shed when [`Unauthenticated`] says so before its first
/// authorized request, and ends gracefully when `closed` turns true.
fn connection(
    stream: tokio::net::TcpStream,
    router: Router,
    tokens: Arc<Vec<BearerToken>>,
    waiting: Arc<Unauthenticated>,
    mut closed: watch::Receiver<bool>,
) {
    use tower::util::ServiceExt as _;
    let (id, shed) = waiting.admit();
    let admitted = Arc::clone(&waiting);
    let service = hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
        if authorized(request.headers(), &tokens).is_some() {
            admitted.leave(id);
        }
        router.clone().oneshot(request.map(Body::new))
    });
    tokio::spawn(async move {
        let io = hyper_util::rt::TokioIo::new(stream);
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
        let conn = builder.serve_connection(io, service);
        let mut conn = std::pin::pin!(conn);
        // Shed: only a signal sent counts (the sender dropped on authentication does not).
        let shed = async {
            if shed.await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            served = conn.as_mut() => {
                if let Err(error) = served {
                    tracing::debug!(%error, "a connection ended with an error");
                }
            }
            () = shed => {}
            () = async { let _ = closed.wait_for(|closed| *closed).await; } => {
                conn.as_mut().graceful_shutdown();
                let _ = conn.await;
            }
        }
        waiting.leave(id);
    });
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(header::AUTHORIZATION, value);
        }
        headers
    }

    #[test]
    fn bearer_check() {
        let tokens = [
            BearerToken::new("0123456789abcdef").unwrap_or_else(|e| panic!("{e}")),
            BearerToken::new("fedcba9876543210").unwrap_or_else(|e| panic!("{e}")),
        ];
        assert_eq!(authorized(&headers("Bearer 0123456789abcdef"), &tokens), Some(0));
        assert_eq!(authorized(&headers("bearer fedcba9876543210"), &tokens), Some(1));
        assert_eq!(authorized(&headers("Bearer 0123456789abcdeF"), &tokens), None);
        assert_eq!(authorized(&headers("Bearer 0123456789abcde"), &tokens), None);
        assert_eq!(authorized(&headers("Basic 0123456789abcdef"), &tokens), None);
        assert_eq!(authorized(&headers("0123456789abcdef"), &tokens), None);
        assert_eq!(authorized(&HeaderMap::new(), &tokens), None);
    }

    #[test]
    fn the_body_limit_admits_the_largest_upload_and_little_more() {
        let largest = (UPLOAD_TOTAL_MAX_BYTES as usize).div_ceil(3) * 4;
        assert!(MAX_BODY_BYTES > largest && MAX_BODY_BYTES < largest + 2 * 1024 * 1024, "{MAX_BODY_BYTES}");
    }

    #[test]
    fn refusals_are_logged_at_a_bounded_rate() {
        let mut log = RefusalLog::default();
        for _ in 0..1000 {
            log.refused("test");
        }
        assert_eq!(log.unlogged, 999, "one line, the rest counted");
    }
}
