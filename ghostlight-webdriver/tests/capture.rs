//! `BrowserPort::capture` against real headless browsers (Chromium and Firefox): viewport,
//! full page, element and region captures of a page with coloured boxes at known CSS
//! positions, their view transforms, the size caps and the timeout; and one end-to-end run
//! through core's `browser_screenshot`.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_core::port::{
    BrowserPort, CaptureKind, Captured, CssRect, Gate, PortEffect, PortErrorKind, TabCall, TabRef,
};
use ghostlight_core::{Ghostlight, Status};
use ghostlight_webdriver::{Engine, WebDriverBrowser};
use image::RgbImage;
use serde_json::{Value, json};
use support::engines::{browser, scenario};
use support::port::{open, png_size};
use support::server::Site;
use support::sites::boxes::{BUTTON, ColourBox, DEEP, FRAME, GREEN, INNER, PAGE_HEIGHT, RED, TALL};
use support::tools;

const TIMEOUT: Duration = Duration::from_secs(20);
/// Largest per-channel difference still counted as "the box's colour".
const COLOUR_TOLERANCE: u8 = 12;

per_engine!(chromium, firefox => run);

async fn run(engine: Engine) {
    let started = Instant::now();
    let site = support::sites::boxes::start();
    let browser = browser(engine);
    let (b, site) = (&*browser, &site);
    scenario(
        engine,
        "viewport_matches_the_observed_viewport",
        viewport_matches_the_observed_viewport(b, site),
    )
    .await;
    scenario(engine, "viewport_pixels_map_back_to_the_boxes", viewport_pixels_map_back_to_the_boxes(b, site))
        .await;
    scenario(engine, "full_page_covers_the_document", full_page_covers_the_document(b, site)).await;
    scenario(engine, "full_page_over_the_cap_is_refused", full_page_over_the_cap_is_refused(b, site)).await;
    scenario(engine, "element_captures", element_captures(b, site)).await;
    scenario(engine, "region_crops_and_magnifies", region_crops_and_magnifies(b, site)).await;
    scenario(engine, "region_beyond_the_viewport_does_not_scroll", region_beyond_the_viewport(b, site)).await;
    scenario(engine, "timeout_and_bad_input", timeout_and_bad_input(b, site)).await;
    scenario(engine, "full_page_cut_short_leaves_the_page_as_it_was", full_page_cut_short(b, site)).await;
    if engine == Engine::Chromium {
        scenario(engine, "zoomed_captures_measure_their_scale", zoomed_captures(b, site)).await;
    }
    scenario(engine, "end_to_end_through_core", end_to_end_through_core(&browser, site)).await;
    browser.shutdown().await;
    eprintln!("[{}] all capture scenarios: {} ms", engine.as_str(), started.elapsed().as_millis());
}

// ---- helpers ----------------------------------------------------------------------------

async fn scroll_to(b: &WebDriverBrowser, tab: &TabRef, y: f64) {
    let script = format!("window.scrollTo({{left: 0, top: {y}, behavior: 'instant'}}); window.scrollY");
    let value = b.execute(&TabCall::new(tab, &Gate::open(), TIMEOUT), &script).await.expect("scroll").value;
    assert_eq!(value.as_f64(), Some(y), "scrolled to {y}");
}

/// The layout viewport's width (`clientWidth`: without a classic scrollbar).
async fn layout_width(b: &WebDriverBrowser, tab: &TabRef) -> f64 {
    let value = b
        .execute(&TabCall::new(tab, &Gate::open(), TIMEOUT), "document.documentElement.clientWidth")
        .await
        .expect("clientWidth")
        .value;
    value.as_f64().expect("a number")
}

async fn shot(b: &WebDriverBrowser, tab: &TabRef, kind: CaptureKind) -> (Captured, RgbImage) {
    let captured = b
        .capture(&TabCall::new(tab, &Gate::open(), TIMEOUT), &kind)
        .await
        .unwrap_or_else(|e| panic!("capture {kind:?}: {e}"));
    let image = image::load_from_memory_with_format(&captured.png, image::ImageFormat::Png)
        .expect("the capture is a PNG")
        .to_rgb8();
    assert_eq!(image.dimensions(), (captured.width, captured.height), "Captured's size is the PNG's");
    (captured, image)
}

fn is(colour: [u8; 3], pixel: &image::Rgb<u8>) -> bool {
    colour.iter().zip(pixel.0.iter()).all(|(a, b)| a.abs_diff(*b) <= COLOUR_TOLERANCE)
}

/// The bounding box (image px: x0, y0, x1, y1 exclusive) of the pixels of `colour` inside
/// `within` (image px, clamped to the image).
fn pixels_of(
    image: &RgbImage,
    colour: [u8; 3],
    within: (u32, u32, u32, u32),
) -> Option<(u32, u32, u32, u32)> {
    let (w0, h0) = (within.0.min(image.width()), within.1.min(image.height()));
    let (w1, h1) = (within.2.min(image.width()), within.3.min(image.height()));
    let mut found: Option<(u32, u32, u32, u32)> = None;
    for y in h0..h1 {
        for x in w0..w1 {
            if is(colour, image.get_pixel(x, y)) {
                found = Some(match found {
                    None => (x, y, x + 1, y + 1),
                    Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1)),
                });
            }
        }
    }
    found
}

/// The image area where box `b` should appear through `c`'s transform, with a margin of
/// `MARGIN` CSS px (so a wrong transform shows as a mismatch, not as a slow full scan).
fn around(c: &Captured, b: &ColourBox) -> (u32, u32, u32, u32) {
    const MARGIN: f64 = 20.0;
    let edge = |css: f64, origin: f64| ((css - origin) / c.css_per_pixel).max(0.0) as u32;
    (
        edge(b.x - MARGIN, c.origin.0),
        edge(b.y - MARGIN, c.origin.1),
        edge(b.x + b.width + MARGIN, c.origin.0),
        edge(b.y + b.height + MARGIN, c.origin.1),
    )
}

/// Document CSS coordinates of the centre of image pixel `(px, py)` (the view transform).
fn to_document(c: &Captured, px: u32, py: u32) -> (f64, f64) {
    (
        c.origin.0 + (f64::from(px) + 0.5) * c.css_per_pixel,
        c.origin.1 + (f64::from(py) + 0.5) * c.css_per_pixel,
    )
}

/// Image pixel of document point `(x, y)`.
fn to_pixel(c: &Captured, x: f64, y: f64) -> (u32, u32) {
    (((x - c.origin.0) / c.css_per_pixel) as u32, ((y - c.origin.1) / c.css_per_pixel) as u32)
}

/// The box's centre pixel in `image` is its colour, and the centre of its pixels maps back
/// (through the capture's transform) into the box, within a pixel of the box's centre.
fn check_box(c: &Captured, image: &RgbImage, b: &ColourBox) {
    let (x0, y0, x1, y1) =
        pixels_of(image, b.rgb, around(c, b)).unwrap_or_else(|| panic!("no {} pixels", b.id));
    let (px, py) = ((x0 + x1) / 2, (y0 + y1) / 2);
    assert!(is(b.rgb, image.get_pixel(px, py)), "{}: centre pixel {:?}", b.id, image.get_pixel(px, py));
    let (x, y) = to_document(c, px, py);
    assert!(b.contains(x, y), "{}: pixel ({px}, {py}) maps to ({x}, {y}), outside the box", b.id);
    let (cx, cy) = b.centre();
    let slack = 1.0 + c.css_per_pixel;
    assert!(
        (x - cx).abs() <= slack && (y - cy).abs() <= slack,
        "{}: ({x}, {y}) vs centre ({cx}, {cy})",
        b.id
    );
    // The box's extent in pixels matches its CSS size through the scale (within a pixel).
    let width = f64::from(x1 - x0) * c.css_per_pixel;
    assert!((width - b.width).abs() <= slack, "{}: {width} CSS px wide, expected {}", b.id, b.width);
}

fn assert_colour(image: &RgbImage, x: u32, y: u32, colour: [u8; 3], what: &str) {
    let pixel = image.get_pixel(x, y);
    assert!(is(colour, pixel), "{what}: pixel ({x}, {y}) is {:?}, expected {colour:?}", pixel.0);
}

// ---- scenarios ----------------------------------------------------------------------------

async fn viewport_matches_the_observed_viewport(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/boxes").await;
    let geometry = b.geometry(&tab).await.expect("geometry");
    let started = Instant::now();
    let (c, _) = shot(b, &tab, CaptureKind::Viewport).await;
    eprintln!("  viewport {}×{} in {} ms", c.width, c.height, started.elapsed().as_millis());
    assert_eq!(c.geometry, geometry, "the capture reports the observed geometry");
    assert_eq!(c.origin, (0.0, 0.0));
    // The image covers exactly the CSS viewport (no DPR assumed: the scale is measured).
    assert!((f64::from(c.width) * c.css_per_pixel - f64::from(geometry.viewport_width)).abs() < 1e-6);
    assert!((f64::from(c.height) * c.css_per_pixel - f64::from(geometry.viewport_height)).abs() <= 1.0);
    if (geometry.device_scale - 1.0).abs() < 1e-9 {
        assert_eq!((c.width, c.height), (geometry.viewport_width, geometry.viewport_height));
        assert!((c.css_per_pixel - 1.0).abs() < 1e-9);
    }
    b.close_tab(&tab).await.expect("close");
}

async fn viewport_pixels_map_back_to_the_boxes(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/boxes").await;
    let (c, image) = shot(b, &tab, CaptureKind::Viewport).await;
    for colour_box in [RED, GREEN, BUTTON] {
        check_box(&c, &image, &colour_box);
    }
    // Scrolled: the origin follows, and a box far down maps back to its document position.
    scroll_to(b, &tab, 1400.0).await;
    let (c, image) = shot(b, &tab, CaptureKind::Viewport).await;
    assert_eq!(c.origin, (0.0, 1400.0));
    assert_eq!(c.geometry.scroll_y, 1400.0);
    check_box(&c, &image, &DEEP);
    assert!(
        pixels_of(&image, RED.rgb, (0, 0, c.width, c.height)).is_none(),
        "the red box is scrolled out of view"
    );
    b.close_tab(&tab).await.expect("close");
}

async fn full_page_covers_the_document(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/boxes").await;
    scroll_to(b, &tab, 700.0).await;
    let layout_before = layout_width(b, &tab).await;
    let started = Instant::now();
    let (c, image) = shot(b, &tab, CaptureKind::FullPage).await;
    eprintln!("  full page {}×{} in {} ms", c.width, c.height, started.elapsed().as_millis());
    assert_eq!(c.origin, (0.0, 0.0));
    let height = f64::from(c.height) * c.css_per_pixel;
    assert!(
        (height - PAGE_HEIGHT).abs() <= 1.0,
        "full page is {height} CSS px tall, the document {PAGE_HEIGHT}"
    );
    let doc_width = b
        .execute(
            &TabCall::new(&tab, &Gate::open(), TIMEOUT),
            "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)",
        )
        .await
        .expect("width")
        .value
        .as_f64()
        .expect("a number");
    let width = f64::from(c.width) * c.css_per_pixel;
    assert!(
        width >= doc_width - 1.0 && width <= f64::from(c.geometry.viewport_width) + 1.0,
        "width {width}, document {doc_width}"
    );
    for colour_box in [RED, GREEN, BUTTON, DEEP] {
        check_box(&c, &image, &colour_box);
    }
    // Capturing the whole page neither scrolls nor resizes the page.
    let after = b.geometry(&tab).await.expect("geometry");
    assert_eq!(after.scroll_y, 700.0, "the full-page capture kept the scroll position");
    assert_eq!(layout_width(b, &tab).await, layout_before, "the layout width (scrollbars) is unchanged");
    assert_eq!(c.geometry, after);
    b.close_tab(&tab).await.expect("close");
}

async fn full_page_over_the_cap_is_refused(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/huge").await;
    let started = Instant::now();
    let error = b
        .capture(&TabCall::new(&tab, &Gate::open(), TIMEOUT), &CaptureKind::FullPage)
        .await
        .expect_err("over the cap");
    assert_eq!(error.kind(), PortErrorKind::TooLarge, "{error}");
    assert_eq!(error.effect(), PortEffect::None);
    let oversize = error.oversize().expect("the size and the limit");
    assert_eq!((oversize.height, oversize.max_side), (40_000, 16_384), "{error}");
    assert!(started.elapsed() < Duration::from_secs(2), "refused before capturing");
    b.close_tab(&tab).await.expect("close");
}

async fn element_captures(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/boxes").await;
    let green = b.testing_element(&tab, &[], "#green").await.expect("element");
    let started = Instant::now();
    let (c, image) = shot(b, &tab, CaptureKind::Element(green)).await;
    eprintln!("  element {}×{} in {} ms", c.width, c.height, started.elapsed().as_millis());
    assert!((f64::from(c.width) * c.css_per_pixel - GREEN.width).abs() < 1e-6);
    assert!((f64::from(c.height) * c.css_per_pixel - GREEN.height).abs() <= 1.0);
    if (c.geometry.device_scale - 1.0).abs() < 1e-9 {
        assert_eq!((c.width, c.height), (120, 80));
    }
    assert_eq!(c.origin, (GREEN.x, GREEN.y));
    assert_colour(&image, c.width / 2, c.height / 2, GREEN.rgb, "centre");

    // Below the viewport: scrolled into view, and the geometry is the scrolled page's.
    let deep = b.testing_element(&tab, &[], "#deep").await.expect("element");
    let (c, image) = shot(b, &tab, CaptureKind::Element(deep)).await;
    assert_eq!(c.origin, (DEEP.x, DEEP.y));
    assert!((f64::from(c.width) * c.css_per_pixel - DEEP.width).abs() < 1e-6);
    assert!(c.geometry.scroll_y > 0.0, "scrolled into view");
    assert_eq!(c.geometry, b.geometry(&tab).await.expect("geometry"));
    assert_colour(&image, c.width / 2, c.height / 2, DEEP.rgb, "centre");

    // Taller than the viewport: the image shows the visible part, and its origin says which.
    scroll_to(b, &tab, 0.0).await;
    let tall = b.testing_element(&tab, &[], "#tall").await.expect("element");
    let (c, image) = shot(b, &tab, CaptureKind::Element(tall)).await;
    let g = c.geometry;
    assert_eq!(c.origin, (TALL.x, TALL.y.max(g.scroll_y)), "from the element's visible top");
    let shown = f64::from(c.height) * c.css_per_pixel;
    let visible = (TALL.y + TALL.height).min(g.scroll_y + f64::from(g.viewport_height)) - c.origin.1;
    assert!((shown - visible).abs() <= 1.0, "{shown} CSS px shown, {visible} visible");
    assert_colour(&image, c.width / 2, 2, TALL.rgb, "top row");
    assert_colour(&image, c.width / 2, c.height - 3, TALL.rgb, "bottom row");

    // Inside a same-origin iframe: the origin is in top-document coordinates.
    scroll_to(b, &tab, 0.0).await;
    let inner = b.testing_element(&tab, &["#frame"], "#inner").await.expect("element");
    let (c, image) = shot(b, &tab, CaptureKind::Element(inner)).await;
    let (fx, fy, border) = FRAME;
    assert_eq!(c.origin, (fx + border + INNER.x, fy + border + INNER.y));
    assert!((f64::from(c.width) * c.css_per_pixel - INNER.width).abs() < 1e-6);
    assert_colour(&image, c.width / 2, c.height / 2, INNER.rgb, "centre");
    b.close_tab(&tab).await.expect("close");
}

async fn region_crops_and_magnifies(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/boxes").await;
    let before = b.geometry(&tab).await.expect("geometry");
    // The red box's inner part, magnified 2.5×.
    let rect = CssRect { x: 120.0, y: 110.0, width: 160.0, height: 80.0 };
    let started = Instant::now();
    let (c, image) = shot(b, &tab, CaptureKind::Region { rect, scale: 2.5 }).await;
    eprintln!("  region {}×{} in {} ms", c.width, c.height, started.elapsed().as_millis());
    assert_eq!((c.width, c.height), (400, 200), "round(rect × scale)");
    assert_eq!(c.origin, (rect.x, rect.y));
    assert!((c.css_per_pixel - 0.4).abs() < 1e-9);
    assert_colour(&image, 200, 100, RED.rgb, "centre");
    assert_eq!(c.geometry, before, "a region does not scroll");

    // Straddling the green box's left edge (CSS x = 400): the edge lands where the transform says.
    let rect = CssRect { x: 380.0, y: 160.0, width: 40.0, height: 20.0 };
    let (c, image) = shot(b, &tab, CaptureKind::Region { rect, scale: 4.0 }).await;
    assert_eq!((c.width, c.height), (160, 80));
    let (edge, _) = to_pixel(&c, GREEN.x, rect.y);
    assert_eq!(edge, 80);
    // (Two source pixels away: past the resampling filter's reach.)
    assert!(is([255, 255, 255], image.get_pixel(edge - 9, 40)), "white left of the edge");
    assert!(is(GREEN.rgb, image.get_pixel(edge + 9, 40)), "green right of the edge");

    // Scrolled page, region inside the current viewport.
    scroll_to(b, &tab, 1400.0).await;
    let rect = CssRect { x: DEEP.x + 10.0, y: DEEP.y + 10.0, width: 50.0, height: 25.0 };
    let (c, image) = shot(b, &tab, CaptureKind::Region { rect, scale: 3.0 }).await;
    assert_eq!((c.width, c.height), (150, 75));
    assert_colour(&image, 75, 37, DEEP.rgb, "centre");
    assert_eq!(c.geometry.scroll_y, 1400.0);
    b.close_tab(&tab).await.expect("close");
}

async fn region_beyond_the_viewport(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/boxes").await;
    // The yellow box lies below the first viewport: captured without scrolling.
    let rect = CssRect { x: DEEP.x, y: DEEP.y - 20.0, width: 100.0, height: 60.0 };
    let started = Instant::now();
    let (c, image) = shot(b, &tab, CaptureKind::Region { rect, scale: 2.0 }).await;
    eprintln!(
        "  region beyond the viewport {}×{} in {} ms",
        c.width,
        c.height,
        started.elapsed().as_millis()
    );
    assert_eq!((c.width, c.height), (200, 120));
    assert_colour(&image, 100, 20, [255, 255, 255], "white above the box");
    assert_colour(&image, 100, 80, DEEP.rgb, "yellow inside it");
    let after = b.geometry(&tab).await.expect("geometry");
    assert_eq!(after.scroll_y, 0.0, "the region capture did not scroll");
    assert_eq!(c.geometry, after);
    b.close_tab(&tab).await.expect("close");
}

async fn timeout_and_bad_input(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/boxes").await;
    let error = b
        .capture(&TabCall::new(&tab, &Gate::open(), Duration::from_millis(1)), &CaptureKind::FullPage)
        .await
        .expect_err("too short");
    assert_eq!(error.kind(), PortErrorKind::Timeout, "{error}");
    assert_eq!(error.effect(), PortEffect::None, "a capture has no effect");
    // The session still serves captures afterwards.
    let (c, _) = shot(b, &tab, CaptureKind::Viewport).await;
    assert!(c.width > 0);

    let huge = CssRect { x: 0.0, y: 0.0, width: 1200.0, height: 100.0 };
    let error = b
        .capture(&TabCall::new(&tab, &Gate::open(), TIMEOUT), &CaptureKind::Region { rect: huge, scale: 4.0 })
        .await
        .expect_err("cap");
    assert_eq!(error.kind(), PortErrorKind::InvalidInput, "{error}");
    let outside = CssRect { x: 0.0, y: 2990.0, width: 100.0, height: 100.0 };
    let error = b
        .capture(
            &TabCall::new(&tab, &Gate::open(), TIMEOUT),
            &CaptureKind::Region { rect: outside, scale: 1.0 },
        )
        .await
        .expect_err("off");
    assert_eq!(error.kind(), PortErrorKind::InvalidInput, "{error}");
    b.close_tab(&tab).await.expect("close");
}

/// The cut points of a full-page capture: every 10 ms from 10 to 600 ms (a Chromium full page
/// takes 100–400 ms here, so every step of it is cut somewhere).
fn cut_points() -> impl Iterator<Item = u64> {
    (1..=60).map(|step| step * 10)
}

async fn full_page_cut_short(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/boxes").await;
    scroll_to(b, &tab, 700.0).await;
    let before = b.geometry(&tab).await.expect("geometry");
    let layout = layout_width(b, &tab).await;
    let (mut finished, mut cut) = (0, 0);
    // The capture's own timeout cuts it: whatever step it reached, the page is as it was by the
    // time the capture answers (no waiting: the next reading must already see it).
    for ms in cut_points() {
        match b
            .capture(&TabCall::new(&tab, &Gate::open(), Duration::from_millis(ms)), &CaptureKind::FullPage)
            .await
        {
            Err(error) => {
                assert_eq!(error.kind(), PortErrorKind::Timeout, "{error}");
                cut += 1;
            }
            Ok(_) => finished += 1,
        }
        let now = b.geometry(&tab).await.expect("geometry");
        let width = layout_width(b, &tab).await;
        assert_eq!((now, width), (before, layout), "after a capture cut at {ms} ms by its timeout");
    }
    eprintln!("  timeouts: {cut} cut, {finished} finished");
    // The caller drops the capture (a cancelled call): the next call on the browser puts the
    // page back before it does anything else.
    let (mut finished, mut cut) = (0, 0);
    for ms in cut_points() {
        let open = Gate::open();
        let call = TabCall::new(&tab, &open, TIMEOUT);
        let capture = b.capture(&call, &CaptureKind::FullPage);
        match tokio::time::timeout(Duration::from_millis(ms), capture).await {
            Err(_) => cut += 1,
            Ok(result) => {
                result.expect("an uncut capture");
                finished += 1;
            }
        }
        let now = b.geometry(&tab).await.expect("geometry");
        let width = layout_width(b, &tab).await;
        assert_eq!((now, width), (before, layout), "after a capture dropped at {ms} ms");
    }
    eprintln!("  drops: {cut} cut, {finished} finished");
    b.close_tab(&tab).await.expect("close");
}

async fn zoomed_captures(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/boxes").await;
    let zoomed = b.set_zoom(&tab, 150).await.expect("zoom");
    assert_eq!(zoomed.zoom_percent, 150);
    // Viewport: device pixels; the scale comes from the image, not from an assumed DPR.
    let (c, image) = shot(b, &tab, CaptureKind::Viewport).await;
    assert_eq!(c.geometry, zoomed);
    assert!((c.css_per_pixel - f64::from(zoomed.viewport_width) / f64::from(c.width)).abs() < 1e-9);
    assert!((c.css_per_pixel - 1.0 / 1.5).abs() < 0.01, "about 2/3 CSS px per pixel: {}", c.css_per_pixel);
    for colour_box in [RED, GREEN, BUTTON] {
        check_box(&c, &image, &colour_box);
    }
    // Element: 120×80 CSS px at 1.5 pixels each.
    let green = b.testing_element(&tab, &[], "#green").await.expect("element");
    let (c, _) = shot(b, &tab, CaptureKind::Element(green)).await;
    assert_eq!((c.width, c.height), (180, 120));
    assert!((c.css_per_pixel - 1.0 / 1.5).abs() < 1e-9);
    // Full page: the zoom is put back afterwards.
    scroll_to(b, &tab, 300.0).await;
    let before = b.geometry(&tab).await.expect("geometry");
    let (c, image) = shot(b, &tab, CaptureKind::FullPage).await;
    assert!((f64::from(c.height) * c.css_per_pixel - PAGE_HEIGHT).abs() <= 1.0);
    check_box(&c, &image, &DEEP);
    assert_eq!(b.geometry(&tab).await.expect("geometry"), before, "zoom and scroll are back");
    // Region from the zoomed viewport, magnified: still the exact requested size.
    let rect = CssRect { x: 120.0, y: 320.0, width: 100.0, height: 40.0 };
    let (c, image) = shot(b, &tab, CaptureKind::Region { rect, scale: 3.0 }).await;
    assert_eq!((c.width, c.height), (300, 120));
    assert_colour(&image, 150, 60, [255, 255, 255], "white between the boxes");
    b.set_zoom(&tab, 100).await.expect("unzoom");
    b.close_tab(&tab).await.expect("close");
}

// ---- end to end through core ------------------------------------------------------------

async fn end_to_end_through_core(browser: &Arc<WebDriverBrowser>, site: &Site) {
    let port: Arc<dyn BrowserPort> = browser.clone();
    let ghostlight = Ghostlight::new(port);
    let invoke = |tool: &'static str, arguments: Value| {
        let ghostlight = ghostlight.clone();
        async move { tools::invoke(&ghostlight, tool, &arguments).await }
    };

    let url = site.url("/boxes?e2e");
    let opened = invoke("browser_navigate", json!({"url": url.as_str()})).await;
    assert_eq!(opened.envelope.status, Status::Succeeded, "{}", opened.envelope.summary);

    // Viewport: facts and the attachment agree with the adapter's observed viewport.
    let viewport = invoke("browser_screenshot", json!({})).await;
    let e = &viewport.envelope;
    assert_eq!(e.status, Status::Succeeded, "{}", e.summary);
    assert_eq!(e.facts["mime_type"], json!("image/png"));
    let (width, height) =
        (e.facts["width"].as_u64().expect("width"), e.facts["height"].as_u64().expect("height"));
    assert_eq!(viewport.attachments.len(), 1);
    assert_eq!(viewport.attachments[0].mime_type, "image/png");
    assert_eq!(png_size(&viewport.attachments[0].bytes), (width as u32, height as u32));
    let tabs = browser.tabs().await.expect("tabs");
    let tab = tabs.iter().find(|t| t.page.url == url).expect("the navigated tab").tab.clone();
    let geometry = browser.geometry(&tab).await.expect("geometry");
    let css_per_pixel = f64::from(geometry.viewport_width) / width as f64;
    assert!((height as f64 * css_per_pixel - f64::from(geometry.viewport_height)).abs() <= 1.0);
    let view = e.facts["view"].as_str().expect("a view handle").to_owned();
    eprintln!("  e2e viewport: {}", e.summary);

    // A region of that view around the button, in the view's image pixels.
    let px = |css: f64| (css / css_per_pixel).round() as u64;
    let (rx, ry, rw, rh) = (BUTTON.x - 10.0, BUTTON.y - 10.0, BUTTON.width + 20.0, BUTTON.height + 20.0);
    let arguments = json!({"view": view, "x": px(rx), "y": px(ry), "width": px(rw), "height": px(rh)});
    let region = invoke("browser_screenshot", arguments).await;
    let e = &region.envelope;
    assert_eq!(e.status, Status::Succeeded, "{}", e.summary);
    assert_eq!(e.facts["parent_view"], json!(view));
    let (rw_px, rh_px) =
        (e.facts["width"].as_u64().expect("width"), e.facts["height"].as_u64().expect("height"));
    assert_eq!(png_size(&region.attachments[0].bytes), (rw_px as u32, rh_px as u32));
    // Consistent facts: the region keeps the rectangle's aspect, magnified (core: longer edge
    // about 1024 px, at most 4×).
    let scale = rw_px as f64 / rw;
    assert!(scale > 1.0 && scale <= 4.0 + 1e-9, "magnified ×{scale}");
    assert!((rh_px as f64 - rh * scale).abs() <= 1.0, "{rw_px}×{rh_px} keeps {rw}×{rh}");
    let image = image::load_from_memory_with_format(&region.attachments[0].bytes, image::ImageFormat::Png)
        .expect("png")
        .to_rgb8();
    assert_colour(&image, (rw_px / 2) as u32, (rh_px / 2) as u32, BUTTON.rgb, "the button in the middle");
    let region_view = e.facts["view"].as_str().expect("a view handle").to_owned();
    eprintln!("  e2e region: {}", e.summary);

    // Click the button's centre through the region view. Clicking belongs to the input
    // operations: only check that the envelope is well-formed, and that a success clicked it.
    let click = invoke("browser_click", json!({"view": region_view, "x": rw_px / 2, "y": rh_px / 2})).await;
    eprintln!("  e2e click: {:?} {}", click.envelope.status, click.envelope.summary);
    if click.envelope.status == Status::Succeeded {
        assert_eq!(browser.page(&tab).await.expect("page").title, "Clicked");
    }
    browser.close_tab(&tab).await.expect("close");
}
