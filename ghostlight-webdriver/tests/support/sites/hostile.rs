//! Hostile pages: a click handler that never returns, an endless dialog loop, a popup flood,
//! thousands of frames, a 500 kB URL, a tall page of noise (a huge full-page image), a page that
//! closes its own tab in its click handler, navigations a click handler starts a moment later, a
//! frame of another site that does not yield for 8 s once loaded (bounded, so that a process the
//! browser keeps after its tab closed does not spin through the scenarios after it), a page that
//! replaces the builtins scripts in its realm rely on.

use crate::support::server::Site;

/// The pages, by path.
pub(crate) const PAGES: &[(&str, &str)] = &[
    ("/plain", "<!doctype html><title>Plain</title><p>A calm page.</p>"),
    ("/spin", "<!doctype html><title>Spin</title><button onclick='for(;;){}'>Spin forever</button>"),
    (
        "/alerts",
        "<!doctype html><title>Alerts</title><button onclick='for(;;){alert(\"again\")}'>Alert forever</button>",
    ),
    (
        "/popups",
        "<!doctype html><title>Popups</title><button onclick='for(let i=0;i<60;i++){window.open(\"/plain?\"+i)}'>Open many</button>",
    ),
    (
        "/long-url",
        "<!doctype html><title>Long URL</title><p>A page with a long address.</p>\
         <script>history.replaceState(null, '', '/long-url?' + 'x'.repeat(500000))</script>",
    ),
    (
        "/tall",
        "<!doctype html><title>Tall</title><style>body{margin:0}canvas{display:block}</style>\
         <canvas id=c width=1200 height=6000></canvas><script>\
         const c = document.getElementById('c').getContext('2d'); const d = c.createImageData(1200, 6000);\
         const a = new Uint32Array(d.data.buffer); let x = 12345;\
         for (let i = 0; i < a.length; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; a[i] = x | 0xff000000; }\
         c.putImageData(d, 0, 0);</script>",
    ),
    (
        "/closer-opener",
        "<!doctype html><title>Opener</title><button onclick=\"window.open('/self-close')\">Open a closer</button>",
    ),
    (
        "/self-close",
        "<!doctype html><title>Self-closing</title><button onclick='window.close()'>Close this tab</button>",
    ),
    (
        "/late",
        "<!doctype html><title>Late</title>\
         <button onclick=\"setTimeout(() => { location.href = '/plain?late' }, 100)\">Go a moment later</button>\
         <button onclick=\"fetch('/plain?ping').then(() => { location.href = '/plain?fetched' })\">Go after a request</button>\
         <button onclick=\"setTimeout(() => { document.title = 'Retitled' }, 300)\">Retitle later</button>",
    ),
    (
        "/huge-dom",
        "<!doctype html><title>Huge DOM</title><p>A page of a hundred thousand paragraphs.</p>\
         <script>const parts = []; for (let i = 0; i < 100000; i++) parts.push('<p>Paragraph ' + i + ' of filler text for a huge document, with <a href=\"#p' + i + '\">a link</a> and <button>button ' + i + '</button></p>');\
         document.body.insertAdjacentHTML('beforeend', parts.join(''));</script>",
    ),
    (
        "/hung-frame",
        "<!doctype html><title>Hung frame</title><p>A calm page around a busy frame.</p><script>\
         const f = document.createElement('iframe');\
         f.src = new URLSearchParams(location.search).get('b') + '/spin-soon';\
         document.body.appendChild(f);</script>",
    ),
    (
        "/spin-soon",
        "<!doctype html><title>Soon busy</title><p>Busy soon.</p>\
         <script>setTimeout(() => { const end = Date.now() + 8000; while (Date.now() < end) {} }, 300)</script>",
    ),
    (
        "/frames",
        "<!doctype html><title>Frames</title><script>for(let i=0;i<2000;i++){const f=document.createElement('iframe');f.src='/plain?f'+i;document.body.appendChild(f)}</script>",
    ),
    (
        "/builtins",
        "<!doctype html><title>Builtins</title>\
         <script>JSON.stringify = () => '{}'; Promise.prototype.then = function () { return this; };\
         Function.prototype.apply = function () { throw new Error('no apply'); };\
         Object.defineProperty = (o) => o; Array.prototype.push = () => 0;</script>\
         <p>An article the page keeps, though it broke what scripts rely on.</p>\
         <button onclick=\"new Image().src = '/builtins-pressed'\">Press here</button>\
         <input aria-label=Note oninput=\"new Image().src = '/builtins-filled'\">\
         <div style='height: 3000px'></div>",
    ),
];

/// Serve [`PAGES`] on both hosts.
pub(crate) fn start() -> Site {
    Site::fixed(PAGES)
}
