//! Local files, as this adapter (which reads them for uploads) sees them.

use std::path::{Path, PathBuf};

use ghostlight_core::port::{FileStat, PortError, PortErrorKind, PortResult};

/// What each local path is: a regular file and its size, a directory, or missing (also for
/// anything unreadable or special), with its real path (every symbolic link resolved).
pub(crate) fn stat_files(paths: &[PathBuf]) -> PortResult<Vec<FileStat>> {
    Ok(paths.iter().map(|path| stat(path)).collect())
}

fn stat(path: &Path) -> FileStat {
    let Ok(real) = std::fs::canonicalize(path) else { return FileStat::Missing };
    match std::fs::metadata(&real) {
        Ok(meta) if meta.is_file() => FileStat::File { bytes: meta.len(), real },
        Ok(meta) if meta.is_dir() => FileStat::Directory { real },
        _ => FileStat::Missing,
    }
}

/// Refuse paths that are not their own real path any more: the executor checked real paths
/// against the upload folders, so a path that resolves elsewhere now had a link swapped in
/// since (nothing is read).
pub(crate) fn still_real(paths: &[PathBuf]) -> PortResult<()> {
    for path in paths {
        match std::fs::canonicalize(path) {
            Ok(real) if &real == path => {}
            _ => {
                return Err(PortError::new(
                    PortErrorKind::InvalidInput,
                    "a file changed (or became a link) between its check and the upload",
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_directories_and_missing_paths() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let file = dir.path().join("a.txt");
        std::fs::write(&file, b"hello").expect("write");
        let stats =
            stat_files(&[file.clone(), dir.path().to_path_buf(), dir.path().join("none")]).expect("stats");
        let real_dir = std::fs::canonicalize(dir.path()).expect("real");
        let real_file = real_dir.join("a.txt");
        assert_eq!(
            stats,
            vec![
                FileStat::File { bytes: 5, real: real_file.clone() },
                FileStat::Directory { real: real_dir.clone() },
                FileStat::Missing
            ]
        );
        assert!(still_real(&[real_file]).is_ok());
    }

    #[test]
    fn links_resolve_to_their_targets() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let elsewhere = tempfile::tempdir().expect("another directory");
        let secret = elsewhere.path().join("secret.txt");
        std::fs::write(&secret, b"secret").expect("write");
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&secret, &link).expect("a link");
        let stats = stat_files(std::slice::from_ref(&link)).expect("stats");
        let real = std::fs::canonicalize(&secret).expect("real");
        assert_eq!(stats, vec![FileStat::File { bytes: 6, real }]);
        assert!(still_real(&[link]).is_err(), "a link is not its own real path");
    }
}
