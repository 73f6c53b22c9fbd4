//! Where the filter sends admitted requests: straight to their host, or through the person's
//! own proxy (`[browser] proxy`), which the browser would otherwise have used itself.
//!
//! An `http://` proxy gets `CONNECT` tunnels and, for plain `http:`, the request in absolute
//! form; a `socks4://` or `socks5://` proxy gets a tunnel for everything (SOCKS v5 resolves
//! host names itself). hyper-util's connectors speak both. Hosts on the proxy's bypass list
//! (`example.com`, `*.example.com` or `.example.com`, an IP address, `<local>` for names
//! without a dot) and loopback hosts are reached directly, as the browser would have reached
//! them.

use std::future::poll_fn;

use http::Uri;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::connect::proxy::{SocksV4, SocksV5, Tunnel};
use tokio::net::TcpStream;
use tower_service::Service;

use super::Target;
use crate::config::{Proxy, ProxyScheme};

/// The filter's next hop for admitted requests.
#[derive(Debug, Clone, Default)]
pub(crate) struct Upstream {
    hop: Option<Hop>,
    bypass: Vec<String>,
    /// Whether loopback goes through the proxy too (only tests, whose every host is loopback).
    proxy_loopback: bool,
}

/// A proxy the filter speaks to.
#[derive(Debug, Clone)]
enum Hop {
    /// `http://host:port`.
    Http(Uri),
    /// `socks4://host:port`.
    Socks4(Uri),
    /// `socks5://host:port`.
    Socks5(Uri),
}

/// The person's proxy is one the filter cannot speak to (`https://`: TLS to the proxy).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an https:// proxy cannot be the filter's upstream")]
pub(crate) struct UnsupportedUpstream;

impl Upstream {
    /// Every admitted request straight to its host.
    pub(crate) fn direct() -> Upstream {
        Upstream::default()
    }

    /// Through `proxy`, its bypass list reached directly.
    pub(crate) fn through(proxy: &Proxy) -> Result<Upstream, UnsupportedUpstream> {
        let uri = |scheme: &str| format!("{scheme}://{}", proxy.host_port()).parse::<Uri>().ok();
        let hop = match proxy.scheme {
            ProxyScheme::Http => uri("http").map(Hop::Http),
            ProxyScheme::Socks4 => uri("socks4").map(Hop::Socks4),
            ProxyScheme::Socks5 => uri("socks5").map(Hop::Socks5),
            ProxyScheme::Https => return Err(UnsupportedUpstream),
        };
        Ok(Upstream { hop, bypass: proxy.bypass.clone(), proxy_loopback: false })
    }

    /// [`Upstream::through`], loopback included (for tests, whose hosts are all loopback).
    #[cfg(test)]
    pub(crate) fn through_even_for_loopback(proxy: &Proxy) -> Result<Upstream, UnsupportedUpstream> {
        Upstream::through(proxy).map(|upstream| Upstream { proxy_loopback: true, ..upstream })
    }

    /// The proxy `target` goes through, if any: none for a host on the bypass list, nor for a
    /// loopback host (both engines reach loopback directly whatever the proxy).
    fn hop_for(&self, target: &Target) -> Option<&Hop> {
        let bypassed = (!self.proxy_loopback && is_loopback(&target.host))
            || self.bypass.iter().any(|entry| bypasses(entry, &target.host));
        if bypassed { None } else { self.hop.as_ref() }
    }

    /// Whether a plain `http:` request to `target` goes to an HTTP proxy in absolute form
    /// (rather than straight to the origin, or through a tunnel).
    pub(crate) fn forwards_in_absolute_form(&self, target: &Target) -> bool {
        matches!(self.hop_for(target), Some(Hop::Http(_)))
    }

    /// A byte stream to `target` (a tunnel through the proxy, or a direct connection).
    pub(crate) async fn open(&self, target: &Target) -> std::io::Result<TcpStream> {
        let destination = || -> std::io::Result<Uri> {
            format!("http://{}", authority(target)).parse::<Uri>().map_err(std::io::Error::other)
        };
        match self.hop_for(target) {
            None => TcpStream::connect((target.host.as_str(), target.port)).await,
            Some(Hop::Http(proxy)) => call(Tunnel::new(proxy.clone(), connector()), destination()?).await,
            Some(Hop::Socks4(proxy)) => call(SocksV4::new(proxy.clone(), connector()), destination()?).await,
            Some(Hop::Socks5(proxy)) => call(SocksV5::new(proxy.clone(), connector()), destination()?).await,
        }
    }

    /// The connection a plain `http:` request to `target` is written to: the HTTP proxy
    /// itself when [`Upstream::forwards_in_absolute_form`], else as [`Upstream::open`].
    pub(crate) async fn open_for_forwarding(&self, target: &Target) -> std::io::Result<TcpStream> {
        match self.hop_for(target) {
            Some(Hop::Http(proxy)) => {
                let host = proxy.host().unwrap_or_default().trim_start_matches('[').trim_end_matches(']');
                TcpStream::connect((host, proxy.port_u16().unwrap_or(80))).await
            }
            _ => self.open(target).await,
        }
    }
}

/// `host:port`, an IPv6 literal in brackets.
fn authority(target: &Target) -> String {
    if target.host.contains(':') {
        format!("[{}]:{}", target.host, target.port)
    } else {
        format!("{}:{}", target.host, target.port)
    }
}

/// A plain TCP connector for the hyper-util proxy connectors to dial the proxy with.
fn connector() -> HttpConnector {
    let mut connector = HttpConnector::new();
    connector.enforce_http(false);
    connector.set_nodelay(true);
    connector
}

/// Run a hyper-util connector for `destination` and take its TCP stream.
async fn call<S>(mut service: S, destination: Uri) -> std::io::Result<TcpStream>
where
    S: Service<Uri, Response = hyper_util::rt::TokioIo<TcpStream>>,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    poll_fn(|cx| service.poll_ready(cx)).await.map_err(std::io::Error::other)?;
    let stream = service.call(destination).await.map_err(std::io::Error::other)?;
    Ok(stream.into_inner())
}

/// Whether `host` is this machine: `localhost` (and its subdomains), `127.0.0.0/8`, `::1`.
fn is_loopback(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<std::net::IpAddr>().is_ok_and(|address| address.is_loopback())
}

/// Whether the bypass `entry` covers `host` (both engines' reading of the list: an exact
/// host, `*.suffix` or `.suffix` for its subdomains, `<local>` for names without a dot).
fn bypasses(entry: &str, host: &str) -> bool {
    let entry = entry.to_ascii_lowercase();
    let host = host.to_ascii_lowercase();
    if entry == "<local>" {
        return !host.contains('.') && !host.contains(':');
    }
    if let Some(suffix) = entry.strip_prefix("*.").or_else(|| entry.strip_prefix('.')) {
        return host.ends_with(&format!(".{suffix}"));
    }
    entry.trim_start_matches('[').trim_end_matches(']') == host
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bypass_entries_read_as_the_browsers_read_them() {
        assert!(bypasses("intranet.example", "intranet.example"));
        assert!(!bypasses("intranet.example", "www.intranet.example"));
        assert!(bypasses("*.corp.example", "a.b.corp.example"));
        assert!(bypasses(".corp.example", "a.corp.example"));
        assert!(!bypasses("*.corp.example", "corp.example"));
        assert!(bypasses("<local>", "printer"));
        assert!(!bypasses("<local>", "printer.lan"));
        assert!(bypasses("[::1]", "::1"));
        assert!(is_loopback("127.0.0.2") && is_loopback("::1") && is_loopback("app.localhost"));
        assert!(!is_loopback("127.example") && !is_loopback("10.0.0.1"));
    }

    #[test]
    fn an_https_proxy_cannot_be_the_upstream() {
        let mut proxy = Proxy::parse("https://proxy.example:8443").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(Upstream::through(&proxy).err(), Some(UnsupportedUpstream));
        proxy = Proxy::parse("http://proxy.example:3128").unwrap_or_else(|e| panic!("{e}"));
        proxy.bypass = vec!["*.corp.example".into()];
        let upstream = Upstream::through(&proxy).unwrap_or_else(|e| panic!("{e}"));
        let inside = Target { host: "a.corp.example".into(), port: 80 };
        assert!(!upstream.forwards_in_absolute_form(&Target { host: "127.0.0.1".into(), port: 80 }));
        let outside = Target { host: "example.com".into(), port: 80 };
        assert!(!upstream.forwards_in_absolute_form(&inside));
        assert!(upstream.forwards_in_absolute_form(&outside));
    }
}
