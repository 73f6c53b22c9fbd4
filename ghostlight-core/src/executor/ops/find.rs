//! `browser_find`.

use crate::tools::find::FindRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &FindRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
