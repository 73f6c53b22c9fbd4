//! `policy_explain`: the authority in force, as one compiled answer.

pub(crate) mod op;

use crate::capability::CapabilitySet;
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, ObjectReader};
use crate::facts::tool_facts;
use crate::facts::{Fact, FactType};
use crate::handles::Handle;
use crate::names::ToolName;
use crate::tools::Tool;

const CAPABILITY_LINE_MEMBERS: [Fact; 4] = [
    Fact::new("capability", FactType::String, "read, action, write or execute."),
    Fact::new("polarity", FactType::String, "allowed or denied."),
    Fact::new("layer", FactType::String, "The layer that decides it."),
    Fact::new("line", FactType::String, "The explaining sentence."),
];

const RULE_MEMBERS: [Fact; 3] = [
    Fact::new("layer", FactType::String, "Layer that authored the rule."),
    Fact::new("capability", FactType::NullableString, "Capability it governs, if one."),
    Fact::new("rule", FactType::String, "The rule, stated."),
];

const SETTING_MEMBERS: [Fact; 3] = [
    Fact::new("name", FactType::String, "Setting name."),
    Fact::new("value", FactType::Any, "Setting value."),
    Fact::new("layer", FactType::String, "Layer that authored it."),
];

const PROVENANCE_MEMBERS: [Fact; 3] = [
    Fact::new("passport", FactType::NullableString, "Passport in force, if any."),
    Fact::new("issuer", FactType::NullableString, "Who issued it."),
    Fact::new("layers", FactType::StringArray, "Layers in force, in precedence order."),
];

tool_facts! {
    SITUATION: Str("situation", "One-sentence situation."),
    CAPABILITIES: Json(
        "capabilities",
        FactType::ObjectArray(&super::CAPABILITY_LINE_MEMBERS),
        "One line per capability."
    ),
    RULES: Json(
        "rules",
        FactType::ObjectArray(&super::RULE_MEMBERS),
        "Rules behind those lines."
    ),
    SETTINGS: Json(
        "settings",
        FactType::ObjectArray(&super::SETTING_MEMBERS),
        "Authored settings."
    ),
    CEILINGS: Strs("ceilings", "Permanent ceilings no layer can lift."),
    STARTUP: Str("startup", "Browser startup posture."),
    ORGANIZATION: NullableStr("organization", "Organization identity, if any."),
    PROVENANCE: Json(
        "provenance",
        FactType::Object(&super::PROVENANCE_MEMBERS),
        "Passport provenance."
    ),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::PolicyExplain,
    description: "Explain the authority in force: what is allowed, and why a call was refused.",
    fields: &[],
    example: "{}",
    facts: facts::ALL,
    annotations: Annotations { read_only: true, destructive: false, idempotent: true, open_world: false },
};

/// A decoded `policy_explain` call: it has no inputs beyond the restrictions.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PolicyExplainRequest;

impl Tool for PolicyExplainRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;

    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError> {
        decode(reader)
    }

    /// The empty set: always available.
    fn capabilities(&self) -> CapabilitySet {
        CapabilitySet::EMPTY
    }

    /// Never a tab: the tool dispatches no browser.
    fn tab(&self) -> Option<&Handle> {
        None
    }

    /// Not tab-bound: it never touches a browser.
    fn tab_bound(&self) -> bool {
        false
    }
}

fn decode(_reader: &mut ObjectReader<'_>) -> Result<PolicyExplainRequest, DecodeError> {
    Ok(PolicyExplainRequest)
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::json;

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::tools::catalog::decode_call;
    use crate::tools::testing::{accept, refuse};

    const T: ToolName = ToolName::PolicyExplain;

    #[test]
    fn accepts_nothing_but_restrictions() {
        let request = accept(T, json!({}));
        assert_eq!(request, Request::PolicyExplain(PolicyExplainRequest));
        assert_eq!(request.capabilities(), CapabilitySet::EMPTY);
        assert_eq!(request.tab(), None);
        match decode_call(T, &json!({"restrict_capabilities": [], "restrict_hosts": ["example.com"]})) {
            Ok(call) => {
                assert_eq!(call.request, Request::PolicyExplain(PolicyExplainRequest));
                assert_eq!(call.restrictions.capabilities, Some(CapabilitySet::EMPTY));
            }
            Err(error) => panic!("{error}"),
        }
    }

    #[test]
    fn refusals() {
        refuse(T, json!({"tab": "tab_1"}), "/tab", K::UnknownField);
        refuse(T, json!({"timeout_ms": 1000}), "/timeout_ms", K::UnknownField);
        refuse(T, json!({"capability": "read"}), "/capability", K::UnknownField);
        refuse(T, json!([]), "", K::WrongType);
        refuse(T, json!({"restrict_capabilities": ["admin"]}), "/restrict_capabilities/0", K::NotAllowed);
    }

    #[test]
    fn every_declared_field_is_read() {
        accept(T, json!({}));
    }
}
