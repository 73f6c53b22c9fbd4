//! [`GhostlightServer`]: the rmcp [`ServerHandler`] over one Ghostlight workspace.

use std::borrow::Cow;
use std::pin::pin;
use std::sync::Arc;
use std::time::Instant;

use ghostlight_core::{
    BrowserPort, Cancellation, Confirmer, Fallback, Ghostlight, NoProgress, Progress, StepProgress, ToolName,
    ToolResult,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CustomRequest, CustomResult, ErrorCode,
    Implementation, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
    ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use crate::confirm::ElicitationConfirmer;
use crate::logging::ClientLog;
use crate::render;

/// The newest MCP protocol version served. Ghostlight's unit of isolation is the MCP session
/// (one workspace per session); 2026-07-28 removed sessions (SEP-2567), so this server
/// negotiates up to 2025-11-25, the newest revision with an `initialize` handshake.
pub const NEWEST_PROTOCOL: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// What the server tells clients at `initialize`.
const INSTRUCTIONS: &str = "Ghostlight: governed browser tools. Every call answers one envelope \
(status, effect, readiness, repeat_safe, summary, facts, next_steps) in structuredContent and, \
for clients that ignore it, as the text block's summary, Next: lines and compact JSON. \
policy_explain says what is allowed and why; browser_tabs lists this session's tabs.";

/// The MCP method of a tool call.
const TOOLS_CALL: &str = "tools/call";

/// An MCP server over one Ghostlight workspace: `tools/list` is the core catalog and
/// `tools/call` runs [`Ghostlight::invoke`].
///
/// One value serves one MCP session. [`GhostlightServer::session`] makes a server for another
/// session over the same browser and authority, with its own workspace: its tabs and handles
/// are invisible to every other session.
#[derive(Clone)]
pub struct GhostlightServer {
    ghostlight: Ghostlight,
    /// When set, each session made by [`GhostlightServer::ending_session`] gets a browser of
    /// its own from this factory (its own profile, processes and lock), else a workspace of
    /// the shared browser.
    browsers: Option<BrowserFactory>,
    /// Set for a session made by [`GhostlightServer::ending_session`]: its workspace ends
    /// when the last clone of the server is dropped.
    _life: Option<Arc<SessionLife>>,
    /// The log level the session's client asked for (`logging/setLevel`).
    log: ClientLog,
}

/// Makes the browser of a new session.
pub type BrowserFactory = Arc<dyn Fn() -> Arc<dyn BrowserPort> + Send + Sync>;

impl std::fmt::Debug for GhostlightServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GhostlightServer")
            .field("ghostlight", &self.ghostlight)
            .field("browser_per_session", &self.browsers.is_some())
            .finish_non_exhaustive()
    }
}

/// Ends a session's workspace (tabs closed, recordings discarded) when dropped, on the Tokio
/// runtime it was made on, and says so to whoever counts sessions.
struct SessionLife {
    ghostlight: Ghostlight,
    on_end: Option<Box<dyn Fn() + Send + Sync>>,
}

impl std::fmt::Debug for SessionLife {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionLife").finish_non_exhaustive()
    }
}

impl Drop for SessionLife {
    fn drop(&mut self) {
        if let Some(on_end) = self.on_end.take() {
            on_end();
        }
        let ghostlight = self.ghostlight.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let closed = ghostlight.end().await;
                tracing::info!(closed_tabs = closed, "MCP session ended: its tabs are closed");
            });
        }
    }
}

impl GhostlightServer {
    /// A server over `port` with the default authority.
    pub fn new(port: Arc<dyn BrowserPort>) -> Self {
        GhostlightServer::over(Ghostlight::new(port))
    }

    /// A server over exactly this workspace (clones of a [`Ghostlight`] share their workspace;
    /// use [`GhostlightServer::from_prototype`] for a fresh one).
    pub fn over(ghostlight: Ghostlight) -> Self {
        GhostlightServer { ghostlight, _life: None, browsers: None, log: ClientLog::default() }
    }

    /// A server over a new workspace of `prototype` (same browser, authority and audit sink).
    pub fn from_prototype(prototype: &Ghostlight) -> Self {
        GhostlightServer::over(prototype.workspace())
    }

    /// A server for another MCP session: same browser, authority and audit sink, a new and
    /// empty workspace.
    pub fn session(&self) -> Self {
        GhostlightServer::from_prototype(&self.ghostlight)
    }

    /// A server for another MCP session whose workspace ends (its tabs closed, its recordings
    /// discarded) when the session ends, i.e. when the last clone of the returned server is
    /// dropped; `on_end` runs then too (a session count going down).
    pub fn ending_session(&self, on_end: impl Fn() + Send + Sync + 'static) -> Self {
        let ghostlight = match &self.browsers {
            // Its own browser: ending the session drops the last handle to it, which stops it.
            Some(browsers) => self.ghostlight.over_port(browsers()),
            None => self.ghostlight.workspace(),
        };
        let life = SessionLife { ghostlight: ghostlight.clone(), on_end: Some(Box::new(on_end)) };
        GhostlightServer {
            ghostlight,
            _life: Some(Arc::new(life)),
            browsers: None,
            log: ClientLog::default(),
        }
    }

    /// Give each session made by [`GhostlightServer::ending_session`] a browser of its own,
    /// made by `browsers`: sessions then share no profile (cookies, storage), no tabs and no
    /// browser lock.
    pub fn with_browser_per_session(mut self, browsers: BrowserFactory) -> Self {
        self.browsers = Some(browsers);
        self
    }

    /// The workspace this server acts in.
    pub fn ghostlight(&self) -> &Ghostlight {
        &self.ghostlight
    }

    /// Run one `tools/call`: the result with the envelope rendered twice and any image blocks,
    /// or a protocol error for a tool name outside the catalog.
    ///
    /// Arguments are passed to the core decoder as they are: a missing `arguments` is `{}`,
    /// and malformed arguments answer a `failed` envelope with `isError`, not an error.
    pub async fn call(
        &self,
        name: &str,
        arguments: &Value,
        cancellation: &Cancellation,
    ) -> Result<CallToolResult, ErrorData> {
        self.call_observed(name, arguments, cancellation, &NoProgress).await
    }

    /// [`GhostlightServer::call`], reporting each step of a `browser_sequence` or
    /// `browser_flow` to `progress` as it ends.
    pub async fn call_observed(
        &self,
        name: &str,
        arguments: &Value,
        cancellation: &Cancellation,
        progress: &dyn Progress,
    ) -> Result<CallToolResult, ErrorData> {
        self.call_tool_observed(catalog_tool(name)?, arguments, cancellation, progress, None).await
    }

    /// Run one `tools/call` of a tool already parsed (the name is parsed once per call);
    /// confirmations go to `confirmer` (the calling client's elicitation), else to the
    /// Ghostlight's own channel.
    async fn call_tool_observed(
        &self,
        tool: ToolName,
        arguments: &Value,
        cancellation: &Cancellation,
        progress: &dyn Progress,
        confirmer: Option<&dyn Confirmer>,
    ) -> Result<CallToolResult, ErrorData> {
        let started = Instant::now();
        let result = match confirmer {
            Some(confirmer) => {
                self.ghostlight
                    .invoke_tool_confirmed(tool, arguments, cancellation, progress, confirmer)
                    .await
            }
            None => self.ghostlight.invoke_tool_observed(tool, arguments, cancellation, progress).await,
        };
        log_call(tool.as_str(), &result, started);
        render::call_result(&result).map_err(|error| {
            tracing::error!(%error, "cannot render a result");
            ErrorData::internal_error(error.to_string(), None)
        })
    }
}

/// The catalog tool `name` names, or the protocol error for a name outside the catalog.
fn catalog_tool(name: &str) -> Result<ToolName, ErrorData> {
    ToolName::parse(name).ok_or_else(|| {
        let unknown = ghostlight_core::UnknownTool::new(name);
        tracing::warn!(tool = %unknown.name, "tools/call for a tool outside the catalog");
        ErrorData::invalid_params(unknown_tool_message(&unknown), None)
    })
}

/// The invalid-params message for a tool outside the catalog, with the tool it most likely
/// meant: `unknown tool "browser_clik": …, listed by tools/list. Did you mean browser_click?`
fn unknown_tool_message(unknown: &ghostlight_core::UnknownTool) -> String {
    match ToolName::suggest(&unknown.name) {
        Some(meant) => format!("{unknown}. Did you mean {meant}?"),
        None => unknown.to_string(),
    }
}

/// One line per call: tool, invocation handle, status, effect, elapsed time. Never arguments,
/// summaries or facts.
fn log_call(tool: &str, result: &ToolResult, started: Instant) {
    let envelope = &result.envelope;
    tracing::info!(
        tool,
        invocation = %envelope.invocation,
        status = envelope.status.as_str(),
        effect = envelope.effect.as_str(),
        images = result.attachments.len(),
        elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        "tool call"
    );
}

/// One progress notification: `value` of `total`, with a message naming the tool.
async fn notify(peer: &Peer<RoleServer>, token: &ProgressToken, value: usize, total: usize, message: String) {
    #[allow(clippy::cast_precision_loss)] // counts of steps, far below 2^52
    let param = ProgressNotificationParam::new(token.clone(), value as f64)
        .with_total(total as f64)
        .with_message(message);
    // A failure to send only costs the notification.
    if let Err(error) = peer.notify_progress(param).await {
        tracing::debug!(%error, "cannot send a progress notification");
    }
}

/// A composite step as a progress message (status and tool only: never arguments or page
/// content).
struct StepNote {
    done: usize,
    total: usize,
    message: String,
}

/// Queues each ended step for the notifier (the executor calls it synchronously).
struct StepNotes(Option<UnboundedSender<StepNote>>);

impl Progress for StepNotes {
    fn step_finished(&self, step: StepProgress<'_>) {
        if let Some(sender) = &self.0 {
            let id = step.id.map(|id| format!(" (\"{id}\")")).unwrap_or_default();
            let message = format!(
                "step {} of {}{id}: {} {}",
                step.index + 1,
                step.total,
                step.tool.as_str(),
                step.envelope.status.as_str()
            );
            let _ = sender.send(StepNote { done: step.index + 1, total: step.total, message });
        }
    }
}

/// Steps a composite's arguments ask for (0 when they are not a list; the decoder says why).
fn requested_steps(arguments: &Value) -> usize {
    arguments.get("steps").and_then(Value::as_array).map_or(0, Vec::len)
}

impl ServerHandler for GhostlightServer {
    fn get_info(&self) -> ServerConfig {
        #[allow(deprecated)] // MCP logging: see `logging`
        let capabilities = ServerCapabilities::builder().enable_tools().enable_logging().build();
        ServerConfig::new(capabilities)
            .with_protocol_version(NEWEST_PROTOCOL)
            .with_server_info(
                Implementation::new("ghostlight-mcp", env!("CARGO_PKG_VERSION")).with_title("Ghostlight"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    /// `logging/setLevel`: the session's client gets `notifications/message` of that level and
    /// above from now on (see `logging`).
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log.set(request.level);
        Ok(())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&NEWEST_PROTOCOL))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(render::tools().to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        render::find_tool(name).cloned()
    }

    /// rmcp hands over a `tools/call` whose params do not fit the protocol's shape (arguments
    /// that are not an object) as a custom request. The contract answers malformed arguments
    /// with a `failed` envelope, not a protocol error, so the call goes to the decoder as it
    /// is; only a missing or unknown tool name is a protocol error (invalid params). Any other
    /// method is unknown.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method != TOOLS_CALL {
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, request.method, None));
        }
        let params = request.params.unwrap_or(Value::Null);
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err(ErrorData::invalid_params("tools/call needs params.name, the tool's name", None));
        };
        let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
        let result = self.call(name, &arguments, &Cancellation::new()).await?;
        serde_json::to_value(result)
            .map(CustomResult)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let name = request.name.as_ref();
        let tool = catalog_tool(name)?;
        let progress_token = context.meta.get_progress_token().filter(|_| tool.reports_progress());
        // Progress counts steps for a composite, and 0 → 1 for a wait; values only increase.
        let total = if tool.is_composite() { requested_steps(&arguments) } else { 1 };
        if let Some(token) = &progress_token {
            notify(&context.peer, token, 0, total, format!("{name} started")).await;
        }

        // Bridge MCP cancellation (`notifications/cancelled` fires `context.ct`) to core's
        // signal: core then stops at its next await point and answers `cancelled` (which rmcp,
        // following the protocol, does not send to a client that cancelled).
        let cancellation = Cancellation::new();
        let (sender, mut pending) = unbounded_channel();
        let notes = StepNotes(progress_token.as_ref().map(|_| sender));
        let (arguments, cancellation_ref) = (&arguments, &cancellation);
        // Confirmations of this call are asked of the person behind the client that sent it,
        // else through the browser's own channel (the extension's popup), if any.
        let confirmer =
            Fallback(ElicitationConfirmer::new(context.peer.clone()), self.ghostlight.confirmer());
        let confirmer_ref: &dyn Confirmer = &confirmer;
        let work = async move {
            let result = {
                let mut call = pin!(self.call_tool_observed(
                    tool,
                    arguments,
                    cancellation_ref,
                    &notes,
                    Some(confirmer_ref)
                ));
                tokio::select! {
                    result = &mut call => result,
                    () = context.ct.cancelled() => {
                        tracing::info!(tool = name, "cancelled by the client");
                        cancellation_ref.cancel();
                        call.await
                    }
                }
            };
            // Closes the channel: the notifier ends once it has sent what is queued.
            drop(notes);
            result
        };
        let peer = &context.peer;
        let token = progress_token.as_ref();
        let notifier = async move {
            let mut done = 0;
            while let Some(note) = pending.recv().await {
                if let Some(token) = token {
                    notify(peer, token, note.done, note.total, format!("{name} {}", note.message)).await;
                }
                done = note.done;
            }
            done
        };
        let started = Instant::now();
        let (result, done) = tokio::join!(work, notifier);
        if let Ok(tool_result) = &result {
            let elapsed = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            self.log.call(&context.peer, name, tool_result, elapsed).await;
        }

        if let Some(token) = &progress_token
            && done < total
        {
            notify(&context.peer, token, total, total, format!("{name} finished")).await;
        }
        result.map(CallToolResponse::from)
    }
}

#[cfg(test)]
mod tests {
    use ghostlight_core::testing::ScriptedBrowser;
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn an_unknown_tool_error_suggests_the_close_tool() {
        let server = GhostlightServer::new(Arc::new(ScriptedBrowser::new()));
        let never = Cancellation::never();
        let error = server.call("browser_clik", &json!({}), &never).await.err();
        let error = error.unwrap_or_else(|| panic!("browser_clik is not a tool"));
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(error.message.starts_with("unknown tool \"browser_clik\""), "{}", error.message);
        assert!(error.message.ends_with(". Did you mean browser_click?"), "{}", error.message);
        let error = server.call("browser_teleport", &json!({}), &never).await.err();
        let message = error.map(|e| e.message.into_owned()).unwrap_or_default();
        assert!(message.contains("browser_teleport") && !message.contains("Did you mean"), "{message}");
    }
}
