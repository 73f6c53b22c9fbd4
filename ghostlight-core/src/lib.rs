//! # ghostlight-core
//!
//! Governed browser tools for AI models, without I/O: this crate holds the Ghostlight 1.0
//! contract (24 tool declarations, their schemas and strict typed decoders), authority, and
//! the envelope language. It has no async runtime, no sockets and reads no files; browser
//! adapters (WebDriver, a browser extension) and edges (MCP, CLI) live in other crates.
//!
//! Every call is decoded into a typed [`Request`] before anything else happens. Bad input is
//! refused with a [`DecodeError`] that names the JSON Pointer of the field and the rule:
//!
//! ```
//! use ghostlight_core::{ToolName, decode_call};
//! use serde_json::json;
//!
//! let call = decode_call(ToolName::Navigate, &json!({"url": "https://example.com"})).unwrap();
//! assert_eq!(call.request.tool(), ToolName::Navigate);
//! assert_eq!(call.request.capabilities().to_string(), "read");
//!
//! let error = decode_call(ToolName::Navigate, &json!({"url": "https://example.com", "timeout_ms": 50}))
//!     .unwrap_err();
//! assert_eq!(error.to_string(), "/timeout_ms must be an integer from 100 to 30000 (got 50)");
//!
//! // The catalog as MCP `tools/list` carries it.
//! let tools = ghostlight_core::render_catalog();
//! assert_eq!(tools.as_array().map(Vec::len), Some(24));
//! ```
//!
//! A [`Ghostlight`] runs calls against any [`BrowserPort`]: here the deterministic scripted
//! port of the `testing` feature; in production `ghostlight-webdriver` (chromedriver,
//! geckodriver). Every call answers one [`Envelope`] whose sentences Ghostlight wrote:
//!
//! ```
//! # #[cfg(feature = "testing")] {
//! use std::sync::Arc;
//! use ghostlight_core::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};
//! use ghostlight_core::{Cancellation, Ghostlight, Status};
//! use serde_json::json;
//!
//! let browser = ScriptedBrowser::new().site(
//!     "https://example.com/",
//!     ScriptedPage::new("Example").text("Hello").element(ScriptedElement::button("Save")),
//! );
//! let ghostlight = Ghostlight::new(Arc::new(browser));
//! let never = Cancellation::never();
//!
//! futures::executor::block_on(async {
//!     let opened = ghostlight.invoke("browser_navigate", &json!({"url": "https://example.com/"}), &never).await?;
//!     assert_eq!(opened.envelope.summary, "Opened example.com.");
//!
//!     let save = json!({"selector": {"name": "Save"}});
//!     let clicked = ghostlight.invoke("browser_click", &save, &never).await?;
//!     assert_eq!(clicked.envelope.status, Status::Succeeded);
//!     assert_eq!(clicked.envelope.summary, "Clicked the \"Save\" button on example.com.");
//!     assert!(!clicked.envelope.repeat_safe);
//!     Ok::<(), ghostlight_core::UnknownTool>(())
//! })
//! .expect("every tool name above is in the catalog");
//! # }
//! ```
//!
//! ## The public API
//!
//! The modules are private; this is everything a user names (held by
//! `tests/public_api.rs`, so it changes only on purpose):
//!
//! - **Running calls:** [`Ghostlight`] and its [`GhostlightBuilder`], [`Cancellation`],
//!   [`ToolResult`] with its [`Attachment`]s, [`Progress`] ([`StepProgress`],
//!   [`NoProgress`]), [`WorkspaceLimits`], [`UnknownTool`].
//! - **The catalog and decoding:** [`ToolName`], [`CATALOG`], [`ToolDeclaration`],
//!   [`Annotations`], [`render_catalog`], strict function-calling schemas
//!   ([`ToolDeclaration::strict_input_schema`], [`NotStrict`]), [`decode_call`],
//!   [`decode_child`], the typed [`Request`] ([`Call`], [`Restrictions`], [`Selector`],
//!   [`Role`], [`Handle`]) and [`DecodeError`].
//! - **The envelope:** [`Envelope`], [`Status`], [`Effect`], [`Readiness`].
//! - **Authority:** the configuration ([`Settings`], [`OrganizationSettings`] and their parts,
//!   [`AuthorityLayers`], [`CompiledAuthority`], [`HostPattern`]), [`policy_explain`],
//!   [`classify`] and [`authorize`], and audit ([`AuditSink`], [`AuditRecord`],
//!   [`MemoryAuditSink`], [`DiscardAudit`]).
//! - **Implementing a browser:** the [`port`] module ([`BrowserPort`] and its vocabulary).
//! - **Testing:** the `testing` module (feature `testing`): a scripted `BrowserPort`, and a
//!   checker of OpenAI's strict-mode schema subset.

#![forbid(unsafe_code)]

mod authority;
mod capability;
mod declaration;
mod decode;
mod envelope;
mod executor;
mod facts;
mod handles;
mod language;
mod limits;
mod names;
mod operation;
pub mod port;
mod schema;
mod selector;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
mod tools;
mod vocab;

#[doc(hidden)]
pub mod fuzzing;

pub use authority::{
    Admission, AuditConfirmation, AuditDecision, AuditParent, AuditRecord, AuditSink, AuthorityLayers,
    AuthoritySnapshot, Blocked, BrowserSettings, CapabilityRules, Ceilings, CompiledAuthority, ConfirmAction,
    ConfirmSettings, Confirmation, ConfirmationAnswer, ConfirmationDigest, ConfirmationRequest, Confirmer,
    CredentialHandoff, Explanation, Fallback, HostPattern, HostPatternError, HostRules, MemoryAuditSink,
    NoConfirmer, OrganizationIdentity, OrganizationName, OrganizationSettings, PrivacySettings, Refusal,
    Requirement, Restrictions, Settings, Site, StartupPosture, TabClosePolicy, TabSettings, UploadRoot,
    UploadSettings, authorize, policy_explain,
};
pub use capability::{Capability, CapabilitySet};
pub use declaration::{Annotations, ToolDeclaration};
pub use decode::{DecodeError, DecodeErrorKind, Pointer};
pub use envelope::{Effect, Envelope, Readiness, Status};
pub use executor::{
    Attachment, Cancellation, Cancelled, DiscardAudit, Ghostlight, GhostlightBuilder, NoProgress, Progress,
    StepProgress, ToolResult, UnknownTool, WorkspaceLimits,
};
pub use handles::{Handle, HandleKind};
/// The window sizes `browser_window resize` accepts, for hosts that validate a configured
/// window against the same bounds.
pub use limits::{IntBound, WINDOW_HEIGHT, WINDOW_WIDTH};
pub use names::ToolName;
pub use port::{BrowserPort, PortError, PortErrorKind};
pub use schema::strict::NotStrict;
pub use selector::{Role, Selector};
pub use tools::catalog::{CATALOG, decode_call, decode_child, render_catalog};
pub use tools::request::{Call, Request, classify};
