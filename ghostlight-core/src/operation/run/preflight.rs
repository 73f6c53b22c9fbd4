//! The credential preflight of the input tools.

use crate::authority::Site;
use crate::facts::detail;
use crate::handles::Handle;
use crate::operation::outcome::Outcome;
use crate::vocab::CredentialClass;

use super::{Lease, Page, Run, Step};

impl Run<'_> {
    /// The credential preflight: a credential-class control stops the call before any value
    /// is sent to it, asking for a visible user handoff (`attention_required`, effect none).
    /// `credential` is the control's class as resolved (or as the browser reports the focused
    /// control); `handle` its target handle when the call used one.
    pub(crate) fn preflight(
        &self,
        lease: &Lease,
        page: &Page,
        credential: Option<CredentialClass>,
        handle: Option<&Handle>,
    ) -> Step<()> {
        match credential {
            None => Ok(()),
            Some(class) => {
                Err(Outcome::handoff(self.tool, class, Site::from_url(&page.state.url), handle.cloned())
                    .fact(detail::TAB, lease.handle().as_str()))
            }
        }
    }
}
