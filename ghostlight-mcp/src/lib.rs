//! # ghostlight-mcp
//!
//! The MCP edge of Ghostlight as a library: the 24 governed browser tools served over the
//! Model Context Protocol with [rmcp](https://docs.rs/rmcp), over any [`BrowserPort`] the host
//! supplies. It has no command line, configuration file, logging setup or browser of its own:
//! the `ghostlight` and `ghostlight-mcp` commands (crate `ghostlight-cli`) are one application
//! of it, with a WebDriver browser and TOML configuration.
//!
//! * `tools/list` is the core catalog exactly as [`ghostlight_core::render_catalog`] renders
//!   it (name, description, inputSchema, outputSchema, annotations).
//! * `tools/call` runs [`Ghostlight::invoke`](ghostlight_core::Ghostlight::invoke). The
//!   envelope crosses twice: as `structuredContent`, and in the text block as the summary,
//!   `Next: ` lines, a blank line and the compact JSON of the same envelope
//!   ([`render`]). Screenshots and delivered replays follow as image blocks. `isError` is set
//!   for every status but `succeeded`; only a tool name outside the catalog is a protocol error
//!   (invalid params).
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
//! Serving a host's own browser: whatever implements [`BrowserPort`] (core's scripted browser
//! below; `examples/examples/custom_port.rs` in the repository is a complete implementation)
//! with the authority, audit sink and limits the host chooses. [`GhostlightServer`] is an rmcp
//! [`ServerHandler`](rmcp::ServerHandler), so any rmcp transport serves it; here an in-memory
//! pipe to an rmcp client:
//!
//! ```
//! use std::sync::Arc;
//! use ghostlight_core::testing::{ScriptedBrowser, ScriptedPage};
//! use ghostlight_core::{AuthorityLayers, BrowserPort, Ghostlight, Settings};
//! use ghostlight_mcp::GhostlightServer;
//! use rmcp::ServiceExt as _;
//!
//! let browser: Arc<dyn BrowserPort> =
//!     Arc::new(ScriptedBrowser::new().site("https://example.com/", ScriptedPage::new("Example")));
//! let authority = AuthorityLayers { user: Some(Settings::default()), organization: None }.compile();
//! let server = GhostlightServer::over(Ghostlight::builder(browser).authority(authority).build());
//!
//! // rmcp needs the runtime's timers.
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! runtime.block_on(async {
//!     let (client_io, server_io) = tokio::io::duplex(1 << 20);
//!     let serving = tokio::spawn(async move {
//!         if let Ok(running) = server.serve(server_io).await {
//!             let _ = running.waiting().await;
//!         }
//!     });
//!     let client = ().serve(client_io).await?;
//!     let tools = client.list_all_tools().await?;
//!     assert_eq!(tools.len(), 24);
//!     client.cancel().await?;
//!     let _ = serving.await;
//!     Ok::<(), Box<dyn std::error::Error>>(())
//! })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Over standard input and output, until the client closes the session ([`serve_stdio`]
//! answers every request line, even one rmcp cannot parse), or over streamable HTTP behind
//! bearer tokens (feature `http`, module `http`):
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use ghostlight_core::BrowserPort;
//! # use ghostlight_mcp::{GhostlightServer, ServeError};
//! async fn serve(browser: Arc<dyn BrowserPort>) -> Result<(), ServeError> {
//!     ghostlight_mcp::serve_stdio(GhostlightServer::new(browser)).await
//! }
//!
//! # #[cfg(feature = "http")]
//! async fn serve_http(browser: Arc<dyn BrowserPort>) -> Result<(), Box<dyn std::error::Error>> {
//!     use ghostlight_mcp::http::{BearerToken, HttpOptions};
//!     // Loopback Host values, 16 sessions (8 per token), 5 minutes idle: the defaults.
//!     let options =
//!         HttpOptions::new("127.0.0.1:7861".parse()?, vec![BearerToken::new(&std::env::var("MY_TOKEN")?)?]);
//!     // Each HTTP session gets its own workspace (its own tabs) of the one browser.
//!     let stop = std::future::pending(); // e.g. a Ctrl-C future
//!     ghostlight_mcp::http::serve(GhostlightServer::new(browser), &options, stop).await?;
//!     Ok(())
//! }
//! ```
//!
//! Feature: `http` adds the streamable HTTP transport (module `http`), loopback-bound by
//! default and behind bearer tokens.
//!
//! Modules: [`server`] (the rmcp handler), [`render`] (catalog and results as MCP values),
//! [`stdio`] (the line-checking stdio transport), `http` (feature `http`) and [`error`].
//!
//! [`BrowserPort`]: ghostlight_core::BrowserPort

#![forbid(unsafe_code)]

pub mod confirm;
pub mod error;
#[cfg(feature = "http")]
pub mod http;
mod logging;
pub mod render;
pub mod server;
pub mod stdio;

pub use error::{RenderError, ServeError};
pub use server::GhostlightServer;
pub use stdio::serve_stdio;
