//! The pipeline itself: invalid input, unknown tools, authority refusals, startup refusals,
//! cancellation, concurrency, and properties over arbitrary arguments.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::harness::{HOME, Harness, fixture};
use crate::envelope::{Effect, Status};
use crate::executor::{Cancellation, Ghostlight};
use crate::names::ToolName;
use crate::port::StartupRefusal;
use crate::testing::ScriptedBrowser;
use crate::tools::catalog::CATALOG;

#[test]
fn invalid_arguments_are_a_failed_envelope_and_nothing_is_dispatched() {
    let h = Harness::new(fixture());
    let envelope = h.call("browser_navigate", json!({"url": "https://example.com", "timeout_ms": 50}));
    insta::assert_json_snapshot!("invalid_arguments", envelope);
    assert_eq!(
        (envelope.status, envelope.effect, envelope.repeat_safe),
        (Status::Failed, Effect::None, false)
    );
    assert_eq!(h.browser.dispatch_count(), 0);
    assert_eq!(h.audit_records().len(), 1);
}

#[test]
fn an_unknown_tool_is_a_protocol_error() {
    let h = Harness::new(fixture());
    let error =
        futures::executor::block_on(h.ghost.invoke("browser_teleport", &json!({}), &Cancellation::never()))
            .err()
            .unwrap_or_else(|| panic!("accepted an unknown tool"));
    assert!(error.to_string().contains("browser_teleport"), "{error}");
    assert_eq!(h.browser.dispatch_count(), 0);
}

#[test]
fn policy_explain_never_touches_the_browser() {
    let h = Harness::new(ScriptedBrowser::new());
    h.browser.disconnect();
    let envelope = h.ok("policy_explain", json!({}));
    assert_eq!(envelope.summary, "Explained 4 capability areas over 1 layer in force.");
    assert!(h.browser.calls().is_empty());
}

#[test]
fn a_blocked_host_dispatches_nothing() {
    let h = Harness::new(fixture());
    let envelope = h.call("browser_navigate", json!({"url": HOME, "restrict_hosts": ["other.example"]}));
    insta::assert_json_snapshot!("blocked_host", envelope);
    assert_eq!(envelope.status, Status::Blocked);
    assert!(h.browser.calls().is_empty());
}

#[test]
fn a_missing_capability_is_blocked_before_any_browser_contact() {
    let h = Harness::new(fixture());
    let envelope = h.call("browser_execute", json!({"script": "document.title"}));
    insta::assert_json_snapshot!("missing_capability", envelope);
    assert_eq!(envelope.status, Status::Blocked);
    assert!(h.browser.calls().is_empty());
    assert!(!h.audit_text().contains("document.title"));
}

#[test]
fn a_tab_outside_authority_blocks_tab_bound_work() {
    let h = Harness::new(fixture());
    let tab = h.open(HOME);
    let envelope = h.call("browser_read", json!({"tab": tab, "restrict_hosts": ["other.example"]}));
    assert_eq!(envelope.status, Status::Blocked);
    assert_eq!(envelope.facts["reason"], "tab_outside_authority");
    assert!(!h.browser.method_names().contains(&"read_text"));
}

#[test]
fn startup_manual_is_attention_required_word_for_word() {
    let h = Harness::new(ScriptedBrowser::new());
    h.browser.startup_refusal(StartupRefusal::Manual { browsers: vec!["Chromium".into(), "Firefox".into()] });
    let envelope = h.call("browser_navigate", json!({"url": HOME}));
    insta::assert_json_snapshot!("startup_manual", envelope);
    assert_eq!(envelope.status, Status::AttentionRequired);
    assert!(envelope.next_steps.is_empty());
    assert_eq!(envelope.facts["reason"], "browser_startup_manual");
    let h = Harness::new(ScriptedBrowser::new());
    h.browser.startup_refusal(StartupRefusal::Manual { browsers: vec!["Firefox".into()] });
    let one = h.call("browser_tabs", json!({"action": "list"}));
    assert_eq!(one.facts["browser"], "Firefox");
    assert_eq!(one.facts["browsers"], json!(["Firefox"]));
    let h = Harness::new(ScriptedBrowser::new());
    h.browser.startup_refusal(StartupRefusal::OwnedElsewhere);
    let elsewhere = h.call("browser_tabs", json!({"action": "list"}));
    insta::assert_json_snapshot!("native_host_owned_elsewhere", elsewhere);
}

#[test]
fn a_cancelled_call_before_dispatch_has_no_effect() {
    let h = Harness::new(fixture());
    let cancel = Cancellation::new();
    cancel.cancel();
    let result =
        futures::executor::block_on(h.ghost.invoke("browser_navigate", &json!({"url": HOME}), &cancel))
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(result.envelope.status, Status::Cancelled);
    assert_eq!(result.envelope.effect, Effect::None);
    assert!(!result.envelope.repeat_safe);
}

#[test]
fn calls_on_two_tabs_overlap_and_calls_on_one_tab_never_do() {
    let h = Harness::new(fixture());
    let first = h.open(HOME);
    let second = h.open(HOME);
    let reads = |tabs: [&str; 4]| {
        let calls = tabs.map(|tab| {
            let ghost = h.ghost.clone();
            let arguments = json!({"tab": tab});
            async move { ghost.invoke("browser_read", &arguments, &Cancellation::never()).await }
        });
        let results = futures::executor::block_on(futures::future::join_all(calls));
        for result in results {
            let envelope = result.unwrap_or_else(|e| panic!("{e}")).envelope;
            assert_eq!(envelope.status, Status::Succeeded, "{}", envelope.summary);
        }
    };
    reads([&first, &first, &first, &first]);
    assert_eq!(h.browser.max_in_flight_per_tab(), 1, "one tab is serialized");
    reads([&first, &second, &first, &second]);
    assert_eq!(h.browser.max_in_flight_per_tab(), 1, "still serialized per tab");
    assert!(h.browser.max_in_flight_total() >= 2, "two tabs overlap");
}

#[test]
fn workspaces_never_see_each_others_tabs() {
    let h = Harness::new(fixture());
    let tab = h.open(HOME);
    let other: Ghostlight = h.ghost.workspace();
    let envelope = futures::executor::block_on(other.invoke(
        "browser_read",
        &json!({"tab": tab}),
        &Cancellation::never(),
    ))
    .unwrap_or_else(|e| panic!("{e}"))
    .envelope;
    assert_eq!(envelope.status, Status::Failed);
    assert_eq!(envelope.facts["reason"], "unknown_tab");
    let list = futures::executor::block_on(other.invoke(
        "browser_tabs",
        &json!({"action": "list"}),
        &Cancellation::never(),
    ))
    .unwrap_or_else(|e| panic!("{e}"))
    .envelope;
    assert_eq!(list.facts["count"], 0);
    let mine = h.ok("browser_tabs", json!({"action": "list"}));
    assert_eq!(mine.facts["tabs"][0]["tab"], tab.as_str());
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1.0e6f64..1.0e6).prop_map(Value::from),
        "[a-z_]{0,12}".prop_map(Value::from),
        prop_oneof![Just("tab_a1"), Just("target_b2"), Just("view_c3"), Just("https://example.com/")]
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    "[a-z_]{1,10}".boxed(),
                    Just("url".to_owned()).boxed(),
                    Just("tab".to_owned()).boxed(),
                    Just("target".to_owned()).boxed(),
                    Just("action".to_owned()).boxed(),
                    Just("steps".to_owned()).boxed(),
                ],
                inner,
                0..5
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_024, ..ProptestConfig::default() })]

    /// The executor never panics, whatever the arguments, and its envelopes keep their
    /// invariants.
    #[test]
    fn the_executor_never_panics_and_keeps_its_invariants(index in 0..CATALOG.len(), arguments in arbitrary_json()) {
        let h = Harness::new(fixture());
        h.open(HOME);
        let tool: ToolName = CATALOG[index].name;
        let envelope = futures::executor::block_on(h.ghost.invoke_tool(tool, &arguments, &Cancellation::never())).envelope;
        if matches!(envelope.effect, Effect::Partial | Effect::Unknown) {
            prop_assert!(!envelope.repeat_safe);
        }
        prop_assert!(envelope.next_steps.len() <= 2);
        prop_assert!(!envelope.summary.is_empty());
        let _ = Arc::strong_count(&h.browser);
    }
}
