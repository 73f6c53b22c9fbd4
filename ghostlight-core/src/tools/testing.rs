//! Table-test helpers shared by the tool modules' tests.

use serde_json::{Value, json};

use crate::decode::{DecodeError, DecodeErrorKind, UNREAD_FIELDS};
use crate::handles::{Handle, HandleKind};
use crate::limits::{CountBound, IntBound};
use crate::names::ToolName;
use crate::tools::catalog::decode_call;
use crate::tools::request::{Call, Request};

/// Decode `arguments` for `tool`, failing the test with the decode message if refused, and
/// check that the decoder asked for every declared field of every object it read.
#[track_caller]
pub(crate) fn accept(tool: ToolName, arguments: Value) -> Request {
    UNREAD_FIELDS.with(|cell| cell.borrow_mut().clear());
    let request = match decode_call(tool, &arguments) {
        Ok(Call { request, .. }) => request,
        Err(error) => panic!("{tool} refused {arguments}: {error}"),
    };
    let unread = UNREAD_FIELDS.with(|cell| std::mem::take(&mut *cell.borrow_mut()));
    assert!(unread.is_empty(), "{tool} never read declared fields {unread:?} of {arguments}");
    request
}

/// A handle of `kind` from its wire text, failing the test if it is malformed.
#[track_caller]
pub(crate) fn handle(text: &str, kind: HandleKind) -> Handle {
    match Handle::parse(text, kind) {
        Ok(handle) => handle,
        Err(error) => panic!("{text}: {error:?}"),
    }
}

/// Decode `arguments` for `tool` and check it is refused at `pointer` with `kind`.
/// Returns the error for further checks of its message.
#[track_caller]
pub(crate) fn refuse(tool: ToolName, arguments: Value, pointer: &str, kind: DecodeErrorKind) -> DecodeError {
    match decode_call(tool, &arguments) {
        Ok(call) => panic!("{tool} accepted {arguments} as {call:?}"),
        Err(error) => {
            assert_eq!(error.pointer().as_str(), pointer, "{tool} {arguments}: {error}");
            assert_eq!(error.kind(), kind, "{tool} {arguments}: {error}");
            assert!(error.message().starts_with(if pointer.is_empty() { "arguments" } else { pointer }));
            error
        }
    }
}

/// `base` with member `field` (a top-level key) set to `value`.
pub(crate) fn with(base: &Value, field: &str, value: Value) -> Value {
    let mut out = base.clone();
    if let Value::Object(map) = &mut out {
        map.insert(field.to_owned(), value);
    }
    out
}

/// Check an integer field at its edges: `min - 1` and `max + 1` refused, `min` and `max`
/// accepted, and a fraction and a string refused as the wrong type.
#[track_caller]
pub(crate) fn int_edges(tool: ToolName, base: Value, field: &str, bound: IntBound) {
    let at = format!("/{field}");
    accept(tool, with(&base, field, json!(bound.min)));
    accept(tool, with(&base, field, json!(bound.max)));
    let below = if bound.min == 0 { json!(-1) } else { json!(bound.min - 1) };
    refuse(tool, with(&base, field, below), &at, DecodeErrorKind::OutOfRange);
    let message = refuse(tool, with(&base, field, json!(bound.max + 1)), &at, DecodeErrorKind::OutOfRange);
    assert_eq!(
        message.message(),
        format!("{at} must be an integer from {} to {} (got {})", bound.min, bound.max, bound.max + 1)
    );
    refuse(tool, with(&base, field, json!(bound.min as f64 + 0.5)), &at, DecodeErrorKind::WrongType);
    refuse(tool, with(&base, field, json!(bound.min.to_string())), &at, DecodeErrorKind::WrongType);
}

/// Check a string field's length edges (in characters, counted as Unicode scalar values,
/// using a multi-byte character so bytes and characters differ).
#[track_caller]
pub(crate) fn text_edges(tool: ToolName, base: Value, field: &str, bound: CountBound) {
    let at = format!("/{field}");
    let text = |n: usize| json!("é".repeat(n));
    if bound.min > 0 {
        accept(tool, with(&base, field, text(bound.min)));
        refuse(tool, with(&base, field, text(bound.min - 1)), &at, DecodeErrorKind::Length);
    }
    accept(tool, with(&base, field, text(bound.max)));
    refuse(tool, with(&base, field, text(bound.max + 1)), &at, DecodeErrorKind::Length);
    refuse(tool, with(&base, field, json!(7)), &at, DecodeErrorKind::WrongType);
}
