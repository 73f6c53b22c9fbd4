//! The evidence and recording tests' site: pages that log to the console, fetch, animate and
//! offer a file input.

use crate::support::dead_ends::closed_port;
use crate::support::server::Site;

/// Start the site:
///
/// - `/problems`: logs an error (5,000 characters long), a warning and an info line, throws
///   an uncaught error, and fetches `/missing?secret=1#frag` (404), `/ok?secret=1#frag`
///   (200) and a closed port; sets its title to `Done` when the fetches settled.
/// - `/later`: logs `gl-later` as an error 300 ms after loading.
/// - `/framed`: a same-origin iframe (`/inner`) that logs `gl-frame` as an error after 300 ms.
/// - `/anim`: a counter and background colour that change every 100 ms, and a file input
///   `#file` whose `change` events are counted in `window.changes`.
/// - `/ok`: 200; `/favicon.ico`: 204; anything else: 404.
///
/// The refused request of `/problems` goes to a loopback port nothing listens on.
pub(crate) fn start() -> Site {
    let closed = closed_port();
    Site::html(move |path, _| page(path, closed))
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
