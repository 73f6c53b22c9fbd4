//! Confirmation through MCP elicitation: the person answers in the client's own interface,
//! which neither the page nor the model can reach or answer for.
//!
//! The server asks only a client that declared the `elicitation` capability (form mode) at
//! `initialize`; for any other client every question is [`Confirmation::Unavailable`]. The
//! message names the tool, the action, the host and the control, never a value; the requested
//! schema is a single required boolean `confirm`.
//!
//! | Client answer                         | Confirmation |
//! | ------------------------------------- | ------------ |
//! | `accept` with `{"confirm": true}`     | `Accepted`   |
//! | `accept` with anything else           | `Declined`   |
//! | `decline`                             | `Declined`   |
//! | `cancel`, an error, no answer in time | `Cancelled`  |

use std::time::Duration;

use ghostlight_core::{Confirmation, ConfirmationRequest, Confirmer};
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};

/// How long the person has to answer one question.
pub const CONFIRMATION_TIMEOUT: Duration = Duration::from_secs(300);

/// The property of the requested schema the person sets.
const CONFIRM: &str = "confirm";

/// A [`Confirmer`] that asks the person through the client that sent the call.
#[derive(Clone)]
pub struct ElicitationConfirmer {
    peer: Peer<RoleServer>,
    timeout: Duration,
}

impl std::fmt::Debug for ElicitationConfirmer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ElicitationConfirmer").field("timeout", &self.timeout).finish_non_exhaustive()
    }
}

impl ElicitationConfirmer {
    /// Ask through `peer`, the client of the call.
    pub fn new(peer: Peer<RoleServer>) -> Self {
        ElicitationConfirmer { peer, timeout: CONFIRMATION_TIMEOUT }
    }

    /// Whether the client declared form elicitation at `initialize`.
    pub fn available(&self) -> bool {
        self.peer.supported_elicitation_modes().contains(&ElicitationMode::Form)
    }
}

/// The message the client shows the person.
pub fn message(request: &ConfirmationRequest) -> String {
    format!(
        "{} Ghostlight asks you, not the page or the AI model: answer only if you want this one call to go \
         ahead.",
        request.question()
    )
}

#[async_trait::async_trait]
impl Confirmer for ElicitationConfirmer {
    async fn confirm(&self, request: &ConfirmationRequest) -> Confirmation {
        if !self.available() {
            return Confirmation::Unavailable;
        }
        let Ok(schema) = ElicitationSchema::builder()
            .required_bool_with(CONFIRM, |b| b.title("Allow").description("Check to allow this one call."))
            .build()
        else {
            return Confirmation::Unavailable;
        };
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message(request),
            requested_schema: schema,
        };
        let answer = self.peer.create_elicitation_with_timeout(params, Some(self.timeout)).await;
        let answer = match answer {
            Ok(answer) => answer,
            Err(error) => {
                tracing::info!(%error, tool = request.tool, "confirmation not answered");
                return Confirmation::Cancelled;
            }
        };
        let confirmation = match answer.action {
            ElicitationAction::Accept => {
                let yes = answer
                    .content
                    .as_ref()
                    .and_then(|content| content.get(CONFIRM))
                    .and_then(|v| v.as_bool());
                if yes == Some(true) {
                    Confirmation::Accepted(request.digest)
                } else {
                    Confirmation::Declined
                }
            }
            ElicitationAction::Decline => Confirmation::Declined,
            _ => Confirmation::Cancelled,
        };
        tracing::info!(tool = request.tool, action = request.action.as_str(), answer = ?confirmation.kind(), "confirmation");
        confirmation
    }
}
