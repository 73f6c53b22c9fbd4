//! The fuzz targets in CI. Every committed seed (`fuzz/seeds/TARGET`) and regression input
//! (`fuzz/regressions/TARGET`) is replayed through the same harness functions the cargo-fuzz
//! targets call, without libFuzzer. The libFuzzer smoke run of every target (`scripts/fuzz.sh
//! --smoke`, 10 s each) is a phase of the test command, `scripts/test.sh`.

use std::path::{Path, PathBuf};

use ghostlight_tests::fuzz::{TARGETS, run};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("fuzz")
}

/// The files directly under `dir` (none when it does not exist), sorted.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn seeds_and_regressions_replay_through_every_target() {
    for target in TARGETS {
        let seeds = inputs(&fuzz_dir().join("seeds").join(target));
        assert!(!seeds.is_empty(), "no seeds for fuzz target {target}");
        let regressions = inputs(&fuzz_dir().join("regressions").join(target));
        for file in seeds.iter().chain(&regressions) {
            let data = std::fs::read(file).expect("corpus file reads");
            // A panic here names the file: replay it with `cargo fuzz run TARGET FILE`.
            eprintln!("{target}: {}", file.display());
            run(target, &data);
        }
        eprintln!("{target}: {} seeds, {} regressions replayed", seeds.len(), regressions.len());
    }
}

#[test]
fn every_target_has_a_cargo_fuzz_binary() {
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).expect("fuzz/Cargo.toml reads");
    for target in TARGETS {
        assert!(manifest.contains(&format!("name = \"{target}\"")), "fuzz/Cargo.toml lacks {target}");
        assert!(fuzz_dir().join("fuzz_targets").join(format!("{target}.rs")).is_file());
    }
}
