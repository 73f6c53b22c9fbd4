//! The extension's answers as port types, and its failures as [`PortError`]s.

use base64::Engine as _;
use ghostlight_core::port::{
    Captured, DialogKind, DocumentId, Gate, GateKind, Geometry, NetworkError, NetworkFailure, PageState,
    PortError, PortErrorKind, PortResult, Readiness, ScriptFailure, TabRef,
};
use url::Url;

use crate::link::CallError;
use crate::protocol::{
    ErrorCode, WireCapture, WireDialogKind, WireDialogOpen, WireEffect, WireError, WireGeometry,
    WireLoadFailure, WirePage, WireScriptFailure,
};

/// The connector's name in messages.
pub(crate) const CONNECTOR: &str = "the extension connector";

/// The reference of the browser's tab `id` in browser run `run`: `"<run>:<id>"`.
pub(crate) fn tab_ref(run: &str, id: i64) -> TabRef {
    TabRef::new(format!("{run}:{id}"))
}

/// The browser run and tab id of a reference [`tab_ref`] made (`None` for any other token).
pub(crate) fn tab_parts(tab: &TabRef) -> Option<(&str, i64)> {
    let (run, id) = tab.as_str().split_once(':')?;
    Some((run, id.parse().ok()?))
}

/// A page state; a page the browser could not load answers [`PortError::network`].
pub(crate) fn loaded(page: WirePage) -> PortResult<PageState> {
    if page.error_page {
        // An error page whose failure the extension did not see (the browser's failures
        // answer `network_error` with their code before the page shows).
        return Err(PortError::network(NetworkFailure {
            error: NetworkError::Other,
            browser_code: "error_page".into(),
        }));
    }
    page_state(page)
}

/// A page state as the extension reports it.
pub(crate) fn page_state(page: WirePage) -> PortResult<PageState> {
    let url = Url::parse(&page.url).map_err(|_| {
        PortError::new(PortErrorKind::Other, "the extension reported a page without a valid URL")
    })?;
    let readiness = match page.ready.as_str() {
        "loading" => Readiness::Loading,
        "interactive" => Readiness::Interactive,
        "complete" => Readiness::Complete,
        _ => Readiness::Unknown,
    };
    Ok(PageState {
        url,
        title: page.title,
        readiness,
        document: DocumentId::new(page.document),
        http_status: (page.status != 0).then_some(page.status),
        gate: page.gate.as_deref().and_then(GateKind::from_token),
    })
}

/// A geometry as the extension reports it.
pub(crate) fn geometry(g: WireGeometry) -> Geometry {
    Geometry {
        viewport_width: g.viewport_width,
        viewport_height: g.viewport_height,
        window_width: g.window_width,
        window_height: g.window_height,
        device_scale: if g.device_scale > 0.0 { g.device_scale } else { 1.0 },
        zoom_percent: g.zoom_percent,
        scroll_x: g.scroll_x,
        scroll_y: g.scroll_y,
    }
}

/// A viewport capture: the PNG, its size from its header, and where it sits in the document.
pub(crate) fn capture(wire: WireCapture) -> PortResult<Captured> {
    let png = base64::engine::general_purpose::STANDARD
        .decode(wire.png.as_bytes())
        .map_err(|_| PortError::new(PortErrorKind::Other, "the extension's capture is not base64"))?;
    let (width, height) = png_size(&png)
        .ok_or_else(|| PortError::new(PortErrorKind::Other, "the extension's capture is not a PNG"))?;
    let geometry = geometry(wire.geometry);
    Ok(Captured {
        png,
        width,
        height,
        origin: (geometry.scroll_x, geometry.scroll_y),
        css_per_pixel: 1.0 / geometry.device_scale,
        geometry,
    })
}

/// A PNG's width and height, from its IHDR chunk.
fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if png.len() < 24 || !png.starts_with(SIGNATURE) || &png[12..16] != b"IHDR" {
        return None;
    }
    let width = u32::from_be_bytes(png[16..20].try_into().ok()?);
    let height = u32::from_be_bytes(png[20..24].try_into().ok()?);
    Some((width, height))
}

/// Whether `gate` admits every URL of `urls` that parses (frame documents).
pub(crate) fn all_admitted(gate: &Gate, urls: &[String]) -> bool {
    urls.iter().filter_map(|u| Url::parse(u).ok()).all(|url| gate.admits(&url))
}

/// A dialog kind as the port names it.
pub(crate) fn dialog_kind(kind: WireDialogKind) -> DialogKind {
    match kind {
        WireDialogKind::Alert => DialogKind::Alert,
        WireDialogKind::Confirm => DialogKind::Confirm,
        WireDialogKind::Prompt => DialogKind::Prompt,
        WireDialogKind::Beforeunload => DialogKind::BeforeUnload,
    }
}

/// An operation this connector does not do (yet).
pub(crate) fn unsupported(operation: &str) -> PortError {
    PortError::new(PortErrorKind::Unsupported, format!("{operation} is not supported by {CONNECTOR} yet"))
}

/// A failed call of `op` as a port error.
pub(crate) fn call_error(error: CallError, op: &str) -> PortError {
    match error {
        CallError::Closed => PortError::new(
            PortErrorKind::NotConnected,
            format!("the extension disconnected before {op} was sent"),
        ),
        CallError::TooLarge => PortError::new(
            PortErrorKind::InvalidInput,
            format!("the {op} request is over the browser's 1 MB message bound"),
        ),
        CallError::Lost => PortError::transport(format!("the extension disconnected while running {op}")),
        CallError::TimedOut => {
            PortError::new(PortErrorKind::Timeout, format!("the extension did not answer {op} in time"))
                .effect_unknown()
        }
        CallError::Failed(wire) => wire_error(wire, op),
    }
}

fn wire_error(wire: WireError, op: &str) -> PortError {
    let WireError { code, message, effect, detail } = wire;
    let error = match code {
        ErrorCode::ScriptError => {
            let failure = detail.and_then(|d| serde_json::from_value::<WireScriptFailure>(d).ok()).unwrap_or(
                WireScriptFailure {
                    name: "Error".into(),
                    message: String::new(),
                    ran: effect == WireEffect::Unknown,
                },
            );
            return PortError::script_failed(ScriptFailure {
                name: failure.name,
                message: failure.message,
                ran: failure.ran,
            });
        }
        ErrorCode::NetworkError => {
            let code = detail
                .and_then(|d| serde_json::from_value::<WireLoadFailure>(d).ok())
                .map_or_else(|| "unknown".to_owned(), |failure| failure.browser_code);
            // As the WebDriver adapter answers it: the load failed, nothing else happened.
            return PortError::network(ghostlight_page::load_failure::network_failure(&code));
        }
        ErrorCode::TabGone => PortError::new(PortErrorKind::TabGone, format!("{op}: the tab is gone")),
        ErrorCode::Stale => {
            PortError::new(PortErrorKind::TargetStale, format!("{op}: the element or its document is gone"))
        }
        ErrorCode::Timeout => PortError::new(PortErrorKind::Timeout, format!("{op}: {message}")),
        ErrorCode::Paused => PortError::new(
            PortErrorKind::NotConnected,
            format!("{op}: the person paused Ghostlight in the extension"),
        ),
        ErrorCode::Unsupported => PortError::new(
            PortErrorKind::Unsupported,
            format!("{op} is not supported by the extension: {message}"),
        ),
        ErrorCode::TabPreserved => PortError::new(
            PortErrorKind::TabPreserved,
            "the extension's preserve-tabs setting keeps the tab open",
        ),
        ErrorCode::OwnPage => PortError::new(
            PortErrorKind::InvalidInput,
            format!("{op}: the extension's own pages are the person's controls, never driven"),
        ),
        ErrorCode::UnknownRecording => PortError::new(
            PortErrorKind::InvalidInput,
            format!("{op}: the recording is unknown, discarded or past its retention"),
        ),
        ErrorCode::DialogOpen => {
            let kind = detail
                .and_then(|d| serde_json::from_value::<WireDialogOpen>(d).ok())
                .map_or(DialogKind::Confirm, |open| dialog_kind(open.dialog));
            PortError::blocked_by(kind, format!("{op}: a dialog blocks the tab"))
        }
        ErrorCode::NoDialog => PortError::new(PortErrorKind::InvalidInput, "no dialog is open"),
        ErrorCode::NotPrompt => PortError::new(PortErrorKind::InvalidInput, "only a prompt takes a response"),
        ErrorCode::BrowserError | ErrorCode::Other => {
            PortError::new(PortErrorKind::Other, format!("{op}: the browser refused: {message}"))
        }
    };
    match effect {
        WireEffect::None => error,
        WireEffect::Unknown => error.effect_unknown(),
    }
}

#[cfg(test)]
mod tests {
    use ghostlight_core::port::PortEffect;
    use serde_json::json;

    use super::*;

    fn page(url: &str, ready: &str) -> WirePage {
        WirePage {
            url: url.into(),
            title: "T".into(),
            ready: ready.into(),
            document: "d".into(),
            status: 0,
            error_page: false,
            gate: None,
        }
    }

    #[test]
    fn pages_tabs_and_error_pages() {
        let state = page_state(page("http://127.0.0.1/a", "interactive")).expect("a page");
        assert_eq!((state.readiness, state.http_status), (Readiness::Interactive, None));
        assert_eq!(page_state(page("http://x/", "weird")).expect("a page").readiness, Readiness::Unknown);
        assert!(page_state(page("not a url", "complete")).is_err());
        let failed = loaded(WirePage { error_page: true, ..page("http://x/", "complete") })
            .expect_err("an error page");
        assert_eq!(failed.kind(), PortErrorKind::Network);
        let gated = page_state(WirePage { gate: Some("consent".into()), ..page("http://x/", "complete") });
        assert_eq!(gated.expect("a page").gate, Some(GateKind::Consent));
        let unknown = page_state(WirePage { gate: Some("paywall".into()), ..page("http://x/", "complete") });
        assert_eq!(unknown.expect("a page").gate, None);
        assert_eq!(tab_parts(&tab_ref("0a9f", 42)), Some(("0a9f", 42)));
        assert_eq!(tab_parts(&TabRef::new("42")), None);
        assert_eq!(tab_parts(&TabRef::new("0a9f:w1")), None);
    }

    fn wire(code: ErrorCode, effect: WireEffect, detail: Option<serde_json::Value>) -> WireError {
        WireError { code, message: "m".into(), effect, detail }
    }

    #[test]
    fn wire_errors_keep_their_kind_and_effect() {
        let gone = call_error(CallError::Failed(wire(ErrorCode::TabGone, WireEffect::None, None)), "page");
        assert_eq!((gone.kind(), gone.effect()), (PortErrorKind::TabGone, PortEffect::None));
        let script = call_error(
            CallError::Failed(wire(
                ErrorCode::ScriptError,
                WireEffect::Unknown,
                Some(json!({"name": "TypeError", "message": "x", "ran": true})),
            )),
            "execute",
        );
        assert_eq!(script.kind(), PortErrorKind::ScriptError);
        assert_eq!(script.script_failure().map(|f| f.name.as_str()), Some("TypeError"));
        assert_eq!(script.effect(), PortEffect::Unknown);
        let preserved =
            call_error(CallError::Failed(wire(ErrorCode::TabPreserved, WireEffect::None, None)), "close");
        assert_eq!(preserved.kind(), PortErrorKind::TabPreserved);
        let lost = call_error(CallError::Lost, "navigate");
        assert_eq!((lost.kind(), lost.effect()), (PortErrorKind::Transport, PortEffect::Unknown));
        let closed = call_error(CallError::Closed, "navigate");
        assert_eq!((closed.kind(), closed.effect()), (PortErrorKind::NotConnected, PortEffect::None));
    }

    #[test]
    fn load_failures_carry_the_browser_code() {
        let refused = wire(
            ErrorCode::NetworkError,
            WireEffect::Unknown,
            Some(json!({"browser_code": "net::ERR_CONNECTION_REFUSED"})),
        );
        let error = call_error(CallError::Failed(refused.clone()), "navigate");
        assert_eq!(error.kind(), PortErrorKind::Network);
        let failure = error.network_failure().expect("a failure");
        assert_eq!(
            (failure.error, failure.browser_code.as_str()),
            (NetworkError::ConnectionRefused, "ERR_CONNECTION_REFUSED")
        );
        let unnamed = call_error(CallError::Failed(WireError { detail: None, ..refused }), "navigate");
        assert_eq!(unnamed.network_failure().map(|f| f.error), Some(NetworkError::Other));
    }

    #[test]
    fn dialog_failures_name_their_dialog() {
        let open = wire(ErrorCode::DialogOpen, WireEffect::None, Some(json!({"dialog": "prompt"})));
        let blocked = call_error(CallError::Failed(open.clone()), "mouse");
        assert_eq!((blocked.kind(), blocked.effect()), (PortErrorKind::BlockedByDialog, PortEffect::None));
        assert_eq!(blocked.blocking_dialog(), Some(DialogKind::Prompt));
        let unnamed = call_error(CallError::Failed(WireError { detail: None, ..open }), "mouse");
        assert_eq!(
            unnamed.blocking_dialog(),
            Some(DialogKind::Confirm),
            "the kind whose answers fit every dialog"
        );
        let none = WireError {
            code: ErrorCode::NoDialog,
            message: String::new(),
            effect: WireEffect::None,
            detail: None,
        };
        assert_eq!(call_error(CallError::Failed(none), "resolve_dialog").kind(), PortErrorKind::InvalidInput);
    }

    #[test]
    fn png_sizes_come_from_the_header() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend(800_u32.to_be_bytes());
        png.extend(600_u32.to_be_bytes());
        assert_eq!(png_size(&png), Some((800, 600)));
        assert_eq!(png_size(b"GIF89a"), None);
    }
}
