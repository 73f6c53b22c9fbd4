//! `Ghostlight` over a browser: a workspace governed by a user settings document, and tool
//! calls that fail the test loudly when the tool is not in the catalog.

use std::sync::Arc;

use ghostlight_core::{
    AuthorityLayers, BrowserPort, Cancellation, Envelope, Ghostlight, Settings, Status, ToolResult,
};
use serde_json::Value;

/// Ghostlight over `port` with the user settings document `settings` (JSON) as its authority.
pub(crate) fn governed(port: Arc<dyn BrowserPort>, settings: Value) -> Ghostlight {
    let user: Settings = serde_json::from_value(settings).expect("a valid settings document");
    let authority = AuthorityLayers { user: Some(user), organization: None }.compile();
    Ghostlight::builder(port).authority(authority).build()
}

/// Invoke `tool` (never cancelled); panics when the catalog has no such tool.
pub(crate) async fn invoke(g: &Ghostlight, tool: &str, arguments: &Value) -> ToolResult {
    g.invoke(tool, arguments, &Cancellation::never()).await.unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// Invoke `tool`; answers its envelope.
pub(crate) async fn call(g: &Ghostlight, tool: &str, arguments: Value) -> Envelope {
    invoke(g, tool, &arguments).await.envelope
}

/// Invoke `tool`, which must succeed; answers its envelope.
pub(crate) async fn ok(g: &Ghostlight, tool: &str, arguments: Value) -> Envelope {
    let envelope = call(g, tool, arguments.clone()).await;
    assert_eq!(
        envelope.status,
        Status::Succeeded,
        "{tool} {arguments}: {}\n{:?}",
        envelope.summary,
        envelope.facts
    );
    envelope
}
