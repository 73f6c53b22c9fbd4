//! `browser_dialog`.

use crate::tools::dialog::DialogRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &DialogRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
