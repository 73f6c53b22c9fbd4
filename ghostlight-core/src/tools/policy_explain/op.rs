//! `policy_explain`: the compiled authority of this invocation; never touches a browser.

use crate::tools::policy_explain::PolicyExplainRequest;

use crate::operation::outcome::Outcome;
use crate::operation::run::Run;

pub(crate) async fn run(run: &Run<'_>, _request: &PolicyExplainRequest) -> Outcome {
    let explanation = run.snapshot.explain();
    let mut outcome = Outcome::read(explanation.summary);
    outcome.facts = explanation.facts;
    outcome
}
