//! Pointer and keyboard input, fills and uploads: `click`, `hover`, `scroll`, `drag`,
//! `fill`, `type_text`, `press_keys`, `upload`.
//!
//! Not implemented yet. See `docs/webdriver-findings.md` §4 (drag) and §7 (input); resolve
//! element targets with `Session::element(tab, element)`, and answer the page state with
//! `Session::page_state()` after acting.

use std::time::Duration;

use ghostlight_core::port::{
    ActionReceipt, ClickInput, FillInput, FillOutcome, KeyInput, PointerTarget, PortResult, ScrollInput,
    ScrollOutcome, TabRef, TypeInput, UploadInput, UploadOutcome,
};

use super::not_implemented;
use crate::session::Session;

/// Click.
pub(crate) async fn click(
    s: &mut Session,
    tab: &TabRef,
    input: &ClickInput,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    let _ = (s, tab, input, timeout);
    Err(not_implemented("click"))
}

/// Move the pointer over a target.
pub(crate) async fn hover(
    s: &mut Session,
    tab: &TabRef,
    at: &PointerTarget,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    let _ = (s, tab, at, timeout);
    Err(not_implemented("hover"))
}

/// Scroll.
pub(crate) async fn scroll(
    s: &mut Session,
    tab: &TabRef,
    input: &ScrollInput,
    timeout: Duration,
) -> PortResult<ScrollOutcome> {
    let _ = (s, tab, input, timeout);
    Err(not_implemented("scroll"))
}

/// Drag from one target to another.
pub(crate) async fn drag(
    s: &mut Session,
    tab: &TabRef,
    from: &PointerTarget,
    to: &PointerTarget,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    let _ = (s, tab, from, to, timeout);
    Err(not_implemented("drag"))
}

/// Fill controls.
pub(crate) async fn fill(
    s: &mut Session,
    tab: &TabRef,
    input: &FillInput,
    timeout: Duration,
) -> PortResult<FillOutcome> {
    let _ = (s, tab, input, timeout);
    Err(not_implemented("fill"))
}

/// Type text through input events.
pub(crate) async fn type_text(
    s: &mut Session,
    tab: &TabRef,
    input: &TypeInput,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    let _ = (s, tab, input, timeout);
    Err(not_implemented("type_text"))
}

/// Press keys.
pub(crate) async fn press_keys(
    s: &mut Session,
    tab: &TabRef,
    input: &KeyInput,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    let _ = (s, tab, input, timeout);
    Err(not_implemented("press_keys"))
}

/// Upload files to a file input or drop them at a point.
pub(crate) async fn upload(
    s: &mut Session,
    tab: &TabRef,
    input: &UploadInput,
    timeout: Duration,
) -> PortResult<UploadOutcome> {
    let _ = (s, tab, input, timeout);
    Err(not_implemented("upload"))
}
