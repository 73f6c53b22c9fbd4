//! The invocation snapshot: compiled authority ∩ `restrict_capabilities` ∩ `restrict_hosts`.
//!
//! A snapshot is created once per invocation and never changes: it has no setters, and
//! `browser_sequence` / `browser_flow` children share their parent's one snapshot (cloning it
//! is an `Arc` clone). Restrictions only ever remove: a capability is allowed when the
//! configuration allows it *and* the restriction (if any) names it; a host is allowed when the
//! configuration allows it *and* it matches a restriction pattern (if any). `[]` therefore
//! narrows to nothing, and a restriction pattern outside the configured hosts adds nothing.

use std::sync::Arc;

use super::host::{HostPattern, Site};
use super::layers::{CompiledAuthority, Decider, HostVerdict, Polarity};
use crate::capability::{Capability, CapabilitySet};

/// The flat request restrictions every tool accepts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Restrictions {
    /// `restrict_hosts`: allow only these host patterns (`Some(vec![])` allows none).
    pub hosts: Option<Vec<HostPattern>>,
    /// `restrict_capabilities`: allow only these capabilities (`Some(EMPTY)` allows none).
    pub capabilities: Option<CapabilitySet>,
}

/// The immutable authority of one invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthoritySnapshot(Arc<Snapshot>);

#[derive(Debug, PartialEq)]
struct Snapshot {
    authority: CompiledAuthority,
    restrict_capabilities: Option<CapabilitySet>,
    restrict_hosts: Option<Vec<HostPattern>>,
    capabilities: CapabilitySet,
}

impl AuthoritySnapshot {
    /// The snapshot of `authority` narrowed by `restrictions`.
    pub fn new(authority: &CompiledAuthority, restrictions: &Restrictions) -> AuthoritySnapshot {
        let configured = authority.capabilities();
        let capabilities = match restrictions.capabilities {
            Some(restriction) => configured.intersection(restriction),
            None => configured,
        };
        AuthoritySnapshot(Arc::new(Snapshot {
            authority: authority.clone(),
            restrict_capabilities: restrictions.capabilities,
            restrict_hosts: restrictions.hosts.clone(),
            capabilities,
        }))
    }

    /// The compiled authority the snapshot narrows.
    pub fn authority(&self) -> &CompiledAuthority {
        &self.0.authority
    }

    /// The invocation's `restrict_capabilities`, if given.
    pub fn restrict_capabilities(&self) -> Option<CapabilitySet> {
        self.0.restrict_capabilities
    }

    /// The invocation's `restrict_hosts`, if given.
    pub fn restrict_hosts(&self) -> Option<&[HostPattern]> {
        self.0.restrict_hosts.as_deref()
    }

    /// The capabilities allowed in this invocation.
    pub fn capabilities(&self) -> CapabilitySet {
        self.0.capabilities
    }

    /// Whether `capability` is allowed, and what decided. A capability the configuration
    /// denies is reported with the configuration's decider even when the restriction also
    /// leaves it out.
    pub fn capability(&self, capability: Capability) -> (Polarity, Decider) {
        let line = self.0.authority.capability(capability);
        if line.polarity == Polarity::Denied {
            return (Polarity::Denied, line.decided_by);
        }
        match self.0.restrict_capabilities {
            Some(restriction) if !restriction.contains(capability) => {
                (Polarity::Denied, Decider::Restriction)
            }
            _ => (Polarity::Allowed, line.decided_by),
        }
    }

    /// The verdict for a page on `site` in this invocation.
    pub fn host_verdict(&self, site: &Site) -> HostVerdict {
        let verdict = self.0.authority.host_verdict(site);
        if !verdict.is_allowed() {
            return verdict;
        }
        match &self.0.restrict_hosts {
            Some(patterns) if !patterns.iter().any(|pattern| pattern.matches(site)) => {
                HostVerdict { polarity: Polarity::Denied, decided_by: Decider::Restriction, rule: None }
            }
            _ => verdict,
        }
    }

    /// Whether a page on `site` is inside this invocation's authority.
    pub fn allows_site(&self, site: &Site) -> bool {
        self.host_verdict(site).is_allowed()
    }
}

impl CompiledAuthority {
    /// This authority narrowed by an invocation's restrictions.
    pub fn snapshot(&self, restrictions: &Restrictions) -> AuthoritySnapshot {
        AuthoritySnapshot::new(self, restrictions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(url: &str) -> Site {
        url::Url::parse(url).ok().and_then(|u| Site::from_url(&u)).unwrap_or_else(|| panic!("{url}"))
    }

    fn patterns(texts: &[&str]) -> Vec<HostPattern> {
        texts.iter().map(|t| HostPattern::parse(t).unwrap_or_else(|e| panic!("{t}: {e}"))).collect()
    }

    #[test]
    fn no_restrictions_is_the_configuration() {
        let authority = CompiledAuthority::default();
        let snapshot = authority.snapshot(&Restrictions::default());
        assert_eq!(snapshot.capabilities(), authority.capabilities());
        assert!(snapshot.allows_site(&site("https://example.com/")));
        assert_eq!(snapshot.capability(Capability::Execute), (Polarity::Denied, Decider::Defaults));
    }

    #[test]
    fn restrictions_only_narrow() {
        let authority = CompiledAuthority::default();
        let restrictions = Restrictions {
            hosts: Some(patterns(&["example.com"])),
            capabilities: Some(CapabilitySet::of(&[Capability::Read, Capability::Execute])),
        };
        let snapshot = authority.snapshot(&restrictions);
        // execute is named by the restriction but denied by the configuration: not widened.
        assert_eq!(snapshot.capabilities(), CapabilitySet::of(&[Capability::Read]));
        assert_eq!(snapshot.capability(Capability::Execute), (Polarity::Denied, Decider::Defaults));
        assert_eq!(snapshot.capability(Capability::Action), (Polarity::Denied, Decider::Restriction));
        assert_eq!(snapshot.capability(Capability::Read), (Polarity::Allowed, Decider::Defaults));
        assert!(snapshot.allows_site(&site("https://example.com/")));
        let other = snapshot.host_verdict(&site("https://other.example/"));
        assert_eq!((other.polarity, other.decided_by), (Polarity::Denied, Decider::Restriction));
    }

    #[test]
    fn empty_restrictions_narrow_to_nothing() {
        let snapshot = CompiledAuthority::all_open()
            .snapshot(&Restrictions { hosts: Some(vec![]), capabilities: Some(CapabilitySet::EMPTY) });
        assert_eq!(snapshot.capabilities(), CapabilitySet::EMPTY);
        assert!(!snapshot.allows_site(&site("https://example.com/")));
    }

    #[test]
    fn a_restriction_outside_the_configured_hosts_adds_nothing() {
        let user: crate::authority::Settings =
            serde_json::from_value(serde_json::json!({"hosts": {"allow": ["example.com"]}}))
                .unwrap_or_else(|e| panic!("{e}"));
        let authority = crate::authority::AuthorityLayers { user: Some(user), organization: None }.compile();
        let snapshot =
            authority.snapshot(&Restrictions { hosts: Some(patterns(&["*"])), capabilities: None });
        assert!(snapshot.allows_site(&site("https://example.com/")));
        let verdict = snapshot.host_verdict(&site("https://evil.example/"));
        assert_eq!((verdict.polarity, verdict.decided_by), (Polarity::Denied, Decider::User));
    }

    #[test]
    fn restrict_hosts_decode_as_host_patterns() {
        use crate::{DecodeErrorKind, ToolName, decode_call};
        let arguments = serde_json::json!({"restrict_hosts": ["*.Example.COM.", "[::1]:8080", "*"]});
        let call = decode_call(ToolName::PolicyExplain, &arguments).unwrap_or_else(|e| panic!("{e}"));
        let canonical: Vec<String> =
            call.restrictions.hosts.iter().flatten().map(ToString::to_string).collect();
        assert_eq!(canonical, ["*.example.com", "[::1]:8080", "*"]);
        for (bad, index) in [
            (serde_json::json!(["example.com", "https://example.com"]), 1),
            (serde_json::json!(["user@example.com"]), 0),
            (serde_json::json!(["a.*.example"]), 0),
            (serde_json::json!(["example.com:99999"]), 0),
            (serde_json::json!(["example.com/path"]), 0),
        ] {
            let error = decode_call(ToolName::Read, &serde_json::json!({"restrict_hosts": bad}))
                .err()
                .unwrap_or_else(|| panic!("accepted {bad}"));
            assert_eq!(error.kind(), DecodeErrorKind::InvalidValue, "{error}");
            assert_eq!(error.pointer().as_str(), format!("/restrict_hosts/{index}"));
            assert!(
                error.message().contains("must be a host pattern: an exact host (example.com, localhost"),
                "{error}"
            );
        }
    }

    #[test]
    fn snapshots_are_shared_not_copied() {
        let snapshot = CompiledAuthority::default().snapshot(&Restrictions::default());
        let child = snapshot.clone();
        assert!(Arc::ptr_eq(&snapshot.0, &child.0));
    }
}
