//! `browser_press_key`: send one explicit keyboard action.

pub(crate) mod op;

use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, DecodeErrorKind, ObjectReader, Pointer, check_text};
use crate::facts::tool_facts;
use crate::handles::Handle;
use crate::limits;
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::common::{MODIFIERS, SELECTOR, TAB, TARGET, TargetRef, read_modifiers, read_target};
use crate::vocab::WireChoice;
use crate::vocab::{Key, Modifier, NamedKey};

/// The named keys as a model reads them in an error message.
const NAMED_KEYS_HINT: &str = "Enter, Tab, Escape, Backspace, Delete, Insert, Home, End, PageUp, PageDown, \
                               ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Space, F1–F12";

const KEY: Field =
    Field::optional("key", FieldType::Text(limits::KEY_CHARS), "One character or named key (Enter, F5…).");
const STROKES: Field = Field::optional(
    "strokes",
    FieldType::List { item: &FieldType::Text(limits::KEY_CHARS), count: limits::KEY_STROKES, unique: false },
    "Keys pressed in order.",
);
const REPEAT: Field = Field::optional("repeat", FieldType::Integer(limits::KEY_REPEAT), "Times to press.");

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    KEY: Str("key", "Key or key sequence pressed."),
    PRESSED: Bool("pressed", "The keys were delivered."),
    LANDING: Json = crate::tools::common::LANDING,
    OPENED_TABS: Json = crate::tools::common::OPENED_TABS,
    CLOSED_TABS: Int = crate::tools::common::CLOSED_TABS,
    PRESSED_COUNT: Int("pressed_count", "Presses delivered."),
    REPEAT: Int("repeat", "Presses requested."),
    CHARACTER_KEYS: Int("character_keys", "Presses that would type characters."),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::PressKey,
    description: "Press a key or key sequence, with optional modifiers. Use type_text for text.",
    fields: &[KEY, STROKES, REPEAT, MODIFIERS, TAB, TARGET, SELECTOR],
    example: r#"{"key":"Enter"}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
};

/// What is pressed: one key, or an ordered sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keys {
    /// `key`: a single key.
    One(Key),
    /// `strokes`: keys pressed one after another.
    Strokes(Vec<Key>),
}

/// A decoded `browser_press_key` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PressKeyRequest {
    /// The key or keys.
    pub keys: Keys,
    /// How many times the key (or the whole stroke sequence) is pressed.
    pub repeat: u64,
    /// Modifiers held throughout, unique, in the order given.
    pub modifiers: Vec<Modifier>,
    /// A target handle or selector to focus first, if any; otherwise the focused element.
    pub target: Option<TargetRef>,
    /// The explicitly named tab, if any.
    pub tab: Option<Handle>,
}

impl Tool for PressKeyRequest {
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
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<PressKeyRequest, DecodeError> {
    let key = reader.text(&KEY)?;
    let key = match key {
        Some(text) => Some(parse_key(&text, reader.pointer(&KEY))?),
        None => None,
    };
    let strokes = reader.list(&STROKES, |value, at| {
        let text = check_text(value, limits::KEY_CHARS, &at, false)?;
        parse_key(&text, at)
    })?;
    let repeat = reader.int_or_default(&REPEAT)?;
    let modifiers = read_modifiers(reader)?;
    let tab = reader.handle(&TAB)?;
    let target = read_target(reader, &TARGET, &SELECTOR)?;
    let keys = match (key, strokes) {
        (Some(_), Some(_)) => return Err(reader.conflict(&STROKES, &KEY)),
        (Some(key), None) => Keys::One(key),
        (None, Some(strokes)) => Keys::Strokes(strokes),
        (None, None) => return Err(reader.missing_one_of(&[&KEY, &STROKES])),
    };
    Ok(PressKeyRequest { keys, repeat, modifiers, target, tab })
}

/// One key from its (already length-checked) text: exactly one Unicode scalar value, or an
/// exact, case-sensitive named key.
fn parse_key(text: &str, at: Pointer) -> Result<Key, DecodeError> {
    let mut chars = text.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Ok(Key::Char(c));
    }
    if let Some(named) = NamedKey::from_wire(text) {
        return Ok(Key::Named(named));
    }
    let hint = NamedKey::NAMES
        .iter()
        .find(|name| name.eq_ignore_ascii_case(text))
        .map(|name| format!("; names are case-sensitive: use {name:?}"))
        .unwrap_or_default();
    Err(DecodeError::new(
        DecodeErrorKind::NotAllowed,
        at,
        format_args!("must be one character or a named key ({NAMED_KEYS_HINT}) (got {text:?}){hint}"),
    ))
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::{Value, json};

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::handles::HandleKind;
    use crate::selector::Selector;
    use crate::tools::testing::{accept, handle, int_edges, refuse, with};

    const T: ToolName = ToolName::PressKey;

    fn decoded(arguments: Value) -> PressKeyRequest {
        match accept(T, arguments) {
            Request::PressKey(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    #[test]
    fn example_and_defaults() {
        let request = decoded(DECLARATION.example());
        assert_eq!(request.keys, Keys::One(Key::Named(NamedKey::Enter)));
        assert_eq!(request.repeat, 1);
        assert_eq!(request.modifiers, vec![]);
        assert_eq!((&request.target, request.tab()), (&None, None));
        assert_eq!(request.capabilities(), CapabilitySet::of(&[Capability::Action]));
    }

    #[test]
    fn every_named_key_and_characters() {
        for name in NamedKey::NAMES {
            let request = decoded(json!({"key": name}));
            assert_eq!(
                Some(request.keys),
                NamedKey::from_wire(name).map(|named| Keys::One(Key::Named(named)))
            );
            assert!(NAMED_KEYS_HINT.contains(name) || name.starts_with('F'), "{name}");
        }
        assert_eq!(NamedKey::NAMES.len(), 27);
        for (text, c) in
            [("a", 'a'), ("A", 'A'), (" ", ' '), ("é", 'é'), ("+", '+'), ("😀", '😀'), ("\n", '\n')]
        {
            let request = decoded(json!({"key": text}));
            assert_eq!(request.keys, Keys::One(Key::Char(c)));
            assert_eq!(Key::Char(c).to_string(), text);
        }
        assert_eq!(Key::Named(NamedKey::PageDown).to_string(), "PageDown");
    }

    #[test]
    fn key_refusals() {
        let error = refuse(T, json!({"key": "enter"}), "/key", K::NotAllowed);
        assert!(
            error.message().ends_with("(got \"enter\"); names are case-sensitive: use \"Enter\""),
            "{error}"
        );
        refuse(T, json!({"key": "ARROWUP"}), "/key", K::NotAllowed);
        refuse(T, json!({"key": "Shift"}), "/key", K::NotAllowed);
        refuse(T, json!({"key": "F13"}), "/key", K::NotAllowed);
        refuse(T, json!({"key": "F0"}), "/key", K::NotAllowed);
        refuse(T, json!({"key": "ab"}), "/key", K::NotAllowed);
        // Two Unicode scalar values (e + combining acute) are not one character.
        refuse(T, json!({"key": "e\u{301}"}), "/key", K::NotAllowed);
        refuse(T, json!({"key": "ArrowRight1"}), "/key", K::Length);
        refuse(T, json!({"key": 13}), "/key", K::WrongType);
        refuse(T, json!({"key": ["Enter"]}), "/key", K::WrongType);
    }

    #[test]
    fn key_length_edges() {
        // KEY_CHARS is 1..=10: the longest named keys fit, and the length check comes first.
        let min = "é".repeat(limits::KEY_CHARS.min);
        assert_eq!(decoded(json!({"key": min})).keys, Keys::One(Key::Char('é')));
        refuse(T, json!({"key": "é".repeat(limits::KEY_CHARS.min - 1)}), "/key", K::Length);
        assert_eq!(decoded(json!({"key": "ArrowRight"})).keys, Keys::One(Key::Named(NamedKey::ArrowRight)));
        refuse(T, json!({"key": "é".repeat(limits::KEY_CHARS.max)}), "/key", K::NotAllowed);
        refuse(T, json!({"key": "é".repeat(limits::KEY_CHARS.max + 1)}), "/key", K::Length);
    }

    #[test]
    fn strokes() {
        let request = decoded(json!({"strokes": ["a"]}));
        assert_eq!(request.keys, Keys::Strokes(vec![Key::Char('a')]));
        let request = decoded(json!({"strokes": ["ArrowDown", "ArrowDown", "Enter"], "repeat": 2}));
        assert_eq!(
            request.keys,
            Keys::Strokes(vec![
                Key::Named(NamedKey::ArrowDown),
                Key::Named(NamedKey::ArrowDown),
                Key::Named(NamedKey::Enter)
            ])
        );
        assert_eq!(request.repeat, 2);
        let min = limits::KEY_STROKES.min;
        let max = limits::KEY_STROKES.max;
        let keys = |n: usize| Value::Array((0..n).map(|_| json!("x")).collect());
        assert_eq!(decoded(json!({"strokes": keys(max)})).keys, Keys::Strokes(vec![Key::Char('x'); max]));
        assert_eq!(decoded(json!({"strokes": keys(min)})).keys, Keys::Strokes(vec![Key::Char('x'); min]));
        refuse(T, json!({"strokes": keys(min - 1)}), "/strokes", K::Length);
        refuse(T, json!({"strokes": keys(max + 1)}), "/strokes", K::Length);
        refuse(T, json!({"strokes": ["Tab", "tab"]}), "/strokes/1", K::NotAllowed);
        refuse(T, json!({"strokes": ["Tab", ""]}), "/strokes/1", K::Length);
        refuse(T, json!({"strokes": ["a", 1]}), "/strokes/1", K::WrongType);
        refuse(T, json!({"strokes": "Tab"}), "/strokes", K::WrongType);
    }

    #[test]
    fn key_or_strokes() {
        refuse(T, json!({}), "/key", K::MissingField);
        refuse(T, json!({"repeat": 2, "modifiers": ["Shift"]}), "/key", K::MissingField);
        let error = refuse(T, json!({"key": "a", "strokes": ["b"]}), "/strokes", K::Conflict);
        assert_eq!(error.message(), "/strokes cannot be combined with /key");
    }

    #[test]
    fn modifiers() {
        let request = decoded(json!({"key": "a", "modifiers": ["Control", "Shift"]}));
        assert_eq!(request.modifiers, vec![Modifier::Control, Modifier::Shift]);
        let request = decoded(json!({"key": "Tab", "modifiers": ["Alt", "Control", "Meta", "Shift"]}));
        assert_eq!(
            request.modifiers,
            vec![Modifier::Alt, Modifier::Control, Modifier::Meta, Modifier::Shift]
        );
        assert_eq!(decoded(json!({"key": "a", "modifiers": []})).modifiers, vec![]);
        refuse(T, json!({"key": "a", "modifiers": ["Shift", "Shift"]}), "/modifiers/1", K::Duplicate);
        refuse(
            T,
            json!({"key": "a", "modifiers": ["Alt", "Control", "Meta", "Shift", "Alt"]}),
            "/modifiers",
            K::Length,
        );
        refuse(T, json!({"key": "a", "modifiers": ["Ctrl"]}), "/modifiers/0", K::NotAllowed);
        refuse(T, json!({"key": "a", "modifiers": ["shift"]}), "/modifiers/0", K::NotAllowed);
        refuse(T, json!({"key": "a", "modifiers": "Shift"}), "/modifiers", K::WrongType);
    }

    #[test]
    fn target_and_tab() {
        let request = decoded(json!({"key": "Enter", "target": "target_1", "tab": "tab_1"}));
        assert_eq!(request.target, Some(TargetRef::Handle(handle("target_1", HandleKind::Target))));
        assert_eq!(request.tab(), Some(&handle("tab_1", HandleKind::Tab)));
        let request = decoded(json!({"key": "Enter", "selector": {"name": "Search"}}));
        assert_eq!(
            request.target,
            Some(TargetRef::Selector(Selector { name: "Search".into(), role: None, exact: false }))
        );
        refuse(
            T,
            json!({"key": "Enter", "target": "target_1", "selector": {"name": "Search"}}),
            "/selector",
            K::Conflict,
        );
        refuse(T, json!({"key": "Enter", "target": "view_1"}), "/target", K::InvalidHandle);
        refuse(T, json!({"key": "Enter", "tab": "target_1"}), "/tab", K::InvalidHandle);
        refuse(
            T,
            json!({"key": "Enter", "selector": {"name": "Search", "x": 1}}),
            "/selector/x",
            K::UnknownField,
        );
    }

    #[test]
    fn no_timeout_and_no_coordinates() {
        refuse(T, json!({"key": "Enter", "timeout_ms": 1000}), "/timeout_ms", K::UnknownField);
        refuse(T, json!({"key": "Enter", "view": "view_1"}), "/view", K::UnknownField);
    }

    #[test]
    fn bounds() {
        int_edges(T, json!({"key": "a"}), "repeat", limits::KEY_REPEAT);
        int_edges(T, with(&json!({}), "strokes", json!(["a", "b"])), "repeat", limits::KEY_REPEAT);
    }
}
