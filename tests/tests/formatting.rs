//! CI's formatting gate sees every Rust file of the repository: `cargo fmt --check` (the
//! workspace, then `fuzz/`, which stays outside it) names each file it formats, and that list
//! must be every `.rs` file git tracks. rustfmt reaches a file only through `mod` items it can
//! read, so a module declared by a macro, or a file nothing declares, would slip past the gate.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_default()
}

/// The files `cargo fmt --check -v` formats in `dir` (a Cargo workspace or package).
fn formatted_files(dir: &Path) -> BTreeSet<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["fmt", "--all", "--", "--check", "-v"])
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cargo fmt in {}: {e}", dir.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "cargo fmt --check in {} found unformatted code:\n{stdout}\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .filter_map(|line| line.strip_prefix("Formatting "))
        .map(|path| {
            let path = Path::new(path.trim());
            path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
        })
        .collect()
}

/// Every `.rs` file git tracks.
fn tracked_rust_files(root: &Path) -> BTreeSet<PathBuf> {
    let output = Command::new("git")
        .args(["ls-files", "-z", "--", "*.rs"])
        .current_dir(root)
        .output()
        .unwrap_or_else(|e| panic!("git ls-files: {e}"));
    assert!(output.status.success(), "git ls-files failed: {}", String::from_utf8_lossy(&output.stderr));
    output
        .stdout
        .split(|byte| *byte == 0)
        .filter(|name| !name.is_empty())
        .map(|name| {
            let path = root.join(String::from_utf8_lossy(name).as_ref());
            path.canonicalize().unwrap_or(path)
        })
        .collect()
}

#[test]
fn the_formatting_gate_covers_every_rust_file() {
    let root = repository();
    if !root.join(".git").exists() {
        eprintln!("not a git checkout: nothing to compare");
        return;
    }
    let mut formatted = formatted_files(&root);
    formatted.extend(formatted_files(&root.join("fuzz")));
    let tracked = tracked_rust_files(&root);
    assert!(tracked.len() > 300, "git lists only {} Rust files", tracked.len());
    let missed: Vec<_> = tracked.difference(&formatted).collect();
    assert!(missed.is_empty(), "cargo fmt never sees these files ({}):\n{missed:#?}", missed.len());
    eprintln!("cargo fmt --check covers all {} tracked Rust files", tracked.len());
}
