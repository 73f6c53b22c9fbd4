//! Property tests over arbitrary configurations, restrictions and requirements.
//!
//! Case counts (each property): [`CASES`] generated layer stacks, each checked against every
//! site of a fixed universe of [`SITES`] (and, for admission, one arbitrary requirement and
//! current page per case).

use proptest::prelude::*;
use proptest::sample::subsequence;
use url::Url;

use super::classify::{Constraint, Destination, Requirement};
use super::config::{OrganizationSettings, Settings, StartupPosture, TabClosePolicy};
use super::decision::authorize;
use super::host::{HostPattern, Site};
use super::layers::{AuthorityLayers, Decider, Polarity};
use crate::authority::Restrictions;
use crate::capability::{Capability, CapabilitySet};
use crate::names::ToolName;

/// Cases per property.
const CASES: u32 = 2048;

/// The pattern vocabulary configurations and restrictions draw from: exact hosts, wildcards
/// at two depths, ports, IP literals, localhost and `*`.
const PATTERNS: [&str; 14] = [
    "*",
    "*:8080",
    "example.com",
    "*.example.com",
    "a.example.com",
    "*.a.example.com",
    "example.com:8443",
    "evil.example",
    "*.evil.example",
    "localhost",
    "localhost:3000",
    "127.0.0.1",
    "[::1]",
    "other.test:8080",
];

/// The pages every property is checked on.
const SITES: [&str; 13] = [
    "https://example.com/",
    "https://example.com:8443/",
    "https://a.example.com/",
    "https://b.a.example.com/",
    "https://evil.example/",
    "http://x.evil.example:8080/",
    "https://allowed.example@evil.example/",
    "http://localhost:3000/",
    "http://localhost/",
    "http://127.0.0.1:9000/",
    "http://[::1]:8080/",
    "https://other.test/",
    "http://other.test:8080/",
];

fn patterns(chosen: &[&str]) -> Vec<HostPattern> {
    chosen.iter().filter_map(|text| HostPattern::parse(text).ok()).collect()
}

fn sites() -> Vec<Site> {
    SITES.iter().filter_map(|url| Url::parse(url).ok()).filter_map(|url| Site::from_url(&url)).collect()
}

fn capability_set() -> impl Strategy<Value = CapabilitySet> {
    subsequence(Capability::ALL.to_vec(), 0..=4).prop_map(|list| list.into_iter().collect())
}

fn pattern_list() -> impl Strategy<Value = Vec<HostPattern>> {
    subsequence(PATTERNS.to_vec(), 0..=4).prop_map(|chosen| patterns(&chosen))
}

fn settings() -> impl Strategy<Value = Settings> {
    (
        capability_set(),
        capability_set(),
        proptest::option::of(pattern_list()),
        pattern_list(),
        proptest::option::of(prop_oneof![Just(TabClosePolicy::Allowed), Just(TabClosePolicy::Forbidden)]),
        proptest::option::of(prop_oneof![Just(StartupPosture::Auto), Just(StartupPosture::Manual)]),
        proptest::option::of(any::<bool>()),
    )
        .prop_map(|(allow, deny, host_allow, host_deny, close, startup, names)| {
            let mut settings = Settings::default();
            settings.capabilities.allow = allow;
            settings.capabilities.deny = deny;
            settings.hosts.allow = host_allow;
            settings.hosts.deny = host_deny;
            settings.tabs.close = close;
            settings.browser.startup = startup;
            settings.privacy.preserve_target_names = names;
            settings
        })
}

fn organization() -> impl Strategy<Value = OrganizationSettings> {
    (settings(), proptest::option::of(capability_set()), proptest::option::of(pattern_list())).prop_map(
        |(shared, ceiling_capabilities, ceiling_hosts)| {
            let mut org = OrganizationSettings {
                capabilities: shared.capabilities,
                hosts: shared.hosts,
                privacy: shared.privacy,
                tabs: shared.tabs,
                browser: shared.browser,
                uploads: shared.uploads,
                confirm: shared.confirm,
                ..OrganizationSettings::default()
            };
            org.ceilings.capabilities = ceiling_capabilities;
            org.ceilings.hosts = ceiling_hosts;
            org
        },
    )
}

fn layers() -> impl Strategy<Value = AuthorityLayers> {
    (proptest::option::of(settings()), proptest::option::of(organization()))
        .prop_map(|(user, organization)| AuthorityLayers { user, organization })
}

fn restrictions() -> impl Strategy<Value = Restrictions> {
    (proptest::option::of(pattern_list()), proptest::option::of(capability_set()))
        .prop_map(|(hosts, capabilities)| Restrictions { hosts, capabilities })
}

/// An arbitrary requirement and the tab's current page.
fn requirement() -> impl Strategy<Value = (Requirement, Option<Url>)> {
    let tool = proptest::sample::select(ToolName::ALL.to_vec());
    let site = proptest::option::of(proptest::sample::select(SITES.to_vec()));
    let current = proptest::option::of(proptest::sample::select(
        SITES.iter().copied().chain(["about:blank", "file:///etc/passwd"]).collect::<Vec<_>>(),
    ));
    (tool, capability_set(), site, any::<bool>(), any::<bool>(), current).prop_map(
        |(tool, capabilities, destination, tab_bound, close, current)| {
            let destination = destination
                .and_then(|url| Url::parse(url).ok())
                .and_then(|url| Site::from_url(&url))
                .map(Destination::Site);
            let constraints: &'static [Constraint] = if close { &[Constraint::TabClose] } else { &[] };
            let requirement =
                Requirement::from_parts(tool, capabilities, destination, tab_bound, constraints);
            (requirement, current.and_then(|url| Url::parse(url).ok()))
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// The snapshot is a subset of the configuration (and of the restriction).
    #[test]
    fn snapshot_is_a_subset_of_the_configuration(layers in layers(), restrictions in restrictions()) {
        let authority = layers.compile();
        let snapshot = authority.snapshot(&restrictions);
        prop_assert!(snapshot.capabilities().is_subset_of(authority.capabilities()));
        if let Some(restriction) = restrictions.capabilities {
            prop_assert!(snapshot.capabilities().is_subset_of(restriction));
        }
        for capability in Capability::ALL {
            let (polarity, _) = snapshot.capability(capability);
            prop_assert_eq!(polarity == Polarity::Allowed, snapshot.capabilities().contains(capability));
        }
        for site in sites() {
            let inside = snapshot.allows_site(&site);
            prop_assert!(!inside || authority.host_verdict(&site).is_allowed(), "{} widened", site);
            if let Some(patterns) = &restrictions.hosts {
                prop_assert!(!inside || patterns.iter().any(|p| p.matches(&site)), "{} outside restriction", site);
            }
        }
        if restrictions.hosts.as_ref().is_some_and(Vec::is_empty) {
            prop_assert!(sites().iter().all(|site| !snapshot.allows_site(site)));
        }
        if restrictions.capabilities == Some(CapabilitySet::EMPTY) {
            prop_assert_eq!(snapshot.capabilities(), CapabilitySet::EMPTY);
        }
    }

    /// Anything admitted under the snapshot is admitted under the configuration alone.
    #[test]
    fn admitted_under_the_snapshot_is_admitted_under_the_configuration(
        layers in layers(),
        restrictions in restrictions(),
        (requirement, current) in requirement(),
    ) {
        let authority = layers.compile();
        let restricted = authorize(&authority.snapshot(&restrictions), &requirement, current.as_ref());
        let configured = authorize(&authority.snapshot(&Restrictions::default()), &requirement, current.as_ref());
        if restricted.is_ok() {
            prop_assert!(configured.is_ok(), "restriction widened: {:?}", configured);
        }
        // Only a refusal of the restricted call can name the restriction as its decider.
        if let Err(blocked) = &configured {
            prop_assert_ne!(blocked.decided_by(), Some(Decider::Restriction));
        }
    }

    /// An organization ceiling is never exceeded, whatever the user layer (or the
    /// organization's own rules) say.
    #[test]
    fn organization_ceilings_are_never_exceeded(
        user in settings(),
        organization in organization(),
        ceiling_capabilities in capability_set(),
        ceiling_hosts in pattern_list(),
    ) {
        let mut organization = organization;
        organization.ceilings.capabilities = Some(ceiling_capabilities);
        organization.ceilings.hosts = Some(ceiling_hosts.clone());
        let authority = AuthorityLayers { user: Some(user), organization: Some(organization) }.compile();
        prop_assert!(authority.capabilities().is_subset_of(ceiling_capabilities));
        for line in authority.capability_lines() {
            if !ceiling_capabilities.contains(line.capability) {
                prop_assert_eq!((line.polarity, line.decided_by), (Polarity::Denied, Decider::OrganizationCeiling));
            }
        }
        for site in sites() {
            if authority.host_verdict(&site).is_allowed() {
                prop_assert!(ceiling_hosts.iter().any(|p| p.matches(&site)), "{} allowed outside the ceiling", site);
            }
        }
        // Even an all-open user layer cannot raise it.
        let mut everything = Settings::default();
        everything.capabilities.allow = CapabilitySet::ALL;
        everything.hosts.allow = Some(vec![HostPattern::ANY]);
        let raised =
            AuthorityLayers { user: Some(everything), organization: Some(ceilings_only(ceiling_capabilities, &ceiling_hosts)) }
                .compile();
        prop_assert!(raised.capabilities().is_subset_of(ceiling_capabilities));
    }

    /// Host patterns print in a canonical form that parses back to the same pattern, and a
    /// wildcard never matches its apex.
    #[test]
    fn host_patterns_round_trip(
        labels in proptest::collection::vec("[a-z0-9]{1,8}", 1..4),
        wildcard in any::<bool>(),
        port in proptest::option::of(1u16..),
        upper in any::<bool>(),
        trailing_dot in any::<bool>(),
    ) {
        let host = labels.join(".");
        let mut text = if wildcard { format!("*.{host}") } else { host.clone() };
        if upper { text = text.to_uppercase(); }
        if trailing_dot { text.push('.'); }
        if let Some(port) = port { text = format!("{text}:{port}"); }
        // A host whose last label is a number must be an IPv4 address, and a wildcard never
        // takes one; everything else parses.
        let Ok(pattern) = HostPattern::parse(&text) else {
            prop_assert!(labels.last().is_some_and(|l| is_number(l)), "{} refused", text);
            return Ok(());
        };
        prop_assert_eq!(HostPattern::parse(&pattern.to_string()).ok(), Some(pattern.clone()));
        let apex = Url::parse(&format!("https://{host}:{}/", port.unwrap_or(443))).ok().and_then(|u| Site::from_url(&u));
        if let Some(apex) = apex {
            prop_assert_eq!(pattern.matches(&apex), !wildcard);
            let below = Url::parse(&format!("https://x.{host}:{}/", port.unwrap_or(443))).ok().and_then(|u| Site::from_url(&u));
            if let Some(below) = below {
                prop_assert_eq!(pattern.matches(&below), wildcard);
            }
        }
    }
}

/// An organization document with only the given ceilings.
fn ceilings_only(capabilities: CapabilitySet, hosts: &[HostPattern]) -> OrganizationSettings {
    let mut org = OrganizationSettings::default();
    org.ceilings.capabilities = Some(capabilities);
    org.ceilings.hosts = Some(hosts.to_vec());
    org
}

/// The WHATWG "ends in a number" test for a host's last label (decimal, or `0x` hex):
/// such hosts must be IPv4 addresses.
fn is_number(label: &str) -> bool {
    let label = label.to_ascii_lowercase();
    match label.strip_prefix("0x") {
        Some(hex) => hex.chars().all(|c| c.is_ascii_hexdigit()),
        None => !label.is_empty() && label.chars().all(|c| c.is_ascii_digit()),
    }
}
