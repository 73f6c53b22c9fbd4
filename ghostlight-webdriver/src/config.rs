//! [`WebDriverConfig`]: which browser to drive and how to reach its driver.

use std::path::PathBuf;

use serde_json::{Map, Value};
use url::Url;

/// Default outer window width in pixels.
pub const DEFAULT_WINDOW_WIDTH: u32 = 1280;
/// Default outer window height in pixels.
pub const DEFAULT_WINDOW_HEIGHT: u32 = 800;

/// The flags every Chromium the adapter launches gets (besides `--headless=new` when headless,
/// its fresh `--user-data-dir`, `--window-size` and, only when [`Sandbox::disabled`],
/// [`NO_SANDBOX_FLAG`]): no GPU, and none of the background networking that would flood a
/// closed network.
pub const CHROMIUM_FLAGS: [&str; 6] = [
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// The Chromium flag that turns its sandbox off.
pub const NO_SANDBOX_FLAG: &str = "--no-sandbox";

/// Whether Chromium runs in its sandbox (Firefox's is not affected).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sandbox {
    /// On, unless this process runs as root (Chromium refuses to start sandboxed as root).
    #[default]
    Auto,
    /// Always on (Chromium will not start as root).
    On,
    /// Always off.
    Off,
}

impl Sandbox {
    /// Whether Chromium gets [`NO_SANDBOX_FLAG`].
    pub fn disabled(self) -> bool {
        match self {
            Sandbox::Auto => runs_as_root(),
            Sandbox::On => false,
            Sandbox::Off => true,
        }
    }

    /// The configuration value (`auto`, `on`, `off`).
    pub fn as_str(self) -> &'static str {
        match self {
            Sandbox::Auto => "auto",
            Sandbox::On => "on",
            Sandbox::Off => "off",
        }
    }
}

/// Whether this process runs as root (`/proc/self` belongs to the process's user; `false`
/// where that cannot be read).
pub fn runs_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|meta| meta.uid() == 0)
}

/// A browser engine the adapter can drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Engine {
    /// Chromium (or Chrome) through chromedriver.
    #[default]
    Chromium,
    /// Firefox through geckodriver.
    Firefox,
}

impl Engine {
    /// The short lowercase engine name reported by `BrowserPort::engine` (`chromium`, `firefox`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Engine::Chromium => "chromium",
            Engine::Firefox => "firefox",
        }
    }

    /// The browser's display name, as a person would open it (`Chromium`, `Firefox`).
    pub const fn display_name(self) -> &'static str {
        match self {
            Engine::Chromium => "Chromium",
            Engine::Firefox => "Firefox",
        }
    }

    /// The executable name of the engine's driver, looked up on `PATH`.
    pub const fn driver_name(self) -> &'static str {
        match self {
            Engine::Chromium => "chromedriver",
            Engine::Firefox => "geckodriver",
        }
    }
}

/// Where the WebDriver endpoint comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriverSource {
    /// Start the driver locally on a free loopback port and stop it (and the browser) on
    /// shutdown.
    Launch {
        /// The driver executable; `None` looks up `chromedriver` / `geckodriver` on `PATH`.
        driver_path: Option<PathBuf>,
        /// The browser executable; `None` lets the driver find its default browser.
        browser_path: Option<PathBuf>,
    },
    /// Use a driver (or a Selenium Grid) already listening at this URL. The adapter opens and
    /// closes sessions there but starts or stops no process.
    Connect(Url),
}

impl Default for DriverSource {
    fn default() -> Self {
        DriverSource::Launch { driver_path: None, browser_path: None }
    }
}

/// Whether the adapter may start a browser by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Startup {
    /// Start (or connect to) the browser on the first call that needs it.
    #[default]
    Auto,
    /// A person starts the browser: every call answers a startup refusal and nothing is
    /// started.
    Manual,
}

/// How [`WebDriverBrowser`](crate::WebDriverBrowser) reaches its browser.
///
/// The default drives a headless Chromium through `chromedriver` found on `PATH`, with a
/// 1280×800 window, started on first use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebDriverConfig {
    /// The browser engine.
    pub engine: Engine,
    /// Where the driver comes from.
    pub driver: DriverSource,
    /// Run the browser without a visible window.
    pub headless: bool,
    /// Outer window width in pixels.
    pub window_width: u32,
    /// Outer window height in pixels.
    pub window_height: u32,
    /// Whether the adapter may start the browser itself.
    pub startup: Startup,
    /// Chromium's sandbox.
    pub sandbox: Sandbox,
    /// More capabilities for the new-session request, e.g. what a Selenium Grid routes on
    /// (`platformName`, `browserVersion`, `se:name`) or engine options
    /// (`goog:loggingPrefs`). Merged into the adapter's own capabilities: a new key is added;
    /// for a key the adapter sets too, an object is merged into the adapter's object one key
    /// deep (yours win; `args` lists are appended to), anything else replaces it. The keys
    /// the adapter depends on ([`RESERVED_CAPABILITIES`]) are never replaced.
    pub extra_capabilities: Map<String, Value>,
}

/// Capabilities the adapter relies on and [`WebDriverConfig::extra_capabilities`] cannot
/// replace: the dialog behaviour the navigation rules need, the BiDi URL the evidence needs,
/// and the timeouts every bounded call sets.
pub const RESERVED_CAPABILITIES: [&str; 4] =
    ["unhandledPromptBehavior", "webSocketUrl", "pageLoadStrategy", "timeouts"];

impl Default for WebDriverConfig {
    fn default() -> Self {
        WebDriverConfig {
            engine: Engine::default(),
            driver: DriverSource::default(),
            headless: true,
            window_width: DEFAULT_WINDOW_WIDTH,
            window_height: DEFAULT_WINDOW_HEIGHT,
            startup: Startup::default(),
            sandbox: Sandbox::default(),
            extra_capabilities: Map::new(),
        }
    }
}

impl WebDriverConfig {
    /// The default configuration for `engine` (headless, launched from `PATH`).
    pub fn for_engine(engine: Engine) -> Self {
        WebDriverConfig { engine, ..WebDriverConfig::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_headless_chromium_launched_from_path() {
        let config = WebDriverConfig::default();
        assert_eq!(config.engine, Engine::Chromium);
        assert_eq!(config.driver, DriverSource::Launch { driver_path: None, browser_path: None });
        assert!(config.headless);
        assert_eq!((config.window_width, config.window_height), (1280, 800));
        assert_eq!(config.startup, Startup::Auto);
        assert!(config.extra_capabilities.is_empty());
    }

    #[test]
    fn engine_names() {
        assert_eq!(Engine::Firefox.as_str(), "firefox");
        assert_eq!(Engine::Firefox.display_name(), "Firefox");
        assert_eq!(Engine::Chromium.driver_name(), "chromedriver");
    }
}
