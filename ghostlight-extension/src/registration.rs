//! The native host's registration with each browser: the per-user host manifests
//! (`ghostlight.native_host.json`) that let the extension start `ghostlight-native-host`, and
//! which Ghostlight installation owns them.
//!
//! An installation is the directory holding the `ghostlight` executable; its native host is
//! `ghostlight-native-host` beside it. A manifest belongs to the installation whose directory
//! holds the host its `path` names, so a registration is one of:
//!
//! - [`RegistrationState::Ours`]: exactly what this installation writes;
//! - [`RegistrationState::Stale`]: it names a host in this installation's directory, but its
//!   details differ (an older copy, a renamed or removed host): repaired silently;
//! - [`RegistrationState::Elsewhere`]: it names a host of another installation that exists;
//!   only `ghostlight install` changes it;
//! - [`RegistrationState::Unusable`]: unreadable, or naming a host outside this directory that
//!   no longer exists;
//! - [`RegistrationState::Missing`].
//!
//! Locations (per user; Chromium and Chrome follow `XDG_CONFIG_HOME`, Firefox does not):
//! `$XDG_CONFIG_HOME/chromium/NativeMessagingHosts/`,
//! `$XDG_CONFIG_HOME/google-chrome/NativeMessagingHosts/`, `~/.mozilla/native-messaging-hosts/`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::identity::{CHROMIUM_ORIGIN, GECKO_ID, NATIVE_HOST_NAME};

/// The native host's executable name, beside the `ghostlight` executable.
pub const HOST_BINARY: &str = "ghostlight-native-host";

/// Why a registration cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum RegistrationError {
    /// Neither `HOME` nor the XDG variables say where the user's files are.
    #[error("no home directory: set HOME")]
    NoHome,
    /// The running executable's path is unknown.
    #[error("cannot locate this executable: {0}")]
    NoExecutable(std::io::Error),
    /// Reading, writing or removing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> RegistrationError + '_ {
    move |source| RegistrationError::Io { path: path.to_path_buf(), source }
}

/// A browser the extension runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BrowserKind {
    /// Chromium.
    Chromium,
    /// Google Chrome.
    Chrome,
    /// Firefox.
    Firefox,
}

impl BrowserKind {
    /// Every supported browser, in the order they are reported.
    pub const ALL: [BrowserKind; 3] = [BrowserKind::Chromium, BrowserKind::Chrome, BrowserKind::Firefox];

    /// The display name (`Chromium`, `Chrome`, `Firefox`).
    pub const fn name(self) -> &'static str {
        match self {
            BrowserKind::Chromium => "Chromium",
            BrowserKind::Chrome => "Chrome",
            BrowserKind::Firefox => "Firefox",
        }
    }

    /// The executables on `PATH` that mean the browser is installed.
    pub const fn executables(self) -> &'static [&'static str] {
        match self {
            BrowserKind::Chromium => &["chromium", "chromium-browser"],
            BrowserKind::Chrome => &["google-chrome", "google-chrome-stable"],
            BrowserKind::Firefox => &["firefox", "firefox-esr"],
        }
    }

    /// Whether the browser is a Chromium (manifests name `allowed_origins`).
    const fn is_chromium(self) -> bool {
        matches!(self, BrowserKind::Chromium | BrowserKind::Chrome)
    }

    /// Where this browser reads the host manifest for this user.
    pub fn manifest_path(self, places: &Places) -> PathBuf {
        let dir = match self {
            BrowserKind::Chromium => places.config_home.join("chromium").join("NativeMessagingHosts"),
            BrowserKind::Chrome => places.config_home.join("google-chrome").join("NativeMessagingHosts"),
            BrowserKind::Firefox => places.home.join(".mozilla").join("native-messaging-hosts"),
        };
        dir.join(format!("{NATIVE_HOST_NAME}.json"))
    }
}

/// Where the user's files are, and where installed browsers are looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Places {
    /// `HOME`.
    pub home: PathBuf,
    /// `XDG_CONFIG_HOME` (when absolute), else `~/.config`.
    pub config_home: PathBuf,
    /// `XDG_DATA_HOME` (when absolute), else `~/.local/share`.
    pub data_home: PathBuf,
    /// `PATH`, searched for browsers.
    pub search_path: Option<OsString>,
}

impl Places {
    /// The places this process's environment names.
    pub fn from_env() -> Result<Places, RegistrationError> {
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        let home = home.ok_or(RegistrationError::NoHome)?;
        let xdg = |name: &str, default: &[&str]| {
            std::env::var_os(name)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .unwrap_or_else(|| default.iter().fold(home.clone(), |path, part| path.join(part)))
        };
        Ok(Places {
            config_home: xdg("XDG_CONFIG_HOME", &[".config"]),
            data_home: xdg("XDG_DATA_HOME", &[".local", "share"]),
            search_path: std::env::var_os("PATH"),
            home,
        })
    }

    /// The browsers installed for this user: those with an executable on `PATH`.
    pub fn installed(&self) -> Vec<BrowserKind> {
        let dirs: Vec<PathBuf> =
            self.search_path.as_deref().map(std::env::split_paths).into_iter().flatten().collect();
        BrowserKind::ALL
            .into_iter()
            .filter(|browser| {
                browser.executables().iter().any(|name| dirs.iter().any(|dir| is_executable(&dir.join(name))))
            })
            .collect()
    }

    /// Where `ghostlight install` places the extension's files for a person to load.
    pub fn extension_dir(&self) -> PathBuf {
        self.data_home.join("ghostlight").join("extension")
    }
}

/// Whether `path` is an executable regular file (links followed).
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A registration's state for one installation (see the module's documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistrationState {
    /// No manifest.
    Missing,
    /// Exactly this installation's manifest.
    Ours,
    /// This installation's, with stale details.
    Stale,
    /// Another installation's, whose host exists.
    Elsewhere {
        /// The host it names.
        host: PathBuf,
    },
    /// A manifest that cannot serve: unreadable, or naming a host that no longer exists
    /// outside this installation's directory.
    Unusable {
        /// Why, in a few words.
        why: &'static str,
    },
}

impl RegistrationState {
    /// A few words for `doctor` and `install`.
    pub fn describe(&self) -> String {
        match self {
            RegistrationState::Missing => "not registered".to_owned(),
            RegistrationState::Ours => "registered by this installation".to_owned(),
            RegistrationState::Stale => {
                "registered by this installation, stale (repaired on start)".to_owned()
            }
            RegistrationState::Elsewhere { host } => {
                format!("owned by another Ghostlight installation ({})", host.display())
            }
            RegistrationState::Unusable { why } => format!("unusable: {why}"),
        }
    }
}

/// One browser's registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    /// The browser.
    pub browser: BrowserKind,
    /// Its manifest's path.
    pub path: PathBuf,
    /// Its state for the installation that inspected it.
    pub state: RegistrationState,
}

/// A Ghostlight installation: the directory of its executables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installation {
    dir: PathBuf,
}

impl Installation {
    /// The installation of the executable at `exe` (its directory, links resolved).
    pub fn of_executable(exe: &Path) -> Installation {
        let exe = std::fs::canonicalize(exe).unwrap_or_else(|_| exe.to_path_buf());
        let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
        Installation { dir }
    }

    /// The running executable's installation.
    pub fn current() -> Result<Installation, RegistrationError> {
        let exe = std::env::current_exe().map_err(RegistrationError::NoExecutable)?;
        Ok(Installation::of_executable(&exe))
    }

    /// The running executable's installation and the places this environment names.
    pub fn current_with_places() -> Result<(Installation, Places), RegistrationError> {
        Ok((Installation::current()?, Places::from_env()?))
    }

    /// The installation's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Its native host (which may be missing).
    pub fn host(&self) -> PathBuf {
        self.dir.join(HOST_BINARY)
    }

    /// Whether its native host is there to run.
    pub fn has_host(&self) -> bool {
        is_executable(&self.host())
    }

    /// The host manifest this installation registers with `browser`.
    pub fn manifest(&self, browser: BrowserKind) -> Value {
        let mut manifest = json!({
            "name": NATIVE_HOST_NAME,
            "description": format!("Ghostlight native messaging host (installation {})", self.dir.display()),
            "path": self.host(),
            "type": "stdio",
        });
        if browser.is_chromium() {
            manifest["allowed_origins"] = json!([CHROMIUM_ORIGIN]);
        } else {
            manifest["allowed_extensions"] = json!([GECKO_ID]);
        }
        manifest
    }

    /// The manifest's text as written.
    pub fn manifest_text(&self, browser: BrowserKind) -> String {
        let mut text = serde_json::to_string_pretty(&self.manifest(browser)).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Whether `host` lies in this installation's directory.
    fn holds(&self, host: &Path) -> bool {
        let parent = host.parent().unwrap_or(host);
        parent == self.dir || std::fs::canonicalize(parent).is_ok_and(|p| p == self.dir)
    }

    /// `browser`'s registration, as this installation sees it.
    pub fn inspect(&self, browser: BrowserKind, places: &Places) -> Registration {
        let path = browser.manifest_path(places);
        let state = match std::fs::read(&path) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => RegistrationState::Missing,
            Err(_) => RegistrationState::Unusable { why: "the manifest cannot be read" },
            Ok(bytes) => self.classify(browser, &bytes),
        };
        Registration { browser, path, state }
    }

    fn classify(&self, browser: BrowserKind, bytes: &[u8]) -> RegistrationState {
        let Ok(found) = serde_json::from_slice::<Value>(bytes) else {
            return RegistrationState::Unusable { why: "the manifest is not JSON" };
        };
        let Some(host) = found.get("path").and_then(Value::as_str).map(PathBuf::from) else {
            return RegistrationState::Unusable { why: "the manifest names no host" };
        };
        if self.holds(&host) {
            if found == self.manifest(browser) { RegistrationState::Ours } else { RegistrationState::Stale }
        } else if is_executable(&host) {
            RegistrationState::Elsewhere { host }
        } else {
            RegistrationState::Unusable { why: "it names a host that no longer exists" }
        }
    }

    /// Write this installation's manifest for `browser` (its directory created when missing).
    pub fn register(&self, browser: BrowserKind, places: &Places) -> Result<(), RegistrationError> {
        let path = browser.manifest_path(places);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io_error(dir))?;
        }
        std::fs::write(&path, self.manifest_text(browser)).map_err(io_error(&path))
    }

    /// Remove `browser`'s manifest when it is this installation's (current or stale); whether
    /// one was removed.
    pub fn unregister(&self, browser: BrowserKind, places: &Places) -> Result<bool, RegistrationError> {
        let registration = self.inspect(browser, places);
        match registration.state {
            RegistrationState::Ours | RegistrationState::Stale => {
                std::fs::remove_file(&registration.path).map_err(io_error(&registration.path))?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn places(root: &Path) -> Places {
        Places {
            home: root.join("home"),
            config_home: root.join("home/.config"),
            data_home: root.join("home/.local/share"),
            search_path: Some(root.join("bin").into_os_string()),
        }
    }

    fn executable(path: &Path) {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("dir");
        std::fs::write(path, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    #[test]
    fn installed_browsers_are_found_on_the_path() {
        let root = tempfile::tempdir().expect("a temp dir");
        let places = places(root.path());
        assert_eq!(places.installed(), []);
        executable(&root.path().join("bin/firefox-esr"));
        executable(&root.path().join("bin/chromium"));
        assert_eq!(places.installed(), [BrowserKind::Chromium, BrowserKind::Firefox]);
        assert!(places.extension_dir().ends_with(".local/share/ghostlight/extension"));
        assert!(
            BrowserKind::Firefox
                .manifest_path(&places)
                .ends_with(".mozilla/native-messaging-hosts/ghostlight.native_host.json")
        );
    }

    #[test]
    fn states_follow_the_host_the_manifest_names() {
        let root = tempfile::tempdir().expect("a temp dir");
        let places = places(root.path());
        std::fs::create_dir_all(root.path().join("a")).expect("dir");
        let ours = Installation::of_executable(&root.path().join("a/ghostlight"));
        let other = Installation { dir: root.path().join("b") };
        let chromium = BrowserKind::Chromium;
        assert_eq!(ours.inspect(chromium, &places).state, RegistrationState::Missing);
        ours.register(chromium, &places).expect("registered");
        assert_eq!(ours.inspect(chromium, &places).state, RegistrationState::Ours);
        let text = std::fs::read_to_string(chromium.manifest_path(&places)).expect("read");
        assert!(text.contains(CHROMIUM_ORIGIN) && text.contains(HOST_BINARY), "{text}");
        // The other installation's host does not exist: unusable to us, not repaired.
        other.register(chromium, &places).expect("registered");
        assert!(matches!(ours.inspect(chromium, &places).state, RegistrationState::Unusable { .. }));
        executable(&other.host());
        assert!(matches!(ours.inspect(chromium, &places).state, RegistrationState::Elsewhere { .. }));
        assert!(!ours.unregister(chromium, &places).expect("left alone"));
        // An older copy of ours: stale.
        let mut older = ours.manifest(chromium);
        older["description"] = json!("an older Ghostlight");
        std::fs::write(chromium.manifest_path(&places), older.to_string()).expect("write");
        assert_eq!(ours.inspect(chromium, &places).state, RegistrationState::Stale);
        assert!(ours.unregister(chromium, &places).expect("removed"));
        assert_eq!(ours.inspect(chromium, &places).state, RegistrationState::Missing);
        let firefox = BrowserKind::Firefox;
        ours.register(firefox, &places).expect("registered");
        let text = std::fs::read_to_string(firefox.manifest_path(&places)).expect("read");
        assert!(text.contains(GECKO_ID) && !text.contains("allowed_origins"), "{text}");
        std::fs::write(firefox.manifest_path(&places), "{").expect("write");
        assert!(matches!(ours.inspect(firefox, &places).state, RegistrationState::Unusable { .. }));
    }
}
