//! `browser_record`.

use crate::tools::record::RecordRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &RecordRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
