//! # ghostlight-mcp
//!
//! The MCP edge of Ghostlight: the 24 governed browser tools served over the Model Context
//! Protocol with [rmcp](https://docs.rs/rmcp), over any [`BrowserPort`], and the
//! `ghostlight-mcp` binary (headless Chromium through WebDriver by default).
//!
//! * `tools/list` is the core catalog exactly as [`ghostlight_core::render_catalog`] renders
//!   it (name, description, inputSchema, outputSchema, annotations).
//! * `tools/call` runs [`Ghostlight::invoke`](ghostlight_core::Ghostlight::invoke). The
//!   envelope crosses twice: as `structuredContent`, and in the text block as the summary,
//!   `Next: ` lines, a blank line and the compact JSON of the same envelope
//!   ([`render`]). Screenshots and delivered replays follow as image blocks. `isError` is set
//!   for `failed`, `blocked` and `attention_required`; only a tool name outside the catalog is
//!   a protocol error (invalid params).
//! * Each MCP session is its own workspace ([`GhostlightServer::session`]): a client sees and
//!   acts on its own tabs only.
//! * `notifications/cancelled` stops the invocation, which answers `cancelled`.
//!
//! ```
//! use std::sync::Arc;
//! use ghostlight_core::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};
//! use ghostlight_core::Cancellation;
//! use ghostlight_mcp::GhostlightServer;
//! use serde_json::json;
//!
//! let browser = ScriptedBrowser::new().site(
//!     "https://example.com/",
//!     ScriptedPage::new("Example").text("Hello").element(ScriptedElement::button("Save")),
//! );
//! let server = GhostlightServer::new(Arc::new(browser));
//! let never = Cancellation::never();
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().build()?;
//! runtime.block_on(async {
//!     let opened = server.call("browser_navigate", &json!({"url": "https://example.com/"}), &never).await?;
//!     assert_eq!(opened.is_error, Some(false));
//!
//!     // The text block: summary, next steps, a blank line, then the envelope's JSON...
//!     let text = &opened.content[0].as_text().expect("a text block").text;
//!     assert!(text.starts_with("Opened example.com.\n"));
//!     let (_, json) = text.split_once("\n\n").expect("a blank line before the JSON");
//!     // ...which is exactly the structured content.
//!     let envelope: serde_json::Value = serde_json::from_str(json)?;
//!     assert_eq!(Some(&envelope), opened.structured_content.as_ref());
//!     assert_eq!(envelope["status"], "succeeded");
//!
//!     // Invalid arguments are an envelope with isError, not a protocol error.
//!     let bad = server.call("browser_navigate", &json!({"url": 5}), &never).await?;
//!     assert_eq!(bad.is_error, Some(true));
//!
//!     // A tool outside the catalog is a protocol error.
//!     assert!(server.call("browser_teleport", &json!({}), &never).await.is_err());
//!
//!     // Another MCP session gets its own workspace: it sees none of the first one's tabs.
//!     let other = server.session();
//!     let tabs = other.call("browser_tabs", &json!({"action": "list"}), &never).await?;
//!     assert_eq!(tabs.structured_content.expect("an envelope")["facts"]["tabs"], json!([]));
//!     Ok::<(), Box<dyn std::error::Error>>(())
//! })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Serving over stdio (what the binary does, with a WebDriver browser):
//!
//! ```no_run
//! # async fn demo(port: std::sync::Arc<dyn ghostlight_core::BrowserPort>) -> Result<(), ghostlight_mcp::ServeError> {
//! ghostlight_mcp::serve_stdio(ghostlight_mcp::GhostlightServer::new(port)).await
//! # }
//! ```
//!
//! Features: `webdriver` (default) compiles the WebDriver browser in; `http` adds the
//! streamable HTTP transport (module `http`), loopback-bound and behind a bearer token.
//!
//! Modules: [`server`] (the rmcp handler), [`render`] (catalog and results as MCP values),
//! [`config`] (the TOML file format and where files are looked for, shared with the
//! `ghostlight` command), [`options`] (flags resolved with the files), [`audit`] (JSON-lines
//! audit sink), [`logging`] (stderr only), `browser` (WebDriver wiring and the serving path
//! both binaries run, feature `webdriver`) and `http` (feature `http`).
//!
//! [`BrowserPort`]: ghostlight_core::BrowserPort

#![forbid(unsafe_code)]

pub mod audit;
#[cfg(feature = "webdriver")]
pub mod browser;
pub mod config;
pub mod error;
#[cfg(feature = "http")]
pub mod http;
pub mod logging;
pub mod options;
pub mod render;
pub mod server;
pub mod stdio;

pub use error::{ConfigError, RenderError, ServeError};
pub use options::{ServeArgs, ServeOptions};
pub use server::GhostlightServer;
pub use stdio::serve_stdio;
