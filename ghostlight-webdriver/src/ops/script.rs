//! Running a caller's script.
//!
//! The script is sent as an *argument* to a fixed wrapper that evaluates it with indirect
//! `eval` in the page's global scope, so both an expression (`document.title`) and a
//! statement list (`let a = 1; a + 1`) answer their completion value; a source that only
//! parses as a function body (`return document.title`, top-level `await`) or as an expression
//! in parentheses (`{a: 1}`) runs as that instead. A completion value that is a promise is
//! awaited. The wrapper installs the page-state hooks first (so a dialog the script opens is
//! recorded) and answers the page state with the value.
//!
//! Element, shadow-root, frame and window references in the value never leave the adapter:
//! each is replaced by a marker string ([`ELEMENT_MARKER`], …). A script that does not compile
//! or throws answers [`PortError::script_failed`] with the error's name and message (for the
//! model's facts only; effect none when nothing ran, unknown otherwise); a script that runs
//! out of time answers [`PortErrorKind::Timeout`] with effect unknown.

use std::time::Duration;

use tokio::time::Instant as TokioInstant;

use ghostlight_core::port::{
    PageState, PortError, PortErrorKind, PortResult, ScriptFailure, ScriptOutcome, TabRef,
};
use serde_json::Value;
use url::{Position, Url};

use crate::errors::Sent;
use crate::page;
use crate::session::Session;

use super::navigation;

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

/// The wrapper run by Execute Script with the caller's source as `arguments[0]`. It answers
/// `{value, state}`, or `{error: {name, message, ran}, state}` when the script failed.
///
/// The source is first evaluated as a program (indirect `eval`, global scope: `document.title`
/// and `let a = 1; a + 1` answer their completion value). A program that does not parse is
/// compiled (never run) as an async function body, which admits `return` and `await`, then as
/// a parenthesised expression (an object literal such as `{a: 1}`); the first that compiles
/// runs. A prefixed statement sets a private flag when the program starts, so a `SyntaxError`
/// the script throws while running (e.g. from `JSON.parse`) is never mistaken for a parse
/// error and the script never runs twice.
const WRAPPER_BODY: &str = r#"
const source = arguments[0];
const flag = 'glScriptStarted' + Math.random().toString(36).slice(2);
// A navigation to another document the script starts (`location.href = …`) may commit after
// the script answers (Firefox): the Navigation API's `navigate` event says one started.
let navigated = null;
const onNavigate = (e) => {
  try {
    if (!e.destination.sameDocument && !e.downloadRequest) navigated = String(e.destination.url);
  } catch (_) {}
};
try { window.navigation.addEventListener('navigate', onNavigate); } catch (_) {}
const stopWatching = () => { try { window.navigation.removeEventListener('navigate', onNavigate); } catch (_) {} };
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
const describe = (e, ran) => {
  let name = 'Error';
  let message = '';
  try {
    name = e !== null && typeof e === 'object' && typeof e.name === 'string' ? e.name : typeof e;
    message = e !== null && typeof e === 'object' && 'message' in e ? String(e.message) : String(e);
  } catch (_) {}
  stopWatching();
  return { error: { name, message, ran }, state: glPageState() };
};
const done = (v) => { stopWatching(); return { value: v === undefined ? null : v, navigated, state: glPageState() }; };
Object.defineProperty(globalThis, flag, { value: false, writable: true, configurable: true });
let value;
try {
  value = (0, eval)('void (globalThis[' + JSON.stringify(flag) + '] = true);\n' + source);
} catch (e) {
  const started = globalThis[flag];
  delete globalThis[flag];
  if (started || !(e instanceof SyntaxError)) return describe(e, true);
  let body = null;
  let failure = e;
  try {
    body = new AsyncFunction(source);
  } catch (bodyError) {
    failure = bodyError;
    try {
      body = new AsyncFunction('return (' + source + '\n);');
    } catch (_) {}
  }
  if (body === null) return describe(failure, false);
  try {
    value = body.call(globalThis);
  } catch (thrown) {
    return describe(thrown, true);
  }
}
delete globalThis[flag];
return Promise.resolve(value).then(done, (e) => describe(e, true));
"#;

fn wrapper() -> String {
    format!("const glPageState = ({}); glPageState();{WRAPPER_BODY}", page::PAGE_STATE_FN.trim_end())
}

/// Run `script` in `tab`'s top document within `timeout`.
pub(crate) async fn execute(
    s: &mut Session,
    tab: &TabRef,
    script: &str,
    timeout: Duration,
) -> PortResult<ScriptOutcome> {
    s.tab(tab).await?;
    let deadline = TokioInstant::now() + timeout;
    s.set_script_timeout(timeout).await?;
    let answer = s.execute(&wrapper(), vec![Value::String(script.to_owned())], Sent::Act).await?;
    let (value, ran_in, navigated) = match answer {
        Value::Object(mut map) => {
            if let Some(error) = map.remove("error") {
                return Err(PortError::script_failed(failure(&error)));
            }
            // Where a navigation the script started to another document goes, if any.
            let navigated = map.remove("navigated").and_then(|v| v.as_str().map(str::to_owned));
            // The page as the script left it, in the same call.
            let ran_in = map.remove("state").map(page::parse_state).transpose()?;
            (map.remove("value").unwrap_or(Value::Null), ran_in, navigated)
        }
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
    let destination = navigated.and_then(|url| Url::parse(&url).ok());
    // The page as it is now (the script may have navigated). A read that a dialog blocks
    // answers the state taken in the same call, unless a navigation is under way (Firefox
    // answers `null` to scripts while one document unloads).
    let now = match s.page_state().await {
        Ok(page) => Some(page),
        Err(e) if e.kind() == PortErrorKind::BlockedByDialog && destination.is_some() => None,
        Err(e) if e.kind() == PortErrorKind::BlockedByDialog => match ran_in {
            Some(page) => {
                s.remember_page(&page);
                return Ok(ScriptOutcome { value, page });
            }
            None => return Err(e.effect_unknown()),
        },
        Err(e) => return Err(e.effect_unknown()),
    };
    let page = match (ran_in, destination, now) {
        (Some(before), Some(destination), now) => {
            // Until the destination's document shows: Firefox may still answer the old
            // document, or a transient `about:blank`, or the old URL in between.
            let pending = |page: &PageState| {
                page.document == before.document
                    || (page.url.scheme() == "about" && destination.scheme() != "about")
                    || (same_page(&page.url, &before.url) && !same_page(&destination, &before.url))
            };
            let mut page = now.unwrap_or_else(|| before.clone());
            while pending(&page) {
                page = landed(s, &page, deadline).await?;
            }
            page
        }
        (_, _, Some(page)) => page,
        // `now` is `None` only with a destination: unreachable without the call's own state.
        (_, _, None) => {
            return Err(PortError::new(PortErrorKind::Other, "the page could not be read after the script")
                .effect_unknown());
        }
    };
    Ok(ScriptOutcome { value, page })
}

/// Whether two URLs name the same page (fragments aside).
fn same_page(a: &Url, b: &Url) -> bool {
    a[..Position::AfterQuery] == b[..Position::AfterQuery]
}

/// The next complete document after `from` (effect unknown when none comes by `deadline`).
async fn landed(s: &mut Session, from: &PageState, deadline: TokioInstant) -> PortResult<PageState> {
    navigation::wait_for_page(s, from, deadline, navigation::LeavePrompt::Dismiss)
        .await
        .map_err(PortError::effect_unknown)
}

/// The wrapper's `error` answer as a [`ScriptFailure`] (a malformed one counts as having run).
fn failure(error: &Value) -> ScriptFailure {
    let text = |key: &str| error.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    ScriptFailure {
        name: text("name"),
        message: text("message"),
        ran: error.get("ran").and_then(Value::as_bool).unwrap_or(true),
    }
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
        assert!(script.contains("const source = arguments[0];"));
        assert!(script.contains("(0, eval)("), "a program runs through indirect eval");
        assert!(script.contains("function glPageState()"));
    }
}
