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
    async fn navigate(&self, call: &TabCall<'_>, input: &NavigateInput) -> PortResult<PageState> {
        self.inner.navigate(call, input).await
    }
    async fn history(&self, call: &TabCall<'_>, step: HistoryMove) -> PortResult<PageState> {
        self.inner.history(call, step).await
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
    async fn read_text(&self, call: &TabCall<'_>, input: &ReadInput) -> PortResult<TextOutcome> {
        tokio::time::sleep(self.read_delay).await;
        self.inner.read_text(call, input).await
    }
    async fn perceive(&self, call: &TabCall<'_>, input: &PerceiveInput) -> PortResult<Perception> {
        self.inner.perceive(call, input).await
    }
    async fn focused_element(&self, tab: &TabRef) -> PortResult<Option<FocusedElement>> {
        self.inner.focused_element(tab).await
    }
    async fn element_present(&self, tab: &TabRef, element: &ElementRef) -> PortResult<bool> {
        self.inner.element_present(tab, element).await
    }
    async fn text_present(&self, call: &TabCall<'_>, text: &str) -> PortResult<bool> {
        self.inner.text_present(call, text).await
    }
    async fn capture(&self, call: &TabCall<'_>, kind: &CaptureKind) -> PortResult<Captured> {
        self.inner.capture(call, kind).await
    }
    async fn click(&self, call: &TabCall<'_>, input: &ClickInput) -> PortResult<ActionReceipt> {
        self.inner.click(call, input).await
    }
    async fn hover(&self, call: &TabCall<'_>, input: &HoverInput) -> PortResult<ActionReceipt> {
        self.inner.hover(call, input).await
    }
    async fn scroll(&self, call: &TabCall<'_>, input: &ScrollInput) -> PortResult<ScrollOutcome> {
        self.inner.scroll(call, input).await
    }
    async fn drag(
        &self,
        call: &TabCall<'_>,
        from: &PointerTarget,
        to: &PointerTarget,
    ) -> PortResult<ActionReceipt> {
        self.inner.drag(call, from, to).await
    }
    async fn fill(&self, call: &TabCall<'_>, input: &FillInput) -> PortResult<FillOutcome> {
        self.inner.fill(call, input).await
    }
    async fn type_text(&self, call: &TabCall<'_>, input: &TypeInput) -> PortResult<ActionReceipt> {
        self.inner.type_text(call, input).await
    }
    async fn press_keys(&self, call: &TabCall<'_>, input: &KeyInput) -> PortResult<ActionReceipt> {
        self.inner.press_keys(call, input).await
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
    async fn upload(&self, call: &TabCall<'_>, input: &UploadInput) -> PortResult<UploadOutcome> {
        self.inner.upload(call, input).await
    }
    async fn execute(&self, call: &TabCall<'_>, script: &str) -> PortResult<ScriptOutcome> {
        self.inner.execute(call, script).await
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
