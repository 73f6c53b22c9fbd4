//! What the wire refused during a call: the `blocked_requests` fact, and the sentence when
//! the page's own navigation was stopped.
//!
//! The port refuses requests to hosts outside authority before they are sent (the adapter's
//! network filter) and logs them in the policy the executor gave it. After each call the
//! executor reads the refusals made while it ran: their count and up to five
//! `scheme://host:port` become the `blocked_requests` fact. When one of them was a document
//! the tab was going to (a link, a form, a redirect hop, a script setting `location`), the
//! call's navigation was refused: the summary says which host and that nothing was sent, and
//! the status is `blocked`; a browser that showed its own error page for the refused host is
//! taken back to the document it showed before.

use serde_json::{Value, json};

use crate::envelope::{Effect, Status};
use crate::facts::common;
use crate::names::ToolName;
use crate::operation::outcome::Outcome;
use crate::port::{Refusals, RequestKind};

use crate::limits::BLOCKED_ORIGINS;

/// Add what the wire refused while `run` ran (`refused`) to the outcome of `tool`.
pub(crate) fn report(tool: ToolName, mut outcome: Outcome, refused: Refusals) -> Outcome {
    if refused.count == 0 {
        return outcome;
    }
    let mut origins: Vec<&str> = Vec::new();
    for entry in &refused.entries {
        if origins.len() < BLOCKED_ORIGINS && !origins.contains(&entry.origin.as_str()) {
            origins.push(&entry.origin);
        }
    }
    let fact = json!({"count": refused.count, "origins": origins});
    outcome.facts.insert(common::BLOCKED_REQUESTS.name().to_owned(), fact);
    // Only a call that acts on a page or navigates can cause a navigation; a document refused
    // while another call ran (a page's own timer, another tab) is only counted.
    let navigation = refused
        .entries
        .iter()
        .find(|entry| entry.kind == RequestKind::Document)
        .filter(|_| may_navigate(tool));
    let end = outcome.summary.trim_end_matches('.').to_owned();
    match navigation {
        // The call was the navigation: nothing else happened to the tab.
        Some(entry) if matches!(tool, ToolName::Navigate | ToolName::History) => {
            outcome.summary = refused_sentence(&entry.host, true);
            outcome.effect = Effect::None;
            outcome.status = Status::Blocked;
            outcome.facts.insert("reason".into(), Value::from("host_denied"));
        }
        Some(entry) => {
            // Taking the tab back may have loaded its page afresh (a new document: the landing
            // fact says so, and target handles are stale); the sentence does not claim a move.
            let end = match landing_host(&outcome) {
                Some(host) => end.replace(&format!("; the page moved to {host}"), ""),
                None => end,
            };
            let back = if outcome.facts.contains_key("landing") { " The page was loaded again." } else { "" };
            outcome.summary = format!("{end}; {}{back}", refused_sentence(&entry.host, false));
            outcome.status = Status::Blocked;
            outcome.facts.insert("reason".into(), Value::from("host_denied"));
        }
        None => {
            let requests = if refused.count == 1 { "request" } else { "requests" };
            outcome.summary = format!(
                "{end}; {} {requests} to hosts outside authority stopped before sending.",
                refused.count
            );
        }
    }
    outcome
}

/// Whether `tool` acts on a page or navigates (what can start a navigation of the tab).
fn may_navigate(tool: ToolName) -> bool {
    matches!(
        tool,
        ToolName::Navigate
            | ToolName::History
            | ToolName::Click
            | ToolName::Hover
            | ToolName::TypeText
            | ToolName::PressKey
            | ToolName::FillForm
            | ToolName::Drag
            | ToolName::Dialog
            | ToolName::Upload
            | ToolName::Execute
            | ToolName::Sequence
            | ToolName::Flow
    )
}

/// The host a landing clause of the summary names (the landing fact's URL, as sentences name
/// hosts: `:port` only when not the scheme's default).
fn landing_host(outcome: &Outcome) -> Option<String> {
    let url = outcome.facts.get("landing")?.get("url")?.as_str()?;
    let url = url::Url::parse(url).ok()?;
    let host = url.host_str()?;
    Some(match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    })
}

/// "The page tried to open HOST, which is outside authority; nothing was sent." (`capital`:
/// as a sentence of its own).
fn refused_sentence(host: &str, capital: bool) -> String {
    let page = if capital { "The page" } else { "the page" };
    format!("{page} tried to open {host}, which is outside authority; nothing was sent.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::port::NetworkPolicy;

    fn url(text: &str) -> url::Url {
        url::Url::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    /// Refusals of `requests` (URL, kind), all after mark 0.
    fn refusals(requests: &[(&str, RequestKind)]) -> Refusals {
        let policy = NetworkPolicy::new(|_, _| false);
        for (target, kind) in requests {
            policy.check(&url(target), *kind);
        }
        policy.refusals().since(0)
    }

    #[test]
    fn a_call_without_refusals_is_unchanged() {
        let outcome = report(
            ToolName::Click,
            Outcome::applied("Clicked the \"Go\" link on a.test.", false),
            Refusals::default(),
        );
        assert_eq!(outcome.summary, "Clicked the \"Go\" link on a.test.");
        assert!(outcome.facts.is_empty());
    }

    #[test]
    fn stopped_subresources_are_counted_and_said() {
        let many: Vec<(String, RequestKind)> =
            (0..8).map(|n| (format!("http://tracker{n}.test/p?secret=1"), RequestKind::Resource)).collect();
        let borrowed: Vec<(&str, RequestKind)> = many.iter().map(|(u, k)| (u.as_str(), *k)).collect();
        let outcome = report(
            ToolName::TypeText,
            Outcome::applied("Typed 3 characters into the search field on a.test.", false),
            refusals(&borrowed),
        );
        assert_eq!(outcome.status, Status::Succeeded);
        assert_eq!(
            outcome.summary,
            "Typed 3 characters into the search field on a.test; 8 requests to hosts outside authority stopped before sending."
        );
        let fact = &outcome.facts["blocked_requests"];
        assert_eq!(fact["count"], 8);
        assert_eq!(fact["origins"].as_array().map(Vec::len), Some(BLOCKED_ORIGINS));
        assert_eq!(fact["origins"][0], "http://tracker0.test:80", "never a path or query");
    }

    #[test]
    fn a_refused_navigation_of_an_action_blocks_it_and_says_nothing_was_sent() {
        let mut clicked =
            Outcome::applied("Clicked the \"Go\" link on a.test; the page moved to a.test.", false);
        clicked
            .facts
            .insert("landing".into(), json!({"url": "https://a.test/page", "document_generation": 3}));
        let outcome =
            report(ToolName::Click, clicked, refusals(&[("http://b.test:8080/x", RequestKind::Document)]));
        assert_eq!(outcome.status, Status::Blocked);
        assert_eq!(outcome.effect, Effect::Applied, "the click itself happened");
        assert_eq!(
            outcome.summary,
            "Clicked the \"Go\" link on a.test; the page tried to open b.test:8080, which is outside authority; nothing was sent. The page was loaded again."
        );
        assert_eq!(outcome.facts["reason"], "host_denied");
    }

    #[test]
    fn a_document_refused_while_a_read_ran_is_only_counted() {
        let listed = Outcome::read("Listed 1 controlled tab.");
        let outcome = report(ToolName::Tabs, listed, refusals(&[("http://b.test/", RequestKind::Document)]));
        assert_eq!(outcome.status, Status::Succeeded);
        assert_eq!(
            outcome.summary,
            "Listed 1 controlled tab; 1 request to hosts outside authority stopped before sending."
        );
    }

    #[test]
    fn a_refused_redirect_of_a_navigation_is_the_whole_answer() {
        let opened = Outcome::applied("Navigated to a.test.", false);
        let outcome = report(
            ToolName::Navigate,
            opened,
            refusals(&[
                ("https://accounts.test/", RequestKind::Unknown),
                ("http://b.test/", RequestKind::Document),
            ]),
        );
        assert_eq!(outcome.status, Status::Blocked);
        assert_eq!(outcome.effect, Effect::None);
        assert_eq!(
            outcome.summary,
            "The page tried to open b.test, which is outside authority; nothing was sent."
        );
        assert_eq!(outcome.facts["blocked_requests"]["count"], 2);
    }
}
