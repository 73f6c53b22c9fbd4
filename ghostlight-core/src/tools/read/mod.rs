//! `browser_read`: read useful bounded prose from a page or a target.

pub(crate) mod op;

use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, ObjectReader};
use crate::facts::tool_facts;
use crate::handles::Handle;
use crate::limits;
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::common::{SELECTOR, TAB, TARGET, TargetRef, read_target};
use crate::vocab::WireChoice;
use crate::vocab::wire_choice;

wire_choice! {
    /// Which page text `browser_read` returns.
    pub enum ReadMode {
        /// The main article text.
        Article => "article",
        /// The text visible in the page.
        Visible => "visible",
    }
}

const MODE: Field = Field::optional(
    "mode",
    FieldType::Choice { values: ReadMode::NAMES, default: None },
    "Default: article, else visible.",
);
const MAX_CHARS: Field =
    Field::optional("max_chars", FieldType::Integer(limits::READ_MAX_CHARS), "Most characters returned.");

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    URL: Str("url", "Governed URL."),
    TITLE: Str("title", "Bounded title."),
    TEXT: Str("text", "The text read."),
    TRUNCATED: Bool("truncated", "The text was cut at max_chars."),
    DOCUMENT_GENERATION: Int("document_generation", "Document generation."),
    CHARACTERS: Int("characters", "Characters of the whole text."),
    FRAMES: Int("frames", "Frames inside authority whose text follows the page's."),
    GATE: Json = crate::tools::common::GATE,
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Read,
    description: "Read page or target text; use inspect or find for action targets.",
    fields: &[TAB, TARGET, SELECTOR, MODE, MAX_CHARS],
    example: "{}",
    facts: facts::ALL,
    annotations: Annotations { read_only: true, destructive: false, idempotent: true, open_world: true },
};

/// A decoded `browser_read` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRequest {
    /// The explicitly named tab; `None` selects the default tab.
    pub tab: Option<Handle>,
    /// Read only this target (handle or selector); `None` reads the page.
    pub target: Option<TargetRef>,
    /// The requested page text. `None`: article text first, falling back to visible text.
    /// Ignored when `target` is present (accepted there, not refused).
    pub mode: Option<ReadMode>,
    /// Most characters of text returned.
    pub max_chars: u64,
}

impl Tool for ReadRequest {
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

fn decode(reader: &mut ObjectReader<'_>) -> Result<ReadRequest, DecodeError> {
    let tab = reader.handle(&TAB)?;
    let target = read_target(reader, &TARGET, &SELECTOR)?;
    let mode = reader.choice::<ReadMode>(&MODE)?;
    let max_chars = reader.int_or_default(&MAX_CHARS)?;
    Ok(ReadRequest { tab, target, mode, max_chars })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::{Value, json};

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::handles::HandleKind;
    use crate::selector::{Role, Selector};
    use crate::tools::testing::{accept, int_edges, refuse};

    const T: ToolName = ToolName::Read;

    /// Decode, check every declared field was read, and return the typed request.
    fn decoded(arguments: Value) -> ReadRequest {
        let request = accept(T, arguments);
        match request {
            Request::Read(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    fn handle(text: &str, kind: HandleKind) -> Handle {
        Handle::parse(text, kind).unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    #[test]
    fn accepted() {
        let page = decoded(json!({}));
        assert_eq!(page, ReadRequest { tab: None, target: None, mode: None, max_chars: 8_000 });
        assert_eq!(page.capabilities(), CapabilitySet::of(&[Capability::Read]));
        assert_eq!(decoded(DECLARATION.example()), page);

        assert_eq!(decoded(json!({"mode": "article"})).mode, Some(ReadMode::Article));
        assert_eq!(decoded(json!({"mode": "visible"})).mode, Some(ReadMode::Visible));
        let tabbed = decoded(json!({"tab": "tab_2", "max_chars": 1234}));
        assert_eq!(tabbed.tab(), Some(&handle("tab_2", HandleKind::Tab)));
        assert_eq!(tabbed.max_chars, 1234);

        let target = decoded(json!({"target": "target_9"}));
        assert_eq!(target.target, Some(TargetRef::Handle(handle("target_9", HandleKind::Target))));
        let named = decoded(json!({"selector": {"name": "Terms", "role": "dialog", "exact": true}}));
        assert_eq!(
            named.target,
            Some(TargetRef::Selector(Selector {
                name: "Terms".into(),
                role: Some(Role::Dialog),
                exact: true
            }))
        );
        // `mode` is accepted (and ignored by the executor) with a target.
        let both = decoded(json!({"target": "target_9", "mode": "visible"}));
        assert_eq!(both.mode, Some(ReadMode::Visible));
        assert!(both.target.is_some());
        let both = decoded(json!({"selector": {"name": "Terms"}, "mode": "article"}));
        assert_eq!(
            both.target,
            Some(TargetRef::Selector(Selector { name: "Terms".into(), role: None, exact: false }))
        );
    }

    #[test]
    fn refusals() {
        let error =
            refuse(T, json!({"target": "target_1", "selector": {"name": "Terms"}}), "/selector", K::Conflict);
        assert_eq!(error.message(), "/selector cannot be combined with /target");
        refuse(T, json!({"target": "view_1"}), "/target", K::InvalidHandle);
        refuse(T, json!({"target": "target_"}), "/target", K::InvalidHandle);
        refuse(T, json!({"tab": "target_1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"selector": "Terms"}), "/selector", K::WrongType);
        refuse(T, json!({"selector": {}}), "/selector/name", K::MissingField);
        refuse(T, json!({"selector": {"name": "  "}}), "/selector/name", K::InvalidValue);
        refuse(T, json!({"selector": {"name": "Terms", "role": "banner"}}), "/selector/role", K::NotAllowed);
        refuse(T, json!({"selector": {"name": "Terms", "label": "x"}}), "/selector/label", K::UnknownField);
        let name = |n: usize| json!({"selector": {"name": "é".repeat(n)}});
        decoded(name(limits::SELECTOR_NAME_CHARS.max));
        refuse(T, name(limits::SELECTOR_NAME_CHARS.max + 1), "/selector/name", K::Length);
        refuse(T, name(0), "/selector/name", K::Length);
        refuse(T, json!({"mode": "full"}), "/mode", K::NotAllowed);
        refuse(T, json!({"mode": true}), "/mode", K::WrongType);
        refuse(T, json!({"timeout_ms": 1000}), "/timeout_ms", K::UnknownField);
        refuse(T, json!({"max_length": 1000}), "/max_length", K::UnknownField);
    }

    #[test]
    fn bound_edges() {
        int_edges(T, json!({}), "max_chars", limits::READ_MAX_CHARS);
        int_edges(T, json!({"target": "target_1"}), "max_chars", limits::READ_MAX_CHARS);
    }
}
