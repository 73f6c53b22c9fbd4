//! JavaScript dialogs: whether one is open, of which kind, and resolving it.
//!
//! Classic WebDriver says *whether* a dialog is open (`Get Alert Text` succeeds; its text is
//! dropped unread) but not its kind. The kind comes from, in order:
//! 1. the engine's own error for a blocked command: Chromium answers an `InvalidArgument`
//!    "Unexpected dialog type beforeunload" for a `beforeunload` prompt, and Firefox names
//!    the type in every `UnexpectedAlertOpen` ("Unexpected confirm dialog detected");
//! 2. after a dialog is resolved, the page-side record left by the page-state hooks, which
//!    wrap `window.alert/confirm/prompt` in every document the adapter has looked at and note
//!    the kind before the dialog opens (no script can run while it is open);
//! 3. otherwise [`UNKNOWN_DIALOG_KIND`]: `confirm`, the kind whose two answers (accept,
//!    dismiss) fit every dialog. This is what Chromium reports for an open alert, confirm or
//!    prompt until the adapter listens to WebDriver BiDi's `browsingContext.userPromptOpened`,
//!    which carries the type.

use ghostlight_core::port::{DialogKind, DialogResolution, PortError, PortErrorKind, PortResult, TabRef};

use crate::errors::{self, Sent};
use crate::page;
use crate::session::Session;

/// The kind reported for an open dialog whose kind neither engine nor page told.
pub(crate) const UNKNOWN_DIALOG_KIND: DialogKind = DialogKind::Confirm;

/// Whether a dialog is open in the current tab: `None` when none is, `Some(kind)` with the
/// kind when the engine names it.
pub(crate) async fn probe(s: &mut Session) -> PortResult<Option<Option<DialogKind>>> {
    match s.client().get_alert_text().await {
        // The text is dropped: it is page content and never stored.
        Ok(_) => {}
        Err(e) if e.is_no_such_alert() => return Ok(None),
        Err(e) => return Err(errors::cmd(&e, Sent::Read)),
    }
    // A read that the open dialog refuses; its error shape may name the kind.
    match s.client().current_url().await {
        Ok(_) => Ok(Some(None)),
        Err(e) if errors::is_dialog(&e) => Ok(Some(errors::dialog_hint(&e))),
        Err(e) => Err(errors::cmd(&e, Sent::Read)),
    }
}

/// The dialog blocking `tab`, if any.
pub(crate) async fn dialog(s: &mut Session, tab: &TabRef) -> PortResult<Option<DialogKind>> {
    s.tab(tab).await?;
    Ok(probe(s).await?.map(|kind| kind.unwrap_or(UNKNOWN_DIALOG_KIND)))
}

/// Resolve the dialog blocking `tab`; answers its kind ([`PortErrorKind::InvalidInput`] when
/// none is open, or when a response is given to a dialog known not to be a prompt).
pub(crate) async fn resolve_dialog(
    s: &mut Session,
    tab: &TabRef,
    resolution: &DialogResolution,
) -> PortResult<DialogKind> {
    s.tab(tab).await?;
    let Some(known) = probe(s).await? else {
        return Err(PortError::new(PortErrorKind::InvalidInput, "no dialog is open"));
    };
    let act = |e: fantoccini::error::CmdError| errors::cmd(&e, Sent::Act);
    match resolution {
        DialogResolution::Accept => s.client().accept_alert().await.map_err(act)?,
        DialogResolution::Dismiss => s.client().dismiss_alert().await.map_err(act)?,
        DialogResolution::Respond(text) => {
            if known.is_some_and(|kind| kind != DialogKind::Prompt) {
                return Err(PortError::new(PortErrorKind::InvalidInput, "only a prompt takes a response"));
            }
            // A driver refuses text for an alert or confirm (ElementNotInteractable →
            // InvalidInput, nothing done).
            s.client().send_alert_text(text).await.map_err(|e| errors::cmd(&e, Sent::Read))?;
            s.client().accept_alert().await.map_err(act)?;
        }
    }
    if let Some(kind) = known {
        return Ok(kind);
    }
    Ok(take_record(s).await.unwrap_or(UNKNOWN_DIALOG_KIND))
}

/// The page's record of the dialog just resolved (see the module docs), read and cleared.
async fn take_record(s: &mut Session) -> Option<DialogKind> {
    let value = s.execute(page::TAKE_DIALOG_RECORD, Vec::new(), Sent::Read).await.ok()?;
    match value.as_str()? {
        "alert" => Some(DialogKind::Alert),
        "confirm" => Some(DialogKind::Confirm),
        "prompt" => Some(DialogKind::Prompt),
        _ => None,
    }
}
