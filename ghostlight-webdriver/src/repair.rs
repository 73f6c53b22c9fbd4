//! Page repairs that must happen even when the operation that needed them was dropped.
//!
//! Some operations change a tab for a moment and must put it back (a Chromium full-page
//! capture emulates the viewport at the page's full size). Their guard holds a [`Repair`]
//! until the operation has put the tab back itself. When the operation's future is dropped
//! first (its timeout fired, or the call was cancelled), the guard pushes the repair onto the
//! session's [`RepairQueue`], and the session runs the queue before it serves anything else:
//! at the end of the timed-out operation, at the start of the next call, or from a task that
//! waits for the session when the whole call was dropped. So no path leaves a page changed.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use ghostlight_core::port::PortResult;
use serde_json::json;

use crate::commands::SessionCommand;
use crate::errors::Sent;
use crate::session::Session;

/// How long running one queued repair may take (it waits behind whatever command the dropped
/// operation left in flight on the driver).
pub(crate) const REPAIR_TIMEOUT: Duration = Duration::from_secs(10);

/// Scroll back instantly to `(arguments[0], arguments[1])`, retrying every 16 ms for up to
/// a second until the page is there: the renderer applies restored device metrics after the
/// DevTools command answers, and a scroll made while the viewport still has the emulated
/// full-page height is clamped to the top (seen under load).
const SCROLL_BACK: &str = "const [x, y] = arguments;
return new Promise((resolve) => {
  let tries = 0;
  const step = () => {
    window.scrollTo({left: x, top: y, behavior: 'instant'});
    const there = Math.abs(window.scrollX - x) < 1 && Math.abs(window.scrollY - y) < 1;
    if (there || ++tries >= 60) { resolve(there); return; }
    setTimeout(step, 16);
  };
  step();
});";

/// Putting one tab back as it was: a DevTools command that restores its device metrics, then
/// its scroll offsets.
#[derive(Debug, Clone)]
pub(crate) struct Repair {
    /// The window handle of the tab.
    pub(crate) handle: String,
    /// The command that puts the device metrics back.
    pub(crate) metrics: SessionCommand,
    /// The scroll offsets to go back to (CSS px).
    pub(crate) scroll: (f64, f64),
}

impl Repair {
    /// Apply the repair (switching to its tab).
    pub(crate) async fn apply(&self, s: &mut Session) -> PortResult<()> {
        s.switch_to(&self.handle).await?;
        s.command(self.metrics.clone(), Sent::Act).await?;
        let (x, y) = self.scroll;
        if x != 0.0 || y != 0.0 {
            s.execute(SCROLL_BACK, vec![json!(x), json!(y)], Sent::Act).await?;
        }
        Ok(())
    }
}

/// The repairs dropped operations left to do, shared by a session and the guards of its
/// operations (a guard cannot borrow the session it was created from).
#[derive(Debug, Clone, Default)]
pub(crate) struct RepairQueue(Arc<Mutex<Vec<Repair>>>);

impl RepairQueue {
    /// Queue `repair`.
    pub(crate) fn push(&self, repair: Repair) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).push(repair);
    }

    /// Take every queued repair, oldest first.
    pub(crate) fn take(&self) -> Vec<Repair> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Whether nothing is queued.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).is_empty()
    }
}
