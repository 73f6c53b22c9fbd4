//! Keyboard delivery shared by `browser_type_text` and `browser_press_key`: keys land only
//! where the executor checked.
//!
//! The rule: a key press is delivered only into an element the executor has authorized
//! (its frames inside authority, and, when the keys type text, not credential-class). Three
//! mechanisms hold it together:
//!
//! * **Legs.** The keys are sent in legs that end after each `Tab` (the key that moves focus
//!   by default). Before every leg after the first, the focused element is read again and
//!   checked like the first ([`check_focus`]); the next leg is pinned to it.
//! * **Pinning.** The port delivers a leg only into the element it is for
//!   ([`TypeInput::into`](crate::port::TypeInput), [`KeyInput::into`](crate::port::KeyInput)):
//!   when focus leaves it some other way (an arrow in a radio group, a page script moving
//!   focus on input), that key and every later one are withheld and the receipt counts them.
//!   The call then stops with what was delivered ([`focus_moved`]).
//! * **Stops midway.** When a later leg's check refuses (a password field, a frame outside
//!   authority), what earlier legs delivered stays and is reported: the refusal's status with
//!   effect `partial` ([`stopped_midway`]).

use crate::envelope::Effect;
use crate::facts::detail;
use crate::port::{ElementRef, FocusedElement};
use crate::selector::Role;

use super::outcome::Outcome;
use super::run::{Lease, Page, Run, Step};

/// How a credential handoff's summary starts (dropped when keys stop midway).
const HANDOFF_LEAD: &str = "Stopped before entering anything: ";

/// The element a leg of keys is for, after its checks.
pub(crate) struct Checked {
    /// The element (`None`: no element has focus; keys go to the page itself).
    pub(crate) element: Option<ElementRef>,
    /// Its role and name, for sentences.
    pub(crate) role: Role,
    /// Its normalized name.
    pub(crate) name: Option<String>,
}

/// Read the focused element and check it for keys: its frames must be inside authority and,
/// when the keys type text (`types_text`), it must not be credential-class. `None` focused:
/// the page itself (passes; nothing can receive text).
pub(crate) async fn check_focus(
    run: &Run<'_>,
    lease: &Lease,
    page: &Page,
    types_text: bool,
) -> Step<Checked> {
    let focused = run
        .port()
        .focused_element(&lease.tab)
        .await
        .map_err(|e| run.fail_on(lease, &e, "find the focused control", None))?;
    check_focused(run, lease, page, focused, types_text)
}

/// [`check_focus`] on an element the port already reported.
fn check_focused(
    run: &Run<'_>,
    lease: &Lease,
    page: &Page,
    focused: Option<FocusedElement>,
    types_text: bool,
) -> Step<Checked> {
    let Some(FocusedElement { element, frames }) = focused else {
        return Ok(Checked { element: None, role: Role::Control, name: None });
    };
    run.authorize_frames(lease, &frames)?;
    if types_text {
        run.preflight(lease, page, element.credential, None)?;
    }
    let name = element.name.as_deref().and_then(crate::language::normalize_name);
    Ok(Checked { element: Some(element.element), role: Role::narrow(&element.role), name })
}

/// The outcome of keys stopped before a later leg: `done` describes what earlier legs
/// delivered (a sentence), `refusal` why the next leg was not sent. The refusal's status
/// stays (`blocked`, `attention_required`), with effect `partial`.
pub(crate) fn stopped_midway(done: &str, refusal: Outcome) -> Outcome {
    // The handoff's own lead ("Stopped before entering anything: …") would contradict `done`.
    let reason = refusal.summary.strip_prefix(HANDOFF_LEAD).unwrap_or(&refusal.summary);
    let mut chars = reason.chars();
    let reason: String = chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default();
    let done = done.trim_end_matches('.');
    let summary =
        format!("{done}, then focus moved on and Ghostlight stopped before entering anything more. {reason}");
    let mut outcome = refusal.with_effect(Effect::Partial);
    outcome.summary = summary;
    outcome
}

/// The outcome of keys withheld because focus left the element they were for: `done`
/// describes what was delivered, `withheld` how many key presses were not.
pub(crate) fn focus_moved(done: &str, withheld: usize, host: &str) -> Outcome {
    let keys = crate::language::count(withheld, "key press", "key presses");
    let effect = if done.is_empty() { Effect::None } else { Effect::Partial };
    let lead = if done.is_empty() { String::new() } else { format!("{done} ") };
    Outcome::failed(
        "focus_moved",
        format!(
            "{lead}Focus left the control on {host} while keys were sent, so Ghostlight withheld the other {keys}."
        ),
    )
    .with_effect(effect)
    .fact(detail::WITHHELD_KEYS, withheld)
    .next("Call browser_inspect to see which control has focus now, then name the one to use.")
}
