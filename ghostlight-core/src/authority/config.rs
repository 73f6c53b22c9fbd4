//! The authority configuration documents, as plain values.
//!
//! Core never reads files: an edge (the CLI) loads TOML and hands these values over. Every
//! section and key is optional, and every level refuses unknown keys, so a typo in a policy
//! is an error rather than a silently ignored rule. A key left out means "this layer says
//! nothing about it" and a lower layer (ultimately the built-in defaults) decides.
//!
//! ```toml
//! [capabilities]
//! allow = ["execute"]          # read, action, write, execute
//! deny = ["write"]
//!
//! [hosts]
//! allow = ["example.com", "*.example.com", "localhost:3000"]
//! deny = ["ads.example.com"]
//!
//! [privacy]
//! preserve_target_names = false   # default true
//!
//! [tabs]
//! close = "forbidden"              # default "allowed"
//!
//! [browser]
//! startup = "manual"               # default "auto"
//!
//! [uploads]
//! roots = ["/home/ada/Uploads"]    # default: none, path uploads refused
//!
//! [confirm]
//! actions = ["submit", "execute"]  # default: none; accumulate from every layer
//! ```
//!
//! An organization document ([`OrganizationSettings`]) has the same sections plus
//! `[organization] name = "…"` and `[ceilings] capabilities = [..]`, `hosts = [..]`.

use std::fmt;
use std::path::{Component, Path};

use serde::{Deserialize, Deserializer};

use super::confirm::ConfirmSettings;
use super::host::HostPattern;
use crate::capability::{Capability, CapabilitySet};
use crate::limits::{CONFIG_HOST_PATTERNS, ORGANIZATION_NAME_CHARS, UPLOAD_PATH_CHARS, UPLOAD_ROOTS};

/// A user settings document: the sections every layer may author.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// `[capabilities]`
    pub capabilities: CapabilityRules,
    /// `[hosts]`
    pub hosts: HostRules,
    /// `[privacy]`
    pub privacy: PrivacySettings,
    /// `[tabs]`
    pub tabs: TabSettings,
    /// `[browser]`
    pub browser: BrowserSettings,
    /// `[uploads]`
    pub uploads: UploadSettings,
    /// `[confirm]`
    pub confirm: ConfirmSettings,
}

/// An organization settings document: the user sections plus identity and ceilings.
///
/// The shared sections are repeated rather than `#[serde(flatten)]`ed from [`Settings`]:
/// serde cannot combine `flatten` with `deny_unknown_fields`, and refusing unknown keys matters
/// more here. [`OrganizationSettings::settings`] projects the shared part.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OrganizationSettings {
    /// `[organization]`
    pub organization: OrganizationIdentity,
    /// `[ceilings]`: the most that may ever be allowed, whatever any layer says.
    pub ceilings: Ceilings,
    /// `[capabilities]`
    pub capabilities: CapabilityRules,
    /// `[hosts]`
    pub hosts: HostRules,
    /// `[privacy]`
    pub privacy: PrivacySettings,
    /// `[tabs]`
    pub tabs: TabSettings,
    /// `[browser]`
    pub browser: BrowserSettings,
    /// `[uploads]`
    pub uploads: UploadSettings,
    /// `[confirm]`
    pub confirm: ConfirmSettings,
}

impl OrganizationSettings {
    /// The sections an organization shares with a user document.
    pub fn settings(&self) -> Settings {
        Settings {
            capabilities: self.capabilities,
            hosts: self.hosts.clone(),
            privacy: self.privacy,
            tabs: self.tabs,
            browser: self.browser,
            uploads: self.uploads.clone(),
            confirm: self.confirm.clone(),
        }
    }
}

/// `[capabilities]`: capabilities this layer allows or denies. A capability in both lists is
/// denied (deny wins within one layer).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CapabilityRules {
    /// `allow`: capability names.
    #[serde(deserialize_with = "capability_set")]
    pub allow: CapabilitySet,
    /// `deny`: capability names.
    #[serde(deserialize_with = "capability_set")]
    pub deny: CapabilitySet,
}

impl CapabilityRules {
    /// Whether this layer mentions `capability` at all.
    pub fn mentions(&self, capability: Capability) -> bool {
        self.allow.contains(capability) || self.deny.contains(capability)
    }
}

/// `[hosts]`: the host allow list (when set) and host deny patterns.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostRules {
    /// `allow`: when set, only matching hosts are allowed (`[]` allows none). The highest
    /// layer that sets a list decides; lower layers' lists are superseded.
    #[serde(deserialize_with = "optional_patterns")]
    pub allow: Option<Vec<HostPattern>>,
    /// `deny`: matching hosts are refused. Deny patterns accumulate from every layer.
    #[serde(deserialize_with = "patterns")]
    pub deny: Vec<HostPattern>,
    /// `resources`: hosts a page may load from and send to (scripts, styles, images, fonts,
    /// fetch, WebSocket, …: everything but documents) without the model navigating or acting
    /// there, such as a CDN, on top of the hosts allowed above; `["*"]` lets subresources go
    /// anywhere. Absent: only the allowed hosts. The highest layer that sets it decides; the
    /// organization's host ceiling bounds it.
    #[serde(deserialize_with = "optional_patterns")]
    pub resources: Option<Vec<HostPattern>>,
}

/// `[privacy]`
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PrivacySettings {
    /// `preserve_target_names` (default `true`): `false` removes target names from action
    /// summaries and receipts.
    pub preserve_target_names: Option<bool>,
}

/// `[tabs]`
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TabSettings {
    /// `close` (default `"allowed"`): the tab-close policy constraint of `browser_tabs` close.
    pub close: Option<TabClosePolicy>,
}

/// `[browser]`
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BrowserSettings {
    /// `startup` (default `"auto"`).
    pub startup: Option<StartupPosture>,
}

/// `[uploads]`
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UploadSettings {
    /// `roots`: absolute folders `browser_upload` `paths` may read from (default none: path
    /// uploads are refused until configured; inline files and captures are unaffected).
    #[serde(deserialize_with = "upload_roots")]
    pub roots: Option<Vec<UploadRoot>>,
}

/// `[organization]`
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OrganizationIdentity {
    /// `name`, shown by `policy_explain`.
    pub name: Option<OrganizationName>,
}

/// `[ceilings]`: permanent upper bounds no layer can raise.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Ceilings {
    /// `capabilities`: the most that may ever be allowed (absent: no capability ceiling).
    #[serde(deserialize_with = "optional_capability_set")]
    pub capabilities: Option<CapabilitySet>,
    /// `hosts`: hosts outside these patterns are never allowed (absent: no host ceiling).
    #[serde(deserialize_with = "optional_patterns")]
    pub hosts: Option<Vec<HostPattern>>,
}

/// Whether `browser_tabs` close may close tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TabClosePolicy {
    /// Closing controlled tabs is allowed (the default).
    Allowed,
    /// Closing tabs is refused.
    Forbidden,
}

impl TabClosePolicy {
    /// The configuration value.
    pub const fn as_str(self) -> &'static str {
        match self {
            TabClosePolicy::Allowed => "allowed",
            TabClosePolicy::Forbidden => "forbidden",
        }
    }
}

/// Who starts the browser when none is connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartupPosture {
    /// Ghostlight starts an eligible browser itself (the default).
    Auto,
    /// The person opens the browser; calls ask them to.
    Manual,
}

impl StartupPosture {
    /// The configuration value.
    pub const fn as_str(self) -> &'static str {
        match self {
            StartupPosture::Auto => "auto",
            StartupPosture::Manual => "manual",
        }
    }
}

/// An organization's display name: 1 to `ORGANIZATION_NAME_CHARS` characters, no control
/// characters, not blank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrganizationName(String);

impl OrganizationName {
    /// Check a name.
    pub fn new(name: &str) -> Result<Self, String> {
        let count = name.chars().count();
        if !ORGANIZATION_NAME_CHARS.contains(count) || name.trim().is_empty() {
            return Err(format!(
                "organization.name must be 1 to {} visible characters",
                ORGANIZATION_NAME_CHARS.max
            ));
        }
        if name.chars().any(char::is_control) {
            return Err("organization.name must not contain control characters".into());
        }
        Ok(OrganizationName(name.to_owned()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for OrganizationName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for OrganizationName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        OrganizationName::new(&text).map_err(serde::de::Error::custom)
    }
}

/// An absolute folder uploads may read from. Core checks the syntax only (absolute on this
/// platform, no `..` component); the executor canonicalises paths before asking
/// [`UploadRoot::covers`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadRoot(String);

impl UploadRoot {
    /// Check a folder path.
    pub fn new(path: &str) -> Result<Self, String> {
        if !UPLOAD_PATH_CHARS.contains(path.chars().count()) {
            return Err(format!("uploads.roots entries are 1 to {} characters", UPLOAD_PATH_CHARS.max));
        }
        let as_path = Path::new(path);
        if !as_path.is_absolute() {
            return Err("uploads.roots entries must be absolute folders".into());
        }
        if as_path.components().any(|c| matches!(c, Component::ParentDir)) || path.contains('\0') {
            return Err("uploads.roots entries must not contain \"..\" or NUL".into());
        }
        Ok(UploadRoot(path.to_owned()))
    }

    /// The folder as configured.
    pub fn as_path(&self) -> &Path {
        Path::new(&self.0)
    }

    /// Whether the canonical absolute `path` lies inside this folder (component-wise, so
    /// `/data/uploads-old` is not inside `/data/uploads`).
    pub fn covers(&self, path: &Path) -> bool {
        path.is_absolute()
            && !path.components().any(|c| matches!(c, Component::ParentDir))
            && path.starts_with(self.as_path())
    }
}

fn capability_set<'de, D: Deserializer<'de>>(deserializer: D) -> Result<CapabilitySet, D::Error> {
    let names = Vec::<String>::deserialize(deserializer)?;
    names
        .iter()
        .map(|name| {
            Capability::parse(name).ok_or_else(|| {
                serde::de::Error::custom(format_args!(
                    "unknown capability {name:?}; capabilities are {}",
                    Capability::NAMES.join(", ")
                ))
            })
        })
        .collect()
}

fn optional_capability_set<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<CapabilitySet>, D::Error> {
    capability_set(deserializer).map(Some)
}

fn patterns<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<HostPattern>, D::Error> {
    let list = Vec::<HostPattern>::deserialize(deserializer)?;
    if !CONFIG_HOST_PATTERNS.contains(list.len()) {
        return Err(serde::de::Error::custom(format_args!(
            "a host list holds at most {} patterns (got {})",
            CONFIG_HOST_PATTERNS.max,
            list.len()
        )));
    }
    Ok(list)
}

fn optional_patterns<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<HostPattern>>, D::Error> {
    patterns(deserializer).map(Some)
}

fn upload_roots<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<UploadRoot>>, D::Error> {
    let list = Vec::<String>::deserialize(deserializer)?;
    if !UPLOAD_ROOTS.contains(list.len()) {
        return Err(serde::de::Error::custom(format_args!(
            "uploads.roots holds at most {} folders (got {})",
            UPLOAD_ROOTS.max,
            list.len()
        )));
    }
    list.iter()
        .map(|path| UploadRoot::new(path).map_err(serde::de::Error::custom))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn settings(value: serde_json::Value) -> Result<Settings, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    fn organization(value: serde_json::Value) -> Result<OrganizationSettings, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    fn root() -> &'static str {
        if cfg!(windows) { r"C:\Users\ada\Uploads" } else { "/home/ada/Uploads" }
    }

    #[test]
    fn empty_document_says_nothing() {
        assert_eq!(settings(json!({})), Ok(Settings::default()));
        assert_eq!(organization(json!({})), Ok(OrganizationSettings::default()));
        let every_section =
            json!({"capabilities": {}, "hosts": {}, "privacy": {}, "tabs": {}, "browser": {}, "uploads": {}});
        assert_eq!(settings(every_section), Ok(Settings::default()));
    }

    #[test]
    fn full_documents() {
        let user = settings(json!({
            "capabilities": {"allow": ["execute"], "deny": ["write"]},
            "hosts": {"allow": ["Example.com", "*.example.com"], "deny": ["ads.example.com"]},
            "privacy": {"preserve_target_names": false},
            "tabs": {"close": "forbidden"},
            "browser": {"startup": "manual"},
            "uploads": {"roots": [root()]},
        }));
        let user = user.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(user.capabilities.allow, CapabilitySet::of(&[Capability::Execute]));
        assert_eq!(user.capabilities.deny, CapabilitySet::of(&[Capability::Write]));
        assert!(user.capabilities.mentions(Capability::Write));
        assert!(!user.capabilities.mentions(Capability::Read));
        let allow: Vec<String> = user.hosts.allow.iter().flatten().map(ToString::to_string).collect();
        assert_eq!(allow, ["example.com", "*.example.com"]);
        assert_eq!(user.privacy.preserve_target_names, Some(false));
        assert_eq!(user.tabs.close, Some(TabClosePolicy::Forbidden));
        assert_eq!(user.browser.startup, Some(StartupPosture::Manual));
        assert_eq!(user.uploads.roots.as_ref().map(Vec::len), Some(1));

        let org = organization(json!({
            "organization": {"name": "Acme"},
            "ceilings": {"capabilities": ["read", "action"], "hosts": ["*.acme.example"]},
            "hosts": {"allow": []},
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(org.organization.name.as_ref().map(OrganizationName::as_str), Some("Acme"));
        assert_eq!(
            org.ceilings.capabilities,
            Some(CapabilitySet::of(&[Capability::Read, Capability::Action]))
        );
        assert_eq!(org.settings().hosts.allow, Some(vec![]));
    }

    #[test]
    fn unknown_keys_are_refused_at_every_level() {
        for document in [
            json!({"capabilites": {}}),
            json!({"capabilities": {"allowed": ["read"]}}),
            json!({"hosts": {"block": []}}),
            json!({"privacy": {"names": true}}),
            json!({"tabs": {"open": "allowed"}}),
            json!({"browser": {"startup": "auto", "path": "/usr/bin/chrome"}}),
            json!({"uploads": {"root": []}}),
            // A user document cannot carry organization sections.
            json!({"organization": {"name": "Acme"}}),
            json!({"ceilings": {}}),
        ] {
            let error = settings(document.clone()).err().unwrap_or_else(|| panic!("accepted {document}"));
            assert!(error.contains("unknown field"), "{document}: {error}");
        }
        for document in [json!({"organization": {"id": 1}}), json!({"ceilings": {"write": true}})] {
            assert!(organization(document.clone()).is_err(), "{document}");
        }
    }

    #[test]
    fn bad_values_are_refused() {
        for (document, needle) in [
            (json!({"capabilities": {"allow": ["admin"]}}), "unknown capability \"admin\""),
            (json!({"capabilities": {"deny": ["READ"]}}), "unknown capability"),
            (json!({"hosts": {"allow": ["https://example.com"]}}), "is not a host pattern"),
            (json!({"hosts": {"deny": ["a.*.example"]}}), "is not a host pattern"),
            (json!({"tabs": {"close": "never"}}), "unknown variant"),
            (json!({"browser": {"startup": "automatic"}}), "unknown variant"),
            (json!({"privacy": {"preserve_target_names": "yes"}}), "invalid type"),
            (json!({"uploads": {"roots": ["relative/folder"]}}), "absolute folders"),
        ] {
            let error = settings(document.clone()).err().unwrap_or_else(|| panic!("accepted {document}"));
            assert!(error.contains(needle), "{document}: {error}");
        }
        let many: Vec<String> = (0..=CONFIG_HOST_PATTERNS.max).map(|i| format!("h{i}.example")).collect();
        assert!(settings(json!({"hosts": {"deny": many}})).is_err());
        for name in ["", "   ", "Acme\u{7}"] {
            assert!(organization(json!({"organization": {"name": name}})).is_err(), "{name:?}");
        }
        let long = "a".repeat(ORGANIZATION_NAME_CHARS.max + 1);
        assert!(organization(json!({"organization": {"name": long}})).is_err());
    }

    #[test]
    fn upload_roots_cover_paths_component_wise() {
        let folder = UploadRoot::new(root()).unwrap_or_else(|e| panic!("{e}"));
        let inside = Path::new(root()).join("report.pdf");
        let sibling = format!("{}-old", root());
        let sibling = Path::new(&sibling).join("report.pdf");
        let escape = Path::new(root()).join("..").join("secret.txt");
        assert!(folder.covers(&inside));
        assert!(!folder.covers(&sibling));
        assert!(!folder.covers(&escape));
        assert!(!folder.covers(Path::new("report.pdf")));
        let dotted = Path::new(root()).join("..").join("x");
        assert!(UploadRoot::new(&dotted.to_string_lossy()).is_err());
        assert!(UploadRoot::new("").is_err());
    }
}
