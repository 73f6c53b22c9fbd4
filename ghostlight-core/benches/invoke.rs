//! In-process overhead of one invocation (decode → authorize → resolve → dispatch → render →
//! audit) over the scripted port, whose operations cost next to nothing: what is measured is
//! Ghostlight's own work. Run with `cargo bench -p ghostlight-core --features testing`.
//! Figures are printed by divan (median, mean, min, max); nothing is asserted.
//!
//! * `tool`: one bench per tool of the catalog (24), each with valid arguments and the tab,
//!   targets, recording or dialog it needs, under an authority that allows what it does
//!   (execute and uploads included). The setup checks the call succeeds once before timing.
//! * `flow_of_20_steps`: one `browser_flow` of twenty steps (reads, finds, clicks, fills).
//! * `render_catalog` and `catalog_json`: the `tools/list` payload and its serialization
//!   (whose size is printed once).

use std::sync::Arc;

use futures::executor::block_on;
use ghostlight_core::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};
use ghostlight_core::{AuthorityLayers, Cancellation, Ghostlight, Settings, Status};
use serde_json::{Value, json};

const HOME: &str = "https://example.com/";

fn main() {
    divan::main();
}

fn page() -> ScriptedPage {
    let mut page = ScriptedPage::new("Bench").text("Some text to read. ".repeat(50).as_str());
    for i in 0..40 {
        page = page.element(ScriptedElement::button(&format!("Button {i}")));
    }
    page.element(ScriptedElement::textbox("Name")).element(ScriptedElement::button("Save"))
}

/// A Ghostlight with one open tab on the bench page.
fn ready() -> Ghostlight {
    let browser = ScriptedBrowser::new().site(HOME, page());
    let ghostlight = Ghostlight::new(Arc::new(browser));
    let opened =
        block_on(ghostlight.invoke("browser_navigate", &json!({"url": HOME}), &Cancellation::never()));
    assert!(opened.is_ok());
    ghostlight
}

fn invoke(ghostlight: &Ghostlight, tool: &str, arguments: &Value) {
    let result = block_on(ghostlight.invoke(tool, arguments, &Cancellation::never()));
    divan::black_box(result.ok());
}

/// Arguments that fail to decode: decode → render → audit, no browser.
#[divan::bench]
fn invalid_arguments(bencher: divan::Bencher) {
    let ghostlight = ready();
    let arguments = json!({"url": "https://example.com", "timeout_ms": 50});
    bencher.bench_local(|| invoke(&ghostlight, "browser_navigate", &arguments));
}

/// `policy_explain`: decode → snapshot → explain → render, no browser.
#[divan::bench]
fn policy_explain(bencher: divan::Bencher) {
    let ghostlight = ready();
    let arguments = json!({});
    bencher.bench_local(|| invoke(&ghostlight, "policy_explain", &arguments));
}

/// `browser_read` of the default tab: the whole pipeline with two port calls.
#[divan::bench]
fn read(bencher: divan::Bencher) {
    let ghostlight = ready();
    let arguments = json!({"max_chars": 500});
    bencher.bench_local(|| invoke(&ghostlight, "browser_read", &arguments));
}

/// `browser_click` by selector: the pipeline plus a perception of 42 elements and matching.
#[divan::bench]
fn click_by_selector(bencher: divan::Bencher) {
    let ghostlight = ready();
    let arguments = json!({"selector": {"name": "Name"}});
    bencher.bench_local(|| invoke(&ghostlight, "browser_click", &arguments));
}

/// `browser_inspect` of 42 controls: registering 42 fresh target handles and rendering them.
#[divan::bench]
fn inspect_controls(bencher: divan::Bencher) {
    let ghostlight = ready();
    let arguments = json!({});
    bencher.bench_local(|| invoke(&ghostlight, "browser_inspect", &arguments));
}

/// The catalog's 24 tools, in catalog order.
const TOOLS: [&str; 24] = [
    "browser_tabs",
    "browser_navigate",
    "browser_history",
    "browser_window",
    "browser_read",
    "browser_inspect",
    "browser_find",
    "browser_screenshot",
    "browser_click",
    "browser_scroll",
    "browser_hover",
    "browser_fill_form",
    "browser_type_text",
    "browser_press_key",
    "browser_drag",
    "browser_wait",
    "browser_dialog",
    "browser_upload",
    "browser_execute",
    "browser_sequence",
    "browser_flow",
    "browser_record",
    "browser_diagnose",
    "policy_explain",
];

const UPLOADS: &str = "/home/bench/Uploads";
const RESUME: &str = "/home/bench/Uploads/resume.pdf";
const SCRIPT: &str = "document.title";

/// A Ghostlight on the bench page (plus a file to upload and a script's result) under an
/// authority allowing every capability and uploads from [`UPLOADS`]; answers it and the tab.
fn permissive() -> (Ghostlight, String) {
    let page = page()
        .element(ScriptedElement::file_input("Resume"))
        .element(ScriptedElement::button("Card"))
        .element(ScriptedElement::button("Done"));
    let browser =
        ScriptedBrowser::new().site(HOME, page).file(RESUME, 1_234).script_result(SCRIPT, json!("Bench"));
    let user = json!({"capabilities": {"allow": ["execute"]}, "uploads": {"roots": [UPLOADS]}});
    let settings: Settings = serde_json::from_value(user).unwrap_or_else(|e| panic!("settings: {e}"));
    let authority = AuthorityLayers { user: Some(settings), organization: None }.compile();
    let ghostlight = Ghostlight::builder(Arc::new(browser)).authority(authority).build();
    let opened = call(&ghostlight, "browser_navigate", &json!({"url": HOME}));
    let tab = opened["facts"]["tab"].as_str().unwrap_or_default().to_owned();
    (ghostlight, tab)
}

/// Invoke `tool` once and answer its envelope as JSON, failing the bench unless it succeeded.
fn call(ghostlight: &Ghostlight, tool: &str, arguments: &Value) -> Value {
    let result = block_on(ghostlight.invoke(tool, arguments, &Cancellation::never()))
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    let envelope = &result.envelope;
    assert_eq!(envelope.status, Status::Succeeded, "{tool} {arguments}: {}", envelope.summary);
    serde_json::to_value(envelope).unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// The target handle of the control named `name` on `tab`.
fn target(ghostlight: &Ghostlight, tab: &str, name: &str) -> String {
    let found = call(ghostlight, "browser_find", &json!({"tab": tab, "text": name}));
    let columns = found["facts"]["columns"].as_array().cloned().unwrap_or_default();
    let column = columns.iter().position(|c| c == "target").unwrap_or_else(|| panic!("no target column"));
    found["facts"]["matches"][0][column].as_str().unwrap_or_else(|| panic!("no match for {name}")).to_owned()
}

/// Valid arguments for `tool` on a fresh [`permissive`] Ghostlight, with what it needs set up.
fn prepared(tool: &str) -> (Ghostlight, Value) {
    let (ghostlight, tab) = permissive();
    let save = json!({"action": "click", "selector": {"name": "Save"}});
    let arguments = match tool {
        "browser_tabs" => json!({"action": "list"}),
        "browser_navigate" => json!({"url": HOME}),
        "browser_history" => json!({"action": "reload"}),
        "browser_window" => json!({"action": "resize", "width": 1000, "height": 700}),
        "browser_read" => json!({"max_chars": 500}),
        "browser_inspect" => json!({}),
        "browser_find" => json!({"text": "Button 7"}),
        "browser_screenshot" => json!({}),
        "browser_click" => json!({"selector": {"name": "Save"}}),
        "browser_scroll" => json!({"direction": "down", "amount": "medium"}),
        "browser_hover" => json!({"selector": {"name": "Save"}}),
        "browser_fill_form" => json!({"fields": [{"selector": {"name": "Name"}, "value": "Ada"}]}),
        "browser_type_text" => json!({"selector": {"name": "Name"}, "text": "Ada"}),
        "browser_press_key" => json!({"key": "Tab"}),
        "browser_drag" => json!({
            "source_target": target(&ghostlight, &tab, "Card"),
            "destination_target": target(&ghostlight, &tab, "Done"),
        }),
        "browser_wait" => json!({"condition": "text_present", "value": "Some text"}),
        "browser_dialog" => json!({"action": "status"}),
        "browser_upload" => json!({"selector": {"name": "Resume"}, "paths": [RESUME]}),
        "browser_execute" => json!({"script": SCRIPT}),
        "browser_sequence" => json!({"steps": [save.clone(), save]}),
        "browser_flow" => json!({"steps": [
            {"id": "read", "tool": "browser_read", "arguments": {"max_chars": 500}},
            {"id": "find", "tool": "browser_find", "arguments": {"text": "Save"}},
            {"id": "save", "tool": "browser_click", "arguments": {"selector": {"name": "Save"}}},
        ]}),
        "browser_record" => {
            let started = call(&ghostlight, "browser_record", &json!({"action": "start"}));
            json!({"action": "status", "recording": started["facts"]["recording"]})
        }
        "browser_diagnose" => json!({}),
        "policy_explain" => json!({}),
        other => panic!("no arguments for {other}"),
    };
    call(&ghostlight, tool, &arguments);
    (ghostlight, arguments)
}

/// One invocation of each of the 24 tools, with valid arguments, over the scripted port.
#[divan::bench(args = TOOLS)]
fn tool(bencher: divan::Bencher, tool: &str) {
    let (ghostlight, arguments) = prepared(tool);
    bencher.bench_local(|| invoke(&ghostlight, tool, &arguments));
}

/// A `browser_flow` of 20 steps (reads, finds, clicks, form fills, one referencing an
/// earlier step's tab).
#[divan::bench]
fn flow_of_20_steps(bencher: divan::Bencher) {
    let (ghostlight, _) = permissive();
    let steps: Vec<Value> = (0..20)
        .map(|n| {
            let (tool, arguments) = match n % 4 {
                0 => ("browser_read", json!({"max_chars": 500})),
                1 => ("browser_find", json!({"text": format!("Button {n}")})),
                2 => ("browser_click", json!({"selector": {"name": format!("Button {n}")}})),
                _ => {
                    ("browser_fill_form", json!({"fields": [{"selector": {"name": "Name"}, "value": "Ada"}]}))
                }
            };
            json!({"id": format!("s{n}"), "tool": tool, "arguments": arguments})
        })
        .collect();
    let arguments = json!({"steps": steps});
    call(&ghostlight, "browser_flow", &arguments);
    bencher.bench_local(|| invoke(&ghostlight, "browser_flow", &arguments));
}

/// Rendering the catalog (`tools/list`) as JSON values.
#[divan::bench]
fn render_catalog() -> Value {
    ghostlight_core::render_catalog()
}

/// Serializing the rendered catalog to bytes (what `tools/list` carries); prints its size once.
#[divan::bench]
fn catalog_json(bencher: divan::Bencher) {
    let catalog = ghostlight_core::render_catalog();
    let bytes = serde_json::to_vec(&catalog).map(|b| b.len()).unwrap_or_default();
    println!("catalog: {bytes} bytes of JSON for {} tools", catalog.as_array().map_or(0, Vec::len));
    bencher.bench_local(|| serde_json::to_vec(&catalog).map(|b| b.len()).unwrap_or_default());
}
