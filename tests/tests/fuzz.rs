//! The fuzz targets in CI. Every committed seed (`fuzz/seeds/TARGET`) and regression input
//! (`fuzz/regressions/TARGET`) is replayed through the same harness functions the cargo-fuzz
//! targets call, without libFuzzer. With `GHOSTLIGHT_FUZZ_SMOKE=1` and `cargo fuzz` installed,
//! `scripts/fuzz.sh --smoke` also runs each target under libFuzzer for 10 s.

use std::path::{Path, PathBuf};
use std::process::Command;

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

#[test]
fn libfuzzer_smoke_when_asked() {
    if std::env::var("GHOSTLIGHT_FUZZ_SMOKE").as_deref() != Ok("1") {
        eprintln!("skipped: set GHOSTLIGHT_FUZZ_SMOKE=1 to run scripts/fuzz.sh --smoke");
        return;
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let available =
        Command::new(&cargo).args(["fuzz", "--version"]).output().is_ok_and(|o| o.status.success());
    if !available {
        assert!(std::env::var_os("CI").is_none(), "CI asked for the fuzz smoke but cargo fuzz is missing");
        eprintln!("skipped: cargo fuzz is not installed");
        return;
    }
    let script = fuzz_dir().join("..").join("scripts").join("fuzz.sh");
    let status = Command::new("bash").arg(script).arg("--smoke").status().expect("scripts/fuzz.sh runs");
    assert!(status.success(), "scripts/fuzz.sh --smoke failed");
}
