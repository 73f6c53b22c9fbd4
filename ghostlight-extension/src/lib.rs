//! Ghostlight's extension connector: a [`BrowserPort`](ghostlight_core::port::BrowserPort)
//! over the Ghostlight browser extension (`extension/` in the repository), so Ghostlight can
//! act in the browser a person already uses, without a debugging port.
//!
//! ```text
//! extension ⇄ native messaging ⇄ ghostlight-native-host ⇄ Unix socket ⇄ ExtensionBrowser
//! ```
//!
//! - [`ExtensionBrowser`] listens on a Unix socket in a private directory
//!   ([`endpoint`]) and implements the port over the connected extension.
//! - `ghostlight-native-host` (this crate's binary, [`host`]) is what the browser starts: it
//!   proves the shared [`secret`] to the server, checks the server's proof, and relays
//!   [`framing`]'s frames both ways.
//! - [`protocol`] is the wire: a versioned hello, requests and answers by id.
//! - [`registration`] writes and judges the browsers' host manifests (`ghostlight install`),
//!   [`bundle`] holds the extension's files, and [`recovery`] decides the startup refusal
//!   when no extension is connected (repairing this installation's stale registrations).
//! - [`bundle`] also carries the page API the extension packages (`page/dom.js`, composed from
//!   `ghostlight-page`'s scripts by [`ghostlight_page::bundle`]); `perception`, `capture` and
//!   `input` read, capture and act on pages through it, with `ghostlight-page`'s typed answers;
//!   `refs` owns the element reference format.
//!
//! No TCP port is opened anywhere. The extension's README holds the permissions and the
//! threat model.
#![forbid(unsafe_code)]

mod browser;
pub mod bundle;
mod capture;
mod convert;
mod diagnostics;
mod dialogs;
pub mod endpoint;
pub mod framing;
pub mod host;
pub mod identity;
mod input;
mod link;
mod listener;
mod perception;
pub mod protocol;
mod recording;
pub mod recovery;
mod refs;
pub mod registration;
pub mod secret;

pub use browser::{AbsentRefusal, ExtensionBrowser, ExtensionConfig, PopupAnswer};
pub use listener::{HELLO_TIMEOUT, ListenError};
