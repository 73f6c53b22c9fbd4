//! Hostile pages: a click handler that never returns, an endless dialog loop, a popup flood,
//! thousands of frames, a document that commits but never finishes loading, a navigation a
//! click handler starts late, a page that closes its own tab.

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
        "/frames",
        "<!doctype html><title>Frames</title><script>for(let i=0;i<2000;i++){const f=document.createElement('iframe');f.src='/plain?f'+i;document.body.appendChild(f)}</script>",
    ),
];

/// Serve [`PAGES`] on both hosts.
pub(crate) fn start() -> Site {
    Site::fixed(PAGES)
}
