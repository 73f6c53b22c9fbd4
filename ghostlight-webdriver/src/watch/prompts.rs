//! The dialog announcements of a session: the session's WebDriver BiDi connection
//! subscribed to `browsingContext.userPromptOpened`/`userPromptClosed`, which says the kind of
//! each open dialog per browsing context (see `ops/dialogs.rs` for how the kind is used).
//! State only: nothing here drives the session.

use std::sync::{Arc, Mutex, PoisonError};

use ghostlight_core::port::{DialogKind, PortResult};
use serde_json::Value;

use crate::bidi::Bidi;
use crate::watch::Watchers;

/// The BiDi events the [`PromptWatch`] subscribes to.
pub(crate) const PROMPT_EVENTS: [&str; 2] =
    ["browsingContext.userPromptOpened", "browsingContext.userPromptClosed"];
/// The navigation events a watch of a session in a shared browser also follows
/// ([`PromptWatch::moved`]): a history move there is sent over BiDi, which answers before the
/// move raises its leave-page prompt or starts loading.
pub(crate) const NAVIGATION_EVENTS: [&str; 3] = [
    "browsingContext.navigationCommitted",
    "browsingContext.fragmentNavigated",
    "browsingContext.navigationStarted",
];
/// Browsing contexts with an open dialog remembered at most (a closed tab's entry is only
/// dropped when its dialog closes; the oldest entries go first past this bound).
const MAX_PROMPT_CONTEXTS: usize = 256;

/// The open dialog of each browsing context, as WebDriver BiDi announced it.
pub(crate) type OpenPrompts = Arc<Mutex<Vec<(String, DialogKind)>>>;

/// How a browsing context last moved, as BiDi announced it ([`NAVIGATION_EVENTS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Move {
    /// Another document committed (past any leave-page prompt: BiDi announces a navigation
    /// as started before the prompt it raises).
    Document,
    /// A navigation within the document (a fragment) happened.
    Fragment,
}

/// What BiDi announced of one browsing context's navigations.
#[derive(Debug, Clone)]
pub(crate) struct Moved {
    context: String,
    /// Commits and fragment moves so far.
    moves: u64,
    /// The last of those.
    last: Move,
    /// Navigations started so far (announced before the leave-page prompt they raise).
    starts: u64,
}

/// The navigation announcements per browsing context (bounded like [`OpenPrompts`]).
pub(crate) type Moves = Arc<Mutex<Vec<Moved>>>;

/// What the session's BiDi connection heard of dialogs opening and closing, so the adapter
/// knows the kind of an open dialog (see the module documentation). Attached with the
/// session (a dialog may open at any time) and dropped with it.
#[derive(Debug)]
pub(crate) struct PromptWatch {
    /// Open dialogs per context, oldest first (filed by the connection's task).
    open: OpenPrompts,
    /// Navigation announcements per context, when the watch follows them.
    moves: Moves,
}

impl PromptWatch {
    /// Attach to the session's connection `bidi` (whose events reach `watchers`) and
    /// subscribe to the dialog events, and to the navigation events too when
    /// `follow_navigations` (a session in a shared browser).
    pub(crate) async fn attach(
        bidi: &Bidi,
        watchers: &Watchers,
        follow_navigations: bool,
    ) -> PortResult<PromptWatch> {
        let open: OpenPrompts = Arc::default();
        let moves: Moves = Arc::default();
        watchers.attach_prompts(Arc::clone(&open), Arc::clone(&moves));
        if follow_navigations {
            let events: Vec<&str> = PROMPT_EVENTS.iter().chain(&NAVIGATION_EVENTS).copied().collect();
            bidi.subscribe(&events).await?;
        } else {
            bidi.subscribe(&PROMPT_EVENTS).await?;
        }
        Ok(PromptWatch { open, moves })
    }

    /// How many navigations BiDi announced in `context` so far, and how the last one moved.
    pub(crate) fn moved(&self, context: &str) -> (u64, Option<Move>) {
        lock(&self.moves)
            .iter()
            .find(|m| m.context == context)
            .map_or((0, None), |m| if m.moves == 0 { (0, None) } else { (m.moves, Some(m.last)) })
    }

    /// How many navigations BiDi announced as started in `context` so far.
    pub(crate) fn starts(&self, context: &str) -> u64 {
        lock(&self.moves).iter().find(|m| m.context == context).map_or(0, |m| m.starts)
    }

    /// The kind of the dialog BiDi announced as open in `context`, if any.
    pub(crate) fn kind(&self, context: &str) -> Option<DialogKind> {
        lock(&self.open).iter().find(|(c, _)| c == context).map(|(_, kind)| *kind)
    }

    /// Forget `context`'s dialog: the adapter just resolved it (or learnt that none is open),
    /// so a read right after does not wait for the announcement that it closed.
    pub(crate) fn forget(&self, context: &str) {
        lock(&self.open).retain(|(c, _)| c != context);
    }
}

/// File one dialog announcement.
pub(crate) fn file(open: &Mutex<Vec<(String, DialogKind)>>, method: &str, params: &Value) {
    let Some(context) = params.get("context").and_then(Value::as_str) else { return };
    let mut open = lock(open);
    open.retain(|(c, _)| c != context);
    if method != PROMPT_EVENTS[0] {
        return;
    }
    let kind = match params.get("type").and_then(Value::as_str) {
        Some("alert") => DialogKind::Alert,
        Some("confirm") => DialogKind::Confirm,
        Some("prompt") => DialogKind::Prompt,
        Some("beforeunload") => DialogKind::BeforeUnload,
        _ => return,
    };
    if open.len() >= MAX_PROMPT_CONTEXTS {
        open.remove(0);
    }
    open.push((context.to_owned(), kind));
}

/// File one navigation announcement.
pub(crate) fn file_move(moves: &Mutex<Vec<Moved>>, method: &str, params: &Value) {
    let Some(context) = params.get("context").and_then(Value::as_str) else { return };
    let mut moves = lock(moves);
    if !moves.iter().any(|m| m.context == context) {
        if moves.len() >= MAX_PROMPT_CONTEXTS {
            moves.remove(0);
        }
        moves.push(Moved { context: context.to_owned(), moves: 0, last: Move::Document, starts: 0 });
    }
    let Some(entry) = moves.iter_mut().find(|m| m.context == context) else { return };
    match method {
        m if m == NAVIGATION_EVENTS[2] => entry.starts += 1,
        m if m == NAVIGATION_EVENTS[1] => {
            entry.moves += 1;
            entry.last = Move::Fragment;
        }
        _ => {
            entry.moves += 1;
            entry.last = Move::Document;
        }
    }
}

/// Lock `mutex`, also after a panic elsewhere poisoned it (every critical section leaves the
/// list consistent).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn announcements_track_the_open_dialog_per_context() {
        let open: OpenPrompts = Arc::default();
        let opened =
            |context: &str, kind: &str| json!({ "context": context, "type": kind, "message": "secret" });
        file(&open, PROMPT_EVENTS[0], &opened("a", "prompt"));
        file(&open, PROMPT_EVENTS[0], &opened("b", "beforeunload"));
        file(&open, PROMPT_EVENTS[0], &opened("c", "something new"));
        assert_eq!(
            *lock(&open),
            vec![("a".into(), DialogKind::Prompt), ("b".into(), DialogKind::BeforeUnload)]
        );
        file(&open, PROMPT_EVENTS[1], &json!({ "context": "a", "accepted": true, "type": "prompt" }));
        file(&open, PROMPT_EVENTS[0], &opened("b", "alert"));
        assert_eq!(*lock(&open), vec![("b".into(), DialogKind::Alert)]);
        for i in 0..=MAX_PROMPT_CONTEXTS {
            file(&open, PROMPT_EVENTS[0], &opened(&format!("t{i}"), "confirm"));
        }
        assert_eq!(lock(&open).len(), MAX_PROMPT_CONTEXTS);
        assert!(!lock(&open).iter().any(|(c, _)| c == "b" || c == "t0"));
    }

    #[test]
    fn navigation_announcements_count_per_context_with_the_last_kind() {
        let moves: Moves = Arc::default();
        file_move(&moves, NAVIGATION_EVENTS[0], &json!({ "context": "a", "url": "https://x.test/" }));
        file_move(&moves, NAVIGATION_EVENTS[1], &json!({ "context": "a", "url": "https://x.test/#b" }));
        file_move(&moves, NAVIGATION_EVENTS[0], &json!({ "context": "b" }));
        file_move(&moves, NAVIGATION_EVENTS[2], &json!({ "context": "c" }));
        let watch = PromptWatch { open: Arc::default(), moves };
        assert_eq!(watch.moved("a"), (2, Some(Move::Fragment)));
        assert_eq!(watch.moved("b"), (1, Some(Move::Document)));
        assert_eq!((watch.moved("c"), watch.starts("c")), ((0, None), 1));
        assert_eq!((watch.moved("d"), watch.starts("d")), ((0, None), 0));
    }
}
