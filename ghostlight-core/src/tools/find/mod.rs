//! `browser_find`: find current semantic targets by visible or accessible text.

pub(crate) mod op;

use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, DecodeErrorKind, ObjectReader};
use crate::facts::tool_facts;
use crate::facts::{Fact, FactType};
use crate::handles::Handle;
use crate::limits;
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::common::TAB;
use crate::vocab::WireChoice;
use crate::vocab::wire_choice;

wire_choice! {
    /// What kind of element `browser_find` matches.
    pub enum FindScope {
        /// Controls and text.
        Any => "any",
        /// Semantic controls only.
        Control => "control",
        /// Text only.
        Text => "text",
    }
}

const TEXT: Field =
    Field::required("text", FieldType::Text(limits::FIND_TEXT_CHARS), "Visible or accessible text.");
const SCOPE: Field = Field::optional(
    "scope",
    FieldType::Choice { values: FindScope::NAMES, default: Some("any") },
    "Kind of match.",
);
const MAX_RESULTS: Field =
    Field::optional("max_results", FieldType::Integer(limits::FIND_MAX_RESULTS), "Most matches returned.");

const MATCH_MEMBERS: [Fact; 5] = [
    Fact::new("target", FactType::String, "Fresh target handle."),
    Fact::new("role", FactType::String, "Closed semantic role."),
    Fact::new("name", FactType::String, "Bounded accessible name (\"\" when none)."),
    Fact::new("state", FactType::StringArray, "States such as checked or disabled."),
    Fact::new("credential", FactType::Boolean, "true for a credential-class control."),
];

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    DOCUMENT_GENERATION: Int("document_generation", "Document generation."),
    COLUMNS: Strs("columns", "What each match row holds, in order."),
    MATCHES: Json(
        "matches",
        FactType::Rows { columns: &super::MATCH_MEMBERS, always: crate::tools::inspect::op::ROW_LEADING_COLUMNS },
        "Ranked matches as rows, best first."
    ),
    COUNT: Int("count", "Matches returned."),
    TRUNCATED: Bool("truncated", "More matches exist than returned."),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Find,
    description: "Find targets by visible or accessible text; prefer it when the label is known.",
    fields: &[TEXT, TAB, SCOPE, MAX_RESULTS],
    example: r#"{"text":"Submit"}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: true, destructive: false, idempotent: true, open_world: true },
};

/// A decoded `browser_find` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindRequest {
    /// The explicitly named tab; `None` selects the default tab.
    pub tab: Option<Handle>,
    /// The text to find (contains visible characters).
    pub text: String,
    /// What kind of element to match.
    pub scope: FindScope,
    /// Most matches returned.
    pub max_results: u64,
}

impl Tool for FindRequest {
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
        self.tab.as_ref()
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<FindRequest, DecodeError> {
    let text = reader.text(&TEXT)?;
    let tab = reader.handle(&TAB)?;
    let scope = reader.choice_or_default::<FindScope>(&SCOPE)?;
    let max_results = reader.int_or_default(&MAX_RESULTS)?;
    let text = text.ok_or_else(|| reader.missing(&TEXT))?;
    if text.trim().is_empty() {
        return Err(reader.invalid(&TEXT, DecodeErrorKind::InvalidValue, "must contain visible characters"));
    }
    Ok(FindRequest { tab, text, scope, max_results })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::{Value, json};

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::handles::HandleKind;
    use crate::tools::testing::{accept, int_edges, refuse, text_edges};

    const T: ToolName = ToolName::Find;

    /// Decode, check every declared field was read, and return the typed request.
    fn decoded(arguments: Value) -> FindRequest {
        let request = accept(T, arguments);
        match request {
            Request::Find(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    #[test]
    fn accepted() {
        let submit = decoded(DECLARATION.example());
        assert_eq!(
            submit,
            FindRequest { tab: None, text: "Submit".into(), scope: FindScope::Any, max_results: 20 }
        );
        assert_eq!(submit.capabilities(), CapabilitySet::of(&[Capability::Read]));
        assert_eq!(decoded(json!({"text": "Save", "scope": "control"})).scope, FindScope::Control);
        assert_eq!(decoded(json!({"text": "Save", "scope": "text"})).scope, FindScope::Text);
        assert_eq!(decoded(json!({"text": "Save", "scope": "any"})).scope, FindScope::Any);
        let tabbed = decoded(json!({"text": " Save ", "tab": "tab_5", "max_results": 3}));
        // Text is kept as given; matching normalizes it.
        assert_eq!(tabbed.text, " Save ");
        assert_eq!(tabbed.max_results, 3);
        assert_eq!(tabbed.tab().map(Handle::kind), Some(HandleKind::Tab));
    }

    #[test]
    fn refusals() {
        refuse(T, json!({}), "/text", K::MissingField);
        refuse(T, json!({"scope": "control"}), "/text", K::MissingField);
        refuse(T, json!({"text": ""}), "/text", K::Length);
        for blank in [" ", "\t\n", "\u{3000}"] {
            let error = refuse(T, json!({"text": blank}), "/text", K::InvalidValue);
            assert_eq!(error.message(), "/text must contain visible characters");
        }
        refuse(T, json!({"text": ["Save"]}), "/text", K::WrongType);
        refuse(T, json!({"text": "Save", "scope": "controls"}), "/scope", K::NotAllowed);
        refuse(T, json!({"text": "Save", "tab": "target_1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"text": "Save", "timeout_ms": 1000}), "/timeout_ms", K::UnknownField);
        refuse(T, json!({"text": "Save", "exact": true}), "/exact", K::UnknownField);
    }

    #[test]
    fn bound_edges() {
        text_edges(T, json!({}), "text", limits::FIND_TEXT_CHARS);
        int_edges(T, json!({"text": "Save"}), "max_results", limits::FIND_MAX_RESULTS);
    }
}
