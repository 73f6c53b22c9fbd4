//! The extension's page API, `page/dom.js` of the extension: composed here from the page
//! scripts and `scripts/page_api.js`, never committed. The extension connector's installer
//! writes it with the extension's other files (`ghostlight_extension::bundle`).
//!
//! Manifest V3 refuses code given as a string in the extension's isolated world, so the
//! scripts travel as a file of the extension, injected with `scripting.executeScript({files})`
//! into the isolated world of a frame document and then called with `func`. The file is one
//! idempotent IIFE that defines the page API once per document, as a non-enumerable global of
//! the isolated world keyed by `Symbol.for('ghostlight.page')`.

use crate::bounds::{
    ARTICLE_MAX_TEXT_NODES, ARTICLE_MIN_BLOCK_CHARS, ARTICLE_MIN_CHARS, DOCUMENT_MAX_DEPTH, NAME_MAX_CHARS,
    PERCEIVE_MAX_ITEMS, QUERY_MAX_CHARS, READ_MAX_CHARS, TEXT_MAX_CHARS,
};
use crate::scripts::{self, input, script};

/// Where the page API sits among the extension's files.
pub const PAGE_API_PATH: &str = "page/dom.js";

/// The extension's page API (see its header): the calls the extension's background makes.
const PAGE_API_JS: &str = script!("page_api.js");

/// The input scripts a frame document runs in the isolated world, by the name the page API
/// calls them with: each body becomes a function reading its `arguments`.
const INPUT_SCRIPTS: [(&str, &str); 8] = [
    ("glInputTarget", input::TARGET_BODY),
    ("glInputFocus", input::FOCUS_BODY),
    ("glInputKeyGuard", input::KEY_GUARD_BODY),
    ("glInputFill", input::FILL_BODY),
    ("glInputScroll", input::SCROLL_BODY),
    ("glInputUpload", input::UPLOAD_BODY),
    ("glInputAttach", input::ATTACH_BODY),
    ("glInputAttachReplay", scripts::ATTACH_REPLAY_BODY),
];

/// The text of `page/dom.js`.
pub fn page_api() -> String {
    let limits = serde_json::json!({
        "nameMax": NAME_MAX_CHARS,
        "textMax": TEXT_MAX_CHARS,
        "perceiveMax": PERCEIVE_MAX_ITEMS,
        "documentMaxDepth": DOCUMENT_MAX_DEPTH,
        "queryMax": QUERY_MAX_CHARS,
        "readMax": READ_MAX_CHARS,
        "minArticle": ARTICLE_MIN_CHARS,
        "minBlock": ARTICLE_MIN_BLOCK_CHARS,
        "maxNodes": ARTICLE_MAX_TEXT_NODES,
    });
    let function = |name: &str, source: &str| format!("const {name} = {};\n", source.trim_end());
    [
        "// Ghostlight's page API, composed from the page scripts of ghostlight-page (scripts/)\n\
         // by ghostlight_page::bundle::page_api.\n\
         (() => {\n'use strict';\n\
         const GL_KEY = Symbol.for('ghostlight.page');\n\
         if (Object.prototype.hasOwnProperty.call(globalThis, GL_KEY)) return;\n"
            .to_owned(),
        format!("const GL_GENERIC_NAME_CHARS = {};\n", scripts::GENERIC_NAME_CHARS),
        format!("const GL_LIMITS = Object.freeze({limits});\n"),
        scripts::DOM_JS.to_owned(),
        scripts::AUTHORITY_URL_JS.to_owned(),
        scripts::FORMS_JS.to_owned(),
        function("glPerceive", scripts::PERCEIVE_FN),
        function("glReadText", scripts::READ_TEXT_FN),
        function("glGate", scripts::GATE_FN),
        function("glTextPresent", scripts::TEXT_PRESENT_FN),
        function("glElementPresent", scripts::ELEMENT_PRESENT_FN),
        function("glCaptureElement", scripts::CAPTURE_ELEMENT_FN),
        function("glCapturePageSize", scripts::CAPTURE_PAGE_SIZE_FN),
        format!("function glFramesHere() {{\n{}}}\n", scripts::FRAMES_HERE_BODY),
        // Input scripts never ask for the page state here (the server reads it).
        "const glPageState = () => null;\n".to_owned(),
        input::LIB_JS.to_owned(),
        INPUT_SCRIPTS.iter().map(|(name, body)| format!("function {name}() {{\n{body}}}\n")).collect(),
        PAGE_API_JS.to_owned(),
        "Object.defineProperty(globalThis, GL_KEY, { value: glPage });\n})();\n".to_owned(),
    ]
    .concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_api_is_one_idempotent_iife_holding_every_script() {
        let api = page_api();
        assert!(api.contains("(() => {\n'use strict';\n"));
        assert!(api.ends_with("Object.defineProperty(globalThis, GL_KEY, { value: glPage });\n})();\n"));
        for (name, _) in INPUT_SCRIPTS {
            assert!(api.contains(&format!("function {name}() {{\n")), "{name}");
        }
        for part in [
            scripts::DOM_JS,
            scripts::PERCEIVE_FN.trim_end(),
            scripts::GATE_FN.trim_end(),
            PAGE_API_JS,
            input::LIB_JS,
        ] {
            assert!(api.contains(part));
        }
        assert!(api.contains(&format!("\"nameMax\":{NAME_MAX_CHARS}")));
    }
}
