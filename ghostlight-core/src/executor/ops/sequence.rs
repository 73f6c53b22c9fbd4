//! `browser_sequence`: its steps run in one tab, one after another (see `composite`).

use crate::tools::sequence::SequenceRequest;

use super::super::composite;
use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &SequenceRequest) -> Outcome {
    Box::pin(composite::sequence(run, request)).await
}
