//! # ghostlight-cli
//!
//! The application around Ghostlight's libraries, shared by the two binaries of this package:
//! `ghostlight` (serve MCP, call a tool, run a flow, keep a session, export the catalog,
//! explain the policy, manage configuration, check the machine) and `ghostlight-mcp` (the MCP
//! server alone, the same as `ghostlight mcp` with the same flags).
//!
//! The MCP handler, rendering and transports are `ghostlight-mcp`'s, over any browser port;
//! this crate chooses the port (headless Chromium or Firefox through WebDriver, or the
//! person's own browser through the Ghostlight extension) and everything
//! an operator sets:
//!
//! * [`settings`]: the browser settings, declared once in one table (flag, `[browser]` key,
//!   documentation, default, how each applies to the adapter's configuration), from which the
//!   browser flags, the `[browser]` section, `config init`'s file and README's rows are made;
//! * [`options`]: the command-line flags (the browser flags, [`options::BrowserArgs`],
//!   flattened into every command that starts a browser), resolved with the configuration
//!   files into [`options::ServeOptions`];
//! * [`config`]: the TOML configuration file and where the user and organization files are
//!   looked for;
//! * [`browser`]: the WebDriver adapter's configuration and a Ghostlight over it with the
//!   configured authority, audit sink and limits;
//! * `extension` (cargo feature `extension`, on by default): the extension connector's
//!   wiring, listening for the person's own browser;
//! * [`audit`]: the JSON-lines audit sink (standard error or a file);
//! * [`logging`]: `tracing` to standard error, payload-free;
//! * [`serve`]: the serving path of `ghostlight-mcp` and `ghostlight mcp` (stdio, or HTTP with
//!   the cargo feature `http`), until the client or a signal ends it;
//! * [`error`]: configuration and serving errors.
//!
//! ```no_run
//! use clap::Parser;
//! use ghostlight_cli::options::ServeArgs;
//!
//! /// An MCP server with Ghostlight's flags, as `ghostlight-mcp` is.
//! #[derive(Parser)]
//! struct Cli {
//!     #[command(flatten)]
//!     serve: ServeArgs,
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     match ghostlight_cli::serve::run(&Cli::parse().serve) {
//!         Ok(()) => std::process::ExitCode::SUCCESS,
//!         Err(error) => {
//!             eprintln!("my-server: {error}");
//!             std::process::ExitCode::from(error.exit_code())
//!         }
//!     }
//! }
//! ```

#![forbid(unsafe_code)]

pub mod audit;
pub mod browser;
pub mod config;
pub mod confirm;
pub mod error;
#[cfg(feature = "extension")]
pub mod extension;
pub mod logging;
pub mod options;
pub mod private_file;
pub mod serve;
pub mod settings;

pub use error::{ConfigError, ServeError};
