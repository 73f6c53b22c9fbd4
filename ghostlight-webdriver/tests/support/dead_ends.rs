//! Loopback endpoints that never answer: a server whose pages never finish loading, and a port
//! nothing listens on.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use url::Url;

/// A loopback port nothing listens on (bound, then released).
pub(crate) fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    listener.local_addr().expect("an address").port()
}

/// A loopback server (its own port on 127.0.0.1) whose every answer never finishes: it sends
/// the headers and the start of a page, then holds the connection open until the server is
/// released (on drop at the latest), so the page never finishes loading.
pub(crate) struct Hanging {
    port: u16,
    released: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Connections accepted so far.
    accepted: Arc<AtomicUsize>,
}

impl Hanging {
    /// Start the server.
    pub(crate) fn start() -> Hanging {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback listener");
        listener.set_nonblocking(true).expect("a non-blocking listener");
        let port = listener.local_addr().expect("a bound address").port();
        let released = Arc::new(AtomicBool::new(false));
        let accepted = Arc::new(AtomicUsize::new(0));
        let (flag, count) = (Arc::clone(&released), Arc::clone(&accepted));
        let thread = std::thread::spawn(move || {
            let mut held = Vec::new();
            while !flag.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        count.fetch_add(1, Ordering::SeqCst);
                        let flag = Arc::clone(&flag);
                        held.push(std::thread::spawn(move || hold(stream, &flag)));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
            for connection in held {
                let _ = connection.join();
            }
        });
        Hanging { port, released, thread: Some(thread), accepted }
    }

    /// The URL of `path` on this server.
    pub(crate) fn url(&self, path: &str) -> Url {
        Url::parse(&format!("http://127.0.0.1:{}{path}", self.port)).expect("a hanging URL")
    }

    /// Connections accepted so far.
    pub(crate) fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    /// Close every held connection and stop accepting; waits for the server's threads.
    pub(crate) fn release(&mut self) {
        self.released.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Hanging {
    fn drop(&mut self) {
        self.release();
    }
}

/// Answer one connection with headers and half a page, then hold it until `released`.
fn hold(mut stream: TcpStream, released: &AtomicBool) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut request = Vec::new();
    let mut buffer = [0_u8; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => request.extend_from_slice(&buffer[..n]),
        }
    }
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: 100000\r\n\r\n\
                <!doctype html><title>Hanging</title><h1>Still loading</h1><p>The rest never comes";
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.flush();
    while !released.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}
