//! Window geometry, resizing and zoom.
//!
//! Geometry is always observed, never derived: the same outer window gives different CSS
//! viewports on the two engines (findings §1).
//!
//! Zoom: WebDriver has no browser zoom. On Chromium the adapter emulates it faithfully with
//! DevTools `Emulation.setDeviceMetricsOverride` (viewport ÷ z, device scale × z), per tab,
//! re-applied after a resize of that tab's window and cleared at 100 %. Firefox answers
//! [`PortErrorKind::Unsupported`]: its only zoom path needs geckodriver's system access, which
//! would hand privileged script to whoever holds the session (findings §5).

use ghostlight_core::port::{Geometry, PortError, PortErrorKind, PortResult, TabRef};
use serde::Deserialize;
use serde_json::{Value, json};

use super::frames::ListedView;
use crate::commands::SessionCommand;
use crate::config::Engine;
use crate::errors::Sent;
use crate::session::Session;

/// The neutral zoom in percent.
const NO_ZOOM: u32 = 100;

const VIEWPORT_SCRIPT: &str = "return { width: window.innerWidth, height: window.innerHeight, \
     scale: window.devicePixelRatio, x: window.scrollX, y: window.scrollY, \
     outer_width: window.outerWidth, outer_height: window.outerHeight };";

#[derive(Debug, Deserialize)]
struct Viewport {
    width: f64,
    height: f64,
    scale: f64,
    x: f64,
    y: f64,
    /// The window's outer size as the page reads it: unchanged while the window keeps its
    /// size, so a window size read before still holds ([`Session::known_window_size`]). Not a
    /// number (a page that replaced `outerWidth`): unknown, and the size is asked for.
    #[serde(default)]
    outer_width: Value,
    #[serde(default)]
    outer_height: Value,
}

#[derive(Debug, Deserialize)]
struct WindowRect {
    width: f64,
    height: f64,
}

/// Observed geometry of `tab`.
pub(crate) async fn geometry(s: &mut Session, tab: &TabRef) -> PortResult<Geometry> {
    let handle = s.tab(tab).await?;
    // Measured by the command sent last, a moment ago: the same reading, without a command.
    if let Some(geometry) = s.noted_geometry() {
        return Ok(geometry);
    }
    measure(s, &handle).await
}

/// The geometry a frame listing measured after `earlier` (`view`: the viewport, scale and
/// scroll offsets), within one call that resized and zoomed nothing: the window's size and the
/// zoom are `earlier`'s. What a capture reads after its screenshot, with the frames on it.
pub(crate) fn listed(earlier: &Geometry, view: &ListedView) -> Geometry {
    Geometry {
        viewport_width: px(view.width),
        viewport_height: px(view.height),
        device_scale: view.scale,
        scroll_x: view.scroll_x,
        scroll_y: view.scroll_y,
        ..*earlier
    }
}

/// Resize the window of `tab` (outer size), re-apply its emulated zoom, and observe.
pub(crate) async fn resize_window(
    s: &mut Session,
    tab: &TabRef,
    width: u32,
    height: u32,
) -> PortResult<Geometry> {
    let handle = s.tab(tab).await?;
    // Set Window Rect answers the window's rect as it now is: no second read of it.
    let rect = s.command(SessionCommand::set_window_size(width, height), Sent::Act).await?;
    let rect: Option<WindowRect> = serde_json::from_value(rect).ok();
    let zoom = s.zoom(&handle);
    if zoom != NO_ZOOM {
        apply_zoom(s, &handle, zoom).await?;
    }
    measure_with(s, &handle, rect).await
}

/// Set `tab`'s zoom (Chromium: emulated; Firefox: unsupported) and observe.
pub(crate) async fn set_zoom(s: &mut Session, tab: &TabRef, percent: u32) -> PortResult<Geometry> {
    if s.engine() == Engine::Firefox {
        return Err(PortError::new(PortErrorKind::Unsupported, "Firefox offers no zoom through WebDriver"));
    }
    if percent == 0 {
        return Err(PortError::new(PortErrorKind::InvalidInput, "a zoom of 0 % is not a zoom"));
    }
    let handle = s.tab(tab).await?;
    apply_zoom(s, &handle, percent).await?;
    measure(s, &handle).await
}

async fn apply_zoom(s: &mut Session, handle: &str, percent: u32) -> PortResult<()> {
    s.cdp("Emulation.clearDeviceMetricsOverride", json!({}), Sent::Act).await?;
    s.set_zoom_record(handle, NO_ZOOM);
    if percent == NO_ZOOM {
        return Ok(());
    }
    let natural = viewport(s).await?;
    let z = f64::from(percent) / 100.0;
    let params = json!({
        "width": (natural.width / z).round(),
        "height": (natural.height / z).round(),
        "deviceScaleFactor": natural.scale * z,
        "mobile": false,
    });
    s.cdp("Emulation.setDeviceMetricsOverride", params, Sent::Act).await?;
    s.set_zoom_record(handle, percent);
    Ok(())
}

async fn viewport(s: &mut Session) -> PortResult<Viewport> {
    let value = super::frames::read(s, VIEWPORT_SCRIPT, Vec::new()).await?;
    serde_json::from_value(value).map_err(|_| unexpected())
}

async fn measure(s: &mut Session, handle: &str) -> PortResult<Geometry> {
    measure_with(s, handle, None).await
}

/// [`measure`], with the window's rect when it is already known (`None`: read it).
async fn measure_with(s: &mut Session, handle: &str, rect: Option<WindowRect>) -> PortResult<Geometry> {
    let viewport = viewport(s).await?;
    let outer = (
        viewport.outer_width.as_f64().unwrap_or_default(),
        viewport.outer_height.as_f64().unwrap_or_default(),
    );
    let rect = match rect
        .or_else(|| s.known_window_size(handle, outer).map(|(width, height)| WindowRect { width, height }))
    {
        Some(rect) => rect,
        None => {
            let rect: Value = s.command(SessionCommand::window_rect(), Sent::Read).await?;
            serde_json::from_value(rect).map_err(|_| unexpected())?
        }
    };
    s.remember_window_size(handle, outer, (rect.width, rect.height));
    let geometry = Geometry {
        viewport_width: px(viewport.width),
        viewport_height: px(viewport.height),
        window_width: px(rect.width),
        window_height: px(rect.height),
        device_scale: viewport.scale,
        zoom_percent: s.zoom(handle),
        scroll_x: viewport.x,
        scroll_y: viewport.y,
    };
    s.note_geometry(&geometry);
    Ok(geometry)
}

/// A non-negative pixel count (the float-to-int `as` saturates; NaN becomes 0).
fn px(value: f64) -> u32 {
    value.round().max(0.0) as u32
}

fn unexpected() -> PortError {
    PortError::new(PortErrorKind::Other, "the browser answered an unexpected geometry shape")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_round_and_saturate() {
        assert_eq!(px(853.4), 853);
        assert_eq!(px(-3.0), 0);
        assert_eq!(px(f64::NAN), 0);
        assert_eq!(px(1e12), u32::MAX);
    }
}
