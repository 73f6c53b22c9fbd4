//! Page state and document identity, from one small script (`scripts/page_state.js`).
//!
//! [`DocumentId`] is `timeOrigin|nonce|epoch|url`: the document's `performance.timeOrigin`,
//! a per-document nonce stamped on first sight, the count of back/forward-cache restores
//! (`pageshow` with `persisted`), and the URL without fragment *at which the document was
//! first stamped*.
//!
//! Decision: a same-document URL change (`#hash` or `history.pushState`) keeps the
//! [`DocumentId`]. WebDriver element references stay valid across both on both engines, so
//! targets stay usable; [`PageState::url`] still reports the new URL. A reload, a link or a
//! `goto` gives a new document (new timeOrigin and nonce); a Chromium back/forward-cache
//! restore keeps timeOrigin and nonce but bumps the epoch.

use ghostlight_core::port::Readiness;
use ghostlight_core::port::{
    DocumentId, ExpectedDocument, GateKind, PageState, PortError, PortErrorKind, PortResult,
};
use serde::Deserialize;
use url::Url;

/// The page-state function expression (see the script's header).
pub(crate) const PAGE_STATE_FN: &str = ghostlight_page::scripts::PAGE_STATE_FN;

/// An `Execute Script` body that answers the page state.
pub(crate) fn state_script() -> String {
    format!("return ({})();", PAGE_STATE_FN.trim_end())
}

/// An `Execute Script` body that answers the page state and the gate the page presents
/// (`ghostlight-page`'s `gate.js`), in one read.
pub(crate) fn gated_state_script() -> String {
    ghostlight_page::scripts::gated_page_state()
}

/// The page-state function as a WebDriver BiDi `functionDeclaration` for the page's own realm,
/// answering the state as a JSON string (BiDi's remote values need no decoding then).
pub(crate) fn state_function() -> String {
    format!("() => JSON.stringify(({})())", PAGE_STATE_FN.trim_end())
}

/// The page state in a BiDi `script.callFunction` answer of [`state_function`] (its JSON
/// text, parsed), or `None` when the call failed or answered something else.
pub(crate) fn state_answer(answer: &serde_json::Value) -> Option<serde_json::Value> {
    if answer.get("type").and_then(serde_json::Value::as_str) != Some("success") {
        return None;
    }
    let text = answer.get("result")?.get("value")?.as_str()?;
    serde_json::from_str(text).ok()
}

/// An `Execute Script` body that reads and clears the kind of the last page dialog recorded
/// by the page-state hooks (`null` when none was recorded or the dialog is still open).
pub(crate) const TAKE_DIALOG_RECORD: &str = "const key = Symbol.for('gl.dialog'); \
     const record = window[key]; \
     if (!record || record.open) return null; \
     window[key] = undefined; \
     return record.kind;";

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawState {
    url: String,
    title: String,
    ready_state: String,
    time_origin: serde_json::Number,
    nonce: String,
    epoch: u64,
    doc_url: String,
    /// Where a navigation to another document this document started is going, if one is
    /// under way (read once: see the script).
    #[serde(default)]
    navigating: Option<String>,
    /// Whether work an input event started (a short timer, a request) is still pending.
    #[serde(default)]
    busy: bool,
    /// The navigation entry's `responseStatus` (0 when unknown).
    #[serde(default)]
    status: u16,
    /// The gate the page presents (`gate.js`'s token), when the read looked for one.
    #[serde(default)]
    gate: Option<String>,
}

/// One read of the page state, with what the document is about to do.
#[derive(Debug, Clone)]
pub(crate) struct Reading {
    /// The page state.
    pub(crate) state: PageState,
    /// Where a navigation to another document this document started is going, while the
    /// document still shows (a form submission, a script's `location` change), if any.
    pub(crate) navigating: Option<Url>,
    /// Whether work a trusted input event started (a timer of up to a second, a request) is
    /// still pending, so a navigation may yet start (see the script's `gl.work`).
    pub(crate) busy: bool,
}

/// The per-document nonce a [`DocumentId`] of this module carries (the one `page_state.js`
/// stamps as `gl.doc`), so a script can tell whether it runs in that document; `None` for an
/// identity this module did not make.
pub(crate) fn nonce(document: &DocumentId) -> Option<&str> {
    let mut fields = document.as_str().split('|');
    fields.next()?;
    fields.next().filter(|nonce| !nonce.is_empty())
}

/// What a script working in an expected document is given to recognize it
/// (`ghostlight_page::scripts::in_document`): `{nonce, epoch, origin}`, the nonce and restore
/// count of a [`DocumentId`] this module made and the origin of the URL the executor
/// authorized (a page can copy another document's nonce; its origin it cannot change);
/// `None` for another identity.
pub(crate) fn expectation(expected: &ExpectedDocument) -> Option<serde_json::Value> {
    let document = &expected.document;
    let epoch: u64 = document.as_str().split('|').nth(2)?.parse().ok()?;
    let origin = expected.url.origin().ascii_serialization();
    Some(serde_json::json!({ "nonce": nonce(document)?, "epoch": epoch, "origin": origin }))
}

/// Parse the page-state script's answer as a [`Reading`].
pub(crate) fn parse_reading(value: serde_json::Value) -> PortResult<Reading> {
    let raw: RawState = serde_json::from_value(value).map_err(|_| {
        PortError::new(PortErrorKind::Other, "the page state script answered an unexpected shape")
    })?;
    let navigating = raw.navigating.as_deref().and_then(|url| Url::parse(url).ok());
    let url = Url::parse(&raw.url)
        .map_err(|_| PortError::new(PortErrorKind::Other, "the page reported a URL that does not parse"))?;
    let document =
        DocumentId::new(format!("{}|{}|{}|{}", raw.time_origin, raw.nonce, raw.epoch, raw.doc_url));
    let http_status = (raw.status > 0).then_some(raw.status);
    let gate = raw.gate.as_deref().and_then(GateKind::from_token);
    let state = PageState {
        url,
        title: raw.title,
        readiness: readiness(&raw.ready_state),
        document,
        http_status,
        gate,
    };
    Ok(Reading { state, navigating, busy: raw.busy })
}

/// Parse the page-state script's answer.
pub(crate) fn parse_state(value: serde_json::Value) -> PortResult<PageState> {
    parse_reading(value).map(|reading| reading.state)
}

/// `document.readyState` as core's [`Readiness`].
pub(crate) fn readiness(ready_state: &str) -> Readiness {
    match ready_state {
        "loading" => Readiness::Loading,
        "interactive" => Readiness::Interactive,
        "complete" => Readiness::Complete,
        _ => Readiness::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_state_and_builds_identity() {
        let state = parse_state(json!({
            "url": "http://127.0.0.1:1/a#x", "title": "A", "readyState": "complete",
            "timeOrigin": 1700000000123.5, "nonce": "n1", "epoch": 0, "docUrl": "http://127.0.0.1:1/a"
        }))
        .expect("a well-formed state parses");
        assert_eq!(state.url.as_str(), "http://127.0.0.1:1/a#x");
        assert_eq!(state.readiness, Readiness::Complete);
        assert_eq!(state.document.as_str(), "1700000000123.5|n1|0|http://127.0.0.1:1/a");
        assert_eq!(nonce(&state.document), Some("n1"));
        assert_eq!(nonce(&DocumentId::new("scripted")), None);
        let expected = |document: &DocumentId| ExpectedDocument {
            document: document.clone(),
            url: state.url.clone(),
            look_for_gate: false,
        };
        assert_eq!(
            expectation(&expected(&state.document)),
            Some(json!({ "nonce": "n1", "epoch": 0, "origin": "http://127.0.0.1:1" }))
        );
        assert_eq!(expectation(&expected(&DocumentId::new("scripted"))), None);
        assert_eq!(expectation(&expected(&DocumentId::new("1|n|x|u"))), None);
        assert_eq!(state.gate, None);
    }

    #[test]
    fn a_gate_token_is_read_and_an_unknown_one_ignored() {
        let read = |gate: serde_json::Value| {
            parse_state(json!({
                "url": "http://127.0.0.1:1/a", "title": "A", "readyState": "complete",
                "timeOrigin": 1, "nonce": "n1", "epoch": 0, "docUrl": "http://127.0.0.1:1/a", "gate": gate
            }))
            .expect("a well-formed state parses")
            .gate
        };
        assert_eq!(read(json!("login")), Some(GateKind::Login));
        assert_eq!(read(json!("rate_limit")), Some(GateKind::RateLimit));
        assert_eq!(read(json!("paywall")), None);
        assert_eq!(read(json!(null)), None);
    }

    #[test]
    fn odd_shapes_are_errors_not_panics() {
        assert!(parse_state(json!(null)).is_err());
        assert!(parse_state(json!({"url": "not a url"})).is_err());
        assert_eq!(readiness("weird"), Readiness::Unknown);
    }

    #[test]
    fn script_is_a_function_expression() {
        let script = state_script();
        assert!(script.starts_with("return ("));
        assert!(script.contains("(function glPageState()"));
        assert!(script.ends_with("}))();"));
    }
}
