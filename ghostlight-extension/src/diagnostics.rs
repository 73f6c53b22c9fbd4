//! Console and network evidence (`diagnostics`) through the extension.
//!
//! The extension gathers evidence of a tab once the first call for it starts tracking
//! (`extension/diagnostics.js` says from which browser events), and each call takes what it
//! gathered since the last one. The server files it into core's bounded [`EvidenceLog`] (the
//! same bounds, cursor and filters as the WebDriver adapter's) and answers the query from
//! there, so reads stay non-destructive.
//!
//! - Network evidence comes from `webRequest` on both engines; URLs are cleaned again here
//!   ([`clean_url`]).
//! - Console evidence exists on Chromium only (through the debugger). Firefox gives extensions
//!   no access to a page's console: asking for the console source there answers
//!   [`PortErrorKind::Unsupported`](ghostlight_core::port::PortErrorKind::Unsupported); the
//!   default (both sources) answers the network evidence.
//! - `tracking_started` is the extension's: true when this call started tracking the tab. A
//!   tab the extension starts tracking anew (it restarted, or the browser did and reused the
//!   id) loses what the server held for it: its earlier cursors are no longer valid.

use std::sync::{Mutex, MutexGuard, PoisonError};

use ghostlight_core::port::{
    DiagnoseSource, DiagnosticEntry, DiagnosticsPage, DiagnosticsQuery, PortResult, TabRef,
};
use ghostlight_page::evidence::{
    EvidenceLog, MAX_ENTRIES_PER_TAB, MAX_TEXT_CHARS, clean_method, clean_url, console_entry, network_entry,
    parse_cursor,
};

use crate::browser::{ExtensionBrowser, OP_WAIT};
use crate::protocol::{Op, WireEvidence, WireEvidenceEntry};

/// The evidence the server keeps, per browser tab id.
#[derive(Debug, Default)]
pub(crate) struct Evidence {
    /// The bounded log.
    log: Mutex<EvidenceLog>,
}

impl Evidence {
    fn lock(&self) -> MutexGuard<'_, EvidenceLog> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Console and network evidence of `tab`.
pub(crate) async fn diagnostics(
    b: &ExtensionBrowser,
    tab: &TabRef,
    query: &DiagnosticsQuery,
) -> PortResult<DiagnosticsPage> {
    if query.source == DiagnoseSource::Console {
        b.refuse_on_firefox(
            "reading the console",
            "Firefox gives extensions no access to a page's console, and a page script wrapping it would report only what the page lets it",
        )?;
    }
    let after = parse_cursor(query.after.as_deref())?;
    let id = b.tab_id(tab)?;
    let op =
        Op::DiagnosticsTake { tab: id, max_entries: MAX_ENTRIES_PER_TAB, max_text_chars: MAX_TEXT_CHARS };
    let taken: WireEvidence = b.call(op, OP_WAIT).await?;
    let key = id.to_string();
    let mut log = b.evidence().lock();
    if taken.started {
        log.forget(&key);
    }
    log.lost(&key, taken.lost);
    for entry in taken.entries {
        log.file(&key, entry_of(entry));
    }
    let page = log.query(&key, query, after)?;
    Ok(DiagnosticsPage { tracking_started: taken.started, ..page })
}

/// A gathered entry as the port's, its URL cleaned and its text bounded.
fn entry_of(wire: WireEvidenceEntry) -> DiagnosticEntry {
    match wire {
        WireEvidenceEntry::Console { level, text } => {
            let level = match level.as_str() {
                "error" | "warning" | "debug" | "exception" => level.as_str(),
                _ => "info",
            };
            console_entry(level, Some(&text))
        }
        WireEvidenceEntry::Network { method, status, url, failed } => network_entry(
            clean_method(&method),
            (!failed && status != 0).then_some(status),
            url.as_deref().and_then(clean_url),
            failed,
        ),
    }
}

#[cfg(test)]
mod tests {
    use ghostlight_core::port::DiagnosticSource;

    use super::*;

    #[test]
    fn gathered_entries_become_port_entries() {
        let error = entry_of(WireEvidenceEntry::Console { level: "error".into(), text: "boom".into() });
        assert_eq!(
            (error.source, error.level.as_str(), error.problem),
            (DiagnosticSource::Console, "error", true)
        );
        let odd = entry_of(WireEvidenceEntry::Console { level: "table".into(), text: String::new() });
        assert_eq!((odd.level.as_str(), odd.problem), ("info", false));
        let missing = entry_of(WireEvidenceEntry::Network {
            method: "GET".into(),
            status: 404,
            url: Some("http://u:p@127.0.0.1:8/missing.png?k=v#f".into()),
            failed: false,
        });
        assert_eq!(missing.status, Some(404));
        assert!(missing.problem);
        assert_eq!(missing.url.as_ref().map(url::Url::as_str), Some("http://127.0.0.1:8/missing.png"));
        let failed = entry_of(WireEvidenceEntry::Network {
            method: "not a method".into(),
            status: 0,
            url: Some("data:text/plain,x".into()),
            failed: true,
        });
        assert_eq!((failed.level.as_str(), failed.status, failed.method), ("failed", None, None));
        assert_eq!(failed.url.as_ref().map(url::Url::as_str), Some("data:"));
    }
}
