//! `browser_find`: current targets whose accessible name or visible text contains the text,
//! ranked best first.
//!
//! The port answers candidates in document order (at most [`FIND_OVERFETCH`]); core keeps
//! the scope's kind (`control`: controls, `text`: elements that are not controls, `any`:
//! both), ranks them with [`element_rank`] (exact name, same name in another case, prefix,
//! substring; a candidate the port matched by a rule core does not reproduce ranks last),
//! puts controls first within a rank and keeps document order otherwise, and returns the best `max_results`, each registered
//! as a fresh target. Matches are compact rows like inspect items (`[target, role, name?,
//! state?, credential?}`); an element without an accessible name is named by its visible
//! text, bounded like a name.

use serde_json::Value;

use super::facts;
use crate::language::{bound_visible, count, normalize_name};
use crate::limits::{ECHO_CHARS, FIND_MAX_RESULTS};
use crate::port::PerceiveInput;
use crate::tools::find::{FindRequest, FindScope};

use crate::operation::outcome::Outcome;
use crate::operation::run::{Run, Step, host_of};
use crate::operation::selector_match::element_rank;
use crate::tools::inspect::op::{ITEM_COLUMNS, row};

/// How many candidates core asks the port for before ranking: enough that the best matches
/// of a long page are not cut off in document order before ranking sees them.
const FIND_OVERFETCH: usize = 200;

pub(crate) async fn run(run: &Run<'_>, request: &FindRequest) -> Outcome {
    find(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn find(run: &Run<'_>, request: &FindRequest) -> Step<Outcome> {
    let controls_only = request.scope == FindScope::Control;
    let input = PerceiveInput::matching(&request.text, controls_only, FIND_OVERFETCH);
    let (lease, page, found) = run.enter_with(request.tab.as_ref(), false, &input, "search").await?;
    let found = found.elements;
    let host = host_of(&page.state.url);
    let mut ranked: Vec<_> = found
        .into_iter()
        .filter(|element| match request.scope {
            FindScope::Any => true,
            FindScope::Control => element.control,
            FindScope::Text => !element.control,
        })
        .map(|element| {
            let rank = element_rank(&request.text, &element);
            ((rank.is_none(), rank, !element.control), element)
        })
        .collect();
    // A stable sort: controls before other elements within a rank (a file input before its
    // label of the same name), then document order.
    ranked.sort_by_key(|(rank, _)| *rank);
    let max_results = usize::try_from(request.max_results).unwrap_or(FIND_MAX_RESULTS.max as usize);
    let more = ranked.len() > max_results;
    let matches: Vec<Value> = ranked
        .into_iter()
        .take(max_results)
        .map(|(_, mut element)| {
            if element.name.as_deref().and_then(normalize_name).is_none() {
                element.name = element.text.clone();
            }
            let target = run.register(&lease, page.generation, &element);
            row(target.as_str(), &element, None, None)
        })
        .collect();
    let n = matches.len();
    let query = bound_visible(&request.text, ECHO_CHARS).unwrap_or_default();
    let summary = match (n, more) {
        (0, _) => format!("Found no matches for \"{query}\" on {host}."),
        (n, false) => format!("Found {} for \"{query}\" on {host}.", count(n, "match", "matches")),
        (n, true) => format!(
            "Found more than {} for \"{query}\" on {host}; listed the best {n}.",
            count(n, "match", "matches")
        ),
    };
    let mut outcome = Outcome::read(summary)
        .with_readiness(page.state.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::DOCUMENT_GENERATION, page.generation)
        .fact(facts::COLUMNS, ITEM_COLUMNS)
        .fact(facts::MATCHES, Value::Array(matches))
        .fact(facts::COUNT, n)
        .fact(facts::HOST, host);
    if more {
        outcome = outcome
            .fact(facts::TRUNCATED, true)
            .next("Use longer or exact text, or raise max_results (up to 50), to narrow the matches.");
    }
    if n == 0 {
        outcome = outcome.next(
            "Call browser_inspect to list the page's controls, or search for a shorter part of the text.",
        );
    }
    Ok(outcome)
}
