//! `browser_scroll`.

use crate::tools::scroll::ScrollRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &ScrollRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
