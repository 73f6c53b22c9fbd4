//! Executor tests: perception and page-level tools — `browser_inspect`, `browser_find`,
//! `browser_wait`, `browser_dialog` and `browser_execute` — over the scripted port.

use std::sync::Arc;
use std::time::Duration;

use futures::executor::block_on;
use serde_json::{Value, json};

use crate::envelope::{Effect, Envelope, Readiness, Status};
use crate::executor::{Cancellation, Ghostlight};
use crate::port::{DialogKind, ElementState, PortError, PortErrorKind, TabRef};
use crate::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};

use super::harness::{HOME, Harness, NEXT};

// ----- fixture ------------------------------------------------------------------------------

/// The shared [`Harness`] with one tab opened on [`HOME`].
struct Fixture {
    h: Harness,
    /// The tab handle of that tab.
    tab: String,
}

impl Fixture {
    /// A browser serving `page` at [`HOME`], with a tab opened on it; calls cleared.
    fn on(page: ScriptedPage) -> Fixture {
        Fixture::opened(ScriptedBrowser::new().site(HOME, page), json!({}))
    }

    /// Open [`HOME`] in `browser` under the user `settings`; calls cleared.
    fn opened(browser: ScriptedBrowser, settings: Value) -> Fixture {
        let h = Harness::with_user(browser, settings);
        let tab = h.open(HOME);
        h.browser.clear_calls();
        Fixture { h, tab }
    }

    fn call(&self, tool: &str, arguments: Value) -> Envelope {
        self.h.call(tool, arguments)
    }

    fn browser(&self) -> &ScriptedBrowser {
        &self.h.browser
    }

    /// The browser's reference of the one tab the fixture opened.
    fn tab_ref(&self) -> TabRef {
        TabRef::new("t1")
    }

    /// Navigate the fixture's tab to `url`.
    fn navigate(&self, url: &str) -> Envelope {
        self.h.ok("browser_navigate", json!({"url": url, "tab": self.tab}))
    }

    fn methods(&self) -> Vec<&'static str> {
        self.h.browser.method_names()
    }
}

/// The envelope as compact JSON text, for "never appears" assertions.
fn text_of(envelope: &Envelope) -> String {
    serde_json::to_string(envelope).unwrap_or_else(|e| panic!("serialize: {e}"))
}

/// The rows of `key` as objects keyed by the `columns` fact (absent trailing columns absent).
fn items(envelope: &Envelope, key: &str) -> Vec<Value> {
    super::harness::rows(envelope, key)
}

fn names(envelope: &Envelope, key: &str) -> Vec<String> {
    items(envelope, key).iter().map(|item| item["name"].as_str().unwrap_or("<none>").to_owned()).collect()
}

fn target_of(envelope: &Envelope, key: &str, name: &str) -> String {
    items(envelope, key)
        .iter()
        .find(|item| item["name"] == name)
        .and_then(|item| item["target"].as_str())
        .unwrap_or_else(|| panic!("no {name:?} in {envelope:?}"))
        .to_owned()
}

/// A form page: controls, structure, a credential field.
fn form_page() -> ScriptedPage {
    ScriptedPage::new("Sign in")
        .text("Welcome back. Sign in to continue.")
        .element(ScriptedElement::heading("Sign in").depth(0))
        .element(ScriptedElement::textbox("Email").state(ElementState::Required).depth(1))
        .element(ScriptedElement::password("Password").depth(1))
        .element(ScriptedElement::checkbox("Remember me").state(ElementState::Checked).depth(1))
        .element(ScriptedElement::button("Sign in").depth(1))
        .element(ScriptedElement::button("Help").state(ElementState::Disabled).depth(1))
        .element(ScriptedElement::custom("navigation", "Footer").depth(0))
        .element(ScriptedElement::link("Privacy", "/privacy").depth(1))
}

// ----- browser_inspect ----------------------------------------------------------------------

#[test]
fn inspect_lists_controls_compactly() {
    let fixture = Fixture::on(form_page());
    let envelope = fixture.call("browser_inspect", json!({}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.summary, "Found 6 controls on example.com.");
    assert_eq!(fixture.methods(), ["page", "perceive"]);
    for item in items(&envelope, "items") {
        let item = item.as_object().unwrap_or_else(|| panic!("item {item:?}"));
        // Defaults are left out: no empty state, no false credential, no depth outside document.
        assert!(item.get("state").is_none_or(|s| s.as_array().is_some_and(|a| !a.is_empty())));
        assert!(item.get("credential").is_none_or(|c| c == true));
        assert!(!item.contains_key("depth"));
    }
}

#[test]
fn inspect_flags_credential_fields() {
    let fixture = Fixture::on(form_page());
    let envelope = fixture.call("browser_inspect", json!({}));
    let flagged: Vec<Value> =
        items(&envelope, "items").into_iter().filter(|item| item.get("credential").is_some()).collect();
    assert_eq!(flagged.len(), 1);
    assert_eq!(flagged[0]["name"], "Password");
    assert_eq!(flagged[0]["credential"], true);
}

#[test]
fn inspect_keeps_names_when_privacy_hides_them_from_actions() {
    let browser = ScriptedBrowser::new().site(HOME, form_page());
    let fixture = Fixture::opened(browser, json!({"privacy": {"preserve_target_names": false}}));
    let envelope = fixture.call("browser_inspect", json!({}));
    assert_eq!(names(&envelope, "items"), ["Email", "Password", "Remember me", "Sign in", "Help", "Privacy"]);
}

#[test]
fn inspect_scopes_choose_what_is_listed() {
    let fixture = Fixture::on(form_page());
    let structure = fixture.call("browser_inspect", json!({"scope": "structure"}));
    assert_eq!(structure.summary, "Found 2 structure elements on example.com.");
    assert_eq!(names(&structure, "items"), ["Sign in", "Footer"]);
    assert_eq!(items(&structure, "items")[1]["role"], "control", "page-authored roles narrow to control");
    let all = fixture.call("browser_inspect", json!({"scope": "all"}));
    assert_eq!(all.summary, "Found 8 elements on example.com.");
    assert_eq!(all.facts["count"], 8);
}

#[test]
fn inspect_forms_snapshots_forms_without_values() {
    use crate::port::{FormField, FormOwner};
    let owner = Some(FormOwner { index: 0, name: Some("Sign in".into()) });
    let field = |filled: bool, validity: &str| FormField {
        owner: owner.clone(),
        validity: Some(validity.into()),
        filled: Some(filled),
        ..FormField::default()
    };
    let page = ScriptedPage::new("Sign in")
        .element(ScriptedElement::heading("Sign in"))
        .element(ScriptedElement::textbox("Email").form(field(false, "valueMissing")))
        .element(ScriptedElement::password("Password").form(field(true, "valid")))
        .element(ScriptedElement::button("Sign in").form(FormField { filled: None, ..field(false, "valid") }))
        .element(
            ScriptedElement::textbox("Search")
                .form(FormField { filled: Some(false), ..FormField::default() }),
        );
    let fixture = Fixture::on(page);
    let envelope = fixture.call("browser_inspect", json!({"scope": "forms"}));
    assert_eq!(envelope.status, Status::Succeeded, "{envelope:?}");
    assert_eq!(
        envelope.summary,
        "Found 1 form and 4 controls in all, some outside any form, on example.com."
    );
    assert_eq!(fixture.methods(), ["page", "perceive"], "one perception, no extra round trip");
    let forms = envelope.facts["forms"].as_array().cloned().unwrap_or_default();
    assert_eq!(forms.len(), 1);
    assert_eq!(forms[0]["name"], "Sign in");
    let fields = forms[0]["fields"].as_array().cloned().unwrap_or_default();
    assert_eq!(fields[0]["validity"], "valueMissing");
    assert_eq!(fields[1]["value"], json!({"kind": "redacted", "present": true}));
    assert!(fields[2].get("value").is_none());
    assert_eq!(envelope.facts["outside"][0]["name"], "Search");
    assert_eq!(envelope.facts["count"], 4);
    assert!(!envelope.facts.contains_key("items") && !envelope.facts.contains_key("columns"));
    // The handles are ordinary target handles: fill takes the email field's.
    let email = fields[0]["target"].as_str().unwrap_or_default().to_owned();
    let filled = fixture.call("browser_fill_form", json!({"fields": [{"target": email, "value": "a@b.c"}]}));
    assert_eq!(filled.status, Status::Succeeded, "{filled:?}");
    assert!(!text_of(&filled).contains("a@b.c"));
    let cut = fixture.call("browser_inspect", json!({"scope": "forms", "max_items": 1}));
    assert_eq!((&cut.facts["truncated"], &cut.facts["count"]), (&json!(true), &json!(1)));
}

#[test]
fn inspect_says_when_the_list_is_cut() {
    let fixture = Fixture::on(form_page());
    let envelope = fixture.call("browser_inspect", json!({"max_items": 2}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.facts["truncated"], true);
    assert_eq!(envelope.facts["count"], 2);
    let whole = fixture.call("browser_inspect", json!({}));
    assert!(!whole.facts.contains_key("truncated"), "truncated appears only when true");
}

#[test]
fn inspected_targets_go_stale_after_a_navigation() {
    let browser = ScriptedBrowser::new().site(HOME, form_page()).site(NEXT, ScriptedPage::new("Next"));
    let fixture = Fixture::opened(browser, json!({}));
    let inspected = fixture.call("browser_inspect", json!({}));
    let save = target_of(&inspected, "items", "Sign in");
    // The target works on its own document.
    assert_eq!(inspected.facts["document_generation"], 1);
    let navigated = fixture.navigate(NEXT);
    assert_eq!(navigated.status, Status::Succeeded, "{navigated:?}");
    fixture.browser().clear_calls();
    let click = fixture.call("browser_click", json!({"target": save}));
    insta::assert_json_snapshot!(click);
    assert_eq!(click.status, Status::Failed);
    assert_eq!(click.effect, Effect::None);
    assert_eq!(click.facts["reason"], "target_stale");
    assert!(click.next_steps.iter().any(|s| s.contains("browser_inspect")), "{click:?}");
    assert!(!fixture.methods().contains(&"click"), "nothing is dispatched for a stale target");
}

#[test]
fn inspected_targets_act_on_their_own_document() {
    let fixture = Fixture::on(form_page());
    let inspected = fixture.call("browser_inspect", json!({}));
    let sign_in = target_of(&inspected, "items", "Sign in");
    let click = fixture.call("browser_click", json!({"target": sign_in}));
    assert_eq!(click.status, Status::Succeeded, "{click:?}");
    assert_eq!(click.summary, "Clicked the \"Sign in\" button on example.com.");
}

/// A page whose structure changes between two documents.
fn structured(revision: u8) -> ScriptedPage {
    let page = ScriptedPage::new("Inbox").element(ScriptedElement::custom("main", "Mail").depth(0));
    match revision {
        1 => page
            .element(ScriptedElement::heading("Inbox").depth(1))
            .element(ScriptedElement::button("Compose").depth(2))
            .element(ScriptedElement::link("Archive", "/archive").depth(2)),
        _ => page
            .element(ScriptedElement::heading("Inbox (3)").depth(1))
            .element(ScriptedElement::button("Compose").depth(2))
            .element(ScriptedElement::button("Refresh").depth(2))
            .element(ScriptedElement::button("Settings").depth(2)),
    }
}

#[test]
fn inspect_document_records_snapshots_and_diffs_them() {
    let browser = ScriptedBrowser::new().site(HOME, structured(1)).site(NEXT, structured(2));
    let fixture = Fixture::opened(browser, json!({}));
    let first = fixture.call("browser_inspect", json!({"scope": "document"}));
    insta::assert_json_snapshot!("inspect_document_first", first);
    assert_eq!(first.summary, "Mapped 4 structure nodes of example.com.");
    assert!(!first.facts.contains_key("diff"), "no prior snapshot, no diff");
    assert!(first.facts["snapshot"].as_str().is_some_and(|s| s.starts_with("snap_")));

    let again = fixture.call("browser_inspect", json!({"scope": "document"}));
    assert_eq!(again.facts["diff"], json!({"added": 0, "removed": 0, "changed": 0}));
    assert_eq!(again.facts["previous_snapshot"], first.facts["snapshot"]);
    assert_ne!(again.facts["snapshot"], first.facts["snapshot"], "each document inspect supersedes");
    assert!(again.summary.contains("no changes since"), "{}", again.summary);

    fixture.navigate(NEXT);
    let changed = fixture.call("browser_inspect", json!({"scope": "document"}));
    insta::assert_json_snapshot!("inspect_document_diff", changed);
    // Heading renamed (changed), the link replaced by a button (removed + added), one more
    // button (added).
    assert_eq!(changed.facts["diff"], json!({"added": 2, "removed": 1, "changed": 1}));
    assert_eq!(changed.facts["previous_snapshot"], again.facts["snapshot"]);
    assert_eq!(changed.facts["document_generation"], 2);
}

#[test]
fn inspect_document_maps_a_subtree_to_a_depth() {
    let fixture = Fixture::on(structured(1));
    let main = fixture.h.target(&fixture.tab, "Mail");
    let subtree = fixture.call("browser_inspect", json!({"scope": "document", "root": main, "max_depth": 1}));
    assert_eq!(subtree.status, Status::Succeeded, "{subtree:?}");
    assert_eq!(names(&subtree, "items"), ["Mail", "Inbox"]);
    let depths: Vec<Value> = items(&subtree, "items").iter().map(|i| i["depth"].clone()).collect();
    assert_eq!(depths, [json!(0), json!(1)]);
}

#[test]
fn inspect_document_refuses_a_stale_root() {
    let browser = ScriptedBrowser::new().site(HOME, structured(1)).site(NEXT, structured(2));
    let fixture = Fixture::opened(browser, json!({}));
    let all = fixture.call("browser_inspect", json!({"scope": "all"}));
    let main = target_of(&all, "items", "Mail");
    fixture.navigate(NEXT);
    fixture.browser().clear_calls();
    let envelope = fixture.call("browser_inspect", json!({"scope": "document", "root": main}));
    assert_eq!(envelope.status, Status::Failed);
    assert_eq!(envelope.facts["reason"], "target_stale");
    assert_eq!(fixture.methods(), ["page"], "nothing perceived for a stale root");
}

// ----- browser_find -------------------------------------------------------------------------

fn find_page() -> ScriptedPage {
    ScriptedPage::new("Orders")
        .element(ScriptedElement::button("Submit order later"))
        .element(ScriptedElement::link("Resubmit", "/again"))
        .element(ScriptedElement::button("submit"))
        .element(ScriptedElement::heading("Submit"))
        .element(ScriptedElement::button("Submit").state(ElementState::Disabled))
        .element(ScriptedElement::button("Submit now"))
        .element(ScriptedElement::button("Cancel"))
}

#[test]
fn find_ranks_exact_then_case_then_prefix_then_substring() {
    let fixture = Fixture::on(find_page());
    let envelope = fixture.call("browser_find", json!({"text": "Submit"}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.summary, "Found 6 matches for \"Submit\" on example.com.");
    // Within a rank controls come first (the button before the heading of the same name),
    // then document order.
    assert_eq!(
        names(&envelope, "matches"),
        ["Submit", "Submit", "submit", "Submit order later", "Submit now", "Resubmit"]
    );
    let first = &envelope.facts["matches"][0];
    assert_eq!(first[1], "button", "{first}");
    assert_eq!(fixture.methods(), ["page", "perceive"]);
}

#[test]
fn find_scopes_keep_controls_or_text() {
    let fixture = Fixture::on(find_page().element(
        ScriptedElement::custom("paragraph", "").control(false).text("Submit your order by Friday"),
    ));
    let controls = fixture.call("browser_find", json!({"text": "submit", "scope": "control"}));
    assert_eq!(controls.facts["count"], 5);
    let text = fixture.call("browser_find", json!({"text": "submit", "scope": "text"}));
    // Elements without a name are named by their visible text.
    assert_eq!(names(&text, "matches"), ["Submit", "Submit your order by Friday"]);
}

#[test]
fn find_lists_the_best_matches_when_more_exist() {
    let fixture = Fixture::on(find_page());
    let envelope = fixture.call("browser_find", json!({"text": "submit", "max_results": 2}));
    assert_eq!(
        envelope.summary,
        "Found more than 2 matches for \"submit\" on example.com; listed the best 2."
    );
    assert_eq!(envelope.facts["truncated"], true);
    assert_eq!(names(&envelope, "matches"), ["submit", "Submit"]);
}

#[test]
fn find_without_a_match_succeeds_and_suggests_inspect() {
    let fixture = Fixture::on(find_page());
    let envelope = fixture.call("browser_find", json!({"text": "Checkout"}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.status, Status::Succeeded);
    assert_eq!(envelope.facts["count"], 0);
    assert!(envelope.next_steps.iter().any(|s| s.contains("browser_inspect")));
}

#[test]
fn find_bounds_the_echoed_query() {
    let fixture = Fixture::on(find_page());
    let long = "Submit ".repeat(25);
    let envelope = fixture.call("browser_find", json!({"text": long}));
    let quoted = envelope.summary.split('"').nth(1).unwrap_or_default();
    assert!(quoted.chars().count() <= crate::limits::ECHO_CHARS, "{}", envelope.summary);
    assert!(quoted.ends_with('…'));
}

#[test]
fn found_targets_can_be_acted_on() {
    let fixture = Fixture::on(find_page());
    let found = fixture.call("browser_find", json!({"text": "Cancel"}));
    let cancel = target_of(&found, "matches", "Cancel");
    let click = fixture.call("browser_click", json!({"target": cancel}));
    assert_eq!(click.summary, "Clicked the \"Cancel\" button on example.com.");
}

// ----- browser_wait -------------------------------------------------------------------------

fn status_page() -> ScriptedPage {
    ScriptedPage::new("Editor")
        .text("Draft saved at noon")
        .element(ScriptedElement::button("Save"))
        .element(ScriptedElement::button("Save as"))
        .element(ScriptedElement::button("Discard").removed_on_click())
}

#[test]
fn wait_needs_no_time_when_the_condition_already_holds() {
    let fixture = Fixture::on(status_page());
    let envelope = fixture.call("browser_wait", json!({"condition": "text_present", "value": "saved"}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.facts["satisfied"], true);
    assert_eq!(envelope.facts["elapsed_ms"], 0);
    assert!(!fixture.methods().contains(&"sleep"));
}

#[test]
fn wait_times_out_as_failed_with_no_effect() {
    let fixture = Fixture::on(status_page());
    let envelope = fixture
        .call("browser_wait", json!({"condition": "text_present", "value": "Published", "timeout_ms": 450}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.status, Status::Failed);
    assert_eq!(envelope.effect, Effect::None);
    assert_eq!(envelope.facts["satisfied"], false);
    assert_eq!(envelope.facts["reason"], "timeout");
    assert_eq!(envelope.facts["elapsed_ms"], 450);
    // Polling is bounded: four full intervals and one of 50 ms, a check before each.
    let sleeps = fixture.methods().iter().filter(|m| **m == "sleep").count();
    let checks = fixture.methods().iter().filter(|m| **m == "text_present").count();
    assert_eq!((sleeps, checks), (5, 6));
    assert_eq!(fixture.browser().virtual_elapsed(), Duration::from_millis(450));
}

#[test]
fn wait_for_absent_text_and_load_ready() {
    let fixture = Fixture::on(status_page());
    let gone = fixture.call("browser_wait", json!({"condition": "text_absent", "value": "Error"}));
    assert_eq!(gone.summary, "No wait was needed on example.com: \"Error\" is not on the page.");
    let loaded = fixture.call("browser_wait", json!({"condition": "load_ready"}));
    assert_eq!(loaded.facts["satisfied"], true);
    assert_eq!(loaded.facts["readiness"], "complete");
    assert_eq!(loaded.readiness, Readiness::Complete);

    let loading = Fixture::on(status_page().readiness(Readiness::Interactive));
    let envelope = loading.call("browser_wait", json!({"condition": "load_ready", "timeout_ms": 200}));
    assert_eq!(envelope.status, Status::Failed, "interactive is not load_ready");
    assert_eq!(envelope.facts["readiness"], "interactive");
    assert_eq!(
        envelope.summary,
        "Timed out after 200 ms waiting until the page finished loading on example.com (the limit was 200 ms)."
    );
}

#[test]
fn wait_for_url_contains_compares_the_url() {
    let fixture = Fixture::on(status_page());
    let yes = fixture.call("browser_wait", json!({"condition": "url_contains", "value": "example.com/"}));
    assert_eq!(yes.facts["satisfied"], true);
    let no = fixture
        .call("browser_wait", json!({"condition": "url_contains", "value": "/done", "timeout_ms": 100}));
    assert_eq!(no.facts["satisfied"], false);
    assert_eq!(
        no.summary,
        "Timed out after 100 ms waiting until the URL contained \"/done\" on example.com (the limit was 100 ms)."
    );
}

#[test]
fn wait_for_title_and_url_glob() {
    let fixture = Fixture::on(status_page());
    let title = fixture.call("browser_wait", json!({"condition": "title_contains", "value": "Edit"}));
    assert_eq!(title.summary, "No wait was needed on example.com: the title contains \"Edit\".");
    let case = fixture
        .call("browser_wait", json!({"condition": "title_contains", "value": "editor", "timeout_ms": 100}));
    assert_eq!(case.facts["satisfied"], false, "title_contains is case-sensitive");

    let url =
        fixture.call("browser_wait", json!({"condition": "url_matches", "value": "https://example.com/**"}));
    assert_eq!(url.facts["satisfied"], true, "{}", url.summary);
    let whole = fixture
        .call("browser_wait", json!({"condition": "url_matches", "value": "example.com", "timeout_ms": 100}));
    assert_eq!(whole.facts["satisfied"], false, "the whole URL must match");
    assert_eq!(
        whole.summary,
        "Timed out after 100 ms waiting until the URL matched \"example.com\" on example.com (the limit was 100 ms)."
    );
    let star = fixture
        .call("browser_wait", json!({"condition": "url_matches", "value": "https://*/", "timeout_ms": 100}));
    assert_eq!(star.facts["satisfied"], true, "{}", star.summary);
}

#[test]
fn wait_counts_matching_controls() {
    let fixture = Fixture::on(status_page());
    let two = fixture.call(
        "browser_wait",
        json!({"condition": "count_at_least", "selector": {"name": "save", "role": "button"}, "value": 2}),
    );
    assert_eq!(two.facts["satisfied"], true);
    assert_eq!(two.facts["match_count"], 2);
    assert_eq!(
        two.summary,
        "No wait was needed on example.com: 2 or more controls match a button called \"save\"."
    );
    let three = fixture.call(
        "browser_wait",
        json!({"condition": "count_at_least", "selector": {"name": "save"}, "value": 3, "timeout_ms": 200}),
    );
    assert_eq!(three.facts["satisfied"], false);
    assert_eq!(three.facts["match_count"], 2);
    let exact = fixture.call(
        "browser_wait",
        json!({"condition": "count_at_least", "selector": {"name": "Save", "exact": true}, "value": 2, "timeout_ms": 100}),
    );
    assert_eq!(exact.facts["match_count"], 1, "exact counts exact names only");
}

#[test]
fn wait_for_a_selector_counts_any_match_as_present() {
    let fixture = Fixture::on(status_page());
    // Two buttons match "save" by prefix; the wait only asks whether one exists.
    let envelope = fixture.call(
        "browser_wait",
        json!({"condition": "selector_present", "selector": {"name": "save", "role": "button"}}),
    );
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.facts["satisfied"], true);
    assert_eq!(fixture.methods(), ["page_and_gate", "perceive"]);
    let missing = fixture.call(
        "browser_wait",
        json!({"condition": "selector_present", "selector": {"name": "Publish"}, "timeout_ms": 300}),
    );
    assert_eq!(missing.facts["satisfied"], false);
    assert_eq!(
        missing.summary,
        "Timed out after 300 ms waiting until a control called \"Publish\" appeared on example.com (the limit was 300 ms)."
    );
}

#[test]
fn wait_on_targets_treats_an_older_document_as_absent() {
    let browser = ScriptedBrowser::new().site(HOME, status_page()).site(NEXT, ScriptedPage::new("Next"));
    let fixture = Fixture::opened(browser, json!({}));
    let found = fixture.call("browser_find", json!({"text": "Discard"}));
    let discard = target_of(&found, "matches", "Discard");
    let present = fixture.call("browser_wait", json!({"condition": "target_present", "target": discard}));
    assert_eq!(present.summary, "No wait was needed on example.com: the \"Discard\" button is present.");
    fixture.navigate(NEXT);

    let absent = fixture.call("browser_wait", json!({"condition": "target_absent", "target": discard}));
    insta::assert_json_snapshot!("wait_stale_target_absent", absent);
    assert_eq!(absent.status, Status::Succeeded);
    assert_eq!(absent.facts["satisfied"], true);

    fixture.browser().clear_calls();
    let stale = fixture.call("browser_wait", json!({"condition": "target_present", "target": discard}));
    insta::assert_json_snapshot!("wait_stale_target_present", stale);
    assert_eq!(stale.status, Status::Failed);
    assert_eq!(stale.facts["reason"], "target_stale");
    assert_eq!(stale.facts["satisfied"], false);
    assert_eq!(fixture.methods(), ["page_and_gate"], "no polling for a target that can never appear");
}

#[test]
fn wait_sees_a_removed_target_as_absent() {
    let fixture = Fixture::on(status_page());
    let found = fixture.call("browser_find", json!({"text": "Discard"}));
    let discard = target_of(&found, "matches", "Discard");
    fixture.call("browser_click", json!({"target": discard}));
    let absent = fixture.call("browser_wait", json!({"condition": "target_absent", "target": discard}));
    assert_eq!(absent.facts["satisfied"], true);
    assert_eq!(absent.summary, "No wait was needed on example.com: the \"Discard\" button is gone.");
}

#[test]
fn wait_for_a_duration_sleeps_the_whole_value() {
    let fixture = Fixture::on(status_page());
    let envelope = fixture.call("browser_wait", json!({"condition": "duration", "value": 9000}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.facts["elapsed_ms"], 9000);
    assert_eq!(fixture.browser().virtual_elapsed(), Duration::from_millis(9000));
}

#[test]
fn wait_polls_until_the_condition_holds() {
    let port = Arc::new(
        ScriptedBrowser::new()
            .site(HOME, status_page())
            .text_appears_after("Published", Duration::from_millis(300)),
    );
    let ghostlight = Ghostlight::builder(port.clone()).deterministic_handles().build();
    let call = |tool: &str, arguments: Value| {
        block_on(ghostlight.invoke(tool, &arguments, &Cancellation::never()))
            .unwrap_or_else(|e| panic!("{tool}: {e}"))
            .envelope
    };
    call("browser_navigate", json!({"url": HOME}));
    let envelope = call("browser_wait", json!({"condition": "text_present", "value": "Published"}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.summary, "Waited 300 ms until \"Published\" appeared on example.com.");
    assert_eq!(envelope.facts["elapsed_ms"], 300);
}

#[test]
fn wait_for_text_waits_in_the_page_in_slices_and_authorizes_between_them() {
    let browser = ScriptedBrowser::new()
        .site(HOME, status_page())
        .waits_in_page()
        .text_appears_after("Published", Duration::from_millis(3500));
    let fixture = Fixture::opened(browser, json!({}));
    let envelope = fixture
        .call("browser_wait", json!({"condition": "text_present", "value": "Published", "timeout_ms": 5000}));
    assert_eq!(envelope.status, Status::Succeeded, "{}", envelope.summary);
    assert!(envelope.summary.starts_with("Waited "), "{}", envelope.summary);
    assert!(envelope.facts["elapsed_ms"].as_u64() >= Some(2000), "{:?}", envelope.facts);
    // One slice of 2 s ran out, the page was observed again, the second slice saw the text:
    // no sleep, no poll.
    assert_eq!(fixture.methods(), ["page_and_gate", "wait_text", "page_and_gate", "wait_text"]);
    assert_eq!(fixture.browser().virtual_elapsed(), Duration::from_millis(3500));

    let held = fixture.call("browser_wait", json!({"condition": "text_absent", "value": "Error"}));
    assert_eq!(held.summary, "No wait was needed on example.com: \"Error\" is not on the page.");
}

#[test]
fn wait_for_text_in_the_page_times_out_at_its_limit() {
    let browser = ScriptedBrowser::new().site(HOME, status_page()).waits_in_page();
    let fixture = Fixture::opened(browser, json!({}));
    let envelope = fixture
        .call("browser_wait", json!({"condition": "text_present", "value": "Published", "timeout_ms": 4500}));
    assert_eq!(envelope.status, Status::Failed);
    assert_eq!(envelope.effect, Effect::None);
    assert_eq!(envelope.facts["satisfied"], false);
    assert_eq!(envelope.facts["reason"], "timeout");
    assert_eq!(envelope.facts["elapsed_ms"], 4500);
    // Slices of 2 s, 2 s and what was left, the page observed and authorized between them.
    assert_eq!(
        fixture.methods(),
        ["page_and_gate", "wait_text", "page_and_gate", "wait_text", "page_and_gate", "wait_text"]
    );
    assert_eq!(fixture.browser().virtual_elapsed(), Duration::from_millis(4500));
}

#[test]
fn wait_bounds_the_echoed_value() {
    let fixture = Fixture::on(status_page());
    let long = "x".repeat(300);
    let envelope = fixture.call("browser_wait", json!({"condition": "text_absent", "value": long}));
    assert!(!envelope.summary.contains(&"x".repeat(crate::limits::ECHO_CHARS + 1)), "{}", envelope.summary);
}

// ----- browser_dialog -----------------------------------------------------------------------

#[test]
fn dialog_status_without_a_dialog() {
    let fixture = Fixture::on(status_page());
    let envelope = fixture.call("browser_dialog", json!({"action": "status"}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.facts["present"], false);
    assert_eq!(envelope.facts["dialog_type"], Value::Null);
}

#[test]
fn dialog_status_and_accept() {
    let fixture = Fixture::on(status_page());
    assert!(fixture.browser().raise_dialog(&fixture.tab_ref(), DialogKind::Confirm));
    let status = fixture.call("browser_dialog", json!({"action": "status"}));
    insta::assert_json_snapshot!("dialog_status_confirm", status);
    assert_eq!(status.summary, "A confirm dialog is blocking example.com.");
    let accepted = fixture.call("browser_dialog", json!({"action": "accept"}));
    insta::assert_json_snapshot!("dialog_accept_confirm", accepted);
    assert_eq!(accepted.summary, "Accepted the confirm dialog on example.com.");
    assert_eq!(accepted.effect, Effect::Applied);
    assert!(!accepted.repeat_safe);
    let after = fixture.call("browser_dialog", json!({"action": "status"}));
    assert_eq!(after.facts["present"], false);
}

#[test]
fn dialog_accepting_a_leave_page_prompt_lands_on_the_next_page() {
    let browser =
        ScriptedBrowser::new().site(HOME, status_page().beforeunload()).site(NEXT, ScriptedPage::new("Next"));
    let fixture = Fixture::opened(browser, json!({}));
    let held = fixture.call("browser_navigate", json!({"url": NEXT, "tab": fixture.tab}));
    assert_eq!(held.facts["reason"], "beforeunload");
    let accepted = fixture.call("browser_dialog", json!({"action": "accept"}));
    assert_eq!(
        accepted.summary,
        "Accepted the leave-page dialog on example.com; the page moved to example.com."
    );
    assert_eq!(accepted.facts["landing"]["url"], NEXT);
}

#[test]
fn dialog_respond_text_is_never_echoed_or_audited() {
    let secret = "Ada Lovelace 1815";
    let fixture = Fixture::on(status_page());
    assert!(fixture.browser().raise_dialog(&fixture.tab_ref(), DialogKind::Prompt));
    let envelope = fixture.call("browser_dialog", json!({"action": "respond", "text": secret}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.summary, "Answered the prompt dialog on example.com.");
    assert_eq!(envelope.facts["accepted"], true);
    assert!(!text_of(&envelope).contains("Lovelace"));
    let audit = fixture.h.audit_text();
    assert!(!audit.contains("Lovelace"), "{audit}");
    let records = fixture.h.audit_records();
    assert_eq!(records.last().map(|r| r.tool().as_str()), Some("browser_dialog"));
}

#[test]
fn dialog_refuses_to_resolve_what_is_not_there() {
    let fixture = Fixture::on(status_page());
    let envelope = fixture.call("browser_dialog", json!({"action": "accept"}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.status, Status::Failed);
    assert_eq!(envelope.facts["reason"], "no_dialog");
    assert!(!fixture.methods().contains(&"resolve_dialog"));

    assert!(fixture.browser().raise_dialog(&fixture.tab_ref(), DialogKind::Alert));
    fixture.browser().clear_calls();
    let respond = fixture.call("browser_dialog", json!({"action": "respond", "text": "hello"}));
    assert_eq!(respond.facts["reason"], "not_a_prompt");
    assert_eq!(respond.summary, "The alert dialog on example.com takes no text; nothing was answered.");
    assert!(!fixture.methods().contains(&"resolve_dialog"));
    assert!(!text_of(&respond).contains("hello"));
}

#[test]
fn dialog_works_when_the_dialog_blocks_the_page() {
    let fixture = Fixture::on(status_page());
    assert!(fixture.browser().raise_dialog(&fixture.tab_ref(), DialogKind::Alert));
    // The adapter cannot read the page while the dialog is open.
    fixture.browser().fail_next("page", PortError::new(PortErrorKind::BlockedByDialog, "blocked"));
    let dismissed = fixture.call("browser_dialog", json!({"action": "dismiss"}));
    insta::assert_json_snapshot!(dismissed);
    assert_eq!(dismissed.status, Status::Succeeded, "{dismissed:?}");
    assert_eq!(dismissed.summary, "Dismissed the alert dialog on example.com.");
    assert_eq!(dismissed.facts["accepted"], false);
    assert_eq!(fixture.methods(), ["page", "dialog", "resolve_dialog", "page"]);
}

#[test]
fn dialog_says_when_another_dialog_follows() {
    let fixture = Fixture::on(status_page());
    assert!(fixture.browser().raise_dialog(&fixture.tab_ref(), DialogKind::Alert));
    // The page reads fine before, and is blocked again after the resolution.
    fixture.browser().fail_next("page", PortError::new(PortErrorKind::BlockedByDialog, "blocked"));
    fixture.browser().fail_next("page", PortError::new(PortErrorKind::BlockedByDialog, "blocked"));
    let accepted = fixture.call("browser_dialog", json!({"action": "accept"}));
    assert_eq!(accepted.status, Status::Succeeded);
    assert_eq!(accepted.facts["present"], true);
    assert_eq!(accepted.readiness, Readiness::Unknown);
    assert!(accepted.next_steps.iter().any(|s| s.contains("\"status\"")), "{accepted:?}");
}

#[test]
fn dialog_refuses_a_tab_whose_page_was_never_seen() {
    let fixture = Fixture::on(status_page());
    let unknown = fixture.call("browser_dialog", json!({"action": "status", "tab": "tab_zzzzzz"}));
    assert_eq!(unknown.facts["reason"], "unknown_tab");
    assert_eq!(fixture.browser().dispatch_count(), 0);
}

#[test]
fn dialog_actions_need_the_action_capability() {
    let fixture = Fixture::on(status_page());
    assert!(fixture.browser().raise_dialog(&fixture.tab_ref(), DialogKind::Confirm));
    fixture.browser().clear_calls();
    let envelope =
        fixture.call("browser_dialog", json!({"action": "accept", "restrict_capabilities": ["read"]}));
    assert_eq!(envelope.status, Status::Blocked);
    assert_eq!(fixture.browser().dispatch_count(), 0);
    let status =
        fixture.call("browser_dialog", json!({"action": "status", "restrict_capabilities": ["read"]}));
    assert_eq!(status.status, Status::Succeeded);
}

// ----- browser_execute ----------------------------------------------------------------------

const SCRIPT: &str = "document.querySelectorAll('.secret-marker').length";

fn scripting(value: Value) -> Fixture {
    let browser = ScriptedBrowser::new().site(HOME, status_page()).script_result(SCRIPT, value);
    Fixture::opened(browser, json!({"capabilities": {"allow": ["execute"]}}))
}

#[test]
fn execute_returns_the_value_and_names_only_its_type() {
    let fixture = scripting(json!(3));
    let envelope = fixture.call("browser_execute", json!({"script": SCRIPT}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.summary, "Ran the script on example.com; it returned a number.");
    assert_eq!(envelope.facts["value"], 3);
    assert!(!envelope.repeat_safe);
    assert_eq!(envelope.effect, Effect::Applied);
}

#[test]
fn execute_cuts_a_long_result_to_its_first_characters() {
    let long: Vec<Value> = (0..200).map(|i| json!({"row": i})).collect();
    let fixture = scripting(Value::Array(long.clone()));
    let envelope = fixture.call("browser_execute", json!({"script": SCRIPT, "max_result_chars": 100}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.facts["truncated"], true);
    let value = envelope.facts["value"].as_str().unwrap_or_else(|| panic!("a string: {envelope:?}"));
    assert_eq!(value.chars().count(), 100);
    assert!(Value::Array(long).to_string().starts_with(value));
}

#[test]
fn execute_never_presents_or_audits_the_script() {
    let fixture = scripting(json!({"marker": "result-marker"}));
    let envelope = fixture.call("browser_execute", json!({"script": SCRIPT}));
    assert!(!text_of(&envelope).contains("secret-marker"));
    assert!(!envelope.summary.contains("result-marker"), "the result is never in the summary");
    assert_eq!(envelope.facts["value"]["marker"], "result-marker", "the result travels in facts");
    let audit = fixture.h.audit_text();
    assert!(!audit.contains("secret-marker") && !audit.contains("result-marker"), "{audit}");
}

#[test]
fn execute_reports_a_thrown_error_in_facts_only() {
    let fixture = scripting(Value::Null);
    let envelope = fixture.call("browser_execute", json!({"script": "throw"}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!((envelope.status, envelope.effect), (Status::Unknown, Effect::Unknown), "it may have acted");
    assert_eq!(envelope.facts["reason"], "script_error");
    assert_eq!(envelope.facts["error"], json!({"name": "Error", "message": "scripted failure", "ran": true}));
    assert!(!envelope.summary.contains("scripted failure"), "the message is not presented");
    assert!(!fixture.h.audit_text().contains("scripted failure"), "nor audited");
}

#[test]
fn execute_reports_a_script_that_did_not_compile_as_failed_without_effect() {
    let fixture = scripting(Value::Null);
    let envelope = fixture.call("browser_execute", json!({"script": "syntax("}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!((envelope.status, envelope.effect), (Status::Failed, Effect::None));
    assert_eq!(envelope.facts["reason"], "script_syntax_error");
    assert_eq!(envelope.facts["error"]["ran"], false);
    assert!(!envelope.summary.contains("Unexpected"), "the message is not presented");
}

#[test]
fn execute_is_blocked_by_default_authority() {
    let fixture = Fixture::on(status_page());
    let envelope = fixture.call("browser_execute", json!({"script": SCRIPT}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.status, Status::Blocked);
    assert_eq!(fixture.browser().dispatch_count(), 0, "nothing reaches the browser");
    assert!(!text_of(&envelope).contains("secret-marker"));
}
