//! `browser_type_text`.

use crate::tools::type_text::TypeTextRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &TypeTextRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
