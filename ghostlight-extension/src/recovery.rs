//! What a call answers when no extension is connected and a person must open the browser: the
//! spec's startup refusals, after silently repairing this installation's stale registrations.
//!
//! - Browsers whose registration is this installation's (after repair) are the eligible ones:
//!   [`StartupRefusal::Manual`] names them (the extension connector never chooses a browser for
//!   the person, whatever the startup posture).
//! - None eligible, and one is registered by another installation whose host exists:
//!   [`StartupRefusal::OwnedElsewhere`]; nothing is changed.
//! - Otherwise [`StartupRefusal::NoRegistration`] with the browsers found.
//!
//! Silent repair rewrites only manifests that name a host in this installation's own directory
//! ([`RegistrationState::Stale`]), and only when that host exists.

use ghostlight_core::port::StartupRefusal;

use crate::registration::{BrowserKind, Installation, Places, RegistrationState};

/// The refusal of the moment, and the registrations repaired on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovery {
    /// What the call answers.
    pub refusal: StartupRefusal,
    /// The browsers whose stale registration was rewritten.
    pub repaired: Vec<BrowserKind>,
}

/// Inspect the installed browsers' registrations for `installation`, repair the stale ones,
/// and say which refusal applies.
pub fn recover(installation: &Installation, places: &Places) -> Recovery {
    let installed = places.installed();
    let has_host = installation.has_host();
    let mut eligible = Vec::new();
    let mut repaired = Vec::new();
    let mut elsewhere = false;
    for browser in &installed {
        match installation.inspect(*browser, places).state {
            RegistrationState::Ours if has_host => eligible.push(*browser),
            RegistrationState::Stale if has_host && installation.register(*browser, places).is_ok() => {
                repaired.push(*browser);
                eligible.push(*browser);
            }
            RegistrationState::Elsewhere { .. } => elsewhere = true,
            _ => {}
        }
    }
    let names = |browsers: &[BrowserKind]| browsers.iter().map(|b| b.name().to_owned()).collect();
    let refusal = if !eligible.is_empty() {
        StartupRefusal::Manual { browsers: names(&eligible) }
    } else if elsewhere {
        StartupRefusal::OwnedElsewhere
    } else {
        StartupRefusal::NoRegistration { browsers: names(&installed) }
    };
    Recovery { refusal, repaired }
}
