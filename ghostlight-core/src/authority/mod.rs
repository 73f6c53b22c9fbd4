//! Authority: what a model may do, decided before anything is dispatched.
//!
//! ```text
//! Settings (user) ─┐
//! OrganizationSettings ─┼─ AuthorityLayers::compile ─▶ CompiledAuthority   (once, at startup)
//! built-in defaults ─┘                                      │
//!                              Restrictions of the call ─▶ snapshot ─▶ AuthoritySnapshot (per invocation)
//! Request ─ classify ─▶ Requirement ──────────────────────────┐        │
//! the tab's current URL (executor) ─────────────────────────── authorize ─▶ Admission | Blocked
//! ```
//!
//! * `config`: the configuration documents (plain serde values; core reads no files).
//! * `layers`: defaults < user < organization, ceilings, and the compiled answer with the
//!   deciding layer of every capability and host rule.
//! * `snapshot`: the immutable per-invocation intersection with the call's restrictions.
//! * `classify`: what a typed request needs.
//! * `decision`: admit or refuse (`blocked`), and the credential handoff
//!   (`attention_required`).
//! * `governed`: how URLs are shown (no userinfo; outside authority only
//!   `scheme://host[:port]`).
//! * `explain`: `policy_explain`.
//! * `audit`: payload-free audit records and the [`AuditSink`] trait.
//! * `confirm`: `[confirm]`, the [`Confirmer`] channel and the payload-free
//!   [`ConfirmationRequest`] bound to one call by its digest.
//!
//! ```
//! use ghostlight_core::{AuthorityLayers, Settings};
//! use ghostlight_core::{ToolName, decode_call};
//! use serde_json::json;
//!
//! // The CLI loads TOML; here the user document is JSON-shaped for brevity.
//! let user: Settings = serde_json::from_value(json!({"hosts": {"allow": ["*.example.com"]}})).unwrap();
//! let authority = AuthorityLayers { user: Some(user), organization: None }.compile();
//!
//! let call = decode_call(ToolName::Navigate, &json!({"url": "https://evil.example/"})).unwrap();
//! let snapshot = authority.snapshot(&call.restrictions);
//! let refusal = snapshot.authorize(&call.request.requirement(), None).unwrap_err();
//! assert_eq!(
//!     refusal.summary(),
//!     "Blocked: browser_navigate needs evil.example, which the user layer's host allow list does not include."
//! );
//! assert_eq!(snapshot.explain().summary, "Explained 4 capability areas over 2 layers in force.");
//! ```

mod audit;
mod classify;
mod config;
mod confirm;
mod decision;
mod explain;
mod governed;
mod host;
mod layers;
pub(crate) mod network;
mod snapshot;

#[cfg(test)]
mod properties;

pub use audit::{AuditConfirmation, AuditDecision, AuditParent, AuditRecord, AuditSink, MemoryAuditSink};
pub use classify::Requirement;
pub(crate) use classify::{Constraint, Destination};
pub use config::{
    BrowserSettings, CapabilityRules, Ceilings, HostRules, OrganizationIdentity, OrganizationName,
    OrganizationSettings, PrivacySettings, Settings, StartupPosture, TabClosePolicy, TabSettings, UploadRoot,
    UploadSettings,
};
pub(crate) use confirm::ArgumentsFingerprint;
pub use confirm::{
    ConfirmAction, ConfirmSettings, Confirmation, ConfirmationAnswer, ConfirmationDigest,
    ConfirmationRequest, Confirmer, Fallback, NoConfirmer,
};
pub use decision::{Admission, Blocked, CredentialHandoff, Refusal, authorize};
pub use explain::{Explanation, policy_explain};
pub use host::{HostPattern, HostPatternError, Site};
pub use layers::{AuthorityLayers, CompiledAuthority};
pub use snapshot::{AuthoritySnapshot, Restrictions};
