//! `ghostlight-mcp`: Ghostlight's 24 governed browser tools over MCP.
//!
//! Serves stdio by default (or streamable HTTP with `--transport http`, cargo feature `http`)
//! and drives a headless Chromium through `chromedriver`, started on the first call that needs
//! a browser. Logs go to standard error; standard output carries MCP messages only.

#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use ghostlight_mcp::{ServeArgs, ServeError, logging};

/// Ghostlight's governed browser tools over MCP (stdio by default).
#[derive(Debug, Parser)]
#[command(name = "ghostlight-mcp", version)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

/// How long the runtime waits for stray blocking tasks (a terminal stdin read) at exit.
const RUNTIME_SHUTDOWN: Duration = Duration::from_secs(2);

fn main() -> ExitCode {
    let cli = Cli::parse();
    logging::init();
    let options = match cli.serve.resolve() {
        Ok(options) => options,
        Err(error) => {
            eprintln!("ghostlight-mcp: {error}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("ghostlight-mcp: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(ghostlight_mcp::browser::serve(options));
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(ServeError::Config(error)) => {
            eprintln!("ghostlight-mcp: {error}");
            ExitCode::from(2)
        }
        Err(error) => {
            eprintln!("ghostlight-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}
