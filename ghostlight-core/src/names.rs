//! The bottom layer's names of the tools: the one table of the 24 tools ([`tool_table!`]) and
//! [`ToolName`], generated from it. Every other layer may name a tool; this module names
//! nothing above it (the table's rows name modules and types only as tokens a callback uses).

use std::fmt;

/// The one table of the 24 tools, in the specification's order: variant, wire name, module
/// and typed request. It hands the rows to `$callback!`, which generates from them.
macro_rules! tool_table {
    ($callback:ident) => {
        $callback! {
            Tabs => "browser_tabs", tabs, TabsRequest;
            Navigate => "browser_navigate", navigate, NavigateRequest;
            History => "browser_history", history, HistoryRequest;
            Window => "browser_window", window, WindowRequest;
            Read => "browser_read", read, ReadRequest;
            Inspect => "browser_inspect", inspect, InspectRequest;
            Find => "browser_find", find, FindRequest;
            Screenshot => "browser_screenshot", screenshot, ScreenshotRequest;
            Click => "browser_click", click, ClickRequest;
            Scroll => "browser_scroll", scroll, ScrollRequest;
            Hover => "browser_hover", hover, HoverRequest;
            FillForm => "browser_fill_form", fill_form, FillFormRequest;
            TypeText => "browser_type_text", type_text, TypeTextRequest;
            PressKey => "browser_press_key", press_key, PressKeyRequest;
            Drag => "browser_drag", drag, DragRequest;
            Wait => "browser_wait", wait, WaitRequest;
            Dialog => "browser_dialog", dialog, DialogRequest;
            Upload => "browser_upload", upload, UploadRequest;
            Execute => "browser_execute", execute, ExecuteRequest;
            Sequence => "browser_sequence", sequence, SequenceRequest;
            Flow => "browser_flow", flow, FlowRequest;
            Record => "browser_record", record, RecordRequest;
            Diagnose => "browser_diagnose", diagnose, DiagnoseRequest;
            PolicyExplain => "policy_explain", policy_explain, PolicyExplainRequest;
        }
    };
}
pub(crate) use tool_table;

macro_rules! declare_tool_names {
    ($($variant:ident => $wire:literal, $module:ident, $request:ident;)+) => {
        /// The name of one of the 24 tools.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ToolName {
            $(#[doc = concat!("`", $wire, "`")] $variant),+
        }

        impl ToolName {
            /// Every tool, in the specification's order.
            pub const ALL: [ToolName; 24] = [$(ToolName::$variant),+];

            /// The wire name, e.g. `browser_navigate`.
            pub const fn as_str(self) -> &'static str {
                match self { $(ToolName::$variant => $wire),+ }
            }

            /// The tool with this exact wire name.
            pub fn parse(name: &str) -> Option<ToolName> {
                match name { $($wire => Some(ToolName::$variant),)+ _ => None }
            }
        }
    };
}
tool_table!(declare_tool_names);

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
