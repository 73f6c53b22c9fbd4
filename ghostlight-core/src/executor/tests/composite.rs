//! Executor tests: composite (`browser_sequence`, `browser_flow`; see mod.rs for the harness).

use serde_json::{Value, json};

use super::harness::{HOME, Harness, NEXT, OTHER, fact_str, fixture};
use crate::envelope::{Effect, Envelope, Status};
use crate::limits::FLOW_CAPTURE_BUDGET_BYTES;
use crate::names::ToolName;
use crate::port::PortError;
use crate::testing::ScriptedPage;

/// A page whose text is long enough that a few reads of it exhaust the flow capture budget.
const LONG: &str = "https://long.example/";
/// Characters of [`LONG`]'s text (and of each read of it).
const LONG_CHARS: usize = 20_000;

fn r(step: &str, pointer: &str) -> Value {
    json!({"flow_ref": {"step": step, "pointer": pointer}})
}

fn click(name: &str) -> Value {
    json!({"action": "click", "selector": {"name": name}})
}

fn step(id: &str, tool: &str, arguments: Value) -> Value {
    json!({"id": id, "tool": tool, "arguments": arguments})
}

fn rows(envelope: &Envelope) -> Vec<Value> {
    envelope.facts["steps"].as_array().cloned().unwrap_or_default()
}

/// Every audit record of a child of `parent`, as (step index, tool, status, effect).
fn children_audited(h: &Harness, parent: &str) -> Vec<(usize, ToolName, Status, Effect)> {
    h.audit_records()
        .iter()
        .filter_map(|record| {
            let p = record.parent()?;
            (p.invocation.as_str() == parent)
                .then(|| (p.step, record.tool(), record.status(), record.effect()))
        })
        .collect()
}

/// How many distinct browser tabs the calls so far named.
fn tabs_touched(h: &Harness) -> usize {
    let mut tabs: Vec<String> = h.browser.calls().into_iter().filter_map(|call| call.tab).collect();
    tabs.sort();
    tabs.dedup();
    tabs.len()
}

// ----- browser_sequence -------------------------------------------------------------------

#[test]
fn a_sequence_runs_every_step_on_one_tab_and_audits_each() {
    let h = Harness::new(fixture());
    let tab = h.open(HOME);
    h.browser.clear_calls();
    let envelope = h.call("browser_sequence", json!({"steps": [click("Save"), click("Subscribe")]}));
    insta::assert_json_snapshot!("sequence_ran", envelope);
    assert_eq!((envelope.status, envelope.effect), (Status::Succeeded, Effect::Applied));
    assert!(!envelope.repeat_safe, "clicks are not repeat-safe, so neither is their sequence");
    assert_eq!(fact_str(&envelope, "tab"), tab);
    assert_eq!(envelope.facts["completed_steps"], 2);
    assert_eq!(envelope.summary, "Ran 2 of 2 steps on example.com.");
    assert_eq!(h.browser.method_names().iter().filter(|m| **m == "click").count(), 2);
    assert!(h.browser.max_in_flight_per_tab() <= 1);
    // One record per child, each `child_of` the sequence, then the sequence's own.
    assert_eq!(
        children_audited(&h, &envelope.invocation),
        [
            (0, ToolName::Click, Status::Succeeded, Effect::Applied),
            (1, ToolName::Click, Status::Succeeded, Effect::Applied),
        ]
    );
    let last = h.audit_records().pop().unwrap_or_else(|| panic!("no audit"));
    assert_eq!(last.invocation().as_str(), envelope.invocation);
    assert_eq!(
        (last.tool(), last.status(), last.effect()),
        (ToolName::Sequence, Status::Succeeded, Effect::Applied)
    );
}

#[test]
fn a_sequence_stops_at_the_first_failure_and_a_partial_one_is_not_repeat_safe() {
    let h = Harness::new(fixture());
    h.open(HOME);
    h.browser.clear_calls();
    let envelope =
        h.call("browser_sequence", json!({"steps": [click("Save"), click("Nowhere"), click("Subscribe")]}));
    insta::assert_json_snapshot!("sequence_stopped", envelope);
    assert_eq!(
        (envelope.status, envelope.effect, envelope.repeat_safe),
        (Status::Failed, Effect::Partial, false)
    );
    assert_eq!(envelope.facts["completed_steps"], 1);
    assert_eq!(envelope.facts["total_steps"], 3);
    assert_eq!(rows(&envelope).len(), 2, "one row per executed step");
    assert_eq!(envelope.facts["stopped_at"], json!({"index": 2, "action": "click", "reason": "no_match"}));
    assert!(
        envelope.summary.starts_with("Stopped at step 2 of 3 (click): No control called"),
        "{}",
        envelope.summary
    );
    assert!(!envelope.next_steps.is_empty(), "the failing step's next steps");
    // The third step never ran.
    assert_eq!(h.browser.method_names().iter().filter(|m| **m == "click").count(), 1);
    assert_eq!(children_audited(&h, &envelope.invocation).len(), 2);
}

#[test]
fn a_sequence_without_a_tab_runs_nothing() {
    let h = Harness::new(fixture());
    let envelope = h.call("browser_sequence", json!({"steps": [click("Save"), click("Save")]}));
    insta::assert_json_snapshot!("sequence_no_tab", envelope);
    assert_eq!((envelope.status, envelope.effect), (Status::Failed, Effect::None));
    assert_eq!(h.browser.dispatch_count(), 0);
    assert!(children_audited(&h, &envelope.invocation).is_empty());
}

#[test]
fn a_blocked_sequence_step_stops_it_before_the_browser_acts() {
    let h = Harness::new(fixture());
    h.open(HOME);
    h.browser.clear_calls();
    let envelope = h.call(
        "browser_sequence",
        json!({"steps": [click("Save"), click("Save")], "restrict_capabilities": ["read"]}),
    );
    assert_eq!((envelope.status, envelope.effect), (Status::Blocked, Effect::None));
    assert_eq!(envelope.facts["stopped_at"]["index"], 1);
    assert_eq!(h.browser.dispatch_count(), 0);
    assert_eq!(
        children_audited(&h, &envelope.invocation),
        [(0, ToolName::Click, Status::Blocked, Effect::None)]
    );
}

#[test]
fn a_lost_connection_mid_sequence_makes_the_whole_unknown() {
    let h = Harness::new(fixture());
    h.open(HOME);
    h.browser.fail_next("click", PortError::transport("connection reset").effect_unknown());
    let envelope = h.call("browser_sequence", json!({"steps": [click("Save"), click("Subscribe")]}));
    assert_eq!(
        (envelope.status, envelope.effect, envelope.repeat_safe),
        (Status::Unknown, Effect::Unknown, false)
    );
    assert_eq!(envelope.facts["stopped_at"]["index"], 1);
    assert_eq!(
        children_audited(&h, &envelope.invocation),
        [(0, ToolName::Click, Status::Unknown, Effect::Unknown)]
    );
}

// ----- browser_flow -----------------------------------------------------------------------

#[test]
fn a_flow_without_a_tab_is_bound_to_the_one_its_first_navigate_opens() {
    let h = Harness::new(fixture());
    let envelope = h.call(
        "browser_flow",
        json!({"steps": [
            step("open", "browser_navigate", json!({"url": HOME})),
            step("list", "browser_tabs", json!({"action": "list"})),
            // Into an array of an earlier result.
            step("read", "browser_read", json!({"tab": r("list", "/facts/tabs/0/tab"), "max_chars": 500})),
            step("next", "browser_click", json!({"selector": {"name": "Next"}})),
            // Into a nested object of an earlier result.
            step("again", "browser_navigate", json!({"url": r("next", "/facts/landing/url")})),
        ]}),
    );
    insta::assert_json_snapshot!("flow_ran", envelope);
    assert_eq!((envelope.status, envelope.effect), (Status::Succeeded, Effect::Applied));
    assert_eq!(envelope.summary, "Ran 5 of 5 flow steps.");
    assert_eq!(
        (envelope.facts["completed"].clone(), envelope.facts["stopped"].clone()),
        (json!(5), json!(false))
    );
    let tab = fact_str(&envelope, "tab");
    let rows = rows(&envelope);
    assert_eq!(rows[2]["envelope"]["facts"]["tab"], tab.as_str());
    assert_eq!(rows[4]["envelope"]["facts"]["url"], NEXT);
    assert_eq!(rows[3]["capabilities"], json!(["action"]));
    assert_eq!(rows[0]["capabilities"], json!(["read"]));
    // One tab opened; every later step used it.
    assert_eq!(h.browser.method_names().iter().filter(|m| **m == "open_tab").count(), 1);
    assert_eq!(tabs_touched(&h), 1);
    let audited = children_audited(&h, &envelope.invocation);
    assert_eq!(
        audited.iter().map(|(i, tool, ..)| (*i, *tool)).collect::<Vec<_>>(),
        [
            (0, ToolName::Navigate),
            (1, ToolName::Tabs),
            (2, ToolName::Read),
            (3, ToolName::Click),
            (4, ToolName::Navigate),
        ]
    );
}

#[test]
fn a_reference_into_an_argument_at_depth_is_substituted() {
    let h = Harness::new(fixture());
    h.open(HOME);
    // The referenced value lands inside a nested selector object of the step's arguments.
    let envelope = h.call(
        "browser_flow",
        json!({"steps": [
            step("press", "browser_click", json!({"selector": {"name": "Save"}})),
            step("again", "browser_click", json!({"selector": {"name": "Save", "exact": r("press", "/facts/activated")}})),
        ]}),
    );
    assert_eq!(envelope.status, Status::Succeeded, "{}", envelope.summary);
    assert_eq!(rows(&envelope)[1]["envelope"]["status"], "succeeded");
}

#[test]
fn forward_unknown_and_unresolved_references_fail_their_step_without_effect() {
    let h = Harness::new(fixture());
    h.open(HOME);
    h.browser.clear_calls();
    let envelope = h.call(
        "browser_flow",
        json!({"on_error": "continue", "steps": [
            step("early", "browser_read", json!({"tab": r("read", "/facts/tab")})),
            step("read", "browser_read", json!({"max_chars": 500})),
            step("ghost", "browser_read", json!({"tab": r("nobody", "/facts/tab")})),
            step("deep", "browser_read", json!({"tab": r("read", "/facts/nothing/here")})),
            step("wrong", "browser_read", json!({"tab": r("read", "/facts/title")})),
        ]}),
    );
    insta::assert_json_snapshot!("flow_unresolved_references", envelope);
    assert_eq!(
        (envelope.status, envelope.effect, envelope.repeat_safe),
        (Status::Failed, Effect::None, false)
    );
    assert_eq!(envelope.facts["completed"], 1);
    assert_eq!(envelope.facts["unsuccessful"], 4);
    let rows = rows(&envelope);
    let reasons: Vec<&Value> = rows.iter().map(|row| &row["envelope"]["facts"]["reason"]).collect();
    assert_eq!(
        reasons,
        [
            &json!("unresolved_reference"),
            &Value::Null,
            &json!("unresolved_reference"),
            &json!("unresolved_reference"),
            &json!("invalid_arguments"),
        ]
    );
    assert_eq!(
        rows[0]["envelope"]["summary"],
        r#"Step "read" does not run before this step; a reference may name only an earlier step."#
    );
    assert_eq!(rows[2]["envelope"]["summary"], r#"No step of this flow is named "nobody"."#);
    assert_eq!(
        rows[3]["envelope"]["summary"],
        r#"The result of step "read" has nothing at "/facts/nothing/here"."#
    );
    // The page title substituted into `tab` is refused without being echoed.
    let wrong = rows[4]["envelope"]["summary"].as_str().unwrap_or_default();
    assert!(!wrong.contains("Example Domain"), "{wrong}");
    assert!(rows.iter().all(|row| row["effect"] == "none"));
    // Only the one good step reached the browser.
    // A read looks for a gate in the page read it makes anyway.
    assert_eq!(h.browser.method_names(), ["page_and_gate", "read_text"]);
    // Unresolved steps are audited too, as invalid children of the flow.
    let audited = children_audited(&h, &envelope.invocation);
    assert_eq!(audited.len(), 5);
    assert!(audited.iter().all(|(_, tool, ..)| *tool == ToolName::Read));
}

#[test]
fn exhausting_the_capture_budget_omits_later_envelopes_but_not_their_results() {
    let browser = fixture().site(LONG, ScriptedPage::new("Long").text(&"word ".repeat(LONG_CHARS / 5)));
    let h = Harness::new(browser);
    h.open(LONG);
    let read = |id: &str| step(id, "browser_read", json!({"max_chars": LONG_CHARS}));
    let envelope = h.call(
        "browser_flow",
        json!({"steps": [
            read("r1"), read("r2"), read("r3"), read("r4"), read("r5"),
            // Refers to an envelope the aggregate could not record.
            step("r6", "browser_read", json!({"max_chars": r("r5", "/facts/characters")})),
        ]}),
    );
    assert_eq!(envelope.status, Status::Succeeded, "{}", envelope.summary);
    assert_eq!(envelope.facts["completed"], 6);
    let rows = rows(&envelope);
    let recorded: Vec<bool> = rows.iter().map(|row| row.get("envelope").is_some()).collect();
    assert_eq!(recorded, [true, true, true, false, false, false]);
    assert_eq!(envelope.facts["envelopes_omitted"], 3);
    let spent: usize =
        rows.iter().filter_map(|row| row.get("envelope")).map(|envelope| envelope.to_string().len()).sum();
    assert!(spent <= FLOW_CAPTURE_BUDGET_BYTES, "{spent}");
    // Rows without an envelope still say how their step ended.
    assert!(rows[5]["status"] == "succeeded" && rows[5]["capabilities"] == json!(["read"]));
    assert_eq!(h.browser.method_names().iter().filter(|m| **m == "read_text").count(), 6);
}

#[test]
fn a_dry_run_classifies_and_authorizes_every_step_and_dispatches_nothing() {
    let h = Harness::new(fixture());
    h.open(HOME);
    h.browser.clear_calls();
    let records_before = h.audit_records().len();
    let envelope = h.call(
        "browser_flow",
        json!({"dry_run": true, "steps": [
            step("open", "browser_navigate", json!({"url": HOME})),
            step("save", "browser_click", json!({"selector": {"name": "Save"}})),
            step("read", "browser_read", json!({"tab": r("open", "/facts/tab")})),
            step("later", "browser_read", json!({"tab": r("missing", "/facts/tab")})),
            step("script", "browser_execute", json!({"script": "document.title"})),
        ]}),
    );
    insta::assert_json_snapshot!("flow_dry_run", envelope);
    assert_eq!((envelope.status, envelope.effect), (Status::Succeeded, Effect::None));
    assert!(h.browser.calls().is_empty(), "{:?}", h.browser.calls());
    let statuses: Vec<Value> = rows(&envelope).iter().map(|row| row["status"].clone()).collect();
    assert_eq!(
        statuses,
        [json!("succeeded"), json!("succeeded"), json!("succeeded"), json!("failed"), json!("blocked")]
    );
    assert_eq!(envelope.facts["not_admitted"], 2);
    // Only the flow itself is audited: no child ran.
    assert_eq!(h.audit_records().len(), records_before + 1);

    let clean = h.call(
        "browser_flow",
        json!({"dry_run": true, "steps": [
            step("open", "browser_navigate", json!({"url": HOME})),
            step("save", "browser_click", json!({"selector": {"name": "Save"}})),
            step("read", "browser_read", json!({})),
        ]}),
    );
    assert_eq!(clean.summary, "Checked 3 steps without running them; all would be admitted.");
    assert!(h.browser.calls().is_empty());
}

#[test]
fn on_error_continue_runs_past_a_failure_and_stop_does_not() {
    let h = Harness::new(fixture());
    h.open(HOME);
    let steps = json!([
        step("save", "browser_click", json!({"selector": {"name": "Save"}})),
        step("nowhere", "browser_click", json!({"selector": {"name": "Nowhere"}})),
        step("read", "browser_read", json!({"max_chars": 500})),
    ]);

    h.browser.clear_calls();
    let continued = h.call("browser_flow", json!({"on_error": "continue", "steps": steps}));
    insta::assert_json_snapshot!("flow_continued", continued);
    assert_eq!(
        (continued.status, continued.effect, continued.repeat_safe),
        (Status::Failed, Effect::Partial, false)
    );
    assert_eq!((continued.facts["completed"].clone(), continued.facts["ran"].clone()), (json!(2), json!(3)));
    assert_eq!(continued.facts["stopped"], false);
    assert!(h.browser.method_names().contains(&"read_text"));

    h.browser.clear_calls();
    let stopped = h.call("browser_flow", json!({"steps": steps}));
    insta::assert_json_snapshot!("flow_stopped", stopped);
    assert_eq!(
        (stopped.status, stopped.effect, stopped.repeat_safe),
        (Status::Failed, Effect::Partial, false)
    );
    assert_eq!(stopped.facts["stopped"], true);
    assert_eq!(rows(&stopped).len(), 2);
    assert!(
        stopped.summary.starts_with(r#"Stopped after step 2 of 3 ("nowhere", browser_click): "#),
        "{}",
        stopped.summary
    );
    assert!(!h.browser.method_names().contains(&"read_text"));
}

#[test]
fn a_step_naming_another_tab_or_a_new_tab_is_refused() {
    let h = Harness::new(fixture());
    let first = h.open(HOME);
    let second = h.open(OTHER);
    h.browser.clear_calls();
    let envelope = h.call(
        "browser_flow",
        json!({"tab": first, "on_error": "continue", "steps": [
            step("list", "browser_tabs", json!({"action": "list"})),
            step("other", "browser_read", json!({"tab": r("list", "/facts/tabs/1/tab")})),
            step("press", "browser_click", json!({"selector": {"name": "Save"}})),
            step("fresh", "browser_navigate", json!({"url": NEXT, "new_tab": r("press", "/facts/activated")})),
            step("close", "browser_tabs", json!({"action": "close", "tab": r("list", "/facts/tabs/1/tab")})),
        ]}),
    );
    insta::assert_json_snapshot!("flow_other_tab", envelope);
    let rows = rows(&envelope);
    assert_eq!(rows[0]["envelope"]["facts"]["tabs"][1]["tab"], second.as_str());
    let reasons: Vec<&Value> = [1, 3, 4].iter().map(|i| &rows[*i]["envelope"]["facts"]["reason"]).collect();
    assert_eq!(reasons, [&json!("different_tab"); 3]);
    assert_eq!(rows[2]["status"], "succeeded");
    assert_eq!(envelope.facts["tab"], first.as_str());
    // Nothing touched the second tab, and no tab was opened or closed.
    let names = h.browser.method_names();
    assert!(!names.contains(&"open_tab") && !names.contains(&"close_tab"), "{names:?}");
    assert_eq!(tabs_touched(&h), 1);
}

#[test]
fn a_flow_may_close_its_own_tab() {
    let h = Harness::new(fixture());
    let tab = h.open(HOME);
    let envelope = h.call(
        "browser_flow",
        json!({"steps": [
            step("read", "browser_read", json!({"max_chars": 500})),
            step("close", "browser_tabs", json!({"action": "close", "tab": tab})),
        ]}),
    );
    assert_eq!(envelope.status, Status::Succeeded, "{}", envelope.summary);
    assert_eq!(rows(&envelope)[1]["envelope"]["facts"]["closed"], true);
}

// ----- progress -----------------------------------------------------------------------------

/// Every reported step as (index, total, id, tool, status, summary).
type Reported = Vec<(usize, usize, Option<String>, ToolName, Status, String)>;

/// Invoke with a progress observer that records every step it is told about.
fn observed(h: &Harness, tool: &str, arguments: Value) -> (Envelope, Reported) {
    let seen = std::sync::Mutex::new(Reported::new());
    let record = |step: crate::executor::StepProgress<'_>| {
        seen.lock().unwrap_or_else(|p| p.into_inner()).push((
            step.index,
            step.total,
            step.id.map(str::to_owned),
            step.tool,
            step.envelope.status,
            step.envelope.summary.clone(),
        ));
    };
    let result = futures::executor::block_on(h.ghost.invoke_observed(
        tool,
        &arguments,
        &crate::Cancellation::never(),
        &record,
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    (result.envelope, seen.into_inner().unwrap_or_else(|p| p.into_inner()))
}

#[test]
fn progress_reports_each_flow_step_as_it_ends_with_the_rows_envelopes() {
    let h = Harness::new(fixture());
    h.open(HOME);
    let steps = json!([
        step("save", "browser_click", json!({"selector": {"name": "Save"}})),
        step("nowhere", "browser_click", json!({"selector": {"name": "Nowhere"}})),
        step("read", "browser_read", json!({"max_chars": 500})),
    ]);
    let (envelope, seen) = observed(&h, "browser_flow", json!({"on_error": "continue", "steps": steps}));
    let ids: Vec<Option<&str>> = seen.iter().map(|s| s.2.as_deref()).collect();
    assert_eq!(ids, [Some("save"), Some("nowhere"), Some("read")]);
    assert!(seen.iter().enumerate().all(|(i, s)| s.0 == i && s.1 == 3), "{seen:?}");
    let statuses: Vec<Status> = seen.iter().map(|s| s.4).collect();
    assert_eq!(statuses, [Status::Succeeded, Status::Failed, Status::Succeeded]);
    for (reported, row) in seen.iter().zip(rows(&envelope)) {
        assert_eq!(json!(reported.3.as_str()), row["tool"]);
        assert_eq!(json!(reported.5), row["envelope"]["summary"], "the row's own summary");
    }
}

#[test]
fn progress_reports_sequence_steps_up_to_the_stop_and_nothing_for_plain_tools() {
    let h = Harness::new(fixture());
    h.open(HOME);
    let (_, seen) = observed(
        &h,
        "browser_sequence",
        json!({"steps": [click("Save"), click("Nowhere"), click("Subscribe")]}),
    );
    let reported: Vec<(usize, usize, Option<String>, ToolName, Status)> =
        seen.iter().map(|s| (s.0, s.1, s.2.clone(), s.3, s.4)).collect();
    assert_eq!(
        reported,
        [(0, 3, None, ToolName::Click, Status::Succeeded), (1, 3, None, ToolName::Click, Status::Failed)]
    );
    let (_, seen) = observed(&h, "browser_read", json!({}));
    assert!(seen.is_empty(), "{seen:?}");
}
