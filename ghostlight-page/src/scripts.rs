//! The page scripts (`scripts/` of this crate), for every connector that runs them: the
//! WebDriver adapter through "Execute Script", the extension connector packaged into the
//! extension ([`crate::bundle`]) and run in its isolated world. Roles, accessible names, what
//! is shown and the article heuristic exist only here.
//!
//! Each `*_FN` is one JavaScript function expression (its header documents its arguments and
//! answer); each `*_BODY` an Execute Script body reading `arguments`. [`DOM_JS`] is the shared
//! DOM semantics the others call, declared after `GL_GENERIC_NAME_CHARS`
//! ([`GENERIC_NAME_CHARS`]); [`with_dom`] composes it. The bounds passed to the scripts are
//! in [`crate::bounds`].

/// A page script as the connectors send it: `scripts/<path>` without its comment-only and
/// blank lines (`build.rs` writes those copies into `OUT_DIR`).
macro_rules! script {
    ($path:literal) => {
        include_str!(concat!(env!("OUT_DIR"), "/scripts/", $path))
    };
}
pub(crate) use script;

/// The largest generic element text taken as its name (core's visible name bound).
pub use ghostlight_core::port::TARGET_NAME_CHARS as GENERIC_NAME_CHARS;

/// The one DOM semantics: `glVisible`, `glAriaHidden`, `glShownText`, `glRole`,
/// `glIsControl`, `glName`, `glSummary` (declarations; see the script's header).
pub const DOM_JS: &str = script!("dom.js");
/// `glAuthorityUrl(document)`: the URL a document is governed by (its own, or the origin an
/// about: document inherited; `data:,`, which no gate admits, for an opaque one). Declared by
/// every composition of [`DOM_JS`] too.
pub const AUTHORITY_URL_JS: &str = script!("authority_url.js");
/// Perception: `(opts, root) → {items, frames, truncated, focusFrame}`.
pub const PERCEIVE_FN: &str = script!("perceive.js");
/// Form data for perception's `forms` mode: `glIsFormControl`, `glFormOf` (declarations that
/// [`PERCEIVE_FN`] calls in that mode only; see the script's header). Connectors prepend it
/// to the perception of forms alone, so other perceptions do not carry its bytes.
pub const FORMS_JS: &str = script!("forms.js");
/// Text reading (visible text, the article heuristic, one element's text):
/// `(opts, target) → {text, truncated, source}`.
pub const READ_TEXT_FN: &str = script!("read_text.js");
/// Text presence in one document's visible text: `({query}) → bool`.
pub const TEXT_PRESENT_FN: &str = script!("text_present.js");
/// Waiting for text presence or absence in one document's visible text, through Execute
/// Async Script: `({query, present, within, throttle, sweep, doc}, done) → {end}`, after
/// [`DOM_JS`], `glTextPresent` ([`TEXT_PRESENT_FN`]) and `glFramesHere` ([`FRAMES_HERE_BODY`]
/// as a function); [`text_wait`] composes it.
pub const TEXT_WAIT_FN: &str = script!("text_wait.js");
/// Element presence: `(element) → bool`.
pub const ELEMENT_PRESENT_FN: &str = script!("element_present.js");
/// Where an element sits in the top-level document (scrolling it into view first when asked):
/// `(element, scroll) → {x, y, width, height, complete}`.
pub const CAPTURE_ELEMENT_FN: &str = script!("capture_element.js");
/// The CSS size of the whole scrollable document: `() → {width, height}`.
pub const CAPTURE_PAGE_SIZE_FN: &str = script!("capture_page_size.js");
/// The visible frames of one document, for walks through frame documents: an Execute Script
/// body (no arguments; it `return`s `{url, frames: [element]}`).
pub const FRAMES_HERE_BODY: &str = script!("frames_here.js");
/// Every frame on screen with its box and URL, for the gate (WebDriver adapter): an Execute
/// Script body after [`AUTHORITY_URL_JS`].
pub const FRAME_BOXES_BODY: &str = script!("frame_boxes.js");
/// The page state and document identity: `() → {url, title, readyState, …}`.
pub const PAGE_STATE_FN: &str = script!("page_state.js");
/// Gate detection in the top document (advisory, precision first): `() → kind | null`, the
/// kind one of `challenge`, `rate_limit`, `consent`, `login` ([`GateKind`] tokens), and
/// `null` while the document is not complete. Its signals: a visible challenge widget of a
/// known provider of non-trivial size (never reCAPTCHA's invisible badge) on a page with
/// little text or covering much of the viewport; a fixed layer over the viewport's centre
/// that blocks the page, with consent wording and an answer button; and, on a sparse page
/// only, two independent signals: challenge or rate-limit wording in the title and a heading
/// (or the body's lead, or an HTTP 429), a password or account field outside the page's
/// header, navigation and footer with sign-in wording, a consent-only page. [`gated_page_state`]
/// folds it into the page-state read.
///
/// [`GateKind`]: ghostlight_core::port::GateKind
pub const GATE_FN: &str = script!("gate.js");
/// The browser's load-failure code when the tab shows its error page: `() → code | null`.
pub const LOAD_FAILURE_FN: &str = script!("load_failure.js");
/// A replay GIF downloaded from an adapter-owned blank tab (Execute Script body).
pub const DOWNLOAD_REPLAY_BODY: &str = script!("download_replay.js");
/// A replay GIF attached to a file input from memory (Execute Script body).
pub const ATTACH_REPLAY_BODY: &str = script!("attach_replay.js");

/// The input scripts (`scripts/input/`): Execute Script bodies that run after [`DOM_JS`],
/// the page-state function `glPageState` and [`LIB_JS`](input::LIB_JS).
pub mod input {
    /// The input helpers (composed-tree walks, deep hit testing, receipts).
    pub const LIB_JS: &str = script!("input/lib.js");
    /// The hit test of a pointer target (element or point).
    pub const TARGET_BODY: &str = script!("input/target.js");
    /// Where a point of a frame's viewport lies in the viewport of the frame element's
    /// document (aiming from the top document without entering the frame).
    pub const FRAME_POINT_BODY: &str = script!("input/frame_point.js");
    /// Keyboard focus on an element, or the focused element.
    pub const FOCUS_BODY: &str = script!("input/focus.js");
    /// The key guard: keys that would leave the element they were for are withheld.
    pub const KEY_GUARD_BODY: &str = script!("input/key_guard.js");
    /// Fill a form control.
    pub const FILL_BODY: &str = script!("input/fill.js");
    /// Scroll (reveal an element, by a viewport fraction, or watch and read the offsets).
    pub const SCROLL_BODY: &str = concat!(script!("input/scroll_offsets.js"), script!("input/scroll.js"));
    /// Read the offsets the last scroll noted (a settle read): [`SCROLL_BODY`]'s `read` mode
    /// alone, without the DOM library.
    pub const SCROLL_READ_BODY: &str = concat!(script!("input/scroll_offsets.js"), "return read();\n");
    /// The file input check of an upload.
    pub const UPLOAD_BODY: &str = script!("input/upload.js");
    /// Files attached to a file input from memory.
    pub const ATTACH_BODY: &str = script!("input/attach.js");
    /// Files dropped at a viewport point.
    pub const DROP_BODY: &str = script!("input/drop.js");
    /// HTML5 drag and drop by script events (Firefox over WebDriver).
    pub const DRAG_HTML5_BODY: &str = script!("input/drag_html5.js");
}

/// `body` preceded by [`DOM_JS`] and [`AUTHORITY_URL_JS`] (declarations local to the script
/// body). A generic element (no role) is named by its text only when that text is no longer
/// than a name core shows ([`GENERIC_NAME_CHARS`]).
pub fn with_dom(body: &str) -> String {
    format!("const GL_GENERIC_NAME_CHARS = {GENERIC_NAME_CHARS};\n{DOM_JS}\n{AUTHORITY_URL_JS}\n{body}")
}

/// The Execute Async Script body of [`TEXT_WAIT_FN`]: the DOM semantics, `glTextPresent` and
/// `glFramesHere` (the same sources text presence and frame walks run, so a wait counts as
/// shown exactly what [`TEXT_PRESENT_FN`] does), then the call with its options and the
/// driver's callback.
pub fn text_wait() -> String {
    with_dom(&format!(
        "const glTextPresent = {};\nfunction glFramesHere() {{\n{}}}\n{}",
        TEXT_PRESENT_FN.trim_end(),
        FRAMES_HERE_BODY,
        call(TEXT_WAIT_FN, 2)
    ))
}

/// [`text_wait`] answering the page state too, read when the wait ends (`{end, state}`; the
/// state's `gate` member when `gate`): a wait the caller starts in the document it expects,
/// without reading the page state first. `state` is `null` when the read throws.
pub fn text_wait_in(gate: bool) -> String {
    with_dom(&format!(
        "const glTextPresent = {};\nfunction glFramesHere() {{\n{}}}\n\
         const glDone = arguments[1];\n\
         const glStateNow = () => {{ try {{ return {}; }} catch (_) {{ return null; }} }};\n\
         return ({})(arguments[0], (answer) => glDone(Object.assign({{}}, answer, {{ state: glStateNow() }})));",
        TEXT_PRESENT_FN.trim_end(),
        FRAMES_HERE_BODY,
        page_state_expression(gate),
        TEXT_WAIT_FN.trim_end()
    ))
}

/// The Execute Script body of one page-state read that also looks for a gate: the answer of
/// [`PAGE_STATE_FN`] with a `gate` member, [`GATE_FN`]'s answer (`null` when the detector
/// throws: a gate is advisory and never fails the read). Both are sent without comment lines
/// or indentation.
pub fn gated_page_state() -> String {
    format!("return {};", page_state_expression(true))
}

/// The page-state read as one JavaScript expression (comment lines and indentation left out):
/// [`PAGE_STATE_FN`]'s answer, with the `gate` member of [`gated_page_state`] when `gate`.
pub fn page_state_expression(gate: bool) -> String {
    if gate {
        format!(
            "Object.assign(({})(), {{ gate: (() => {{ try {{ return ({})(); }} catch (_) {{ return null; }} }})() }})",
            compact(PAGE_STATE_FN),
            compact(GATE_FN)
        )
    } else {
        format!("({})()", compact(PAGE_STATE_FN))
    }
}

/// An Execute Script body (after [`with_dom`]) that reads the page state and, only while the
/// page shows the document the caller expects, calls `function` (a script file holding one
/// function expression) with the first `arity` arguments: `{state}`, or `{state, answer}`.
/// `arguments[arity]` names the expected document, `{nonce, epoch, origin}`: the `gl.doc`
/// nonce [`PAGE_STATE_FN`] stamped on it, its count of back/forward-cache restores, and the
/// origin it was authorized by (checked against `window.location`, which a page cannot
/// redefine, so a page that copied another document's nonce is still told apart by origin).
/// A document seen for the first time is stamped by this very read, so it never passes as
/// expected.
/// `prelude` (declarations the function needs, such as [`FORMS_JS`]) comes first.
pub fn in_document(prelude: &str, function: &str, arity: usize, gate: bool) -> String {
    let args: Vec<String> = (0..arity).map(|i| format!("arguments[{i}]")).collect();
    format!(
        "{prelude}\nconst glSeen = {};\nconst glExpected = arguments[{arity}];\n\
         if (!glExpected || glSeen.nonce !== glExpected.nonce || glSeen.epoch !== glExpected.epoch \
         || window.location.origin !== glExpected.origin) return {{ state: glSeen }};\n\
         return {{ state: glSeen, answer: ({})({}) }};",
        page_state_expression(gate),
        function.trim_end(),
        args.join(", ")
    )
}

/// `script` without its comment lines, blank lines and indentation: how the page state and
/// the detector are sent in a read that looks for a gate, so looking costs fewer bytes than
/// the detector's source (neither script has a string or template spanning lines, whose
/// meaning leading white space or a `//` line could change).
fn compact(script: &str) -> String {
    let lines: Vec<&str> =
        script.lines().map(str::trim).filter(|line| !line.is_empty() && !line.starts_with("//")).collect();
    lines.join("\n")
}

/// `return (FN)(arguments[0], …);`: an Execute Script body calling a script file holding one
/// function expression with `arity` arguments.
pub fn call(function: &str, arity: usize) -> String {
    let args: Vec<String> = (0..arity).map(|i| format!("arguments[{i}]")).collect();
    format!("return ({})({});", function.trim_end(), args.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_ship_without_comment_lines_and_keep_their_code() {
        for script in [DOM_JS, PERCEIVE_FN, READ_TEXT_FN, PAGE_STATE_FN, input::LIB_JS, input::TARGET_BODY] {
            assert!(
                script.lines().all(|line| !line.trim_start().starts_with("//") && !line.trim().is_empty())
            );
        }
        // Code lines stay as written: the library's top-level declarations at a line's start.
        assert!(DOM_JS.lines().any(|line| line.starts_with("function glRole(")));
        assert!(PAGE_STATE_FN.starts_with("(function glPageState() {\n"));
    }

    #[test]
    fn a_read_in_a_document_reads_the_state_first_and_the_page_only_in_the_expected_document() {
        let script =
            in_document("const glPrelude = 1;", "(function glRead(a, b) { return a + b; })\n", 2, false);
        assert!(script.starts_with("const glPrelude = 1;\nconst glSeen = ((function glPageState()"));
        assert!(script.contains("const glExpected = arguments[2];"));
        assert!(script.contains("glSeen.nonce !== glExpected.nonce || glSeen.epoch !== glExpected.epoch"));
        assert!(
            script.contains("|| window.location.origin !== glExpected.origin) return { state: glSeen };")
        );
        assert!(
            script.ends_with(
                "answer: ((function glRead(a, b) { return a + b; }))(arguments[0], arguments[1]) };"
            )
        );
        assert!(!script.contains("glGate"));
        assert!(in_document("", "(function f() {})", 0, true).contains("(function glGate()"));
    }

    #[test]
    fn a_text_wait_in_a_document_answers_the_state_when_it_ends() {
        let script = text_wait_in(false);
        assert!(script.contains("const glDone = arguments[1];"));
        assert!(script.contains("(function glTextWait(opts, done)"));
        assert!(script.contains("{ state: glStateNow() }"));
        assert!(!script.contains("glGate"));
        assert!(text_wait_in(true).contains("(function glGate()"));
    }

    #[test]
    fn the_gated_page_state_is_the_page_state_with_a_gate() {
        let script = gated_page_state();
        assert!(script.starts_with("return Object.assign(("));
        assert!(script.contains("(function glPageState()"));
        assert!(script.contains("(function glGate()"));
        assert!(script.ends_with("catch (_) { return null; } })() });"));
        let gate = compact(GATE_FN);
        assert!(gate.len() < GATE_FN.len(), "{} of {} bytes", gate.len(), GATE_FN.len());
        assert!(!gate.contains("\n//") && !gate.contains("\n "));
        assert_eq!(compact("  a\n\n  // b\n c"), "a\nc");
    }

    #[test]
    fn calls_pass_their_arguments() {
        assert_eq!(call("(a) => a\n", 1), "return ((a) => a)(arguments[0]);");
        assert_eq!(call("() => 1", 0), "return (() => 1)();");
    }

    #[test]
    fn the_dom_semantics_come_first() {
        let script = with_dom("return 1;");
        assert!(script.starts_with("const GL_GENERIC_NAME_CHARS = "));
        assert!(script.ends_with("\nreturn 1;"));
        assert!(script.contains("function glName"));
    }

    #[test]
    fn the_text_wait_reuses_text_presence_and_the_frame_listing() {
        let script = text_wait();
        assert!(script.starts_with("const GL_GENERIC_NAME_CHARS = "));
        assert!(script.contains(TEXT_PRESENT_FN.trim_end()));
        assert!(script.contains(FRAMES_HERE_BODY));
        assert!(script.ends_with(")(arguments[0], arguments[1]);"));
    }
}
