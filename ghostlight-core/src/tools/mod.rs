//! The 24 tools: the one table that lists them, the [`Tool`] trait each typed request
//! implements, and one folder per tool: `tools/<name>/mod.rs` (its fields, facts,
//! declaration, typed request, decoder, classification and tests) and `tools/<name>/op.rs`
//! (what it does with the browser and the sentence it authors, run by the executor's
//! dispatch this table generates).
//!
//! Adding a tool: the folder `tools/<name>/` and one line in [`tool_table!`]. The table
//! generates the module declarations, [`ToolName`] (with the catalog order), the `Request`
//! enum and its dispatch, the `CATALOG` and the executor's dispatch.

// An op's `Step<T>` is `Result<T, Outcome>`: its error side is the invocation's answer, built
// once and returned straight up; boxing it would cost an allocation and buy nothing.
#![allow(clippy::result_large_err)]
use crate::authority::Constraint;
use crate::capability::CapabilitySet;
use crate::catalog::ToolDeclaration;
use crate::decode::{DecodeError, ObjectReader};
use crate::handles::Handle;

pub(crate) mod common;
#[cfg(test)]
pub(crate) mod testing;

/// One tool's typed request: its declaration, decoder and classification.
pub(crate) trait Tool: Sized {
    /// What the model sees: name, description, schema, example, facts, annotations.
    const DECLARATION: ToolDeclaration;

    /// Decode the tool's own fields (the caller adds the restriction fields).
    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError>;

    /// The capabilities this request requires, exactly as the specification's table states
    /// (composite wrappers require none: their steps are classified one by one).
    fn capabilities(&self) -> CapabilitySet;

    /// The tab the request names explicitly, if any.
    fn tab(&self) -> Option<&Handle> {
        None
    }

    /// Whether the request acts on a tab's page, so that page's host is authorized before
    /// dispatch (most tools).
    fn tab_bound(&self) -> bool {
        true
    }

    /// Constraints checked beyond capabilities and hosts.
    fn constraints(&self) -> &'static [Constraint] {
        &[]
    }
}

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

/// The tool modules, one per row.
macro_rules! declare_modules {
    ($($variant:ident => $wire:literal, $module:ident, $request:ident;)+) => {
        $(pub(crate) mod $module;)+
    };
}
tool_table!(declare_modules);
