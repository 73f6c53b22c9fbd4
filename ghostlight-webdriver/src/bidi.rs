//! A minimal WebDriver BiDi client: one WebSocket connection to the session's
//! `webSocketUrl` (granted because the session asks for `webSocketUrl: true`), commands with
//! replies, and events handed to a callback.
//!
//! fantoccini speaks classic WebDriver only, and the small third-party BiDi crates bring more
//! than the few messages the adapter needs (see `docs/webdriver-findings.md` §8). This module
//! knows the message envelope only: `{"id", "method", "params"}` out;
//! `{"type": "success" | "error", "id", …}` replies and `{"type": "event", "method", "params"}`
//! events in. Replies and events may arrive out of order (Firefox answered id 2 before id 1).
//!
//! Failures are [`PortErrorKind::Other`] or [`PortErrorKind::Timeout`], never `Transport`:
//! a lost BiDi socket says nothing about the classic session, which the adapter would tear
//! down on a transport error (an `Other` makes it probe the session first).
//!
//! One background task owns the socket. It ends when the socket closes or when the [`Bidi`]
//! is dropped (the session that owns it ended): nothing outlives the session. Error replies
//! are reduced to "failed": a driver's error message is never kept.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use ghostlight_core::port::{PortError, PortErrorKind, PortResult};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use url::Url;

use crate::wire::Wire;

/// The sandbox realm Ghostlight's scripts run in over BiDi (`target.sandbox`), where the
/// page's own globals and prototypes cannot reach them: hit traces, and the isolated
/// evaluations a session makes.
pub(crate) const SANDBOX: &str = "ghostlight";

/// A function that only answers: whether a document's sandbox realm answers at all.
pub(crate) const ANSWERS: &str = "function () { return 1; }";

/// `script.callFunction` parameters that call `function` (without arguments) in the sandbox
/// realm of browsing context `context`'s document, its value kept by nobody.
pub(crate) fn sandboxed_call(context: &str, function: &str) -> Value {
    sandboxed_call_with(context, function, json!([]))
}

/// [`sandboxed_call`] with `arguments` (BiDi local values).
pub(crate) fn sandboxed_call_with(context: &str, function: &str, arguments: Value) -> Value {
    json!({
        "functionDeclaration": function,
        "arguments": arguments,
        "target": { "context": context, "sandbox": SANDBOX },
        "awaitPromise": false,
        "resultOwnership": "none",
    })
}

/// The longest wait for one sandboxed call (they answer in 2–45 ms; one that gets no answer in
/// time fails, and what it was to check is left out, blanked or refused, never asked of the
/// page's own realm: `Session::sandbox_for`).
pub(crate) const SANDBOX_WAIT: Duration = Duration::from_secs(2);
/// How long opening the WebSocket may take (C 1–5 ms, F 8–9 ms in the spike).
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one command may wait for its reply.
pub(crate) const COMMAND_TIMEOUT: Duration = Duration::from_secs(5);
/// Commands queued for the socket task at most.
const COMMAND_QUEUE: usize = 16;

/// Where a session's BiDi connections go (the `webSocketUrl` the driver granted), and the
/// counters their commands add to.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    /// The driver's `ws://` URL for the session.
    pub(crate) url: Url,
    /// The browser's command counters.
    pub(crate) wire: Arc<Wire>,
    /// The user context the session lives in when it shares its browser (`shared.rs`): its
    /// connections subscribe, and install preload scripts, for that user context only.
    pub(crate) user_context: Option<String>,
}

impl Endpoint {
    /// The endpoint at `url` of a session with a browser of its own.
    pub(crate) fn new(url: Url, wire: Arc<Wire>) -> Endpoint {
        Endpoint { url, wire, user_context: None }
    }
}

/// Two endpoints are the same when their URLs are (the counters are bookkeeping).
impl PartialEq for Endpoint {
    fn eq(&self, other: &Endpoint) -> bool {
        self.url == other.url
    }
}

impl Eq for Endpoint {}

/// What the socket task calls for every event: `(method, params)`.
pub(crate) type EventHandler = Box<dyn FnMut(&str, &Value) + Send>;

/// The answer to one command: its `result`, or the error code of an error reply (its message
/// is dropped unread).
type Reply = Result<Value, String>;

/// Commands waiting for their reply, by id.
type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Reply>>>>;

/// One BiDi connection. Dropping it closes the connection and ends its task.
pub(crate) struct Bidi {
    /// Commands for the socket task to write.
    outgoing: mpsc::Sender<String>,
    /// Commands waiting for their reply.
    pending: Pending,
    /// The id of the last command sent (commands may be in flight together).
    next_id: AtomicU64,
    /// The socket task (aborted on drop).
    task: JoinHandle<()>,
    /// The browser's command counters.
    wire: Arc<Wire>,
    /// The session's user context in a shared browser ([`Endpoint::user_context`]).
    user_context: Option<String>,
}

impl std::fmt::Debug for Bidi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bidi").field("open", &self.is_open()).finish_non_exhaustive()
    }
}

impl Bidi {
    /// Connect to `endpoint` (a `ws://` URL on the driver's host) and start the task that
    /// hands every event to `handler`.
    pub(crate) async fn connect(endpoint: &Endpoint, handler: EventHandler) -> PortResult<Bidi> {
        let url = &endpoint.url;
        if url.scheme() != "ws" {
            // No TLS support is built in: drivers are reached on loopback or a private network.
            return Err(PortError::new(
                PortErrorKind::Unsupported,
                "the driver's WebDriver BiDi URL is not a plain ws:// URL",
            ));
        }
        let connecting = tokio_tungstenite::connect_async(url.as_str());
        let socket = match tokio::time::timeout(CONNECT_TIMEOUT, connecting).await {
            Ok(Ok((socket, _response))) => socket,
            Ok(Err(_)) => {
                return Err(PortError::new(
                    PortErrorKind::Other,
                    "the WebDriver BiDi connection could not be opened",
                ));
            }
            Err(_) => {
                return Err(PortError::new(
                    PortErrorKind::Timeout,
                    "the WebDriver BiDi connection did not open in time",
                ));
            }
        };
        let (outgoing, queue) = mpsc::channel(COMMAND_QUEUE);
        let pending: Pending = Arc::default();
        let task = tokio::spawn(pump(socket, queue, Arc::clone(&pending), handler));
        endpoint.wire.bidi_connection();
        Ok(Bidi {
            outgoing,
            pending,
            next_id: AtomicU64::new(0),
            task,
            wire: Arc::clone(&endpoint.wire),
            user_context: endpoint.user_context.clone(),
        })
    }

    /// `params` of a subscription or preload script, kept to the session's user context when
    /// it shares its browser (`userContexts`), so other sessions' tabs never reach it.
    pub(crate) fn scoped(&self, mut params: Value) -> Value {
        if let (Some(user_context), Some(object)) = (&self.user_context, params.as_object_mut()) {
            object.insert("userContexts".into(), json!([user_context]));
        }
        params
    }

    /// Subscribe this connection to `events` (for the session's user context only, when it
    /// shares its browser).
    pub(crate) async fn subscribe(&self, events: &[&str]) -> PortResult<Value> {
        self.command("session.subscribe", self.scoped(json!({ "events": events }))).await
    }

    /// Whether the connection is still open (its task still runs).
    pub(crate) fn is_open(&self) -> bool {
        !self.task.is_finished()
    }

    /// Send `method` with `params` and wait (at most [`COMMAND_TIMEOUT`]) for the result.
    pub(crate) async fn command(&self, method: &str, params: Value) -> PortResult<Value> {
        self.command_within(method, params, COMMAND_TIMEOUT).await
    }

    /// [`Bidi::command`], waiting at most `wait`.
    pub(crate) async fn command_within(
        &self,
        method: &str,
        params: Value,
        wait: Duration,
    ) -> PortResult<Value> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let (reply, answer) = oneshot::channel();
        lock(&self.pending).insert(id, reply);
        let message = json!({ "id": id, "method": method, "params": params }).to_string();
        self.wire.bidi_command(method, message.len());
        let exchange = async {
            self.outgoing.send(message).await.map_err(|_| closed())?;
            answer.await.map_err(|_| closed())
        };
        let outcome = tokio::time::timeout(wait, exchange).await;
        lock(&self.pending).remove(&id);
        match outcome {
            Ok(Ok(Ok(result))) => Ok(result),
            Ok(Ok(Err(code))) => Err(refused(&code)),
            Ok(Err(error)) => Err(error),
            Err(_) => {
                Err(PortError::new(PortErrorKind::Timeout, "a WebDriver BiDi command got no answer in time"))
            }
        }
    }
}

impl Drop for Bidi {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The error of a command the driver answered with the BiDi error `code`: a node the command
/// named that is gone (`no such node`: its document was replaced, or the node was never one
/// the browser handed out) is [`PortErrorKind::TargetStale`].
fn refused(code: &str) -> PortError {
    match code {
        "no such node" => {
            PortError::new(PortErrorKind::TargetStale, "the element is no longer in the page: find it again")
        }
        "no such history entry" => {
            PortError::new(PortErrorKind::InvalidInput, "there is no history entry in that direction")
        }
        _ => PortError::new(PortErrorKind::Other, "the driver refused a WebDriver BiDi command"),
    }
}

/// The error of a command whose connection closed.
fn closed() -> PortError {
    PortError::new(PortErrorKind::Other, "the WebDriver BiDi connection closed")
}

/// Lock `mutex`, also after a panic elsewhere poisoned it (the data stays consistent: every
/// critical section is a single insert or remove).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The socket task: write queued commands, read replies and events, until either side ends.
async fn pump<S>(socket: S, mut queue: mpsc::Receiver<String>, pending: Pending, mut handler: EventHandler)
where
    S: futures::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>>
        + futures::Sink<Message>
        + Unpin,
{
    let (mut sink, mut stream) = socket.split();
    loop {
        tokio::select! {
            incoming = stream.next() => match incoming {
                Some(Ok(Message::Text(text))) => dispatch(text.as_str(), &pending, &mut handler),
                Some(Ok(Message::Close(_)) | Err(_)) | None => break,
                // Pings are answered by tungstenite itself; binary frames are not BiDi.
                Some(Ok(_)) => {}
            },
            command = queue.recv() => match command {
                Some(text) => {
                    if sink.send(Message::text(text)).await.is_err() {
                        break;
                    }
                }
                None => break,
            },
        }
    }
    // Waiters see their reply channel close.
    lock(&pending).clear();
}

/// Route one incoming message: a reply to its waiter, an event to the handler.
fn dispatch(text: &str, pending: &Pending, handler: &mut EventHandler) {
    let Ok(message) = serde_json::from_str::<Value>(text) else { return };
    match message.get("type").and_then(Value::as_str) {
        Some("event") => {
            let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
            let params = message.get("params").unwrap_or(&Value::Null);
            handler(method, params);
        }
        Some(kind @ ("success" | "error")) => {
            let Some(id) = message.get("id").and_then(Value::as_u64) else { return };
            let Some(waiter) = lock(pending).remove(&id) else { return };
            let reply = match kind {
                "success" => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                // The error code only: a message may quote the page.
                _ => Err(message.get("error").and_then(Value::as_str).unwrap_or_default().to_owned()),
            };
            let _ = waiter.send(reply);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_go_to_their_waiter_and_events_to_the_handler() {
        let pending: Pending = Arc::default();
        let (first, mut first_answer) = oneshot::channel();
        let (second, mut second_answer) = oneshot::channel();
        lock(&pending).insert(1, first);
        lock(&pending).insert(2, second);
        let events = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&events);
        let mut handler: EventHandler = Box::new(move |method, params| {
            lock(&seen).push((method.to_owned(), params.clone()));
        });
        dispatch(
            r#"{"type":"error","id":2,"error":"unknown command","message":"secret text"}"#,
            &pending,
            &mut handler,
        );
        dispatch(
            r#"{"type":"event","method":"log.entryAdded","params":{"level":"error"}}"#,
            &pending,
            &mut handler,
        );
        dispatch(r#"{"type":"success","id":1,"result":{"subscription":"x"}}"#, &pending, &mut handler);
        dispatch("not json", &pending, &mut handler);
        dispatch(r#"{"type":"success","id":99,"result":{}}"#, &pending, &mut handler);
        assert_eq!(first_answer.try_recv().ok(), Some(Ok(json!({"subscription": "x"}))));
        assert_eq!(second_answer.try_recv().ok(), Some(Err("unknown command".to_owned())));
        assert!(lock(&pending).is_empty());
        assert_eq!(*lock(&events), vec![("log.entryAdded".to_owned(), json!({"level": "error"}))]);
    }

    #[test]
    fn a_gone_node_is_a_stale_target_and_other_refusals_say_nothing_of_the_page() {
        assert_eq!(refused("no such node").kind(), PortErrorKind::TargetStale);
        let other = refused("unknown error");
        assert_eq!(other.kind(), PortErrorKind::Other);
        assert!(!other.to_string().contains("unknown error"));
    }
}
