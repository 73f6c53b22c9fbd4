//! `browser_drag`: drag one semantic target to another, or between two points in a current
//! screenshot.

pub(crate) mod op;

use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, ObjectReader};
use crate::facts::tool_facts;
use crate::handles::{Handle, HandleKind};
use crate::limits;
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::common::{TAB, TIMEOUT_MS, TargetRef, VIEW, read_target, read_timeout};

const SOURCE_TARGET: Field =
    Field::optional("source_target", FieldType::Handle(HandleKind::Target), "Target to drag.");
const SOURCE_SELECTOR: Field =
    Field::optional("source_selector", FieldType::Selector, "Control to drag, by name.");
const DESTINATION_TARGET: Field =
    Field::optional("destination_target", FieldType::Handle(HandleKind::Target), "Target to drop on.");
const DESTINATION_SELECTOR: Field =
    Field::optional("destination_selector", FieldType::Selector, "Control to drop on, by name.");
const START_X: Field = Field::optional("start_x", FieldType::Integer(limits::COORDINATE), "Start image x.");
const START_Y: Field = Field::optional("start_y", FieldType::Integer(limits::COORDINATE), "Start image y.");
const END_X: Field = Field::optional("end_x", FieldType::Integer(limits::COORDINATE), "End image x.");
const END_Y: Field = Field::optional("end_y", FieldType::Integer(limits::COORDINATE), "End image y.");

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    DRAGGED: Bool("dragged", "The drag was delivered."),
    SOURCE_TARGET: Str("source_target", "Source target handle, when targets were used."),
    DESTINATION_TARGET: Str("destination_target", "Destination target handle, when targets were used."),
    VIEW: Str("view", "View of the points, when points were used."),
    LANDING: Json = crate::tools::common::LANDING,
    OPENED_TABS: Json = crate::tools::common::OPENED_TABS,
    CLOSED_TABS: Int = crate::tools::common::CLOSED_TABS,
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Drag,
    description: "Drag one target onto another, or between two points in a screenshot.",
    fields: &[
        SOURCE_TARGET,
        SOURCE_SELECTOR,
        DESTINATION_TARGET,
        DESTINATION_SELECTOR,
        VIEW,
        START_X,
        START_Y,
        END_X,
        END_Y,
        TAB,
        TIMEOUT_MS,
    ],
    example: r#"{"source_target":"target_1","destination_target":"target_2"}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
};

/// A point in a view's image, in pixels from the top-left `(0, 0)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pixel {
    /// Image x.
    pub x: u64,
    /// Image y.
    pub y: u64,
}

/// The one drag branch a call selected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DragPath {
    /// Drag a semantic target onto another.
    Targets {
        /// What is dragged.
        source: TargetRef,
        /// Where it is dropped.
        destination: TargetRef,
    },
    /// Drag between two points of one current view.
    Points {
        /// The view both points refer to.
        view: Handle,
        /// Where the drag starts.
        start: Pixel,
        /// Where the drag ends.
        end: Pixel,
    },
}

/// A decoded `browser_drag` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DragRequest {
    /// What is dragged where.
    pub path: DragPath,
    /// The explicitly named tab, if any.
    pub tab: Option<Handle>,
    /// Timeout in milliseconds.
    pub timeout_ms: u64,
}

impl Tool for DragRequest {
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

fn decode(reader: &mut ObjectReader<'_>) -> Result<DragRequest, DecodeError> {
    let source = read_target(reader, &SOURCE_TARGET, &SOURCE_SELECTOR)?;
    let destination = read_target(reader, &DESTINATION_TARGET, &DESTINATION_SELECTOR)?;
    let view = reader.handle(&VIEW)?;
    let start_x = reader.int(&START_X)?;
    let start_y = reader.int(&START_Y)?;
    let end_x = reader.int(&END_X)?;
    let end_y = reader.int(&END_Y)?;
    let tab = reader.handle(&TAB)?;
    let timeout_ms = read_timeout(reader)?;

    let target_fields: [(&'static Field, bool); 4] = [
        (&SOURCE_TARGET, matches!(source, Some(TargetRef::Handle(_)))),
        (&SOURCE_SELECTOR, matches!(source, Some(TargetRef::Selector(_)))),
        (&DESTINATION_TARGET, matches!(destination, Some(TargetRef::Handle(_)))),
        (&DESTINATION_SELECTOR, matches!(destination, Some(TargetRef::Selector(_)))),
    ];
    let point_fields: [(&'static Field, bool); 5] = [
        (&VIEW, view.is_some()),
        (&START_X, start_x.is_some()),
        (&START_Y, start_y.is_some()),
        (&END_X, end_x.is_some()),
        (&END_Y, end_y.is_some()),
    ];
    let first_target = target_fields.iter().find(|(_, present)| *present).map(|(f, _)| *f);
    let first_point = point_fields.iter().find(|(_, present)| *present).map(|(f, _)| *f);
    let path = match (first_target, first_point) {
        (Some(target), Some(point)) => return Err(reader.conflict(point, target)),
        (Some(_), None) => {
            let source = source.ok_or_else(|| reader.missing_one_of(&[&SOURCE_TARGET, &SOURCE_SELECTOR]))?;
            let destination = destination
                .ok_or_else(|| reader.missing_one_of(&[&DESTINATION_TARGET, &DESTINATION_SELECTOR]))?;
            DragPath::Targets { source, destination }
        }
        (None, Some(_)) => match (view, start_x, start_y, end_x, end_y) {
            (Some(view), Some(start_x), Some(start_y), Some(end_x), Some(end_y)) => DragPath::Points {
                view,
                start: Pixel { x: start_x, y: start_y },
                end: Pixel { x: end_x, y: end_y },
            },
            _ => {
                let absent = point_fields.iter().find(|(_, present)| !*present).map_or(&VIEW, |(f, _)| *f);
                return Err(reader.missing(absent));
            }
        },
        (None, None) => return Err(reader.missing_one_of(&[&SOURCE_TARGET, &SOURCE_SELECTOR, &VIEW])),
    };
    Ok(DragRequest { path, tab, timeout_ms })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::{Value, json};

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::selector::{Role, Selector};
    use crate::tools::testing::{accept, handle, int_edges, refuse, with};

    const T: ToolName = ToolName::Drag;

    fn decoded(arguments: Value) -> DragRequest {
        match accept(T, arguments) {
            Request::Drag(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    fn target(text: &str) -> TargetRef {
        TargetRef::Handle(handle(text, HandleKind::Target))
    }

    fn selector(name: &str) -> TargetRef {
        TargetRef::Selector(Selector { name: name.into(), role: None, exact: false })
    }

    fn points() -> Value {
        json!({"view": "view_1", "start_x": 1, "start_y": 2, "end_x": 3, "end_y": 4})
    }

    #[test]
    fn target_branch() {
        let request = decoded(DECLARATION.example());
        assert_eq!(
            request.path,
            DragPath::Targets { source: target("target_1"), destination: target("target_2") }
        );
        assert_eq!((request.tab(), request.timeout_ms), (None, 8_000));
        assert_eq!(request.capabilities(), CapabilitySet::of(&[Capability::Action]));
        let request = decoded(json!({
            "source_selector": {"name": "Card"},
            "destination_selector": {"name": "Done", "role": "listbox"},
            "tab": "tab_1",
        }));
        assert_eq!(
            request.path,
            DragPath::Targets {
                source: selector("Card"),
                destination: TargetRef::Selector(Selector {
                    name: "Done".into(),
                    role: Some(Role::Listbox),
                    exact: false
                }),
            }
        );
        assert_eq!(request.tab(), Some(&handle("tab_1", HandleKind::Tab)));
        let request = decoded(json!({"source_target": "target_1", "destination_selector": {"name": "Bin"}}));
        assert_eq!(
            request.path,
            DragPath::Targets { source: target("target_1"), destination: selector("Bin") }
        );
        let request = decoded(json!({"source_selector": {"name": "Card"}, "destination_target": "target_9"}));
        assert_eq!(
            request.path,
            DragPath::Targets { source: selector("Card"), destination: target("target_9") }
        );
    }

    #[test]
    fn point_branch() {
        let request = decoded(with(&points(), "timeout_ms", json!(250)));
        assert_eq!(
            request.path,
            DragPath::Points {
                view: handle("view_1", HandleKind::View),
                start: Pixel { x: 1, y: 2 },
                end: Pixel { x: 3, y: 4 },
            }
        );
        assert_eq!(request.timeout_ms, 250);
    }

    #[test]
    fn target_refusals() {
        refuse(T, json!({}), "/source_target", K::MissingField);
        refuse(T, json!({"tab": "tab_1"}), "/source_target", K::MissingField);
        refuse(T, json!({"destination_target": "target_2"}), "/source_target", K::MissingField);
        refuse(T, json!({"source_target": "target_1"}), "/destination_target", K::MissingField);
        refuse(T, json!({"source_selector": {"name": "Card"}}), "/destination_target", K::MissingField);
        refuse(
            T,
            json!({"source_target": "target_1", "source_selector": {"name": "Card"}, "destination_target": "target_2"}),
            "/source_selector",
            K::Conflict,
        );
        refuse(
            T,
            json!({"source_target": "target_1", "destination_target": "target_2", "destination_selector": {"name": "Bin"}}),
            "/destination_selector",
            K::Conflict,
        );
        refuse(
            T,
            json!({"source_target": "view_1", "destination_target": "target_2"}),
            "/source_target",
            K::InvalidHandle,
        );
        refuse(
            T,
            json!({"source_target": "target_1", "destination_target": "tab_2"}),
            "/destination_target",
            K::InvalidHandle,
        );
        refuse(
            T,
            json!({"source_selector": {"name": "Card", "exact": "yes"}, "destination_target": "target_2"}),
            "/source_selector/exact",
            K::WrongType,
        );
        refuse(
            T,
            json!({"source_target": "target_1", "destination_selector": {"nam": "Bin"}}),
            "/destination_selector/nam",
            K::UnknownField,
        );
        refuse(
            T,
            json!({"source": "target_1", "destination_target": "target_2"}),
            "/source",
            K::UnknownField,
        );
    }

    #[test]
    fn mixing_branches_conflicts() {
        for (field, value) in [
            ("view", json!("view_1")),
            ("start_x", json!(1)),
            ("start_y", json!(1)),
            ("end_x", json!(1)),
            ("end_y", json!(1)),
        ] {
            let example = DECLARATION.example();
            let error = refuse(T, with(&example, field, value.clone()), &format!("/{field}"), K::Conflict);
            assert!(error.message().ends_with("cannot be combined with /source_target"), "{error}");
            let only_destination = json!({"destination_selector": {"name": "Bin"}});
            let error = refuse(T, with(&only_destination, field, value), &format!("/{field}"), K::Conflict);
            assert!(error.message().ends_with("cannot be combined with /destination_selector"), "{error}");
        }
        let error =
            refuse(T, with(&points(), "source_selector", json!({"name": "Card"})), "/view", K::Conflict);
        assert!(error.message().ends_with("cannot be combined with /source_selector"), "{error}");
    }

    #[test]
    fn point_refusals() {
        for field in ["view", "start_x", "start_y", "end_x", "end_y"] {
            let mut partial = points();
            if let Value::Object(map) = &mut partial {
                map.remove(field);
            }
            refuse(T, partial, &format!("/{field}"), K::MissingField);
        }
        refuse(T, json!({"end_y": 4}), "/view", K::MissingField);
        refuse(T, json!({"view": "view_1"}), "/start_x", K::MissingField);
        refuse(T, with(&points(), "view", json!("target_1")), "/view", K::InvalidHandle);
        refuse(T, with(&points(), "x", json!(1)), "/x", K::UnknownField);
    }

    #[test]
    fn bounds() {
        for field in ["start_x", "start_y", "end_x", "end_y"] {
            int_edges(T, points(), field, limits::COORDINATE);
        }
        int_edges(T, points(), "timeout_ms", limits::TIMEOUT_MS);
        int_edges(T, DECLARATION.example(), "timeout_ms", limits::TIMEOUT_MS);
    }
}
