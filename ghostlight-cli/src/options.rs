//! Serving options: the command line resolved with the configuration files into
//! [`ServeOptions`]. The browser flags ([`BrowserArgs`], made from the settings table
//! [`crate::settings::SETTINGS`]) are flattened (`#[command(flatten)]`) into every command
//! that starts a browser; [`ServeArgs`] adds the transport's flags for `ghostlight-mcp` and
//! `ghostlight mcp`.
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

use ghostlight_webdriver::WebDriverConfig;

use crate::config::{
    AuditDestination, BrowserSection, CONFIG_ENV, ConfigFile, ConfigSources, Connector, LimitsSection,
    LoadedConfig,
};
use crate::error::ConfigError;
use crate::settings::{self, Given};

/// The default HTTP listen address: loopback only.
pub const DEFAULT_LISTEN: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 7861);

/// The environment variable that may carry the HTTP bearer token.
pub const TOKEN_ENV: &str = "GHOSTLIGHT_MCP_TOKEN";

/// The MCP transport (the `--transport` flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum TransportArg {
    /// MCP over standard input and output (the default).
    #[default]
    Stdio,
    /// Streamable HTTP on `--listen`, behind a bearer token (cargo feature `http`).
    Http,
}

/// How HTTP sessions get their browser (the `--http-browsers` flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum HttpBrowsers {
    /// One Chromium for every session, each session in a user context of its own (its own
    /// cookies, storage, tabs and network filter) with a classic WebDriver session of its own
    /// (the default). Where a browser cannot be shared (Firefox, a persistent profile, a
    /// storage state, a proxy, a driver elsewhere), a browser per session.
    #[default]
    Shared,
    /// A browser of its own for every session.
    PerSession,
}

/// The browser flags: what `ghostlight call`, `flow`, `session start` and `doctor` take, and
/// (with the transport's flags, [`ServeArgs`]) `ghostlight-mcp` and `ghostlight mcp`. The
/// flags are [`crate::settings::SETTINGS`]' (each overrides the `[browser]` key of the same
/// meaning; the names follow Playwright MCP's where they exist, whose `--executable-path`,
/// `--user-data-dir`, `--proxy-server` and `--viewport-size` are aliases), plus `--config`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BrowserArgs {
    /// The browser settings the flags give.
    pub given: Given,
    /// Configuration file (TOML), from `--config` or its environment variable.
    pub config: Option<PathBuf>,
}

/// The `--config` flag's help.
const CONFIG_HELP: &str = "Configuration file (TOML): `[browser]`, `[audit]` and the authority sections \
                           `[capabilities]`, `[hosts]`, `[privacy]`, `[tabs]`, `[uploads]` [default: \
                           $XDG_CONFIG_HOME/ghostlight/config.toml when it exists]. The organization file \
                           /etc/ghostlight/organization.toml applies on top when it exists";

impl clap::Args for BrowserArgs {
    fn augment_args(command: clap::Command) -> clap::Command {
        settings::augment(command).arg(
            clap::Arg::new("config")
                .long("config")
                .env(CONFIG_ENV)
                .value_name("FILE")
                .value_parser(clap::value_parser!(PathBuf))
                .help(CONFIG_HELP),
        )
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

impl clap::FromArgMatches for BrowserArgs {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut args = BrowserArgs::default();
        args.update_from_arg_matches(matches)?;
        Ok(args)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        let given = settings::given_in(matches);
        for setting in given.settings() {
            if let Some(value) = given.get(setting.key) {
                self.given.set(setting.key, value.clone());
            }
        }
        if let Some(config) = matches.try_get_one::<PathBuf>("config").ok().flatten() {
            self.config = Some(config.clone());
        }
        Ok(())
    }
}

impl BrowserArgs {
    /// The flags this command line gives (`--config` included, from the flag or its
    /// environment variable), by name.
    pub fn given_flags(&self) -> Vec<String> {
        let mut given: Vec<String> =
            self.given.settings().map(|setting| format!("--{}", setting.flag)).collect();
        if self.config.is_some() {
            given.push("--config".to_owned());
        }
        given
    }

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
    /// How HTTP sessions get their browser (transport http): `shared`, one Chromium with a
    /// user context per session (about 90 MiB a session), or `per-session`, a browser each
    /// (about 190 MiB). Firefox, a persistent profile, a storage state, a proxy or a driver
    /// elsewhere always get a browser per session.
    #[arg(long, value_enum, default_value_t = HttpBrowsers::Shared)]
    pub http_browsers: HttpBrowsers,
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
            http_browsers: HttpBrowsers::Shared,
        }
    }
}

/// Which browser to drive and how: the browser flags and the file's `[browser]` section
/// resolved ([`crate::settings::resolve`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserOptions {
    /// How the browser is reached.
    pub connector: Connector,
    /// The WebDriver adapter's configuration (the settings of the extension connector too:
    /// its startup posture).
    pub webdriver: WebDriverConfig,
    /// The `[browser]` keys a flag or the file changed from their defaults, in the table's
    /// order.
    pub changed: Vec<&'static str>,
}

impl Default for BrowserOptions {
    fn default() -> Self {
        BrowserOptions {
            connector: Connector::Webdriver,
            webdriver: WebDriverConfig::default(),
            changed: Vec::new(),
        }
    }
}

impl BrowserOptions {
    /// The WebDriver launch settings that are set (by a flag or the file): under the
    /// extension connector they have no effect (the person's own browser is driven).
    pub fn webdriver_only_settings(&self) -> Vec<&'static str> {
        self.changed
            .iter()
            .copied()
            .filter(|key| settings::setting(key).is_some_and(|setting| setting.webdriver_only))
            .collect()
    }

    /// Refuse what this build cannot do (the extension connector without its feature). The
    /// settings that cannot work together are refused as they resolve
    /// ([`crate::settings::resolve`]), and the engine's own limits, such as an `https://` proxy
    /// on Firefox, where the WebDriver configuration is checked: `browser::checked_config`.
    pub fn check(&self) -> Result<(), ConfigError> {
        if self.connector == Connector::Extension && !cfg!(feature = "extension") {
            return Err(ConfigError::ExtensionUnavailable);
        }
        Ok(())
    }

    /// The startup posture, as the authority names it.
    pub fn startup(&self) -> StartupPosture {
        settings::posture(self.webdriver.startup)
    }
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
    /// How HTTP sessions get their browser.
    pub http_browsers: HttpBrowsers,
}

impl BrowserArgs {
    /// The startup posture given: the flag, else the file's.
    fn startup(&self, section: Option<&BrowserSection>) -> Option<StartupPosture> {
        self.given.startup().or_else(|| section.and_then(|s| s.startup()))
    }

    /// The browser these flags and the file's `[browser]` section ask for, refused when its
    /// settings cannot work together.
    fn browser_options(&self, section: Option<&BrowserSection>) -> Result<BrowserOptions, ConfigError> {
        settings::resolve(&self.given, section.map(|section| &section.0))
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
            http_browsers: self.http_browsers,
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

    use std::path::Path;

    use clap::{Args, FromArgMatches};
    use ghostlight_webdriver::{Diagnostics, Engine, Viewport};

    /// The browser flags of `argv` (as a command that starts a browser parses them).
    fn flags(argv: &[&str]) -> BrowserArgs {
        let command = BrowserArgs::augment_args(clap::Command::new("test"));
        let matches = command
            .try_get_matches_from(std::iter::once("test").chain(argv.iter().copied()))
            .unwrap_or_else(|e| panic!("{e}"));
        BrowserArgs::from_arg_matches(&matches).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The browser flags of `argv` with the transport's flags at their defaults.
    fn browser_args(argv: &[&str]) -> ServeArgs {
        ServeArgs { browser: flags(argv), ..ServeArgs::default() }
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
        let args =
            browser_args(&["--profile=/p", "--browser-arg=--lang=de", "--ignore-https-errors", "--headed"]);
        let options = args.resolve_with(None).unwrap_or_else(|e| panic!("{e}")).browser;
        assert_eq!(options.webdriver_only_settings(), ["profile", "ignore_https_errors", "args"]);
        let file = ConfigFile::parse("[browser]\nignore_https_errors = false\nengine = \"firefox\"\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let options =
            ServeArgs::default().resolve_with(Some(&file)).unwrap_or_else(|e| panic!("{e}")).browser;
        assert!(options.webdriver_only_settings().is_empty(), "a default value sets nothing");
        assert_eq!(options.changed, ["engine"]);
    }

    #[test]
    fn given_flags_are_named_and_secrets_not_shown() {
        assert!(flags(&[]).given_flags().is_empty());
        let args =
            flags(&["--headed", "--executable-path", "/b", "--proxy-server", "http://p:1", "--config", "/c"]);
        assert_eq!(args.given_flags(), ["--headed", "--browser-path", "--proxy", "--config"]);
        assert_ne!(args, flags(&["--headed"]));
        let shown = format!("{args:?}");
        assert!(shown.contains("headless") && !shown.contains("http://p:1"), "{shown}");
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
        let args = browser_args(&["--browser", "chromium", "--headed", "--startup", "auto"]);
        let options = args.resolve_with(Some(&file)).unwrap_or_else(|e| panic!("{e}"));
        let config = &options.browser.webdriver;
        assert_eq!(config.engine, Engine::Chromium);
        assert!(!config.headless);
        assert_eq!((config.window_width, config.window_height), (800, 600));
        assert_eq!(options.browser.startup(), StartupPosture::Auto);
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
        let from_file = ServeArgs::default()
            .resolve_with(Some(&file))
            .unwrap_or_else(|e| panic!("{e}"))
            .browser
            .webdriver;
        assert_eq!(from_file.profile.as_deref(), Some(Path::new("/srv/profile")));
        let bypass =
            |config: &WebDriverConfig| config.proxy.as_ref().map(|p| p.bypass.clone()).unwrap_or_default();
        assert_eq!(bypass(&from_file), ["a.example"]);
        assert_eq!(from_file.browser_args, ["--lang=de"]);
        assert_eq!(from_file.diagnostics, Diagnostics::OnStart);
        assert!(!from_file.accept_insecure_certs);
        let args = browser_args(&[
            "--profile",
            "relative-profile",
            "--proxy-bypass",
            "b.example,c.example",
            "--browser-arg=--lang=fr",
            "--ignore-https-errors",
            "--viewport",
            "1000x700",
            "--diagnostics",
            "on-demand",
        ]);
        let flags = args.resolve_with(Some(&file)).unwrap_or_else(|e| panic!("{e}")).browser.webdriver;
        let profile = flags.profile.clone().unwrap_or_default();
        assert!(profile.is_absolute() && profile.ends_with("relative-profile"), "{}", profile.display());
        assert_eq!(bypass(&flags), ["b.example", "c.example"]);
        assert_eq!(flags.browser_args, ["--lang=fr"]);
        assert!(flags.accept_insecure_certs);
        assert_eq!(flags.viewport, Some(Viewport { width: 1000, height: 700 }));
        assert_eq!(flags.diagnostics, Diagnostics::OnDemand);

        let remote = browser_args(&["--driver-url", "http://127.0.0.1:4444", "--profile", "/srv/p"]);
        let error = remote.resolve_with(None).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("profile needs a driver Ghostlight starts"), "{error}");
        let lonely = browser_args(&["--proxy-bypass", "a.example"]);
        assert!(lonely.resolve_with(None).is_err(), "a bypass list without a proxy");
        let remote_file = ConfigFile::parse("[browser]\ndriver_path = \"/usr/bin/chromedriver\"\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let args = browser_args(&["--driver-url", "http://127.0.0.1:4444"]);
        let error = args.resolve_with(Some(&remote_file)).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("driver_path needs a driver Ghostlight starts"), "{error}");
    }

    #[test]
    fn a_refused_proxy_flag_is_never_repeated() {
        let args = browser_args(&["--proxy", "http://ada:hunter2@proxy:3128"]);
        assert!(!format!("{args:?}").contains("hunter2"), "{args:?}");
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
        let args = browser_args(&["--connector", "webdriver"]);
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
        let args = browser_args(&["--connector", "extension"]);
        assert!(matches!(args.resolve_with(None), Err(ConfigError::ExtensionUnavailable)));
    }

    #[test]
    fn a_startup_flag_alone_is_a_user_setting() {
        let args = browser_args(&["--startup", "manual"]);
        let options = args.resolve_with(None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(options.browser.startup(), StartupPosture::Manual);
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
