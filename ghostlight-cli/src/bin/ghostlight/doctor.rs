//! `ghostlight doctor`: find browsers and drivers, check the configuration, report each
//! browser's registration for the extension connector, optionally open and close a session,
//! and say exactly what to install.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use ghostlight_cli::config::Connector;
use ghostlight_cli::options::BrowserArgs;
use ghostlight_core::{Cancellation, Status};
use ghostlight_webdriver::{DriverSource, Engine, Sandbox};
use serde_json::json;

use crate::error::CliError;

/// A program doctor looks for: where it is looked for, and how to install it.
struct Program {
    role: &'static str,
    search: Search,
    install: &'static str,
}

/// How a program is found.
enum Search {
    /// The first of these names on `PATH`.
    Path(&'static [&'static str]),
    /// Where chromedriver finds its browser when none is configured (Ghostlight configures
    /// none): [`chromedriver_browser`].
    Chromedriver,
}

const CHROMIUM: Program = Program {
    role: "chromium",
    search: Search::Chromedriver,
    install: "sudo apt-get install chromium chromium-driver",
};
const CHROMEDRIVER: Program = Program {
    role: "chromedriver",
    search: Search::Path(&["chromedriver"]),
    install: "sudo apt-get install chromium-driver",
};
const FIREFOX: Program = Program {
    role: "firefox",
    search: Search::Path(&["firefox-esr", "firefox"]),
    install: "sudo apt-get install firefox-esr",
};
const GECKODRIVER: Program = Program {
    role: "geckodriver",
    search: Search::Path(&["geckodriver"]),
    install: "cargo install geckodriver --locked",
};

/// The browser names chromedriver tries, in order (its `chrome_finder.cc` on Linux).
const CHROMEDRIVER_NAMES: [&str; 4] = ["chrome", "google-chrome", "chromium", "chromium-browser"];

/// The directories chromedriver searches before `PATH` (its `chrome_finder.cc` on Linux).
const CHROMEDRIVER_DIRS: [&str; 8] = [
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
    "/opt/google/chrome",
    "/opt/chromium.org/chromium",
];

/// The browser chromedriver (the one on `PATH`) starts when it is given no binary, found the
/// way chromedriver finds it: each name of [`CHROMEDRIVER_NAMES`] first in chromedriver's own
/// directory (symbolic links resolved, as Debian's `/usr/bin/chromedriver` →
/// `/usr/lib/chromium/`), then in each of [`CHROMEDRIVER_DIRS`] and `PATH`. So a Chromium
/// that is not on `PATH` is found where chromedriver finds it.
fn chromedriver_browser() -> Option<PathBuf> {
    let own_dir = find("chromedriver")
        .and_then(|driver| std::fs::canonicalize(driver).ok())
        .and_then(|driver| driver.parent().map(Path::to_path_buf));
    if let Some(dir) = &own_dir
        && let Some(found) = CHROMEDRIVER_NAMES.iter().map(|name| dir.join(name)).find(|p| is_executable(p))
    {
        return Some(found);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = CHROMEDRIVER_DIRS
        .iter()
        .map(PathBuf::from)
        .chain(std::env::split_paths(&path).filter(|dir| !dir.as_os_str().is_empty()))
        .collect();
    CHROMEDRIVER_NAMES
        .iter()
        .flat_map(|name| dirs.iter().map(move |dir| dir.join(name)))
        .find(|candidate| is_executable(candidate))
}

/// The first `name` found on `PATH`.
fn find(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| is_executable(candidate))
}

/// Whether `program`'s directory is on `PATH`.
fn on_path(program: &Path) -> bool {
    let Some(path) = std::env::var_os("PATH") else { return false };
    program.parent().is_some_and(|dir| std::env::split_paths(&path).any(|entry| entry == dir))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// The first line of `program --version`.
fn version(program: &Path) -> Option<String> {
    let output =
        Command::new(program).arg("--version").stdin(Stdio::null()).stderr(Stdio::null()).output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines().next().map(|line| line.trim().to_owned()).filter(|line| !line.is_empty())
}

/// Report one program; whether it was found.
fn report(
    out: &mut impl std::io::Write,
    program: &Program,
    missing: &mut Vec<&'static str>,
) -> std::io::Result<bool> {
    let found = match program.search {
        Search::Path(names) => names.iter().find_map(|name| find(name)),
        Search::Chromedriver => chromedriver_browser(),
    };
    if let Some(path) = found {
        let version = version(&path).unwrap_or_else(|| "version unknown".into());
        // Chromedriver finds the browser binary itself; a distribution's `chromium` on PATH is
        // often a wrapper script that runs it.
        let wrapper = ["chromium", "chromium-browser", "google-chrome"].iter().find_map(|name| find(name));
        let note = match (&program.search, wrapper) {
            (Search::Chromedriver, _) if on_path(&path) => String::new(),
            (Search::Chromedriver, Some(wrapper)) => {
                format!(", the binary chromedriver starts; {} on PATH runs it", wrapper.display())
            }
            (Search::Chromedriver, None) => ", not on PATH: where chromedriver finds it".to_owned(),
            _ => String::new(),
        };
        writeln!(out, "found   {:<13} {} ({version}{note})", program.role, path.display())?;
        return Ok(true);
    }
    writeln!(out, "missing {:<13} install: {}", program.role, program.install)?;
    missing.push(program.install);
    Ok(false)
}

/// Report a configured executable (`browser_path`, `driver_path`); whether it is one.
fn configured(out: &mut impl std::io::Write, key: &str, path: &Path) -> std::io::Result<bool> {
    if is_executable(path) {
        let version = version(path).unwrap_or_else(|| "version unknown".into());
        writeln!(out, "found   {key:<13} {} ({version}; configured)", path.display())?;
        Ok(true)
    } else {
        writeln!(out, "missing {key:<13} {} is not an executable file (configured)", path.display())?;
        Ok(false)
    }
}

/// Run the checks. Exit 0 when the configured engine's browser and driver were found (and the
/// probe, if asked, succeeded); 1 otherwise; 2 when the configuration is invalid.
pub(crate) fn run(probe: bool, browser: &BrowserArgs) -> Result<ExitCode, CliError> {
    let mut out = std::io::stdout().lock();
    let mut missing = Vec::new();
    let chromium = report(&mut out, &CHROMIUM, &mut missing)?;
    let chromedriver = report(&mut out, &CHROMEDRIVER, &mut missing)?;
    let mut firefox_missing = Vec::new();
    let firefox = report(&mut out, &FIREFOX, &mut firefox_missing)?;
    let geckodriver = report(&mut out, &GECKODRIVER, &mut firefox_missing)?;

    let resolved = browser.resolve().and_then(|options| {
        ghostlight_cli::browser::checked_config(&options.browser)?;
        Ok(options)
    });
    let options = match resolved {
        Ok(options) => {
            match crate::commands::check_user_file(browser.config.as_deref()) {
                Ok(Some(path)) => writeln!(out, "config  ok: {}", path.display())?,
                Ok(None) => writeln!(out, "config  no user file (defaults apply)")?,
                Err(error) => writeln!(out, "config  {error}")?,
            }
            options
        }
        Err(error) => {
            writeln!(out, "config  {error}")?;
            writeln!(out, "Fix the configuration (see `ghostlight config check`).")?;
            return Ok(ExitCode::from(2));
        }
    };
    let extension_ready = extension_report(&mut out)?;
    if options.browser.connector == Connector::Extension {
        writeln!(
            out,
            "connector extension (configured): your own browser, through the Ghostlight extension"
        )?;
        if !extension_ready {
            writeln!(
                out,
                "Not ready: run `ghostlight install`, then load the extension (see the lines above)."
            )?;
            return Ok(ExitCode::FAILURE);
        }
        if probe && !probe_session(&mut out, &options, "extension")? {
            return Ok(ExitCode::FAILURE);
        }
        writeln!(out, "Ready.")?;
        return Ok(ExitCode::SUCCESS);
    }
    let config = &options.browser.webdriver;
    let engine = config.engine;
    let (connect, browser_path, driver_path) = match &config.driver {
        DriverSource::Connect(_) => (true, None, None),
        DriverSource::Launch { driver_path, browser_path } => {
            (false, browser_path.as_ref(), driver_path.as_ref())
        }
    };
    // A configured executable replaces the one found on PATH.
    let browser_ok = match browser_path {
        Some(path) => configured(&mut out, "browser_path", path)?,
        None => match engine {
            Engine::Chromium => chromium,
            Engine::Firefox => firefox,
        },
    };
    let driver_ok = match driver_path {
        Some(path) => configured(&mut out, "driver_path", path)?,
        None => match engine {
            Engine::Chromium => chromedriver,
            Engine::Firefox => geckodriver,
        },
    };
    let mut ready = browser_ok && (driver_ok || connect);
    writeln!(out, "browser {engine} (configured), headless: {}", config.headless)?;
    if let Some(profile) = &config.profile {
        match ghostlight_webdriver::check_profile(profile) {
            Ok(()) => writeln!(out, "profile {} (persistent; free)", profile.display())?,
            Err(error) => {
                writeln!(out, "profile {error}")?;
                ready = false;
            }
        }
    }
    if engine == Engine::Chromium {
        let sandbox = config.sandbox;
        let why = match (sandbox, sandbox.disabled()) {
            (Sandbox::Auto, true) => "off: this process runs as root, where Chromium refuses its sandbox",
            (Sandbox::Auto, false) => "on",
            (Sandbox::On, _) => "on (configured)",
            (Sandbox::Off, _) => "off (configured)",
        };
        writeln!(out, "sandbox {why}")?;
    }
    let needed: Vec<&str> = match engine {
        Engine::Chromium => missing.clone(),
        Engine::Firefox => firefox_missing.clone(),
    };
    if !ready && needed.is_empty() {
        writeln!(out, "Not ready: see the lines above.")?;
        return Ok(ExitCode::FAILURE);
    }
    if !ready {
        writeln!(out, "Not ready. Install what is missing:")?;
        let mut seen = Vec::new();
        for command in needed {
            if !seen.contains(&command) {
                writeln!(out, "  {command}")?;
                seen.push(command);
            }
        }
        return Ok(ExitCode::FAILURE);
    }
    if probe && !probe_session(&mut out, &options, engine.as_str())? {
        return Ok(ExitCode::FAILURE);
    }
    writeln!(out, "Ready.")?;
    Ok(ExitCode::SUCCESS)
}

/// Open the configured browser, list its tabs and close it (the person's browser stays open);
/// whether that succeeded.
fn probe_session(
    out: &mut impl std::io::Write,
    options: &ghostlight_cli::options::ServeOptions,
    what: &str,
) -> Result<bool, CliError> {
    out.flush()?;
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(CliError::Runtime)?;
    let (port, ghostlight) = {
        let _entered = runtime.enter();
        ghostlight_cli::browser::ghostlight(options)?
    };
    let result = runtime.block_on(async {
        port.settle().await;
        let result =
            ghostlight.invoke("browser_tabs", &json!({"action": "list"}), &Cancellation::never()).await;
        port.shutdown().await;
        result
    });
    runtime.shutdown_timeout(ghostlight_cli::serve::RUNTIME_SHUTDOWN);
    let envelope = result.map_err(|e| CliError::Usage(e.to_string()))?.envelope;
    if envelope.status == Status::Succeeded {
        writeln!(out, "probe   ok: opened and closed a {what} session")?;
        Ok(true)
    } else {
        writeln!(out, "probe   failed: {}", envelope.summary)?;
        Ok(false)
    }
}

/// The extension connector's lines: the native host beside this executable, each installed
/// browser's registration, the extension's files. Whether a browser could connect (the host
/// is there and some browser is registered by this installation).
#[cfg(feature = "extension")]
fn extension_report(out: &mut impl std::io::Write) -> std::io::Result<bool> {
    use ghostlight_extension::registration::{Installation, RegistrationState};

    let (installation, places) = match Installation::current_with_places() {
        Ok(both) => both,
        Err(error) => return writeln!(out, "extension cannot check: {error}").map(|()| false),
    };
    let host = installation.host();
    let has_host = installation.has_host();
    if has_host {
        writeln!(out, "found   native-host   {}", host.display())?;
    } else {
        writeln!(
            out,
            "missing native-host   {} (install ghostlight-native-host beside ghostlight)",
            host.display()
        )?;
    }
    let installed = places.installed();
    if installed.is_empty() {
        writeln!(out, "extension no Chromium, Chrome or Firefox on PATH to register with")?;
    }
    let mut registered = false;
    for browser in installed {
        let registration = installation.inspect(browser, &places);
        registered |= matches!(registration.state, RegistrationState::Ours | RegistrationState::Stale);
        writeln!(
            out,
            "extension {}: {} ({})",
            browser.name(),
            registration.state.describe(),
            registration.path.display()
        )?;
    }
    let dir = places.extension_dir();
    if ghostlight_extension::bundle::differing(&dir).is_empty() {
        writeln!(out, "extension files in place: {}", dir.display())?;
    } else {
        writeln!(
            out,
            "extension files missing or outdated: {} (`ghostlight install` places them)",
            dir.display()
        )?;
    }
    Ok(has_host && registered)
}

/// Without the extension connector there is nothing to report.
#[cfg(not(feature = "extension"))]
fn extension_report(_out: &mut impl std::io::Write) -> std::io::Result<bool> {
    Ok(false)
}
