//! The capture tests' site: coloured boxes at known CSS positions, an iframe, and a page
//! over the full-page cap.

use crate::support::server::Site;

/// A box of one colour at a known document position (CSS px).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ColourBox {
    pub(crate) id: &'static str,
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) width: f64,
    pub(crate) height: f64,
    pub(crate) rgb: [u8; 3],
}

impl ColourBox {
    /// Whether document point `(x, y)` lies inside the box.
    pub(crate) fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x && x < self.x + self.width && y >= self.y && y < self.y + self.height
    }

    /// The box's centre in document CSS px.
    pub(crate) fn centre(&self) -> (f64, f64) {
        (self.x + self.width / 2.0, self.y + self.height / 2.0)
    }
}

/// Red, near the top.
pub(crate) const RED: ColourBox =
    ColourBox { id: "red", x: 100.0, y: 100.0, width: 200.0, height: 100.0, rgb: [255, 0, 0] };
/// Green, near the top.
pub(crate) const GREEN: ColourBox =
    ColourBox { id: "green", x: 400.0, y: 150.0, width: 120.0, height: 80.0, rgb: [0, 255, 0] };
/// A blue button with blue text (so its whole box is one colour); clicking it sets the title.
pub(crate) const BUTTON: ColourBox =
    ColourBox { id: "go", x: 600.0, y: 300.0, width: 160.0, height: 40.0, rgb: [0, 0, 255] };
/// Yellow, far below the first viewport.
pub(crate) const DEEP: ColourBox =
    ColourBox { id: "deep", x: 50.0, y: 1500.0, width: 300.0, height: 200.0, rgb: [255, 255, 0] };
/// Cyan, taller than either engine's viewport.
pub(crate) const TALL: ColourBox =
    ColourBox { id: "tall", x: 900.0, y: 100.0, width: 100.0, height: 1000.0, rgb: [0, 255, 255] };
/// The document height of `/boxes`.
pub(crate) const PAGE_HEIGHT: f64 = 3000.0;
/// The iframe of `/boxes`: border-box position, border width.
pub(crate) const FRAME: (f64, f64, f64) = (100.0, 420.0, 5.0);
/// The magenta box inside the iframe, relative to the frame's content box.
pub(crate) const INNER: ColourBox =
    ColourBox { id: "inner", x: 20.0, y: 30.0, width: 100.0, height: 50.0, rgb: [255, 0, 255] };

/// Start the site:
///
/// - `/boxes`: white page, 3000 px tall, with the boxes above and an iframe;
/// - `/huge`: a page 40 000 px tall (over the full-page cap).
pub(crate) fn start() -> Site {
    Site::html(|path, _| (200, page(path)))
}

fn positioned(b: &ColourBox, tag: &str, extra: &str) -> String {
    let [r, g, bl] = b.rgb;
    format!(
        "<{tag} id={} style=\"position:absolute;left:{}px;top:{}px;width:{}px;height:{}px;\
         background:rgb({r},{g},{bl});{extra}\"{}</{tag}>",
        b.id,
        b.x,
        b.y,
        b.width,
        b.height,
        if tag == "button" { " onclick=\"document.title='Clicked'\">Go" } else { ">" },
    )
}

fn page(path: &str) -> String {
    match path {
        "/huge" => "<!doctype html><title>Huge</title><style>html,body{margin:0}</style>\
                    <div style=\"height:40000px\"></div>"
            .into(),
        _ => {
            let (fx, fy, border) = FRAME;
            let [r, g, b] = INNER.rgb;
            let inner = format!(
                "<body style='margin:0;background:#fff'><div id={} style='position:absolute;left:{}px;top:{}px;\
                 width:{}px;height:{}px;background:rgb({r},{g},{b})'></div></body>",
                INNER.id, INNER.x, INNER.y, INNER.width, INNER.height
            );
            format!(
                "<!doctype html><html><head><title>Boxes</title>\
                 <style>html,body{{margin:0;padding:0;background:#fff}}</style></head><body>\
                 {}{}{}{}{}\
                 <iframe id=frame style=\"position:absolute;left:{fx}px;top:{fy}px;width:300px;height:150px;\
                 border:{border}px solid #000;padding:0\" srcdoc=\"{inner}\"></iframe>\
                 <div style=\"height:{PAGE_HEIGHT}px;width:1px\"></div></body></html>",
                positioned(&RED, "div", ""),
                positioned(&GREEN, "div", ""),
                positioned(&BUTTON, "button", "border:0;padding:0;color:rgb(0,0,255);font-size:12px"),
                positioned(&DEEP, "div", ""),
                positioned(&TALL, "div", ""),
            )
        }
    }
}
