//! `browser_history`.

use crate::tools::history::HistoryRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &HistoryRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
