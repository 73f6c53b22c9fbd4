//! `mcp`, `call`, `flow`, `policy explain` and `config`.

use std::io::{IsTerminal as _, Read as _, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use ghostlight_cli::ServeError;
use ghostlight_cli::config::{self, ConfigFile, ConfigSources, LoadedConfig};
use ghostlight_cli::options::{BrowserArgs, ServeArgs, ServeOptions};
use ghostlight_cli::serve::RUNTIME_SHUTDOWN;
use ghostlight_core::{Cancellation, NoProgress, Progress, Status, StepProgress, ToolName, ToolResult};
use serde_json::Value;

use crate::error::CliError;
use crate::human;
use crate::{SessionArgs, SessionCommand};

fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(CliError::Runtime)
}

/// `ghostlight mcp`: the `ghostlight-mcp` serving path.
pub(crate) fn mcp(serve: &ServeArgs) -> Result<ExitCode, CliError> {
    ghostlight_cli::serve::run(serve).map_err(|error| match error {
        ServeError::Config(error) => CliError::from(error),
        ServeError::Runtime(error) => CliError::Runtime(error),
        ServeError::Mcp(error) => CliError::Serve(error),
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The tool named on the command line, or a usage error that says which tool was probably
/// meant.
fn known_tool(tool: &str) -> Result<ToolName, CliError> {
    ToolName::parse(tool).ok_or_else(|| {
        let shown = ghostlight_core::UnknownTool::new(tool).name;
        let hint = match ToolName::suggest(tool) {
            Some(meant) => format!("; did you mean {meant}?"),
            None => String::new(),
        };
        CliError::Usage(format!("unknown tool {shown:?}{hint} (`ghostlight tools` lists all 24)"))
    })
}

/// Refuse an `--out` that cannot become a directory (it, or what would hold it, is a file)
/// before any browser work, so that a screenshot is never taken only to be lost.
fn check_out_dir(out: &Path) -> Result<(), CliError> {
    if let Some(existing) = out.ancestors().find(|path| !path.as_os_str().is_empty() && path.exists())
        && !existing.is_dir()
    {
        let what =
            if existing == out { String::new() } else { format!(" ({} is a file)", existing.display()) };
        return Err(CliError::Usage(format!(
            "--out {} must be a directory{what}; name a directory (it is created when missing)",
            out.display()
        )));
    }
    Ok(())
}

/// Read `text` as JSON arguments (`-`: standard input).
fn arguments(text: &str, origin: &str) -> Result<Value, CliError> {
    let text = if text == "-" {
        let mut buffer = String::new();
        std::io::stdin()
            .read_to_string(&mut buffer)
            .map_err(|source| CliError::File { path: PathBuf::from("<stdin>"), source })?;
        buffer
    } else {
        text.to_owned()
    };
    let value: Value = serde_json::from_str(&text)
        .map_err(|error| CliError::Usage(format!("{origin} is not valid JSON: {error}")))?;
    if !value.is_object() {
        return Err(CliError::Usage(format!("{origin} must be a JSON object")));
    }
    Ok(value)
}

/// Where a command's calls run.
enum Backend {
    /// A browser started for this command and closed after it.
    Own(Box<ServeOptions>),
    /// A running session's browser and workspace (`ghostlight session`).
    #[cfg(unix)]
    Session(crate::session::Client),
}

/// The backend of `call` and `flow`: the session named, else the session `default` when it
/// runs, else a browser of the command's own.
fn backend(session: &SessionArgs, browser: &BrowserArgs) -> Result<Backend, CliError> {
    #[cfg(unix)]
    if let Some(client) = crate::session::client(session)? {
        // Browser flags or a configuration file the running session was not started with
        // would not apply to it: refused, never silently ignored.
        if *browser != BrowserArgs::default() && !client.started_with(browser)? {
            return Err(CliError::Usage(format!(
                "session {:?} is running with the browser and configuration it was started with, and this \
                 command gives other ones ({}); stop the session (`ghostlight session stop`) to start it again \
                 with them, or pass --no-session to run this command in a browser of its own",
                client.name(),
                browser.given_flags().join(", ")
            )));
        }
        return Ok(Backend::Session(client));
    }
    #[cfg(not(unix))]
    if session.session.is_some() {
        return Err(CliError::Usage("sessions need a Unix system".into()));
    }
    Ok(Backend::Own(Box::new(browser.resolve()?)))
}

/// Invoke one tool on `backend` (a browser of its own is closed afterwards); steps of a
/// composite are reported to `progress` as they end.
fn invoke(
    backend: Backend,
    tool: &str,
    arguments: &Value,
    progress: &dyn Progress,
) -> Result<ToolResult, CliError> {
    let options = match backend {
        Backend::Own(options) => options,
        #[cfg(unix)]
        Backend::Session(client) => return client.call(tool, arguments, progress),
    };
    let runtime = runtime()?;
    let (browser, ghostlight) = {
        // The extension connector listens at once, on this runtime.
        let _entered = runtime.enter();
        ghostlight_cli::browser::ghostlight(&options)?
    };
    // Confirmations are asked of the person at this terminal, if there is one, else through
    // the browser's own channel (the extension's popup), if any.
    let confirmer =
        ghostlight_core::Fallback(ghostlight_cli::confirm::TerminalConfirmer, ghostlight.confirmer());
    let ghostlight = ghostlight.with_confirmer(std::sync::Arc::new(confirmer));
    let result = runtime.block_on(async {
        browser.settle().await;
        let result = ghostlight.invoke_observed(tool, arguments, &Cancellation::never(), progress).await;
        browser.shutdown().await;
        result
    });
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
    result.map_err(|unknown| CliError::Usage(format!("{unknown} (see `ghostlight tools`)")))
}

/// `ghostlight session start|stop|status`.
pub(crate) fn session(command: SessionCommand) -> Result<ExitCode, CliError> {
    #[cfg(unix)]
    {
        match command {
            SessionCommand::Start { session, foreground, browser } => {
                crate::session::start(&session, foreground, &browser)
            }
            SessionCommand::Stop { session } => crate::session::stop(&session),
            SessionCommand::Status { session } => crate::session::status(&session),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = command;
        Err(CliError::Usage("sessions need a Unix system".into()))
    }
}

/// 0 when the invocation succeeded, 1 otherwise.
fn status_code(result: &ToolResult) -> ExitCode {
    if result.envelope.status == Status::Succeeded { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// An image saved under `--out`: where, and the flow step that took it.
struct Saved {
    path: PathBuf,
    step: Option<String>,
}

/// Save attachments under `out`, each named after the invocation that produced it:
/// `<invocation>-<n>.png|gif`. A flow's images are attributed to the steps that took them
/// when `steps` (in order) accounts for every one; otherwise they are named after the flow.
fn save_attachments(result: &ToolResult, out: &Path, steps: &[ImageStep]) -> Result<Vec<Saved>, CliError> {
    let mut saved = Vec::new();
    if result.attachments.is_empty() {
        return Ok(saved);
    }
    std::fs::create_dir_all(out).map_err(|source| CliError::File { path: out.to_owned(), source })?;
    let attributed = steps.len() == result.attachments.len()
        && steps.iter().zip(&result.attachments).all(|(step, image)| step.mime_type == image.mime_type);
    for (index, attachment) in result.attachments.iter().enumerate() {
        let extension = if attachment.mime_type == "image/gif" { "gif" } else { "png" };
        let (name, step) = match steps.get(index).filter(|_| attributed) {
            Some(step) => (format!("{}-1.{extension}", step.invocation), Some(step.id.clone())),
            None => (format!("{}-{}.{extension}", result.envelope.invocation, index + 1), None),
        };
        let path = out.join(name);
        // A new file of the user's alone: a link or file planted at the name is refused.
        let mut file = ghostlight_cli::private_file::create_new(&path)?;
        file.write_all(&attachment.bytes).map_err(|source| CliError::File { path: path.clone(), source })?;
        saved.push(Saved { path, step });
    }
    Ok(saved)
}

/// `Saved: PATH`, with the step that took it.
fn print_saved(out: &mut impl Write, saved: &[Saved]) -> std::io::Result<()> {
    for image in saved {
        match &image.step {
            Some(step) => writeln!(out, "Saved: {} (step {step})", image.path.display())?,
            None => writeln!(out, "Saved: {}", image.path.display())?,
        }
    }
    Ok(())
}

/// `ghostlight call TOOL [ARGS_JSON|-]`.
pub(crate) fn call(
    tool: &str,
    arguments_text: &str,
    json: bool,
    out_dir: &Path,
    session: &SessionArgs,
    browser: &BrowserArgs,
) -> Result<ExitCode, CliError> {
    known_tool(tool)?;
    check_out_dir(out_dir)?;
    let arguments = arguments(arguments_text, "ARGS_JSON")?;
    let backend = backend(session, browser)?;
    if tool == ToolName::Flow.as_str() {
        // A flow reads best step by step, exactly as `ghostlight flow` prints it.
        return run_flow(&arguments, json, out_dir, backend);
    }
    let own_browser = matches!(backend, Backend::Own(_));
    let result = invoke(backend, tool, &arguments, &NoProgress)?;
    let saved = save_attachments(&result, out_dir, &[])?;
    // A call without a session found no tab: the tabs of earlier calls closed with their
    // browsers, which a newcomer does not expect.
    if own_browser && result.envelope.facts.get("reason").and_then(Value::as_str) == Some("no_tab") {
        eprintln!(
            "ghostlight: without a running session each call starts a browser of its own and closes it \
             afterwards; `ghostlight session start` keeps one, with its tabs, between commands"
        );
    }
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", envelope_json(&result)?)?;
        for image in &saved {
            eprintln!("saved {}", image.path.display());
        }
    } else {
        let envelope = &result.envelope;
        writeln!(out, "[{}] {}", envelope.status.as_str(), tool)?;
        writeln!(out, "{}", envelope.summary)?;
        human::facts(&mut out, envelope, "  ")?;
        human::body(&mut out, envelope, "  ", human::CALL)?;
        for step in &envelope.next_steps {
            writeln!(out, "Next: {step}")?;
        }
        print_saved(&mut out, &saved)?;
    }
    Ok(status_code(&result))
}

fn envelope_json(result: &ToolResult) -> Result<String, CliError> {
    serde_json::to_string_pretty(&result.envelope)
        .map_err(|error| CliError::Output(std::io::Error::other(error.to_string())))
}

/// `ghostlight flow FILE`: one browser_flow invocation, printing each step as it ends (its
/// line, then what it read or found; with a transient "running" line on a terminal), then the
/// aggregate and where images were saved.
pub(crate) fn flow(
    file: &Path,
    json: bool,
    out_dir: &Path,
    session: &SessionArgs,
    browser: &BrowserArgs,
) -> Result<ExitCode, CliError> {
    let text = if file == Path::new("-") {
        "-".to_owned()
    } else {
        std::fs::read_to_string(file).map_err(|source| CliError::File { path: file.to_owned(), source })?
    };
    check_out_dir(out_dir)?;
    let arguments = arguments(&text, &file.display().to_string())?;
    run_flow(&arguments, json, out_dir, backend(session, browser)?)
}

/// Run browser_flow `arguments` and print it (see [`flow`]).
fn run_flow(arguments: &Value, json: bool, out_dir: &Path, backend: Backend) -> Result<ExitCode, CliError> {
    let steps = StepLines::new(arguments, !json, !json && std::io::stderr().is_terminal());
    steps.running(0);
    let result = invoke(backend, "browser_flow", arguments, &steps);
    steps.done();
    let result = result?;
    let saved = save_attachments(&result, out_dir, &steps.images())?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", envelope_json(&result)?)?;
        for image in &saved {
            eprintln!("saved {}", image.path.display());
        }
        return Ok(status_code(&result));
    }
    writeln!(out, "[{}] browser_flow", result.envelope.status.as_str())?;
    writeln!(out, "{}", result.envelope.summary)?;
    for step in &result.envelope.next_steps {
        writeln!(out, "Next: {step}")?;
    }
    print_saved(&mut out, &saved)?;
    Ok(status_code(&result))
}

/// A flow step that produced an image: a screenshot, or a replay returned to the caller.
#[derive(Debug, Clone)]
struct ImageStep {
    id: String,
    invocation: String,
    mime_type: &'static str,
}

impl ImageStep {
    /// The image `step` produced, if any.
    fn of(step: &StepProgress<'_>) -> Option<ImageStep> {
        if step.envelope.status != Status::Succeeded {
            return None;
        }
        let facts = &step.envelope.facts;
        let mime_type = match step.tool {
            ToolName::Screenshot => "image/png",
            ToolName::Record if facts.get("delivery").and_then(Value::as_str) == Some("client") => {
                "image/gif"
            }
            _ => return None,
        };
        Some(ImageStep {
            id: step.id.unwrap_or("-").to_owned(),
            invocation: step.envelope.invocation.clone(),
            mime_type,
        })
    }
}

/// Watches a flow's steps: prints each as it ends on standard output (a line, then what it
/// read or found) when `print`; on a terminal, keeps a transient "running step N of M" line
/// on standard error for the step actually in progress; and notes which steps produced
/// images.
struct StepLines {
    print: bool,
    terminal: bool,
    total: usize,
    /// A failed step ends the flow (`on_error` is not `continue`).
    stops_on_error: bool,
    /// The transient line is on the screen.
    showing: Mutex<bool>,
    images: Mutex<Vec<ImageStep>>,
}

/// Erase the terminal's current line (carriage return, then ANSI "erase line").
const ERASE_LINE: &str = "\r\x1b[2K";

impl StepLines {
    fn new(arguments: &Value, print: bool, terminal: bool) -> Self {
        StepLines {
            print,
            terminal,
            // Steps in the flow's arguments (0 when they are not a list; the decoder says why).
            total: arguments.get("steps").and_then(Value::as_array).map_or(0, Vec::len),
            stops_on_error: arguments.get("on_error").and_then(Value::as_str) != Some("continue"),
            showing: Mutex::new(false),
            images: Mutex::new(Vec::new()),
        }
    }

    /// Show that step `index` (from 0) is running.
    fn running(&self, index: usize) {
        if self.terminal && index < self.total {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "{ERASE_LINE}running step {} of {}…", index + 1, self.total);
            let _ = err.flush();
            *self.showing.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = true;
        }
    }

    /// Erase the transient line, if it is on the screen.
    fn erase(&self) {
        let mut showing = self.showing.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if *showing {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "{ERASE_LINE}");
            let _ = err.flush();
            *showing = false;
        }
    }

    /// The flow ended (or never started): no step is running any more.
    fn done(&self) {
        self.erase();
    }

    /// The steps that produced images, in order.
    fn images(&self) -> Vec<ImageStep> {
        self.images.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

impl Progress for StepLines {
    fn step_finished(&self, step: StepProgress<'_>) {
        self.erase();
        if let Some(image) = ImageStep::of(&step) {
            self.images.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(image);
        }
        if self.print {
            // A closed standard output only costs the progress lines; the exit code still tells.
            let mut out = std::io::stdout().lock();
            let _ = writeln!(
                out,
                "[{}/{}] {} {} {} — {}",
                step.index + 1,
                step.total,
                step.id.unwrap_or("-"),
                step.tool.as_str(),
                step.envelope.status.as_str(),
                step.envelope.summary
            );
            let _ = human::body(&mut out, step.envelope, "    ", human::STEP);
            let _ = out.flush();
        }
        // The next step runs unless this one failed and failures stop the flow.
        if step.envelope.status == Status::Succeeded || !self.stops_on_error {
            self.running(step.index + 1);
        }
    }
}

/// `ghostlight policy explain`: policy_explain over a browser that is never contacted.
pub(crate) fn policy_explain(json: bool, browser: &BrowserArgs) -> Result<ExitCode, CliError> {
    let options = browser.resolve()?;
    let result = invoke(
        Backend::Own(Box::new(options)),
        "policy_explain",
        &Value::Object(serde_json::Map::new()),
        &NoProgress,
    )?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", envelope_json(&result)?)?;
        return Ok(status_code(&result));
    }
    let facts = &result.envelope.facts;
    writeln!(out, "{}", result.envelope.summary)?;
    if let Some(situation) = facts.get("situation").and_then(Value::as_str) {
        writeln!(out, "{situation}")?;
    }
    for line in facts.get("capabilities").and_then(Value::as_array).into_iter().flatten() {
        if let Some(text) = line.get("line").and_then(Value::as_str) {
            writeln!(out, "  {text}")?;
        }
    }
    for rule in facts.get("rules").and_then(Value::as_array).into_iter().flatten() {
        let layer = rule.get("layer").and_then(Value::as_str).unwrap_or("-");
        let text = rule.get("rule").and_then(Value::as_str).unwrap_or("-");
        writeln!(out, "  rule ({layer}): {text}")?;
    }
    for setting in facts.get("settings").and_then(Value::as_array).into_iter().flatten() {
        let name = setting.get("name").and_then(Value::as_str).unwrap_or("-");
        let layer = setting.get("layer").and_then(Value::as_str).unwrap_or("-");
        let value = setting.get("value").cloned().unwrap_or(Value::Null);
        writeln!(out, "  setting {name} = {value} ({layer})")?;
    }
    for ceiling in
        facts.get("ceilings").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str)
    {
        writeln!(out, "  ceiling: {ceiling}")?;
    }
    if let Some(startup) = facts.get("startup").and_then(Value::as_str) {
        writeln!(out, "  startup: {startup}")?;
    }
    if let Some(organization) = facts.get("organization").and_then(Value::as_str) {
        writeln!(out, "  organization: {organization}")?;
    }
    for step in &result.envelope.next_steps {
        writeln!(out, "Next: {step}")?;
    }
    Ok(status_code(&result))
}

/// The user file `config init` writes and `config check` reads by default.
fn user_path(explicit: Option<PathBuf>) -> Result<PathBuf, CliError> {
    match ConfigSources::discover(explicit.as_deref()).user {
        Some((path, _)) => Ok(path),
        None => Err(CliError::Usage(
            "no configuration directory: set XDG_CONFIG_HOME or HOME, or pass --config FILE".into(),
        )),
    }
}

/// `ghostlight config init`.
pub(crate) fn config_init(explicit: Option<PathBuf>, force: bool) -> Result<ExitCode, CliError> {
    let path = user_path(explicit)?;
    if path.exists() && !force {
        return Err(CliError::Usage(format!(
            "{} already exists; pass --force to overwrite it",
            path.display()
        )));
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|source| CliError::File { path: parent.to_owned(), source })?;
    }
    std::fs::write(&path, config::default_file())
        .map_err(|source| CliError::File { path: path.clone(), source })?;
    println!("wrote {}", path.display());
    Ok(ExitCode::SUCCESS)
}

/// `ghostlight config check`.
pub(crate) fn config_check(file: Option<PathBuf>, organization: bool) -> Result<ExitCode, CliError> {
    let mut out = std::io::stdout().lock();
    if organization {
        let path = file.ok_or_else(|| CliError::Usage("--organization needs the FILE to check".into()))?;
        config::load_organization(&path)?;
        writeln!(out, "ok: {} (organization)", path.display())?;
        return Ok(ExitCode::SUCCESS);
    }
    let explicit = file.is_some();
    let sources = ConfigSources::discover(file.as_deref());
    let loaded: LoadedConfig = sources.load()?;
    // Resolve too: values that parse but cannot be used (an audit file without a path, an
    // https:// proxy with Firefox, a browser argument Ghostlight manages itself).
    let options = ServeArgs::default().resolve_loaded(&loaded)?;
    ghostlight_cli::browser::checked_config(&options.browser)?;
    match (&loaded.user, &sources.user) {
        (Some((path, _)), _) => writeln!(out, "ok: {}", path.display())?,
        (None, Some((path, _))) => writeln!(out, "no user file at {} (defaults apply)", path.display())?,
        (None, None) => writeln!(out, "no user file (defaults apply)")?,
    }
    if !explicit {
        match &loaded.organization {
            Some((path, _)) => writeln!(out, "ok: {} (organization)", path.display())?,
            None => writeln!(out, "no organization file at {}", config::ORGANIZATION_PATH)?,
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `ghostlight config path`.
pub(crate) fn config_path() -> Result<ExitCode, CliError> {
    let mut out = std::io::stdout().lock();
    let exists = |path: &Path| if path.exists() { "exists" } else { "not found" };
    match std::env::var_os(config::CONFIG_ENV).filter(|v| !v.is_empty()) {
        Some(path) => {
            let path = PathBuf::from(path);
            writeln!(out, "user: {} ({}; from ${})", path.display(), exists(&path), config::CONFIG_ENV)?;
        }
        None => match config::default_user_path() {
            Some(path) => writeln!(out, "user: {} ({})", path.display(), exists(&path))?,
            None => writeln!(out, "user: none (HOME and XDG_CONFIG_HOME are unset)")?,
        },
    }
    let organization = Path::new(config::ORGANIZATION_PATH);
    writeln!(out, "organization: {} ({})", organization.display(), exists(organization))?;
    writeln!(out, "override: --config FILE or ${}", config::CONFIG_ENV)?;
    Ok(ExitCode::SUCCESS)
}

/// Parse a user file (for doctor).
pub(crate) fn check_user_file(explicit: Option<&Path>) -> Result<Option<PathBuf>, CliError> {
    let loaded = ConfigSources::discover(explicit).load()?;
    Ok(loaded.user.map(|(path, _file): (PathBuf, ConfigFile)| path))
}

#[cfg(test)]
mod tests {
    use ghostlight_cli::ConfigError;

    use super::*;

    #[test]
    fn a_build_without_http_names_this_binary_and_its_feature() {
        let error = CliError::from(ConfigError::HttpUnavailable);
        assert_eq!(error.exit_code(), 2);
        let text = error.to_string();
        assert!(text.starts_with("this build of ghostlight has no HTTP transport"), "{text}");
        assert!(
            text.contains("--path ghostlight-cli --features http") && !text.contains("ghostlight-mcp"),
            "{text}"
        );
        let text = CliError::from(ConfigError::ExtensionUnavailable).to_string();
        assert!(
            text.starts_with("this build of ghostlight has no extension connector")
                && text.contains("--features extension")
                && !text.contains("ghostlight-mcp"),
            "{text}"
        );
    }
}
