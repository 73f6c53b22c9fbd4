//! Where an action left the tab: a committed landing, governed like any page, and the
//! title and URL facts of a page.

use serde_json::{Map, Value, json};

use crate::authority::Site;
use crate::language::bound_visible;
use crate::limits::TITLE_CHARS;
use crate::operation::outcome::Outcome;
use crate::port::PageState;

use super::{Landing, Lease, Run, host_of};

impl Run<'_> {
    /// Record a page state an operation returned; answers the landing when it committed a
    /// new document.
    pub(crate) fn land(&self, lease: &Lease, state: &PageState) -> Option<Landing> {
        let (generation, changed) = lease.slot.observe(&state.document, &state.url);
        if !changed {
            return None;
        }
        let governed = self.snapshot.govern(&state.url);
        let mut fact = Map::new();
        fact.insert("url".into(), json!(governed.as_str()));
        if let Some(title) = self.title(state) {
            fact.insert("title".into(), json!(title));
        }
        fact.insert("document_generation".into(), json!(generation));
        if !governed.is_inside() {
            fact.insert("outside_authority".into(), json!(true));
        }
        Some(Landing { fact: Value::Object(fact), host: host_of(&state.url), inside: governed.is_inside() })
    }

    /// Add a landing to an action's outcome: the fact, a clause in the summary, the audit
    /// site, and a way back when it left authority.
    pub(crate) fn with_landing(
        &self,
        mut outcome: Outcome,
        landing: Option<Landing>,
        state: &PageState,
    ) -> Outcome {
        let Some(landing) = landing else { return outcome };
        outcome.facts.insert("landing".into(), landing.fact);
        outcome.landing = Site::from_url(&state.url);
        let end = outcome.summary.trim_end_matches('.').to_owned();
        if landing.inside {
            outcome.summary = format!("{end}; the page moved to {}.", landing.host);
        } else {
            outcome.summary =
                format!("{end}; the page moved to {}, which is outside authority.", landing.host);
            outcome
                .next_steps
                .insert(0, "Use browser_navigate to take the tab back to an allowed host.".into());
        }
        outcome.readiness = state.readiness;
        outcome
    }

    /// The page title, normalized and bounded; none for a page outside authority, which is
    /// described only by its governed URL (`scheme://host[:port]`).
    pub(crate) fn title(&self, state: &PageState) -> Option<String> {
        if !self.snapshot.govern(&state.url).is_inside() {
            return None;
        }
        bound_visible(&state.title, TITLE_CHARS)
    }

    /// The governed URL text of a page.
    pub(crate) fn url(&self, state: &PageState) -> String {
        self.snapshot.govern(&state.url).as_str().to_owned()
    }
}
