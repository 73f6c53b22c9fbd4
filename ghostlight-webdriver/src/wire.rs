//! What the adapter sends its driver, counted: classic WebDriver commands (HTTP requests to
//! chromedriver or geckodriver) and WebDriver BiDi commands, with the bytes of each.
//!
//! The counts are exact and do not depend on timing for a call that waits for nothing, which
//! makes them a guard no clock can flake: `tests/round_trips.rs` runs every tool once and
//! compares its counts with the table the repository keeps. Counting costs a few atomic
//! additions per command.
//!
//! Classic commands are counted below fantoccini, on the connection it writes to (a
//! [`CountingConnector`] around hyper's `HttpConnector`): every request head written is one
//! command, its head and body the bytes sent. BiDi commands are counted where
//! [`Bidi`](crate::bidi::Bidi) sends them.

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use hyper::Uri;
use hyper::rt::{Read, ReadBufCursor, Write};
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};

/// Header lines a request head may carry for the counter to read it (fantoccini sends 4–6).
const MAX_HEADERS: usize = 64;
/// Commands a command log keeps at most (the oldest are dropped).
const MAX_LOGGED: usize = 1_000;

/// The counts, as a snapshot. Subtract two snapshots ([`WireCounts::since`]) for what one
/// call sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WireCounts {
    /// Classic WebDriver commands (HTTP requests) sent to the driver.
    pub classic_commands: u64,
    /// Bytes of those requests (heads and bodies).
    pub classic_bytes: u64,
    /// WebDriver BiDi commands sent.
    pub bidi_commands: u64,
    /// Bytes of those commands (their JSON text).
    pub bidi_bytes: u64,
    /// WebDriver BiDi connections opened.
    pub bidi_connections: u64,
}

impl WireCounts {
    /// What was sent between `earlier` and this snapshot.
    #[must_use]
    pub fn since(&self, earlier: &WireCounts) -> WireCounts {
        WireCounts {
            classic_commands: self.classic_commands.saturating_sub(earlier.classic_commands),
            classic_bytes: self.classic_bytes.saturating_sub(earlier.classic_bytes),
            bidi_commands: self.bidi_commands.saturating_sub(earlier.bidi_commands),
            bidi_bytes: self.bidi_bytes.saturating_sub(earlier.bidi_bytes),
            bidi_connections: self.bidi_connections.saturating_sub(earlier.bidi_connections),
        }
    }

    /// Commands of both protocols: the round trips.
    #[must_use]
    pub fn commands(&self) -> u64 {
        self.classic_commands + self.bidi_commands
    }

    /// Bytes sent over both protocols.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.classic_bytes + self.bidi_bytes
    }
}

/// The live counters one browser's sessions add to, and the command log when one is kept.
#[derive(Debug, Default)]
pub(crate) struct Wire {
    classic_commands: AtomicU64,
    classic_bytes: AtomicU64,
    bidi_commands: AtomicU64,
    bidi_bytes: AtomicU64,
    bidi_connections: AtomicU64,
    /// `Some` while commands are logged: each as `GET /session/…/url` or `bidi script.callFunction`
    /// (method and path only; bodies, which carry scripts and values, are never kept).
    log: Mutex<Option<VecDeque<String>>>,
}

impl Wire {
    /// The counts so far.
    pub(crate) fn counts(&self) -> WireCounts {
        WireCounts {
            classic_commands: self.classic_commands.load(Ordering::Relaxed),
            classic_bytes: self.classic_bytes.load(Ordering::Relaxed),
            bidi_commands: self.bidi_commands.load(Ordering::Relaxed),
            bidi_bytes: self.bidi_bytes.load(Ordering::Relaxed),
            bidi_connections: self.bidi_connections.load(Ordering::Relaxed),
        }
    }

    /// One BiDi command, `method`, of `bytes` bytes was sent.
    pub(crate) fn bidi_command(&self, method: &str, bytes: usize) {
        self.bidi_commands.fetch_add(1, Ordering::Relaxed);
        self.bidi_bytes.fetch_add(as_u64(bytes), Ordering::Relaxed);
        self.log(|| format!("bidi {method}"));
    }

    /// Start (`true`) or stop keeping the command log; either way the log starts empty.
    pub(crate) fn keep_log(&self, on: bool) {
        *lock(&self.log) = on.then(VecDeque::new);
    }

    /// The commands logged since the last call, oldest first.
    pub(crate) fn take_log(&self) -> Vec<String> {
        lock(&self.log).as_mut().map(|log| log.drain(..).collect()).unwrap_or_default()
    }

    /// Log the command `line` makes, when a log is kept.
    fn log(&self, line: impl FnOnce() -> String) {
        if let Some(log) = lock(&self.log).as_mut() {
            if log.len() == MAX_LOGGED {
                log.pop_front();
            }
            log.push_back(line());
        }
    }

    /// A BiDi connection was opened.
    pub(crate) fn bidi_connection(&self) {
        self.bidi_connections.fetch_add(1, Ordering::Relaxed);
    }
}

/// Lock `mutex`, also after a panic elsewhere poisoned it (a log is only appended to).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn as_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// hyper's `HttpConnector`, whose connections count the requests written to them.
#[derive(Debug, Clone)]
pub(crate) struct CountingConnector {
    inner: HttpConnector,
    wire: Arc<Wire>,
}

impl CountingConnector {
    /// A plain HTTP connector counting into `wire`.
    pub(crate) fn new(wire: Arc<Wire>) -> CountingConnector {
        CountingConnector { inner: HttpConnector::new(), wire }
    }
}

impl tower_service::Service<Uri> for CountingConnector {
    type Response = Counted<<HttpConnector as tower_service::Service<Uri>>::Response>;
    type Error = <HttpConnector as tower_service::Service<Uri>>::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let connecting = self.inner.call(uri);
        let wire = Arc::clone(&self.wire);
        Box::pin(async move {
            let io = connecting.await?;
            Ok(Counted { io, wire, requests: RequestStream::default() })
        })
    }
}

/// A connection that counts the requests written to it.
#[derive(Debug)]
pub(crate) struct Counted<T> {
    io: T,
    wire: Arc<Wire>,
    requests: RequestStream,
}

impl<T: Read + Unpin> Read for Counted<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: Write + Unpin> Write for Counted<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let Counted { io, wire, requests } = &mut *self;
        let written = Pin::new(io).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = written {
            let sent = buf.get(..n).unwrap_or(buf);
            let heads = requests.feed(sent, |method, path| wire.log(|| format!("{method} {path}")));
            wire.classic_commands.fetch_add(heads, Ordering::Relaxed);
            wire.classic_bytes.fetch_add(as_u64(sent.len()), Ordering::Relaxed);
        }
        written
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

impl<T: Connection> Connection for Counted<T> {
    fn connected(&self) -> Connected {
        self.io.connected()
    }
}

/// Where the writer is in its stream of HTTP/1.1 requests: inside a head (the bytes so far)
/// or inside a body (the bytes left).
#[derive(Debug, Default)]
struct RequestStream {
    head: Vec<u8>,
    body_left: usize,
}

impl RequestStream {
    /// Follow `bytes` written; the number of request heads they completed, each also handed
    /// to `head` as its method and path.
    fn feed(&mut self, mut bytes: &[u8], mut head: impl FnMut(&str, &str)) -> u64 {
        let mut heads = 0;
        while !bytes.is_empty() {
            if self.body_left > 0 {
                let skip = self.body_left.min(bytes.len());
                self.body_left -= skip;
                bytes = bytes.get(skip..).unwrap_or_default();
                continue;
            }
            let before = self.head.len();
            self.head.extend_from_slice(bytes);
            let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut request = httparse::Request::new(&mut headers);
            match request.parse(&self.head) {
                Ok(httparse::Status::Complete(length)) => {
                    heads += 1;
                    head(request.method.unwrap_or_default(), request.path.unwrap_or_default());
                    self.body_left = content_length(request.headers);
                    // The bytes of this write past the head belong to the body (or the next
                    // request).
                    bytes = bytes.get(length.saturating_sub(before)..).unwrap_or_default();
                    self.head.clear();
                }
                Ok(httparse::Status::Partial) => return heads,
                // Not HTTP the counter understands: count the bytes, stop following heads.
                Err(_) => {
                    self.head.clear();
                    self.body_left = usize::MAX;
                    return heads;
                }
            }
        }
        heads
    }
}

/// A request's `Content-Length` (0 without one: fantoccini sends no chunked bodies).
fn content_length(headers: &[httparse::Header<'_>]) -> usize {
    headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))
        .and_then(|h| std::str::from_utf8(h.value).ok())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_counted_however_the_writes_split_them() {
        let stream = b"POST /session/1/url HTTP/1.1\r\ncontent-length: 5\r\nhost: x\r\n\r\nhello\
GET /session/1/title HTTP/1.1\r\nhost: x\r\n\r\n\
DELETE /session/1/actions HTTP/1.1\r\ncontent-length: 0\r\n\r\n";
        for split in 1..=stream.len() {
            let mut requests = RequestStream::default();
            let mut heads = 0;
            for chunk in stream.chunks(split) {
                heads += requests.feed(chunk, |_, _| {});
            }
            assert_eq!(heads, 3, "writes of {split} bytes");
            assert!(requests.head.is_empty() && requests.body_left == 0);
        }
    }

    #[test]
    fn a_body_that_looks_like_a_request_is_not_one() {
        let body = b"GET / HTTP/1.1\r\n\r\n";
        let head = format!("POST /x HTTP/1.1\r\ncontent-length: {}\r\n\r\n", body.len());
        let mut requests = RequestStream::default();
        let mut seen = Vec::new();
        let mut log = |method: &str, path: &str| seen.push(format!("{method} {path}"));
        assert_eq!(requests.feed(head.as_bytes(), &mut log) + requests.feed(body, &mut log), 1);
        assert_eq!(seen, ["POST /x"]);
    }

    #[test]
    fn snapshots_subtract() {
        let wire = Wire::default();
        let start = wire.counts();
        wire.bidi_command("script.callFunction", 40);
        wire.bidi_connection();
        let delta = wire.counts().since(&start);
        assert_eq!((delta.commands(), delta.bytes(), delta.bidi_connections), (1, 40, 1));
    }
}
