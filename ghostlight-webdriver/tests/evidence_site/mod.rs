//! Helpers of the evidence and recording tests: engine selection, timed scenarios, and a
//! loopback site whose pages log to the console, fetch, animate and offer a file input.
//!
//! Every test runs against both engines unless `GHOSTLIGHT_TEST_ENGINES` (a comma-separated
//! list, e.g. `chromium`) limits them. A selected engine whose driver is missing fails the
//! test loudly.

#![allow(dead_code, unreachable_pub)]

use std::net::TcpListener;
use std::time::Duration;

use ghostlight_webdriver::Engine;

#[allow(unused_imports)] // each test target uses its own subset
pub use crate::harness::{Site, selected};

/// The longest one scenario may take.
pub const SCENARIO_TIMEOUT: Duration = Duration::from_secs(90);

/// Run one named scenario within [`SCENARIO_TIMEOUT`], printing its duration.
pub async fn scenario<F: std::future::Future<Output = ()>>(engine: Engine, name: &str, body: F) {
    crate::harness::scenario_within(SCENARIO_TIMEOUT, engine, name, body).await;
}

/// A loopback port nothing listens on (bound, then released).
pub fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    listener.local_addr().expect("an address").port()
}

/// The site's pages:
///
/// - `/problems`: logs an error (5,000 characters long), a warning and an info line, throws
///   an uncaught error, and fetches `/missing?secret=1#frag` (404), `/ok?secret=1#frag`
///   (200) and a closed port; sets its title to `Done` when the fetches settled.
/// - `/later`: logs `gl-later` as an error 300 ms after loading.
/// - `/framed`: a same-origin iframe (`/inner`) that logs `gl-frame` as an error after 300 ms.
/// - `/anim`: a counter and background colour that change every 100 ms, and a file input
///   `#file` whose `change` events are counted in `window.changes`.
/// - `/ok`: 200; `/favicon.ico`: 204; anything else: 404.
impl Site {
    /// Start the site; `/problems` fetches `closed` as its refused request.
    pub fn start(closed: u16) -> Site {
        Site::serve(move |path, _| page(path, closed))
    }
}

fn page(path: &str, closed: u16) -> (u16, String) {
    let html = |title: &str, body: &str| {
        format!("<!doctype html><html><head><title>{title}</title></head><body>{body}</body></html>")
    };
    match path {
        "/problems" => (
            200,
            html(
                "Problems",
                &format!(
                    "<h1>Problems</h1><script>
                    console.error('gl-error ' + 'x'.repeat(5000));
                    console.warn('gl-warn');
                    console.info('gl-info');
                    setTimeout(() => {{ throw new Error('gl-uncaught'); }}, 0);
                    Promise.allSettled([
                      fetch('/missing?secret=1#frag'),
                      fetch('/ok?secret=1#frag'),
                      fetch('http://127.0.0.1:{closed}/refused?secret=1'),
                    ]).then(() => {{ document.title = 'Done'; }});
                    </script>"
                ),
            ),
        ),
        "/later" => (
            200,
            html("Later", "<h1>Later</h1><script>setTimeout(() => console.error('gl-later'), 300);</script>"),
        ),
        "/framed" => (200, html("Framed", "<h1>Framed</h1><iframe src=\"/inner\"></iframe>")),
        "/inner" => (
            200,
            html("Inner", "<p>inner</p><script>setTimeout(() => console.error('gl-frame'), 300);</script>"),
        ),
        "/anim" => (
            200,
            html(
                "Anim",
                "<div id=n style=\"font: 80px sans-serif\">0</div><input type=file id=file>
                <script>
                window.changes = 0;
                document.querySelector('#file').addEventListener('change', () => { window.changes += 1; });
                let i = 0;
                setInterval(() => {
                  i += 1;
                  n.textContent = String(i);
                  document.body.style.background = 'hsl(' + ((i * 37) % 360) + ', 70%, 60%)';
                }, 100);
                </script>",
            ),
        ),
        "/ok" => (200, html("OK", "<p>ok</p>")),
        "/quiet" => (200, html("Quiet", "<p>quiet</p>")),
        "/favicon.ico" => (204, String::new()),
        _ => (404, html("Missing", "<p>missing</p>")),
    }
}
