//! Gate detection (issue 33): a loaded result of `browser_navigate`, `browser_history`,
//! `browser_wait` and `browser_read` carries the advisory `gate` fact `{kind, hint}` and one
//! sentence when the port reports the page as a gate; nothing else changes (status, effect,
//! authority), a page still loading or refused says nothing, and other tools never
//! ask the port to look.

use serde_json::json;

use super::harness::{Harness, assert_conforms, user_authority};
use crate::envelope::{Effect, Readiness, Status};
use crate::language::gate_hint;
use crate::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};
use crate::vocab::GateKind;

const WALL: &str = "https://example.com/account";
const PLAIN: &str = "https://example.com/article";
const CHECK: &str = "https://example.com/check";
const LOADING: &str = "https://example.com/slow";
const DENIED: &str = "https://denied.test/login";

fn browser() -> ScriptedBrowser {
    ScriptedBrowser::new()
        .site(
            WALL,
            ScriptedPage::new("Sign in")
                .text("Sign in to continue")
                .element(ScriptedElement::password("Password"))
                .gate(GateKind::Login),
        )
        .site(PLAIN, ScriptedPage::new("Article").text("Plain prose."))
        .site(CHECK, ScriptedPage::new("Just a moment").gate(GateKind::Challenge))
        .site(LOADING, ScriptedPage::new("Slow").gate(GateKind::Consent).readiness(Readiness::Loading))
        .site(DENIED, ScriptedPage::new("Denied").gate(GateKind::Login))
}

fn harness() -> Harness {
    Harness::with_authority(
        browser(),
        user_authority(json!({"hosts": {"allow": ["example.com"]}, "capabilities": {"allow": ["action"]}})),
    )
}

#[test]
fn a_navigation_to_a_gate_says_so_and_hands_it_to_the_person() {
    let h = harness();
    let opened = h.ok("browser_navigate", json!({"url": WALL}));
    assert_conforms("browser_navigate", &opened);
    assert_eq!(opened.facts["gate"]["kind"], "login");
    assert_eq!(opened.facts["gate"]["hint"], gate_hint(GateKind::Login));
    assert_eq!(opened.facts["gate"].as_object().map(|o| o.len()), Some(2), "only kind and hint");
    assert_eq!(
        opened.summary,
        "Opened example.com. The page shows a sign-in wall, not the content asked for.",
    );
    // Advisory only: the call succeeded and applied as any navigation does.
    assert_eq!((opened.status, opened.effect), (Status::Succeeded, Effect::Applied));

    let plain = h.ok("browser_navigate", json!({"url": PLAIN}));
    assert!(plain.facts.get("gate").is_none(), "{:?}", plain.facts);
    assert_eq!(plain.summary, "Navigated to example.com.");
}

#[test]
fn history_read_and_wait_report_the_gate_of_the_page_they_end_on() {
    let h = harness();
    h.ok("browser_navigate", json!({"url": CHECK}));
    h.ok("browser_navigate", json!({"url": PLAIN}));
    let back = h.ok("browser_history", json!({"action": "back"}));
    assert_conforms("browser_history", &back);
    assert_eq!(back.facts["gate"]["kind"], "challenge");
    assert!(back.summary.ends_with("The page shows a human-verification check, not the content asked for."));

    let read = h.ok("browser_read", json!({}));
    assert_conforms("browser_read", &read);
    assert_eq!(read.facts["gate"]["kind"], "challenge");

    let waited = h.ok("browser_wait", json!({"condition": "load_ready"}));
    assert_conforms("browser_wait", &waited);
    assert_eq!(waited.facts["gate"]["kind"], "challenge");
    let slept = h.ok("browser_wait", json!({"condition": "duration", "value": 100}));
    assert_eq!(slept.facts["gate"]["kind"], "challenge");

    // A timed-out wait on a gate says why the awaited text may never come.
    let timed_out =
        h.call("browser_wait", json!({"condition": "text_present", "value": "Dashboard", "timeout_ms": 200}));
    assert_eq!(timed_out.status, Status::Failed);
    assert_eq!(timed_out.facts["gate"]["kind"], "challenge");

    let forward = h.ok("browser_history", json!({"action": "forward"}));
    assert!(forward.facts.get("gate").is_none());
    assert!(h.ok("browser_read", json!({})).facts.get("gate").is_none());
}

#[test]
fn a_page_still_loading_or_refused_says_nothing_of_a_gate() {
    let h = harness();
    let slow = h.ok("browser_navigate", json!({"url": LOADING}));
    assert!(slow.facts.get("gate").is_none(), "{:?}", slow.facts);
    // A destination outside authority is refused before the browser is asked anything.
    let outside = h.call("browser_navigate", json!({"url": DENIED}));
    assert_eq!(outside.status, Status::Blocked);
    assert!(outside.facts.get("gate").is_none(), "{:?}", outside.facts);
}

#[test]
fn only_the_four_tools_ask_the_port_to_look() {
    let h = harness();
    h.ok("browser_navigate", json!({"url": WALL}));
    h.browser.clear_calls();
    let inspect = h.ok("browser_inspect", json!({}));
    assert!(inspect.facts.get("gate").is_none());
    h.ok("browser_find", json!({"text": "Password"}));
    let looked = |names: Vec<&str>| names.iter().filter(|m| **m == "page_and_gate").count();
    assert_eq!(looked(h.browser.method_names()), 0);
    h.browser.clear_calls();
    h.ok("browser_read", json!({}));
    let names = h.browser.method_names();
    assert_eq!(looked(names.clone()), 1, "{names:?}");
    assert!(!names.contains(&"page"), "the read that looks replaces the page read: {names:?}");
}
