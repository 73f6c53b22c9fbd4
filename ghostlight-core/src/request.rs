//! The typed request: one variant per tool, each holding exactly one decoded branch.

use crate::authority::HostPattern;
use crate::capability::CapabilitySet;
use crate::catalog::ToolName;
use crate::tools::{
    click, diagnose, dialog, drag, execute, fill_form, find, flow, history, hover, inspect, navigate,
    policy_explain, press_key, read, record, screenshot, scroll, sequence, tabs, type_text, upload, wait,
    window,
};

/// A decoded top-level call: the request and the invocation's restrictions.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The typed request.
    pub request: Request,
    /// `restrict_hosts` / `restrict_capabilities`, which can only narrow authority.
    pub restrictions: Restrictions,
}

/// The flat request restrictions every tool accepts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Restrictions {
    /// `restrict_hosts`: allow only these host patterns (`Some(vec![])` allows none).
    pub hosts: Option<Vec<HostPattern>>,
    /// `restrict_capabilities`: allow only these capabilities (`Some(EMPTY)` allows none).
    pub capabilities: Option<CapabilitySet>,
}

/// A typed request for one of the 24 tools.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)] // Each variant is the tool of the same name.
pub enum Request {
    Tabs(tabs::TabsRequest),
    Navigate(navigate::NavigateRequest),
    History(history::HistoryRequest),
    Window(window::WindowRequest),
    Read(read::ReadRequest),
    Inspect(inspect::InspectRequest),
    Find(find::FindRequest),
    Screenshot(screenshot::ScreenshotRequest),
    Click(click::ClickRequest),
    Scroll(scroll::ScrollRequest),
    Hover(hover::HoverRequest),
    FillForm(fill_form::FillFormRequest),
    TypeText(type_text::TypeTextRequest),
    PressKey(press_key::PressKeyRequest),
    Drag(drag::DragRequest),
    Wait(wait::WaitRequest),
    Dialog(dialog::DialogRequest),
    Upload(upload::UploadRequest),
    Execute(execute::ExecuteRequest),
    Sequence(sequence::SequenceRequest),
    Flow(flow::FlowRequest),
    Record(record::RecordRequest),
    Diagnose(diagnose::DiagnoseRequest),
    PolicyExplain(policy_explain::PolicyExplainRequest),
}

macro_rules! each_request {
    ($self:expr, $r:ident => $body:expr) => {
        match $self {
            Request::Tabs($r) => $body,
            Request::Navigate($r) => $body,
            Request::History($r) => $body,
            Request::Window($r) => $body,
            Request::Read($r) => $body,
            Request::Inspect($r) => $body,
            Request::Find($r) => $body,
            Request::Screenshot($r) => $body,
            Request::Click($r) => $body,
            Request::Scroll($r) => $body,
            Request::Hover($r) => $body,
            Request::FillForm($r) => $body,
            Request::TypeText($r) => $body,
            Request::PressKey($r) => $body,
            Request::Drag($r) => $body,
            Request::Wait($r) => $body,
            Request::Dialog($r) => $body,
            Request::Upload($r) => $body,
            Request::Execute($r) => $body,
            Request::Sequence($r) => $body,
            Request::Flow($r) => $body,
            Request::Record($r) => $body,
            Request::Diagnose($r) => $body,
            Request::PolicyExplain($r) => $body,
        }
    };
}

impl Request {
    /// The tool this request is for.
    pub fn tool(&self) -> ToolName {
        match self {
            Request::Tabs(_) => ToolName::Tabs,
            Request::Navigate(_) => ToolName::Navigate,
            Request::History(_) => ToolName::History,
            Request::Window(_) => ToolName::Window,
            Request::Read(_) => ToolName::Read,
            Request::Inspect(_) => ToolName::Inspect,
            Request::Find(_) => ToolName::Find,
            Request::Screenshot(_) => ToolName::Screenshot,
            Request::Click(_) => ToolName::Click,
            Request::Scroll(_) => ToolName::Scroll,
            Request::Hover(_) => ToolName::Hover,
            Request::FillForm(_) => ToolName::FillForm,
            Request::TypeText(_) => ToolName::TypeText,
            Request::PressKey(_) => ToolName::PressKey,
            Request::Drag(_) => ToolName::Drag,
            Request::Wait(_) => ToolName::Wait,
            Request::Dialog(_) => ToolName::Dialog,
            Request::Upload(_) => ToolName::Upload,
            Request::Execute(_) => ToolName::Execute,
            Request::Sequence(_) => ToolName::Sequence,
            Request::Flow(_) => ToolName::Flow,
            Request::Record(_) => ToolName::Record,
            Request::Diagnose(_) => ToolName::Diagnose,
            Request::PolicyExplain(_) => ToolName::PolicyExplain,
        }
    }

    /// The capabilities this request requires, exactly as the specification's table states
    /// (composite wrappers require none: their steps are classified one by one).
    pub fn capabilities(&self) -> CapabilitySet {
        each_request!(self, r => r.capabilities())
    }

    /// The tab the request names explicitly, if any.
    pub fn tab(&self) -> Option<&crate::handles::Handle> {
        each_request!(self, r => r.tab())
    }
}
