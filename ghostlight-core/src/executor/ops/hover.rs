//! `browser_hover`.

use crate::tools::hover::HoverRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &HoverRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
