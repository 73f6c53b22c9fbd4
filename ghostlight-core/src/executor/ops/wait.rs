//! `browser_wait`.

use crate::tools::wait::WaitRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &WaitRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
