//! Crate boundaries the architecture promises: the core names no async runtime, MCP or
//! WebDriver crate, so `cargo add ghostlight-core` stays small and runtime-free.

use std::process::Command;

fn normal_dependencies(package: &str) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["tree", "--offline", "-p", package, "-e", "normal", "--prefix", "none", "--format", "{p}"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(output.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
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

#[test]
fn only_the_mcp_crate_depends_on_rmcp() {
    for package in ["ghostlight-webdriver", "ghostlight-cli"] {
        let tree = normal_dependencies(package);
        assert!(!tree.lines().any(|line| line.starts_with("rmcp ")), "{package} depends on rmcp:\n{tree}");
    }
    let tree = normal_dependencies("ghostlight-mcp");
    assert!(tree.lines().any(|line| line.starts_with("rmcp ")), "unexpected tree:\n{tree}");
}
