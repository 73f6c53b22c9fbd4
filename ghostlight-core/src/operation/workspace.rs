//! A workspace: the tabs one client controls, and the handles it has been given.
//!
//! * Tab slots are durable: a `tab_…` handle keeps naming its slot after the tab closes, so
//!   navigating by it can reopen the tab under the same handle.
//! * Each slot has an async lock: calls on one tab are serialized, calls on different tabs
//!   run concurrently. Workspace bookkeeping sits behind a plain mutex that is never held
//!   across an await.
//! * Each slot counts document generations from the port's document identities; target and
//!   view handles record the generation they were made in and are stale once it moves on.
//! * Registries are bounded: the oldest targets and views are forgotten first (a forgotten
//!   handle is answered like an unknown one).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use futures::lock::Mutex as AsyncMutex;
use url::Url;

use crate::handles::{Handle, HandleKind};
use crate::port::{DocumentId, ElementRef, Geometry, RecordingRef, TabRef};
use crate::selector::Role;
use crate::vocab::CredentialClass;

use super::mint::Minter;

/// How many target handles a workspace remembers.
pub(crate) const TARGET_REGISTRY_CAP: usize = 5_000;
/// How many view handles a workspace remembers.
pub(crate) const VIEW_REGISTRY_CAP: usize = 64;
/// How many recent views keep their image bytes (for `source_image` uploads).
pub(crate) const VIEW_IMAGES_KEPT: usize = 8;

/// Tabs claimed by any workspace over one browser: a tab bound to one workspace is never
/// adopted by another.
#[derive(Debug, Default)]
pub(crate) struct Claims {
    tabs: Mutex<HashSet<TabRef>>,
}

impl Claims {
    pub(crate) fn claim(&self, tab: &TabRef) -> bool {
        lock(&self.tabs).insert(tab.clone())
    }

    pub(crate) fn release(&self, tab: &TabRef) {
        lock(&self.tabs).remove(tab);
    }

    pub(crate) fn is_claimed(&self, tab: &TabRef) -> bool {
        lock(&self.tabs).contains(tab)
    }
}

/// What a slot knows about its tab.
#[derive(Debug, Clone, Default)]
pub(crate) struct SlotState {
    /// The live tab, or `None` once it closed.
    pub(crate) tab: Option<TabRef>,
    /// The last document identity seen.
    pub(crate) document: Option<DocumentId>,
    /// Generations seen so far (1 for the first document).
    pub(crate) generation: u64,
    /// The last URL seen.
    pub(crate) url: Option<Url>,
}

/// One durable tab slot.
#[derive(Debug)]
pub(crate) struct TabSlot {
    pub(crate) handle: Handle,
    state: Mutex<SlotState>,
    /// Serializes calls on this tab.
    pub(crate) work: Arc<AsyncMutex<()>>,
}

impl TabSlot {
    pub(crate) fn state(&self) -> SlotState {
        lock(&self.state).clone()
    }

    pub(crate) fn tab(&self) -> Option<TabRef> {
        lock(&self.state).tab.clone()
    }

    /// Record what the tab shows; a new document identity starts a new generation. Answers
    /// the generation and whether it changed.
    pub(crate) fn observe(&self, document: &DocumentId, url: &Url) -> (u64, bool) {
        let mut state = lock(&self.state);
        let changed = state.document.as_ref() != Some(document);
        if changed {
            state.generation += 1;
            state.document = Some(document.clone());
        }
        state.url = Some(url.clone());
        (state.generation, changed)
    }

    /// Bind the slot to a (new) live tab.
    pub(crate) fn bind(&self, tab: TabRef) {
        lock(&self.state).tab = Some(tab);
    }

    /// Forget the live tab (it closed); the handle stays valid.
    pub(crate) fn unbind(&self) -> Option<TabRef> {
        lock(&self.state).tab.take()
    }
}

/// A perceived target.
#[derive(Debug, Clone)]
pub(crate) struct TargetEntry {
    pub(crate) slot: Handle,
    pub(crate) generation: u64,
    pub(crate) element: ElementRef,
    pub(crate) role: Role,
    pub(crate) name: Option<String>,
    pub(crate) credential: Option<CredentialClass>,
}

/// A captured view: how image pixels map to the document, and what it is bound to.
#[derive(Debug, Clone)]
pub(crate) struct ViewEntry {
    pub(crate) slot: Handle,
    pub(crate) generation: u64,
    /// Geometry at capture (viewport size, device scale, zoom, scroll origin).
    pub(crate) geometry: Geometry,
    /// Whether the view covers the whole page (then the scroll origin is not bound).
    pub(crate) full_page: bool,
    /// Document CSS coordinates of pixel (0, 0).
    pub(crate) origin: (f64, f64),
    /// CSS pixels per image pixel.
    pub(crate) css_per_pixel: f64,
    pub(crate) width: u32,
    pub(crate) height: u32,
    /// The PNG, kept for the most recent views only, and only up to the capture-reuse
    /// ceiling.
    pub(crate) png: Option<Arc<Vec<u8>>>,
    /// The PNG's size in bytes (kept or not).
    pub(crate) png_bytes: u64,
}

/// A `browser_inspect` document snapshot, kept per tab for the structural diff.
#[derive(Debug, Clone)]
pub(crate) struct SnapshotEntry {
    pub(crate) handle: Handle,
    /// (depth, role, normalized name) in document order.
    pub(crate) nodes: Vec<(u32, Role, Option<String>)>,
}

#[derive(Debug, Default)]
struct Registries {
    slots: Vec<Arc<TabSlot>>,
    targets: HashMap<Handle, TargetEntry>,
    target_order: VecDeque<Handle>,
    views: HashMap<Handle, ViewEntry>,
    view_order: VecDeque<Handle>,
    snapshots: HashMap<Handle, SnapshotEntry>,
    recordings: HashMap<Handle, RecordingRef>,
    /// The tab slot each recording records.
    recording_tabs: HashMap<Handle, Handle>,
    /// Recordings that ended and how, newest last (at most [`MAX_ENDED_RECORDINGS`]), so a
    /// later call on one says what happened to it.
    ended_recordings: VecDeque<(Handle, RecordingEnd)>,
    /// Hosts the person confirmed navigating to (`[confirm] new_host`).
    confirmed_hosts: HashSet<String>,
}

/// How many ended recordings a workspace remembers.
const MAX_ENDED_RECORDINGS: usize = 64;

/// How a recording's frames came to be gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RecordingEnd {
    /// Erased by `discard`.
    Discarded,
    /// Erased by the browser when retention ran out.
    Expired,
}

/// One client's workspace.
#[derive(Debug)]
pub(crate) struct Workspace {
    minter: Minter,
    /// The opaque id audit records name this workspace (session) by.
    session: String,
    registries: Mutex<Registries>,
}

impl Workspace {
    /// A workspace; `deterministic` is `Some(seed)` for reproducible handles in tests.
    pub(crate) fn new(deterministic: Option<u64>) -> Self {
        let minter = match deterministic {
            Some(seed) => Minter::deterministic(seed),
            None => Minter::new(),
        };
        let session = format!("ses_{}", minter.identity(10));
        Workspace { minter, session, registries: Mutex::new(Registries::default()) }
    }

    /// The opaque id audit records name this workspace by.
    pub(crate) fn session(&self) -> &str {
        &self.session
    }

    /// Forget every slot, target, view, snapshot and recording (the workspace ended).
    pub(crate) fn clear(&self) {
        *lock(&self.registries) = Registries::default();
    }

    /// Whether the person already confirmed navigating to `host` in this workspace.
    pub(crate) fn host_confirmed(&self, host: &str) -> bool {
        lock(&self.registries).confirmed_hosts.contains(host)
    }

    /// Remember that the person confirmed navigating to `host`.
    pub(crate) fn confirm_host(&self, host: String) {
        lock(&self.registries).confirmed_hosts.insert(host);
    }

    pub(crate) fn mint(&self, kind: HandleKind) -> Handle {
        self.minter.mint(kind)
    }

    fn fresh(&self, kind: HandleKind, taken: impl Fn(&Handle) -> bool) -> Handle {
        loop {
            let handle = self.minter.mint(kind);
            if !taken(&handle) {
                return handle;
            }
        }
    }

    /// Every slot, oldest first.
    pub(crate) fn slots(&self) -> Vec<Arc<TabSlot>> {
        lock(&self.registries).slots.clone()
    }

    /// The slot named by `handle`.
    pub(crate) fn slot(&self, handle: &Handle) -> Option<Arc<TabSlot>> {
        lock(&self.registries).slots.iter().find(|slot| &slot.handle == handle).cloned()
    }

    /// A new slot bound to `tab`.
    pub(crate) fn add_slot(&self, tab: TabRef) -> Arc<TabSlot> {
        let mut registries = lock(&self.registries);
        let handle = self.fresh(HandleKind::Tab, |h| registries.slots.iter().any(|s| &s.handle == h));
        let slot = Arc::new(TabSlot {
            handle,
            state: Mutex::new(SlotState { tab: Some(tab), ..SlotState::default() }),
            work: Arc::new(AsyncMutex::new(())),
        });
        registries.slots.push(slot.clone());
        slot
    }

    /// Register a perceived target and answer its fresh handle.
    pub(crate) fn add_target(&self, entry: TargetEntry) -> Handle {
        let mut registries = lock(&self.registries);
        let handle = self.fresh(HandleKind::Target, |h| registries.targets.contains_key(h));
        registries.targets.insert(handle.clone(), entry);
        registries.target_order.push_back(handle.clone());
        while registries.target_order.len() > TARGET_REGISTRY_CAP {
            if let Some(old) = registries.target_order.pop_front() {
                registries.targets.remove(&old);
            }
        }
        handle
    }

    pub(crate) fn target(&self, handle: &Handle) -> Option<TargetEntry> {
        lock(&self.registries).targets.get(handle).cloned()
    }

    /// Register a view and answer its fresh handle.
    pub(crate) fn add_view(&self, entry: ViewEntry) -> Handle {
        let mut registries = lock(&self.registries);
        let handle = self.fresh(HandleKind::View, |h| registries.views.contains_key(h));
        registries.views.insert(handle.clone(), entry);
        registries.view_order.push_back(handle.clone());
        while registries.view_order.len() > VIEW_REGISTRY_CAP {
            if let Some(old) = registries.view_order.pop_front() {
                registries.views.remove(&old);
            }
        }
        let keep_from = registries.view_order.len().saturating_sub(VIEW_IMAGES_KEPT);
        let older: Vec<Handle> = registries.view_order.iter().take(keep_from).cloned().collect();
        for old in older {
            if let Some(view) = registries.views.get_mut(&old) {
                view.png = None;
            }
        }
        handle
    }

    pub(crate) fn view(&self, handle: &Handle) -> Option<ViewEntry> {
        lock(&self.registries).views.get(handle).cloned()
    }

    /// Record `nodes` as `slot`'s current document snapshot; answers the new handle and the
    /// snapshot it supersedes.
    pub(crate) fn replace_snapshot(
        &self,
        slot: &Handle,
        nodes: Vec<(u32, Role, Option<String>)>,
    ) -> (Handle, Option<SnapshotEntry>) {
        let mut registries = lock(&self.registries);
        let handle =
            self.fresh(HandleKind::Snapshot, |h| registries.snapshots.values().any(|s| &s.handle == h));
        let previous =
            registries.snapshots.insert(slot.clone(), SnapshotEntry { handle: handle.clone(), nodes });
        (handle, previous)
    }

    /// Register a recording.
    pub(crate) fn add_recording(&self, recording: RecordingRef) -> Handle {
        let mut registries = lock(&self.registries);
        if let Some((handle, _)) = registries.recordings.iter().find(|(_, r)| **r == recording) {
            return handle.clone();
        }
        let handle = self.fresh(HandleKind::Recording, |h| {
            registries.recordings.contains_key(h) || registries.ended_recordings.iter().any(|(e, _)| e == h)
        });
        registries.recordings.insert(handle.clone(), recording);
        handle
    }

    pub(crate) fn recording(&self, handle: &Handle) -> Option<RecordingRef> {
        lock(&self.registries).recordings.get(handle).cloned()
    }

    /// Every recording handle, for resolving an omitted `recording`.
    pub(crate) fn recordings(&self) -> Vec<(Handle, RecordingRef)> {
        lock(&self.registries).recordings.iter().map(|(h, r)| (h.clone(), r.clone())).collect()
    }

    /// Forget a recording whose frames are gone, remembering how it ended.
    pub(crate) fn end_recording(&self, handle: &Handle, end: RecordingEnd) {
        let mut registries = lock(&self.registries);
        registries.recordings.remove(handle);
        registries.recording_tabs.remove(handle);
        registries.ended_recordings.retain(|(h, _)| h != handle);
        if registries.ended_recordings.len() >= MAX_ENDED_RECORDINGS {
            registries.ended_recordings.pop_front();
        }
        registries.ended_recordings.push_back((handle.clone(), end));
    }

    /// How `handle` ended, when it is a recording of this workspace that ended.
    pub(crate) fn recording_end(&self, handle: &Handle) -> Option<RecordingEnd> {
        lock(&self.registries).ended_recordings.iter().find(|(h, _)| h == handle).map(|(_, end)| *end)
    }

    /// The recording that ended last, and how.
    pub(crate) fn last_ended_recording(&self) -> Option<(Handle, RecordingEnd)> {
        lock(&self.registries).ended_recordings.back().cloned()
    }

    /// Remember that `recording` records the tab of `slot`.
    pub(crate) fn set_recording_tab(&self, recording: &Handle, slot: &Handle) {
        lock(&self.registries).recording_tabs.insert(recording.clone(), slot.clone());
    }

    /// The tab slot `recording` records, when known.
    pub(crate) fn recording_tab(&self, recording: &Handle) -> Option<Handle> {
        lock(&self.registries).recording_tabs.get(recording).cloned()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
