//! Uploads through the extension: files dropped at a viewport point.
//!
//! The bytes are carried into the page and made into `File`s of a `DataTransfer` there, and
//! `dragenter`, `dragover` and `drop` are dispatched at the element under the point (the
//! WebDriver adapter's `scripts/input/drop.js`: untrusted events, as with WebDriver, the same
//! on every engine). Native messaging carries at most 1 MB per message to the extension, so
//! the files (base64 in JSON) travel in parts of [`PART_CHARS`] that the extension holds under
//! one key and splices into the drop script ([`STASH_MARKER`]), bounded by
//! [`UPLOAD_TOTAL_MAX_BYTES`].
//!
//! Not done: attaching files to a file input (an element target;
//! Chromium refuses `DOM.setFileInputFiles` to extensions, so it will be the same
//! `DataTransfer` assigned to the input's `files`), and local paths (the connector does not
//! read local files yet).

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ghostlight_core::port::{
    Gate, InlineFile, PointerTarget, PortError, PortErrorKind, PortResult, TabRef, UPLOAD_TOTAL_MAX_BYTES,
    UploadDestination, UploadFiles, UploadInput, UploadOutcome,
};
use serde::Deserialize;
use serde_json::json;

use super::{Arg, NAME_CAP, pointer, random_token, run_script};
use crate::browser::{ExtensionBrowser, OP_WAIT};
use crate::convert::unsupported;
use crate::protocol::Op;

/// The drop script.
const DROP_JS: &str = include_str!("../../page-scripts/input/drop.js");

/// The token the extension replaces with the held parts (a JavaScript expression there).
pub(crate) const STASH_MARKER: &str = "__ghostlight_stash__";
/// The most characters of one part (well under native messaging's 1 MB per message).
const PART_CHARS: usize = 512 * 1024;

/// The drop script's answer.
#[derive(Debug, Deserialize)]
struct Dropped {
    status: String,
    #[serde(default)]
    accepted: bool,
}

/// Upload files (see the module docs for what is done).
pub(crate) async fn upload(
    b: &ExtensionBrowser,
    tab: &TabRef,
    input: &UploadInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<UploadOutcome> {
    let point = match &input.to {
        UploadDestination::Input(_) => return Err(unsupported("attaching files to a file input")),
        UploadDestination::Drop(point) => *point,
    };
    let UploadFiles::Inline(files) = &input.files else {
        return Err(unsupported("uploading local files"));
    };
    let bytes: u64 = files.iter().map(|file| file.bytes.len() as u64).sum();
    if files.is_empty() || bytes > UPLOAD_TOTAL_MAX_BYTES {
        return Err(PortError::new(PortErrorKind::InvalidInput, "the files to drop are none or too large"));
    }
    let id = b.tab_id(tab)?;
    let at = pointer::checked_point(b, id, &PointerTarget::Point(point), gate, timeout).await?;
    let key = stash(b, &encoded(files)).await?;
    let options = json!({ "state": false, "cap": NAME_CAP });
    let args = [
        Arg::Json(json!({ "x": at.x, "y": at.y })),
        Arg::Expression(STASH_MARKER.into()),
        Arg::Json(options),
    ];
    let (dropped, page): (Dropped, _) =
        run_script(b, id, DROP_JS, &args, Some(key), timeout).await.map_err(PortError::effect_unknown)?;
    match (dropped.status.as_str(), dropped.accepted) {
        ("ok", true) => Ok(UploadOutcome { count: files.len(), bytes, page }),
        ("ok", false) => {
            Err(PortError::new(PortErrorKind::InvalidInput, "nothing at the point accepts dropped files"))
        }
        ("outside", _) => {
            Err(PortError::new(PortErrorKind::InvalidInput, "the point is outside the viewport"))
        }
        _ => Err(PortError::new(PortErrorKind::Other, "the drop script answered an unknown status")),
    }
}

/// The files as the drop script takes them: `[{name, type, data (base64)}]`, as JSON text.
fn encoded(files: &[InlineFile]) -> String {
    let files: Vec<_> = files
        .iter()
        .map(|file| json!({ "name": file.name, "type": image_type(&file.name), "data": STANDARD.encode(&file.bytes) }))
        .collect();
    serde_json::Value::Array(files).to_string()
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

/// The MIME type of an image file by its extension (empty for anything else, as browsers
/// leave it when they do not know).
fn image_type(name: &str) -> &'static str {
    let lower = name.to_ascii_lowercase();
    [
        (".png", "image/png"),
        (".jpg", "image/jpeg"),
        (".jpeg", "image/jpeg"),
        (".gif", "image/gif"),
        (".webp", "image/webp"),
    ]
    .iter()
    .find(|(suffix, _)| lower.ends_with(suffix))
    .map_or("", |(_, kind)| kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_encode_with_their_image_types() {
        let text = encoded(&[InlineFile { name: "Shot.PNG".into(), bytes: b"abc".to_vec() }]);
        assert_eq!(text, r#"[{"data":"YWJj","name":"Shot.PNG","type":"image/png"}]"#);
        assert_eq!(image_type("notes.txt"), "");
    }
}
