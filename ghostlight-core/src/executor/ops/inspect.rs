//! `browser_inspect`.

use crate::tools::inspect::InspectRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &InspectRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
