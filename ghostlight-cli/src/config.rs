//! The configuration file format (TOML), read by both binaries, and where files are looked for.
//!
//! Every section and key is optional and unknown keys are refused, so a typo is an error
//! rather than a silently ignored rule. `[browser]` says which browser to drive; the authority
//! sections are read straight into the user settings document of
//! [`ghostlight_core::Settings`] ([`ConfigFile::settings`], its `[browser] startup` key
//! included).
//!
//! ```toml
//! [browser]                     # every key: crate::settings::SETTINGS, README, `config init`
//! engine = "firefox"
//! window = "1024x768"
//! proxy = "http://127.0.0.1:3128"  # http, https (Chromium), socks4 or socks5; no credentials
//! args = ["--lang=de"]
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
//! use ghostlight_cli::config::ConfigFile;
//! use ghostlight_cli::settings::Value;
//!
//! let file = ConfigFile::parse("[browser]\nengine = \"firefox\"\nwindow = \"800x600\"\n[hosts]\nallow = [\"example.com\"]\n")?;
//! assert_eq!(file.browser.get("engine"), Some(&Value::Text("firefox".into())));
//! assert_eq!(file.browser.get("window"), Some(&Value::Text("800x600".into())));
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

use ghostlight_core::Settings;
use ghostlight_core::{WINDOW_HEIGHT, WINDOW_WIDTH};
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use url::Url;

use crate::error::ConfigError;
use crate::settings::Given;

mod discovery;

pub use discovery::{
    CONFIG_ENV, ConfigSources, LoadedConfig, ORGANIZATION_PATH, default_user_path, load_organization,
};

/// A whole configuration file.
///
/// Every section is optional and unknown sections are refused. The authority sections
/// (`[capabilities]`, `[hosts]`, `[privacy]`, `[tabs]`, `[uploads]`, `[confirm]`) are read straight into
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
    Confirm,
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
                    settings.browser.startup = file.browser.startup();
                }
                Section::Capabilities => settings.capabilities = map.next_value()?,
                Section::Hosts => settings.hosts = map.next_value()?,
                Section::Privacy => settings.privacy = map.next_value()?,
                Section::Tabs => settings.tabs = map.next_value()?,
                Section::Uploads => settings.uploads = map.next_value()?,
                Section::Confirm => settings.confirm = map.next_value()?,
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

/// `[browser]`: the settings the file gives, by key (every key is an entry of
/// [`crate::settings::SETTINGS`], which says what it means and how it applies).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BrowserSection(pub Given);

impl std::ops::Deref for BrowserSection {
    type Target = Given;

    fn deref(&self) -> &Given {
        &self.0
    }
}

impl<'de> Deserialize<'de> for BrowserSection {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(crate::settings::SectionVisitor).map(BrowserSection)
    }
}

/// How Ghostlight reaches its browser (`[browser] connector`, `--connector`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Connector {
    /// A browser Ghostlight starts (or connects to) through WebDriver.
    #[default]
    Webdriver,
    /// The person's own browser, through the Ghostlight extension and its native host (cargo
    /// feature `extension`).
    Extension,
}

impl Connector {
    /// Every configuration value, in the documented order.
    pub const NAMES: &'static [&'static str] = &["webdriver", "extension"];

    /// The configuration value: `webdriver` or `extension`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Connector::Webdriver => "webdriver",
            Connector::Extension => "extension",
        }
    }
}

impl FromStr for Connector {
    type Err = ghostlight_webdriver::UnknownName;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "webdriver" => Ok(Connector::Webdriver),
            "extension" => Ok(Connector::Extension),
            _ => Err(ghostlight_webdriver::UnknownName { expected: Connector::NAMES }),
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

/// The head of the file `ghostlight config init` writes.
const INIT_HEAD: &str = "# Ghostlight configuration (TOML). Every key is optional; unknown keys are errors.
# Shown values are the defaults. Check a file with `ghostlight config check`.

";

/// The sections after `[browser]` in the file `ghostlight config init` writes.
const INIT_REST: &str = r#"
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

/// A commented configuration file saying nothing but the defaults (what `ghostlight config
/// init` writes). Every key is present, commented out, with its default (the `[browser]`
/// section from [`crate::settings::SETTINGS`]).
pub fn default_file() -> String {
    format!("{INIT_HEAD}{}{INIT_REST}", crate::settings::init_section())
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
    use ghostlight_core::{Capability, CapabilitySet, StartupPosture};

    use crate::settings::Value;

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
        let text = |key| Some(Value::Text(String::from(key)));
        assert_eq!(file.browser.get("engine").cloned(), text("firefox"));
        assert_eq!(file.browser.get("headless"), Some(&Value::Switch(false)));
        assert_eq!(file.browser.get("driver_url").cloned(), text("http://127.0.0.1:4444/"));
        assert_eq!(file.browser.get("window").cloned(), text("1024x768"));
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
        assert_eq!(parse(&default_file()), ConfigFile::default());
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
        assert_eq!(browser.get("profile"), Some(&Value::Text("/srv/ghostlight/profile".into())));
        assert_eq!(browser.get("proxy"), Some(&Value::Text("socks5://10.0.0.2".into())));
        assert_eq!(format!("{browser:?}").matches("socks5").count(), 0, "the proxy is not shown");
        assert_eq!(browser.get("ignore_https_errors"), Some(&Value::Switch(true)));
        assert_eq!(browser.get("args"), Some(&Value::List(vec!["--lang=de".into()])));
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
        let located = ConfigFile::parse("[browser]\nengine = \"chromium\"\nengin = \"firefox\"\n").err();
        let Some(ConfigError::Invalid { line, column, message, .. }) = located else { panic!("{located:?}") };
        assert_eq!((line, column), (Some(3), Some(1)));
        assert!(message.ends_with("did you mean `engine`?"), "{message}");
        let value = ConfigFile::parse("[browser]\nwindow = \"big\"\n").err();
        let Some(ConfigError::Invalid { line, column, .. }) = value else { panic!("{value:?}") };
        assert_eq!((line, column), (Some(2), Some(10)), "located at the value");
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
