//! Serving MCP: the path `ghostlight-mcp` and `ghostlight mcp` both run ([`run`]): logging,
//! the options resolved with the configuration files, an async runtime, then [`serve`] with
//! the configured browser (WebDriver, or the person's own through the extension) until the
//! client or a signal ends it.

use std::time::Duration;

use ghostlight_mcp::GhostlightServer;
use ghostlight_webdriver::DriverSource;

use crate::browser::ghostlight;
use crate::config::Connector;
use crate::error::ServeError;
use crate::logging;
use crate::options::{ServeArgs, ServeOptions, Transport};

/// How long the runtime waits for stray blocking tasks (a terminal stdin read) at exit.
pub const RUNTIME_SHUTDOWN: Duration = Duration::from_secs(2);

/// Start logging, resolve `args` with the configuration files, and serve on a runtime of its
/// own until the client closes the session (stdio) or a signal arrives.
pub fn run(args: &ServeArgs) -> Result<(), ServeError> {
    logging::init();
    let options = args.resolve()?;
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(ServeError::Runtime)?;
    let result = runtime.block_on(serve(options));
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
    result
}

/// Serve MCP with `options` until the client closes the session (stdio) or a signal (Ctrl-C,
/// SIGTERM) arrives, then close the browser.
pub async fn serve(options: ServeOptions) -> Result<(), ServeError> {
    let (browser, prototype) = ghostlight(&options)?;
    if options.browser.connector == Connector::Extension {
        tracing::info!(
            connector = options.browser.connector.as_str(),
            startup = options.browser.webdriver.startup.as_str(),
            organization = options.authority.organization.is_some(),
            "the person's browser connects when its Ghostlight extension starts"
        );
    } else {
        let config = &options.browser.webdriver;
        tracing::info!(
            engine = config.engine.as_str(),
            headless = config.headless,
            driver = if matches!(config.driver, DriverSource::Connect(_)) { "connect" } else { "launch" },
            startup = config.startup.as_str(),
            sandbox = config.sandbox.as_str(),
            // The profile folder is the operator's own; a proxy never holds credentials.
            profile = config.profile.as_ref().map(|p| p.display().to_string()),
            proxy = config.proxy.as_ref().map(ToString::to_string),
            viewport = config.viewport.map(|v| format!("{}x{}", v.width, v.height)),
            ignore_https_errors = config.accept_insecure_certs,
            extra_args = config.browser_args.len(),
            diagnostics = config.diagnostics.as_str(),
            organization = options.authority.organization.is_some(),
            "browser starts on the first call that needs it"
        );
    }
    let server = GhostlightServer::over(prototype);
    let served = match options.transport {
        Transport::Stdio => {
            tracing::info!("MCP over stdio");
            tokio::select! {
                served = ghostlight_mcp::serve_stdio(server) => served.map_err(ServeError::from),
                () = shutdown_signal() => Ok(()),
            }
        }
        #[cfg(feature = "http")]
        Transport::Http(http) => serve_http(server, &options.browser, &http, options.http_browsers).await,
    };
    browser.shutdown().await;
    tracing::info!("stopped");
    served
}

/// Serve over streamable HTTP until a signal arrives. Each HTTP session drives a browser as
/// `browser` says: a user context of its own in one shared Chromium, or a browser of its own
/// (`sharing`, and where a browser cannot be shared; see ARCHITECTURE.md, "Sessions").
#[cfg(feature = "http")]
async fn serve_http(
    server: GhostlightServer,
    browser: &crate::options::BrowserOptions,
    http: &ghostlight_mcp::http::HttpOptions,
    sharing: crate::options::HttpBrowsers,
) -> Result<(), ServeError> {
    use std::sync::Arc;

    use ghostlight_core::BrowserPort;
    use ghostlight_webdriver::{SharedBrowser, WebDriverBrowser};

    let config = crate::browser::webdriver_config(browser);
    let shared = match sharing {
        crate::options::HttpBrowsers::Shared => match SharedBrowser::new(config.clone()) {
            Ok(shared) => {
                tracing::info!("HTTP sessions share one browser, each in a user context of its own");
                Some(shared)
            }
            Err(why) => {
                tracing::info!(reason = %why, "each HTTP session starts a browser of its own");
                None
            }
        },
        crate::options::HttpBrowsers::PerSession => {
            tracing::info!("each HTTP session starts a browser of its own");
            None
        }
    };
    let browsers: ghostlight_mcp::server::BrowserFactory = match shared.clone() {
        Some(shared) => Arc::new(move || Arc::new(WebDriverBrowser::seated(&shared)) as Arc<dyn BrowserPort>),
        None => Arc::new(move || Arc::new(WebDriverBrowser::new(config.clone())) as Arc<dyn BrowserPort>),
    };
    let server = server.with_browser_per_session(browsers);
    let served = ghostlight_mcp::http::serve(server, http, shutdown_signal()).await;
    if let Some(shared) = shared {
        shared.shutdown().await;
    }
    Ok(served?)
}

/// Ctrl-C, or SIGTERM on Unix.
pub async fn shutdown_signal() {
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
