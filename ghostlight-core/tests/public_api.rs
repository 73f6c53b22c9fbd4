//! The public surface of `ghostlight-core`, held by a snapshot so it changes only on purpose
//! (issue 16). The crate's modules are private; what a user can name is what `lib.rs` and the
//! public modules (`port` for implementors, `testing` behind its feature, the hidden
//! `fuzzing` internals) declare `pub` at their top level. This test lists those names, one
//! path a line, and compares them with `snapshots/public_api__surface.snap`; a deliberate
//! change is accepted with `INSTA_UPDATE=always` (or `cargo insta review`).

use std::collections::BTreeSet;
use std::path::Path;

/// The top-level `pub` items and re-exports of one module file, as `module::name` paths.
fn surface(module: &str, file: &str) -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(file);
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut names = BTreeSet::new();
    let mut statement = String::new();
    for line in source.lines() {
        // Only top-level declarations: nested items are not module paths.
        if statement.is_empty() && !line.starts_with("pub ") {
            continue;
        }
        statement.push_str(line.trim());
        statement.push(' ');
        let done = if statement.starts_with("pub use") { line.trim_end().ends_with(';') } else { true };
        if !done {
            continue;
        }
        let taken = std::mem::take(&mut statement);
        let words: Vec<&str> = taken.split_whitespace().collect();
        match words.get(1).copied() {
            Some("use") => {
                let list = taken.trim_start_matches("pub use").trim().trim_end_matches(';').trim();
                let items = match list.find('{') {
                    Some(open) => list[open + 1..].trim_end_matches('}').to_owned(),
                    None => list.rsplit("::").next().unwrap_or(list).to_owned(),
                };
                for item in items.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let name = item.rsplit(" as ").next().unwrap_or(item);
                    names.insert(format!("{module}::{}", name.rsplit("::").next().unwrap_or(name)));
                }
            }
            Some(kind) => {
                let kind = if kind == "async" { words.get(2).copied().unwrap_or(kind) } else { kind };
                let at = words.iter().position(|w| *w == kind).map_or(2, |i| i + 1);
                if let Some(name) = words.get(at) {
                    let name: String =
                        name.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    names.insert(format!("{module}::{name} ({kind})"));
                }
            }
            None => {}
        }
    }
    names
}

#[test]
fn the_public_surface_changes_only_on_purpose() {
    let mut all = Vec::new();
    for (module, file) in [
        ("ghostlight_core", "lib.rs"),
        ("ghostlight_core::port", "port/mod.rs"),
        ("ghostlight_core::testing", "testing/mod.rs"),
        ("ghostlight_core::fuzzing (hidden)", "fuzzing.rs"),
    ] {
        all.extend(surface(module, file));
    }
    insta::assert_snapshot!("surface", all.join("\n"));
}
