//! Test-only helpers (feature `testing`). Never enable this feature in a product build: it
//! exposes process details and an ungoverned click.

use std::path::PathBuf;

use fantoccini::Locator;
use ghostlight_core::port::{PortResult, TabRef};

use crate::WebDriverBrowser;
use crate::errors::{self, Sent};

/// The local processes behind a launched browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessInfo {
    /// The driver's process id, which is also the process group id of driver and browser.
    pub driver_pid: u32,
    /// The temporary browser profile directory (Chromium `--user-data-dir`, Firefox
    /// `-profile`): it appears on the browser's command line.
    pub profile_dir: PathBuf,
}

impl WebDriverBrowser {
    /// The driver process and profile of the live session, if the adapter launched one.
    pub async fn testing_process(&self) -> Option<ProcessInfo> {
        let slot = self.slot.lock().await;
        let (driver_pid, profile_dir) = slot.session.as_ref()?.process_info()?;
        Some(ProcessInfo { driver_pid, profile_dir })
    }

    /// Click the first element matching the CSS `selector` in `tab` with a real WebDriver
    /// click, which gives the page user activation (needed to arm `beforeunload`).
    pub async fn testing_click(&self, tab: &TabRef, selector: &str) -> PortResult<()> {
        let mut slot = self.acquire().await?;
        let Some(s) = slot.session.as_mut() else { return Ok(()) };
        s.tab(tab).await?;
        let element =
            s.client().find(Locator::Css(selector)).await.map_err(|e| errors::cmd(&e, Sent::Read))?;
        element.click().await.map_err(|e| errors::cmd(&e, Sent::Act))
    }
}
