//! Support for the input tests: engine selection, a loopback site serving fixed pages, and
//! timed scenarios.
//!
//! Every test runs against both engines unless `GHOSTLIGHT_TEST_ENGINES` (a comma-separated
//! list, e.g. `chromium`) limits them. A selected engine whose driver is missing fails loudly.

#![allow(dead_code, unreachable_pub)]

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

impl Site {
    /// Start serving `pages` (path → HTML); unknown paths answer 404.
    pub fn start(pages: &[(&'static str, &'static str)]) -> Site {
        let pages: Vec<(&'static str, &'static str)> = pages.to_vec();
        Site::serve(move |path, _| match pages.iter().find(|(p, _)| *p == path) {
            Some((_, body)) => (200, (*body).to_owned()),
            None => (404, "not found".to_owned()),
        })
    }
}
