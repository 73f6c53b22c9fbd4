//! Authority on the wire: the policy an adapter applies to every request the browser would
//! send, and the log of the requests it refused.
//!
//! The executor builds one [`NetworkPolicy`] per browser port from the configured authority
//! and hands it to [`BrowserPort::govern_network`](super::BrowserPort::govern_network). The
//! adapter asks [`NetworkPolicy::admits`] before any request leaves the browser (the WebDriver
//! adapter from the loopback filter the browser is started behind, the extension connector
//! from its request rules) and reports each refusal with [`NetworkPolicy::refuse`], never
//! sending it. The policy is live: while an invocation that narrows hosts runs, its narrower
//! authority holds for every request, and afterwards the configured one again.
//!
//! Refusals carry `scheme://host:port` and what kind of request it was, never a path, query,
//! header or body.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use url::Url;

/// Refusals the log keeps (older ones are counted, not kept).
pub const REFUSAL_LOG_ENTRIES: usize = 256;

/// What a request is, as far as the adapter can tell before it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RequestKind {
    /// A top-level document: a navigation, a redirect hop of one, a form submission, a
    /// popup's first load, a download.
    Document,
    /// A nested document: a frame, an `<object>` or `<embed>`.
    Frame,
    /// Anything a document loads or sends: scripts, styles, images, fonts, media, fetch, XHR,
    /// beacons, pings, prefetch, EventSource, WebSocket, workers and their requests.
    Resource,
    /// Not visible before it is sent: a tunnel (`CONNECT host:port`, how browsers reach
    /// `https:` and `wss:` hosts through a proxy), or a plain request without fetch metadata.
    /// It may carry a document.
    Unknown,
}

impl RequestKind {
    /// Whether the request may carry a document (a navigation the tab or a frame commits).
    pub fn may_be_document(self) -> bool {
        !matches!(self, RequestKind::Resource)
    }

    /// The word the log and evidence use: `document`, `frame`, `resource`, `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestKind::Document => "document",
            RequestKind::Frame => "frame",
            RequestKind::Resource => "resource",
            RequestKind::Unknown => "unknown",
        }
    }
}

/// One refused request: where it was going, never what it carried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedRequest {
    /// Its place in the log: refusals are numbered from 1 in the order they happened.
    pub sequence: u64,
    /// `scheme://host:port` (the port always written).
    pub origin: String,
    /// The host as a sentence names it: the host, plus `:port` when not the scheme's default.
    pub host: String,
    /// What kind of request it was.
    pub kind: RequestKind,
}

impl RefusedRequest {
    /// Whether it may have been a top-level document (not a frame, not a resource).
    fn top_level_maybe(&self) -> bool {
        matches!(self.kind, RequestKind::Document | RequestKind::Unknown)
    }
}

/// The refusals of one browser, bounded: the newest [`REFUSAL_LOG_ENTRIES`] are kept, every
/// one is counted.
#[derive(Debug, Default)]
pub struct RefusalLog {
    inner: Mutex<LogState>,
}

#[derive(Debug, Default)]
struct LogState {
    entries: VecDeque<RefusedRequest>,
    last: u64,
}

/// The refusals after a mark: how many there were, and the newest ones kept.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Refusals {
    /// How many requests were refused after the mark (exact, also past the log's bound).
    pub count: u64,
    /// The refusals still kept, oldest first.
    pub entries: Vec<RefusedRequest>,
}

impl RefusalLog {
    /// The sequence number of the newest refusal (0: none yet): a mark to read later
    /// refusals from.
    pub fn mark(&self) -> u64 {
        self.lock().last
    }

    /// The refusals after `mark`.
    pub fn since(&self, mark: u64) -> Refusals {
        let state = self.lock();
        Refusals {
            count: state.last.saturating_sub(mark),
            entries: state.entries.iter().filter(|entry| entry.sequence > mark).cloned().collect(),
        }
    }

    /// Report the newest refusal after `mark` to `url`'s host and port as a document: the
    /// adapter saw the tab's navigation end on the refused host (a tunnel, whose kind the
    /// filter could not see). Answers whether there was such a refusal.
    pub fn confirm_document(&self, url: &Url, mark: u64) -> bool {
        let host = host_of(url);
        self.confirm_newest(mark, |entry| entry.host == host && entry.kind.may_be_document())
    }

    /// Whether a refusal after `mark` may have been a top-level document (a document, or a
    /// request whose kind the filter could not see, such as a tunnel).
    pub fn top_document_may_be_refused(&self, mark: u64) -> bool {
        let state = self.lock();
        state
            .entries
            .iter()
            .rev()
            .take_while(|entry| entry.sequence > mark)
            .any(RefusedRequest::top_level_maybe)
    }

    /// Report the newest refusal after `mark` that may have been a top-level document as
    /// one: the adapter saw the tab's navigation end on a blank page instead of a document
    /// (an engine that answers a refused tunnel with nothing). Answers whether there was one.
    pub fn confirm_blank_document(&self, mark: u64) -> bool {
        self.confirm_newest(mark, RefusedRequest::top_level_maybe)
    }

    /// Report the newest refusal after `mark` that `matches` as a document; whether there was one.
    fn confirm_newest(&self, mark: u64, matches: impl Fn(&RefusedRequest) -> bool) -> bool {
        let mut state = self.lock();
        let found = state
            .entries
            .iter_mut()
            .rev()
            .take_while(|entry| entry.sequence > mark)
            .find(|entry| matches(entry));
        match found {
            Some(entry) => {
                entry.kind = RequestKind::Document;
                true
            }
            None => false,
        }
    }

    /// Record one refusal of a request to `url`.
    fn push(&self, url: &Url, kind: RequestKind) {
        let mut state = self.lock();
        state.last += 1;
        let entry = RefusedRequest { sequence: state.last, origin: origin_of(url), host: host_of(url), kind };
        if state.entries.len() == REFUSAL_LOG_ENTRIES {
            state.entries.pop_front();
        }
        state.entries.push_back(entry);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LogState> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `scheme://host:port`, the port always written.
fn origin_of(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port_or_known_default() {
        Some(port) => format!("{}://{host}:{port}", url.scheme()),
        None => format!("{}://{host}", url.scheme()),
    }
}

/// The host, plus `:port` when it is not the scheme's default.
fn host_of(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

/// The policy as host patterns, for an adapter that enforces it declaratively (a browser
/// extension's request rules). A request may go when its host matches one of `allowed` and
/// none of `denied`; one that cannot carry a document may also go when its host matches one of
/// `resources` and none of `denied`. Patterns are written as `[hosts]` writes them: an exact
/// host (`example.com`, `192.0.2.1`, `[::1]`), `*.example.com` for its subdomains, or `*`,
/// each with an optional `:port` (the scheme's default port counts).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WireRules {
    /// Hosts every request may reach.
    pub allowed: Vec<String>,
    /// Hosts no request may reach.
    pub denied: Vec<String>,
    /// Hosts subresources may also reach.
    pub resources: Vec<String>,
}

/// The decision behind a [`NetworkPolicy`]: whether a request of `kind` to `url` may leave
/// the browser.
type Decide = dyn Fn(&Url, RequestKind) -> bool + Send + Sync;

/// Which requests a browser may send, and where refusals are reported. Cheap to clone
/// (clones share the decision and the log).
#[derive(Clone)]
pub struct NetworkPolicy {
    decide: Arc<Decide>,
    rules: Option<Arc<dyn Fn() -> WireRules + Send + Sync>>,
    log: Arc<RefusalLog>,
}

impl NetworkPolicy {
    /// A policy admitting what `decide` accepts. `decide` sees the request's URL with its
    /// scheme, host and port (`https://host:port/` for a tunnel); it must be quick (it runs
    /// before every connection) and must not block.
    pub fn new(decide: impl Fn(&Url, RequestKind) -> bool + Send + Sync + 'static) -> Self {
        NetworkPolicy { decide: Arc::new(decide), rules: None, log: Arc::default() }
    }

    /// This policy, also stated as host patterns (`rules` answers them as they are now; the
    /// executor's policies have them, and [`BrowserPort::sync_network`] tells a port when they
    /// changed).
    ///
    /// [`BrowserPort::sync_network`]: super::BrowserPort::sync_network
    pub fn with_rules(mut self, rules: impl Fn() -> WireRules + Send + Sync + 'static) -> Self {
        self.rules = Some(Arc::new(rules));
        self
    }

    /// The policy as host patterns, now; `None` for a policy stated only as a decision.
    pub fn rules(&self) -> Option<WireRules> {
        self.rules.as_ref().map(|rules| rules())
    }

    /// A policy admitting every request (for an adapter's own tests).
    pub fn open() -> Self {
        NetworkPolicy::new(|_, _| true)
    }

    /// Whether a request of `kind` to `url` may be sent. Nothing is logged.
    pub fn admits(&self, url: &Url, kind: RequestKind) -> bool {
        (self.decide)(url, kind)
    }

    /// Decide a request of `kind` to `url`: `true` when it may be sent; otherwise the refusal
    /// is logged and the adapter must not send it.
    pub fn check(&self, url: &Url, kind: RequestKind) -> bool {
        let admitted = self.admits(url, kind);
        if !admitted {
            self.refuse(url, kind);
        }
        admitted
    }

    /// Log that a request of `kind` to `url` was refused (by an adapter that decided it
    /// itself, for example from declarative rules the browser applied).
    pub fn refuse(&self, url: &Url, kind: RequestKind) {
        self.log.push(url, kind);
    }

    /// The refusals so far.
    pub fn refusals(&self) -> &RefusalLog {
        &self.log
    }
}

impl std::fmt::Debug for NetworkPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkPolicy").field("refused", &self.log.mark()).finish_non_exhaustive()
    }
}

/// Whether a port enforces network authority on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkEnforcement {
    /// Every request the browser sends is decided by the policy first.
    Enforced,
    /// Requests are not governed on the wire (only what the model sees and does is): a port
    /// that cannot stop them, or a browser Ghostlight did not start and cannot route.
    NotEnforced,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn refusals_are_logged_with_origin_and_host_only() {
        let policy = NetworkPolicy::new(|url, _| url.host_str() == Some("allowed.example"));
        assert!(policy.check(&url("https://allowed.example/x"), RequestKind::Document));
        let mark = policy.refusals().mark();
        assert!(!policy.check(&url("http://127.0.0.2:8080/secret?q=1#f"), RequestKind::Resource));
        assert!(!policy.check(&url("https://denied.example/path"), RequestKind::Unknown));
        let since = policy.refusals().since(mark);
        assert_eq!(since.count, 2);
        let shown: Vec<(&str, &str, RequestKind)> =
            since.entries.iter().map(|e| (e.origin.as_str(), e.host.as_str(), e.kind)).collect();
        assert_eq!(
            shown,
            [
                ("http://127.0.0.2:8080", "127.0.0.2:8080", RequestKind::Resource),
                ("https://denied.example:443", "denied.example", RequestKind::Unknown),
            ]
        );
        assert_eq!(policy.refusals().since(policy.refusals().mark()), Refusals::default());
    }

    #[test]
    fn a_refused_tunnel_the_tab_went_to_becomes_a_document() {
        let policy = NetworkPolicy::new(|_, _| false);
        policy.check(&url("https://denied.example/"), RequestKind::Unknown);
        let mark = policy.refusals().mark();
        policy.check(&url("https://other.example/"), RequestKind::Unknown);
        policy.check(&url("https://denied.example/"), RequestKind::Unknown);
        policy.check(&url("https://denied.example/x.js"), RequestKind::Resource);
        assert!(policy.refusals().confirm_document(&url("https://denied.example/page"), mark));
        let kinds: Vec<RequestKind> = policy.refusals().since(0).entries.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [RequestKind::Unknown, RequestKind::Unknown, RequestKind::Document, RequestKind::Resource]
        );
        assert!(!policy.refusals().confirm_document(&url("https://nowhere.example/"), mark));
    }

    #[test]
    fn a_refusal_that_left_a_blank_tab_becomes_a_document() {
        let policy = NetworkPolicy::new(|_, _| false);
        policy.check(&url("https://before.example/"), RequestKind::Unknown);
        let mark = policy.refusals().mark();
        assert!(!policy.refusals().top_document_may_be_refused(mark), "nothing since the mark");
        policy.check(&url("http://frame.example/"), RequestKind::Frame);
        policy.check(&url("http://img.example/a.png"), RequestKind::Resource);
        assert!(
            !policy.refusals().top_document_may_be_refused(mark),
            "a frame or a resource is no tab's document"
        );
        assert!(!policy.refusals().confirm_blank_document(mark));
        policy.check(&url("https://tunnel.example/"), RequestKind::Unknown);
        policy.check(&url("http://img.example/b.png"), RequestKind::Resource);
        assert!(policy.refusals().top_document_may_be_refused(mark));
        assert!(policy.refusals().confirm_blank_document(mark));
        let kinds: Vec<RequestKind> = policy.refusals().since(mark).entries.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [RequestKind::Frame, RequestKind::Resource, RequestKind::Document, RequestKind::Resource]
        );
        let before: Vec<RequestKind> =
            policy.refusals().since(0).entries.iter().map(|e| e.kind).take(1).collect();
        assert_eq!(before, [RequestKind::Unknown], "a refusal before the mark is left as it was");
    }

    #[test]
    fn the_log_is_bounded_but_counts_every_refusal() {
        let policy = NetworkPolicy::new(|_, _| false);
        let target = url("http://denied.example/");
        for _ in 0..REFUSAL_LOG_ENTRIES + 10 {
            policy.check(&target, RequestKind::Resource);
        }
        let all = policy.refusals().since(0);
        assert_eq!(all.count, (REFUSAL_LOG_ENTRIES + 10) as u64);
        assert_eq!(all.entries.len(), REFUSAL_LOG_ENTRIES);
        assert_eq!(all.entries[0].sequence, 11);
    }
}
