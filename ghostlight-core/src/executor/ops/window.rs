//! `browser_window`.

use crate::tools::window::WindowRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &WindowRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
