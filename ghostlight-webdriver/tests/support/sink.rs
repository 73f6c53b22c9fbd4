//! The denied host's own evidence: a TCP listener and a UDP socket on 127.0.0.2 that record
//! everything that reaches them (every connection, its first line, every datagram). A test
//! that asserts nothing reached a host outside authority asks this log, never the browser.
//!
//! TCP connections get a small HTML page (`200`, `Access-Control-Allow-Origin: *`) or, for a
//! WebSocket handshake, a `101`, so that a request that does get through looks like a success
//! to the page.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// The denied host.
pub(crate) const DENIED_HOST: &str = "127.0.0.2";

/// What the log holds for every TCP connection as it is accepted (a request on it adds its own
/// line, `TCP <request line>`).
pub(crate) const CONNECTED: &str = "TCP connection";

/// The running sink; stopped on drop.
pub(crate) struct Sink {
    tcp_port: u16,
    udp_port: u16,
    seen: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Sink {
    /// Listen on free TCP and UDP ports of [`DENIED_HOST`].
    pub(crate) fn start() -> Sink {
        let tcp = TcpListener::bind((DENIED_HOST, 0)).expect("a TCP listener on 127.0.0.2");
        let udp = UdpSocket::bind((DENIED_HOST, 0)).expect("a UDP socket on 127.0.0.2");
        let tcp_port = tcp.local_addr().expect("an address").port();
        let udp_port = udp.local_addr().expect("an address").port();
        tcp.set_nonblocking(true).expect("non-blocking accept");
        udp.set_read_timeout(Some(Duration::from_millis(100))).expect("a read timeout");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (tcp_seen, tcp_stop) = (Arc::clone(&seen), Arc::clone(&stop));
        let tcp_thread = std::thread::spawn(move || {
            while !tcp_stop.load(Ordering::SeqCst) {
                match tcp.accept() {
                    Ok((stream, _)) => {
                        let seen = Arc::clone(&tcp_seen);
                        std::thread::spawn(move || answer(stream, &seen));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        let (udp_seen, udp_stop) = (Arc::clone(&seen), Arc::clone(&stop));
        let udp_thread = std::thread::spawn(move || {
            let mut buffer = [0u8; 2048];
            while !udp_stop.load(Ordering::SeqCst) {
                if let Ok((n, _)) = udp.recv_from(&mut buffer) {
                    record(&udp_seen, format!("UDP datagram of {n} bytes"));
                }
            }
        });
        Sink { tcp_port, udp_port, seen, stop, threads: vec![tcp_thread, udp_thread] }
    }

    /// `http://127.0.0.2:PORT` (no trailing slash).
    pub(crate) fn origin(&self) -> String {
        format!("http://{DENIED_HOST}:{}", self.tcp_port)
    }

    /// The TCP port (also `ws://`).
    pub(crate) fn tcp_port(&self) -> u16 {
        self.tcp_port
    }

    /// The UDP port (a STUN server's, for WebRTC).
    pub(crate) fn udp_port(&self) -> u16 {
        self.udp_port
    }

    /// Everything that reached the host so far: one line per TCP connection ([`CONNECTED`]),
    /// one per request line that came on one, one per datagram.
    pub(crate) fn seen(&self) -> Vec<String> {
        self.seen.lock().map(|seen| seen.clone()).unwrap_or_default()
    }

    /// Forget what was seen.
    pub(crate) fn clear(&self) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.clear();
        }
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

fn record(seen: &Mutex<Vec<String>>, line: String) {
    if let Ok(mut seen) = seen.lock() {
        seen.push(line);
    }
}

/// Record the connection ([`CONNECTED`]) and, once it comes, its first request line; answer
/// it as a page (or a WebSocket) would be. A browser may open a connection early
/// (a speculative preconnect) and send a request on it much later: the request line is
/// recorded whenever it arrives.
fn answer(stream: std::net::TcpStream, seen: &Mutex<Vec<String>>) {
    record(seen, CONNECTED.to_owned());
    let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(clone) => clone,
        Err(_) => return,
    });
    let mut first = String::new();
    let _ = reader.read_line(&mut first);
    let mut websocket = None;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line == "\r\n" => break,
            Ok(_) => {
                if let Some(key) = line
                    .strip_prefix("Sec-WebSocket-Key:")
                    .or_else(|| line.strip_prefix("sec-websocket-key:"))
                {
                    websocket = Some(key.trim().to_owned());
                }
            }
        }
    }
    if first.trim().is_empty() {
        return;
    }
    record(seen, format!("TCP {}", first.trim_end()));
    let mut stream = stream;
    let reply = match websocket {
        // Not a valid accept key: enough for the test, which only counts what arrived.
        Some(_) => {
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n".to_owned()
        }
        None => {
            let body = "<!doctype html><title>Denied host</title><p>The denied host answered.</p>";
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
        }
    };
    let _ = stream.write_all(reply.as_bytes());
}
