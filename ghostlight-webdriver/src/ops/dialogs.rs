//! JavaScript dialogs: whether one is open, of which kind, and resolving it.
//!
//! Classic WebDriver says *whether* a dialog is open (Get Current URL fails while one is; the
//! adapter never asks for its text) but not its kind. The kind comes from, in order:
//! 1. the engine's own error for a blocked command: Chromium answers an `InvalidArgument`
//!    "Unexpected dialog type beforeunload" for a `beforeunload` prompt, and Firefox names
//!    the type in every `UnexpectedAlertOpen` ("Unexpected confirm dialog detected");
//! 2. WebDriver BiDi: a session subscribes its BiDi connection (a `PromptWatch`,
//!    `watch/prompts.rs`) to `browsingContext.userPromptOpened`/`userPromptClosed`, which
//!    carry the type of the dialog per browsing context (a context id is the window handle).
//!    Chromium's classic errors never name an alert, confirm or prompt, so this is how
//!    Chromium learns them; on both engines a page read of a window whose dialog was
//!    announced answers without a command (the subscription takes 2–50 ms of a session's
//!    start);
//! 3. after a dialog is resolved, the page-side record left by the page-state hooks, which
//!    wrap `window.alert/confirm/prompt` in every document the adapter has looked at and note
//!    the kind before the dialog opens (no script can run while it is open);
//! 4. otherwise [`UNKNOWN_DIALOG_KIND`]: `confirm`, the kind whose two answers (accept,
//!    dismiss) fit every dialog (a dialog opened in a frame, or a driver without BiDi).

use std::time::Duration;

use ghostlight_core::port::{
    DialogKind, DialogResolution, PageState, PortError, PortErrorKind, PortResult, TabRef,
};
use tokio::time::Instant;

use crate::errors::{self, Sent};
use crate::page;
use crate::session::{Prompt, Session};

use super::navigation::{self, LeavePrompt};

/// The kind reported for an open dialog whose kind neither engine nor page told.
pub(crate) const UNKNOWN_DIALOG_KIND: DialogKind = DialogKind::Confirm;
/// How long accepting a leave-page prompt waits for the navigation it held to show its
/// document.
const LEAVE_LANDING_WAIT: Duration = Duration::from_secs(5);

/// How long a probe that found a dialog open waits for its BiDi announcement (the event and
/// the classic command race on two connections).
const PROMPT_EVENT_WAIT: Duration = Duration::from_millis(300);
/// Pause between two looks at the announcements while waiting.
const PROMPT_EVENT_POLL: Duration = Duration::from_millis(10);

/// Whether a dialog is open in the current tab: `None` when none is, `Some(kind)` with the
/// kind when the engine names it or BiDi announced it.
///
/// At most one command: Get Current URL, which the session's `ignore` prompt behaviour makes fail
/// while a dialog is open (the error's shape may name the kind), and which never carries the
/// dialog's text (Get Alert Text would).
///
/// No command at all when the command sent last already told ([`Session::noted_prompt`]: a
/// page-state read that ran, or was refused for a prompt, or an earlier probe).
pub(crate) async fn probe(s: &mut Session) -> PortResult<Option<Option<DialogKind>>> {
    // In a shared browser the announcement is trusted first: a classic probe would accept a
    // leave-page prompt there (see `Session::switch_to`).
    if s.is_seated()
        && let Some(kind) = s.announced_prompt()
    {
        return Ok(Some(Some(kind)));
    }
    let hint = match s.noted_prompt() {
        Some(Prompt::Closed) => return Ok(None),
        Some(Prompt::Open(hint)) => hint,
        None => match s.client().current_url().await {
            Ok(_) => {
                s.note_prompt(Prompt::Closed);
                return Ok(None);
            }
            Err(e) if errors::is_dialog(&e) => {
                let hint = errors::dialog_hint(&e);
                s.note_prompt(Prompt::Open(hint));
                hint
            }
            Err(e) => return Err(errors::cmd(&e, Sent::Read)),
        },
    };
    Ok(Some(match hint {
        Some(kind) => Some(kind),
        None => announced(s).await,
    }))
}

/// The kind BiDi announced for the dialog open in the current window, waiting briefly for
/// the announcement; `None` without a watch, or for a dialog it never saw (one opened in a
/// frame's own context, say).
async fn announced(s: &Session) -> Option<DialogKind> {
    let (watch, handle) = (s.prompts()?, s.current()?);
    let deadline = Instant::now() + PROMPT_EVENT_WAIT;
    loop {
        if let Some(kind) = watch.kind(handle) {
            return Some(kind);
        }
        if Instant::now() >= deadline || !s.bidi_is_open() {
            return None;
        }
        tokio::time::sleep(PROMPT_EVENT_POLL).await;
    }
}

/// The dialog blocking `tab`, if any.
pub(crate) async fn dialog(s: &mut Session, tab: &TabRef) -> PortResult<Option<DialogKind>> {
    if let Some(kind) = seated_prompt(s, tab)? {
        return Ok(Some(kind));
    }
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
    if let Some(kind) = seated_prompt(s, tab)? {
        return resolve_over_bidi(s, tab, kind, resolution).await;
    }
    s.tab(tab).await?;
    let Some(known) = probe(s).await? else {
        return Err(PortError::new(PortErrorKind::InvalidInput, "no dialog is open"));
    };
    let act = |e: fantoccini::error::CmdError| errors::cmd(&e, Sent::Act);
    // The page the prompt belongs to, to see an accepted leave-page prompt's navigation land.
    let held = s.current().and_then(|handle| s.last_page(handle)).cloned();
    // Whatever the driver answers, the announcement of this dialog no longer stands: it was
    // resolved, or none was open.
    s.forget_prompt();
    match resolution {
        DialogResolution::Accept if known == Some(DialogKind::BeforeUnload) => {
            s.client().accept_alert().await.map_err(act)?;
            if let Some(before) = held {
                leave_landing(s, &before).await?;
            }
            return Ok(DialogKind::BeforeUnload);
        }
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

/// The dialog BiDi announced in `tab` when the session shares its browser (answered over
/// BiDi, never through its classic session: see `Session::switch_to`); `None` otherwise.
fn seated_prompt(s: &Session, tab: &TabRef) -> PortResult<Option<DialogKind>> {
    if !s.is_seated() {
        return Ok(None);
    }
    let handle = s.handle_of(tab)?;
    Ok(s.prompts().and_then(|watch| watch.kind(&handle)))
}

/// Resolve the dialog `kind` open in `tab` over BiDi (a session in a shared browser).
async fn resolve_over_bidi(
    s: &mut Session,
    tab: &TabRef,
    kind: DialogKind,
    resolution: &DialogResolution,
) -> PortResult<DialogKind> {
    let handle = s.handle_of(tab)?;
    let held = s.last_page(&handle).cloned();
    match resolution {
        DialogResolution::Accept => s.answer_prompt_over_bidi(&handle, true, None).await?,
        DialogResolution::Dismiss => s.answer_prompt_over_bidi(&handle, false, None).await?,
        DialogResolution::Respond(_) if kind != DialogKind::Prompt => {
            return Err(PortError::new(PortErrorKind::InvalidInput, "only a prompt takes a response"));
        }
        DialogResolution::Respond(text) => s.answer_prompt_over_bidi(&handle, true, Some(text)).await?,
    }
    if kind == DialogKind::BeforeUnload
        && matches!(resolution, DialogResolution::Accept)
        && let Some(before) = held
    {
        s.tab(tab).await?;
        leave_landing(s, &before).await?;
    }
    Ok(kind)
}

/// After an accepted leave-page prompt, the navigation it held goes on from `before`: answer
/// once its document shows, or when [`LEAVE_LANDING_WAIT`] runs out (a navigation may end
/// without a document).
async fn leave_landing(s: &mut Session, before: &PageState) -> PortResult<()> {
    let deadline = Instant::now() + LEAVE_LANDING_WAIT;
    match navigation::wait_for_page(s, before, deadline, LeavePrompt::Dismiss).await {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == PortErrorKind::Timeout => Ok(()),
        Err(e) => Err(e.effect_unknown()),
    }
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
