//! `browser_drag`.

use crate::tools::drag::DragRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &DragRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
