//! `browser_execute`: run the caller's JavaScript in the page.
//!
//! The result travels in the `value` fact (that is the point of the tool); the script source
//! never appears anywhere in the envelope, and neither source nor result enters audit,
//! summaries or next steps (CLARIFICATIONS). The summary names only the JSON type of the
//! result. A result whose compact JSON is longer than `max_result_chars` comes back as a
//! string holding the first `max_result_chars` characters of that JSON, with
//! `truncated: true`. Running a script is never repeat-safe: it may mutate or navigate.

use std::time::Duration;

use serde_json::{Value, json};

use super::facts;
use crate::decode::json_type;
use crate::envelope::{Effect, Readiness, Status};
use crate::limits::SCRIPT_ERROR_CHARS;
use crate::port::ScriptFailure;
use crate::tools::execute::ExecuteRequest;

use crate::authority::ConfirmAction;
use crate::operation::outcome::Outcome;
use crate::operation::run::{Asking, Run, Step, host_of};

pub(crate) async fn run(run: &Run<'_>, request: &ExecuteRequest) -> Outcome {
    execute(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn execute(run: &Run<'_>, request: &ExecuteRequest) -> Step<Outcome> {
    let (lease, page) = run.enter(request.tab.as_ref()).await?;
    let host = host_of(&page.state.url);
    let asking =
        Asking { host: host.clone(), tab: Some((&lease, page.generation)), control: None, element: None };
    run.confirm(ConfirmAction::Execute, asking).await?;
    run.dispatching();
    let result = run
        .port()
        .execute(&run.on(&lease.tab, Duration::from_millis(request.timeout_ms)), &request.script)
        .await
        .map_err(|e| match e.script_failure() {
            Some(failure) => script_failed(failure, &host).fact(facts::TAB, lease.handle().as_str()),
            None => run
                .fail_on(&lease, &e, &format!("run the script on {host}"), Some(request.timeout_ms))
                .fact(facts::HOST, host.clone()),
        })?;
    let kind = json_type(&result.value);
    let max = usize::try_from(request.max_result_chars).unwrap_or(usize::MAX);
    let (value, truncated) = bound_value(result.value, max);
    let summary = if truncated {
        format!(
            "Ran the script on {host}; it returned {kind} too long to show whole, so value holds the first \
             {max} characters of its JSON."
        )
    } else {
        format!("Ran the script on {host}; it returned {kind}.")
    };
    let mut outcome = Outcome::applied(summary, false)
        .with_readiness(result.page.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::VALUE, value)
        .fact(facts::TRUNCATED, truncated)
        .fact(facts::HOST, host);
    if truncated {
        outcome = outcome
            .fact(facts::MAX_RESULT_CHARS, request.max_result_chars)
            .next("Return a smaller value from the script, or raise max_result_chars (up to 20000).");
    }
    let landing = run.land(&lease, &result.page);
    Ok(run.with_landing(outcome, landing, &result.page))
}

/// The script did not compile (nothing ran: `failed`, effect none) or threw while running
/// (`unknown`: it may have acted first). The error's name and message are the script's own
/// output, so, like a result, they travel in the `error` fact and never in the sentence.
fn script_failed(failure: &ScriptFailure, host: &str) -> Outcome {
    let error = json!({
        "name": bounded(&failure.name),
        "message": bounded(&failure.message),
        "ran": failure.ran,
    });
    let outcome = if failure.ran {
        Outcome::failed(
            "script_error",
            format!("The script threw an error on {host} (see the error fact); what it did before that is unknown."),
        )
        .with_status(Status::Unknown)
        .with_effect(Effect::Unknown)
        .with_readiness(Readiness::Unknown)
    } else {
        Outcome::failed(
            "script_syntax_error",
            format!("The script did not compile (see the error fact), so nothing ran on {host}."),
        )
    };
    outcome
        .fact(facts::ERROR, error)
        .fact(facts::HOST, host)
        .next("Fix the script and call browser_execute again; it may be an expression, statements ending in one, or a body that uses return.")
}

/// `text` cut to [`SCRIPT_ERROR_CHARS`] characters.
fn bounded(text: &str) -> String {
    text.chars().take(SCRIPT_ERROR_CHARS).collect()
}

/// `value` as is when its compact JSON fits in `max` characters; otherwise the first `max`
/// characters of that JSON, as a string, and `true`.
fn bound_value(value: Value, max: usize) -> (Value, bool) {
    let json = value.to_string();
    match json.char_indices().nth(max) {
        Some((end, _)) => (Value::String(json[..end].to_owned()), true),
        None => (value, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_cut_by_characters_of_their_json() {
        let (value, cut) = bound_value(serde_json::json!({"a": "ééé"}), 8);
        assert!(cut);
        assert_eq!(value, Value::String("{\"a\":\"éé".to_owned()));
        let (value, cut) = bound_value(serde_json::json!([1, 2]), 5);
        assert!(!cut);
        assert_eq!(value, serde_json::json!([1, 2]));
    }
}
