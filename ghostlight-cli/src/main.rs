//! `ghostlight`: the command-line edge of Ghostlight.

#![forbid(unsafe_code)]

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Governed browser tools for AI models.
#[derive(Debug, Parser)]
#[command(name = "ghostlight", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the tool catalog: one line per tool, or with --json exactly as MCP `tools/list`
    /// carries it.
    Tools {
        /// Print the catalog as a JSON array of {name, title, description, inputSchema,
        /// outputSchema, annotations}.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Tools { json } => print_tools(json),
    }
}

fn print_tools(json: bool) -> ExitCode {
    let mut out = std::io::stdout().lock();
    let written = if json {
        writeln!(out, "{}", ghostlight_core::render_catalog())
    } else {
        ghostlight_core::CATALOG
            .iter()
            .try_for_each(|tool| writeln!(out, "{:<22} {}", tool.name.as_str(), tool.description))
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("ghostlight: cannot write the catalog: {error}");
            ExitCode::from(2)
        }
    }
}
