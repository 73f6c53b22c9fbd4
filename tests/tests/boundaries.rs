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
/// code built for use (comments, literals and tests may name them: a test may read the
/// source tree).
#[test]
fn core_does_no_io() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ghostlight-core/src");
    let forbidden =
        ["std::fs", "std::process", "std::env", "TcpStream", "TcpListener", "UdpSocket", "tokio::"];
    for (file, source) in rust_files(&src) {
        if file.contains("/tests/") || file.ends_with("/tests.rs") {
            continue;
        }
        for line in code_for_use(&source).lines() {
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

/// The code of a Rust file without its comments, string and character literals, and inline
/// `#[cfg(test)]` modules: what the module depends on when it is built for use.
fn code_for_use(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut code = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        let rest = |k: usize| chars.get(i + k).copied();
        match (chars[i], rest(1)) {
            ('/', Some('/')) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                    i += 1;
                }
                i += 2;
            }
            ('r', Some('#' | '"')) if i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') => {
                let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
                if chars.get(i + 1 + hashes) != Some(&'"') {
                    code.push(chars[i]);
                    i += 1;
                    continue;
                }
                i += 2 + hashes;
                let closing: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                while i < chars.len() && !chars[i..].iter().collect::<String>().starts_with(&closing) {
                    i += 1;
                }
                i += closing.len();
                code.push_str("\"\"");
            }
            ('"', _) => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                code.push_str("\"\"");
            }
            // A character literal ('x', '\n', '{'), not a lifetime ('a).
            ('\'', Some('\\')) => {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            }
            ('\'', Some(_)) if rest(2) == Some('\'') => i += 3,
            (c, _) => {
                code.push(c);
                i += 1;
            }
        }
    }
    // Inline test modules: `#[cfg(test)]` then `mod name {` up to its closing brace.
    while let Some(at) = code.find("#[cfg(test)]") {
        let after = &code[at + "#[cfg(test)]".len()..];
        let trimmed = after.trim_start();
        let is_inline_module = trimmed.starts_with("mod ")
            && trimmed.find(['{', ';']).is_some_and(|end| trimmed.as_bytes()[end] == b'{');
        let end = if is_inline_module {
            let open =
                at + "#[cfg(test)]".len() + (after.len() - trimmed.len()) + trimmed.find('{').unwrap_or(0);
            let mut depth = 0usize;
            let mut close = code.len();
            for (offset, c) in code[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            close = open + offset + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            close
        } else {
            // A test-only item or file module: drop only the attribute's line.
            at + code[at..].find('\n').unwrap_or(code.len() - at)
        };
        code.replace_range(at..end, "");
    }
    code
}

/// `ghostlight-core`'s top-level modules (`src/<name>.rs` and `src/<name>/`) point one way:
/// the graph of which names which (`crate::<module>` in code built for use: comments,
/// literals and test code left out) has no cycle. The order it prints is the layering, bottom
/// first.
#[test]
fn the_core_modules_form_layers_without_a_cycle() {
    use std::collections::{BTreeMap, BTreeSet};

    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ghostlight-core/src");
    let mut modules = BTreeSet::new();
    for entry in std::fs::read_dir(&src).expect("core's src") {
        let path = entry.expect("a directory entry").path();
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if name != "lib" && (path.is_dir() || path.extension().is_some_and(|ext| ext == "rs")) {
            modules.insert(name);
        }
    }
    let mut names: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (file, source) in rust_files(&src) {
        let relative = file.split("/src/").last().unwrap_or(&file).to_owned();
        if relative == "lib.rs" || relative.contains("/tests/") || relative.ends_with("/tests.rs") {
            continue;
        }
        let module = relative.split('/').next().unwrap_or_default().trim_end_matches(".rs").to_owned();
        let code = code_for_use(&source);
        for (i, _) in code.match_indices("crate::") {
            let named: String =
                code[i + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if named != module && modules.contains(&named) {
                names.entry(module.clone()).or_default().entry(named).or_insert_with(|| relative.clone());
            }
        }
    }
    // Peel off modules that name nothing left; what cannot be peeled is a cycle.
    let mut left: BTreeSet<String> = modules.clone();
    let mut layers: Vec<Vec<String>> = Vec::new();
    while !left.is_empty() {
        let layer: Vec<String> = left
            .iter()
            .filter(|m| names.get(*m).is_none_or(|named| named.keys().all(|n| !left.contains(n))))
            .cloned()
            .collect();
        if layer.is_empty() {
            let cycle: Vec<String> = left
                .iter()
                .flat_map(|m| {
                    names
                        .get(m)
                        .into_iter()
                        .flatten()
                        .filter(|(n, _)| left.contains(*n))
                        .map(move |(n, file)| format!("{m} → {n} ({file})"))
                })
                .collect();
            panic!(
                "core's modules form a cycle; these edges are in it or lead into it:\n{}",
                cycle.join("\n")
            );
        }
        for m in &layer {
            left.remove(m);
        }
        layers.push(layer);
    }
    for (i, layer) in layers.iter().enumerate() {
        eprintln!("layer {i}: {}", layer.join(", "));
    }
    // The architecture's named layers stay in this order.
    let layer_of = |m: &str| layers.iter().position(|l| l.iter().any(|x| x == m)).unwrap_or(usize::MAX);
    for (lower, upper) in [
        ("vocab", "port"),
        ("names", "tools"),
        ("port", "operation"),
        ("authority", "operation"),
        ("operation", "tools"),
        ("tools", "executor"),
    ] {
        assert!(layer_of(lower) < layer_of(upper), "{lower} must lie below {upper}: {layers:?}");
    }
}

/// The WebDriver session is below its operations: `session.rs` and `watch/` name no `ops`
/// module (what a session watches never drives it).
#[test]
fn the_webdriver_session_names_no_operation() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ghostlight-webdriver/src");
    let mut files = vec![(src.join("session.rs").display().to_string(), String::new())];
    files[0].1 = std::fs::read_to_string(src.join("session.rs")).expect("session.rs");
    files.extend(rust_files(&src.join("watch")));
    for (file, source) in files {
        let code = code_for_use(&source);
        assert!(
            !code.contains("crate::ops"),
            "{file} names crate::ops: the session lies below its operations"
        );
    }
}
