//! Tabs: list, open, focus, close, and the page state of one tab.

use std::time::Duration;

use ghostlight_core::port::Readiness;
use ghostlight_core::port::{
    Focused, NavigateInput, OpenedTab, PageState, PortErrorKind, PortResult, TabInfo, TabRef,
};

use crate::errors::{self, Sent};
use crate::session::Session;

use super::navigation;

/// Every window in creation order with its page state. `active` marks the tab most
/// recently opened or focused through the adapter that is still open (or, failing that, the
/// driver's current window, or the first). A tab a dialog blocks answers its last known page with readiness
/// `unknown`.
pub(crate) async fn tabs(s: &mut Session) -> PortResult<Vec<TabInfo>> {
    let handles: Vec<String> = s
        .client()
        .windows()
        .await
        .map_err(|e| errors::cmd(&e, Sent::Read))?
        .into_iter()
        .map(String::from)
        .collect();
    let active = pick_active(s, &handles);
    let mut listed = Vec::with_capacity(handles.len());
    for handle in &handles {
        match s.switch_to(handle).await {
            Err(e) if e.kind() == PortErrorKind::TabGone => continue,
            other => other?,
        }
        let page = match s.page_state().await {
            Ok(page) => page,
            Err(e) if e.kind() == PortErrorKind::TabGone => continue,
            Err(e) if e.kind() == PortErrorKind::BlockedByDialog => match s.last_page(handle) {
                Some(last) => PageState { readiness: Readiness::Unknown, ..last.clone() },
                None => return Err(e),
            },
            Err(e) => return Err(e),
        };
        listed.push(TabInfo {
            tab: s.tab_ref(handle),
            page,
            active: active.as_deref() == Some(handle.as_str()),
        });
    }
    if let Some(active) = active {
        // Leave the driver on the active tab, as a person would see it.
        match s.switch_to(&active).await {
            Err(e) if e.is_connection_lost() => return Err(e),
            _ => {}
        }
    }
    Ok(listed)
}

/// The active tab among `handles`: the most recently opened or focused one still open (so
/// closing the active tab gives the activity back to the tab active before it), else the
/// driver's current window, else the first.
fn pick_active(s: &Session, handles: &[String]) -> Option<String> {
    let open = |h: &str| handles.iter().any(|x| x == h);
    s.recent_tabs()
        .find(|h| open(h))
        .or_else(|| s.current().filter(|h| open(h)))
        .map(str::to_owned)
        .or_else(|| handles.first().cloned())
}

/// Open a tab, switch to it and navigate it. A failed navigation closes the new tab again
/// (best effort) and answers the navigation's error.
pub(crate) async fn open_tab(
    s: &mut Session,
    input: &NavigateInput,
    timeout: Duration,
) -> PortResult<OpenedTab> {
    // New Window needs a current window: after a tab was closed (by a page, or past the
    // driver) the driver has none until it is switched to a live one.
    if s.current().is_none() {
        let windows = s.client().windows().await.map_err(|e| errors::cmd(&e, Sent::Read))?;
        if let Some(live) = windows.into_iter().map(String::from).next() {
            s.switch_to(&live).await?;
        }
    }
    let handle = match s.client().new_window(true).await.map_err(|e| errors::cmd(&e, Sent::Act)) {
        Ok(created) => String::from(created.handle),
        // The current tab's dialog keeps classic WebDriver from opening a tab (an endless
        // dialog loop would keep it so): the browser opens one through the second channel.
        Err(e) if e.kind() == PortErrorKind::BlockedByDialog => s.open_past_driver().await.map_err(|_| e)?,
        Err(e) => return Err(e),
    };
    s.know_window(&handle);
    s.switch_to(&handle).await?;
    s.set_active(&handle);
    match navigation::go(s, &input.url, timeout, input.discard_beforeunload).await {
        Ok(page) => Ok(OpenedTab { tab: s.tab_ref(&handle), page }),
        Err(error) => {
            if !error.is_connection_lost() && s.switch_to(&handle).await.is_ok() {
                let _ = s.client().close_window().await;
                s.forget_current();
                s.forget_tab(&handle);
            }
            Err(error)
        }
    }
}

/// Select `tab` (Switch To Window, which also brings the tab to the front of its window).
/// The operating-system focus is reported only for a headed browser, as
/// `document.hasFocus()` sees it.
pub(crate) async fn focus_tab(s: &mut Session, tab: &TabRef) -> PortResult<Focused> {
    let handle = s.handle_of(tab)?;
    // Always send the switch, even when the driver is already on this window: the page may
    // have brought another tab to the front meanwhile.
    s.forget_current();
    s.switch_to(&handle).await?;
    s.set_active(&handle);
    if s.headless() {
        return Ok(Focused { window_focused: false });
    }
    let focused = s.execute("return document.hasFocus();", Vec::new(), Sent::Read).await;
    Ok(Focused { window_focused: matches!(focused, Ok(serde_json::Value::Bool(true))) })
}

/// Close `tab` ([`PortErrorKind::TabGone`] when it is already closed). Closing the last
/// window would end the WebDriver session, so a blank tab is opened first in that case.
/// Afterwards the driver is switched to the active tab, or the last remaining one.
///
/// A tab whose dialog keeps classic WebDriver from closing it (an endless `alert()` loop
/// reopens the dialog as soon as it is answered) is closed through the second channel
/// (`rescue.rs`), with no unload prompt.
pub(crate) async fn close_tab(s: &mut Session, tab: &TabRef) -> PortResult<()> {
    let handle = s.tab(tab).await?;
    let windows = s.client().windows().await.map_err(|e| errors::cmd(&e, Sent::Read))?;
    if windows.len() <= 1 {
        match s.client().new_window(true).await.map_err(|e| errors::cmd(&e, Sent::Act)) {
            Ok(_) => {}
            Err(e) if e.kind() == PortErrorKind::BlockedByDialog => {
                s.open_past_driver().await.map_err(|_| e)?;
            }
            Err(e) => return Err(e),
        }
    }
    s.switch_to(&handle).await?;
    match s.client().close_window().await.map_err(|e| errors::cmd(&e, Sent::Act)) {
        Ok(_) => {
            s.forget_current();
            s.forget_tab(&handle);
        }
        Err(e) if e.kind() == PortErrorKind::BlockedByDialog => {
            s.close_past_driver(&handle).await.map_err(|_| e)?;
        }
        Err(e) => return Err(e),
    }
    let remaining: Vec<String> = s
        .client()
        .windows()
        .await
        .map_err(|e| errors::cmd(&e, Sent::Read))?
        .into_iter()
        .map(String::from)
        .collect();
    if let Some(next) = pick_active(s, &remaining) {
        s.switch_to(&next).await?;
        s.set_active(&next);
    }
    Ok(())
}

/// What `tab` shows now.
pub(crate) async fn page(s: &mut Session, tab: &TabRef) -> PortResult<PageState> {
    s.tab(tab).await?;
    s.settled_page_state().await
}
