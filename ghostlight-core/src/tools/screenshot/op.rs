//! `browser_screenshot`: capture the viewport, the whole page, one target, or a magnified
//! region of a current view. Every capture registers a view handle that binds its image
//! pixels to the document (origin and CSS pixels per image pixel) and to the tab, document
//! generation and geometry it was taken at.
//!
//! A region is given in the parent view's image pixels. Its document rectangle follows from
//! the parent's transform, and the new view composes it: its origin is the rectangle's origin
//! and its scale the rectangle's CSS width over the new image's width, so a region of a
//! region maps back to the same document points. The parent must be current (same tab, same
//! document generation); the geometry binding is checked only when coordinates are used as
//! input, so a region may still be cut from a view of a page that has scrolled since.
//!
//! The image travels as an attachment, never in facts. It is at most
//! [`IMAGE_BLOCK_MAX_BYTES`]: a larger capture (a tall full page) is taken again as a region
//! of the same rectangle at a smaller scale, up to [`REFITS`] times within the call's
//! timeout, and refused as `capture_too_large` with its figures when it still does not fit.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::facts;
use crate::facts::detail;
use crate::limits::{CAPTURE_REUSE_MAX_BYTES, IMAGE_BLOCK_MAX_BYTES};
use crate::port::MAX_REGION_SIDE;
use crate::port::{CaptureKind, Captured, CssRect};
use crate::tools::common::selects;
use crate::tools::screenshot::{Capture, Region, ScreenshotRequest};

use crate::operation::outcome::{Attachment, Outcome};
use crate::operation::run::{Run, Step, host_of};
use crate::operation::workspace::ViewEntry;

/// The MIME type of every capture.
const PNG: &str = "image/png";
/// A region is magnified so its longer edge is about this many image pixels.
pub(crate) const REGION_TARGET_PIXELS: f64 = 1024.0;
/// A region is never rendered at more than this many image pixels per CSS pixel.
pub(crate) const REGION_MAX_SCALE: f64 = 4.0;

pub(crate) async fn run(run: &Run<'_>, request: &ScreenshotRequest) -> Outcome {
    screenshot(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn screenshot(run: &Run<'_>, request: &ScreenshotRequest) -> Step<Outcome> {
    let (lease, page) = run
        .enter_selecting(
            request.tab.as_ref(),
            matches!(&request.capture, Capture::Target(target) if selects(target)),
        )
        .await?;
    let host = host_of(&page.state.url);
    let mut target_handle = None;
    let mut parent = None;
    let (kind, what) = match &request.capture {
        Capture::Viewport => (CaptureKind::Viewport, format!("the viewport of {host}")),
        Capture::FullPage => (CaptureKind::FullPage, format!("the full page of {host}")),
        Capture::Target(target) => {
            let resolved = run.target(&lease, &page, target).await?;
            target_handle = resolved.handle.clone();
            let phrase = run.phrase(resolved.role, resolved.name.as_deref());
            (CaptureKind::Element(resolved.element), format!("{phrase} on {host}"))
        }
        Capture::Region(region) => {
            // The region must lie in the view as the page shows it now: a view that is no
            // longer current (a scroll, a resize) is refused, as for coordinate input.
            let (view, _) = run.current_view(&lease, &page, &region.origin.view).await?;
            let rect = region_rect(&view, region).ok_or_else(|| outside_view(&view, region))?;
            let scale = region_scale(&rect, view.css_per_pixel);
            parent = Some((region.origin.view.clone(), view, rect));
            (CaptureKind::Region { rect, scale }, format!("a region of {} on {host}", region.origin.view))
        }
    };
    let timeout = Duration::from_millis(request.timeout_ms);
    let started = Instant::now();
    let fail = |e| run.fail_on(&lease, &e, &format!("capture {what}"), Some(request.timeout_ms));
    let mut captured = run.port().capture(&run.on(&lease.tab, timeout), &kind).await.map_err(fail)?;
    let mut refits = 0;
    while image_bytes(&captured) > IMAGE_BLOCK_MAX_BYTES {
        let left = timeout.saturating_sub(started.elapsed());
        let smaller = (refits < REFITS && !left.is_zero()).then(|| smaller_region(&captured)).flatten();
        let Some(smaller) = smaller else {
            return Err(too_large(&what, &captured).fact(detail::TAB, lease.handle().as_str()));
        };
        captured = run.port().capture(&run.on(&lease.tab, left), &smaller).await.map_err(fail)?;
        refits += 1;
    }
    let (origin, css_per_pixel, full_page) = match &parent {
        // Compose with the parent: the new image covers exactly the requested rectangle.
        Some((_, view, rect)) => {
            ((rect.x, rect.y), rect.width / f64::from(captured.width.max(1)), view.full_page)
        }
        None => (captured.origin, captured.css_per_pixel, matches!(kind, CaptureKind::FullPage)),
    };
    let png = Arc::new(captured.png);
    let kept = u64::try_from(png.len()).is_ok_and(|len| len <= CAPTURE_REUSE_MAX_BYTES);
    let view = run.workspace.add_view(ViewEntry {
        slot: lease.handle().clone(),
        generation: page.generation,
        geometry: captured.geometry,
        full_page,
        origin,
        css_per_pixel,
        width: captured.width,
        height: captured.height,
        png: kept.then(|| png.clone()),
        png_bytes: u64::try_from(png.len()).unwrap_or(u64::MAX),
    });
    let (width, height) = (captured.width, captured.height);
    let summary = if refits > 0 {
        format!("Captured {what} ({width}×{height}, scaled down to stay within one image's size limit).")
    } else {
        format!("Captured {what} ({width}×{height}).")
    };
    let mut outcome = Outcome::read(summary)
        .with_readiness(page.state.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::VIEW, view.as_str())
        .fact(facts::MIME_TYPE, PNG)
        .fact(facts::WIDTH, width)
        .fact(facts::HEIGHT, height)
        .fact(facts::HOST, host);
    if let Some(handle) = target_handle {
        outcome = outcome.fact(facts::TARGET, handle.as_str());
    }
    if let Some((parent, _, _)) = parent {
        outcome = outcome.fact(facts::PARENT_VIEW, parent.as_str());
    }
    if refits > 0 {
        outcome = outcome.fact(facts::DOWNSCALED, true);
    }
    let bytes = Arc::try_unwrap(png).unwrap_or_else(|shared| shared.as_ref().clone());
    Ok(outcome.attach(Attachment { mime_type: PNG, bytes }))
}

/// How many times a capture over [`IMAGE_BLOCK_MAX_BYTES`] is taken again, smaller.
const REFITS: usize = 3;
/// The share of the byte bound a refit aims at (PNG size only roughly follows the pixel count).
const REFIT_MARGIN: f64 = 0.8;

/// The size of a capture's image in bytes.
fn image_bytes(captured: &Captured) -> u64 {
    u64::try_from(captured.png.len()).unwrap_or(u64::MAX)
}

/// The same document rectangle as `captured`, at a scale whose image should fit within
/// [`IMAGE_BLOCK_MAX_BYTES`] (and within a region's side limit); `None` when no smaller image
/// of at least one pixel a side is possible.
fn smaller_region(captured: &Captured) -> Option<CaptureKind> {
    let (width, height) = (f64::from(captured.width), f64::from(captured.height));
    let rect = CssRect {
        x: captured.origin.0,
        y: captured.origin.1,
        width: width * captured.css_per_pixel,
        height: height * captured.css_per_pixel,
    };
    let shrink = (IMAGE_BLOCK_MAX_BYTES as f64 * REFIT_MARGIN / image_bytes(captured) as f64).sqrt();
    let side = f64::from(MAX_REGION_SIDE);
    // Image pixels per CSS pixel: today's, shrunk, and no side over the region limit.
    let scale = (shrink / captured.css_per_pixel).min(side / rect.width).min(side / rect.height);
    let usable = scale.is_finite()
        && scale > 0.0
        && (rect.width * scale).round() >= 1.0
        && (rect.height * scale).round() >= 1.0;
    (usable && shrink < 1.0).then_some(CaptureKind::Region { rect, scale })
}

/// The refusal of a capture that stays over [`IMAGE_BLOCK_MAX_BYTES`] however it is scaled.
fn too_large(what: &str, captured: &Captured) -> Outcome {
    let bytes = image_bytes(captured);
    Outcome::failed(
        "capture_too_large",
        format!(
            "Did not capture {what}: even at {}×{} pixels its image is {bytes} bytes, over the limit of \
             {IMAGE_BLOCK_MAX_BYTES} bytes for one image.",
            captured.width, captured.height
        ),
    )
    .fact(detail::WIDTH, captured.width)
    .fact(detail::HEIGHT, captured.height)
    .fact(detail::BYTES, bytes)
    .fact(detail::MAX_BYTES, IMAGE_BLOCK_MAX_BYTES)
    .next("Capture the viewport (scroll with browser_scroll first), one target or a region instead.")
}

/// The document rectangle of a region given in `view`'s image pixels, or `None` when the
/// region does not lie wholly inside the view's image.
pub(crate) fn region_rect(view: &ViewEntry, region: &Region) -> Option<CssRect> {
    let (x, y) = (region.origin.x, region.origin.y);
    let inside = x.saturating_add(region.width) <= u64::from(view.width)
        && y.saturating_add(region.height) <= u64::from(view.height);
    let css = |pixels: u64| pixels as f64 * view.css_per_pixel;
    inside.then(|| CssRect {
        x: view.origin.0 + css(x),
        y: view.origin.1 + css(y),
        width: css(region.width),
        height: css(region.height),
    })
}

/// The refusal of a region that does not fit inside its view's image.
fn outside_view(view: &ViewEntry, region: &Region) -> Outcome {
    let (x, y) = (region.origin.x, region.origin.y);
    Outcome::failed(
        "region_outside_view",
        format!(
            "The region from ({x}, {y}) of {}×{} pixels does not fit inside {}, whose image is {}×{} pixels \
             (from (0, 0)).",
            region.width, region.height, region.origin.view, view.width, view.height
        ),
    )
    .fact(facts::VIEW, region.origin.view.as_str())
    .fact(facts::X, x)
    .fact(facts::Y, y)
    .fact(facts::REGION_WIDTH, region.width)
    .fact(facts::REGION_HEIGHT, region.height)
    .fact(facts::WIDTH, view.width)
    .fact(facts::HEIGHT, view.height)
    .next("Choose a region inside the view's image, or call browser_screenshot for a new view.")
}

/// Image pixels per CSS pixel for a region capture: its longer edge about
/// [`REGION_TARGET_PIXELS`], at most [`REGION_MAX_SCALE`], and never coarser than the parent
/// view (`parent_css_per_pixel` CSS pixels per parent image pixel).
pub(crate) fn region_scale(rect: &CssRect, parent_css_per_pixel: f64) -> f64 {
    let parent_scale = if parent_css_per_pixel > 0.0 { 1.0 / parent_css_per_pixel } else { 1.0 };
    let edge = rect.width.max(rect.height);
    let wanted = if edge > 0.0 { REGION_TARGET_PIXELS / edge } else { REGION_MAX_SCALE };
    wanted.min(REGION_MAX_SCALE).max(parent_scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handles::{Handle, HandleKind};
    use crate::port::Geometry;
    use crate::tools::common::ViewPoint;

    #[test]
    fn region_math() {
        let view = ViewEntry {
            slot: Handle::from_token(HandleKind::Tab, "1"),
            generation: 1,
            geometry: Geometry {
                viewport_width: 1280,
                viewport_height: 800,
                window_width: 1280,
                window_height: 900,
                device_scale: 2.0,
                zoom_percent: 100,
                scroll_x: 0.0,
                scroll_y: 400.0,
            },
            full_page: false,
            origin: (0.0, 400.0),
            css_per_pixel: 0.5,
            width: 2560,
            height: 1600,
            png: None,
            png_bytes: 0,
        };
        let region = |x, y, width, height| Region {
            origin: ViewPoint { view: Handle::from_token(HandleKind::View, "1"), x, y },
            width,
            height,
        };
        let rect = region_rect(&view, &region(200, 100, 400, 200)).unwrap_or_else(|| panic!("inside"));
        assert_eq!((rect.x, rect.y, rect.width, rect.height), (100.0, 450.0, 200.0, 100.0));
        assert!(region_rect(&view, &region(2500, 0, 61, 10)).is_none());
        assert!(region_rect(&view, &region(0, 1599, 1, 2)).is_none());
        assert!(region_rect(&view, &region(2559, 1599, 1, 1)).is_some());
        // About REGION_TARGET_PIXELS on the longer edge, at most 4×, never coarser than the parent.
        assert!((region_scale(&rect, 0.5) - REGION_MAX_SCALE).abs() < 1e-9);
        let wide = CssRect { x: 0.0, y: 0.0, width: 800.0, height: 10.0 };
        assert!((region_scale(&wide, 1.0) - REGION_TARGET_PIXELS / 800.0).abs() < 1e-9);
        let huge = CssRect { x: 0.0, y: 0.0, width: 1280.0, height: 3000.0 };
        assert!((region_scale(&huge, 1.0) - 1.0).abs() < 1e-9, "never coarser than the parent");
        assert!((region_scale(&huge, 0.25) - 4.0).abs() < 1e-9);
    }
}
