//! `browser_execute`.

use crate::tools::execute::ExecuteRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &ExecuteRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
