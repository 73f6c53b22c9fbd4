//! `browser_dialog`: inspect or resolve the current JavaScript dialog.

pub(crate) mod op;

use std::fmt;

use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, ObjectReader};
use crate::facts::tool_facts;
use crate::handles::Handle;
use crate::limits::DIALOG_TEXT_CHARS;
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::common::TAB;
use crate::vocab::WireChoice;
use crate::vocab::wire_choice;

wire_choice! {
    /// What to do with the current dialog, as named on the wire.
    pub enum Action {
        /// Report whether a dialog is blocking.
        Status => "status",
        /// Accept the dialog.
        Accept => "accept",
        /// Dismiss the dialog.
        Dismiss => "dismiss",
        /// Answer a prompt with text.
        Respond => "respond",
    }
}

const ACTION: Field = Field::required(
    "action",
    FieldType::Choice { values: Action::NAMES, default: None },
    "What to do with the dialog.",
);
const TEXT: Field =
    Field::optional("text", FieldType::Text(DIALOG_TEXT_CHARS), "Prompt answer (respond only).").sensitive();

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    DIALOG_TYPE: NullableStr("dialog_type", "alert, confirm, prompt or beforeunload."),
    PRESENT: Bool("present", "A dialog is blocking the tab."),
    ACCEPTED: Bool("accepted", "The dialog was accepted."),
    HANDLED: Bool("handled", "The dialog was resolved."),
    LANDING: Json = crate::tools::common::LANDING,
    OPENED_TABS: Json = crate::tools::common::OPENED_TABS,
    CLOSED_TABS: Int = crate::tools::common::CLOSED_TABS,
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Dialog,
    description: "Report, accept, dismiss or answer the JavaScript dialog blocking a tab.",
    fields: &[ACTION, TEXT, TAB],
    example: r#"{"action":"status"}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
};

/// One decoded dialog action with exactly the inputs its branch takes.
#[derive(Clone, PartialEq, Eq)]
pub enum DialogAction {
    /// Report whether a dialog is blocking.
    Status,
    /// Accept the dialog.
    Accept,
    /// Dismiss the dialog.
    Dismiss,
    /// Answer a prompt with this text (possibly empty). Never audited or echoed.
    Respond {
        /// The prompt answer.
        text: String,
    },
}

impl DialogAction {
    /// The wire name of the action.
    pub fn action(&self) -> Action {
        match self {
            DialogAction::Status => Action::Status,
            DialogAction::Accept => Action::Accept,
            DialogAction::Dismiss => Action::Dismiss,
            DialogAction::Respond { .. } => Action::Respond,
        }
    }
}

/// Debug output never shows the respond text, only its length.
impl fmt::Debug for DialogAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DialogAction::Respond { text } => {
                f.debug_struct("Respond").field("text_chars", &text.chars().count()).finish()
            }
            other => f.write_str(other.action().as_str()),
        }
    }
}

/// A decoded `browser_dialog` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogRequest {
    /// What to do.
    pub action: DialogAction,
    /// The explicitly named tab, if any.
    pub tab: Option<Handle>,
}

impl Tool for DialogRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;
    const MAY_OPEN_TABS: bool = true;

    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError> {
        decode(reader)
    }

    /// `read` for status; `action` for accept, dismiss and respond.
    fn capabilities(&self) -> CapabilitySet {
        match self.action {
            DialogAction::Status => CapabilitySet::of(&[Capability::Read]),
            _ => CapabilitySet::of(&[Capability::Action]),
        }
    }

    /// The explicitly named tab.
    fn tab(&self) -> Option<&Handle> {
        self.tab.as_ref()
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<DialogRequest, DecodeError> {
    let action = reader.choice::<Action>(&ACTION)?;
    let text = reader.text(&TEXT)?;
    let tab = reader.handle(&TAB)?;
    let action = action.ok_or_else(|| reader.missing(&ACTION))?;
    let action = match (action, text) {
        (Action::Respond, Some(text)) => DialogAction::Respond { text },
        (Action::Respond, None) => return Err(reader.missing(&TEXT)),
        (_, Some(_)) => return Err(reader.not_here(&TEXT, "is valid only for respond")),
        (Action::Status, None) => DialogAction::Status,
        (Action::Accept, None) => DialogAction::Accept,
        (Action::Dismiss, None) => DialogAction::Dismiss,
    };
    Ok(DialogRequest { action, tab })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::json;

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::tools::testing::{accept, refuse, text_edges};

    const T: ToolName = ToolName::Dialog;

    fn decoded(arguments: serde_json::Value) -> DialogRequest {
        match accept(T, arguments) {
            Request::Dialog(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    #[test]
    fn branches_and_capabilities() {
        let read = CapabilitySet::of(&[Capability::Read]);
        let action = CapabilitySet::of(&[Capability::Action]);
        let request = decoded(json!({"action": "status"}));
        assert_eq!(request.action, DialogAction::Status);
        assert_eq!(request.tab(), None);
        assert_eq!(request.capabilities(), read);
        let request = decoded(json!({"action": "accept", "tab": "tab_1"}));
        assert_eq!(request.action, DialogAction::Accept);
        assert_eq!(request.tab().map(Handle::as_str), Some("tab_1"));
        assert_eq!(request.capabilities(), action);
        let request = decoded(json!({"action": "dismiss"}));
        assert_eq!(request.action, DialogAction::Dismiss);
        assert_eq!(request.capabilities(), action);
        let request = decoded(json!({"action": "respond", "text": "Ada"}));
        assert_eq!(request.action, DialogAction::Respond { text: "Ada".into() });
        assert_eq!(request.action.action(), Action::Respond);
        assert_eq!(request.capabilities(), action);
        // Empty text is a valid prompt answer.
        assert_eq!(
            decoded(json!({"action": "respond", "text": ""})).action,
            DialogAction::Respond { text: String::new() }
        );
        // Debug never shows the text.
        let shown = format!("{:?}", decoded(json!({"action": "respond", "text": "hunter2"})));
        assert!(!shown.contains("hunter2"), "{shown}");
    }

    #[test]
    fn refusals() {
        refuse(T, json!({}), "/action", K::MissingField);
        refuse(T, json!({"action": "close"}), "/action", K::NotAllowed);
        refuse(T, json!({"action": true}), "/action", K::WrongType);
        let error = refuse(T, json!({"action": "respond"}), "/text", K::MissingField);
        assert_eq!(error.message(), "/text is required");
        for action in ["status", "accept", "dismiss"] {
            let error = refuse(T, json!({"action": action, "text": "secret"}), "/text", K::Conflict);
            assert_eq!(error.message(), "/text is valid only for respond");
            refuse(T, json!({"action": action, "text": ""}), "/text", K::Conflict);
        }
        // The text is never echoed, even when its type is wrong.
        let error = refuse(T, json!({"action": "respond", "text": 12345}), "/text", K::WrongType);
        assert!(!error.message().contains("12345"), "{}", error.message());
        refuse(T, json!({"action": "status", "tab": "rec_1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"action": "status", "timeout_ms": 1000}), "/timeout_ms", K::UnknownField);
    }

    #[test]
    fn text_length_edges() {
        text_edges(T, json!({"action": "respond"}), "text", DIALOG_TEXT_CHARS);
    }

    #[test]
    fn every_declared_field_is_read() {
        accept(T, json!({"action": "status"}));
    }
}
