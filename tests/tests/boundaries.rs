//! Crate boundaries the architecture promises: the core names no async runtime, MCP or
//! WebDriver crate, so `cargo add ghostlight-core` stays small and runtime-free.

use std::process::Command;

fn normal_dependencies(package: &str) -> String {
    tree(package, &[])
}

fn tree(package: &str, extra: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["tree", "--offline", "-p", package, "-e", "normal", "--prefix", "none", "--format", "{p}"])
        .args(extra)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(output.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn tree_direct(package: &str) -> String {
    tree(package, &["--depth", "1"])
}

#[test]
fn core_has_no_runtime_mcp_or_webdriver_dependency() {
    let tree = normal_dependencies("ghostlight-core");
    for forbidden in ["tokio ", "rmcp ", "fantoccini ", "hyper ", "async-std "] {
        assert!(
            !tree.lines().any(|line| line.starts_with(forbidden)),
            "ghostlight-core depends on {forbidden}:\n{tree}"
        );
    }
    assert!(tree.lines().any(|line| line.starts_with("serde_json ")), "unexpected tree:\n{tree}");
}

/// `ghostlight mcp` serves through `ghostlight-mcp`'s serving path, so the CLI reaches rmcp
/// only through that crate, never directly.
#[test]
fn only_the_mcp_crate_depends_on_rmcp() {
    let tree = normal_dependencies("ghostlight-webdriver");
    assert!(
        !tree.lines().any(|line| line.starts_with("rmcp ")),
        "ghostlight-webdriver depends on rmcp:\n{tree}"
    );
    let direct = tree_direct("ghostlight-cli");
    assert!(!direct.lines().any(|line| line.starts_with("rmcp ")), "ghostlight-cli names rmcp:\n{direct}");
    assert!(direct.lines().any(|line| line.starts_with("ghostlight-mcp ")), "unexpected tree:\n{direct}");
    let tree = normal_dependencies("ghostlight-mcp");
    assert!(tree.lines().any(|line| line.starts_with("rmcp ")), "unexpected tree:\n{tree}");
}
