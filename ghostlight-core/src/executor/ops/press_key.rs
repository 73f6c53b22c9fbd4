//! `browser_press_key`.

use crate::tools::press_key::PressKeyRequest;

use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &PressKeyRequest) -> Outcome {
    let _ = request;
    super::not_built(run)
}
