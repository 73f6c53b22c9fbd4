//! `ghostlight session start|stop|status`: one browser and one workspace kept between
//! commands, so that `call` and `flow` share tabs and handles.
//!
//! A session is a background `ghostlight session start --foreground` process serving a Unix
//! socket, `<runtime>/<name>.sock`, where `<runtime>` is `$XDG_RUNTIME_DIR/ghostlight`, else
//! `<temp>/ghostlight-<uid>`. The directory is the user's alone (created `0700`; refused when
//! anyone else owns it or may enter it), the socket is `0600`, and every connection's peer
//! must be the same user. There is no TCP listener. Its log (Ghostlight's own events: tools,
//! statuses, timings; never arguments or page content) is `<runtime>/<name>.log`.
//!
//! The protocol is one JSON request line per connection — `{"op":"call","tool":..,
//! "arguments":..}`, `{"op":"status"}` or `{"op":"stop"}` — answered by JSON lines: a
//! `step` line as each step of a composite ends, then one `result`, `status`, `stopped` or
//! `refused` line. A client that hangs up mid-call cancels the call.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, FileTypeExt as _, MetadataExt as _, OpenOptionsExt as _};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use ghostlight_cli::browser::Browser;
use ghostlight_cli::options::{BrowserArgs, BrowserOptions, ServeOptions};
use ghostlight_core::{
    Attachment, Cancellation, Envelope, Ghostlight, Progress, StepProgress, ToolName, ToolResult,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _};

use crate::SessionArgs;
use crate::error::CliError;

/// The session `call`, `flow` and `session` use when no `--session` names another.
pub(crate) const DEFAULT_NAME: &str = "default";

/// The longest session name.
const NAME_CHARS: usize = 32;

/// The largest request line a session reads (arguments can carry upload bytes).
const REQUEST_BYTES: u64 = 64 * 1024 * 1024;

/// How long `session start` waits for the new session to answer.
const START_TIMEOUT: Duration = Duration::from_secs(15);

/// How long `session stop` waits for the session to close its browser and socket.
const STOP_TIMEOUT: Duration = Duration::from_secs(20);

/// How often `start` and `stop` look again.
const POLL: Duration = Duration::from_millis(50);

/// The most bytes of a socket path (`sockaddr_un`: 108 on Linux, 104 on macOS).
const SOCKET_PATH_BYTES: usize = 100;

/// A request to a session.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Request {
    /// Invoke a tool in the session's workspace.
    Call { tool: String, arguments: Value },
    /// Describe the session.
    Status,
    /// Close the browser and end the session.
    Stop,
}

/// One line of a session's answer.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Reply {
    /// A step of a composite ended.
    Step { index: usize, total: usize, id: Option<String>, tool: String, envelope: Box<Envelope> },
    /// The call's result.
    Result { envelope: Box<Envelope>, attachments: Vec<WireAttachment> },
    /// What the session is.
    Status(Status),
    /// The session is ending.
    Stopped,
    /// The request was not served.
    Refused { message: String, usage: bool },
}

/// An image, base64-encoded.
#[derive(Debug, Serialize, Deserialize)]
struct WireAttachment {
    mime_type: String,
    base64: String,
}

/// What `session status` shows.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Status {
    name: String,
    pid: u32,
    socket: PathBuf,
    /// What drives the browser, as of the status request ([`Browser::describe`]).
    browser: String,
    uptime_s: u64,
    calls: u64,
    /// The browser flags and configuration file the session was started with, as the command
    /// line parsed them (compared with a later command's own, never shown).
    #[serde(default)]
    flags: String,
}

// ----- where sessions live ------------------------------------------------------------------

/// `name`, when it is a usable session name (letters, digits, `_` and `-`; 1 to 32).
fn checked_name(name: &str) -> Result<&str, CliError> {
    let ok = !name.is_empty()
        && name.len() <= NAME_CHARS
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(name)
    } else {
        Err(CliError::Usage(format!(
            "a session name is 1 to {NAME_CHARS} letters, digits, _ or - (got {:?})",
            name.chars().take(NAME_CHARS + 8).collect::<String>()
        )))
    }
}

/// This process's user id: the owner of a file it has just created.
fn own_uid() -> Result<u32, CliError> {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let probe =
        std::env::temp_dir().join(format!(".ghostlight-uid-{}-{}", std::process::id(), nanos.as_nanos()));
    let created = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&probe);
    let uid = created.and_then(|file| file.metadata()).map(|metadata| metadata.uid());
    let _ = std::fs::remove_file(&probe);
    uid.map_err(|source| CliError::File { path: probe, source })
}

/// The user's session directory (`create`: made `0700` when missing); refused when it is not
/// a directory of this user's that nobody else may enter. `None` when it does not exist and
/// was not to be created.
fn session_dir(uid: u32, create: bool) -> Result<Option<PathBuf>, CliError> {
    let dir = match std::env::var_os("XDG_RUNTIME_DIR").filter(|dir| !dir.is_empty()) {
        Some(runtime) => PathBuf::from(runtime).join("ghostlight"),
        None => std::env::temp_dir().join(format!("ghostlight-{uid}")),
    };
    if create {
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(source) => return Err(CliError::File { path: dir, source }),
        }
    }
    let metadata = match std::fs::symlink_metadata(&dir) {
        Ok(metadata) => metadata,
        Err(error) if !create && error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(CliError::File { path: dir, source }),
    };
    if !metadata.is_dir() || metadata.uid() != uid || metadata.mode() & 0o077 != 0 {
        return Err(CliError::Usage(format!(
            "{} must be a directory of yours that nobody else may enter (mode 0700); sessions \
             refuse it as it is (mode {:o}). Remove it, or set XDG_RUNTIME_DIR to a private directory",
            dir.display(),
            metadata.mode() & 0o7777
        )));
    }
    Ok(Some(dir))
}

/// Where session `name` lives: its directory (checked) and its socket.
#[derive(Clone)]
struct Place {
    name: String,
    uid: u32,
    dir: PathBuf,
    socket: PathBuf,
}

impl Place {
    /// Session `name`'s place; `None` when its directory does not exist and `create` is
    /// false (then no session runs).
    fn find(name: &str, create: bool) -> Result<Option<Place>, CliError> {
        let name = checked_name(name)?.to_owned();
        let uid = own_uid()?;
        let Some(dir) = session_dir(uid, create)? else { return Ok(None) };
        let socket = dir.join(format!("{name}.sock"));
        if socket.as_os_str().len() > SOCKET_PATH_BYTES {
            return Err(CliError::Usage(format!(
                "the session socket path {} is too long for a Unix socket; set XDG_RUNTIME_DIR to a shorter directory",
                socket.display()
            )));
        }
        Ok(Some(Place { name, uid, dir, socket }))
    }

    /// Session `name`'s place, its directory created when missing.
    fn of(name: &str) -> Result<Place, CliError> {
        Place::find(name, true)?
            .ok_or_else(|| CliError::Usage(format!("no directory for session {name:?} could be made")))
    }

    fn log(&self) -> PathBuf {
        self.dir.join(format!("{}.log", self.name))
    }

    /// A connection to the running session, or `None` when none runs (no socket, or a socket
    /// nobody serves).
    fn connect(&self) -> Result<Option<UnixStream>, CliError> {
        match UnixStream::connect(&self.socket) {
            Ok(stream) => Ok(Some(stream)),
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
                ) =>
            {
                Ok(None)
            }
            Err(error) => Err(self.failed(format!("cannot reach {}: {error}", self.socket.display()))),
        }
    }

    fn failed(&self, message: impl Into<String>) -> CliError {
        CliError::Session { name: self.name.clone(), message: message.into() }
    }
}

/// A `--session` that names no running session (exit 2).
fn not_running(name: &str) -> CliError {
    let flag = if name == DEFAULT_NAME { String::new() } else { format!(" --session {name}") };
    CliError::Usage(format!("no session {name:?} is running; start it with `ghostlight session start{flag}`"))
}

// ----- the client -----------------------------------------------------------------------------

/// A connection to a running session, for one request.
pub(crate) struct Client {
    place: Place,
    stream: UnixStream,
}

/// The session a `call` or `flow` uses: the one named, else `default` when it runs; `None`
/// for a browser of the command's own.
pub(crate) fn client(args: &SessionArgs) -> Result<Option<Client>, CliError> {
    if args.no_session {
        return Ok(None);
    }
    let name = args.session.as_deref().unwrap_or(DEFAULT_NAME);
    let Some(place) = Place::find(name, false)? else {
        return match args.session {
            Some(_) => Err(not_running(name)),
            None => Ok(None),
        };
    };
    match place.connect()? {
        Some(stream) => Ok(Some(Client { place, stream })),
        None if args.session.is_some() => Err(not_running(&place.name)),
        None => Ok(None),
    }
}

impl Client {
    /// The session's name.
    pub(crate) fn name(&self) -> &str {
        &self.place.name
    }

    /// Whether the session was started with exactly these browser flags and configuration
    /// file (asked over a connection of its own).
    pub(crate) fn started_with(&self, browser: &BrowserArgs) -> Result<bool, CliError> {
        let Some(stream) = self.place.connect()? else { return Ok(false) };
        let status = Client { place: self.place.clone(), stream }.status()?;
        Ok(status.flags == flags_of(browser))
    }

    fn send(&mut self, request: &Request) -> Result<(), CliError> {
        let mut line =
            serde_json::to_string(request).map_err(|error| self.place.failed(error.to_string()))?;
        line.push('\n');
        self.stream
            .write_all(line.as_bytes())
            .map_err(|error| self.place.failed(format!("cannot send: {error}")))
    }

    /// The replies, one line each, until the session closes the connection.
    fn replies(&self) -> Result<impl Iterator<Item = Result<Reply, CliError>> + '_, CliError> {
        let stream = self.stream.try_clone().map_err(|error| self.place.failed(error.to_string()))?;
        Ok(BufReader::new(stream).lines().map(|line| {
            let line = line.map_err(|error| self.place.failed(format!("the answer broke off: {error}")))?;
            serde_json::from_str(&line)
                .map_err(|error| self.place.failed(format!("an unreadable answer: {error}")))
        }))
    }

    /// Invoke `tool` in the session's workspace; steps of a composite go to `progress` as
    /// they end.
    pub(crate) fn call(
        mut self,
        tool: &str,
        arguments: &Value,
        progress: &dyn Progress,
    ) -> Result<ToolResult, CliError> {
        self.send(&Request::Call { tool: tool.to_owned(), arguments: arguments.clone() })?;
        for reply in self.replies()? {
            match reply? {
                Reply::Step { index, total, id, tool, envelope } => {
                    let Some(tool) = ToolName::parse(&tool) else { continue };
                    progress.step_finished(StepProgress {
                        index,
                        total,
                        id: id.as_deref(),
                        tool,
                        envelope: &envelope,
                    });
                }
                Reply::Result { envelope, attachments } => {
                    let attachments = attachments
                        .into_iter()
                        .map(|image| {
                            let mime_type = match image.mime_type.as_str() {
                                "image/gif" => "image/gif",
                                _ => "image/png",
                            };
                            BASE64
                                .decode(image.base64.as_bytes())
                                .map(|bytes| Attachment { mime_type, bytes })
                                .map_err(|error| self.place.failed(format!("an unreadable image: {error}")))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    return Ok(ToolResult { envelope: *envelope, attachments });
                }
                Reply::Refused { message, usage: true } => return Err(CliError::Usage(message)),
                Reply::Refused { message, usage: false } => return Err(self.place.failed(message)),
                Reply::Status(_) | Reply::Stopped => {}
            }
        }
        Err(self
            .place
            .failed(format!("the session ended before answering (its log: {})", self.place.log().display())))
    }

    fn status(mut self) -> Result<Status, CliError> {
        self.send(&Request::Status)?;
        for reply in self.replies()? {
            if let Reply::Status(status) = reply? {
                return Ok(status);
            }
        }
        Err(self.place.failed("the session did not say what it is"))
    }
}

// ----- the commands -----------------------------------------------------------------------------

/// `ghostlight session status`.
pub(crate) fn status(name: &str) -> Result<ExitCode, CliError> {
    let Some((place, stream)) = running(name)? else {
        println!("session {name:?}: not running");
        return Ok(ExitCode::FAILURE);
    };
    let status = Client { place, stream }.status()?;
    print_status(&status)?;
    Ok(ExitCode::SUCCESS)
}

/// Session `name` and a connection to it, when it runs.
fn running(name: &str) -> Result<Option<(Place, UnixStream)>, CliError> {
    let Some(place) = Place::find(name, false)? else { return Ok(None) };
    Ok(place.connect()?.map(|stream| (place, stream)))
}

fn print_status(status: &Status) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "session {:?}: running, pid {}, up {} s", status.name, status.pid, status.uptime_s)?;
    writeln!(out, "  browser: {}", status.browser)?;
    writeln!(out, "  calls: {}", status.calls)?;
    writeln!(out, "  socket: {}", status.socket.display())?;
    writeln!(out, "  log: {}", status.socket.with_extension("log").display())?;
    Ok(())
}

/// `ghostlight session stop`: the session closes its browser and socket, then exits.
pub(crate) fn stop(name: &str) -> Result<ExitCode, CliError> {
    let Some((place, stream)) = running(name)? else {
        println!("session {name:?}: not running");
        return Ok(ExitCode::FAILURE);
    };
    let mut client = Client { place, stream };
    client.send(&Request::Stop)?;
    let stopped = client.replies()?.any(|reply| matches!(reply, Ok(Reply::Stopped)));
    let place = client.place;
    if !stopped {
        return Err(place.failed("the session did not agree to stop"));
    }
    // It removes its socket once the browser is closed.
    let deadline = Instant::now() + STOP_TIMEOUT;
    while place.socket.exists() {
        if Instant::now() > deadline {
            return Err(place.failed("the session did not end in time"));
        }
        std::thread::sleep(POLL);
    }
    println!("session {:?}: stopped (its browser is closed)", place.name);
    Ok(ExitCode::SUCCESS)
}

/// `ghostlight session start`: check, then run the session in the background (a new process
/// group, its standard error in the log) and wait until it answers; with `foreground`, serve
/// here until stopped.
pub(crate) fn start(name: &str, foreground: bool, browser: &BrowserArgs) -> Result<ExitCode, CliError> {
    let place = Place::of(name)?;
    let options = browser.resolve()?;
    if place.connect()?.is_some() {
        return Err(CliError::Usage(format!(
            "session {:?} is already running (`ghostlight session status`); stop it first to change its browser",
            place.name
        )));
    }
    if foreground {
        return serve(place, options, flags_of(browser));
    }
    let log_path = place.log();
    let log = ghostlight_cli::private_file::rewrite(&log_path)?;
    let exe = std::env::current_exe()
        .map_err(|source| CliError::File { path: PathBuf::from("ghostlight"), source })?;
    let mut child = std::process::Command::new(&exe)
        .args(std::env::args_os().skip(1))
        .arg("--foreground")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()
        .map_err(|source| CliError::File { path: exe.clone(), source })?;
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Some(stream) = place.connect()? {
            let status = Client { place, stream }.status()?;
            print_status(&status)?;
            return Ok(ExitCode::SUCCESS);
        }
        let exited = child.try_wait().map_err(|error| place.failed(error.to_string()))?;
        if exited.is_some() || Instant::now() > deadline {
            // Not answering in time is not starting: end it rather than leave it behind.
            let _ = child.kill();
            let _ = child.wait();
            let mut text = String::new();
            let _ = std::fs::File::open(&log_path).and_then(|mut file| file.read_to_string(&mut text));
            let last = text.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("no message");
            return Err(place.failed(format!("did not start: {last} (log: {})", log_path.display())));
        }
        std::thread::sleep(POLL);
    }
}

/// Browser flags and configuration file as parsed, in a form two commands' can be compared by.
fn flags_of(browser: &BrowserArgs) -> String {
    format!("{browser:?}")
}

// ----- the session itself ----------------------------------------------------------------------

/// Serve session `place` until `session stop` or a signal: one Ghostlight workspace over one
/// browser (started by the first call that needs it).
fn serve(place: Place, options: ServeOptions, flags: String) -> Result<ExitCode, CliError> {
    ghostlight_cli::logging::init();
    // A socket nobody serves is left over from a session that died: replace it.
    if let Ok(metadata) = std::fs::symlink_metadata(&place.socket)
        && metadata.file_type().is_socket()
        && place.connect()?.is_none()
    {
        let _ = std::fs::remove_file(&place.socket);
    }
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(CliError::Runtime)?;
    let result = runtime.block_on(async {
        let listener = tokio::net::UnixListener::bind(&place.socket)
            .map_err(|error| place.failed(format!("cannot listen on {}: {error}", place.socket.display())))?;
        let guard = SocketFile(place.socket.clone());
        std::fs::set_permissions(&place.socket, std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .map_err(|source| CliError::File { path: place.socket.clone(), source })?;
        let (browser, ghostlight) = ghostlight_cli::browser::ghostlight(&options)?;
        let shared = Arc::new(Shared {
            ghostlight,
            browser: browser.clone(),
            options: options.browser.clone(),
            uid: place.uid,
            status: Status {
                name: place.name.clone(),
                pid: std::process::id(),
                socket: place.socket.clone(),
                browser: String::new(),
                uptime_s: 0,
                calls: 0,
                flags,
            },
            started: Instant::now(),
            calls: AtomicU64::new(0),
            stop: tokio::sync::Notify::new(),
        });
        tracing::info!(session = %place.name, engine = options.browser.webdriver.engine.as_str(), "session serving on its socket");
        loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        tokio::spawn(connection(shared.clone(), stream));
                    }
                    Err(error) => tracing::warn!(%error, "a session connection failed"),
                },
                () = shared.stop.notified() => break,
                () = ghostlight_cli::serve::shutdown_signal() => break,
            }
        }
        drop(listener);
        browser.shutdown().await;
        drop(guard);
        tracing::info!(session = %place.name, "session stopped");
        Ok::<(), CliError>(())
    });
    runtime.shutdown_timeout(ghostlight_cli::serve::RUNTIME_SHUTDOWN);
    result?;
    Ok(ExitCode::SUCCESS)
}

/// Removes the socket file when the session ends, however it ends.
struct SocketFile(PathBuf);

impl Drop for SocketFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// What every connection of a session shares.
struct Shared {
    ghostlight: Ghostlight,
    browser: Browser,
    options: BrowserOptions,
    uid: u32,
    status: Status,
    started: Instant,
    calls: AtomicU64,
    stop: tokio::sync::Notify,
}

/// Serve one connection: its peer must be this user; one request, its answer.
async fn connection(shared: Arc<Shared>, stream: tokio::net::UnixStream) {
    match stream.peer_cred() {
        Ok(peer) if peer.uid() == shared.uid => {}
        _ => {
            tracing::warn!("a session connection from another user was refused");
            return;
        }
    }
    let (read, mut write) = stream.into_split();
    let mut reader = tokio::io::BufReader::new(read);
    let mut line = String::new();
    let request = match (&mut reader).take(REQUEST_BYTES).read_line(&mut line).await {
        Ok(_) if line.ends_with('\n') => serde_json::from_str::<Request>(&line),
        _ => {
            let refused =
                Reply::Refused { message: "an incomplete or oversized request".into(), usage: false };
            let _ = write_reply(&mut write, &refused).await;
            return;
        }
    };
    match request {
        Err(error) => {
            let refused = Reply::Refused { message: format!("an unreadable request: {error}"), usage: false };
            let _ = write_reply(&mut write, &refused).await;
        }
        Ok(Request::Status) => {
            let mut status = shared.status.clone();
            status.uptime_s = shared.started.elapsed().as_secs();
            status.calls = shared.calls.load(Ordering::Relaxed);
            status.browser = shared.browser.describe(&shared.options);
            let _ = write_reply(&mut write, &Reply::Status(status)).await;
        }
        Ok(Request::Stop) => {
            let _ = write_reply(&mut write, &Reply::Stopped).await;
            shared.stop.notify_one();
        }
        Ok(Request::Call { tool, arguments }) => {
            shared.calls.fetch_add(1, Ordering::Relaxed);
            call(&shared, &tool, &arguments, reader, write).await;
        }
    }
}

/// Forwards each ended step to the connection's writer.
struct StepReplies(tokio::sync::mpsc::UnboundedSender<Reply>);

impl Progress for StepReplies {
    fn step_finished(&self, step: StepProgress<'_>) {
        let _ = self.0.send(Reply::Step {
            index: step.index,
            total: step.total,
            id: step.id.map(str::to_owned),
            tool: step.tool.as_str().to_owned(),
            envelope: Box::new(step.envelope.clone()),
        });
    }
}

/// Run one call, writing its steps as they end and then its result; the client hanging up
/// cancels it.
async fn call(
    shared: &Shared,
    tool: &str,
    arguments: &Value,
    mut reader: tokio::io::BufReader<tokio::net::unix::OwnedReadHalf>,
    mut write: tokio::net::unix::OwnedWriteHalf,
) {
    let cancellation = Cancellation::new();
    let (sender, mut replies) = tokio::sync::mpsc::unbounded_channel();
    let work = async {
        let steps = StepReplies(sender);
        let started = Instant::now();
        let invoked = shared.ghostlight.invoke_observed(tool, arguments, &cancellation, &steps).await;
        // Tool, status and time only: never arguments, page text or images.
        match &invoked {
            Ok(result) => tracing::info!(
                tool,
                invocation = %result.envelope.invocation,
                status = result.envelope.status.as_str(),
                elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                "session call"
            ),
            Err(_) => tracing::warn!("session call for a tool outside the catalog"),
        }
        let reply = match invoked {
            Ok(result) => Reply::Result {
                envelope: Box::new(result.envelope),
                attachments: result
                    .attachments
                    .iter()
                    .map(|image| WireAttachment {
                        mime_type: image.mime_type.to_owned(),
                        base64: BASE64.encode(&image.bytes),
                    })
                    .collect(),
            },
            Err(unknown) => Reply::Refused { message: unknown.to_string(), usage: true },
        };
        let _ = steps.0.send(reply);
    };
    let writer = async {
        while let Some(reply) = replies.recv().await {
            if write_reply(&mut write, &reply).await.is_err() {
                break;
            }
        }
    };
    let hung_up = async {
        let mut byte = [0u8; 1];
        while matches!(reader.read(&mut byte).await, Ok(n) if n > 0) {}
    };
    let both = async { tokio::join!(work, writer) };
    tokio::pin!(both);
    tokio::select! {
        _ = &mut both => {}
        () = hung_up => {
            tracing::info!(tool, "the client hung up: cancelling its call");
            cancellation.cancel();
            both.await;
        }
    }
}

async fn write_reply(write: &mut tokio::net::unix::OwnedWriteHalf, reply: &Reply) -> std::io::Result<()> {
    let mut line = serde_json::to_string(reply).map_err(std::io::Error::other)?;
    line.push('\n');
    write.write_all(line.as_bytes()).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_names_are_short_words() {
        for good in ["default", "a", "work-2", "CI_run"] {
            assert!(checked_name(good).is_ok(), "{good}");
        }
        for bad in ["", "a b", "../x", "x/y", "é", &"a".repeat(NAME_CHARS + 1)] {
            assert!(checked_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn replies_round_trip_as_json_lines() {
        let reply = Reply::Refused { message: "no".into(), usage: true };
        let text = serde_json::to_string(&reply).unwrap_or_default();
        assert_eq!(text, r#"{"refused":{"message":"no","usage":true}}"#);
        let request: Request = serde_json::from_str(r#"{"op":"call","tool":"browser_read","arguments":{}}"#)
            .unwrap_or(Request::Stop);
        assert!(matches!(request, Request::Call { ref tool, .. } if tool == "browser_read"));
    }
}
