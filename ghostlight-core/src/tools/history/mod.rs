//! `browser_history`: move through history or reload.

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
    /// The `action` of a `browser_history` call, as named on the wire.
    pub enum HistoryActionName {
        /// Go back one history entry.
        Back => "back",
        /// Go forward one history entry.
        Forward => "forward",
        /// Reload the current document.
        Reload => "reload",
    }
}

const ACTION: Field = Field::required(
    "action",
    FieldType::Choice { values: HistoryActionName::NAMES, default: None },
    "History move.",
);
const BYPASS_CACHE: Field =
    Field::optional("bypass_cache", FieldType::Bool { default: Some(false) }, "Reload without cache.");

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    ACTION: Str("action", "The history move made."),
    URL: Str("url", "Governed URL."),
    TITLE: Str("title", "Bounded title."),
    DOCUMENT_GENERATION: Int("document_generation", "Document generation."),
    HTTP_STATUS: Int("http_status", "HTTP status of the page, when known."),
    NETWORK_ERROR: Str = crate::facts::detail::NETWORK_ERROR,
    BROWSER_CODE: Str = crate::facts::detail::BROWSER_CODE,
    DIALOG_TYPE: Str("dialog_type", "The prompt blocking the move (beforeunload)."),
    PRESENT: Bool("present", "A leave-page prompt is open."),
    OUTSIDE_AUTHORITY: Bool("outside_authority", "The page reached is outside authority."),
    GATE: Json = crate::tools::common::GATE,
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::History,
    description: "Go back, go forward, or reload a tab.",
    fields: &[ACTION, TAB, BYPASS_CACHE, TIMEOUT_MS],
    example: r#"{"action":"back"}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: false, idempotent: false, open_world: true },
};

/// One decoded history move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryAction {
    /// Go back one entry.
    Back,
    /// Go forward one entry.
    Forward,
    /// Reload the current document.
    Reload {
        /// Bypass the HTTP cache.
        bypass_cache: bool,
    },
}

impl HistoryAction {
    /// The wire name of the move.
    pub fn name(self) -> HistoryActionName {
        match self {
            HistoryAction::Back => HistoryActionName::Back,
            HistoryAction::Forward => HistoryActionName::Forward,
            HistoryAction::Reload { .. } => HistoryActionName::Reload,
        }
    }
}

/// A decoded `browser_history` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryRequest {
    /// The explicitly named tab; `None` selects the default tab.
    pub tab: Option<Handle>,
    /// The move, with `bypass_cache` only where it applies.
    pub action: HistoryAction,
    /// Timeout in milliseconds.
    pub timeout_ms: u64,
}

impl Tool for HistoryRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;

    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError> {
        decode(reader)
    }

    /// `action`.
    fn capabilities(&self) -> CapabilitySet {
        CapabilitySet::of(&[Capability::Action])
    }

    /// The explicitly named tab.
    fn tab(&self) -> Option<&Handle> {
        self.tab.as_ref()
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<HistoryRequest, DecodeError> {
    let action = reader.choice::<HistoryActionName>(&ACTION)?;
    let tab = reader.handle(&TAB)?;
    let bypass_cache = reader.bool(&BYPASS_CACHE)?;
    let timeout_ms = read_timeout(reader)?;
    let action = action.ok_or_else(|| reader.missing(&ACTION))?;
    let action = match action {
        HistoryActionName::Reload => HistoryAction::Reload { bypass_cache: bypass_cache.unwrap_or(false) },
        // An explicit `false` is the default and changes nothing, so it is accepted.
        _ if bypass_cache == Some(true) => {
            return Err(reader.not_here(&BYPASS_CACHE, "is valid only for reload"));
        }
        HistoryActionName::Back => HistoryAction::Back,
        HistoryActionName::Forward => HistoryAction::Forward,
    };
    Ok(HistoryRequest { tab, action, timeout_ms })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::{Value, json};

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::handles::HandleKind;
    use crate::limits;
    use crate::tools::testing::{accept, int_edges, refuse};

    const T: ToolName = ToolName::History;

    /// Decode, check every declared field was read, and return the typed request.
    fn decoded(arguments: Value) -> HistoryRequest {
        let request = accept(T, arguments);
        match request {
            Request::History(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    #[test]
    fn branches() {
        let back = decoded(json!({"action": "back"}));
        assert_eq!(back, HistoryRequest { tab: None, action: HistoryAction::Back, timeout_ms: 8_000 });
        assert_eq!(back.capabilities(), CapabilitySet::of(&[Capability::Action]));
        assert_eq!(back.action.name().as_str(), "back");
        assert_eq!(decoded(json!({"action": "forward"})).action, HistoryAction::Forward);
        assert_eq!(
            decoded(json!({"action": "reload"})).action,
            HistoryAction::Reload { bypass_cache: false }
        );
        assert_eq!(
            decoded(json!({"action": "reload", "bypass_cache": true})).action,
            HistoryAction::Reload { bypass_cache: true }
        );
        // The explicit default is accepted with every action.
        assert_eq!(
            decoded(json!({"action": "reload", "bypass_cache": false})).action,
            HistoryAction::Reload { bypass_cache: false }
        );
        assert_eq!(decoded(json!({"action": "back", "bypass_cache": false})).action, HistoryAction::Back);
        assert_eq!(
            decoded(json!({"action": "forward", "bypass_cache": false})).action,
            HistoryAction::Forward
        );
        let tabbed = decoded(json!({"action": "reload", "tab": "tab_7", "timeout_ms": 500}));
        assert_eq!(tabbed.tab().map(Handle::as_str), Some("tab_7"));
        assert_eq!(tabbed.tab().map(Handle::kind), Some(HandleKind::Tab));
        assert_eq!(tabbed.timeout_ms, 500);
        assert_eq!(decoded(DECLARATION.example()).action, HistoryAction::Back);
    }

    #[test]
    fn refusals() {
        refuse(T, json!({}), "/action", K::MissingField);
        refuse(T, json!({"bypass_cache": true}), "/action", K::MissingField);
        refuse(T, json!({"action": "refresh"}), "/action", K::NotAllowed);
        refuse(T, json!({"action": null}), "/action", K::WrongType);
        let error = refuse(T, json!({"action": "back", "bypass_cache": true}), "/bypass_cache", K::Conflict);
        assert_eq!(error.message(), "/bypass_cache is valid only for reload");
        refuse(T, json!({"action": "forward", "bypass_cache": true}), "/bypass_cache", K::Conflict);
        refuse(T, json!({"action": "reload", "bypass_cache": "yes"}), "/bypass_cache", K::WrongType);
        refuse(T, json!({"action": "back", "tab": "view_1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"action": "back", "steps": 2}), "/steps", K::UnknownField);
    }

    #[test]
    fn timeout_edges() {
        int_edges(T, json!({"action": "reload"}), "timeout_ms", limits::TIMEOUT_MS);
    }
}
