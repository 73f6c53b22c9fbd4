//! `browser_flow`: steps with references to earlier results (see `composite`).

use crate::tools::flow::FlowRequest;

use super::super::composite;
use super::super::outcome::Outcome;
use super::super::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &FlowRequest) -> Outcome {
    Box::pin(composite::flow(run, request)).await
}
