//! Opaque handle kinds and their wire syntax.
//!
//! A handle is a kind prefix followed by an opaque token: `tab_…`, `target_…`, `view_…`,
//! `snap_…`, `rec_…`, `inv_…`. The decoder checks the syntax and the kind; whether a handle is
//! live is the executor's business. A handle of the wrong kind is refused naming both kinds.

use std::fmt;

use crate::limits::HANDLE_TOKEN_CHARS;

/// The kinds of opaque handle Ghostlight issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HandleKind {
    /// A durable tab correlation slot.
    Tab,
    /// A perceived target bound to one tab and document generation.
    Target,
    /// A captured view: rendered coordinates bound to tab, generation and geometry.
    View,
    /// A `browser_inspect` document snapshot.
    Snapshot,
    /// A `browser_record` recording.
    Recording,
    /// An invocation's correlation handle.
    Invocation,
}

impl HandleKind {
    /// Every kind, in a fixed order.
    pub const ALL: [HandleKind; 6] = [
        HandleKind::Tab,
        HandleKind::Target,
        HandleKind::View,
        HandleKind::Snapshot,
        HandleKind::Recording,
        HandleKind::Invocation,
    ];

    /// The wire prefix, underscore included.
    pub const fn prefix(self) -> &'static str {
        match self {
            HandleKind::Tab => "tab_",
            HandleKind::Target => "target_",
            HandleKind::View => "view_",
            HandleKind::Snapshot => "snap_",
            HandleKind::Recording => "rec_",
            HandleKind::Invocation => "inv_",
        }
    }

    /// The noun used in messages: "tab handle", "target handle", …
    pub const fn noun(self) -> &'static str {
        match self {
            HandleKind::Tab => "tab handle",
            HandleKind::Target => "target handle",
            HandleKind::View => "view handle",
            HandleKind::Snapshot => "snapshot handle",
            HandleKind::Recording => "recording handle",
            HandleKind::Invocation => "invocation handle",
        }
    }

    /// The kind whose prefix starts `text`, if any.
    pub fn of(text: &str) -> Option<HandleKind> {
        Self::ALL.into_iter().find(|kind| text.starts_with(kind.prefix()))
    }
}

/// Why a string is not a handle of the expected kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandleSyntaxError {
    /// The string is a well-formed handle of another kind.
    WrongKind(HandleKind),
    /// The string is not a handle at all.
    Malformed,
}

/// A syntactically valid handle of a known kind. Liveness is checked by the executor.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Handle {
    kind: HandleKind,
    text: String,
}

impl Handle {
    /// Parse `text` as a handle of `expected` kind.
    pub fn parse(text: &str, expected: HandleKind) -> Result<Handle, HandleSyntaxError> {
        let kind = HandleKind::of(text).ok_or(HandleSyntaxError::Malformed)?;
        let token = &text[kind.prefix().len()..];
        let well_formed =
            HANDLE_TOKEN_CHARS.contains(token.len()) && token.bytes().all(|b| b.is_ascii_alphanumeric());
        if !well_formed {
            return Err(HandleSyntaxError::Malformed);
        }
        if kind != expected {
            return Err(HandleSyntaxError::WrongKind(kind));
        }
        Ok(Handle { kind, text: text.to_owned() })
    }

    /// A handle from its parts; used by the executor when it mints handles.
    pub fn from_token(kind: HandleKind, token: &str) -> Handle {
        Handle { kind, text: format!("{}{token}", kind.prefix()) }
    }

    /// The handle's kind.
    pub fn kind(&self) -> HandleKind {
        self.kind
    }

    /// The full wire form, prefix included.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_kind_and_refuses_the_others() {
        for kind in HandleKind::ALL {
            let text = format!("{}a1B2", kind.prefix());
            assert_eq!(Handle::parse(&text, kind).map(|h| h.kind()), Ok(kind));
            for other in HandleKind::ALL.into_iter().filter(|k| *k != kind) {
                assert_eq!(Handle::parse(&text, other), Err(HandleSyntaxError::WrongKind(kind)));
            }
        }
    }

    #[test]
    fn refuses_malformed_tokens() {
        for text in ["", "tab_", "tab", "target_a-b", "view_é", "snapx_1", "TAB_1"] {
            assert_eq!(
                Handle::parse(text, HandleKind::Tab).map(|h| h.kind()),
                Err(HandleSyntaxError::Malformed),
                "{text}"
            );
        }
        let long = format!("tab_{}", "a".repeat(HANDLE_TOKEN_CHARS.max + 1));
        assert_eq!(Handle::parse(&long, HandleKind::Tab), Err(HandleSyntaxError::Malformed));
    }
}
