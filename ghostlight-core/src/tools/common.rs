//! Fields and typed pieces shared by several tools: tab, timeout, target/selector pairs,
//! view points.

use crate::decode::{DecodeError, ObjectReader};
use crate::facts::{Fact, FactType};
use crate::facts::{FactKey, Int, Json};
use crate::handles::HandleKind;
use crate::language;
use crate::limits::{self, CountBound};
use crate::operation::outcome::Outcome;
use crate::port::{PageState, Readiness};
use crate::schema::{Field, FieldType};
use crate::vocab::{Modifier, WireChoice};

/// Optional `tab` handle.
pub(crate) const TAB: Field = Field::optional("tab", FieldType::Handle(HandleKind::Tab), "Handle.");

/// Optional `timeout_ms`.
pub(crate) const TIMEOUT_MS: Field =
    Field::optional("timeout_ms", FieldType::Integer(limits::TIMEOUT_MS), "Timeout.");

/// Optional `target` handle.
pub(crate) const TARGET: Field =
    Field::optional("target", FieldType::Handle(HandleKind::Target), "Handle from inspect/find.");

/// Optional `selector`, the sibling of `target`.
pub(crate) const SELECTOR: Field =
    Field::optional("selector", FieldType::Selector, "By name, instead of target.");

/// Optional `view` handle from a screenshot.
pub(crate) const VIEW: Field =
    Field::optional("view", FieldType::Handle(HandleKind::View), "Handle from a screenshot.");

/// Image-pixel `x` in a view.
pub(crate) const X: Field = Field::optional("x", FieldType::Integer(limits::COORDINATE), "Image x (px).");

/// Image-pixel `y` in a view.
pub(crate) const Y: Field = Field::optional("y", FieldType::Integer(limits::COORDINATE), "Image y (px).");

/// The `opened_tabs` fact of the tools that act on a page: tabs the page opened by itself
/// (`window.open`, `target="_blank"`) while the call ran, now controlled under these handles.
pub(crate) const OPENED_TABS: FactKey<Json> = FactKey::structured(
    "opened_tabs",
    FactType::ObjectArray(&[
        Fact::new("tab", FactType::String, "New tab handle."),
        Fact::new("url", FactType::String, "Governed URL."),
        Fact::new("title", FactType::String, "Bounded title."),
    ]),
    "Tabs the page opened while the call ran, if any.",
);

/// The `closed_tabs` fact of the tools that act on a page: tabs the page opened past the
/// session's tab limit, which Ghostlight closed as it saw them.
pub(crate) const CLOSED_TABS: FactKey<Int> =
    FactKey::new("closed_tabs", "Tabs the page opened past the session's tab limit; Ghostlight closed them.");

/// The `gate` fact of the tools whose result is a loaded page (`browser_navigate`,
/// `browser_history`, `browser_wait`, `browser_read`): advisory, a closed kind and
/// Ghostlight's hint, never page text.
pub(crate) const GATE: FactKey<Json> = FactKey::structured(
    "gate",
    FactType::Object(&[
        Fact::new("kind", FactType::String, "login, consent, challenge or rate_limit."),
        Fact::new("hint", FactType::String, "What to do: involve the person; never get around it."),
    ]),
    "Advisory: the page is a sign-in wall, consent prompt, human check or rate limit, not the content.",
);

/// `outcome` with the `gate` fact and its sentence, when `page` has loaded (readiness
/// `complete`) and presents a gate; else unchanged. Only what is said changes: status,
/// effect and authority do not. The caller never passes a page outside authority (it is its
/// governed URL and nothing else).
pub(crate) fn with_gate(mut outcome: Outcome, page: &PageState) -> Outcome {
    let loaded = page.readiness == Readiness::Complete;
    let Some(kind) = page.gate.filter(|_| loaded) else { return outcome };
    let summary = format!("{} {}", outcome.summary.trim_end(), language::gate_sentence(kind));
    outcome.summary = summary;
    outcome.fact(GATE, serde_json::json!({ "kind": kind.as_str(), "hint": language::gate_hint(kind) }))
}

/// The `landing` fact of the tools that may cause a navigation: the governed committed landing
/// an action caused, if any.
pub(crate) const LANDING: FactKey<Json> = FactKey::structured(
    "landing",
    FactType::Object(&[
        Fact::new("url", FactType::String, "Governed URL."),
        Fact::new("title", FactType::String, "Bounded title."),
        Fact::new("document_generation", FactType::Integer, "New document generation."),
    ]),
    "Committed navigation the call caused, if any.",
);

pub(crate) use crate::selector::{Location, TargetRef, ViewPoint};

/// Read a `target`/`selector` pair: at most one may be present.
pub(crate) fn read_target(
    reader: &mut ObjectReader<'_>,
    target: &'static Field,
    selector: &'static Field,
) -> Result<Option<TargetRef>, DecodeError> {
    let handle = reader.handle(target)?;
    let named = reader.selector(selector)?;
    match (handle, named) {
        (Some(_), Some(_)) => Err(reader.conflict(selector, target)),
        (Some(handle), None) => Ok(Some(TargetRef::Handle(handle))),
        (None, Some(named)) => Ok(Some(TargetRef::Selector(named))),
        (None, None) => Ok(None),
    }
}

/// Read a `view`, `x`, `y` triple: all three or none.
pub(crate) fn read_view_point(
    reader: &mut ObjectReader<'_>,
    view: &'static Field,
    x: &'static Field,
    y: &'static Field,
) -> Result<Option<ViewPoint>, DecodeError> {
    let handle = reader.handle(view)?;
    let px = reader.int(x)?;
    let py = reader.int(y)?;
    match (handle, px, py) {
        (None, None, None) => Ok(None),
        (Some(view), Some(x), Some(y)) => Ok(Some(ViewPoint { view, x, y })),
        (None, _, _) => Err(reader.missing(view)),
        (Some(_), None, _) => Err(reader.missing(x)),
        (Some(_), Some(_), None) => Err(reader.missing(y)),
    }
}

/// Read exactly one location branch: `target`/`selector`, or `view` + `x` + `y`.
pub(crate) fn read_location(reader: &mut ObjectReader<'_>) -> Result<Location, DecodeError> {
    let target = read_target(reader, &TARGET, &SELECTOR)?;
    let point = read_view_point(reader, &VIEW, &X, &Y)?;
    match (target, point) {
        (Some(_), Some(_)) => {
            let with = if reader.present(&TARGET) { &TARGET } else { &SELECTOR };
            Err(reader.conflict(&VIEW, with))
        }
        (Some(target), None) => Ok(Location::Target(target)),
        (None, Some(point)) => Ok(Location::Point(point)),
        (None, None) => Err(reader.missing_one_of(&[&TARGET, &SELECTOR, &VIEW])),
    }
}

/// Optional `modifiers`: keys held during a key press, click or hover.
pub(crate) const MODIFIERS: Field = Field::optional(
    "modifiers",
    FieldType::List {
        item: &FieldType::Choice { values: Modifier::NAMES, default: None },
        // Any subset of the four modifiers; `[]` is the same as omitting the field.
        count: CountBound::new(0, Modifier::NAMES.len()),
        unique: true,
    },
    "Modifier keys held.",
);

/// The modifiers held, unique, in the order given (none when omitted).
pub(crate) fn read_modifiers(reader: &mut ObjectReader<'_>) -> Result<Vec<Modifier>, DecodeError> {
    Ok(reader.choice_list::<Modifier>(&MODIFIERS)?.unwrap_or_default())
}

/// How a sentence says the modifiers held: `""` for none, ` with Shift held`,
/// ` with Control and Shift held`, ` with Alt, Control and Shift held`.
pub(crate) fn held_clause(modifiers: &[Modifier]) -> String {
    let names: Vec<&str> = modifiers.iter().map(|m| m.as_str()).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => format!(" with {one} held"),
        [rest @ .., last] => format!(" with {} and {last} held", rest.join(", ")),
    }
}

/// The timeout in milliseconds, defaulting to the contract's default.
pub(crate) fn read_timeout(reader: &mut ObjectReader<'_>) -> Result<u64, DecodeError> {
    reader.int_or_default(&TIMEOUT_MS)
}

/// Whether `target` is a semantic selector (resolved against a perception of the page), not a
/// handle.
pub(crate) fn selects(target: &TargetRef) -> bool {
    matches!(target, TargetRef::Selector(_))
}
