//! Work in the page the executor last saw: one round trip where two were.
//!
//! Every tab-bound tool opens by reading the tab's page state and authorizing that page
//! ([`Run::enter`]). A read of the whole page (text, perception, a text wait's first slice) or
//! a step scroll does not need the state before it runs, only the certainty that it runs in a
//! document the executor authorized: [`Run::enter_with`] authorizes the page the tab showed
//! last (its URL, under this call's authority), and asks the port to read the page state and,
//! only while the tab still shows that document, do the work, in one go
//! ([`BrowserPort::read_text_in`], [`BrowserPort::perceive_in`],
//! [`BrowserPort::wait_text_in`], [`BrowserPort::scroll_in`]; a selector scan is a
//! perception, [`Run::enter_selecting`]). A document keeps its origin for its whole life (a
//! same-document URL change cannot leave it), so work that finds the expected document runs
//! under the same decision the page would get now; the answer's page is authorized again all
//! the same, and an answer from a page authority refuses is dropped unread.
//!
//! When the tab shows another document (a navigation since the last call), the port does
//! nothing there: the new page is observed and authorized from the state it answered, then
//! worked on, as [`Run::enter`] would. A tab the executor has not seen yet, a last page this
//! call's authority refuses, or a port failure that left nothing done (other than a timeout)
//! takes the ordinary way from the start, so every refusal and failure reads as it always did.

use std::time::Duration;

use async_trait::async_trait;

use crate::facts::detail;
use crate::handles::Handle;
use crate::limits::READ_CALL_MS;
use crate::operation::outcome::Outcome;
use crate::port::{
    BrowserPort, ExpectedDocument, InDocument, PageState, PerceiveInput, PerceiveScope, Perception,
    PortEffect, PortErrorKind, PortResult, ReadInput, TabCall, TextOutcome,
};

use super::{Lease, Page, Run, SELECTOR_SCAN_ITEMS, Step, host_of};

/// A read of the whole page, or input that needs no target (a step scroll), that can run in the
/// document the executor expects.
#[async_trait]
pub(crate) trait PageWork: Sync {
    /// What the work answers.
    type Answer: Send;

    /// Whether the work acts on the page (input), rather than reading it: the call counts as
    /// dispatched once it is sent, and a failure that may have had an effect is reported, never
    /// tried again the ordinary way.
    fn acts(&self) -> bool {
        false
    }

    /// The work in `expected`, with the page state read with it.
    async fn in_document(
        &self,
        port: &dyn BrowserPort,
        call: &TabCall<'_>,
        expected: &ExpectedDocument,
    ) -> PortResult<InDocument<Self::Answer>>;

    /// How long the port may take (the call's [`TabCall::timeout`]); a read's bound unless the
    /// read says otherwise.
    fn timeout(&self) -> Duration {
        Duration::from_millis(READ_CALL_MS)
    }

    /// The bound a failure's sentence names ("timed out after … ms"): none for a read.
    fn bound_ms(&self) -> Option<u64> {
        None
    }

    /// The outcome of a read that ended badly once it was sent, as the tool reports it: a
    /// port failure, or the refusal of the page the read answered (a wait whose page left
    /// authority). Unchanged unless the tool adds facts of its own.
    fn failed(&self, failure: Outcome) -> Outcome {
        failure
    }

    /// The work, in `page`, just observed and authorized.
    async fn plainly(
        &self,
        port: &dyn BrowserPort,
        call: &TabCall<'_>,
        page: &PageState,
    ) -> PortResult<Self::Answer>;
}

#[async_trait]
impl PageWork for ReadInput {
    type Answer = TextOutcome;

    async fn in_document(
        &self,
        port: &dyn BrowserPort,
        call: &TabCall<'_>,
        expected: &ExpectedDocument,
    ) -> PortResult<InDocument<TextOutcome>> {
        port.read_text_in(call, expected, self).await
    }

    async fn plainly(
        &self,
        port: &dyn BrowserPort,
        call: &TabCall<'_>,
        _: &PageState,
    ) -> PortResult<TextOutcome> {
        port.read_text(call, self).await
    }
}

#[async_trait]
impl PageWork for PerceiveInput {
    type Answer = Perception;

    async fn in_document(
        &self,
        port: &dyn BrowserPort,
        call: &TabCall<'_>,
        expected: &ExpectedDocument,
    ) -> PortResult<InDocument<Perception>> {
        port.perceive_in(call, expected, self).await
    }

    async fn plainly(
        &self,
        port: &dyn BrowserPort,
        call: &TabCall<'_>,
        _: &PageState,
    ) -> PortResult<Perception> {
        port.perceive(call, self).await
    }
}

impl Run<'_> {
    /// Lease the tab, enter its page and do `work` there, in one round trip when the tab still
    /// shows the page the executor saw last (see the module). `doing` names the work for a
    /// failure's sentence ("read", "inspect", "scroll down on"), followed by the page's host;
    /// `gate` looks for a gate the page presents, as [`Run::enter_gated`] does.
    pub(crate) async fn enter_with<W: PageWork>(
        &self,
        explicit: Option<&Handle>,
        gate: bool,
        work: &W,
        doing: &str,
    ) -> Step<(Lease, Page, W::Answer)> {
        let lease = self.lease(explicit).await?;
        if let Some((expected, last)) = self.expected(&lease, gate) {
            let call = self.on(&lease.tab, work.timeout());
            if work.acts() {
                self.dispatching();
            }
            match work.in_document(self.port(), &call, &expected).await {
                Ok(InDocument { page: state, answer }) => {
                    let (generation, _) = lease.slot.observe(&state.document, &state.url);
                    let page = Page { state, generation };
                    // The work was sent: a refusal of the page it answered ends it as the tool
                    // ends work that failed (a wait whose page left authority, say: a port
                    // cannot always tell whether that happened before or while it watched).
                    self.authorize(Some(&page.state.url))
                        .map_err(|refusal| work.failed(refusal.fact(detail::TAB, lease.handle().as_str())))?;
                    let answer = match answer {
                        Some(answer) => answer,
                        // Another document, observed and authorized just now: work there.
                        None => self.plainly(&lease, &page, work, doing).await?,
                    };
                    return Ok((lease, page, answer));
                }
                // Work that ran out of time would run out again the ordinary way, and input
                // that may have landed must not land twice.
                Err(error)
                    if error.kind() == PortErrorKind::Timeout
                        || (work.acts() && error.effect() == PortEffect::Unknown) =>
                {
                    let doing = format!("{doing} {}", host_of(&last));
                    return Err(work.failed(self.fail_on(&lease, &error, &doing, work.bound_ms())));
                }
                // The ordinary way reads (and names) whatever went wrong as it always did.
                Err(_) => {}
            }
        }
        let page = self.look(&lease, gate).await?;
        self.authorize(Some(&page.state.url)).map_err(|o| o.fact(detail::TAB, lease.handle().as_str()))?;
        let answer = self.plainly(&lease, &page, work, doing).await?;
        Ok((lease, page, answer))
    }

    /// [`Run::enter`] for a call that resolves semantic selectors (`selecting`): the page is
    /// perceived in place as the selectors' scan ([`Run::target`] then resolves them against
    /// it without another perception), so entering and scanning take one round trip where
    /// they took two. Without selectors, [`Run::enter`].
    pub(crate) async fn enter_selecting(
        &self,
        explicit: Option<&Handle>,
        selecting: bool,
    ) -> Step<(Lease, Page)> {
        if !selecting {
            return self.enter(explicit).await;
        }
        let input = PerceiveInput { scope: PerceiveScope::All, max_items: SELECTOR_SCAN_ITEMS };
        let (lease, page, perception) =
            self.enter_with(explicit, false, &input, "look for the named control on").await?;
        self.keep_scan(&lease, &page, perception.elements.into());
        Ok((lease, page))
    }

    /// The document the tab showed when the executor last saw it, when this call's authority
    /// admits its page (with that page's URL), so a read may run in it unobserved.
    fn expected(&self, lease: &Lease, gate: bool) -> Option<(ExpectedDocument, url::Url)> {
        let seen = lease.slot.state();
        let (document, url) = (seen.document?, seen.url?);
        // Authorized again below from the page the read answers; a refusal here only means
        // the ordinary way (the tab may have left that page since).
        self.snapshot.authorize(&self.requirement, Some(&url)).ok()?;
        Some((ExpectedDocument { document, url: url.clone(), look_for_gate: gate }, url))
    }

    /// `work` in `page`, already observed and authorized.
    async fn plainly<W: PageWork>(
        &self,
        lease: &Lease,
        page: &Page,
        work: &W,
        doing: &str,
    ) -> Step<W::Answer> {
        if work.acts() {
            self.dispatching();
        }
        work.plainly(self.port(), &self.on(&lease.tab, work.timeout()), &page.state).await.map_err(|e| {
            let doing = format!("{doing} {}", host_of(&page.state.url));
            work.failed(self.fail_on(lease, &e, &doing, work.bound_ms()))
        })
    }
}
