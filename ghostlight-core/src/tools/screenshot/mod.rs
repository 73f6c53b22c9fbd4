//! `browser_screenshot`: capture the viewport, the full page, one target, or a magnified region
//! of a current view. Every capture returns a view handle.

pub(crate) mod op;

use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, DecodeErrorKind, ObjectReader};
use crate::facts::tool_facts;
use crate::handles::Handle;
use crate::limits;
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::common::{
    SELECTOR, TAB, TARGET, TIMEOUT_MS, TargetRef, VIEW, ViewPoint, X, Y, read_target, read_timeout,
};

const FULL_PAGE: Field =
    Field::optional("full_page", FieldType::Bool { default: Some(false) }, "Capture the whole page.");
const WIDTH: Field = Field::optional("width", FieldType::Integer(limits::REGION_SIZE), "Region width (px).");
const HEIGHT: Field =
    Field::optional("height", FieldType::Integer(limits::REGION_SIZE), "Region height (px).");

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    VIEW: Str("view", "View handle for coordinates and regions."),
    MIME_TYPE: Str("mime_type", "Image MIME type."),
    WIDTH: Int("width", "Image width (px)."),
    HEIGHT: Int("height", "Image height (px)."),
    DOWNSCALED: Bool("downscaled", "Present when the image was scaled down to stay within the image-size bound."),
    PARENT_VIEW: Str("parent_view", "View the region was cut from."),
    X: Int("x", "Region left (px)."),
    Y: Int("y", "Region top (px)."),
    REGION_WIDTH: Int("region_width", "Region width (px)."),
    REGION_HEIGHT: Int("region_height", "Region height (px)."),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Screenshot,
    description: "Capture the viewport, full page, a target, or a view region (view, x, y, width, height).",
    fields: &[TAB, FULL_PAGE, TARGET, SELECTOR, VIEW, X, Y, WIDTH, HEIGHT, TIMEOUT_MS],
    example: "{}",
    facts: facts::ALL,
    annotations: Annotations { read_only: true, destructive: false, idempotent: true, open_world: true },
};

/// A region of a current view, in that view's image pixels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// The view and the region's top-left corner.
    pub origin: ViewPoint,
    /// Region width (positive).
    pub width: u64,
    /// Region height (positive).
    pub height: u64,
}

/// What one screenshot captures: exactly one of the four branches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Capture {
    /// The current viewport (also `full_page: false`).
    Viewport,
    /// The whole page (`full_page: true`).
    FullPage,
    /// One target, by handle or selector.
    Target(TargetRef),
    /// A magnified region of a current view (the executor checks it lies wholly inside).
    Region(Region),
}

/// A decoded `browser_screenshot` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenshotRequest {
    /// The explicitly named tab; `None` selects the default tab.
    pub tab: Option<Handle>,
    /// What to capture.
    pub capture: Capture,
    /// Timeout in milliseconds.
    pub timeout_ms: u64,
}

impl Tool for ScreenshotRequest {
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

const REGION_RULE: &str = "is required for a region capture (view, x, y, width, height)";

fn decode(reader: &mut ObjectReader<'_>) -> Result<ScreenshotRequest, DecodeError> {
    let tab = reader.handle(&TAB)?;
    let full_page = reader.bool_or_default(&FULL_PAGE)?;
    let target = read_target(reader, &TARGET, &SELECTOR)?;
    let view = reader.handle(&VIEW)?;
    let x = reader.int(&X)?;
    let y = reader.int(&Y)?;
    let width = reader.int(&WIDTH)?;
    let height = reader.int(&HEIGHT)?;
    let timeout_ms = read_timeout(reader)?;

    // Any two of full page, target and region are refused, naming the later branch's field.
    let target_field = match target {
        Some(TargetRef::Handle(_)) => Some(&TARGET),
        Some(TargetRef::Selector(_)) => Some(&SELECTOR),
        None => None,
    };
    let region_field = [
        (&VIEW, view.is_some()),
        (&X, x.is_some()),
        (&Y, y.is_some()),
        (&WIDTH, width.is_some()),
        (&HEIGHT, height.is_some()),
    ]
    .into_iter()
    .find_map(|(field, present)| present.then_some(field));
    if full_page && let Some(field) = target_field.or(region_field) {
        return Err(reader.conflict(field, &FULL_PAGE));
    }
    if let (Some(field), Some(target_field)) = (region_field, target_field) {
        return Err(reader.conflict(field, target_field));
    }

    let capture = match (target, region_field) {
        (Some(target), _) => Capture::Target(target),
        (None, Some(_)) => match (view, x, y, width, height) {
            (Some(view), Some(x), Some(y), Some(width), Some(height)) => {
                Capture::Region(Region { origin: ViewPoint { view, x, y }, width, height })
            }
            (None, ..) => return Err(reader.invalid(&VIEW, DecodeErrorKind::MissingField, REGION_RULE)),
            (_, None, ..) => return Err(reader.invalid(&X, DecodeErrorKind::MissingField, REGION_RULE)),
            (_, _, None, ..) => return Err(reader.invalid(&Y, DecodeErrorKind::MissingField, REGION_RULE)),
            (.., None, _) => return Err(reader.invalid(&WIDTH, DecodeErrorKind::MissingField, REGION_RULE)),
            (.., None) => return Err(reader.invalid(&HEIGHT, DecodeErrorKind::MissingField, REGION_RULE)),
        },
        (None, None) if full_page => Capture::FullPage,
        (None, None) => Capture::Viewport,
    };
    Ok(ScreenshotRequest { tab, capture, timeout_ms })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::{Value, json};

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::handles::HandleKind;
    use crate::selector::Selector;
    use crate::tools::testing::{accept, int_edges, refuse, with};

    const T: ToolName = ToolName::Screenshot;

    /// Decode, check every declared field was read, and return the typed request.
    fn decoded(arguments: Value) -> ScreenshotRequest {
        let request = accept(T, arguments);
        match request {
            Request::Screenshot(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    fn handle(text: &str, kind: HandleKind) -> Handle {
        Handle::parse(text, kind).unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    fn region() -> Value {
        json!({"view": "view_1", "x": 10, "y": 20, "width": 300, "height": 200})
    }

    #[test]
    fn branches() {
        let viewport = decoded(DECLARATION.example());
        assert_eq!(viewport, ScreenshotRequest { tab: None, capture: Capture::Viewport, timeout_ms: 8_000 });
        assert_eq!(viewport.capabilities(), CapabilitySet::of(&[Capability::Read]));
        assert_eq!(decoded(json!({"full_page": false})).capture, Capture::Viewport);
        let tabbed = decoded(json!({"tab": "tab_1", "timeout_ms": 100}));
        assert_eq!(tabbed.tab(), Some(&handle("tab_1", HandleKind::Tab)));
        assert_eq!(tabbed.timeout_ms, 100);

        assert_eq!(decoded(json!({"full_page": true, "tab": "tab_1"})).capture, Capture::FullPage);

        assert_eq!(
            decoded(json!({"target": "target_3"})).capture,
            Capture::Target(TargetRef::Handle(handle("target_3", HandleKind::Target)))
        );
        assert_eq!(
            decoded(json!({"selector": {"name": "Chart"}, "full_page": false})).capture,
            Capture::Target(TargetRef::Selector(Selector { name: "Chart".into(), role: None, exact: false }))
        );
        assert!(matches!(
            decoded(json!({"target": "target_3", "full_page": false})).capture,
            Capture::Target(_)
        ));

        let expected = Capture::Region(Region {
            origin: ViewPoint { view: handle("view_1", HandleKind::View), x: 10, y: 20 },
            width: 300,
            height: 200,
        });
        assert_eq!(decoded(region()).capture, expected);
        assert_eq!(decoded(with(&region(), "full_page", json!(false))).capture, expected);
        let tabbed = decoded(with(&with(&region(), "tab", json!("tab_2")), "timeout_ms", json!(30_000)));
        assert_eq!((tabbed.tab().map(Handle::as_str), tabbed.timeout_ms), (Some("tab_2"), 30_000));
    }

    #[test]
    fn branch_conflicts() {
        let error = refuse(T, json!({"full_page": true, "target": "target_1"}), "/target", K::Conflict);
        assert_eq!(error.message(), "/target cannot be combined with /full_page");
        refuse(T, json!({"full_page": true, "selector": {"name": "Chart"}}), "/selector", K::Conflict);
        refuse(T, with(&region(), "full_page", json!(true)), "/view", K::Conflict);
        refuse(T, json!({"full_page": true, "x": 5}), "/x", K::Conflict);
        refuse(T, json!({"full_page": true, "height": 5}), "/height", K::Conflict);
        let error = refuse(T, with(&region(), "target", json!("target_1")), "/view", K::Conflict);
        assert_eq!(error.message(), "/view cannot be combined with /target");
        refuse(T, json!({"selector": {"name": "Chart"}, "width": 10}), "/width", K::Conflict);
        refuse(T, json!({"full_page": true, "target": "target_1", "view": "view_1"}), "/target", K::Conflict);
        refuse(T, json!({"target": "target_1", "selector": {"name": "Chart"}}), "/selector", K::Conflict);
    }

    #[test]
    fn region_requires_every_member() {
        for member in ["view", "x", "y", "width", "height"] {
            let mut partial = region();
            if let Value::Object(map) = &mut partial {
                map.remove(member);
            }
            let error = refuse(T, partial, &format!("/{member}"), K::MissingField);
            assert!(error.message().ends_with(REGION_RULE), "{error}");
        }
        refuse(T, json!({"width": 10, "height": 10}), "/view", K::MissingField);
        refuse(T, json!({"view": "view_1"}), "/x", K::MissingField);
    }

    #[test]
    fn refusals() {
        refuse(T, with(&region(), "view", json!("target_1")), "/view", K::InvalidHandle);
        refuse(T, json!({"target": "view_1"}), "/target", K::InvalidHandle);
        refuse(T, json!({"tab": "view_1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"full_page": "true"}), "/full_page", K::WrongType);
        refuse(T, json!({"selector": {"name": "Chart", "nth": 2}}), "/selector/nth", K::UnknownField);
        refuse(T, json!({"format": "png"}), "/format", K::UnknownField);
    }

    #[test]
    fn bound_edges() {
        int_edges(T, json!({}), "timeout_ms", limits::TIMEOUT_MS);
        int_edges(T, json!({"full_page": true}), "timeout_ms", limits::TIMEOUT_MS);
        int_edges(T, region(), "timeout_ms", limits::TIMEOUT_MS);
        int_edges(T, region(), "x", limits::COORDINATE);
        int_edges(T, region(), "y", limits::COORDINATE);
        int_edges(T, region(), "width", limits::REGION_SIZE);
        int_edges(T, region(), "height", limits::REGION_SIZE);
    }
}
