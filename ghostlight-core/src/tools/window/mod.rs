//! `browser_window`: set tab zoom or resize the containing browser window.

pub(crate) mod op;

use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, ObjectReader};
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
    /// The `action` of a `browser_window` call, as named on the wire.
    pub enum WindowActionName {
        /// Set the tab's zoom.
        Zoom => "zoom",
        /// Resize the browser window containing the tab.
        Resize => "resize",
    }
}

const ACTION: Field = Field::required(
    "action",
    FieldType::Choice { values: WindowActionName::NAMES, default: None },
    "What to change.",
);
const PERCENT: Field =
    Field::optional("percent", FieldType::Integer(limits::ZOOM_PERCENT), "Zoom percent (zoom).");
const WIDTH: Field =
    Field::optional("width", FieldType::Integer(limits::WINDOW_WIDTH), "Window width px (resize).");
const HEIGHT: Field =
    Field::optional("height", FieldType::Integer(limits::WINDOW_HEIGHT), "Window height px (resize).");

const GEOMETRY_MEMBERS: [Fact; 5] = [
    Fact::new("zoom", FactType::Integer, "Tab zoom percent."),
    Fact::new("window_width", FactType::Integer, "Window width (px)."),
    Fact::new("window_height", FactType::Integer, "Window height (px)."),
    Fact::new("viewport_width", FactType::Integer, "Viewport width (CSS px)."),
    Fact::new("viewport_height", FactType::Integer, "Viewport height (CSS px)."),
];

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    ACTION: Str("action", "zoom or resize."),
    PERCENT: NullableInt("percent", "Requested zoom (zoom)."),
    WIDTH: NullableInt("width", "Requested window width (resize)."),
    HEIGHT: NullableInt("height", "Requested window height (resize)."),
    OBSERVED: Json(
        "observed",
        FactType::Object(&super::GEOMETRY_MEMBERS),
        "Geometry observed afterwards."
    ),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Window,
    description: "Set a tab's zoom or resize its browser window.",
    fields: &[ACTION, TAB, PERCENT, WIDTH, HEIGHT],
    example: r#"{"action":"zoom","percent":100}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: false, idempotent: true, open_world: false },
};

/// One decoded window change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowAction {
    /// Set the tab's zoom.
    Zoom {
        /// Zoom percent.
        percent: u64,
    },
    /// Resize the containing window (affects every tab in it).
    Resize {
        /// Window width in pixels.
        width: u64,
        /// Window height in pixels.
        height: u64,
    },
}

impl WindowAction {
    /// The wire name of the change.
    pub fn name(self) -> WindowActionName {
        match self {
            WindowAction::Zoom { .. } => WindowActionName::Zoom,
            WindowAction::Resize { .. } => WindowActionName::Resize,
        }
    }
}

/// A decoded `browser_window` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowRequest {
    /// The explicitly named tab; `None` selects the default tab.
    pub tab: Option<Handle>,
    /// The change and its values.
    pub action: WindowAction,
}

impl Tool for WindowRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;

    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError> {
        decode(reader)
    }

    /// zoom: `read`; resize: none.
    fn capabilities(&self) -> CapabilitySet {
        match self.action {
            WindowAction::Zoom { .. } => CapabilitySet::of(&[Capability::Read]),
            WindowAction::Resize { .. } => CapabilitySet::EMPTY,
        }
    }

    /// The explicitly named tab.
    fn tab(&self) -> Option<&Handle> {
        self.tab.as_ref()
    }

    /// Zoom is tab-bound (it reads the page); resize is window geometry, no page.
    fn tab_bound(&self) -> bool {
        !self.capabilities().is_empty()
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<WindowRequest, DecodeError> {
    let action = reader.choice::<WindowActionName>(&ACTION)?;
    let tab = reader.handle(&TAB)?;
    let percent = reader.int(&PERCENT)?;
    let width = reader.int(&WIDTH)?;
    let height = reader.int(&HEIGHT)?;
    let action = action.ok_or_else(|| reader.missing(&ACTION))?;
    let action = match action {
        WindowActionName::Zoom => {
            if width.is_some() {
                return Err(reader.not_here(&WIDTH, "is valid only for resize"));
            }
            if height.is_some() {
                return Err(reader.not_here(&HEIGHT, "is valid only for resize"));
            }
            WindowAction::Zoom { percent: percent.ok_or_else(|| reader.missing(&PERCENT))? }
        }
        WindowActionName::Resize => {
            if percent.is_some() {
                return Err(reader.not_here(&PERCENT, "is valid only for zoom"));
            }
            WindowAction::Resize {
                width: width.ok_or_else(|| reader.missing(&WIDTH))?,
                height: height.ok_or_else(|| reader.missing(&HEIGHT))?,
            }
        }
    };
    Ok(WindowRequest { tab, action })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::{Value, json};

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::tools::testing::{accept, int_edges, refuse};

    const T: ToolName = ToolName::Window;

    /// Decode, check every declared field was read, and return the typed request.
    fn decoded(arguments: Value) -> WindowRequest {
        let request = accept(T, arguments);
        match request {
            Request::Window(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    #[test]
    fn branches_and_capabilities() {
        let zoom = decoded(json!({"action": "zoom", "percent": 150}));
        assert_eq!(zoom, WindowRequest { tab: None, action: WindowAction::Zoom { percent: 150 } });
        assert_eq!(zoom.capabilities(), CapabilitySet::of(&[Capability::Read]));
        assert_eq!(zoom.action.name().as_str(), "zoom");

        let resize = decoded(json!({"action": "resize", "width": 1280, "height": 800, "tab": "tab_3"}));
        assert_eq!(resize.action, WindowAction::Resize { width: 1280, height: 800 });
        assert_eq!(resize.tab().map(Handle::as_str), Some("tab_3"));
        assert_eq!(resize.capabilities(), CapabilitySet::EMPTY);
        assert_eq!(resize.action.name(), WindowActionName::Resize);

        assert_eq!(
            decoded(json!({"action": "zoom", "percent": 80, "tab": "tab_1"})).tab().map(Handle::as_str),
            Some("tab_1")
        );
        assert_eq!(decoded(DECLARATION.example()).action, WindowAction::Zoom { percent: 100 });
    }

    #[test]
    fn refusals() {
        refuse(T, json!({}), "/action", K::MissingField);
        refuse(T, json!({"percent": 100}), "/action", K::MissingField);
        refuse(T, json!({"action": "maximize"}), "/action", K::NotAllowed);
        refuse(T, json!({"action": "zoom"}), "/percent", K::MissingField);
        refuse(T, json!({"action": "resize", "height": 800}), "/width", K::MissingField);
        refuse(T, json!({"action": "resize", "width": 1280}), "/height", K::MissingField);
        refuse(T, json!({"action": "resize"}), "/width", K::MissingField);
        let error =
            refuse(T, json!({"action": "zoom", "percent": 100, "width": 1280}), "/width", K::Conflict);
        assert_eq!(error.message(), "/width is valid only for resize");
        refuse(T, json!({"action": "zoom", "percent": 100, "height": 800}), "/height", K::Conflict);
        let error = refuse(
            T,
            json!({"action": "resize", "width": 1280, "height": 800, "percent": 100}),
            "/percent",
            K::Conflict,
        );
        assert_eq!(error.message(), "/percent is valid only for zoom");
        refuse(T, json!({"action": "zoom", "percent": 100, "tab": "target_1"}), "/tab", K::InvalidHandle);
        refuse(
            T,
            json!({"action": "zoom", "percent": 100, "timeout_ms": 1000}),
            "/timeout_ms",
            K::UnknownField,
        );
        refuse(T, json!({"action": "zoom", "percent": 100, "scale": 2}), "/scale", K::UnknownField);
    }

    #[test]
    fn bound_edges() {
        int_edges(T, json!({"action": "zoom"}), "percent", limits::ZOOM_PERCENT);
        int_edges(T, json!({"action": "resize", "height": 800}), "width", limits::WINDOW_WIDTH);
        int_edges(T, json!({"action": "resize", "width": 1280}), "height", limits::WINDOW_HEIGHT);
    }
}
