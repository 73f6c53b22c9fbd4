//! Streamable HTTP transport (cargo feature `http`): rmcp's streamable HTTP service on axum,
//! at `/mcp`, behind a bearer token.
//!
//! Every request must carry `Authorization: Bearer <token>` (compared in constant time) or is
//! answered `401`. rmcp then checks the `Host` header against the allowed hosts (loopback by
//! default, a defence against DNS rebinding; `403` otherwise) and refuses any request that
//! carries a browser `Origin` (`403`): MCP clients are programs, not web pages. Each MCP
//! session (`Mcp-Session-Id`) gets its own [`GhostlightServer::session`], so its own workspace.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq as _;
use tokio::net::TcpListener;

use crate::error::ServeError;
use crate::options::{BearerToken, HttpOptions};
use crate::server::GhostlightServer;

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

/// Whether `headers` carry `Authorization: Bearer <token>` (scheme case-insensitive, the
/// token compared in constant time).
pub fn authorized(headers: &HeaderMap, token: &BearerToken) -> bool {
    let Some(value) = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let Some((scheme, credentials)) = value.trim().split_once(' ') else { return false };
    scheme.eq_ignore_ascii_case("bearer")
        && bool::from(credentials.trim().as_bytes().ct_eq(token.expose().as_bytes()))
}

async fn require_bearer(State(token): State<Arc<BearerToken>>, request: Request, next: Next) -> Response {
    if authorized(request.headers(), &token) {
        return next.run(request).await;
    }
    tracing::warn!("HTTP request refused: missing or wrong bearer token");
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Bearer")],
        "Unauthorized: a bearer token is required\n",
    )
        .into_response()
}

/// The axum router: `/mcp` served by rmcp, each new MCP session a new
/// [`GhostlightServer::session`] of `prototype`, everything behind the bearer check. Cancel
/// serving with the returned closure (it ends open sessions and their streams).
pub fn router(
    prototype: GhostlightServer,
    options: &HttpOptions,
) -> (Router, impl Fn() + Send + Sync + 'static) {
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(options.allowed_hosts.iter().cloned())
        .enforce_origin_validation();
    let stop = config.cancellation_token.clone();
    let service = StreamableHttpService::new(
        move || Ok(prototype.session()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let token = Arc::new(options.token.clone());
    let router = Router::new()
        .route_service(MCP_PATH, service)
        .layer(middleware::from_fn_with_state(token, require_bearer));
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
        let token = BearerToken::new("0123456789abcdef").unwrap_or_else(|e| panic!("{e}"));
        assert!(authorized(&headers("Bearer 0123456789abcdef"), &token));
        assert!(authorized(&headers("bearer 0123456789abcdef"), &token));
        assert!(!authorized(&headers("Bearer 0123456789abcdeF"), &token));
        assert!(!authorized(&headers("Bearer 0123456789abcde"), &token));
        assert!(!authorized(&headers("Basic 0123456789abcdef"), &token));
        assert!(!authorized(&headers("0123456789abcdef"), &token));
        assert!(!authorized(&HeaderMap::new(), &token));
    }
}
