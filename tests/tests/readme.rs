//! The README's first code block holds the two commands a newcomer runs; CI must run exactly
//! the test command it shows.

use std::path::PathBuf;

fn workspace_file(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}

/// The commands of the README's first fenced block, keyed by the comment line above each.
fn readme_commands() -> Vec<(String, String)> {
    let readme = workspace_file("README.md");
    let block: Vec<&str> = readme
        .lines()
        .skip_while(|line| !line.starts_with("```"))
        .skip(1)
        .take_while(|line| !line.starts_with("```"))
        .collect();
    let mut commands = Vec::new();
    let mut label = String::new();
    for line in block {
        if let Some(comment) = line.strip_prefix('#') {
            label = comment.trim().to_owned();
        } else if !line.trim().is_empty() {
            commands.push((label.clone(), line.trim().to_owned()));
        }
    }
    commands
}

#[test]
fn readme_starts_with_a_run_and_a_test_command() {
    let commands = readme_commands();
    assert_eq!(commands.len(), 2, "expected two commands, found {commands:?}");
    assert!(commands[0].0.starts_with("run"), "first command must be the run command: {commands:?}");
    assert!(commands[1].0.starts_with("test"), "second command must be the test command: {commands:?}");
}

#[test]
fn ci_runs_exactly_the_readme_test_command() {
    let commands = readme_commands();
    let test_command = &commands.last().expect("a test command").1;
    let ci = workspace_file(".ci/run");
    let last_command = ci
        .lines()
        .map(str::trim)
        .rfind(|line| !line.is_empty() && !line.starts_with('#'))
        .expect(".ci/run has commands");
    assert_eq!(last_command, test_command, ".ci/run must end by running the README's test command");
}
