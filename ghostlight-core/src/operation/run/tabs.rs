//! Choosing and locking the tab a call acts on, observing its page and entering it
//! (authorizing that page).

use std::sync::Arc;

use crate::facts::detail;
use crate::handles::Handle;
use crate::operation::outcome::{LIST_TABS, Outcome};
use crate::operation::workspace::TabSlot;

use super::resolve::unknown_handle;
use super::{Lease, Page, Run, Step};

impl Run<'_> {
    /// The slot's tab is gone: unbind it and release the claim.
    pub(crate) fn forget_tab(&self, slot: &TabSlot) {
        if let Some(tab) = slot.unbind() {
            self.shared.claims.release(&tab);
        }
    }

    // ----- tabs -------------------------------------------------------------------------

    /// Choose the tab (`explicit`, or the default) and lock it for this invocation.
    pub(crate) async fn lease(&self, explicit: Option<&Handle>) -> Step<Lease> {
        if let Some(pinned) = &self.pinned {
            if let Some(handle) = explicit
                && handle != &pinned.handle
            {
                return Err(Outcome::failed(
                    "different_tab",
                    format!(
                        "This step names {handle}, but its {} runs on {}; steps cannot change tabs.",
                        self.composite_noun(),
                        pinned.handle
                    ),
                ));
            }
            let tab = pinned.tab().ok_or_else(|| self.closed(&pinned.handle))?;
            return Ok(Lease { slot: pinned.clone(), tab, _guard: None });
        }
        let slot = match explicit {
            Some(handle) => self.workspace.slot(handle).ok_or_else(|| unknown_handle(handle))?,
            None => self.default_slot().await?,
        };
        let guard = slot.work.clone().lock_owned().await;
        let tab = slot.tab().ok_or_else(|| self.closed(&slot.handle))?;
        Ok(Lease { slot, tab, _guard: Some(guard) })
    }

    /// Refuse to add a tab when the workspace already holds its limit of live tabs.
    pub(crate) fn within_tab_limit(&self) -> Step<()> {
        let limit = self.shared.limits.tabs;
        let live = self.workspace.slots().iter().filter(|slot| slot.tab().is_some()).count();
        if live < limit {
            return Ok(());
        }
        Err(Outcome::failed(
            "tab_limit",
            format!("This session already holds {live} tabs, its limit, so no tab was opened."),
        )
        .fact(detail::TAB_COUNT, live)
        .fact(detail::LIMIT, limit)
        .next("Close a tab you no longer need with browser_tabs action \"close\", then repeat the call."))
    }

    fn composite_noun(&self) -> &'static str {
        "sequence or flow"
    }

    fn closed(&self, handle: &Handle) -> Outcome {
        Outcome::failed(
            "tab_closed",
            format!("The tab {handle} has closed. Navigate by its handle to reopen it, or pick another tab."),
        )
        .fact(detail::TAB, handle.as_str())
        .next(LIST_TABS)
    }

    /// The default tab: the workspace's only live tab, or the one of its tabs selected in its
    /// window when exactly one is.
    pub(crate) async fn default_slot(&self) -> Step<Arc<TabSlot>> {
        let live: Vec<Arc<TabSlot>> =
            self.workspace.slots().into_iter().filter(|slot| slot.tab().is_some()).collect();
        match live.as_slice() {
            [] => Err(Outcome::failed("no_tab", "No controlled tab is open yet.")
                .next(LIST_TABS)
                .next("Call browser_navigate with a url to open one.")),
            [one] => Ok(one.clone()),
            _ => {
                let tabs = self.port().tabs().await.map_err(|e| self.fail(&e, "choose a tab", None))?;
                // A tab that closed meanwhile (its page closed it) no longer counts.
                let live: Vec<Arc<TabSlot>> = live
                    .into_iter()
                    .filter(|slot| {
                        let open = slot.tab().is_some_and(|tab| tabs.iter().any(|info| info.tab == tab));
                        if !open {
                            self.forget_tab(slot);
                        }
                        open
                    })
                    .collect();
                match live.as_slice() {
                    [] => {
                        return Err(Outcome::failed("no_tab", "No controlled tab is open any more.")
                            .next(LIST_TABS)
                            .next("Call browser_navigate with a url to open one."));
                    }
                    [one] => return Ok(one.clone()),
                    _ => {}
                }
                let active: Vec<&Arc<TabSlot>> = live
                    .iter()
                    .filter(|slot| tabs.iter().any(|t| t.active && Some(&t.tab) == slot.tab().as_ref()))
                    .collect();
                match active.as_slice() {
                    [one] => Ok((*one).clone()),
                    _ => {
                        let why = match active.len() {
                            0 => "none of them is selected in its window".to_owned(),
                            n => format!("{n} of them are selected in their windows"),
                        };
                        Err(Outcome::failed(
                            "ambiguous_tab",
                            format!(
                                "{} controlled tabs are open and {why}, so name one with tab.",
                                live.len()
                            ),
                        )
                        .fact(detail::TAB_COUNT, live.len())
                        .fact(detail::SELECTED_COUNT, active.len())
                        .next(LIST_TABS))
                    }
                }
            }
        }
    }

    /// What the leased tab shows now; a new document starts a new generation.
    pub(crate) async fn observe(&self, lease: &Lease) -> Step<Page> {
        self.look(lease, false).await
    }

    /// [`Run::observe`], looking also for a gate the loaded page presents
    /// ([`PageState::gate`](crate::port::PageState::gate)) in the same read.
    pub(crate) async fn observe_gated(&self, lease: &Lease) -> Step<Page> {
        self.look(lease, true).await
    }

    pub(super) async fn look(&self, lease: &Lease, gate: bool) -> Step<Page> {
        let read = if gate {
            self.port().page_and_gate(&lease.tab).await
        } else {
            self.port().page(&lease.tab).await
        };
        match read {
            Ok(state) => {
                let (generation, _) = lease.slot.observe(&state.document, &state.url);
                Ok(Page { state, generation })
            }
            Err(error) => Err(self.fail_on(lease, &error, "read the tab's page", None)),
        }
    }

    /// Lease, observe and authorize the page: the opening of every tab-bound tool.
    pub(crate) async fn enter(&self, explicit: Option<&Handle>) -> Step<(Lease, Page)> {
        self.enter_looking(explicit, false).await
    }

    /// [`Run::enter`], looking also for a gate the loaded page presents in the same read.
    pub(crate) async fn enter_gated(&self, explicit: Option<&Handle>) -> Step<(Lease, Page)> {
        self.enter_looking(explicit, true).await
    }

    async fn enter_looking(&self, explicit: Option<&Handle>, gate: bool) -> Step<(Lease, Page)> {
        let lease = self.lease(explicit).await?;
        let page = self.look(&lease, gate).await?;
        self.authorize(Some(&page.state.url)).map_err(|o| o.fact(detail::TAB, lease.handle().as_str()))?;
        Ok((lease, page))
    }
}
