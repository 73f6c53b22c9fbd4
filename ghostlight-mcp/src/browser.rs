//! The WebDriver browser the binaries drive by default (cargo feature `webdriver`), and the
//! serving path both `ghostlight-mcp` and `ghostlight mcp` run ([`serve`]).

use std::sync::Arc;

use ghostlight_core::StartupPosture;
use ghostlight_core::{BrowserPort, Ghostlight};
use ghostlight_webdriver::{
    Diagnostics, DriverSource, Engine, Proxy, ProxyScheme, Sandbox, Startup, Viewport, WebDriverBrowser,
    WebDriverConfig,
};

use crate::config::{BrowserEngine, DiagnosticsSetting, ProxyUrl, SandboxSetting};
use crate::error::{ConfigError, ServeError};
use crate::options::{BrowserOptions, ServeOptions, Transport};
use crate::server::GhostlightServer;

/// The WebDriver browser and a Ghostlight over it with the options' compiled authority and
/// audit sink. The browser starts on the first call that needs it; call
/// [`WebDriverBrowser::shutdown`] when done.
///
/// Refused before anything starts: a browser configuration the engine cannot use
/// ([`checked_config`]), and a persistent profile another Ghostlight browser holds right now
/// (the browser takes the profile's lock when it starts, and is refused then if another took
/// it meanwhile).
pub fn ghostlight(options: &ServeOptions) -> Result<(Arc<WebDriverBrowser>, Ghostlight), ConfigError> {
    let config = checked_config(&options.browser)?;
    if let Some(profile) = config.profile() {
        ghostlight_webdriver::check_profile(profile)
            .map_err(|error| ConfigError::Profile(error.to_string()))?;
    }
    let browser = Arc::new(WebDriverBrowser::new(config));
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
        // The profile folder is the operator's own; a proxy never holds credentials.
        profile = options.browser.profile.as_ref().map(|p| p.display().to_string()),
        proxy = options.browser.proxy.as_ref().map(ToString::to_string),
        viewport = options.browser.viewport.map(|v| v.to_string()),
        ignore_https_errors = options.browser.ignore_https_errors,
        extra_args = options.browser.args.len(),
        diagnostics = options.browser.diagnostics.as_str(),
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

/// [`webdriver_config`], refused when the adapter could not use it (an `https://` proxy on
/// Firefox, a bad proxy bypass entry, a browser argument Ghostlight manages itself such as
/// `--user-data-dir`): the same check the adapter makes before it starts a browser, made
/// early so that `ghostlight config check` and the server's start report it.
pub fn checked_config(options: &BrowserOptions) -> Result<WebDriverConfig, ConfigError> {
    options.check()?;
    let config = webdriver_config(options);
    config.check().map_err(|problem| ConfigError::Browser(problem.to_string()))?;
    Ok(config)
}

/// The adapter's proxy for a configured proxy URL and bypass list.
fn proxy(url: &ProxyUrl, bypass: &[String]) -> Proxy {
    let scheme = match url.scheme {
        crate::config::ProxyScheme::Http => ProxyScheme::Http,
        crate::config::ProxyScheme::Https => ProxyScheme::Https,
        crate::config::ProxyScheme::Socks4 => ProxyScheme::Socks4,
        crate::config::ProxyScheme::Socks5 => ProxyScheme::Socks5,
    };
    Proxy { scheme, host: url.host.clone(), port: url.port, bypass: bypass.to_vec() }
}

/// The WebDriver adapter's configuration for `options`. A driver URL connects to that driver;
/// otherwise the adapter starts `chromedriver`/`geckodriver` (the configured one, else from
/// `PATH`) on the first call that needs the browser (never at startup, never for calls that
/// need no browser).
pub fn webdriver_config(options: &BrowserOptions) -> WebDriverConfig {
    WebDriverConfig {
        engine: match options.engine {
            BrowserEngine::Chromium => Engine::Chromium,
            BrowserEngine::Firefox => Engine::Firefox,
        },
        driver: match &options.driver_url {
            Some(url) => DriverSource::Connect(url.url().clone()),
            None => DriverSource::Launch {
                driver_path: options.driver_path.clone(),
                browser_path: options.browser_path.clone(),
            },
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
        profile: options.profile.clone(),
        proxy: options.proxy.as_ref().map(|url| proxy(url, &options.proxy_bypass)),
        viewport: options.viewport.map(|size| Viewport { width: size.width, height: size.height }),
        accept_insecure_certs: options.ignore_https_errors,
        browser_args: options.args.clone(),
        diagnostics: match options.diagnostics {
            DiagnosticsSetting::OnDemand => Diagnostics::OnDemand,
            DiagnosticsSetting::OnStart => Diagnostics::OnStart,
        },
        extra_capabilities: serde_json::Map::new(),
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
            ..BrowserOptions::default()
        };
        let config = webdriver_config(&options);
        assert_eq!(config.engine, Engine::Firefox);
        assert!(matches!(config.driver, DriverSource::Connect(ref url) if url.port() == Some(4444)));
        assert!(!config.headless);
        assert_eq!((config.window_width, config.window_height), (800, 600));
        assert_eq!(config.startup, Startup::Manual);
        assert_eq!(config.sandbox, Sandbox::On);
    }

    #[test]
    fn launch_options_map_and_engine_limits_are_checked() {
        let options = BrowserOptions {
            browser_path: Some("/opt/chromium/chrome".into()),
            driver_path: Some("/opt/chromium/chromedriver".into()),
            profile: Some("/srv/profile".into()),
            proxy: "socks5://10.0.0.2:1080".parse().ok(),
            proxy_bypass: vec!["*.corp.example".into()],
            viewport: Some(WindowSize { width: 1000, height: 700 }),
            ignore_https_errors: true,
            args: vec!["--lang=de".into()],
            diagnostics: DiagnosticsSetting::OnStart,
            ..BrowserOptions::default()
        };
        let config = checked_config(&options).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            config.driver,
            DriverSource::Launch {
                driver_path: Some("/opt/chromium/chromedriver".into()),
                browser_path: Some("/opt/chromium/chrome".into())
            }
        );
        assert_eq!(config.profile(), Some(std::path::Path::new("/srv/profile")));
        let proxy = config.proxy.clone().unwrap_or_else(|| panic!("a proxy"));
        assert_eq!(
            (proxy.to_string(), proxy.bypass),
            ("socks5://10.0.0.2:1080".to_owned(), vec!["*.corp.example".to_owned()])
        );
        assert_eq!(config.viewport, Some(Viewport { width: 1000, height: 700 }));
        assert!(config.accept_insecure_certs);
        assert_eq!(config.browser_args, ["--lang=de"]);
        assert_eq!(config.diagnostics, Diagnostics::OnStart);

        let https_on_firefox = BrowserOptions {
            engine: BrowserEngine::Firefox,
            proxy: "https://proxy.example:443".parse().ok(),
            ..BrowserOptions::default()
        };
        let error = checked_config(&https_on_firefox).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("needs Chromium"), "{error}");
        let reserved =
            BrowserOptions { args: vec!["--user-data-dir=/tmp/x".into()], ..BrowserOptions::default() };
        let error = checked_config(&reserved).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("use the profile setting"), "{error}");
    }
}
