//! The configuration file format (TOML), read by both binaries, and where files are looked for.
//!
//! Every section and key is optional and unknown keys are refused, so a typo is an error
//! rather than a silently ignored rule. `[browser]` says which browser to drive; the authority
//! sections are read straight into the user settings document of
//! [`ghostlight_core::Settings`] ([`ConfigFile::settings`], its `[browser] startup` key
//! included).
//!
//! ```toml
//! [browser]
//! connector = "webdriver"        # or "extension": the person's own browser, through the extension
//! engine = "chromium"            # or "firefox"
//! headless = true
//! driver_url = "http://127.0.0.1:9515"   # connect to a running driver instead of starting one
//! window = "1280x800"
//! startup = "auto"               # or "manual": a person starts the browser
//! sandbox = "auto"               # Chromium's sandbox: on unless root; or "on", "off"
//! browser_path = "/opt/chromium/chrome"  # the browser executable (default: the driver finds it)
//! driver_path = "/opt/chromium/chromedriver"   # the driver executable (default: from PATH)
//! profile = "/home/ada/.local/share/ghostlight/profile"   # kept between runs, locked while in use
//! # storage_state = "/home/ada/ghostlight-state.json"   # or: cookies + localStorage loaded at start
//! # save_storage_state = true    # … and written back at exit
//! proxy = "http://127.0.0.1:3128"  # http, https (Chromium), socks4 or socks5; no credentials
//! proxy_bypass = ["intranet.example", "*.corp.example"]
//! viewport = "1280x720"          # CSS viewport (innerWidth x innerHeight); resizes the window
//! ignore_https_errors = false    # accept self-signed and invalid certificates
//! args = ["--lang=de"]           # more browser arguments
//! diagnostics = "on_start"       # console and network tracking from the session's start
//!
//! [capabilities]
//! allow = ["execute"]
//!
//! [hosts]
//! allow = ["example.com", "*.example.com"]
//!
//! [privacy]
//! preserve_target_names = false
//!
//! [tabs]
//! close = "forbidden"
//!
//! [uploads]
//! roots = ["/home/ada/Uploads"]
//!
//! [audit]
//! destination = "file"           # "off" (default), "stderr" or "file"
//! path = "/var/log/ghostlight/audit.jsonl"
//! ```
//!
//! ```
//! use ghostlight_cli::config::{BrowserEngine, ConfigFile};
//!
//! let file = ConfigFile::parse("[browser]\nengine = \"firefox\"\nwindow = \"800x600\"\n[hosts]\nallow = [\"example.com\"]\n")?;
//! assert_eq!(file.browser.engine, Some(BrowserEngine::Firefox));
//! assert_eq!(file.browser.window.map(|w| (w.width, w.height)), Some((800, 600)));
//! assert!(file.settings.hosts.allow.is_some());
//! assert!(ConfigFile::parse("[hosts]\nalow = []\n").is_err());
//! # Ok::<(), ghostlight_cli::ConfigError>(())
//! ```
//!
//! Where files are looked for ([`ConfigSources::discover`]): the user file is `--config`, else
//! `$GHOSTLIGHT_CONFIG`, else `$XDG_CONFIG_HOME/ghostlight/config.toml` (or
//! `~/.config/ghostlight/config.toml`) when it exists; the organization file is
//! [`ORGANIZATION_PATH`] when it exists, parsed as [`ghostlight_core::OrganizationSettings`] and
//! compiled as the organization layer (its ceilings bind every user setting).

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use ghostlight_core::{Settings, StartupPosture};
use ghostlight_core::{WINDOW_HEIGHT, WINDOW_WIDTH};
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use url::Url;

use crate::error::ConfigError;

mod discovery;

pub use discovery::{
    CONFIG_ENV, ConfigSources, LoadedConfig, ORGANIZATION_PATH, default_user_path, load_organization,
};

/// A whole configuration file.
///
/// Every section is optional and unknown sections are refused. The authority sections
/// (`[capabilities]`, `[hosts]`, `[privacy]`, `[tabs]`, `[uploads]`) are read straight into
/// [`ConfigFile::settings`], core's user settings document; `[browser] startup` is both a
/// browser setting and an authority one, so it is in both places.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigFile {
    /// `[browser]`: which browser to drive, and who starts it.
    pub browser: BrowserSection,
    /// The authority sections and `[browser] startup`, as the user settings document.
    pub settings: Settings,
    /// `[audit]`: where audit records go.
    pub audit: AuditSection,
    /// `[limits]`: what sessions may hold.
    pub limits: LimitsSection,
}

/// The top-level sections of a configuration file, in the order error messages list them.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Section {
    Browser,
    Capabilities,
    Hosts,
    Privacy,
    Tabs,
    Uploads,
    Audit,
    Limits,
}

/// Reads the sections of a configuration document into a [`ConfigFile`].
struct Sections;

impl<'de> Visitor<'de> for Sections {
    type Value = ConfigFile;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct ConfigFile")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ConfigFile, A::Error> {
        let mut file = ConfigFile::default();
        while let Some(section) = map.next_key()? {
            let settings = &mut file.settings;
            match section {
                Section::Browser => {
                    file.browser = map.next_value()?;
                    settings.browser.startup = file.browser.startup;
                }
                Section::Capabilities => settings.capabilities = map.next_value()?,
                Section::Hosts => settings.hosts = map.next_value()?,
                Section::Privacy => settings.privacy = map.next_value()?,
                Section::Tabs => settings.tabs = map.next_value()?,
                Section::Uploads => settings.uploads = map.next_value()?,
                Section::Audit => file.audit = map.next_value()?,
                Section::Limits => file.limits = map.next_value()?,
            }
        }
        Ok(file)
    }
}

impl<'de> Deserialize<'de> for ConfigFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(Sections)
    }
}

/// `[limits]`
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LimitsSection {
    /// `sessions`: MCP sessions an HTTP server holds at once (default 16).
    pub sessions: Option<usize>,
    /// `sessions_per_token`: MCP sessions one HTTP client's token holds at once (default: half
    /// of `sessions`, at least 1).
    pub sessions_per_token: Option<usize>,
    /// `session_idle_seconds`: seconds an HTTP session may go without a request before it
    /// ends (default 300).
    pub session_idle_seconds: Option<u64>,
    /// `tabs`: tabs one session holds open (default 20).
    pub tabs: Option<usize>,
    /// `recordings`: recordings one session holds (default 3).
    pub recordings: Option<usize>,
}

/// `[audit]`
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuditSection {
    /// `destination`: `"off"` (default), `"stderr"` or `"file"`.
    pub destination: Option<AuditDestination>,
    /// `path`: the JSON-lines file records are appended to (required with `"file"`).
    pub path: Option<PathBuf>,
}

/// Where audit records go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AuditDestination {
    /// Dropped.
    #[default]
    Off,
    /// One JSON object per line on standard error.
    Stderr,
    /// One JSON object per line, appended to `[audit] path`.
    File,
}

/// `[browser]`
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BrowserSection {
    /// `connector`: `"webdriver"` (default: a browser Ghostlight starts through its driver) or
    /// `"extension"` (the person's own browser, through the Ghostlight extension).
    pub connector: Option<Connector>,
    /// `engine`: `"chromium"` (default) or `"firefox"`.
    pub engine: Option<BrowserEngine>,
    /// `headless` (default `true`).
    pub headless: Option<bool>,
    /// `driver_url`: connect to a WebDriver endpoint already listening there instead of
    /// starting a driver.
    pub driver_url: Option<DriverUrl>,
    /// `window`: `"WIDTHxHEIGHT"` (default `"1280x800"`).
    pub window: Option<WindowSize>,
    /// `startup`: `"auto"` (default) or `"manual"`. Part of the authority settings too:
    /// `policy_explain` reports it.
    pub startup: Option<StartupPosture>,
    /// `sandbox`: Chromium's sandbox, `"auto"` (default: on unless running as root), `"on"`
    /// or `"off"`.
    pub sandbox: Option<SandboxSetting>,
    /// `browser_path`: the browser executable (absolute; default: the driver finds its
    /// browser).
    pub browser_path: Option<AbsolutePath>,
    /// `driver_path`: the driver executable (absolute; default: `chromedriver` /
    /// `geckodriver` from `PATH`).
    pub driver_path: Option<AbsolutePath>,
    /// `profile`: a persistent browser profile folder (absolute), kept between runs and
    /// locked while a browser uses it (default: a fresh temporary profile each run).
    pub profile: Option<AbsolutePath>,
    /// `storage_state`: a JSON file of cookies and localStorage (Playwright's `storageState`
    /// shape, absolute path) loaded into the fresh profile at start; not with `profile`.
    pub storage_state: Option<AbsolutePath>,
    /// `save_storage_state`: write the state back to `storage_state` at exit (default
    /// `false`).
    pub save_storage_state: Option<bool>,
    /// `proxy`: `scheme://host:port` with scheme `http`, `https` (Chromium only), `socks4`
    /// or `socks5`; credentials are refused.
    pub proxy: Option<ProxyUrl>,
    /// `proxy_bypass`: hosts reached without the proxy (`example.com`, `*.example.com`,
    /// `<local>`).
    pub proxy_bypass: Option<Vec<String>>,
    /// `viewport`: the CSS viewport `"WIDTHxHEIGHT"`; the window is resized to give it.
    pub viewport: Option<WindowSize>,
    /// `ignore_https_errors`: accept invalid and self-signed certificates (default `false`).
    pub ignore_https_errors: Option<bool>,
    /// `args`: more browser command-line arguments.
    pub args: Option<Vec<String>>,
    /// `diagnostics`: `"on_demand"` (default: tracking starts with the first
    /// `browser_diagnose` of a tab) or `"on_start"` (every tab is tracked from its creation).
    pub diagnostics: Option<DiagnosticsSetting>,
}

/// How Ghostlight reaches its browser (`[browser] connector`, `--connector`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Connector {
    /// A browser Ghostlight starts (or connects to) through WebDriver.
    #[default]
    Webdriver,
    /// The person's own browser, through the Ghostlight extension and its native host (cargo
    /// feature `extension`).
    Extension,
}

impl Connector {
    /// The configuration value: `webdriver` or `extension`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Connector::Webdriver => "webdriver",
            Connector::Extension => "extension",
        }
    }
}

/// When console and network tracking starts (`[browser] diagnostics`, `--diagnostics`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticsSetting {
    /// With the first `browser_diagnose` call for a tab (the spec's opt-in default).
    #[default]
    #[value(name = "on_demand", alias = "on-demand")]
    OnDemand,
    /// With the browser session, for every tab: the first `browser_diagnose` call already
    /// holds the page load's console errors and failed requests.
    #[value(name = "on_start", alias = "on-start")]
    OnStart,
}

impl DiagnosticsSetting {
    /// The configuration value.
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticsSetting::OnDemand => "on_demand",
            DiagnosticsSetting::OnStart => "on_start",
        }
    }
}

/// An absolute path from the configuration file (a relative one is refused: it would depend
/// on where the server happens to start).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AbsolutePath(PathBuf);

impl AbsolutePath {
    /// The path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl<'de> Deserialize<'de> for AbsolutePath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let path = PathBuf::deserialize(deserializer)?;
        if !path.is_absolute() {
            return Err(serde::de::Error::custom(format!(
                "expected an absolute path, got {:?}",
                path.display().to_string().chars().take(200).collect::<String>()
            )));
        }
        Ok(AbsolutePath(path))
    }
}

/// The protocol spoken to a proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProxyScheme {
    /// HTTP (HTTPS goes through it with `CONNECT`).
    Http,
    /// HTTP over TLS (Chromium only).
    Https,
    /// SOCKS 4.
    Socks4,
    /// SOCKS 5.
    Socks5,
}

impl ProxyScheme {
    /// The URL scheme.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProxyScheme::Http => "http",
            ProxyScheme::Https => "https",
            ProxyScheme::Socks4 => "socks4",
            ProxyScheme::Socks5 => "socks5",
        }
    }
}

/// A proxy server `scheme://host:port` (`proxy`, `--proxy`). Never holds credentials: a URL
/// with a user name or password is refused, and no error repeats the URL it was given.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProxyUrl {
    /// The protocol.
    pub scheme: ProxyScheme,
    /// Host name or IP address (an IPv6 address without brackets).
    pub host: String,
    /// Port (default 80, 443 or 1080 by scheme).
    pub port: u16,
}

/// Why a proxy URL is refused (the URL itself is never repeated: it may hold a password).
const PROXY_FORMAT: &str = "expected scheme://host:port with scheme http, https, socks4 or socks5";

impl FromStr for ProxyUrl {
    type Err = ConfigError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || ConfigError::Proxy(PROXY_FORMAT.to_owned());
        let url = Url::parse(text.trim()).map_err(|_| invalid())?;
        let scheme = match url.scheme() {
            "http" => ProxyScheme::Http,
            "https" => ProxyScheme::Https,
            "socks4" => ProxyScheme::Socks4,
            "socks5" => ProxyScheme::Socks5,
            _ => return Err(invalid()),
        };
        if !url.username().is_empty() || url.password().is_some() {
            return Err(ConfigError::Proxy(
                "credentials in the proxy URL are not supported (and never logged): remove them and use \
                 a proxy that admits this machine"
                    .to_owned(),
            ));
        }
        if !matches!(url.path(), "" | "/") || url.query().is_some() || url.fragment().is_some() {
            return Err(invalid());
        }
        let host = match url.host() {
            Some(url::Host::Domain(domain)) if !domain.is_empty() => domain.to_owned(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            _ => return Err(invalid()),
        };
        let port = url.port().unwrap_or(match scheme {
            ProxyScheme::Http => 80,
            ProxyScheme::Https => 443,
            ProxyScheme::Socks4 | ProxyScheme::Socks5 => 1080,
        });
        Ok(ProxyUrl { scheme, host, port })
    }
}

impl fmt::Display for ProxyUrl {
    /// `scheme://host:port` (there are never credentials to hide).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "{}://[{}]:{}", self.scheme.as_str(), self.host, self.port)
        } else {
            write!(f, "{}://{}:{}", self.scheme.as_str(), self.host, self.port)
        }
    }
}

impl<'de> Deserialize<'de> for ProxyUrl {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Chromium's sandbox (`[browser] sandbox`, `--sandbox`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SandboxSetting {
    /// On unless the process runs as root (Chromium refuses to start sandboxed as root).
    #[default]
    Auto,
    /// Always on.
    On,
    /// Always off.
    Off,
}

impl SandboxSetting {
    /// The configuration value.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxSetting::Auto => "auto",
            SandboxSetting::On => "on",
            SandboxSetting::Off => "off",
        }
    }
}

impl ConfigFile {
    /// Parse a configuration document.
    pub fn parse(text: &str) -> Result<ConfigFile, ConfigError> {
        parse_toml(text, None)
    }

    /// Read and parse the configuration file at `path`.
    pub fn load(path: &Path) -> Result<ConfigFile, ConfigError> {
        read_toml(path)
    }
}

/// Read the file at `path` and parse it as a TOML document of type `T`.
fn read_toml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| ConfigError::Read { path: path.to_owned(), source })?;
    parse_toml(&text, Some(path))
}

/// Parse `text` as a TOML document of type `T`, locating any error by line and column.
fn parse_toml<T: serde::de::DeserializeOwned>(text: &str, path: Option<&Path>) -> Result<T, ConfigError> {
    toml::from_str(text).map_err(|error| {
        let (line, column) = match error.span() {
            Some(span) => line_column(text, span.start),
            None => (None, None),
        };
        ConfigError::Invalid {
            path: path.map(Path::to_owned),
            line,
            column,
            message: with_suggestion(error.message().trim()),
        }
    })
}

/// An "unknown field `X`, expected one of `a`, `b`" message with the closest expected key
/// named (`; did you mean `allow`?`), when one is close enough to be a typo.
fn with_suggestion(message: &str) -> String {
    let suggestion = (|| {
        let rest = message.strip_prefix("unknown field `")?;
        let (given, rest) = rest.split_once('`')?;
        let expected = rest.split_once("expected one of ")?.1;
        expected
            .split('`')
            .skip(1)
            .step_by(2)
            .map(|key| (strsim::damerau_levenshtein(given, key), key))
            .filter(|(distance, key)| *distance <= 2.max(key.len() / 3))
            .min_by_key(|(distance, _)| *distance)
            .map(|(_, key)| key.to_owned())
    })();
    match suggestion {
        Some(key) => format!("{message}; did you mean `{key}`?"),
        None => message.to_owned(),
    }
}

/// The 1-based line and column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (Option<usize>, Option<usize>) {
    let Some(before) = text.get(..offset) else { return (None, None) };
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (Some(line), Some(column))
}

/// A commented configuration file saying nothing but the defaults (what `ghostlight config
/// init` writes). Every key is present, commented out, with its default.
pub const DEFAULT_FILE: &str = r#"# Ghostlight configuration (TOML). Every key is optional; unknown keys are errors.
# Shown values are the defaults. Check a file with `ghostlight config check`.

[browser]
# connector = "webdriver"    # "extension": drive your own browser through the Ghostlight extension
#                            # (run `ghostlight install` first); the other keys are WebDriver's
# engine = "chromium"        # "chromium" (chromedriver) or "firefox" (geckodriver)
# headless = true            # false shows the window
# driver_url = "http://127.0.0.1:9515"   # connect to a running driver instead of starting one
# window = "1280x800"        # outer window WIDTHxHEIGHT
# startup = "auto"           # "manual": a person starts the browser
# sandbox = "auto"           # Chromium's sandbox: on unless running as root; "on" or "off"
# browser_path = "/usr/bin/chromium"      # the browser executable (absent: the driver finds it)
# driver_path = "/usr/bin/chromedriver"   # the driver executable (absent: from PATH)
# profile = "/home/me/.local/share/ghostlight/profile"   # persistent profile (absent: a fresh
#                            # temporary one per run); never deleted, locked while a browser uses it
# storage_state = "/home/me/ghostlight-state.json"   # cookies + localStorage loaded at start
#                            # (Playwright's storageState JSON); not with profile
# save_storage_state = false # true writes them back to storage_state at exit (mode 0600)
# proxy = "http://127.0.0.1:3128"   # http, https (Chromium only), socks4 or socks5; no credentials
# proxy_bypass = []          # hosts reached without the proxy: "example.com", "*.example.com"
# viewport = "1280x720"      # CSS viewport WIDTHxHEIGHT (absent: the window size decides)
# ignore_https_errors = false   # true accepts self-signed and invalid certificates
# args = []                  # more browser arguments, e.g. ["--lang=de"]
# diagnostics = "on_demand"  # "on_start": console and network tracked for every tab from its creation

[limits]
# sessions = 16              # MCP sessions an HTTP server holds at once
# sessions_per_token = 8     # of them one client's token holds (default: half of sessions)
# session_idle_seconds = 300 # an HTTP session without a request this long ends
# tabs = 20                  # tabs one session holds open
# recordings = 3             # recordings one session holds

[capabilities]
# allow = ["read", "action", "write"]   # add "execute" to allow browser_execute
# deny = []

[hosts]
# allow = ["example.com", "*.example.com"]   # absent: every host is allowed
# deny = []

[privacy]
# preserve_target_names = true

[tabs]
# close = "allowed"          # "forbidden": browser_tabs close is refused

[uploads]
# roots = []                 # directories browser_upload may read files from (none: path uploads refused)

[audit]
# destination = "off"        # "off", "stderr" or "file" (JSON lines)
# path = "/var/log/ghostlight/audit.jsonl"   # required with destination = "file"
"#;

/// A browser engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum BrowserEngine {
    /// Chromium (or Chrome) through chromedriver.
    #[default]
    Chromium,
    /// Firefox through geckodriver.
    Firefox,
}

impl BrowserEngine {
    /// The configuration value: `chromium` or `firefox`.
    pub const fn as_str(self) -> &'static str {
        match self {
            BrowserEngine::Chromium => "chromium",
            BrowserEngine::Firefox => "firefox",
        }
    }
}

impl fmt::Display for BrowserEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An outer window size, written `WIDTHxHEIGHT`, within the bounds `browser_window` resize
/// accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WindowSize {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl WindowSize {
    /// The default window, 1280×800.
    pub const DEFAULT: WindowSize = WindowSize { width: 1280, height: 800 };
}

impl Default for WindowSize {
    fn default() -> Self {
        WindowSize::DEFAULT
    }
}

impl FromStr for WindowSize {
    type Err = ConfigError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || ConfigError::Window {
            given: text.chars().take(40).collect(),
            min_width: WINDOW_WIDTH.min,
            max_width: WINDOW_WIDTH.max,
            min_height: WINDOW_HEIGHT.min,
            max_height: WINDOW_HEIGHT.max,
        };
        let (width, height) = text.trim().split_once(['x', 'X']).ok_or_else(invalid)?;
        let width: u32 = width.trim().parse().map_err(|_| invalid())?;
        let height: u32 = height.trim().parse().map_err(|_| invalid())?;
        if !WINDOW_WIDTH.contains(u64::from(width)) || !WINDOW_HEIGHT.contains(u64::from(height)) {
            return Err(invalid());
        }
        Ok(WindowSize { width, height })
    }
}

impl fmt::Display for WindowSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

impl<'de> Deserialize<'de> for WindowSize {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The URL of a WebDriver endpoint: absolute `http` or `https`, without credentials.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DriverUrl(Url);

impl DriverUrl {
    /// The URL.
    pub fn url(&self) -> &Url {
        &self.0
    }

    /// The URL, owned.
    pub fn into_url(self) -> Url {
        self.0
    }
}

impl FromStr for DriverUrl {
    type Err = ConfigError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let url = Url::parse(text.trim()).map_err(|error| ConfigError::DriverUrl(error.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
            return Err(ConfigError::DriverUrl("expected an absolute http or https URL".into()));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(ConfigError::DriverUrl("credentials in the URL are not accepted".into()));
        }
        Ok(DriverUrl(url))
    }
}

impl fmt::Display for DriverUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl<'de> Deserialize<'de> for DriverUrl {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use ghostlight_core::TabClosePolicy;
    use ghostlight_core::{Capability, CapabilitySet};

    use super::*;

    fn parse(text: &str) -> ConfigFile {
        ConfigFile::parse(text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_mistyped_key_names_the_key_meant() {
        let error =
            ConfigFile::parse("[hosts]\nalow = [\"a\"]\n").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.ends_with("; did you mean `allow`?"), "{error}");
        let error =
            ConfigFile::parse("[limts]\nsessions = 3\n").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.ends_with("; did you mean `limits`?"), "{error}");
        let error =
            ConfigFile::parse("[hosts]\nxyzzy = []\n").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(!error.contains("did you mean"), "{error}");
    }

    #[test]
    fn empty_file_says_nothing() {
        assert_eq!(parse(""), ConfigFile::default());
        assert_eq!(parse("").settings, Settings::default());
    }

    #[test]
    fn full_file() {
        let file = parse(
            r#"
            [browser]
            engine = "firefox"
            headless = false
            driver_url = "http://127.0.0.1:4444/"
            window = "1024x768"
            startup = "manual"

            [capabilities]
            allow = ["execute"]
            deny = ["write"]

            [hosts]
            allow = ["example.com"]
            deny = ["ads.example.com"]

            [privacy]
            preserve_target_names = false

            [tabs]
            close = "forbidden"

            [uploads]
            roots = ["/srv/uploads"]
            "#,
        );
        assert_eq!(file.browser.engine, Some(BrowserEngine::Firefox));
        assert_eq!(file.browser.headless, Some(false));
        assert_eq!(file.browser.driver_url.as_ref().map(|u| u.url().port()), Some(Some(4444)));
        assert_eq!(file.browser.window, Some(WindowSize { width: 1024, height: 768 }));
        let settings = &file.settings;
        assert_eq!(settings.browser.startup, Some(StartupPosture::Manual));
        assert_eq!(settings.capabilities.allow, CapabilitySet::of(&[Capability::Execute]));
        assert_eq!(settings.tabs.close, Some(TabClosePolicy::Forbidden));
        assert_eq!(settings.privacy.preserve_target_names, Some(false));
        assert_eq!(settings.hosts.deny.len(), 1);
        assert!(settings.uploads.roots.is_some());
    }

    #[test]
    fn unknown_keys_and_bad_values_are_refused() {
        for bad in [
            "[browser]\nengin = \"firefox\"",
            "[browser]\nengine = \"safari\"",
            "[browser]\nwindow = \"big\"",
            "[browser]\nwindow = \"100x100\"",
            "[browser]\ndriver_url = \"ftp://127.0.0.1/\"",
            "[browser]\ndriver_url = \"http://user:pw@127.0.0.1/\"",
            "[capabilities]\nallow = [\"teleport\"]",
            "[organization]\nname = \"Acme\"",
            "[hosts]\nallow = \"example.com\"",
        ] {
            let error = ConfigFile::parse(bad).err().unwrap_or_else(|| panic!("accepted {bad:?}"));
            assert!(matches!(error, ConfigError::Invalid { .. }), "{bad:?}: {error}");
        }
    }

    #[test]
    fn errors_are_located_and_the_default_file_parses() {
        let error = ConfigFile::parse("[browser]\nheadless = true\n[hosts]\nalow = []\n").err();
        let Some(ConfigError::Invalid { line, column, message, .. }) = error else { panic!("{error:?}") };
        assert_eq!((line, column), (Some(4), Some(1)));
        assert!(message.contains("alow"), "{message}");
        assert_eq!(parse(DEFAULT_FILE), ConfigFile::default());
        let audit = parse("[audit]\ndestination = \"file\"\npath = \"/tmp/a.jsonl\"\n").audit;
        assert_eq!(audit.destination, Some(AuditDestination::File));
    }

    #[test]
    fn launch_options_parse_and_refuse_what_they_cannot_use() {
        let file = parse(
            r#"
            [browser]
            browser_path = "/opt/chromium/chrome"
            driver_path = "/opt/chromium/chromedriver"
            profile = "/srv/ghostlight/profile"
            proxy = "socks5://10.0.0.2"
            proxy_bypass = ["intranet.example", "*.corp.example"]
            viewport = "1000x700"
            ignore_https_errors = true
            args = ["--lang=de"]
            diagnostics = "on_start"
            "#,
        );
        let browser = &file.browser;
        assert_eq!(
            browser.profile.as_ref().map(AbsolutePath::path),
            Some(Path::new("/srv/ghostlight/profile"))
        );
        assert_eq!(
            browser.proxy.as_ref().map(ToString::to_string).as_deref(),
            Some("socks5://10.0.0.2:1080")
        );
        assert_eq!(browser.viewport, Some(WindowSize { width: 1000, height: 700 }));
        assert_eq!(browser.diagnostics, Some(DiagnosticsSetting::OnStart));
        assert_eq!(browser.args.as_deref(), Some(&["--lang=de".to_owned()][..]));
        for bad in [
            "[browser]\nprofile = \"relative/profile\"",
            "[browser]\nproxy = \"ftp://h:1\"",
            "[browser]\nproxy = \"127.0.0.1:3128\"",
            "[browser]\ndiagnostics = \"always\"",
            "[browser]\nviewport = \"10x10\"",
        ] {
            assert!(ConfigFile::parse(bad).is_err(), "{bad}");
        }
        let secret = ConfigFile::parse("[browser]\nproxy = \"http://ada:hunter2@proxy:3128\"\n").err();
        let text = secret.map(|e| e.to_string()).unwrap_or_default();
        assert!(text.contains("credentials") && !text.contains("hunter2") && !text.contains("ada"), "{text}");
        assert_eq!(
            "http://[::1]:8080".parse::<ProxyUrl>().map(|p| p.to_string()).ok().as_deref(),
            Some("http://[::1]:8080")
        );
    }

    #[test]
    fn window_sizes() {
        assert_eq!("1280x800".parse::<WindowSize>().ok(), Some(WindowSize::DEFAULT));
        assert_eq!("800X600".parse::<WindowSize>().ok(), Some(WindowSize { width: 800, height: 600 }));
        assert!("319x800".parse::<WindowSize>().is_err());
        assert!("1280".parse::<WindowSize>().is_err());
        assert_eq!(WindowSize::DEFAULT.to_string(), "1280x800");
    }

    #[test]
    fn a_missing_file_names_its_path() {
        let error = ConfigFile::load(Path::new("/nonexistent/ghostlight.toml")).err();
        assert!(matches!(error, Some(ConfigError::Read { .. })));
    }
}
