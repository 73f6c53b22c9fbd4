//! The geometry of captures every adapter shares: the bounds of full-page and region images,
//! the output size of a region, what part of an element an element capture shows, and whether
//! a rectangle lies inside the viewport. Pure functions of the port's types.

use ghostlight_core::port::{CssRect, Geometry};
use ghostlight_core::port::{Oversize, PortError, PortErrorKind, PortResult};

/// The longest side of a full-page capture, in image pixels (Chromium's own texture limit).
pub const MAX_FULL_PAGE_SIDE: u32 = 16_384;
/// The largest area of a full-page capture, in image pixels.
pub const MAX_FULL_PAGE_PIXELS: u64 = 100_000_000;
/// The longest side of a region capture's output image, in pixels (core's bound).
pub use ghostlight_core::port::MAX_REGION_SIDE;
/// How far (CSS px) a rectangle may overshoot the viewport and still count as inside it
/// (scroll offsets are fractional).
pub const VIEWPORT_TOLERANCE: f64 = 0.5;

/// Refuse a full page of `width` × `height` CSS pixels whose image would exceed
/// [`MAX_FULL_PAGE_SIDE`] or [`MAX_FULL_PAGE_PIXELS`] at `device_scale` image pixels per CSS
/// pixel ([`PortErrorKind::TooLarge`]); a page without a usable size answers
/// [`PortErrorKind::Other`].
pub fn check_full_page(width: f64, height: f64, device_scale: f64) -> PortResult<()> {
    let scale = if device_scale.is_finite() && device_scale > 0.0 { device_scale } else { 1.0 };
    let (width, height) = (width * scale, height * scale);
    let valid = width.is_finite() && height.is_finite() && width >= 1.0 && height >= 1.0;
    if !valid {
        return Err(PortError::new(PortErrorKind::Other, "the page reported no usable size"));
    }
    let side = f64::from(MAX_FULL_PAGE_SIDE);
    let (w, h) = (width.ceil(), height.ceil());
    if w > side || h > side || w * h > MAX_FULL_PAGE_PIXELS as f64 {
        return Err(PortError::too_large(Oversize {
            width: w as u64,
            height: h as u64,
            max_side: u64::from(MAX_FULL_PAGE_SIDE),
            max_pixels: MAX_FULL_PAGE_PIXELS,
        }));
    }
    Ok(())
}

/// The output size of a region: `round(width × scale) × round(height × scale)`, each side
/// between 1 and [`MAX_REGION_SIDE`] ([`PortErrorKind::InvalidInput`] otherwise, and for a
/// rectangle or scale that is not a usable size).
pub fn region_size(rect: &CssRect, scale: f64) -> PortResult<(u32, u32)> {
    let valid = [rect.x, rect.y, rect.width, rect.height, scale].iter().all(|v| v.is_finite())
        && rect.x >= 0.0
        && rect.y >= 0.0
        && rect.width > 0.0
        && rect.height > 0.0
        && scale > 0.0;
    if !valid {
        return Err(PortError::new(
            PortErrorKind::InvalidInput,
            "the region or its scale is not a usable size",
        ));
    }
    let side = |css: f64| {
        let pixels = (css * scale).round();
        if (1.0..=f64::from(MAX_REGION_SIDE)).contains(&pixels) {
            Ok(pixels as u32)
        } else {
            Err(PortError::new(
                PortErrorKind::InvalidInput,
                format!("a region image must be 1 to {MAX_REGION_SIDE} pixels a side"),
            ))
        }
    };
    Ok((side(rect.width)?, side(rect.height)?))
}

/// What an element capture shows of `element` (its border box, document CSS pixels): the box
/// clipped to the viewport of `geometry` (an element taller than the viewport gives an image
/// of its visible part). A box entirely outside the viewport (not expected after scrolling it
/// into view) is taken whole.
pub fn visible_part(element: &CssRect, geometry: &Geometry) -> CssRect {
    let left = element.x.max(geometry.scroll_x);
    let top = element.y.max(geometry.scroll_y);
    let right = (element.x + element.width).min(geometry.scroll_x + f64::from(geometry.viewport_width));
    let bottom = (element.y + element.height).min(geometry.scroll_y + f64::from(geometry.viewport_height));
    if right - left >= 1.0 && bottom - top >= 1.0 {
        CssRect { x: left, y: top, width: right - left, height: bottom - top }
    } else {
        *element
    }
}

/// Whether `rect` lies wholly inside the viewport of `geometry` (within
/// [`VIEWPORT_TOLERANCE`]).
pub fn inside_viewport(rect: &CssRect, geometry: &Geometry) -> bool {
    let left = geometry.scroll_x - VIEWPORT_TOLERANCE;
    let top = geometry.scroll_y - VIEWPORT_TOLERANCE;
    let right = geometry.scroll_x + f64::from(geometry.viewport_width) + VIEWPORT_TOLERANCE;
    let bottom = geometry.scroll_y + f64::from(geometry.viewport_height) + VIEWPORT_TOLERANCE;
    rect.x >= left && rect.y >= top && rect.x + rect.width <= right && rect.y + rect.height <= bottom
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry(scroll_y: f64) -> Geometry {
        Geometry {
            viewport_width: 1280,
            viewport_height: 714,
            window_width: 1280,
            window_height: 800,
            device_scale: 1.0,
            zoom_percent: 100,
            scroll_x: 0.0,
            scroll_y,
        }
    }

    fn rect(x: f64, y: f64, width: f64, height: f64) -> CssRect {
        CssRect { x, y, width, height }
    }

    #[test]
    fn region_sizes_round_and_are_bounded() {
        let r = rect(10.0, 20.0, 100.4, 50.0);
        assert_eq!(region_size(&r, 2.0).ok(), Some((201, 100)));
        assert_eq!(region_size(&r, 1.0).ok(), Some((100, 50)));
        let kind = |r: PortResult<(u32, u32)>| r.err().map(|e| e.kind());
        assert_eq!(kind(region_size(&r, 41.0)), Some(PortErrorKind::InvalidInput));
        assert_eq!(kind(region_size(&r, 0.0)), Some(PortErrorKind::InvalidInput));
        assert_eq!(kind(region_size(&r, f64::NAN)), Some(PortErrorKind::InvalidInput));
        assert_eq!(kind(region_size(&CssRect { width: 0.0, ..r }, 1.0)), Some(PortErrorKind::InvalidInput));
        assert_eq!(kind(region_size(&CssRect { x: -1.0, ..r }, 1.0)), Some(PortErrorKind::InvalidInput));
        assert_eq!(
            kind(region_size(&CssRect { height: 0.001, ..r }, 1.0)),
            Some(PortErrorKind::InvalidInput)
        );
    }

    #[test]
    fn full_page_cap() {
        assert!(check_full_page(1500.0, 5050.0, 1.0).is_ok());
        assert!(check_full_page(1280.0, 16_384.0, 1.0).is_ok());
        let refused = check_full_page(1280.0, 16_385.0, 1.0);
        assert_eq!(refused.as_ref().err().map(|e| e.kind()), Some(PortErrorKind::TooLarge));
        let size = refused.err().and_then(|e| e.oversize()).map(|o| (o.width, o.height, o.max_side));
        assert_eq!(size, Some((1280, 16_385, u64::from(MAX_FULL_PAGE_SIDE))));
        let refused = check_full_page(1280.0, 10_000.0, 2.0);
        assert_eq!(
            refused.err().and_then(|e| e.oversize()).map(|o| (o.width, o.height)),
            Some((2560, 20_000))
        );
        let refused = check_full_page(12_000.0, 12_000.0, 1.0);
        assert_eq!(refused.err().map(|e| e.kind()), Some(PortErrorKind::TooLarge), "area");
        assert_eq!(check_full_page(0.0, 10.0, 1.0).err().map(|e| e.kind()), Some(PortErrorKind::Other));
    }

    #[test]
    fn element_images_show_the_visible_part() {
        let g = geometry(386.0);
        // Inside: the whole box.
        assert_eq!(visible_part(&rect(10.0, 400.0, 100.0, 50.0), &g), rect(10.0, 400.0, 100.0, 50.0));
        // Taller than the viewport, scrolled to its bottom: from the viewport's top.
        assert_eq!(visible_part(&rect(900.0, 100.0, 100.0, 1000.0), &g), rect(900.0, 386.0, 100.0, 714.0));
        // Wider than the viewport on the right.
        assert_eq!(visible_part(&rect(1200.0, 400.0, 300.0, 10.0), &g), rect(1200.0, 400.0, 80.0, 10.0));
        // Outside (not expected): taken whole.
        assert_eq!(visible_part(&rect(10.0, 0.0, 100.0, 50.0), &g), rect(10.0, 0.0, 100.0, 50.0));
    }

    #[test]
    fn viewport_containment() {
        let g = Geometry { viewport_width: 800, viewport_height: 600, ..geometry(1000.0) };
        assert!(inside_viewport(&rect(0.0, 1000.0, 800.0, 600.0), &g));
        assert!(inside_viewport(&rect(10.0, 1200.0, 50.0, 50.0), &g));
        assert!(!inside_viewport(&rect(10.0, 900.0, 50.0, 200.0), &g));
        assert!(!inside_viewport(&rect(790.0, 1200.0, 20.0, 20.0), &g));
    }
}
