//! The plain site of the port, lifecycle, fault and launch tests:
//!
//! - `/unload`: a page that asks to confirm leaving (`beforeunload`) once it was clicked;
//! - `/slow`: a page whose response is delayed by [`SLOW_PAGE_DELAY`];
//! - `/closer`: a page whose "Close this tab" button makes the page close its own tab
//!   (`window.close()` shortly after the click, so the click itself answers first);
//! - `/opener`: a page whose "Open a closer" button opens `/closer?popup` by script;
//! - any other path: a page titled after the path (`/a` → `A`) with a button.

use std::time::Duration;

use crate::support::server::Site;

/// How long `/slow` takes to answer: longer than Firefox's prompt probe (2 s), so a Firefox
/// navigation to it goes through the adapter's own wait for the page.
pub(crate) const SLOW_PAGE_DELAY: Duration = Duration::from_millis(2500);

/// Start the site.
pub(crate) fn start() -> Site {
    Site::html(|path, _| {
        if path == "/slow" {
            std::thread::sleep(SLOW_PAGE_DELAY);
        }
        (200, page(path))
    })
}

fn page(path: &str) -> String {
    if path == "/unload" {
        return "<!doctype html><title>Unload</title>\
            <button id=arm onclick=\"window.armed = true\">Arm</button>\
            <script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; });</script>"
            .into();
    }
    if path == "/closer" {
        return "<!doctype html><title>Closer</title><h1>Closer</h1>\
            <button id=close onclick=\"setTimeout(() => window.close(), 300)\">Close this tab</button>\
"
        .into();
    }
    if path == "/opener" {
        return "<!doctype html><title>Opener</title><h1>Opener</h1>\
            <button id=open onclick=\"window.open('/closer?popup')\">Open a closer</button>"
            .into();
    }
    let name = path.trim_start_matches('/');
    let title = name.to_uppercase();
    format!(
        "<!doctype html><title>{title}</title><h1>{title}</h1><button id=b>Button {title}</button>\
         <div style=\"height: 3000px\"></div>"
    )
}
