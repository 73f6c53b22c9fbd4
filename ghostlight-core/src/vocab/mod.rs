//! The words the model-facing tools and the browser port share: closed wire choices (mouse
//! buttons, keys, scroll directions, evidence sources), fill values, credential classes and gate kinds.
//!
//! This is the bottom of the crate: it depends on nothing else in it. The tool decoders read
//! these words from calls, and the browser port carries them to adapters, which see
//! them through `port`'s re-exports.

mod credential;
mod diagnose;
mod gate;
mod input;
mod wire;

pub use credential::CredentialClass;
pub use diagnose::{DiagnoseDetail, DiagnoseSource};
pub use gate::GateKind;
pub use input::{FillValue, Key, Modifier, MouseButton, NamedKey, ScrollDirection};
pub(crate) use wire::WireChoice;
pub(crate) use wire::wire_choice;
