//! Local files, as this adapter (which reads them for uploads) sees them.

use std::path::PathBuf;

use ghostlight_core::port::{FileStat, PortResult};

/// What each local path is: a regular file and its size, a directory, or missing (also for
/// anything unreadable or special). Symbolic links are followed.
pub(crate) fn stat_files(paths: &[PathBuf]) -> PortResult<Vec<FileStat>> {
    Ok(paths
        .iter()
        .map(|path| match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => FileStat::File { bytes: meta.len() },
            Ok(meta) if meta.is_dir() => FileStat::Directory,
            _ => FileStat::Missing,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_directories_and_missing_paths() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let file = dir.path().join("a.txt");
        std::fs::write(&file, b"hello").expect("write");
        let stats = stat_files(&[file, dir.path().to_path_buf(), dir.path().join("none")]).expect("stats");
        assert_eq!(stats, vec![FileStat::File { bytes: 5 }, FileStat::Directory, FileStat::Missing]);
    }
}
