//! Tabs a page opens by itself (`window.open`, a link with `target="_blank"`) while a call acts
//! on it join the calling workspace under fresh tab handles, and the call says so: the summary
//! gains a clause and the facts an `opened_tabs` list (handle, governed URL, title).
//!
//! The executor asks the port after every call that acted on a page (`Tool::MAY_OPEN_TABS`); a
//! tab another workspace already claimed is left alone. A page that opens a tab later, on a
//! timer, is seen after the next such call. The port answers only tabs a page opened (a tab
//! the person or another program opened is never adopted).
//!
//! A tab that would take the workspace past its tab limit ([`WorkspaceLimits::tabs`]) is
//! closed at once instead of adopted, and the call says how many (`closed_tabs`): a page
//! cannot flood a session with tabs.
//!
//! [`WorkspaceLimits::tabs`]: crate::WorkspaceLimits

use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::envelope::Effect;
use crate::port::{PageState, PortResult, Readiness, TabRef};

use super::outcome::Outcome;
use super::run::{Run, host_of};

/// How long a new tab still showing `about:blank` is given to commit the page it was opened
/// for (a `target=_blank` link's tab starts blank), and its title to be parsed, and how often
/// it is looked at meanwhile.
const FIRST_PAGE_WAIT: Duration = Duration::from_millis(1_000);
const FIRST_PAGE_STEP: Duration = Duration::from_millis(100);

/// The page of a tab the page just opened: once it shows more than `about:blank` and either
/// has a title or is past loading (a document just committed has not parsed its `<title>`
/// yet), or as it is after [`FIRST_PAGE_WAIT`] (a tab opened blank on purpose stays blank).
async fn first_page(run: &Run<'_>, tab: &TabRef) -> PortResult<PageState> {
    let mut waited = Duration::ZERO;
    loop {
        let page = run.port().page(tab).await?;
        let named = !page.title.is_empty() || page.readiness != Readiness::Loading;
        if (page.url.as_str() != "about:blank" && named) || waited >= FIRST_PAGE_WAIT {
            return Ok(page);
        }
        run.port().sleep(FIRST_PAGE_STEP).await;
        waited += FIRST_PAGE_STEP;
    }
}

/// Bind the tabs the page opened while a call ran and say so in `outcome`; only a call that
/// `may_open_tabs` (its tool's `Tool::MAY_OPEN_TABS`) and had an effect is looked after.
pub(crate) async fn adopt_opened(run: &Run<'_>, may_open_tabs: bool, mut outcome: Outcome) -> Outcome {
    if !may_open_tabs || outcome.effect == Effect::None {
        return outcome;
    }
    let Ok(opened) = run.port().opened_tabs().await else { return outcome };
    let mut rows = Vec::new();
    let mut phrases = Vec::new();
    let mut closed = 0_usize;
    for tab in opened {
        if !run.shared.claims.claim(&tab) {
            continue;
        }
        if run.within_tab_limit().is_err() {
            // Closed, never adopted: a failure leaves a tab nobody drives, which the next
            // list does not show either.
            let _ = run.port().close_tab(&tab).await;
            run.shared.claims.release(&tab);
            closed += 1;
            continue;
        }
        let slot = run.workspace.add_slot(tab.clone());
        let mut row = Map::new();
        row.insert("tab".into(), json!(slot.handle.as_str()));
        match first_page(run, &tab).await {
            Ok(page) => {
                slot.observe(&page.document, &page.url);
                row.insert("url".into(), json!(run.url(&page)));
                if let Some(title) = run.title(&page) {
                    row.insert("title".into(), json!(title));
                }
                phrases.push(format!("{} on {}", slot.handle.as_str(), host_of(&page.url)));
            }
            Err(_) => phrases.push(slot.handle.as_str().to_owned()),
        }
        rows.push(Value::Object(row));
    }
    if rows.is_empty() && closed == 0 {
        return outcome;
    }
    let end = outcome.summary.trim_end_matches('.').to_owned();
    let opened = match phrases.as_slice() {
        [] => String::new(),
        [one] => format!("; the page opened a new tab, {one}"),
        many => format!("; the page opened {} new tabs: {}", many.len(), many.join(", ")),
    };
    let limit = run.shared.limits.tabs;
    let shut = match (closed, phrases.is_empty()) {
        (0, _) => String::new(),
        (1, true) => {
            format!("; the page opened a tab past this session's limit of {limit}, and Ghostlight closed it")
        }
        (n, true) => format!(
            "; the page opened {n} tabs past this session's limit of {limit}, and Ghostlight closed them"
        ),
        (n, false) => format!(" and {n} more past this session's limit of {limit}, which Ghostlight closed"),
    };
    outcome.summary = format!("{end}{opened}{shut}.");
    if !rows.is_empty() {
        outcome.facts.insert("opened_tabs".into(), Value::Array(rows));
    }
    if closed > 0 {
        outcome.facts.insert("closed_tabs".into(), json!(closed));
    }
    outcome
}
