//! The page API packaged into the extension (`extension/page/dom.js`), generated from the
//! shared page scripts of `ghostlight-webdriver` (their one home, [`page_scripts`]) and this
//! crate's `src/page_api.js`.
//!
//! Manifest V3 refuses code given as a string in the extension's isolated world, so the
//! scripts travel as a file of the extension, injected with `scripting.executeScript({files})`
//! into the isolated world of a frame document and then called with `func` (see
//! `extension/README.md`). The file is committed (people load the folder unpacked); the test
//! here fails when it differs from what the sources compose, and
//! `GHOSTLIGHT_BLESS=1 cargo test -p ghostlight-extension --lib page` rewrites it.

use ghostlight_webdriver::page_scripts;

/// The packaged file, relative to the repository's `extension/` folder.
const BUNDLE_PATH: &str = "page/dom.js";
/// The extension's page API (see its header).
const PAGE_API_JS: &str = include_str!("page_api.js");
/// The input helpers, and the input scripts a frame document runs in the isolated world
/// (see `crate::input::Place`): each body becomes a function reading its `arguments`.
const INPUT_LIB_JS: &str = include_str!("../page-scripts/input/lib.js");
const INPUT_SCRIPTS: [(&str, &str); 8] = [
    ("glInputTarget", include_str!("../page-scripts/input/target.js")),
    ("glInputFocus", include_str!("../page-scripts/input/focus.js")),
    ("glInputKeyGuard", include_str!("../page-scripts/input/key_guard.js")),
    ("glInputFill", include_str!("../page-scripts/input/fill.js")),
    ("glInputScroll", include_str!("../page-scripts/input/scroll.js")),
    ("glInputUpload", include_str!("../page-scripts/input/upload.js")),
    ("glInputAttach", include_str!("../page-scripts/input/attach.js")),
    ("glInputAttachReplay", include_str!("../page-scripts/attach_replay.js")),
];

/// The bundle: one idempotent IIFE that defines the page API once per document, as a
/// non-enumerable global of the isolated world keyed by `Symbol.for('ghostlight.page')`.
fn bundle() -> String {
    let limits = serde_json::json!({
        "nameMax": page_scripts::NAME_MAX_CHARS,
        "textMax": page_scripts::TEXT_MAX_CHARS,
        "perceiveMax": page_scripts::PERCEIVE_MAX_ITEMS,
        "documentMaxDepth": page_scripts::DOCUMENT_MAX_DEPTH,
        "queryMax": page_scripts::QUERY_MAX_CHARS,
        "readMax": page_scripts::READ_MAX_CHARS,
        "minArticle": page_scripts::ARTICLE_MIN_CHARS,
        "minBlock": page_scripts::ARTICLE_MIN_BLOCK_CHARS,
        "maxNodes": page_scripts::ARTICLE_MAX_TEXT_NODES,
    });
    let function = |name: &str, source: &str| format!("const {name} = {};\n", source.trim_end());
    [
        "// GENERATED from ghostlight-webdriver/src/scripts/*.js and ghostlight-extension/src/page_api.js\n\
         // by ghostlight-extension/src/page.rs: do not edit. Regenerate with\n\
         // `GHOSTLIGHT_BLESS=1 cargo test -p ghostlight-extension --lib page`.\n\
         (() => {\n'use strict';\n\
         const GL_KEY = Symbol.for('ghostlight.page');\n\
         if (Object.prototype.hasOwnProperty.call(globalThis, GL_KEY)) return;\n"
            .to_owned(),
        format!("const GL_GENERIC_NAME_CHARS = {};\n", page_scripts::GENERIC_NAME_CHARS),
        format!("const GL_LIMITS = Object.freeze({limits});\n"),
        page_scripts::DOM_JS.to_owned(),
        page_scripts::AUTHORITY_URL_JS.to_owned(),
        function("glPerceive", page_scripts::PERCEIVE_FN),
        function("glReadText", page_scripts::READ_TEXT_FN),
        function("glTextPresent", page_scripts::TEXT_PRESENT_FN),
        function("glElementPresent", page_scripts::ELEMENT_PRESENT_FN),
        function("glCaptureElement", page_scripts::CAPTURE_ELEMENT_FN),
        function("glCapturePageSize", page_scripts::CAPTURE_PAGE_SIZE_FN),
        format!("function glFramesHere() {{\n{}}}\n", page_scripts::FRAMES_HERE_BODY),
        // Input scripts never ask for the page state here (the server reads it).
        "const glPageState = () => null;\n".to_owned(),
        INPUT_LIB_JS.to_owned(),
        INPUT_SCRIPTS.iter().map(|(name, body)| format!("function {name}() {{\n{body}}}\n")).collect(),
        PAGE_API_JS.to_owned(),
        "Object.defineProperty(globalThis, GL_KEY, { value: glPage });\n})();\n".to_owned(),
    ]
    .concat()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn the_packaged_page_api_is_composed_from_the_shared_scripts() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../extension").join(BUNDLE_PATH);
        let expected = bundle();
        if std::env::var_os("GHOSTLIGHT_BLESS").is_some() {
            std::fs::write(&path, &expected).expect("the bundle is written");
        }
        let packaged = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            packaged == expected,
            "{} differs from the shared scripts: run GHOSTLIGHT_BLESS=1 cargo test -p ghostlight-extension --lib page",
            path.display()
        );
    }
}
