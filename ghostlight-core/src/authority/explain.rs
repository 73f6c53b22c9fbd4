//! `policy_explain`: the compiled authority (narrowed by the call's snapshot) as facts.
//!
//! A pure function: it reads the snapshot and never touches a browser, a file or the clock.
//! Layer document texts and file paths never appear (the edge that loaded them keeps them):
//! provenance names each source by kind (`user settings`, `organization settings`); upload
//! roots are counted, not listed.

use serde_json::{Map, Value, json};

use super::layers::{CompiledAuthority, Decider, HostRuleKind, Layer};
use super::snapshot::AuthoritySnapshot;
use crate::capability::{Capability, CapabilitySet};
use crate::envelope::{Effect, Envelope, Readiness, Status};
use crate::handles::Handle;
use crate::language::count;

/// The capability areas every explanation covers: `read`, `action`, `write`, `execute`.
pub(crate) const CAPABILITY_AREAS: usize = Capability::ALL.len();

/// A `policy_explain` result.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// `Explained 4 capability areas over N layers in force.`
    pub summary: String,
    /// The facts (see [`policy_explain`]).
    pub facts: Map<String, Value>,
}

impl Explanation {
    /// The envelope: `succeeded`, effect `none`, readiness `not_applicable`, repeat-safe, no
    /// next steps.
    pub fn to_envelope(&self, invocation: &Handle) -> Envelope {
        Envelope {
            invocation: invocation.as_str().to_owned(),
            status: Status::Succeeded,
            effect: Effect::None,
            readiness: Readiness::NotApplicable,
            repeat_safe: true,
            summary: self.summary.clone(),
            facts: self.facts.clone(),
            next_steps: Vec::new(),
        }
    }
}

/// Explain the authority in force for this invocation.
///
/// The facts are exactly those `policy_explain` declares in its output schema:
/// * `situation`: one sentence;
/// * `capabilities`: one line per capability, `{capability, polarity, layer, line}`, for this
///   call: `layer` is what decides (`defaults`, `user`, `organization`, `organization
///   ceiling`, or `restriction` when this call's `restrict_capabilities` leaves an otherwise
///   allowed capability out) and `line` says it as a sentence;
/// * `rules`: the rules behind those lines, `{layer, capability, rule}`: every capability
///   mention and host rule each layer authored (a superseded one says so), then this call's
///   restrictions (layer `restriction`); `capability` is `null` for host rules;
/// * `settings`: `{name, value, layer}` for `privacy.preserve_target_names`, `tabs.close`,
///   `browser.startup` and `uploads.roots` (a folder count; the paths are withheld);
/// * `ceilings`: the organization's permanent ceilings as sentences (empty when none);
/// * `startup`: `auto` or `manual`;
/// * `organization`: the organization's name, or `null`;
/// * `provenance`: `{passport, issuer, layers}`: the organization document is the issued
///   policy (`passport: "organization settings"`, `issuer`: its name), and `layers` names the
///   sources in force, lowest precedence first (`built-in defaults`, `user settings`,
///   `organization settings`). File paths and document texts are never included.
pub fn policy_explain(snapshot: &AuthoritySnapshot) -> Explanation {
    let authority = snapshot.authority();
    let layers = authority.layers().len();
    let summary = format!(
        "Explained {CAPABILITY_AREAS} capability areas over {} in force.",
        count(layers, "layer", "layers")
    );
    let organization_name = authority.organization().and_then(|o| o.name.as_ref()).map(|n| n.as_str());

    let mut facts = Map::new();
    facts.insert("situation".into(), json!(situation(snapshot)));
    facts.insert("capabilities".into(), capability_lines(snapshot));
    facts.insert("rules".into(), rules(snapshot));
    facts.insert("settings".into(), settings(authority));
    facts.insert("ceilings".into(), json!(ceilings(authority)));
    facts.insert("startup".into(), json!(authority.browser_startup().value.as_str()));
    facts.insert("organization".into(), json!(organization_name));
    let has_organization = authority.layers().contains(&Layer::Organization);
    facts.insert(
        "provenance".into(),
        json!({
            "passport": has_organization.then_some(Layer::Organization.source()),
            "issuer": organization_name,
            "layers": authority.layers().iter().map(|layer| layer.source()).collect::<Vec<_>>(),
        }),
    );
    Explanation { summary, facts }
}

impl AuthoritySnapshot {
    /// [`policy_explain`] for this snapshot.
    pub fn explain(&self) -> Explanation {
        policy_explain(self)
    }
}

fn names(set: CapabilitySet) -> Vec<&'static str> {
    set.iter().map(Capability::as_str).collect()
}

/// `a`, `a and b`, `a, b and c`.
fn and_list<S: AsRef<str>>(items: &[S]) -> String {
    let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    match items.as_slice() {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn situation(snapshot: &AuthoritySnapshot) -> String {
    let authority = snapshot.authority();
    let has = |layer| authority.layers().contains(&layer);
    let organization = match authority.organization().and_then(|o| o.name.as_ref()) {
        Some(name) => format!("Organization settings of {name}"),
        None => "Organization settings".to_owned(),
    };
    let who = match (has(Layer::User), has(Layer::Organization)) {
        (false, false) => "Built-in defaults only".to_owned(),
        (true, false) => "User settings over the built-in defaults".to_owned(),
        (false, true) => format!("{organization} over the built-in defaults"),
        (true, true) => format!("{organization} over user settings and the built-in defaults"),
    };

    let allowed = names(authority.capabilities());
    let denied = names(CapabilitySet::ALL.difference(authority.capabilities()));
    let hosts = hosts_phrase(authority);
    let verb = |list: &[&str]| if list.len() == 1 { "is" } else { "are" };
    let mut sentence = match (allowed.is_empty(), denied.is_empty()) {
        (true, _) => format!("{who}: every capability is denied."),
        (false, true) => format!("{who}: {} {} allowed {hosts}.", and_list(&allowed), verb(&allowed)),
        (false, false) => format!(
            "{who}: {} {} allowed {hosts}; {} {} denied.",
            and_list(&allowed),
            verb(&allowed),
            and_list(&denied),
            verb(&denied)
        ),
    };
    if snapshot.restrict_capabilities().is_some() {
        let narrowed = names(snapshot.capabilities());
        let list = if narrowed.is_empty() { "none".to_owned() } else { and_list(&narrowed) };
        sentence.push_str(&format!(" This call narrows capabilities to {list}."));
    }
    match snapshot.restrict_hosts() {
        Some([]) => sentence.push_str(" This call narrows hosts to none."),
        Some(patterns) => {
            let patterns = count(patterns.len(), "pattern", "patterns");
            sentence.push_str(&format!(" This call narrows hosts to those matching {patterns}."));
        }
        None => {}
    }
    sentence
}

fn hosts_phrase(authority: &CompiledAuthority) -> String {
    if authority.hosts_open() {
        return "on any host".to_owned();
    }
    let allow: Vec<_> = authority
        .host_rules()
        .iter()
        .filter(|r| r.in_force && r.kind == HostRuleKind::Allow)
        .map(|r| &r.pattern)
        .collect();
    let mut phrase = if allow.iter().any(|p| p.is_any()) {
        "on any host".to_owned()
    } else if allow.is_empty() {
        return "on no host".to_owned();
    } else {
        format!("on hosts matching {}", count(allow.len(), "allowed pattern", "allowed patterns"))
    };
    let denies = authority.host_rules().iter().filter(|r| r.in_force && r.kind == HostRuleKind::Deny).count();
    if denies > 0 {
        phrase.push_str(&format!(", except {}", count(denies, "denied pattern", "denied patterns")));
    }
    if authority.ceiling_hosts().is_some() {
        phrase.push_str(", within the organization ceiling");
    }
    phrase
}

/// `the defaults layer`, `the organization ceiling`, `this call's restrict_capabilities`.
fn decider_phrase(decider: Decider) -> String {
    match decider {
        Decider::Defaults | Decider::User | Decider::Organization => format!("the {decider} layer"),
        Decider::OrganizationCeiling => "the organization ceiling".to_owned(),
        Decider::Restriction => "this call's restrict_capabilities".to_owned(),
    }
}

fn capability_lines(snapshot: &AuthoritySnapshot) -> Value {
    let lines: Vec<Value> = snapshot
        .authority()
        .capability_lines()
        .iter()
        .map(|configured| {
            let capability = configured.capability;
            let (polarity, decider) = snapshot.capability(capability);
            let line = if decider == Decider::Restriction {
                format!(
                    "{capability} is allowed by {}, but this call's restrict_capabilities leaves it out.",
                    decider_phrase(configured.decided_by)
                )
            } else {
                format!("{capability} is {} by {}.", polarity.as_str(), decider_phrase(decider))
            };
            json!({
                "capability": capability.as_str(),
                "polarity": polarity.as_str(),
                "layer": decider.as_str(),
                "line": line,
            })
        })
        .collect();
    Value::Array(lines)
}

fn rules(snapshot: &AuthoritySnapshot) -> Value {
    let authority = snapshot.authority();
    let mut rules = Vec::new();
    // Capability mentions, highest layer first. A mention is in force when its layer decided
    // the capability's line; otherwise a higher layer or the ceiling superseded it.
    for (layer, settings) in authority.authored().collect::<Vec<_>>().into_iter().rev() {
        for capability in Capability::ALL {
            if !settings.capabilities.mentions(capability) {
                continue;
            }
            let verb = if settings.capabilities.deny.contains(capability) { "denies" } else { "allows" };
            let decided_by = authority.capability(capability).decided_by;
            let rule = if decided_by == layer.into() {
                format!("{verb} {capability}")
            } else {
                format!("{verb} {capability}; superseded by {}", decider_phrase(decided_by))
            };
            rules.push(json!({"layer": layer.as_str(), "capability": capability.as_str(), "rule": rule}));
        }
    }
    let allow_layer = authority.host_allow_layer();
    for rule in authority.host_rules().iter().filter(|r| r.kind != HostRuleKind::Ceiling) {
        let text = match (rule.kind, rule.in_force) {
            (HostRuleKind::Deny, _) => format!("denies hosts matching {}", rule.pattern),
            (_, true) => format!("allows hosts matching {}", rule.pattern),
            (_, false) => format!(
                "allows hosts matching {}; superseded by the {allow_layer} layer's host allow list",
                rule.pattern
            ),
        };
        rules.push(json!({"layer": rule.decided_by.as_str(), "capability": null, "rule": text}));
    }
    let resources = authority.resource_hosts();
    for pattern in &resources.value {
        let text = format!("lets subresources (not documents) reach hosts matching {pattern}");
        rules.push(json!({"layer": resources.decided_by.as_str(), "capability": null, "rule": text}));
    }
    let restriction = Decider::Restriction.as_str();
    if let Some(capabilities) = snapshot.restrict_capabilities() {
        let listed = names(capabilities);
        let rule = if listed.is_empty() {
            "this call allows no capability".to_owned()
        } else {
            format!("this call allows only {}", and_list(&listed))
        };
        rules.push(json!({"layer": restriction, "capability": null, "rule": rule}));
    }
    if let Some(patterns) = snapshot.restrict_hosts() {
        let listed: Vec<String> = patterns.iter().map(ToString::to_string).collect();
        let rule = if listed.is_empty() {
            "this call allows no host".to_owned()
        } else {
            format!("this call allows only hosts matching {}", and_list(&listed))
        };
        rules.push(json!({"layer": restriction, "capability": null, "rule": rule}));
    }
    Value::Array(rules)
}

fn settings(authority: &CompiledAuthority) -> Value {
    let names = authority.preserve_target_names();
    let close = authority.tab_close();
    let startup = authority.browser_startup();
    let roots = authority.upload_roots();
    let folders = match roots.value.len() {
        0 => "none: path uploads are refused".to_owned(),
        n => format!("{} (paths withheld)", count(n, "folder", "folders")),
    };
    json!([
        {"name": "privacy.preserve_target_names", "value": names.value, "layer": names.decided_by.as_str()},
        {"name": "tabs.close", "value": close.value.as_str(), "layer": close.decided_by.as_str()},
        {"name": "browser.startup", "value": startup.value.as_str(), "layer": startup.decided_by.as_str()},
        {"name": "uploads.roots", "value": folders, "layer": roots.decided_by.as_str()},
    ])
}

fn ceilings(authority: &CompiledAuthority) -> Vec<String> {
    let mut ceilings = Vec::new();
    if let Some(capabilities) = authority.ceiling_capabilities() {
        let listed = names(capabilities);
        ceilings.push(if listed.is_empty() {
            "capabilities: none may ever be allowed".to_owned()
        } else {
            format!("capabilities: at most {}", and_list(&listed))
        });
    }
    if let Some(patterns) = authority.ceiling_hosts() {
        let listed: Vec<String> = patterns.iter().map(ToString::to_string).collect();
        ceilings.push(if listed.is_empty() {
            "hosts: none may ever be allowed".to_owned()
        } else {
            format!("hosts: only those matching {}", and_list(&listed))
        });
    }
    ceilings
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::authority::Restrictions;
    use crate::authority::config::{OrganizationSettings, Settings};
    use crate::authority::host::HostPattern;
    use crate::authority::layers::AuthorityLayers;
    use crate::facts::{Fact, FactType};
    use crate::names::ToolName;

    fn explained(authority: &CompiledAuthority, restrictions: &Restrictions) -> Value {
        let explanation = authority.snapshot(restrictions).explain();
        json!({"summary": explanation.summary, "facts": explanation.facts})
    }

    fn layered() -> CompiledAuthority {
        let user: Settings = serde_json::from_value(json!({
            "capabilities": {"allow": ["execute"], "deny": ["write"]},
            "hosts": {"allow": ["example.com", "*.example.com", "localhost:3000"], "deny": ["ads.example.com"]},
            "privacy": {"preserve_target_names": false},
            "browser": {"startup": "manual"},
            "uploads": {"roots": [if cfg!(windows) { r"C:\Users\ada\Uploads" } else { "/home/ada/Uploads" }]},
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        let org: OrganizationSettings = serde_json::from_value(json!({
            "organization": {"name": "Acme"},
            "ceilings": {"capabilities": ["read", "action", "write"], "hosts": ["*.example.com", "example.com", "localhost"]},
            "capabilities": {"allow": ["write"]},
            "hosts": {"deny": ["*.tracker.example"]},
            "tabs": {"close": "forbidden"},
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        AuthorityLayers { user: Some(user), organization: Some(org) }.compile()
    }

    #[test]
    fn default_configuration() {
        insta::assert_json_snapshot!(
            "default",
            explained(&CompiledAuthority::default(), &Restrictions::default())
        );
    }

    #[test]
    fn all_open_configuration() {
        insta::assert_json_snapshot!(
            "all_open",
            explained(&CompiledAuthority::all_open(), &Restrictions::default())
        );
    }

    #[test]
    fn layered_configuration() {
        let restrictions = Restrictions {
            hosts: Some(vec![HostPattern::parse("www.example.com").unwrap_or(HostPattern::ANY)]),
            capabilities: Some(CapabilitySet::of(&[Capability::Read, Capability::Execute])),
        };
        insta::assert_json_snapshot!("layered", explained(&layered(), &restrictions));
    }

    /// The facts are exactly what `policy_explain`'s output schema declares, member by member.
    #[test]
    fn facts_match_the_declared_output_schema() {
        fn check(declared: &[Fact], actual: &Map<String, Value>, at: &str) {
            let mut declared_names: Vec<&str> = declared.iter().map(|f| f.name).collect();
            let mut actual_names: Vec<&str> = actual.keys().map(String::as_str).collect();
            declared_names.sort_unstable();
            actual_names.sort_unstable();
            assert_eq!(actual_names, declared_names, "members of {at}");
            for fact in declared {
                let value = &actual[fact.name];
                let at = format!("{at}/{}", fact.name);
                match fact.ty {
                    FactType::String => assert!(value.is_string(), "{at}: {value}"),
                    FactType::NullableString => {
                        assert!(value.is_string() || value.is_null(), "{at}: {value}")
                    }
                    FactType::StringArray => {
                        assert!(
                            value.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
                            "{at}: {value}"
                        )
                    }
                    FactType::Object(members) => match value.as_object() {
                        Some(object) => check(members, object, &at),
                        None => panic!("{at} is not an object: {value}"),
                    },
                    FactType::ObjectArray(members) => {
                        let items =
                            value.as_array().unwrap_or_else(|| panic!("{at} is not an array: {value}"));
                        for (index, item) in items.iter().enumerate() {
                            match item.as_object() {
                                Some(object) => check(members, object, &format!("{at}/{index}")),
                                None => panic!("{at}/{index} is not an object: {item}"),
                            }
                        }
                    }
                    FactType::Any => {}
                    other => panic!("{at}: unexpected declared type {other:?}"),
                }
            }
        }
        let declared = ToolName::PolicyExplain.declaration().facts;
        let restricted = Restrictions {
            hosts: Some(vec![HostPattern::ANY]),
            capabilities: Some(CapabilitySet::of(&[Capability::Read])),
        };
        for (authority, restrictions) in [
            (CompiledAuthority::default(), Restrictions::default()),
            (CompiledAuthority::all_open(), restricted.clone()),
            (layered(), restricted),
        ] {
            let facts = authority.snapshot(&restrictions).explain().facts;
            check(declared, &facts, "facts");
        }
    }

    #[test]
    fn summaries_count_layers_in_force() {
        let summary =
            |authority: &CompiledAuthority| authority.snapshot(&Restrictions::default()).explain().summary;
        assert_eq!(
            summary(&CompiledAuthority::default()),
            "Explained 4 capability areas over 1 layer in force."
        );
        assert_eq!(
            summary(&CompiledAuthority::all_open()),
            "Explained 4 capability areas over 2 layers in force."
        );
        assert_eq!(summary(&layered()), "Explained 4 capability areas over 3 layers in force.");
    }

    #[test]
    fn paths_and_document_texts_are_withheld() {
        let text = explained(&layered(), &Restrictions::default()).to_string();
        assert!(!text.contains("Uploads"), "{text}");
        assert!(!text.contains("/home/") && !text.contains("C:\\\\"), "{text}");
    }

    #[test]
    fn explanations_are_available_under_every_authority() {
        let nothing = Restrictions { hosts: Some(vec![]), capabilities: Some(CapabilitySet::EMPTY) };
        let facts = layered().snapshot(&nothing).explain().facts;
        let lines = facts["capabilities"].as_array().cloned().unwrap_or_default();
        assert!(lines.iter().all(|line| line["polarity"] == "denied"), "{lines:?}");
        let situation = facts["situation"].as_str().unwrap_or_default();
        assert!(
            situation.ends_with("This call narrows capabilities to none. This call narrows hosts to none.")
        );
    }
}
