//! The WebDriver browser the binary drives by default (cargo feature `webdriver`).

use ghostlight_core::authority::StartupPosture;
use ghostlight_webdriver::{DriverSource, Engine, Startup, WebDriverConfig};

use crate::config::BrowserEngine;
use crate::options::BrowserOptions;

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
        };
        let config = webdriver_config(&options);
        assert_eq!(config.engine, Engine::Firefox);
        assert!(matches!(config.driver, DriverSource::Connect(ref url) if url.port() == Some(4444)));
        assert!(!config.headless);
        assert_eq!((config.window_width, config.window_height), (800, 600));
        assert_eq!(config.startup, Startup::Manual);
    }
}
