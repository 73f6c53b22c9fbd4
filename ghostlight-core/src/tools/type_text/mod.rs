//! `browser_type_text`: type ordinary text through browser input events.

pub(crate) mod op;

use std::fmt;

use crate::authority::Constraint;
use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, DecodeErrorKind, ObjectReader};
use crate::facts::tool_facts;
use crate::handles::Handle;
use crate::limits;
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::common::{SELECTOR, TAB, TARGET, TIMEOUT_MS, TargetRef, read_target, read_timeout};

const FOCUSED: Field =
    Field::optional("focused", FieldType::Bool { default: Some(false) }, "Type into the focused control.");
const TEXT: Field =
    Field::required("text", FieldType::Text(limits::TYPE_TEXT_CHARS), "Text to type.").sensitive();
const CLEAR_FIRST: Field =
    Field::optional("clear_first", FieldType::Bool { default: Some(false) }, "Clear the control first.");

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    TARGET: Str("target", "Target typed into."),
    TYPED: Bool("typed", "The text was typed."),
    CHARACTER_COUNT: Int("character_count", "Characters typed (Unicode scalar values)."),
    LANDING: Json = crate::tools::common::LANDING,
    OPENED_TABS: Json = crate::tools::common::OPENED_TABS,
    CLOSED_TABS: Int = crate::tools::common::CLOSED_TABS,
    CLEARED: Bool("cleared", "The field was cleared first."),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::TypeText,
    description: "Type text with key events into a control. Use fill_form to just set values.",
    fields: &[TARGET, SELECTOR, FOCUSED, TEXT, CLEAR_FIRST, TAB, TIMEOUT_MS],
    example: r#"{"target":"target_1","text":"Ada"}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
};

/// Where the text goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeInto {
    /// A target handle or typed selector (focused first).
    Target(TargetRef),
    /// Whatever editable control currently has focus (`focused: true`).
    Focused,
}

/// A decoded `browser_type_text` call.
///
/// `Debug` never shows the text: typed text may be a secret.
#[derive(Clone, PartialEq, Eq)]
pub struct TypeTextRequest {
    /// Where the text goes.
    pub into: TypeInto,
    /// The text; empty only when `clear_first` is set (an explicit clear).
    pub text: String,
    /// Clear the control's current value before typing.
    pub clear_first: bool,
    /// The explicitly named tab, if any.
    pub tab: Option<Handle>,
    /// Timeout in milliseconds.
    pub timeout_ms: u64,
}

impl fmt::Debug for TypeTextRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypeTextRequest")
            .field("into", &self.into)
            .field("text", &format_args!("<text of {} characters>", self.text.chars().count()))
            .field("clear_first", &self.clear_first)
            .field("tab", &self.tab)
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

impl Tool for TypeTextRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;
    const MAY_OPEN_TABS: bool = true;

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

    /// Credential-class targets stop the call before any value is dispatched.
    fn constraints(&self) -> &'static [Constraint] {
        &[Constraint::CredentialPreflight]
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<TypeTextRequest, DecodeError> {
    let target = read_target(reader, &TARGET, &SELECTOR)?;
    let focused = reader.bool_or_default(&FOCUSED)?;
    let text = reader.text(&TEXT)?;
    let clear_first = reader.bool_or_default(&CLEAR_FIRST)?;
    let tab = reader.handle(&TAB)?;
    let timeout_ms = read_timeout(reader)?;
    let into = match (target, focused) {
        (Some(TargetRef::Handle(_)), true) => return Err(reader.conflict(&FOCUSED, &TARGET)),
        (Some(TargetRef::Selector(_)), true) => return Err(reader.conflict(&FOCUSED, &SELECTOR)),
        (Some(target), false) => TypeInto::Target(target),
        (None, true) => TypeInto::Focused,
        (None, false) => return Err(reader.missing_one_of(&[&TARGET, &SELECTOR, &FOCUSED])),
    };
    let text = text.ok_or_else(|| reader.missing(&TEXT))?;
    if text.is_empty() && !clear_first {
        return Err(reader.invalid(
            &TEXT,
            DecodeErrorKind::Length,
            "must not be empty unless clear_first is true (an explicit clear)",
        ));
    }
    Ok(TypeTextRequest { into, text, clear_first, tab, timeout_ms })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::{Value, json};

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::handles::HandleKind;
    use crate::selector::{Role, Selector};
    use crate::tools::testing::{accept, handle, int_edges, refuse, text_edges, with};

    const T: ToolName = ToolName::TypeText;

    fn decoded(arguments: Value) -> TypeTextRequest {
        match accept(T, arguments) {
            Request::TypeText(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    #[test]
    fn example_and_defaults() {
        let request = decoded(DECLARATION.example());
        assert_eq!(request.into, TypeInto::Target(TargetRef::Handle(handle("target_1", HandleKind::Target))));
        assert_eq!(request.text, "Ada");
        assert!(!request.clear_first);
        assert_eq!((request.tab(), request.timeout_ms), (None, 8_000));
        assert_eq!(request.capabilities(), CapabilitySet::of(&[Capability::Action]));
    }

    #[test]
    fn locations() {
        let request = decoded(json!({"selector": {"name": "Search", "role": "searchbox"}, "text": "ada"}));
        assert_eq!(
            request.into,
            TypeInto::Target(TargetRef::Selector(Selector {
                name: "Search".into(),
                role: Some(Role::Searchbox),
                exact: false
            }))
        );
        let request = decoded(json!({"focused": true, "text": "ada", "tab": "tab_1", "timeout_ms": 100}));
        assert_eq!(request.into, TypeInto::Focused);
        assert_eq!(request.tab(), Some(&handle("tab_1", HandleKind::Tab)));
        assert_eq!(request.timeout_ms, 100);
        // focused:false is the default and counts as absent.
        let request = decoded(json!({"target": "target_1", "focused": false, "text": "a"}));
        assert_eq!(request.into, TypeInto::Target(TargetRef::Handle(handle("target_1", HandleKind::Target))));
    }

    #[test]
    fn location_refusals() {
        refuse(T, json!({"text": "a"}), "/target", K::MissingField);
        refuse(T, json!({"focused": false, "text": "a"}), "/target", K::MissingField);
        refuse(
            T,
            json!({"target": "target_1", "selector": {"name": "A"}, "text": "a"}),
            "/selector",
            K::Conflict,
        );
        let error =
            refuse(T, json!({"target": "target_1", "focused": true, "text": "a"}), "/focused", K::Conflict);
        assert!(error.message().ends_with("cannot be combined with /target"), "{error}");
        let error = refuse(
            T,
            json!({"selector": {"name": "A"}, "focused": true, "text": "a"}),
            "/focused",
            K::Conflict,
        );
        assert!(error.message().ends_with("cannot be combined with /selector"), "{error}");
        refuse(T, json!({"focused": "yes", "text": "a"}), "/focused", K::WrongType);
        refuse(T, json!({"target": "view_1", "text": "a"}), "/target", K::InvalidHandle);
        refuse(
            T,
            json!({"selector": {"name": "A", "exactly": true}, "text": "a"}),
            "/selector/exactly",
            K::UnknownField,
        );
        refuse(T, json!({"target": "target_1", "text": "a", "delay_ms": 5}), "/delay_ms", K::UnknownField);
    }

    #[test]
    fn text_rules() {
        refuse(T, json!({"target": "target_1"}), "/text", K::MissingField);
        refuse(T, json!({"target": "target_1", "text": ""}), "/text", K::Length);
        refuse(T, json!({"target": "target_1", "text": "", "clear_first": false}), "/text", K::Length);
        refuse(
            T,
            json!({"target": "target_1", "text": "a", "clear_first": "no"}),
            "/clear_first",
            K::WrongType,
        );
        let request = decoded(json!({"target": "target_1", "text": "", "clear_first": true}));
        assert_eq!((request.text.as_str(), request.clear_first), ("", true));
        let request = decoded(json!({"focused": true, "text": "new", "clear_first": true}));
        assert_eq!((request.text.as_str(), request.clear_first), ("new", true));
    }

    #[test]
    fn text_is_never_echoed() {
        let max = limits::TYPE_TEXT_CHARS.max;
        let secret = "hunter2".repeat(max / 7 + 1);
        let error = refuse(T, json!({"target": "target_1", "text": secret}), "/text", K::Length);
        assert!(!error.message().contains("hunter2"), "{error}");
        let error = refuse(T, json!({"target": "target_1", "text": ["hunter2"]}), "/text", K::WrongType);
        assert!(!error.message().contains("hunter2"), "{error}");
        let debug = format!("{:?}", decoded(json!({"target": "target_1", "text": "hunter2"})));
        assert!(!debug.contains("hunter2"), "{debug}");
    }

    #[test]
    fn bounds() {
        let base = json!({"target": "target_1", "text": "a"});
        // TYPE_TEXT_CHARS has min 0, so text_edges checks the maximum and the wrong type.
        text_edges(T, with(&base, "clear_first", json!(true)), "text", limits::TYPE_TEXT_CHARS);
        int_edges(T, base, "timeout_ms", limits::TIMEOUT_MS);
    }
}
