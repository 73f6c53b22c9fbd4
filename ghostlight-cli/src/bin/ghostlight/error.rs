//! The command's typed errors and their exit codes.

use std::path::PathBuf;

/// Why a command could not do its work (an envelope that is not `succeeded` is not an error:
/// it is printed and exits 1).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// Configuration could not be loaded or is invalid (exit 2).
    #[error(transparent)]
    Config(#[from] ghostlight_cli::ConfigError),
    /// Bad input on the command line or in a file it names (exit 2).
    #[error("{0}")]
    Usage(String),
    /// A file could not be read or written (exit 2).
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Standard output could not be written (exit 1).
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
    /// Serving MCP failed (exit 1).
    #[error(transparent)]
    Serve(ghostlight_mcp::ServeError),
    /// A session could not be reached or did not answer (exit 1).
    #[error("session {name:?}: {message}")]
    Session {
        /// The session's name.
        name: String,
        /// What went wrong.
        message: String,
    },
    /// The async runtime could not start (exit 1).
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
}

impl CliError {
    /// 2 for usage and configuration errors, 1 otherwise.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            CliError::Config(_) | CliError::Usage(_) | CliError::File { .. } => 2,
            CliError::Output(_) | CliError::Serve(_) | CliError::Runtime(_) | CliError::Session { .. } => 1,
        }
    }
}
