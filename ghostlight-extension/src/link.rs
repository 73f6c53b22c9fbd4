//! One live connection to the extension (through its host): requests out by id, answers
//! matched back to their callers. When the connection ends, every call still waiting answers
//! [`CallError::Lost`] (its effect is unknown); calls after that answer [`CallError::Closed`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::framing::{self, BROWSER_BOUND_MAX, INBOUND_MAX, read_frame, write_frame};
use crate::protocol::{FromExtension, Hello, Op, ToExtension, WireError};

/// Why a call has no result.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The connection had ended: nothing was sent.
    Closed,
    /// The request is over the browser's bound: nothing was sent.
    TooLarge,
    /// The connection ended while the call waited: whether it ran is unknown.
    Lost,
    /// No answer in time: whether it ran is unknown.
    TimedOut,
    /// The extension answered with a failure.
    Failed(WireError),
}

type Answer = Result<Value, WireError>;

/// Calls waiting for their answer; `closed` once the connection ended (under the same lock,
/// so no call can start waiting after the drain).
#[derive(Default)]
struct Pending {
    closed: bool,
    waiting: HashMap<u64, oneshot::Sender<Answer>>,
}

/// What the link does with the extension's unasked reports of stopped requests (`url`,
/// `kind`).
pub(crate) type OnRefused = Arc<dyn Fn(&str, &str) + Send + Sync>;

/// A live connection.
pub(crate) struct Link {
    hello: Hello,
    /// Whether the network rules in force on this connection are the current ones.
    pub(crate) rules_current: std::sync::atomic::AtomicBool,
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    pending: Arc<Mutex<Pending>>,
    next_id: AtomicU64,
    tasks: Vec<JoinHandle<()>>,
}

impl Link {
    /// Serve `stream`, on which the extension said `hello`; `on_close` runs once it ends.
    /// Stopped requests the extension reports go to `on_refused`.
    pub(crate) fn start(
        stream: UnixStream,
        hello: Hello,
        on_close: impl FnOnce() + Send + 'static,
        on_refused: OnRefused,
    ) -> Link {
        let (reader, writer) = stream.into_split();
        let (outgoing, queue) = mpsc::unbounded_channel();
        let pending = Arc::new(Mutex::new(Pending::default()));
        let read_task = tokio::spawn(read_answers(reader, Arc::clone(&pending), on_close, on_refused));
        let write_task = tokio::spawn(write_requests(writer, queue, Arc::clone(&pending)));
        Link {
            hello,
            rules_current: std::sync::atomic::AtomicBool::new(false),
            outgoing,
            pending,
            next_id: AtomicU64::new(1),
            tasks: vec![read_task, write_task],
        }
    }

    /// The extension's hello.
    pub(crate) fn hello(&self) -> &Hello {
        &self.hello
    }

    /// Whether the connection ended.
    pub(crate) fn is_closed(&self) -> bool {
        lock(&self.pending).closed
    }

    /// Send one message that expects no answer.
    pub(crate) fn notify(&self, message: &ToExtension) -> Result<(), CallError> {
        let frame = framing::encode(message, BROWSER_BOUND_MAX).map_err(|_| CallError::TooLarge)?;
        self.outgoing.send(frame).map_err(|_| CallError::Closed)
    }

    /// Run `op` and wait at most `wait` for its answer.
    pub(crate) async fn call(&self, op: Op, wait: Duration) -> Result<Value, CallError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let frame = framing::encode(&ToExtension::Request { id, op }, BROWSER_BOUND_MAX)
            .map_err(|_| CallError::TooLarge)?;
        let (answer, answered) = oneshot::channel();
        {
            let mut pending = lock(&self.pending);
            if pending.closed {
                return Err(CallError::Closed);
            }
            pending.waiting.insert(id, answer);
        }
        if self.outgoing.send(frame).is_err() {
            lock(&self.pending).waiting.remove(&id);
            return Err(CallError::Closed);
        }
        match tokio::time::timeout(wait, answered).await {
            Ok(Ok(answer)) => answer.map_err(CallError::Failed),
            Ok(Err(_)) => Err(CallError::Lost),
            Err(_) => {
                lock(&self.pending).waiting.remove(&id);
                Err(CallError::TimedOut)
            }
        }
    }

    /// End the connection now.
    pub(crate) fn shutdown(&self) {
        for task in &self.tasks {
            task.abort();
        }
        close(&self.pending);
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The lock, even if a holder panicked (the map stays usable).
fn lock(pending: &Mutex<Pending>) -> MutexGuard<'_, Pending> {
    pending.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Mark the connection ended and drop every waiting call's sender (each answers `Lost`).
fn close(pending: &Mutex<Pending>) {
    let mut pending = lock(pending);
    pending.closed = true;
    pending.waiting.clear();
}

async fn read_answers(
    mut reader: OwnedReadHalf,
    pending: Arc<Mutex<Pending>>,
    on_close: impl FnOnce(),
    on_refused: OnRefused,
) {
    while let Ok(Some(frame)) = read_frame(&mut reader, INBOUND_MAX).await {
        let (id, answer) = match serde_json::from_slice::<FromExtension>(&frame) {
            Ok(FromExtension::Result { id, value }) => (id, Ok(value)),
            Ok(FromExtension::Error { id, error }) => (id, Err(error)),
            Ok(FromExtension::Refused { url, kind }) => {
                on_refused(&url, &kind);
                continue;
            }
            // A repeated hello or a message this version does not know: nothing waits for it.
            Ok(FromExtension::Hello(_)) | Err(_) => continue,
        };
        if let Some(waiting) = lock(&pending).waiting.remove(&id) {
            let _ = waiting.send(answer);
        }
    }
    close(&pending);
    on_close();
}

async fn write_requests(
    mut writer: OwnedWriteHalf,
    mut queue: mpsc::UnboundedReceiver<Vec<u8>>,
    pending: Arc<Mutex<Pending>>,
) {
    while let Some(frame) = queue.recv().await {
        if write_frame(&mut writer, &frame, BROWSER_BOUND_MAX).await.is_err() {
            break;
        }
    }
    close(&pending);
}
