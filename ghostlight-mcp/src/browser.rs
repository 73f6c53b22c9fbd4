//! The WebDriver browser the binaries drive by default (cargo feature `webdriver`), and the
//! serving path both `ghostlight-mcp` and `ghostlight mcp` run ([`serve`]).

use std::sync::Arc;

use ghostlight_core::StartupPosture;
use ghostlight_core::{BrowserPort, Ghostlight};
use ghostlight_webdriver::{DriverSource, Engine, Sandbox, Startup, WebDriverBrowser, WebDriverConfig};

use crate::config::{BrowserEngine, SandboxSetting};
use crate::error::{ConfigError, ServeError};
use crate::options::{BrowserOptions, ServeOptions, Transport};
use crate::server::GhostlightServer;

/// The WebDriver browser and a Ghostlight over it with the options' compiled authority and
/// audit sink. The browser starts on the first call that needs it; call
/// [`WebDriverBrowser::shutdown`] when done.
pub fn ghostlight(options: &ServeOptions) -> Result<(Arc<WebDriverBrowser>, Ghostlight), ConfigError> {
    let browser = Arc::new(WebDriverBrowser::new(webdriver_config(&options.browser)));
    let port: Arc<dyn BrowserPort> = browser.clone();
    let ghostlight = Ghostlight::builder(port)
        .authority(options.authority.compile())
        .audit(crate::audit::sink(&options.audit)?)
        .limits(options.limits)
        .build();
    Ok((browser, ghostlight))
}

/// Serve MCP with `options` until the client closes the session (stdio) or a signal (Ctrl-C,
/// SIGTERM) arrives, then close the browser.
pub async fn serve(options: ServeOptions) -> Result<(), ServeError> {
    let (browser, prototype) = ghostlight(&options)?;
    tracing::info!(
        engine = options.browser.engine.as_str(),
        headless = options.browser.headless,
        driver = if options.browser.driver_url.is_some() { "connect" } else { "launch" },
        startup = options.browser.startup.as_str(),
        sandbox = options.browser.sandbox.as_str(),
        organization = options.authority.organization.is_some(),
        "browser starts on the first call that needs it"
    );
    let server = GhostlightServer::over(prototype);
    let served = match options.transport {
        Transport::Stdio => {
            tracing::info!("MCP over stdio");
            tokio::select! {
                served = crate::serve_stdio(server) => served,
                () = shutdown_signal() => Ok(()),
            }
        }
        Transport::Http(http) => {
            // Each HTTP session drives a browser of its own (see ARCHITECTURE.md, "Sessions").
            let config = webdriver_config(&options.browser);
            let browsers: crate::server::BrowserFactory =
                Arc::new(move || Arc::new(WebDriverBrowser::new(config.clone())) as Arc<dyn BrowserPort>);
            serve_http(server.with_browser_per_session(browsers), &http).await
        }
    };
    browser.shutdown().await;
    tracing::info!("stopped");
    served
}

#[cfg(feature = "http")]
async fn serve_http(server: GhostlightServer, http: &crate::options::HttpOptions) -> Result<(), ServeError> {
    crate::http::serve(server, http, shutdown_signal()).await
}

#[cfg(not(feature = "http"))]
async fn serve_http(
    _server: GhostlightServer,
    _http: &crate::options::HttpOptions,
) -> Result<(), ServeError> {
    Err(ConfigError::HttpUnavailable.into())
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

/// The WebDriver adapter's configuration for `options`. A driver URL connects to that driver;
/// otherwise the adapter starts `chromedriver`/`geckodriver` from `PATH` on the first call that
/// needs the browser (never at startup, never for calls that need no browser).
pub fn webdriver_config(options: &BrowserOptions) -> WebDriverConfig {
    WebDriverConfig {
        engine: match options.engine {
            BrowserEngine::Chromium => Engine::Chromium,
            BrowserEngine::Firefox => Engine::Firefox,
        },
        driver: match &options.driver_url {
            Some(url) => DriverSource::Connect(url.url().clone()),
            None => DriverSource::default(),
        },
        headless: options.headless,
        window_width: options.window.width,
        window_height: options.window.height,
        startup: match options.startup {
            StartupPosture::Auto => Startup::Auto,
            StartupPosture::Manual => Startup::Manual,
        },
        sandbox: match options.sandbox {
            SandboxSetting::Auto => Sandbox::Auto,
            SandboxSetting::On => Sandbox::On,
            SandboxSetting::Off => Sandbox::Off,
        },
        ..WebDriverConfig::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::WindowSize;

    #[test]
    fn defaults_are_the_adapter_defaults() {
        assert_eq!(webdriver_config(&BrowserOptions::default()), WebDriverConfig::default());
    }

    #[test]
    fn options_map_one_to_one() {
        let options = BrowserOptions {
            engine: BrowserEngine::Firefox,
            headless: false,
            driver_url: "http://127.0.0.1:4444".parse().ok(),
            window: WindowSize { width: 800, height: 600 },
            startup: StartupPosture::Manual,
            sandbox: SandboxSetting::On,
        };
        let config = webdriver_config(&options);
        assert_eq!(config.engine, Engine::Firefox);
        assert!(matches!(config.driver, DriverSource::Connect(ref url) if url.port() == Some(4444)));
        assert!(!config.headless);
        assert_eq!((config.window_width, config.window_height), (800, 600));
        assert_eq!(config.startup, Startup::Manual);
        assert_eq!(config.sandbox, Sandbox::On);
    }
}
