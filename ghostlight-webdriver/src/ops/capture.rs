//! Capturing images: viewport, full page, element, region.
//!
//! Not implemented yet. See `docs/webdriver-findings.md` §5 (Chromium full page through
//! `Session::cdp("Page.captureScreenshot", …)`, Firefox `moz/screenshot/full`; compute the
//! image-to-CSS scale from each capture).

use std::time::Duration;

use ghostlight_core::port::{CaptureKind, Captured, PortResult, TabRef};

use super::not_implemented;
use crate::session::Session;

/// Capture an image of `tab`.
pub(crate) async fn capture(
    s: &mut Session,
    tab: &TabRef,
    kind: &CaptureKind,
    timeout: Duration,
) -> PortResult<Captured> {
    let _ = (s, tab, kind, timeout);
    Err(not_implemented("capture"))
}
