//! `browser_upload`: attach explicitly supplied files or one captured image to a file input, or
//! drop the image at a point in a current view.
//!
//! Paths, names and inline data are secrets: they are never echoed in an error and never shown
//! by `Debug`. Governance decides before payload bytes are examined: the decoder checks only
//! the shape of `files` (names, the character bound of `data_base64`), and
//! [`InlineFile::decode_all`] checks the base64 and the byte ceilings after authorization and
//! the credential preflight, so an invocation the authority refuses answers `blocked` whatever
//! its payload.

pub(crate) mod op;

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::authority::Constraint;
use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, DecodeErrorKind, ObjectReader, Pointer, check_text};
use crate::facts::tool_facts;
use crate::handles::{Handle, HandleKind};
use crate::limits::{
    UPLOAD_BASE64_CHARS, UPLOAD_FILE_MAX_BYTES, UPLOAD_FILES, UPLOAD_NAME_CHARS, UPLOAD_PATH_CHARS,
    UPLOAD_PATHS, UPLOAD_TOTAL_MAX_BYTES,
};
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::common::{
    SELECTOR, TAB, TARGET, TIMEOUT_MS, TargetRef, VIEW, ViewPoint, X, Y, read_target, read_timeout,
};

const PATHS: Field = Field::optional(
    "paths",
    FieldType::List { item: &FieldType::Text(UPLOAD_PATH_CHARS), count: UPLOAD_PATHS, unique: true },
    "Absolute local file paths.",
)
.sensitive();
const FILE_NAME: Field =
    Field::required("name", FieldType::Text(UPLOAD_NAME_CHARS), "File name.").sensitive();
const FILE_DATA: Field =
    Field::required("data_base64", FieldType::Text(UPLOAD_BASE64_CHARS), "Contents, standard base64.")
        .sensitive();
const FILE_FIELDS: [Field; 2] = [FILE_NAME, FILE_DATA];
const FILES: Field = Field::optional(
    "files",
    FieldType::List { item: &FieldType::Object(&FILE_FIELDS), count: UPLOAD_FILES, unique: false },
    "Inline files.",
)
.sensitive();
const SOURCE_IMAGE: Field =
    Field::optional("source_image", FieldType::Handle(HandleKind::View), "View whose image to use.");

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    TARGET: NullableStr("target", "File input target (null for a drop)."),
    UPLOADED_COUNT: Int("uploaded_count", "Files delivered."),
    UPLOADED_BYTES: Int("uploaded_bytes", "Bytes delivered."),
    FILE_COUNT: Int("file_count", "Files named."),
    SOURCE_IMAGE: Str("source_image", "View whose image was attached."),
    DECIDED_BY: Str("decided_by", "Which configuration set the upload roots."),
    FILE: Int("file", "1-based file a refusal concerns."),
    BYTES: Int("bytes", "Bytes of the file, the files or the image."),
    LIMIT_BYTES: Int("limit_bytes", "The byte limit reached."),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Upload,
    description: "Attach files or a captured image to a file input, or drop the image at a view point.",
    fields: &[PATHS, FILES, SOURCE_IMAGE, TARGET, SELECTOR, VIEW, X, Y, TAB, TIMEOUT_MS],
    example: r#"{"target":"target_1","paths":["C:\\path\\document.pdf"]}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
};

/// One inline file: a plain name and base64 contents, not yet examined.
#[derive(Clone, PartialEq, Eq)]
pub struct InlineFile {
    name: String,
    data_base64: String,
}

impl InlineFile {
    /// The file name: no `/` or `\`, not `.` or `..`, no NUL (a secret: never show it).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The contents as received, within the character bound and not yet examined (a secret:
    /// decode only after authorization and credential preflight, with [`Self::decode_all`]).
    pub fn data_base64(&self) -> &str {
        &self.data_base64
    }

    /// Decode every file's contents, in order. Call only after authorization and the
    /// credential preflight. Refuses, naming the member and the rule (never the data):
    /// contents that are not canonical, padded standard base64; a file over
    /// [`UPLOAD_FILE_MAX_BYTES`]; files over [`UPLOAD_TOTAL_MAX_BYTES`] together.
    pub fn decode_all(files: &[InlineFile]) -> Result<Vec<Vec<u8>>, DecodeError> {
        let list = Pointer::root().key(FILES.name);
        let mut total: u64 = 0;
        let mut decoded = Vec::with_capacity(files.len());
        for (index, file) in files.iter().enumerate() {
            let at = list.index(index).key(FILE_DATA.name);
            let bytes = STANDARD.decode(&file.data_base64).map_err(|_| {
                DecodeError::new(
                    DecodeErrorKind::InvalidValue,
                    at.clone(),
                    "must be standard base64 (A-Z, a-z, 0-9, +, /), padded with = to a multiple of 4 characters",
                )
            })?;
            let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
            if len > UPLOAD_FILE_MAX_BYTES {
                return Err(DecodeError::new(
                    DecodeErrorKind::InvalidValue,
                    at,
                    format_args!(
                        "decodes to {len} bytes: a file may be at most {UPLOAD_FILE_MAX_BYTES} bytes"
                    ),
                ));
            }
            total = total.saturating_add(len);
            decoded.push(bytes);
        }
        if total > UPLOAD_TOTAL_MAX_BYTES {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                list,
                format_args!(
                    "decode to {total} bytes in total: a combined upload may be at most {UPLOAD_TOTAL_MAX_BYTES} bytes"
                ),
            ));
        }
        Ok(decoded)
    }
}

/// Debug output shows only the size of the text.
impl fmt::Debug for InlineFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InlineFile").field("base64_chars", &self.data_base64.len()).finish_non_exhaustive()
    }
}

/// One decoded upload: exactly one source and the one destination its branch takes.
#[derive(Clone, PartialEq, Eq)]
pub enum Upload {
    /// Attach local files (absolute paths; the executor checks existence, kind and size).
    Paths {
        /// One to five unique absolute local paths (secrets: never show them).
        paths: Vec<String>,
        /// The file input.
        target: TargetRef,
    },
    /// Attach inline files.
    Files {
        /// One to five files with unique names, within the per-file and combined ceilings.
        files: Vec<InlineFile>,
        /// The file input.
        target: TargetRef,
    },
    /// Attach the image captured for a view.
    AttachImage {
        /// The view whose captured image is used.
        image: Handle,
        /// The file input.
        target: TargetRef,
    },
    /// Drop the image captured for a view at a point in a current view.
    DropImage {
        /// The view whose captured image is used.
        image: Handle,
        /// Where to drop it.
        at: ViewPoint,
    },
}

impl Upload {
    /// The file input the upload attaches to (`None` for a drop).
    pub fn target(&self) -> Option<&TargetRef> {
        match self {
            Upload::Paths { target, .. }
            | Upload::Files { target, .. }
            | Upload::AttachImage { target, .. } => Some(target),
            Upload::DropImage { .. } => None,
        }
    }
}

/// Debug output never shows paths, names or data: only counts and sizes.
impl fmt::Debug for Upload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Upload::Paths { paths, target } => {
                f.debug_struct("Paths").field("count", &paths.len()).field("target", target).finish()
            }
            Upload::Files { files, target } => {
                f.debug_struct("Files").field("files", files).field("target", target).finish()
            }
            Upload::AttachImage { image, target } => {
                f.debug_struct("AttachImage").field("image", image).field("target", target).finish()
            }
            Upload::DropImage { image, at } => {
                f.debug_struct("DropImage").field("image", image).field("at", at).finish()
            }
        }
    }
}

/// A decoded `browser_upload` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadRequest {
    /// What is uploaded, and where.
    pub upload: Upload,
    /// The explicitly named tab, if any.
    pub tab: Option<Handle>,
    /// Timeout in milliseconds.
    pub timeout_ms: u64,
}

impl Tool for UploadRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;

    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError> {
        decode(reader)
    }

    /// `write`.
    fn capabilities(&self) -> CapabilitySet {
        CapabilitySet::of(&[Capability::Write])
    }

    /// The explicitly named tab.
    fn tab(&self) -> Option<&Handle> {
        self.tab.as_ref()
    }

    /// Credential-class targets stop the call before any value is dispatched.
    fn constraints(&self) -> &'static [Constraint] {
        &[Constraint::CredentialPreflight]
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<UploadRequest, DecodeError> {
    let paths = reader.list(&PATHS, read_path)?;
    let files = reader.list(&FILES, read_file)?;
    let image = reader.handle(&SOURCE_IMAGE)?;
    let target = read_target(reader, &TARGET, &SELECTOR)?;
    let view = reader.handle(&VIEW)?;
    let x = reader.int(&X)?;
    let y = reader.int(&Y)?;
    let tab = reader.handle(&TAB)?;
    let timeout_ms = read_timeout(reader)?;

    // Exactly one source.
    let sources = [(&PATHS, paths.is_some()), (&FILES, files.is_some()), (&SOURCE_IMAGE, image.is_some())];
    let mut given = sources.iter().filter(|(_, present)| *present).map(|(field, _)| *field);
    match (given.next(), given.next()) {
        (None, _) => return Err(reader.missing_one_of(&[&PATHS, &FILES, &SOURCE_IMAGE])),
        (Some(first), Some(second)) => return Err(reader.conflict(second, first)),
        (Some(_), None) => {}
    }

    // A drop point belongs to source_image alone, and replaces the destination.
    let point_field = [(&VIEW, view.is_some()), (&X, x.is_some()), (&Y, y.is_some())]
        .into_iter()
        .find(|(_, present)| *present)
        .map(|(field, _)| field);
    if image.is_none()
        && let Some(field) = point_field
    {
        return Err(reader.not_here(field, "is valid only with /source_image, to drop it at a point"));
    }
    let point = match (view, x, y) {
        (None, None, None) => None,
        (Some(view), Some(x), Some(y)) => Some(ViewPoint { view, x, y }),
        (None, _, _) => return Err(reader.missing(&VIEW)),
        (Some(_), None, _) => return Err(reader.missing(&X)),
        (Some(_), Some(_), None) => return Err(reader.missing(&Y)),
    };
    let target = match (point.is_some(), target) {
        (true, Some(target)) => {
            let field = if matches!(target, TargetRef::Handle(_)) { &TARGET } else { &SELECTOR };
            return Err(reader.conflict(field, &VIEW));
        }
        (true, None) => None,
        (false, Some(target)) => Some(target),
        (false, None) => return Err(reader.missing_one_of(&[&TARGET, &SELECTOR])),
    };

    let upload = match (paths, files, image, target, point) {
        (Some(paths), _, _, Some(target), _) => Upload::Paths { paths, target },
        (_, Some(files), _, Some(target), _) => {
            check_names_unique(reader, &files)?;
            Upload::Files { files, target }
        }
        (_, _, Some(image), Some(target), _) => Upload::AttachImage { image, target },
        (_, _, Some(image), None, Some(at)) => Upload::DropImage { image, at },
        // Unreachable after the checks above; refused rather than panicking.
        _ => return Err(reader.missing_one_of(&[&TARGET, &SELECTOR])),
    };
    Ok(UploadRequest { upload, tab, timeout_ms })
}

/// One `paths` item: bounded, no NUL, absolute (POSIX `/…`, Windows `C:\…` or `C:/…`, UNC
/// `\\server\share…`). Messages never contain the path.
fn read_path(value: &Value, at: Pointer) -> Result<String, DecodeError> {
    let path = check_text(value, UPLOAD_PATH_CHARS, &at, true)?;
    if path.contains('\0') {
        return Err(DecodeError::new(DecodeErrorKind::InvalidValue, at, "must not contain NUL characters"));
    }
    if !is_absolute_path(&path) {
        return Err(DecodeError::new(
            DecodeErrorKind::InvalidValue,
            at,
            r"must be an absolute local path: /…, C:\… (or C:/…) or \\server\share…",
        ));
    }
    Ok(path)
}

fn is_absolute_path(path: &str) -> bool {
    if path.starts_with('/') {
        return true;
    }
    let mut chars = path.chars();
    if let (Some(drive), Some(':'), Some('\\' | '/')) = (chars.next(), chars.next(), chars.next())
        && drive.is_ascii_alphabetic()
    {
        return true;
    }
    if let Some(rest) = path.strip_prefix(r"\\") {
        let mut parts = rest.split('\\');
        let server = parts.next().unwrap_or_default();
        let share = parts.next().unwrap_or_default();
        return !server.is_empty() && !share.is_empty();
    }
    false
}

/// One `files` item: a closed `{name, data_base64}` object.
fn read_file(value: &Value, at: Pointer) -> Result<InlineFile, DecodeError> {
    let mut item = ObjectReader::new(value, at, &FILE_FIELDS, false)?;
    let name = item.text(&FILE_NAME)?;
    let data = item.text(&FILE_DATA)?;
    let name = name.ok_or_else(|| item.missing(&FILE_NAME))?;
    let data_base64 = data.ok_or_else(|| item.missing(&FILE_DATA))?;
    if name.contains(['/', '\\', '\0']) || name == "." || name == ".." {
        return Err(item.invalid(
            &FILE_NAME,
            DecodeErrorKind::InvalidValue,
            r"must be a plain file name: no /, \ or NUL, and not . or ..",
        ));
    }
    item.finish();
    Ok(InlineFile { name, data_base64 })
}

/// File names must be unique, ignoring case (they may land on a case-insensitive file system).
fn check_names_unique(reader: &ObjectReader<'_>, files: &[InlineFile]) -> Result<(), DecodeError> {
    let folded: Vec<String> = files.iter().map(|file| file.name.to_lowercase()).collect();
    for (index, name) in folded.iter().enumerate() {
        if folded.iter().take(index).any(|earlier| earlier == name) {
            return Err(DecodeError::new(
                DecodeErrorKind::Duplicate,
                reader.pointer(&FILES).index(index).key(FILE_NAME.name),
                "repeats an earlier file name (ignoring case): names must be unique",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::json;

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::limits;
    use crate::selector::Selector;
    use crate::tools::testing::{accept, int_edges, refuse, with};

    const T: ToolName = ToolName::Upload;

    fn decoded(arguments: Value) -> UploadRequest {
        match accept(T, arguments) {
            Request::Upload(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    fn handle(text: &str, kind: HandleKind) -> Handle {
        match Handle::parse(text, kind) {
            Ok(handle) => handle,
            Err(error) => panic!("{error:?}"),
        }
    }

    fn target1() -> TargetRef {
        TargetRef::Handle(handle("target_1", HandleKind::Target))
    }

    /// Canonical base64 of `n` zero bytes, built without an encoder.
    fn zeros(n: usize) -> String {
        let mut text = "AAAA".repeat(n / 3);
        text.push_str(match n % 3 {
            1 => "AA==",
            2 => "AAA=",
            _ => "",
        });
        text
    }

    /// Refuse and check the message never contains `secret`.
    #[track_caller]
    fn refuse_quietly(arguments: Value, pointer: &str, kind: K, secret: &str) {
        let error = refuse(T, arguments, pointer, kind);
        assert!(!error.message().contains(secret), "{}", error.message());
    }

    #[test]
    fn example_and_paths() {
        let request = decoded(json!({"target": "target_1", "paths": ["C:\\path\\document.pdf"]}));
        assert_eq!(
            request.upload,
            Upload::Paths { paths: vec![r"C:\path\document.pdf".into()], target: target1() }
        );
        assert_eq!(request.capabilities(), CapabilitySet::of(&[Capability::Write]));
        assert_eq!(request.tab(), None);
        assert_eq!(request.timeout_ms, 8_000);
        assert_eq!(request.upload.target(), Some(&target1()));
        let all = [
            "/home/ada/report.pdf",
            r"C:\Users\Ada\a.png",
            "c:/Users/Ada/a.png",
            r"\\server\share\a.txt",
            r"\\server\share",
            "/",
        ];
        let request = decoded(json!({"selector": {"name": "Attach"}, "paths": &all[..5], "tab": "tab_1"}));
        assert_eq!(
            request.upload,
            Upload::Paths {
                paths: all[..5].iter().map(|p| p.to_string()).collect(),
                target: TargetRef::Selector(Selector { name: "Attach".into(), role: None, exact: false }),
            }
        );
        assert_eq!(request.tab().map(Handle::as_str), Some("tab_1"));
        decoded(json!({"target": "target_1", "paths": [all[5]]}));
    }

    #[test]
    fn path_refusals() {
        let base = json!({"target": "target_1"});
        for relative in [
            "doc.pdf",
            "./doc.pdf",
            "../doc.pdf",
            "C:doc.pdf",
            r"\doc.pdf",
            r"\\server",
            r"\\server\",
            "~/doc.pdf",
            "1:/x",
        ] {
            let error = refuse(T, with(&base, "paths", json!([relative])), "/paths/0", K::InvalidValue);
            assert_eq!(
                error.message(),
                r"/paths/0 must be an absolute local path: /…, C:\… (or C:/…) or \\server\share…"
            );
        }
        refuse_quietly(
            with(&base, "paths", json!(["/ok", "/tmp/se\u{0}cret"])),
            "/paths/1",
            K::InvalidValue,
            "cret",
        );
        refuse_quietly(
            with(&base, "paths", json!(["/secret/a", "/secret/a"])),
            "/paths/1",
            K::Duplicate,
            "secret",
        );
        refuse(T, with(&base, "paths", json!([""])), "/paths/0", K::Length);
        refuse(T, with(&base, "paths", json!([7])), "/paths/0", K::WrongType);
        refuse_quietly(with(&base, "paths", json!("/secret/a")), "/paths", K::WrongType, "secret");
        // Item length edges (characters, not bytes).
        let longest = format!("/{}", "é".repeat(UPLOAD_PATH_CHARS.max - 1));
        decoded(with(&base, "paths", json!([longest])));
        let too_long = format!("/{}", "é".repeat(UPLOAD_PATH_CHARS.max));
        refuse(T, with(&base, "paths", json!([too_long])), "/paths/0", K::Length);
        // Count edges.
        let paths = |n: usize| json!((0..n).map(|i| format!("/f{i}")).collect::<Vec<_>>());
        refuse(T, with(&base, "paths", paths(0)), "/paths", K::Length);
        decoded(with(&base, "paths", paths(UPLOAD_PATHS.min)));
        decoded(with(&base, "paths", paths(UPLOAD_PATHS.max)));
        refuse(T, with(&base, "paths", paths(UPLOAD_PATHS.max + 1)), "/paths", K::Length);
    }

    #[test]
    fn inline_files() {
        let request = decoded(json!({
            "target": "target_1",
            "files": [{"name": "a.txt", "data_base64": "Zm9v"}, {"name": "b.txt", "data_base64": "Zm8="},
                      {"name": "c", "data_base64": "Zg=="}, {"name": "empty", "data_base64": ""}]
        }));
        let Upload::Files { files, target } = &request.upload else { panic!("{request:?}") };
        assert_eq!(target, &target1());
        let seen: Vec<(&str, &str)> = files.iter().map(|f| (f.name(), f.data_base64())).collect();
        assert_eq!(seen, [("a.txt", "Zm9v"), ("b.txt", "Zm8="), ("c", "Zg=="), ("empty", "")]);
        let bytes = InlineFile::decode_all(files).map_err(|e| e.to_string());
        assert_eq!(bytes, Ok(vec![b"foo".to_vec(), b"fo".to_vec(), b"f".to_vec(), vec![]]));
        // Debug shows sizes, never names or data.
        let shown = format!("{request:?}");
        assert!(!shown.contains("a.txt") && !shown.contains("Zm9v"), "{shown}");

        let base = json!({"target": "target_1"});
        let file = |name: &str, data: &str| json!({"name": name, "data_base64": data});
        // Count edges.
        let files = |n: usize| json!((0..n).map(|i| file(&format!("f{i}"), "")).collect::<Vec<_>>());
        refuse(T, with(&base, "files", files(0)), "/files", K::Length);
        decoded(with(&base, "files", files(UPLOAD_FILES.min)));
        decoded(with(&base, "files", files(UPLOAD_FILES.max)));
        refuse(T, with(&base, "files", files(UPLOAD_FILES.max + 1)), "/files", K::Length);
        // Names.
        for bad in ["a/b", r"a\b", ".", "..", "nu\u{0}l"] {
            let error =
                refuse(T, with(&base, "files", json!([file(bad, "")])), "/files/0/name", K::InvalidValue);
            assert_eq!(
                error.message(),
                r"/files/0/name must be a plain file name: no /, \ or NUL, and not . or .."
            );
        }
        decoded(with(&base, "files", json!([file("...", ""), file(".hidden", "")])));
        refuse_quietly(
            with(&base, "files", json!([file("Secret.txt", ""), file("secret.TXT", "")])),
            "/files/1/name",
            K::Duplicate,
            "ecret",
        );
        refuse(T, with(&base, "files", json!([file("", "")])), "/files/0/name", K::Length);
        decoded(with(&base, "files", json!([file(&"é".repeat(UPLOAD_NAME_CHARS.max), "")])));
        refuse(
            T,
            with(&base, "files", json!([file(&"é".repeat(UPLOAD_NAME_CHARS.max + 1), "")])),
            "/files/0/name",
            K::Length,
        );
        refuse(T, with(&base, "files", json!([{"data_base64": ""}])), "/files/0/name", K::MissingField);
        refuse(T, with(&base, "files", json!([{"name": "a"}])), "/files/0/data_base64", K::MissingField);
        refuse(
            T,
            with(&base, "files", json!([{"name": "a", "data_base64": "", "mime": "x"}])),
            "/files/0/mime",
            K::UnknownField,
        );
        refuse(T, with(&base, "files", json!(["a"])), "/files/0", K::WrongType);
        refuse_quietly(
            with(&base, "files", json!([{"name": 12345, "data_base64": ""}])),
            "/files/0/name",
            K::WrongType,
            "12345",
        );
    }

    /// The files of a decoded request (the decoder never examines their contents).
    fn inline(arguments: Value) -> Vec<InlineFile> {
        match decoded(arguments).upload {
            Upload::Files { files, .. } => files,
            other => panic!("{other:?}"),
        }
    }

    /// `decode_all` refuses at `pointer` with `message`, never echoing the data.
    #[track_caller]
    fn refuse_bytes(files: &[InlineFile], pointer: &str, message: &str) {
        match InlineFile::decode_all(files) {
            Ok(_) => panic!("decoded {files:?}"),
            Err(error) => {
                assert_eq!((error.pointer().as_str(), error.kind()), (pointer, K::InvalidValue));
                assert_eq!(error.message(), message);
            }
        }
    }

    #[test]
    fn base64_is_examined_only_by_decode_all() {
        let base = json!({"target": "target_1"});
        for bad in [
            "Zm9",
            "Zm9vY",
            "Zm=v",
            "Z===",
            "====",
            "=Zm9",
            "Zm9v\n",
            "Zm 9",
            "Zm9-",
            "Zm9_",
            "Zm9=",
            "Zh==",
            "AR==",
            "Zm9vé===",
        ] {
            // The decoder admits the shape: governance decides before the bytes are examined.
            let files = inline(with(
                &base,
                "files",
                json!([{"name": "a", "data_base64": "Zm9v"}, {"name": "b", "data_base64": bad}]),
            ));
            refuse_bytes(
                &files,
                "/files/1/data_base64",
                "/files/1/data_base64 must be standard base64 (A-Z, a-z, 0-9, +, /), \
                 padded with = to a multiple of 4 characters",
            );
        }
    }

    #[test]
    fn base64_decodes_every_byte() {
        let all: Vec<u8> = (0..=255).collect();
        let files = inline(
            json!({"target": "target_1", "files": [{"name": "a", "data_base64": STANDARD.encode(&all)}]}),
        );
        assert_eq!(InlineFile::decode_all(&files).map_err(|e| e.to_string()), Ok(vec![all]));
        assert_eq!(STANDARD.decode("+/+/").ok(), Some(vec![0xfb, 0xff, 0xbf]));
    }

    #[test]
    fn byte_ceilings() {
        let base = json!({"target": "target_1"});
        let one = |data: String| inline(with(&base, "files", json!([{"name": "a", "data_base64": data}])));
        let max = usize::try_from(UPLOAD_FILE_MAX_BYTES).unwrap_or(usize::MAX);
        let at_most = InlineFile::decode_all(&one(zeros(max))).map_err(|e| e.to_string());
        assert_eq!(at_most.map(|files| files.iter().map(Vec::len).collect::<Vec<_>>()), Ok(vec![max]));
        // One byte over: still within the character bound, refused once decoded.
        let over = zeros(max + 1);
        assert!(UPLOAD_BASE64_CHARS.contains(over.len()));
        refuse_bytes(
            &one(over),
            "/files/0/data_base64",
            "/files/0/data_base64 decodes to 5000001 bytes: a file may be at most 5000000 bytes",
        );
        // Beyond the character bound: a schema rule, refused by the decoder.
        refuse(
            T,
            with(&base, "files", json!([{"name": "a", "data_base64": zeros(max + 3)}])),
            "/files/0/data_base64",
            K::Length,
        );
        // Combined payload: at the ceiling accepted, one byte over refused.
        let half = max / 2;
        let two = |a: usize, b: usize| {
            inline(with(
                &base,
                "files",
                json!([{"name": "a", "data_base64": zeros(a)}, {"name": "b", "data_base64": zeros(b)}]),
            ))
        };
        assert!(InlineFile::decode_all(&two(half, max - half)).is_ok());
        refuse_bytes(
            &two(half, max - half + 1),
            "/files",
            "/files decode to 5000001 bytes in total: a combined upload may be at most 5000000 bytes",
        );
    }

    #[test]
    fn source_image() {
        let image = handle("view_1", HandleKind::View);
        let request = decoded(json!({"source_image": "view_1", "target": "target_1"}));
        assert_eq!(request.upload, Upload::AttachImage { image: image.clone(), target: target1() });
        let request = decoded(json!({"source_image": "view_1", "view": "view_2", "x": 10, "y": 20}));
        assert_eq!(
            request.upload,
            Upload::DropImage {
                image,
                at: ViewPoint { view: handle("view_2", HandleKind::View), x: 10, y: 20 },
            }
        );
        assert_eq!(request.upload.target(), None);
        assert_eq!(request.capabilities(), CapabilitySet::of(&[Capability::Write]));

        refuse(T, json!({"source_image": "view_1"}), "/target", K::MissingField);
        refuse(
            T,
            json!({"source_image": "target_1", "target": "target_1"}),
            "/source_image",
            K::InvalidHandle,
        );
        refuse(T, json!({"source_image": "snap_1", "target": "target_1"}), "/source_image", K::InvalidHandle);
        let point = json!({"source_image": "view_1", "view": "view_2", "x": 1, "y": 2});
        let error = refuse(T, with(&point, "target", json!("target_1")), "/target", K::Conflict);
        assert_eq!(error.message(), "/target cannot be combined with /view");
        refuse(T, with(&point, "selector", json!({"name": "Drop"})), "/selector", K::Conflict);
        refuse(T, json!({"source_image": "view_1", "view": "view_2"}), "/x", K::MissingField);
        refuse(T, json!({"source_image": "view_1", "view": "view_2", "x": 1}), "/y", K::MissingField);
        refuse(T, json!({"source_image": "view_1", "x": 1, "y": 2}), "/view", K::MissingField);
        refuse(T, json!({"source_image": "view_1", "view": "view_2", "x": 1, "y": -1}), "/y", K::OutOfRange);
        refuse(
            T,
            json!({"source_image": "view_1", "view": "view_2", "x": limits::COORDINATE.max + 1, "y": 0}),
            "/x",
            K::OutOfRange,
        );
        decoded(json!({"source_image": "view_1", "view": "view_2", "x": limits::COORDINATE.max, "y": 0}));
    }

    #[test]
    fn source_and_destination_combinations() {
        refuse(T, json!({"target": "target_1"}), "/paths", K::MissingField);
        refuse(T, json!({}), "/paths", K::MissingField);
        let file = json!([{"name": "a", "data_base64": ""}]);
        refuse(T, json!({"target": "target_1", "paths": ["/a"], "files": file}), "/files", K::Conflict);
        refuse(
            T,
            json!({"target": "target_1", "paths": ["/a"], "source_image": "view_1"}),
            "/source_image",
            K::Conflict,
        );
        refuse(
            T,
            json!({"target": "target_1", "files": file, "source_image": "view_1"}),
            "/source_image",
            K::Conflict,
        );
        // A drop point only with source_image.
        let error =
            refuse(T, json!({"target": "target_1", "paths": ["/a"], "view": "view_1"}), "/view", K::Conflict);
        assert_eq!(error.message(), "/view is valid only with /source_image, to drop it at a point");
        refuse(T, json!({"target": "target_1", "files": file, "x": 1}), "/x", K::Conflict);
        refuse(T, json!({"target": "target_1", "files": file, "y": 1}), "/y", K::Conflict);
        // Destination required for paths and files; target and selector are exclusive.
        refuse(T, json!({"paths": ["/a"]}), "/target", K::MissingField);
        refuse(T, json!({"files": file}), "/target", K::MissingField);
        refuse(
            T,
            json!({"paths": ["/a"], "target": "target_1", "selector": {"name": "A"}}),
            "/selector",
            K::Conflict,
        );
        refuse(
            T,
            json!({"paths": ["/a"], "selector": {"name": "A", "nth": 2}}),
            "/selector/nth",
            K::UnknownField,
        );
        refuse(T, json!({"paths": ["/a"], "target": "tab_1"}), "/target", K::InvalidHandle);
        refuse(T, json!({"paths": ["/a"], "target": "target_1", "tab": "view_1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"paths": ["/a"], "target": "target_1", "path": "/a"}), "/path", K::UnknownField);
    }

    #[test]
    fn timeout_edges() {
        int_edges(T, json!({"target": "target_1", "paths": ["/a"]}), "timeout_ms", limits::TIMEOUT_MS);
    }

    #[test]
    fn every_declared_field_is_read() {
        accept(T, json!({"target": "target_1", "files": [{"name": "a", "data_base64": ""}]}));
    }
}
