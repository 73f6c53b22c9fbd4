//! The dispatch of an admitted request to its tool's operation (`tools/<tool>/op.rs`: what
//! the tool does with the browser and the sentence it authors).
//!
//! Each `run` receives a [`Run`] that has already passed static authorization; tab-bound
//! tools start with [`Run::enter`] (lease the tab, observe its page, authorize that page).
//! [`dispatch`] comes from the tool table (`names::tool_table!`).

use crate::names::tool_table;
use crate::tools::request::Request;

use crate::operation::outcome::Outcome;
use crate::operation::popups;
use crate::operation::run::Run;

/// The dispatch, one row of the tool table each.
macro_rules! declare_dispatch {
    ($($variant:ident => $wire:literal, $module:ident, $request:ident;)+) => {
        /// Run one admitted request.
        pub(crate) async fn dispatch(run: &Run<'_>, request: &Request) -> Outcome {
            match request {
                $(Request::$variant(request) => crate::tools::$module::op::run(run, request).await,)+
            }
        }
    };
}
tool_table!(declare_dispatch);

/// Authorize statically, then run the tool. Shared by direct calls and composite children.
pub(crate) async fn execute(run: &Run<'_>, request: &Request) -> Outcome {
    if let Err(refusal) = run.authorize(None) {
        return refusal;
    }
    let outcome = dispatch(run, request).await;
    popups::adopt_opened(run, request.may_open_tabs(), outcome).await
}
