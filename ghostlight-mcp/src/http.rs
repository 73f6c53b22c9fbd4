//! Streamable HTTP transport (cargo feature `http`): rmcp's streamable HTTP service on axum,
//! at `/mcp`, behind bearer tokens.
//!
//! - **Tokens.** Every request must carry `Authorization: Bearer <token>` with one of the
//!   configured tokens (compared in constant time) or is answered `401`. Refusals are logged
//!   at most once per [`REFUSAL_LOG_INTERVAL`], with the number left unlogged, so whoever can
//!   reach the port cannot grow the log without bound.
//! - **Sessions belong to their token.** The `Mcp-Session-Id` rmcp hands out is bound to the
//!   token of the request that opened it; a request naming it with another token is answered
//!   `404` (as an unknown session), so one client cannot act in another's session.
//! - **Limits.** At most [`HttpOptions::max_sessions`] sessions at once: an `initialize` past
//!   it answers `503` with a JSON-RPC error saying so; a session ends when its client deletes
//!   it or after rmcp's idle keep-alive, and then its workspace ends (tabs closed,
//!   recordings discarded). A request body may be up to [`MAX_BODY_BYTES`] (the largest
//!   upload the contract allows, as base64, with room for the rest of the message).
//! - rmcp then checks the `Host` header against the allowed hosts (loopback by default, a
//!   defence against DNS rebinding; `403` otherwise) and refuses any request that carries a
//!   browser `Origin` (`403`): MCP clients are programs, not web pages.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use ghostlight_core::port::UPLOAD_TOTAL_MAX_BYTES;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq as _;
use tokio::net::TcpListener;

use crate::error::ServeError;
use crate::server::GhostlightServer;

mod token;

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
    /// MCP sessions held at once; a new one past it is refused.
    pub max_sessions: usize,
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
    /// Which token opened each session.
    owners: Mutex<HashMap<String, usize>>,
    /// Sessions open now.
    sessions: Arc<AtomicUsize>,
    max_sessions: usize,
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

async fn gate(State(gate): State<Arc<Gatekeeper>>, request: Request, next: Next) -> Response {
    let Some(token) = authorized(request.headers(), &gate.tokens) else {
        lock(&gate.refusals).refused("missing or wrong bearer token");
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "Unauthorized: a bearer token is required\n",
        )
            .into_response();
    };
    let session = request.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()).map(str::to_owned);
    match &session {
        Some(id) if lock(&gate.owners).get(id).is_some_and(|owner| *owner != token) => {
            lock(&gate.refusals).refused("a session used with another client's token");
            return (StatusCode::NOT_FOUND, "Not Found: no such session\n").into_response();
        }
        Some(_) => {}
        None if request.method() == Method::POST
            && gate.sessions.load(Ordering::SeqCst) >= gate.max_sessions =>
        {
            lock(&gate.refusals).refused("too many sessions");
            let body = serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {
                    "code": -32000,
                    "message": format!(
                        "The server holds its limit of {} MCP sessions; end one (DELETE {MCP_PATH}) or try later.",
                        gate.max_sessions
                    ),
                },
            });
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::CONTENT_TYPE, "application/json")],
                body.to_string(),
            )
                .into_response();
        }
        None => {}
    }
    let response = next.run(request).await;
    if session.is_none()
        && let Some(opened) = response.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok())
    {
        let mut owners = lock(&gate.owners);
        // Forget owners of sessions that ended (bounded by what was ever opened at once).
        if owners.len() > gate.max_sessions * 4 {
            owners.clear();
        }
        owners.insert(opened.to_owned(), token);
    }
    response
}

/// The axum router: `/mcp` served by rmcp, each new MCP session a new session of
/// `prototype` whose workspace ends with it, everything behind the gate (see the module
/// docs). Cancel serving with the returned closure (it ends open sessions and their streams).
pub fn router(
    prototype: GhostlightServer,
    options: &HttpOptions,
) -> (Router, impl Fn() + Send + Sync + 'static) {
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(options.allowed_hosts.iter().cloned())
        .with_max_request_body_bytes(MAX_BODY_BYTES)
        .enforce_origin_validation();
    let stop = config.cancellation_token.clone();
    let sessions = Arc::new(AtomicUsize::new(0));
    let counted = sessions.clone();
    let service = StreamableHttpService::new(
        move || {
            counted.fetch_add(1, Ordering::SeqCst);
            let ended = counted.clone();
            Ok(prototype.ending_session(move || {
                ended.fetch_sub(1, Ordering::SeqCst);
            }))
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let gatekeeper = Arc::new(Gatekeeper {
        tokens: options.tokens.clone(),
        owners: Mutex::new(HashMap::new()),
        sessions,
        max_sessions: options.max_sessions,
        refusals: Mutex::new(RefusalLog::default()),
    });
    let router = Router::new()
        .route_service(MCP_PATH, service)
        .layer(middleware::from_fn_with_state(gatekeeper, gate));
    (router, move || stop.cancel())
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

/// Serve on an already bound listener until `shutdown` completes.
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
    let (router, stop) = router(prototype, options);
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            stop();
        })
        .await?;
    Ok(())
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
