//! One module per tool: what the tool does with the browser and the sentence it authors.
//!
//! Each `run` receives a [`Run`] that has already passed static authorization; tab-bound
//! tools start with [`Run::enter`] (lease the tab, observe its page, authorize that page).

mod click;
mod diagnose;
mod dialog;
mod drag;
mod execute;
mod fill_form;
mod find;
mod history;
mod hover;
mod inspect;
mod navigate;
mod policy_explain;
mod press_key;
mod read;
mod record;
mod screenshot;
mod scroll;
mod tabs;
mod type_text;
mod upload;
mod wait;
mod window;

use crate::request::Request;

use super::composite;
use super::outcome::Outcome;
use super::run::Run;

/// Run one admitted request.
pub(crate) async fn dispatch(run: &Run<'_>, request: &Request) -> Outcome {
    match request {
        Request::Tabs(request) => tabs::run(run, request).await,
        Request::Navigate(request) => navigate::run(run, request).await,
        Request::History(request) => history::run(run, request).await,
        Request::Window(request) => window::run(run, request).await,
        Request::Read(request) => read::run(run, request).await,
        Request::Inspect(request) => inspect::run(run, request).await,
        Request::Find(request) => find::run(run, request).await,
        Request::Screenshot(request) => screenshot::run(run, request).await,
        Request::Click(request) => click::run(run, request).await,
        Request::Scroll(request) => scroll::run(run, request).await,
        Request::Hover(request) => hover::run(run, request).await,
        Request::FillForm(request) => fill_form::run(run, request).await,
        Request::TypeText(request) => type_text::run(run, request).await,
        Request::PressKey(request) => press_key::run(run, request).await,
        Request::Drag(request) => drag::run(run, request).await,
        Request::Wait(request) => wait::run(run, request).await,
        Request::Dialog(request) => dialog::run(run, request).await,
        Request::Upload(request) => upload::run(run, request).await,
        Request::Execute(request) => execute::run(run, request).await,
        Request::Record(request) => record::run(run, request).await,
        Request::Diagnose(request) => diagnose::run(run, request).await,
        Request::PolicyExplain(request) => policy_explain::run(run, request).await,
        Request::Sequence(request) => Box::pin(composite::sequence(run, request)).await,
        Request::Flow(request) => Box::pin(composite::flow(run, request)).await,
    }
}
