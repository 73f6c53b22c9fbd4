//! `browser_click`: click a current semantic target or a point in a current screenshot.

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
use crate::tools::common::{
    Location, MODIFIERS, SELECTOR, TAB, TARGET, TIMEOUT_MS, VIEW, X, Y, read_location, read_modifiers,
    read_timeout,
};
use crate::vocab::WireChoice;
use crate::vocab::{Modifier, MouseButton};

const BUTTON: Field = Field::optional(
    "button",
    FieldType::Choice { values: MouseButton::NAMES, default: Some("primary") },
    "Mouse button.",
);
const CLICK_COUNT: Field =
    Field::optional("click_count", FieldType::Integer(limits::CLICK_COUNT), "Click count.");

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    TARGET: Str("target", "Target clicked, when a target was used."),
    VIEW: Str("view", "View clicked, when a point was used."),
    ACTIVATED: Bool("activated", "The click was delivered."),
    LANDING: Json = crate::tools::common::LANDING,
    OPENED_TABS: Json = crate::tools::common::OPENED_TABS,
    CLOSED_TABS: Int = crate::tools::common::CLOSED_TABS,
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Click,
    description: "Click a target, a named control, or a point in a screenshot.",
    fields: &[TARGET, SELECTOR, VIEW, X, Y, TAB, BUTTON, CLICK_COUNT, MODIFIERS, TIMEOUT_MS],
    example: r#"{"target":"target_1"}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
};

/// A decoded `browser_click` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClickRequest {
    /// Where the click lands: a target handle or selector, or a point in a current view.
    pub location: Location,
    /// The explicitly named tab, if any.
    pub tab: Option<Handle>,
    /// The mouse button.
    pub button: MouseButton,
    /// 1, 2 or 3 for a single, double or triple click.
    pub click_count: u64,
    /// Modifier keys held around the click, unique, in the order given.
    pub modifiers: Vec<Modifier>,
    /// Timeout in milliseconds.
    pub timeout_ms: u64,
}

impl Tool for ClickRequest {
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

fn decode(reader: &mut ObjectReader<'_>) -> Result<ClickRequest, DecodeError> {
    let tab = reader.handle(&TAB)?;
    let button = reader.choice_or_default::<MouseButton>(&BUTTON)?;
    let click_count = reader.int_or_default(&CLICK_COUNT)?;
    let modifiers = read_modifiers(reader)?;
    let timeout_ms = read_timeout(reader)?;
    let location = read_location(reader)?;
    Ok(ClickRequest { location, tab, button, click_count, modifiers, timeout_ms })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::{Value, json};

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::selector::{Role, Selector};
    use crate::tools::common::{TargetRef, ViewPoint};
    use crate::tools::testing::{accept, handle, int_edges, refuse};

    const T: ToolName = ToolName::Click;

    fn decoded(arguments: Value) -> ClickRequest {
        match accept(T, arguments) {
            Request::Click(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    #[test]
    fn modifiers_are_a_set_of_the_four_keys() {
        assert_eq!(decoded(json!({"target": "target_1"})).modifiers, vec![]);
        assert_eq!(
            decoded(json!({"target": "target_1", "modifiers": ["Shift", "Alt"]})).modifiers,
            vec![Modifier::Shift, Modifier::Alt]
        );
        refuse(
            T,
            json!({"target": "target_1", "modifiers": ["Shift", "Shift"]}),
            "/modifiers/1",
            K::Duplicate,
        );
        refuse(T, json!({"target": "target_1", "modifiers": ["Hyper"]}), "/modifiers/0", K::NotAllowed);
        refuse(T, json!({"target": "target_1", "modifiers": "Shift"}), "/modifiers", K::WrongType);
    }

    #[test]
    fn example_and_defaults() {
        let request = decoded(DECLARATION.example());
        assert_eq!(
            request.location,
            Location::Target(TargetRef::Handle(handle("target_1", crate::handles::HandleKind::Target)))
        );
        assert_eq!(request.tab, None);
        assert_eq!(request.button, MouseButton::Primary);
        assert_eq!(request.click_count, 1);
        assert_eq!(request.timeout_ms, 8_000);
        assert_eq!(request.capabilities(), CapabilitySet::of(&[Capability::Action]));
    }

    #[test]
    fn location_branches() {
        let request = decoded(json!({"selector": {"name": "Save", "role": "button"}}));
        assert_eq!(
            request.location,
            Location::Target(TargetRef::Selector(Selector {
                name: "Save".into(),
                role: Some(Role::Button),
                exact: false
            }))
        );
        let request = decoded(json!({"view": "view_1", "x": 0, "y": 100_000, "tab": "tab_1"}));
        assert_eq!(
            request.location,
            Location::Point(ViewPoint {
                view: handle("view_1", crate::handles::HandleKind::View),
                x: 0,
                y: 100_000
            })
        );
        assert_eq!(request.tab(), Some(&handle("tab_1", crate::handles::HandleKind::Tab)));
    }

    #[test]
    fn options() {
        for (wire, button) in [
            ("primary", MouseButton::Primary),
            ("middle", MouseButton::Middle),
            ("secondary", MouseButton::Secondary),
        ] {
            assert_eq!(decoded(json!({"target": "target_1", "button": wire})).button, button);
        }
        let request = decoded(json!({"target": "target_1", "click_count": 3, "timeout_ms": 100}));
        assert_eq!((request.click_count, request.timeout_ms), (3, 100));
    }

    #[test]
    fn refusals() {
        refuse(T, json!({}), "/target", K::MissingField);
        refuse(T, json!({"tab": "tab_1"}), "/target", K::MissingField);
        refuse(T, json!({"target": "target_1", "selector": {"name": "Save"}}), "/selector", K::Conflict);
        refuse(T, json!({"target": "target_1", "view": "view_1", "x": 1, "y": 1}), "/view", K::Conflict);
        refuse(
            T,
            json!({"selector": {"name": "Save"}, "view": "view_1", "x": 1, "y": 1}),
            "/view",
            K::Conflict,
        );
        refuse(T, json!({"view": "view_1", "y": 1}), "/x", K::MissingField);
        refuse(T, json!({"view": "view_1", "x": 1}), "/y", K::MissingField);
        refuse(T, json!({"x": 1, "y": 1}), "/view", K::MissingField);
        refuse(T, json!({"target": "view_1"}), "/target", K::InvalidHandle);
        refuse(T, json!({"view": "target_1", "x": 1, "y": 1}), "/view", K::InvalidHandle);
        refuse(T, json!({"target": "target_1", "tab": "target_1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"selector": {"name": "Save", "rol": "button"}}), "/selector/rol", K::UnknownField);
        refuse(T, json!({"selector": {"name": " "}}), "/selector/name", K::InvalidValue);
        refuse(T, json!({"target": "target_1", "button": "left"}), "/button", K::NotAllowed);
        refuse(T, json!({"target": "target_1", "button": 1}), "/button", K::WrongType);
        refuse(T, json!({"target": "target_1", "double": true}), "/double", K::UnknownField);
    }

    #[test]
    fn bounds() {
        let base = json!({"target": "target_1"});
        int_edges(T, base.clone(), "click_count", limits::CLICK_COUNT);
        int_edges(T, base, "timeout_ms", limits::TIMEOUT_MS);
        let point = json!({"view": "view_1", "x": 5, "y": 5});
        int_edges(T, point.clone(), "x", limits::COORDINATE);
        int_edges(T, point, "y", limits::COORDINATE);
    }
}
