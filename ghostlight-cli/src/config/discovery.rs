//! Where configuration files are looked for, and reading the ones that apply (see the parent
//! module's documentation).

use std::path::{Path, PathBuf};

use ghostlight_core::OrganizationSettings;

use super::{ConfigFile, read_toml};
use crate::error::ConfigError;

/// The organization file, looked for when [`ConfigSources::discover`] runs.
pub const ORGANIZATION_PATH: &str = "/etc/ghostlight/organization.toml";

/// The environment variable naming the user configuration file (`--config` wins over it).
pub const CONFIG_ENV: &str = "GHOSTLIGHT_CONFIG";

/// Read and parse an organization settings file (`[organization]`, `[ceilings]` and the
/// authority sections; unknown keys refused).
pub fn load_organization(path: &Path) -> Result<OrganizationSettings, ConfigError> {
    read_toml(path)
}

/// The default user configuration file: `$XDG_CONFIG_HOME/ghostlight/config.toml` when that
/// variable holds an absolute path, else `$HOME/.config/ghostlight/config.toml`.
pub fn default_user_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(base.join("ghostlight").join("config.toml"))
}

/// Which configuration files apply.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConfigSources {
    /// The user file, and whether it was named explicitly (`--config`, `$GHOSTLIGHT_CONFIG`):
    /// an explicit file must exist, the default one is skipped when absent.
    pub user: Option<(PathBuf, bool)>,
    /// The organization file, skipped when absent.
    pub organization: Option<PathBuf>,
}

/// The configuration files read, parsed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadedConfig {
    /// The user file and its path, when one applied.
    pub user: Option<(PathBuf, ConfigFile)>,
    /// The organization file and its path, when one applied.
    pub organization: Option<(PathBuf, OrganizationSettings)>,
}

impl ConfigSources {
    /// The files that apply: `explicit` (the `--config` flag, which clap also fills from
    /// `$GHOSTLIGHT_CONFIG`), else the default user file; and [`ORGANIZATION_PATH`].
    pub fn discover(explicit: Option<&Path>) -> ConfigSources {
        let user = match explicit {
            Some(path) => Some((path.to_owned(), true)),
            None => match std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty()) {
                Some(path) => Some((PathBuf::from(path), true)),
                None => default_user_path().map(|p| (p, false)),
            },
        };
        ConfigSources { user, organization: Some(PathBuf::from(ORGANIZATION_PATH)) }
    }

    /// Read and parse the files that exist (an explicit user file must). A file is skipped
    /// only when it is certainly absent: one that exists but cannot be read (permissions, a
    /// folder in its place, an unreadable parent) is an error naming it, so an organization's
    /// ceilings never vanish silently (fail closed).
    pub fn load(&self) -> Result<LoadedConfig, ConfigError> {
        let user = match &self.user {
            Some((path, explicit)) if *explicit || present(path)? => {
                Some((path.clone(), ConfigFile::load(path)?))
            }
            _ => None,
        };
        let organization = match &self.organization {
            Some(path) if present(path)? => Some((path.clone(), load_organization(path)?)),
            _ => None,
        };
        Ok(LoadedConfig { user, organization })
    }
}

/// Whether a configuration file is there to read: `false` only when it does not exist; any
/// other failure to look (permission denied on the file or a parent) is an error.
fn present(path: &Path) -> Result<bool, ConfigError> {
    match std::fs::metadata(path) {
        Ok(_) => Ok(true),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(source) => Err(ConfigError::Read { path: path.to_owned(), source }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_organization_file_that_cannot_be_read_fails_closed() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        // Absent: skipped.
        let absent = ConfigSources { user: None, organization: Some(dir.path().join("organization.toml")) };
        assert_eq!(absent.load().expect("absent is fine").organization, None);
        // There but unreadable (a folder in its place reads as an error even for root).
        let folder = dir.path().join("folder.toml");
        std::fs::create_dir(&folder).expect("a folder");
        let unreadable = ConfigSources { user: None, organization: Some(folder.clone()) };
        let error = unreadable.load().expect_err("an unreadable organization file refuses");
        assert!(matches!(&error, ConfigError::Read { path, .. } if path == &folder), "{error}");
        assert!(error.to_string().contains("folder.toml"), "names the file: {error}");
        // A parent that cannot be searched (not as root: root searches anything).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let locked = dir.path().join("locked");
            std::fs::create_dir(&locked).expect("a folder");
            std::fs::write(locked.join("organization.toml"), "").expect("write");
            std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
            let sources = ConfigSources { user: None, organization: Some(locked.join("organization.toml")) };
            let result = sources.load();
            std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o700)).expect("chmod back");
            if std::fs::metadata(&locked).is_ok() && !is_root() {
                assert!(result.is_err(), "an unsearchable parent refuses");
            }
        }
    }

    /// Whether this process runs as root (which reads through any permission): `/proc/self`
    /// belongs to the process's user.
    #[cfg(unix)]
    fn is_root() -> bool {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata("/proc/self").is_ok_and(|meta| meta.uid() == 0)
    }
}
