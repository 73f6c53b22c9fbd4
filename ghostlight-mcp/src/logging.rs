//! The MCP `logging` capability: a client may ask (`logging/setLevel`) for what the server logs
//! of its calls as `notifications/message`: one `info` message per call with the tool, the
//! invocation handle, status, effect, image count and elapsed time — never arguments, summaries,
//! facts or page content. Until a client sets a level, nothing is sent.
//!
//! rmcp marks MCP logging deprecated (SEP-2577, a later protocol revision); the revisions this
//! server negotiates have it, and clients and the conformance suite use it.
#![allow(deprecated)]

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{CallToolResult, LoggingLevel, LoggingMessageNotificationParam};
use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};

/// The name messages are sent under.
const LOGGER: &str = "ghostlight";

/// The level one client asked for (`None`: none yet, so nothing is sent).
#[derive(Debug, Clone, Default)]
pub(crate) struct ClientLog(Arc<Mutex<Option<LoggingLevel>>>);

/// Severity order (RFC 5424, as MCP's levels): higher is more severe.
fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

impl ClientLog {
    /// Send messages of `level` and above from now on.
    pub(crate) fn set(&self, level: LoggingLevel) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(level);
    }

    /// Whether a message of `level` is wanted.
    fn wants(&self, level: LoggingLevel) -> bool {
        let minimum = *self.0.lock().unwrap_or_else(PoisonError::into_inner);
        minimum.is_some_and(|minimum| severity(level) >= severity(minimum))
    }

    /// The `info` message of one call (its rendered result), when the client wants it (a
    /// failure to send only costs the message).
    pub(crate) async fn call(
        &self,
        peer: &Peer<RoleServer>,
        tool: &str,
        result: &CallToolResult,
        elapsed_ms: u64,
    ) {
        if !self.wants(LoggingLevel::Info) {
            return;
        }
        let envelope = result.structured_content.as_ref();
        let field = |name: &str| envelope.and_then(|e| e.get(name)).cloned().unwrap_or(Value::Null);
        let data = json!({
            "event": "tool call",
            "tool": tool,
            "invocation": field("invocation"),
            "status": field("status"),
            "effect": field("effect"),
            "images": result.content.len().saturating_sub(1),
            "elapsed_ms": elapsed_ms,
        });
        let mut message = LoggingMessageNotificationParam::new(LoggingLevel::Info, data);
        message.logger = Some(LOGGER.to_owned());
        if let Err(error) = peer.notify_logging_message(message).await {
            tracing::debug!(%error, "cannot send a log message");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_wanted_until_a_level_is_set_then_that_level_and_above() {
        let log = ClientLog::default();
        assert!(!log.wants(LoggingLevel::Emergency));
        log.set(LoggingLevel::Warning);
        assert!(!log.wants(LoggingLevel::Info));
        assert!(log.wants(LoggingLevel::Error));
        log.set(LoggingLevel::Debug);
        assert!(log.wants(LoggingLevel::Info));
    }
}
