//! What an [`ElementRef`] of this connector carries: a compact JSON array
//! `[tab, frame, "document", id]` — the browser's tab id, the extension's frame id (0 for the
//! top document; it reaches frames of every origin), the page API's nonce of the element's
//! document, and the element's id in that document's registry (kept in the extension's
//! isolated world, out of the page's reach).
//!
//! Tokens come back from core unchanged, but they are parsed defensively all the same: a
//! malformed token answers [`PortErrorKind::InvalidInput`], never a panic. A token of a
//! document that has gone answers [`PortErrorKind::TargetStale`] when used.

use ghostlight_core::port::{ElementRef, PortError, PortErrorKind, PortResult};
use serde_json::{Value, json};

/// A decoded [`ElementRef`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Element {
    /// The browser's tab id.
    pub(crate) tab: i64,
    /// The extension's frame id of the element's document.
    pub(crate) frame: i64,
    /// The page API's nonce of the element's document.
    pub(crate) doc: String,
    /// The element's id in that document's registry.
    pub(crate) id: u64,
}

impl Element {
    /// Encode as an [`ElementRef`].
    pub(crate) fn to_ref(&self) -> ElementRef {
        ElementRef::new(json!([self.tab, self.frame, self.doc, self.id]).to_string())
    }

    /// Decode an [`ElementRef`] of tab `tab` (one of another tab is refused).
    pub(crate) fn parse(element: &ElementRef, tab: i64) -> PortResult<Element> {
        let bad = || PortError::new(PortErrorKind::InvalidInput, "the element reference is malformed");
        let (in_tab, frame, doc, id): (i64, i64, String, u64) =
            serde_json::from_str(element.as_str()).map_err(|_| bad())?;
        if frame < 0 || doc.is_empty() || id == 0 {
            return Err(bad());
        }
        if in_tab != tab {
            return Err(PortError::new(PortErrorKind::InvalidInput, "the element belongs to another tab"));
        }
        Ok(Element { tab, frame, doc, id })
    }

    /// The reference as the page API takes it (`{doc, id}`).
    pub(crate) fn page_ref(&self) -> Value {
        json!({ "doc": self.doc, "id": self.id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn elements_round_trip_and_keep_their_tab() {
        let element = Element { tab: 7, frame: 12, doc: "a-b".into(), id: 3 };
        assert_eq!(Element::parse(&element.to_ref(), 7), Ok(element.clone()));
        let other = Element::parse(&element.to_ref(), 8).expect_err("another tab");
        assert_eq!(other.kind(), PortErrorKind::InvalidInput);
        assert_eq!(element.page_ref(), json!({"doc": "a-b", "id": 3}));
    }

    #[test]
    fn malformed_tokens_are_invalid_input() {
        for token in ["", "[]", "[1,0,\"d\"]", "[1,-1,\"d\",1]", "[1,0,\"\",1]", "[1,0,\"d\",0]", "{}", "x"] {
            let error = Element::parse(&ElementRef::new(token), 1).expect_err(token);
            assert_eq!(error.kind(), PortErrorKind::InvalidInput, "{token}");
        }
    }

    proptest! {
        #[test]
        fn arbitrary_tokens_never_panic(token in ".{0,64}") {
            let _ = Element::parse(&ElementRef::new(token), 1);
        }
    }
}
