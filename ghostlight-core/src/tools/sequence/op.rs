//! `browser_sequence`: its steps run in one tab, one after another (see `composite`).

use crate::tools::sequence::SequenceRequest;

use crate::executor::composite;
use crate::executor::outcome::Outcome;
use crate::executor::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &SequenceRequest) -> Outcome {
    Box::pin(composite::sequence(run, request)).await
}
