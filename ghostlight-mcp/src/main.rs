//! `ghostlight-mcp`: Ghostlight's 24 governed browser tools over MCP.
//!
//! Serves stdio by default (or streamable HTTP with `--transport http`, cargo feature `http`)
//! and drives a headless Chromium through `chromedriver`, started on the first call that needs
//! a browser. Logs go to standard error; standard output carries MCP messages only.

#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use ghostlight_core::{BrowserPort, Ghostlight};
use ghostlight_mcp::browser::webdriver_config;
use ghostlight_mcp::options::{ServeOptions, Transport};
use ghostlight_mcp::{GhostlightServer, ServeArgs, ServeError, logging, serve_stdio};
use ghostlight_webdriver::WebDriverBrowser;

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
    let result = runtime.block_on(run(options));
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

async fn run(options: ServeOptions) -> Result<(), ServeError> {
    let browser = Arc::new(WebDriverBrowser::new(webdriver_config(&options.browser)));
    tracing::info!(
        engine = options.browser.engine.as_str(),
        headless = options.browser.headless,
        driver = if options.browser.driver_url.is_some() { "connect" } else { "launch" },
        startup = options.browser.startup.as_str(),
        "browser starts on the first call that needs it"
    );
    let port: Arc<dyn BrowserPort> = browser.clone();
    let prototype = Ghostlight::builder(port).authority(options.authority.compile()).build();
    let server = GhostlightServer::over(prototype);

    let served = match options.transport {
        Transport::Stdio => {
            tracing::info!("MCP over stdio");
            tokio::select! {
                served = serve_stdio(server) => served,
                () = shutdown_signal() => Ok(()),
            }
        }
        Transport::Http(http) => serve_http(server, &http).await,
    };
    browser.shutdown().await;
    tracing::info!("stopped");
    served
}

#[cfg(feature = "http")]
async fn serve_http(
    server: GhostlightServer,
    http: &ghostlight_mcp::options::HttpOptions,
) -> Result<(), ServeError> {
    ghostlight_mcp::http::serve(server, http, shutdown_signal()).await
}

#[cfg(not(feature = "http"))]
async fn serve_http(
    _server: GhostlightServer,
    _http: &ghostlight_mcp::options::HttpOptions,
) -> Result<(), ServeError> {
    Err(ghostlight_mcp::ConfigError::HttpUnavailable.into())
}

/// Ctrl-C, or SIGTERM on Unix.
async fn shutdown_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
    tracing::info!("shutting down on a signal");
}
