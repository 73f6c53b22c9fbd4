//! Ghostlight's page scripts, from their one home (`src/scripts/`), for every connector that
//! runs them: this adapter through WebDriver "Execute Script", the extension connector
//! (`ghostlight-extension`) packaged into the extension and run in its isolated world. Roles,
//! accessible names, what is shown and the article heuristic exist only here.
//!
//! Each `*_FN` is one JavaScript function expression (its header documents its arguments and
//! answer); [`DOM_JS`] is the shared DOM semantics the others call, declared after
//! `GL_GENERIC_NAME_CHARS` ([`GENERIC_NAME_CHARS`]). The bounds the adapter passes to them
//! are exported beside them so another connector passes the same ones.

pub use crate::ops::NAME_MAX_CHARS;
pub use crate::ops::perception::{
    ARTICLE_MAX_TEXT_NODES, ARTICLE_MIN_BLOCK_CHARS, ARTICLE_MIN_CHARS, DOCUMENT_MAX_DEPTH,
    PERCEIVE_MAX_ITEMS, QUERY_MAX_CHARS, READ_MAX_CHARS, TEXT_MAX_CHARS,
};
pub use ghostlight_core::port::TARGET_NAME_CHARS as GENERIC_NAME_CHARS;

/// The one DOM semantics: `glVisible`, `glAriaHidden`, `glShownText`, `glRole`,
/// `glIsControl`, `glName`, `glSummary` (declarations; see the script's header).
pub const DOM_JS: &str = include_str!("scripts/dom.js");
/// `glAuthorityUrl(document)`: the URL a document is governed by (its own, or the origin an
/// about: document inherited; `data:,`, which no gate admits, for an opaque one). Declared by
/// every composition of [`DOM_JS`] too.
pub const AUTHORITY_URL_JS: &str = include_str!("scripts/authority_url.js");
/// Perception: `(opts, root) → {items, frames, truncated, focusFrame}`.
pub const PERCEIVE_FN: &str = include_str!("scripts/perceive.js");
/// Text reading (visible text, the article heuristic, one element's text):
/// `(opts, target) → {text, truncated, source}`.
pub const READ_TEXT_FN: &str = include_str!("scripts/read_text.js");
/// Text presence in one document's visible text: `({query}) → bool`.
pub const TEXT_PRESENT_FN: &str = include_str!("scripts/text_present.js");
/// Element presence: `(element) → bool`.
pub const ELEMENT_PRESENT_FN: &str = include_str!("scripts/element_present.js");
/// Where an element sits in the top-level document (scrolling it into view first when asked):
/// `(element, scroll) → {x, y, width, height, complete}`.
pub const CAPTURE_ELEMENT_FN: &str = include_str!("scripts/capture_element.js");
/// The CSS size of the whole scrollable document: `() → {width, height}`.
pub const CAPTURE_PAGE_SIZE_FN: &str = include_str!("scripts/capture_page_size.js");
/// The visible frames of one document, for walks through frame documents: an Execute Script
/// body (no arguments; it `return`s `{url, frames: [element]}`).
pub const FRAMES_HERE_BODY: &str = include_str!("scripts/frames_here.js");
