//! `browser_sequence` and `browser_flow`: children run through the same executor path under
//! the parent's one authority snapshot.

use crate::tools::flow::FlowRequest;
use crate::tools::sequence::SequenceRequest;

use super::outcome::Outcome;
use super::run::Run;

pub(crate) async fn sequence(run: &Run<'_>, request: &SequenceRequest) -> Outcome {
    let _ = request;
    super::ops::not_built(run)
}

pub(crate) async fn flow(run: &Run<'_>, request: &FlowRequest) -> Outcome {
    let _ = request;
    super::ops::not_built(run)
}
