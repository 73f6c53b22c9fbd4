//! `browser_execute`: execute explicit bounded JavaScript in the page.
//!
//! The script is a secret-bearing field: decode errors describe it by type and length only, and
//! the request's `Debug` form redacts it. Its source never enters audit or presentation.

pub(crate) mod op;

use std::fmt;

use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, DecodeErrorKind, ObjectReader};
use crate::facts::tool_facts;
use crate::facts::{Fact, FactType};
use crate::handles::Handle;
use crate::limits;
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::common::{TAB, TIMEOUT_MS, read_timeout};

const SCRIPT: Field =
    Field::required("script", FieldType::Text(limits::SCRIPT_CHARS), "JavaScript to run.").sensitive();
const MAX_RESULT_CHARS: Field = Field::optional(
    "max_result_chars",
    FieldType::Integer(limits::SCRIPT_RESULT_CHARS),
    "Most result characters returned.",
);

/// Members of the `error` fact of a script that failed.
const SCRIPT_ERROR_MEMBERS: [Fact; 3] = [
    Fact::new("name", FactType::String, "The error's name, e.g. SyntaxError or TypeError (bounded)."),
    Fact::new("message", FactType::String, "The error's message (bounded)."),
    Fact::new("ran", FactType::Boolean, "false when the script did not compile (nothing ran)."),
];

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    VALUE: Json(
        "value",
        FactType::Any,
        "The script's result, bounded."
    ),
    TRUNCATED: Bool("truncated", "The result was cut at max_result_chars."),
    ERROR: Json(
        "error",
        FactType::Object(&super::SCRIPT_ERROR_MEMBERS),
        "How the script failed, when it did."
    ),
    LANDING: Json = crate::tools::common::LANDING,
    OPENED_TABS: Json = crate::tools::common::OPENED_TABS,
    CLOSED_TABS: Int = crate::tools::common::CLOSED_TABS,
    MAX_RESULT_CHARS: Int("max_result_chars", "The result bound (characters)."),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Execute,
    description: "Run page JavaScript: an expression, or a body using return; promises are awaited. May mutate or navigate: prefer a semantic tool.",
    fields: &[SCRIPT, TAB, MAX_RESULT_CHARS, TIMEOUT_MS],
    example: r#"{"script":"document.title"}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
};

/// A decoded `browser_execute` call. Its `Debug` form never shows the script.
#[derive(Clone, PartialEq, Eq)]
pub struct ExecuteRequest {
    /// The explicitly named tab; `None` selects the default tab.
    pub tab: Option<Handle>,
    /// The script source (non-blank). Never audited or presented.
    pub script: String,
    /// Most characters of the serialized result returned.
    pub max_result_chars: u64,
    /// Timeout in milliseconds.
    pub timeout_ms: u64,
}

impl Tool for ExecuteRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;
    const MAY_OPEN_TABS: bool = true;

    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError> {
        decode(reader)
    }

    /// `execute`.
    fn capabilities(&self) -> CapabilitySet {
        CapabilitySet::of(&[Capability::Execute])
    }

    /// The explicitly named tab.
    fn tab(&self) -> Option<&Handle> {
        self.tab.as_ref()
    }
}

impl fmt::Debug for ExecuteRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExecuteRequest")
            .field("tab", &self.tab)
            .field("script", &format_args!("<{} characters>", self.script.chars().count()))
            .field("max_result_chars", &self.max_result_chars)
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<ExecuteRequest, DecodeError> {
    let script = reader.text(&SCRIPT)?;
    let tab = reader.handle(&TAB)?;
    let max_result_chars = reader.int_or_default(&MAX_RESULT_CHARS)?;
    let timeout_ms = read_timeout(reader)?;
    let script = script.ok_or_else(|| reader.missing(&SCRIPT))?;
    if script.trim().is_empty() {
        return Err(reader.invalid(&SCRIPT, DecodeErrorKind::InvalidValue, "must not be blank"));
    }
    Ok(ExecuteRequest { tab, script, max_result_chars, timeout_ms })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::{Value, json};

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::tools::testing::{accept, int_edges, refuse, text_edges};

    const T: ToolName = ToolName::Execute;
    const SECRET: &str = "hunter2-secret";

    /// Decode, check every declared field was read, and return the typed request.
    fn decoded(arguments: Value) -> ExecuteRequest {
        let request = accept(T, arguments);
        match request {
            Request::Execute(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    #[test]
    fn accepted() {
        let title = decoded(DECLARATION.example());
        assert_eq!(
            title,
            ExecuteRequest {
                tab: None,
                script: "document.title".into(),
                max_result_chars: 8_000,
                timeout_ms: 8_000
            }
        );
        assert_eq!(title.capabilities(), CapabilitySet::of(&[Capability::Execute]));
        let full =
            decoded(json!({"script": " 1 + 1 ", "tab": "tab_4", "max_result_chars": 100, "timeout_ms": 200}));
        assert_eq!(full.script, " 1 + 1 ");
        assert_eq!(full.tab().map(Handle::as_str), Some("tab_4"));
        assert_eq!((full.max_result_chars, full.timeout_ms), (100, 200));
    }

    #[test]
    fn refusals() {
        refuse(T, json!({}), "/script", K::MissingField);
        refuse(T, json!({"tab": "tab_1"}), "/script", K::MissingField);
        refuse(T, json!({"script": ""}), "/script", K::Length);
        for blank in [" ", "\n\t ", "\u{a0}"] {
            let error = refuse(T, json!({"script": blank}), "/script", K::InvalidValue);
            assert_eq!(error.message(), "/script must not be blank");
        }
        refuse(T, json!({"script": "1", "tab": "target_1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"script": "1", "args": []}), "/args", K::UnknownField);
    }

    #[test]
    fn the_script_is_never_echoed() {
        let error = refuse(T, json!({"script": [SECRET]}), "/script", K::WrongType);
        assert!(!error.message().contains(SECRET), "{error}");
        let long = format!("{SECRET}{}", "x".repeat(limits::SCRIPT_CHARS.max));
        let error = refuse(T, json!({"script": long}), "/script", K::Length);
        assert!(!error.message().contains(SECRET), "{error}");
        let request = decoded(json!({"script": SECRET}));
        let shown = format!("{request:?} {:?}", Request::Execute(request.clone()));
        assert!(!shown.contains(SECRET), "{shown}");
        assert!(shown.contains("<14 characters>"), "{shown}");
    }

    #[test]
    fn bound_edges() {
        text_edges(T, json!({}), "script", limits::SCRIPT_CHARS);
        int_edges(T, json!({"script": "1"}), "max_result_chars", limits::SCRIPT_RESULT_CHARS);
        int_edges(T, json!({"script": "1"}), "timeout_ms", limits::TIMEOUT_MS);
    }
}
