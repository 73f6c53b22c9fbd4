//! The filter against loopback origins: what a denied origin sees (nothing), what an allowed
//! one sees (the request in origin form), and the same through a person's own proxy.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::*;
use crate::config::Proxy;

/// A loopback origin that counts connections and answers every request with the request line
/// it read, as the body of a `200`.
struct Origin {
    port: u16,
    connections: Arc<AtomicUsize>,
    _task: JoinHandle<()>,
}

impl Origin {
    async fn start(ip: &str) -> Origin {
        let listener = TcpListener::bind((ip, 0)).await.expect("bind an origin");
        let port = listener.local_addr().expect("an address").port();
        let connections = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&connections);
        let task = tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") {
                        match stream.read(&mut byte).await {
                            Ok(1) => head.push(byte[0]),
                            _ => return,
                        }
                    }
                    let text = String::from_utf8_lossy(&head);
                    let line = text.lines().next().unwrap_or_default().to_owned();
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{line}",
                        line.len()
                    );
                    let _ = stream.write_all(reply.as_bytes()).await;
                });
            }
        });
        Origin { port, connections, _task: task }
    }

    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

/// A policy admitting only `127.0.0.1`.
fn only_first_host() -> NetworkPolicy {
    NetworkPolicy::new(|url, _| url.host_str() == Some("127.0.0.1"))
}

/// Send `request` to the filter and read until it closes or `limit` bytes arrived.
async fn exchange(filter: &Filter, request: &str) -> String {
    let mut stream = TcpStream::connect(filter.address()).await.expect("reach the filter");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let read = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer)).await;
        match read {
            Ok(Ok(0)) | Err(_) | Ok(Err(_)) => break,
            Ok(Ok(n)) => {
                answer.extend_from_slice(&buffer[..n]);
                let text = String::from_utf8_lossy(&answer);
                // Enough of an answer: a complete bodiless head, or the echoed request line.
                if text.contains("\r\n\r\n")
                    && (text.contains("Nothing was sent.</p>")
                        || text.ends_with("HTTP/1.1")
                        || (text.contains(" 403 ") && text.contains("content-length: 0")))
                {
                    break;
                }
            }
        }
    }
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn a_denied_host_is_never_connected() {
    let denied = Origin::start("127.0.0.2").await;
    let filter = Filter::start(only_first_host(), Upstream::direct(), &[]).await.expect("a filter");
    let mark = filter_log(&filter);
    let connect = format!("CONNECT 127.0.0.2:{0} HTTP/1.1\r\nHost: 127.0.0.2:{0}\r\n\r\n", denied.port);
    assert!(exchange(&filter, &connect).await.starts_with("HTTP/1.1 403"));
    let navigation = format!(
        "GET http://127.0.0.2:{0}/form?q=SECRET HTTP/1.1\r\nHost: 127.0.0.2:{0}\r\nSec-Fetch-Dest: document\r\nSec-Fetch-Mode: navigate\r\n\r\n",
        denied.port
    );
    let page = exchange(&filter, &navigation).await;
    assert!(page.starts_with("HTTP/1.1 403"), "{page}");
    assert!(page.contains("127.0.0.2:") && !page.contains("SECRET") && !page.contains("/form"), "{page}");
    let beacon = format!(
        "POST http://127.0.0.2:{0}/beacon HTTP/1.1\r\nHost: 127.0.0.2:{0}\r\nSec-Fetch-Dest: empty\r\nSec-Fetch-Mode: no-cors\r\nContent-Length: 6\r\n\r\nSECRET",
        denied.port
    );
    assert!(exchange(&filter, &beacon).await.starts_with("HTTP/1.1 403"));
    assert_eq!(denied.connections(), 0, "a refused request reached the denied origin");
    let refused = filter.policy().refusals().since(mark);
    let kinds: Vec<RequestKind> = refused.entries.iter().map(|entry| entry.kind).collect();
    assert_eq!(kinds, [RequestKind::Unknown, RequestKind::Document, RequestKind::Resource]);
    let origin = format!("http://127.0.0.2:{}", denied.port);
    assert!(refused.entries[1..].iter().all(|entry| entry.origin == origin), "{refused:?}");
}

#[tokio::test]
async fn an_allowed_host_gets_the_request_in_origin_form() {
    let allowed = Origin::start("127.0.0.1").await;
    let filter = Filter::start(only_first_host(), Upstream::direct(), &[]).await.expect("a filter");
    let request = format!(
        "GET http://127.0.0.1:{0}/page?x=1 HTTP/1.1\r\nHost: 127.0.0.1:{0}\r\nProxy-Connection: keep-alive\r\n\r\n",
        allowed.port
    );
    let answer = exchange(&filter, &request).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("GET /page?x=1 HTTP/1.1"), "{answer}");
    // A tunnel carries bytes both ways.
    let mut stream = TcpStream::connect(filter.address()).await.expect("reach the filter");
    let connect = format!("CONNECT 127.0.0.1:{0} HTTP/1.1\r\nHost: 127.0.0.1:{0}\r\n\r\n", allowed.port);
    stream.write_all(connect.as_bytes()).await.expect("send");
    stream.write_all(b"GET /tunnelled HTTP/1.1\r\nHost: x\r\n\r\n").await.expect("send");
    let mut answer = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_string(&mut answer)).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("GET /tunnelled HTTP/1.1"), "{answer}");
    assert_eq!(filter.policy().refusals().mark(), 0);
}

#[tokio::test]
async fn admitted_requests_go_through_the_persons_proxy() {
    let allowed = Origin::start("127.0.0.1").await;
    // The person's proxy: another filter that admits everything, counting what it relays.
    let persons = Filter::start(NetworkPolicy::open(), Upstream::direct(), &[]).await.expect("a proxy");
    let proxy = Proxy::parse(&format!("http://{}", persons.address())).expect("a proxy URL");
    let upstream = Upstream::through_even_for_loopback(&proxy).expect("an HTTP upstream");
    let filter = Filter::start(only_first_host(), upstream, &[]).await.expect("a filter");
    let request =
        format!("GET http://127.0.0.1:{0}/via HTTP/1.1\r\nHost: 127.0.0.1:{0}\r\n\r\n", allowed.port);
    let answer = exchange(&filter, &request).await;
    assert!(answer.ends_with("GET /via HTTP/1.1"), "{answer}");
    let connect = format!("CONNECT 127.0.0.1:{0} HTTP/1.1\r\nHost: 127.0.0.1:{0}\r\n\r\n", allowed.port);
    let mut stream = TcpStream::connect(filter.address()).await.expect("reach the filter");
    stream.write_all(connect.as_bytes()).await.expect("send");
    stream.write_all(b"GET /tunnelled HTTP/1.1\r\nHost: x\r\n\r\n").await.expect("send");
    let mut answer = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_string(&mut answer)).await;
    assert!(answer.contains("GET /tunnelled HTTP/1.1"), "{answer}");
    assert_eq!(allowed.connections(), 2);
}

fn filter_log(filter: &Filter) -> u64 {
    filter.policy().refusals().mark()
}
