//! The adapter's operations, one module per area. Each `BrowserPort` method in `lib.rs` is a
//! one-line delegation to a free `async fn` here.
//!
//! # The internal session API (for whoever adds an operation)
//!
//! Every operation is a free function that takes `s: &mut Session` first, then the trait
//! method's own arguments, and answers `PortResult<_>`:
//!
//! ```text
//! pub(crate) async fn click(s: &mut Session, tab: &TabRef, input: &ClickInput, timeout: Duration)
//!     -> PortResult<ActionReceipt>
//! ```
//!
//! `lib.rs` starts the browser lazily, holds the session lock for the whole call (so the
//! operation owns the driver's single "current window" until it returns), and afterwards
//! tears the session down when the error says the browser or driver is gone; the next call
//! then starts a fresh session. An operation therefore never starts, restarts or locks
//! anything itself. What it uses (`crate::session::Session`):
//!
//! - **Switching.** `s.tab(tab).await?` switches to the tab's top-level document (only when
//!   needed) and answers its window handle; a tab of an earlier session or a closed window
//!   answers `TabGone`. `s.element(tab, element).await?` switches into the element's frames
//!   and answers a `fantoccini::elements::Element` ready for `click()`, `rectangle()`, …;
//!   `s.enter_frames(tab, &frames)` is for per-frame passes (perception). Nothing needs to
//!   switch back: the next `s.tab(..)` returns to the top document.
//! - **References.** `s.element_ref(handle, &frames, element_id)` makes the opaque
//!   `ElementRef` for an element found in `frames` (iframe element ids from the top document
//!   down); `s.tab_ref(handle)` the `TabRef`. Never build tokens by hand (`refs.rs` owns the
//!   format).
//! - **Commands.** `s.execute(script, args, sent)` runs a script in the current browsing
//!   context, `s.execute_async(script, args, sent)` one that answers through the driver's
//!   callback (its last argument; `None` when its document unloaded first);
//!   `s.command(SessionCommand::…, sent)` sends a custom WebDriver command;
//!   `s.cdp(method, params, sent)` a Chromium DevTools command (`Unsupported` on Firefox);
//!   `s.client()` is the raw fantoccini client for anything else — map its errors with
//!   `errors::cmd(&error, sent)`. `sent` is `Sent::Read` for commands that cannot change the
//!   page and `Sent::Act` for those that can; it decides `effect: none` or `unknown`.
//! - **Page state.** `s.page_state().await?` answers the current tab's `PageState` (URL,
//!   title, readiness, `DocumentId`); every operation that may change the page answers it
//!   afterwards.
//! - **Timeouts.** `s.set_script_timeout(d)` / `s.set_page_load_timeout(d)` narrow the
//!   driver's own timeouts to the call's `timeout`; they send nothing when already set.
//!   `s.set_script_timeout_at_least(d)` keeps any script timeout from `d` to the read bound
//!   (a script that runs for `d`, such as a wait in the page).
//! - **Per-tab state.** `s.engine()`, `s.zoom(handle)`, `s.set_active(handle)`.
//!
//! Rules: never put a driver's error message, page text or a script into a `PortError` or a
//! log (map errors through `errors::cmd`); no `unwrap()`; bounds and timeouts are named
//! constants.

/// Ghostlight's one DOM semantics (`ghostlight_page::scripts::DOM_JS`): what is shown
/// (`glVisible`, `glAriaHidden`, `glShownText`) and what role and accessible name an element has
/// (`glRole`, `glName`, `glSummary`); see the script's header. Prepended to every script that
/// decides what is shown or names an element, perception's and input's alike ([`with_dom`]).
pub(crate) use ghostlight_page::scripts::{AUTHORITY_URL_JS, with_dom};

/// A script that answers the URL the current document is governed by (`glAuthorityUrl`).
pub(crate) fn authority_url_script() -> String {
    format!("{AUTHORITY_URL_JS}\nreturn glAuthorityUrl(document);")
}

pub(crate) mod dialogs;
pub(crate) mod navigation;
pub(crate) mod script;
pub(crate) mod tabs;
pub(crate) mod window;

pub(crate) mod capture;
pub(crate) mod evidence;
pub(crate) mod frames;
pub(crate) mod input;
pub(crate) mod perception;
pub(crate) mod recording;
pub(crate) mod sandbox;
