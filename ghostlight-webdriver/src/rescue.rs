//! The second channel to a session's browser, for the moments classic WebDriver cannot serve.
//!
//! A WebDriver session has one command queue: while a command waits on a page (a click whose
//! handler never returns, a script on a document that keeps its main thread busy), every
//! later command of the session waits behind it, whatever tab it is for; and while a tab
//! shows a dialog, classic WebDriver refuses to close it or to open a tab from it. The
//! browser itself still answers on a second channel, measured here on both engines with a
//! click stuck in `for(;;){}` and with an endless `alert()` loop:
//!
//! - **Chromium**: its DevTools HTTP endpoint (the `debuggerAddress` chromedriver reports in
//!   the session's capabilities). `GET /json/close/{id}` closes the tab in about 1 ms; the
//!   stuck command then fails and the queue moves on (chromedriver's own BiDi waits behind
//!   the stuck command, and `Runtime.terminateExecution` got no answer).
//! - **Firefox**: WebDriver BiDi, which the browser serves beside Marionette (`webSocketUrl`):
//!   `browsingContext.close` answers in about 50 ms, also with a dialog open.
//!
//! A WebDriver window handle is the tab's DevTools target id (Chromium) and its BiDi
//! browsing context id (Firefox), so no mapping is needed. With a driver elsewhere there is no
//! second channel for Chromium ([`Rescue::Unavailable`]); a session stuck there is given up.

use std::time::Duration;

use ghostlight_core::port::{PortError, PortErrorKind, PortResult};
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::rt::TokioExecutor;
use serde_json::{Map, Value, json};
use url::Url;

use crate::bidi::{Bidi, Endpoint};
use crate::config::Engine;

/// How long one request on the second channel may take (about 1–50 ms measured).
pub(crate) const RESCUE_TIMEOUT: Duration = Duration::from_secs(3);

/// The second channel of one session (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Rescue {
    /// Chromium's DevTools HTTP endpoint, `http://127.0.0.1:{port}/`.
    Devtools(Url),
    /// The session's WebDriver BiDi URL (Firefox).
    Bidi(Endpoint),
    /// A Chromium session in a shared browser (`shared.rs`): the browser's DevTools endpoint
    /// closes tabs, and BiDi (kept to the session's user context, `endpoint.user_context`)
    /// lists and opens them, so the session never sees or opens another session's tabs.
    Seated {
        /// The browser's DevTools endpoint.
        devtools: Url,
        /// The session's BiDi endpoint, with its user context.
        endpoint: Endpoint,
    },
    /// No second channel.
    Unavailable,
}

impl Rescue {
    /// The second channel of a session of `engine` whose new-session answer granted
    /// `capabilities` and the BiDi URL `bidi`; `local` when the browser runs on this machine
    /// (chromedriver reports its DevTools address as seen from the driver's host).
    pub(crate) fn of(
        engine: Engine,
        capabilities: Option<&Map<String, Value>>,
        bidi: Option<&Endpoint>,
        local: bool,
    ) -> Rescue {
        match engine {
            Engine::Firefox => bidi.cloned().map_or(Rescue::Unavailable, Rescue::Bidi),
            Engine::Chromium if local => capabilities
                .and_then(crate::launch::debugger_address)
                .and_then(|address| devtools_url(&address))
                .map_or(Rescue::Unavailable, Rescue::Devtools),
            Engine::Chromium => Rescue::Unavailable,
        }
    }

    /// The second channel of a session seated in a shared Chromium whose DevTools address is
    /// `debugger_address` and whose BiDi endpoint (with its user context) is `endpoint`.
    pub(crate) fn seated(debugger_address: &str, endpoint: &Endpoint) -> Rescue {
        match devtools_url(debugger_address) {
            Some(devtools) => Rescue::Seated { devtools, endpoint: endpoint.clone() },
            None => Rescue::Unavailable,
        }
    }

    /// Whether there is a second channel.
    pub(crate) fn is_available(&self) -> bool {
        !matches!(self, Rescue::Unavailable)
    }

    /// Close the tab whose window handle is `handle`, without running its page's unload
    /// prompt.
    pub(crate) async fn close(&self, handle: &str) -> PortResult<()> {
        match self {
            Rescue::Devtools(base) | Rescue::Seated { devtools: base, .. } => {
                devtools(base, http::Method::GET, &format!("json/close/{handle}")).await.map(|_| ())
            }
            Rescue::Bidi(endpoint) => {
                let params = json!({ "context": handle, "promptUnload": false });
                bidi(endpoint, "browsingContext.close", params).await.map(|_| ())
            }
            Rescue::Unavailable => Err(unavailable()),
        }
    }

    /// The window handles of the browser's tabs.
    pub(crate) async fn tabs(&self) -> PortResult<Vec<String>> {
        let listed: Vec<String> = match self {
            Rescue::Devtools(base) => {
                let answer = devtools(base, http::Method::GET, "json/list").await?;
                let targets: Vec<Value> = serde_json::from_slice(&answer).unwrap_or_default();
                targets
                    .iter()
                    .filter(|target| target.get("type").and_then(Value::as_str) == Some("page"))
                    .filter_map(|target| target.get("id").and_then(Value::as_str).map(str::to_owned))
                    .collect()
            }
            Rescue::Bidi(endpoint) | Rescue::Seated { endpoint, .. } => {
                let tree = bidi(endpoint, "browsingContext.getTree", json!({ "maxDepth": 0 })).await?;
                top_contexts_of(&tree, endpoint.user_context.as_deref())
            }
            Rescue::Unavailable => return Err(unavailable()),
        };
        Ok(listed)
    }

    /// Open a blank tab; answers its window handle.
    pub(crate) async fn open_blank(&self) -> PortResult<String> {
        let handle = match self {
            Rescue::Devtools(base) => {
                let answer = devtools(base, http::Method::PUT, "json/new?about:blank").await?;
                serde_json::from_slice::<Value>(&answer)
                    .ok()
                    .and_then(|target| target.get("id").and_then(Value::as_str).map(str::to_owned))
            }
            Rescue::Bidi(endpoint) | Rescue::Seated { endpoint, .. } => {
                let mut params = json!({ "type": "tab" });
                if let (Some(user_context), Some(object)) = (&endpoint.user_context, params.as_object_mut()) {
                    object.insert("userContext".into(), json!(user_context));
                }
                bidi(endpoint, "browsingContext.create", params)
                    .await?
                    .get("context")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }
            Rescue::Unavailable => return Err(unavailable()),
        };
        handle
            .ok_or_else(|| PortError::new(PortErrorKind::Other, "the browser did not name the tab it opened"))
    }
}

/// The top-level browsing contexts of a `browsingContext.getTree` answer, in its order; only
/// those of `user_context` when given.
pub(crate) fn top_contexts_of(tree: &Value, user_context: Option<&str>) -> Vec<String> {
    let Some(contexts) = tree.get("contexts").and_then(Value::as_array) else { return Vec::new() };
    contexts
        .iter()
        .filter(|c| {
            user_context.is_none_or(|mine| c.get("userContext").and_then(Value::as_str) == Some(mine))
        })
        .filter_map(|c| c.get("context").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// The DevTools base URL for chromedriver's `debuggerAddress` (`localhost:PORT`): the
/// endpoint listens on IPv4 loopback, so `localhost` is not left to name resolution.
fn devtools_url(address: &str) -> Option<Url> {
    let port: u16 = address.rsplit_once(':')?.1.parse().ok()?;
    Url::parse(&format!("http://127.0.0.1:{port}/")).ok()
}

/// One request to the DevTools endpoint; answers the body of a 2xx answer.
async fn devtools(base: &Url, method: http::Method, path: &str) -> PortResult<Bytes> {
    let url = base.join(path).map_err(|_| PortError::new(PortErrorKind::Other, "a bad DevTools path"))?;
    let uri: http::Uri =
        url.as_str().parse().map_err(|_| PortError::new(PortErrorKind::Other, "a bad DevTools URL"))?;
    let request = http::Request::builder()
        .method(method)
        .uri(uri)
        .body(Empty::<Bytes>::new())
        .map_err(|_| PortError::new(PortErrorKind::Other, "a bad DevTools request"))?;
    let http = HttpClient::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
    let exchange = async {
        let response = http.request(request).await.ok()?;
        let ok = response.status().is_success();
        let body = response.into_body().collect().await.ok()?.to_bytes();
        ok.then_some(body)
    };
    match tokio::time::timeout(RESCUE_TIMEOUT, exchange).await {
        Ok(Some(body)) => Ok(body),
        Ok(None) => {
            Err(PortError::new(PortErrorKind::Other, "the browser's DevTools endpoint refused the request"))
        }
        Err(_) => Err(PortError::new(
            PortErrorKind::Timeout,
            "the browser's DevTools endpoint did not answer in time",
        )),
    }
}

/// One command on a BiDi connection of its own (opened for it, closed after).
async fn bidi(endpoint: &Endpoint, method: &str, params: Value) -> PortResult<Value> {
    let connection = Bidi::connect(endpoint, Box::new(|_, _| {})).await?;
    connection.command_within(method, params, RESCUE_TIMEOUT).await
}

fn unavailable() -> PortError {
    PortError::new(PortErrorKind::Unsupported, "no second channel to the browser is available")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_channel_follows_the_engine_and_where_the_browser_runs() {
        let caps = json!({ "goog:chromeOptions": { "debuggerAddress": "localhost:39123" } });
        let caps = caps.as_object();
        let bidi = Url::parse("ws://127.0.0.1:9222/session/abc")
            .ok()
            .map(|url| Endpoint::new(url, std::sync::Arc::default()));
        assert_eq!(
            Rescue::of(Engine::Chromium, caps, bidi.as_ref(), true),
            Rescue::Devtools(Url::parse("http://127.0.0.1:39123/").expect("a URL"))
        );
        assert_eq!(Rescue::of(Engine::Chromium, caps, bidi.as_ref(), false), Rescue::Unavailable);
        assert_eq!(Rescue::of(Engine::Chromium, None, bidi.as_ref(), true), Rescue::Unavailable);
        assert_eq!(
            Rescue::of(Engine::Firefox, None, bidi.as_ref(), false),
            Rescue::Bidi(bidi.clone().expect("a URL"))
        );
        assert_eq!(Rescue::of(Engine::Firefox, None, None, true), Rescue::Unavailable);
        assert_eq!(devtools_url("localhost:not-a-port"), None);
    }
}
