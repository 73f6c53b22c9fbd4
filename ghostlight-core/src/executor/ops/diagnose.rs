//! `browser_diagnose`.

use crate::tools::diagnose::DiagnoseRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &DiagnoseRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
