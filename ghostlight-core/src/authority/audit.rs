//! Payload-free audit records and the sink the host supplies.
//!
//! One [`AuditRecord`] is written per invocation and per child step of `browser_sequence` /
//! `browser_flow`. A record is payload-free by construction: every field has a typed,
//! value-free type (an invocation handle, a tool name, closed enums, a capability set, sites,
//! a step index, a duration), and the only way to fill it is from a [`Requirement`] and an
//! authorization result, which hold no request values either. Editable values, passwords,
//! script source and results, dialog text, file paths, names and bytes have no field to go in.

use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::classify::{Destination, Requirement};
use super::confirm::{ConfirmAction, ConfirmationAnswer};
use super::decision::{Admission, Blocked};
use super::host::Site;
use crate::capability::CapabilitySet;
use crate::envelope::{Effect, Status};
use crate::handles::Handle;
use crate::names::ToolName;

/// What authority decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditDecision {
    /// Admitted (the status says how the work then ended).
    Admitted,
    /// Blocked by authority.
    Blocked,
    /// Never classified: the arguments did not decode.
    Invalid,
}

/// The parent of a child step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditParent {
    /// The parent invocation.
    #[serde(serialize_with = "handle")]
    pub invocation: Handle,
    /// The step's zero-based index (its position in `steps`, as in `/steps/{index}`; flow
    /// step ids are model-authored text and are not recorded).
    pub step: usize,
}

/// A confirmation asked during the call: the action and the answer (never the question's
/// control name or the digest's pre-image).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AuditConfirmation {
    /// What needed the person's yes.
    pub action: ConfirmAction,
    /// How it ended.
    pub answer: ConfirmationAnswer,
}

/// One payload-free audit record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditRecord {
    /// When the record was finished (RFC 3339, UTC), once the executor stamped it.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "rfc3339")]
    time: Option<SystemTime>,
    /// The opaque id of the session (workspace) that made the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<String>,
    #[serde(serialize_with = "handle")]
    invocation: Handle,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<AuditParent>,
    #[serde(serialize_with = "tool")]
    tool: ToolName,
    decision: AuditDecision,
    #[serde(serialize_with = "capabilities")]
    capabilities: CapabilitySet,
    hosts: Vec<Site>,
    status: Status,
    effect: Effect,
    duration_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    confirmation: Option<AuditConfirmation>,
}

impl AuditRecord {
    /// The record of an authorization: the requirement's tool and capabilities, the decision,
    /// and the sites looked at. Status and effect start as the refusal's (`blocked`, `none`)
    /// or as `unknown` for admitted work until [`AuditRecord::finish`] records the outcome.
    pub fn authorized(
        invocation: Handle,
        requirement: &Requirement,
        decision: &Result<Admission, Blocked>,
    ) -> AuditRecord {
        let (decision, status, effect, hosts) = match decision {
            Ok(admission) => {
                (AuditDecision::Admitted, Status::Unknown, Effect::Unknown, admission.sites().to_vec())
            }
            Err(blocked) => {
                let hosts = match requirement.destination() {
                    Some(Destination::Site(site)) => vec![site.clone()],
                    _ => Vec::new(),
                };
                let mut hosts = hosts;
                if let super::decision::BlockReason::TabOutside { site, .. } = blocked.reason() {
                    hosts.push(site.clone());
                }
                (AuditDecision::Blocked, Status::Blocked, Effect::None, hosts)
            }
        };
        AuditRecord {
            time: None,
            session: None,
            invocation,
            parent: None,
            tool: requirement.tool(),
            decision,
            capabilities: requirement.capabilities(),
            hosts,
            status,
            effect,
            duration_ms: 0,
            confirmation: None,
        }
    }

    /// The record of a call whose arguments did not decode (status `failed`, effect `none`).
    pub fn invalid(invocation: Handle, tool: ToolName) -> AuditRecord {
        AuditRecord {
            time: None,
            session: None,
            invocation,
            parent: None,
            tool,
            decision: AuditDecision::Invalid,
            capabilities: CapabilitySet::EMPTY,
            hosts: Vec::new(),
            status: Status::Failed,
            effect: Effect::None,
            duration_ms: 0,
            confirmation: None,
        }
    }

    /// The same record stamped with `time` and the opaque id of the `session` (workspace)
    /// that made the call. Both are payload-free: a clock reading and a random token.
    pub fn stamped(mut self, time: SystemTime, session: &str) -> AuditRecord {
        self.time = Some(time);
        self.session = Some(session.to_owned());
        self
    }

    /// The same record with the confirmation asked during the call.
    pub fn confirmed(mut self, action: ConfirmAction, answer: ConfirmationAnswer) -> AuditRecord {
        self.confirmation = Some(AuditConfirmation { action, answer });
        self
    }

    /// The confirmation asked during the call, if one was.
    pub fn confirmation(&self) -> Option<AuditConfirmation> {
        self.confirmation
    }

    /// The same record as step `step` of `parent`.
    pub fn child_of(mut self, parent: Handle, step: usize) -> AuditRecord {
        self.parent = Some(AuditParent { invocation: parent, step });
        self
    }

    /// The same record with the outcome and the elapsed time (whole milliseconds, saturating).
    pub fn finish(mut self, status: Status, effect: Effect, elapsed: Duration) -> AuditRecord {
        self.status = status;
        self.effect = effect;
        self.duration_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        self
    }

    /// The same record after authority refused a frame inside the admitted page (input or a
    /// capture would have reached it): decision `blocked`, and the frame's site among the
    /// hosts.
    pub fn blocked_by(mut self, blocked: &Blocked) -> AuditRecord {
        self.decision = AuditDecision::Blocked;
        self.status = Status::Blocked;
        self.effect = Effect::None;
        if let super::decision::BlockReason::FrameOutside { site, .. } = blocked.reason()
            && !self.hosts.contains(site)
        {
            self.hosts.push(site.clone());
        }
        self
    }

    /// The same record with a committed landing's site added (a navigation that ended
    /// elsewhere than it started).
    pub fn with_landing(mut self, site: Site) -> AuditRecord {
        if !self.hosts.contains(&site) {
            self.hosts.push(site);
        }
        self
    }

    /// The invocation.
    pub fn invocation(&self) -> &Handle {
        &self.invocation
    }

    /// The parent invocation and step, for a child step.
    pub fn parent(&self) -> Option<&AuditParent> {
        self.parent.as_ref()
    }

    /// The tool.
    pub fn tool(&self) -> ToolName {
        self.tool
    }

    /// The decision.
    pub fn decision(&self) -> AuditDecision {
        self.decision
    }

    /// The capabilities the call required.
    pub fn capabilities(&self) -> CapabilitySet {
        self.capabilities
    }

    /// The sites the call touched.
    pub fn hosts(&self) -> &[Site] {
        &self.hosts
    }

    /// The status.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The effect.
    pub fn effect(&self) -> Effect {
        self.effect
    }

    /// The duration in milliseconds.
    pub fn duration_ms(&self) -> u64 {
        self.duration_ms
    }

    /// The record as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

fn rfc3339<S: Serializer>(time: &Option<SystemTime>, serializer: S) -> Result<S::Ok, S::Error> {
    let text = time
        .map(time::OffsetDateTime::from)
        .and_then(|t| t.format(&time::format_description::well_known::Rfc3339).ok());
    match text {
        Some(text) => serializer.serialize_str(&text),
        None => serializer.serialize_none(),
    }
}

fn handle<S: Serializer>(handle: &Handle, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(handle.as_str())
}

fn tool<S: Serializer>(tool: &ToolName, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(tool.as_str())
}

fn capabilities<S: Serializer>(set: &CapabilitySet, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(set.iter().map(|c| c.as_str()))
}

/// Where audit records go. The host supplies it (a log, a file, a SIEM forwarder); core only
/// calls it. It must not block for long: it is called on the invocation path.
pub trait AuditSink: Send + Sync {
    /// Record one invocation or child step.
    fn record(&self, record: &AuditRecord);
}

/// An [`AuditSink`] that keeps records in memory (for tests and embedding).
#[derive(Debug, Default)]
pub struct MemoryAuditSink {
    records: Mutex<Vec<AuditRecord>>,
}

impl MemoryAuditSink {
    /// An empty sink.
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of the records so far, in order.
    pub fn records(&self) -> Vec<AuditRecord> {
        self.records.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }
}

impl AuditSink for MemoryAuditSink {
    fn record(&self, record: &AuditRecord) {
        self.records.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(record.clone());
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;
    use url::Url;

    use super::*;
    use crate::authority::Restrictions;
    use crate::authority::decision::authorize;
    use crate::authority::layers::CompiledAuthority;
    use crate::handles::HandleKind;
    use crate::tools::catalog::decode_call;
    use crate::tools::request::classify;

    fn invocation(token: &str) -> Handle {
        Handle::from_token(HandleKind::Invocation, token)
    }

    #[test]
    fn sinks_are_object_safe_and_shareable() {
        let sink: Arc<dyn AuditSink> = Arc::new(MemoryAuditSink::new());
        let record = AuditRecord::invalid(invocation("1"), ToolName::Click);
        sink.record(&record);
        let memory = MemoryAuditSink::new();
        memory.record(&record);
        assert_eq!(memory.records(), [record]);
    }

    #[test]
    fn records_serialize_to_the_documented_shape() {
        let snapshot = CompiledAuthority::default().snapshot(&Restrictions::default());
        let call =
            decode_call(ToolName::Navigate, &json!({"url": "https://user:pw@example.com:8443/a?q=secret#f"}))
                .unwrap_or_else(|e| panic!("{e}"));
        let requirement = classify(&call.request);
        let decision = authorize(&snapshot, &requirement, None);
        let record = AuditRecord::authorized(invocation("2"), &requirement, &decision)
            .child_of(invocation("1"), 3)
            .finish(Status::Succeeded, Effect::Applied, Duration::from_micros(12_345_678));
        assert_eq!(
            record.to_json(),
            json!({
                "invocation": "inv_2",
                "parent": {"invocation": "inv_1", "step": 3},
                "tool": "browser_navigate",
                "decision": "admitted",
                "capabilities": ["read"],
                "hosts": ["example.com:8443"],
                "status": "succeeded",
                "effect": "applied",
                "duration_ms": 12_345,
            })
        );
        let text = record.to_json().to_string();
        for secret in ["user", "pw", "secret", "/a", "#f"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        // Stamped by the executor: a UTC time and the session's opaque id.
        let at = SystemTime::UNIX_EPOCH + Duration::from_millis(1_764_600_000_123);
        let stamped = record.stamped(at, "ses_abc123").to_json();
        assert_eq!(stamped["time"], "2025-12-01T14:40:00.123Z");
        assert_eq!(stamped["session"], "ses_abc123");
    }

    #[test]
    fn blocked_records_name_the_refused_hosts() {
        let snapshot =
            CompiledAuthority::default().snapshot(&Restrictions { hosts: Some(vec![]), capabilities: None });
        let call = decode_call(ToolName::Navigate, &json!({"url": "https://evil.example/"}))
            .unwrap_or_else(|e| panic!("{e}"));
        let requirement = classify(&call.request);
        let record =
            AuditRecord::authorized(invocation("3"), &requirement, &authorize(&snapshot, &requirement, None));
        assert_eq!(record.decision(), AuditDecision::Blocked);
        assert_eq!((record.status(), record.effect()), (Status::Blocked, Effect::None));
        assert_eq!(record.to_json()["hosts"], json!(["evil.example"]));
        let landing =
            Site::from_url(&Url::parse("https://landing.example/").unwrap_or_else(|e| panic!("{e}")));
        if let Some(site) = landing {
            assert_eq!(record.with_landing(site).hosts().len(), 2);
        }
    }

    /// A run of calls carrying a password-like fill value, a script and dialog text leaves
    /// none of them in the audit records (decoded by the real decoders, classified, authorized
    /// under an all-open and the default authority, recorded as children of one flow).
    #[test]
    fn secrecy_no_payload_reaches_the_audit_records() {
        const PASSWORD: &str = "hunter2-Correct-Horse-Battery-Staple!";
        const SCRIPT: &str = "localStorage.getItem('session-token-5f1d9a')";
        const DIALOG: &str = "my mother's maiden name is Lovelace";
        let calls = [
            (
                ToolName::FillForm,
                json!({"fields": [{"target": "target_1", "value": PASSWORD}], "submit_target": "target_2"}),
            ),
            (ToolName::FillForm, json!({"fields": [{"selector": {"name": "Password"}, "value": PASSWORD}]})),
            (ToolName::Execute, json!({"script": SCRIPT})),
            (ToolName::Dialog, json!({"action": "respond", "text": DIALOG})),
        ];

        let sink = MemoryAuditSink::new();
        let parent = invocation("flow1");
        for (index, (tool, arguments)) in calls.iter().enumerate() {
            let call = decode_call(*tool, arguments).unwrap_or_else(|e| panic!("{tool}: {e}"));
            let requirement = classify(&call.request);
            for authority in [CompiledAuthority::all_open(), CompiledAuthority::default()] {
                let snapshot = authority.snapshot(&call.restrictions);
                let current = Url::parse("https://bank.example/login").ok();
                let decision = authorize(&snapshot, &requirement, current.as_ref());
                let record =
                    AuditRecord::authorized(invocation(&format!("c{index}")), &requirement, &decision)
                        .child_of(parent.clone(), index)
                        .finish(Status::Succeeded, Effect::Applied, Duration::from_millis(5));
                sink.record(&record);
            }
        }
        let records = sink.records();
        assert_eq!(records.len(), calls.len() * 2);
        let serialized = serde_json::to_string(&records).unwrap_or_default();
        let debug = format!("{records:?}");
        for secret in [PASSWORD, SCRIPT, DIALOG, "hunter2", "session-token", "Lovelace", "Password"] {
            assert!(!serialized.contains(secret), "{secret:?} reached the audit records: {serialized}");
            assert!(!debug.contains(secret), "{secret:?} reached the audit records' Debug form");
        }
        assert!(serialized.contains("browser_execute") && serialized.contains("\"blocked\""), "{serialized}");
    }
}
