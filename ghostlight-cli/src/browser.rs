//! The browser the commands drive: the WebDriver adapter (its configuration for the resolved
//! options, checked before anything starts) or, with `connector = "extension"`, the person's
//! own browser through the Ghostlight extension ([`crate::extension`]); and a Ghostlight over
//! it with the configured authority, audit sink and limits.

use std::sync::Arc;

use ghostlight_core::{BrowserPort, Ghostlight};
use ghostlight_webdriver::{WebDriverBrowser, WebDriverConfig};

use crate::config::Connector;
use crate::error::ConfigError;
use crate::options::{BrowserOptions, ServeOptions};

/// The browser a command drives: close it with [`Browser::shutdown`] when done.
#[derive(Debug, Clone)]
pub enum Browser {
    /// A browser Ghostlight starts through WebDriver on the first call that needs it.
    WebDriver(Arc<WebDriverBrowser>),
    /// The person's own browser, through the extension (listening on the private socket).
    #[cfg(feature = "extension")]
    Extension(Arc<ghostlight_extension::ExtensionBrowser>),
}

impl Browser {
    /// Close the WebDriver session, driver and browser; or stop listening for the extension
    /// (the person's browser stays open).
    pub async fn shutdown(&self) {
        match self {
            Browser::WebDriver(browser) => browser.shutdown().await,
            #[cfg(feature = "extension")]
            Browser::Extension(_) => {}
        }
    }

    /// Before a one-off command's calls: give the person's browser a moment to connect when
    /// one could (the extension retries with a backoff of up to ten seconds). Nothing to do
    /// for WebDriver.
    pub async fn settle(&self) {
        match self {
            Browser::WebDriver(_) => {}
            #[cfg(feature = "extension")]
            Browser::Extension(browser) => crate::extension::settle(browser).await,
        }
    }

    /// What drives the browser, in a sentence fragment for status lines: the engine and window
    /// WebDriver starts (`chromium (headless), started by the first call that needs it`), or the
    /// person's browser and whether its extension is connected right now.
    pub fn describe(&self, options: &BrowserOptions) -> String {
        match self {
            Browser::WebDriver(_) => {
                let config = &options.webdriver;
                let window = if config.headless { "headless" } else { "headed" };
                format!("{} ({window}), started by the first call that needs it", config.engine)
            }
            #[cfg(feature = "extension")]
            Browser::Extension(browser) => match browser.connected() {
                Some(hello) => {
                    format!("the person's own {} through the Ghostlight extension, connected", hello.engine)
                }
                None => "the person's own browser through the Ghostlight extension, not connected".to_owned(),
            },
        }
    }

    /// The port calls go through.
    fn port(&self) -> Arc<dyn BrowserPort> {
        match self {
            Browser::WebDriver(browser) => browser.clone(),
            #[cfg(feature = "extension")]
            Browser::Extension(browser) => browser.clone(),
        }
    }
}

/// The configured browser and a Ghostlight over it with the options' compiled authority and
/// audit sink. A WebDriver browser starts on the first call that needs it; the extension
/// connector listens for the person's browser at once (so this must run inside a Tokio
/// runtime then). Call [`Browser::shutdown`] when done.
///
/// Refused before anything starts: a browser configuration the engine cannot use
/// ([`checked_config`]), a persistent profile another Ghostlight browser holds right now
/// (the browser takes the profile's lock when it starts, and is refused then if another took
/// it meanwhile), a storage state file that cannot be read, and an extension socket another
/// server listens on.
pub fn ghostlight(options: &ServeOptions) -> Result<(Browser, Ghostlight), ConfigError> {
    let browser = match options.browser.connector {
        Connector::Webdriver => {
            let config = checked_config(&options.browser)?;
            if let Some(profile) = config.profile() {
                ghostlight_webdriver::check_profile(profile)
                    .map_err(|error| ConfigError::Profile(error.to_string()))?;
            }
            if let Some(file) = &config.storage_state {
                // Read again when the browser starts; a missing or malformed file is a usage error.
                file.read().map_err(|error| ConfigError::Browser(error.to_string()))?;
            }
            Browser::WebDriver(Arc::new(WebDriverBrowser::new(config)))
        }
        #[cfg(feature = "extension")]
        Connector::Extension => {
            options.browser.check()?;
            let ignored = options.browser.webdriver_only_settings();
            if !ignored.is_empty() {
                tracing::warn!(
                    settings = ignored.join(", "),
                    "these browser settings have no effect with the extension connector (it drives the \
                     person's own browser)"
                );
            }
            Browser::Extension(Arc::new(crate::extension::listen()?))
        }
        #[cfg(not(feature = "extension"))]
        Connector::Extension => return Err(ConfigError::ExtensionUnavailable),
    };
    let builder = Ghostlight::builder(browser.port())
        .authority(options.authority.compile())
        .audit(crate::audit::sink(&options.audit)?)
        .limits(options.limits);
    // The extension's popup asks the person when the edge has no channel of its own.
    #[cfg(feature = "extension")]
    let builder = match &browser {
        Browser::Extension(extension) => {
            builder.confirmer(Arc::new(crate::confirm::PopupConfirmer(extension.clone())))
        }
        _ => builder,
    };
    let ghostlight = builder.build();
    Ok((browser, ghostlight))
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

/// The WebDriver adapter's configuration for `options` (the settings table applied it as the
/// options resolved). A driver URL connects to that driver; otherwise the adapter starts
/// `chromedriver`/`geckodriver` (the configured one, else from `PATH`) on the first call that
/// needs the browser (never at startup, never for calls that need no browser).
pub fn webdriver_config(options: &BrowserOptions) -> WebDriverConfig {
    options.webdriver.clone()
}

#[cfg(test)]
mod tests {
    use ghostlight_webdriver::{Diagnostics, DriverSource, Engine, Sandbox, Startup, Viewport};

    use super::*;
    use crate::config::ConfigFile;
    use crate::options::ServeArgs;

    /// The browser options a `[browser]` section resolves to.
    fn from_section(section: &str) -> Result<BrowserOptions, ConfigError> {
        let file = ConfigFile::parse(&format!("[browser]\n{section}"))?;
        Ok(ServeArgs::default().resolve_with(Some(&file))?.browser)
    }

    #[test]
    fn defaults_are_the_adapter_defaults() {
        assert_eq!(webdriver_config(&BrowserOptions::default()), WebDriverConfig::default());
    }

    #[test]
    fn options_map_one_to_one() {
        let options = from_section(
            "engine = \"firefox\"\nheadless = false\ndriver_url = \"http://127.0.0.1:4444\"\n\
             window = \"800x600\"\nstartup = \"manual\"\nsandbox = \"on\"\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
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
        let options = from_section(
            "browser_path = \"/opt/chromium/chrome\"\ndriver_path = \"/opt/chromium/chromedriver\"\n\
             profile = \"/srv/profile\"\nproxy = \"socks5://10.0.0.2:1080\"\nproxy_bypass = [\"*.corp.example\"]\n\
             viewport = \"1000x700\"\nignore_https_errors = true\nargs = [\"--lang=de\"]\ndiagnostics = \"on_start\"\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
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

        let https_on_firefox = from_section("engine = \"firefox\"\nproxy = \"https://proxy.example:443\"\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let error = checked_config(&https_on_firefox).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("needs Chromium"), "{error}");
        let reserved =
            from_section("args = [\"--user-data-dir=/tmp/x\"]\n").unwrap_or_else(|e| panic!("{e}"));
        let error = checked_config(&reserved).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("use the profile setting"), "{error}");
    }
}
