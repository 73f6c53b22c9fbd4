//! The dialog announcements of a Chromium session: the session's WebDriver BiDi connection
//! subscribed to `browsingContext.userPromptOpened`/`userPromptClosed`, which says the kind of
//! each open dialog per browsing context (see `ops/dialogs.rs` for how the kind is used).
//! State only: nothing here drives the session.

use std::sync::{Arc, Mutex, PoisonError};

use ghostlight_core::port::{DialogKind, PortResult};
use serde_json::{Value, json};

use crate::bidi::Bidi;
use crate::watch::Watchers;

/// The BiDi events the [`PromptWatch`] subscribes to.
pub(crate) const PROMPT_EVENTS: [&str; 2] =
    ["browsingContext.userPromptOpened", "browsingContext.userPromptClosed"];
/// Browsing contexts with an open dialog remembered at most (a closed tab's entry is only
/// dropped when its dialog closes; the oldest entries go first past this bound).
const MAX_PROMPT_CONTEXTS: usize = 256;

/// The open dialog of each browsing context, as WebDriver BiDi announced it.
pub(crate) type OpenPrompts = Arc<Mutex<Vec<(String, DialogKind)>>>;

/// What the session's BiDi connection heard of dialogs opening and closing, so the adapter
/// knows the kind of an open dialog (see the module documentation). Attached with the
/// session (a dialog may open at any time) and dropped with it.
#[derive(Debug)]
pub(crate) struct PromptWatch {
    /// Open dialogs per context, oldest first (filed by the connection's task).
    open: OpenPrompts,
}

impl PromptWatch {
    /// Attach to the session's connection `bidi` (whose events reach `watchers`) and
    /// subscribe to the dialog events.
    pub(crate) async fn attach(bidi: &Bidi, watchers: &Watchers) -> PortResult<PromptWatch> {
        let open: OpenPrompts = Arc::default();
        watchers.attach_prompts(Arc::clone(&open));
        bidi.command("session.subscribe", json!({ "events": PROMPT_EVENTS })).await?;
        Ok(PromptWatch { open })
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

/// Lock `mutex`, also after a panic elsewhere poisoned it (every critical section leaves the
/// list consistent).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
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
}
