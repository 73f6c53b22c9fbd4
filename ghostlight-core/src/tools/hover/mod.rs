//! `browser_hover`: hover a current semantic target or a point in a current screenshot.

pub(crate) mod op;

use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, ObjectReader};
use crate::facts::tool_facts;
use crate::handles::Handle;
use crate::names::ToolName;
use crate::tools::Tool;
use crate::tools::common::{
    Location, MODIFIERS, SELECTOR, TAB, TARGET, TIMEOUT_MS, VIEW, X, Y, read_location, read_modifiers,
    read_timeout,
};
use crate::vocab::Modifier;

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    TARGET: Str("target", "Target hovered, when a target was used."),
    VIEW: Str("view", "View hovered, when a point was used."),
    HOVERED: Bool("hovered", "The pointer rests over the location."),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Hover,
    description: "Hover a target, a named control, or a point in a screenshot.",
    fields: &[TARGET, SELECTOR, VIEW, X, Y, TAB, MODIFIERS, TIMEOUT_MS],
    example: r#"{"target":"target_1"}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: false, idempotent: true, open_world: true },
};

/// A decoded `browser_hover` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoverRequest {
    /// Where the pointer goes: a target handle or selector, or a point in a current view.
    pub location: Location,
    /// The explicitly named tab, if any.
    pub tab: Option<Handle>,
    /// Modifier keys held while the pointer moves, unique, in the order given.
    pub modifiers: Vec<Modifier>,
    /// Timeout in milliseconds.
    pub timeout_ms: u64,
}

impl Tool for HoverRequest {
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

fn decode(reader: &mut ObjectReader<'_>) -> Result<HoverRequest, DecodeError> {
    let tab = reader.handle(&TAB)?;
    let modifiers = read_modifiers(reader)?;
    let timeout_ms = read_timeout(reader)?;
    let location = read_location(reader)?;
    Ok(HoverRequest { location, tab, modifiers, timeout_ms })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::{Value, json};

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::handles::HandleKind;
    use crate::limits;
    use crate::selector::Selector;
    use crate::tools::common::{TargetRef, ViewPoint};
    use crate::tools::testing::{accept, handle, int_edges, refuse};

    const T: ToolName = ToolName::Hover;

    fn decoded(arguments: Value) -> HoverRequest {
        match accept(T, arguments) {
            Request::Hover(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    #[test]
    fn branches() {
        let request = decoded(DECLARATION.example());
        assert_eq!(
            request.location,
            Location::Target(TargetRef::Handle(handle("target_1", HandleKind::Target)))
        );
        assert_eq!((request.tab(), request.timeout_ms), (None, 8_000));
        assert_eq!(request.capabilities(), CapabilitySet::of(&[Capability::Read]));
        let request = decoded(json!({"selector": {"name": "Menu"}, "tab": "tab_1", "timeout_ms": 30_000}));
        assert_eq!(
            request.location,
            Location::Target(TargetRef::Selector(Selector { name: "Menu".into(), role: None, exact: false }))
        );
        assert_eq!(request.tab(), Some(&handle("tab_1", HandleKind::Tab)));
        assert_eq!(request.timeout_ms, 30_000);
        let request = decoded(json!({"view": "view_1", "x": 3, "y": 4}));
        assert_eq!(
            request.location,
            Location::Point(ViewPoint { view: handle("view_1", HandleKind::View), x: 3, y: 4 })
        );
    }

    #[test]
    fn refusals() {
        refuse(T, json!({}), "/target", K::MissingField);
        refuse(T, json!({"tab": "tab_1"}), "/target", K::MissingField);
        refuse(T, json!({"target": "target_1", "selector": {"name": "Menu"}}), "/selector", K::Conflict);
        refuse(T, json!({"target": "target_1", "view": "view_1", "x": 1, "y": 1}), "/view", K::Conflict);
        refuse(
            T,
            json!({"selector": {"name": "Menu"}, "view": "view_1", "x": 1, "y": 1}),
            "/view",
            K::Conflict,
        );
        refuse(T, json!({"view": "view_1", "y": 1}), "/x", K::MissingField);
        refuse(T, json!({"view": "view_1", "x": 1}), "/y", K::MissingField);
        refuse(T, json!({"x": 1, "y": 1}), "/view", K::MissingField);
        refuse(T, json!({"target": "snap_1"}), "/target", K::InvalidHandle);
        refuse(T, json!({"target": "target_1", "tab": "tab-1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"selector": {"name": "Menu", "role": "menu"}}), "/selector/role", K::NotAllowed);
        refuse(T, json!({"selector": {"name": "Menu", "extra": 1}}), "/selector/extra", K::UnknownField);
        refuse(T, json!({"target": "target_1", "button": "primary"}), "/button", K::UnknownField);
    }

    #[test]
    fn bounds() {
        int_edges(T, json!({"target": "target_1"}), "timeout_ms", limits::TIMEOUT_MS);
        let point = json!({"view": "view_1", "x": 5, "y": 5});
        int_edges(T, point.clone(), "x", limits::COORDINATE);
        int_edges(T, point, "y", limits::COORDINATE);
    }
}
