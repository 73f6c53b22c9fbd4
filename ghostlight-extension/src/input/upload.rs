//! Uploads through the extension: files attached to a file input, or dropped at a viewport
//! point; inline files or local paths.
//!
//! - **Files.** Local paths are read here (each must still be its own real path and a regular
//!   file, as core checked it: [`read_files`]) and then travel like inline files. The bytes
//!   (base64 in JSON) are carried to the page in parts: native messaging carries at most 1 MB
//!   per message to the extension, so they travel in parts of [`PART_CHARS`] that the
//!   extension holds under one key and hands to the next script naming it ([`STASH_MARKER`]),
//!   bounded by [`UPLOAD_TOTAL_MAX_BYTES`]. Paths, names and contents never enter errors.
//! - **Input.** Chromium refuses `DOM.setFileInputFiles` to extensions and no extension API
//!   drives the file chooser, so the files are built in the page. Like every element target,
//!   the scripts run in the extension's isolated world of the document the input lives in
//!   (the top document or a frame, [`run_input`]): the WebDriver adapter's
//!   `scripts/input/upload.js` checks the element (an enabled file input, taking several files
//!   when several are sent: the same refusals) and clears it, then `scripts/input/attach.js`
//!   assigns a `DataTransfer`'s files to `input.files` and fires `input` and `change`
//!   (bubbling, untrusted), on both engines.
//! - **Replays** ([`attach_replay`]): the extension holds the GIF it encoded under a key, in
//!   place of held parts, and `attach_replay.js` makes it the input's only file: the replay
//!   never leaves the browser.
//! - **Drop.** `dragenter`, `dragover` and `drop` are dispatched at the element under the
//!   point (`ghostlight-page`'s `scripts/input/drop.js`, in the page's main world:
//!   untrusted events, as with WebDriver, the same on every engine), after the point is hit
//!   tested and checked against the gate as for a click.

use std::borrow::Cow;
use std::time::Duration;

use ghostlight_core::port::{
    ElementRef, Gate, InlineFile, PageState, Point, PointerTarget, PortError, PortErrorKind, PortResult,
    TabRef, UPLOAD_TOTAL_MAX_BYTES, UploadDestination, UploadFiles, UploadInput, UploadOutcome,
};
use ghostlight_page::bounds::NAME_MAX_CHARS;
use ghostlight_page::upload::{input_checked, page_files, read_files};
use serde::Deserialize;
use serde_json::json;

use super::{
    ATTACH, ATTACH_REPLAY, Arg, Place, ScriptArg, UPLOAD, pointer, random_token, run_input, run_script,
};
use crate::browser::{ExtensionBrowser, OP_WAIT};
use crate::convert::page_state;
use crate::protocol::{Op, WirePage};

/// The drop script.
const DROP_JS: &str = ghostlight_page::scripts::input::DROP_BODY;
/// The token the extension replaces with the held text (a JavaScript expression in a page
/// script, a JSON value among a page call's arguments).
pub(crate) const STASH_MARKER: &str = "__ghostlight_stash__";
/// The most characters of one part (well under native messaging's 1 MB per message).
const PART_CHARS: usize = 512 * 1024;

/// An upload script's answer (the drop's, or the file input check's).
#[derive(Debug, Deserialize)]
struct Answer {
    status: String,
    #[serde(default)]
    accepted: bool,
}

/// Upload files (see the module docs).
pub(crate) async fn upload(
    b: &ExtensionBrowser,
    tab: &TabRef,
    input: &UploadInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<UploadOutcome> {
    let id = b.tab_id(tab)?;
    // Local work first: nothing reaches the page when a file is missing or too large.
    let files = loaded(&input.files).await?;
    let bytes: u64 = files.iter().map(|file| file.bytes.len() as u64).sum();
    if files.is_empty() || bytes > UPLOAD_TOTAL_MAX_BYTES {
        return Err(PortError::new(PortErrorKind::InvalidInput, "the files to upload are none or too large"));
    }
    let page = match &input.to {
        UploadDestination::Input(element) => to_input(b, id, element, &files, timeout).await?,
        UploadDestination::Drop(point) => drop_at(b, id, *point, &files, gate, timeout).await?,
    };
    Ok(UploadOutcome { count: files.len(), bytes, page })
}

/// The files' bytes: inline files as given, local paths read (each still its own real path
/// and a regular file, as core checked them).
async fn loaded(files: &UploadFiles) -> PortResult<Cow<'_, [InlineFile]>> {
    match files {
        UploadFiles::Inline(files) => Ok(Cow::Borrowed(files)),
        UploadFiles::Paths(paths) => {
            let paths = paths.clone();
            let read = tokio::task::spawn_blocking(move || read_files(&paths))
                .await
                .map_err(|_| PortError::new(PortErrorKind::Other, "reading files failed"))??;
            Ok(Cow::Owned(read))
        }
    }
}

/// Attach `files` to the file input `element` names: the page afterwards.
async fn to_input(
    b: &ExtensionBrowser,
    tab: i64,
    element: &ElementRef,
    files: &[InlineFile],
    timeout: Duration,
) -> PortResult<PageState> {
    let place = Place::of(tab, element)?;
    let options = json!({ "count": files.len(), "state": false, "cap": NAME_MAX_CHARS });
    let args = vec![ScriptArg::Element(element.clone()), ScriptArg::Json(options)];
    let checked: Answer = run_input(b, tab, place, UPLOAD, args, timeout).await?;
    input_checked(&checked.status)?;
    // The input was cleared: from here on the effect is unknown when anything fails.
    let attached = async {
        let key = stash(b, &page_files(files).to_string()).await?;
        let args = vec![ScriptArg::Element(element.clone()), ScriptArg::Held(key)];
        let _count: usize = run_input(b, tab, place, ATTACH, args, timeout).await?;
        page_state(b.call::<WirePage>(Op::Page { tab, gate: false }, OP_WAIT).await?)
    };
    attached.await.map_err(PortError::effect_unknown)
}

/// Attach the replay the extension holds under `key` to the file input `element` names, as
/// `name`: whether the element is a file input.
pub(crate) async fn attach_replay(
    b: &ExtensionBrowser,
    tab: i64,
    element: &ElementRef,
    key: String,
    name: &str,
    timeout: Duration,
) -> PortResult<bool> {
    let place = Place::of(tab, element)?;
    let args = vec![ScriptArg::Element(element.clone()), ScriptArg::Held(key), ScriptArg::Json(json!(name))];
    run_input(b, tab, place, ATTACH_REPLAY, args, timeout).await
}

/// Drop `files` at a viewport point (hit tested and checked against `gate` first): the page
/// afterwards.
async fn drop_at(
    b: &ExtensionBrowser,
    tab: i64,
    point: Point,
    files: &[InlineFile],
    gate: &Gate,
    timeout: Duration,
) -> PortResult<PageState> {
    let at = pointer::checked_point(b, tab, &PointerTarget::Point(point), gate, timeout).await?;
    let key = stash(b, &page_files(files).to_string()).await?;
    let options = json!({ "state": false, "cap": NAME_MAX_CHARS });
    let args = [
        Arg::Json(json!({ "x": at.x, "y": at.y })),
        Arg::Expression(STASH_MARKER.into()),
        Arg::Json(options),
    ];
    let (dropped, page): (Answer, _) =
        run_script(b, tab, DROP_JS, &args, Some(key), timeout).await.map_err(PortError::effect_unknown)?;
    match (dropped.status.as_str(), dropped.accepted) {
        ("ok", true) => Ok(page),
        ("ok", false) => {
            Err(PortError::new(PortErrorKind::InvalidInput, "nothing at the point accepts dropped files"))
        }
        ("outside", _) => {
            Err(PortError::new(PortErrorKind::InvalidInput, "the point is outside the viewport"))
        }
        _ => Err(PortError::new(PortErrorKind::Other, "the drop script answered an unknown status")),
    }
}

/// Hand `text` to the extension in parts under a fresh key (the extension keeps one key at a
/// time and splices it into the next page script that names the marker).
async fn stash(b: &ExtensionBrowser, text: &str) -> PortResult<String> {
    let key = random_token();
    let mut rest = text;
    let mut first = true;
    while first || !rest.is_empty() {
        let mut end = rest.len().min(PART_CHARS);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let (part, tail) = rest.split_at(end);
        let op = Op::StashPart { key: key.clone(), part: part.to_owned(), first };
        b.call::<serde_json::Value>(op, OP_WAIT).await?;
        rest = tail;
        first = false;
    }
    Ok(key)
}
