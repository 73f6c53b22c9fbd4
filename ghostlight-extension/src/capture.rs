//! Captures through the extension beyond the viewport: the full page, one element, a region.
//! The bounds and geometry are the page crate's ([`ghostlight_page::capture`]), shared with the
//! WebDriver adapter; every capture states where its image sits (`origin`) and its measured
//! scale (`css_per_pixel`: the CSS extent captured over the PNG's own width).
//!
//! - **Chromium**: `Page.captureScreenshot` through `chrome.debugger`, clipped to the
//!   rectangle (document CSS pixels) and beyond the viewport.
//! - **Firefox** (no debugger): `tabs.captureTab` with the rectangle (document CSS pixels),
//!   which renders beyond the viewport too.
//! - **Element**: scrolled into view (the scroll stays), then its part inside the viewport is
//!   captured, as the WebDriver adapter's element screenshots show.
//! - **Region**: resized in the extension to `round(width × scale) × round(height × scale)`.
//!
//! Frames the call's [`Gate`] refuses are painted over, as in the WebDriver adapter: every
//! visible frame whose document the gate refuses, or whose document the extension cannot read,
//! is blanked in the image (its box, measured in its parent document); a refused frame's own
//! frames are covered by it. The boxes are measured right before the capture: a page that
//! moves a frame in between is not caught.

use std::time::Duration;

use ghostlight_core::port::{Captured, CssRect, ElementRef, Gate, PortError, PortErrorKind, PortResult};
use ghostlight_page::capture::{check_full_page, region_size, visible_part};
use ghostlight_page::perceived::MAX_FRAME_DEPTH;
use serde::Deserialize;

use crate::browser::ExtensionBrowser;
use crate::convert::{self, unsupported};
use ghostlight_page::bounds::MAX_WALK_FRAMES;

use crate::perception::{self, FrameDocs, RawFrameBox, RawFrames, admitted, page_call};
use crate::protocol::{Op, PageFn, WireCapture};

/// The CSS size of the whole document (the page API's `pageSize`).
#[derive(Debug, Deserialize)]
struct PageSize {
    width: f64,
    height: f64,
}

/// The boxes (`[x, y, width, height]`, document CSS pixels) of the visible frames of `tab`
/// whose documents `gate` refuses or the extension cannot read. A page with more frames than a
/// walk reads answers [`PortErrorKind::Unsupported`] (fail closed).
async fn refused(b: &ExtensionBrowser, tab: i64, gate: &Gate) -> PortResult<Vec<[f64; 4]>> {
    let top: RawFrames = page_call(b, tab, 0, PageFn::Frames, Vec::new()).await?;
    if top.frames.is_empty() {
        return Ok(Vec::new());
    }
    let geometry = b.tab_geometry(tab).await?;
    let mut docs = FrameDocs::default();
    let mut boxes = Vec::new();
    let mut walked = 0;
    // (the frame, its path, where its parent document's viewport is drawn in the top viewport:
    // corner and scale)
    let top_place = ((0.0, 0.0), (1.0, 1.0));
    let mut pending: Vec<(RawFrameBox, Vec<i64>, Placed)> = top
        .frames
        .into_iter()
        .rev()
        .map(|f| {
            let path = vec![f.i];
            (f, path, top_place)
        })
        .collect();
    while let Some((frame, path, (corner, scale))) = pending.pop() {
        walked += 1;
        if walked > MAX_WALK_FRAMES {
            return Err(unsupported("capturing a page with this many frames"));
        }
        let (x, y, w, h) = frame.at.r#box;
        let shown = [
            corner.0 + scale.0 * x + geometry.scroll_x,
            corner.1 + scale.1 * y + geometry.scroll_y,
            scale.0 * w,
            scale.1 * h,
        ];
        // A frame not among window.frames (inside a shadow root) cannot be matched to its
        // document: painted over.
        let doc = if frame.i < 0 { None } else { docs.at(b, tab, &path).await? };
        let Some(doc) = doc.filter(|doc| admitted(gate, &doc.url)) else {
            boxes.push(shown);
            continue;
        };
        if path.len() >= MAX_FRAME_DEPTH {
            continue;
        }
        let inner: RawFrames = match page_call(b, tab, doc.frame, PageFn::Frames, Vec::new()).await {
            Ok(inner) => inner,
            Err(e) if e.kind() == PortErrorKind::TargetStale => {
                boxes.push(shown);
                continue;
            }
            Err(e) => return Err(e),
        };
        // Frames inside a frame drawn rotated, skewed or zoomed cannot be placed: the frame is
        // painted over whole.
        if frame.at.place != "ok" && !inner.frames.is_empty() {
            boxes.push(shown);
            continue;
        }
        let inner_place = (
            (corner.0 + scale.0 * frame.at.content.0, corner.1 + scale.1 * frame.at.content.1),
            (scale.0 * frame.at.scale.0, scale.1 * frame.at.scale.1),
        );
        for child in inner.frames.into_iter().rev() {
            let mut child_path = path.clone();
            child_path.push(child.i);
            pending.push((child, child_path, inner_place));
        }
    }
    Ok(boxes)
}

/// Where a frame document's viewport is drawn in the top viewport: its corner, and the scale
/// per axis (point `(x, y)` of it is `corner + scale × (x, y)` there).
type Placed = ((f64, f64), (f64, f64));

/// The viewport, with refused frames painted over.
pub(crate) async fn viewport(
    b: &ExtensionBrowser,
    tab: i64,
    gate: &Gate,
    wait: Duration,
) -> PortResult<Captured> {
    let blank = refused(b, tab, gate).await?;
    convert::capture(b.call::<WireCapture>(Op::CaptureViewport { tab, blank }, wait).await?)
}

/// Capture `rect` (document CSS pixels) of `tab`, at its natural scale or resized to `out`,
/// with refused frames painted over.
async fn area(
    b: &ExtensionBrowser,
    tab: i64,
    rect: CssRect,
    out: Option<(u32, u32)>,
    gate: &Gate,
    wait: Duration,
) -> PortResult<Captured> {
    let blank = refused(b, tab, gate).await?;
    let op = Op::CaptureArea {
        tab,
        x: rect.x,
        y: rect.y,
        width: rect.width,
        height: rect.height,
        out_width: out.map(|(w, _)| w),
        out_height: out.map(|(_, h)| h),
        blank,
    };
    let mut captured = convert::capture(b.call::<WireCapture>(op, wait).await?)?;
    captured.origin = (rect.x, rect.y);
    captured.css_per_pixel = rect.width / f64::from(captured.width.max(1));
    Ok(captured)
}

/// The whole page.
pub(crate) async fn full_page(
    b: &ExtensionBrowser,
    tab: i64,
    gate: &Gate,
    wait: Duration,
) -> PortResult<Captured> {
    let size: PageSize = page_call(b, tab, 0, PageFn::PageSize, Vec::new()).await?;
    let geometry = b.tab_geometry(tab).await?;
    check_full_page(size.width, size.height, geometry.device_scale)?;
    area(b, tab, CssRect { x: 0.0, y: 0.0, width: size.width, height: size.height }, None, gate, wait).await
}

/// One element, scrolled into view: its part inside the viewport.
pub(crate) async fn element(
    b: &ExtensionBrowser,
    tab: i64,
    element: &ElementRef,
    gate: &Gate,
    wait: Duration,
) -> PortResult<Captured> {
    let found = perception::element_box(b, tab, element, true).await?;
    if found.rect.width < 1.0 || found.rect.height < 1.0 {
        return Err(PortError::new(
            PortErrorKind::InvalidInput,
            "the element has no visible area to capture",
        ));
    }
    let geometry = b.tab_geometry(tab).await?;
    area(b, tab, visible_part(&found.rect, &geometry), None, gate, wait).await
}

/// A rectangle of the document at `scale` image pixels per CSS pixel.
pub(crate) async fn region(
    b: &ExtensionBrowser,
    tab: i64,
    rect: &CssRect,
    scale: f64,
    gate: &Gate,
    wait: Duration,
) -> PortResult<Captured> {
    let out = region_size(rect, scale)?;
    area(b, tab, *rect, Some(out), gate, wait).await
}
