//! Shared support for ghostlight-mcp's integration tests: a paced scripted browser, an
//! in-process MCP client, the checks both renderings of an envelope must pass, a fixture web
//! server and the paths of the binary and the Python interpreter.

// Each test file uses a different subset of this module.
#![allow(dead_code)]

pub(crate) mod fixture;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use base64::Engine as _;
use ghostlight_core::port::*;
use ghostlight_core::testing::ScriptedBrowser;
use ghostlight_mcp::GhostlightServer;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::{RoleClient, RunningService, ServiceExt};
use serde_json::{Map, Value, json};

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

/// `tools/call` parameters.
pub(crate) fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let arguments = match arguments {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)
}

/// The text of a result's first block.
pub(crate) fn text_of(result: &CallToolResult) -> String {
    match result.content.first() {
        Some(ContentBlock::Text(text)) => text.text.clone(),
        other => panic!("the first block is not text: {other:?}"),
    }
}

/// Check both renderings of a result's envelope and return the envelope:
///
/// * `structuredContent` is an envelope object with every field;
/// * the text block is the summary, one `Next: ` line per next step, a blank line, and JSON
///   equal to `structuredContent`;
/// * `isError` is set exactly for `failed`, `blocked` and `attention_required`;
/// * image blocks' bytes appear in neither rendering.
pub(crate) fn envelope_of(result: &CallToolResult) -> Value {
    let structured =
        result.structured_content.clone().unwrap_or_else(|| panic!("no structuredContent: {result:?}"));
    for field in
        ["invocation", "status", "effect", "readiness", "repeat_safe", "summary", "facts", "next_steps"]
    {
        assert!(structured.get(field).is_some(), "the envelope lacks {field}: {structured}");
    }
    let text = text_of(result);
    let (head, json) =
        text.split_once("\n\n").unwrap_or_else(|| panic!("no blank line in the text block: {text}"));
    let from_text: Value =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("the text JSON does not parse: {e}: {json}"));
    assert_eq!(from_text, structured, "the text block's JSON differs from structuredContent");
    let mut lines = head.lines();
    assert_eq!(
        lines.next(),
        structured["summary"].as_str(),
        "the text block does not start with the summary"
    );
    let next: Vec<String> =
        lines.map(|line| line.strip_prefix("Next: ").unwrap_or(line).to_owned()).collect();
    let expected: Vec<String> = structured["next_steps"]
        .as_array()
        .map(|steps| steps.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    assert_eq!(next, expected, "the Next: lines differ from next_steps");
    let status = structured["status"].as_str().unwrap_or_default();
    let is_error = matches!(status, "failed" | "blocked" | "attention_required");
    assert_eq!(result.is_error, Some(is_error), "isError for status {status}");
    for block in &result.content[1..] {
        let ContentBlock::Image(image) = block else { panic!("a non-image block after the text: {block:?}") };
        assert!(!text.contains(&image.data) && !structured.to_string().contains(&image.data));
        assert!(base64::engine::general_purpose::STANDARD.decode(&image.data).is_ok());
    }
    structured
}

/// The `status` of an envelope.
pub(crate) fn status(envelope: &Value) -> &str {
    envelope["status"].as_str().unwrap_or_default()
}

/// The envelope of a policy_explain-free call, for readable failures.
pub(crate) fn describe(envelope: &Value) -> String {
    json!({"status": envelope["status"], "summary": envelope["summary"], "facts": envelope["facts"]})
        .to_string()
}

/// The workspace root (the parent of this crate).
pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_default()
}

/// The `ghostlight-mcp` binary Cargo built for these tests.
pub(crate) fn binary() -> PathBuf {
    // The binary needs the `webdriver` feature; `option_env!` keeps the library-only build
    // of these tests compiling.
    let path = option_env!("CARGO_BIN_EXE_ghostlight-mcp");
    PathBuf::from(path.unwrap_or_else(|| panic!("the ghostlight-mcp binary needs the webdriver feature")))
}

/// The first executable called `name` on `PATH`.
pub(crate) fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| candidate.is_file())
}

/// Panic unless `chromedriver` is on PATH: the end-to-end tests need a real browser.
pub(crate) fn require_chromedriver() {
    assert!(
        on_path("chromedriver").is_some(),
        "chromedriver is not on PATH: install Chromium and its driver (Debian: apt-get install chromium chromium-driver)"
    );
}

/// The real binary with `args`, driven by rmcp's child-process client; `path` replaces `PATH`
/// when given. Returns the client and the server's process id.
pub(crate) async fn spawn_binary(
    args: &[&str],
    path: Option<&Path>,
) -> (RunningService<RoleClient, ()>, u32) {
    let mut command = tokio::process::Command::new(binary());
    command.args(args).env("GHOSTLIGHT_MCP_LOG", "info");
    if let Some(path) = path {
        command.env("PATH", path);
    }
    let (transport, _stderr) = rmcp::transport::TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start ghostlight-mcp: {e}"));
    let pid = transport.id().unwrap_or_else(|| panic!("no process id"));
    let client =
        ().serve(transport).await.unwrap_or_else(|e| panic!("ghostlight-mcp did not initialize: {e}"));
    (client, pid)
}

/// The processes whose parent is `pid`, with their command names (from `/proc`).
pub(crate) fn children(pid: u32) -> Vec<(u32, String)> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| {
            let child: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).ok()?;
            // `pid (comm) state ppid …`; comm may contain spaces and parentheses.
            let (head, rest) = stat.rsplit_once(')')?;
            let comm = head.split_once('(')?.1.to_owned();
            let ppid: u32 = rest.split_whitespace().nth(1)?.parse().ok()?;
            (ppid == pid).then_some((child, comm))
        })
        .collect()
}

/// Call `name` with `arguments` and return the checked envelope.
pub(crate) async fn invoke(client: &RunningService<RoleClient, ()>, name: &str, arguments: Value) -> Value {
    let result = client.call_tool(call(name, arguments)).await.unwrap_or_else(|e| panic!("{name}: {e}"));
    envelope_of(&result)
}
