//! The 24 tools: the one table that lists them, the [`Tool`] trait each typed request
//! implements, and one folder per tool: `tools/<name>/mod.rs` (its fields, facts,
//! declaration, typed request, decoder, classification and tests) and `tools/<name>/op.rs`
//! (what it does with the browser and the sentence it authors, run by the executor's
//! dispatch this table generates).
//!
//! Adding a tool: the folder `tools/<name>/`, its `mod` line below (written out so rustfmt
//! sees it; a test checks the lines against the table) and one line in the table
//! (`crate::names::tool_table!`). The table generates [`ToolName`] (with the catalog order), the `Request`
//! enum and its dispatch, the `CATALOG` and the executor's dispatch.

// An op's `Step<T>` is `Result<T, Outcome>`: its error side is the invocation's answer, built
// once and returned straight up; boxing it would cost an allocation and buy nothing.
#![allow(clippy::result_large_err)]
use crate::authority::Constraint;
use crate::capability::CapabilitySet;
use crate::declaration::ToolDeclaration;
use crate::decode::{DecodeError, ObjectReader};
use crate::handles::Handle;

pub(crate) mod catalog;
pub(crate) mod common;
pub(crate) mod composite;
pub(crate) mod dispatch;
pub(crate) mod request;
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

    /// The URL the request takes a tab to (`browser_navigate`): authority governs its site
    /// instead of the tab's page.
    fn destination_url(&self) -> Option<&url::Url> {
        None
    }

    /// Whether acting on the page this way may make it open a tab (a click, keys, a fill, a
    /// drag, a dialog answer, a script): the executor then adopts the tabs the page opened.
    /// Composites' steps are asked one by one.
    const MAY_OPEN_TABS: bool = false;

    /// Whether the call reports progress while it runs (each composite step as it ends, a
    /// wait's start and end), which an edge may forward (MCP progress notifications).
    const REPORTS_PROGRESS: bool = false;
}

// The tool modules, one per row of the table, written out so that rustfmt and every other
// tool that follows `mod` items sees them (rustfmt does not look inside macros); a test checks
// them against the table and the folders.
pub(crate) mod click;
pub(crate) mod diagnose;
pub(crate) mod dialog;
pub(crate) mod drag;
pub(crate) mod execute;
pub(crate) mod fill_form;
pub(crate) mod find;
pub(crate) mod flow;
pub(crate) mod history;
pub(crate) mod hover;
pub(crate) mod inspect;
pub(crate) mod navigate;
pub(crate) mod policy_explain;
pub(crate) mod press_key;
pub(crate) mod read;
pub(crate) mod record;
pub(crate) mod screenshot;
pub(crate) mod scroll;
pub(crate) mod sequence;
pub(crate) mod tabs;
pub(crate) mod type_text;
pub(crate) mod upload;
pub(crate) mod wait;
pub(crate) mod window;

#[cfg(test)]
mod table_tests {
    /// The table's module names, in its order.
    macro_rules! module_names {
        ($($variant:ident => $wire:literal, $module:ident, $request:ident;)+) => {
            &[$(stringify!($module)),+]
        };
    }
    const TABLE_MODULES: &[&str] = crate::names::tool_table!(module_names);
    /// The folder's modules that are no tool: what the tools share.
    const SHARED_MODULES: &[&str] = &["catalog", "common", "composite", "dispatch", "request", "testing"];

    /// The written-out `mod` lines above (rustfmt sorts them), the table's rows and the
    /// `tools/` folders name the same modules.
    #[test]
    fn the_module_declarations_are_the_table_and_the_folders() {
        let source = include_str!("mod.rs");
        let mut declared: Vec<&str> = source
            .lines()
            .filter_map(|line| line.strip_prefix("pub(crate) mod "))
            .filter_map(|rest| rest.strip_suffix(';'))
            .filter(|name| !SHARED_MODULES.contains(name))
            .collect();
        declared.sort_unstable();
        let mut table: Vec<&str> = TABLE_MODULES.to_vec();
        table.sort_unstable();
        assert_eq!(declared, table, "the mod lines differ from the tool table");

        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tools");
        let mut folders: Vec<String> = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
            .filter_map(Result::ok)
            .filter(|entry| entry.path().is_dir())
            .filter(|entry| !SHARED_MODULES.iter().any(|shared| entry.file_name() == *shared))
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        folders.sort();
        assert_eq!(folders, table, "a tools/ folder is not in the table, or a row has no folder");
    }
}
