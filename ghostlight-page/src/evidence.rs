//! The bounded console and network evidence an adapter keeps for `diagnostics`, and its
//! cursor reads, shared by every adapter so each answers with the same semantics.
//!
//! An adapter files [`DiagnosticEntry`]s per tab (any key it chooses, e.g. a window handle or
//! a browser tab id) into an [`EvidenceLog`] and answers queries from it:
//!
//! - **Bounds.** [`MAX_ENTRIES_PER_TAB`] per tab (the oldest are evicted and counted),
//!   [`MAX_TABS`] tabs (the least recently written one is dropped for a new tab). Console text
//!   is cut to [`MAX_TEXT_CHARS`] at filing; URLs are cleaned with [`clean_url`] by the
//!   adapter when it reads them from the browser.
//! - **Reads** are non-destructive. The cursor is the tab's sequence number of an entry, as a
//!   decimal string; a page's `next_cursor` is the last entry it returned when truncated,
//!   else the tab's newest entry (so a later call with it answers only newer evidence). A
//!   cursor that is not a number this tab handed out is [`PortErrorKind::InvalidInput`].
//! - Whether a call started tracking is the adapter's to say: the log answers
//!   `tracking_started: false`.

use std::collections::{HashMap, VecDeque};

use url::Url;

use ghostlight_core::port::{
    DiagnoseDetail, DiagnoseSource, DiagnosticEntry, DiagnosticSource, DiagnosticsPage, DiagnosticsQuery,
    PortError, PortErrorKind, PortResult,
};

/// Entries kept per tab; older ones are evicted (and counted).
pub const MAX_ENTRIES_PER_TAB: usize = 1_000;
/// Characters of console text kept per entry.
pub const MAX_TEXT_CHARS: usize = 2_000;
/// Characters of a URL kept (a longer URL keeps its origin only).
pub const MAX_URL_CHARS: usize = 2_048;
/// Tab buffers kept; the least recently written one is dropped for a new tab.
pub const MAX_TABS: usize = 64;
/// Longest cursor accepted (a `u64` in decimal).
const MAX_CURSOR_DIGITS: usize = 20;
/// Longest HTTP method kept.
const MAX_METHOD_CHARS: usize = 16;

/// An `after` cursor as a sequence number (`None` when absent).
pub fn parse_cursor(after: Option<&str>) -> PortResult<Option<u64>> {
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

/// `text` parsed, with userinfo, query and fragment removed; other schemes than http(s) and
/// ws(s) keep their scheme only; an overlong URL keeps its origin.
pub fn clean_url(text: &str) -> Option<Url> {
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

/// An HTTP method as the browser reported it, when it is a plausible one (letters, bounded).
pub fn clean_method(method: &str) -> Option<String> {
    (!method.is_empty()
        && method.len() <= MAX_METHOD_CHARS
        && method.bytes().all(|b| b.is_ascii_alphabetic()))
    .then(|| method.to_owned())
}

/// A console entry (`level`: `error`, `warning`, `info`, `debug` or `exception`; a problem is
/// an error, a warning or an exception), its text cut to [`MAX_TEXT_CHARS`].
pub fn console_entry(level: &str, text: Option<&str>) -> DiagnosticEntry {
    DiagnosticEntry {
        source: DiagnosticSource::Console,
        level: level.to_owned(),
        problem: matches!(level, "exception" | "error" | "warning"),
        text: text.map(|t| t.chars().take(MAX_TEXT_CHARS).collect()),
        method: None,
        status: None,
        url: None,
    }
}

/// A network entry: a response (`status`, level `request`; a problem from 400) or, without a
/// status, a failed request (level `failed`, always a problem).
pub fn network_entry(
    method: Option<String>,
    status: Option<u16>,
    url: Option<Url>,
    failed: bool,
) -> DiagnosticEntry {
    let status = status.filter(|s| (100..=999).contains(s));
    DiagnosticEntry {
        source: DiagnosticSource::Network,
        level: if failed { "failed" } else { "request" }.to_owned(),
        problem: failed || status.is_some_and(|s| s >= 400),
        text: None,
        method,
        status,
        url,
    }
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
    /// When the log was last written, in log ticks (to drop the stalest log at the cap).
    touched: u64,
}

/// Bounded evidence per tab (see the module's documentation).
#[derive(Debug, Default)]
pub struct EvidenceLog {
    /// Evidence per tab key.
    tabs: HashMap<String, TabLog>,
    /// Entries filed so far (the clock of [`TabLog::touched`]).
    ticks: u64,
}

impl EvidenceLog {
    /// Add `entry` to `tab`, evicting the oldest entry (or the stalest tab) at the bounds.
    pub fn file(&mut self, tab: &str, entry: DiagnosticEntry) {
        let log = self.log_mut(tab);
        log.last_seq += 1;
        if log.entries.len() == MAX_ENTRIES_PER_TAB {
            log.entries.pop_front();
            log.evicted += 1;
        }
        let seq = log.last_seq;
        log.entries.push_back(Filed { seq, entry });
    }

    /// Count `lost` entries of `tab` that were dropped before they reached the log (an
    /// adapter's own bounded buffer overflowed); they count as evicted.
    pub fn lost(&mut self, tab: &str, lost: u64) {
        if lost > 0 {
            let log = self.log_mut(tab);
            log.evicted = log.evicted.saturating_add(lost);
        }
    }

    /// Forget `tab` and its evidence (it closed).
    pub fn forget(&mut self, tab: &str) {
        self.tabs.remove(tab);
    }

    /// The tabs with evidence.
    pub fn tabs(&self) -> impl Iterator<Item = &str> {
        self.tabs.keys().map(String::as_str)
    }

    /// Answer `query` for `tab` after the sequence number `after` (non-destructive;
    /// `tracking_started` is false).
    pub fn query(
        &self,
        tab: &str,
        query: &DiagnosticsQuery,
        after: Option<u64>,
    ) -> PortResult<DiagnosticsPage> {
        let empty = TabLog::default();
        let log = self.tabs.get(tab).unwrap_or(&empty);
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
            tracking_started: false,
        })
    }

    /// The log of `tab`, made (dropping the stalest tab at [`MAX_TABS`]) and touched.
    fn log_mut(&mut self, tab: &str) -> &mut TabLog {
        self.ticks += 1;
        if !self.tabs.contains_key(tab)
            && self.tabs.len() >= MAX_TABS
            && let Some(stalest) = self.tabs.iter().min_by_key(|(_, log)| log.touched).map(|(k, _)| k.clone())
        {
            self.tabs.remove(&stalest);
        }
        let log = self.tabs.entry(tab.to_owned()).or_default();
        log.touched = self.ticks;
        log
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

#[cfg(test)]
mod tests {
    use super::*;

    fn query(source: DiagnoseSource, detail: DiagnoseDetail, limit: usize) -> DiagnosticsQuery {
        DiagnosticsQuery { source, detail, pattern: None, after: None, limit }
    }

    fn all(limit: usize) -> DiagnosticsQuery {
        query(DiagnoseSource::Both, DiagnoseDetail::All, limit)
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
        assert_eq!(clean_method("GET").as_deref(), Some("GET"));
        assert_eq!(clean_method("G E T"), None);
    }

    #[test]
    fn entries_know_their_problems_and_bounds() {
        let long = "x".repeat(MAX_TEXT_CHARS + 10);
        let levels = ["error", "warning", "info", "exception", "debug"];
        let problems: Vec<bool> = levels.iter().map(|l| console_entry(l, None).problem).collect();
        assert_eq!(problems, [true, true, false, true, false]);
        let cut = console_entry("error", Some(&long));
        assert_eq!(cut.text.map(|t| t.chars().count()), Some(MAX_TEXT_CHARS));
        assert!(network_entry(None, Some(404), None, false).problem);
        assert!(!network_entry(None, Some(200), None, false).problem);
        let failed = network_entry(None, None, None, true);
        assert_eq!((failed.level.as_str(), failed.problem), ("failed", true));
        assert_eq!(network_entry(None, Some(7), None, false).status, None);
    }

    #[test]
    fn cursors_page_filters_and_eviction() {
        let mut log = EvidenceLog::default();
        for i in 0..(MAX_ENTRIES_PER_TAB + 5) {
            log.file(
                "T",
                console_entry(if i % 2 == 0 { "error" } else { "info" }, Some(&format!("Line {i}"))),
            );
        }
        let first = log.query("T", &all(3), None).expect("answers");
        assert_eq!(first.evicted, 5);
        assert!(first.truncated && !first.tracking_started);
        assert_eq!(first.entries[0].text.as_deref(), Some("Line 5"));
        let after = parse_cursor(first.next_cursor.as_deref()).expect("parses");
        let second = log.query("T", &all(2), after).expect("answers");
        assert_eq!(second.entries[0].text.as_deref(), Some("Line 8"));
        // The whole rest: not truncated, and the cursor is the newest entry.
        let rest = log.query("T", &all(5_000), after).expect("answers");
        assert!(!rest.truncated);
        assert_eq!(rest.next_cursor.as_deref(), Some("1005"));
        let none = log.query("T", &all(5), Some(1005)).expect("answers");
        assert!(none.entries.is_empty() && !none.truncated);
        let mut matching = query(DiagnoseSource::Console, DiagnoseDetail::All, 5_000);
        matching.pattern = Some("LINE 100".into());
        // "Line 100" and "Line 1000" … "Line 1004".
        assert_eq!(log.query("T", &matching, None).expect("answers").entries.len(), 6);
        let problems = query(DiagnoseSource::Both, DiagnoseDetail::Problems, 5_000);
        assert!(log.query("T", &problems, None).expect("answers").entries.iter().all(|e| e.problem));
        assert!(log.query("T", &all(5), Some(1006)).is_err());
        log.lost("T", 3);
        assert_eq!(log.query("T", &all(1), None).expect("answers").evicted, 8);
        for garbage in ["", "abc", "-1", "1.5", "123456789012345678901", " 1"] {
            let error = parse_cursor(Some(garbage)).expect_err(garbage);
            assert_eq!(error.kind(), PortErrorKind::InvalidInput);
        }
        log.forget("T");
        assert!(log.query("T", &all(5), None).expect("answers").entries.is_empty());
    }

    #[test]
    fn tab_buffers_are_bounded() {
        let mut log = EvidenceLog::default();
        for tab in 0..(MAX_TABS + 3) {
            log.file(&format!("T{tab}"), console_entry("error", Some("x")));
        }
        assert_eq!(log.tabs().count(), MAX_TABS);
        assert!(log.tabs().all(|t| t != "T0"));
    }
}
