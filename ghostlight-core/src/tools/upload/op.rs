//! `browser_upload`: attach files or a captured image to a file input, or drop the image at a
//! point of a current view.
//!
//! ```text
//! paths: upload roots (authority, before any browser contact)
//! enter tab ─▶ destination (target + credential preflight, or a drop point)
//!   ─▶ source: stat every path (directory, missing, per-file and total size)
//!             | decode inline files | the view's kept PNG (capture-reuse ceiling)
//!   ─▶ upload
//! ```
//!
//! Secrecy: paths, file names and contents never appear in a summary, next step, fact or
//! audit record. Files are named by position (`file 2 of 3`); sizes and counts are facts.
//! Inline bytes are decoded only after authorization and the credential preflight.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use super::facts;
use crate::envelope::Status;
use crate::handles::Handle;
use crate::language::count;
use crate::limits::{CAPTURE_REUSE_MAX_BYTES, UPLOAD_FILE_MAX_BYTES, UPLOAD_TOTAL_MAX_BYTES};
use crate::names::ToolName;
use crate::port::{FileStat, InlineFile, PortErrorKind, UploadDestination, UploadFiles, UploadInput};
use crate::tools::common::selects;
use crate::tools::upload::{Upload, UploadRequest};

use crate::authority::ConfirmAction;
use crate::operation::invalid_arguments;
use crate::operation::outcome::Outcome;
use crate::operation::run::{Asking, Lease, Run, Step, host_of};

/// The file name a reused capture carries (Ghostlight's, not the caller's).
const CAPTURE_FILE_NAME: &str = "capture.png";
/// The next step when a capture's image is gone.
const RECAPTURE_IMAGE: &str = "Take a new screenshot with browser_screenshot, then upload that view's image.";
/// The next step of an authority refusal.
const EXPLAIN: &str = "Call policy_explain to see what this authority allows and why.";

pub(crate) async fn run(run: &Run<'_>, request: &UploadRequest) -> Outcome {
    upload(run, request).await.unwrap_or_else(|outcome| outcome)
}

/// What is about to be uploaded, as sentences may describe it.
struct Payload {
    files: UploadFiles,
    /// `2 files`, `the image of view_3`.
    phrase: String,
}

async fn upload(run: &Run<'_>, request: &UploadRequest) -> Step<Outcome> {
    // The lexical forms checked against the roots are the paths the browser side reads.
    let checked = match &request.upload {
        Upload::Paths { paths, .. } => check_roots(run, paths)?,
        _ => Vec::new(),
    };
    let (lease, page) =
        run.enter_selecting(request.tab.as_ref(), request.upload.target().is_some_and(selects)).await?;
    let host = host_of(&page.state.url);
    let tab_fact = |outcome: Outcome| outcome.fact(facts::TAB, lease.handle().as_str());

    // Destination, and the credential preflight, before any file is read or decoded.
    let mut refused_at = None;
    let (to, destination, target_handle) = match (&request.upload, request.upload.target()) {
        (_, Some(target)) => {
            let resolved = run.target(&lease, &page, target).await?;
            run.preflight(&lease, &page, resolved.credential, resolved.handle.as_ref())?;
            let phrase = file_input_phrase(run, resolved.name.as_deref());
            // A refusal names the control as it is (a text field is no file input).
            refused_at = Some(run.phrase(resolved.role, resolved.name.as_deref()));
            (UploadDestination::Input(resolved.element), phrase, resolved.handle)
        }
        (Upload::DropImage { at, .. }, None) => {
            let point = run.point(&lease, &page, at).await?;
            let phrase = format!("({}, {}) of {}", at.x, at.y, at.view);
            (UploadDestination::Drop(point), phrase, None)
        }
        // A decoded upload without a target is always a drop.
        (_, None) => {
            return Err(tab_fact(Outcome::failed("invalid_arguments", "The upload has no destination.")));
        }
    };

    let payload = match &request.upload {
        Upload::Paths { .. } => stat(run, &lease, checked).await?,
        Upload::Files { files, .. } => {
            // The first look at the bytes: after authorization and the credential preflight.
            let decoded = crate::tools::upload::InlineFile::decode_all(files)
                .map_err(|error| tab_fact(invalid_arguments(ToolName::Upload, &error)))?;
            let inline: Vec<InlineFile> = files
                .iter()
                .zip(decoded)
                .map(|(file, bytes)| InlineFile { name: file.name().to_owned(), bytes })
                .collect();
            Payload { phrase: count(inline.len(), "file", "files"), files: UploadFiles::Inline(inline) }
        }
        Upload::AttachImage { image, .. } | Upload::DropImage { image, .. } => {
            captured(run, image).map_err(tab_fact)?
        }
    };

    let file_count = match &payload.files {
        UploadFiles::Inline(files) => files.len(),
        UploadFiles::Paths(paths) => paths.len(),
    };
    let input = UploadInput { to, files: payload.files };
    let verb = if matches!(request.upload, Upload::DropImage { .. }) {
        ("drop", "Dropped", "at")
    } else {
        ("attach", "Attached", "to")
    };
    let doing = format!("{} {} {} {destination}", verb.0, payload.phrase, verb.2);
    let element = match &input.to {
        UploadDestination::Input(element) => Some(element),
        UploadDestination::Drop(_) => None,
    };
    let asking = Asking {
        host: host.clone(),
        tab: Some((&lease, page.generation)),
        control: Some(destination.clone()),
        element,
    };
    run.confirm(ConfirmAction::Upload, asking).await?;
    run.dispatching();
    let done = run
        .port()
        .upload(&run.on(&lease.tab, Duration::from_millis(request.timeout_ms)), &input)
        .await
        .map_err(|e| {
            // A control that takes no files is named as it is (a text field is no file input).
            let doing = match &refused_at {
                Some(control) if e.kind() == PortErrorKind::InvalidInput => {
                    format!(
                        "{} {} {} {control} (only a file input takes files)",
                        verb.0, payload.phrase, verb.2
                    )
                }
                _ => doing.clone(),
            };
            run.fail_on(&lease, &e, &doing, Some(request.timeout_ms))
                .or_fact(facts::HOST, host.clone())
                .or_fact(facts::FILE_COUNT, file_count)
        })?;
    let what = match &request.upload {
        Upload::Paths { .. } | Upload::Files { .. } => count(done.count, "file", "files"),
        Upload::AttachImage { .. } | Upload::DropImage { .. } => payload.phrase,
    };
    let summary =
        format!("{} {what} ({}) {} {destination} on {host}.", verb.1, byte_count(done.bytes), verb.2);
    let mut outcome = Outcome::applied(summary, false)
        .with_readiness(done.page.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::TARGET, target_handle.as_ref().map(Handle::as_str))
        .fact(facts::UPLOADED_COUNT, done.count)
        .fact(facts::UPLOADED_BYTES, done.bytes)
        .fact(facts::HOST, host);
    match &request.upload {
        Upload::AttachImage { image, .. } => outcome = outcome.fact(facts::SOURCE_IMAGE, image.as_str()),
        Upload::DropImage { image, at } => {
            outcome = outcome.fact(facts::SOURCE_IMAGE, image.as_str()).fact(facts::VIEW, at.view.as_str());
        }
        Upload::Paths { .. } | Upload::Files { .. } => {}
    }
    let landing = run.land(&lease, &done.page);
    Ok(run.with_landing(outcome, landing, &done.page))
}

/// `1 byte`, `1,024 bytes`.
fn byte_count(bytes: u64) -> String {
    if bytes == 1 { "1 byte".to_owned() } else { format!("{} bytes", grouped(bytes)) }
}

/// `the "Resume" file input`, or `a file input` when the name is unknown or withheld.
fn file_input_phrase(run: &Run<'_>, name: Option<&str>) -> String {
    match name.and_then(crate::language::normalize_name) {
        Some(name) if run.preserve_names() => format!("the \"{name}\" file input"),
        _ => "a file input".to_owned(),
    }
}

/// Path uploads need configured upload folders, and every path inside one of them; answers
/// the paths in the lexical form that was checked.
fn check_roots(run: &Run<'_>, paths: &[String]) -> Step<Vec<PathBuf>> {
    let roots = run.snapshot.authority().upload_roots();
    let blocked = |summary: String| {
        Outcome::failed("upload_root_denied", summary)
            .with_status(Status::Blocked)
            .fact(facts::DECIDED_BY, roots.decided_by.as_str())
            .fact(facts::FILE_COUNT, paths.len())
            .next(EXPLAIN)
    };
    if roots.value.is_empty() {
        return Err(blocked(
            "Uploads from local paths are off: no upload folders (uploads.roots) are configured, so nothing \
             was uploaded."
                .to_owned(),
        ));
    }
    let mut checked = Vec::with_capacity(paths.len());
    for (index, path) in paths.iter().enumerate() {
        let path = lexical(Path::new(path));
        let covered = roots.value.iter().any(|root| root.covers(&path));
        if !covered {
            return Err(blocked(format!(
                "File {} of {} is outside the configured upload folders, so nothing was uploaded.",
                index + 1,
                paths.len()
            ))
            .fact(facts::FILE, index + 1));
        }
        checked.push(path);
    }
    Ok(checked)
}

/// The path in lexical normal form: `.` components and repeated separators removed; `..`
/// kept, and no root covers a path containing one. Core reads no files, so symbolic links are
/// not resolved here: the adapter that reads the file is the one that can see them.
fn lexical(path: &Path) -> PathBuf {
    path.components().filter(|c| !matches!(c, Component::CurDir)).collect()
}

/// Check every path as the browser side sees it: a regular file whose real path (links
/// resolved) lies inside the real path of an upload folder, within the per-file and total
/// ceilings. The real paths are what the browser side is then given to read.
async fn stat(run: &Run<'_>, lease: &Lease, list: Vec<PathBuf>) -> Step<Payload> {
    let roots = run.snapshot.authority().upload_roots();
    let mut asked: Vec<PathBuf> = roots.value.iter().map(|root| root.as_path().to_path_buf()).collect();
    let root_count = asked.len();
    asked.extend(list.iter().cloned());
    let stats =
        run.port().stat_files(&asked).await.map_err(|e| run.fail_on(lease, &e, "check the files", None))?;
    let of = list.len();
    let refuse = |reason: &str, summary: String, index: usize| {
        Outcome::failed(reason, summary)
            .fact(facts::TAB, lease.handle().as_str())
            .fact(facts::FILE, index + 1)
            .fact(facts::FILE_COUNT, of)
    };
    if stats.len() != asked.len() {
        return Err(Outcome::failed(
            "browser_error",
            "The browser did not report on every file, so nothing was uploaded.",
        )
        .fact(facts::TAB, lease.handle().as_str()));
    }
    let (root_stats, file_stats) = stats.split_at(root_count);
    let real_roots: Vec<&PathBuf> = root_stats
        .iter()
        .filter_map(|stat| match stat {
            FileStat::Directory { real } => Some(real),
            _ => None,
        })
        .collect();
    let mut total: u64 = 0;
    let mut real_paths = Vec::with_capacity(of);
    for (index, stat) in file_stats.iter().enumerate() {
        let n = index + 1;
        match stat {
            FileStat::Directory { .. } => {
                return Err(refuse(
                    "not_a_file",
                    format!("File {n} of {of} is a folder, not a file; nothing was uploaded."),
                    index,
                ));
            }
            FileStat::Missing => {
                return Err(refuse(
                    "missing_file",
                    format!("File {n} of {of} does not exist or cannot be read; nothing was uploaded."),
                    index,
                ));
            }
            FileStat::File { real, .. } if !real_roots.iter().any(|root| real.starts_with(root)) => {
                return Err(refuse(
                    "upload_root_denied",
                    format!(
                        "File {n} of {of} is a link to a file outside the configured upload folders, so \
                         nothing was uploaded."
                    ),
                    index,
                )
                .with_status(Status::Blocked)
                .fact(facts::DECIDED_BY, roots.decided_by.as_str())
                .next(EXPLAIN));
            }
            FileStat::File { bytes, .. } if *bytes > UPLOAD_FILE_MAX_BYTES => {
                return Err(refuse(
                    "too_large",
                    format!(
                        "File {n} of {of} is {} bytes, over the {}-byte limit for one file; nothing was \
                         uploaded.",
                        grouped(*bytes),
                        grouped(UPLOAD_FILE_MAX_BYTES)
                    ),
                    index,
                )
                .fact(facts::BYTES, *bytes)
                .fact(facts::LIMIT_BYTES, UPLOAD_FILE_MAX_BYTES));
            }
            FileStat::File { bytes, real } => {
                total = total.saturating_add(*bytes);
                real_paths.push(real.clone());
            }
        }
    }
    if total > UPLOAD_TOTAL_MAX_BYTES {
        return Err(Outcome::failed(
            "too_large",
            format!(
                "The {of} files total {} bytes, over the {}-byte limit for one upload; nothing was uploaded.",
                grouped(total),
                grouped(UPLOAD_TOTAL_MAX_BYTES)
            ),
        )
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::FILE_COUNT, of)
        .fact(facts::BYTES, total)
        .fact(facts::LIMIT_BYTES, UPLOAD_TOTAL_MAX_BYTES));
    }
    Ok(Payload { files: UploadFiles::Paths(real_paths), phrase: count(of, "file", "files") })
}

/// The PNG kept for `image`, a view of this workspace (any of its tabs; the image need not
/// be current, only kept), within the capture-reuse ceiling.
fn captured(run: &Run<'_>, image: &Handle) -> Result<Payload, Outcome> {
    let view = run.workspace.view(image).ok_or_else(|| {
        Outcome::failed("unknown_view", format!("{image} is not a view this session has captured."))
            .fact(facts::SOURCE_IMAGE, image.as_str())
            .next(RECAPTURE_IMAGE)
    })?;
    if view.png.is_none() && view.png_bytes > CAPTURE_REUSE_MAX_BYTES {
        // Too large to keep at all: a new capture of the same kind would be too (R251).
        return Err(Outcome::failed(
            "too_large",
            format!(
                "The image of {image} was {} bytes, over the {}-byte limit for reusing a capture, so it \
                 was never kept; nothing was uploaded.",
                grouped(view.png_bytes),
                grouped(CAPTURE_REUSE_MAX_BYTES)
            ),
        )
        .fact(facts::SOURCE_IMAGE, image.as_str())
        .fact(facts::BYTES, view.png_bytes)
        .fact(facts::LIMIT_BYTES, CAPTURE_REUSE_MAX_BYTES)
        .next("Capture the viewport or a region with browser_screenshot, then upload that view's image."));
    }
    let png = view.png.ok_or_else(|| {
        Outcome::failed(
            "image_expired",
            format!(
                "The image of {image} is no longer kept (only the most recent captures keep theirs); nothing was \
                 uploaded."
            ),
        )
        .fact(facts::SOURCE_IMAGE, image.as_str())
        .next(RECAPTURE_IMAGE)
    })?;
    let bytes = u64::try_from(png.len()).unwrap_or(u64::MAX);
    if bytes > CAPTURE_REUSE_MAX_BYTES {
        return Err(Outcome::failed(
            "too_large",
            format!(
                "The image of {image} is {} bytes, over the {}-byte limit for reusing a capture; nothing was \
                 uploaded.",
                grouped(bytes),
                grouped(CAPTURE_REUSE_MAX_BYTES)
            ),
        )
        .fact(facts::SOURCE_IMAGE, image.as_str())
        .fact(facts::BYTES, bytes)
        .fact(facts::LIMIT_BYTES, CAPTURE_REUSE_MAX_BYTES)
        .next("Capture a smaller region with browser_screenshot, then upload that view's image."));
    }
    let file = InlineFile { name: CAPTURE_FILE_NAME.to_owned(), bytes: png.as_ref().clone() };
    Ok(Payload { files: UploadFiles::Inline(vec![file]), phrase: format!("the image of {image}") })
}

/// `1,234,567`: a byte count as sentences write it.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_are_grouped() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_234), "1,234");
        assert_eq!(grouped(5_000_000), "5,000,000");
        assert_eq!(grouped(12_345_678), "12,345,678");
    }

    #[test]
    fn lexical_paths_keep_parent_components() {
        let path = lexical(Path::new("/data//./a/../b"));
        assert!(path.components().any(|c| matches!(c, Component::ParentDir)));
        assert!(!path.components().any(|c| matches!(c, Component::CurDir)));
        assert_eq!(lexical(Path::new("/data/./uploads//a.txt")), Path::new("/data/uploads/a.txt"));
    }
}
