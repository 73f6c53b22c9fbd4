//! The adapter's opaque tokens: what a [`TabRef`] and an [`ElementRef`] carry.
//!
//! - A [`TabRef`] is `"<session>:<window handle>"`. The session number grows each time the
//!   adapter starts a new WebDriver session (after the browser died), so a tab of an earlier
//!   session answers [`PortErrorKind::TabGone`] even where the new browser reuses handle
//!   strings (Firefox numbers its windows the same way in every process).
//! - An [`ElementRef`] is a compact JSON array `[session, "handle", ["frame", …], "element"]`:
//!   the window, the path of iframe element ids from the top document down to the element's
//!   document (empty for the top document), and the WebDriver element id. Element ids are only
//!   valid in their own frame, so acting on one means switching into the frames first.
//!
//! Tokens come back from core unchanged, but they are parsed defensively all the same: a
//! malformed token answers [`PortErrorKind::InvalidInput`], never a panic.

use ghostlight_core::port::{ElementRef, PortError, PortErrorKind, PortResult, TabRef};

/// A decoded [`TabRef`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tab {
    /// The session the handle belongs to.
    pub(crate) session: u64,
    /// The WebDriver window handle (equal to the BiDi browsing context id).
    pub(crate) handle: String,
}

impl Tab {
    /// Encode as a [`TabRef`].
    pub(crate) fn to_ref(&self) -> TabRef {
        TabRef::new(format!("{}:{}", self.session, self.handle))
    }

    /// Decode a [`TabRef`].
    pub(crate) fn parse(tab: &TabRef) -> PortResult<Tab> {
        let (session, handle) =
            tab.as_str().split_once(':').ok_or_else(|| malformed("the tab reference is malformed"))?;
        let session = session.parse().map_err(|_| malformed("the tab reference is malformed"))?;
        if handle.is_empty() {
            return Err(malformed("the tab reference is malformed"));
        }
        Ok(Tab { session, handle: handle.to_owned() })
    }
}

/// A decoded [`ElementRef`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Element {
    /// The tab holding the element.
    pub(crate) tab: Tab,
    /// Iframe element ids from the top document down to the element's document.
    pub(crate) frames: Vec<String>,
    /// The WebDriver element id, valid in the innermost frame.
    pub(crate) id: String,
}

impl Element {
    /// Encode as an [`ElementRef`].
    pub(crate) fn to_ref(&self) -> ElementRef {
        let token = serde_json::json!([self.tab.session, self.tab.handle, self.frames, self.id]);
        ElementRef::new(token.to_string())
    }

    /// Decode an [`ElementRef`].
    pub(crate) fn parse(element: &ElementRef) -> PortResult<Element> {
        let bad = || malformed("the element reference is malformed");
        let (session, handle, frames, id): (u64, String, Vec<String>, String) =
            serde_json::from_str(element.as_str()).map_err(|_| bad())?;
        if handle.is_empty() || id.is_empty() || frames.iter().any(String::is_empty) {
            return Err(bad());
        }
        Ok(Element { tab: Tab { session, handle }, frames, id })
    }
}

fn malformed(message: &'static str) -> PortError {
    PortError::new(PortErrorKind::InvalidInput, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_round_trips_and_keeps_colons_in_handles() {
        let tab = Tab { session: 3, handle: "a:b".into() };
        assert_eq!(Tab::parse(&tab.to_ref()), Ok(tab));
    }

    #[test]
    fn element_round_trips() {
        let element = Element {
            tab: Tab { session: 1, handle: "CDwindow-1".into() },
            frames: vec!["f.1.d.2.e.3".into()],
            id: "f.1.d.4.e.5".into(),
        };
        assert_eq!(Element::parse(&element.to_ref()), Ok(element));
    }

    #[test]
    fn malformed_tokens_are_invalid_input() {
        for token in ["", "x", ":h", "1:", "-1:h", "99999999999999999999999:h"] {
            let error = Tab::parse(&TabRef::new(token)).expect_err(token);
            assert_eq!(error.kind(), PortErrorKind::InvalidInput, "{token}");
        }
        for token in
            ["", "[]", "[1,\"h\",[],\"\"]", "[1,\"h\",[\"\"],\"e\"]", "{\"a\":1}", "[1,\"h\",[],\"e\",5]"]
        {
            let error = Element::parse(&ElementRef::new(token)).expect_err(token);
            assert_eq!(error.kind(), PortErrorKind::InvalidInput, "{token}");
        }
    }
}
