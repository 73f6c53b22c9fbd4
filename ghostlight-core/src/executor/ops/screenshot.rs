//! `browser_screenshot`.

use crate::tools::screenshot::ScreenshotRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &ScreenshotRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
