//! Capturing images: viewport, full page, element, region (findings §5).
//!
//! Every capture states where its image sits in the document: `origin` (document CSS pixels
//! of the top-left pixel) and `css_per_pixel`. The scale is always *measured*, never assumed
//! from the device pixel ratio ("view transform rule"): the known CSS extent of what was
//! captured divided by the PNG's own width. Chromium captures in device pixels (an emulated
//! zoom of 150 % gives 1.5 image pixels per CSS pixel), Firefox in CSS pixels.
//!
//! - **Viewport**: WebDriver's Take Screenshot of the current window. Chromium's image
//!   includes the scrollbar area, which `innerWidth` includes too.
//! - **Full page**: Chromium through DevTools: the viewport is emulated at the CSS content
//!   size of `Page.getLayoutMetrics` for one `Page.captureScreenshot` (scale 1), then put back
//!   (see [`chromium_full_page`] for why not `captureBeyondViewport`); Firefox through geckodriver's
//!   `GET moz/screenshot/full`. A page larger than `MAX_FULL_PAGE_SIDE` or
//!   `MAX_FULL_PAGE_PIXELS` ([`ghostlight_page::capture`]) is refused before anything is captured.
//! - **Element**: WebDriver's Take Element Screenshot after scrolling the element into view
//!   (the scroll stays, so the geometry of the capture is the page as it now is). The image
//!   shows the element's part inside the viewport, and its origin says so.
//! - **Region**: the viewport image when the rectangle lies inside the viewport, else the
//!   full-page image (so a region never scrolls the page). The rectangle is cropped (only its
//!   rows and columns are decoded) and resized with a Catmull-Rom filter to
//!   `round(width × scale) × round(height × scale)` pixels, at most `MAX_REGION_SIDE` a side.
//!
//! A capture changes nothing on the page (apart from the element capture's scroll), so its
//! failures answer `effect: none`; the one exception is a Chromium full page whose viewport
//! could not be put back (`effect: unknown`). The whole capture is bounded by the call's
//! timeout.

use std::io::Cursor;
use std::time::Duration;

use base64::Engine as _;
use ghostlight_core::port::{
    CaptureKind, Captured, CssRect, ElementRef, Gate, Geometry, PortError, PortErrorKind, PortResult, TabRef,
};
use ghostlight_page::capture::{check_full_page, inside_viewport, region_size, visible_part};
use image::imageops::{self, FilterType};
use image::{ImageEncoder, RgbImage};
use serde::Deserialize;
use serde_json::{Value, json};

use super::frames::{self, Refused};
use super::window;
use crate::commands::SessionCommand;
use crate::config::Engine;
use crate::errors::{self, Sent};
use crate::repair::{Repair, RepairQueue};
use crate::session::Session;
use ghostlight_page::scripts::{CAPTURE_ELEMENT_FN as ELEMENT_FN, CAPTURE_PAGE_SIZE_FN as PAGE_SIZE_FN};

/// The neutral zoom in percent.
const NO_ZOOM: u32 = 100;
/// How many times a viewport capture is retaken when the page scrolled while it was taken.
const STABLE_ATTEMPTS: usize = 3;
/// How far (CSS px) scroll offsets may move between the readings around a viewport capture.
const SCROLL_TOLERANCE: f64 = 0.5;
/// How far (source image pixels) a region's rectangle may overshoot the captured image and
/// still be clamped to it (rounding at the page's edge).
const EDGE_TOLERANCE: f64 = 1.0;
/// The resampling filter of region captures: Catmull-Rom (bicubic) keeps edges and text sharp
/// with less ringing than Lanczos and at about half its cost.
const REGION_FILTER: FilterType = FilterType::CatmullRom;
/// The most bytes a PNG decoder may allocate for bookkeeping (rows are streamed).
const DECODE_LIMIT_BYTES: usize = 256 * 1024 * 1024;

/// Capture an image of `tab`, bounded by `timeout`, with the frames whose documents `gate`
/// refuses painted over ([`frames::blank`]). A Chromium full page that runs out of time is put
/// back before the timeout is answered (see [`Restore`]).
pub(crate) async fn capture(
    s: &mut Session,
    tab: &TabRef,
    kind: &CaptureKind,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<Captured> {
    let work = async {
        let (mut captured, refused) = capture_now(s, tab, kind, gate).await?;
        let refused = match refused {
            Some(refused) => refused,
            None => frames::refused_boxes(s, tab, gate).await?,
        };
        if !refused.boxes.is_empty() {
            let png = std::mem::take(&mut captured.png);
            captured.png = frames::blank(png, captured.origin, captured.css_per_pixel, &refused.boxes)?;
        }
        Ok(captured)
    };
    let result = tokio::time::timeout(timeout, work).await;
    // Dropping the capture queued its page's restoration; run it while the session is ours.
    s.run_repairs().await;
    match result {
        Ok(result) => result,
        Err(_) => Err(PortError::new(PortErrorKind::Timeout, "the capture did not finish in time")),
    }
}

/// The capture itself, by kind (unbounded: [`capture`] bounds it), with the frames on it
/// that `gate` refuses when the capture listed them as it measured the view (a viewport).
async fn capture_now(
    s: &mut Session,
    tab: &TabRef,
    kind: &CaptureKind,
    gate: &Gate,
) -> PortResult<(Captured, Option<Refused>)> {
    match kind {
        CaptureKind::Viewport => {
            viewport(s, tab, gate).await.map(|(captured, refused)| (captured, Some(refused)))
        }
        CaptureKind::FullPage => Ok((full_page(s, tab).await?, None)),
        CaptureKind::Element(element) => Ok((element_capture(s, tab, element).await?, None)),
        CaptureKind::Region { rect, scale } => region(s, tab, rect, *scale, gate).await,
    }
}

// ---- viewport --------------------------------------------------------------------------

/// The viewport, at the scroll offsets it shows, and the frames on it `gate` refuses.
async fn viewport(s: &mut Session, tab: &TabRef, gate: &Gate) -> PortResult<(Captured, Refused)> {
    let (png, geometry, refused) = viewport_image(s, tab, gate, None).await?;
    let (width, height) = dimensions(&png)?;
    let captured = Captured {
        png,
        width,
        height,
        origin: (geometry.scroll_x, geometry.scroll_y),
        css_per_pixel: f64::from(geometry.viewport_width) / f64::from(width),
        geometry,
    };
    Ok((captured, refused))
}

/// The viewport's PNG, the geometry it was taken at, and the frames on it `gate` refuses. The
/// geometry is read before the screenshot (`before`, when the caller has just read it) and
/// after it by the frame listing (one script), and the screenshot is retaken (a bounded
/// number of times) when the page scrolled in between.
async fn viewport_image(
    s: &mut Session,
    tab: &TabRef,
    gate: &Gate,
    before: Option<Geometry>,
) -> PortResult<(Vec<u8>, Geometry, Refused)> {
    let mut before = match before {
        Some(before) => before,
        None => window::geometry(s, tab).await?,
    };
    let mut attempt = 1;
    loop {
        let png = s.client().screenshot().await.map_err(|e| errors::cmd(&e, Sent::Read))?;
        let (refused, view) = frames::refused_boxes_and_view(s, tab, gate).await?;
        let after = window::listed(&before, &view);
        if same_view(&before, &after) || attempt >= STABLE_ATTEMPTS {
            return Ok((png, after, refused));
        }
        before = after;
        attempt += 1;
    }
}

/// Whether two readings describe the same view (same viewport and scroll offsets).
fn same_view(a: &Geometry, b: &Geometry) -> bool {
    a.viewport_width == b.viewport_width
        && a.viewport_height == b.viewport_height
        && a.zoom_percent == b.zoom_percent
        && (a.scroll_x - b.scroll_x).abs() <= SCROLL_TOLERANCE
        && (a.scroll_y - b.scroll_y).abs() <= SCROLL_TOLERANCE
}

// ---- full page -------------------------------------------------------------------------

/// The CSS content size of the document.
#[derive(Debug, Clone, Copy, Deserialize)]
struct PageSize {
    /// Width (CSS px).
    width: f64,
    /// Height (CSS px).
    height: f64,
}

/// The whole page, from the document's top-left corner.
async fn full_page(s: &mut Session, tab: &TabRef) -> PortResult<Captured> {
    let geometry = window::geometry(s, tab).await?;
    let handle = s.tab(tab).await?;
    let (png, size) = full_page_image(s, &handle, &geometry).await?;
    let (width, height) = dimensions(&png)?;
    Ok(Captured {
        png,
        width,
        height,
        origin: (0.0, 0.0),
        css_per_pixel: size.width / f64::from(width),
        geometry,
    })
}

/// The whole page's PNG and the CSS size it covers (window `handle` is the current one).
async fn full_page_image(
    s: &mut Session,
    handle: &str,
    geometry: &Geometry,
) -> PortResult<(Vec<u8>, PageSize)> {
    match s.engine() {
        Engine::Chromium => chromium_full_page(s, handle, geometry).await,
        Engine::Firefox => {
            let script = format!("return ({})();", PAGE_SIZE_FN.trim_end());
            let value = frames::read(s, &script, Vec::new()).await?;
            let size: PageSize = serde_json::from_value(value).map_err(|_| unexpected("page size"))?;
            check_full_page(size.width, size.height, geometry.device_scale)?;
            let value = s.command(SessionCommand::full_screenshot(), Sent::Read).await?;
            Ok((base64_png(&value)?, size))
        }
    }
}

/// Chromium's full page: the viewport is emulated at the CSS content size (same layout
/// width, same device scale) for one capture, then put back as it was (the tab's emulated
/// zoom, or no override) and the scroll offsets restored.
///
/// Not `captureBeyondViewport`: on this Chromium it leaves the tab without scrollbars until
/// the next navigation (the layout viewport grows by the scrollbar's width), which would
/// move the page under every earlier view.
async fn chromium_full_page(
    s: &mut Session,
    handle: &str,
    geometry: &Geometry,
) -> PortResult<(Vec<u8>, PageSize)> {
    let size = chromium_content_size(s).await?;
    check_full_page(size.width, size.height, geometry.device_scale)?;
    let restore = Restore::new(s, handle, geometry);
    let emulate = json!({
        "width": size.width.ceil(),
        "height": size.height.ceil(),
        "deviceScaleFactor": geometry.device_scale,
        "mobile": false,
    });
    let shot = async {
        s.cdp("Emulation.setDeviceMetricsOverride", emulate, Sent::Read).await?;
        let params = json!({
            "format": "png",
            "clip": { "x": 0, "y": 0, "width": size.width, "height": size.height, "scale": 1 },
        });
        let value = s.cdp("Page.captureScreenshot", params, Sent::Read).await?;
        base64_png(value.get("data").unwrap_or(&Value::Null))
    }
    .await;
    let restored = restore.run(s).await;
    let png = shot?;
    restored?;
    Ok((png, size))
}

/// Chromium's CSS content size (`Page.getLayoutMetrics`).
async fn chromium_content_size(s: &mut Session) -> PortResult<PageSize> {
    let metrics = s.cdp("Page.getLayoutMetrics", json!({}), Sent::Read).await?;
    let size = metrics.get("cssContentSize").cloned().ok_or_else(|| unexpected("layout metrics"))?;
    serde_json::from_value(size).map_err(|_| unexpected("layout metrics"))
}

/// Puts a Chromium tab back after a full-page capture: its device metrics (the emulated zoom
/// as it was, or none) and its scroll offsets. Run it with [`Restore::run`]. The guard stays
/// armed until the restoration has completed: when the capture (or the restoration itself) is
/// dropped half-way — a timeout, a cancelled call — the guard queues the same restoration on
/// the session ([`Session::queue_repair`]), which runs it before anything else touches the
/// browser ([`Session::run_repairs`]): at the end of [`capture`] for a timeout, at the start
/// of the next call (or from a task that waits for the session) for a cancellation.
struct Restore {
    /// The restoration, queued on drop while armed.
    repair: Option<Repair>,
    /// Where a dropped restoration goes.
    queue: RepairQueue,
}

impl Restore {
    /// The restoration of window `handle` as `geometry` observed it.
    fn new(s: &Session, handle: &str, geometry: &Geometry) -> Restore {
        let metrics = if geometry.zoom_percent == NO_ZOOM {
            SessionCommand::cdp("Emulation.clearDeviceMetricsOverride", json!({}))
        } else {
            // The zoom's override, as observed: viewport ÷ z and device scale × z.
            SessionCommand::cdp(
                "Emulation.setDeviceMetricsOverride",
                json!({
                    "width": geometry.viewport_width,
                    "height": geometry.viewport_height,
                    "deviceScaleFactor": geometry.device_scale,
                    "mobile": false,
                }),
            )
        };
        let repair =
            Repair { handle: handle.to_owned(), metrics, scroll: (geometry.scroll_x, geometry.scroll_y) };
        Restore { repair: Some(repair), queue: s.repair_queue() }
    }

    /// Restore now; the guard disarms only once it has. A failure answers `effect: unknown`.
    async fn run(mut self, s: &mut Session) -> PortResult<()> {
        if let Some(repair) = &self.repair {
            repair.apply(s).await.map_err(not_restored)?;
        }
        self.repair = None;
        Ok(())
    }
}

impl Drop for Restore {
    fn drop(&mut self) {
        if let Some(repair) = self.repair.take() {
            self.queue.push(repair);
        }
    }
}

/// A restoration failure: the page may still be emulated at its full size.
fn not_restored(error: PortError) -> PortError {
    let restored = PortError::new(
        error.kind(),
        format!(
            "the page's viewport could not be put back after the full-page capture ({})",
            error.message()
        ),
    );
    restored.effect_unknown()
}

// ---- element ---------------------------------------------------------------------------

/// Where an element sits (answer of `capture_element.js`).
#[derive(Debug, Clone, Copy, Deserialize)]
struct ElementBox {
    /// Left edge (document CSS px of the top-level document).
    x: f64,
    /// Top edge.
    y: f64,
    /// Border-box width.
    width: f64,
    /// Border-box height.
    height: f64,
    /// Whether every frame offset up to the top document was read.
    complete: bool,
}

/// One element, scrolled into view.
async fn element_capture(s: &mut Session, tab: &TabRef, element: &ElementRef) -> PortResult<Captured> {
    let el = s.element(tab, element).await?;
    let arg = serde_json::to_value(&el).map_err(|_| unexpected("element reference"))?;
    let script = format!("return ({})(arguments[0], arguments[1]);", ELEMENT_FN.trim_end());
    let before = element_box(s, &script, arg.clone(), true).await?;
    if before.width < 1.0 || before.height < 1.0 {
        return Err(PortError::new(
            PortErrorKind::InvalidInput,
            "the element has no visible area to capture",
        ));
    }
    let png = el.screenshot().await.map_err(|e| errors::cmd(&e, Sent::Read))?;
    // Read again: the driver scrolls the element into view itself, and may scroll further.
    let at = element_box(s, &script, arg, false).await?;
    if !at.complete {
        return Err(PortError::new(
            PortErrorKind::Unsupported,
            "the element sits in a frame whose position in the page cannot be read",
        ));
    }
    let geometry = window::geometry(s, tab).await?;
    let (width, height) = dimensions(&png)?;
    let shown = visible_part(&CssRect { x: at.x, y: at.y, width: at.width, height: at.height }, &geometry);
    let (origin, css_width) = ((shown.x, shown.y), shown.width);
    Ok(Captured { png, width, height, origin, css_per_pixel: css_width / f64::from(width), geometry })
}

/// Run the element-geometry script on `element` (scrolling it into view first when `scroll`).
async fn element_box(s: &mut Session, script: &str, element: Value, scroll: bool) -> PortResult<ElementBox> {
    let value = frames::read(s, script, vec![element, Value::Bool(scroll)]).await?;
    serde_json::from_value(value).map_err(|_| unexpected("element box"))
}

// ---- region ----------------------------------------------------------------------------

/// An image and where it sits: document CSS coordinates of its top-left pixel and CSS pixels
/// per image pixel.
struct Source {
    /// PNG bytes.
    png: Vec<u8>,
    /// Document CSS coordinates of the top-left pixel.
    origin: (f64, f64),
    /// CSS pixels per image pixel.
    css_per_pixel: f64,
}

/// A rectangle of the document, cropped from the viewport or the full page and resized; from
/// the viewport, with the frames on it `gate` refuses (listed as the view was measured).
async fn region(
    s: &mut Session,
    tab: &TabRef,
    rect: &CssRect,
    scale: f64,
    gate: &Gate,
) -> PortResult<(Captured, Option<Refused>)> {
    let (out_width, out_height) = region_size(rect, scale)?;
    let geometry = window::geometry(s, tab).await?;
    let (source, refused) = if inside_viewport(rect, &geometry) {
        let (png, taken, refused) = viewport_image(s, tab, gate, Some(geometry)).await?;
        let (width, _) = dimensions(&png)?;
        let css_per_pixel = f64::from(taken.viewport_width) / f64::from(width);
        (Source { png, origin: (taken.scroll_x, taken.scroll_y), css_per_pixel }, Some(refused))
    } else {
        (beyond_viewport(s, tab, &geometry).await?, None)
    };
    let png = crop_and_resize(&source, rect, out_width, out_height)?;
    let captured = Captured {
        png,
        width: out_width,
        height: out_height,
        origin: (rect.x, rect.y),
        css_per_pixel: rect.width / f64::from(out_width),
        geometry,
    };
    Ok((captured, refused))
}

/// An image covering `rect` when it is not inside the viewport: the full page (which does
/// not scroll the page, or puts its scroll offsets back).
async fn beyond_viewport(s: &mut Session, tab: &TabRef, geometry: &Geometry) -> PortResult<Source> {
    let handle = s.tab(tab).await?;
    let (png, size) = full_page_image(s, &handle, geometry).await?;
    let (width, _) = dimensions(&png)?;
    Ok(Source { png, origin: (0.0, 0.0), css_per_pixel: size.width / f64::from(width) })
}

// ---- images ----------------------------------------------------------------------------

/// Width and height from a PNG's header.
fn dimensions(png: &[u8]) -> PortResult<(u32, u32)> {
    let reader = png::Decoder::new(Cursor::new(png)).read_info().map_err(|_| bad_image())?;
    let info = reader.info();
    if info.width == 0 || info.height == 0 {
        return Err(bad_image());
    }
    Ok((info.width, info.height))
}

/// A base64 PNG answered as a JSON string.
fn base64_png(value: &Value) -> PortResult<Vec<u8>> {
    let text = value.as_str().ok_or_else(|| unexpected("screenshot"))?;
    base64::engine::general_purpose::STANDARD.decode(text).map_err(|_| bad_image())
}

/// Crop `rect` (document CSS px) out of `source` and resize it to `width × height`, as PNG.
fn crop_and_resize(source: &Source, rect: &CssRect, width: u32, height: u32) -> PortResult<Vec<u8>> {
    let (image_width, image_height) = dimensions(&source.png)?;
    let to_pixels = |css: f64, origin: f64| (css - origin) / source.css_per_pixel;
    let span = |from: f64, to: f64, limit: u32| -> PortResult<(u32, u32)> {
        let limit = f64::from(limit);
        if from < -EDGE_TOLERANCE || to > limit + EDGE_TOLERANCE {
            return Err(PortError::new(PortErrorKind::InvalidInput, "the region lies outside the page"));
        }
        let start = from.round().clamp(0.0, limit - 1.0);
        let end = to.round().clamp(start + 1.0, limit);
        Ok((start as u32, (end - start) as u32))
    };
    let (x, crop_width) = span(
        to_pixels(rect.x, source.origin.0),
        to_pixels(rect.x + rect.width, source.origin.0),
        image_width,
    )?;
    let (y, crop_height) = span(
        to_pixels(rect.y, source.origin.1),
        to_pixels(rect.y + rect.height, source.origin.1),
        image_height,
    )?;
    let cropped = decode_crop(&source.png, x, y, crop_width, crop_height)?;
    let resized = if (crop_width, crop_height) == (width, height) {
        cropped
    } else {
        imageops::resize(&cropped, width, height, REGION_FILTER)
    };
    encode(&resized)
}

/// Decode only the rows and columns of a crop, as 8-bit RGB (screenshots are opaque).
fn decode_crop(png: &[u8], x: u32, y: u32, width: u32, height: u32) -> PortResult<RgbImage> {
    let mut decoder =
        png::Decoder::new_with_limits(Cursor::new(png), png::Limits { bytes: DECODE_LIMIT_BYTES });
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|_| bad_image())?;
    if reader.info().interlaced {
        return Err(PortError::new(PortErrorKind::Other, "the browser answered an interlaced image"));
    }
    let channels = match reader.output_color_type() {
        (png::ColorType::Grayscale, png::BitDepth::Eight) => 1,
        (png::ColorType::GrayscaleAlpha, png::BitDepth::Eight) => 2,
        (png::ColorType::Rgb, png::BitDepth::Eight) => 3,
        (png::ColorType::Rgba, png::BitDepth::Eight) => 4,
        _ => return Err(bad_image()),
    };
    let (first, columns) = (x as usize * channels, width as usize * channels);
    let mut out = Vec::with_capacity(width as usize * height as usize * 3);
    for row in 0..y + height {
        let Some(line) = reader.next_row().map_err(|_| bad_image())? else {
            return Err(bad_image());
        };
        if row < y {
            continue;
        }
        let pixels = line.data().get(first..first + columns).ok_or_else(bad_image)?;
        for pixel in pixels.chunks_exact(channels) {
            match channels {
                1 | 2 => out.extend_from_slice(&[pixel[0], pixel[0], pixel[0]]),
                _ => out.extend_from_slice(&pixel[..3]),
            }
        }
    }
    RgbImage::from_raw(width, height, out).ok_or_else(bad_image)
}

/// Encode an RGB image as PNG.
fn encode(image: &RgbImage) -> PortResult<Vec<u8>> {
    let mut bytes = Vec::new();
    image::codecs::png::PngEncoder::new(&mut bytes)
        .write_image(image.as_raw(), image.width(), image.height(), image::ExtendedColorType::Rgb8)
        .map_err(|_| PortError::new(PortErrorKind::Other, "the region image could not be encoded"))?;
    Ok(bytes)
}

/// The browser's image did not decode.
fn bad_image() -> PortError {
    PortError::new(PortErrorKind::Other, "the browser answered an image that does not decode as PNG")
}

/// The browser answered `what` in a shape we did not expect.
fn unexpected(what: &str) -> PortError {
    PortError::new(PortErrorKind::Other, format!("the browser answered an unexpected {what} shape"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_of(width: u32, height: u32, paint: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
        let image = RgbImage::from_fn(width, height, |x, y| image::Rgb(paint(x, y)));
        encode(&image).unwrap_or_else(|e| panic!("{e}"))
    }

    fn decode(png: &[u8]) -> RgbImage {
        image::load_from_memory(png).unwrap_or_else(|e| panic!("{e}")).to_rgb8()
    }

    #[test]
    fn crop_and_magnify_keep_the_colours_in_place() {
        // A 200×100 image at 2 image px per CSS px (origin (0, 500)): red left half, blue right.
        let png = png_of(200, 100, |x, _| if x < 100 { [255, 0, 0] } else { [0, 0, 255] });
        assert_eq!(dimensions(&png).ok(), Some((200, 100)));
        let source = Source { png, origin: (0.0, 500.0), css_per_pixel: 0.5 };
        // CSS (40, 510) 20×10 straddles the boundary at CSS x = 50; magnify 4× → 80×40.
        let rect = CssRect { x: 40.0, y: 510.0, width: 20.0, height: 10.0 };
        let out = decode(&crop_and_resize(&source, &rect, 80, 40).unwrap_or_else(|e| panic!("{e}")));
        assert_eq!(out.dimensions(), (80, 40));
        assert_eq!(out.get_pixel(10, 20).0, [255, 0, 0]);
        assert_eq!(out.get_pixel(70, 20).0, [0, 0, 255]);
        // Outside the image: refused, not clamped.
        let far = CssRect { x: 90.0, y: 510.0, width: 20.0, height: 10.0 };
        let refused = crop_and_resize(&source, &far, 20, 10);
        assert_eq!(refused.err().map(|e| e.kind()), Some(PortErrorKind::InvalidInput));
        // Same size: no resampling.
        let same = CssRect { x: 0.0, y: 500.0, width: 10.0, height: 5.0 };
        let out = decode(&crop_and_resize(&source, &same, 20, 10).unwrap_or_else(|e| panic!("{e}")));
        assert_eq!(out.get_pixel(19, 9).0, [255, 0, 0]);
    }

    #[test]
    fn malformed_images_are_errors() {
        assert_eq!(dimensions(b"not a png").err().map(|e| e.kind()), Some(PortErrorKind::Other));
        assert_eq!(base64_png(&json!(3)).err().map(|e| e.kind()), Some(PortErrorKind::Other));
        assert_eq!(base64_png(&json!("***")).err().map(|e| e.kind()), Some(PortErrorKind::Other));
    }
}
