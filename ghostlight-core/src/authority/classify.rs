//! What a typed request needs from authority ([`Requirement`]); the classification that
//! computes it from a request is `crate::tools::request::classify`, by these rules:
//!
//! * Capabilities: exactly [`Request::capabilities`], which each tool states per branch from
//!   the specification's table.
//! * Destination: the site of `browser_navigate`'s URL (the only tool that names where it is
//!   going).
//! * Tab-bound: the work acts on, or reads, the page an existing tab currently shows, so the
//!   executor supplies that tab's current URL at authorization and a page outside authority
//!   blocks the call. Not tab-bound:
//!   - `browser_tabs` list and focus (bookkeeping; the list projects URLs), and close (closing
//!     a tab that landed outside authority is how one leaves it; the `action` capability and
//!     the tab-close policy still govern it);
//!   - `browser_navigate` (governed by its destination instead, which is how a tab gets back
//!     inside authority);
//!   - `browser_window` resize (window geometry, no page);
//!   - `browser_record` status, stop and discard (recording bookkeeping);
//!   - `browser_sequence` and `browser_flow` (their children are classified one by one);
//!   - `policy_explain` (never touches a browser).
//!
//!   Every other tool and branch is tab-bound, including `browser_history` (the move starts
//!   from the current page), `browser_window` zoom, `browser_wait` (all conditions) and
//!   `browser_record` start and save. In `browser_window` and `browser_record` exactly the
//!   tab-bound branches are the ones that require a capability (zoom `read`; start `read`,
//!   save `read` or `write`; resize, status, stop and discard none), so the branch is read
//!   from the requirement the tool states.
//! * Constraints: the tab-close policy for `browser_tabs` close (its only `action` branch) and
//!   the credential preflight for `browser_fill_form`, `browser_type_text` and
//!   `browser_upload`.
//!
//! Each tool states its own tab-binding and constraints next to its request (`Tool::tab_bound`,
//! `Tool::constraints` in `tools/<name>/mod.rs`); this module gathers them.
//!
//! A [`Requirement`] holds only typed, value-free data (tool, capability set, site, flags), so
//! audit records built from it cannot carry a payload.

use super::host::Site;
use crate::capability::CapabilitySet;
use crate::names::ToolName;

/// A constraint beyond capabilities and hosts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Constraint {
    /// `browser_tabs` close: the configured tab-close policy must allow closing.
    TabClose,
    /// Credential-class targets (password, one-time-code, payment card fields) stop the call
    /// before any value is dispatched and ask for a visible user handoff.
    CredentialPreflight,
}

/// Where a request says it is going.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Destination {
    /// An `http`/`https` page on this site.
    Site(Site),
    /// A URL with no web site (the decoder admits none; kept so that authorization refuses
    /// rather than admits if one ever arrives).
    NotWeb,
}

/// What one typed request needs from authority.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    tool: ToolName,
    capabilities: CapabilitySet,
    destination: Option<Destination>,
    tab_bound: bool,
    constraints: &'static [Constraint],
}

impl Requirement {
    /// A requirement from its parts (the classification, `crate::tools::request::classify`,
    /// and tests).
    pub(crate) fn from_parts(
        tool: ToolName,
        capabilities: CapabilitySet,
        destination: Option<Destination>,
        tab_bound: bool,
        constraints: &'static [Constraint],
    ) -> Self {
        Requirement { tool, capabilities, destination, tab_bound, constraints }
    }

    /// The tool.
    pub fn tool(&self) -> ToolName {
        self.tool
    }

    /// The capabilities required (possibly none).
    pub fn capabilities(&self) -> CapabilitySet {
        self.capabilities
    }

    /// The destination site, for `browser_navigate`.
    pub fn destination(&self) -> Option<&Destination> {
        self.destination.as_ref()
    }

    /// Whether the work acts on the page an existing tab currently shows.
    pub fn is_tab_bound(&self) -> bool {
        self.tab_bound
    }

    /// The constraints beyond capabilities and hosts.
    pub fn constraints(&self) -> &'static [Constraint] {
        self.constraints
    }

    /// Whether `constraint` applies.
    pub fn has(&self, constraint: Constraint) -> bool {
        self.constraints.contains(&constraint)
    }
}

/// Table tests over every tool and branch, against the real decoders.
#[cfg(test)]
mod classification_table {
    use serde_json::{Value, json};

    use super::*;
    use crate::capability::Capability;
    use crate::capability::Capability::{Action as A, Execute as X, Read as R, Write as W};
    use crate::tools::catalog::decode_call;
    use crate::tools::request::{Request, classify};

    use Constraint::{CredentialPreflight as Credential, TabClose};

    struct Row {
        tool: ToolName,
        arguments: Value,
        capabilities: &'static [Capability],
        tab_bound: bool,
        constraints: &'static [Constraint],
        destination: Option<&'static str>,
    }

    fn row(
        tool: ToolName,
        arguments: Value,
        capabilities: &'static [Capability],
        tab_bound: bool,
        constraints: &'static [Constraint],
    ) -> Row {
        Row { tool, arguments, capabilities, tab_bound, constraints, destination: None }
    }

    fn rows() -> Vec<Row> {
        use ToolName as T;
        let t = "target_1";
        let sel = json!({"name": "Email"});
        vec![
            // browser_tabs
            row(T::Tabs, json!({"action": "list"}), &[R], false, &[]),
            row(T::Tabs, json!({"action": "focus", "tab": "tab_1"}), &[], false, &[]),
            row(T::Tabs, json!({"action": "close", "tab": "tab_1"}), &[A], false, &[TabClose]),
            // browser_navigate: every destination branch
            Row {
                destination: Some("example.com"),
                ..row(T::Navigate, json!({"url": "https://example.com"}), &[R], false, &[])
            },
            Row {
                destination: Some("evil.example:8443"),
                ..row(
                    T::Navigate,
                    json!({"url": "https://allowed.example@EVIL.example:8443/x", "new_tab": true}),
                    &[R],
                    false,
                    &[],
                )
            },
            Row {
                destination: Some("xn--bcher-kva.example"),
                ..row(
                    T::Navigate,
                    json!({"url": "http://bücher.example./", "tab": "tab_1"}),
                    &[R],
                    false,
                    &[],
                )
            },
            Row {
                destination: Some("[::1]:3000"),
                ..row(T::Navigate, json!({"url": "http://[::1]:3000/", "reuse": "never"}), &[R], false, &[])
            },
            // browser_history
            row(T::History, json!({"action": "back"}), &[A], true, &[]),
            row(T::History, json!({"action": "forward"}), &[A], true, &[]),
            row(T::History, json!({"action": "reload", "bypass_cache": true}), &[A], true, &[]),
            // browser_window
            row(T::Window, json!({"action": "zoom", "percent": 100}), &[R], true, &[]),
            row(T::Window, json!({"action": "resize", "width": 1280, "height": 800}), &[], false, &[]),
            // browser_read, inspect, find
            row(T::Read, json!({}), &[R], true, &[]),
            row(T::Read, json!({"target": t}), &[R], true, &[]),
            row(T::Inspect, json!({}), &[R], true, &[]),
            row(T::Inspect, json!({"scope": "document", "max_depth": 3}), &[R], true, &[]),
            row(T::Find, json!({"text": "Submit"}), &[R], true, &[]),
            // browser_screenshot: four branches
            row(T::Screenshot, json!({}), &[R], true, &[]),
            row(T::Screenshot, json!({"full_page": true}), &[R], true, &[]),
            row(T::Screenshot, json!({"target": t}), &[R], true, &[]),
            row(
                T::Screenshot,
                json!({"view": "view_1", "x": 0, "y": 0, "width": 10, "height": 10}),
                &[R],
                true,
                &[],
            ),
            // browser_click
            row(T::Click, json!({"target": t}), &[A], true, &[]),
            row(T::Click, json!({"selector": sel}), &[A], true, &[]),
            row(T::Click, json!({"view": "view_1", "x": 5, "y": 5}), &[A], true, &[]),
            // browser_scroll: three branches
            row(T::Scroll, json!({}), &[R], true, &[]),
            row(T::Scroll, json!({"target": t}), &[R], true, &[]),
            row(
                T::Scroll,
                json!({"view": "view_1", "x": 1, "y": 1, "ticks": 2, "direction": "up"}),
                &[R],
                true,
                &[],
            ),
            // browser_hover
            row(T::Hover, json!({"target": t}), &[R], true, &[]),
            row(T::Hover, json!({"view": "view_1", "x": 1, "y": 1}), &[R], true, &[]),
            // browser_fill_form: without and with submit
            row(
                T::FillForm,
                json!({"fields": [{"target": t, "value": "Ada"}]}),
                &[R, W],
                true,
                &[Credential],
            ),
            row(
                T::FillForm,
                json!({"fields": [{"target": t, "value": "Ada"}], "submit_target": "target_2"}),
                &[R, W, A],
                true,
                &[Credential],
            ),
            // browser_type_text: three locations
            row(T::TypeText, json!({"target": t, "text": "Ada"}), &[A], true, &[Credential]),
            row(T::TypeText, json!({"selector": sel, "text": "Ada"}), &[A], true, &[Credential]),
            row(T::TypeText, json!({"focused": true, "text": "Ada"}), &[A], true, &[Credential]),
            // browser_press_key
            row(T::PressKey, json!({"key": "Enter"}), &[A], true, &[]),
            row(T::PressKey, json!({"strokes": ["a", "Tab"], "repeat": 2}), &[A], true, &[]),
            // browser_drag
            row(T::Drag, json!({"source_target": t, "destination_target": "target_2"}), &[A], true, &[]),
            row(
                T::Drag,
                json!({"view": "view_1", "start_x": 1, "start_y": 1, "end_x": 9, "end_y": 9}),
                &[A],
                true,
                &[],
            ),
            // browser_wait: every condition
            row(T::Wait, json!({"condition": "load_ready"}), &[R], true, &[]),
            row(T::Wait, json!({"condition": "url_contains", "value": "/done"}), &[R], true, &[]),
            row(T::Wait, json!({"condition": "text_present", "value": "Saved"}), &[R], true, &[]),
            row(T::Wait, json!({"condition": "text_absent", "value": "Loading"}), &[R], true, &[]),
            row(T::Wait, json!({"condition": "target_present", "target": t}), &[R], true, &[]),
            row(T::Wait, json!({"condition": "target_absent", "target": t}), &[R], true, &[]),
            row(T::Wait, json!({"condition": "selector_present", "selector": sel}), &[R], true, &[]),
            row(T::Wait, json!({"condition": "duration", "value": 500}), &[R], true, &[]),
            // browser_dialog
            row(T::Dialog, json!({"action": "status"}), &[R], true, &[]),
            row(T::Dialog, json!({"action": "accept"}), &[A], true, &[]),
            row(T::Dialog, json!({"action": "dismiss"}), &[A], true, &[]),
            row(T::Dialog, json!({"action": "respond", "text": "Ada"}), &[A], true, &[]),
            // browser_upload: every source
            row(T::Upload, json!({"target": t, "paths": [upload_path()]}), &[W], true, &[Credential]),
            row(
                T::Upload,
                json!({"selector": sel, "files": [{"name": "a.txt", "data_base64": "QQ=="}]}),
                &[W],
                true,
                &[Credential],
            ),
            row(T::Upload, json!({"target": t, "source_image": "view_1"}), &[W], true, &[Credential]),
            row(
                T::Upload,
                json!({"source_image": "view_1", "view": "view_2", "x": 3, "y": 4}),
                &[W],
                true,
                &[Credential],
            ),
            // browser_execute
            row(T::Execute, json!({"script": "document.title"}), &[X], true, &[]),
            // composite wrappers: none (children are classified one by one)
            row(
                T::Sequence,
                json!({"steps": [{"action": "click", "target": t}, {"action": "wait", "condition": "load_ready"}]}),
                &[],
                false,
                &[],
            ),
            row(
                T::Flow,
                json!({"steps": [{"id": "open", "tool": "browser_navigate", "arguments": {"url": "https://example.com"}}]}),
                &[],
                false,
                &[],
            ),
            // browser_record: each action, save by destination
            row(T::Record, json!({"action": "start"}), &[R], true, &[]),
            row(T::Record, json!({"action": "status"}), &[], false, &[]),
            row(T::Record, json!({"action": "stop"}), &[], false, &[]),
            row(T::Record, json!({"action": "save"}), &[R], true, &[]),
            row(T::Record, json!({"action": "save", "download": true}), &[R], true, &[]),
            row(T::Record, json!({"action": "save", "target": t}), &[W], true, &[]),
            row(T::Record, json!({"action": "discard"}), &[], false, &[]),
            // browser_diagnose
            row(T::Diagnose, json!({}), &[R], true, &[]),
            row(T::Diagnose, json!({"source": "network", "detail": "all", "limit": 10}), &[R], true, &[]),
            // policy_explain: the empty set, always
            row(T::PolicyExplain, json!({}), &[], false, &[]),
            row(T::PolicyExplain, json!({"restrict_capabilities": []}), &[], false, &[]),
        ]
    }

    fn upload_path() -> &'static str {
        if cfg!(windows) { r"C:\Users\ada\document.pdf" } else { "/home/ada/document.pdf" }
    }

    #[test]
    fn every_tool_has_a_row() {
        let rows = rows();
        for tool in ToolName::ALL {
            assert!(rows.iter().any(|r| r.tool == tool), "{tool} has no classification row");
        }
    }

    #[test]
    fn every_tool_and_branch_is_classified_as_the_spec_says() {
        let mut failures = Vec::new();
        for row in rows() {
            let call = match decode_call(row.tool, &row.arguments) {
                Ok(call) => call,
                Err(error) => {
                    failures.push(format!("{} {}: refused: {error}", row.tool, row.arguments));
                    continue;
                }
            };
            let requirement = classify(&call.request);
            let expected = CapabilitySet::of(row.capabilities);
            let destination = requirement.destination().map(|d| match d {
                Destination::Site(site) => site.to_string(),
                Destination::NotWeb => "not web".to_owned(),
            });
            let actual = (
                requirement.tool(),
                requirement.capabilities(),
                requirement.is_tab_bound(),
                requirement.constraints(),
                destination.as_deref(),
            );
            let wanted = (row.tool, expected, row.tab_bound, row.constraints, row.destination);
            if actual != wanted {
                failures.push(format!("{} {}: got {actual:?}, want {wanted:?}", row.tool, row.arguments));
            }
        }
        assert!(failures.is_empty(), "{} rows misclassified:\n{}", failures.len(), failures.join("\n"));
    }

    /// Children of the composite wrappers classify exactly like direct calls of their tools.
    #[test]
    fn composite_children_classify_like_direct_calls() {
        use crate::tools::flow::FlowChild;

        let sequence = json!({"steps": [
            {"action": "click", "target": "target_1"},
            {"action": "fill", "fields": [{"target": "target_1", "value": "Ada"}], "submit_target": "target_2"},
            {"action": "type_text", "focused": true, "text": "Ada"},
            {"action": "press_key", "key": "Enter"},
            {"action": "scroll"},
            {"action": "hover", "target": "target_1"},
            {"action": "wait", "condition": "load_ready"},
        ]});
        let call = decode_call(ToolName::Sequence, &sequence).unwrap_or_else(|e| panic!("{e}"));
        let Request::Sequence(wrapper) = &call.request else { panic!("{:?}", call.request) };
        let children: Vec<(ToolName, CapabilitySet, bool, &[Constraint])> = wrapper
            .steps
            .iter()
            .map(|step| {
                let r = classify(&step.request);
                (r.tool(), r.capabilities(), r.is_tab_bound(), r.constraints())
            })
            .collect();
        assert_eq!(
            children,
            [
                (ToolName::Click, CapabilitySet::of(&[A]), true, &[][..]),
                (ToolName::FillForm, CapabilitySet::of(&[R, W, A]), true, &[Credential][..]),
                (ToolName::TypeText, CapabilitySet::of(&[A]), true, &[Credential][..]),
                (ToolName::PressKey, CapabilitySet::of(&[A]), true, &[][..]),
                (ToolName::Scroll, CapabilitySet::of(&[R]), true, &[][..]),
                (ToolName::Hover, CapabilitySet::of(&[R]), true, &[][..]),
                (ToolName::Wait, CapabilitySet::of(&[R]), true, &[][..]),
            ]
        );

        let flow = json!({"steps": [
            {"id": "open", "tool": "browser_navigate", "arguments": {"url": "https://Example.com:8443/x"}},
            {"id": "run", "tool": "browser_execute", "arguments": {"script": "1"}},
            {"id": "close", "tool": "browser_tabs", "arguments": {"action": "close", "tab": "tab_1"}},
        ]});
        let call = decode_call(ToolName::Flow, &flow).unwrap_or_else(|e| panic!("{e}"));
        let Request::Flow(wrapper) = &call.request else { panic!("{:?}", call.request) };
        let children: Vec<Requirement> = wrapper
            .steps
            .iter()
            .map(|step| match &step.child {
                FlowChild::Decoded(request) => classify(request),
                other => panic!("{other:?}"),
            })
            .collect();
        let destination = children.first().and_then(|r| r.destination().cloned());
        assert!(
            matches!(destination, Some(Destination::Site(site)) if site.to_string() == "example.com:8443")
        );
        assert_eq!(children.get(1).map(Requirement::capabilities), Some(CapabilitySet::of(&[X])));
        assert_eq!(children.get(2).map(Requirement::constraints), Some(&[TabClose][..]));
    }
}
