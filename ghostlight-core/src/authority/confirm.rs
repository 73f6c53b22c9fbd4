//! Confirmation outside the page: the `[confirm]` section names the actions that need the
//! person's yes, and a [`Confirmer`] the host supplies asks them through a channel the page
//! cannot reach (MCP elicitation, a terminal prompt, the extension's popup).
//!
//! ```toml
//! [confirm]
//! actions = ["submit", "upload", "download", "new_host", "execute"]
//! ```
//!
//! Layering: the actions accumulate from every layer (like host deny patterns), so a higher
//! layer can add confirmations but never remove one a lower layer asked for — and a user
//! document can never remove the organization's.
//!
//! The executor asks after authorization and handle resolution, right before dispatch, with a
//! payload-free [`ConfirmationRequest`]: the tool, the action, the host, the control as
//! Ghostlight's target phrase, and a [`ConfirmationDigest`] that binds the answer to that exact
//! call (SHA-256 over the tool, a one-way fingerprint of the decoded arguments, the invocation,
//! the tab, its document generation and the target element). An answer is honoured only when
//! it carries the digest of the call that dispatches; the pre-image is never kept or logged.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

/// An action the person may be asked to confirm before it is dispatched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmAction {
    /// A click on a button or a point, Enter pressed, or `browser_fill_form` with a submit
    /// control: what may submit a form.
    Submit,
    /// `browser_upload`, and `browser_record` save attaching the replay to a file input.
    Upload,
    /// `browser_record` save as a browser download.
    Download,
    /// The first `browser_navigate` of a session to a host.
    NewHost,
    /// `browser_execute`.
    Execute,
}

impl ConfirmAction {
    /// Every action, in canonical order.
    pub const ALL: [ConfirmAction; 5] = [
        ConfirmAction::Submit,
        ConfirmAction::Upload,
        ConfirmAction::Download,
        ConfirmAction::NewHost,
        ConfirmAction::Execute,
    ];

    /// The configuration value: `submit`, `upload`, `download`, `new_host`, `execute`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ConfirmAction::Submit => "submit",
            ConfirmAction::Upload => "upload",
            ConfirmAction::Download => "download",
            ConfirmAction::NewHost => "new_host",
            ConfirmAction::Execute => "execute",
        }
    }

    /// The action as a person reads it in a question (`submit a form`, `open a new host`).
    pub const fn phrase(self) -> &'static str {
        match self {
            ConfirmAction::Submit => "submit",
            ConfirmAction::Upload => "upload files",
            ConfirmAction::Download => "download a file",
            ConfirmAction::NewHost => "open a new host",
            ConfirmAction::Execute => "run a script",
        }
    }

    /// The action named by `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|action| action.as_str() == name)
    }
}

impl fmt::Display for ConfirmAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `[confirm]`: the actions this layer asks the person to confirm.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConfirmSettings {
    /// `actions`: closed names (`submit`, `upload`, `download`, `new_host`, `execute`).
    /// They accumulate from every layer.
    pub actions: Vec<ConfirmAction>,
}

/// A one-way digest that binds a confirmation to one call.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConfirmationDigest([u8; 32]);

impl ConfirmationDigest {
    /// A digest from its 32 bytes (for a [`Confirmer`]'s own tests: the executor computes the
    /// digests it asks about).
    pub const fn from_bytes(bytes: [u8; 32]) -> Self {
        ConfirmationDigest(bytes)
    }

    /// The digest as 64 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }

    /// The digest of `parts`, each length-prefixed so no two different part lists render
    /// the same pre-image.
    pub(crate) fn of(parts: &[&[u8]]) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(b"ghostlight-confirm-v1");
        for part in parts {
            hasher.update((part.len() as u64).to_be_bytes());
            hasher.update(part);
        }
        ConfirmationDigest(hasher.finalize().into())
    }
}

impl fmt::Debug for ConfirmationDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ConfirmationDigest({})", self.to_hex())
    }
}

impl fmt::Display for ConfirmationDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// A one-way fingerprint of a call's decoded arguments (SHA-256 over their canonical JSON:
/// keys sorted, no whitespace). Values may be secrets: only the fingerprint is kept.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ArgumentsFingerprint(pub(crate) [u8; 32]);

impl ArgumentsFingerprint {
    /// The fingerprint of `arguments` (serde_json's map keeps keys sorted, so the rendering
    /// is canonical).
    pub(crate) fn of(arguments: &serde_json::Value) -> Self {
        let rendered = serde_json::to_vec(arguments).unwrap_or_default();
        ArgumentsFingerprint(Sha256::digest(&rendered).into())
    }

    /// The fingerprint of step `index` of the composite whose arguments are `self`.
    pub(crate) fn child(&self, index: usize) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(b"ghostlight-step");
        hasher.update(self.0);
        hasher.update((index as u64).to_be_bytes());
        ArgumentsFingerprint(hasher.finalize().into())
    }
}

impl fmt::Debug for ArgumentsFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ArgumentsFingerprint(..)")
    }
}

/// What the person is asked: payload-free by construction (no field can hold a typed value,
/// a script, a path or a URL beyond its host).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfirmationRequest {
    /// The tool (`browser_click`, …).
    pub tool: &'static str,
    /// What needs the yes.
    pub action: ConfirmAction,
    /// The host the action happens on (or, for `new_host`, is going to), `example.com` or
    /// `localhost:8080`.
    pub host: String,
    /// The control as Ghostlight names it (`the "Pay" button`, `a button` when target names
    /// are withheld by privacy, `the point` for a point click), when there is one.
    pub control: Option<String>,
    /// Binds the answer to this call.
    pub digest: ConfirmationDigest,
}

impl ConfirmationRequest {
    /// The question as one sentence for a person:
    /// `Allow browser_click to submit with the "Pay" button on shop.example?`
    pub fn question(&self) -> String {
        let control = match &self.control {
            Some(control) => format!(" with {control}"),
            None => String::new(),
        };
        let place = match self.action {
            ConfirmAction::NewHost => format!(": {}", self.host),
            _ => format!(" on {}", self.host),
        };
        format!("Allow {} to {}{control}{place}?", self.tool, self.action.phrase())
    }
}

/// The person's answer, as a [`Confirmer`] reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmation {
    /// Yes, for the call with this digest (the confirmer echoes the digest it was asked
    /// about; the executor dispatches only when it is the digest of the call at hand).
    Accepted(ConfirmationDigest),
    /// No.
    Declined,
    /// The question was dismissed, or the channel failed or timed out after asking.
    Cancelled,
    /// No channel can reach the person (nothing was asked).
    Unavailable,
}

impl Confirmation {
    /// The answer's kind as audit records name it.
    pub fn kind(&self) -> ConfirmationAnswer {
        match self {
            Confirmation::Accepted(_) => ConfirmationAnswer::Accepted,
            Confirmation::Declined => ConfirmationAnswer::Declined,
            Confirmation::Cancelled => ConfirmationAnswer::Cancelled,
            Confirmation::Unavailable => ConfirmationAnswer::Unavailable,
        }
    }
}

/// The kind of a confirmation answer (payload-free, for audit records).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmationAnswer {
    /// The person said yes (and the call was dispatched unless the page changed).
    Accepted,
    /// The person said no.
    Declined,
    /// The question was dismissed or the channel failed.
    Cancelled,
    /// No channel could ask.
    Unavailable,
    /// A yes arrived for another call (its digest did not match).
    Mismatched,
    /// A yes arrived but the tab's document changed before dispatch.
    PageChanged,
}

/// The channel that asks the person. It must be one the page cannot reach, and the model
/// cannot answer: no tool argument confirms anything.
#[async_trait::async_trait]
pub trait Confirmer: Send + Sync {
    /// Ask the person `request`; answer [`Confirmation::Accepted`] with `request.digest`
    /// only on an explicit yes.
    async fn confirm(&self, request: &ConfirmationRequest) -> Confirmation;
}

/// The confirmer with no channel: every question is [`Confirmation::Unavailable`].
#[derive(Debug, Default, Clone, Copy)]
pub struct NoConfirmer;

#[async_trait::async_trait]
impl Confirmer for NoConfirmer {
    async fn confirm(&self, _request: &ConfirmationRequest) -> Confirmation {
        Confirmation::Unavailable
    }
}

#[async_trait::async_trait]
impl<T: Confirmer + ?Sized> Confirmer for Arc<T> {
    async fn confirm(&self, request: &ConfirmationRequest) -> Confirmation {
        (**self).confirm(request).await
    }
}

/// Ask `first`; when it has no channel ([`Confirmation::Unavailable`]), ask `then`. An
/// edge's own channel first (the MCP client's elicitation, the terminal), then the browser's
/// (the extension's popup).
#[derive(Debug, Clone)]
pub struct Fallback<A, B>(pub A, pub B);

#[async_trait::async_trait]
impl<A: Confirmer, B: Confirmer> Confirmer for Fallback<A, B> {
    async fn confirm(&self, request: &ConfirmationRequest) -> Confirmation {
        match self.0.confirm(request).await {
            Confirmation::Unavailable => self.1.confirm(request).await,
            answer => answer,
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn actions_are_a_closed_vocabulary() {
        let settings: ConfirmSettings =
            serde_json::from_value(json!({"actions": ["submit", "new_host"]})).unwrap_or_default();
        assert_eq!(settings.actions, [ConfirmAction::Submit, ConfirmAction::NewHost]);
        let error = serde_json::from_value::<ConfirmSettings>(json!({"actions": ["pay"]}))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.contains("unknown variant"), "{error}");
        assert!(serde_json::from_value::<ConfirmSettings>(json!({"ask": []})).is_err());
        for action in ConfirmAction::ALL {
            assert_eq!(ConfirmAction::parse(action.as_str()), Some(action));
        }
    }

    #[test]
    fn digests_separate_their_parts() {
        let a = ConfirmationDigest::of(&[b"ab", b"c"]);
        let b = ConfirmationDigest::of(&[b"a", b"bc"]);
        assert_ne!(a, b);
        assert_eq!(a.to_hex().len(), 64);
        let arguments = ArgumentsFingerprint::of(&json!({"b": 1, "a": "secret"}));
        assert_eq!(arguments, ArgumentsFingerprint::of(&json!({"a": "secret", "b": 1})));
        assert_ne!(arguments.child(0), arguments.child(1));
        assert!(!format!("{arguments:?}").contains("secret"));
    }

    #[test]
    fn the_question_names_tool_action_host_and_control() {
        let request = ConfirmationRequest {
            tool: "browser_click",
            action: ConfirmAction::Submit,
            host: "shop.example".into(),
            control: Some("the \"Pay\" button".into()),
            digest: ConfirmationDigest::of(&[]),
        };
        assert_eq!(
            request.question(),
            "Allow browser_click to submit with the \"Pay\" button on shop.example?"
        );
        let request = ConfirmationRequest { action: ConfirmAction::NewHost, control: None, ..request };
        assert_eq!(request.question(), "Allow browser_click to open a new host: shop.example?");
    }
}
