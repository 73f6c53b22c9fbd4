//! What a session watches over WebDriver BiDi, as state the session holds: dialog
//! announcements and console/network evidence. Nothing here drives the session (the ops that
//! do live in `ops/`), so the session can hold these without an import cycle.
//!
//! A session has one BiDi connection (see `Session::bidi`): its scripts, its tab reads and
//! both watches share it. [`Watchers`] is where that connection's events go: each watch,
//! once attached, receives the events it subscribed to.

pub(crate) mod evidence;
pub(crate) mod prompts;

use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::bidi::EventHandler;
use evidence::lock;

/// The watches attached to a session's BiDi connection.
#[derive(Debug, Default)]
pub(crate) struct Watchers {
    /// The dialog announcements, once attached (Chromium).
    prompts: Mutex<Option<prompts::OpenPrompts>>,
    /// The navigation announcements, once attached with the dialog announcements.
    moves: Mutex<Option<prompts::Moves>>,
    /// The evidence store, once attached (the first diagnostics call, or the session start).
    evidence: Mutex<Option<Arc<Mutex<evidence::Store>>>>,
}

impl Watchers {
    /// The connection's event handler: every event to the watches attached.
    pub(crate) fn handler(self: &Arc<Self>) -> EventHandler {
        let watchers = Arc::clone(self);
        Box::new(move |method, params| watchers.file(method, params))
    }

    fn file(&self, method: &str, params: &Value) {
        if prompts::PROMPT_EVENTS.contains(&method)
            && let Some(open) = lock(&self.prompts).as_ref()
        {
            prompts::file(open, method, params);
        }
        if prompts::NAVIGATION_EVENTS.contains(&method)
            && let Some(moves) = lock(&self.moves).as_ref()
        {
            prompts::file_move(moves, method, params);
        }
        if let Some(store) = lock(&self.evidence).as_ref() {
            lock(store).ingest(method, params);
        }
    }

    /// Send dialog announcements to `open`, and navigation announcements to `moves`, from now
    /// on.
    pub(crate) fn attach_prompts(&self, open: prompts::OpenPrompts, moves: prompts::Moves) {
        *lock(&self.prompts) = Some(open);
        *lock(&self.moves) = Some(moves);
    }

    /// Send evidence events to `store` from now on (replacing an earlier store).
    pub(crate) fn attach_evidence(&self, store: Arc<Mutex<evidence::Store>>) {
        *lock(&self.evidence) = Some(store);
    }
}
