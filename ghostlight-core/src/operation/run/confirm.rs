//! Confirmation outside the page: the last step before dispatch of an action `[confirm]`
//! names.
//!
//! ```text
//! authorize ─▶ resolve ─▶ confirm ─▶ (yes, same digest, same document) ─▶ dispatch
//!                            │ no / dismissed ─▶ blocked, reason declined, effect none
//!                            │ no channel     ─▶ attention_required, reason confirmation_unavailable
//!                            │ answer for another call ─▶ attention_required, confirmation_unavailable
//!                            └ page changed after the yes ─▶ failed, reason page_changed (repeat asks again)
//! ```

use crate::authority::{
    ConfirmAction, Confirmation, ConfirmationAnswer, ConfirmationDigest, ConfirmationRequest,
};
use crate::envelope::Status;
use crate::facts::common;
use crate::facts::detail;
use crate::port::ElementRef;

use super::{Lease, Outcome, Run, Step};

/// The closed reason of a call the person declined (or dismissed).
pub(crate) const DECLINED: &str = "declined";
/// The closed reason of a call no channel could ask the person about.
pub(crate) const CONFIRMATION_UNAVAILABLE: &str = "confirmation_unavailable";
/// The closed reason of a call whose page changed between the person's yes and dispatch.
pub(crate) const PAGE_CHANGED: &str = "page_changed";

/// Where an action to confirm happens.
pub(crate) struct Asking<'l> {
    /// The host the person is told about.
    pub(crate) host: String,
    /// The leased tab and the document generation the person is asked about, when the action
    /// acts on a tab's page.
    pub(crate) tab: Option<(&'l Lease, u64)>,
    /// The control as Ghostlight names it.
    pub(crate) control: Option<String>,
    /// The element the action targets.
    pub(crate) element: Option<&'l ElementRef>,
}

impl Run<'_> {
    /// Whether authority asks the person before `action`.
    pub(crate) fn needs_confirmation(&self, action: ConfirmAction) -> bool {
        self.snapshot.authority().confirms(action)
    }

    /// Ask the person before dispatching `action`, when `[confirm]` names it; nothing is
    /// asked (and `Ok`) otherwise. The answer counts only when it carries the digest of this
    /// call as it is at dispatch: the same tool, arguments, invocation, tab, document
    /// generation and element.
    pub(crate) async fn confirm(&self, action: ConfirmAction, asking: Asking<'_>) -> Step<()> {
        if !self.needs_confirmation(action) {
            return Ok(());
        }
        let Asking { host, tab, control, element } = asking;
        let digest = self.confirmation_digest(&host, tab, element);
        let request =
            ConfirmationRequest { tool: self.tool.as_str(), action, host: host.clone(), control, digest };
        let answer = self.confirmer.confirm(&request).await;
        let kind = match answer {
            Confirmation::Accepted(answered) => {
                // Re-checked at dispatch: the document the tab shows now, and the digest of
                // this call over it.
                match tab {
                    Some((lease, generation)) => {
                        let page = self.observe(lease).await?;
                        if page.generation != generation {
                            ConfirmationAnswer::PageChanged
                        } else if answered
                            == self.confirmation_digest(&host, Some((lease, page.generation)), element)
                        {
                            ConfirmationAnswer::Accepted
                        } else {
                            ConfirmationAnswer::Mismatched
                        }
                    }
                    None if answered == self.confirmation_digest(&host, None, element) => {
                        ConfirmationAnswer::Accepted
                    }
                    None => ConfirmationAnswer::Mismatched,
                }
            }
            other => other.kind(),
        };
        self.note_confirmation(action, kind);
        let tool = self.tool.as_str();
        let what = action.phrase();
        let outcome = match kind {
            ConfirmationAnswer::Accepted => return Ok(()),
            ConfirmationAnswer::Declined | ConfirmationAnswer::Cancelled => Outcome::failed(
                DECLINED,
                format!("Did not let {tool} {what} on {host}: the person declined when asked."),
            )
            .with_status(Status::Blocked)
            .next("Ask the user how they want to continue before trying this again."),
            ConfirmationAnswer::Unavailable | ConfirmationAnswer::Mismatched => Outcome::failed(
                CONFIRMATION_UNAVAILABLE,
                format!(
                    "Did not let {tool} {what} on {host}: it needs the person's confirmation, and no channel \
                     outside the page could ask them."
                ),
            )
            .with_status(Status::AttentionRequired)
            .next(
                "Ask the user to confirm from a client that can ask them (MCP elicitation or a terminal), then \
                 repeat the call.",
            ),
            ConfirmationAnswer::PageChanged => Outcome::failed(
                PAGE_CHANGED,
                format!(
                    "Did not let {tool} {what} on {host}: the page changed after the person confirmed, so their \
                     answer does not cover it."
                ),
            )
            .next("Repeat the call; the person will be asked again about the page as it is now."),
        };
        let mut outcome = outcome.fact(detail::TOOL, tool).fact(common::HOST, host);
        if let Some((lease, _)) = tab {
            outcome = outcome.fact(detail::TAB, lease.handle().as_str());
        }
        Err(outcome)
    }

    /// The digest binding a confirmation to this call: tool, the arguments' one-way
    /// fingerprint, the invocation, the host, the tab and its document generation, the
    /// element.
    fn confirmation_digest(
        &self,
        host: &str,
        tab: Option<(&Lease, u64)>,
        element: Option<&ElementRef>,
    ) -> ConfirmationDigest {
        let (tab, generation) = match tab {
            Some((lease, generation)) => (lease.tab.as_str(), generation.to_be_bytes()),
            None => ("", [0xff; 8]),
        };
        ConfirmationDigest::of(&[
            self.tool.as_str().as_bytes(),
            &self.fingerprint.0,
            self.invocation.as_str().as_bytes(),
            host.as_bytes(),
            tab.as_bytes(),
            &generation,
            element.map(ElementRef::as_str).unwrap_or_default().as_bytes(),
        ])
    }
}
