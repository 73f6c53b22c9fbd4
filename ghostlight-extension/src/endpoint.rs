//! Where the server and the native host meet: a Unix socket in a per-user directory, and the
//! file holding the per-installation secret.
//!
//! - Socket directory: `$GHOSTLIGHT_SOCKET_DIR`, else `$XDG_RUNTIME_DIR/ghostlight`, else
//!   `~/.ghostlight/run`. Owned by the user, mode 0700; the socket in it (`ghostlight.sock`)
//!   is 0600.
//! - Secret: `$GHOSTLIGHT_SECRET_FILE`, else `$XDG_CONFIG_HOME/ghostlight/native-host.secret`,
//!   else `~/.config/ghostlight/native-host.secret`. Owned by the user, mode 0600.
//!
//! The browser starts the host with its own environment, so both paths travel from the
//! browser's launch to the host.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The variable naming the socket directory.
pub const SOCKET_DIR_VAR: &str = "GHOSTLIGHT_SOCKET_DIR";
/// The variable naming the secret file.
pub const SECRET_FILE_VAR: &str = "GHOSTLIGHT_SECRET_FILE";
/// The socket's file name in its directory.
pub const SOCKET_NAME: &str = "ghostlight.sock";

/// Why the meeting place cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum EndpointError {
    /// Neither the variable nor a home directory says where.
    #[error("no {0} location: set the variable, XDG_RUNTIME_DIR/XDG_CONFIG_HOME or HOME")]
    NoLocation(&'static str),
    /// A path another user owns, or that others may read or write.
    #[error("{path} is not private to this user (owner {owner}, mode {mode:o})")]
    NotPrivate {
        /// The path.
        path: PathBuf,
        /// Its owner's uid.
        owner: u32,
        /// Its permission bits.
        mode: u32,
    },
    /// A path of the wrong kind (a file where a directory belongs, a link).
    #[error("{0} is not what it should be (a directory, a regular file)")]
    WrongKind(PathBuf),
    /// Reading or creating it failed.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
}

impl EndpointError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        EndpointError::Io { path: path.to_path_buf(), source }
    }
}

/// The environment's value of `name` when set and not empty.
fn var(name: &str) -> Option<PathBuf> {
    std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// The socket directory this environment names.
pub fn socket_dir_from_env() -> Result<PathBuf, EndpointError> {
    var(SOCKET_DIR_VAR)
        .or_else(|| var("XDG_RUNTIME_DIR").map(|d| d.join("ghostlight")))
        .or_else(|| var("HOME").map(|h| h.join(".ghostlight").join("run")))
        .ok_or(EndpointError::NoLocation("socket"))
}

/// The secret file this environment names.
pub fn secret_file_from_env() -> Result<PathBuf, EndpointError> {
    var(SECRET_FILE_VAR)
        .or_else(|| var("XDG_CONFIG_HOME").map(|d| d.join("ghostlight").join("native-host.secret")))
        .or_else(|| var("HOME").map(|h| h.join(".config").join("ghostlight").join("native-host.secret")))
        .ok_or(EndpointError::NoLocation("secret"))
}

/// The effective uid of this process.
pub(crate) fn own_uid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// Create `dir` (and its parents) when missing, make it 0700, and check that it is a real
/// directory this user owns that nobody else may enter (the server's side).
pub fn prepare_private_dir(dir: &Path) -> Result<(), EndpointError> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| EndpointError::io(dir, e))?;
    let meta = std::fs::symlink_metadata(dir).map_err(|e| EndpointError::io(dir, e))?;
    if !meta.is_dir() {
        return Err(EndpointError::WrongKind(dir.to_path_buf()));
    }
    if meta.uid() == own_uid() && meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| EndpointError::io(dir, e))?;
    }
    check_private(dir, true)
}

/// Check that `path` is this user's, of the right kind (a directory when `dir`, else a regular
/// file; never a link) and closed to group and others.
pub fn check_private(path: &Path, dir: bool) -> Result<(), EndpointError> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| EndpointError::io(path, e))?;
    let kind_ok = if dir { meta.is_dir() } else { meta.is_file() };
    if !kind_ok {
        return Err(EndpointError::WrongKind(path.to_path_buf()));
    }
    let mode = meta.mode() & 0o7777;
    if meta.uid() != own_uid() || mode & 0o077 != 0 {
        return Err(EndpointError::NotPrivate { path: path.to_path_buf(), owner: meta.uid(), mode });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_dir_is_created_0700_and_tightened() {
        let root = tempfile::tempdir().expect("a temp dir");
        let dir = root.path().join("a/b");
        prepare_private_dir(&dir).expect("prepared");
        let mode = std::fs::metadata(&dir).expect("meta").mode() & 0o777;
        assert_eq!(mode, 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        assert!(matches!(check_private(&dir, true), Err(EndpointError::NotPrivate { .. })));
        prepare_private_dir(&dir).expect("tightened");
        assert!(check_private(&dir, true).is_ok());
    }

    #[test]
    fn links_and_files_are_not_directories() {
        let root = tempfile::tempdir().expect("a temp dir");
        let file = root.path().join("file");
        std::fs::write(&file, b"x").expect("write");
        assert!(matches!(
            prepare_private_dir(&file),
            Err(EndpointError::Io { .. } | EndpointError::WrongKind(_))
        ));
        let real = root.path().join("real");
        prepare_private_dir(&real).expect("prepared");
        let link = root.path().join("link");
        std::os::unix::fs::symlink(&real, &link).expect("link");
        assert!(matches!(check_private(&link, true), Err(EndpointError::WrongKind(_))));
    }
}
