//! Console and network evidence (`diagnostics`), over WebDriver BiDi.
//!
//! Sessions ask for `webSocketUrl: true`. The first `diagnostics` call of a session opens one
//! BiDi connection ([`crate::bidi`]) and subscribes, for all browsing contexts, to
//! `log.entryAdded`, `network.responseStarted`, `network.responseCompleted`,
//! `network.fetchError` and `browsingContext.contextCreated`/`contextDestroyed`. From then on
//! the connection's task files every event into a bounded buffer of its tab (a [`Tracker`],
//! kept in the session, dropped with it; a restarted session connects again on its own
//! first call). See `docs/webdriver-findings.md` §8.
//!
//! - **Tabs.** A BiDi context id equals the classic window handle on both engines, so a
//!   top-level context *is* a tab. Events of an iframe's context are filed under its tab via
//!   the `parent` of `contextCreated` events and, for frames that existed before the
//!   connection, `browsingContext.getTree`. A context never announced is treated as a tab of
//!   its own (never queried, bounded by [`MAX_TABS`]).
//! - **Entries.** Console: `log.entryAdded` with a context; level `error`, `warning`
//!   (BiDi `warn`), `info`, `debug`, or `exception` for an uncaught error (BiDi type
//!   `javascript`); text cut to [`MAX_TEXT_CHARS`]. A problem is an error, a warning or an
//!   exception. Network: one entry per response (`responseStarted`: Chromium never sends
//!   `responseCompleted` for a 404, so the status comes from the start; `responseCompleted`
//!   only fills in for a response whose start was not seen) with level `request`, method and
//!   status; one per failure (`fetchError`) with level `failed`. A problem is a status of 400
//!   or more, or a failure. `network.beforeRequestSent` is *not* subscribed: every outcome
//!   event carries the request's URL and method again, and a request's start alone says
//!   nothing worth an entry; not subscribing keeps the headers and cookies of every request
//!   off the socket.
//! - **What is kept.** The method, the status and the URL parsed with the `url` crate, with
//!   userinfo, query and fragment removed at ingestion (a URL of another scheme than
//!   http(s)/ws(s), e.g. `data:`, keeps its scheme only; a longer URL than [`MAX_URL_CHARS`]
//!   keeps its origin). Headers, cookies, bodies, post data, stack traces and console
//!   arguments are never stored.
//! - **Bounds.** [`MAX_ENTRIES_PER_TAB`] per tab (the oldest are evicted and counted),
//!   [`MAX_TABS`] buffers, [`MAX_KNOWN_FRAMES`] frame links, [`MAX_SEEN_RESPONSES`]
//!   remembered response ids.
//! - **Reads** are non-destructive. The cursor is the tab's sequence number of an entry, as a
//!   decimal string; a page's `next_cursor` is the last entry it returned when truncated,
//!   else the tab's newest entry (so a later call with it answers only newer evidence). A
//!   cursor that is not a number this tab handed out is [`PortErrorKind::InvalidInput`].
//!   `tracking_started` is true on the first call for a tab (on a connection), except on a
//!   connection opened with the session (`Diagnostics::OnStart`): that one has watched every
//!   tab since it was created, so no call starts tracking.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use ghostlight_core::port::{
    DiagnoseDetail, DiagnoseSource, DiagnosticEntry, DiagnosticSource, DiagnosticsPage, DiagnosticsQuery,
    PortError, PortErrorKind, PortResult,
};
use serde_json::{Value, json};
use url::Url;

use crate::bidi::Bidi;

/// Entries kept per tab; older ones are evicted (and counted).
pub(crate) const MAX_ENTRIES_PER_TAB: usize = 1_000;
/// Characters of console text kept per entry.
pub(crate) const MAX_TEXT_CHARS: usize = 2_000;
/// Characters of a URL kept (a longer URL keeps its origin only).
pub(crate) const MAX_URL_CHARS: usize = 2_048;
/// Tab buffers kept; the least recently written one is dropped for a new tab.
pub(crate) const MAX_TABS: usize = 64;
/// Frame-to-parent links remembered.
pub(crate) const MAX_KNOWN_FRAMES: usize = 1_024;
/// Response ids remembered to tell a `responseCompleted` whose start was already filed.
pub(crate) const MAX_SEEN_RESPONSES: usize = 4_096;
/// Deepest frame nesting followed up to a tab.
const MAX_FRAME_DEPTH: usize = 32;
/// Longest cursor accepted (a `u64` in decimal).
const MAX_CURSOR_DIGITS: usize = 20;

/// The events subscribed, for all contexts.
const EVENTS: [&str; 6] = [
    "log.entryAdded",
    "network.responseStarted",
    "network.responseCompleted",
    "network.fetchError",
    "browsingContext.contextCreated",
    "browsingContext.contextDestroyed",
];

/// The evidence of one session: its BiDi connection and the buffers its task fills.
#[derive(Debug)]
pub(crate) struct Tracker {
    /// The connection (its task files events into `store`).
    bidi: Bidi,
    /// The evidence filed so far.
    store: Arc<Mutex<Store>>,
}

impl Tracker {
    /// Connect to the session's BiDi `url`, subscribe for all contexts and seed the frames
    /// that already exist. `from_start`: the connection opens with the session, before any
    /// tab the adapter opens, so every tab's evidence is complete from its creation.
    pub(crate) async fn connect(url: &Url, from_start: bool) -> PortResult<Tracker> {
        let store = Arc::new(Mutex::new(Store { from_start, ..Store::default() }));
        let filing = Arc::clone(&store);
        let bidi =
            Bidi::connect(url, Box::new(move |method, params| lock(&filing).ingest(method, params))).await?;
        bidi.command("session.subscribe", json!({ "events": EVENTS })).await?;
        // Frames that existed before the subscription; without this their events would not
        // reach their tab, which is a loss but not an error.
        if let Ok(tree) = bidi.command("browsingContext.getTree", json!({})).await {
            lock(&store).seed(&tree);
        }
        Ok(Tracker { bidi, store })
    }

    /// Whether the connection is still open.
    pub(crate) fn is_open(&self) -> bool {
        self.bidi.is_open()
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

/// An `after` cursor as a sequence number (`None` when absent).
pub(crate) fn parse_cursor(after: Option<&str>) -> PortResult<Option<u64>> {
    let Some(text) = after else { return Ok(None) };
    let digits =
        !text.is_empty() && text.len() <= MAX_CURSOR_DIGITS && text.bytes().all(|b| b.is_ascii_digit());
    match digits.then(|| text.parse::<u64>().ok()).flatten() {
        Some(seq) => Ok(Some(seq)),
        None => Err(bad_cursor()),
    }
}

/// The error for a cursor this tab did not hand out.
fn bad_cursor() -> PortError {
    PortError::new(PortErrorKind::InvalidInput, "the cursor is not one this browser handed out for this tab")
}

/// One stored entry and its sequence number in its tab.
#[derive(Debug)]
struct Filed {
    /// Its sequence number in its tab (from 1).
    seq: u64,
    /// The entry.
    entry: DiagnosticEntry,
}

/// The bounded evidence of one tab.
#[derive(Debug, Default)]
struct TabLog {
    /// Entries, oldest first.
    entries: VecDeque<Filed>,
    /// The last sequence number handed out (0: none yet).
    last_seq: u64,
    /// Entries evicted so far.
    evicted: u64,
    /// When the log was last written, in store ticks (to drop the stalest log at the cap).
    touched: u64,
}

/// Everything the connection's task files, per tab.
#[derive(Debug, Default)]
pub(crate) struct Store {
    /// Evidence per tab (top-level context id = window handle).
    tabs: HashMap<String, TabLog>,
    /// Frame context → parent context.
    parents: HashMap<String, String>,
    /// Tabs already queried once on this connection.
    tracked: HashSet<String>,
    /// `(request id, redirect count)` of responses already filed, oldest first.
    seen: VecDeque<(String, u64)>,
    /// The same ids, for lookups.
    seen_set: HashSet<(String, u64)>,
    /// Events filed so far (the clock of [`TabLog::touched`]).
    ticks: u64,
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
        let empty = TabLog::default();
        let log = self.tabs.get(handle).unwrap_or(&empty);
        let after = after.unwrap_or(0);
        if after > log.last_seq {
            return Err(bad_cursor());
        }
        let pattern = query.pattern.as_deref().map(str::to_lowercase).filter(|p| !p.is_empty());
        let mut matching = log.entries.iter().filter(|filed| {
            filed.seq > after && wanted(&filed.entry, query.source, query.detail, pattern.as_deref())
        });
        let mut entries = Vec::new();
        let mut last_returned = None;
        for filed in matching.by_ref().take(query.limit) {
            entries.push(filed.entry.clone());
            last_returned = Some(filed.seq);
        }
        let truncated = matching.next().is_some();
        let cursor = match (truncated, last_returned) {
            (true, Some(seq)) => seq,
            // Truncated with nothing returned only happens with a zero limit.
            (true, None) => after,
            (false, _) => log.last_seq,
        };
        Ok(DiagnosticsPage {
            entries,
            next_cursor: (cursor > 0).then(|| cursor.to_string()),
            truncated,
            evicted: log.evicted,
            tracking_started,
        })
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
        let text =
            params.get("text").and_then(Value::as_str).map(|t| t.chars().take(MAX_TEXT_CHARS).collect());
        let entry = DiagnosticEntry {
            source: DiagnosticSource::Console,
            level: level.to_owned(),
            problem: matches!(level, "exception" | "error" | "warning"),
            text,
            method: None,
            status: None,
            url: None,
        };
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
        let status = params
            .pointer("/response/status")
            .and_then(Value::as_u64)
            .and_then(|s| u16::try_from(s).ok())
            .filter(|s| (100..=999).contains(s));
        let entry = DiagnosticEntry {
            source: DiagnosticSource::Network,
            level: "request".to_owned(),
            problem: status.is_some_and(|s| s >= 400),
            text: None,
            method: method(params),
            status,
            url: request_url(params),
        };
        self.file(context, entry);
    }

    /// File a `network.fetchError` event.
    fn failure(&mut self, params: &Value) {
        let Some(context) = params.get("context").and_then(Value::as_str) else { return };
        let entry = DiagnosticEntry {
            source: DiagnosticSource::Network,
            level: "failed".to_owned(),
            problem: true,
            text: None,
            method: method(params),
            status: None,
            url: request_url(params),
        };
        self.file(context, entry);
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
        self.tabs.remove(context);
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

    /// Add `entry` to the tab of `context`, evicting the oldest entry (or the stalest tab) at
    /// the bounds.
    fn file(&mut self, context: &str, entry: DiagnosticEntry) {
        let Some(tab) = self.top_of(context) else { return };
        self.ticks += 1;
        if !self.tabs.contains_key(&tab)
            && self.tabs.len() >= MAX_TABS
            && let Some(stalest) = self.tabs.iter().min_by_key(|(_, log)| log.touched).map(|(k, _)| k.clone())
        {
            self.tabs.remove(&stalest);
        }
        let log = self.tabs.entry(tab).or_default();
        log.touched = self.ticks;
        log.last_seq += 1;
        if log.entries.len() == MAX_ENTRIES_PER_TAB {
            log.entries.pop_front();
            log.evicted += 1;
        }
        log.entries.push_back(Filed { seq: log.last_seq, entry });
    }
}

/// Whether `entry` passes the query's filters (`pattern` lower-cased).
fn wanted(
    entry: &DiagnosticEntry,
    source: DiagnoseSource,
    detail: DiagnoseDetail,
    pattern: Option<&str>,
) -> bool {
    let source_ok = match source {
        DiagnoseSource::Both => true,
        DiagnoseSource::Console => entry.source == DiagnosticSource::Console,
        DiagnoseSource::Network => entry.source == DiagnosticSource::Network,
    };
    let detail_ok = detail == DiagnoseDetail::All || entry.problem;
    let pattern_ok = pattern.is_none_or(|p| {
        entry.text.as_deref().is_some_and(|t| t.to_lowercase().contains(p))
            || entry.url.as_ref().is_some_and(|u| u.as_str().to_lowercase().contains(p))
    });
    source_ok && detail_ok && pattern_ok
}

/// The request method of a network event, bounded.
fn method(params: &Value) -> Option<String> {
    const MAX_METHOD_CHARS: usize = 16;
    params
        .pointer("/request/method")
        .and_then(Value::as_str)
        .filter(|m| {
            !m.is_empty() && m.len() <= MAX_METHOD_CHARS && m.bytes().all(|b| b.is_ascii_alphabetic())
        })
        .map(str::to_owned)
}

/// The request URL of a network event, without userinfo, query and fragment.
fn request_url(params: &Value) -> Option<Url> {
    params.pointer("/request/url").and_then(Value::as_str).and_then(clean_url)
}

/// `text` parsed, with userinfo, query and fragment removed; other schemes than http(s) and
/// ws(s) keep their scheme only; an overlong URL keeps its origin.
pub(crate) fn clean_url(text: &str) -> Option<Url> {
    let mut url = Url::parse(text).ok()?;
    if !matches!(url.scheme(), "http" | "https" | "ws" | "wss") {
        return Url::parse(&format!("{}:", url.scheme())).ok();
    }
    url.set_query(None);
    url.set_fragment(None);
    // Both only fail for URLs without a host, which these schemes always have.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    if url.as_str().len() > MAX_URL_CHARS {
        url.set_path("/");
    }
    Some(url)
}

#[cfg(test)]
mod tests {
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
    fn urls_lose_secrets_at_ingestion() {
        let url = clean_url("https://user:pw@example.com:8443/a/b?secret=1#frag").expect("parses");
        assert_eq!(url.as_str(), "https://example.com:8443/a/b");
        assert_eq!(clean_url("data:text/plain,body").expect("parses").as_str(), "data:");
        assert_eq!(clean_url("blob:https://example.com/uuid").expect("parses").as_str(), "blob:");
        let long = format!("https://example.com/{}", "x".repeat(MAX_URL_CHARS));
        assert_eq!(clean_url(&long).expect("parses").as_str(), "https://example.com/");
        assert_eq!(clean_url("not a url"), None);
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
    fn cursors_page_filters_and_eviction() {
        let mut store = Store::default();
        for i in 0..(MAX_ENTRIES_PER_TAB + 5) {
            log(&mut store, "T", if i % 2 == 0 { "error" } else { "info" }, &format!("Line {i}"));
        }
        let first = store
            .query("T", &query(DiagnoseSource::Both, DiagnoseDetail::All, None, 3), None)
            .expect("answers");
        assert_eq!(first.evicted, 5);
        assert!(first.truncated);
        assert_eq!(first.entries[0].text.as_deref(), Some("Line 5"));
        let cursor = first.next_cursor.expect("a cursor");
        let after = parse_cursor(Some(&cursor)).expect("parses");
        let second = store
            .query("T", &query(DiagnoseSource::Both, DiagnoseDetail::All, None, 2), after)
            .expect("answers");
        assert_eq!(second.entries[0].text.as_deref(), Some("Line 8"));
        // The whole rest: not truncated, and the cursor is the newest entry.
        let rest = store
            .query("T", &query(DiagnoseSource::Both, DiagnoseDetail::All, None, 5_000), after)
            .expect("answers");
        assert!(!rest.truncated);
        assert_eq!(rest.next_cursor.as_deref(), Some("1005"));
        let none = store
            .query("T", &query(DiagnoseSource::Both, DiagnoseDetail::All, None, 5), Some(1005))
            .expect("answers");
        assert!(none.entries.is_empty() && !none.truncated);
        let mut matching = query(DiagnoseSource::Console, DiagnoseDetail::All, None, 5_000);
        matching.pattern = Some("LINE 100".into());
        let found = store.query("T", &matching, None).expect("answers");
        // "Line 100" and "Line 1000" … "Line 1004".
        assert_eq!(found.entries.len(), 6);
        assert!(
            store.query("T", &query(DiagnoseSource::Both, DiagnoseDetail::All, None, 5), Some(1006)).is_err()
        );
        for garbage in ["", "abc", "-1", "1.5", "123456789012345678901", " 1"] {
            let error = parse_cursor(Some(garbage)).expect_err(garbage);
            assert_eq!(error.kind(), PortErrorKind::InvalidInput);
        }
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

    #[test]
    fn tab_buffers_are_bounded() {
        let mut store = Store::default();
        for tab in 0..(MAX_TABS + 3) {
            log(&mut store, &format!("T{tab}"), "error", "x");
        }
        assert_eq!(store.tabs.len(), MAX_TABS);
        assert!(!store.tabs.contains_key("T0"));
    }
}
