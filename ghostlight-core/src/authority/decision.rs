//! Authorization: snapshot × requirement × the tab's current URL → admit, or a typed refusal.
//!
//! Checks run in a fixed order and the first failure is reported:
//!
//! 1. every required capability (canonical order: read, action, write, execute);
//! 2. the tab-close policy, for `browser_tabs` close;
//! 3. the destination site, for `browser_navigate`;
//! 4. for tab-bound work, the page the tab currently shows. `None` means no page is known
//!    yet (the executor found no tab to act on, and resolution will answer that); `about:blank`
//!    is an empty page and passes; any other URL without a web site (`file:`, `data:`,
//!    `chrome:`, …) is outside authority.
//!
//! A refusal is [`Blocked`]: status `blocked`, effect `none`, a summary naming what was missing
//! and what decided, and a next step pointing at `policy_explain` (plus, for a tab that has
//! landed outside authority, one pointing at `browser_navigate`). The credential handoff,
//! which the executor raises after the browser reports a credential-class target, is
//! [`CredentialHandoff`] (status `attention_required`).

use crate::facts::{common, detail, put};
use crate::vocab::CredentialClass;
use serde_json::{Map, Value};
use url::Url;

use super::classify::{Constraint, Destination, Requirement};
use super::config::TabClosePolicy;
use super::governed::{GovernedUrl, govern};
use super::host::Site;
use super::layers::{Decider, HostVerdict, Layer, Polarity};
use super::snapshot::AuthoritySnapshot;
use crate::capability::{Capability, CapabilitySet};
use crate::envelope::{Effect, Envelope, Readiness, Status};
use crate::handles::Handle;
use crate::limits::SUMMARY_CHARS;
use crate::names::ToolName;

/// The next step every authority refusal offers.
pub(crate) const EXPLAIN_NEXT_STEP: &str = "Call policy_explain to see what this authority allows and why.";

/// The extra next step when the tab's page is outside authority.
pub(crate) const NAVIGATE_BACK_NEXT_STEP: &str =
    "Use browser_navigate to take the tab back to an allowed host.";

/// An admitted requirement: what the executor must still honour, and the sites it touched
/// (for the audit record).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admission {
    credential_preflight: bool,
    sites: Vec<Site>,
}

impl Admission {
    /// Whether credential-class targets must be checked before any value is dispatched.
    pub fn credential_preflight(&self) -> bool {
        self.credential_preflight
    }

    /// The sites the decision looked at: the destination and/or the tab's current page.
    pub fn sites(&self) -> &[Site] {
        &self.sites
    }
}

/// Why authority blocked a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockReason {
    /// A required capability is not allowed.
    Capability {
        /// The first missing capability in canonical order (named by the summary).
        capability: Capability,
        /// Every missing capability.
        missing: CapabilitySet,
        /// What denied the named capability.
        decided_by: Decider,
    },
    /// The tab-close policy forbids closing tabs.
    TabClose {
        /// The layer that set `tabs.close = "forbidden"`.
        decided_by: Layer,
    },
    /// The destination site is outside authority.
    Destination {
        /// The destination.
        site: Site,
        /// The verdict.
        verdict: HostVerdict,
    },
    /// The destination is not a web URL.
    DestinationNotWeb,
    /// The tab's current page is on a site outside authority.
    TabOutside {
        /// The page's site.
        site: Site,
        /// The verdict.
        verdict: HostVerdict,
        /// The governed projection of the page's URL (`scheme://host[:port]`).
        url: GovernedUrl,
    },
    /// The tab's current page is not a web page (`file:`, `data:`, `chrome:`, …).
    TabNotWeb {
        /// The governed projection (the scheme alone).
        url: GovernedUrl,
    },
    /// The work would land in (or capture) a frame whose document is on a site outside
    /// authority, although the tab's page itself is inside.
    FrameOutside {
        /// The frame document's site.
        site: Site,
        /// The verdict.
        verdict: HostVerdict,
    },
    /// The work would land in a frame whose document is not a web page (`file:`, a browser
    /// page).
    FrameNotWeb {
        /// The governed projection (the scheme alone).
        url: GovernedUrl,
    },
}

/// An authority refusal: status `blocked`, effect `none`, nothing dispatched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    tool: ToolName,
    reason: Box<BlockReason>,
}

impl Blocked {
    /// The refused tool.
    pub fn tool(&self) -> ToolName {
        self.tool
    }

    /// Why.
    pub fn reason(&self) -> &BlockReason {
        &self.reason
    }

    /// What decided (a layer, the ceiling, or the call's restriction); `None` for a non-web
    /// URL, which no configuration can allow.
    pub fn decided_by(&self) -> Option<Decider> {
        match self.reason.as_ref() {
            BlockReason::Capability { decided_by, .. } => Some(*decided_by),
            BlockReason::TabClose { decided_by } => Some((*decided_by).into()),
            BlockReason::Destination { verdict, .. }
            | BlockReason::TabOutside { verdict, .. }
            | BlockReason::FrameOutside { verdict, .. } => Some(verdict.decided_by),
            BlockReason::DestinationNotWeb
            | BlockReason::TabNotWeb { .. }
            | BlockReason::FrameNotWeb { .. } => None,
        }
    }

    /// The closed `reason` fact.
    pub fn reason_code(&self) -> &'static str {
        match *self.reason {
            BlockReason::Capability { .. } => "capability_denied",
            BlockReason::TabClose { .. } => "tab_close_forbidden",
            BlockReason::Destination { .. } | BlockReason::DestinationNotWeb => "host_denied",
            BlockReason::TabOutside { .. } | BlockReason::TabNotWeb { .. } => "tab_outside_authority",
            BlockReason::FrameOutside { .. } | BlockReason::FrameNotWeb { .. } => "frame_outside_authority",
        }
    }

    /// The summary, e.g. `Blocked: browser_execute needs the execute capability, which the
    /// defaults layer denies.`
    ///
    /// A summary stays within `SUMMARY_CHARS`: when a very long host and rule would exceed
    /// it, the rule is left to the `rule` fact.
    pub fn summary(&self) -> String {
        let full = self.sentence(true);
        if full.chars().count() <= SUMMARY_CHARS { full } else { self.sentence(false) }
    }

    fn sentence(&self, with_rule: bool) -> String {
        let tool = self.tool;
        match self.reason.as_ref() {
            BlockReason::Capability { capability, decided_by, .. } => {
                let why = match decided_by {
                    Decider::Defaults | Decider::User | Decider::Organization => {
                        format!("the {decided_by} layer denies")
                    }
                    Decider::OrganizationCeiling => "the organization ceiling does not permit".to_owned(),
                    Decider::Restriction => "this call's restrict_capabilities leaves out".to_owned(),
                };
                format!("Blocked: {tool} needs the {capability} capability, which {why}.")
            }
            BlockReason::TabClose { decided_by } => {
                format!("Blocked: {tool} close is forbidden by the {decided_by} layer's tab-close policy.")
            }
            BlockReason::Destination { site, verdict } => {
                format!("Blocked: {tool} needs {site}, {}.", host_clause(verdict, with_rule))
            }
            BlockReason::DestinationNotWeb => {
                format!("Blocked: {tool} needs a URL without a valid web host, which is never allowed.")
            }
            BlockReason::TabOutside { site, verdict, .. } => {
                format!(
                    "Blocked: {tool} works on the tab's page on {site}, {}.",
                    host_clause(verdict, with_rule)
                )
            }
            BlockReason::TabNotWeb { url } => format!(
                "Blocked: {tool} works on the tab's page, a {} page outside authority.",
                url.as_str().trim_end_matches(':')
            ),
            BlockReason::FrameOutside { site, verdict } => format!(
                "Blocked: {tool} would reach a frame from {site} inside the page, {}.",
                host_clause(verdict, with_rule)
            ),
            BlockReason::FrameNotWeb { url } => format!(
                "Blocked: {tool} would reach a frame inside the page showing a {} page, which is outside authority.",
                url.as_str().trim_end_matches(':')
            ),
        }
    }

    /// The facts: `reason`, `tool`, `decided_by` and the subject (`capability` with
    /// `missing_capabilities`, or `host` with the matching `rule`, or the tab's governed `url`).
    pub fn facts(&self) -> Map<String, Value> {
        let mut facts = Map::new();
        put(&mut facts, common::REASON, self.reason_code());
        put(&mut facts, detail::TOOL, self.tool.as_str());
        if let Some(decider) = self.decided_by() {
            put(&mut facts, detail::DECIDED_BY, decider.as_str());
        }
        match self.reason.as_ref() {
            BlockReason::Capability { capability, missing, .. } => {
                put(&mut facts, detail::CAPABILITY, capability.as_str());
                let missing: Vec<&str> = missing.iter().map(Capability::as_str).collect();
                put(&mut facts, detail::MISSING_CAPABILITIES, missing);
            }
            BlockReason::TabClose { .. } | BlockReason::DestinationNotWeb => {}
            BlockReason::Destination { site, verdict } => {
                put(&mut facts, common::HOST, site.to_string());
                insert_rule(&mut facts, verdict);
            }
            BlockReason::TabOutside { site, verdict, url } => {
                put(&mut facts, common::HOST, site.to_string());
                insert_rule(&mut facts, verdict);
                put(&mut facts, detail::URL, url.as_str());
            }
            BlockReason::TabNotWeb { url } | BlockReason::FrameNotWeb { url } => {
                put(&mut facts, detail::URL, url.as_str());
            }
            BlockReason::FrameOutside { site, verdict } => {
                put(&mut facts, common::HOST, site.to_string());
                insert_rule(&mut facts, verdict);
            }
        }
        facts
    }

    /// The next steps: `policy_explain`, and for a tab outside authority `browser_navigate`.
    pub fn next_steps(&self) -> Vec<String> {
        let mut steps = vec![EXPLAIN_NEXT_STEP.to_owned()];
        if matches!(*self.reason, BlockReason::TabOutside { .. } | BlockReason::TabNotWeb { .. }) {
            steps.push(NAVIGATE_BACK_NEXT_STEP.to_owned());
        }
        steps
    }
}

fn host_clause(verdict: &HostVerdict, with_rule: bool) -> String {
    match (verdict.decided_by, &verdict.rule) {
        (Decider::OrganizationCeiling, _) => "which is outside the organization ceiling".to_owned(),
        (Decider::Restriction, _) => "which this call's restrict_hosts leaves out".to_owned(),
        (layer, Some(rule)) if with_rule => format!("which the {layer} layer denies (rule {rule})"),
        (layer, Some(_)) => format!("which the {layer} layer denies"),
        (layer, None) => format!("which the {layer} layer's host allow list does not include"),
    }
}

fn insert_rule(facts: &mut Map<String, Value>, verdict: &HostVerdict) {
    if let Some(rule) = &verdict.rule {
        put(facts, detail::RULE, rule.to_string());
    }
}

/// The credential handoff: a credential-class target stopped `browser_fill_form`,
/// `browser_type_text` or `browser_upload` before any value was dispatched, and the user
/// must act. Status `attention_required`, effect `none`. The summary holds the whole
/// instruction, so there are no next steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialHandoff {
    tool: ToolName,
    class: CredentialClass,
    site: Option<Site>,
    target: Option<Handle>,
}

impl CredentialHandoff {
    /// A handoff for `tool`, whose `target` (when it has a handle) on `site` is of `class`.
    pub fn new(tool: ToolName, class: CredentialClass, site: Option<Site>, target: Option<Handle>) -> Self {
        CredentialHandoff { tool, class, site, target }
    }

    /// The tool.
    pub fn tool(&self) -> ToolName {
        self.tool
    }

    /// The credential class.
    pub fn class(&self) -> CredentialClass {
        self.class
    }

    /// The summary, e.g. `Stopped before entering anything: the password field on
    /// example.com is for the user. Ask them to fill it in the browser themselves, then
    /// continue.`
    pub fn summary(&self) -> String {
        let place = match &self.site {
            Some(site) => format!(" on {site}"),
            None => String::new(),
        };
        if self.tool == ToolName::Wait {
            return format!(
                "Stopped before comparing anything: the {}{place} is for the user, and Ghostlight never \
                 checks what it holds. Ask them whether it is filled as it should be, then continue.",
                self.class.noun()
            );
        }
        format!(
            "Stopped before entering anything: the {}{place} is for the user. Ask them to fill it in the \
             browser themselves, then continue.",
            self.class.noun()
        )
    }

    /// The facts: `reason: credential_handoff`, `tool`, `credential`, and `host` and `target`
    /// when known.
    pub fn facts(&self) -> Map<String, Value> {
        let mut facts = Map::new();
        put(&mut facts, common::REASON, "credential_handoff");
        put(&mut facts, detail::TOOL, self.tool.as_str());
        put(&mut facts, detail::CREDENTIAL, self.class.as_str());
        if let Some(site) = &self.site {
            put(&mut facts, common::HOST, site.to_string());
        }
        if let Some(target) = &self.target {
            put(&mut facts, detail::TARGET, target.as_str());
        }
        facts
    }
}

/// A refusal the authority layer defines: blocked by authority, or a credential handoff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Refused by authority.
    Blocked(Blocked),
    /// A person must take over a credential field.
    CredentialHandoff(CredentialHandoff),
}

impl Refusal {
    /// `blocked` or `attention_required`.
    pub fn status(&self) -> Status {
        match self {
            Refusal::Blocked(_) => Status::Blocked,
            Refusal::CredentialHandoff(_) => Status::AttentionRequired,
        }
    }

    /// Always `none`: nothing was dispatched.
    pub fn effect(&self) -> Effect {
        Effect::None
    }

    /// Always `false`: repeating the same call unchanged cannot succeed, so replay is not
    /// suggested (the same rule as decode errors).
    pub fn repeat_safe(&self) -> bool {
        false
    }

    /// The summary.
    pub fn summary(&self) -> String {
        match self {
            Refusal::Blocked(blocked) => blocked.summary(),
            Refusal::CredentialHandoff(handoff) => handoff.summary(),
        }
    }

    /// The facts.
    pub fn facts(&self) -> Map<String, Value> {
        match self {
            Refusal::Blocked(blocked) => blocked.facts(),
            Refusal::CredentialHandoff(handoff) => handoff.facts(),
        }
    }

    /// The next steps.
    pub fn next_steps(&self) -> Vec<String> {
        match self {
            Refusal::Blocked(blocked) => blocked.next_steps(),
            Refusal::CredentialHandoff(_) => Vec::new(),
        }
    }

    /// The envelope for invocation `invocation` (readiness `not_applicable`: nothing ran).
    pub fn to_envelope(&self, invocation: &Handle) -> Envelope {
        Envelope {
            invocation: invocation.as_str().to_owned(),
            status: self.status(),
            effect: self.effect(),
            readiness: Readiness::NotApplicable,
            repeat_safe: self.repeat_safe(),
            summary: self.summary(),
            facts: self.facts(),
            next_steps: self.next_steps(),
        }
    }
}

impl From<Blocked> for Refusal {
    fn from(blocked: Blocked) -> Self {
        Refusal::Blocked(blocked)
    }
}

impl From<CredentialHandoff> for Refusal {
    fn from(handoff: CredentialHandoff) -> Self {
        Refusal::CredentialHandoff(handoff)
    }
}

/// Authorize `requirement` under `snapshot`. `current` is the URL the tab the work would act
/// on currently shows (supplied by the executor; `None` when no page is known yet).
pub fn authorize(
    snapshot: &AuthoritySnapshot,
    requirement: &Requirement,
    current: Option<&Url>,
) -> Result<Admission, Blocked> {
    let tool = requirement.tool();
    let block = |reason| Blocked { tool, reason: Box::new(reason) };

    let missing = requirement.capabilities().difference(snapshot.capabilities());
    if let Some(capability) = missing.iter().next() {
        let (_, decided_by) = snapshot.capability(capability);
        return Err(block(BlockReason::Capability { capability, missing, decided_by }));
    }

    let tab_close = snapshot.authority().tab_close();
    if requirement.has(Constraint::TabClose) && tab_close.value == TabClosePolicy::Forbidden {
        return Err(block(BlockReason::TabClose { decided_by: tab_close.decided_by }));
    }

    let mut sites = Vec::new();
    match requirement.destination() {
        Some(Destination::Site(site)) => {
            let verdict = snapshot.host_verdict(site);
            if verdict.polarity == Polarity::Denied {
                return Err(block(BlockReason::Destination { site: site.clone(), verdict }));
            }
            sites.push(site.clone());
        }
        Some(Destination::NotWeb) => return Err(block(BlockReason::DestinationNotWeb)),
        None => {}
    }

    if let (true, Some(url)) = (requirement.is_tab_bound(), current) {
        match Site::from_url(url) {
            Some(site) => {
                let verdict = snapshot.host_verdict(&site);
                if verdict.polarity == Polarity::Denied {
                    let url = govern(snapshot, url);
                    return Err(block(BlockReason::TabOutside { site, verdict, url }));
                }
                if !sites.contains(&site) {
                    sites.push(site);
                }
            }
            None if url.as_str() == "about:blank" => {}
            None => return Err(block(BlockReason::TabNotWeb { url: govern(snapshot, url) })),
        }
    }

    Ok(Admission { credential_preflight: requirement.has(Constraint::CredentialPreflight), sites })
}

impl AuthoritySnapshot {
    /// [`authorize`] under this snapshot.
    pub fn authorize(&self, requirement: &Requirement, current: Option<&Url>) -> Result<Admission, Blocked> {
        authorize(self, requirement, current)
    }

    /// Authorize `tool`'s work reaching a document at `url` *inside* the tab's page (a frame),
    /// after the page itself was admitted. A web document needs its site inside authority; a
    /// `blob:` document is judged by the origin it names. A document without an origin of its
    /// own is governed as the document that created or navigated it: the adapter asks with
    /// that document's URL (an `about:` document's inherited origin), so a `data:` URL asked
    /// as itself is one whose creator is unknown, and is outside authority (unknown means
    /// denied); an `about:` URL asked as itself (an adapter that does not resolve it) passes
    /// as the embedding page's. Any other scheme (`file:`, a browser's own page) is outside
    /// authority.
    pub fn authorize_document(&self, tool: ToolName, url: &Url) -> Result<(), Blocked> {
        let block = |reason| Blocked { tool, reason: Box::new(reason) };
        match document_site(url) {
            DocumentSite::Web(site) => {
                let verdict = self.host_verdict(&site);
                if verdict.polarity == Polarity::Denied {
                    return Err(block(BlockReason::FrameOutside { site, verdict }));
                }
                Ok(())
            }
            DocumentSite::Embedded => Ok(()),
            DocumentSite::NotWeb => Err(block(BlockReason::FrameNotWeb { url: govern(self, url) })),
        }
    }

    /// Whether a document at `url` inside an admitted page is inside authority (the predicate
    /// of [`AuthoritySnapshot::authorize_document`]).
    pub fn admits_document(&self, url: &Url) -> bool {
        match document_site(url) {
            DocumentSite::Web(site) => self.allows_site(&site),
            DocumentSite::Embedded => true,
            DocumentSite::NotWeb => false,
        }
    }
}

/// Whose content a document at some URL is.
enum DocumentSite {
    /// A web site's.
    Web(Site),
    /// The embedding page's (`about:blank`, `about:srcdoc` asked as themselves).
    Embedded,
    /// Nobody authority can allow (`file:`, `chrome-error:`, …).
    NotWeb,
}

fn document_site(url: &Url) -> DocumentSite {
    if let Some(site) = Site::from_url(url) {
        return DocumentSite::Web(site);
    }
    match url.scheme() {
        "about" => DocumentSite::Embedded,
        // A data: document has an opaque origin: who made it cannot be named (unknown: denied).
        // `blob:https://host/uuid`: the origin that made it.
        "blob" => match Url::parse(url.path()).ok().and_then(|inner| Site::from_url(&inner)) {
            Some(site) => DocumentSite::Web(site),
            None => DocumentSite::NotWeb,
        },
        _ => DocumentSite::NotWeb,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::authority::Restrictions;
    use crate::authority::config::{OrganizationSettings, Settings};
    use crate::authority::layers::{AuthorityLayers, CompiledAuthority};
    use crate::tools::request::classify;
    use crate::{ToolName, decode_call};

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn requirement(tool: ToolName, capabilities: &[Capability], tab_bound: bool) -> Requirement {
        Requirement::from_parts(tool, CapabilitySet::of(capabilities), None, tab_bound, &[])
    }

    fn navigate(to: &str) -> Requirement {
        let call = decode_call(ToolName::Navigate, &json!({"url": to})).unwrap_or_else(|e| panic!("{e}"));
        classify(&call.request)
    }

    fn layered() -> CompiledAuthority {
        let user: Settings = serde_json::from_value(json!({
            "hosts": {"allow": ["example.com", "*.example.com", "localhost:3000"], "deny": ["ads.example.com"]},
            "tabs": {"close": "forbidden"},
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        let org: OrganizationSettings = serde_json::from_value(json!({
            "ceilings": {"capabilities": ["read", "action", "write"], "hosts": ["*.example.com", "example.com", "localhost"]},
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        AuthorityLayers { user: Some(user), organization: Some(org) }.compile()
    }

    fn blocked(result: Result<Admission, Blocked>) -> Blocked {
        match result {
            Ok(admission) => panic!("admitted: {admission:?}"),
            Err(blocked) => blocked,
        }
    }

    #[test]
    fn capability_refusals_name_the_capability_and_the_deciding_layer() {
        let snapshot = CompiledAuthority::default().snapshot(&Restrictions::default());
        let execute = blocked(authorize(
            &snapshot,
            &requirement(ToolName::Execute, &[Capability::Execute], true),
            None,
        ));
        assert_eq!(
            execute.summary(),
            "Blocked: browser_execute needs the execute capability, which the defaults layer denies."
        );
        assert_eq!(
            serde_json::Value::Object(execute.facts()),
            json!({"reason": "capability_denied", "tool": "browser_execute", "decided_by": "defaults",
                   "capability": "execute", "missing_capabilities": ["execute"]})
        );
        assert_eq!(execute.next_steps(), [EXPLAIN_NEXT_STEP]);

        let layered = layered().snapshot(&Restrictions::default());
        let ceiling =
            blocked(authorize(&layered, &requirement(ToolName::Execute, &[Capability::Execute], true), None));
        assert_eq!(
            ceiling.summary(),
            "Blocked: browser_execute needs the execute capability, which the organization ceiling does not permit."
        );

        let restricted = CompiledAuthority::default().snapshot(&Restrictions {
            hosts: None,
            capabilities: Some(CapabilitySet::of(&[Capability::Read])),
        });
        let fill =
            requirement(ToolName::FillForm, &[Capability::Read, Capability::Write, Capability::Action], true);
        let refusal = blocked(authorize(&restricted, &fill, None));
        assert_eq!(
            refusal.summary(),
            "Blocked: browser_fill_form needs the action capability, which this call's restrict_capabilities leaves out."
        );
        assert_eq!(refusal.facts()["missing_capabilities"], json!(["action", "write"]));
    }

    #[test]
    fn empty_requirements_pass_every_authority() {
        let nothing = CompiledAuthority::default()
            .snapshot(&Restrictions { hosts: Some(vec![]), capabilities: Some(CapabilitySet::EMPTY) });
        let explain = requirement(ToolName::PolicyExplain, &[], false);
        assert!(authorize(&nothing, &explain, Some(&url("https://evil.example/"))).is_ok());
        let focus = requirement(ToolName::Tabs, &[], false);
        assert!(authorize(&nothing, &focus, Some(&url("file:///etc/passwd"))).is_ok());
    }

    #[test]
    fn tab_close_policy() {
        let close = Requirement::from_parts(
            ToolName::Tabs,
            CapabilitySet::of(&[Capability::Action]),
            None,
            false,
            &[Constraint::TabClose],
        );
        let forbidden = layered().snapshot(&Restrictions::default());
        let refusal = blocked(authorize(&forbidden, &close, None));
        assert_eq!(
            refusal.summary(),
            "Blocked: browser_tabs close is forbidden by the user layer's tab-close policy."
        );
        assert_eq!(refusal.reason_code(), "tab_close_forbidden");
        let allowed = CompiledAuthority::default().snapshot(&Restrictions::default());
        assert!(authorize(&allowed, &close, Some(&url("https://evil.example/"))).is_ok());
    }

    #[test]
    fn destinations() {
        let snapshot = layered().snapshot(&Restrictions::default());
        let admitted = authorize(&snapshot, &navigate("https://www.example.com/a?b#c"), None);
        let admitted = admitted.unwrap_or_else(|b| panic!("{}", b.summary()));
        assert_eq!(admitted.sites().iter().map(ToString::to_string).collect::<Vec<_>>(), ["www.example.com"]);

        let userinfo =
            blocked(authorize(&snapshot, &navigate("https://www.example.com@evil.example/"), None));
        assert_eq!(
            userinfo.summary(),
            "Blocked: browser_navigate needs evil.example, which is outside the organization ceiling."
        );
        let denied = blocked(authorize(&snapshot, &navigate("https://ads.example.com/"), None));
        assert_eq!(
            denied.summary(),
            "Blocked: browser_navigate needs ads.example.com, which the user layer denies (rule ads.example.com)."
        );
        assert_eq!(denied.facts()["rule"], json!("ads.example.com"));
        // localhost is inside the ceiling, but the user allow list only has port 3000.
        let port = blocked(authorize(&snapshot, &navigate("http://localhost:8080/"), None));
        assert_eq!(
            port.summary(),
            "Blocked: browser_navigate needs localhost:8080, which the user layer's host allow list does not include."
        );
        assert_eq!(port.facts()["host"], json!("localhost:8080"));
        assert!(authorize(&snapshot, &navigate("http://localhost:3000/"), None).is_ok());

        let restricted = layered().snapshot(&Restrictions {
            hosts: Some(vec![crate::authority::HostPattern::ANY]),
            capabilities: None,
        });
        assert!(authorize(&restricted, &navigate("https://example.com/"), None).is_ok());
        let narrow = layered().snapshot(&Restrictions {
            hosts: Some(vec![
                crate::authority::HostPattern::parse("example.com")
                    .unwrap_or(crate::authority::HostPattern::ANY),
            ]),
            capabilities: None,
        });
        let refusal = blocked(authorize(&narrow, &navigate("https://www.example.com/"), None));
        assert_eq!(
            refusal.summary(),
            "Blocked: browser_navigate needs www.example.com, which this call's restrict_hosts leaves out."
        );
    }

    #[test]
    fn summaries_stay_bounded_with_the_longest_hosts() {
        let label = "a".repeat(63);
        let host = format!("{label}.{label}.{label}.{}", "b".repeat(61));
        let user: Settings =
            serde_json::from_value(json!({"hosts": {"deny": [format!("*.{host}"), host.clone()]}}))
                .unwrap_or_else(|e| panic!("{e}"));
        let snapshot = AuthorityLayers { user: Some(user), organization: None }
            .compile()
            .snapshot(&Restrictions::default());
        let read = requirement(ToolName::FillForm, &[Capability::Read], true);
        let refusal = blocked(authorize(&snapshot, &read, Some(&url(&format!("https://{host}:65535/")))));
        let summary = refusal.summary();
        assert!(summary.chars().count() <= SUMMARY_CHARS, "{} characters", summary.chars().count());
        assert!(summary.ends_with("which the user layer denies."), "{summary}");
        assert_eq!(refusal.facts()["rule"], json!(host));
    }

    #[test]
    fn tab_bound_work_is_governed_by_the_current_page() {
        let snapshot = layered().snapshot(&Restrictions::default());
        let read = requirement(ToolName::Read, &[Capability::Read], true);
        assert!(authorize(&snapshot, &read, Some(&url("https://example.com/private?q=1"))).is_ok());
        assert!(authorize(&snapshot, &read, Some(&url("about:blank"))).is_ok());
        assert!(authorize(&snapshot, &read, None).is_ok());

        let landed = blocked(authorize(
            &snapshot,
            &read,
            Some(&url("https://user:pw@evil.example:8443/secret?token=1")),
        ));
        assert_eq!(
            landed.summary(),
            "Blocked: browser_read works on the tab's page on evil.example:8443, which is outside the organization ceiling."
        );
        assert_eq!(landed.facts()["url"], json!("https://evil.example:8443"));
        assert_eq!(landed.reason_code(), "tab_outside_authority");
        assert_eq!(landed.next_steps(), [EXPLAIN_NEXT_STEP, NAVIGATE_BACK_NEXT_STEP]);

        let file = blocked(authorize(&snapshot, &read, Some(&url("file:///etc/passwd"))));
        assert_eq!(
            file.summary(),
            "Blocked: browser_read works on the tab's page, a file page outside authority."
        );
        assert_eq!(file.facts()["url"], json!("file:"));

        // Navigation is governed by its destination, never by where the tab is now.
        let back =
            authorize(&snapshot, &navigate("https://example.com/"), Some(&url("https://evil.example/")));
        assert!(back.is_ok());
        // Work that is not tab-bound ignores the tab's page.
        let resize = requirement(ToolName::Window, &[], false);
        assert!(authorize(&snapshot, &resize, Some(&url("https://evil.example/"))).is_ok());
    }

    #[test]
    fn credential_preflight_is_handed_to_the_executor() {
        let snapshot = CompiledAuthority::default().snapshot(&Restrictions::default());
        let fill = Requirement::from_parts(
            ToolName::FillForm,
            CapabilitySet::of(&[Capability::Read, Capability::Write]),
            None,
            true,
            &[Constraint::CredentialPreflight],
        );
        let admission = authorize(&snapshot, &fill, Some(&url("https://example.com/login")));
        assert!(admission.map(|a| a.credential_preflight()).unwrap_or(false));
    }

    #[test]
    fn refusal_envelopes() {
        let invocation = Handle::from_token(crate::HandleKind::Invocation, "7");
        let snapshot = CompiledAuthority::default().snapshot(&Restrictions::default());
        let refusal: Refusal = blocked(authorize(
            &snapshot,
            &requirement(ToolName::Execute, &[Capability::Execute], true),
            None,
        ))
        .into();
        let envelope = refusal.to_envelope(&invocation);
        assert_eq!(
            (envelope.status, envelope.effect, envelope.repeat_safe),
            (Status::Blocked, Effect::None, false)
        );
        assert_eq!(envelope.next_steps.len(), 1);

        let site = Site::from_url(&url("https://bank.example/login"));
        let handoff: Refusal = CredentialHandoff::new(
            ToolName::FillForm,
            CredentialClass::Password,
            site,
            Some(Handle::from_token(crate::HandleKind::Target, "4")),
        )
        .into();
        let envelope = handoff.to_envelope(&invocation);
        assert_eq!(envelope.status, Status::AttentionRequired);
        assert_eq!(envelope.effect, Effect::None);
        assert!(envelope.next_steps.is_empty());
        assert_eq!(
            envelope.summary,
            "Stopped before entering anything: the password field on bank.example is for the user. Ask them to \
             fill it in the browser themselves, then continue."
        );
        assert_eq!(
            serde_json::Value::Object(envelope.facts),
            json!({"reason": "credential_handoff", "tool": "browser_fill_form", "credential": "password",
                   "host": "bank.example", "target": "target_4"})
        );
    }
}
