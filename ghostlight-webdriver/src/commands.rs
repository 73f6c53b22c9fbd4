//! WebDriver commands fantoccini has no method for (or whose fantoccini method does more
//! than we want), sent through `Client::issue_cmd`.

use fantoccini::wd::WebDriverCompatibleCommand;
use http::Method;
use serde_json::{Value, json};
use url::Url;

/// A command on the current session: `METHOD session/{id}/{path}` with an optional JSON body.
#[derive(Debug, Clone)]
pub(crate) struct SessionCommand {
    method: Method,
    path: &'static str,
    body: Option<Value>,
}

impl SessionCommand {
    /// `POST url {"url": …}` without fantoccini's extra `GET url` round trip (which fails
    /// while a dialog is open and would hide which step failed).
    pub(crate) fn navigate(url: &Url) -> Self {
        SessionCommand { method: Method::POST, path: "url", body: Some(json!({ "url": url.as_str() })) }
    }

    /// `POST frame {"id": null}`: back to the top-level document of the current window.
    pub(crate) fn top_frame() -> Self {
        SessionCommand { method: Method::POST, path: "frame", body: Some(json!({ "id": null })) }
    }

    /// `POST frame {"id": <element>}`: into the iframe element `element_id` of the current
    /// document.
    pub(crate) fn enter_frame(element_id: &str) -> Self {
        let reference = json!({ "element-6066-11e4-a52e-4f735466cecf": element_id });
        SessionCommand { method: Method::POST, path: "frame", body: Some(json!({ "id": reference })) }
    }

    /// `POST actions {"actions": …}`: Perform Actions with `sources` (see
    /// `ops/input/actions.rs`).
    pub(crate) fn perform_actions(sources: Value) -> Self {
        SessionCommand { method: Method::POST, path: "actions", body: Some(json!({ "actions": sources })) }
    }

    /// `DELETE actions`: Release Actions.
    pub(crate) fn release_actions() -> Self {
        SessionCommand { method: Method::DELETE, path: "actions", body: None }
    }

    /// `GET window/rect`, answered as raw JSON (fantoccini's parser refuses negative
    /// positions).
    pub(crate) fn window_rect() -> Self {
        SessionCommand { method: Method::GET, path: "window/rect", body: None }
    }

    /// `POST window/rect` with a new outer size.
    pub(crate) fn set_window_size(width: u32, height: u32) -> Self {
        SessionCommand {
            method: Method::POST,
            path: "window/rect",
            body: Some(json!({ "width": width, "height": height })),
        }
    }

    /// `GET moz/screenshot/full`: geckodriver's capture of the whole document, answered as a
    /// base64 PNG string (geckodriver only).
    pub(crate) fn full_screenshot() -> Self {
        SessionCommand { method: Method::GET, path: "moz/screenshot/full", body: None }
    }

    /// `POST goog/cdp/execute`: a Chrome DevTools Protocol command on the current window
    /// (chromedriver only).
    pub(crate) fn cdp(command: &str, params: Value) -> Self {
        SessionCommand {
            method: Method::POST,
            path: "goog/cdp/execute",
            body: Some(json!({ "cmd": command, "params": params })),
        }
    }
}

impl WebDriverCompatibleCommand for SessionCommand {
    fn endpoint(&self, base_url: &Url, session_id: Option<&str>) -> Result<Url, url::ParseError> {
        base_url.join(&format!("session/{}/{}", session_id.unwrap_or_default(), self.path))
    }

    fn method_and_body(&self, _request_url: &Url) -> (Method, Option<String>) {
        (self.method.clone(), self.body.as_ref().map(Value::to_string))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_under_the_session() {
        let base = Url::parse("http://127.0.0.1:9515/").expect("static URL");
        let command = SessionCommand::cdp("Page.reload", json!({"ignoreCache": true}));
        let url = command.endpoint(&base, Some("abc")).expect("joins");
        assert_eq!(url.as_str(), "http://127.0.0.1:9515/session/abc/goog/cdp/execute");
        let (method, body) = command.method_and_body(&url);
        assert_eq!(method, Method::POST);
        assert_eq!(body.as_deref(), Some(r#"{"cmd":"Page.reload","params":{"ignoreCache":true}}"#));
        assert_eq!(SessionCommand::window_rect().method_and_body(&url).1, None);
    }
}
