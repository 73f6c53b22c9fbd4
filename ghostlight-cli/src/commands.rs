//! `mcp`, `call`, `flow`, `policy explain` and `config`.

use std::io::{IsTerminal as _, Read as _, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ghostlight_core::{Cancellation, NoProgress, Progress, Status, StepProgress, ToolName, ToolResult};
use ghostlight_mcp::config::{self, ConfigFile, ConfigSources, LoadedConfig};
use ghostlight_mcp::options::{BrowserArgs, ServeOptions};
use ghostlight_mcp::{ConfigError, ServeArgs, ServeError};
use serde_json::Value;

use crate::error::CliError;

/// How long the runtime waits for stray blocking tasks (a terminal stdin read) at exit.
const RUNTIME_SHUTDOWN: std::time::Duration = std::time::Duration::from_secs(2);

fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(CliError::Runtime)
}

/// `ghostlight mcp`: the `ghostlight-mcp` serving path.
pub(crate) fn mcp(serve: &ServeArgs) -> Result<ExitCode, CliError> {
    ghostlight_mcp::logging::init();
    let options = serve.resolve().map_err(this_binary)?;
    let runtime = runtime()?;
    let result = runtime.block_on(ghostlight_mcp::browser::serve(options));
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
    result.map_err(|error| match error {
        ServeError::Config(error) => this_binary(error),
        other => CliError::Serve(other),
    })?;
    Ok(ExitCode::SUCCESS)
}

/// A configuration error in this binary's words: the library's message for a build without
/// the HTTP transport names `ghostlight-mcp`, and the fix here is another feature of another
/// crate.
fn this_binary(error: ConfigError) -> CliError {
    match error {
        ConfigError::HttpUnavailable => CliError::Usage(HTTP_UNAVAILABLE.to_owned()),
        other => CliError::Config(other),
    }
}

/// Why `ghostlight mcp --transport http` cannot serve in a build without the feature.
const HTTP_UNAVAILABLE: &str = "this build of ghostlight has no HTTP transport: rebuild the ghostlight command \
    with the cargo feature `http` (cargo install --path ghostlight-cli --features http)";

/// The tool named on the command line, or a usage error that says which tool was probably
/// meant.
fn known_tool(tool: &str) -> Result<ToolName, CliError> {
    ToolName::parse(tool).ok_or_else(|| {
        let shown = ghostlight_core::language::bound_visible(tool, ghostlight_core::limits::ECHO_CHARS)
            .unwrap_or_default();
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

/// Invoke one tool on a browser started for this command, then close the browser; steps of
/// a composite are reported to `progress` as they end.
fn invoke(
    options: &ServeOptions,
    tool: &str,
    arguments: &Value,
    progress: &dyn Progress,
) -> Result<ToolResult, CliError> {
    let (browser, ghostlight) = ghostlight_mcp::browser::ghostlight(options)?;
    let runtime = runtime()?;
    let result = runtime.block_on(async {
        let result = ghostlight.invoke_observed(tool, arguments, &Cancellation::never(), progress).await;
        browser.shutdown().await;
        result
    });
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
    result.map_err(|unknown| CliError::Usage(format!("{unknown} (see `ghostlight tools`)")))
}

/// 0 when the invocation succeeded, 1 otherwise.
fn status_code(result: &ToolResult) -> ExitCode {
    if result.envelope.status == Status::Succeeded { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Save attachments under `out` as `<invocation>-<n>.png|gif`; returns the paths.
fn save_attachments(result: &ToolResult, out: &Path) -> Result<Vec<PathBuf>, CliError> {
    let mut saved = Vec::new();
    if result.attachments.is_empty() {
        return Ok(saved);
    }
    std::fs::create_dir_all(out).map_err(|source| CliError::File { path: out.to_owned(), source })?;
    for (index, attachment) in result.attachments.iter().enumerate() {
        let extension = if attachment.mime_type == "image/gif" { "gif" } else { "png" };
        let path = out.join(format!("{}-{}.{extension}", result.envelope.invocation, index + 1));
        std::fs::write(&path, &attachment.bytes)
            .map_err(|source| CliError::File { path: path.clone(), source })?;
        saved.push(path);
    }
    Ok(saved)
}

/// Print the envelope for a person: status, summary, facts, next steps.
fn print_envelope(out: &mut impl Write, result: &ToolResult, facts: bool) -> std::io::Result<()> {
    let envelope = &result.envelope;
    writeln!(out, "{}", envelope.summary)?;
    if facts {
        for (key, value) in &envelope.facts {
            print_fact(out, key, value)?;
        }
    }
    for step in &envelope.next_steps {
        writeln!(out, "Next: {step}")?;
    }
    Ok(())
}

/// One fact: strings as they are, string lists one item a line, anything else compact JSON.
fn print_fact(out: &mut impl Write, key: &str, value: &Value) -> std::io::Result<()> {
    match value {
        Value::String(text) if text.contains('\n') => {
            writeln!(out, "  {key}:")?;
            for line in text.lines() {
                writeln!(out, "    {line}")?;
            }
            Ok(())
        }
        Value::String(text) => writeln!(out, "  {key}: {text}"),
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_string) => {
            writeln!(out, "  {key}:")?;
            items.iter().filter_map(Value::as_str).try_for_each(|item| writeln!(out, "    - {item}"))
        }
        other => writeln!(out, "  {key}: {other}"),
    }
}

/// `ghostlight call TOOL [ARGS_JSON|-]`.
pub(crate) fn call(
    tool: &str,
    arguments_text: &str,
    json: bool,
    out_dir: &Path,
    browser: &BrowserArgs,
) -> Result<ExitCode, CliError> {
    known_tool(tool)?;
    check_out_dir(out_dir)?;
    let arguments = arguments(arguments_text, "ARGS_JSON")?;
    let options = browser.serve_args().resolve()?;
    let result = invoke(&options, tool, &arguments, &NoProgress)?;
    let saved = save_attachments(&result, out_dir)?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", envelope_json(&result)?)?;
        for path in &saved {
            eprintln!("saved {}", path.display());
        }
    } else {
        writeln!(out, "[{}] {}", result.envelope.status.as_str(), tool)?;
        print_envelope(&mut out, &result, true)?;
        for path in &saved {
            writeln!(out, "Saved: {}", path.display())?;
        }
    }
    Ok(status_code(&result))
}

fn envelope_json(result: &ToolResult) -> Result<String, CliError> {
    serde_json::to_string_pretty(&result.envelope)
        .map_err(|error| CliError::Output(std::io::Error::other(error.to_string())))
}

/// `ghostlight flow FILE`: one browser_flow invocation, printing one line per step as it
/// ends (with a transient "running" line on a terminal), then the aggregate.
pub(crate) fn flow(
    file: &Path,
    json: bool,
    out_dir: &Path,
    browser: &BrowserArgs,
) -> Result<ExitCode, CliError> {
    let text = if file == Path::new("-") {
        "-".to_owned()
    } else {
        std::fs::read_to_string(file).map_err(|source| CliError::File { path: file.to_owned(), source })?
    };
    check_out_dir(out_dir)?;
    let arguments = arguments(&text, &file.display().to_string())?;
    let options = browser.serve_args().resolve()?;
    let result = if json {
        invoke(&options, "browser_flow", &arguments, &NoProgress)?
    } else {
        let lines = StepLines::new(std::io::stderr().is_terminal());
        lines.running(0, step_count(&arguments));
        invoke(&options, "browser_flow", &arguments, &lines)?
    };
    let saved = save_attachments(&result, out_dir)?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", envelope_json(&result)?)?;
        return Ok(status_code(&result));
    }
    writeln!(out, "[{}] browser_flow", result.envelope.status.as_str())?;
    print_envelope(&mut out, &result, false)?;
    for path in &saved {
        writeln!(out, "Saved: {}", path.display())?;
    }
    Ok(status_code(&result))
}

/// Steps in a flow's arguments (0 when they are not a list; the decoder will say why).
fn step_count(arguments: &Value) -> usize {
    arguments.get("steps").and_then(Value::as_array).map_or(0, Vec::len)
}

/// Prints one line per flow step on standard output as it ends; on a terminal, also keeps a
/// transient "running step N of M" line on standard error, erased before each step line.
struct StepLines {
    terminal: bool,
}

/// Erase the terminal's current line (carriage return, then ANSI "erase line").
const ERASE_LINE: &str = "\r\x1b[2K";

impl StepLines {
    fn new(terminal: bool) -> Self {
        StepLines { terminal }
    }

    /// Show that step `index` (from 0) of `total` is running.
    fn running(&self, index: usize, total: usize) {
        if self.terminal && index < total {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "{ERASE_LINE}running step {} of {total}…", index + 1);
            let _ = err.flush();
        }
    }
}

impl Progress for StepLines {
    fn step_finished(&self, step: StepProgress<'_>) {
        if self.terminal {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "{ERASE_LINE}");
            let _ = err.flush();
        }
        // A closed standard output only costs the progress line; the exit code still tells.
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
        let _ = out.flush();
        self.running(step.index + 1, step.total);
    }
}

/// `ghostlight policy explain`: policy_explain over a browser that is never contacted.
pub(crate) fn policy_explain(json: bool, browser: &BrowserArgs) -> Result<ExitCode, CliError> {
    let options = browser.serve_args().resolve()?;
    let result = invoke(&options, "policy_explain", &Value::Object(serde_json::Map::new()), &NoProgress)?;
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
    std::fs::write(&path, config::DEFAULT_FILE)
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
    // Resolve too: values that parse but cannot be used (an audit file without a path).
    ServeArgs { config: loaded.user.as_ref().map(|(p, _)| p.clone()), ..ServeArgs::default() }
        .resolve_loaded(&loaded)?;
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
    use super::*;

    #[test]
    fn a_build_without_http_names_this_binary_and_its_feature() {
        let error = this_binary(ConfigError::HttpUnavailable);
        assert_eq!(error.exit_code(), 2);
        let text = error.to_string();
        assert!(text.starts_with("this build of ghostlight has no HTTP transport"), "{text}");
        assert!(
            text.contains("--path ghostlight-cli --features http") && !text.contains("ghostlight-mcp"),
            "{text}"
        );
    }
}
