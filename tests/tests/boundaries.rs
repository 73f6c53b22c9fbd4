//! Crate boundaries the architecture promises: the core names no async runtime, MCP or
//! WebDriver crate and does no I/O, so `cargo add ghostlight-core` stays small and
//! runtime-free; the page protocol (`ghostlight-page`) is runtime- and driver-free too, and the
//! one home of the page scripts both adapters run.

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

/// `ghostlight mcp` and `ghostlight-mcp` serve through `ghostlight-mcp`'s handler and
/// transports, so the CLI reaches rmcp only through that crate, never directly.
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

/// `ghostlight-mcp` is a library over any browser port: the application layer (command line,
/// configuration files, logging setup, the WebDriver adapter) is the CLI's, never its.
#[test]
fn the_mcp_crate_is_a_library_without_the_application_layer() {
    for features in [&[][..], &["--all-features"][..]] {
        let tree = tree("ghostlight-mcp", features);
        for forbidden in ["clap ", "toml ", "tracing-subscriber ", "ghostlight-webdriver ", "fantoccini "] {
            assert!(
                !tree.lines().any(|line| line.starts_with(forbidden)),
                "ghostlight-mcp {features:?} depends on {forbidden}:\n{tree}"
            );
        }
    }
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ghostlight-mcp/Cargo.toml");
    let manifest = std::fs::read_to_string(&manifest).expect("ghostlight-mcp's manifest");
    assert!(!manifest.contains("[[bin]]"), "ghostlight-mcp declares a binary");
}

/// Every Rust file under `dir`, with its text.
fn rust_files(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).unwrap_or_else(|e| panic!("{}: {e}", at.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let source = std::fs::read_to_string(&path).expect("a source file");
                files.push((path.display().to_string(), source));
            }
        }
    }
    files
}

/// The crate-local paths (`crate::name`) each Rust file under `dir` names.
fn crate_paths(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (file, source) in rust_files(dir) {
        for (i, _) in source.match_indices("crate::") {
            let module: String =
                source[i + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            found.push((file.clone(), module));
        }
    }
    found
}

/// The port is the bottom, not the middle: it names only the shared vocabulary, the
/// envelope's readiness and the contract's bounds, never tools, decoders or authority; the
/// vocabulary names nothing else in the crate.
#[test]
fn the_port_and_the_vocabulary_are_the_bottom_of_the_core() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ghostlight-core/src");
    for (file, module) in crate_paths(&src.join("port")) {
        assert!(
            ["port", "vocab", "envelope", "limits"].contains(&module.as_str()),
            "{file} names crate::{module}: the port depends only on vocab, envelope and limits"
        );
    }
    for (file, module) in crate_paths(&src.join("vocab")) {
        assert_eq!(module, "vocab", "{file} names crate::{module}: vocab depends on nothing else");
    }
}

/// Core's documents promise no I/O: no file system, processes, sockets or environment, in its
/// code (comments may name them).
#[test]
fn core_does_no_io() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ghostlight-core/src");
    let forbidden =
        ["std::fs", "std::process", "std::env", "TcpStream", "TcpListener", "UdpSocket", "tokio::"];
    for (file, source) in rust_files(&src) {
        for line in source.lines().filter(|line| !line.trim_start().starts_with("//")) {
            for name in forbidden {
                assert!(!line.contains(name), "{file} uses {name}: core does no I/O ({line})");
            }
        }
    }
}

/// The page protocol is shared by both adapters and belongs to neither: it depends on core
/// (for the port's types), never on an async runtime, a browser driver, MCP or an adapter.
#[test]
fn the_page_crate_is_runtime_and_driver_free() {
    let tree = normal_dependencies("ghostlight-page");
    let forbidden = [
        "tokio ",
        "async-std ",
        "fantoccini ",
        "hyper ",
        "rmcp ",
        "ghostlight-webdriver ",
        "ghostlight-extension ",
        "ghostlight-mcp ",
    ];
    for forbidden in forbidden {
        assert!(
            !tree.lines().any(|line| line.starts_with(forbidden)),
            "ghostlight-page depends on {forbidden}:\n{tree}"
        );
    }
    assert!(tree.lines().any(|line| line.starts_with("ghostlight-core ")), "unexpected tree:\n{tree}");
    for adapter in ["ghostlight-webdriver", "ghostlight-extension"] {
        let direct = tree_direct(adapter);
        assert!(
            direct.lines().any(|line| line.starts_with("ghostlight-page ")),
            "{adapter} does not use ghostlight-page:\n{direct}"
        );
    }
}

/// The page scripts have one home, `ghostlight-page/scripts/`: no adapter keeps JavaScript of
/// its own beside its Rust, nor links to another crate's scripts.
#[test]
fn the_page_scripts_live_only_in_the_page_crate() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for adapter in ["ghostlight-webdriver", "ghostlight-extension"] {
        let mut pending = vec![root.join(adapter).join("src")];
        while let Some(at) = pending.pop() {
            for entry in std::fs::read_dir(&at).unwrap_or_else(|e| panic!("{}: {e}", at.display())) {
                let path = entry.expect("a directory entry").path();
                assert!(
                    path.extension().is_none_or(|ext| ext != "js"),
                    "{} is a page script",
                    path.display()
                );
                if path.is_dir() {
                    pending.push(path);
                }
            }
        }
        for (file, source) in rust_files(&root.join(adapter)) {
            assert!(!source.contains("include_str!(\"../scripts/"), "{file} includes scripts by path");
        }
    }
    assert!(!root.join("ghostlight-extension/page-scripts").exists(), "the page-scripts link is back");
    assert!(!root.join("extension/page/dom.js").exists(), "page/dom.js is composed by ghostlight-page");
}

/// Adapters (and the page protocol) reach the core only through its port.
#[test]
fn the_adapters_use_only_the_port() {
    for adapter in ["ghostlight-webdriver", "ghostlight-extension", "ghostlight-page"] {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(adapter).join("src");
        for (file, source) in rust_files(&src) {
            for (i, _) in source.match_indices("ghostlight_core::") {
                let rest = &source[i + 17..];
                assert!(
                    rest.starts_with("port"),
                    "{adapter}: {file} names ghostlight_core::{}",
                    &rest[..rest.len().min(30)]
                );
            }
        }
    }
}
