//! The extension connector's wiring (cargo feature `extension`): listen on the private socket
//! for the person's browser, repair this installation's stale browser registrations at once,
//! and answer calls made while no browser is connected with the spec's startup refusal of the
//! moment ([`ghostlight_extension::recovery`]).

use std::sync::Arc;
use std::time::Duration;

use ghostlight_core::port::StartupRefusal;
use ghostlight_extension::recovery::recover;
use ghostlight_extension::registration::{Installation, Places};
use ghostlight_extension::{ExtensionBrowser, ExtensionConfig, ListenError};

use crate::error::ConfigError;

/// Listen for the extension at the locations the environment names (see
/// `ghostlight_extension::endpoint`). Must run inside a Tokio runtime.
pub fn listen() -> Result<ExtensionBrowser, ConfigError> {
    let config = ExtensionConfig::from_env().map_err(|error| ConfigError::Extension(error.to_string()))?;
    let browser = ExtensionBrowser::listen(&config).map_err(|error| match error {
        ListenError::InUse(path) => ConfigError::Extension(format!(
            "another Ghostlight server already listens for the extension on {}",
            path.display()
        )),
        other => ConfigError::Extension(other.to_string()),
    })?;
    let (installation, places) =
        Installation::current_with_places().map_err(|error| ConfigError::Extension(error.to_string()))?;
    // Repair now, so the person's browser can connect before the first call.
    log_repairs(&installation, &places);
    tracing::info!(socket = %browser.socket_path().display(), "listening for the Ghostlight extension");
    Ok(browser.when_absent(Arc::new(move || log_repairs(&installation, &places))))
}

/// Recover (repairing stale registrations silently for the model; the operator's log says
/// which) and return the refusal of the moment.
fn log_repairs(installation: &Installation, places: &Places) -> StartupRefusal {
    let recovery = recover(installation, places);
    for browser in &recovery.repaired {
        tracing::info!(browser = browser.name(), "repaired this installation's stale browser registration");
    }
    recovery.refusal
}

/// How long a one-off command waits for the person's browser: the extension's longest
/// reconnection backoff (10 s) and a margin.
pub const CONNECT_WAIT: Duration = Duration::from_secs(12);

/// Wait up to [`CONNECT_WAIT`] for the extension to connect, when some installed browser is
/// registered by this installation (otherwise none could, and the call's refusal says why at
/// once).
pub async fn settle(browser: &ExtensionBrowser) {
    if browser.connected().is_some() {
        return;
    }
    let could_connect = Installation::current_with_places().is_ok_and(|(installation, places)| {
        matches!(recover(&installation, &places).refusal, StartupRefusal::Manual { .. })
    });
    if could_connect {
        browser.wait_connected(CONNECT_WAIT).await;
    }
}
