//! `browser_scroll`: scroll in a direction, reveal a semantic target, or turn the wheel at a
//! point in a current screenshot.

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
use crate::vocab::ScrollDirection;
use crate::vocab::WireChoice;
use crate::vocab::wire_choice;

wire_choice! {
    /// How far a directional scroll moves.
    pub enum ScrollAmount {
        /// A short step.
        Small => "small",
        /// A few lines.
        Medium => "medium",
        /// Most of a viewport.
        Large => "large",
        /// One whole viewport.
        Page => "page",
    }
}

/// Which way the wheel turns at a point: the wheel branch is two-way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WheelDirection {
    /// Wheel up (content moves down).
    Up,
    /// Wheel down (content moves up).
    Down,
}

const DIRECTION: Field = Field::optional(
    "direction",
    FieldType::Choice { values: ScrollDirection::NAMES, default: Some("down") },
    "Direction; with view only up/down.",
);
const AMOUNT: Field = Field::optional(
    "amount",
    FieldType::Choice { values: ScrollAmount::NAMES, default: Some("medium") },
    "Distance (not with view).",
);
const TICKS: Field =
    Field::optional("ticks", FieldType::Integer(limits::SCROLL_TICKS), "Wheel ticks at view x,y.");

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    TARGET: Str("target", "Target revealed, when one was given."),
    SCROLLED: Bool("scrolled", "The page or a container moved."),
    OFFSET_X: Int("offset_x", "Observed horizontal scroll offset (px)."),
    OFFSET_Y: Int("offset_y", "Observed vertical scroll offset (px)."),
    DIRECTION: Str("direction", "Scroll direction."),
    AMOUNT: Str("amount", "Scroll amount."),
    TICKS: Int("ticks", "Wheel ticks."),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Scroll,
    description: "Scroll the page, reveal a target, or turn the wheel at a screenshot point.",
    fields: &[TARGET, SELECTOR, DIRECTION, AMOUNT, VIEW, X, Y, TICKS, TAB, TIMEOUT_MS],
    example: "{}",
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: false, idempotent: false, open_world: true },
};

/// The one scroll branch a call selected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScrollAction {
    /// Scroll until this target is in view.
    Reveal(TargetRef),
    /// Scroll the page (or its main scroller) by an amount in a direction.
    Step {
        /// Which way.
        direction: ScrollDirection,
        /// How far.
        amount: ScrollAmount,
    },
    /// Turn the mouse wheel at a point in a current view.
    Wheel {
        /// Where the pointer rests while the wheel turns.
        point: ViewPoint,
        /// Which way the wheel turns.
        direction: WheelDirection,
        /// How many wheel ticks.
        ticks: u64,
    },
}

/// A decoded `browser_scroll` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScrollRequest {
    /// What to scroll and how.
    pub action: ScrollAction,
    /// The explicitly named tab, if any (accepted in every branch).
    pub tab: Option<Handle>,
    /// Timeout in milliseconds.
    pub timeout_ms: u64,
}

impl Tool for ScrollRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;

    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError> {
        decode(reader)
    }

    /// `read`, in every branch.
    fn capabilities(&self) -> CapabilitySet {
        CapabilitySet::of(&[Capability::Read])
    }

    /// The explicitly named tab.
    fn tab(&self) -> Option<&Handle> {
        self.tab.as_ref()
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<ScrollRequest, DecodeError> {
    let target = read_target(reader, &TARGET, &SELECTOR)?;
    let direction = reader.choice::<ScrollDirection>(&DIRECTION)?;
    let amount = reader.choice::<ScrollAmount>(&AMOUNT)?;
    let view = reader.handle(&VIEW)?;
    let x = reader.int(&X)?;
    let y = reader.int(&Y)?;
    let ticks = reader.int(&TICKS)?;
    let tab = reader.handle(&TAB)?;
    let timeout_ms = read_timeout(reader)?;

    let wheel_fields: [(&'static Field, bool); 4] =
        [(&VIEW, view.is_some()), (&X, x.is_some()), (&Y, y.is_some()), (&TICKS, ticks.is_some())];
    let action = if let Some(target) = target {
        let named = if matches!(target, TargetRef::Handle(_)) { &TARGET } else { &SELECTOR };
        let step_fields = [(&DIRECTION, direction.is_some()), (&AMOUNT, amount.is_some())];
        if let Some((field, _)) = step_fields.iter().chain(wheel_fields.iter()).find(|(_, present)| *present)
        {
            return Err(reader.conflict(field, named));
        }
        ScrollAction::Reveal(target)
    } else if wheel_fields.iter().any(|(_, present)| *present) {
        let (Some(view), Some(x), Some(y), Some(ticks)) = (view, x, y, ticks) else {
            let first_absent = wheel_fields.iter().find(|(_, present)| !*present).map_or(&VIEW, |(f, _)| *f);
            return Err(reader.missing(first_absent));
        };
        if amount.is_some() {
            return Err(reader.not_here(&AMOUNT, "is not valid with view: the wheel moves by ticks"));
        }
        let direction = match direction.unwrap_or(ScrollDirection::Down) {
            ScrollDirection::Up => WheelDirection::Up,
            ScrollDirection::Down => WheelDirection::Down,
            other => {
                return Err(reader.invalid(
                    &DIRECTION,
                    DecodeErrorKind::NotAllowed,
                    format_args!(
                        "must be \"up\" or \"down\" with view: wheel input is two-way (got {:?})",
                        other.as_str()
                    ),
                ));
            }
        };
        ScrollAction::Wheel { point: ViewPoint { view, x, y }, direction, ticks }
    } else {
        ScrollAction::Step {
            direction: direction.unwrap_or(ScrollDirection::Down),
            amount: amount.unwrap_or(ScrollAmount::Medium),
        }
    };
    Ok(ScrollRequest { action, tab, timeout_ms })
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

    const T: ToolName = ToolName::Scroll;

    fn decoded(arguments: Value) -> ScrollRequest {
        match accept(T, arguments) {
            Request::Scroll(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    #[test]
    fn directional_branch_and_defaults() {
        let request = decoded(DECLARATION.example());
        assert_eq!(
            request.action,
            ScrollAction::Step { direction: ScrollDirection::Down, amount: ScrollAmount::Medium }
        );
        assert_eq!((request.tab(), request.timeout_ms), (None, 8_000));
        assert_eq!(request.capabilities(), CapabilitySet::of(&[Capability::Read]));
        for (wire, direction) in [
            ("up", ScrollDirection::Up),
            ("down", ScrollDirection::Down),
            ("left", ScrollDirection::Left),
            ("right", ScrollDirection::Right),
        ] {
            let request = decoded(json!({"direction": wire}));
            assert_eq!(request.action, ScrollAction::Step { direction, amount: ScrollAmount::Medium });
        }
        for (wire, amount) in [
            ("small", ScrollAmount::Small),
            ("medium", ScrollAmount::Medium),
            ("large", ScrollAmount::Large),
            ("page", ScrollAmount::Page),
        ] {
            let request = decoded(json!({"amount": wire, "tab": "tab_1"}));
            assert_eq!(request.action, ScrollAction::Step { direction: ScrollDirection::Down, amount });
            assert_eq!(request.tab(), Some(&handle("tab_1", HandleKind::Tab)));
        }
    }

    #[test]
    fn reveal_branch() {
        let request = decoded(json!({"target": "target_1", "tab": "tab_1", "timeout_ms": 500}));
        assert_eq!(
            request.action,
            ScrollAction::Reveal(TargetRef::Handle(handle("target_1", HandleKind::Target)))
        );
        assert_eq!(request.tab(), Some(&handle("tab_1", HandleKind::Tab)));
        assert_eq!(request.timeout_ms, 500);
        let request = decoded(json!({"selector": {"name": "Terms", "exact": true}}));
        assert_eq!(
            request.action,
            ScrollAction::Reveal(TargetRef::Selector(Selector {
                name: "Terms".into(),
                role: None,
                exact: true
            }))
        );
    }

    #[test]
    fn wheel_branch() {
        let base = json!({"view": "view_1", "x": 10, "y": 20, "ticks": 3, "tab": "tab_1"});
        let point = ViewPoint { view: handle("view_1", HandleKind::View), x: 10, y: 20 };
        let request = decoded(base.clone());
        assert_eq!(
            request.action,
            ScrollAction::Wheel { point: point.clone(), direction: WheelDirection::Down, ticks: 3 }
        );
        assert_eq!(request.tab(), Some(&handle("tab_1", HandleKind::Tab)));
        assert_eq!(
            decoded(with(&base, "direction", json!("up"))).action,
            ScrollAction::Wheel { point: point.clone(), direction: WheelDirection::Up, ticks: 3 }
        );
        assert_eq!(
            decoded(with(&base, "direction", json!("down"))).action,
            ScrollAction::Wheel { point, direction: WheelDirection::Down, ticks: 3 }
        );
    }

    #[test]
    fn reveal_conflicts() {
        let target = json!({"target": "target_1"});
        for (field, value) in [
            ("direction", json!("down")),
            ("amount", json!("medium")),
            ("view", json!("view_1")),
            ("x", json!(1)),
            ("y", json!(1)),
            ("ticks", json!(1)),
        ] {
            let error = refuse(T, with(&target, field, value.clone()), &format!("/{field}"), K::Conflict);
            assert!(error.message().ends_with("cannot be combined with /target"), "{error}");
            let selector = json!({"selector": {"name": "Terms"}});
            let error = refuse(T, with(&selector, field, value), &format!("/{field}"), K::Conflict);
            assert!(error.message().ends_with("cannot be combined with /selector"), "{error}");
        }
        refuse(T, json!({"target": "target_1", "selector": {"name": "Terms"}}), "/selector", K::Conflict);
    }

    #[test]
    fn wheel_refusals() {
        refuse(T, json!({"ticks": 3}), "/view", K::MissingField);
        refuse(T, json!({"x": 1, "y": 1, "ticks": 3}), "/view", K::MissingField);
        refuse(T, json!({"view": "view_1"}), "/x", K::MissingField);
        refuse(T, json!({"view": "view_1", "x": 1, "ticks": 3}), "/y", K::MissingField);
        refuse(T, json!({"view": "view_1", "x": 1, "y": 1}), "/ticks", K::MissingField);
        let base = json!({"view": "view_1", "x": 1, "y": 1, "ticks": 3});
        for direction in ["left", "right"] {
            let error = refuse(T, with(&base, "direction", json!(direction)), "/direction", K::NotAllowed);
            assert_eq!(
                error.message(),
                format!(
                    "/direction must be \"up\" or \"down\" with view: wheel input is two-way (got \"{direction}\")"
                )
            );
        }
        refuse(T, with(&base, "amount", json!("medium")), "/amount", K::Conflict);
        refuse(T, with(&base, "view", json!("target_1")), "/view", K::InvalidHandle);
    }

    #[test]
    fn value_refusals() {
        refuse(T, json!({"direction": "sideways"}), "/direction", K::NotAllowed);
        refuse(T, json!({"direction": "Up"}), "/direction", K::NotAllowed);
        refuse(T, json!({"amount": "huge"}), "/amount", K::NotAllowed);
        refuse(T, json!({"amount": 3}), "/amount", K::WrongType);
        refuse(T, json!({"tab": "view_1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"target": "tab_1"}), "/target", K::InvalidHandle);
        refuse(
            T,
            json!({"selector": {"name": "Terms", "roles": "link"}}),
            "/selector/roles",
            K::UnknownField,
        );
        refuse(T, json!({"pixels": 300}), "/pixels", K::UnknownField);
    }

    #[test]
    fn bounds() {
        let wheel = json!({"view": "view_1", "x": 1, "y": 1, "ticks": 3});
        int_edges(T, wheel.clone(), "ticks", limits::SCROLL_TICKS);
        int_edges(T, wheel.clone(), "x", limits::COORDINATE);
        int_edges(T, wheel.clone(), "y", limits::COORDINATE);
        int_edges(T, wheel, "timeout_ms", limits::TIMEOUT_MS);
        int_edges(T, json!({}), "timeout_ms", limits::TIMEOUT_MS);
        int_edges(T, json!({"target": "target_1"}), "timeout_ms", limits::TIMEOUT_MS);
    }
}
