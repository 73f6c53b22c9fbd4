//! JavaScript dialogs through the extension: whether one blocks a tab, of which kind, and
//! resolving it.
//!
//! Chromium: the extension keeps `chrome.debugger` attached to the tabs Ghostlight drives and
//! notes the kind of each dialog from `Page.javascriptDialogOpening` (never its text), and
//! resolves it with `Page.handleJavaScriptDialog`. A dialog opened before the debugger was
//! attached to its tab is not seen. Firefox gives extensions no way to see or answer a
//! dialog: both operations answer [`PortErrorKind::Unsupported`] there.

use std::time::Duration;

use ghostlight_core::port::{DialogKind, DialogResolution, PortResult, TabRef};

use crate::browser::{ExtensionBrowser, OP_WAIT, millis, waited};
use crate::convert::dialog_kind;
use crate::protocol::{Op, WireDialogKind};

/// The longest wait for the navigation an accepted leave-page prompt held.
const LEAVE_LANDING: Duration = Duration::from_secs(5);

/// Refuse dialogs where the extension cannot see them.
fn seen_dialogs(b: &ExtensionBrowser) -> PortResult<()> {
    b.refuse_on_firefox(
        "dialogs",
        "Firefox gives extensions no way to see or answer a page's alert, confirm or prompt",
    )
}

/// The dialog blocking `tab`, if any.
pub(crate) async fn dialog(b: &ExtensionBrowser, tab: &TabRef) -> PortResult<Option<DialogKind>> {
    seen_dialogs(b)?;
    let kind: Option<WireDialogKind> = b.call(Op::Dialog { tab: b.tab_id(tab)? }, OP_WAIT).await?;
    Ok(kind.map(dialog_kind))
}

/// Resolve the dialog blocking `tab`; answers its kind.
pub(crate) async fn resolve_dialog(
    b: &ExtensionBrowser,
    tab: &TabRef,
    resolution: &DialogResolution,
) -> PortResult<DialogKind> {
    seen_dialogs(b)?;
    let (accept, text) = match resolution {
        DialogResolution::Accept => (true, None),
        DialogResolution::Dismiss => (false, None),
        DialogResolution::Respond(text) => (true, Some(text.clone())),
    };
    let op = Op::ResolveDialog { tab: b.tab_id(tab)?, accept, text, timeout_ms: millis(LEAVE_LANDING) };
    let kind: WireDialogKind = b.call(op, waited(LEAVE_LANDING).max(OP_WAIT)).await?;
    Ok(dialog_kind(kind))
}
