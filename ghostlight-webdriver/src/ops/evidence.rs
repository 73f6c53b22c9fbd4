//! `diagnostics`: console and network evidence of a tab, read from the session's
//! [`Tracker`] (`watch/evidence.rs` holds what is filed and how), attached to the session's
//! BiDi connection with the session (`Diagnostics::OnStart`) or on first use.

use std::sync::{Arc, Mutex};

use ghostlight_core::port::{
    DiagnosticsPage, DiagnosticsQuery, PortError, PortErrorKind, PortResult, TabRef,
};
use ghostlight_page::evidence::parse_cursor;

use crate::session::Session;
use crate::watch::evidence::{Store, Tracker, lock};

/// Console and network evidence of `tab`.
pub(crate) async fn diagnostics(
    s: &mut Session,
    tab: &TabRef,
    query: &DiagnosticsQuery,
) -> PortResult<DiagnosticsPage> {
    let after = parse_cursor(query.after.as_deref())?;
    // Checks the tab exists in this session (a BiDi context id is the window handle).
    let handle = s.tab(tab).await?;
    let store = tracker(s).await?;
    let mut store = lock(&store);
    store.query(&handle, query, after)
}

/// The session's tracker, subscribing the session's BiDi connection when there is none.
async fn tracker(s: &mut Session) -> PortResult<Arc<Mutex<Store>>> {
    if s.bidi_is_open()
        && let Some(tracker) = s.evidence().as_ref()
    {
        return Ok(tracker.store());
    }
    *s.evidence() = None;
    let watchers = Arc::clone(s.watchers());
    let Some(bidi) = s.bidi() else {
        return Err(PortError::new(
            PortErrorKind::Unsupported,
            "no WebDriver BiDi connection: the driver granted no webSocketUrl, or it could not be opened",
        ));
    };
    // On demand: evidence before this moment is gone, which the first query of each tab says.
    let tracker = Tracker::attach(bidi, &watchers, false).await?;
    let store = tracker.store();
    *s.evidence() = Some(tracker);
    Ok(store)
}
