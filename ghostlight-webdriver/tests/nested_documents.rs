//! Documents the gate must judge although their URL names no host of their own, and every
//! kind of nested browsing context, through the WebDriver adapter on both engines:
//!
//! - a frame of a denied host that navigates itself to `data:` (and one that writes an
//!   `about:blank` frame of its own) stays denied: its text is not read, its controls are
//!   neither perceived nor found, it is blanked in captures, and pointer input at its pixels
//!   is refused;
//! - a denied page inside `<object>` or `<embed>` is blanked in captures and pointer input at
//!   its pixels is refused, as for an `<iframe>`;
//! - an `about:srcdoc` frame of the page itself is governed as the page (read and perceived).
//!
//! The port is used bare (no network filter: the denied host's pages load, as they would for
//! a browser the wire is not governed for), with the executor's own gate: an
//! `AuthoritySnapshot` denying 127.0.0.2, its `admits_document` as the predicate.

mod support;

use ghostlight_webdriver::Engine;
use support::engines::browser;

per_engine!(#[tokio::test(flavor = "multi_thread")] chromium, firefox => run);

async fn run(engine: Engine) {
    let b = browser(engine);
    support::nested_suite::run_all(engine, b.as_ref(), true).await;
    b.shutdown().await;
}
