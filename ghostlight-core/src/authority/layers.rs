//! Layers and their compilation into one [`CompiledAuthority`].
//!
//! Precedence, lowest first: built-in defaults < user settings < organization settings.
//!
//! * Capabilities: for each capability the highest layer that mentions it decides; within one
//!   layer deny wins over allow.
//! * Hosts: the allow list is the highest layer's that sets one (the defaults' is `*`); deny
//!   patterns accumulate from every layer.
//! * Settings (`privacy.preserve_target_names`, `tabs.close`, `browser.startup`,
//!   `uploads.roots`): the highest layer that sets the key decides.
//! * Confirmations (`confirm.actions`): accumulate from every layer, so no layer removes one
//!   a lower layer asked for (the organization's stay whatever the user writes).
//! * Organization ceilings cap the final result whatever any layer says: a capability outside
//!   the capability ceiling is denied, a host outside the host ceiling is never allowed. When
//!   a layer and a ceiling both deny, the ceiling is named as the decider, because it is the
//!   one that no lower layer can change.

use std::fmt;
use std::sync::Arc;

use super::config::{
    OrganizationIdentity, OrganizationSettings, Settings, StartupPosture, TabClosePolicy, UploadRoot,
};
use super::confirm::ConfirmAction;
use super::host::{HostPattern, Site};
use crate::capability::{Capability, CapabilitySet};

/// One configuration layer, lowest precedence first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    /// The built-in defaults: read, action and write allowed; execute denied; hosts open.
    Defaults,
    /// The person's own settings.
    User,
    /// The organization's settings (which may also set ceilings).
    Organization,
}

impl Layer {
    /// The layer's name in facts and sentences: `defaults`, `user`, `organization`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Layer::Defaults => "defaults",
            Layer::User => "user",
            Layer::Organization => "organization",
        }
    }

    /// Where the layer comes from, for provenance: `built-in defaults`, `user settings`,
    /// `organization settings` (never a file path).
    pub const fn source(self) -> &'static str {
        match self {
            Layer::Defaults => "built-in defaults",
            Layer::User => "user settings",
            Layer::Organization => "organization settings",
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What decided a verdict: a layer, the organization ceiling, or this call's restrictions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decider {
    /// The built-in defaults.
    Defaults,
    /// The user layer.
    User,
    /// The organization layer.
    Organization,
    /// The organization's permanent ceiling.
    OrganizationCeiling,
    /// The invocation's `restrict_capabilities` / `restrict_hosts`.
    Restriction,
}

impl Decider {
    /// The name in facts: `defaults`, `user`, `organization`, `organization ceiling`,
    /// `restriction`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Decider::Defaults => "defaults",
            Decider::User => "user",
            Decider::Organization => "organization",
            Decider::OrganizationCeiling => "organization ceiling",
            Decider::Restriction => "restriction",
        }
    }
}

impl From<Layer> for Decider {
    fn from(layer: Layer) -> Self {
        match layer {
            Layer::Defaults => Decider::Defaults,
            Layer::User => Decider::User,
            Layer::Organization => Decider::Organization,
        }
    }
}

impl fmt::Display for Decider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Allowed or denied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Polarity {
    /// Allowed.
    Allowed,
    /// Denied.
    Denied,
}

impl Polarity {
    /// `allowed` or `denied`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Polarity::Allowed => "allowed",
            Polarity::Denied => "denied",
        }
    }

    /// `Allowed` when `allowed`.
    pub const fn of(allowed: bool) -> Self {
        if allowed { Polarity::Allowed } else { Polarity::Denied }
    }
}

/// The compiled verdict for one capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapabilityLine {
    /// The capability.
    pub capability: Capability,
    /// Allowed or denied.
    pub polarity: Polarity,
    /// The layer (or ceiling) that decided it.
    pub decided_by: Decider,
}

/// The role a host pattern plays in the compiled authority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostRuleKind {
    /// An entry of a layer's allow list.
    Allow,
    /// A deny pattern.
    Deny,
    /// An entry of the organization's host ceiling.
    Ceiling,
}

/// One host rule as compiled: the pattern, its polarity, the layer that authored it, and
/// whether it is in force (allow lists of lower layers are superseded by a higher layer's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRule {
    /// The pattern.
    pub pattern: HostPattern,
    /// Allow list entry, deny pattern, or ceiling entry.
    pub kind: HostRuleKind,
    /// `Allowed` for allow and ceiling entries, `Denied` for deny patterns.
    pub polarity: Polarity,
    /// The layer that authored it (`OrganizationCeiling` for ceiling entries).
    pub decided_by: Decider,
    /// Whether the rule takes part in decisions.
    pub in_force: bool,
}

/// A resolved setting and the layer that decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting<T> {
    /// The value in force.
    pub value: T,
    /// The highest layer that set it (`Defaults` when none did).
    pub decided_by: Layer,
}

/// Whether a host is allowed, what decided, and the pattern behind the verdict if one was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostVerdict {
    /// Allowed or denied.
    pub polarity: Polarity,
    /// What decided.
    pub decided_by: Decider,
    /// The matching pattern: the allow entry that admitted the host, or the deny pattern
    /// that refused it. `None` when the host matched no allow entry, or fell outside the
    /// ceiling or the restriction.
    pub rule: Option<HostPattern>,
}

impl HostVerdict {
    /// Whether the host is allowed.
    pub fn is_allowed(&self) -> bool {
        self.polarity == Polarity::Allowed
    }
}

/// The configuration layers an edge supplies. The built-in defaults are always present.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthorityLayers {
    /// The user settings document, when one was loaded.
    pub user: Option<Settings>,
    /// The organization settings document, when one was loaded.
    pub organization: Option<OrganizationSettings>,
}

impl AuthorityLayers {
    /// Compile the layers (see the module documentation for the precedence rules).
    pub fn compile(&self) -> CompiledAuthority {
        CompiledAuthority::compile(self)
    }
}

/// The compiled configuration: the one answer every invocation's snapshot starts from.
/// Immutable and cheap to clone (an `Arc` inside).
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledAuthority(Arc<Compiled>);

#[derive(Debug, PartialEq)]
struct Compiled {
    layers: Vec<Layer>,
    authored: Vec<(Layer, Settings)>,
    capabilities: [CapabilityLine; 4],
    allowed: CapabilitySet,
    allow_layer: Layer,
    host_rules: Vec<HostRule>,
    ceiling_capabilities: Option<CapabilitySet>,
    ceiling_hosts: Option<Vec<HostPattern>>,
    resource_hosts: Setting<Vec<HostPattern>>,
    preserve_target_names: Setting<bool>,
    tab_close: Setting<TabClosePolicy>,
    startup: Setting<StartupPosture>,
    upload_roots: Setting<Vec<UploadRoot>>,
    /// Each action to confirm, with the lowest layer that asked for it.
    confirm: Vec<(ConfirmAction, Layer)>,
    organization: Option<OrganizationIdentity>,
}

/// The built-in defaults as a document: read, action and write allowed; execute denied;
/// hosts open; target names preserved; tab close allowed; startup auto; no upload roots.
pub(crate) fn default_settings() -> Settings {
    let mut settings = Settings::default();
    settings.capabilities.allow =
        CapabilitySet::of(&[Capability::Read, Capability::Action, Capability::Write]);
    settings.capabilities.deny = CapabilitySet::of(&[Capability::Execute]);
    settings.hosts.allow = Some(vec![HostPattern::ANY]);
    settings.hosts.resources = Some(Vec::new());
    settings.privacy.preserve_target_names = Some(true);
    settings.tabs.close = Some(TabClosePolicy::Allowed);
    settings.browser.startup = Some(StartupPosture::Auto);
    settings.uploads.roots = Some(Vec::new());
    settings
}

impl Default for CompiledAuthority {
    /// The built-in defaults alone.
    fn default() -> Self {
        AuthorityLayers::default().compile()
    }
}

impl CompiledAuthority {
    /// Compile `layers`.
    pub fn compile(layers: &AuthorityLayers) -> CompiledAuthority {
        let mut authored = vec![(Layer::Defaults, default_settings())];
        if let Some(user) = &layers.user {
            authored.push((Layer::User, user.clone()));
        }
        if let Some(org) = &layers.organization {
            authored.push((Layer::Organization, org.settings()));
        }
        let ceilings = layers.organization.as_ref().map(|org| &org.ceilings);
        let ceiling_capabilities = ceilings.and_then(|c| c.capabilities);
        let ceiling_hosts = ceilings.and_then(|c| c.hosts.clone());

        // Highest layer first, for "the highest layer that mentions it decides".
        let highest_first = || authored.iter().rev();

        let capabilities = Capability::ALL.map(|capability| {
            let (layer, allowed) = highest_first()
                .find(|(_, s)| s.capabilities.mentions(capability))
                .map(|(layer, s)| (*layer, !s.capabilities.deny.contains(capability)))
                .unwrap_or((Layer::Defaults, false));
            let capped = ceiling_capabilities.is_some_and(|ceiling| !ceiling.contains(capability));
            let (allowed, decided_by) =
                if capped { (false, Decider::OrganizationCeiling) } else { (allowed, layer.into()) };
            CapabilityLine { capability, polarity: Polarity::of(allowed), decided_by }
        });
        let allowed = capabilities
            .iter()
            .filter(|line| line.polarity == Polarity::Allowed)
            .map(|l| l.capability)
            .collect();

        let allow_layer = highest_first()
            .find(|(_, s)| s.hosts.allow.is_some())
            .map(|(layer, _)| *layer)
            .unwrap_or(Layer::Defaults);
        let mut host_rules = Vec::new();
        for (layer, settings) in highest_first() {
            for pattern in settings.hosts.allow.iter().flatten() {
                host_rules.push(HostRule {
                    pattern: pattern.clone(),
                    kind: HostRuleKind::Allow,
                    polarity: Polarity::Allowed,
                    decided_by: (*layer).into(),
                    in_force: *layer == allow_layer,
                });
            }
            for pattern in &settings.hosts.deny {
                host_rules.push(HostRule {
                    pattern: pattern.clone(),
                    kind: HostRuleKind::Deny,
                    polarity: Polarity::Denied,
                    decided_by: (*layer).into(),
                    in_force: true,
                });
            }
        }
        for pattern in ceiling_hosts.iter().flatten() {
            host_rules.push(HostRule {
                pattern: pattern.clone(),
                kind: HostRuleKind::Ceiling,
                polarity: Polarity::Allowed,
                decided_by: Decider::OrganizationCeiling,
                in_force: true,
            });
        }

        // The highest layer that sets the key decides; the defaults set every key, so the
        // fallback is only a type-level guarantee.
        fn resolve<T>(
            authored: &[(Layer, Settings)],
            get: impl Fn(&Settings) -> Option<T>,
            fallback: T,
        ) -> Setting<T> {
            authored
                .iter()
                .rev()
                .find_map(|(layer, s)| get(s).map(|value| Setting { value, decided_by: *layer }))
                .unwrap_or(Setting { value: fallback, decided_by: Layer::Defaults })
        }
        let preserve_target_names = resolve(&authored, |s| s.privacy.preserve_target_names, true);
        let tab_close = resolve(&authored, |s| s.tabs.close, TabClosePolicy::Allowed);
        let startup = resolve(&authored, |s| s.browser.startup, StartupPosture::Auto);
        let upload_roots = resolve(&authored, |s| s.uploads.roots.clone(), Vec::new());
        let resource_hosts = resolve(&authored, |s| s.hosts.resources.clone(), Vec::new());
        let confirm = ConfirmAction::ALL
            .into_iter()
            .filter_map(|action| {
                authored
                    .iter()
                    .find(|(_, s)| s.confirm.actions.contains(&action))
                    .map(|(layer, _)| (action, *layer))
            })
            .collect();

        CompiledAuthority(Arc::new(Compiled {
            layers: authored.iter().map(|(layer, _)| *layer).collect(),
            authored,
            capabilities,
            allowed,
            allow_layer,
            host_rules,
            ceiling_capabilities,
            ceiling_hosts,
            resource_hosts,
            preserve_target_names,
            tab_close,
            startup,
            upload_roots,
            confirm,
            organization: layers.organization.as_ref().map(|org| org.organization.clone()),
        }))
    }

    /// Every capability open and every host open: what an explicit all-open configuration
    /// (a user layer allowing all four capabilities) compiles to.
    pub fn all_open() -> CompiledAuthority {
        let mut user = Settings::default();
        user.capabilities.allow = CapabilitySet::ALL;
        AuthorityLayers { user: Some(user), organization: None }.compile()
    }

    /// Whether `action` needs the person's yes before dispatch (`[confirm] actions` of any
    /// layer).
    pub fn confirms(&self, action: ConfirmAction) -> bool {
        self.0.confirm.iter().any(|(asked, _)| *asked == action)
    }

    /// The actions to confirm, each with the lowest layer that asked for it.
    pub fn confirmations(&self) -> &[(ConfirmAction, Layer)] {
        &self.0.confirm
    }

    /// The layers in force, lowest first (`defaults` always; `user` and `organization` when
    /// supplied).
    pub fn layers(&self) -> &[Layer] {
        &self.0.layers
    }

    /// What each layer in force authored (the defaults as their built-in document).
    pub fn authored(&self) -> impl Iterator<Item = (Layer, &Settings)> {
        self.0.authored.iter().map(|(layer, settings)| (*layer, settings))
    }

    /// The allowed capabilities.
    pub fn capabilities(&self) -> CapabilitySet {
        self.0.allowed
    }

    /// The four capability verdicts, in canonical order.
    pub fn capability_lines(&self) -> &[CapabilityLine; 4] {
        &self.0.capabilities
    }

    /// The verdict for one capability.
    pub fn capability(&self, capability: Capability) -> CapabilityLine {
        self.0.capabilities[capability as usize]
    }

    /// Every host rule: allow entries (in force or superseded), deny patterns and ceiling
    /// entries, highest layer first.
    pub fn host_rules(&self) -> &[HostRule] {
        &self.0.host_rules
    }

    /// The layer whose host allow list is in force.
    pub fn host_allow_layer(&self) -> Layer {
        self.0.allow_layer
    }

    /// The organization's capability ceiling, if set.
    pub fn ceiling_capabilities(&self) -> Option<CapabilitySet> {
        self.0.ceiling_capabilities
    }

    /// The organization's host ceiling, if set.
    pub fn ceiling_hosts(&self) -> Option<&[HostPattern]> {
        self.0.ceiling_hosts.as_deref()
    }

    /// `hosts.resources`: hosts subresources may also reach (empty: only the allowed hosts).
    pub fn resource_hosts(&self) -> &Setting<Vec<HostPattern>> {
        &self.0.resource_hosts
    }

    /// Whether a subresource (anything but a document) may reach `site` although it is not
    /// an allowed host: it matches `hosts.resources`, the organization's host ceiling, and no
    /// deny pattern.
    pub fn admits_resource(&self, site: &Site) -> bool {
        let capped =
            self.0.ceiling_hosts.as_ref().is_some_and(|ceiling| !ceiling.iter().any(|p| p.matches(site)));
        !capped
            && !self.denied_hosts().any(|pattern| pattern.matches(site))
            && self.0.resource_hosts.value.iter().any(|pattern| pattern.matches(site))
    }

    /// The host allow list in force.
    pub fn allowed_hosts(&self) -> impl Iterator<Item = &HostPattern> {
        self.in_force(HostRuleKind::Allow)
    }

    /// Every host deny pattern (they accumulate from every layer).
    pub fn denied_hosts(&self) -> impl Iterator<Item = &HostPattern> {
        self.in_force(HostRuleKind::Deny)
    }

    /// Whether hosts are open: `*` allowed, nothing denied, no host ceiling.
    pub fn hosts_open(&self) -> bool {
        self.0.host_rules.iter().filter(|r| r.in_force).all(|r| r.kind == HostRuleKind::Allow)
            && self.in_force(HostRuleKind::Allow).any(HostPattern::is_any)
    }

    fn in_force(&self, kind: HostRuleKind) -> impl Iterator<Item = &HostPattern> {
        self.0.host_rules.iter().filter(move |r| r.in_force && r.kind == kind).map(|r| &r.pattern)
    }

    /// The verdict for a page on `site`. The ceiling is checked first, then deny patterns
    /// (highest layer first), then the allow list in force.
    pub fn host_verdict(&self, site: &Site) -> HostVerdict {
        if let Some(ceiling) = &self.0.ceiling_hosts
            && !ceiling.iter().any(|pattern| pattern.matches(site))
        {
            return HostVerdict {
                polarity: Polarity::Denied,
                decided_by: Decider::OrganizationCeiling,
                rule: None,
            };
        }
        let deny = self.0.host_rules.iter().find(|r| r.kind == HostRuleKind::Deny && r.pattern.matches(site));
        if let Some(rule) = deny {
            return HostVerdict {
                polarity: Polarity::Denied,
                decided_by: rule.decided_by,
                rule: Some(rule.pattern.clone()),
            };
        }
        let allow = self.in_force(HostRuleKind::Allow).find(|pattern| pattern.matches(site));
        HostVerdict {
            polarity: Polarity::of(allow.is_some()),
            decided_by: self.0.allow_layer.into(),
            rule: allow.cloned(),
        }
    }

    /// `privacy.preserve_target_names`.
    pub fn preserve_target_names(&self) -> &Setting<bool> {
        &self.0.preserve_target_names
    }

    /// `tabs.close`, the tab-close policy constraint.
    pub fn tab_close(&self) -> &Setting<TabClosePolicy> {
        &self.0.tab_close
    }

    /// `browser.startup`.
    pub fn browser_startup(&self) -> &Setting<StartupPosture> {
        &self.0.startup
    }

    /// `uploads.roots` (empty: path uploads are refused).
    pub fn upload_roots(&self) -> &Setting<Vec<UploadRoot>> {
        &self.0.upload_roots
    }

    /// The organization's identity, when an organization layer is in force.
    pub fn organization(&self) -> Option<&OrganizationIdentity> {
        self.0.organization.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::authority::host::Site;

    fn site(url: &str) -> Site {
        url::Url::parse(url).ok().and_then(|u| Site::from_url(&u)).unwrap_or_else(|| panic!("{url}"))
    }

    fn user(value: serde_json::Value) -> Settings {
        serde_json::from_value(value).unwrap_or_else(|e| panic!("{e}"))
    }

    fn org(value: serde_json::Value) -> OrganizationSettings {
        serde_json::from_value(value).unwrap_or_else(|e| panic!("{e}"))
    }

    fn line(authority: &CompiledAuthority, capability: Capability) -> (Polarity, Decider) {
        let line = authority.capability(capability);
        (line.polarity, line.decided_by)
    }

    #[test]
    fn defaults() {
        let authority = CompiledAuthority::default();
        assert_eq!(authority.layers(), [Layer::Defaults]);
        assert_eq!(
            authority.capabilities(),
            CapabilitySet::of(&[Capability::Read, Capability::Action, Capability::Write])
        );
        assert_eq!(line(&authority, Capability::Execute), (Polarity::Denied, Decider::Defaults));
        assert_eq!(line(&authority, Capability::Read), (Polarity::Allowed, Decider::Defaults));
        assert!(authority.hosts_open());
        assert!(authority.host_verdict(&site("https://anything.example/")).is_allowed());
        assert!(authority.preserve_target_names().value);
        assert_eq!(authority.tab_close().value, TabClosePolicy::Allowed);
        assert_eq!(authority.browser_startup().value, StartupPosture::Auto);
        assert!(authority.upload_roots().value.is_empty());
        assert_eq!(authority.organization(), None);
    }

    #[test]
    fn highest_layer_that_mentions_a_capability_decides() {
        let layers = AuthorityLayers {
            user: Some(user(json!({"capabilities": {"allow": ["execute"], "deny": ["write"]}}))),
            organization: Some(org(json!({"capabilities": {"deny": ["execute"]}}))),
        };
        let authority = layers.compile();
        assert_eq!(authority.layers(), [Layer::Defaults, Layer::User, Layer::Organization]);
        assert_eq!(line(&authority, Capability::Read), (Polarity::Allowed, Decider::Defaults));
        assert_eq!(line(&authority, Capability::Write), (Polarity::Denied, Decider::User));
        assert_eq!(line(&authority, Capability::Execute), (Polarity::Denied, Decider::Organization));

        let user_only = AuthorityLayers { user: layers.user.clone(), organization: None }.compile();
        assert_eq!(line(&user_only, Capability::Execute), (Polarity::Allowed, Decider::User));

        // Deny wins within one layer.
        let both = AuthorityLayers {
            user: Some(user(json!({"capabilities": {"allow": ["read"], "deny": ["read"]}}))),
            organization: None,
        };
        assert_eq!(line(&both.compile(), Capability::Read), (Polarity::Denied, Decider::User));
    }

    #[test]
    fn ceilings_cap_whatever_any_layer_says() {
        let layers = AuthorityLayers {
            user: Some(user(json!({
                "capabilities": {"allow": ["read", "action", "write", "execute"]},
                "hosts": {"allow": ["*"]},
            }))),
            organization: Some(org(json!({
                "capabilities": {"allow": ["write"]},
                "ceilings": {"capabilities": ["read", "action"], "hosts": ["*.acme.example"]},
            }))),
        };
        let authority = layers.compile();
        assert_eq!(authority.capabilities(), CapabilitySet::of(&[Capability::Read, Capability::Action]));
        assert_eq!(line(&authority, Capability::Write), (Polarity::Denied, Decider::OrganizationCeiling));
        assert_eq!(line(&authority, Capability::Execute), (Polarity::Denied, Decider::OrganizationCeiling));
        assert_eq!(line(&authority, Capability::Action), (Polarity::Allowed, Decider::User));
        let outside = authority.host_verdict(&site("https://evil.example/"));
        assert_eq!((outside.polarity, outside.decided_by), (Polarity::Denied, Decider::OrganizationCeiling));
        let inside = authority.host_verdict(&site("https://intranet.acme.example/"));
        assert_eq!((inside.polarity, inside.decided_by), (Polarity::Allowed, Decider::User));
        assert!(!authority.hosts_open());
    }

    #[test]
    fn host_allow_list_of_the_highest_layer_and_accumulated_denies() {
        let layers = AuthorityLayers {
            user: Some(user(
                json!({"hosts": {"allow": ["example.com", "*.example.com"], "deny": ["ads.example.com"]}}),
            )),
            organization: Some(org(json!({"hosts": {"deny": ["*.tracker.example"]}}))),
        };
        let authority = layers.compile();
        assert_eq!(authority.host_allow_layer(), Layer::User);
        let verdict = |url: &str| {
            let v = authority.host_verdict(&site(url));
            (v.polarity, v.decided_by, v.rule.map(|p| p.to_string()))
        };
        assert_eq!(
            verdict("https://www.example.com/"),
            (Polarity::Allowed, Decider::User, Some("*.example.com".into()))
        );
        assert_eq!(
            verdict("https://ads.example.com/"),
            (Polarity::Denied, Decider::User, Some("ads.example.com".into()))
        );
        assert_eq!(
            verdict("https://a.tracker.example/"),
            (Polarity::Denied, Decider::Organization, Some("*.tracker.example".into()))
        );
        assert_eq!(verdict("https://other.example/"), (Polarity::Denied, Decider::User, None));
        // The defaults' `*` is superseded, not lost.
        let superseded: Vec<_> = authority.host_rules().iter().filter(|r| !r.in_force).collect();
        assert_eq!(superseded.len(), 1);
        assert!(superseded[0].pattern.is_any() && superseded[0].decided_by == Decider::Defaults);

        // An organization allow list supersedes the user's; `[]` allows nothing.
        let closed = AuthorityLayers {
            user: layers.user.clone(),
            organization: Some(org(json!({"hosts": {"allow": []}}))),
        }
        .compile();
        assert_eq!(closed.host_allow_layer(), Layer::Organization);
        let v = closed.host_verdict(&site("https://example.com/"));
        assert_eq!((v.polarity, v.decided_by), (Polarity::Denied, Decider::Organization));
    }

    #[test]
    fn settings_come_from_the_highest_layer_that_sets_them() {
        let layers = AuthorityLayers {
            user: Some(user(json!({
                "privacy": {"preserve_target_names": false},
                "tabs": {"close": "forbidden"},
                "browser": {"startup": "manual"},
            }))),
            organization: Some(org(json!({"organization": {"name": "Acme"}, "tabs": {"close": "allowed"}}))),
        };
        let authority = layers.compile();
        assert_eq!(*authority.preserve_target_names(), Setting { value: false, decided_by: Layer::User });
        assert_eq!(
            *authority.tab_close(),
            Setting { value: TabClosePolicy::Allowed, decided_by: Layer::Organization }
        );
        assert_eq!(
            *authority.browser_startup(),
            Setting { value: StartupPosture::Manual, decided_by: Layer::User }
        );
        assert_eq!(authority.upload_roots().decided_by, Layer::Defaults);
        assert_eq!(authority.organization().and_then(|o| o.name.as_ref()).map(|n| n.as_str()), Some("Acme"));
    }

    #[test]
    fn all_open() {
        let authority = CompiledAuthority::all_open();
        assert_eq!(authority.capabilities(), CapabilitySet::ALL);
        assert_eq!(line(&authority, Capability::Execute), (Polarity::Allowed, Decider::User));
        assert!(authority.hosts_open());
    }
}
