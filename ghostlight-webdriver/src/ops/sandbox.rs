//! Ghostlight's script library in the WebDriver BiDi sandbox realm, installed once per
//! document instead of sent with every call.
//!
//! Every input script runs after the library: the page-state function, `dom.js`,
//! `authority_url.js` and `lib.js` (about 32 KB, [`compose`]). In the page's own realm
//! (classic Execute Script) the library goes with every script, as nothing installed there
//! would be out of a page's reach. In the sandbox realm (`bidi::SANDBOX`), which no page script
//! can reach, it is installed once per document, under a symbol named after its version:
//! - the session's BiDi connection registers a preload script ([`preload`]) that installs it
//!   in the sandbox of every document created from then on;
//! - a sandboxed call sends only its body after a short prelude ([`slim`]) that takes the
//!   library's names from the installed copy;
//! - in a document without it (one that existed before the preload: the driver's first window,
//!   a Firefox session's first tab), the prelude answers [`MISSING`] and the call is sent again
//!   with the whole library ([`full`]), which also installs it there for the next calls.

use std::hash::{Hash, Hasher};
use std::sync::LazyLock;

use super::input::compose;

/// What a slim call answers in a document whose sandbox has no library yet.
pub(crate) const MISSING: &str = "gl:missing";

/// The library's top-level names and the symbol it is installed under.
struct Library {
    /// `Symbol.for` key, versioned by the library's text.
    key: String,
    /// Every name the library declares at its top level.
    names: Vec<String>,
}

static LIBRARY: LazyLock<Library> = LazyLock::new(|| {
    let source = compose("");
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    source.hash(&mut hasher);
    Library { key: format!("gl.lib.{:016x}", hasher.finish()), names: top_level_names(&source) }
});

/// The names a script declares at its top level (`function name(` and `const NAME` lines at
/// the start of a line: the library's files keep that layout).
fn top_level_names(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in source.lines() {
        let rest = line.strip_prefix("function ").or_else(|| line.strip_prefix("const "));
        let Some(rest) = rest else { continue };
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The statement that installs the library's names (run after the library's declarations).
fn install() -> String {
    let library = &*LIBRARY;
    format!(
        "globalThis[Symbol.for('{}')] ||= Object.freeze({{ {} }});",
        library.key,
        library.names.join(", ")
    )
}

/// The preload script (`script.addPreloadScript`'s `functionDeclaration`) that installs the
/// library in the sandbox of every new document.
pub(crate) static PRELOAD: LazyLock<String> =
    LazyLock::new(|| format!("() => {{\n{}\n}}", compose(&install())));

/// The statements that open a slim call: take the library's names from the installed copy,
/// or return `missing` (a JavaScript expression) when there is none.
pub(crate) fn slim(missing: &str) -> String {
    let library = &*LIBRARY;
    format!(
        "const glLibrary = globalThis[Symbol.for('{}')];\nif (!glLibrary) return {missing};\nconst {{ {} }} = glLibrary;",
        library.key,
        library.names.join(", ")
    )
}

/// `body` after the whole library, installing it for later calls in the same document.
pub(crate) fn full(body: &str) -> String {
    compose(&format!("{}\n{body}", install()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_names_what_the_scripts_call() {
        let names = &LIBRARY.names;
        for name in
            ["glPageState", "GL_GENERIC_NAME_CHARS", "glName", "glAuthorityUrl", "glDeepTrace", "GL_ROLES"]
        {
            assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
        }
        assert!(LIBRARY.key.starts_with("gl.lib."));
    }

    #[test]
    fn slim_calls_take_every_name_and_full_ones_install_them() {
        let slim = slim("'gl:missing'");
        assert!(slim.contains("if (!glLibrary) return 'gl:missing';"));
        assert!(slim.contains("glDeepTrace") && slim.len() < 2_000, "{} bytes", slim.len());
        let full = full("return 1;");
        assert!(full.ends_with("return 1;"));
        assert!(full.contains(&install()));
        assert!(PRELOAD.starts_with("() => {"));
    }
}
