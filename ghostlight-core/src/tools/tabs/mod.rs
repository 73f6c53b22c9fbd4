//! `browser_tabs`: list, focus, or close controlled tabs.

pub(crate) mod op;

use crate::authority::Constraint;
use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, ObjectReader};
use crate::facts::tool_facts;
use crate::facts::{Fact, FactType};
use crate::handles::{Handle, HandleKind};
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::vocab::WireChoice;
use crate::vocab::wire_choice;

wire_choice! {
    /// The `action` of a `browser_tabs` call, as named on the wire.
    pub enum TabsActionName {
        /// List this workspace's bound tabs, read live from the browser.
        List => "list",
        /// Focus one controlled tab.
        Focus => "focus",
        /// Close one controlled tab.
        Close => "close",
    }
}

const ACTION: Field = Field::required(
    "action",
    FieldType::Choice { values: TabsActionName::NAMES, default: None },
    "Tab operation.",
);
/// `tab` here has no default: it is refused for list and required for focus and close, so the
/// shared description ("default: the only or active one") would mislead.
const TAB: Field = Field::optional("tab", FieldType::Handle(HandleKind::Tab), "Tab to focus or close.");

const TAB_ROW_MEMBERS: [Fact; 5] = [
    Fact::new("tab", FactType::String, "Tab handle."),
    Fact::new("title", FactType::String, "Bounded title."),
    Fact::new("url", FactType::String, "Governed URL."),
    Fact::new("active", FactType::Boolean, "Selected in its window."),
    Fact::new("readiness", FactType::String, "Load readiness."),
];

tool_facts! {
    TABS: Json(
        "tabs",
        FactType::ObjectArray(&super::TAB_ROW_MEMBERS),
        "Bound tabs (list)."
    ),
    TAB: Str("tab", "Focused or closed tab (focus, close)."),
    ACTIVE: Bool("active", "The tab is selected (focus)."),
    WINDOW_FOCUSED: Bool("window_focused", "Its window has focus (focus)."),
    CLOSED: Bool("closed", "The tab was closed or already gone (close)."),
    COUNT: Int("count", "Tabs listed (list)."),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Tabs,
    description: "List, focus, or close controlled tabs.",
    fields: &[ACTION, TAB],
    example: r#"{"action":"list"}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: true, idempotent: true, open_world: false },
};

/// One decoded `browser_tabs` branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TabsAction {
    /// List this workspace's bound tabs (requires a connected browser).
    List,
    /// Focus this exact tab.
    Focus {
        /// The tab to focus.
        tab: Handle,
    },
    /// Close this exact tab (a handle whose tab is already gone succeeds untouched).
    Close {
        /// The tab to close.
        tab: Handle,
    },
}

impl TabsAction {
    /// The wire name of the branch.
    pub fn name(&self) -> TabsActionName {
        match self {
            TabsAction::List => TabsActionName::List,
            TabsAction::Focus { .. } => TabsActionName::Focus,
            TabsAction::Close { .. } => TabsActionName::Close,
        }
    }
}

/// A decoded `browser_tabs` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TabsRequest {
    /// The operation and its tab.
    pub action: TabsAction,
}

impl Tool for TabsRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;

    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError> {
        decode(reader)
    }

    /// list: `read`; focus: none; close: `action` (plus the tab-close policy, checked later).
    fn capabilities(&self) -> CapabilitySet {
        match self.action {
            TabsAction::List => CapabilitySet::of(&[Capability::Read]),
            TabsAction::Focus { .. } => CapabilitySet::EMPTY,
            TabsAction::Close { .. } => CapabilitySet::of(&[Capability::Action]),
        }
    }

    /// The explicitly named tab (focus and close).
    fn tab(&self) -> Option<&Handle> {
        match &self.action {
            TabsAction::List => None,
            TabsAction::Focus { tab } | TabsAction::Close { tab } => Some(tab),
        }
    }

    /// Not tab-bound: listing and focusing are bookkeeping, and closing a tab that landed
    /// outside authority is how one leaves it (the tab-close policy still governs it).
    fn tab_bound(&self) -> bool {
        false
    }

    /// Closing a tab is governed by the configured tab-close policy.
    fn constraints(&self) -> &'static [Constraint] {
        match self.action {
            TabsAction::Close { .. } => &[Constraint::TabClose],
            _ => &[],
        }
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<TabsRequest, DecodeError> {
    let action = reader.choice::<TabsActionName>(&ACTION)?;
    let tab = reader.handle(&TAB)?;
    let action = action.ok_or_else(|| reader.missing(&ACTION))?;
    let action = match (action, tab) {
        (TabsActionName::List, None) => TabsAction::List,
        (TabsActionName::List, Some(_)) => return Err(reader.not_here(&TAB, "is not accepted for list")),
        (TabsActionName::Focus, Some(tab)) => TabsAction::Focus { tab },
        (TabsActionName::Close, Some(tab)) => TabsAction::Close { tab },
        (TabsActionName::Focus | TabsActionName::Close, None) => return Err(reader.missing(&TAB)),
    };
    Ok(TabsRequest { action })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::{Value, json};

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::tools::testing::{accept, refuse};

    const T: ToolName = ToolName::Tabs;

    /// Decode, check every declared field was read, and return the typed request.
    fn decoded(arguments: Value) -> TabsRequest {
        let request = accept(T, arguments);
        match request {
            Request::Tabs(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    fn tab(text: &str) -> Handle {
        Handle::parse(text, HandleKind::Tab).unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    #[test]
    fn branches_and_capabilities() {
        let list = decoded(json!({"action": "list"}));
        assert_eq!(list.action, TabsAction::List);
        assert_eq!(list.action.name(), TabsActionName::List);
        assert_eq!(list.tab(), None);
        assert_eq!(list.capabilities(), CapabilitySet::of(&[Capability::Read]));

        let focus = decoded(json!({"action": "focus", "tab": "tab_1"}));
        assert_eq!(focus.action, TabsAction::Focus { tab: tab("tab_1") });
        assert_eq!(focus.tab(), Some(&tab("tab_1")));
        assert_eq!(focus.capabilities(), CapabilitySet::EMPTY);

        let close = decoded(json!({"action": "close", "tab": "tab_2"}));
        assert_eq!(close.action, TabsAction::Close { tab: tab("tab_2") });
        assert_eq!(close.action.name().as_str(), "close");
        assert_eq!(close.tab(), Some(&tab("tab_2")));
        assert_eq!(close.capabilities(), CapabilitySet::of(&[Capability::Action]));

        // The declared example decodes.
        assert_eq!(decoded(DECLARATION.example()).action, TabsAction::List);
    }

    #[test]
    fn refusals() {
        refuse(T, json!({}), "/action", K::MissingField);
        refuse(T, json!({"tab": "tab_1"}), "/action", K::MissingField);
        refuse(T, json!({"action": "open"}), "/action", K::NotAllowed);
        refuse(T, json!({"action": "List"}), "/action", K::NotAllowed);
        refuse(T, json!({"action": 1}), "/action", K::WrongType);
        let error = refuse(T, json!({"action": "list", "tab": "tab_1"}), "/tab", K::Conflict);
        assert_eq!(error.message(), "/tab is not accepted for list");
        refuse(T, json!({"action": "focus"}), "/tab", K::MissingField);
        refuse(T, json!({"action": "close"}), "/tab", K::MissingField);
        refuse(T, json!({"action": "close", "tab": "target_1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"action": "focus", "tab": "tab-1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"action": "focus", "tab": 1}), "/tab", K::WrongType);
        refuse(T, json!({"action": "list", "timeout_ms": 1000}), "/timeout_ms", K::UnknownField);
        refuse(T, json!({"action": "list", "tabs": []}), "/tabs", K::UnknownField);
    }
}
