//! Console and network evidence (`diagnostics`).
//!
//! Not implemented yet. See `docs/webdriver-findings.md` §8: sessions already ask for
//! `webSocketUrl: true`, so a WebDriver BiDi connection can subscribe to `log.entryAdded` and
//! `network.*` (a BiDi context id equals the tab's window handle).

use ghostlight_core::port::{DiagnosticsPage, DiagnosticsQuery, PortResult, TabRef};

use super::not_implemented;
use crate::session::Session;

/// Console and network evidence of `tab`.
pub(crate) async fn diagnostics(
    s: &mut Session,
    tab: &TabRef,
    query: &DiagnosticsQuery,
) -> PortResult<DiagnosticsPage> {
    let _ = (s, tab, query);
    Err(not_implemented("diagnostics"))
}
