//! `browser_upload`.

use crate::tools::upload::UploadRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &UploadRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
