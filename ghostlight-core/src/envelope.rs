//! The result envelope every invocation returns, and its closed enums.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $wire:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every wire name, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($wire),+];

            /// The wire name.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire),+
                }
            }
        }
    };
}

wire_enum! {
    /// How the invocation ended.
    Status {
        /// The requested work was done.
        Succeeded => "succeeded",
        /// Authority refused the call; nothing was dispatched.
        Blocked => "blocked",
        /// The call could not be done (bad input, stale handle, timeout, unsupported).
        Failed => "failed",
        /// The caller cancelled the call.
        Cancelled => "cancelled",
        /// A person must act before the call can proceed.
        AttentionRequired => "attention_required",
        /// The outcome cannot be known (the connection was lost after dispatch).
        Unknown => "unknown",
    }
}

wire_enum! {
    /// What the invocation did to the browser or page.
    Effect {
        /// Nothing changed.
        None => "none",
        /// The work took effect.
        Applied => "applied",
        /// Some of the work took effect.
        Partial => "partial",
        /// Whether anything took effect cannot be known.
        Unknown => "unknown",
    }
}

wire_enum! {
    /// The document's readiness after the invocation.
    Readiness {
        /// The call concerns no document.
        NotApplicable => "not_applicable",
        /// `document.readyState` is `loading`.
        Loading => "loading",
        /// `document.readyState` is `interactive`.
        Interactive => "interactive",
        /// `document.readyState` is `complete`.
        Complete => "complete",
        /// Readiness could not be observed.
        Unknown => "unknown",
    }
}

/// The one envelope every invocation returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// Opaque correlation handle (`inv_…`).
    pub invocation: String,
    /// How the invocation ended.
    pub status: Status,
    /// What it did.
    pub effect: Effect,
    /// Document readiness afterwards.
    pub readiness: Readiness,
    /// Whether repeating the same call is known safe.
    pub repeat_safe: bool,
    /// Ghostlight-authored explanation.
    pub summary: String,
    /// Tool-specific canonical facts.
    pub facts: Map<String, Value>,
    /// Zero to two Ghostlight-authored safe suggestions.
    pub next_steps: Vec<String>,
}
