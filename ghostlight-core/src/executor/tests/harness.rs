//! The shared harness: a [`Ghostlight`] over a [`ScriptedBrowser`] with deterministic handles
//! and an in-memory audit sink, plus a standard fixture site.
//!
//! ```ignore
//! let h = Harness::new(fixture());
//! let opened = h.call("browser_navigate", json!({"url": "https://example.com/"}));
//! insta::assert_json_snapshot!("navigate_opened", opened);
//! ```

use std::sync::Arc;

use serde_json::{Value, json};

use crate::authority::{AuditRecord, AuthorityLayers, CompiledAuthority, MemoryAuditSink, Settings};
use crate::envelope::{Envelope, Status};
use crate::executor::{Cancellation, Ghostlight, ToolResult};
use crate::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};

/// The standard fixture's pages.
pub(crate) const HOME: &str = "https://example.com/";
pub(crate) const NEXT: &str = "https://example.com/next";
pub(crate) const OTHER: &str = "https://other.example/";

/// A Ghostlight over a scripted browser.
pub(crate) struct Harness {
    pub(crate) browser: Arc<ScriptedBrowser>,
    pub(crate) ghost: Ghostlight,
    pub(crate) audit: Arc<MemoryAuditSink>,
}

impl Harness {
    /// Default authority (read, action, write allowed; execute denied; hosts open).
    pub(crate) fn new(browser: ScriptedBrowser) -> Self {
        Harness::with_authority(browser, CompiledAuthority::default())
    }

    /// The given authority.
    pub(crate) fn with_authority(browser: ScriptedBrowser, authority: CompiledAuthority) -> Self {
        let browser = Arc::new(browser);
        let audit = Arc::new(MemoryAuditSink::new());
        let ghost = Ghostlight::builder(browser.clone())
            .authority(authority)
            .audit(audit.clone())
            .deterministic_handles()
            .build();
        Harness { browser, ghost, audit }
    }

    /// A user settings document as JSON, compiled (e.g. `json!({"capabilities": {"allow": ["execute"]}})`).
    pub(crate) fn with_user(browser: ScriptedBrowser, user: Value) -> Self {
        Harness::with_authority(browser, user_authority(user))
    }

    /// Invoke a tool and answer the whole result.
    /// Every envelope is checked against the tool's declared output schema.
    pub(crate) fn result(&self, tool: &str, arguments: Value) -> ToolResult {
        let result = futures::executor::block_on(self.ghost.invoke(tool, &arguments, &Cancellation::never()))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_conforms(tool, &result.envelope);
        result
    }

    /// Invoke a tool and answer the envelope.
    pub(crate) fn call(&self, tool: &str, arguments: Value) -> Envelope {
        self.result(tool, arguments).envelope
    }

    /// Invoke a tool that must succeed.
    pub(crate) fn ok(&self, tool: &str, arguments: Value) -> Envelope {
        let envelope = self.call(tool, arguments);
        assert_eq!(envelope.status, Status::Succeeded, "{tool}: {}", envelope.summary);
        envelope
    }

    /// Open `url` in a new controlled tab; answers the tab handle.
    pub(crate) fn open(&self, url: &str) -> String {
        let envelope = self.ok("browser_navigate", json!({"url": url, "new_tab": true}));
        fact_str(&envelope, "tab")
    }

    /// Inspect the tab and answer the target handle of the control named `name`.
    pub(crate) fn target(&self, tab: &str, name: &str) -> String {
        let envelope = self.ok("browser_inspect", json!({"tab": tab, "scope": "all", "max_items": 200}));
        let items = rows(&envelope, "items");
        items
            .iter()
            .find(|item| item["name"] == name)
            .and_then(|item| item["target"].as_str())
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no target named {name:?} in {items:?}"))
    }

    /// The audit records so far.
    pub(crate) fn audit_records(&self) -> Vec<AuditRecord> {
        self.audit.records()
    }

    /// Every audit record serialized, for leak checks.
    pub(crate) fn audit_text(&self) -> String {
        self.audit.records().iter().map(|r| format!("{} {:?}", r.to_json(), r)).collect::<Vec<_>>().join("\n")
    }
}

/// The rows of an inspect/find fact (`items`, `matches`) as objects keyed by the envelope's
/// `columns` fact; columns a row leaves out are absent, and an empty name is absent.
pub(crate) fn rows(envelope: &Envelope, key: &str) -> Vec<Value> {
    let columns: Vec<String> = envelope.facts["columns"]
        .as_array()
        .unwrap_or_else(|| panic!("no columns in {envelope:?}"))
        .iter()
        .filter_map(|c| c.as_str().map(str::to_owned))
        .collect();
    let rows = envelope.facts[key].as_array().cloned().unwrap_or_else(|| panic!("no {key} in {envelope:?}"));
    rows.iter()
        .map(|row| {
            let cells = row.as_array().unwrap_or_else(|| panic!("{key} row is not an array: {row}"));
            assert!(cells.len() >= 2 && cells.len() <= columns.len(), "row {row} against {columns:?}");
            let mut object = serde_json::Map::new();
            for (column, cell) in columns.iter().zip(cells) {
                let empty = cell.as_str() == Some("") || cell.as_array().is_some_and(Vec::is_empty);
                if !empty {
                    object.insert(column.clone(), cell.clone());
                }
            }
            Value::Object(object)
        })
        .collect()
}

/// A fact as a string (panics when absent).
pub(crate) fn fact_str(envelope: &Envelope, key: &str) -> String {
    envelope.facts.get(key).and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| {
        panic!("no string fact {key:?} in {}", serde_json::to_string(envelope).unwrap_or_default())
    })
}

/// Compile a user settings document given as JSON.
pub(crate) fn user_authority(user: Value) -> CompiledAuthority {
    let settings: Settings = serde_json::from_value(user).unwrap_or_else(|e| panic!("settings: {e}"));
    AuthorityLayers { user: Some(settings), organization: None }.compile()
}

/// The standard fixture: a form page, a second page, and a page on another host.
pub(crate) fn fixture() -> ScriptedBrowser {
    ScriptedBrowser::new()
        .site(
            HOME,
            ScriptedPage::new("Example Domain")
                .article("Example article text about the domain.")
                .text("Example Domain. Example article text about the domain. Footer.")
                .element(ScriptedElement::heading("Welcome"))
                .element(ScriptedElement::textbox("Name"))
                .element(ScriptedElement::textbox("Email"))
                .element(ScriptedElement::password("Password"))
                .element(ScriptedElement::checkbox("Subscribe"))
                .element(ScriptedElement::select("Color", &[("r", "Red"), ("g", "Green")]))
                .element(ScriptedElement::button("Save"))
                .element(ScriptedElement::link("Next", NEXT)),
        )
        .site(NEXT, ScriptedPage::new("Next page").text("You reached the next page."))
        .site(OTHER, ScriptedPage::new("Other").text("Another host."))
}

/// Panic unless the envelope's facts fit `tool`'s declared output schema.
pub(crate) fn assert_conforms(tool: &str, envelope: &Envelope) {
    let Some(name) = crate::names::ToolName::parse(tool) else { return };
    let mismatches = name.declaration().fact_mismatches(&envelope.facts);
    let listed: Vec<String> = mismatches.iter().map(|m| format!("{tool}: {m}")).collect();
    assert!(
        mismatches.is_empty(),
        "facts depart from the output schema:\n{}\n{envelope:?}",
        listed.join("\n")
    );
}
