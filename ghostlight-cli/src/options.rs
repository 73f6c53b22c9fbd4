//! Serving options: the command line resolved with the configuration files into
//! [`ServeOptions`]. The browser flags ([`BrowserArgs`]) are declared once and flattened
//! (`#[command(flatten)]`) into every command that starts a browser; [`ServeArgs`] adds the
//! transport's flags for `ghostlight-mcp` and `ghostlight mcp`.
//!
//! A flag overrides the same setting in the file; the file overrides the defaults (headless
//! Chromium through `chromedriver` from `PATH`, a 1280×800 window, started on the first call
//! that needs it, stdio transport).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use ghostlight_core::WorkspaceLimits;
use ghostlight_core::{AuthorityLayers, StartupPosture};
#[cfg(feature = "http")]
use ghostlight_mcp::http::{BearerToken, DEFAULT_MAX_SESSIONS, HttpOptions, default_sessions_per_token};
#[cfg(feature = "http")]
use std::time::Duration;

use crate::config::{
    AbsolutePath, AuditDestination, BrowserEngine, BrowserSection, CONFIG_ENV, ConfigFile, ConfigSources,
    Connector, DiagnosticsSetting, DriverUrl, LimitsSection, LoadedConfig, ProxyUrl, SandboxSetting,
    WindowSize,
};
use crate::error::ConfigError;

/// The default HTTP listen address: loopback only.
pub const DEFAULT_LISTEN: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 7861);

/// The environment variable that may carry the HTTP bearer token.
pub const TOKEN_ENV: &str = "GHOSTLIGHT_MCP_TOKEN";

/// Who starts the browser (the `--startup` flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StartupArg {
    /// Ghostlight starts the browser on the first call that needs it.
    Auto,
    /// A person starts the browser; calls ask them to.
    Manual,
}

impl From<StartupArg> for StartupPosture {
    fn from(arg: StartupArg) -> Self {
        match arg {
            StartupArg::Auto => StartupPosture::Auto,
            StartupArg::Manual => StartupPosture::Manual,
        }
    }
}

/// The MCP transport (the `--transport` flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum TransportArg {
    /// MCP over standard input and output (the default).
    #[default]
    Stdio,
    /// Streamable HTTP on `--listen`, behind a bearer token (cargo feature `http`).
    Http,
}

/// The launch flags every command that starts a browser shares (flattened into
/// [`BrowserArgs`]): where the browser and driver are, the profile, the proxy, the
/// viewport, certificates, extra arguments and when diagnostics start. Each overrides the
/// `[browser]` key of the same name; the names follow Playwright MCP's where they exist
/// (`--executable-path`, `--user-data-dir`, `--proxy-server`, `--viewport-size` and
/// `--ignore-https-errors` are accepted as aliases).
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct LaunchArgs {
    /// The browser executable [default: the driver finds its browser].
    #[arg(long, visible_alias = "executable-path", value_name = "FILE")]
    pub browser_path: Option<PathBuf>,
    /// The driver executable (chromedriver or geckodriver) [default: from PATH].
    #[arg(long, value_name = "FILE", conflicts_with = "driver_url")]
    pub driver_path: Option<PathBuf>,
    /// A persistent browser profile folder, kept between runs (cookies, storage, logins) and
    /// locked while a browser uses it; created when missing, never deleted [default: a fresh
    /// temporary profile per run].
    #[arg(long, visible_alias = "user-data-dir", value_name = "DIR")]
    pub profile: Option<PathBuf>,
    /// Cookies and localStorage to load into the fresh profile at start: a JSON file in
    /// Playwright's storageState shape [default: none].
    #[arg(long, value_name = "FILE", conflicts_with = "profile")]
    pub storage_state: Option<PathBuf>,
    /// Write the browser's cookies and localStorage back to --storage-state when the server
    /// stops (mode 0600; the file may be missing at start).
    #[arg(long, requires = "storage_state")]
    pub save_storage_state: bool,
    /// Send every request through this proxy: scheme://host:port with scheme http, https
    /// (Chromium only), socks4 or socks5; credentials are refused [default: none].
    #[arg(long, visible_alias = "proxy-server", value_name = "URL")]
    pub proxy: Option<ProxyArg>,
    /// Hosts reached without the proxy, comma-separated or repeated (`example.com`,
    /// `*.example.com`, `<local>`); loopback always bypasses it.
    #[arg(long, value_name = "HOSTS", value_delimiter = ',')]
    pub proxy_bypass: Vec<String>,
    /// The CSS viewport (innerWidth x innerHeight); the window is resized to give it
    /// [default: what --window gives].
    #[arg(long, visible_alias = "viewport-size", value_name = "WxH")]
    pub viewport: Option<WindowSize>,
    /// Accept invalid, expired and self-signed HTTPS certificates.
    #[arg(long, visible_alias = "accept-insecure-certs")]
    pub ignore_https_errors: bool,
    /// One more browser argument (repeatable), e.g. --browser-arg=--lang=de. Replaces the
    /// file's `args` when given.
    #[arg(long = "browser-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub browser_args: Vec<String>,
    /// When console and network tracking starts: on_demand (the first browser_diagnose of a
    /// tab) or on_start (every tab from its creation, so the first browser_diagnose holds the
    /// page load's errors) [default: on_demand].
    #[arg(long, value_enum, value_name = "WHEN")]
    pub diagnostics: Option<DiagnosticsSetting>,
}

/// The `--proxy` flag's text, parsed into a [`ProxyUrl`] when the options are resolved, so
/// that a refused value is never echoed (clap repeats an invalid value in its message, and a
/// proxy URL may carry a password). `Debug` does not show it either.
#[derive(Clone, PartialEq, Eq)]
pub struct ProxyArg(String);

impl ProxyArg {
    /// The proxy, or why it is refused (without repeating it).
    pub fn parse(&self) -> Result<ProxyUrl, ConfigError> {
        self.0.parse()
    }
}

impl std::str::FromStr for ProxyArg {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(ProxyArg(text.to_owned()))
    }
}

impl std::fmt::Debug for ProxyArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProxyArg(..)")
    }
}

/// The browser flags: what `ghostlight call`, `flow`, `session start` and `doctor` take, and
/// (with the transport's flags, [`ServeArgs`]) `ghostlight-mcp` and `ghostlight mcp`.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct BrowserArgs {
    /// How to reach the browser: `webdriver` starts one through its driver, `extension`
    /// drives your own browser through the Ghostlight extension (`ghostlight install` first)
    /// [default: webdriver].
    #[arg(long, value_enum, value_name = "CONNECTOR")]
    pub connector: Option<Connector>,
    /// Browser to drive [default: chromium].
    #[arg(long, value_enum, value_name = "ENGINE")]
    pub browser: Option<BrowserEngine>,
    /// Show the browser window (default: headless).
    #[arg(long)]
    pub headed: bool,
    /// Connect to a WebDriver endpoint already listening at URL instead of starting a driver.
    #[arg(long, value_name = "URL")]
    pub driver_url: Option<DriverUrl>,
    /// Outer window size [default: 1280x800].
    #[arg(long, value_name = "WxH")]
    pub window: Option<WindowSize>,
    /// Who starts the browser: `auto` starts it on the first call that needs it, `manual`
    /// asks the person [default: auto].
    #[arg(long, value_enum, value_name = "POSTURE")]
    pub startup: Option<StartupArg>,
    /// Chromium's sandbox: `auto` keeps it on unless running as root [default: auto].
    #[arg(long, value_enum, value_name = "MODE")]
    pub sandbox: Option<SandboxSetting>,
    /// Profile, proxy, viewport, certificates, paths, arguments, diagnostics.
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// Configuration file (TOML): `[browser]`, `[audit]` and the authority sections
    /// `[capabilities]`, `[hosts]`, `[privacy]`, `[tabs]`, `[uploads]` [default:
    /// $XDG_CONFIG_HOME/ghostlight/config.toml when it exists]. The organization file
    /// /etc/ghostlight/organization.toml applies on top when it exists.
    #[arg(long, env = CONFIG_ENV, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

impl BrowserArgs {
    /// The flags this command line gives (`--config` included, from the flag or its
    /// environment variable), by name.
    pub fn given_flags(&self) -> Vec<&'static str> {
        let default = BrowserArgs::default();
        let mut given = Vec::new();
        let mut note = |set: bool, flag: &'static str| {
            if set {
                given.push(flag);
            }
        };
        note(self.connector != default.connector, "--connector");
        note(self.browser != default.browser, "--browser");
        note(self.headed != default.headed, "--headed");
        note(self.driver_url != default.driver_url, "--driver-url");
        note(self.window != default.window, "--window");
        note(self.startup != default.startup, "--startup");
        note(self.sandbox != default.sandbox, "--sandbox");
        note(self.launch != default.launch, "launch options (--browser-path, --profile, --proxy, …)");
        note(self.config != default.config, "--config");
        given
    }
}

impl BrowserArgs {
    /// Read the configuration files that apply and resolve everything, serving over stdio
    /// (what a command that starts a browser for its own calls needs).
    pub fn resolve(&self) -> Result<ServeOptions, ConfigError> {
        ServeArgs { browser: self.clone(), ..ServeArgs::default() }.resolve()
    }
}

/// The command-line flags of `ghostlight-mcp` and `ghostlight mcp`: the browser flags and the
/// transport's.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct ServeArgs {
    /// Browser, window, startup, sandbox, launch options and configuration file.
    #[command(flatten)]
    pub browser: BrowserArgs,
    /// MCP transport.
    #[arg(long, value_enum, default_value_t = TransportArg::Stdio)]
    pub transport: TransportArg,
    /// HTTP listen address (transport http).
    #[arg(long, value_name = "ADDR", default_value_t = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// Bearer token HTTP clients must send (transport http; required there): at least 16
    /// random characters (`openssl rand -hex 32`); several clients' tokens separated by
    /// commas. Prefer the environment variable: a flag is visible to other local users in the
    /// process list.
    #[arg(long, env = TOKEN_ENV, hide_env_values = true, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Also accept this `Host` header value over HTTP (repeatable; loopback names are always
    /// accepted). Needed only when listening beyond loopback.
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// Also accept requests with this `Origin` over HTTP (`scheme://host[:port]`, repeatable;
    /// the server's own loopback origins are always accepted, every other is refused).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
}

impl Default for ServeArgs {
    /// No flags given.
    fn default() -> Self {
        ServeArgs {
            browser: BrowserArgs::default(),
            transport: TransportArg::Stdio,
            listen: DEFAULT_LISTEN,
            token: None,
            allow_hosts: Vec::new(),
            allow_origins: Vec::new(),
        }
    }
}

/// Which browser to drive and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserOptions {
    /// How the browser is reached.
    pub connector: Connector,
    /// The engine.
    pub engine: BrowserEngine,
    /// Without a visible window.
    pub headless: bool,
    /// Connect to this driver instead of starting one.
    pub driver_url: Option<DriverUrl>,
    /// Outer window size.
    pub window: WindowSize,
    /// Who starts the browser.
    pub startup: StartupPosture,
    /// Chromium's sandbox.
    pub sandbox: SandboxSetting,
    /// The browser executable (`None`: the driver finds its browser).
    pub browser_path: Option<PathBuf>,
    /// The driver executable (`None`: from `PATH`).
    pub driver_path: Option<PathBuf>,
    /// A persistent profile folder (`None`: a fresh temporary profile per run).
    pub profile: Option<PathBuf>,
    /// A storage state file loaded at start (`None`: the profile starts empty).
    pub storage_state: Option<PathBuf>,
    /// Save the storage state back to `storage_state` at exit.
    pub save_storage_state: bool,
    /// The proxy.
    pub proxy: Option<ProxyUrl>,
    /// Hosts reached without the proxy.
    pub proxy_bypass: Vec<String>,
    /// The CSS viewport (`None`: what the window gives).
    pub viewport: Option<WindowSize>,
    /// Accept invalid and self-signed certificates.
    pub ignore_https_errors: bool,
    /// More browser arguments.
    pub args: Vec<String>,
    /// When diagnostics start.
    pub diagnostics: DiagnosticsSetting,
}

impl Default for BrowserOptions {
    fn default() -> Self {
        BrowserOptions {
            connector: Connector::Webdriver,
            engine: BrowserEngine::Chromium,
            headless: true,
            driver_url: None,
            window: WindowSize::DEFAULT,
            startup: StartupPosture::Auto,
            sandbox: SandboxSetting::Auto,
            browser_path: None,
            driver_path: None,
            profile: None,
            storage_state: None,
            save_storage_state: false,
            proxy: None,
            proxy_bypass: Vec::new(),
            viewport: None,
            ignore_https_errors: false,
            args: Vec::new(),
            diagnostics: DiagnosticsSetting::OnDemand,
        }
    }
}

impl BrowserOptions {
    /// The WebDriver launch settings that are set (by a flag or the file): under the
    /// extension connector they have no effect (the person's own browser is driven).
    pub fn webdriver_only_settings(&self) -> Vec<&'static str> {
        [
            (self.driver_url.is_some(), "driver_url"),
            (self.browser_path.is_some(), "browser_path"),
            (self.driver_path.is_some(), "driver_path"),
            (self.profile.is_some(), "profile"),
            (self.storage_state.is_some(), "storage_state"),
            (self.proxy.is_some(), "proxy"),
            (self.viewport.is_some(), "viewport"),
            (self.ignore_https_errors, "ignore_https_errors"),
            (!self.args.is_empty(), "args"),
        ]
        .into_iter()
        .filter_map(|(set, name)| set.then_some(name))
        .collect()
    }

    /// Refuse settings that cannot work together: executables or a profile with a driver
    /// Ghostlight does not start, and proxy bypass entries without a proxy. (The engine's
    /// own limits, such as an `https://` proxy on Firefox, are checked where the WebDriver
    /// configuration is built: `browser::checked_config`.)
    pub fn check(&self) -> Result<(), ConfigError> {
        if self.connector == Connector::Extension && !cfg!(feature = "extension") {
            return Err(ConfigError::ExtensionUnavailable);
        }
        if self.driver_url.is_some() {
            for (set, name) in [
                (self.driver_path.is_some(), "driver_path"),
                (self.browser_path.is_some(), "browser_path"),
                (self.profile.is_some(), "profile"),
            ] {
                if set {
                    return Err(ConfigError::Browser(format!(
                        "{name} needs a driver Ghostlight starts; it cannot be combined with driver_url \
                         (the driver at that URL chooses its browser and profile)"
                    )));
                }
            }
        }
        if self.save_storage_state && self.storage_state.is_none() {
            return Err(ConfigError::Browser("save_storage_state needs a storage_state file".to_owned()));
        }
        if self.storage_state.is_some() && self.profile.is_some() {
            return Err(ConfigError::Browser(
                "storage_state cannot be combined with profile (a persistent profile keeps cookies and \
                 storage itself): use one or the other"
                    .to_owned(),
            ));
        }
        if self.proxy.is_none() && !self.proxy_bypass.is_empty() {
            return Err(ConfigError::Browser("proxy_bypass needs a proxy".to_owned()));
        }
        Ok(())
    }
}

/// `path` made absolute against the working directory (a flag's relative path means what the
/// person typed it next to).
fn absolute(path: &std::path::Path) -> Result<PathBuf, ConfigError> {
    std::path::absolute(path).map_err(|error| {
        ConfigError::Browser(format!("the path {} cannot be made absolute: {error}", path.display()))
    })
}

/// The transport to serve on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// Standard input and output.
    Stdio,
    /// Streamable HTTP (cargo feature `http`).
    #[cfg(feature = "http")]
    Http(HttpOptions),
}

/// Where audit records go.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum AuditOptions {
    /// Dropped.
    #[default]
    Off,
    /// JSON lines on standard error.
    Stderr,
    /// JSON lines appended to this file.
    File(PathBuf),
}

/// Everything serving needs: the browser, the authority layers, the transport, the audit sink
/// and the workspace limits.
#[derive(Debug, Clone, PartialEq)]
pub struct ServeOptions {
    /// The browser.
    pub browser: BrowserOptions,
    /// The configured authority (the user layer, when anything was authored).
    pub authority: AuthorityLayers,
    /// The transport.
    pub transport: Transport,
    /// Where audit records go.
    pub audit: AuditOptions,
    /// What each session's workspace may hold.
    pub limits: WorkspaceLimits,
}

impl BrowserArgs {
    /// The startup posture: the flag, else the file's.
    fn startup(&self, section: Option<&BrowserSection>) -> Option<StartupPosture> {
        self.startup.map(StartupPosture::from).or_else(|| section.and_then(|s| s.startup))
    }

    /// The browser these flags and the file's `[browser]` section ask for, refused when its
    /// settings cannot work together ([`BrowserOptions::check`]).
    fn browser_options(&self, section: Option<&BrowserSection>) -> Result<BrowserOptions, ConfigError> {
        let launch = &self.launch;
        let path = |flag: &Option<PathBuf>, key: fn(&BrowserSection) -> Option<&AbsolutePath>| match flag {
            Some(path) => absolute(path).map(Some),
            None => Ok(section.and_then(key).map(|p| p.path().to_owned())),
        };
        let list = |flag: &Vec<String>, key: fn(&BrowserSection) -> Option<&Vec<String>>| {
            if flag.is_empty() { section.and_then(key).cloned().unwrap_or_default() } else { flag.clone() }
        };
        let browser = BrowserOptions {
            connector: self.connector.or_else(|| section.and_then(|s| s.connector)).unwrap_or_default(),
            engine: self.browser.or_else(|| section.and_then(|s| s.engine)).unwrap_or_default(),
            headless: if self.headed { false } else { section.and_then(|s| s.headless).unwrap_or(true) },
            driver_url: self.driver_url.clone().or_else(|| section.and_then(|s| s.driver_url.clone())),
            window: self.window.or_else(|| section.and_then(|s| s.window)).unwrap_or_default(),
            startup: self.startup(section).unwrap_or(StartupPosture::Auto),
            sandbox: self.sandbox.or_else(|| section.and_then(|s| s.sandbox)).unwrap_or_default(),
            browser_path: path(&launch.browser_path, |s| s.browser_path.as_ref())?,
            driver_path: path(&launch.driver_path, |s| s.driver_path.as_ref())?,
            profile: path(&launch.profile, |s| s.profile.as_ref())?,
            storage_state: path(&launch.storage_state, |s| s.storage_state.as_ref())?,
            save_storage_state: launch.save_storage_state
                || section.and_then(|s| s.save_storage_state).unwrap_or(false),
            proxy: match &launch.proxy {
                Some(arg) => Some(arg.parse()?),
                None => section.and_then(|s| s.proxy.clone()),
            },
            proxy_bypass: list(&launch.proxy_bypass, |s| s.proxy_bypass.as_ref()),
            viewport: launch.viewport.or_else(|| section.and_then(|s| s.viewport)),
            ignore_https_errors: launch.ignore_https_errors
                || section.and_then(|s| s.ignore_https_errors).unwrap_or(false),
            args: list(&launch.browser_args, |s| s.args.as_ref()),
            diagnostics: launch
                .diagnostics
                .or_else(|| section.and_then(|s| s.diagnostics))
                .unwrap_or_default(),
        };
        browser.check()?;
        Ok(browser)
    }
}

impl ServeArgs {
    /// Read the configuration files that apply ([`ConfigSources::discover`]) and resolve
    /// everything.
    pub fn resolve(&self) -> Result<ServeOptions, ConfigError> {
        let loaded = ConfigSources::discover(self.browser.config.as_deref()).load()?;
        self.resolve_loaded(&loaded)
    }

    /// Resolve against already loaded files (user and organization).
    pub fn resolve_loaded(&self, loaded: &LoadedConfig) -> Result<ServeOptions, ConfigError> {
        let mut options = self.resolve_with(loaded.user.as_ref().map(|(_, file)| file))?;
        options.authority.organization = loaded.organization.as_ref().map(|(_, org)| org.clone());
        Ok(options)
    }

    /// Resolve against an already parsed user configuration file (no organization layer).
    pub fn resolve_with(&self, file: Option<&ConfigFile>) -> Result<ServeOptions, ConfigError> {
        let section = file.map(|f| &f.browser);
        let browser = self.browser.browser_options(section)?;
        // The user layer: the file's settings with the startup the flags chose (a startup flag
        // alone is a user setting too).
        let startup = self.browser.startup(section);
        let user = match (file, startup) {
            (None, None) => None,
            (file, startup) => {
                let mut settings = file.map(|f| f.settings.clone()).unwrap_or_default();
                settings.browser.startup = startup;
                Some(settings)
            }
        };
        let limits_section = file.map(|f| f.limits).unwrap_or_default();
        let transport = match self.transport {
            TransportArg::Stdio => Transport::Stdio,
            TransportArg::Http if browser.connector == Connector::Extension => {
                return Err(ConfigError::Browser(
                    "the extension connector serves over stdio only: one person's browser cannot be \
                     shared by HTTP sessions (use --transport stdio, or connector = \"webdriver\")"
                        .to_owned(),
                ));
            }
            TransportArg::Http => self.http(&limits_section)?,
        };
        let limits = WorkspaceLimits {
            tabs: limits_section.tabs.unwrap_or(WorkspaceLimits::DEFAULT_TABS),
            recordings: limits_section.recordings.unwrap_or(WorkspaceLimits::DEFAULT_RECORDINGS),
        };
        let audit = match file.map(|f| &f.audit) {
            None => AuditOptions::Off,
            Some(section) => match section.destination.unwrap_or_default() {
                AuditDestination::Off => AuditOptions::Off,
                AuditDestination::Stderr => AuditOptions::Stderr,
                AuditDestination::File => AuditOptions::File(section.path.clone().ok_or_else(|| {
                    ConfigError::Audit("[audit] destination = \"file\" needs a path".into())
                })?),
            },
        };
        Ok(ServeOptions {
            browser,
            authority: AuthorityLayers { user, organization: None },
            transport,
            audit,
            limits,
        })
    }

    /// The HTTP transport the flags ask for, with the file's `[limits]` on sessions.
    #[cfg(feature = "http")]
    fn http(&self, limits: &LimitsSection) -> Result<Transport, ConfigError> {
        let token = self.token.as_deref().ok_or_else(|| {
            ConfigError::Token(format!(
                "the HTTP transport requires a bearer token: set {TOKEN_ENV} (or pass --token)"
            ))
        })?;
        // Several clients may each have their own token, separated by commas.
        let tokens =
            token.split(',').map(|token| BearerToken::new(token.trim())).collect::<Result<Vec<_>, _>>()?;
        let mut options = HttpOptions::new(self.listen, tokens);
        options.allowed_hosts.extend(self.allow_hosts.iter().cloned());
        options.allowed_origins.extend(self.allow_origins.iter().map(|o| o.trim_end_matches('/').to_owned()));
        options.max_sessions = limits.sessions.unwrap_or(DEFAULT_MAX_SESSIONS).max(1);
        options.sessions_per_token = limits
            .sessions_per_token
            .unwrap_or_else(|| default_sessions_per_token(options.max_sessions))
            .clamp(1, options.max_sessions);
        if let Some(seconds) = limits.session_idle_seconds {
            options.idle_timeout = Duration::from_secs(seconds.max(1));
        }
        Ok(Transport::Http(options))
    }

    /// This build has no HTTP transport.
    #[cfg(not(feature = "http"))]
    fn http(&self, _limits: &LimitsSection) -> Result<Transport, ConfigError> {
        Err(ConfigError::HttpUnavailable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `browser` with the transport's flags at their defaults.
    fn browser_args(browser: BrowserArgs) -> ServeArgs {
        ServeArgs { browser, ..ServeArgs::default() }
    }

    #[cfg(feature = "http")]
    #[test]
    fn the_limits_section_sets_the_http_session_limit() {
        let file = ConfigFile::parse("[limits]\nsessions = 3\ntabs = 4\n").unwrap_or_else(|e| panic!("{e}"));
        let token = Some("0123456789abcdef".into());
        let args = ServeArgs { transport: TransportArg::Http, token, ..ServeArgs::default() };
        let options = args.resolve_with(Some(&file)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(options.limits.tabs, 4);
        let Transport::Http(http) = options.transport else { panic!("http") };
        assert_eq!((http.max_sessions, http.sessions_per_token), (3, 1));
        let file = "[limits]\nsessions = 4\nsessions_per_token = 3\nsession_idle_seconds = 60\n";
        let file = ConfigFile::parse(file).unwrap_or_else(|e| panic!("{e}"));
        let args = ServeArgs {
            transport: TransportArg::Http,
            token: Some("0123456789abcdef".into()),
            allow_origins: vec!["https://app.example/".into()],
            ..ServeArgs::default()
        };
        let options = args.resolve_with(Some(&file)).unwrap_or_else(|e| panic!("{e}"));
        let Transport::Http(http) = options.transport else { panic!("http") };
        assert_eq!((http.max_sessions, http.sessions_per_token), (4, 3));
        assert_eq!(http.idle_timeout, Duration::from_secs(60));
        assert_eq!(http.allowed_origins, vec!["https://app.example".to_owned()]);
    }

    #[test]
    fn webdriver_only_settings_are_named() {
        assert!(BrowserOptions::default().webdriver_only_settings().is_empty());
        let options = BrowserOptions {
            profile: Some("/p".into()),
            args: vec!["--lang=de".into()],
            ignore_https_errors: true,
            ..BrowserOptions::default()
        };
        assert_eq!(options.webdriver_only_settings(), ["profile", "ignore_https_errors", "args"]);
    }

    #[test]
    fn defaults() {
        let options = ServeArgs::default().resolve_with(None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(options.browser, BrowserOptions::default());
        assert_eq!(options.authority, AuthorityLayers::default());
        assert_eq!(options.transport, Transport::Stdio);
    }

    #[test]
    fn flags_override_the_file() {
        let file = ConfigFile::parse(
            "[browser]\nengine = \"firefox\"\nheadless = true\nwindow = \"800x600\"\nstartup = \"manual\"\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let args = browser_args(BrowserArgs {
            browser: Some(BrowserEngine::Chromium),
            headed: true,
            startup: Some(StartupArg::Auto),
            ..BrowserArgs::default()
        });
        let options = args.resolve_with(Some(&file)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(options.browser.engine, BrowserEngine::Chromium);
        assert!(!options.browser.headless);
        assert_eq!(options.browser.window, WindowSize { width: 800, height: 600 });
        assert_eq!(options.browser.startup, StartupPosture::Auto);
        let user = options.authority.user.unwrap_or_default();
        assert_eq!(user.browser.startup, Some(StartupPosture::Auto));
    }

    #[test]
    fn launch_flags_override_the_file_and_conflicts_are_refused() {
        let file = ConfigFile::parse(
            "[browser]\nprofile = \"/srv/profile\"\nproxy = \"http://10.0.0.1:3128\"\n\
             proxy_bypass = [\"a.example\"]\nargs = [\"--lang=de\"]\ndiagnostics = \"on_start\"\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let from_file =
            ServeArgs::default().resolve_with(Some(&file)).unwrap_or_else(|e| panic!("{e}")).browser;
        assert_eq!(from_file.profile.as_deref(), Some(std::path::Path::new("/srv/profile")));
        assert_eq!(from_file.proxy_bypass, ["a.example"]);
        assert_eq!(from_file.args, ["--lang=de"]);
        assert_eq!(from_file.diagnostics, DiagnosticsSetting::OnStart);
        assert!(!from_file.ignore_https_errors);
        let launch = LaunchArgs {
            profile: Some("relative-profile".into()),
            proxy_bypass: vec!["b.example".into(), "c.example".into()],
            browser_args: vec!["--lang=fr".into()],
            ignore_https_errors: true,
            viewport: Some(WindowSize { width: 1000, height: 700 }),
            diagnostics: Some(DiagnosticsSetting::OnDemand),
            ..LaunchArgs::default()
        };
        let args = browser_args(BrowserArgs { launch, ..BrowserArgs::default() });
        let flags = args.resolve_with(Some(&file)).unwrap_or_else(|e| panic!("{e}")).browser;
        let profile = flags.profile.unwrap_or_default();
        assert!(profile.is_absolute() && profile.ends_with("relative-profile"), "{}", profile.display());
        assert_eq!(flags.proxy_bypass, ["b.example", "c.example"]);
        assert_eq!(flags.args, ["--lang=fr"]);
        assert!(flags.ignore_https_errors);
        assert_eq!(flags.viewport, Some(WindowSize { width: 1000, height: 700 }));
        assert_eq!(flags.diagnostics, DiagnosticsSetting::OnDemand);

        let remote = browser_args(BrowserArgs {
            driver_url: "http://127.0.0.1:4444".parse().ok(),
            launch: LaunchArgs { profile: Some("/srv/p".into()), ..LaunchArgs::default() },
            ..BrowserArgs::default()
        });
        let error = remote.resolve_with(None).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("profile needs a driver Ghostlight starts"), "{error}");
        let lonely = browser_args(BrowserArgs {
            launch: LaunchArgs { proxy_bypass: vec!["a.example".into()], ..LaunchArgs::default() },
            ..BrowserArgs::default()
        });
        assert!(lonely.resolve_with(None).is_err(), "a bypass list without a proxy");
    }

    #[test]
    fn a_refused_proxy_flag_is_never_repeated() {
        let launch =
            LaunchArgs { proxy: "http://ada:hunter2@proxy:3128".parse().ok(), ..LaunchArgs::default() };
        assert_eq!(format!("{:?}", launch.proxy), "Some(ProxyArg(..))");
        let args = browser_args(BrowserArgs { launch, ..BrowserArgs::default() });
        let error = args.resolve_with(None).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("credentials") && !error.contains("hunter2"), "{error}");
    }

    #[cfg(feature = "extension")]
    #[test]
    fn the_connector_comes_from_the_flag_else_the_file() {
        let file =
            ConfigFile::parse("[browser]\nconnector = \"extension\"\n").unwrap_or_else(|e| panic!("{e}"));
        let options = ServeArgs::default().resolve_with(Some(&file)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(options.browser.connector, Connector::Extension);
        let args =
            browser_args(BrowserArgs { connector: Some(Connector::Webdriver), ..BrowserArgs::default() });
        let options = args.resolve_with(Some(&file)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(options.browser.connector, Connector::Webdriver);
        assert_eq!(
            ServeArgs::default().resolve_with(None).map(|o| o.browser.connector).ok(),
            Some(Connector::Webdriver)
        );
        let http = ServeArgs {
            transport: TransportArg::Http,
            token: Some("0123456789abcdef".into()),
            ..ServeArgs::default()
        };
        let error = http.resolve_with(Some(&file)).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("stdio only"), "{error}");
    }

    #[cfg(not(feature = "extension"))]
    #[test]
    fn the_extension_connector_is_refused_without_the_feature() {
        let args =
            browser_args(BrowserArgs { connector: Some(Connector::Extension), ..BrowserArgs::default() });
        assert!(matches!(args.resolve_with(None), Err(ConfigError::ExtensionUnavailable)));
    }

    #[test]
    fn a_startup_flag_alone_is_a_user_setting() {
        let args = browser_args(BrowserArgs { startup: Some(StartupArg::Manual), ..BrowserArgs::default() });
        let options = args.resolve_with(None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(options.browser.startup, StartupPosture::Manual);
        assert_eq!(options.authority.user.map(|u| u.browser.startup), Some(Some(StartupPosture::Manual)));
    }

    #[cfg(feature = "http")]
    #[test]
    fn http_requires_a_token() {
        let args = ServeArgs { transport: TransportArg::Http, ..ServeArgs::default() };
        let error = args.resolve_with(None).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains(TOKEN_ENV), "{error}");
        let args = ServeArgs { token: Some("0123456789abcdef".into()), ..args };
        let options = args.resolve_with(None).unwrap_or_else(|e| panic!("{e}"));
        let Transport::Http(http) = options.transport else { panic!("http") };
        assert_eq!(http.listen, DEFAULT_LISTEN);
        assert_eq!(http.allowed_hosts, ghostlight_mcp::http::DEFAULT_ALLOWED_HOSTS);
        assert_eq!(
            (http.max_sessions, http.sessions_per_token),
            (DEFAULT_MAX_SESSIONS, DEFAULT_MAX_SESSIONS / 2)
        );
        assert_eq!(http.idle_timeout, ghostlight_mcp::http::DEFAULT_IDLE_TIMEOUT);
    }

    #[cfg(not(feature = "http"))]
    #[test]
    fn http_is_refused_without_the_feature() {
        let args = ServeArgs { transport: TransportArg::Http, ..ServeArgs::default() };
        assert!(matches!(args.resolve_with(None), Err(ConfigError::HttpUnavailable)));
    }
}
