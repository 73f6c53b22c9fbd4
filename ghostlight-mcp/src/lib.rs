//! # ghostlight-mcp
//!
//! The MCP edge of Ghostlight. This crate will carry the `ghostlight-mcp` server over any
//! `BrowserPort`; until then it only re-exports the catalog it will serve.

#![forbid(unsafe_code)]

pub use ghostlight_core::render_catalog;
