//! Confirmation outside the page (`[confirm]`): a scripted [`Confirmer`] answers, the port's
//! call log shows what reached the browser.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::harness::{HOME, Harness, NEXT, fact_str, fixture, user_authority};
use crate::authority::{
    AuthorityLayers, ConfirmAction, Confirmation, ConfirmationAnswer, ConfirmationDigest,
    ConfirmationRequest, Confirmer, OrganizationSettings, Settings,
};
use crate::envelope::{Effect, Envelope, Status};
use crate::executor::{Cancellation, Ghostlight, NoProgress};
use crate::names::ToolName;
use crate::port::{BrowserPort, Gate, NavigateInput, TabCall, TabRef};
use crate::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};

const FORM: &str = "https://example.com/form";

fn browser() -> ScriptedBrowser {
    fixture()
        .site(
            FORM,
            ScriptedPage::new("Contact")
                .element(ScriptedElement::textbox("Name"))
                .element(ScriptedElement::file_input("Resume"))
                .element(ScriptedElement::button("Pay").navigates_to(NEXT))
                .element(ScriptedElement::link("Next", NEXT)),
        )
        .script_result("return 1", json!(1))
        .file("/uploads/cv.pdf", 10)
}

/// How the scripted person answers.
#[derive(Clone, Copy)]
enum Answer {
    Yes,
    YesForAnotherCall,
    No,
    Dismiss,
    NoChannel,
    /// Yes, after the page navigated elsewhere (the page changed under the question).
    YesThenPageChanges,
}

/// A scripted person: answers as told and keeps every question asked.
struct Person {
    answer: Mutex<Answer>,
    asked: Mutex<Vec<ConfirmationRequest>>,
    browser: Arc<ScriptedBrowser>,
    tab: Mutex<Option<TabRef>>,
}

impl Person {
    fn new(answer: Answer, browser: Arc<ScriptedBrowser>) -> Arc<Person> {
        Arc::new(Person {
            answer: Mutex::new(answer),
            asked: Mutex::default(),
            browser,
            tab: Mutex::default(),
        })
    }

    fn asked(&self) -> Vec<ConfirmationRequest> {
        self.asked.lock().map(|a| a.clone()).unwrap_or_default()
    }

    fn answer(&self, answer: Answer) {
        if let Ok(mut current) = self.answer.lock() {
            *current = answer;
        }
    }
}

#[async_trait::async_trait]
impl Confirmer for Person {
    async fn confirm(&self, request: &ConfirmationRequest) -> Confirmation {
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(request.clone());
        }
        let answer = self.answer.lock().map(|a| *a).unwrap_or(Answer::No);
        match answer {
            Answer::Yes => Confirmation::Accepted(request.digest),
            Answer::YesForAnotherCall => Confirmation::Accepted(ConfirmationDigest::of(&[b"another call"])),
            Answer::No => Confirmation::Declined,
            Answer::Dismiss => Confirmation::Cancelled,
            Answer::NoChannel => Confirmation::Unavailable,
            Answer::YesThenPageChanges => {
                let tab = self.tab.lock().ok().and_then(|t| t.clone());
                if let (Some(tab), Ok(url)) = (tab, url::Url::parse(NEXT)) {
                    let call = TabCall::new(&tab, &Gate::open(), Duration::from_secs(1));
                    let input = NavigateInput { url, discard_beforeunload: false };
                    let _ = self.browser.navigate(&call, &input).await;
                }
                Confirmation::Accepted(request.digest)
            }
        }
    }
}

/// A harness confirming `actions` (user layer), with a scripted person answering `answer`.
fn confirming(actions: &[&str], answer: Answer) -> (Harness, Arc<Person>) {
    let mut user = json!({"capabilities": {"allow": ["execute"]}, "uploads": {"roots": ["/uploads"]}});
    user["confirm"] = json!({"actions": actions});
    let mut h = Harness::with_authority(browser(), user_authority(user));
    let person = Person::new(answer, h.browser.clone());
    h.ghost = h.ghost.with_confirmer(person.clone());
    (h, person)
}

fn tab_ref(h: &Harness, tab: &str) -> Option<TabRef> {
    let _ = tab;
    futures::executor::block_on(h.browser.tabs()).ok()?.into_iter().next().map(|info| info.tab)
}

fn effectful(h: &Harness) -> Vec<&'static str> {
    h.browser
        .method_names()
        .into_iter()
        .filter(|m| ["click", "fill", "press_keys", "upload", "execute", "navigate", "open_tab"].contains(m))
        .collect()
}

fn status(envelope: &Envelope) -> (Status, Effect, String) {
    (
        envelope.status,
        envelope.effect,
        envelope.facts.get("reason").and_then(Value::as_str).unwrap_or("").into(),
    )
}

/// The last audit record's confirmation.
fn audited(h: &Harness) -> Option<(ConfirmAction, ConfirmationAnswer)> {
    h.audit_records().last().and_then(|r| r.confirmation()).map(|c| (c.action, c.answer))
}

#[test]
fn nothing_is_asked_without_a_confirm_section() {
    let h = Harness::new(browser());
    h.open(FORM);
    h.ok("browser_click", json!({"selector": {"name": "Pay"}}));
    assert_eq!(audited(&h), None);
}

#[test]
fn accept_dispatches_the_click() {
    let (h, person) = confirming(&["submit"], Answer::Yes);
    let tab = h.open(FORM);
    h.browser.clear_calls();
    let envelope = h.ok("browser_click", json!({"selector": {"name": "Pay"}}));
    assert_eq!(envelope.summary, "Clicked the \"Pay\" button on example.com; the page moved to example.com.");
    assert_eq!(effectful(&h), ["click"]);
    let asked = person.asked();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].tool, "browser_click");
    assert_eq!(asked[0].action, ConfirmAction::Submit);
    assert_eq!(asked[0].host, "example.com");
    assert_eq!(asked[0].control.as_deref(), Some("the \"Pay\" button"));
    assert_eq!(audited(&h), Some((ConfirmAction::Submit, ConfirmationAnswer::Accepted)));
    let _ = tab;
}

#[test]
fn a_link_click_is_not_a_submit() {
    let (h, person) = confirming(&["submit"], Answer::No);
    h.open(FORM);
    h.ok("browser_click", json!({"selector": {"name": "Next", "role": "link"}}));
    assert!(person.asked().is_empty());
}

#[test]
fn decline_and_dismiss_block_without_dispatch() {
    for answer in [Answer::No, Answer::Dismiss] {
        let (h, _) = confirming(&["submit"], answer);
        let tab = h.open(FORM);
        h.browser.clear_calls();
        let envelope = h.call("browser_click", json!({"selector": {"name": "Pay"}}));
        assert_eq!(status(&envelope), (Status::Blocked, Effect::None, "declined".into()));
        assert_eq!(
            envelope.summary,
            "Did not let browser_click submit on example.com: the person declined when asked."
        );
        assert_eq!(envelope.facts["tab"], tab.as_str());
        assert!(!envelope.repeat_safe);
        assert!(effectful(&h).is_empty(), "{:?}", h.browser.method_names());
        let expected = match answer {
            Answer::No => ConfirmationAnswer::Declined,
            _ => ConfirmationAnswer::Cancelled,
        };
        assert_eq!(audited(&h), Some((ConfirmAction::Submit, expected)));
        let record = h.audit_records().last().map(|r| r.to_json()).unwrap_or_default();
        assert_eq!(record["status"], "blocked");
        assert_eq!(record["confirmation"], json!({"action": "submit", "answer": expected_name(expected)}));
    }
}

fn expected_name(answer: ConfirmationAnswer) -> &'static str {
    match answer {
        ConfirmationAnswer::Declined => "declined",
        ConfirmationAnswer::Cancelled => "cancelled",
        _ => "other",
    }
}

#[test]
fn no_channel_is_attention_required() {
    // The default Ghostlight has no channel at all.
    let h = Harness::with_authority(browser(), user_authority(json!({"confirm": {"actions": ["submit"]}})));
    h.open(FORM);
    h.browser.clear_calls();
    let envelope = h.call("browser_click", json!({"selector": {"name": "Pay"}}));
    assert_eq!(
        status(&envelope),
        (Status::AttentionRequired, Effect::None, "confirmation_unavailable".into())
    );
    assert!(effectful(&h).is_empty());
    assert_eq!(audited(&h), Some((ConfirmAction::Submit, ConfirmationAnswer::Unavailable)));

    let (h, _) = confirming(&["submit"], Answer::NoChannel);
    h.open(FORM);
    let envelope = h.call("browser_click", json!({"selector": {"name": "Pay"}}));
    assert_eq!(
        status(&envelope),
        (Status::AttentionRequired, Effect::None, "confirmation_unavailable".into())
    );
}

#[test]
fn a_yes_for_another_call_is_refused() {
    let (h, _) = confirming(&["submit"], Answer::YesForAnotherCall);
    h.open(FORM);
    h.browser.clear_calls();
    let envelope = h.call("browser_click", json!({"selector": {"name": "Pay"}}));
    assert_eq!(
        status(&envelope),
        (Status::AttentionRequired, Effect::None, "confirmation_unavailable".into())
    );
    assert!(effectful(&h).is_empty());
    assert_eq!(audited(&h), Some((ConfirmAction::Submit, ConfirmationAnswer::Mismatched)));
}

#[test]
fn the_digest_binds_one_call() {
    // The same click twice asks twice, under two different digests (each call is its own
    // invocation), so the first yes cannot serve the second call.
    let (h, person) = confirming(&["submit"], Answer::Yes);
    h.open(FORM);
    h.ok("browser_click", json!({"selector": {"name": "Pay"}}));
    h.ok("browser_navigate", json!({"url": FORM}));
    h.ok("browser_click", json!({"selector": {"name": "Pay"}}));
    let asked = person.asked();
    assert_eq!(asked.len(), 2);
    assert_ne!(asked[0].digest, asked[1].digest);
}

#[test]
fn a_page_that_changes_after_the_yes_is_not_dispatched() {
    let (h, person) = confirming(&["submit"], Answer::YesThenPageChanges);
    let tab = h.open(FORM);
    if let Ok(mut slot) = person.tab.lock() {
        *slot = tab_ref(&h, &tab);
    }
    h.browser.clear_calls();
    let envelope = h.call("browser_click", json!({"selector": {"name": "Pay"}}));
    assert_eq!(status(&envelope), (Status::Failed, Effect::None, "page_changed".into()));
    // Only the person's own navigation (the page changing) reached the browser.
    assert_eq!(effectful(&h), ["navigate"]);
    assert_eq!(audited(&h), Some((ConfirmAction::Submit, ConfirmationAnswer::PageChanged)));
}

#[test]
fn fill_form_with_submit_asks_once_before_any_value_and_never_shows_one() {
    let (h, person) = confirming(&["submit"], Answer::No);
    h.open(FORM);
    h.browser.clear_calls();
    let secret = "Ada Lovelace 4111-1111";
    let envelope = h.call(
        "browser_fill_form",
        json!({"fields": [{"selector": {"name": "Name"}, "value": secret}], "submit_selector": {"name": "Pay"}}),
    );
    assert_eq!(status(&envelope), (Status::Blocked, Effect::None, "declined".into()));
    assert!(effectful(&h).is_empty());
    let asked = person.asked();
    assert_eq!(asked.len(), 1);
    assert!(!format!("{asked:?}").contains("Ada"));
    assert!(!asked[0].question().contains("Ada"));
    assert!(!envelope.summary.contains("Ada"));
    assert!(!h.audit_text().contains("Ada"));
    assert!(!h.audit_text().contains(&asked[0].digest.to_hex()));

    // Without submit nothing is asked.
    person.answer(Answer::No);
    h.ok("browser_fill_form", json!({"fields": [{"selector": {"name": "Name"}, "value": secret}]}));
    assert_eq!(person.asked().len(), 1);
}

#[test]
fn enter_asks_as_a_submit() {
    let (h, person) = confirming(&["submit"], Answer::No);
    h.open(FORM);
    h.browser.clear_calls();
    let envelope = h.call("browser_press_key", json!({"key": "Enter", "selector": {"name": "Name"}}));
    assert_eq!(status(&envelope), (Status::Blocked, Effect::None, "declined".into()));
    assert!(effectful(&h).is_empty());
    assert_eq!(person.asked()[0].control.as_deref(), Some("the \"Name\" text field"));
    h.ok("browser_press_key", json!({"key": "Tab", "selector": {"name": "Name"}}));
    assert_eq!(person.asked().len(), 1);
}

#[test]
fn execute_and_upload_ask() {
    let (h, person) = confirming(&["execute", "upload"], Answer::No);
    h.open(FORM);
    h.browser.clear_calls();
    let envelope = h.call("browser_execute", json!({"script": "return 1"}));
    assert_eq!(status(&envelope), (Status::Blocked, Effect::None, "declined".into()));
    let envelope =
        h.call("browser_upload", json!({"selector": {"name": "Resume"}, "paths": ["/uploads/cv.pdf"]}));
    assert_eq!(status(&envelope), (Status::Blocked, Effect::None, "declined".into()));
    assert!(effectful(&h).is_empty(), "{:?}", h.browser.method_names());
    let actions: Vec<ConfirmAction> = person.asked().iter().map(|r| r.action).collect();
    assert_eq!(actions, [ConfirmAction::Execute, ConfirmAction::Upload]);
    assert!(!format!("{:?}", person.asked()).contains("cv.pdf"));
    assert!(!format!("{:?}", person.asked()).contains("return 1"));

    person.answer(Answer::Yes);
    h.ok("browser_execute", json!({"script": "return 1"}));
    assert_eq!(effectful(&h), ["execute"]);
}

#[test]
fn only_the_first_navigation_to_a_host_asks() {
    let (h, person) = confirming(&["new_host"], Answer::No);
    let envelope = h.call("browser_navigate", json!({"url": HOME}));
    assert_eq!(status(&envelope), (Status::Blocked, Effect::None, "declined".into()));
    assert!(effectful(&h).is_empty());
    person.answer(Answer::Yes);
    h.ok("browser_navigate", json!({"url": HOME}));
    h.ok("browser_navigate", json!({"url": NEXT}));
    let hosts: Vec<String> = person.asked().iter().map(|r| r.host.clone()).collect();
    assert_eq!(hosts, ["example.com", "example.com"]);
    assert_eq!(person.asked()[0].question(), "Allow browser_navigate to open a new host: example.com?");
}

#[test]
fn each_step_of_a_sequence_asks() {
    let (h, person) = confirming(&["submit"], Answer::Yes);
    h.open(FORM);
    h.browser.clear_calls();
    let envelope = h.call(
        "browser_sequence",
        json!({"steps": [
            {"action": "type_text", "selector": {"name": "Name"}, "text": "Ada"},
            {"action": "click", "selector": {"name": "Pay"}},
        ]}),
    );
    assert_eq!(envelope.status, Status::Succeeded, "{}", envelope.summary);
    assert_eq!(person.asked().len(), 1);
    assert_eq!(person.asked()[0].tool, "browser_click");

    let (h, _) = confirming(&["submit"], Answer::No);
    h.open(FORM);
    h.browser.clear_calls();
    let envelope = h.call(
        "browser_sequence",
        json!({"steps": [
            {"action": "type_text", "selector": {"name": "Name"}, "text": "Ada"},
            {"action": "click", "selector": {"name": "Pay"}},
        ]}),
    );
    assert_eq!(envelope.status, Status::Blocked, "{}", envelope.summary);
    assert!(!h.browser.method_names().contains(&"click"));
}

#[test]
fn an_organization_confirmation_cannot_be_removed_by_the_user() {
    let organization: OrganizationSettings =
        serde_json::from_value(json!({"confirm": {"actions": ["execute"]}})).unwrap_or_default();
    let user: Settings = serde_json::from_value(json!({"confirm": {"actions": []}})).unwrap_or_default();
    let authority = AuthorityLayers { user: Some(user), organization: Some(organization) }.compile();
    assert!(authority.confirms(ConfirmAction::Execute));
    assert!(!authority.confirms(ConfirmAction::Submit));
    let user: Settings =
        serde_json::from_value(json!({"confirm": {"actions": ["submit"]}})).unwrap_or_default();
    let authority = AuthorityLayers { user: Some(user), organization: None }.compile();
    assert!(authority.confirms(ConfirmAction::Submit));
}

#[test]
fn a_per_call_confirmer_serves_only_that_call() {
    let h = Harness::with_authority(browser(), user_authority(json!({"confirm": {"actions": ["submit"]}})));
    h.open(FORM);
    let person = Person::new(Answer::Yes, h.browser.clone());
    let ghost: &Ghostlight = &h.ghost;
    let result = futures::executor::block_on(ghost.invoke_tool_confirmed(
        ToolName::Click,
        &json!({"selector": {"name": "Pay"}}),
        &Cancellation::never(),
        &NoProgress,
        person.as_ref(),
    ));
    assert_eq!(result.envelope.status, Status::Succeeded, "{}", result.envelope.summary);
}

#[test]
fn each_step_of_a_flow_asks_and_a_no_stops_it() {
    let (h, person) = confirming(&["submit", "new_host"], Answer::Yes);
    let step =
        |id: &str, tool: &str, arguments: Value| json!({"id": id, "tool": tool, "arguments": arguments});
    let envelope = h.call(
        "browser_flow",
        json!({"steps": [
            step("open", "browser_navigate", json!({"url": FORM})),
            step("pay", "browser_click", json!({"selector": {"name": "Pay"}})),
        ]}),
    );
    assert_eq!(envelope.status, Status::Succeeded, "{}", envelope.summary);
    let actions: Vec<ConfirmAction> = person.asked().iter().map(|r| r.action).collect();
    assert_eq!(actions, [ConfirmAction::NewHost, ConfirmAction::Submit]);
    // Every child record that asked says so; the flow's own record asked nothing.
    let asked: Vec<_> = h.audit_records().iter().filter_map(|r| r.confirmation().map(|c| c.answer)).collect();
    assert_eq!(asked, [ConfirmationAnswer::Accepted, ConfirmationAnswer::Accepted]);

    let (h, _) = confirming(&["submit"], Answer::No);
    let envelope = h.call(
        "browser_flow",
        json!({"steps": [
            step("open", "browser_navigate", json!({"url": FORM})),
            step("pay", "browser_click", json!({"selector": {"name": "Pay"}})),
        ]}),
    );
    assert_ne!(envelope.status, Status::Succeeded, "{}", envelope.summary);
    assert!(!h.browser.method_names().contains(&"click"));
}

#[test]
fn a_replay_saved_as_a_download_asks_and_one_returned_to_the_client_does_not() {
    let (h, person) = confirming(&["download"], Answer::No);
    h.open(FORM);
    let started = h.ok("browser_record", json!({"action": "start"}));
    let recording = fact_str(&started, "recording");
    h.ok("browser_record", json!({"action": "save", "recording": recording}));
    assert!(person.asked().is_empty());
    let envelope =
        h.call("browser_record", json!({"action": "save", "recording": recording, "download": true}));
    assert_eq!(status(&envelope), (Status::Blocked, Effect::None, "declined".into()));
    assert_eq!(person.asked()[0].action, ConfirmAction::Download);
}

#[test]
fn withheld_target_names_stay_withheld_from_the_question() {
    let user = json!({"confirm": {"actions": ["submit"]}, "privacy": {"preserve_target_names": false}});
    let mut h = Harness::with_authority(browser(), user_authority(user));
    let person = Person::new(Answer::No, h.browser.clone());
    h.ghost = h.ghost.with_confirmer(person.clone());
    h.open(FORM);
    h.call("browser_click", json!({"selector": {"name": "Pay"}}));
    assert_eq!(person.asked()[0].control.as_deref(), Some("a button"));
    assert!(!person.asked()[0].question().contains("Pay"));
}
