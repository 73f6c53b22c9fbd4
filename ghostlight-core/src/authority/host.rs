//! Hosts, sites and host patterns.
//!
//! Every host Ghostlight governs is parsed by the `url` crate, never by hand: IDN labels become
//! punycode, letters are lower-cased, IPv4 shorthands are normalised (`127.1` is `127.0.0.1`)
//! and IPv6 literals are bracketed. One trailing dot is ignored (`example.com.` is
//! `example.com`). Userinfo is never the host: in `https://allowed.example@evil.example/` the
//! host is `evil.example`.
//!
//! A [`HostPattern`] is one of
//!
//! * an exact host: `example.com`, `localhost`, `192.0.2.1`, `[::1]`;
//! * `*.example.com`: any subdomain of `example.com` at any depth, never `example.com` itself;
//! * `*`: any host;
//!
//! each with an optional `:port`. A pattern without a port matches every port; a pattern
//! with one matches only that port (the scheme's default port counts: `example.com:443`
//! matches `https://example.com/`).

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use url::{Host, Url};

use crate::limits::HOST_PATTERN_CHARS;

/// A normalised host: a lower-case ASCII domain (IDN as punycode, without a trailing dot), an
/// IPv4 address or an IPv6 address. Only the parsers in this module construct one, so a
/// `HostName` never carries anything but a host.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HostName(HostKind);

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum HostKind {
    Domain(String),
    Ipv4(Ipv4Addr),
    Ipv6(Ipv6Addr),
}

impl HostName {
    /// The domain, when the host is a domain name (not an IP literal).
    pub fn as_domain(&self) -> Option<&str> {
        match &self.0 {
            HostKind::Domain(domain) => Some(domain),
            _ => None,
        }
    }

    /// Whether the host is an IP literal.
    pub fn is_ip(&self) -> bool {
        !matches!(self.0, HostKind::Domain(_))
    }

    /// Normalise a host the `url` crate has parsed. Domains lose one trailing dot; a domain
    /// with an empty label (`a..b`, or two trailing dots) or a `*` is refused.
    fn from_url_host(host: Host<&str>) -> Result<HostName, HostPatternError> {
        match host {
            Host::Domain(domain) => {
                let domain = domain.strip_suffix('.').unwrap_or(domain);
                if domain.is_empty() || domain.split('.').any(str::is_empty) {
                    return Err(HostPatternError::EmptyLabel);
                }
                // The URL standard lets `*` into a domain, but patterns reserve it: a host
                // no pattern could name is not one Ghostlight governs (found by fuzzing).
                if domain.contains('*') {
                    return Err(HostPatternError::Wildcard);
                }
                Ok(HostName(HostKind::Domain(domain.to_owned())))
            }
            Host::Ipv4(address) => Ok(HostName(HostKind::Ipv4(address))),
            Host::Ipv6(address) => Ok(HostName(HostKind::Ipv6(address))),
        }
    }
}

impl fmt::Display for HostName {
    /// `example.com`, `192.0.2.1`, `[::1]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            HostKind::Domain(domain) => f.write_str(domain),
            HostKind::Ipv4(address) => write!(f, "{address}"),
            HostKind::Ipv6(address) => write!(f, "[{address}]"),
        }
    }
}

/// Where a web page lives: its normalised host and its port (explicit or the scheme's
/// default). Only `http` and `https` URLs have a site.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Site {
    host: HostName,
    port: u16,
    default_port: bool,
}

impl Site {
    /// The site of an `http` or `https` URL with a host and a port a server can listen on;
    /// `None` for any other URL (`about:blank`, `file:`, `data:`, port 0, …), so every site
    /// can be named by a [`HostPattern`]. Userinfo is ignored: it is never the host.
    pub fn from_url(url: &Url) -> Option<Site> {
        let default = match url.scheme() {
            "http" => 80,
            "https" => 443,
            _ => return None,
        };
        let host = HostName::from_url_host(url.host()?).ok()?;
        let port = url.port().unwrap_or(default);
        if port == 0 {
            return None;
        }
        Some(Site { host, port, default_port: port == default })
    }

    /// The host.
    pub fn host(&self) -> &HostName {
        &self.host
    }

    /// The port the page is served on (the scheme default when the URL names none).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Whether the port is the scheme's default (then sentences omit it).
    pub fn is_default_port(&self) -> bool {
        self.default_port
    }
}

impl fmt::Display for Site {
    /// The host as a sentence names it: the host, plus `:port` when the port is not the
    /// scheme's default (`example.com`, `example.com:8443`, `[::1]:3000`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.default_port { write!(f, "{}", self.host) } else { write!(f, "{}:{}", self.host, self.port) }
    }
}

impl Serialize for Site {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Why a string is not a host pattern.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HostPatternError {
    /// The pattern is empty or longer than [`HOST_PATTERN_CHARS`], as written or once
    /// normalised (an IDN label is longer as punycode).
    #[error("host patterns are 1 to {} characters, as written and as punycode", HOST_PATTERN_CHARS.max)]
    Length,
    /// The pattern holds a scheme, path, userinfo, query, fragment, whitespace or control
    /// character: it is a URL or text, not a host.
    #[error("a host pattern is a host, not a URL: no scheme, path, userinfo, query or spaces")]
    NotAHost,
    /// `*` appears anywhere but as the whole host or a leading `*.` label.
    #[error("* may only be the whole host or a leading \"*.\" label")]
    Wildcard,
    /// `*.` is followed by an IP literal.
    #[error("*. must be followed by a domain name, not an IP address")]
    WildcardIp,
    /// A domain label is empty (`a..b`, or more than one trailing dot).
    #[error("a domain label is empty")]
    EmptyLabel,
    /// The port is empty, zero or not a number up to 65535.
    #[error("the port must be a number from 1 to 65535")]
    Port,
    /// The `url` crate refused the host.
    #[error("not a valid host name or IP address")]
    Host,
}

impl HostPatternError {
    /// The accepted forms, for messages that refuse a pattern.
    pub const ACCEPTED: &'static str = "must be a host pattern: an exact host (example.com, localhost, \
         192.0.2.1, [::1]), *.example.com for its subdomains, or * for any host, each with an optional \
         :port";
}

/// A configured or requested host pattern (see the module documentation for the forms).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HostPattern {
    host: PatternHost,
    port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum PatternHost {
    Any,
    Exact(HostName),
    /// Strict subdomains of this lower-case ASCII domain.
    Subdomains(String),
}

impl HostPattern {
    /// `*`: every host on every port.
    pub const ANY: HostPattern = HostPattern { host: PatternHost::Any, port: None };

    /// Parse a pattern (see the module documentation).
    pub fn parse(text: &str) -> Result<HostPattern, HostPatternError> {
        if !HOST_PATTERN_CHARS.contains(text.chars().count()) {
            return Err(HostPatternError::Length);
        }
        let url_syntax = |c: char| matches!(c, '/' | '\\' | '@' | '?' | '#' | '%');
        if text.chars().any(|c| c.is_whitespace() || c.is_control() || url_syntax(c)) {
            return Err(HostPatternError::NotAHost);
        }
        if text.ends_with(':') {
            return Err(HostPatternError::Port);
        }
        if let Some(port) = text.strip_prefix('*').filter(|rest| rest.is_empty() || rest.starts_with(':')) {
            // `*` or `*:port`: parse the port against a placeholder host.
            let (_, port) = parse_host_port(&format!("any.invalid{port}"))?;
            return Ok(HostPattern { host: PatternHost::Any, port });
        }
        let (wildcard, rest) = match text.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if rest.contains('*') {
            return Err(HostPatternError::Wildcard);
        }
        let (host, port) = parse_host_port(rest)?;
        let host = match (wildcard, host.0) {
            (false, kind) => PatternHost::Exact(HostName(kind)),
            (true, HostKind::Domain(domain)) => PatternHost::Subdomains(domain),
            (true, _) => return Err(HostPatternError::WildcardIp),
        };
        let pattern = HostPattern { host, port };
        // The bound holds for the normalised form too (IDN labels grow as punycode), so every
        // pattern Ghostlight shows can be written back (found by fuzzing).
        if !HOST_PATTERN_CHARS.contains(pattern.to_string().chars().count()) {
            return Err(HostPatternError::Length);
        }
        Ok(pattern)
    }

    /// Whether a page on `site` matches.
    pub fn matches(&self, site: &Site) -> bool {
        if self.port.is_some_and(|port| port != site.port) {
            return false;
        }
        match &self.host {
            PatternHost::Any => true,
            PatternHost::Exact(host) => *host == site.host,
            PatternHost::Subdomains(base) => site.host.as_domain().is_some_and(|domain| {
                domain
                    .strip_suffix(base.as_str())
                    .and_then(|prefix| prefix.strip_suffix('.'))
                    .is_some_and(|prefix| !prefix.is_empty())
            }),
        }
    }

    /// The pattern matching exactly the sites both `self` and `other` match, if any (the
    /// forms are closed under intersection: `*` ∩ p is p, `*.a.example` ∩ `*.example` is
    /// `*.a.example`, an exact host ∩ a subdomain pattern is the host when it is one of them;
    /// two different ports match nothing).
    pub fn intersection(&self, other: &HostPattern) -> Option<HostPattern> {
        let port = match (self.port, other.port) {
            (Some(a), Some(b)) if a != b => return None,
            (a, b) => a.or(b),
        };
        let strict_subdomain = |domain: &str, base: &str| {
            domain
                .strip_suffix(base)
                .and_then(|prefix| prefix.strip_suffix('.'))
                .is_some_and(|p| !p.is_empty())
        };
        let host = match (&self.host, &other.host) {
            (PatternHost::Any, host) | (host, PatternHost::Any) => host.clone(),
            (PatternHost::Exact(a), PatternHost::Exact(b)) if a == b => PatternHost::Exact(a.clone()),
            (PatternHost::Exact(host), PatternHost::Subdomains(base))
            | (PatternHost::Subdomains(base), PatternHost::Exact(host))
                if host.as_domain().is_some_and(|domain| strict_subdomain(domain, base)) =>
            {
                PatternHost::Exact(host.clone())
            }
            (PatternHost::Subdomains(a), PatternHost::Subdomains(b)) if a == b || strict_subdomain(a, b) => {
                PatternHost::Subdomains(a.clone())
            }
            (PatternHost::Subdomains(a), PatternHost::Subdomains(b)) if strict_subdomain(b, a) => {
                PatternHost::Subdomains(b.clone())
            }
            _ => return None,
        };
        Some(HostPattern { host, port })
    }

    /// Whether this is `*` without a port (every host).
    pub fn is_any(&self) -> bool {
        self.host == PatternHost::Any && self.port.is_none()
    }

    /// The port the pattern is limited to, if any.
    pub fn port(&self) -> Option<u16> {
        self.port
    }
}

/// Parse `host[:port]` with the `url` crate. The port is read twice, under `http` and
/// `https`, because the crate drops a port equal to the scheme's default: `example.com:80`
/// has no port under `http` but port 80 under `https`.
fn parse_host_port(text: &str) -> Result<(HostName, Option<u16>), HostPatternError> {
    let parse = |scheme: &str| Url::parse(&format!("{scheme}://{text}/"));
    let http = parse("http").map_err(|error| match error {
        url::ParseError::InvalidPort => HostPatternError::Port,
        _ => HostPatternError::Host,
    })?;
    let only_host = http.username().is_empty()
        && http.password().is_none()
        && http.path() == "/"
        && http.query().is_none()
        && http.fragment().is_none();
    if !only_host {
        return Err(HostPatternError::NotAHost);
    }
    let host = HostName::from_url_host(http.host().ok_or(HostPatternError::Host)?)?;
    let port = match http.port() {
        Some(port) => Some(port),
        None => parse("https").ok().and_then(|url| url.port()),
    };
    if port == Some(0) {
        return Err(HostPatternError::Port);
    }
    Ok((host, port))
}

impl FromStr for HostPattern {
    type Err = HostPatternError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        HostPattern::parse(text)
    }
}

impl fmt::Display for HostPattern {
    /// The canonical form: `*`, `*.example.com`, `xn--bcher-kva.example:8443`, `[::1]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.host {
            PatternHost::Any => f.write_str("*")?,
            PatternHost::Exact(host) => write!(f, "{host}")?,
            PatternHost::Subdomains(base) => write!(f, "*.{base}")?,
        }
        match self.port {
            Some(port) => write!(f, ":{port}"),
            None => Ok(()),
        }
    }
}

impl Serialize for HostPattern {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for HostPattern {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        HostPattern::parse(&text).map_err(|error| {
            serde::de::Error::custom(format_args!(
                "{text:?} is not a host pattern ({error}); a host pattern is {}",
                HostPatternError::ACCEPTED.trim_start_matches("must be a host pattern: ")
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(url: &str) -> Site {
        let parsed = Url::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"));
        Site::from_url(&parsed).unwrap_or_else(|| panic!("{url} has no site"))
    }

    fn pattern(text: &str) -> HostPattern {
        HostPattern::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[track_caller]
    fn check(pattern_text: &str, url: &str, expected: bool) {
        assert_eq!(pattern(pattern_text).matches(&site(url)), expected, "{pattern_text} vs {url}");
    }

    #[test]
    fn an_intersection_matches_what_both_match() {
        let patterns = [
            "*",
            "*:80",
            "*:8080",
            "example.com",
            "example.com:8080",
            "*.example.com",
            "*.a.example.com",
            "a.example.com",
            "b.example.com:80",
            "other.test",
            "127.0.0.1",
            "*.b.a.example.com",
            "[::1]",
        ];
        let sites = [
            "http://example.com/",
            "http://example.com:8080/",
            "http://a.example.com/",
            "https://a.example.com/",
            "http://b.a.example.com/",
            "http://c.b.a.example.com:80/",
            "http://other.test/",
            "http://127.0.0.1/",
            "http://b.example.com/",
            "https://b.example.com/",
            "http://[::1]:8080/",
        ];
        for a in patterns {
            for b in patterns {
                let both = pattern(a).intersection(&pattern(b));
                for url in sites {
                    let expected = pattern(a).matches(&site(url)) && pattern(b).matches(&site(url));
                    let got = both.as_ref().is_some_and(|p| p.matches(&site(url)));
                    assert_eq!(got, expected, "{a} ∩ {b} = {both:?} vs {url}");
                }
            }
        }
    }

    #[test]
    fn canonical_forms() {
        for (text, canonical) in [
            ("example.com", "example.com"),
            ("EXAMPLE.Com", "example.com"),
            ("example.com.", "example.com"),
            ("*.Example.COM.", "*.example.com"),
            ("bücher.example", "xn--bcher-kva.example"),
            ("*.BÜCHER.example", "*.xn--bcher-kva.example"),
            ("example.com:8443", "example.com:8443"),
            ("example.com:80", "example.com:80"),
            ("example.com:443", "example.com:443"),
            ("example.com:0443", "example.com:443"),
            ("localhost", "localhost"),
            ("localhost:3000", "localhost:3000"),
            ("127.0.0.1", "127.0.0.1"),
            ("127.1", "127.0.0.1"),
            ("[::1]", "[::1]"),
            ("[0:0:0:0:0:0:0:1]:8080", "[::1]:8080"),
            ("*", "*"),
            ("*:8080", "*:8080"),
            ("*.com", "*.com"),
        ] {
            assert_eq!(pattern(text).to_string(), canonical, "{text}");
            // The canonical form parses to the same pattern.
            assert_eq!(pattern(canonical), pattern(text), "{text}");
        }
    }

    #[test]
    fn refused_patterns() {
        use HostPatternError as E;
        for (text, error) in [
            ("", E::Length),
            ("https://example.com", E::NotAHost),
            ("example.com/path", E::NotAHost),
            ("user@example.com", E::NotAHost),
            ("@example.com", E::NotAHost),
            ("example.com?q", E::NotAHost),
            ("example.com#f", E::NotAHost),
            (" example.com", E::NotAHost),
            ("exa mple.com", E::NotAHost),
            ("example.com\t", E::NotAHost),
            ("ex%61mple.com", E::NotAHost),
            ("example.com:", E::Port),
            ("example.com:0", E::Port),
            ("example.com:65536", E::Port),
            ("example.com:http", E::Port),
            ("*example.com", E::Wildcard),
            ("a.*.example.com", E::Wildcard),
            ("*.*.example.com", E::Wildcard),
            ("**", E::Wildcard),
            ("*.", E::Host),
            ("*.127.0.0.1", E::WildcardIp),
            ("*.[::1]", E::WildcardIp),
            ("a..b", E::EmptyLabel),
            ("example.com..", E::EmptyLabel),
            (".", E::EmptyLabel),
            ("::1", E::Host),
            ("[::1", E::Host),
            ("exa<mple.com", E::Host),
        ] {
            assert_eq!(HostPattern::parse(text), Err(error.clone()), "{text:?}");
        }
        let long = format!("{}.example", "a".repeat(HOST_PATTERN_CHARS.max));
        assert_eq!(HostPattern::parse(&long), Err(E::Length));
        // Short as written, too long as punycode (found by fuzzing).
        let idn = vec!["ü"; HOST_PATTERN_CHARS.max / 2].join(".");
        assert!(HOST_PATTERN_CHARS.contains(idn.chars().count()));
        assert_eq!(HostPattern::parse(&idn), Err(E::Length));
    }

    #[test]
    fn exact_hosts_ignore_case_trailing_dot_and_idn_spelling() {
        check("example.com", "https://EXAMPLE.com/path", true);
        check("example.com", "https://example.com./", true);
        check("example.com.", "https://example.com/", true);
        check("Example.COM", "http://example.com:8080/", true);
        check("bücher.example", "https://xn--bcher-kva.example/", true);
        check("xn--bcher-kva.example", "https://BÜCHER.example/", true);
        check("example.com", "https://www.example.com/", false);
        check("example.com", "https://example.com.evil.example/", false);
        check("example.com", "https://notexample.com/", false);
    }

    #[test]
    fn userinfo_is_never_the_host() {
        let landing = site("https://allowed.example@evil.example/");
        assert_eq!(landing.to_string(), "evil.example");
        assert!(!pattern("allowed.example").matches(&landing));
        assert!(pattern("evil.example").matches(&landing));
        let with_password = site("https://allowed.example:secret@evil.example:8443/");
        assert_eq!(with_password.to_string(), "evil.example:8443");
        assert!(!pattern("allowed.example").matches(&with_password));
    }

    #[test]
    fn wildcards_match_subdomains_at_any_depth_but_never_the_apex() {
        check("*.example.com", "https://www.example.com/", true);
        check("*.example.com", "https://a.b.c.example.com/", true);
        check("*.example.com", "https://WWW.Example.Com./", true);
        check("*.example.com", "https://example.com/", false);
        check("*.example.com", "https://badexample.com/", false);
        check("*.example.com", "https://example.com.evil.example/", false);
        check("*.example.com", "https://127.0.0.1/", false);
        check("*.bücher.example", "https://shop.xn--bcher-kva.example/", true);
        check("*", "https://anything.example/", true);
        check("*", "http://127.0.0.1:9/", true);
        check("*", "http://[::1]/", true);
    }

    #[test]
    fn ports() {
        check("example.com", "https://example.com:8443/", true);
        check("example.com:8443", "https://example.com:8443/", true);
        check("example.com:8443", "https://example.com/", false);
        check("example.com:443", "https://example.com/", true);
        check("example.com:80", "http://example.com/", true);
        check("example.com:80", "https://example.com/", false);
        check("example.com:443", "http://example.com/", false);
        check("*:8080", "http://a.example:8080/", true);
        check("*:8080", "http://a.example/", false);
        check("*.example.com:8443", "https://a.example.com:8443/", true);
        check("*.example.com:8443", "https://a.example.com/", false);
        assert_eq!(site("https://example.com:443/").to_string(), "example.com");
        assert_eq!(site("http://example.com:443/").to_string(), "example.com:443");
        assert_eq!(site("https://example.com:8443/").to_string(), "example.com:8443");
    }

    #[test]
    fn ip_literals_and_localhost() {
        check("127.0.0.1", "http://127.0.0.1:3000/", true);
        check("127.0.0.1", "http://0x7f.0.0.1/", true);
        check("127.0.0.1", "http://localhost/", false);
        check("localhost", "http://LOCALHOST:5173/", true);
        check("localhost", "http://localhost./", true);
        check("localhost:5173", "http://localhost:5173/", true);
        check("[::1]", "http://[::1]:8080/", true);
        check("[::1]", "http://[0:0::1]/", true);
        check("[::1]:8080", "http://[::1]:8080/", true);
        check("[::1]:8080", "http://[::1]/", false);
        check("[::1]", "http://127.0.0.1/", false);
        assert_eq!(site("http://[::1]:8080/").to_string(), "[::1]:8080");
        assert_eq!(site("http://[::1]/").to_string(), "[::1]");
    }

    #[test]
    fn only_web_urls_have_sites() {
        // Two trailing dots leave an empty label: not a host Ghostlight governs.
        for url in [
            "https://example.com../",
            "http://a..b/",
            "about:blank",
            "file:///etc/passwd",
            "data:text/plain,hi",
            "ftp://example.com/",
            "chrome://settings",
            // No server listens on port 0, and no host pattern can name it, nor a host with
            // `*` (found by fuzzing).
            "http://[::1]:0/",
            "http://example.com:0/",
            "http://local.0*/",
            "https://a*b.example/",
        ] {
            let parsed = Url::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(Site::from_url(&parsed), None, "{url}");
        }
    }

    #[test]
    fn serde_round_trip_and_refusal_message() {
        let parsed: Vec<HostPattern> =
            serde_json::from_value(serde_json::json!(["*.Example.com", "[::1]:8080"])).unwrap_or_default();
        assert_eq!(
            serde_json::to_value(&parsed).ok(),
            Some(serde_json::json!(["*.example.com", "[::1]:8080"]))
        );
        let error = serde_json::from_value::<HostPattern>(serde_json::json!("https://example.com"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.contains("is not a host pattern"), "{error}");
        assert!(error.contains("*.example.com for its subdomains"), "{error}");
    }
}
