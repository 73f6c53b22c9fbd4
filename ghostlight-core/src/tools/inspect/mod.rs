//! `browser_inspect`: inspect semantic controls or page structure and return fresh target
//! handles.

pub(crate) mod forms;
pub(crate) mod op;

use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, ObjectReader};
use crate::facts::tool_facts;
use crate::facts::{Fact, FactType};
use crate::handles::{Handle, HandleKind};
use crate::limits;
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::common::TAB;
use crate::vocab::WireChoice;
use crate::vocab::wire_choice;

wire_choice! {
    /// The `scope` of a `browser_inspect` call, as named on the wire.
    pub enum InspectScopeName {
        /// Semantic controls.
        Controls => "controls",
        /// Page structure (landmarks, headings, …).
        Structure => "structure",
        /// Controls and structure.
        All => "all",
        /// One bounded structure-only tree, recorded under a snapshot handle.
        Document => "document",
        /// Forms and the controls outside any, with constraints, validity and value state
        /// (never a value); an extension of the 1.0 contract.
        Forms => "forms",
    }
}

const SCOPE: Field = Field::optional(
    "scope",
    FieldType::Choice { values: InspectScopeName::NAMES, default: Some("controls") },
    "What to list.",
);
const ROOT: Field =
    Field::optional("root", FieldType::Handle(HandleKind::Target), "Subtree root (document scope).");
const MAX_DEPTH: Field = Field::optional(
    "max_depth",
    FieldType::Integer(limits::INSPECT_MAX_DEPTH),
    "Tree depth (document scope).",
);
const MAX_ITEMS: Field =
    Field::optional("max_items", FieldType::Integer(limits::INSPECT_MAX_ITEMS), "Most items returned.");

/// Columns of an item row (scopes controls, structure, all); `depth` replaces `state` and
/// `credential` in scope document (see the `columns` fact).
const ITEM_MEMBERS: [Fact; 5] = [
    Fact::new("target", FactType::String, "Fresh target handle."),
    Fact::new("role", FactType::String, "Closed semantic role."),
    Fact::new("name", FactType::String, "Bounded accessible name (\"\" when none)."),
    Fact::new(
        "state",
        FactType::Either(&FactType::StringArray, &FactType::Integer),
        "States such as checked; in scope document, the tree depth (an integer), as columns says.",
    ),
    Fact::new("credential", FactType::Boolean, "true for a credential-class control."),
];
/// One control of a forms snapshot (scope forms); keys with default values are left out.
const FIELD_MEMBERS: [Fact; 10] = [
    Fact::new(
        "target",
        FactType::String,
        "Fresh target handle (none on a radiogroup: its options have them).",
    ),
    Fact::new("role", FactType::String, "Closed semantic role, or radiogroup."),
    Fact::new("name", FactType::String, "Bounded accessible name (a radiogroup's legend or group name)."),
    Fact::new("group", FactType::String, "Legend of the fieldset around it."),
    Fact::new("state", FactType::StringArray, "States such as checked or disabled."),
    Fact::new(
        "constraints",
        FactType::Object(&CONSTRAINT_MEMBERS),
        "Constraints present: required, min, max, step, minlength, maxlength, pattern, multiple.",
    ),
    Fact::new("validity", FactType::String, "valid, or the browser's first failing validity flag."),
    Fact::new(
        "options",
        FactType::Any,
        "Select option labels; a radiogroup's [target, label] rows. Bounded.",
    ),
    Fact::new("options_truncated", FactType::Boolean, "More options exist than listed."),
    Fact::new(
        "value",
        FactType::Object(&VALUE_MEMBERS),
        "Value state, never the value: kind empty, filled, or redacted with present.",
    ),
];
const CONSTRAINT_MEMBERS: [Fact; 8] = [
    Fact::new("required", FactType::Boolean, "Required."),
    Fact::new("min", FactType::String, "min as written."),
    Fact::new("max", FactType::String, "max as written."),
    Fact::new("step", FactType::String, "step as written."),
    Fact::new("minlength", FactType::Integer, "minlength."),
    Fact::new("maxlength", FactType::Integer, "maxlength."),
    Fact::new("pattern", FactType::Boolean, "A pattern is set (not shown)."),
    Fact::new("multiple", FactType::Boolean, "Takes several values."),
];
const VALUE_MEMBERS: [Fact; 2] = [
    Fact::new("kind", FactType::String, "empty, filled, or redacted (credential-class controls)."),
    Fact::new("present", FactType::Boolean, "Whether a redacted control holds a value."),
];
const FORM_MEMBERS: [Fact; 2] = [
    Fact::new("name", FactType::String, "The form's bounded name, when it has one."),
    Fact::new("fields", FactType::ObjectArray(&FIELD_MEMBERS), "Its controls, in document order."),
];
const DIFF_MEMBERS: [Fact; 3] = [
    Fact::new("added", FactType::Integer, "Nodes added."),
    Fact::new("removed", FactType::Integer, "Nodes removed."),
    Fact::new("changed", FactType::Integer, "Nodes changed."),
];

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    DOCUMENT_GENERATION: Int("document_generation", "Document generation."),
    COLUMNS: Strs("columns", "What each item row holds, in order."),
    ITEMS: Json(
        "items",
        FactType::Rows { columns: &super::ITEM_MEMBERS, always: crate::tools::inspect::op::ROW_LEADING_COLUMNS },
        "Visible items as rows, bounded by max_items."
    ),
    SNAPSHOT: NullableStr("snapshot", "Snapshot handle (document scope)."),
    DIFF: Json(
        "diff",
        FactType::Object(&super::DIFF_MEMBERS),
        "Changes since the prior snapshot (document scope)."
    ),
    PREVIOUS_SNAPSHOT: Str("previous_snapshot", "The snapshot the diff compares with (document scope)."),
    FORMS: Json(
        "forms",
        FactType::ObjectArray(&super::FORM_MEMBERS),
        "Forms in document order, frames included (scope forms)."
    ),
    OUTSIDE: Json(
        "outside",
        FactType::ObjectArray(&super::FIELD_MEMBERS),
        "Controls outside any form (scope forms)."
    ),
    COUNT: Int("count", "Items returned (scope forms: controls)."),
    TRUNCATED: Bool("truncated", "More items (scope forms: forms, controls or options) exist than returned."),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Inspect,
    description: "List controls or page structure with fresh target handles.",
    fields: &[TAB, SCOPE, ROOT, MAX_DEPTH, MAX_ITEMS],
    example: "{}",
    facts: facts::ALL,
    annotations: Annotations { read_only: true, destructive: false, idempotent: true, open_world: true },
};

/// One decoded inspection scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InspectScope {
    /// Semantic controls (the default).
    Controls,
    /// Page structure.
    Structure,
    /// Controls and structure.
    All,
    /// Forms and the controls outside any form.
    Forms,
    /// One bounded structure-only tree.
    Document {
        /// Subtree root target; `None` is the whole document.
        root: Option<Handle>,
        /// Deepest tree level returned.
        max_depth: u64,
    },
}

impl InspectScope {
    /// The wire name of the scope.
    pub fn name(&self) -> InspectScopeName {
        match self {
            InspectScope::Controls => InspectScopeName::Controls,
            InspectScope::Structure => InspectScopeName::Structure,
            InspectScope::All => InspectScopeName::All,
            InspectScope::Forms => InspectScopeName::Forms,
            InspectScope::Document { .. } => InspectScopeName::Document,
        }
    }
}

/// A decoded `browser_inspect` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InspectRequest {
    /// The explicitly named tab; `None` selects the default tab.
    pub tab: Option<Handle>,
    /// What to inspect (with the document-only options where they apply).
    pub scope: InspectScope,
    /// Most items returned.
    pub max_items: u64,
}

impl Tool for InspectRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;

    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError> {
        decode(reader)
    }

    /// `read`.
    fn capabilities(&self) -> CapabilitySet {
        CapabilitySet::of(&[Capability::Read])
    }

    /// The explicitly named tab.
    fn tab(&self) -> Option<&Handle> {
        self.tab.as_ref()
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<InspectRequest, DecodeError> {
    let tab = reader.handle(&TAB)?;
    let scope = reader.choice_or_default::<InspectScopeName>(&SCOPE)?;
    let root = reader.handle(&ROOT)?;
    let max_depth = reader.int(&MAX_DEPTH)?;
    let max_items = reader.int_or_default(&MAX_ITEMS)?;
    let scope = match scope {
        InspectScopeName::Document => InspectScope::Document {
            root,
            max_depth: max_depth
                .or(limits::INSPECT_MAX_DEPTH.default)
                .unwrap_or(limits::INSPECT_MAX_DEPTH.max),
        },
        _ if root.is_some() => return Err(reader.not_here(&ROOT, DOCUMENT_ONLY)),
        _ if max_depth.is_some() => return Err(reader.not_here(&MAX_DEPTH, DOCUMENT_ONLY)),
        InspectScopeName::Controls => InspectScope::Controls,
        InspectScopeName::Structure => InspectScope::Structure,
        InspectScopeName::All => InspectScope::All,
        InspectScopeName::Forms => InspectScope::Forms,
    };
    Ok(InspectRequest { tab, scope, max_items })
}

const DOCUMENT_ONLY: &str = "is valid only with scope \"document\"";

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::{Value, json};

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::tools::testing::{accept, int_edges, refuse};

    const T: ToolName = ToolName::Inspect;

    /// Decode, check every declared field was read, and return the typed request.
    fn decoded(arguments: Value) -> InspectRequest {
        let request = accept(T, arguments);
        match request {
            Request::Inspect(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    fn handle(text: &str, kind: HandleKind) -> Handle {
        Handle::parse(text, kind).unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    #[test]
    fn accepted() {
        let default = decoded(json!({}));
        assert_eq!(default, InspectRequest { tab: None, scope: InspectScope::Controls, max_items: 80 });
        assert_eq!(default.capabilities(), CapabilitySet::of(&[Capability::Read]));
        assert_eq!(decoded(DECLARATION.example()), default);

        assert_eq!(decoded(json!({"scope": "controls"})).scope, InspectScope::Controls);
        assert_eq!(decoded(json!({"scope": "structure"})).scope, InspectScope::Structure);
        assert_eq!(decoded(json!({"scope": "all"})).scope.name().as_str(), "all");
        let forms = decoded(json!({"scope": "forms", "max_items": 7, "tab": "tab_2"}));
        assert_eq!(
            forms,
            InspectRequest {
                tab: Some(handle("tab_2", HandleKind::Tab)),
                scope: InspectScope::Forms,
                max_items: 7
            }
        );
        assert_eq!(forms.scope.name().as_str(), "forms");
        assert_eq!(
            decoded(json!({"scope": "document"})).scope,
            InspectScope::Document { root: None, max_depth: 12 }
        );
        let document =
            decoded(json!({"scope": "document", "root": "target_4", "max_depth": 3, "tab": "tab_1"}));
        assert_eq!(
            document.scope,
            InspectScope::Document { root: Some(handle("target_4", HandleKind::Target)), max_depth: 3 }
        );
        assert_eq!(document.scope.name(), InspectScopeName::Document);
        assert_eq!(document.tab(), Some(&handle("tab_1", HandleKind::Tab)));
        assert_eq!(decoded(json!({"max_items": 5})).max_items, 5);
    }

    #[test]
    fn refusals() {
        refuse(T, json!({"scope": "page"}), "/scope", K::NotAllowed);
        refuse(T, json!({"scope": "form"}), "/scope", K::NotAllowed);
        refuse(T, json!({"scope": "Forms"}), "/scope", K::NotAllowed);
        refuse(T, json!({"scope": ["all"]}), "/scope", K::WrongType);
        // root and max_depth are refused outside scope document, including the default scope.
        for scope in [None, Some("controls"), Some("structure"), Some("all"), Some("forms")] {
            let mut root = json!({"root": "target_1"});
            let mut depth = json!({"max_depth": 2});
            if let Some(scope) = scope {
                root["scope"] = json!(scope);
                depth["scope"] = json!(scope);
            }
            let error = refuse(T, root, "/root", K::Conflict);
            assert_eq!(error.message(), "/root is valid only with scope \"document\"");
            refuse(T, depth, "/max_depth", K::Conflict);
        }
        refuse(T, json!({"scope": "document", "root": "view_1"}), "/root", K::InvalidHandle);
        refuse(T, json!({"scope": "document", "root": "snap_1"}), "/root", K::InvalidHandle);
        refuse(T, json!({"tab": "tab 1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"timeout_ms": 1000}), "/timeout_ms", K::UnknownField);
        refuse(T, json!({"selector": {"name": "x"}}), "/selector", K::UnknownField);
    }

    #[test]
    fn bound_edges() {
        int_edges(T, json!({}), "max_items", limits::INSPECT_MAX_ITEMS);
        int_edges(T, json!({"scope": "document"}), "max_items", limits::INSPECT_MAX_ITEMS);
        int_edges(T, json!({"scope": "forms"}), "max_items", limits::INSPECT_MAX_ITEMS);
        int_edges(T, json!({"scope": "document"}), "max_depth", limits::INSPECT_MAX_DEPTH);
    }
}
