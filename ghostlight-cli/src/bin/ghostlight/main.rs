//! `ghostlight`: the command-line edge of Ghostlight.
//!
//! Serve MCP over stdio (`ghostlight mcp`), call one tool or run a flow against a browser the
//! command starts or a running session keeps (`call`, `flow`, `session start|stop|status`),
//! export the catalog as function-calling definitions (`tools`), explain the compiled
//! authority (`policy explain`), manage the configuration file (`config init|check|path`) and
//! check the machine (`doctor`), and register the extension connector with your own browsers
//! (`install`); check and read an audit file (`audit verify|show`).
//!
//! Exit codes: 0 success; 1 the browser work failed, was refused, or needs a person; 2 a usage
//! or configuration error.
//!
//! ```sh
//! ghostlight doctor --probe                       # browsers, drivers, configuration; opens one session
//! ghostlight call browser_navigate '{"url":"https://example.com"}'
//! ghostlight call --json --out shots browser_screenshot '{}'
//! ghostlight session start                        # later calls share one browser and its tabs
//! ghostlight flow smoke.json                      # one line per step as it ends; exit 1 if it stopped
//! ghostlight tools --format openai > tools.json   # function-calling definitions
//! ghostlight tools --format openai-responses --strict > tools.json   # strict, Responses API
//! ghostlight config init && ghostlight config check
//! ```
//!
//! A flow file is `browser_flow` arguments; a step refers to an earlier one with `flow_ref`:
//!
//! ```json
//! {"steps": [
//!   {"id": "open", "tool": "browser_navigate", "arguments": {"url": "https://example.com"}},
//!   {"id": "read", "tool": "browser_read",
//!    "arguments": {"tab": {"flow_ref": {"step": "open", "pointer": "/facts/tab"}}}}
//! ]}
//! ```

#![forbid(unsafe_code)]
// The doc comments on the clap types are the command's help text, written for a terminal:
// `[organization]` is a TOML section and an example URL is text, not a rustdoc link.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::bare_urls)]

mod audit;
mod commands;
mod doctor;
mod error;
mod export;
mod human;
mod install;
#[cfg(unix)]
mod session;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use ghostlight_cli::config::CONFIG_ENV;
use ghostlight_cli::options::{BrowserArgs, ServeArgs};
use ghostlight_cli::settings::{Setting, Value};

use crate::error::CliError;

/// Governed browser tools for AI models.
///
/// Ghostlight gives a model 24 browser tools; every call is checked against the authority you
/// configured and answered with one envelope (status, effect, a summary, facts, next steps).
///
/// Start here: `ghostlight doctor` checks for a browser and its driver; `ghostlight mcp` serves
/// the tools to an MCP client; `ghostlight call browser_navigate '{"url":"https://example.com"}'`
/// tries one call.
///
/// Exit codes: 0 success, 1 the browser work failed or was refused, 2 usage or configuration
/// error.
#[derive(Debug, Parser)]
#[command(name = "ghostlight", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the 24 tools over MCP on standard input and output (what an MCP client launches).
    ///
    /// The same server as the `ghostlight-mcp` binary: headless Chromium through chromedriver
    /// by default, started on the first call that needs it. Logs go to standard error.
    Mcp {
        #[command(flatten)]
        serve: ServeArgs,
    },
    /// Call one tool against a running session, else a browser this command starts and closes.
    ///
    /// Prints the summary, the facts, the text read (bounded, with a note when cut), rows found
    /// or inspected as a table, and next steps; or the envelope JSON with --json. Screenshots
    /// and replays are saved under --out, never printed. A browser_flow prints as `flow` does.
    ///
    /// Example: ghostlight call browser_navigate '{"url":"https://example.com"}'
    Call {
        /// The tool, e.g. browser_navigate (see `ghostlight tools`).
        tool: String,
        /// The arguments as a JSON object, or `-` to read them from standard input.
        #[arg(value_name = "ARGS_JSON|-", default_value = "{}")]
        arguments: String,
        /// Print the envelope as JSON instead of the summary.
        #[arg(long)]
        json: bool,
        /// Directory screenshots (PNG) and replays (GIF) are saved in.
        #[arg(long, value_name = "DIR", default_value = ".")]
        out: PathBuf,
        #[command(flatten)]
        session: SessionArgs,
        #[command(flatten)]
        browser: BrowserArgs,
    },
    /// Run a browser_flow arguments file (JSON) in a running session, else a browser of its own.
    ///
    /// The flow runs as one browser_flow invocation: one line per step is printed as the step
    /// ends, followed by what it read or found (bounded); on a terminal, a "running step N of
    /// M" line shows the step in progress. Then the aggregate summary and where images were
    /// saved. With --json, only the aggregate envelope. Exits 1 when the flow stopped or
    /// failed: how to smoke-test a web app from CI.
    ///
    /// Example file: {"steps":[{"id":"open","tool":"browser_navigate","arguments":{"url":"https://example.com"}},
    /// {"id":"read","tool":"browser_read","arguments":{"tab":{"flow_ref":{"step":"open","pointer":"/facts/tab"}}}}]}
    Flow {
        /// The flow file (`-` for standard input).
        file: PathBuf,
        /// Print the aggregate envelope as JSON instead of step lines.
        #[arg(long)]
        json: bool,
        /// Directory screenshots and replays are saved in.
        #[arg(long, value_name = "DIR", default_value = ".")]
        out: PathBuf,
        #[command(flatten)]
        session: SessionArgs,
        #[command(flatten)]
        browser: BrowserArgs,
    },
    /// Keep one browser and its tabs between commands: `call` and `flow` use a running session.
    ///
    /// The session listens on a Unix socket only its user can reach (directory 0700, socket
    /// 0600, peer checked; no TCP): $XDG_RUNTIME_DIR/ghostlight/NAME.sock, else
    /// $TMPDIR/ghostlight-UID/NAME.sock, with its log beside it.
    ///
    /// Example: ghostlight session start && ghostlight call browser_navigate '{"url":"https://example.com"}'
    /// && ghostlight call browser_read && ghostlight session stop
    Session {
        #[command(subcommand)]
        command: SessionCommand,
    },
    /// Print the tool catalog, or export it as function-calling tool definitions.
    ///
    /// Example: ghostlight tools --format openai-responses --strict > tools.json
    Tools {
        /// Print the catalog as MCP `tools/list` carries it (same as --format mcp).
        #[arg(long)]
        json: bool,
        /// Export as JSON for this API: mcp (tools/list entries), openai (Chat Completions,
        /// {"type":"function","function":{..}}), openai-responses (the Responses API's flat
        /// {"type":"function","name",..,"strict"}) or anthropic ({name, description,
        /// input_schema}).
        #[arg(long, value_enum, value_name = "FORMAT")]
        format: Option<ToolFormat>,
        /// With an OpenAI format: strict function calling. Every property is required and the
        /// optional ones nullable (a null is read as the field left out); browser_flow's step
        /// arguments travel as their JSON text.
        #[arg(long)]
        strict: bool,
    },
    /// Explain the compiled authority.
    Policy {
        #[command(subcommand)]
        command: PolicyCommand,
    },
    /// Create, check or locate configuration files.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Register Ghostlight with your own browsers (Chromium, Chrome, Firefox) for the
    /// extension connector.
    ///
    /// Writes the native-messaging host manifests naming this installation's
    /// ghostlight-native-host (beside this executable), places the extension's files in
    /// $XDG_DATA_HOME/ghostlight/extension, and prints how to load the extension in each
    /// browser. Running it again changes nothing; it takes over a registration another
    /// Ghostlight installation owns.
    ///
    /// Example: ghostlight install --dry-run && ghostlight install
    Install {
        /// Remove this installation's registrations and the extension's files (never another
        /// installation's).
        #[arg(long)]
        uninstall: bool,
        /// Print what would be written or removed, and change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Check an audit file's chain, or print its records for a person.
    ///
    /// Each line of an audit file carries its sequence number and the SHA-256 of the line
    /// before; each run starts with an anchor line (32 random bytes). A deleted, moved, edited
    /// or cut line breaks the chain. A cut tail, or a chain recomputed by someone who may write
    /// the file, cannot be seen from the file alone: compare the anchor, count and last hash
    /// `verify` prints with a copy kept elsewhere.
    ///
    /// Example: ghostlight audit verify audit.jsonl && ghostlight audit show audit.jsonl
    Audit {
        #[command(subcommand)]
        command: AuditCommand,
    },
    /// Find browsers and drivers, check the configuration, and say what to install.
    Doctor {
        /// Also open and close a headless session with the configured browser.
        #[arg(long)]
        probe: bool,
        #[command(flatten)]
        browser: BrowserArgs,
    },
}

/// The flags choosing the session of `call` and `flow`.
#[derive(Debug, Clone, Default, clap::Args)]
struct SessionArgs {
    /// Use the running session NAME (`ghostlight session start --session NAME`) [default:
    /// the session "default" when it runs, else a browser of this command's own].
    #[arg(long, value_name = "NAME", conflicts_with = "no_session")]
    session: Option<String>,
    /// Start a browser for this command alone, even when a session runs.
    #[arg(long)]
    no_session: bool,
}

#[derive(Debug, Subcommand)]
enum SessionCommand {
    /// Start a session in the background: one browser (started by the first call that needs
    /// it) and one workspace that `call` and `flow` then use, so tabs and handles carry from
    /// one command to the next. Browser flags set its browser and configuration.
    Start {
        /// The session's name (several may run).
        #[arg(long, value_name = "NAME", default_value = DEFAULT_SESSION)]
        session: String,
        /// Serve in this terminal until stopped (Ctrl-C or `ghostlight session stop`).
        #[arg(long)]
        foreground: bool,
        #[command(flatten)]
        browser: Box<BrowserArgs>,
    },
    /// Stop a session: its browser is closed and its socket removed.
    Stop {
        /// The session's name.
        #[arg(long, value_name = "NAME", default_value = DEFAULT_SESSION)]
        session: String,
    },
    /// Say whether a session runs, and what it is (exit 1 when it does not run).
    Status {
        /// The session's name.
        #[arg(long, value_name = "NAME", default_value = DEFAULT_SESSION)]
        session: String,
    },
}

/// The session `call`, `flow` and `session` use when none is named.
const DEFAULT_SESSION: &str = "default";

/// The export formats of `ghostlight tools --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ToolFormat {
    /// MCP `tools/list` entries.
    Mcp,
    /// OpenAI Chat Completions function tools.
    Openai,
    /// OpenAI Responses API function tools (the flat shape).
    OpenaiResponses,
    /// Anthropic tool definitions.
    Anthropic,
}

impl ToolFormat {
    /// Whether the format is one of OpenAI's (which `--strict` applies to).
    const fn is_openai(self) -> bool {
        matches!(self, ToolFormat::Openai | ToolFormat::OpenaiResponses)
    }
}

#[derive(Debug, Subcommand)]
enum AuditCommand {
    /// Check FILE's chain: one line with the record count, the anchor and the last hash (exit
    /// 0), or the first broken line, its seq and what broke (exit 1).
    Verify {
        /// The audit file (`[audit] path`), or `-` for standard input (records kept from
        /// `destination = "stderr"`, the other log lines filtered out).
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
    /// Print FILE's records as a table (time, tool, decision, status, effect, duration,
    /// session, hosts), then the verdict of `verify` (and its exit code).
    Show {
        /// The audit file (`[audit] path`), or `-` for standard input.
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
enum PolicyCommand {
    /// What the model may do under the configuration: the same data as the policy_explain
    /// tool. No browser is started.
    Explain {
        /// Print the envelope as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        policy: PolicyArgs,
    },
}

/// The flags that change the compiled authority (what `policy explain` takes): the
/// configuration file and the startup posture, which is a user setting.
#[derive(Debug, Clone, Default, clap::Args)]
struct PolicyArgs {
    /// Who starts the browser: `auto` or `manual` [default: auto].
    #[arg(long, value_name = "POSTURE", value_parser = Setting::parser_of("startup"))]
    startup: Option<String>,
    /// Configuration file (TOML) [default: $XDG_CONFIG_HOME/ghostlight/config.toml when it
    /// exists]. /etc/ghostlight/organization.toml applies on top when it exists.
    #[arg(long, env = CONFIG_ENV, value_name = "FILE")]
    config: Option<PathBuf>,
}

impl PolicyArgs {
    /// The same settings as browser flags (the others at their defaults).
    fn browser_args(&self) -> BrowserArgs {
        let mut args = BrowserArgs { config: self.config.clone(), ..BrowserArgs::default() };
        if let Some(startup) = &self.startup {
            args.given.set("startup", Value::Text(startup.clone()));
        }
        args
    }
}

#[derive(Debug, Subcommand)]
enum ConfigCommand {
    /// Write a commented configuration file holding the defaults.
    ///
    /// Writes --config (or $GHOSTLIGHT_CONFIG, else the user file `ghostlight config path`
    /// shows). Refuses to overwrite an existing file without --force.
    Init {
        /// The file to write.
        #[arg(long, env = CONFIG_ENV, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
    /// Validate configuration files: FILE, else the user file and the organization file.
    ///
    /// Errors name the file, line, column and key.
    Check {
        /// The file to check.
        #[arg(value_name = "FILE")]
        file: Option<PathBuf>,
        /// The file to check (same as FILE).
        #[arg(long, env = CONFIG_ENV, value_name = "FILE", conflicts_with = "file")]
        config: Option<PathBuf>,
        /// Check FILE as an organization file ([organization], [ceilings] and the authority
        /// sections).
        #[arg(long)]
        organization: bool,
    },
    /// Print where configuration files are looked for, and whether they exist.
    Path,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Mcp { serve } => commands::mcp(&serve),
        Command::Call { tool, arguments, json, out, session, browser } => {
            commands::call(&tool, &arguments, json, &out, &session, &browser)
        }
        Command::Flow { file, json, out, session, browser } => {
            commands::flow(&file, json, &out, &session, &browser)
        }
        Command::Session { command } => commands::session(command),
        Command::Tools { json, format, strict } => {
            let format = format.or(json.then_some(ToolFormat::Mcp));
            export::tools(format, strict)
        }
        Command::Policy { command: PolicyCommand::Explain { json, policy } } => {
            commands::policy_explain(json, &policy.browser_args())
        }
        Command::Config { command } => match command {
            ConfigCommand::Init { config, force } => commands::config_init(config, force),
            ConfigCommand::Check { file, config, organization } => {
                commands::config_check(file.or(config), organization)
            }
            ConfigCommand::Path => commands::config_path(),
        },
        Command::Audit { command: AuditCommand::Verify { file } } => audit::verify(&file),
        Command::Audit { command: AuditCommand::Show { file } } => audit::show(&file),
        Command::Install { uninstall, dry_run } => install::run(uninstall, dry_run),
        Command::Doctor { probe, browser } => doctor::run(probe, &browser),
    };
    match result {
        Ok(code) => code,
        Err(CliError::Output(error)) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("ghostlight: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}
