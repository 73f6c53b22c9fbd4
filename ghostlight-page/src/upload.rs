//! Uploads as every adapter carries them out: local files seen and read the same way
//! ([`stat_files`], [`still_real`], [`read_files`]), the files as page scripts build them ([`page_files`]),
//! with the MIME type of each ([`mime_type`]), and the file input check's answers as errors ([`input_checked`]).
//!
//! The file functions touch the local file system and block: call them off an async
//! runtime's worker threads (e.g. `tokio::task::spawn_blocking`). Their errors never name a
//! path, a file name or a byte of content.

use std::path::{Path, PathBuf};

use ghostlight_core::port::{
    FileStat, InlineFile, PortError, PortErrorKind, PortResult, UPLOAD_TOTAL_MAX_BYTES,
};

/// What each local path is: a regular file and its size, a directory, or missing (also for
/// anything unreadable or special), with its real path (every symbolic link resolved).
pub fn stat_files(paths: &[PathBuf]) -> Vec<FileStat> {
    paths.iter().map(|path| stat(path)).collect()
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
pub fn still_real(paths: &[PathBuf]) -> PortResult<()> {
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

/// The total size of local files, each of which must (still) be a regular file.
pub fn total_size(paths: &[PathBuf]) -> PortResult<u64> {
    paths
        .iter()
        .map(|path| std::fs::metadata(path).ok().filter(std::fs::Metadata::is_file).map(|meta| meta.len()))
        .sum::<Option<u64>>()
        .ok_or_else(|| {
            PortError::new(PortErrorKind::InvalidInput, "a file to upload is missing or not a regular file")
        })
}

/// Read local files for an upload that carries bytes: each path must still be its own real
/// path ([`still_real`]) and a regular file, together at most [`UPLOAD_TOTAL_MAX_BYTES`]. Each
/// file is named by the last component of its path.
pub fn read_files(paths: &[PathBuf]) -> PortResult<Vec<InlineFile>> {
    still_real(paths)?;
    if total_size(paths)? > UPLOAD_TOTAL_MAX_BYTES {
        return Err(PortError::new(PortErrorKind::InvalidInput, "the files to upload are too large"));
    }
    let unreadable = || PortError::new(PortErrorKind::InvalidInput, "a file to upload could not be read");
    let mut files = Vec::with_capacity(paths.len());
    let mut total = 0u64;
    for path in paths {
        let name = path.file_name().ok_or_else(unreadable)?.to_string_lossy().into_owned();
        let bytes = std::fs::read(path).map_err(|_| unreadable())?;
        // The file may have grown since its size was read.
        total += bytes.len() as u64;
        if total > UPLOAD_TOTAL_MAX_BYTES {
            return Err(PortError::new(PortErrorKind::InvalidInput, "the files to upload are too large"));
        }
        files.push(InlineFile { name, bytes });
    }
    Ok(files)
}

/// The MIME type a file built in the page gets, from its extension (empty when unknown, as
/// browsers leave it).
pub fn mime_type(name: &str) -> &'static str {
    let extension = Path::new(name).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("svg") => "image/svg+xml",
        Some("pdf") => "application/pdf",
        Some("txt") => "text/plain",
        Some("csv") => "text/csv",
        Some("json") => "application/json",
        Some("html" | "htm") => "text/html",
        Some("xml") => "application/xml",
        Some("zip") => "application/zip",
        _ => "",
    }
}

/// The files as the page scripts that build them take them (`scripts/input/drop.js`,
/// `scripts/input/attach.js`): `[{name, type, data}]`, the bytes in base64.
pub fn page_files(files: &[InlineFile]) -> serde_json::Value {
    use base64::Engine as _;
    let encode = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    files
        .iter()
        .map(|file| serde_json::json!({ "name": file.name, "type": mime_type(&file.name), "data": encode(&file.bytes) }))
        .collect()
}

/// The file input check's answer (the `status` of `scripts/input/upload.js`) as the port's:
/// `ok` passes; a misfit is [`PortErrorKind::InvalidInput`] naming it.
pub fn input_checked(status: &str) -> PortResult<()> {
    let refused = |message| Err(PortError::new(PortErrorKind::InvalidInput, message));
    match status {
        "ok" => Ok(()),
        "not_file" => refused("the element is not a file input"),
        "disabled" => refused("the file input is disabled"),
        "not_multiple" => refused("the file input takes one file only"),
        _ => Err(PortError::new(PortErrorKind::Other, "the upload check answered an unknown status")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_directories_and_missing_paths() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let file = dir.path().join("a.txt");
        std::fs::write(&file, b"hello").expect("write");
        let stats = stat_files(&[file.clone(), dir.path().to_path_buf(), dir.path().join("none")]);
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
        assert!(still_real(std::slice::from_ref(&real_file)).is_ok());
        assert_eq!(total_size(&[real_file.clone(), real_file.clone()]).ok(), Some(10));
        assert!(total_size(std::slice::from_ref(&real_dir)).is_err(), "a directory is not a file");
    }

    #[cfg(unix)]
    #[test]
    fn links_resolve_to_their_targets() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let elsewhere = tempfile::tempdir().expect("another directory");
        let secret = elsewhere.path().join("secret.txt");
        std::fs::write(&secret, b"secret").expect("write");
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&secret, &link).expect("a link");
        let stats = stat_files(std::slice::from_ref(&link));
        let real = std::fs::canonicalize(&secret).expect("real");
        assert_eq!(stats, vec![FileStat::File { bytes: 6, real }]);
        assert!(still_real(std::slice::from_ref(&link)).is_err(), "a link is not its own real path");
        assert!(read_files(&[link]).is_err(), "nothing is read through a link");
    }

    #[test]
    fn files_are_read_by_name_and_bounded() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let real = std::fs::canonicalize(dir.path()).expect("real");
        let notes = real.join("notes.txt");
        std::fs::write(&notes, b"hello tides").expect("write");
        let files = read_files(std::slice::from_ref(&notes)).expect("read");
        assert_eq!(files, vec![InlineFile { name: "notes.txt".into(), bytes: b"hello tides".to_vec() }]);
        let missing = read_files(&[real.join("gone.txt")]).expect_err("missing");
        assert_eq!(missing.kind(), PortErrorKind::InvalidInput);
        assert!(!missing.message().contains("gone"), "no file name in errors");
        let big = real.join("big.bin");
        std::fs::write(&big, vec![0u8; 3_000_000]).expect("write");
        let over = read_files(&[big.clone(), big]).expect_err("over the total");
        assert_eq!(over.message(), "the files to upload are too large");
    }

    #[test]
    fn mime_types_follow_extensions() {
        assert_eq!(mime_type("a.PNG"), "image/png");
        assert_eq!(mime_type("notes.txt"), "text/plain");
        assert_eq!(mime_type("blob"), "");
    }

    #[test]
    fn page_files_carry_base64_and_types() {
        let files = page_files(&[InlineFile { name: "Shot.PNG".into(), bytes: b"abc".to_vec() }]);
        assert_eq!(files.to_string(), r#"[{"data":"YWJj","name":"Shot.PNG","type":"image/png"}]"#);
    }

    #[test]
    fn check_answers_become_errors() {
        assert!(input_checked("ok").is_ok());
        for (status, message) in [
            ("not_file", "the element is not a file input"),
            ("disabled", "the file input is disabled"),
            ("not_multiple", "the file input takes one file only"),
        ] {
            let error = input_checked(status).expect_err(status);
            assert_eq!((error.kind(), error.message()), (PortErrorKind::InvalidInput, message));
        }
        assert_eq!(input_checked("?").expect_err("unknown").kind(), PortErrorKind::Other);
    }
}
