//! This crate's typed errors.

use std::path::PathBuf;

/// Rendering an invocation's result for MCP failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// The envelope could not be serialized as JSON.
    #[error("the envelope could not be serialized: {0}")]
    Envelope(#[source] serde_json::Error),
}

/// The configuration file or command line could not be turned into serving options.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The configuration file could not be read.
    #[error("cannot read the configuration file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The configuration file is not valid (TOML syntax, an unknown key, a bad value).
    #[error("invalid configuration{}: {message}", path.as_ref().map(|p| format!(" in {}", p.display())).unwrap_or_default())]
    Invalid {
        /// The file, when the text came from one.
        path: Option<PathBuf>,
        /// What is wrong, with its location in the file.
        message: String,
    },
    /// A window size is not `WIDTHxHEIGHT` within bounds.
    #[error(
        "invalid window size {given:?}: expected WIDTHxHEIGHT with width {min_width} to {max_width} and height {min_height} to {max_height}, e.g. 1280x800"
    )]
    Window {
        /// What was given (bounded).
        given: String,
        /// Smallest width.
        min_width: u64,
        /// Largest width.
        max_width: u64,
        /// Smallest height.
        min_height: u64,
        /// Largest height.
        max_height: u64,
    },
    /// A driver URL is not an absolute `http` or `https` URL.
    #[error("invalid driver URL: {0}")]
    DriverUrl(String),
    /// The HTTP transport was asked for without a bearer token, or with an unusable one.
    #[error("{0}")]
    Token(String),
    /// The HTTP transport was asked for, but this build does not include it.
    #[error("this build of ghostlight-mcp has no HTTP transport (rebuild with the cargo feature `http`)")]
    HttpUnavailable,
}

/// Serving MCP failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The options were not valid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The MCP session could not be initialized (the client went away or spoke out of turn).
    #[error("the MCP session could not start: {0}")]
    Initialize(String),
    /// Listening or serving failed.
    #[error("I/O error while serving: {0}")]
    Io(#[from] std::io::Error),
    /// The serving task failed.
    #[error("the MCP service stopped abnormally: {0}")]
    Service(String),
}
