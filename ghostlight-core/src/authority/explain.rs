//! `policy_explain`: the compiled authority (narrowed by the call's snapshot) as facts.
//!
//! A pure function: it reads the snapshot and never touches a browser, a file or the clock.
//! Layer document texts and file paths never appear (the edge that loaded them keeps them):
//! provenance names each source by kind (`user settings`, `organization settings`) and lists
//! the keys it authored; upload roots are counted, not listed.

use serde_json::{Map, Value, json};

use super::config::Settings;
use super::layers::{CompiledAuthority, HostRuleKind, Layer, Polarity};
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
/// Facts:
/// * `situation`: one sentence;
/// * `capabilities`: one line per capability: `capability`, `polarity`, `decided_by`
///   (`defaults`, `user`, `organization` or `organization ceiling`), and `this_call`
///   (`allowed`, or `denied` when the configuration or this call's restriction removes it);
/// * `rules`: the rules behind the lines: every capability mention and host rule each layer
///   authored, with `in_force` false for a mention or allow list a higher layer superseded;
/// * `settings`: `privacy.preserve_target_names`, `tabs.close` and `uploads.roots` (a folder
///   count) with the layer that decided each;
/// * `ceilings`: the organization's permanent `capabilities` and `hosts` (`null` when unset);
/// * `browser_startup`: `posture` (`auto` or `manual`) and `decided_by`;
/// * `organization`: `null`, or `{name}` (`name` may be `null`);
/// * `provenance`: the layers in force, each with its `source` and the keys it `authored`,
///   and what is `withheld`;
/// * `this_call`: the call's `restrict_capabilities` and `restrict_hosts` (`null` when absent)
///   and the resulting `capabilities`.
pub fn policy_explain(snapshot: &AuthoritySnapshot) -> Explanation {
    let authority = snapshot.authority();
    let layers = authority.layers().len();
    let summary = format!(
        "Explained {CAPABILITY_AREAS} capability areas over {layers} {} in force.",
        if layers == 1 { "layer" } else { "layers" }
    );

    let mut facts = Map::new();
    facts.insert("situation".into(), json!(situation(snapshot)));
    facts.insert("capabilities".into(), capability_lines(snapshot));
    facts.insert("rules".into(), rules(authority));
    facts.insert("settings".into(), settings(authority));
    facts.insert(
        "ceilings".into(),
        json!({
            "capabilities": authority.ceiling_capabilities().map(names),
            "hosts": authority.ceiling_hosts().map(|patterns| patterns.iter().map(ToString::to_string).collect::<Vec<_>>()),
        }),
    );
    let startup = authority.browser_startup();
    facts.insert(
        "browser_startup".into(),
        json!({"posture": startup.value.as_str(), "decided_by": startup.decided_by.as_str()}),
    );
    facts.insert(
        "organization".into(),
        match authority.organization() {
            Some(identity) => json!({"name": identity.name.as_ref().map(|n| n.as_str())}),
            None => Value::Null,
        },
    );
    facts.insert("provenance".into(), provenance(authority));
    facts.insert(
        "this_call".into(),
        json!({
            "restrict_capabilities": snapshot.restrict_capabilities().map(names),
            "restrict_hosts": snapshot.restrict_hosts().map(|patterns| patterns.iter().map(ToString::to_string).collect::<Vec<_>>()),
            "capabilities": names(snapshot.capabilities()),
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
fn and_list(items: &[&str]) -> String {
    match items {
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
    let allow = authority
        .host_rules()
        .iter()
        .filter(|r| r.in_force && r.kind == HostRuleKind::Allow)
        .map(|r| &r.pattern)
        .collect::<Vec<_>>();
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

fn capability_lines(snapshot: &AuthoritySnapshot) -> Value {
    let lines: Vec<Value> = snapshot
        .authority()
        .capability_lines()
        .iter()
        .map(|line| {
            let (this_call, _) = snapshot.capability(line.capability);
            json!({
                "capability": line.capability.as_str(),
                "polarity": line.polarity.as_str(),
                "decided_by": line.decided_by.as_str(),
                "this_call": this_call.as_str(),
            })
        })
        .collect();
    Value::Array(lines)
}

fn rules(authority: &CompiledAuthority) -> Value {
    let mut rules = Vec::new();
    // Capability mentions, highest layer first; a mention is in force when its layer decided
    // the capability's line (a ceiling overrides every mention).
    for (layer, settings) in authority.authored().collect::<Vec<_>>().into_iter().rev() {
        for capability in Capability::ALL {
            if !settings.capabilities.mentions(capability) {
                continue;
            }
            let polarity = Polarity::of(!settings.capabilities.deny.contains(capability));
            let decided_by = authority.capability(capability).decided_by;
            rules.push(json!({
                "kind": "capability",
                "subject": capability.as_str(),
                "polarity": polarity.as_str(),
                "layer": layer.as_str(),
                "in_force": decided_by == layer.into(),
            }));
        }
    }
    for rule in authority.host_rules().iter().filter(|r| r.kind != HostRuleKind::Ceiling) {
        rules.push(json!({
            "kind": if rule.kind == HostRuleKind::Allow { "host_allow" } else { "host_deny" },
            "subject": rule.pattern.to_string(),
            "polarity": rule.polarity.as_str(),
            "layer": rule.decided_by.as_str(),
            "in_force": rule.in_force,
        }));
    }
    Value::Array(rules)
}

fn settings(authority: &CompiledAuthority) -> Value {
    let names = authority.preserve_target_names();
    let close = authority.tab_close();
    let roots = authority.upload_roots();
    json!({
        "privacy.preserve_target_names": {"value": names.value, "decided_by": names.decided_by.as_str()},
        "tabs.close": {"value": close.value.as_str(), "decided_by": close.decided_by.as_str()},
        "uploads.roots": {"folders": roots.value.len(), "decided_by": roots.decided_by.as_str()},
    })
}

/// The keys a layer authored, by name only.
fn authored_keys(settings: &Settings) -> Vec<&'static str> {
    let mut keys = Vec::new();
    let mut key = |set: bool, name| {
        if set {
            keys.push(name);
        }
    };
    key(!settings.capabilities.allow.is_empty(), "capabilities.allow");
    key(!settings.capabilities.deny.is_empty(), "capabilities.deny");
    key(settings.hosts.allow.is_some(), "hosts.allow");
    key(!settings.hosts.deny.is_empty(), "hosts.deny");
    key(settings.privacy.preserve_target_names.is_some(), "privacy.preserve_target_names");
    key(settings.tabs.close.is_some(), "tabs.close");
    key(settings.browser.startup.is_some(), "browser.startup");
    key(settings.uploads.roots.is_some(), "uploads.roots");
    keys
}

fn provenance(authority: &CompiledAuthority) -> Value {
    let layers: Vec<Value> = authority
        .authored()
        .map(|(layer, settings)| {
            let mut authored = authored_keys(settings);
            if layer == Layer::Organization {
                if authority.organization().is_some_and(|o| o.name.is_some()) {
                    authored.insert(0, "organization.name");
                }
                if authority.ceiling_capabilities().is_some() {
                    authored.push("ceilings.capabilities");
                }
                if authority.ceiling_hosts().is_some() {
                    authored.push("ceilings.hosts");
                }
            }
            json!({"layer": layer.as_str(), "source": layer.source(), "authored": authored})
        })
        .collect();
    json!({"layers": layers, "withheld": ["file paths", "document texts"]})
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::authority::config::OrganizationSettings;
    use crate::authority::host::HostPattern;
    use crate::authority::layers::AuthorityLayers;
    use crate::request::Restrictions;

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
        assert_eq!(facts["this_call"]["capabilities"], json!([]));
        let situation = facts["situation"].as_str().unwrap_or_default();
        assert!(
            situation.ends_with("This call narrows capabilities to none. This call narrows hosts to none.")
        );
    }
}
