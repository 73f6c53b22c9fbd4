//! The browser settings, declared once: [`SETTINGS`], one entry per setting (its flag, its
//! `[browser]` key, its help and documentation, its default as shown, and how its value
//! applies to the adapter's configuration), in the order every listing shows them. In the
//! manner of ripgrep's flag definitions, everything else is made from the table:
//!
//! * the clap arguments of the browser flags ([`BrowserArgs`](crate::options::BrowserArgs)
//!   adds them to every command that starts a browser);
//! * the `[browser]` section of the configuration file: its keys, their decoding and the
//!   unknown-key error with its "did you mean" ([`BrowserSection`](crate::config::BrowserSection));
//! * the `[browser]` part of the commented file `ghostlight config init` writes
//!   ([`init_section`]);
//! * README's `[browser]` rows ([`readme_rows`], checked by a test; `GHOSTLIGHT_BLESS=1`
//!   rewrites them).
//!
//! A flag and the file give a setting the same [`Value`]; resolving takes the flag's, else the
//! file's, and applies each entry in the table's order onto [`BrowserOptions::default`]
//! (the adapter's defaults), so an entry's `apply` may rely on the entries above it (a proxy
//! bypass list needs the proxy, saving the storage state needs its file). The enums are the
//! adapter's ([`Engine`], [`Startup`], [`Sandbox`], [`Diagnostics`]), parsed by their own
//! `FromStr`; only [`Connector`], which the adapter does not know, is the application's.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::LazyLock;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser, ValueParser};
use clap::{Arg, ArgAction, ArgMatches};
use ghostlight_core::StartupPosture;
use ghostlight_webdriver::{
    Diagnostics, DriverSource, Engine, Proxy, Sandbox, Startup, StorageStateFile, Viewport,
};

use crate::config::{Connector, DriverUrl, WindowSize};
use crate::error::ConfigError;
use crate::options::BrowserOptions;

/// One browser setting: a flag of every command that starts a browser and a `[browser]` key
/// of the configuration file, with the same meaning.
pub struct Setting {
    /// The `[browser]` key (`ignore_https_errors`).
    pub key: &'static str,
    /// The long flag, without its dashes (`ignore-https-errors`); also the clap argument id.
    pub flag: &'static str,
    /// Other names the flag is accepted under, shown in `--help`.
    pub aliases: &'static [&'static str],
    /// What the value is and how a flag gives it.
    pub kind: Kind,
    /// The flag's placeholder in `--help` (`FILE`); unused by switches.
    pub value_name: &'static str,
    /// The flag's `--help` text.
    pub help: &'static str,
    /// What the key means (Markdown): README's row and, without the Markdown, `config init`'s
    /// comment.
    pub doc: &'static str,
    /// The default as README shows it (Markdown).
    pub default: &'static str,
    /// The TOML value `config init` shows (commented out).
    pub example: &'static str,
    /// Whether [`Self::example`] is the default (a test holds it to the adapter's default).
    pub example_is_default: bool,
    /// Whether the setting has no effect with the extension connector (a warning names it).
    pub webdriver_only: bool,
    /// Whether the value may hold a secret: never shown (`Debug`, clap's messages).
    pub secret: bool,
    /// Flags this flag cannot be given with (their settings are refused together whatever
    /// gives them; this is clap's early word on it).
    pub conflicts_with: &'static [&'static str],
    /// Flags this flag needs.
    pub requires: &'static [&'static str],
    /// Apply the value onto the options being resolved.
    pub apply: fn(&mut BrowserOptions, &Value) -> Result<(), ConfigError>,
}

impl Setting {
    /// An entry's usual optional parts (no aliases, conflicts or requirements, not secret,
    /// effective with either connector): `..Setting::PLAIN` ends every entry of [`SETTINGS`].
    /// The required parts are empty here; a test refuses an entry that leaves one so.
    pub const PLAIN: Setting = Setting {
        key: "",
        flag: "",
        aliases: &[],
        kind: Kind::Path,
        value_name: "",
        help: "",
        doc: "",
        default: "",
        example: "",
        example_is_default: false,
        webdriver_only: false,
        secret: false,
        conflicts_with: &[],
        requires: &[],
        apply: |_, _| Ok(()),
    };
}

/// What a setting's value is.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A boolean key; the flag is a switch that sets the key to `flag_sets`.
    Switch {
        /// The key's value when the flag is given (`--headed` sets `headless` to `false`).
        flag_sets: bool,
    },
    /// One of these names (the adapter's enum's `NAMES`).
    Choice {
        /// The accepted names.
        names: &'static [&'static str],
        /// More spellings a flag accepts, `(name, alias)`.
        flag_aliases: &'static [(&'static str, &'static str)],
    },
    /// A string the check accepts.
    Text {
        /// Whether the value is acceptable (its error never repeats a secret value).
        check: fn(&str) -> Result<(), ConfigError>,
    },
    /// A path: absolute in the file; a flag's relative path is made absolute against the
    /// working directory.
    Path,
    /// A list of strings; a flag is repeated (or split at `delimiter`) and replaces the
    /// file's list.
    List {
        /// The separator within one flag value.
        delimiter: Option<char>,
        /// Whether a flag value may start with a dash (`--browser-arg=--lang=de`).
        hyphen_values: bool,
    },
}

/// A setting's value as a flag or the file gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A boolean.
    Switch(bool),
    /// A string (a name, a URL, a size, a path).
    Text(String),
    /// A list of strings.
    List(Vec<String>),
}

impl Value {
    /// The string (empty for another kind, which the table never gives an entry).
    fn text(&self) -> &str {
        match self {
            Value::Text(text) => text,
            _ => "",
        }
    }

    /// The boolean.
    fn switch(&self) -> bool {
        matches!(self, Value::Switch(true))
    }

    /// The list.
    fn list(&self) -> &[String] {
        match self {
            Value::List(list) => list,
            _ => &[],
        }
    }
}

/// The settings one layer (the flags, or the file) gives, by key, in the table's order.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Given(BTreeMap<usize, Value>);

impl Given {
    /// The value given for `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(&index(key)?)
    }

    /// Give `key` the value `value` (an unknown key is ignored).
    pub fn set(&mut self, key: &str, value: Value) {
        if let Some(index) = index(key) {
            self.0.insert(index, value);
        }
    }

    /// The settings given, in the table's order.
    pub fn settings(&self) -> impl Iterator<Item = &'static Setting> + '_ {
        self.0.keys().filter_map(|index| SETTINGS.get(*index))
    }

    /// Whether nothing is given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The startup posture given, as the authority's user setting.
    pub fn startup(&self) -> Option<StartupPosture> {
        let startup = self.get("startup")?.text().parse::<Startup>().ok()?;
        Some(posture(startup))
    }
}

impl fmt::Debug for Given {
    /// The values by key; a secret one (the proxy) is not shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for (index, value) in &self.0 {
            let Some(setting) = SETTINGS.get(*index) else { continue };
            if setting.secret {
                map.entry(&setting.key, &format_args!(".."));
            } else {
                map.entry(&setting.key, value);
            }
        }
        map.finish()
    }
}

/// The authority's startup posture for the adapter's.
pub fn posture(startup: Startup) -> StartupPosture {
    match startup {
        Startup::Auto => StartupPosture::Auto,
        Startup::Manual => StartupPosture::Manual,
    }
}

/// The position of `key` in [`SETTINGS`].
fn index(key: &str) -> Option<usize> {
    SETTINGS.iter().position(|setting| setting.key == key)
}

/// The setting of `key`.
pub fn setting(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|setting| setting.key == key)
}

/// Every `[browser]` key, in the table's order (what an unknown-key error lists).
pub static KEYS: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| SETTINGS.iter().map(|setting| setting.key).collect());

/// Resolve the flags' and the file's settings: for each entry in the table's order, the
/// flag's value, else the file's, applied onto the defaults. Refused when a value cannot be
/// used or settings cannot work together.
pub fn resolve(flags: &Given, file: Option<&Given>) -> Result<BrowserOptions, ConfigError> {
    let mut options = BrowserOptions::default();
    for (index, setting) in SETTINGS.iter().enumerate() {
        let value = flags.0.get(&index).or_else(|| file.and_then(|file| file.0.get(&index)));
        let Some(value) = value else { continue };
        let before = options.clone();
        (setting.apply)(&mut options, value)?;
        if options != before {
            options.changed.push(setting.key);
        }
    }
    options.check()?;
    Ok(options)
}

/// Parse a name for `key` (the table and clap have checked it; a wrong one is refused anyway).
fn choice<T: FromStr>(key: &str, value: &Value) -> Result<T, ConfigError> {
    value.text().parse().map_err(|_| ConfigError::Browser(format!("{key}: unknown value")))
}

/// `value` as an absolute path (a flag's relative path means what the person typed it next to).
fn path(value: &Value) -> Result<PathBuf, ConfigError> {
    let path = Path::new(value.text());
    std::path::absolute(path).map_err(|error| {
        ConfigError::Browser(format!("the path {} cannot be made absolute: {error}", path.display()))
    })
}

/// The refusal of a launch setting with a driver Ghostlight does not start.
fn needs_launched_driver(name: &str) -> ConfigError {
    ConfigError::Browser(format!(
        "{name} needs a driver Ghostlight starts; it cannot be combined with driver_url (the driver at \
         that URL chooses its browser and profile)"
    ))
}

/// The executable `set` chooses, refused with a driver URL.
fn executable(
    options: &mut BrowserOptions,
    name: &str,
    value: &Value,
    set: fn(&mut Option<PathBuf>, &mut Option<PathBuf>, PathBuf),
) -> Result<(), ConfigError> {
    let path = path(value)?;
    match &mut options.webdriver.driver {
        DriverSource::Launch { driver_path, browser_path } => {
            set(driver_path, browser_path, path);
            Ok(())
        }
        DriverSource::Connect(_) => Err(needs_launched_driver(name)),
    }
}

/// The window size a value names.
fn size(value: &Value) -> Result<WindowSize, ConfigError> {
    value.text().parse()
}

/// Whether `text` is a proxy the adapter can use (the error never repeats it).
fn check_proxy(text: &str) -> Result<(), ConfigError> {
    Proxy::parse(text).map(drop).map_err(|problem| ConfigError::Proxy(problem.to_string()))
}

/// The browser settings, in the order `--help`, README and `config init` list them.
pub static SETTINGS: &[Setting] = &[
    Setting {
        key: "connector",
        flag: "connector",
        kind: Kind::Choice { names: Connector::NAMES, flag_aliases: &[] },
        value_name: "CONNECTOR",
        help: "How to reach the browser: `webdriver` starts one through its driver, `extension` drives your \
               own browser through the Ghostlight extension (`ghostlight install` first) [default: \
               webdriver]",
        doc: "`\"extension\"`: drive your own browser through the Ghostlight extension \
              ([below](#use-it-in-your-own-browser)); the other `[browser]` keys are WebDriver's",
        default: "`\"webdriver\"`",
        example: "\"webdriver\"",
        example_is_default: true,
        apply: |options, value| {
            options.connector = choice("connector", value)?;
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "engine",
        flag: "browser",
        kind: Kind::Choice { names: Engine::NAMES, flag_aliases: &[] },
        value_name: "ENGINE",
        help: "Browser to drive [default: chromium]",
        doc: "`\"chromium\"` (chromedriver) or `\"firefox\"` (geckodriver)",
        default: "`\"chromium\"`",
        example: "\"chromium\"",
        example_is_default: true,
        apply: |options, value| {
            options.webdriver.engine = choice("engine", value)?;
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "headless",
        flag: "headed",
        kind: Kind::Switch { flag_sets: false },
        value_name: "",
        help: "Show the browser window (default: headless)",
        doc: "`false` shows the window",
        default: "`true`",
        example: "true",
        example_is_default: true,
        apply: |options, value| {
            options.webdriver.headless = value.switch();
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "driver_url",
        flag: "driver-url",
        kind: Kind::Text { check: |text| DriverUrl::from_str(text).map(drop) },
        value_name: "URL",
        help: "Connect to a WebDriver endpoint already listening at URL instead of starting a driver",
        doc: "connect to a running WebDriver endpoint",
        default: "none (start the driver from `PATH`)",
        example: "\"http://127.0.0.1:9515\"",
        example_is_default: false,
        webdriver_only: true,
        apply: |options, value| {
            let url: DriverUrl = value.text().parse()?;
            options.webdriver.driver = DriverSource::Connect(url.into_url());
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "window",
        flag: "window",
        kind: Kind::Text { check: |text| WindowSize::from_str(text).map(drop) },
        value_name: "WxH",
        help: "Outer window size [default: 1280x800]",
        doc: "outer window size `\"WIDTHxHEIGHT\"`",
        default: "`\"1280x800\"`",
        example: "\"1280x800\"",
        example_is_default: true,
        apply: |options, value| {
            let window = size(value)?;
            options.webdriver.window_width = window.width;
            options.webdriver.window_height = window.height;
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "startup",
        flag: "startup",
        kind: Kind::Choice { names: Startup::NAMES, flag_aliases: &[] },
        value_name: "POSTURE",
        help: "Who starts the browser: `auto` starts it on the first call that needs it, `manual` asks \
               the person [default: auto]",
        doc: "`\"manual\"`: a person starts the browser",
        default: "`\"auto\"`",
        example: "\"auto\"",
        example_is_default: true,
        apply: |options, value| {
            options.webdriver.startup = choice("startup", value)?;
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "sandbox",
        flag: "sandbox",
        kind: Kind::Choice { names: Sandbox::NAMES, flag_aliases: &[] },
        value_name: "MODE",
        help: "Chromium's sandbox: `auto` keeps it on unless running as root [default: auto]",
        doc: "Chromium's sandbox: on unless running as root; `\"on\"` or `\"off\"`",
        default: "`\"auto\"`",
        example: "\"auto\"",
        example_is_default: true,
        apply: |options, value| {
            options.webdriver.sandbox = choice("sandbox", value)?;
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "browser_path",
        flag: "browser-path",
        aliases: &["executable-path"],
        kind: Kind::Path,
        value_name: "FILE",
        help: "The browser executable [default: the driver finds its browser]",
        doc: "the browser executable",
        default: "none (the driver finds its browser)",
        example: "\"/usr/bin/chromium\"",
        example_is_default: false,
        webdriver_only: true,
        apply: |options, value| {
            executable(options, "browser_path", value, |_, browser, path| *browser = Some(path))
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "driver_path",
        flag: "driver-path",
        kind: Kind::Path,
        value_name: "FILE",
        help: "The driver executable (chromedriver or geckodriver) [default: from PATH]",
        doc: "the driver executable; not with `driver_url`",
        default: "none (from `PATH`)",
        example: "\"/usr/bin/chromedriver\"",
        example_is_default: false,
        webdriver_only: true,
        conflicts_with: &["driver-url"],
        apply: |options, value| {
            executable(options, "driver_path", value, |driver, _, path| *driver = Some(path))
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "profile",
        flag: "profile",
        aliases: &["user-data-dir"],
        kind: Kind::Path,
        value_name: "DIR",
        help: "A persistent browser profile folder, kept between runs (cookies, storage, logins) and \
               locked while a browser uses it; created when missing, never deleted [default: a fresh \
               temporary profile per run]",
        doc: "a persistent profile folder: kept between runs, never deleted, locked while a browser uses it",
        default: "none (a fresh temporary profile per run)",
        example: "\"/home/me/.local/share/ghostlight/profile\"",
        example_is_default: false,
        webdriver_only: true,
        apply: |options, value| {
            if matches!(options.webdriver.driver, DriverSource::Connect(_)) {
                return Err(needs_launched_driver("profile"));
            }
            options.webdriver.profile = Some(path(value)?);
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "storage_state",
        flag: "storage-state",
        kind: Kind::Path,
        value_name: "FILE",
        help: "Cookies and localStorage to load into the fresh profile at start: a JSON file in \
               Playwright's storageState shape [default: none]",
        doc: "a JSON file of cookies and localStorage (Playwright's `storageState` shape) loaded into the \
              fresh profile at start; not with `profile`",
        default: "none",
        example: "\"/home/me/ghostlight-state.json\"",
        example_is_default: false,
        webdriver_only: true,
        conflicts_with: &["profile"],
        apply: |options, value| {
            if options.webdriver.profile.is_some() {
                return Err(ConfigError::Browser(
                    "storage_state cannot be combined with profile (a persistent profile keeps cookies and \
                     storage itself): use one or the other"
                        .to_owned(),
                ));
            }
            options.webdriver.storage_state = Some(StorageStateFile { path: path(value)?, save: false });
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "save_storage_state",
        flag: "save-storage-state",
        kind: Kind::Switch { flag_sets: true },
        value_name: "",
        help: "Write the browser's cookies and localStorage back to --storage-state when the server stops \
               (mode 0600; the file may be missing at start)",
        doc: "write the browser's cookies and localStorage back to `storage_state` when the server stops, \
              mode `0600`",
        default: "`false`",
        example: "false",
        example_is_default: true,
        requires: &["storage-state"],
        apply: |options, value| {
            if value.switch() {
                let Some(file) = options.webdriver.storage_state.as_mut() else {
                    return Err(ConfigError::Browser(
                        "save_storage_state needs a storage_state file".to_owned(),
                    ));
                };
                file.save = true;
            }
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "proxy",
        flag: "proxy",
        aliases: &["proxy-server"],
        kind: Kind::Text { check: check_proxy },
        value_name: "URL",
        help: "Send every request through this proxy: scheme://host:port with scheme http, https \
               (Chromium only), socks4 or socks5; credentials are refused [default: none]",
        doc: "`scheme://host:port`, scheme `http`, `https` (Chromium only), `socks4` or `socks5`; \
              credentials are refused",
        default: "none",
        example: "\"http://127.0.0.1:3128\"",
        example_is_default: false,
        webdriver_only: true,
        secret: true,
        apply: |options, value| {
            let proxy =
                Proxy::parse(value.text()).map_err(|problem| ConfigError::Proxy(problem.to_string()))?;
            options.webdriver.proxy = Some(proxy);
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "proxy_bypass",
        flag: "proxy-bypass",
        kind: Kind::List { delimiter: Some(','), hyphen_values: false },
        value_name: "HOSTS",
        help: "Hosts reached without the proxy, comma-separated or repeated (`example.com`, \
               `*.example.com`, `<local>`); loopback always bypasses it",
        doc: "hosts reached without the proxy: `example.com`, `*.example.com`, `<local>`; loopback always \
              bypasses it",
        default: "`[]`",
        example: "[]",
        example_is_default: true,
        apply: |options, value| {
            if value.list().is_empty() {
                return Ok(());
            }
            let Some(proxy) = options.webdriver.proxy.as_mut() else {
                return Err(ConfigError::Browser("proxy_bypass needs a proxy".to_owned()));
            };
            proxy.bypass = value.list().to_vec();
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "viewport",
        flag: "viewport",
        aliases: &["viewport-size"],
        kind: Kind::Text { check: |text| WindowSize::from_str(text).map(drop) },
        value_name: "WxH",
        help: "The CSS viewport (innerWidth x innerHeight); the window is resized to give it [default: \
               what --window gives]",
        doc: "the CSS viewport `\"WIDTHxHEIGHT\"`; the window is resized to give it",
        default: "none (what `window` gives)",
        example: "\"1280x720\"",
        example_is_default: false,
        webdriver_only: true,
        apply: |options, value| {
            let viewport = size(value)?;
            options.webdriver.viewport = Some(Viewport { width: viewport.width, height: viewport.height });
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "ignore_https_errors",
        flag: "ignore-https-errors",
        aliases: &["accept-insecure-certs"],
        kind: Kind::Switch { flag_sets: true },
        value_name: "",
        help: "Accept invalid, expired and self-signed HTTPS certificates",
        doc: "accept invalid and self-signed certificates, WebDriver's `acceptInsecureCerts`",
        default: "`false`",
        example: "false",
        example_is_default: true,
        webdriver_only: true,
        apply: |options, value| {
            options.webdriver.accept_insecure_certs = value.switch();
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "args",
        flag: "browser-arg",
        kind: Kind::List { delimiter: None, hyphen_values: true },
        value_name: "ARG",
        help: "One more browser argument (repeatable), e.g. --browser-arg=--lang=de. Replaces the file's \
               `args` when given",
        doc: "more browser arguments, e.g. `[\"--lang=de\"]`; the flags replace the file's list",
        default: "`[]`",
        example: "[]",
        example_is_default: true,
        webdriver_only: true,
        apply: |options, value| {
            options.webdriver.browser_args = value.list().to_vec();
            Ok(())
        },
        ..Setting::PLAIN
    },
    Setting {
        key: "diagnostics",
        flag: "diagnostics",
        kind: Kind::Choice {
            names: Diagnostics::NAMES,
            flag_aliases: &[("on_demand", "on-demand"), ("on_start", "on-start")],
        },
        value_name: "WHEN",
        help: "When console and network tracking starts: on_demand (the first browser_diagnose of a tab) \
               or on_start (every tab from its creation, so the first browser_diagnose holds the page \
               load's errors) [default: on_demand]",
        doc: "`\"on_start\"`: console and network tracking for every tab from its creation",
        default: "`\"on_demand\"`",
        example: "\"on_demand\"",
        example_is_default: true,
        apply: |options, value| {
            options.webdriver.diagnostics = choice("diagnostics", value)?;
            Ok(())
        },
        ..Setting::PLAIN
    },
];

// ----- clap ------------------------------------------------------------------------------------

impl Setting {
    /// The flag's clap argument (its id is [`Self::flag`]).
    pub fn arg(&'static self) -> Arg {
        let mut arg = Arg::new(self.flag).long(self.flag).help(self.help);
        for alias in self.aliases {
            arg = arg.visible_alias(*alias);
        }
        for other in self.conflicts_with {
            arg = arg.conflicts_with(*other);
        }
        for other in self.requires {
            arg = arg.requires(*other);
        }
        match self.kind {
            Kind::Switch { .. } => arg.action(ArgAction::SetTrue),
            Kind::List { delimiter, hyphen_values } => {
                let arg = arg
                    .action(ArgAction::Append)
                    .value_name(self.value_name)
                    .allow_hyphen_values(hyphen_values)
                    .value_parser(self.value_parser());
                match delimiter {
                    Some(delimiter) => arg.value_delimiter(delimiter),
                    None => arg,
                }
            }
            Kind::Choice { .. } | Kind::Text { .. } | Kind::Path => {
                arg.action(ArgAction::Set).value_name(self.value_name).value_parser(self.value_parser())
            }
        }
    }

    /// How clap reads one value of the flag: a choice by its names (and the flag's aliases,
    /// read as the name), a text the entry's check accepts (a secret one unchecked, so clap
    /// never repeats it: it is checked without being repeated when the options resolve), any
    /// other string.
    pub fn value_parser(&'static self) -> ValueParser {
        match self.kind {
            Kind::Choice { names, flag_aliases } => {
                let values = names.iter().map(|name| {
                    flag_aliases
                        .iter()
                        .filter(|(of, _)| of == name)
                        .fold(PossibleValue::new(*name), |value, (_, alias)| value.alias(*alias))
                });
                let canonical = move |given: String| {
                    flag_aliases
                        .iter()
                        .find(|(_, alias)| *alias == given)
                        .map_or(given, |(name, _)| (*name).to_owned())
                };
                ValueParser::new(PossibleValuesParser::new(values).map(canonical))
            }
            Kind::Text { check } if !self.secret => {
                ValueParser::new(move |text: &str| check(text).map(|()| text.to_owned()))
            }
            _ => ValueParser::string(),
        }
    }

    /// The value the flag gives in `matches`, if given.
    fn given_in(&self, matches: &ArgMatches) -> Option<Value> {
        match self.kind {
            Kind::Switch { flag_sets } => {
                let given = matches.try_get_one::<bool>(self.flag).ok().flatten().copied().unwrap_or(false);
                given.then_some(Value::Switch(flag_sets))
            }
            Kind::List { .. } => {
                let list: Vec<String> = matches.try_get_many::<String>(self.flag).ok()??.cloned().collect();
                (!list.is_empty()).then_some(Value::List(list))
            }
            Kind::Choice { .. } | Kind::Text { .. } | Kind::Path => {
                matches.try_get_one::<String>(self.flag).ok()?.cloned().map(Value::Text)
            }
        }
    }

    /// The clap value parser of `key`'s flag (for a command that takes one setting alone,
    /// such as `policy explain --startup`).
    pub fn parser_of(key: &str) -> ValueParser {
        setting(key).map_or_else(ValueParser::string, Setting::value_parser)
    }
}

/// `command` with every browser flag.
pub fn augment(command: clap::Command) -> clap::Command {
    SETTINGS.iter().fold(command, |command, setting| command.arg(setting.arg()))
}

/// The settings the browser flags give in `matches`.
pub fn given_in(matches: &ArgMatches) -> Given {
    let mut given = Given::default();
    for (index, setting) in SETTINGS.iter().enumerate() {
        if let Some(value) = setting.given_in(matches) {
            given.0.insert(index, value);
        }
    }
    given
}

// ----- the file --------------------------------------------------------------------------------

/// Reads a `[browser]` table: each key must be an entry's (else serde's unknown-field error,
/// listing [`KEYS`], which `config` turns into a "did you mean"), each value of the entry's
/// kind and accepted by its check (errors are located at the key or the value).
pub(crate) struct SectionVisitor;

impl<'de> serde::de::Visitor<'de> for SectionVisitor {
    type Value = Given;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the [browser] table")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Given, A::Error> {
        let mut given = Given::default();
        while let Some(index) = map.next_key_seed(KeySeed)? {
            let Some(setting) = SETTINGS.get(index) else { continue };
            if given.0.contains_key(&index) {
                return Err(serde::de::Error::duplicate_field(setting.key));
            }
            let value = map.next_value_seed(ValueSeed(setting))?;
            given.0.insert(index, value);
        }
        Ok(given)
    }
}

/// A `[browser]` key, as its entry's position.
struct KeySeed;

impl<'de> serde::de::DeserializeSeed<'de> for KeySeed {
    type Value = usize;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        let key = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
        index(&key).ok_or_else(|| serde::de::Error::unknown_field(&key, &KEYS))
    }
}

/// A `[browser]` value of one entry.
struct ValueSeed(&'static Setting);

impl<'de> serde::de::DeserializeSeed<'de> for ValueSeed {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        use serde::Deserialize;
        use serde::de::Error;
        match self.0.kind {
            Kind::Switch { .. } => Ok(Value::Switch(bool::deserialize(deserializer)?)),
            Kind::List { .. } => Ok(Value::List(Vec::<String>::deserialize(deserializer)?)),
            Kind::Choice { names, .. } => {
                let text = String::deserialize(deserializer)?;
                if names.contains(&text.as_str()) {
                    return Ok(Value::Text(text));
                }
                let given: String = text.chars().take(40).collect();
                let expected = names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ");
                Err(D::Error::custom(format!("unknown variant `{given}`, expected one of {expected}")))
            }
            Kind::Text { check } => {
                let text = String::deserialize(deserializer)?;
                check(&text).map_err(D::Error::custom)?;
                Ok(Value::Text(text))
            }
            Kind::Path => {
                let path = PathBuf::deserialize(deserializer)?;
                if !path.is_absolute() {
                    return Err(D::Error::custom(format!(
                        "expected an absolute path, got {:?}",
                        path.display().to_string().chars().take(200).collect::<String>()
                    )));
                }
                Ok(Value::Text(path.display().to_string()))
            }
        }
    }
}

// ----- documentation ---------------------------------------------------------------------------

/// The column (from 0) `config init`'s comments start at.
const INIT_COMMENT_COLUMN: usize = 29;
/// The width `config init`'s lines are wrapped at.
const INIT_WIDTH: usize = 100;

/// `text` without its Markdown: backticks dropped, a parenthesized link within README
/// (`` ([below](#anchor)) ``) dropped, other links reduced to their text.
fn plain(text: &str) -> String {
    let mut text = text.to_owned();
    while let Some(start) = text.find(" ([") {
        let end = text[start..].find("))").filter(|end| text[start..start + end].contains("](#"));
        let Some(end) = end else { break };
        text.replace_range(start..start + end + 2, "");
    }
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find('[') {
        let link = rest[start..].find("](").and_then(|middle| {
            let end = rest[start + middle..].find(')')?;
            Some((start + middle, start + middle + end))
        });
        match link {
            Some((middle, end)) if !rest[start + 1..middle].contains(['[', ']']) => {
                out.push_str(&rest[..start]);
                out.push_str(&rest[start + 1..middle]);
                rest = &rest[end + 1..];
            }
            _ => {
                out.push_str(&rest[..=start]);
                rest = &rest[start + 1..];
            }
        }
    }
    out.push_str(rest);
    out.replace('`', "")
}

/// The `[browser]` section of the file `ghostlight config init` writes: every key commented
/// out with its default (or an example, for a key without one) and what it means.
pub fn init_section() -> String {
    let mut out = String::from("[browser]\n");
    for setting in SETTINGS {
        let assignment = format!("# {} = {}", setting.key, setting.example);
        let mut line = format!("{assignment:<width$}", width = INIT_COMMENT_COLUMN - 1);
        let mut words = plain(setting.doc);
        if !setting.example_is_default {
            words = format!("{words} [default: {}]", plain(setting.default));
        }
        let mut first = true;
        for word in words.split(' ') {
            let start = if first { " # " } else { " " };
            if !first && line.len() + 1 + word.len() > INIT_WIDTH {
                out.push_str(&line);
                out.push('\n');
                line = format!("#{:<width$}#", "", width = INIT_COMMENT_COLUMN - 1);
            }
            line.push_str(start);
            line.push_str(word);
            first = false;
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The flag as README names it: `` flag `--flag` (alias `--other`) ``, with how a list is
/// given.
fn flag_reference(setting: &Setting) -> String {
    let mut text = format!("flag `--{}`", setting.flag);
    match setting.kind {
        Kind::List { delimiter: Some(delimiter), .. } => {
            text = format!("flag `--{} A{delimiter}B`, repeatable", setting.flag);
        }
        Kind::List { hyphen_values: true, .. } => {
            text = format!("flag `--{}=--lang=de`, repeatable", setting.flag);
        }
        _ => {}
    }
    let aliases: Vec<String> = setting.aliases.iter().map(|alias| format!("`--{alias}`")).collect();
    if !aliases.is_empty() {
        text.push_str(&format!(" (alias {})", aliases.join(", ")));
    }
    text
}

/// README's rows of the `[browser]` keys in the configuration table, one a line.
pub fn readme_rows() -> String {
    SETTINGS
        .iter()
        .map(|setting| {
            format!(
                "| `[browser] {}` | {} | {}; {} |\n",
                setting.key,
                setting.default,
                setting.doc,
                flag_reference(setting)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests;
