//! Logging: `tracing` to standard error only (standard output carries MCP messages).
//!
//! The level comes from `GHOSTLIGHT_MCP_LOG` (then `RUST_LOG`), `info` by default. Whatever
//! it says, events of other crates are capped at `warn`: at `info` and below rmcp logs whole
//! requests and responses, and HTTP or WebDriver clients may log bodies, which would put tool
//! arguments, typed text, scripts and envelopes in the log. Ghostlight's own events name the
//! tool, the invocation handle, status, effect and timing, never arguments, typed text,
//! scripts, paths, dialog text or facts.

use tracing::Level;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// The environment variable read first for the log filter.
pub const LOG_ENV: &str = "GHOSTLIGHT_MCP_LOG";

/// Whether an event of `target` at `level` may be logged whatever the filter says: any event
/// of Ghostlight's own crates, and `warn` or `error` from the others.
fn payload_free(target: &str, level: &Level) -> bool {
    target.starts_with("ghostlight") || *level <= Level::WARN
}

/// Install the global subscriber (stderr, no colour when stderr is not a terminal). Calling it
/// twice keeps the first subscriber.
pub fn init() {
    let filter = std::env::var(LOG_ENV)
        .ok()
        .or_else(|| std::env::var("RUST_LOG").ok())
        .and_then(|directives| EnvFilter::try_new(directives).ok())
        .unwrap_or_else(|| EnvFilter::new("info"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let layer =
        tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(ansi).with_target(true);
    let _already_set = tracing_subscriber::registry()
        .with(filter)
        .with(filter_fn(|metadata| payload_free(metadata.target(), metadata.level())))
        .with(layer)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_crates_are_capped_at_warn() {
        assert!(!payload_free("rmcp::service", &Level::DEBUG));
        assert!(!payload_free("rmcp", &Level::INFO));
        assert!(!payload_free("hyper_util::client", &Level::TRACE));
        assert!(payload_free("rmcp::service", &Level::WARN));
        assert!(payload_free("rmcp", &Level::ERROR));
        assert!(payload_free("ghostlight_mcp::server", &Level::DEBUG));
        assert!(payload_free("ghostlight_mcp", &Level::TRACE));
    }
}
