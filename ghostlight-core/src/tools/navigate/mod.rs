//! `browser_navigate`: navigate to a governed URL.

pub(crate) mod op;

use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, ObjectReader};
use crate::facts::tool_facts;
use crate::handles::Handle;
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::common::{TAB, TIMEOUT_MS, read_timeout};
use crate::vocab::WireChoice;
use crate::vocab::wire_choice;

wire_choice! {
    /// Whether an unambiguous-tab-less navigation may adopt an existing same-host tab.
    pub enum Reuse {
        /// Adopt an unbound same-host tab (exact URL preferred).
        Domain => "domain",
        /// Always open a strictly fresh tab.
        Never => "never",
    }
}

wire_choice! {
    /// How to treat the page's own unsaved-change (`beforeunload`) prompt.
    pub enum BeforeUnload {
        /// Accept just this navigation's own unsaved-change prompt.
        Discard => "discard",
    }
}

const URL: Field = Field::required("url", FieldType::Url, "Absolute http(s) URL.");
const NEW_TAB: Field =
    Field::optional("new_tab", FieldType::Bool { default: Some(false) }, "Open in a new tab.");
const REUSE: Field = Field::optional(
    "reuse",
    FieldType::Choice { values: Reuse::NAMES, default: Some("domain") },
    "Without tab: adopt a same-host tab, or never.",
);
const BEFOREUNLOAD: Field = Field::optional(
    "beforeunload",
    FieldType::Choice { values: BeforeUnload::NAMES, default: None },
    "discard: accept this page's unsaved-change prompt.",
);

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    URL: Str("url", "Governed URL."),
    TITLE: Str("title", "Bounded title."),
    CREATED: Bool("created", "A new tab was opened."),
    REUSED: Bool("reused", "An existing same-host tab was adopted."),
    DOCUMENT_GENERATION: Int("document_generation", "Document generation."),
    HTTP_STATUS: Int("http_status", "HTTP status of the page, when known."),
    NETWORK_ERROR: Str = crate::facts::detail::NETWORK_ERROR,
    BROWSER_CODE: Str = crate::facts::detail::BROWSER_CODE,
    REOPENED: Bool("reopened", "The closed tab was reopened under its handle."),
    DIALOG_TYPE: Str("dialog_type", "The prompt blocking the move (beforeunload)."),
    OUTSIDE_AUTHORITY: Bool("outside_authority", "The page reached is outside authority."),
    GATE: Json = crate::tools::common::GATE,
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Navigate,
    description: "Open a URL in a controlled tab.",
    fields: &[URL, TAB, NEW_TAB, REUSE, BEFOREUNLOAD, TIMEOUT_MS],
    example: r#"{"url":"https://example.com"}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: false, idempotent: false, open_world: true },
};

/// Where the navigation happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// Navigate this exact controlled tab.
    Tab(Handle),
    /// Create and navigate a new controlled tab.
    NewTab,
    /// The unambiguous controlled tab; when none exists, open one according to `reuse`.
    Default {
        /// Whether an unbound same-host tab may be adopted.
        reuse: Reuse,
    },
}

/// A decoded `browser_navigate` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NavigateRequest {
    /// The destination URL (absolute `http`/`https`).
    pub url: url::Url,
    /// Which tab navigates.
    pub destination: Destination,
    /// `Some(Discard)` accepts this navigation's own unsaved-change prompt; otherwise a
    /// blocking prompt stops the navigation and is reported.
    pub beforeunload: Option<BeforeUnload>,
    /// Timeout in milliseconds.
    pub timeout_ms: u64,
}

impl Tool for NavigateRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;

    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError> {
        decode(reader)
    }

    /// `read`.
    fn capabilities(&self) -> CapabilitySet {
        CapabilitySet::of(&[Capability::Read])
    }

    /// The explicitly named tab.
    fn tab(&self) -> Option<&Handle> {
        match &self.destination {
            Destination::Tab(tab) => Some(tab),
            _ => None,
        }
    }

    /// Not tab-bound: governed by its destination instead, which is how a tab gets back
    /// inside authority.
    fn tab_bound(&self) -> bool {
        false
    }

    fn destination_url(&self) -> Option<&url::Url> {
        Some(&self.url)
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<NavigateRequest, DecodeError> {
    let url = reader.url(&URL)?;
    let tab = reader.handle(&TAB)?;
    let new_tab = reader.bool_or_default(&NEW_TAB)?;
    let reuse = reader.choice::<Reuse>(&REUSE)?;
    let beforeunload = reader.choice::<BeforeUnload>(&BEFOREUNLOAD)?;
    let timeout_ms = read_timeout(reader)?;
    let url = url.ok_or_else(|| reader.missing(&URL))?;
    let destination = match (tab, new_tab) {
        (Some(_), true) => return Err(reader.conflict(&TAB, &NEW_TAB)),
        (_, true) if reuse.is_some() => return Err(reader.conflict(&REUSE, &NEW_TAB)),
        (None, true) => Destination::NewTab,
        (Some(tab), false) => Destination::Tab(tab),
        (None, false) => Destination::Default { reuse: reuse.unwrap_or(Reuse::Domain) },
    };
    Ok(NavigateRequest { url, destination, beforeunload, timeout_ms })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::json;

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::limits;
    use crate::tools::testing::{accept, int_edges, refuse};

    const T: ToolName = ToolName::Navigate;

    fn decoded(arguments: serde_json::Value) -> NavigateRequest {
        match accept(T, arguments) {
            Request::Navigate(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    #[test]
    fn branches() {
        let request = decoded(json!({"url": "https://example.com"}));
        assert_eq!(request.destination, Destination::Default { reuse: Reuse::Domain });
        assert_eq!(request.timeout_ms, 8_000);
        assert_eq!(request.beforeunload, None);
        assert_eq!(
            decoded(json!({"url": "http://a.test/", "new_tab": true})).destination,
            Destination::NewTab
        );
        assert!(matches!(
            decoded(json!({"url": "http://a.test/", "tab": "tab_1", "new_tab": false})).destination,
            Destination::Tab(_)
        ));
        assert_eq!(
            decoded(json!({"url": "http://a.test/", "reuse": "never"})).destination,
            Destination::Default { reuse: Reuse::Never }
        );
        // reuse is refused only together with new_tab: true.
        assert_eq!(
            decoded(json!({"url": "http://a.test/", "reuse": "never", "new_tab": false})).destination,
            Destination::Default { reuse: Reuse::Never }
        );
        assert_eq!(
            decoded(json!({"url": "http://a.test/", "beforeunload": "discard"})).beforeunload,
            Some(BeforeUnload::Discard)
        );
    }

    #[test]
    fn refusals() {
        refuse(T, json!({}), "/url", K::MissingField);
        refuse(T, json!({"url": "/relative"}), "/url", K::InvalidUrl);
        refuse(T, json!({"url": "file:///etc/passwd"}), "/url", K::InvalidUrl);
        refuse(T, json!({"url": "javascript:alert(1)"}), "/url", K::InvalidUrl);
        refuse(T, json!({"url": "https://"}), "/url", K::InvalidUrl);
        refuse(T, json!({"url": "http://[::1]:0/"}), "/url", K::InvalidUrl);
        refuse(T, json!({"url": "http://local.0*/"}), "/url", K::InvalidUrl);
        refuse(T, json!({"url": "http://a..b/"}), "/url", K::InvalidUrl);
        refuse(T, json!({"url": 5}), "/url", K::WrongType);
        let long = format!("https://example.com/{}", "a".repeat(limits::URL_CHARS.max));
        refuse(T, json!({"url": long}), "/url", K::Length);
        refuse(T, json!({"url": "https://a.test", "tab": "tab_1", "new_tab": true}), "/tab", K::Conflict);
        refuse(
            T,
            json!({"url": "https://a.test", "reuse": "domain", "new_tab": true}),
            "/reuse",
            K::Conflict,
        );
        refuse(T, json!({"url": "https://a.test", "reuse": "always"}), "/reuse", K::NotAllowed);
        refuse(T, json!({"url": "https://a.test", "beforeunload": "accept"}), "/beforeunload", K::NotAllowed);
        refuse(T, json!({"url": "https://a.test", "tab": "target_1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"url": "https://a.test", "new_tab": "yes"}), "/new_tab", K::WrongType);
        refuse(T, json!({"url": "https://a.test", "urll": 1}), "/urll", K::UnknownField);
    }

    #[test]
    fn timeout_edges() {
        int_edges(T, json!({"url": "https://example.com"}), "timeout_ms", limits::TIMEOUT_MS);
    }
}
