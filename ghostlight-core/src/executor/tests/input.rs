//! Executor tests: input tools (fill_form, type_text, press_key, upload) and the browser's own
//! evidence and replays (record, diagnose).
//!
//! Target handles are registered straight into the workspace here (as `browser_inspect` would
//! mint them), so these tests do not depend on the perception tools.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use url::Url;

use super::harness::{HOME, Harness, NEXT, fact_str, fixture};
use crate::envelope::{Effect, Envelope, Status};
use crate::handles::{Handle, HandleKind};
use crate::operation::workspace::{TargetEntry, ViewEntry};
use crate::port::{
    BrowserPort, DiagnosticEntry, DiagnosticSource, ElementSummary, PerceiveInput, PerceiveScope, PortError,
    PortErrorKind, TabCall, TabRef,
};
use crate::selector::Role;
use crate::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};

/// A page with a form whose Send button submits to [`NEXT`], and a file input.
const FORM: &str = "https://example.com/form";
/// A form whose Send button is covered by a cookie banner.
const COVERED: &str = "https://example.com/covered";

fn browser() -> ScriptedBrowser {
    fixture()
        .site(
            FORM,
            ScriptedPage::new("Contact")
                .element(ScriptedElement::textbox("Name"))
                .element(ScriptedElement::number("Age"))
                .element(ScriptedElement::password("Password"))
                .element(ScriptedElement::file_input("Resume"))
                .element(
                    ScriptedElement::file_input("Secret key")
                        .credential(crate::vocab::CredentialClass::Password),
                )
                .element(ScriptedElement::button("Send").navigates_to(NEXT))
                .element(ScriptedElement::link("Next", NEXT)),
        )
        .site(
            COVERED,
            ScriptedPage::new("Covered").element(ScriptedElement::textbox("Name")).element(
                ScriptedElement::button("Send")
                    .covered_by(ElementSummary { role: "dialog".into(), name: Some("Cookies".into()) }),
            ),
        )
        .site(NEXT, ScriptedPage::new("Next page").text("Thanks."))
}

fn handle(text: &str, kind: HandleKind) -> Handle {
    Handle::parse(text, kind).unwrap_or_else(|e| panic!("{text}: {e:?}"))
}

/// The browser's tab behind a tab handle.
fn tab_ref(h: &Harness, tab: &str) -> TabRef {
    h.ghost
        .workspace
        .slot(&handle(tab, HandleKind::Tab))
        .and_then(|slot| slot.tab())
        .unwrap_or_else(|| panic!("{tab} has no live tab"))
}

/// A target handle for the element named `name`, as `browser_inspect` would mint it. The
/// perception it takes is removed from the call log.
fn target(h: &Harness, tab: &str, name: &str) -> String {
    let tab_ref = tab_ref(h, tab);
    let input = PerceiveInput { scope: PerceiveScope::All, max_items: 100 };
    let perception = futures::executor::block_on(
        h.browser.perceive(&TabCall::reading(&tab_ref, &crate::port::Gate::open()), &input),
    )
    .unwrap_or_else(|e| panic!("perceive: {e}"));
    let element = perception
        .elements
        .iter()
        .find(|e| e.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no element named {name:?}"));
    let slot = h.ghost.workspace.slot(&handle(tab, HandleKind::Tab)).unwrap_or_else(|| panic!("{tab}"));
    h.browser.clear_calls();
    h.ghost
        .workspace
        .add_target(TargetEntry {
            slot: slot.handle.clone(),
            generation: slot.state().generation,
            element: element.element.clone(),
            role: Role::narrow(&element.role),
            name: element.name.clone(),
            credential: element.credential,
        })
        .as_str()
        .to_owned()
}

/// A current viewport view of `tab` (as `browser_screenshot` would register it), keeping
/// `png` as its image.
fn view(h: &Harness, tab: &str, png: Option<Vec<u8>>) -> String {
    let bytes = png.as_ref().map_or(0, |p| p.len() as u64);
    view_of(h, tab, png, bytes)
}

/// A view whose image was `png_bytes` long and is kept as `png` (`None`: not kept).
fn view_of(h: &Harness, tab: &str, png: Option<Vec<u8>>, png_bytes: u64) -> String {
    let tab_ref = tab_ref(h, tab);
    let geometry =
        futures::executor::block_on(h.browser.geometry(&tab_ref)).unwrap_or_else(|e| panic!("geometry: {e}"));
    let slot = h.ghost.workspace.slot(&handle(tab, HandleKind::Tab)).unwrap_or_else(|| panic!("{tab}"));
    h.browser.clear_calls();
    h.ghost
        .workspace
        .add_view(ViewEntry {
            slot: slot.handle.clone(),
            generation: slot.state().generation,
            geometry,
            full_page: false,
            origin: (0.0, 0.0),
            css_per_pixel: 1.0,
            width: geometry.viewport_width,
            height: geometry.viewport_height,
            png_bytes,
            png: png.map(Arc::new),
        })
        .as_str()
        .to_owned()
}

/// The envelope as JSON text, for leak checks.
fn text(envelope: &Envelope) -> String {
    serde_json::to_string(envelope).unwrap_or_default()
}

fn outcome(envelope: &Envelope) -> (Status, Effect, bool) {
    (envelope.status, envelope.effect, envelope.repeat_safe)
}

// ----- browser_fill_form ----------------------------------------------------------------------

#[test]
fn fill_form_fills_every_field_and_is_repeat_safe_without_submit() {
    let h = Harness::new(browser());
    let tab = h.open(HOME);
    let email = target(&h, &tab, "Email");
    let envelope = h.call(
        "browser_fill_form",
        json!({"fields": [
            {"selector": {"name": "Name"}, "value": "Ada Lovelace"},
            {"target": email, "value": "ada@example.com"},
            {"selector": {"name": "Subscribe", "role": "checkbox"}, "value": true},
        ]}),
    );
    insta::assert_json_snapshot!("fill_form_filled", envelope);
    assert_eq!(envelope.summary, "Filled 3 fields on example.com.");
    assert_eq!(outcome(&envelope), (Status::Succeeded, Effect::Applied, true));
    assert_eq!(envelope.facts["filled_count"], 3);
    assert_eq!(envelope.facts["submitted"], false);
    assert_eq!(h.browser.filled_fields(&tab_ref(&h, &tab)), 3);
    for secret in ["Ada Lovelace", "ada@example.com"] {
        assert!(!text(&envelope).contains(secret));
        assert!(!h.audit_text().contains(secret));
    }
}

#[test]
fn fill_form_submits_with_the_named_control_and_reports_the_landing() {
    let h = Harness::new(browser());
    let tab = h.open(FORM);
    let envelope = h.call(
        "browser_fill_form",
        json!({
            "fields": [
                {"selector": {"name": "Name"}, "value": "Ada"},
                {"selector": {"name": "Age"}, "value": 36},
            ],
            "submit_selector": {"name": "Send", "role": "button"},
        }),
    );
    insta::assert_json_snapshot!("fill_form_submitted", envelope);
    assert_eq!(
        envelope.summary,
        "Filled 2 fields and submitted with the \"Send\" button on example.com; the page moved to example.com."
    );
    assert_eq!(outcome(&envelope), (Status::Succeeded, Effect::Applied, false));
    assert_eq!(envelope.facts["submitted"], true);
    assert_eq!(envelope.facts["landing"]["url"], NEXT);
    let calls = h.browser.method_names();
    let fill = calls.iter().position(|m| *m == "fill");
    let click = calls.iter().position(|m| *m == "click");
    assert!(fill.is_some() && fill < click, "{calls:?}");
    // Both fields and the submit control are resolved against one perception of the page,
    // not one each (nothing is dispatched before they all are).
    assert_eq!(calls.iter().filter(|m| **m == "perceive").count(), 1, "{calls:?}");
    let _ = tab;
}

#[test]
fn fill_form_credential_fields_stop_before_any_value_is_dispatched() {
    let h = Harness::new(browser());
    let tab = h.open(FORM);
    let password = target(&h, &tab, "Password");
    let envelope = h.call(
        "browser_fill_form",
        json!({"fields": [
            {"selector": {"name": "Name"}, "value": "Ada"},
            {"target": password, "value": "hunter2"},
        ], "submit_selector": {"name": "Send"}}),
    );
    insta::assert_json_snapshot!("fill_form_credential_handoff", envelope);
    assert_eq!(outcome(&envelope), (Status::AttentionRequired, Effect::None, false));
    assert_eq!(envelope.facts["reason"], "credential_handoff");
    assert_eq!(envelope.facts["credential"], "password");
    assert_eq!(envelope.facts["target"], password.as_str());
    assert_eq!(envelope.facts["tab"], tab.as_str());
    let calls = h.browser.method_names();
    for effectful in ["fill", "type_text", "click", "press_keys"] {
        assert!(!calls.contains(&effectful), "{effectful} was dispatched: {calls:?}");
    }
    assert_eq!(h.browser.filled_fields(&tab_ref(&h, &tab)), 0);
    assert!(!text(&envelope).contains("hunter2"));
    assert!(!h.audit_text().contains("hunter2"));
}

#[test]
fn fill_form_a_value_that_does_not_fit_refuses_the_whole_call() {
    let h = Harness::new(browser());
    let tab = h.open(HOME);
    let envelope = h.call(
        "browser_fill_form",
        json!({"fields": [
            {"selector": {"name": "Name"}, "value": "Ada"},
            {"selector": {"name": "Color"}, "value": "Purple-secret"},
        ], "tab": tab}),
    );
    insta::assert_json_snapshot!("fill_form_value_mismatch", envelope);
    assert_eq!(outcome(&envelope), (Status::Failed, Effect::None, false));
    assert_eq!(envelope.facts["reason"], "value_mismatch");
    assert_eq!(envelope.facts["field"], 2);
    assert_eq!(
        envelope.summary,
        "Field 2 (the \"Color\" combo box) does not accept the value given for it, so nothing was filled on \
         example.com."
    );
    assert_eq!(h.browser.filled_fields(&tab_ref(&h, &tab)), 0);
    assert!(!text(&envelope).contains("Purple-secret"));
    assert!(!h.audit_text().contains("Purple-secret"));
}

#[test]
fn fill_form_resolves_every_target_before_dispatch() {
    let h = Harness::new(browser());
    let tab = h.open(HOME);
    let envelope = h.call(
        "browser_fill_form",
        json!({"fields": [
            {"selector": {"name": "Name"}, "value": "Ada"},
            {"target": "target_99", "value": "x"},
        ], "tab": tab}),
    );
    assert_eq!(envelope.status, Status::Failed);
    assert_eq!(envelope.facts["reason"], "unknown_target");
    assert!(!h.browser.method_names().contains(&"fill"));
    // An unresolvable submit control refuses before anything is filled too.
    let envelope = h.call(
        "browser_fill_form",
        json!({"fields": [{"selector": {"name": "Name"}, "value": "Ada"}], "submit_selector": {"name": "Nope"}}),
    );
    assert_eq!(envelope.facts["reason"], "no_match");
    assert!(!h.browser.method_names().contains(&"fill"));
}

#[test]
fn fill_form_a_failed_submit_after_filling_is_partial() {
    let h = Harness::new(browser());
    h.open(COVERED);
    let envelope = h.call(
        "browser_fill_form",
        json!({"fields": [{"selector": {"name": "Name"}, "value": "Ada"}], "submit_selector": {"name": "Send"}}),
    );
    insta::assert_json_snapshot!("fill_form_submit_obstructed", envelope);
    assert_eq!(outcome(&envelope), (Status::Failed, Effect::Partial, false));
    assert_eq!(envelope.facts["filled_count"], 1);
    assert_eq!(envelope.facts["submitted"], false);
    assert!(
        envelope.summary.starts_with("Filled 1 field on example.com but did not submit. Did not click"),
        "{}",
        envelope.summary
    );
    // A lost connection during the submit leaves the whole effect unknown.
    h.browser.fail_next("click", PortError::transport("connection reset"));
    let envelope = h.call(
        "browser_fill_form",
        json!({"fields": [{"selector": {"name": "Name"}, "value": "Ada"}], "submit_selector": {"name": "Send"}}),
    );
    assert_eq!(outcome(&envelope), (Status::Unknown, Effect::Unknown, false));
    assert!(
        envelope.summary.starts_with("Filled 1 field on example.com. Lost the browser connection"),
        "{}",
        envelope.summary
    );
}

// ----- browser_type_text ------------------------------------------------------------------------

#[test]
fn type_text_types_and_counts_unicode_scalar_values() {
    let h = Harness::new(browser());
    h.open(HOME);
    let envelope = h.call("browser_type_text", json!({"selector": {"name": "Name"}, "text": "Ada L"}));
    insta::assert_json_snapshot!("type_text_typed", envelope);
    assert_eq!(envelope.summary, "Typed 5 characters into the \"Name\" text field on example.com.");
    assert_eq!(outcome(&envelope), (Status::Succeeded, Effect::Applied, false));
    let envelope = h.call("browser_type_text", json!({"selector": {"name": "Email"}, "text": "héllo😀"}));
    assert_eq!(envelope.facts["character_count"], 6);
    assert!(!text(&envelope).contains("héllo"));
    assert!(!h.audit_text().contains("Ada L") && !h.audit_text().contains("héllo"));
}

#[test]
fn type_text_clear_first_is_repeat_safe_and_clear_only_says_cleared() {
    let h = Harness::new(browser());
    let tab = h.open(HOME);
    let name = target(&h, &tab, "Name");
    let envelope = h.call("browser_type_text", json!({"target": name, "text": "", "clear_first": true}));
    insta::assert_json_snapshot!("type_text_cleared", envelope);
    assert_eq!(envelope.summary, "Cleared the \"Name\" text field on example.com.");
    assert_eq!(outcome(&envelope), (Status::Succeeded, Effect::Applied, true));
    assert_eq!(envelope.facts["target"], name.as_str());
    let envelope = h.call("browser_type_text", json!({"target": name, "text": "Ada", "clear_first": true}));
    assert_eq!(
        envelope.summary,
        "Cleared the \"Name\" text field and typed 3 characters into it on example.com."
    );
    assert!(envelope.repeat_safe);
}

#[test]
fn type_text_credential_targets_stop_before_text_dispatch() {
    let h = Harness::new(browser());
    h.open(HOME);
    let envelope = h.call("browser_type_text", json!({"selector": {"name": "Password"}, "text": "hunter2"}));
    insta::assert_json_snapshot!("type_text_credential_handoff", envelope);
    assert_eq!(outcome(&envelope), (Status::AttentionRequired, Effect::None, false));
    assert!(!h.browser.method_names().contains(&"type_text"));
    assert!(!text(&envelope).contains("hunter2") && !h.audit_text().contains("hunter2"));
}

#[test]
fn type_text_focused_checks_the_focused_control() {
    let h = Harness::new(browser());
    h.open(HOME);
    let envelope = h.call("browser_type_text", json!({"focused": true, "text": "Ada"}));
    insta::assert_json_snapshot!("type_text_nothing_focused", envelope);
    assert_eq!(envelope.facts["reason"], "nothing_focused");
    assert!(!h.browser.method_names().contains(&"type_text"));

    h.ok("browser_click", json!({"selector": {"name": "Name"}}));
    let envelope = h.ok("browser_type_text", json!({"focused": true, "text": "Ada"}));
    assert_eq!(envelope.summary, "Typed 3 characters into the \"Name\" text field on example.com.");

    h.ok("browser_click", json!({"selector": {"name": "Password"}}));
    h.browser.clear_calls();
    let envelope = h.call("browser_type_text", json!({"focused": true, "text": "hunter2"}));
    assert_eq!(envelope.status, Status::AttentionRequired);
    assert_eq!(h.browser.method_names(), ["page", "focused_element"]);
}

#[test]
fn type_text_without_target_names_under_privacy() {
    let h = Harness::with_user(browser(), json!({"privacy": {"preserve_target_names": false}}));
    h.open(HOME);
    let envelope = h.ok("browser_type_text", json!({"selector": {"name": "Name"}, "text": "Ada"}));
    assert_eq!(envelope.summary, "Typed 3 characters into a text field on example.com.");
}

// ----- browser_press_key ------------------------------------------------------------------------

#[test]
fn press_key_names_named_keys_and_reports_the_wire_form() {
    let h = Harness::new(browser());
    h.open(HOME);
    let envelope = h.call("browser_press_key", json!({"key": "Enter"}));
    insta::assert_json_snapshot!("press_key_enter", envelope);
    assert_eq!(envelope.summary, "Pressed Enter on example.com.");
    assert_eq!(outcome(&envelope), (Status::Succeeded, Effect::Applied, false));
    let envelope = h.ok("browser_press_key", json!({"key": "K", "modifiers": ["Control", "Shift"]}));
    assert_eq!(envelope.facts["key"], "Control+Shift+K");
    assert_eq!(envelope.summary, "Pressed Control+Shift+K on example.com.");
    let envelope = h.ok("browser_press_key", json!({"key": "ArrowDown", "repeat": 3}));
    assert_eq!(envelope.summary, "Pressed ArrowDown 3 times on example.com.");
    assert_eq!(envelope.facts["repeat"], 3);
}

#[test]
fn press_key_counts_character_keys_instead_of_naming_them() {
    let h = Harness::new(browser());
    h.open(HOME);
    let envelope = h.call(
        "browser_press_key",
        json!({"strokes": ["s", "3", "c", "Enter"], "selector": {"name": "Name"}}),
    );
    insta::assert_json_snapshot!("press_key_strokes", envelope);
    assert_eq!(
        envelope.summary,
        "Pressed 3 character keys then Enter in the \"Name\" text field on example.com."
    );
    assert_eq!(envelope.facts["key"], "chars:3 Enter", "typed characters are counted, never spelled");
    assert_eq!(envelope.facts["character_keys"], 3);
}

#[test]
fn press_key_enter_on_a_link_reports_the_landing() {
    let h = Harness::new(browser());
    let tab = h.open(HOME);
    let next = target(&h, &tab, "Next");
    let envelope = h.ok("browser_press_key", json!({"key": "Enter", "target": next}));
    assert_eq!(
        envelope.summary,
        "Pressed Enter in the \"Next\" link on example.com; the page moved to example.com."
    );
    assert_eq!(envelope.facts["landing"]["url"], NEXT);
    assert_eq!(envelope.facts["target"], next.as_str());
}

#[test]
fn press_key_character_keys_into_a_credential_field_hand_off() {
    let h = Harness::new(browser());
    h.open(HOME);
    let envelope =
        h.call("browser_press_key", json!({"strokes": ["p", "w"], "selector": {"name": "Password"}}));
    assert_eq!(outcome(&envelope), (Status::AttentionRequired, Effect::None, false));
    assert!(!h.browser.method_names().contains(&"press_keys"));
    // Focused, without a target: the focused control is checked.
    h.ok("browser_click", json!({"selector": {"name": "Password"}}));
    let envelope = h.call("browser_press_key", json!({"key": "x"}));
    assert_eq!(envelope.status, Status::AttentionRequired);
    assert!(!h.browser.method_names().contains(&"press_keys"));
    // Named keys and shortcuts are not typing.
    h.ok("browser_press_key", json!({"key": "Tab"}));
    h.ok("browser_press_key", json!({"key": "a", "modifiers": ["Control"]}));
}

// ----- browser_upload ---------------------------------------------------------------------------

const ROOT: &str = "/home/ada/Uploads";
const RESUME: &str = "/home/ada/Uploads/secret-resume.pdf";
const PHOTO: &str = "/home/ada/Uploads/private-photo.jpg";

fn upload_browser() -> ScriptedBrowser {
    browser()
        .file(RESUME, 1_234)
        .file(PHOTO, 200_000)
        .file("/home/ada/Uploads/huge.bin", 5_000_001)
        .file("/home/ada/Uploads/big-a.bin", 3_000_000)
        .file("/home/ada/Uploads/big-b.bin", 3_000_000)
        .directory("/home/ada/Uploads/folder")
}

fn with_roots() -> Harness {
    Harness::with_user(upload_browser(), json!({"uploads": {"roots": [ROOT]}}))
}

/// Neither the envelope nor the audit mentions any of `secrets`.
fn assert_no_leak(h: &Harness, envelope: &Envelope, secrets: &[&str]) {
    for secret in secrets {
        assert!(!text(envelope).contains(secret), "{secret} leaked into {}", text(envelope));
        assert!(!h.audit_text().contains(secret), "{secret} leaked into the audit");
    }
}

#[test]
fn upload_paths_are_refused_without_upload_roots_before_any_browser_contact() {
    let h = Harness::new(upload_browser());
    h.open(FORM);
    h.browser.clear_calls();
    let envelope = h.call("browser_upload", json!({"selector": {"name": "Resume"}, "paths": [RESUME]}));
    insta::assert_json_snapshot!("upload_no_roots", envelope);
    assert_eq!(outcome(&envelope), (Status::Blocked, Effect::None, false));
    assert_eq!(envelope.facts["reason"], "upload_root_denied");
    assert!(envelope.next_steps.iter().any(|s| s.contains("policy_explain")));
    assert!(h.browser.calls().is_empty(), "{:?}", h.browser.method_names());
    assert_no_leak(&h, &envelope, &[RESUME, "secret-resume", "/home/ada"]);
}

#[test]
fn upload_paths_outside_every_root_are_blocked() {
    let h = with_roots();
    h.open(FORM);
    h.browser.clear_calls();
    for outside in ["/home/ada/secret.txt", "/home/ada/Uploads/../secret.txt", "/home/ada/Uploads-old/x"] {
        let envelope =
            h.call("browser_upload", json!({"selector": {"name": "Resume"}, "paths": [RESUME, outside]}));
        assert_eq!(envelope.status, Status::Blocked, "{outside}");
        assert_eq!(
            envelope.summary,
            "File 2 of 2 is outside the configured upload folders, so nothing was uploaded."
        );
        assert_no_leak(&h, &envelope, &[outside, "secret"]);
    }
    assert!(h.browser.calls().is_empty());
}

#[test]
fn upload_attaches_files_and_never_names_them() {
    let h = with_roots();
    let tab = h.open(FORM);
    let resume = target(&h, &tab, "Resume");
    let envelope = h.call("browser_upload", json!({"target": resume, "paths": [RESUME, PHOTO]}));
    insta::assert_json_snapshot!("upload_paths", envelope);
    assert_eq!(
        envelope.summary,
        "Attached 2 files (201,234 bytes) to the \"Resume\" file input on example.com."
    );
    assert_eq!(outcome(&envelope), (Status::Succeeded, Effect::Applied, false));
    assert_eq!(envelope.facts["uploaded_count"], 2);
    assert_eq!(envelope.facts["uploaded_bytes"], 201_234);
    assert_eq!(envelope.facts["target"], resume.as_str());
    assert_eq!(h.browser.method_names(), ["page", "stat_files", "upload"]);
    assert_no_leak(&h, &envelope, &[RESUME, PHOTO, "secret-resume", "private-photo", ".pdf", ".jpg"]);
}

#[test]
fn upload_refuses_folders_missing_and_oversized_files_before_dispatch() {
    let h = with_roots();
    h.open(FORM);
    let cases = [
        (
            "/home/ada/Uploads/folder",
            "not_a_file",
            "File 2 of 2 is a folder, not a file; nothing was uploaded.",
        ),
        (
            "/home/ada/Uploads/gone.txt",
            "missing_file",
            "File 2 of 2 does not exist or cannot be read; nothing was uploaded.",
        ),
        (
            "/home/ada/Uploads/huge.bin",
            "too_large",
            "File 2 of 2 is 5,000,001 bytes, over the 5,000,000-byte limit for one file; nothing was uploaded.",
        ),
    ];
    for (path, reason, summary) in cases {
        let envelope =
            h.call("browser_upload", json!({"selector": {"name": "Resume"}, "paths": [RESUME, path]}));
        if reason == "missing_file" {
            insta::assert_json_snapshot!("upload_missing_file", envelope);
        }
        assert_eq!(outcome(&envelope), (Status::Failed, Effect::None, false), "{path}");
        assert_eq!(envelope.facts["reason"], reason);
        assert_eq!(envelope.summary, summary);
        assert_eq!(envelope.facts["file"], 2);
        assert_no_leak(&h, &envelope, &[path, RESUME]);
    }
    let envelope = h.call(
        "browser_upload",
        json!({"selector": {"name": "Resume"}, "paths": ["/home/ada/Uploads/big-a.bin", "/home/ada/Uploads/big-b.bin"]}),
    );
    assert_eq!(envelope.facts["reason"], "too_large");
    assert_eq!(
        envelope.summary,
        "The 2 files total 6,000,000 bytes, over the 5,000,000-byte limit for one upload; nothing was uploaded."
    );
    assert!(!h.browser.method_names().contains(&"upload"));
}

#[test]
fn upload_inline_files_decode_after_preflight_and_stay_unnamed() {
    let h = Harness::new(upload_browser());
    h.open(FORM);
    // "secret contents" and "hello"
    let files = json!([
        {"name": "diary-secret.txt", "data_base64": "c2VjcmV0IGNvbnRlbnRz"},
        {"name": "note.md", "data_base64": "aGVsbG8="},
    ]);
    let envelope = h.call("browser_upload", json!({"selector": {"name": "Resume"}, "files": files}));
    assert_eq!(envelope.summary, "Attached 2 files (20 bytes) to the \"Resume\" file input on example.com.");
    assert_eq!(envelope.facts["uploaded_bytes"], 20);
    assert_eq!(envelope.facts["target"], Value::Null);
    assert_no_leak(&h, &envelope, &["diary-secret", "note.md", "c2VjcmV0", "secret contents"]);
    // A credential-class destination stops the call before anything is decoded or sent.
    h.browser.clear_calls();
    let envelope = h.call("browser_upload", json!({"selector": {"name": "Secret key"}, "files": files}));
    assert_eq!(outcome(&envelope), (Status::AttentionRequired, Effect::None, false));
    assert!(!h.browser.method_names().contains(&"upload"));
}

#[test]
fn upload_to_a_control_that_takes_no_files_names_it_and_counts_the_files() {
    let h = Harness::new(upload_browser());
    h.open(FORM);
    let files = json!([{"name": "a.txt", "data_base64": "aGVsbG8="}]);
    let refused = h.call("browser_upload", json!({"selector": {"name": "Name"}, "files": files}));
    assert_eq!(refused.status, Status::Failed, "{}", refused.summary);
    assert!(
        refused.summary.contains("attach 1 file to the \"Name\" text field (only a file input takes files)"),
        "{}",
        refused.summary
    );
    // A count the sentence names is in the facts (spec: "Result envelope").
    assert_eq!(refused.facts["file_count"], 1, "{:?}", refused.facts);
    assert_eq!(refused.facts["host"], "example.com");
}

/// R252: governance decides before payload bytes are examined. Every refusal of the authority
/// answers `blocked` whatever the payload (malformed, oversized); a payload the authority
/// admits is then checked and refused as invalid arguments, naming the member and the rule,
/// with nothing sent to the browser.
#[test]
fn upload_payloads_are_examined_only_after_governance() {
    let h = Harness::new(upload_browser());
    h.open(FORM);
    let zeros = |n: usize| "AAAA".repeat(n / 3);
    let payloads = [
        ("malformed base64", json!([{"name": "a.txt", "data_base64": "not base64!"}])),
        ("non-canonical padding", json!([{"name": "a.txt", "data_base64": "AR=="}])),
        ("a file over the ceiling", json!([{"name": "a.txt", "data_base64": zeros(5_000_001)}])),
        (
            "files over the combined ceiling",
            json!([{"name": "a", "data_base64": zeros(3_000_000)}, {"name": "b", "data_base64": zeros(3_000_000)}]),
        ),
    ];
    for (case, files) in &payloads {
        for (refusal, restriction) in [
            ("no write capability", json!({"restrict_capabilities": ["read"]})),
            ("a host outside authority", json!({"restrict_hosts": ["other.example"]})),
        ] {
            h.browser.clear_calls();
            let mut arguments = json!({"selector": {"name": "Resume"}, "files": files});
            if let (Some(arguments), Some(restriction)) = (arguments.as_object_mut(), restriction.as_object())
            {
                arguments.extend(restriction.clone());
            }
            let envelope = h.call("browser_upload", arguments);
            assert_eq!(envelope.status, Status::Blocked, "{case} with {refusal}: {}", envelope.summary);
            assert!(!h.browser.method_names().contains(&"upload"), "{case} with {refusal}");
        }
        // Admitted by the authority: the payload is examined, refused, and never dispatched.
        h.browser.clear_calls();
        let envelope = h.call("browser_upload", json!({"selector": {"name": "Resume"}, "files": files}));
        assert_eq!(outcome(&envelope), (Status::Failed, Effect::None, false), "{case}");
        assert_eq!(envelope.facts["reason"], "invalid_arguments", "{case}");
        assert!(
            envelope.summary.starts_with("Invalid arguments for browser_upload: /files"),
            "{case}: {}",
            envelope.summary
        );
        assert!(!h.browser.method_names().contains(&"upload"), "{case}");
        assert_no_leak(&h, &envelope, &["a.txt", "not base64"]);
    }
    let malformed = h.call("browser_upload", json!({"selector": {"name": "Resume"}, "files": payloads[0].1}));
    assert_eq!(
        malformed.summary,
        "Invalid arguments for browser_upload: /files/0/data_base64 must be standard base64 \
         (A-Z, a-z, 0-9, +, /), padded with = to a multiple of 4 characters."
    );
    assert_eq!(
        (&malformed.facts["pointer"], &malformed.facts["rule"]),
        (&json!("/files/0/data_base64"), &json!("invalid_value"))
    );
}

#[test]
fn a_capture_too_large_to_keep_says_so_and_points_to_a_smaller_one() {
    let h = Harness::new(upload_browser());
    let tab = h.open(FORM);
    let huge = view_of(&h, &tab, None, crate::limits::CAPTURE_REUSE_MAX_BYTES + 1);
    let envelope = h.call("browser_upload", json!({"selector": {"name": "Resume"}, "source_image": huge}));
    assert_eq!(envelope.facts["reason"], "too_large", "{}", envelope.summary);
    assert!(envelope.summary.contains("never kept"), "{}", envelope.summary);
    assert!(envelope.next_steps[0].contains("viewport or a region"), "{:?}", envelope.next_steps);
}

#[test]
fn upload_reuses_a_kept_capture_and_refuses_an_expired_one() {
    let h = Harness::new(upload_browser());
    let tab = h.open(FORM);
    let image = view(&h, &tab, Some(vec![7; 3_000]));
    let envelope = h.call("browser_upload", json!({"selector": {"name": "Resume"}, "source_image": image}));
    insta::assert_json_snapshot!("upload_capture_attached", envelope);
    assert_eq!(
        envelope.summary,
        format!("Attached the image of {image} (3,000 bytes) to the \"Resume\" file input on example.com.")
    );
    assert_eq!(envelope.facts["uploaded_count"], 1);
    assert_no_leak(&h, &envelope, &["capture.png"]);

    let dropped = h.call("browser_upload", json!({"source_image": image, "view": image, "x": 10, "y": 20}));
    insta::assert_json_snapshot!("upload_capture_dropped", dropped);
    assert_eq!(dropped.status, Status::Succeeded, "{}", dropped.summary);
    assert_eq!(
        dropped.summary,
        format!("Dropped the image of {image} (3,000 bytes) at (10, 20) of {image} on example.com.")
    );
    assert_eq!(dropped.facts["target"], Value::Null);

    h.browser.clear_calls();
    let expired = view(&h, &tab, None);
    let envelope = h.call("browser_upload", json!({"selector": {"name": "Resume"}, "source_image": expired}));
    insta::assert_json_snapshot!("upload_capture_expired", envelope);
    assert_eq!(envelope.facts["reason"], "image_expired");

    let big = view(&h, &tab, Some(vec![0; 5_000_001]));
    let envelope = h.call("browser_upload", json!({"selector": {"name": "Resume"}, "source_image": big}));
    assert_eq!(envelope.facts["reason"], "too_large");
    assert!(!h.browser.method_names().contains(&"upload"));
}

// ----- browser_record ---------------------------------------------------------------------------

fn advance(h: &Harness, ms: u64) {
    futures::executor::block_on(h.browser.sleep(Duration::from_millis(ms)));
}

#[test]
fn record_start_status_stop_and_save_to_the_client() {
    let h = Harness::new(browser());
    h.open(HOME);
    let started = h.call("browser_record", json!({"action": "start"}));
    insta::assert_json_snapshot!("record_started", started);
    assert_eq!(outcome(&started), (Status::Succeeded, Effect::Applied, false));
    let recording = fact_str(&started, "recording");
    assert_eq!(started.facts["state"], "recording");

    advance(&h, 4_200);
    let status = h.ok("browser_record", json!({"action": "status"}));
    assert_eq!(status.facts["recording"], recording.as_str());
    assert_eq!(outcome(&status), (Status::Succeeded, Effect::None, true));

    let saved = h.result("browser_record", json!({"action": "save"}));
    insta::assert_json_snapshot!("record_saved_client", saved.envelope);
    assert_eq!(saved.envelope.summary, "Saved a 4.2-second replay and returned it to the client.");
    assert_eq!(saved.envelope.facts["delivery"], "client");
    assert_eq!(saved.envelope.facts["duration_ms"], 4_200);
    assert_eq!(saved.attachments.len(), 1);
    assert_eq!(saved.attachments[0].mime_type, "image/gif");
    assert!(saved.envelope.repeat_safe);
    assert!(!text(&saved.envelope).contains("GIF89a"));

    let download =
        h.ok("browser_record", json!({"action": "save", "recording": recording, "download": true}));
    assert_eq!(download.summary, "Saved a 4.2-second replay and the browser saved it as a download.");
    assert_eq!(download.facts["delivery"], "download");
    assert!(!download.repeat_safe);
    assert!(h.result("browser_record", json!({"action": "save", "download": true})).attachments.is_empty());
}

#[test]
fn record_save_attaches_to_a_file_input_of_the_recorded_tab() {
    let h = Harness::new(browser());
    h.open(FORM);
    h.ok("browser_record", json!({"action": "start"}));
    advance(&h, 1_000);
    let saved = h.result("browser_record", json!({"action": "save", "selector": {"name": "Resume"}}));
    insta::assert_json_snapshot!("record_saved_attached", saved.envelope);
    assert_eq!(saved.envelope.status, Status::Succeeded, "{}", saved.envelope.summary);
    assert_eq!(
        saved.envelope.summary,
        "Saved a 1-second replay and attached it to the \"Resume\" file input on example.com."
    );
    assert_eq!(saved.envelope.facts["delivery"], "attach");
    assert!(saved.attachments.is_empty());
}

#[test]
fn record_save_to_a_control_that_is_no_file_input_says_so_and_keeps_the_recording() {
    let h = Harness::new(browser());
    h.open(FORM);
    h.ok("browser_record", json!({"action": "start"}));
    advance(&h, 1_000);
    let refused = h.call("browser_record", json!({"action": "save", "selector": {"name": "Name"}}));
    assert_eq!(refused.status, Status::Failed, "{}", refused.summary);
    assert_eq!(
        refused.summary,
        "The browser could not attach the replay to the \"Name\" text field (only a file input takes one)."
    );
    assert_ne!(refused.facts["reason"], "retention_expired");
    // The recording is still there to save elsewhere.
    h.ok("browser_record", json!({"action": "save", "download": true}));
}

#[test]
fn record_save_after_retention_expired_is_a_refusal() {
    let h = Harness::new(browser());
    h.open(HOME);
    let recording = fact_str(&h.ok("browser_record", json!({"action": "start"})), "recording");
    h.ok("browser_record", json!({"action": "stop"}));
    h.browser.fail_next("record", PortError::new(PortErrorKind::InvalidInput, "retention expired"));
    let envelope = h.call("browser_record", json!({"action": "save", "recording": recording}));
    insta::assert_json_snapshot!("record_retention_expired", envelope);
    assert_eq!(outcome(&envelope), (Status::Failed, Effect::None, false));
    assert_eq!(envelope.facts["reason"], "retention_expired");
    assert_eq!(envelope.facts["state"], "expired");
    // The handle is gone; an omitted recording no longer resolves to it, and both say why.
    let envelope = h.call("browser_record", json!({"action": "status"}));
    assert_eq!(envelope.facts["reason"], "no_recording");
    assert_eq!(
        envelope.summary,
        format!("This session has no recording left: {recording} expired when retention ran out.")
    );
    let again = h.call("browser_record", json!({"action": "save", "recording": recording}));
    assert_eq!(again.facts["reason"], "retention_expired", "{}", again.summary);
    assert_eq!(
        again.summary,
        format!("{recording} can no longer be saved: the browser erased its frames when retention ran out.")
    );
    let status = h.ok("browser_record", json!({"action": "status", "recording": recording}));
    assert_eq!(status.facts["state"], "expired");
}

#[test]
fn record_discard_erases_and_a_later_save_refuses() {
    let h = Harness::new(browser());
    h.open(HOME);
    let recording = fact_str(&h.ok("browser_record", json!({"action": "start"})), "recording");
    let discarded = h.call("browser_record", json!({"action": "discard"}));
    insta::assert_json_snapshot!("record_discarded", discarded);
    assert_eq!(outcome(&discarded), (Status::Succeeded, Effect::Applied, true));
    assert_eq!(discarded.facts["state"], "discarded");
    // Every later call says it was discarded, never that the handle is unknown.
    let envelope = h.call("browser_record", json!({"action": "save", "recording": recording}));
    assert_eq!(envelope.status, Status::Failed);
    assert_eq!(envelope.facts["reason"], "recording_discarded");
    assert_eq!(envelope.summary, format!("{recording} was discarded, so it can no longer be saved."));
    let stop = h.call("browser_record", json!({"action": "stop", "recording": recording}));
    assert_eq!(stop.summary, format!("{recording} was discarded, so it can no longer be stopped."));
    let status = h.ok("browser_record", json!({"action": "status", "recording": recording}));
    assert_eq!(status.summary, format!("{recording} was discarded; nothing is left to save."));
    assert_eq!(status.facts["state"], "discarded");
    let again = h.ok("browser_record", json!({"action": "discard", "recording": recording}));
    assert_eq!(outcome(&again), (Status::Succeeded, Effect::None, true));
    assert_eq!(again.summary, format!("{recording} was already discarded; its frames are gone."));
    let omitted = h.call("browser_record", json!({"action": "save"}));
    assert_eq!(omitted.facts["reason"], "no_recording");
    assert_eq!(omitted.summary, format!("This session has no recording left: {recording} was discarded."));
    // A handle this session never had is still unknown.
    let unknown = h.call("browser_record", json!({"action": "save", "recording": "rec_Unknown1"}));
    assert_eq!(unknown.facts["reason"], "unknown_recording", "{}", unknown.summary);
}

#[test]
fn record_an_omitted_recording_must_be_the_only_one() {
    let h = Harness::new(browser());
    h.open(HOME);
    let none = h.call("browser_record", json!({"action": "stop"}));
    insta::assert_json_snapshot!("record_no_recording", none);
    assert_eq!(none.facts["reason"], "no_recording");
    h.ok("browser_record", json!({"action": "start"}));
    h.ok("browser_record", json!({"action": "start"}));
    h.browser.clear_calls();
    let two = h.call("browser_record", json!({"action": "save"}));
    assert_eq!(two.facts["reason"], "ambiguous_recording");
    assert_eq!(two.facts["recording_count"], 2);
    assert!(h.browser.calls().is_empty());
}

// ----- browser_diagnose -------------------------------------------------------------------------

fn entry(source: DiagnosticSource, level: &str, problem: bool, url: Option<&str>) -> DiagnosticEntry {
    DiagnosticEntry {
        source,
        level: level.into(),
        problem,
        text: None,
        method: None,
        status: None,
        url: url.map(|u| Url::parse(u).unwrap_or_else(|e| panic!("{u}: {e}"))),
    }
}

#[test]
fn diagnose_first_call_starts_tracking() {
    let h = Harness::new(browser());
    h.open(HOME);
    let envelope = h.call("browser_diagnose", json!({}));
    insta::assert_json_snapshot!("diagnose_tracking_started", envelope);
    assert_eq!(
        envelope.summary,
        "Started tracking console and network on example.com; reproduce the problem, then call browser_diagnose again."
    );
    assert_eq!(outcome(&envelope), (Status::Succeeded, Effect::None, true));
    assert_eq!(envelope.facts["tracking_started"], true);
}

#[test]
fn diagnose_filters_hosts_and_strips_urls() {
    let console = DiagnosticEntry {
        text: Some(format!("TypeError: x is undefined {}", "y".repeat(900))),
        ..entry(DiagnosticSource::Console, "error", true, None)
    };
    let failed = DiagnosticEntry {
        method: Some("POST".into()),
        ..entry(
            DiagnosticSource::Network,
            "failed",
            true,
            Some("https://ada:pw@example.com/api?token=secret#frag"),
        )
    };
    let outside = DiagnosticEntry {
        method: Some("GET".into()),
        status: Some(500),
        ..entry(
            DiagnosticSource::Network,
            "request",
            true,
            Some("https://tracker.other.example/collect?id=1"),
        )
    };
    let fine = DiagnosticEntry {
        method: Some("GET".into()),
        status: Some(200),
        ..entry(DiagnosticSource::Network, "request", false, Some("https://example.com/app.js"))
    };
    let h =
        Harness::new(browser().diagnostic(console).diagnostic(failed).diagnostic(outside).diagnostic(fine));
    h.open(HOME);
    let envelope = h.call("browser_diagnose", json!({"restrict_hosts": ["example.com"]}));
    insta::assert_json_snapshot!("diagnose_problems", envelope);
    assert_eq!(
        envelope.summary,
        "Found 2 problems on example.com (1 console error, 1 failed request). Withheld 1 entry from hosts outside \
         authority."
    );
    assert_eq!(envelope.facts["host_filtered"], 1);
    let entries = envelope.facts["entries"].as_array().cloned().unwrap_or_default();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[1]["url"], "https://example.com/api");
    let text_chars = entries[0]["text"].as_str().map(|t| t.chars().count()).unwrap_or_default();
    assert_eq!(text_chars, 500);
    for leak in ["token", "secret", "frag", "ada:pw", "tracker"] {
        assert!(!text(&envelope).contains(leak), "{leak}");
    }
    assert!(!h.audit_text().contains("TypeError"));

    let all = h.ok(
        "browser_diagnose",
        json!({"detail": "all", "source": "network", "restrict_hosts": ["example.com"]}),
    );
    assert_eq!(
        all.summary,
        "Found 2 entries on example.com, 1 of them a problem (1 failed request). Withheld 1 entry from hosts outside \
         authority."
    );
    // `match` cannot probe a withheld query string.
    let probe = h.ok("browser_diagnose", json!({"match": "token=secret"}));
    assert_eq!(probe.facts["entries"], json!([]));
    let shown = h.ok("browser_diagnose", json!({"match": "/API"}));
    assert_eq!(shown.facts["entry_count"], 1);
}

/// A browser's own console messages quote URLs (a blocked cross-origin request names the
/// denied host's full URL): console text shows them as the authority projects them.
#[test]
fn diagnose_console_text_projects_the_urls_it_quotes() {
    let blocked = DiagnosticEntry {
        text: Some(
            "Cross-Origin Request Blocked: https://tracker.other.example/collect?id=1 and \
             (https://ada:pw@example.com/api?token=secret#frag) refused"
                .into(),
        ),
        ..entry(DiagnosticSource::Console, "error", true, None)
    };
    let h = Harness::new(browser().diagnostic(blocked));
    h.open(HOME);
    let envelope = h.ok("browser_diagnose", json!({"restrict_hosts": ["example.com"]}));
    let text = envelope.facts["entries"][0]["text"].as_str().unwrap_or_default().to_owned();
    assert_eq!(
        text,
        "Cross-Origin Request Blocked: https://tracker.other.example and (https://example.com/api) refused"
    );
    // `match` sees only what is shown.
    let probe = h.ok("browser_diagnose", json!({"match": "collect?id", "restrict_hosts": ["example.com"]}));
    assert_eq!(probe.facts["entries"], json!([]));
}

#[test]
fn diagnose_unsupported_names_the_engine() {
    let h = Harness::new(browser());
    h.open(HOME);
    h.browser.fail_next("diagnostics", PortError::new(PortErrorKind::Unsupported, "no evidence"));
    let envelope = h.call("browser_diagnose", json!({}));
    insta::assert_json_snapshot!("diagnose_unsupported", envelope);
    assert_eq!(envelope.status, Status::Failed);
    assert_eq!(envelope.facts["engine"], "scripted");
    assert!(envelope.summary.contains("(scripted)"), "{}", envelope.summary);
}

#[test]
fn input_audit_records_carry_no_payloads() {
    let h = with_roots();
    h.open(FORM);
    h.call("browser_fill_form", json!({"fields": [{"selector": {"name": "Name"}, "value": "payload-1"}]}));
    h.call("browser_type_text", json!({"selector": {"name": "Name"}, "text": "payload-2"}));
    h.call("browser_upload", json!({"selector": {"name": "Resume"}, "paths": [RESUME]}));
    let audit = h.audit_text();
    for payload in ["payload-1", "payload-2", RESUME, "secret-resume"] {
        assert!(!audit.contains(payload), "{payload} in audit");
    }
    assert!(h.audit_records().len() >= 4);
}

#[test]
fn a_selector_no_control_answers_finds_an_element_by_its_visible_text() {
    let board = "https://example.com/board";
    let mut column = ScriptedElement::custom("generic", "unused").control(false).text("Done column");
    column.name = None;
    let browser = fixture()
        .site(board, ScriptedPage::new("Board").element(ScriptedElement::button("Card")).element(column));
    let h = Harness::new(browser);
    h.open(board);
    let clicked = h.ok("browser_click", json!({"selector": {"name": "done column"}}));
    assert_eq!(clicked.summary, "Clicked the \"Done column\" control on example.com.");
    // A role other than control keeps to named elements.
    let refused = h.call("browser_click", json!({"selector": {"name": "Done column", "role": "button"}}));
    assert_eq!(refused.facts["reason"], "no_match");
    let refused = h.call("browser_click", json!({"selector": {"name": "Nowhere"}}));
    assert_eq!(refused.facts["reason"], "no_match");
}

// ----- browser_wait on a control's state --------------------------------------------------------

#[test]
fn wait_compares_a_controls_value_in_the_page_and_never_says_it() {
    let h = Harness::new(browser());
    let tab = h.open(HOME);
    let email = target(&h, &tab, "Email");
    h.ok("browser_fill_form", json!({"fields": [{"target": email, "value": "ada@example.com"}]}));

    let held = h.ok(
        "browser_wait",
        json!({"condition": "value_equals", "target": email, "value": "ada@example.com"}),
    );
    assert_eq!(
        held.summary,
        "No wait was needed on example.com: the \"Email\" text field holds the expected value."
    );
    assert_eq!(held.facts["satisfied"], true);
    assert_eq!(held.facts["condition"], "value_equals");

    let by_name = h.ok(
        "browser_wait",
        json!({"condition": "value_equals", "selector": {"name": "Email"}, "value": "ada@example.com"}),
    );
    assert_eq!(by_name.facts["satisfied"], true);

    let other = h.call(
        "browser_wait",
        json!({"condition": "value_equals", "target": email, "value": "grace@example.com", "timeout_ms": 200}),
    );
    assert_eq!(other.status, Status::Failed);
    assert_eq!(other.facts["reason"], "timeout");
    assert_eq!(
        other.summary,
        "Timed out after 200 ms waiting until the \"Email\" text field held the expected value on example.com (the limit was 200 ms)."
    );
    for secret in ["ada@example.com", "grace@example.com"] {
        assert!(!text(&held).contains(secret) && !text(&other).contains(secret));
        assert!(!h.audit_text().contains(secret));
    }
}

#[test]
fn wait_refuses_to_compare_a_credential_field() {
    let h = Harness::new(browser());
    let tab = h.open(HOME);
    let password = target(&h, &tab, "Password");
    h.browser.clear_calls();
    let refused =
        h.call("browser_wait", json!({"condition": "value_equals", "target": password, "value": "hunter2"}));
    assert_eq!(refused.status, Status::AttentionRequired);
    assert_eq!(refused.effect, Effect::None);
    assert_eq!(refused.facts["reason"], "credential_handoff");
    assert_eq!(refused.facts["satisfied"], false);
    assert!(
        refused.summary.starts_with("Stopped before comparing anything: the password field"),
        "{}",
        refused.summary
    );
    assert!(!text(&refused).contains("hunter2") && !h.audit_text().contains("hunter2"));
    assert!(!h.browser.calls().iter().any(|c| c.method == "control_matches"), "nothing was compared");
    // Its checked state is no secret: a credential field is simply not a checkbox.
    let misfit = h.call("browser_wait", json!({"condition": "checked", "target": password}));
    assert_eq!(misfit.status, Status::Failed, "{}", misfit.summary);
}

#[test]
fn wait_for_checked_and_unchecked() {
    let h = Harness::new(browser());
    let tab = h.open(HOME);
    let subscribe = json!({"name": "Subscribe", "role": "checkbox"});
    let unchecked = h.ok("browser_wait", json!({"condition": "unchecked", "selector": subscribe}));
    assert_eq!(
        unchecked.summary,
        "No wait was needed on example.com: the \"Subscribe\" checkbox is not checked."
    );
    let early =
        h.call("browser_wait", json!({"condition": "checked", "selector": subscribe, "timeout_ms": 100}));
    assert_eq!(early.facts["satisfied"], false);
    h.ok("browser_fill_form", json!({"fields": [{"selector": subscribe, "value": true}], "tab": tab}));
    let checked = h.ok("browser_wait", json!({"condition": "checked", "selector": subscribe}));
    assert_eq!(checked.summary, "No wait was needed on example.com: the \"Subscribe\" checkbox is checked.");
}

#[test]
fn click_and_hover_say_which_modifiers_they_held() {
    let h = Harness::new(browser());
    h.open(HOME);
    let clicked = h.ok(
        "browser_click",
        json!({"selector": {"name": "Save", "role": "button"}, "modifiers": ["Control", "Shift"]}),
    );
    assert_eq!(clicked.summary, "Clicked the \"Save\" button with Control and Shift held on example.com.");
    let hovered = h.ok("browser_hover", json!({"selector": {"name": "Save"}, "modifiers": ["Alt"]}));
    assert_eq!(hovered.summary, "Hovered over the \"Save\" button with Alt held on example.com.");
    let plain =
        h.ok("browser_click", json!({"selector": {"name": "Save", "role": "button"}, "modifiers": []}));
    assert_eq!(plain.summary, "Clicked the \"Save\" button on example.com.");
}
