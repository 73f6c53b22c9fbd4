//! Form fill through the extension: the WebDriver adapter's `fill.js` (every value checked
//! against its control before any is set; the native `value` setter, then `input` and
//! `change` events; checkboxes and radios by a click when their state differs) run in the
//! page's main world with the fields handed over from the isolated world
//! ([`element_expression`]). The events are untrusted, as with WebDriver, so it works the same
//! on Chromium and Firefox. Fields must be in the top document (a field inside a frame answers
//! `Unsupported`, from [`element_expression`]).

use std::time::Duration;

use ghostlight_core::port::fill::{FillAnswer, encode_value};
use ghostlight_core::port::{
    BrowserPort as _, FillInput, FillOutcome, PageState, PortError, PortResult, TabRef,
};
use serde_json::Value;

use super::{Arg, element_expression, page_script};
use crate::browser::ExtensionBrowser;

/// The fill script.
const FILL_JS: &str = include_str!("../../page-scripts/input/fill.js");

/// Fill controls: checked and set by one script, so a misfit leaves everything untouched.
pub(crate) async fn fill(
    b: &ExtensionBrowser,
    tab: &TabRef,
    input: &FillInput,
    timeout: Duration,
) -> PortResult<FillOutcome> {
    let id = b.tab_id(tab)?;
    let mut values = Vec::with_capacity(input.fields.len());
    for (index, (_, value)) in input.fields.iter().enumerate() {
        values.push(
            encode_value(value).ok_or_else(|| PortError::invalid_field(index, "the number is not finite"))?,
        );
    }
    let mut elements = Vec::with_capacity(input.fields.len());
    for (element, _) in &input.fields {
        elements.push(element_expression(b, id, element).await?);
    }
    let args = [
        Arg::Expression(format!("[{}]", elements.join(", "))),
        Arg::Json(Value::Array(values)),
        Arg::Json(Value::Bool(true)),
    ];
    let (answer, _before): (FillAnswer, PageState) =
        page_script(b, id, FILL_JS, &args, timeout).await.map_err(PortError::effect_unknown)?;
    let indices: Vec<usize> = (0..input.fields.len()).collect();
    let filled = answer.outcome(&indices)?;
    let page = b.page(tab).await.map_err(PortError::effect_unknown)?;
    Ok(FillOutcome { filled, page })
}
