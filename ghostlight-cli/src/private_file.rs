//! Files Ghostlight writes for the user (the audit file, a session's log, saved images):
//! opened without following a symbolic link, only as a regular file the user owns that
//! nobody else may read or write, created `0600`, and never `chmod`-ed.
//!
//! A directory others can write to (a sticky `/tmp`) lets another user plant a link or a FIFO
//! where such a file will be opened: a link would make the server append to, truncate or
//! change the mode of whatever it points at, and opening a FIFO would block forever. So the
//! open refuses a link (`O_NOFOLLOW`) and does not wait for a FIFO's reader (`O_NONBLOCK`),
//! then checks what it opened: a regular file, owned by this user, with no permission for
//! group or others. An existing file of another mode is refused with a message that says how
//! to fix it, never silently narrowed.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use nix::fcntl::OFlag;

/// The mode of every file created here: the user's alone.
pub const PRIVATE_MODE: u32 = 0o600;

/// Why a file for the user cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PrivateFileError {
    /// The path is a symbolic link (never followed).
    #[error(
        "{} is a symbolic link; Ghostlight does not follow links for files it writes (remove it or choose another path)",
        path.display()
    )]
    Link {
        /// The path.
        path: PathBuf,
    },
    /// The path exists and is not a regular file (a FIFO, a device, a socket, a directory).
    #[error("{} is a {kind}, not a regular file (remove it or choose another path)", path.display())]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is.
        kind: &'static str,
    },
    /// The file belongs to another user.
    #[error("{} belongs to another user (uid {uid}); choose a path of your own", path.display())]
    NotOwned {
        /// The path.
        path: PathBuf,
        /// Its owner.
        uid: u32,
    },
    /// Group or others may read or write the file.
    #[error(
        "{} may be read or written by others (mode {mode:o}); run `chmod 600 {}` or choose another path",
        path.display(),
        path.display()
    )]
    Open {
        /// The path.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The file exists where a new one must be created.
    #[error("{} already exists (remove it or choose another path)", path.display())]
    Exists {
        /// The path.
        path: PathBuf,
    },
    /// Any other failure to open it.
    #[error("cannot open {}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Open `path` to append to it, creating it (`0600`) when missing.
pub fn append(path: &Path) -> Result<File, PrivateFileError> {
    let mut options = OpenOptions::new();
    options.append(true).create(true);
    open_checked(path, &options)
}

/// Open `path` to append to it and read it (the audit file, whose last line the next one
/// chains to), creating it (`0600`) when missing.
pub fn read_append(path: &Path) -> Result<File, PrivateFileError> {
    let mut options = OpenOptions::new();
    options.read(true).append(true).create(true);
    open_checked(path, &options)
}

/// Open `path` to write it from the start (an existing file of the user's is emptied, after
/// the checks), creating it (`0600`) when missing.
pub fn rewrite(path: &Path) -> Result<File, PrivateFileError> {
    let mut options = OpenOptions::new();
    options.write(true).create(true);
    let file = open_checked(path, &options)?;
    file.set_len(0).map_err(|e| PrivateFileError::Io { path: path.to_owned(), source: e })?;
    Ok(file)
}

/// Create `path` (`0600`); an existing path of any kind, a link included, is refused.
pub fn create_new(path: &Path) -> Result<File, PrivateFileError> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true).mode(PRIVATE_MODE);
    options.open(path).map_err(|error| match error.kind() {
        std::io::ErrorKind::AlreadyExists => PrivateFileError::Exists { path: path.to_owned() },
        _ => PrivateFileError::Io { path: path.to_owned(), source: error },
    })
}

/// Open with `options` plus `O_NOFOLLOW | O_NONBLOCK` and mode `0600`, then check the file.
fn open_checked(path: &Path, options: &OpenOptions) -> Result<File, PrivateFileError> {
    let mut options = options.clone();
    options.mode(PRIVATE_MODE).custom_flags((OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK).bits());
    let file = options.open(path).map_err(|error| refused(path, error))?;
    let metadata = file.metadata().map_err(|e| PrivateFileError::Io { path: path.to_owned(), source: e })?;
    let kind = metadata.file_type();
    if !kind.is_file() {
        let what = if kind.is_fifo() {
            "FIFO"
        } else if kind.is_char_device() || kind.is_block_device() {
            "device"
        } else if kind.is_socket() {
            "socket"
        } else {
            "directory"
        };
        return Err(PrivateFileError::NotRegular { path: path.to_owned(), kind: what });
    }
    let me = nix::unistd::geteuid().as_raw();
    if metadata.uid() != me {
        return Err(PrivateFileError::NotOwned { path: path.to_owned(), uid: metadata.uid() });
    }
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(PrivateFileError::Open { path: path.to_owned(), mode });
    }
    Ok(file)
}

/// The error for a refused open: a link (`ELOOP` under `O_NOFOLLOW`), a FIFO without a reader
/// (`ENXIO` under `O_NONBLOCK`), or anything else.
fn refused(path: &Path, error: std::io::Error) -> PrivateFileError {
    match error.raw_os_error() {
        Some(code) if code == nix::errno::Errno::ELOOP as i32 => {
            PrivateFileError::Link { path: path.to_owned() }
        }
        Some(code) if code == nix::errno::Errno::ENXIO as i32 => {
            PrivateFileError::NotRegular { path: path.to_owned(), kind: "FIFO" }
        }
        _ => PrivateFileError::Io { path: path.to_owned(), source: error },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> tempfile::TempDir {
        tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
    }

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).map(|m| m.permissions().mode() & 0o777).unwrap_or(0)
    }

    #[test]
    fn a_missing_file_is_created_for_the_user_alone_and_appended() {
        let dir = dir();
        let path = dir.path().join("audit.jsonl");
        use std::io::Write as _;
        writeln!(append(&path).unwrap_or_else(|e| panic!("{e}")), "one").unwrap_or_else(|e| panic!("{e}"));
        writeln!(append(&path).unwrap_or_else(|e| panic!("{e}")), "two").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), "one\ntwo\n");
        assert_eq!(mode(&path), PRIVATE_MODE);
        writeln!(rewrite(&path).unwrap_or_else(|e| panic!("{e}")), "three").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), "three\n");
    }

    #[test]
    fn a_link_is_never_followed_and_its_target_untouched() {
        let dir = dir();
        let target = dir.path().join("root-owned");
        std::fs::write(&target, "precious\n").unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644))
            .unwrap_or_else(|e| panic!("{e}"));
        let link = dir.path().join("audit.jsonl");
        std::os::unix::fs::symlink(&target, &link).unwrap_or_else(|e| panic!("{e}"));
        for attempt in [append(&link).map(drop), rewrite(&link).map(drop), create_new(&link).map(drop)] {
            assert!(
                matches!(attempt, Err(PrivateFileError::Link { .. } | PrivateFileError::Exists { .. })),
                "{attempt:?}"
            );
        }
        assert_eq!(std::fs::read_to_string(&target).unwrap_or_default(), "precious\n");
        assert_eq!(mode(&target), 0o644, "never chmod-ed");
    }

    #[test]
    fn a_fifo_is_refused_at_once() {
        let dir = dir();
        let fifo = dir.path().join("audit.jsonl");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600))
            .unwrap_or_else(|e| panic!("{e}"));
        let refused = append(&fifo);
        assert!(matches!(refused, Err(PrivateFileError::NotRegular { kind: "FIFO", .. })), "{refused:?}");
        assert!(refused.err().map(|e| e.to_string()).unwrap_or_default().contains("FIFO"));
    }

    #[test]
    fn a_file_others_may_read_is_refused_not_narrowed() {
        let dir = dir();
        let path = dir.path().join("audit.jsonl");
        std::fs::write(&path, "").unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))
            .unwrap_or_else(|e| panic!("{e}"));
        let refused = append(&path);
        assert!(matches!(refused, Err(PrivateFileError::Open { mode: 0o644, .. })), "{refused:?}");
        assert!(refused.err().map(|e| e.to_string()).unwrap_or_default().contains("chmod 600"));
        assert_eq!(mode(&path), 0o644);
        assert!(matches!(
            append(dir.path()),
            Err(PrivateFileError::Io { .. } | PrivateFileError::NotRegular { .. })
        ));
        assert!(matches!(create_new(&path), Err(PrivateFileError::Exists { .. })));
    }
}
