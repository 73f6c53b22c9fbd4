//! Captures through the extension beyond the viewport: the full page, one element, a region.
//! The bounds and geometry are core's ([`ghostlight_core::port::capture`]), shared with the
//! WebDriver adapter; every capture states where its image sits (`origin`) and its measured
//! scale (`css_per_pixel`: the CSS extent captured over the PNG's own width).
//!
//! - **Chromium**: `Page.captureScreenshot` through `chrome.debugger`, clipped to the
//!   rectangle (document CSS pixels) and beyond the viewport.
//! - **Firefox** (no debugger): the visible tab, cropped in the extension. A region outside
//!   the viewport and the full page answer [`PortErrorKind::Unsupported`].
//! - **Element**: scrolled into view (the scroll stays), then its part inside the viewport is
//!   captured, as the WebDriver adapter's element screenshots show.
//! - **Region**: resized in the extension to `round(width × scale) × round(height × scale)`.

use std::time::Duration;

use ghostlight_core::port::capture::{check_full_page, inside_viewport, region_size, visible_part};
use ghostlight_core::port::{
    BrowserPort, Captured, CssRect, ElementRef, PortError, PortErrorKind, PortResult,
};
use serde::Deserialize;

use crate::browser::ExtensionBrowser;
use crate::convert::{self, unsupported};
use crate::perception::{self, page_call};
use crate::protocol::{Op, PageFn, WireCapture};

/// The engine without `chrome.debugger`, which captures only the viewport.
const FIREFOX: &str = "firefox";

/// The CSS size of the whole document (the page API's `pageSize`).
#[derive(Debug, Deserialize)]
struct PageSize {
    width: f64,
    height: f64,
}

/// Capture `rect` (document CSS pixels) of `tab`, at its natural scale or resized to `out`.
async fn area(
    b: &ExtensionBrowser,
    tab: i64,
    rect: CssRect,
    out: Option<(u32, u32)>,
    wait: Duration,
) -> PortResult<Captured> {
    let op = Op::CaptureArea {
        tab,
        x: rect.x,
        y: rect.y,
        width: rect.width,
        height: rect.height,
        out_width: out.map(|(w, _)| w),
        out_height: out.map(|(_, h)| h),
    };
    let mut captured = convert::capture(b.call::<WireCapture>(op, wait).await?)?;
    captured.origin = (rect.x, rect.y);
    captured.css_per_pixel = rect.width / f64::from(captured.width.max(1));
    Ok(captured)
}

/// The whole page (Chromium only).
pub(crate) async fn full_page(b: &ExtensionBrowser, tab: i64, wait: Duration) -> PortResult<Captured> {
    if b.engine() == FIREFOX {
        return Err(unsupported("capturing the full page on Firefox"));
    }
    let size: PageSize = page_call(b, tab, 0, PageFn::PageSize, Vec::new()).await?;
    let geometry = b.geometry(&convert::tab_ref(tab)).await?;
    check_full_page(size.width, size.height, geometry.device_scale)?;
    area(b, tab, CssRect { x: 0.0, y: 0.0, width: size.width, height: size.height }, None, wait).await
}

/// One element, scrolled into view: its part inside the viewport.
pub(crate) async fn element(
    b: &ExtensionBrowser,
    tab: i64,
    element: &ElementRef,
    wait: Duration,
) -> PortResult<Captured> {
    let found = perception::element_box(b, tab, element, true).await?;
    if found.rect.width < 1.0 || found.rect.height < 1.0 {
        return Err(PortError::new(
            PortErrorKind::InvalidInput,
            "the element has no visible area to capture",
        ));
    }
    let geometry = b.geometry(&convert::tab_ref(tab)).await?;
    area(b, tab, visible_part(&found.rect, &geometry), None, wait).await
}

/// A rectangle of the document at `scale` image pixels per CSS pixel.
pub(crate) async fn region(
    b: &ExtensionBrowser,
    tab: i64,
    rect: &CssRect,
    scale: f64,
    wait: Duration,
) -> PortResult<Captured> {
    let out = region_size(rect, scale)?;
    if b.engine() == FIREFOX {
        let geometry = b.geometry(&convert::tab_ref(tab)).await?;
        if !inside_viewport(rect, &geometry) {
            return Err(unsupported("capturing a region outside the viewport on Firefox"));
        }
    }
    area(b, tab, *rect, Some(out), wait).await
}
