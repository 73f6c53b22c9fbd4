//! Form fill: every value is checked against its control before any is set
//! (`scripts/input/fill.js` says what fits which control and how each is set).
//!
//! Decision: values are set through the native `value` setter followed by `input` and
//! `change` events (checkboxes and radios by a click when their state differs), not typed
//! key by key. The setter on the element's prototype bypasses the instance-level setter that
//! React-style frameworks use to track the last value they rendered, so their change
//! detection sees the new value and their `onChange` runs; Vue and Angular listen to the same
//! `input` event. The events are untrusted; widgets that react only to key events (typeahead
//! lists) need `type_text`.
//!
//! Fields are grouped by document (frame path), in order of first appearance. With one group
//! (the usual case) one script checks every field and sets them all in the same JavaScript
//! task, so a misfit leaves everything untouched; in the top document that script also reads
//! the page state before it sets anything (no read of its own). With several, every group is checked first
//! (one script each), then every group is set (re-checked by the same script; a page that
//! changed in between can make a later group fail after an earlier one was set, which answers
//! effect unknown).

use std::sync::LazyLock;
use std::time::Duration;

use ghostlight_core::port::{
    ElementRef, FillInput, FillOutcome, FillValue, PortError, PortErrorKind, PortResult, TabRef,
};
use ghostlight_page::fill::{FillAnswer, encode_value};
use serde_json::{Value, json};

use super::{after, compose, element_arg, run};
use crate::errors::Sent;
use crate::refs;
use crate::session::Session;

/// The fill script (`scripts/input/fill.js`).
static FILL: LazyLock<String> = LazyLock::new(|| compose(ghostlight_page::scripts::input::FILL_BODY));

/// The fields of one document.
struct Group<'a> {
    frames: Vec<String>,
    /// (index in the whole fill, element, encoded value)
    fields: Vec<(usize, &'a ElementRef, Value)>,
}

/// Fill controls.
pub(super) async fn fill(
    s: &mut Session,
    tab: &TabRef,
    input: &FillInput,
    timeout: Duration,
) -> PortResult<FillOutcome> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut groups: Vec<Group<'_>> = Vec::new();
    for (index, (element, value)) in input.fields.iter().enumerate() {
        let frames = refs::Element::parse(element)?.frames;
        let value =
            encode_value(value).ok_or_else(|| PortError::invalid_field(index, "the number is not finite"))?;
        match groups.iter_mut().find(|group| group.frames == frames) {
            Some(group) => group.fields.push((index, element, value)),
            None => groups.push(Group { frames, fields: vec![(index, element, value)] }),
        }
    }
    s.set_script_timeout(timeout).await?;
    s.tab(tab).await?;
    // One group in the top document (the usual case): the fill script reads the page state
    // before it sets anything, in the same round trip.
    let in_top = matches!(groups.as_slice(), [group] if group.frames.is_empty());
    let mut before = if in_top { None } else { Some(s.page_state().await?) };
    if groups.len() > 1 {
        for group in &groups {
            run_group(s, tab, group, Apply::Check).await?;
        }
    }
    let mut filled = 0;
    for (number, group) in groups.iter().enumerate() {
        let apply = if in_top { Apply::SetReadingState } else { Apply::Set };
        let result = run_group(s, tab, group, apply).await;
        // An earlier group was already set: whatever fails now leaves the page changed.
        let (count, state) = if number == 0 { result? } else { result.map_err(PortError::effect_unknown)? };
        filled += count;
        if let Some(state) = state {
            let read = s.accept_reading(state).await.map_err(PortError::effect_unknown)?;
            before = Some(read.state);
        }
    }
    let before = before.ok_or_else(|| {
        PortError::new(PortErrorKind::Other, "the fill script answered no page state").effect_unknown()
    })?;
    let page = after(s, before, deadline).await?;
    Ok(FillOutcome { filled, page })
}

/// What [`run_group`] does with a group's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Apply {
    /// Check every value against its control; set nothing.
    Check,
    /// Check, then set them all.
    Set,
    /// [`Apply::Set`], answering the page state read before anything was set (a group in the
    /// top document).
    SetReadingState,
}

/// Whether one control already is as a fill of `expected` would leave it (`None`: it is
/// gone), compared by `fill.js` in the control's document without setting anything.
pub(super) async fn compare(
    s: &mut Session,
    tab: &TabRef,
    element: &ElementRef,
    expected: &FillValue,
) -> PortResult<Option<bool>> {
    let value =
        encode_value(expected).ok_or_else(|| PortError::invalid_field(0, "the number is not finite"))?;
    s.set_read_script_timeout().await?;
    let found = match s.element(tab, element).await {
        Ok(found) => found,
        Err(e) if e.kind() == PortErrorKind::TargetStale => return Ok(None),
        Err(e) => return Err(e),
    };
    let args = vec![json!([element_arg(&found)?]), json!([value]), json!("compare")];
    match run::<FillAnswer>(s, &FILL, args, Sent::Read).await {
        Ok(answer) => answer.compared(),
        Err(e) if e.kind() == PortErrorKind::TargetStale => Ok(None),
        Err(e) => Err(e),
    }
}

/// Check (and, as `apply` says, set) one group's fields in their document: how many were
/// set, and the page state read before, when asked for.
async fn run_group(
    s: &mut Session,
    tab: &TabRef,
    group: &Group<'_>,
    apply: Apply,
) -> PortResult<(usize, Option<Value>)> {
    let mut elements = Vec::with_capacity(group.fields.len());
    for (_, element, _) in &group.fields {
        let element = s.element(tab, element).await?;
        elements.push(element_arg(&element)?);
    }
    let values = group.fields.iter().map(|(_, _, value)| value.clone()).collect();
    let sent = if apply == Apply::Check { Sent::Read } else { Sent::Act };
    let args = vec![
        Value::Array(elements),
        Value::Array(values),
        json!(apply != Apply::Check),
        json!(apply == Apply::SetReadingState),
    ];
    let mut answer: FillAnswer = run(s, &FILL, args, sent).await?;
    let state = answer.state.take();
    let indices: Vec<usize> = group.fields.iter().map(|(index, _, _)| *index).collect();
    let filled = answer.outcome(&indices)?;
    Ok((filled, state))
}
