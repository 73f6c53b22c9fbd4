//! `browser_diagnose`: bounded console and network evidence for a controlled tab.

pub(crate) mod op;

use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, ObjectReader};
use crate::facts::tool_facts;
use crate::facts::{Fact, FactType};
use crate::handles::Handle;
use crate::limits::{DIAGNOSE_CURSOR_CHARS, DIAGNOSE_LIMIT, DIAGNOSE_MATCH_CHARS};
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::common::TAB;
use crate::vocab::WireChoice;
use crate::vocab::{DiagnoseDetail, DiagnoseSource};

const SOURCE: Field = Field::optional(
    "source",
    FieldType::Choice { values: DiagnoseSource::NAMES, default: Some("both") },
    "Evidence source.",
);
const DETAIL: Field = Field::optional(
    "detail",
    FieldType::Choice { values: DiagnoseDetail::NAMES, default: Some("problems") },
    "Problems only, or all.",
);
const MATCH: Field =
    Field::optional("match", FieldType::Text(DIAGNOSE_MATCH_CHARS), "Literal text filter, any case.");
const AFTER: Field =
    Field::optional("after", FieldType::Text(DIAGNOSE_CURSOR_CHARS), "Cursor from a previous result.");
const LIMIT: Field = Field::optional("limit", FieldType::Integer(DIAGNOSE_LIMIT), "Most entries.");

const ENTRY_MEMBERS: [Fact; 7] = [
    Fact::new("source", FactType::String, "console or network."),
    Fact::new("level", FactType::String, "Console level, or request outcome."),
    Fact::new("text", FactType::NullableString, "Bounded console text."),
    Fact::new("method", FactType::NullableString, "Request method."),
    Fact::new("url", FactType::NullableString, "Governed URL, without query or fragment."),
    Fact::new("status", FactType::NullableInteger, "HTTP status."),
    Fact::new("problem", FactType::Boolean, "Counts as a problem."),
];

const REFUSED_MEMBERS: [Fact; 2] = [
    Fact::new("origin", FactType::String, "scheme://host:port the request was going to."),
    Fact::new("kind", FactType::String, "document, frame, resource, or unknown (a tunnel)."),
];

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    REFUSED: Json(
        "refused",
        FactType::ObjectArray(&super::REFUSED_MEMBERS),
        "Requests to hosts outside authority the browser was stopped from sending, newest last, bounded by limit (of the whole browser, not one tab)."
    ),
    REFUSED_COUNT: Int("refused_count", "Requests stopped since the browser started."),
    ENTRIES: Json(
        "entries",
        FactType::ObjectArray(&super::ENTRY_MEMBERS),
        "Ordered bounded evidence (untrusted page content)."
    ),
    NEXT_CURSOR: NullableStr("next_cursor", "Pass as after to continue."),
    TRUNCATED: Bool("truncated", "More entries matched than returned."),
    EVICTED: Int("evicted", "Entries dropped from the bounded buffer."),
    HOST_FILTERED: Int("host_filtered", "Entries withheld by host policy."),
    TRACKING_STARTED: Bool("tracking_started", "This call enabled observation; reproduce if needed."),
    ENTRY_COUNT: Int("entry_count", "Entries returned."),
    PROBLEM_COUNT: Int("problem_count", "Problem entries returned."),
    PROBLEM_COUNTS: Json("problem_counts", FactType::Counts, "Problem entries by kind."),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Diagnose,
    description: "Read a tab's recent console and network problems (or all events), paged.",
    fields: &[TAB, SOURCE, DETAIL, MATCH, AFTER, LIMIT],
    example: "{}",
    facts: facts::ALL,
    annotations: Annotations { read_only: true, destructive: false, idempotent: true, open_world: true },
};

/// A decoded `browser_diagnose` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiagnoseRequest {
    /// The explicitly named tab, if any.
    pub tab: Option<Handle>,
    /// Which evidence to read (default both).
    pub source: DiagnoseSource,
    /// How much evidence to read (default problems).
    pub detail: DiagnoseDetail,
    /// Literal text an entry must contain, compared case-insensitively at run time.
    pub pattern: Option<String>,
    /// Opaque cursor: return only entries after it.
    pub after: Option<String>,
    /// Most entries to return.
    pub limit: u64,
}

impl Tool for DiagnoseRequest {
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

fn decode(reader: &mut ObjectReader<'_>) -> Result<DiagnoseRequest, DecodeError> {
    let tab = reader.handle(&TAB)?;
    let source = reader.choice_or_default::<DiagnoseSource>(&SOURCE)?;
    let detail = reader.choice_or_default::<DiagnoseDetail>(&DETAIL)?;
    let pattern = reader.text(&MATCH)?;
    let after = reader.text(&AFTER)?;
    let limit = reader.int_or_default(&LIMIT)?;
    Ok(DiagnoseRequest { tab, source, detail, pattern, after, limit })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::json;

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::tools::testing::{accept, int_edges, refuse, text_edges};

    const T: ToolName = ToolName::Diagnose;

    fn decoded(arguments: serde_json::Value) -> DiagnoseRequest {
        match accept(T, arguments) {
            Request::Diagnose(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    #[test]
    fn defaults_and_values() {
        let request = decoded(json!({}));
        assert_eq!(
            request,
            DiagnoseRequest {
                tab: None,
                source: DiagnoseSource::Both,
                detail: DiagnoseDetail::Problems,
                pattern: None,
                after: None,
                limit: 50,
            }
        );
        assert_eq!(request.capabilities(), CapabilitySet::of(&[Capability::Read]));
        assert_eq!(request.tab(), None);
        let request = decoded(json!({
            "tab": "tab_1", "source": "network", "detail": "all", "match": "TypeError",
            "after": "c_42", "limit": 7
        }));
        assert_eq!(request.tab().map(Handle::as_str), Some("tab_1"));
        assert_eq!(request.source, DiagnoseSource::Network);
        assert_eq!(request.detail, DiagnoseDetail::All);
        assert_eq!(request.pattern.as_deref(), Some("TypeError"));
        assert_eq!(request.after.as_deref(), Some("c_42"));
        assert_eq!(request.limit, 7);
        assert_eq!(decoded(json!({"source": "console"})).source, DiagnoseSource::Console);
        assert_eq!(decoded(json!({"source": "both", "detail": "problems"})).detail, DiagnoseDetail::Problems);
    }

    #[test]
    fn refusals() {
        refuse(T, json!({"source": "dom"}), "/source", K::NotAllowed);
        refuse(T, json!({"detail": "errors"}), "/detail", K::NotAllowed);
        refuse(T, json!({"detail": 1}), "/detail", K::WrongType);
        refuse(T, json!({"tab": "view_1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"clear": true}), "/clear", K::UnknownField);
        refuse(T, json!({"timeout_ms": 1000}), "/timeout_ms", K::UnknownField);
    }

    #[test]
    fn edges() {
        int_edges(T, json!({}), "limit", DIAGNOSE_LIMIT);
        text_edges(T, json!({}), "match", DIAGNOSE_MATCH_CHARS);
        text_edges(T, json!({}), "after", DIAGNOSE_CURSOR_CHARS);
    }

    #[test]
    fn every_declared_field_is_read() {
        accept(T, json!({}));
    }
}
