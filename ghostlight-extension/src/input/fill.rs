//! Form fill through the extension: the WebDriver adapter's `fill.js` (every value checked
//! against its control before any is set; the native `value` setter, then `input` and
//! `change` events; checkboxes and radios by a click when their state differs), run where the
//! fields live ([`run_input`]: the top document's main world, or a frame document's isolated
//! world). The events are untrusted, as with WebDriver, so it works the same on Chromium and
//! Firefox.
//!
//! Fields are grouped by document, in order of first appearance, as the WebDriver adapter
//! does. With one group one script checks every field and sets them all in the same task, so
//! a misfit leaves everything untouched. With several, every group is checked first, then
//! every group is set (re-checked by the same script; a page that changed in between can make
//! a later group fail after an earlier one was set, which answers effect unknown).

use std::time::Duration;

use ghostlight_core::port::{
    ElementRef, FillInput, FillOutcome, FillValue, PortError, PortErrorKind, PortResult, TabRef,
};
use ghostlight_page::fill::{FillAnswer, encode_value};
use serde_json::Value;

use super::{FILL, Place, ScriptArg, run_input};
use crate::browser::ExtensionBrowser;

/// The fields of one document: their indices among the call's fields, references and values.
struct Group {
    place: Place,
    indices: Vec<usize>,
    elements: Vec<ElementRef>,
    values: Vec<Value>,
}

/// Fill controls (see the module docs).
pub(crate) async fn fill(
    b: &ExtensionBrowser,
    tab: &TabRef,
    input: &FillInput,
    timeout: Duration,
) -> PortResult<FillOutcome> {
    let id = b.tab_id(tab)?;
    let mut groups: Vec<Group> = Vec::new();
    for (index, (element, value)) in input.fields.iter().enumerate() {
        let value =
            encode_value(value).ok_or_else(|| PortError::invalid_field(index, "the number is not finite"))?;
        let place = Place::of(id, element)?;
        let at = match groups.iter().position(|g| g.place == place) {
            Some(at) => at,
            None => {
                groups.push(Group { place, indices: Vec::new(), elements: Vec::new(), values: Vec::new() });
                groups.len() - 1
            }
        };
        let group = &mut groups[at];
        group.indices.push(index);
        group.elements.push(element.clone());
        group.values.push(value);
    }
    if groups.len() > 1 {
        for group in &groups {
            run_group(b, id, group, false, timeout).await?;
        }
    }
    let mut filled = 0;
    for (n, group) in groups.iter().enumerate() {
        let set = run_group(b, id, group, true, timeout).await;
        // Once a group was set, any later failure leaves the effect unknown.
        filled += if n == 0 { set? } else { set.map_err(PortError::effect_unknown)? };
    }
    let page = b.tab_page(id).await.map_err(PortError::effect_unknown)?;
    Ok(FillOutcome { filled, page })
}

/// Whether one control already is as a fill of `expected` would leave it (`None`: it is
/// gone), compared by `fill.js` where the control lives, without setting anything.
pub(crate) async fn compare(
    b: &ExtensionBrowser,
    tab: &TabRef,
    element: &ElementRef,
    expected: &FillValue,
    timeout: Duration,
) -> PortResult<Option<bool>> {
    let id = b.tab_id(tab)?;
    let value =
        encode_value(expected).ok_or_else(|| PortError::invalid_field(0, "the number is not finite"))?;
    let place = Place::of(id, element)?;
    let args = vec![
        ScriptArg::Elements(vec![element.clone()]),
        ScriptArg::Json(Value::Array(vec![value])),
        ScriptArg::Json(Value::String("compare".to_owned())),
    ];
    match run_input::<FillAnswer>(b, id, place, FILL, args, timeout).await {
        Ok(answer) => answer.compared(),
        Err(e) if e.kind() == PortErrorKind::TargetStale => Ok(None),
        Err(e) => Err(e),
    }
}

/// Check one group's fields, and set them when `apply`: how many were filled.
async fn run_group(
    b: &ExtensionBrowser,
    tab: i64,
    group: &Group,
    apply: bool,
    timeout: Duration,
) -> PortResult<usize> {
    let args = vec![
        ScriptArg::Elements(group.elements.clone()),
        ScriptArg::Json(Value::Array(group.values.clone())),
        ScriptArg::Json(Value::Bool(apply)),
    ];
    let sent = run_input::<FillAnswer>(b, tab, group.place, FILL, args, timeout).await;
    let answer = if apply { sent.map_err(PortError::effect_unknown)? } else { sent? };
    answer.outcome(&group.indices)
}
