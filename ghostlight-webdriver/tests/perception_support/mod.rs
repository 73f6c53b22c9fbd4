//! Helpers of the perception tests: engine selection, timed scenarios, and a loopback site
//! serving the fixture pages (`pages.rs`).
//!
//! Every test runs against both engines unless `GHOSTLIGHT_TEST_ENGINES` (a comma-separated
//! list, e.g. `chromium`) limits them. A selected engine whose driver is missing fails loudly.

#![allow(dead_code, unreachable_pub)]

pub mod pages;

use std::time::Duration;

use ghostlight_webdriver::Engine;

#[allow(unused_imports)] // each test target uses its own subset
pub use crate::harness::{Site, selected};

/// The longest one scenario may take.
pub const SCENARIO_TIMEOUT: Duration = Duration::from_secs(120);

/// Run one named scenario within [`SCENARIO_TIMEOUT`], printing its duration.
pub async fn scenario<F: std::future::Future<Output = ()>>(engine: Engine, name: &str, body: F) {
    crate::harness::scenario_within(SCENARIO_TIMEOUT, engine, name, body).await;
}

/// The site serves [`pages::page`].
/// The same server answers as `127.0.0.1` and as `localhost`: two origins, for cross-origin
/// frames.
impl Site {
    /// Start the site (unknown paths answer 404).
    pub fn start() -> Site {
        Site::serve(|path, port| match pages::page(path, port) {
            Some(body) => (200, body),
            None => (404, "<!doctype html><title>Not found</title>".to_owned()),
        })
    }
}
