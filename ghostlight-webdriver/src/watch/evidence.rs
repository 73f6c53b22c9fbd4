//! Console and network evidence (`diagnostics`), over WebDriver BiDi.
//!
//! Sessions ask for `webSocketUrl: true`. The first `diagnostics` call of a session
//! subscribes the session's BiDi connection ([`crate::bidi`], shared with its scripts and
//! dialog announcements), for all browsing contexts, to
//! `log.entryAdded`, `network.responseStarted`, `network.responseCompleted`,
//! `network.fetchError` and `browsingContext.contextCreated`/`contextDestroyed`. From then on
//! the connection's task files every event into a bounded buffer of its tab (a [`Tracker`],
//! kept in the session, dropped with it; a restarted session subscribes again on its own
//! first call). See `docs/webdriver-findings.md` §8.
//!
//! - **Tabs.** A BiDi context id equals the classic window handle on both engines, so a
//!   top-level context *is* a tab. Events of an iframe's context are filed under its tab via
//!   the `parent` of `contextCreated` events and, for frames that existed before the
//!   connection, `browsingContext.getTree`. A context never announced is treated as a tab of
//!   its own (never queried, bounded by the log's tab bound).
//! - **Entries.** Console: `log.entryAdded` with a context; level `error`, `warning`
//!   (BiDi `warn`), `info`, `debug`, or `exception` for an uncaught error (BiDi type
//!   `javascript`); text cut to core's bound. A problem is an error, a warning or an
//!   exception. Network: one entry per response (`responseStarted`: Chromium never sends
//!   `responseCompleted` for a 404, so the status comes from the start; `responseCompleted`
//!   only fills in for a response whose start was not seen) with level `request`, method and
//!   status; one per failure (`fetchError`) with level `failed`. A problem is a status of 400
//!   or more, or a failure. `network.beforeRequestSent` is *not* subscribed: every outcome
//!   event carries the request's URL and method again, and a request's start alone says
//!   nothing worth an entry; not subscribing keeps the headers and cookies of every request
//!   off the socket.
//! - **What is kept.** The method, the status and the URL parsed with the `url` crate, with
//!   userinfo, query and fragment removed at ingestion ([`clean_url`]). Headers, cookies,
//!   bodies, post data, stack traces and console
//!   arguments are never stored.
//! - **Bounds and reads** are core's [`EvidenceLog`]'s (shared with every adapter), plus
//!   [`MAX_KNOWN_FRAMES`] frame links and [`MAX_SEEN_RESPONSES`] remembered response ids.
//!   `tracking_started` is true on the first call for a tab (on a connection), except when
//!   tracking started with the session (`Diagnostics::OnStart`): that one has watched every
//!   tab since it was created, so no call starts tracking.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use ghostlight_core::port::{DiagnosticsPage, DiagnosticsQuery, PortResult};
use ghostlight_page::evidence::{EvidenceLog, clean_method, clean_url, console_entry, network_entry};
use serde_json::{Value, json};
use url::Url;

use crate::bidi::Bidi;
use crate::watch::Watchers;

/// Frame-to-parent links remembered.
pub(crate) const MAX_KNOWN_FRAMES: usize = 1_024;
/// Response ids remembered to tell a `responseCompleted` whose start was already filed.
pub(crate) const MAX_SEEN_RESPONSES: usize = 4_096;
/// Deepest frame nesting followed up to a tab.
const MAX_FRAME_DEPTH: usize = 32;

/// The events subscribed, for all contexts.
const EVENTS: [&str; 6] = [
    "log.entryAdded",
    "network.responseStarted",
    "network.responseCompleted",
    "network.fetchError",
    "browsingContext.contextCreated",
    "browsingContext.contextDestroyed",
];

/// The evidence of one session: the buffers the session connection's task fills.
#[derive(Debug)]
pub(crate) struct Tracker {
    /// The evidence filed so far.
    store: Arc<Mutex<Store>>,
}

impl Tracker {
    /// Attach to the session's connection `bidi` (whose events reach `watchers`), subscribe
    /// for all contexts and seed the frames that already exist. `from_start`: attached with
    /// the session, before any tab the adapter opens, so every tab's evidence is complete
    /// from its creation.
    pub(crate) async fn attach(bidi: &Bidi, watchers: &Watchers, from_start: bool) -> PortResult<Tracker> {
        let store = Arc::new(Mutex::new(Store { from_start, ..Store::default() }));
        watchers.attach_evidence(Arc::clone(&store));
        bidi.subscribe(&EVENTS).await?;
        // Frames that existed before the subscription; without this their events would not
        // reach their tab, which is a loss but not an error.
        if let Ok(tree) = bidi.command("browsingContext.getTree", json!({})).await {
            lock(&store).seed(&tree);
        }
        Ok(Tracker { store })
    }

    /// The evidence buffers.
    pub(crate) fn store(&self) -> Arc<Mutex<Store>> {
        Arc::clone(&self.store)
    }
}

/// Lock `mutex`, also after a panic elsewhere poisoned it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Everything the connection's task files, per tab.
#[derive(Debug, Default)]
pub(crate) struct Store {
    /// Evidence per tab (top-level context id = window handle).
    log: EvidenceLog,
    /// Frame context → parent context.
    parents: HashMap<String, String>,
    /// Tabs already queried once on this connection.
    tracked: HashSet<String>,
    /// `(request id, redirect count)` of responses already filed, oldest first.
    seen: VecDeque<(String, u64)>,
    /// The same ids, for lookups.
    seen_set: HashSet<(String, u64)>,
    /// Tracking started with the session: no query starts it.
    from_start: bool,
}

impl Store {
    /// File one BiDi event.
    pub(crate) fn ingest(&mut self, method: &str, params: &Value) {
        match method {
            "log.entryAdded" => self.console(params),
            "network.responseStarted" => self.response(params),
            "network.responseCompleted" => self.response(params),
            "network.fetchError" => self.failure(params),
            "browsingContext.contextCreated" => self.created(params),
            "browsingContext.contextDestroyed" => self.destroyed(params),
            _ => {}
        }
    }

    /// Learn the frames of a `browsingContext.getTree` result.
    pub(crate) fn seed(&mut self, tree: &Value) {
        let mut stack: Vec<&Value> =
            tree.get("contexts").and_then(Value::as_array).map(|c| c.iter().collect()).unwrap_or_default();
        while let Some(info) = stack.pop() {
            let Some(context) = info.get("context").and_then(Value::as_str) else { continue };
            if let Some(children) = info.get("children").and_then(Value::as_array) {
                for child in children {
                    if let Some(id) = child.get("context").and_then(Value::as_str) {
                        self.link(id, context);
                    }
                    stack.push(child);
                }
            }
        }
    }

    /// Answer a query for tab `handle` (non-destructive).
    pub(crate) fn query(
        &mut self,
        handle: &str,
        query: &DiagnosticsQuery,
        after: Option<u64>,
    ) -> PortResult<DiagnosticsPage> {
        let tracking_started = self.tracked.insert(handle.to_owned()) && !self.from_start;
        let page = self.log.query(handle, query, after)?;
        Ok(DiagnosticsPage { tracking_started, ..page })
    }

    /// File a `log.entryAdded` event.
    fn console(&mut self, params: &Value) {
        let Some(context) = params.pointer("/source/context").and_then(Value::as_str) else { return };
        let exception = params.get("type").and_then(Value::as_str) == Some("javascript");
        let level = match (exception, params.get("level").and_then(Value::as_str)) {
            (true, _) => "exception",
            (false, Some("error")) => "error",
            (false, Some("warn" | "warning")) => "warning",
            (false, Some("debug")) => "debug",
            (false, _) => "info",
        };
        let entry = console_entry(level, params.get("text").and_then(Value::as_str));
        self.file(context, entry);
    }

    /// File a `network.responseStarted` or `responseCompleted` event, once per response.
    fn response(&mut self, params: &Value) {
        let Some(context) = params.get("context").and_then(Value::as_str) else { return };
        let Some(id) = params.pointer("/request/request").and_then(Value::as_str) else { return };
        let key = (id.to_owned(), params.get("redirectCount").and_then(Value::as_u64).unwrap_or(0));
        if self.seen_set.contains(&key) {
            return;
        }
        self.remember(key);
        let status =
            params.pointer("/response/status").and_then(Value::as_u64).and_then(|s| u16::try_from(s).ok());
        self.file(context, network_entry(method(params), status, request_url(params), false));
    }

    /// File a `network.fetchError` event.
    fn failure(&mut self, params: &Value) {
        let Some(context) = params.get("context").and_then(Value::as_str) else { return };
        self.file(context, network_entry(method(params), None, request_url(params), true));
    }

    /// Learn a frame's parent from `browsingContext.contextCreated`.
    fn created(&mut self, params: &Value) {
        let (Some(context), Some(parent)) =
            (params.get("context").and_then(Value::as_str), params.get("parent").and_then(Value::as_str))
        else {
            return;
        };
        self.link(context, parent);
    }

    /// Forget a frame, or a closed tab and its evidence, on `browsingContext.contextDestroyed`.
    fn destroyed(&mut self, params: &Value) {
        let Some(context) = params.get("context").and_then(Value::as_str) else { return };
        if params.get("parent").and_then(Value::as_str).is_some() {
            self.parents.remove(context);
            return;
        }
        // A tab closed: its evidence and its frames' links go.
        self.log.forget(context);
        self.tracked.remove(context);
        let frames: Vec<String> = self
            .parents
            .keys()
            .filter(|frame| self.top_of(frame).as_deref() == Some(context))
            .cloned()
            .collect();
        for frame in frames {
            self.parents.remove(&frame);
        }
    }

    /// Remember that `frame` lives in `parent` (within [`MAX_KNOWN_FRAMES`]).
    fn link(&mut self, frame: &str, parent: &str) {
        if self.parents.len() < MAX_KNOWN_FRAMES || self.parents.contains_key(frame) {
            self.parents.insert(frame.to_owned(), parent.to_owned());
        }
    }

    /// Remember a filed response (within [`MAX_SEEN_RESPONSES`]).
    fn remember(&mut self, key: (String, u64)) {
        if self.seen.len() == MAX_SEEN_RESPONSES
            && let Some(oldest) = self.seen.pop_front()
        {
            self.seen_set.remove(&oldest);
        }
        self.seen.push_back(key.clone());
        self.seen_set.insert(key);
    }

    /// The tab (top-level context) of `context`.
    fn top_of(&self, context: &str) -> Option<String> {
        let mut current = context;
        for _ in 0..MAX_FRAME_DEPTH {
            match self.parents.get(current) {
                Some(parent) => current = parent,
                None => return Some(current.to_owned()),
            }
        }
        None
    }

    /// Add `entry` to the tab of `context`.
    fn file(&mut self, context: &str, entry: ghostlight_core::port::DiagnosticEntry) {
        if let Some(tab) = self.top_of(context) {
            self.log.file(&tab, entry);
        }
    }
}

/// The request method of a network event, bounded.
fn method(params: &Value) -> Option<String> {
    params.pointer("/request/method").and_then(Value::as_str).and_then(clean_method)
}

/// The request URL of a network event, without userinfo, query and fragment.
fn request_url(params: &Value) -> Option<Url> {
    params.pointer("/request/url").and_then(Value::as_str).and_then(clean_url)
}

#[cfg(test)]
mod tests {
    use ghostlight_core::port::{DiagnoseDetail, DiagnoseSource};
    use ghostlight_page::evidence::MAX_TEXT_CHARS;

    use super::*;

    fn query(
        source: DiagnoseSource,
        detail: DiagnoseDetail,
        after: Option<&str>,
        limit: usize,
    ) -> DiagnosticsQuery {
        DiagnosticsQuery { source, detail, pattern: None, after: after.map(str::to_owned), limit }
    }

    fn log(store: &mut Store, context: &str, level: &str, text: &str) {
        store.ingest(
            "log.entryAdded",
            &json!({"type": "console", "level": level, "text": text, "source": {"context": context, "realm": "r"}}),
        );
    }

    #[test]
    fn console_levels_problems_and_bounds() {
        let mut store = Store::default();
        log(&mut store, "T", "error", "boom");
        log(&mut store, "T", "warn", "careful");
        log(&mut store, "T", "info", "hello");
        store.ingest(
            "log.entryAdded",
            &json!({"type": "javascript", "level": "error", "text": "x".repeat(MAX_TEXT_CHARS + 10), "source": {"context": "T"}}),
        );
        let page = store
            .query("T", &query(DiagnoseSource::Both, DiagnoseDetail::All, None, 10), None)
            .expect("answers");
        let levels: Vec<(&str, bool)> = page.entries.iter().map(|e| (e.level.as_str(), e.problem)).collect();
        assert_eq!(levels, [("error", true), ("warning", true), ("info", false), ("exception", true)]);
        assert_eq!(page.entries[3].text.as_ref().map(|t| t.chars().count()), Some(MAX_TEXT_CHARS));
        assert!(page.tracking_started);
        let problems = store
            .query("T", &query(DiagnoseSource::Both, DiagnoseDetail::Problems, None, 10), None)
            .expect("answers");
        assert_eq!(problems.entries.len(), 3);
        assert!(!problems.tracking_started);
    }

    #[test]
    fn network_outcomes_one_entry_per_response() {
        let mut store = Store::default();
        let request = |id: &str, url: &str| json!({"request": id, "url": url, "method": "GET", "headers": [{"name": "Cookie"}]});
        store.ingest(
            "network.responseStarted",
            &json!({"context": "T", "redirectCount": 0, "request": request("1", "http://h/404?q=1"), "response": {"status": 404}}),
        );
        store.ingest(
            "network.responseCompleted",
            &json!({"context": "T", "redirectCount": 0, "request": request("1", "http://h/404?q=1"), "response": {"status": 404}}),
        );
        store.ingest(
            "network.responseCompleted",
            &json!({"context": "T", "redirectCount": 0, "request": request("2", "http://h/ok"), "response": {"status": 200}}),
        );
        store.ingest(
            "network.fetchError",
            &json!({"context": "T", "request": request("3", "http://h:1/x"), "errorText": "net::ERR_CONNECTION_REFUSED"}),
        );
        let page = store
            .query("T", &query(DiagnoseSource::Network, DiagnoseDetail::All, None, 10), None)
            .expect("answers");
        let got: Vec<(&str, Option<u16>, bool, &str)> = page
            .entries
            .iter()
            .map(|e| (e.level.as_str(), e.status, e.problem, e.url.as_ref().map_or("", Url::as_str)))
            .collect();
        assert_eq!(
            got,
            [
                ("request", Some(404), true, "http://h/404"),
                ("request", Some(200), false, "http://h/ok"),
                ("failed", None, true, "http://h:1/x")
            ]
        );
        assert_eq!(page.entries[0].method.as_deref(), Some("GET"));
    }

    #[test]
    fn frames_file_under_their_tab_and_closed_tabs_go() {
        let mut store = Store::default();
        store.seed(&json!({"contexts": [{"context": "T", "children": [{"context": "F1", "children": [{"context": "F2", "children": []}]}]}]}));
        store.ingest("browsingContext.contextCreated", &json!({"context": "F3", "parent": "T"}));
        log(&mut store, "F2", "error", "deep");
        log(&mut store, "F3", "error", "late");
        let page = store
            .query("T", &query(DiagnoseSource::Both, DiagnoseDetail::All, None, 10), None)
            .expect("answers");
        assert_eq!(page.entries.len(), 2);
        store.ingest("browsingContext.contextDestroyed", &json!({"context": "T", "parent": null}));
        assert!(store.parents.is_empty());
        let page = store
            .query("T", &query(DiagnoseSource::Both, DiagnoseDetail::All, None, 10), None)
            .expect("answers");
        assert!(page.entries.is_empty());
        assert!(page.tracking_started);
    }

    #[test]
    fn tracking_from_the_start_never_starts_on_a_call() {
        let mut store = Store { from_start: true, ..Store::default() };
        log(&mut store, "T", "error", "during the load");
        let page = store
            .query("T", &query(DiagnoseSource::Both, DiagnoseDetail::Problems, None, 10), None)
            .expect("answers");
        assert!(!page.tracking_started);
        assert_eq!(page.entries.len(), 1);
        let other = store
            .query("U", &query(DiagnoseSource::Both, DiagnoseDetail::Problems, None, 10), None)
            .expect("answers");
        assert!(!other.tracking_started && other.entries.is_empty());
    }
}
