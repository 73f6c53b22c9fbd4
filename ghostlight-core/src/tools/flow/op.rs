//! `browser_flow`: steps with references to earlier results (see `composite`).

use crate::tools::flow::FlowRequest;

use crate::executor::composite;
use crate::executor::outcome::Outcome;
use crate::executor::run::Run;

pub(crate) async fn run(run: &Run<'_>, request: &FlowRequest) -> Outcome {
    Box::pin(composite::flow(run, request)).await
}
