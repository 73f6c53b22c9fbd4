//! `browser_inspect`: semantic controls or page structure, each with a fresh target handle;
//! scope `document` also records a per-tab snapshot and diffs it against the previous one.
//!
//! Items are compact, because every agent reads them (and pays for them) twice — once in
//! `structuredContent`, once in the text block: `{target, role, name?, state?, credential?,
//! depth?}`. A key whose value would be a default is left out: `name` when the element has
//! none, `state` when no non-default state holds, `credential` unless it is `true`; `depth`
//! appears in the `document` scope only. Names are returned even when
//! `privacy.preserve_target_names` is false: perception tools keep names (CLARIFICATIONS).
//!
//! The structural diff compares the two snapshots' nodes as `(depth, role, name)` triples:
//! a longest common subsequence of whole triples anchors the unchanged nodes; between two
//! anchors, old and new nodes with the same depth and role are paired in document order and
//! count as `changed` (their name differs); what stays unpaired is `removed` (old) or `added`
//! (new). So a renamed heading is one change, an inserted button one addition.

use serde_json::{Map, Value, json};

use super::facts;
use crate::language::{count, normalize_name};
use crate::limits::{INSPECT_MAX_DEPTH, INSPECT_MAX_ITEMS};
use crate::port::{PerceiveInput, PerceiveScope, PerceivedElement};
use crate::selector::Role;
use crate::tools::common::TargetRef;
use crate::tools::inspect::forms::shape;
use crate::tools::inspect::{InspectRequest, InspectScope, InspectScopeName};

use crate::operation::outcome::Outcome;
use crate::operation::run::{Lease, Page, Run, Step, host_of};

/// One snapshot node: depth, narrowed role, normalized name.
type Node = (u32, Role, Option<String>);

pub(crate) async fn run(run: &Run<'_>, request: &InspectRequest) -> Outcome {
    inspect(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn inspect(run: &Run<'_>, request: &InspectRequest) -> Step<Outcome> {
    let max_items = usize::try_from(request.max_items).unwrap_or(INSPECT_MAX_ITEMS.max as usize);
    let depth = |max_depth: u64| u32::try_from(max_depth).unwrap_or(INSPECT_MAX_DEPTH.max as u32);
    let (lease, page, perception) = match &request.scope {
        // A subtree: its root is resolved against the page observed first.
        InspectScope::Document { root: Some(handle), max_depth } => {
            let (lease, page) = run.enter(request.tab.as_ref()).await?;
            let root = run.target(&lease, &page, &TargetRef::Handle(handle.clone())).await?.element;
            let input = PerceiveInput {
                scope: PerceiveScope::Document { root: Some(root), max_depth: depth(*max_depth) },
                max_items,
            };
            let host = host_of(&page.state.url);
            let perception = run
                .port()
                .perceive(&run.reading(&lease.tab), &input)
                .await
                .map_err(|e| run.fail_on(&lease, &e, &format!("inspect {host}"), None))?;
            (lease, page, perception)
        }
        // The whole page: perceived in the document last seen, checked in the same round trip.
        scope => {
            let scope = match scope {
                InspectScope::Controls => PerceiveScope::Controls,
                InspectScope::Structure => PerceiveScope::Structure,
                InspectScope::All => PerceiveScope::All,
                InspectScope::Forms => PerceiveScope::Forms,
                InspectScope::Document { max_depth, .. } => {
                    PerceiveScope::Document { root: None, max_depth: depth(*max_depth) }
                }
            };
            run.enter_with(request.tab.as_ref(), false, &PerceiveInput { scope, max_items }, "inspect")
                .await?
        }
    };
    let document = matches!(request.scope, InspectScope::Document { .. });
    let scope_name = request.scope.name();
    let host = host_of(&page.state.url);
    if matches!(scope_name, InspectScopeName::Forms) {
        return Ok(forms(run, &lease, &page, &perception.elements, perception.truncated, max_items, host));
    }
    // The adapter bounds the list; core bounds it again so the contract holds for any port.
    let truncated = perception.truncated || perception.elements.len() > max_items;
    let elements = &perception.elements[..perception.elements.len().min(max_items)];
    let items: Vec<Value> = elements
        .iter()
        .map(|element| {
            let target = run.register(&lease, page.generation, element);
            let depth = document.then(|| element.depth.map_or(Value::Null, Value::from));
            row(target.as_str(), element, None, depth)
        })
        .collect();
    let n = items.len();
    let mut outcome = Outcome::read(String::new())
        .with_readiness(page.state.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::DOCUMENT_GENERATION, page.generation)
        .fact(facts::COLUMNS, if document { &TREE_COLUMNS[..] } else { &ITEM_COLUMNS[..] })
        .fact(facts::ITEMS, Value::Array(items))
        .fact(facts::COUNT, n)
        .fact(facts::HOST, host.clone());
    if truncated {
        outcome = outcome.fact(facts::TRUNCATED, true);
    }
    outcome = if document {
        snapshot(run, &lease, elements, &host, outcome)
    } else {
        let noun = match request.scope {
            InspectScope::Controls => ("control", "controls"),
            InspectScope::Structure => ("structure element", "structure elements"),
            _ => ("element", "elements"),
        };
        outcome.summary = match (n, truncated) {
            (0, _) => format!("Found no {} on {host}.", noun.1),
            (n, false) => format!("Found {} on {host}.", count(n, noun.0, noun.1)),
            (n, true) => format!("Found the first {} on {host}; more exist.", count(n, noun.0, noun.1)),
        };
        outcome
    };
    if n == 0 && matches!(request.scope, InspectScope::Controls) {
        outcome =
            outcome.next("Call browser_read for the page's text, or browser_inspect with scope \"all\".");
    }
    if truncated {
        outcome = outcome.next(match request.scope {
            InspectScope::Document { .. } => {
                "Inspect a subtree with root and a smaller max_depth, or raise max_items (up to 200)."
            }
            _ => "Call browser_find with the label you need, or raise max_items (up to 200).",
        });
    }
    Ok(outcome)
}

/// The forms snapshot (scope forms, see [`super::forms`]).
fn forms(
    run: &Run<'_>,
    lease: &Lease,
    page: &Page,
    elements: &[PerceivedElement],
    truncated: bool,
    max_items: usize,
    host: String,
) -> Outcome {
    // The adapter bounds the list; core bounds it again so the contract holds for any port.
    let truncated = truncated || elements.len() > max_items;
    let elements = &elements[..elements.len().min(max_items)];
    let snapshot = shape(elements, truncated, |element| {
        run.register(lease, page.generation, element).as_str().to_owned()
    });
    let mut outcome = Outcome::read(snapshot.summary(&host))
        .with_readiness(page.state.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::DOCUMENT_GENERATION, page.generation)
        .fact(facts::FORMS, Value::Array(snapshot.forms.clone()))
        .fact(facts::COUNT, snapshot.controls)
        .fact(facts::HOST, host);
    if !snapshot.outside.is_empty() {
        outcome = outcome.fact(facts::OUTSIDE, Value::Array(snapshot.outside.clone()));
    }
    if snapshot.truncated {
        outcome = outcome
            .fact(facts::TRUNCATED, true)
            .next("Raise max_items (up to 200), or call browser_find with the label you need.");
    }
    if snapshot.controls == 0 {
        outcome = outcome.next("Call browser_inspect for the page's other controls.");
    }
    outcome
}

/// Record the `document` tree as this tab's snapshot, diff it against the one it supersedes,
/// and write the summary.
fn snapshot(
    run: &Run<'_>,
    lease: &Lease,
    elements: &[PerceivedElement],
    host: &str,
    mut outcome: Outcome,
) -> Outcome {
    let nodes: Vec<Node> = elements
        .iter()
        .map(|e| (e.depth.unwrap_or(0), Role::narrow(&e.role), e.name.as_deref().and_then(normalize_name)))
        .collect();
    let n = nodes.len();
    let (handle, previous) = run.workspace.replace_snapshot(lease.handle(), nodes.clone());
    outcome = outcome.fact(facts::SNAPSHOT, handle.as_str());
    let mapped = format!("Mapped {} of {host}", count(n, "structure node", "structure nodes"));
    let Some(previous) = previous else {
        outcome.summary = format!("{mapped}.");
        return outcome;
    };
    let diff = diff(&previous.nodes, &nodes);
    let mut changes = Vec::new();
    for (k, label) in [(diff.added, "added"), (diff.removed, "removed"), (diff.changed, "changed")] {
        if k > 0 {
            changes.push(format!("{k} {label}"));
        }
    }
    let since = &previous.handle;
    outcome.summary = if changes.is_empty() {
        format!("{mapped} (no changes since {since}).")
    } else {
        format!("{mapped} ({} since {since}).", changes.join(", "))
    };
    let mut fact = Map::new();
    fact.insert("added".into(), json!(diff.added));
    fact.insert("removed".into(), json!(diff.removed));
    fact.insert("changed".into(), json!(diff.changed));
    outcome.fact(facts::DIFF, Value::Object(fact)).fact(facts::PREVIOUS_SNAPSHOT, since.as_str())
}

/// The columns of item rows outside scope document.
pub(crate) const ITEM_COLUMNS: [&str; 5] = ["target", "role", "name", "state", "credential"];
/// The columns of item rows in scope document (a structure-only tree).
pub(super) const TREE_COLUMNS: [&str; 4] = ["target", "role", "name", "depth"];

/// The columns every row has (`target` and `role`); later columns may be omitted.
pub(crate) const ROW_LEADING_COLUMNS: usize = 2;

/// One item as a compact row `[target, role, name, state, credential]`, trailing empty
/// columns omitted (`name` is `""` and `state` `[]` only when a later column is present); in
/// scope document `[target, role, name, depth]`. Every agent pays for these bytes twice (the
/// MCP text block repeats the envelope), so rows carry no keys: the `columns` fact names them.
pub(crate) fn row(
    target: &str,
    element: &PerceivedElement,
    name: Option<String>,
    depth: Option<Value>,
) -> Value {
    let name = name.or_else(|| element.name.as_deref().and_then(normalize_name)).unwrap_or_default();
    let mut row = vec![json!(target), json!(Role::narrow(&element.role).token()), json!(name)];
    if let Some(depth) = depth {
        row.push(depth);
        return Value::Array(row);
    }
    let mut states = element.states.clone();
    states.sort();
    states.dedup();
    let states: Vec<&str> = states.iter().map(|s| s.as_str()).collect();
    if element.credential.is_some() {
        row.push(json!(states));
        row.push(json!(true));
    } else if !states.is_empty() {
        row.push(json!(states));
    }
    while row.len() > ROW_LEADING_COLUMNS && row.last().is_some_and(|v| v.as_str() == Some("")) {
        row.pop();
    }
    Value::Array(row)
}

/// A structural diff between two snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Diff {
    pub(crate) added: usize,
    pub(crate) removed: usize,
    pub(crate) changed: usize,
}

/// Diff two node lists (see the module documentation). Quadratic in the node counts, which
/// `max_items` bounds at 200 each.
pub(crate) fn diff(old: &[Node], new: &[Node]) -> Diff {
    // lcs[i][j]: the LCS length of old[i..] and new[j..].
    let mut lcs = vec![vec![0usize; new.len() + 1]; old.len() + 1];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            lcs[i][j] =
                if old[i] == new[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let mut result = Diff::default();
    let (mut i, mut j) = (0, 0);
    let (mut gap_old, mut gap_new): (Vec<&Node>, Vec<&Node>) = (Vec::new(), Vec::new());
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            settle(&mut result, &mut gap_old, &mut gap_new);
            i += 1;
            j += 1;
        } else if j < new.len() && (i == old.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            gap_new.push(&new[j]);
            j += 1;
        } else {
            gap_old.push(&old[i]);
            i += 1;
        }
    }
    settle(&mut result, &mut gap_old, &mut gap_new);
    result
}

/// Count one gap between anchors: same depth and role pair up in order as changes.
fn settle(diff: &mut Diff, old: &mut Vec<&Node>, new: &mut Vec<&Node>) {
    let mut from = 0;
    let mut paired = 0;
    for node in old.iter() {
        if let Some(offset) = new[from..].iter().position(|n| n.0 == node.0 && n.1 == node.1) {
            paired += 1;
            from += offset + 1;
        }
    }
    diff.changed += paired;
    diff.removed += old.len() - paired;
    diff.added += new.len() - paired;
    old.clear();
    new.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(depth: u32, role: Role, name: &str) -> Node {
        (depth, role, Some(name.to_owned()))
    }

    #[test]
    fn identical_trees_have_no_diff() {
        let tree = [node(0, Role::Heading, "A"), node(1, Role::Button, "B")];
        assert_eq!(diff(&tree, &tree), Diff::default());
    }

    #[test]
    fn insertions_removals_and_renames_are_counted_apart() {
        let old =
            [node(0, Role::Heading, "Inbox"), node(1, Role::Button, "Save"), node(1, Role::Link, "Help")];
        let new = [
            node(0, Role::Heading, "Inbox (2)"),
            node(1, Role::Button, "Save"),
            node(1, Role::Button, "Send"),
        ];
        // The heading is renamed (changed); the link went and a button came (different roles).
        assert_eq!(diff(&old, &new), Diff { added: 1, removed: 1, changed: 1 });
        assert_eq!(diff(&[], &new), Diff { added: 3, removed: 0, changed: 0 });
        assert_eq!(diff(&old, &[]), Diff { added: 0, removed: 3, changed: 0 });
    }
}
