//! Network authority: which requests the browser may send, derived from the configured
//! authority and narrowed while an invocation that restricts hosts runs.
//!
//! A request may be sent when its site is inside authority, as a page the model could
//! navigate to is. While invocations with `restrict_hosts` run, their narrower snapshots
//! hold for every request of the browser (an adapter cannot tell which requests an
//! invocation causes, so it errs on the narrow side). A request that cannot carry a document
//! may also reach the `hosts.resources` hosts (a CDN), within the organization's host
//! ceiling. A URL without a web site (no host, port 0) is refused.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use url::Url;

use super::host::{HostPattern, Site};
use super::layers::CompiledAuthority;
use super::snapshot::AuthoritySnapshot;
use crate::port::{NetworkPolicy, RequestKind, WireRules};

/// The live network authority of one browser.
#[derive(Debug)]
pub(crate) struct NetworkAuthority {
    authority: CompiledAuthority,
    /// Snapshots of running invocations that restrict hosts, by registration number.
    narrowing: Mutex<Vec<(u64, AuthoritySnapshot)>>,
    registered: AtomicU64,
}

impl NetworkAuthority {
    /// The network authority of `authority`, with no invocation running.
    pub(crate) fn new(authority: CompiledAuthority) -> Arc<NetworkAuthority> {
        Arc::new(NetworkAuthority { authority, narrowing: Mutex::default(), registered: AtomicU64::new(0) })
    }

    /// The policy an adapter enforces: this authority, live, as a decision and as host
    /// patterns.
    pub(crate) fn policy(self: &Arc<Self>) -> NetworkPolicy {
        let (decide, rules) = (Arc::clone(self), Arc::clone(self));
        NetworkPolicy::new(move |url, kind| decide.admits(url, kind)).with_rules(move || rules.rules())
    }

    /// This authority, now, as host patterns (what [`NetworkAuthority::admits`] decides): the
    /// allow list in force, intersected with the organization's ceiling and every running
    /// invocation's `restrict_hosts`; the deny patterns; the resource hosts within the ceiling.
    /// At most [`WIRE_RULE_PATTERNS`] patterns a list: beyond, an intersection is cut (a
    /// narrower policy than the configured one, never a wider).
    pub(crate) fn rules(&self) -> WireRules {
        let mut allowed: Vec<HostPattern> = self.authority.allowed_hosts().cloned().collect();
        let ceiling = self.authority.ceiling_hosts().map(<[HostPattern]>::to_vec);
        let narrowing: Vec<Vec<HostPattern>> = self
            .lock()
            .iter()
            .filter_map(|(_, snapshot)| snapshot.restrict_hosts().map(<[HostPattern]>::to_vec))
            .collect();
        for list in ceiling.iter().chain(narrowing.iter()) {
            allowed = intersect(&allowed, list);
        }
        let mut resources: Vec<HostPattern> = self.authority.resource_hosts().value.clone();
        if let Some(ceiling) = &ceiling {
            resources = intersect(&resources, ceiling);
        }
        let text = |patterns: &[HostPattern]| patterns.iter().map(ToString::to_string).collect::<Vec<_>>();
        let denied: Vec<HostPattern> = self.authority.denied_hosts().cloned().collect();
        WireRules { allowed: text(&allowed), denied: text(&denied), resources: text(&resources) }
    }

    /// Narrow to `snapshot` while the returned guard lives, when it restricts hosts
    /// (otherwise it is the configured authority already: `None`).
    pub(crate) fn narrow(self: &Arc<Self>, snapshot: &AuthoritySnapshot) -> Option<Narrowing> {
        snapshot.restrict_hosts()?;
        let id = self.registered.fetch_add(1, Ordering::Relaxed);
        self.lock().push((id, snapshot.clone()));
        Some(Narrowing { authority: Arc::clone(self), id })
    }

    /// Whether a request of `kind` to `url` may be sent now.
    pub(crate) fn admits(&self, url: &Url, kind: RequestKind) -> bool {
        let Some(site) = web_site(url) else { return false };
        let inside = self.authority.host_verdict(&site).is_allowed()
            && self.lock().iter().all(|(_, snapshot)| snapshot.allows_site(&site));
        inside || (!kind.may_be_document() && self.authority.admits_resource(&site))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(u64, AuthoritySnapshot)>> {
        self.narrowing.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Patterns one list of [`WireRules`] holds at most.
pub(crate) const WIRE_RULE_PATTERNS: usize = 1024;

/// The patterns matching what one of `a` and one of `b` both match (duplicates dropped), at
/// most [`WIRE_RULE_PATTERNS`].
fn intersect(a: &[HostPattern], b: &[HostPattern]) -> Vec<HostPattern> {
    let mut both = Vec::new();
    for x in a {
        for y in b {
            if let Some(pattern) = x.intersection(y)
                && !both.contains(&pattern)
                && both.len() < WIRE_RULE_PATTERNS
            {
                both.push(pattern);
            }
        }
    }
    both
}

/// A running invocation's narrowing; dropping it (the invocation ended, however it ended)
/// restores the configured authority.
#[derive(Debug)]
pub(crate) struct Narrowing {
    authority: Arc<NetworkAuthority>,
    id: u64,
}

impl Drop for Narrowing {
    fn drop(&mut self) {
        self.authority.lock().retain(|(id, _)| *id != self.id);
    }
}

/// The site a request to `url` reaches: `ws:`/`wss:` as their `http:`/`https:` twins.
fn web_site(url: &Url) -> Option<Site> {
    let twin = match url.scheme() {
        "ws" | "wss" => {
            let mut twin = url.clone();
            let scheme = if url.scheme() == "ws" { "http" } else { "https" };
            // `ws:` and `http:` are both special schemes: the change is always accepted.
            twin.set_scheme(scheme).ok()?;
            twin
        }
        _ => url.clone(),
    };
    Site::from_url(&twin)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::authority::Restrictions;
    use crate::authority::{AuthorityLayers, HostPattern, Settings};

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn authority(user: serde_json::Value) -> CompiledAuthority {
        let user: Settings = serde_json::from_value(user).unwrap_or_else(|e| panic!("{e}"));
        AuthorityLayers { user: Some(user), organization: None }.compile()
    }

    #[test]
    fn requests_follow_the_allowed_hosts() {
        let network = NetworkAuthority::new(authority(json!({"hosts": {"allow": ["127.0.0.1"]}})));
        for kind in [RequestKind::Document, RequestKind::Frame, RequestKind::Resource, RequestKind::Unknown] {
            assert!(network.admits(&url("http://127.0.0.1:8080/a"), kind));
            assert!(!network.admits(&url("http://127.0.0.2:8080/a"), kind));
            assert!(network.admits(&url("ws://127.0.0.1:9/socket"), kind));
            assert!(!network.admits(&url("wss://127.0.0.2/socket"), kind));
        }
        assert!(!network.admits(&url("ftp://127.0.0.1/"), RequestKind::Resource));
        assert!(network.admits(&url("https://127.0.0.1/"), RequestKind::Unknown));
    }

    #[test]
    fn resources_may_reach_their_own_hosts_but_documents_may_not() {
        let configured =
            authority(json!({"hosts": {"allow": ["example.com"], "resources": ["cdn.example.net"]}}));
        let network = NetworkAuthority::new(configured);
        let cdn = url("https://cdn.example.net/lib.js");
        assert!(network.admits(&cdn, RequestKind::Resource));
        assert!(!network.admits(&cdn, RequestKind::Document));
        assert!(!network.admits(&cdn, RequestKind::Frame));
        // A tunnel may carry a document: only the allowed hosts.
        assert!(!network.admits(&cdn, RequestKind::Unknown));
        let open = NetworkAuthority::new(authority(
            json!({"hosts": {"allow": ["example.com"], "resources": ["*"]}}),
        ));
        assert!(open.admits(&url("http://anything.example/"), RequestKind::Resource));
        assert!(!open.admits(&url("http://anything.example/"), RequestKind::Document));
    }

    #[test]
    fn an_invocation_narrows_every_request_while_it_runs() {
        let network = NetworkAuthority::new(CompiledAuthority::default());
        let b = url("http://127.0.0.2/");
        assert!(network.admits(&b, RequestKind::Resource));
        let restrictions = Restrictions {
            hosts: Some(vec![HostPattern::parse("127.0.0.1").unwrap_or_else(|e| panic!("{e}"))]),
            capabilities: None,
        };
        let narrowed = network.narrow(&network.authority.snapshot(&restrictions));
        assert!(narrowed.is_some());
        assert!(!network.admits(&b, RequestKind::Resource));
        assert!(network.admits(&url("http://127.0.0.1/"), RequestKind::Resource));
        // A call without restrictions does not narrow.
        assert!(network.narrow(&network.authority.snapshot(&Restrictions::default())).is_none());
        drop(narrowed);
        assert!(network.admits(&b, RequestKind::Resource));
    }

    #[test]
    fn the_rules_state_what_admits_decides() {
        let configured = authority(json!({
            "hosts": {"allow": ["*.example.com", "127.0.0.1"], "deny": ["ads.example.com"], "resources": ["cdn.test"]}
        }));
        let network = NetworkAuthority::new(configured);
        let rules = network.rules();
        assert_eq!(rules.allowed, ["*.example.com", "127.0.0.1"]);
        assert_eq!(rules.denied, ["ads.example.com"]);
        assert_eq!(rules.resources, ["cdn.test"]);
        let restrictions = Restrictions {
            hosts: Some(vec![
                HostPattern::parse("a.example.com").unwrap_or_else(|e| panic!("{e}")),
                HostPattern::parse("*:8080").unwrap_or_else(|e| panic!("{e}")),
            ]),
            capabilities: None,
        };
        let narrowed = network.narrow(&network.authority.snapshot(&restrictions));
        assert_eq!(network.rules().allowed, ["a.example.com", "*.example.com:8080", "127.0.0.1:8080"]);
        drop(narrowed);
        assert_eq!(network.rules().allowed, ["*.example.com", "127.0.0.1"]);
        assert_eq!(network.policy().rules(), Some(network.rules()));
    }

    #[test]
    fn the_policy_logs_what_it_refuses() {
        let network = NetworkAuthority::new(authority(json!({"hosts": {"deny": ["127.0.0.2"]}})));
        let policy = network.policy();
        assert!(policy.check(&url("http://127.0.0.1/"), RequestKind::Document));
        assert!(!policy.check(&url("http://127.0.0.2:81/x?y"), RequestKind::Resource));
        let refused = policy.refusals().since(0);
        assert_eq!(refused.count, 1);
        assert_eq!(refused.entries[0].origin, "http://127.0.0.2:81");
    }
}
