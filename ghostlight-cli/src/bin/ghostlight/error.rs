//! The command's typed errors and their exit codes.

use std::path::PathBuf;

use ghostlight_cli::ConfigError;

/// Why a command could not do its work (an envelope that is not `succeeded` is not an error:
/// it is printed and exits 1).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// Configuration could not be loaded or is invalid (exit 2).
    #[error(transparent)]
    Config(ConfigError),
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
    /// A file Ghostlight writes for the user cannot be used (a link, not a regular file,
    /// another user's, open to others, or already there; exit 2).
    #[error(transparent)]
    PrivateFile(#[from] ghostlight_cli::private_file::PrivateFileError),
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

/// Why `--transport http` cannot serve in a build without the feature.
const HTTP_UNAVAILABLE: &str = "this build of ghostlight has no HTTP transport: rebuild the ghostlight command \
    with the cargo feature `http` (cargo install --path ghostlight-cli --features http)";

/// Why `--connector extension` cannot be used in a build without the feature.
pub(crate) const EXTENSION_UNAVAILABLE: &str = "this build of ghostlight has no extension connector: rebuild the \
    ghostlight command with the cargo feature `extension` (cargo install --path ghostlight-cli --features extension)";

impl From<ConfigError> for CliError {
    /// A configuration error in this binary's words: the shared messages for a build without a
    /// feature name `ghostlight-mcp`, and the fix here is to rebuild this command.
    fn from(error: ConfigError) -> Self {
        match error {
            ConfigError::HttpUnavailable => CliError::Usage(HTTP_UNAVAILABLE.to_owned()),
            ConfigError::ExtensionUnavailable => CliError::Usage(EXTENSION_UNAVAILABLE.to_owned()),
            other => CliError::Config(other),
        }
    }
}

impl CliError {
    /// 2 for usage and configuration errors, 1 otherwise.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            CliError::Config(_) | CliError::Usage(_) | CliError::File { .. } | CliError::PrivateFile(_) => 2,
            CliError::Output(_) | CliError::Serve(_) | CliError::Runtime(_) | CliError::Session { .. } => 1,
        }
    }
}
