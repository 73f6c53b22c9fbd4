//! `ghostlight-mcp`: Ghostlight's 24 governed browser tools over MCP, the same server and
//! flags as `ghostlight mcp`.
//!
//! Serves stdio by default (or streamable HTTP with `--transport http`, cargo feature `http`)
//! and drives a headless Chromium through `chromedriver`, started on the first call that needs
//! a browser. Logs go to standard error; standard output carries MCP messages only.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;
use ghostlight_cli::options::ServeArgs;

/// Ghostlight's governed browser tools over MCP (stdio by default).
#[derive(Debug, Parser)]
#[command(name = "ghostlight-mcp", version)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match ghostlight_cli::serve::run(&cli.serve) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("ghostlight-mcp: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}
