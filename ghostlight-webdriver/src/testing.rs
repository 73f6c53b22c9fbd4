//! Test-only helpers (feature `testing`). Never enable this feature in a product build: it
//! exposes process details and an ungoverned click.

use std::path::PathBuf;

use fantoccini::Locator;
use ghostlight_core::port::{ElementRef, PortResult, TabRef};

use crate::errors::{self, Sent};
use crate::{SharedBrowser, WebDriverBrowser};

/// The local processes behind a launched browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessInfo {
    /// The process group id of the watchdog, driver and browser (the watchdog leads it; the
    /// driver is its child).
    pub group_pid: u32,
    /// The temporary browser profile directory (Chromium `--user-data-dir`, Firefox
    /// `-profile`): it appears on the browser's command line.
    pub profile_dir: PathBuf,
}

impl WebDriverBrowser {
    /// The driver process and profile of the live session, if the adapter launched one.
    /// (A session in a shared browser: that browser's.)
    pub async fn testing_process(&self) -> Option<ProcessInfo> {
        if let Some(shared) = &self.shared {
            return shared.testing_process().await;
        }
        let slot = self.slot.lock().await;
        let (group_pid, profile_dir) = slot.session.as_ref()?.process_info()?;
        Some(ProcessInfo { group_pid, profile_dir })
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

    /// Resize `tab`'s window the way the person or another program would (Set Window Rect
    /// sent straight to the driver): the session keeps no record of it.
    pub async fn testing_resize_window_behind(
        &self,
        tab: &TabRef,
        width: u32,
        height: u32,
    ) -> PortResult<()> {
        let mut slot = self.acquire().await?;
        let Some(s) = slot.session.as_mut() else { return Ok(()) };
        s.tab(tab).await?;
        s.client().set_window_size(width, height).await.map_err(|e| errors::cmd(&e, Sent::Act))
    }

    /// Open a tab showing `url` the way another program would (WebDriver BiDi
    /// `browsingContext.create` from outside any page, as DevTools or the person does): no
    /// page of the session opened it.
    pub async fn testing_open_foreign_tab(&self, url: &str) -> PortResult<()> {
        let mut slot = self.acquire().await?;
        let Some(s) = slot.session.as_mut() else { return Ok(()) };
        let unavailable = || {
            ghostlight_core::port::PortError::new(
                ghostlight_core::port::PortErrorKind::Unsupported,
                "the driver granted no WebDriver BiDi connection",
            )
        };
        let bidi = s.bidi().ok_or_else(unavailable)?;
        let created = bidi
            .command("browsingContext.create", serde_json::json!({"type": "tab", "background": true}))
            .await?;
        let context = created.get("context").cloned().unwrap_or_default();
        let navigate = serde_json::json!({"context": context, "url": url, "wait": "complete"});
        bidi.command("browsingContext.navigate", navigate).await.map(|_| ())
    }

    /// Remove the operations' library from the sandbox realm of `tab`'s document, as in a
    /// document that existed before the library's preload (`ops/sandbox.rs`): the next
    /// sandboxed call there must install it again.
    pub async fn testing_forget_sandbox_library(&self, tab: &TabRef) -> PortResult<()> {
        let mut slot = self.acquire().await?;
        let Some(s) = slot.session.as_mut() else { return Ok(()) };
        let handle = s.tab(tab).await?;
        let Some(bidi) = s.bidi() else { return Ok(()) };
        let forget = "() => { for (const key of Object.getOwnPropertySymbols(globalThis)) \
             { if ((Symbol.keyFor(key) || '').startsWith('gl.lib.')) delete globalThis[key]; } }";
        let params = crate::bidi::sandboxed_call(&handle, forget);
        bidi.command("script.callFunction", params).await.map(|_| ())
    }

    /// The [`ElementRef`] of the first element matching the CSS `selector` in `tab`, inside
    /// the iframes matched by `frames` (CSS selectors, from the top document down): a
    /// stand-in for perception in tests of element operations.
    pub async fn testing_element(
        &self,
        tab: &TabRef,
        frames: &[&str],
        selector: &str,
    ) -> PortResult<ElementRef> {
        let mut slot = self.acquire().await?;
        let Some(s) = slot.session.as_mut() else {
            return Err(ghostlight_core::port::PortError::new(
                ghostlight_core::port::PortErrorKind::NotConnected,
                "no browser session is open",
            ));
        };
        let handle = s.tab(tab).await?;
        let mut ids: Vec<String> = Vec::new();
        for frame in frames {
            s.enter_frames(tab, &ids).await?;
            let found =
                s.client().find(Locator::Css(frame)).await.map_err(|e| errors::cmd(&e, Sent::Read))?;
            ids.push(found.element_id().to_string());
        }
        s.enter_frames(tab, &ids).await?;
        let found = s.client().find(Locator::Css(selector)).await.map_err(|e| errors::cmd(&e, Sent::Read))?;
        Ok(s.element_ref(&handle, &ids, found.element_id().as_ref()))
    }
}

impl SharedBrowser {
    /// The driver process and profile of the shared browser, while it runs.
    pub async fn testing_process(&self) -> Option<ProcessInfo> {
        let (group_pid, profile_dir) = self.process_info().await?;
        Some(ProcessInfo { group_pid, profile_dir })
    }

    /// How many user contexts the shared browser holds besides its default one (the live
    /// sessions'), or `None` while it is not running.
    pub async fn testing_user_contexts(&self) -> Option<usize> {
        self.user_contexts().await
    }
}
