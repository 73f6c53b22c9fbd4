//! Small `BrowserPort` steps the tests repeat: a navigation input, opening a tab on a page of
//! the site, reading a script's value, an element's centre, and the size of a PNG.

use std::time::Duration;

use ghostlight_core::port::{BrowserPort, Gate, NavigateInput, Point, TabCall, TabRef};
use serde_json::Value;
use url::Url;

use crate::support::server::Site;

/// The bound of the port calls made here.
pub(crate) const STEP_TIMEOUT: Duration = Duration::from_secs(20);

/// A navigation to `url` that keeps `beforeunload` prompts.
pub(crate) fn go(url: Url) -> NavigateInput {
    NavigateInput { url, discard_beforeunload: false }
}

/// Open `path` of `site` in a new tab; answers the tab.
pub(crate) async fn open(b: &dyn BrowserPort, site: &Site, path: &str) -> TabRef {
    b.open_tab(&go(site.url(path)), STEP_TIMEOUT).await.expect("open_tab").tab
}

/// The value of `script` (a script body that `return`s, or an expression) in `tab`.
pub(crate) async fn eval(b: &dyn BrowserPort, tab: &TabRef, script: &str) -> Value {
    b.execute(&TabCall::new(tab, &Gate::open(), STEP_TIMEOUT), script).await.expect("execute").value
}

/// The pixel size of a PNG.
pub(crate) fn png_size(bytes: &[u8]) -> (u32, u32) {
    let image = image::load_from_memory_with_format(bytes, image::ImageFormat::Png).expect("a PNG");
    (image.width(), image.height())
}

/// The centre of the element `expression` evaluates to, in viewport coordinates.
pub(crate) async fn centre_of(b: &dyn BrowserPort, tab: &TabRef, expression: &str) -> Point {
    let script = format!(
        "const r = ({expression}).getBoundingClientRect(); [r.left + r.width / 2, r.top + r.height / 2]"
    );
    let value = eval(b, tab, &script).await;
    let xy: (f64, f64) = serde_json::from_value(value).expect("a point");
    Point { x: xy.0, y: xy.1 }
}
