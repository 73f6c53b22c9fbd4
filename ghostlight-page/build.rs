//! Ships the page scripts without their comment lines.
//!
//! The scripts under `scripts/` are documented at length (headers, notes on each decision), and
//! a connector sends a script's whole text with most calls: about a third of those bytes were
//! comments, which the browser receives and parses for nothing. The build copies every script
//! into `OUT_DIR/scripts/` with each line that holds only a `//` comment, and each blank line,
//! left out; `src/scripts.rs` includes those copies. Everything else is kept as written
//! (indentation, trailing comments), so line structure and the layout the sandbox library's
//! name scan relies on (top-level `function`/`const` at the start of a line) are unchanged.
//!
//! Dropping whole comment lines is safe because no script has a string or template literal
//! that spans lines (the build fails, naming the line, when one does: a line with an odd
//! number of backticks, or one that ends in a backslash), and a regular expression cannot span
//! lines.

use std::env;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

fn main() -> io::Result<()> {
    let out = PathBuf::from(env::var_os("OUT_DIR").ok_or_else(|| io::Error::other("OUT_DIR is not set"))?);
    println!("cargo::rerun-if-changed=scripts");
    compact_dir(Path::new("scripts"), &out.join("scripts"))
}

/// Copy every `.js` file under `from` to `to`, compacted.
fn compact_dir(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let path = entry?.path();
        let Some(name) = path.file_name() else { continue };
        if path.is_dir() {
            compact_dir(&path, &to.join(name))?;
        } else if path.extension().is_some_and(|ext| ext == "js") {
            let source = fs::read_to_string(&path)?;
            check(&path, &source)?;
            fs::write(to.join(name), compact(&source))?;
        }
    }
    Ok(())
}

/// Refuse a script with a literal that may span lines (see the module docs).
fn check(path: &Path, source: &str) -> io::Result<()> {
    for (number, line) in source.lines().enumerate() {
        let backticks = line.matches('`').count() - line.matches("\\`").count();
        if backticks % 2 == 1 || line.ends_with('\\') {
            return Err(io::Error::other(format!(
                "{}:{}: a literal may span lines here, so comment lines cannot be dropped safely",
                path.display(),
                number + 1
            )));
        }
    }
    Ok(())
}

/// `source` without comment-only and blank lines; every kept line ends with a newline.
fn compact(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    for line in source.lines() {
        let code = line.trim_start();
        if code.is_empty() || code.starts_with("//") {
            continue;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
