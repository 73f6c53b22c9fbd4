//! [`WebDriverConfig`]: which browser to drive, how to reach its driver, and how to launch it
//! (profile, proxy, viewport, certificates, extra arguments, diagnostics from the start).

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use url::Url;

use crate::storage_state::StorageStateFile;

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

/// Hosts Chromium itself talks to (sign-in, autofill, optimization hints, updates), outside
/// any page: behind the network filter they are refused like any host outside authority, but
/// no call reports them, since no page or action asked for them.
pub(crate) const CHROMIUM_SERVICE_HOSTS: [&str; 8] = [
    "accounts.google.com",
    "clients2.google.com",
    "content-autofill.googleapis.com",
    "optimizationguide-pa.googleapis.com",
    "update.googleapis.com",
    "safebrowsing.googleapis.com",
    "clientservices.googleapis.com",
    "*.gvt1.com",
];

/// Hosts Firefox itself talks to (remote settings, captive-portal detection, push, telemetry,
/// tracking-protection lists, updates): as [`CHROMIUM_SERVICE_HOSTS`].
pub(crate) const FIREFOX_SERVICE_HOSTS: [&str; 6] = [
    "*.services.mozilla.com",
    "detectportal.firefox.com",
    "*.cdn.mozilla.net",
    "incoming.telemetry.mozilla.org",
    "aus5.mozilla.org",
    "*.telemetry.mozilla.org",
];

/// The Chromium flag that turns its sandbox off.
pub const NO_SANDBOX_FLAG: &str = "--no-sandbox";

/// A configuration value's name that is none of the accepted ones (the `FromStr` error of
/// [`Engine`], [`Startup`], [`Sandbox`], [`Diagnostics`] and [`ProxyScheme`]). It does not
/// repeat the name given (a proxy scheme comes from a URL that may hold a password).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("expected one of {}", expected_names(.expected))]
pub struct UnknownName {
    /// The accepted names.
    pub expected: &'static [&'static str],
}

/// `` `a`, `b`, `c` ``
fn expected_names(names: &[&str]) -> String {
    names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")
}

/// The names of a configuration enum, declared once: `ALL` and `NAMES` (in the documented
/// order), `as_str`, `FromStr` (exactly these names) and `Display` (the name).
macro_rules! named {
    ($ty:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in the documented order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];
            /// Every value's configuration name, in the order of [`Self::ALL`].
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The configuration name.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)+
                }
            }
        }

        impl std::str::FromStr for $ty {
            type Err = UnknownName;

            fn from_str(text: &str) -> Result<Self, UnknownName> {
                match text {
                    $($name => Ok($ty::$variant),)+
                    _ => Err(UnknownName { expected: $ty::NAMES }),
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

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
}

named!(Sandbox { Auto => "auto", On => "on", Off => "off" });

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

named!(Engine { Chromium => "chromium", Firefox => "firefox" });

impl Engine {
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

named!(Startup { Auto => "auto", Manual => "manual" });

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
    /// A persistent browser profile (Chromium `--user-data-dir`, Firefox `-profile`) instead
    /// of a fresh temporary one: cookies, storage and logins carry from one run to the next.
    /// The folder is created when missing and never deleted; while the browser runs, the
    /// adapter holds an exclusive lock on [`PROFILE_LOCK_FILE`] inside it, so a second
    /// browser asking for the same profile is refused ([`LaunchCause::ProfileInUse`]). Needs
    /// a driver the adapter launches ([`DriverSource::Launch`]).
    ///
    /// [`LaunchCause::ProfileInUse`]: ghostlight_core::port::LaunchCause::ProfileInUse
    pub profile: Option<PathBuf>,
    /// The proxy every request goes through, with hosts that bypass it.
    pub proxy: Option<Proxy>,
    /// The CSS viewport (`innerWidth` × `innerHeight`) the first window is resized to once
    /// the session starts; `None` keeps the outer window size of `window_width` ×
    /// `window_height`.
    pub viewport: Option<Viewport>,
    /// Accept invalid, expired and self-signed HTTPS certificates (the WebDriver capability
    /// `acceptInsecureCerts`, on both engines).
    pub accept_insecure_certs: bool,
    /// More command-line arguments for the browser, after the adapter's own (e.g. Chromium
    /// `--lang=de`). Arguments that would take over what the adapter manages (the profile,
    /// the remote-control port, the proxy) are refused ([`RESERVED_ARGS`]).
    pub browser_args: Vec<String>,
    /// When console and network tracking (`diagnostics`) starts.
    pub diagnostics: Diagnostics,
    /// Cookies and `localStorage` loaded into the fresh profile when the session starts and,
    /// with [`StorageStateFile::save`], written back when it stops (Playwright's
    /// `storageState` file). Not with a persistent [`profile`](Self::profile), which keeps
    /// them itself.
    pub storage_state: Option<StorageStateFile>,
}

/// The file inside a persistent profile that the adapter locks while its browser runs.
pub const PROFILE_LOCK_FILE: &str = "ghostlight.lock";

/// The most extra browser arguments accepted.
pub const MAX_BROWSER_ARGS: usize = 64;
/// The longest extra browser argument accepted, in bytes.
pub const MAX_BROWSER_ARG_BYTES: usize = 4_096;
/// The most proxy bypass entries accepted.
pub const MAX_PROXY_BYPASS: usize = 256;
/// The longest proxy bypass entry accepted, in bytes.
pub const MAX_PROXY_BYPASS_BYTES: usize = 253;

/// Browser arguments the adapter manages itself, refused in
/// [`WebDriverConfig::browser_args`] (an argument equal to one, or starting with one followed
/// by `=`): the profile (use [`WebDriverConfig::profile`]), the remote-control channel the
/// driver sets up, and the proxy and WebRTC routing (use [`WebDriverConfig::proxy`]; the
/// adapter starts the browser behind its network filter).
pub const RESERVED_ARGS: [&str; 17] = [
    "--user-data-dir",
    "--remote-debugging-port",
    "--remote-debugging-pipe",
    "--proxy-server",
    "--proxy-bypass-list",
    "--no-proxy-server",
    "--proxy-pac-url",
    "--proxy-auto-detect",
    "--force-webrtc-ip-handling-policy",
    "--webrtc-ip-handling-policy",
    "-profile",
    "--profile",
    "-P",
    "-marionette",
    "--marionette",
    "-remote-debugging-port",
    "--remote-allow-hosts",
];

/// When console and network tracking starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Diagnostics {
    /// On the first `diagnostics` call for a tab (the spec's opt-in default): that call may
    /// hold no earlier evidence.
    #[default]
    OnDemand,
    /// When the session starts, for every tab: the first `diagnostics` call already holds
    /// the evidence of the page loads before it.
    OnStart,
}

named!(Diagnostics { OnDemand => "on_demand", OnStart => "on_start" });

/// A CSS viewport size in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Viewport {
    /// `window.innerWidth`.
    pub width: u32,
    /// `window.innerHeight`.
    pub height: u32,
}

/// The protocol spoken to a proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProxyScheme {
    /// A plain HTTP proxy (HTTPS goes through it with `CONNECT`).
    Http,
    /// An HTTP proxy reached over TLS (Chromium only).
    Https,
    /// SOCKS version 4.
    Socks4,
    /// SOCKS version 5 (host names are resolved by the proxy).
    Socks5,
}

named!(ProxyScheme { Http => "http", Https => "https", Socks4 => "socks4", Socks5 => "socks5" });

impl ProxyScheme {
    /// The scheme of a URL scheme name.
    pub fn from_name(name: &str) -> Option<ProxyScheme> {
        name.parse().ok()
    }
}

/// A proxy server and the hosts that bypass it. It never holds credentials (a proxy URL with
/// a user name or password is refused where it is parsed), so it can be logged whole.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Proxy {
    /// The protocol spoken to the proxy.
    pub scheme: ProxyScheme,
    /// The proxy's host name or IP address (an IPv6 address without brackets).
    pub host: String,
    /// The proxy's port.
    pub port: u16,
    /// Hosts reached directly: `example.com`, `*.example.com` (its subdomains), an IP
    /// address, `<local>` (host names without a dot). Loopback addresses bypass the proxy on
    /// both engines anyway.
    pub bypass: Vec<String>,
}

impl Proxy {
    /// The proxy of `url` (`scheme://host:port`, scheme `http`, `https`, `socks4` or
    /// `socks5`; the port defaults to 80, 443 or 1080). Errors never repeat the URL (it may
    /// hold a password).
    pub fn parse(url: &str) -> Result<Proxy, ConfigProblem> {
        let parsed = url::Url::parse(url.trim()).map_err(|_| ConfigProblem::ProxyUrl)?;
        let scheme = ProxyScheme::from_name(parsed.scheme()).ok_or(ConfigProblem::ProxyUrl)?;
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(ConfigProblem::ProxyCredentials);
        }
        if !matches!(parsed.path(), "" | "/") || parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(ConfigProblem::ProxyUrl);
        }
        let host = match parsed.host() {
            Some(url::Host::Domain(domain)) if !domain.is_empty() => domain.to_owned(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            _ => return Err(ConfigProblem::ProxyUrl),
        };
        let port = parsed.port().unwrap_or(match scheme {
            ProxyScheme::Http => 80,
            ProxyScheme::Https => 443,
            ProxyScheme::Socks4 | ProxyScheme::Socks5 => 1080,
        });
        Ok(Proxy { scheme, host, port, bypass: Vec::new() })
    }

    /// `host:port`, with an IPv6 host in brackets.
    pub fn host_port(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// Check the scheme against the engine, and the bypass entries.
    fn check(&self, engine: Engine) -> Result<(), ConfigProblem> {
        if self.scheme == ProxyScheme::Https && engine == Engine::Firefox {
            return Err(ConfigProblem::HttpsProxyOnFirefox);
        }
        if self.bypass.len() > MAX_PROXY_BYPASS {
            return Err(ConfigProblem::TooManyBypassEntries);
        }
        for (index, entry) in self.bypass.iter().enumerate() {
            let bad = entry.is_empty()
                || entry.len() > MAX_PROXY_BYPASS_BYTES
                || entry.chars().any(|c| c.is_whitespace() || c.is_control() || matches!(c, ',' | ';'));
            if bad {
                return Err(ConfigProblem::ProxyBypass { index: index + 1 });
            }
        }
        Ok(())
    }
}

impl fmt::Display for Proxy {
    /// `scheme://host:port` (a proxy never holds credentials).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}", self.scheme.as_str(), self.host_port())
    }
}

/// Why a [`WebDriverConfig`] cannot be used as given ([`WebDriverConfig::check`]). Messages
/// name the setting; a proxy URL is never repeated (it may hold a password).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigProblem {
    /// The proxy is not `scheme://host:port` with a supported scheme.
    #[error("the proxy must be a URL scheme://host:port with scheme http, https, socks4 or socks5")]
    ProxyUrl,
    /// The proxy URL holds a user name or password.
    #[error(
        "proxy credentials are not supported: remove the user name and password from the proxy URL \
         (use a proxy that admits this machine without them)"
    )]
    ProxyCredentials,
    /// A proxy over TLS with Firefox.
    #[error("an https:// proxy needs Chromium; with Firefox use an http:// or socks5:// proxy")]
    HttpsProxyOnFirefox,
    /// A proxy bypass entry is empty, too long, or holds a separator or space.
    #[error(
        "a proxy bypass entry must be a host pattern of at most {MAX_PROXY_BYPASS_BYTES} characters \
         without spaces, commas or semicolons (entry {index} is not)"
    )]
    ProxyBypass {
        /// The entry's position, from 1.
        index: usize,
    },
    /// More proxy bypass entries than [`MAX_PROXY_BYPASS`].
    #[error("at most {MAX_PROXY_BYPASS} proxy bypass entries are accepted")]
    TooManyBypassEntries,
    /// A persistent profile with a driver the adapter did not launch.
    #[error(
        "a persistent profile needs a driver Ghostlight starts: remove the driver URL, or let the \
         remote driver manage its own profile"
    )]
    ProfileWithRemoteDriver,
    /// The profile path is not absolute.
    #[error("the profile must be an absolute folder path (got {})", .0.display())]
    ProfilePath(PathBuf),
    /// A browser argument the adapter manages itself.
    #[error("the browser argument {0:?} is managed by Ghostlight{hint}", hint = reserved_hint(.0))]
    ReservedArg(String),
    /// A browser argument that is empty, too long or holds a NUL byte.
    #[error(
        "browser arguments must be non-empty, at most {MAX_BROWSER_ARG_BYTES} bytes and free of NUL \
         (argument {index} is not)"
    )]
    BadArg {
        /// The argument's position, from 1.
        index: usize,
    },
    /// More browser arguments than [`MAX_BROWSER_ARGS`].
    #[error("at most {MAX_BROWSER_ARGS} extra browser arguments are accepted")]
    TooManyArgs,
    /// A storage state with a persistent profile.
    #[error(
        "a storage state cannot be combined with a persistent profile (the profile keeps cookies and \
         storage itself): use one or the other"
    )]
    StorageStateWithProfile,
}

/// What to use instead of a reserved browser argument.
fn reserved_hint(arg: &str) -> &'static str {
    let name = arg.split('=').next().unwrap_or(arg);
    match name {
        "--user-data-dir" | "-profile" | "--profile" | "-P" => ": use the profile setting",
        "--proxy-server"
        | "--proxy-bypass-list"
        | "--no-proxy-server"
        | "--proxy-pac-url"
        | "--proxy-auto-detect"
        | "--force-webrtc-ip-handling-policy"
        | "--webrtc-ip-handling-policy" => ": use the proxy and proxy_bypass settings",
        _ => " (the driver sets it up)",
    }
}

/// Capabilities the adapter relies on and [`WebDriverConfig::extra_capabilities`] cannot
/// replace: the dialog behaviour the navigation rules need, the BiDi URL the evidence needs,
/// and the timeouts every bounded call sets.
pub const RESERVED_CAPABILITIES: [&str; 5] =
    ["unhandledPromptBehavior", "webSocketUrl", "pageLoadStrategy", "timeouts", "proxy"];

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
            profile: None,
            proxy: None,
            viewport: None,
            accept_insecure_certs: false,
            browser_args: Vec::new(),
            diagnostics: Diagnostics::default(),
            storage_state: None,
        }
    }
}

impl WebDriverConfig {
    /// The default configuration for `engine` (headless, launched from `PATH`).
    pub fn for_engine(engine: Engine) -> Self {
        WebDriverConfig { engine, ..WebDriverConfig::default() }
    }

    /// Whether the configuration can be used as given: the proxy's bypass list, the profile
    /// (absolute; only with a launched driver) and the extra browser arguments. The browser
    /// refuses to start with the same problem.
    pub fn check(&self) -> Result<(), ConfigProblem> {
        if let Some(proxy) = &self.proxy {
            proxy.check(self.engine)?;
        }
        if let Some(profile) = &self.profile {
            if self.storage_state.is_some() {
                return Err(ConfigProblem::StorageStateWithProfile);
            }
            if matches!(self.driver, DriverSource::Connect(_)) {
                return Err(ConfigProblem::ProfileWithRemoteDriver);
            }
            if !profile.is_absolute() {
                return Err(ConfigProblem::ProfilePath(profile.clone()));
            }
        }
        if self.browser_args.len() > MAX_BROWSER_ARGS {
            return Err(ConfigProblem::TooManyArgs);
        }
        for (index, arg) in self.browser_args.iter().enumerate() {
            if arg.is_empty() || arg.len() > MAX_BROWSER_ARG_BYTES || arg.contains('\0') {
                return Err(ConfigProblem::BadArg { index: index + 1 });
            }
            if is_reserved_arg(arg) {
                return Err(ConfigProblem::ReservedArg(arg.clone()));
            }
        }
        Ok(())
    }

    /// The persistent profile folder, if one is configured.
    pub fn profile(&self) -> Option<&Path> {
        self.profile.as_deref()
    }
}

/// Whether `arg` is one of [`RESERVED_ARGS`] (alone or with `=value`).
fn is_reserved_arg(arg: &str) -> bool {
    RESERVED_ARGS.iter().any(|reserved| {
        arg == *reserved || arg.strip_prefix(reserved).is_some_and(|rest| rest.starts_with('='))
    })
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
    fn proxies_parse_without_credentials() {
        let proxy = Proxy::parse("http://127.0.0.1:3128").expect("parses");
        assert_eq!((proxy.scheme, proxy.host.as_str(), proxy.port), (ProxyScheme::Http, "127.0.0.1", 3128));
        assert_eq!(proxy.to_string(), "http://127.0.0.1:3128");
        assert_eq!(Proxy::parse("socks5://proxy.internal").expect("parses").port, 1080);
        assert_eq!(Proxy::parse("http://[::1]:8080").expect("parses").host_port(), "[::1]:8080");
        for bad in ["ftp://h:1", "127.0.0.1:3128", "http://h:1/path", "nonsense"] {
            assert_eq!(Proxy::parse(bad), Err(ConfigProblem::ProxyUrl), "{bad}");
        }
        let secret = Proxy::parse("http://ada:hunter2@h:1").expect_err("credentials");
        assert_eq!(secret, ConfigProblem::ProxyCredentials);
        assert!(!secret.to_string().contains("hunter2"));
    }

    #[test]
    fn checks_name_the_problem() {
        let mut config = WebDriverConfig::for_engine(Engine::Firefox);
        config.proxy = Some(Proxy::parse("https://h:1").expect("parses"));
        assert_eq!(config.check(), Err(ConfigProblem::HttpsProxyOnFirefox));
        config.engine = Engine::Chromium;
        assert_eq!(config.check(), Ok(()));
        if let Some(proxy) = config.proxy.as_mut() {
            proxy.bypass = vec!["example.com".into(), "a b".into()];
        }
        assert_eq!(config.check(), Err(ConfigProblem::ProxyBypass { index: 2 }));
        config.proxy = None;
        config.browser_args = vec!["--lang=de".into(), "--user-data-dir=/x".into()];
        let error = config.check().expect_err("reserved");
        assert!(error.to_string().contains("use the profile setting"), "{error}");
        config.browser_args = vec!["--proxy-server-ish".into()];
        assert_eq!(config.check(), Ok(()), "only the argument itself is reserved");
        config.browser_args = Vec::new();
        config.profile = Some("relative/profile".into());
        assert!(matches!(config.check(), Err(ConfigProblem::ProfilePath(_))));
        config.profile = Some("/srv/profile".into());
        config.driver = DriverSource::Connect("http://127.0.0.1:4444/".parse().expect("a URL"));
        assert_eq!(config.check(), Err(ConfigProblem::ProfileWithRemoteDriver));
    }

    #[test]
    fn names_round_trip() {
        for engine in Engine::ALL {
            assert_eq!(engine.as_str().parse::<Engine>(), Ok(*engine));
        }
        for sandbox in Sandbox::ALL {
            assert_eq!(sandbox.to_string().parse::<Sandbox>(), Ok(*sandbox));
        }
        assert_eq!(Startup::NAMES, ["auto", "manual"]);
        assert_eq!("on_start".parse::<Diagnostics>(), Ok(Diagnostics::OnStart));
        let error = "on-start".parse::<Diagnostics>().expect_err("only the names");
        assert_eq!(error.to_string(), "expected one of `on_demand`, `on_start`");
        assert_eq!(ProxyScheme::from_name("socks4"), Some(ProxyScheme::Socks4));
    }

    #[test]
    fn engine_names() {
        assert_eq!(Engine::Firefox.as_str(), "firefox");
        assert_eq!(Engine::Firefox.display_name(), "Firefox");
        assert_eq!(Engine::Chromium.driver_name(), "chromedriver");
    }
}
