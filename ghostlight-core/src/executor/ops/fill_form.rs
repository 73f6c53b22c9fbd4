//! `browser_fill_form`.

use crate::tools::fill_form::FillFormRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &FillFormRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
