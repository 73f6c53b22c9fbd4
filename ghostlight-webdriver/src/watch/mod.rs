//! What a session watches over WebDriver BiDi, as state the session holds: dialog
//! announcements and console/network evidence. Nothing here drives the session (the ops that
//! do live in `ops/`), so the session can hold these without an import cycle.

pub(crate) mod evidence;
pub(crate) mod prompts;
