//! The authority boundary over every input path (issue 13): each tool branch that can cause
//! input or capture pixels is tried against a frame outside authority and against the
//! credential rule, on one page, through the scripted port. The real adapters are held to
//! the same table by the WebDriver suite (`ghostlight-webdriver/tests/boundary.rs`).
//!
//! The page: elements sit one below another, 40 CSS px each, 200 wide (the scripted layout),
//! so image pixel `(100, 40·i + 20)` of a viewport view at scale 1 is element `i`.

use serde_json::{Value, json};

use super::harness::{Harness, user_authority};
use crate::envelope::{Effect, Envelope, Status};
use crate::handles::{Handle, HandleKind};
use crate::port::TabRef;
use crate::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};

const PAGE: &str = "https://example.com/boundary";
const DENIED_FRAME: &str = "https://denied.test/widget";
const ALLOWED_FRAME: &str = "https://example.com/inner";
const DENIED_PAGE: &str = "https://denied.test/";

/// Index of each element on [`PAGE`] (its row in the scripted layout).
const USER: u64 = 0;
const FRAMED_BUTTON: u64 = 2;
const ALLOWED_FRAMED: u64 = 4;

fn browser() -> ScriptedBrowser {
    ScriptedBrowser::new()
        .site(
            PAGE,
            ScriptedPage::new("Sign in")
                .element(ScriptedElement::textbox("User"))
                .element(ScriptedElement::password("Secret"))
                .element(ScriptedElement::button("Framed button").in_frame(DENIED_FRAME))
                .element(ScriptedElement::textbox("Framed field").in_frame(DENIED_FRAME))
                .element(ScriptedElement::button("Allowed framed").in_frame(ALLOWED_FRAME))
                .element(ScriptedElement::file_input("Upload")),
        )
        .site(DENIED_PAGE, ScriptedPage::new("Denied secrets").text("Private."))
}

/// The configuration allows both hosts (so setup can focus a framed field); every probe
/// narrows itself to example.com with `restrict_hosts`, making denied.test a frame outside
/// the call's authority.
fn harness() -> Harness {
    Harness::with_authority(
        browser(),
        user_authority(json!({"hosts": {"allow": ["example.com", "denied.test"]}})),
    )
}

/// `arguments` narrowed to example.com.
fn narrowed(mut arguments: Value) -> Value {
    arguments["restrict_hosts"] = json!(["example.com"]);
    arguments
}

struct Page {
    h: Harness,
    tab: String,
    view: String,
}

impl Page {
    fn open() -> Page {
        let h = harness();
        let tab = h.open(PAGE);
        let shot = h.ok("browser_screenshot", json!({"tab": tab}));
        let view = shot.facts["view"].as_str().unwrap_or_default().to_owned();
        Page { h, tab, view }
    }

    fn tab_ref(&self) -> TabRef {
        let handle = Handle::parse(&self.tab, HandleKind::Tab).unwrap_or_else(|e| panic!("{e:?}"));
        self.h.ghost.workspace.slot(&handle).and_then(|slot| slot.tab()).unwrap_or_else(|| panic!("no tab"))
    }

    /// Image pixel `(x, y)` of element `row`.
    fn at(&self, row: u64) -> (u64, u64) {
        (100, row * 40 + 20)
    }

    /// Give the element named `name` focus, as a person's click would.
    fn focus(&self, name: &str) {
        assert!(self.h.browser.focus(&self.tab_ref(), name), "no element {name:?}");
    }

    /// A probe narrowed to example.com.
    fn probe(&self, tool: &str, arguments: Value) -> Envelope {
        self.h.call(tool, narrowed(arguments))
    }
}

/// The refusal of input that would land in the denied frame: blocked, nothing done, naming
/// the frame's host in the sentence, the facts and the audit.
fn assert_frame_blocked(page: &Page, probe: &str, envelope: &Envelope) {
    assert_eq!(envelope.status, Status::Blocked, "{probe}: {}", envelope.summary);
    assert_eq!(envelope.effect, Effect::None, "{probe}");
    assert_eq!(envelope.facts["reason"], "frame_outside_authority", "{probe}");
    assert_eq!(envelope.facts["host"], "denied.test", "{probe}");
    assert!(envelope.summary.contains("denied.test"), "{probe}: {}", envelope.summary);
    let audit = page.h.audit_records();
    let last = serde_json::to_string(&audit.last().map(|r| r.to_json())).unwrap_or_default();
    assert!(last.contains("\"decision\":\"blocked\""), "{probe}: audit {last}");
    assert!(last.contains("denied.test"), "{probe}: audit names the frame's host: {last}");
}

#[test]
fn pointer_input_into_a_frame_outside_authority_is_blocked_in_every_branch() {
    let page = Page::open();
    let (fx, fy) = page.at(FRAMED_BUTTON);
    let (ux, uy) = page.at(USER);
    let v = &page.view;
    let probes: Vec<(&str, &str, Value)> = vec![
        ("click at a point", "browser_click", json!({"view": v, "x": fx, "y": fy})),
        ("double click at a point", "browser_click", json!({"view": v, "x": fx, "y": fy, "click_count": 2})),
        ("hover at a point", "browser_hover", json!({"view": v, "x": fx, "y": fy})),
        (
            "drag into the frame",
            "browser_drag",
            json!({"view": v, "start_x": ux, "start_y": uy, "end_x": fx, "end_y": fy}),
        ),
        (
            "drag out of the frame",
            "browser_drag",
            json!({"view": v, "start_x": fx, "start_y": fy, "end_x": ux, "end_y": uy}),
        ),
        (
            "wheel at a point",
            "browser_scroll",
            json!({"view": v, "x": fx, "y": fy, "ticks": 2, "direction": "down"}),
        ),
        (
            "drop a captured image at a point",
            "browser_upload",
            json!({"source_image": v, "view": v, "x": fx, "y": fy}),
        ),
    ];
    let blocked = page.probe("browser_click", json!({"view": v, "x": fx, "y": fy}));
    insta::assert_json_snapshot!("click_into_denied_frame", blocked);
    for (probe, tool, arguments) in probes {
        let before = page.h.browser.pointer_points().len();
        let envelope = page.probe(tool, arguments);
        assert_frame_blocked(&page, probe, &envelope);
        assert_eq!(page.h.browser.pointer_points().len(), before, "{probe}: no pointer input was sent");
    }
    // Targets come from perception, which never reports elements of frames: a selector for the
    // framed button finds nothing, and nothing is clicked.
    let by_name = page.probe("browser_click", json!({"selector": {"name": "Framed button"}}));
    assert_eq!(by_name.facts["reason"], "no_match", "{}", by_name.summary);
    // The same point under the configured authority (denied.test allowed) is clicked.
    page.h.ok("browser_click", json!({"view": v, "x": fx, "y": fy}));
    // A frame of the page's own site is inside authority.
    let (ax, ay) = page.at(ALLOWED_FRAMED);
    let allowed = page.probe("browser_click", json!({"view": v, "x": ax, "y": ay}));
    assert_eq!(allowed.status, Status::Succeeded, "{}", allowed.summary);
}

#[test]
fn keys_for_a_focused_element_in_a_frame_outside_authority_are_blocked() {
    let page = Page::open();
    page.focus("Framed field");
    let probes: Vec<(&str, &str, Value)> = vec![
        ("focused typing", "browser_type_text", json!({"focused": true, "text": "hello"})),
        ("a named key", "browser_press_key", json!({"key": "Enter"})),
        ("a character key", "browser_press_key", json!({"key": "x"})),
        ("strokes", "browser_press_key", json!({"strokes": ["a", "b"]})),
        ("a shortcut", "browser_press_key", json!({"key": "a", "modifiers": ["Control"]})),
    ];
    for (probe, tool, arguments) in probes {
        let envelope = page.probe(tool, arguments);
        assert_frame_blocked(&page, probe, &envelope);
    }
    assert!(page.h.browser.filled_names(&page.tab_ref()).is_empty(), "nothing was typed anywhere");
}

#[test]
fn keys_that_move_focus_into_a_credential_field_stop_before_it() {
    let page = Page::open();
    // Typed text with a Tab: the User field gets "bob", the password field nothing.
    let typed = page.probe(
        "browser_type_text",
        json!({"selector": {"name": "User"}, "text": "bob\tS3cr3t", "clear_first": true}),
    );
    insta::assert_json_snapshot!("type_text_tab_into_password", typed);
    assert_eq!(typed.status, Status::AttentionRequired, "{}", typed.summary);
    assert_eq!(typed.effect, Effect::Partial);
    assert!(!typed.repeat_safe);
    assert_eq!(typed.facts["credential"], "password");
    assert_eq!(typed.facts["character_count"], 4, "b, o, b and the Tab");
    assert_eq!(page.h.browser.filled_names(&page.tab_ref()), ["User"]);
    assert!(!typed.summary.contains("S3cr3t") && !typed.summary.contains("bob"), "{}", typed.summary);

    // Strokes with a Tab, focus on User: "a" lands there, nothing after the Tab is pressed.
    let page = Page::open();
    page.focus("User");
    let pressed = page.probe("browser_press_key", json!({"strokes": ["a", "Tab", "S", "3", "c", "X"]}));
    insta::assert_json_snapshot!("press_key_tab_into_password", pressed);
    assert_eq!(pressed.status, Status::AttentionRequired, "{}", pressed.summary);
    assert_eq!(pressed.effect, Effect::Partial);
    assert_eq!(pressed.facts["key"], "chars:1 Tab chars:4", "letters are never echoed");
    assert_eq!(pressed.facts["pressed_count"], 2);
    assert_eq!(page.h.browser.filled_names(&page.tab_ref()), ["User"]);

    // Tab without characters after it is fine: nothing types into the password field.
    let page = Page::open();
    page.focus("User");
    let tabbed = page.probe("browser_press_key", json!({"strokes": ["a", "Tab"]}));
    assert_eq!(tabbed.status, Status::Succeeded, "{}", tabbed.summary);
    // …but then focused typing is handed to the person.
    let then = page.probe("browser_type_text", json!({"focused": true, "text": "x"}));
    assert_eq!(then.status, Status::AttentionRequired);
    assert_eq!(then.effect, Effect::None);
}

#[test]
fn composite_children_meet_the_same_checks() {
    let page = Page::open();
    let sequence = page.probe(
        "browser_sequence",
        json!({"steps": [
            {"action": "type_text", "selector": {"name": "User"}, "text": "x\ty"},
            {"action": "wait", "condition": "load_ready"},
        ]}),
    );
    assert_ne!(sequence.status, Status::Succeeded, "{}", sequence.summary);
    assert_eq!(sequence.facts["completed_steps"], 0);
    assert_eq!(page.h.browser.filled_names(&page.tab_ref()), ["User"], "nothing reached the password field");

    let (fx, fy) = page.at(FRAMED_BUTTON);
    let flow = page.probe(
        "browser_flow",
        json!({"steps": [{"id": "poke", "tool": "browser_click", "arguments": {"view": page.view, "x": fx, "y": fy}}]}),
    );
    assert_ne!(flow.status, Status::Succeeded, "{}", flow.summary);
    let step = &flow.facts["steps"][0];
    let step_text = step.to_string();
    assert!(step_text.contains("frame_outside_authority"), "{step_text}");
}

#[test]
fn captures_blank_frames_outside_authority() {
    let page = Page::open();
    let before = page.h.browser.blanked_frame_elements();
    for arguments in [json!({}), json!({"full_page": true})] {
        let shot = page.probe("browser_screenshot", arguments);
        assert_eq!(shot.status, Status::Succeeded, "{}", shot.summary);
    }
    // Two elements sit in the denied frame; each capture blanks them.
    assert_eq!(page.h.browser.blanked_frame_elements() - before, 4);
    // Under the configured authority nothing is blanked.
    let now = page.h.browser.blanked_frame_elements();
    page.h.ok("browser_screenshot", json!({}));
    assert_eq!(page.h.browser.blanked_frame_elements(), now);
}

#[test]
fn recordings_keep_no_frame_of_a_page_outside_authority() {
    let page = Page::open();
    let started = page.probe("browser_record", json!({"action": "start"}));
    assert_eq!(started.status, Status::Succeeded, "{}", started.summary);
    // The tab then shows a page the recording's authority refuses (the configuration allows
    // it, so this navigation goes through).
    page.h.ok("browser_navigate", json!({"url": DENIED_PAGE, "tab": page.tab}));
    let saved = page.h.ok("browser_record", json!({"action": "save"}));
    assert_eq!(saved.facts["skipped_frames"], 1, "{:?}", saved.facts);
    assert!(saved.summary.contains("outside authority"), "{}", saved.summary);
}

#[test]
fn pages_outside_authority_have_no_title() {
    let page = Page::open();
    let moved = page.h.ok("browser_navigate", json!({"url": DENIED_PAGE, "tab": page.tab}));
    assert_eq!(moved.facts["title"], "Denied secrets", "inside the configured authority");
    let listed = page.probe("browser_tabs", json!({"action": "list"}));
    let text = serde_json::to_string(&listed).unwrap_or_default();
    assert!(!text.contains("Denied secrets"), "{text}");
}

#[test]
fn uploads_check_the_real_path_behind_links() {
    let browser = browser()
        .file("/uploads/ok.txt", 3)
        .file("/elsewhere/secret.txt", 6)
        .link("/uploads/link.txt", "/elsewhere/secret.txt")
        .link("/uploads/d", "/elsewhere");
    let h = Harness::with_authority(browser, user_authority(json!({"uploads": {"roots": ["/uploads"]}})));
    h.open(PAGE);
    for path in ["/uploads/link.txt", "/uploads/d/secret.txt"] {
        let refused = h.call("browser_upload", json!({"selector": {"name": "Upload"}, "paths": [path]}));
        assert_eq!(refused.status, Status::Blocked, "{path}: {}", refused.summary);
        assert_eq!(refused.facts["reason"], "upload_root_denied", "{path}");
        assert!(
            !refused.summary.contains("secret") && !refused.summary.contains(path),
            "{}",
            refused.summary
        );
    }
    let ok = h.call("browser_upload", json!({"selector": {"name": "Upload"}, "paths": ["/uploads/ok.txt"]}));
    assert_eq!(ok.status, Status::Succeeded, "{}", ok.summary);
}

#[test]
fn a_workspace_holds_at_most_its_limits() {
    use crate::operation::WorkspaceLimits;
    let browser = std::sync::Arc::new(browser());
    let ghost = crate::executor::Ghostlight::builder(browser)
        .limits(WorkspaceLimits { tabs: 2, recordings: 1 })
        .deterministic_handles()
        .build();
    let call = |tool: &str, args: Value| {
        futures::executor::block_on(ghost.invoke(tool, &args, &crate::executor::Cancellation::never()))
            .unwrap_or_else(|e| panic!("{e}"))
            .envelope
    };
    for _ in 0..2 {
        assert_eq!(call("browser_navigate", json!({"url": PAGE, "new_tab": true})).status, Status::Succeeded);
    }
    let third = call("browser_navigate", json!({"url": PAGE, "new_tab": true}));
    assert_eq!(
        (third.status, third.facts["reason"].clone()),
        (Status::Failed, json!("tab_limit")),
        "{}",
        third.summary
    );
    assert!(third.next_steps[0].contains("browser_tabs"), "{:?}", third.next_steps);
    let tab = call("browser_tabs", json!({"action": "list"})).facts["tabs"][0]["tab"].clone();
    assert_eq!(call("browser_record", json!({"action": "start", "tab": tab})).status, Status::Succeeded);
    let second = call("browser_record", json!({"action": "start", "tab": tab}));
    assert_eq!(second.facts["reason"], "recording_limit", "{}", second.summary);
    // Ending the workspace closes its tabs and frees everything.
    assert_eq!(futures::executor::block_on(ghost.end()), 2);
    assert_eq!(call("browser_navigate", json!({"url": PAGE, "new_tab": true})).status, Status::Succeeded);
    assert_eq!(
        call("browser_tabs", json!({"action": "list"})).facts["tabs"].as_array().map(Vec::len),
        Some(1)
    );
}

#[test]
fn an_error_status_is_said_and_kept_in_the_facts() {
    let browser = browser().site("https://example.com/missing", ScriptedPage::new("Missing").status(404));
    let h = harness_over(browser);
    let opened = h.ok("browser_navigate", json!({"url": "https://example.com/missing"}));
    assert_eq!(opened.facts["http_status"], 404);
    assert!(opened.summary.ends_with("; the server answered 404 Not Found."), "{}", opened.summary);
    // Outside the call's authority the status is not shown (only the governed URL is).
    let outside = h.ok("browser_navigate", json!({"url": "https://denied.test/"}));
    assert!(outside.facts.get("http_status").is_none());
}

fn harness_over(browser: ScriptedBrowser) -> Harness {
    Harness::with_authority(
        browser,
        user_authority(json!({"hosts": {"allow": ["example.com", "denied.test"]}})),
    )
}

#[test]
fn read_find_and_wait_follow_the_calls_authority_into_frames() {
    let page = Page::open();
    // Narrowed to example.com: the denied.test frame is neither read, found nor awaited; the
    // page's own frame is.
    let read = page.probe("browser_read", json!({"mode": "visible"}));
    let text = read.facts["text"].as_str().unwrap_or_default();
    assert!(text.contains("Allowed framed"), "{text:?}");
    assert!(!text.contains("Framed button") && !text.contains("Framed field"), "{text:?}");
    assert_eq!(read.facts["frames"], 1, "{:?}", read.facts);
    let found = page.probe("browser_find", json!({"text": "Framed"}));
    let names: Vec<&str> =
        found.facts["matches"].as_array().into_iter().flatten().filter_map(|m| m[2].as_str()).collect();
    assert_eq!(names, ["Allowed framed"], "{:?}", found.facts);
    let waited = page.probe(
        "browser_wait",
        json!({"condition": "text_present", "value": "Framed field", "timeout_ms": 100}),
    );
    assert_eq!(waited.status, Status::Failed, "{}", waited.summary);
    // Under the configured authority (both hosts) every frame is read.
    let all = page.h.ok("browser_read", json!({"mode": "visible"}));
    assert!(all.facts["text"].as_str().unwrap_or_default().contains("Framed field"), "{:?}", all.facts);
    assert_eq!(all.facts["frames"], 2, "{:?}", all.facts);
    page.h
        .ok("browser_wait", json!({"condition": "text_present", "value": "Framed field", "timeout_ms": 100}));
}
