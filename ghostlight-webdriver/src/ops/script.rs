//! Running a caller's script.
//!
//! The script is sent as an *argument* to a fixed wrapper that evaluates it with indirect
//! `eval` in the page's global scope, so both an expression (`document.title`) and a
//! statement list (`let a = 1; a + 1`) answer their completion value. A completion value that
//! is a promise is awaited. The wrapper installs the page-state hooks first (so a dialog the
//! script opens is recorded) and answers the page state with the value.
//!
//! Element, shadow-root, frame and window references in the value never leave the adapter:
//! each is replaced by a marker string ([`ELEMENT_MARKER`], …). A script that throws answers
//! [`PortErrorKind::ScriptError`] (its message is not kept); a script that runs out of time
//! answers [`PortErrorKind::Timeout`]; both with effect unknown.

use std::time::Duration;

use ghostlight_core::port::{PortError, PortErrorKind, PortResult, ScriptOutcome, TabRef};
use serde_json::Value;

use crate::errors::Sent;
use crate::page;
use crate::session::Session;

/// What an element in a script's value is replaced by.
pub(crate) const ELEMENT_MARKER: &str = "[element]";
/// What a shadow root in a script's value is replaced by.
pub(crate) const SHADOW_ROOT_MARKER: &str = "[shadow root]";
/// What a frame (a `WindowProxy` of an iframe) in a script's value is replaced by.
pub(crate) const FRAME_MARKER: &str = "[frame]";
/// What a window in a script's value is replaced by.
pub(crate) const WINDOW_MARKER: &str = "[window]";

/// The WebDriver JSON keys of remote references and their markers.
const REFERENCE_KEYS: [(&str, &str); 4] = [
    ("element-6066-11e4-a52e-4f735466cecf", ELEMENT_MARKER),
    ("shadow-6066-11e4-a52e-4f735466cecf", SHADOW_ROOT_MARKER),
    ("frame-075b-4da1-b6ba-e579c2d3230a", FRAME_MARKER),
    ("window-fcc6-11e5-b4f8-330a88ab9d7f", WINDOW_MARKER),
];

fn wrapper() -> String {
    format!(
        "const glPageState = ({}); glPageState(); \
         const value = (0, eval)(arguments[0]); \
         return Promise.resolve(value).then((v) => ({{ value: v === undefined ? null : v, state: glPageState() }}));",
        page::PAGE_STATE_FN.trim_end()
    )
}

/// Run `script` in `tab`'s top document within `timeout`.
pub(crate) async fn execute(
    s: &mut Session,
    tab: &TabRef,
    script: &str,
    timeout: Duration,
) -> PortResult<ScriptOutcome> {
    s.tab(tab).await?;
    s.set_script_timeout(timeout).await?;
    let answer = s.execute(&wrapper(), vec![Value::String(script.to_owned())], Sent::Act).await?;
    let (value, in_call_state) = match answer {
        Value::Object(mut map) => (map.remove("value").unwrap_or(Value::Null), map.remove("state")),
        // The wrapper always answers an object: `null` is WebDriver's answer for a script
        // that a user prompt interrupted (e.g. a script that called `confirm()` itself).
        _ => {
            return Err(PortError::new(
                PortErrorKind::BlockedByDialog,
                "a dialog opened while the script ran",
            )
            .effect_unknown());
        }
    };
    let value = scrub(value);
    // The page as it is now (the script may have navigated); when a dialog the script opened
    // blocks that read, the state taken in the same call.
    let page = match s.page_state().await {
        Ok(page) => page,
        Err(e) if e.kind() == PortErrorKind::BlockedByDialog => match in_call_state {
            Some(state) => {
                let page = page::parse_state(state)?;
                s.remember_page(&page);
                page
            }
            None => return Err(e.effect_unknown()),
        },
        Err(e) => return Err(e.effect_unknown()),
    };
    Ok(ScriptOutcome { value, page })
}

/// Replace WebDriver references in `value` by markers.
pub(crate) fn scrub(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            if map.len() == 1 {
                for (key, marker) in REFERENCE_KEYS {
                    if map.contains_key(key) {
                        return Value::String(marker.to_owned());
                    }
                }
            }
            Value::Object(map.into_iter().map(|(k, v)| (k, scrub(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(scrub).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_become_markers_at_any_depth() {
        let value = json!({
            "a": {"element-6066-11e4-a52e-4f735466cecf": "e1"},
            "b": [{"shadow-6066-11e4-a52e-4f735466cecf": "s"}, {"window-fcc6-11e5-b4f8-330a88ab9d7f": "w"}],
            "c": {"frame-075b-4da1-b6ba-e579c2d3230a": "f"},
            "d": {"element-6066-11e4-a52e-4f735466cecf": "e", "other": 1}
        });
        assert_eq!(
            scrub(value),
            json!({
                "a": "[element]",
                "b": ["[shadow root]", "[window]"],
                "c": "[frame]",
                "d": {"element-6066-11e4-a52e-4f735466cecf": "e", "other": 1}
            })
        );
    }

    #[test]
    fn wrapper_passes_the_script_as_an_argument() {
        let script = wrapper();
        assert!(script.contains("(0, eval)(arguments[0])"));
        assert!(script.contains("function glPageState()"));
    }
}
