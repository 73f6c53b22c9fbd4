//! The bodies of the cargo-fuzz targets in `fuzz/`, as plain functions.
//!
//! Each function takes the fuzzer's bytes, never panics on any input, and asserts the
//! invariants its target checks; a failed assertion is a finding. The targets in
//! `fuzz/fuzz_targets/` call these functions, and the workspace test `tests/tests/fuzz.rs`
//! replays the committed seed corpora and regression inputs through them without libFuzzer,
//! so CI checks every corpus file on each run.

use std::sync::Arc;

use ghostlight_cli::config::ConfigFile;
use ghostlight_core::Effect;
use ghostlight_core::fuzzing::HOST_PATTERN_CHARS;
use ghostlight_core::fuzzing::{
    FlowRef, check_reference, find_references, is_json_pointer, resolve_arguments,
};
use ghostlight_core::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};
use ghostlight_core::{AuthorityLayers, HostPattern, Site};
use ghostlight_core::{Cancellation, Ghostlight, Pointer, Restrictions, ToolName, decode_call};
use serde_json::Value;
use url::Url;

/// The fuzz targets, by the name `cargo fuzz` knows them by.
pub const TARGETS: [&str; 5] = ["decode", "flow_ref", "hosts", "config", "mcp"];

/// Run target `name` on `data`. Unknown names do nothing.
pub fn run(name: &str, data: &[u8]) {
    match name {
        "decode" => decode(data),
        "flow_ref" => flow_ref(data),
        "hosts" => hosts(data),
        "config" => config(data),
        "mcp" => mcp(data),
        _ => {}
    }
}

/// Longest message any error may carry.
const MESSAGE_LIMIT: usize = 4_096;

/// Tool decoding: (tool name, JSON bytes) → typed request or decode error, never a panic.
/// The first byte picks the tool; the rest is the arguments document.
pub fn decode(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    let tool = ToolName::ALL[usize::from(selector) % ToolName::ALL.len()];
    let Ok(arguments) = serde_json::from_slice::<Value>(rest) else { return };
    if let Err(error) = decode_call(tool, &arguments) {
        // Every error names a pointer and a bounded message.
        assert!(error.message().len() < MESSAGE_LIMIT);
    }
}

/// `flow_ref` resolution with substitution. The input is a JSON object
/// `{"arguments": …, "steps": ["id", …], "index": n, "envelopes": {"id": envelope, …}}`;
/// missing members default (`steps` to the envelopes' ids, `index` to their count).
pub fn flow_ref(data: &[u8]) {
    let Ok(input) = serde_json::from_slice::<Value>(data) else { return };
    let arguments = input.get("arguments").unwrap_or(&input);
    let empty = serde_json::Map::new();
    let envelopes = input.get("envelopes").and_then(Value::as_object).unwrap_or(&empty);
    let ids: Vec<&str> = match input.get("steps").and_then(Value::as_array) {
        Some(steps) => steps.iter().filter_map(Value::as_str).collect(),
        None => envelopes.keys().map(String::as_str).collect(),
    };
    let index =
        input.get("index").and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok()).unwrap_or(ids.len());

    let found = find_references(arguments, &Pointer::root());
    let references = match &found {
        Ok(references) => references.clone(),
        Err(error) => {
            assert!(error.message().len() < MESSAGE_LIMIT);
            Vec::new()
        }
    };
    for located in &references {
        // Every reference stands where it says, as a one-member flow_ref object.
        let at = arguments.pointer(located.location.as_str());
        let object = at.and_then(Value::as_object);
        assert!(object.is_some_and(|o| o.len() == 1 && o.contains_key("flow_ref")), "{:?}", located.location);
        consistent_check(&located.reference, index, &ids);
    }

    let resolved = resolve_arguments(arguments, index, &ids, |id| envelopes.get(id));
    match resolved {
        Ok(resolved) => {
            assert!(found.is_ok(), "resolved arguments whose references are malformed");
            if references.is_empty() {
                assert_eq!(&resolved, arguments);
            }
            for located in &references {
                let envelope = envelopes.get(&located.reference.step);
                let expected = envelope.and_then(|e| e.pointer(&located.reference.pointer));
                assert!(expected.is_some(), "a reference resolved to nothing");
                assert_eq!(resolved.pointer(located.location.as_str()), expected);
            }
        }
        Err(problem) => {
            assert!(problem.to_string().len() < MESSAGE_LIMIT);
            if found.is_ok() {
                assert!(!references.is_empty(), "a problem without any reference: {problem}");
            }
        }
    }
}

/// `check_reference` agrees with its definition: an earlier step and an RFC 6901 pointer.
fn consistent_check(reference: &FlowRef, index: usize, ids: &[&str]) {
    let earlier = ids.get(..index).unwrap_or(ids);
    let expected = earlier.contains(&reference.step.as_str()) && is_json_pointer(&reference.pointer);
    assert_eq!(
        check_reference(reference, index, ids).is_ok(),
        expected,
        "{reference:?} at {index} of {ids:?}"
    );
}

/// Host patterns: the first line is a pattern, every further line a URL whose site it is
/// matched against. A parsed pattern prints a canonical form that parses to itself; `*`
/// matches every site; a port-limited pattern matches only that port; the site's own text is
/// an exact pattern that matches it, and `*.` before it never does.
pub fn hosts(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let pattern = HostPattern::parse(lines.next().unwrap_or_default());
    if let Ok(pattern) = &pattern {
        let canonical = pattern.to_string();
        assert_eq!(HostPattern::parse(&canonical).as_ref(), Ok(pattern), "{canonical}");
    }
    for line in lines {
        let Ok(url) = Url::parse(line) else { continue };
        let Some(site) = Site::from_url(&url) else { continue };
        assert!(HostPattern::ANY.matches(&site));
        if let Ok(pattern) = &pattern {
            let matched = pattern.matches(&site);
            if let Some(port) = pattern.port() {
                assert!(!matched || port == site.port(), "{pattern} matched {site}");
            }
            if pattern.is_any() {
                assert!(matched);
            }
        }
        let own = site.to_string();
        if HOST_PATTERN_CHARS.contains(own.chars().count()) {
            let exact = HostPattern::parse(&own);
            assert!(exact.as_ref().is_ok_and(|exact| exact.matches(&site)), "{own}: {exact:?}");
            if let Ok(wildcard) = HostPattern::parse(&format!("*.{own}")) {
                assert!(!wildcard.matches(&site), "*.{own} matched {own}");
            }
        }
    }
}

/// The configuration file: parse arbitrary bytes and compile the authority (no I/O).
pub fn config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match ConfigFile::parse(text) {
        Ok(file) => {
            let authority = AuthorityLayers { user: Some(file.settings), organization: None }.compile();
            // The compiled answer is usable: every host has a verdict, every line a capability.
            for url in ["https://example.com/", "http://127.0.0.1:8080/", "http://[::1]/"] {
                if let Some(site) = Url::parse(url).ok().as_ref().and_then(Site::from_url) {
                    let _ = authority.host_verdict(&site);
                }
            }
            let _ = authority.capabilities();
            let _ = authority.snapshot(&Restrictions::default()).explain();
        }
        Err(error) => assert!(!error.to_string().is_empty()),
    }
}

/// The pages the scripted browser serves to the `mcp` target.
fn scripted_browser() -> ScriptedBrowser {
    ScriptedBrowser::new()
        .site(
            "https://example.com/",
            ScriptedPage::new("Example")
                .text("Example page")
                .element(ScriptedElement::button("Save"))
                .element(ScriptedElement::textbox("Name"))
                .element(ScriptedElement::link("Next", "https://example.com/next")),
        )
        .site("https://example.com/next", ScriptedPage::new("Next").text("Next page"))
        .with_tab("https://example.com/")
}

/// At most this many calls run per input.
const MCP_CALLS: usize = 8;

/// MCP argument handling end to end over the scripted browser: every line is a call,
/// `tool-name TAB arguments-json`, run in order in one workspace and rendered as MCP renders
/// it. Only a name outside the catalog is refused; every envelope offers at most two next
/// steps, and a call whose effect is partial or unknown is never repeat-safe.
pub fn mcp(data: &[u8]) {
    let ghostlight = Ghostlight::builder(Arc::new(scripted_browser())).deterministic_handles().build();
    let cancellation = Cancellation::new();
    for line in data.split(|&b| b == b'\n').take(MCP_CALLS) {
        let (name, arguments) = match line.iter().position(|&b| b == b'\t') {
            Some(tab) => (&line[..tab], &line[tab + 1..]),
            None => (line, &b""[..]),
        };
        let name = String::from_utf8_lossy(name);
        let arguments = if arguments.is_empty() {
            Value::Object(serde_json::Map::new())
        } else {
            match serde_json::from_slice::<Value>(arguments) {
                Ok(arguments) => arguments,
                Err(_) => continue,
            }
        };
        let result = futures::executor::block_on(ghostlight.invoke(&name, &arguments, &cancellation));
        match result {
            Err(unknown) => {
                assert!(ToolName::parse(&name).is_none(), "catalog tool {name} refused as unknown");
                assert!(unknown.to_string().len() < MESSAGE_LIMIT);
            }
            Ok(result) => {
                assert!(ToolName::parse(&name).is_some(), "{name} is not in the catalog");
                let envelope = &result.envelope;
                assert!(envelope.next_steps.len() <= 2, "{name}: {:?}", envelope.next_steps);
                if matches!(envelope.effect, Effect::Partial | Effect::Unknown) {
                    assert!(!envelope.repeat_safe, "{name}: repeat_safe with effect {:?}", envelope.effect);
                }
                if let Err(error) = ghostlight_mcp::render::call_result(&result) {
                    panic!("{name}: cannot render: {error}");
                }
            }
        }
    }
}
