//! Uploads: files attached to an `<input type=file>`, or dropped at a viewport point.
//!
//! - **Input.** The element must be an enabled file input (taking several files when several
//!   are sent); its current files are cleared first (`value = ''`), because WebDriver adds
//!   each sent file to those already chosen. The paths then go through `Element Send Keys`,
//!   joined by `\n` (a path holding a newline cannot be sent and is refused). Inline files are
//!   first written to a staging directory inside the browser profile (see [`stage`]). Sending
//!   local paths needs a driver on this machine: a remote Grid would need its file upload
//!   endpoint, which this adapter does not use.
//! - **Drop.** No WebDriver command drops files, so `scripts/input/drop.js` builds `File`
//!   objects from the bytes (sent base64) and dispatches `dragenter`, `dragover` and `drop`
//!   at the element under the point. The events are untrusted. A point where nothing accepts
//!   the drop (no `dragover` handler cancels it) answers `InvalidInput`.

use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

use ghostlight_core::port::{
    ElementRef, Gate, InlineFile, Point, PortError, PortErrorKind, PortResult, TabRef,
    UPLOAD_TOTAL_MAX_BYTES, UploadDestination, UploadFiles, UploadInput, UploadOutcome,
};
use ghostlight_page::upload::{input_checked, page_files, read_files, still_real, total_size};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{after, before_state, compose, pixel, resolve, run};
use crate::errors::{self, Sent};
use tokio::time::Instant;

use crate::ops::frames;
use crate::session::Session;
use ghostlight_page::bounds::NAME_MAX_CHARS;

/// The file input check (`scripts/input/upload.js`).
static CHECK: LazyLock<String> = LazyLock::new(|| compose(ghostlight_page::scripts::input::UPLOAD_BODY));
/// The scripted drop (`scripts/input/drop.js`).
static DROP: LazyLock<String> = LazyLock::new(|| compose(ghostlight_page::scripts::input::DROP_BODY));

/// The most bytes one upload may carry (core checks the same bound first).
const MAX_BYTES: u64 = UPLOAD_TOTAL_MAX_BYTES;
/// The directory of the browser profile that holds staged inline files.
const STAGING_DIR: &str = "ghostlight-uploads";
/// The name prefix of one upload's staging directory.
const STAGING_PREFIX: &str = "upload-";

/// An upload script's answer.
#[derive(Debug, Deserialize)]
struct Answer {
    status: String,
    #[serde(default)]
    accepted: bool,
    state: Option<Value>,
}

/// Upload files to a file input or drop them at a point.
pub(super) async fn upload(
    s: &mut Session,
    tab: &TabRef,
    input: &UploadInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<UploadOutcome> {
    let deadline = Instant::now() + timeout;
    s.set_script_timeout(timeout).await?;
    match &input.to {
        UploadDestination::Input(element) => to_input(s, tab, element, &input.files, deadline).await,
        UploadDestination::Drop(point) => {
            frames::check_point(s, tab, point.x.floor(), point.y.floor(), None, gate).await?;
            drop_at(s, tab, *point, &input.files, deadline).await
        }
    }
}

/// Attach files to a file input.
async fn to_input(
    s: &mut Session,
    tab: &TabRef,
    element: &ElementRef,
    files: &UploadFiles,
    deadline: Instant,
) -> PortResult<UploadOutcome> {
    // Local work first: nothing reaches the page when a file is missing or a name is bad.
    let (paths, bytes) = match files {
        UploadFiles::Paths(paths) => {
            still_real(paths)?;
            (paths.clone(), local_sizes(paths).await?)
        }
        UploadFiles::Inline(files) => {
            let Some(profile) = s.scratch_dir().map(std::path::Path::to_path_buf) else {
                return Err(PortError::new(
                    PortErrorKind::Unsupported,
                    "inline files need a browser this adapter launched (they are staged in its profile)",
                ));
            };
            let bytes = files.iter().map(|file| file.bytes.len() as u64).sum();
            (stage(profile.join(STAGING_DIR), files).await?, bytes)
        }
    };
    let mut joined = Vec::with_capacity(paths.len());
    for path in &paths {
        match path.to_str() {
            Some(text) if !text.contains(['\n', '\r']) && path.is_absolute() => joined.push(text),
            _ => {
                return Err(PortError::new(
                    PortErrorKind::InvalidInput,
                    "a file path cannot be sent to the browser (not absolute, not UTF-8, or holds a newline)",
                ));
            }
        }
    }
    let count = paths.len();
    if count == 0 {
        return Err(PortError::new(PortErrorKind::InvalidInput, "an upload needs at least one file"));
    }
    let resolved = resolve(s, tab, element).await?;
    let options = json!({ "count": count, "state": resolved.wants_state(), "cap": NAME_MAX_CHARS });
    let mut answer: Answer = run(s, &CHECK, vec![resolved.arg()?, options], Sent::Act).await?;
    let before = before_state(resolved.before.clone(), answer.state.take())?;
    input_checked(&answer.status)?;
    match resolved.element.send_keys(&joined.join("\n")).await {
        Ok(()) => {}
        // The change handler opened a dialog: the files were attached.
        Err(e) if errors::is_dialog(&e) => {}
        // The input was cleared already.
        Err(e) => return Err(errors::cmd(&e, Sent::Act).effect_unknown()),
    }
    let page = after(s, before, deadline).await?;
    Ok(UploadOutcome { count, bytes, page })
}

/// Drop files at a viewport point.
async fn drop_at(
    s: &mut Session,
    tab: &TabRef,
    point: Point,
    files: &UploadFiles,
    deadline: Instant,
) -> PortResult<UploadOutcome> {
    let (x, y) = (pixel(point.x)?, pixel(point.y)?);
    let loaded = match files {
        UploadFiles::Inline(files) => files.clone(),
        UploadFiles::Paths(paths) => {
            let paths = paths.clone();
            tokio::task::spawn_blocking(move || read_files(&paths))
                .await
                .map_err(|_| PortError::new(PortErrorKind::Other, "reading files failed"))??
        }
    };
    let bytes: u64 = loaded.iter().map(|file| file.bytes.len() as u64).sum();
    if loaded.is_empty() || bytes > MAX_BYTES {
        return Err(PortError::new(PortErrorKind::InvalidInput, "the files to drop are none or too large"));
    }
    s.tab(tab).await?;
    let args =
        vec![json!({ "x": x, "y": y }), page_files(&loaded), json!({ "state": true, "cap": NAME_MAX_CHARS })];
    let mut answer: Answer = run(s, &DROP, args, Sent::Act).await?;
    let before = before_state(None, answer.state.take())?;
    match (answer.status.as_str(), answer.accepted) {
        ("ok", true) => {}
        ("ok", false) => {
            return Err(PortError::new(
                PortErrorKind::InvalidInput,
                "nothing at the point accepts dropped files",
            ));
        }
        ("outside", _) => {
            return Err(PortError::new(PortErrorKind::InvalidInput, "the point is outside the viewport"));
        }
        _ => return Err(PortError::new(PortErrorKind::Other, "the drop script answered an unknown status")),
    }
    let page = after(s, before, deadline).await?;
    Ok(UploadOutcome { count: loaded.len(), bytes, page })
}

/// The total size of local files (each must be a regular file).
async fn local_sizes(paths: &[PathBuf]) -> PortResult<u64> {
    let paths = paths.to_vec();
    tokio::task::spawn_blocking(move || total_size(&paths))
        .await
        .map_err(|_| PortError::new(PortErrorKind::Other, "reading file sizes failed"))?
}

/// Write inline files to a fresh directory under `root` (one subdirectory per file, so that
/// equal names do not collide), answering the file paths.
///
/// Decision: the files stay until the browser profile is removed at shutdown. The browser
/// keeps only a reference to each chosen file and reads it when the page reads it or submits
/// the form, possibly long after the upload (a staging directory removed at the end of the
/// call made those reads fail on both engines). `root` is therefore inside the profile of a
/// browser this adapter launched; a session on a driver it did not launch has no such place,
/// and inline files to a file input answer `Unsupported` there.
async fn stage(root: PathBuf, files: &[InlineFile]) -> PortResult<Vec<PathBuf>> {
    for file in files {
        if !plain_name(&file.name) {
            return Err(PortError::new(
                PortErrorKind::InvalidInput,
                "an inline file name is not a plain file name",
            ));
        }
    }
    let files = files.to_vec();
    tokio::task::spawn_blocking(move || -> std::io::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(&root)?;
        let dir = tempfile::Builder::new().prefix(STAGING_PREFIX).tempdir_in(&root)?.keep();
        let mut paths = Vec::with_capacity(files.len());
        for (number, file) in files.iter().enumerate() {
            let sub = dir.join(number.to_string());
            std::fs::create_dir(&sub)?;
            let path = sub.join(&file.name);
            std::fs::write(&path, &file.bytes)?;
            paths.push(path);
        }
        Ok(paths)
    })
    .await
    .map_err(|_| PortError::new(PortErrorKind::Other, "staging inline files failed"))?
    .map_err(|_| {
        PortError::new(PortErrorKind::Other, "inline files could not be written to the staging directory")
    })
}

/// Whether `name` is one normal path component.
fn plain_name(name: &str) -> bool {
    let mut components = Path::new(name).components();
    matches!((components.next(), components.next()), (Some(Component::Normal(_)), None))
        && !name.contains(['/', '\0', '\n', '\r'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_are_staged() {
        assert!(plain_name("report.pdf"));
        assert!(plain_name("a b.txt"));
        for bad in ["", ".", "..", "a/b", "/etc/passwd", "x\ny"] {
            assert!(!plain_name(bad), "{bad:?}");
        }
    }

    #[tokio::test]
    async fn staged_files_are_written_apart() {
        let root = tempfile::tempdir().expect("a temp dir");
        let files = vec![
            InlineFile { name: "same.txt".into(), bytes: b"one".to_vec() },
            InlineFile { name: "same.txt".into(), bytes: b"two".to_vec() },
        ];
        let paths = stage(root.path().join(STAGING_DIR), &files).await.expect("staged");
        assert_eq!(paths.len(), 2);
        assert_ne!(paths[0], paths[1]);
        assert_eq!(std::fs::read(&paths[1]).expect("written"), b"two");
        assert!(paths[0].starts_with(root.path().join(STAGING_DIR)));
        let bad = [InlineFile { name: "../x".into(), bytes: vec![] }];
        assert_eq!(
            stage(root.path().to_path_buf(), &bad).await.expect_err("bad name").kind(),
            PortErrorKind::InvalidInput
        );
    }
}
