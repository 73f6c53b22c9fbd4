//! Shared support for ghostlight-mcp's integration tests: a paced scripted browser, an
//! in-process MCP client, and (module `client`, which ghostlight-cli's tests share) the checks
//! both renderings of an envelope must pass.

// Each test file uses a different subset of this module.
#![allow(dead_code)]

pub(crate) mod client;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use ghostlight_core::port::*;
use ghostlight_core::testing::ScriptedBrowser;
use ghostlight_mcp::GhostlightServer;
use rmcp::service::{RoleClient, RunningService, ServiceExt};

#[allow(unused_imports)] // Each test file uses a different subset of these too.
pub(crate) use client::{call, describe, envelope_of, invoke, status};

/// A scripted browser on real time: `sleep` waits (so waits can be cancelled), and reading
/// text takes `read_delay` (so concurrent calls overlap).
pub(crate) struct Paced {
    pub(crate) inner: Arc<ScriptedBrowser>,
    pub(crate) read_delay: Duration,
}

impl Paced {
    pub(crate) fn new(inner: ScriptedBrowser, read_delay: Duration) -> Self {
        Paced { inner: Arc::new(inner), read_delay }
    }
}

#[async_trait]
impl BrowserPort for Paced {
    fn engine(&self) -> &str {
        self.inner.engine()
    }
    async fn tabs(&self) -> PortResult<Vec<TabInfo>> {
        self.inner.tabs().await
    }
    async fn open_tab(&self, input: &NavigateInput, timeout: Duration) -> PortResult<OpenedTab> {
        self.inner.open_tab(input, timeout).await
    }
    async fn focus_tab(&self, tab: &TabRef) -> PortResult<Focused> {
        self.inner.focus_tab(tab).await
    }
    async fn close_tab(&self, tab: &TabRef) -> PortResult<()> {
        self.inner.close_tab(tab).await
    }
    async fn page(&self, tab: &TabRef) -> PortResult<PageState> {
        self.inner.page(tab).await
    }
    async fn navigate(
        &self,
        tab: &TabRef,
        input: &NavigateInput,
        timeout: Duration,
    ) -> PortResult<PageState> {
        self.inner.navigate(tab, input, timeout).await
    }
    async fn history(&self, tab: &TabRef, step: HistoryMove, timeout: Duration) -> PortResult<PageState> {
        self.inner.history(tab, step, timeout).await
    }
    async fn geometry(&self, tab: &TabRef) -> PortResult<Geometry> {
        self.inner.geometry(tab).await
    }
    async fn set_zoom(&self, tab: &TabRef, percent: u32) -> PortResult<Geometry> {
        self.inner.set_zoom(tab, percent).await
    }
    async fn resize_window(&self, tab: &TabRef, width: u32, height: u32) -> PortResult<Geometry> {
        self.inner.resize_window(tab, width, height).await
    }
    async fn read_text(&self, tab: &TabRef, input: &ReadInput, gate: &Gate) -> PortResult<TextOutcome> {
        tokio::time::sleep(self.read_delay).await;
        self.inner.read_text(tab, input, gate).await
    }
    async fn perceive(&self, tab: &TabRef, input: &PerceiveInput, gate: &Gate) -> PortResult<Perception> {
        self.inner.perceive(tab, input, gate).await
    }
    async fn find_text(
        &self,
        tab: &TabRef,
        text: &str,
        controls_only: bool,
        max: usize,
        gate: &Gate,
    ) -> PortResult<Vec<PerceivedElement>> {
        self.inner.find_text(tab, text, controls_only, max, gate).await
    }
    async fn focused_element(&self, tab: &TabRef) -> PortResult<Option<FocusedElement>> {
        self.inner.focused_element(tab).await
    }
    async fn element_present(&self, tab: &TabRef, element: &ElementRef) -> PortResult<bool> {
        self.inner.element_present(tab, element).await
    }
    async fn text_present(&self, tab: &TabRef, text: &str, gate: &Gate) -> PortResult<bool> {
        self.inner.text_present(tab, text, gate).await
    }
    async fn capture(
        &self,
        tab: &TabRef,
        kind: &CaptureKind,
        gate: &Gate,
        timeout: Duration,
    ) -> PortResult<Captured> {
        self.inner.capture(tab, kind, gate, timeout).await
    }
    async fn click(
        &self,
        tab: &TabRef,
        input: &ClickInput,
        gate: &Gate,
        timeout: Duration,
    ) -> PortResult<ActionReceipt> {
        self.inner.click(tab, input, gate, timeout).await
    }
    async fn hover(
        &self,
        tab: &TabRef,
        at: &PointerTarget,
        gate: &Gate,
        timeout: Duration,
    ) -> PortResult<ActionReceipt> {
        self.inner.hover(tab, at, gate, timeout).await
    }
    async fn scroll(
        &self,
        tab: &TabRef,
        input: &ScrollInput,
        gate: &Gate,
        timeout: Duration,
    ) -> PortResult<ScrollOutcome> {
        self.inner.scroll(tab, input, gate, timeout).await
    }
    async fn drag(
        &self,
        tab: &TabRef,
        from: &PointerTarget,
        to: &PointerTarget,
        gate: &Gate,
        timeout: Duration,
    ) -> PortResult<ActionReceipt> {
        self.inner.drag(tab, from, to, gate, timeout).await
    }
    async fn fill(&self, tab: &TabRef, input: &FillInput, timeout: Duration) -> PortResult<FillOutcome> {
        self.inner.fill(tab, input, timeout).await
    }
    async fn type_text(
        &self,
        tab: &TabRef,
        input: &TypeInput,
        timeout: Duration,
    ) -> PortResult<ActionReceipt> {
        self.inner.type_text(tab, input, timeout).await
    }
    async fn press_keys(
        &self,
        tab: &TabRef,
        input: &KeyInput,
        timeout: Duration,
    ) -> PortResult<ActionReceipt> {
        self.inner.press_keys(tab, input, timeout).await
    }
    async fn dialog(&self, tab: &TabRef) -> PortResult<Option<DialogKind>> {
        self.inner.dialog(tab).await
    }
    async fn resolve_dialog(&self, tab: &TabRef, resolution: &DialogResolution) -> PortResult<DialogKind> {
        self.inner.resolve_dialog(tab, resolution).await
    }
    async fn stat_files(&self, paths: &[PathBuf]) -> PortResult<Vec<FileStat>> {
        self.inner.stat_files(paths).await
    }
    async fn upload(
        &self,
        tab: &TabRef,
        input: &UploadInput,
        gate: &Gate,
        timeout: Duration,
    ) -> PortResult<UploadOutcome> {
        self.inner.upload(tab, input, gate, timeout).await
    }
    async fn execute(&self, tab: &TabRef, script: &str, timeout: Duration) -> PortResult<ScriptOutcome> {
        self.inner.execute(tab, script, timeout).await
    }
    async fn sleep(&self, duration: Duration) {
        tokio::time::sleep(duration).await;
    }
}

/// An rmcp client connected in-process to `server` over a duplex pipe.
pub(crate) async fn connect(server: GhostlightServer) -> RunningService<RoleClient, ()> {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        match server.serve(server_io).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(error) => panic!("the server did not start: {error}"),
        }
    });
    ().serve(client_io).await.unwrap_or_else(|e| panic!("the client did not connect: {e}"))
}
