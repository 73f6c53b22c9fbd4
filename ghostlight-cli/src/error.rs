//! The application's typed errors: configuration refused, serving failed.

use std::path::PathBuf;

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
    #[error("{}: {message}", invalid_location(path.as_deref(), *line, *column))]
    Invalid {
        /// The file, when the text came from one.
        path: Option<PathBuf>,
        /// The 1-based line of the error, when known.
        line: Option<usize>,
        /// The 1-based column of the error, when known.
        column: Option<usize>,
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
    /// A proxy URL cannot be used (the message never repeats the URL).
    #[error("invalid proxy: {0}")]
    Proxy(String),
    /// The browser settings cannot be used together or by the chosen engine.
    #[error("browser configuration: {0}")]
    Browser(String),
    /// The persistent profile is in use by another Ghostlight server (or cannot be used).
    #[error("{0}")]
    Profile(String),
    /// The HTTP transport was asked for without a bearer token.
    #[error("{0}")]
    Token(String),
    /// A bearer token cannot be used.
    #[cfg(feature = "http")]
    #[error(transparent)]
    BearerToken(#[from] ghostlight_mcp::http::TokenError),
    /// `[audit] destination = "file"` without a `path`, or the file could not be opened.
    #[error("audit: {0}")]
    Audit(String),
    /// The extension connector cannot listen (its socket directory or secret cannot be used,
    /// or another server listens).
    #[error("extension connector: {0}")]
    Extension(String),
    /// The extension connector was asked for, but this build does not include it.
    #[error(
        "this build of ghostlight-mcp has no extension connector (rebuild with the cargo feature `extension`)"
    )]
    ExtensionUnavailable,
    /// The HTTP transport was asked for, but this build does not include it.
    #[error("this build of ghostlight-mcp has no HTTP transport (rebuild with the cargo feature `http`)")]
    HttpUnavailable,
}

/// Serving MCP failed (`ghostlight-mcp`, `ghostlight mcp`). Exhaustive: each binary says
/// what every variant means for its exit code and message.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The options were not valid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The async runtime could not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The MCP transport failed.
    #[error(transparent)]
    Mcp(#[from] ghostlight_mcp::ServeError),
}

impl ServeError {
    /// The process exit code: 2 for a configuration error, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            ServeError::Config(_) => 2,
            ServeError::Runtime(_) | ServeError::Mcp(_) => 1,
        }
    }
}

/// `invalid configuration in FILE:LINE:COLUMN` (whatever parts are known).
fn invalid_location(path: Option<&std::path::Path>, line: Option<usize>, column: Option<usize>) -> String {
    let mut text = String::from("invalid configuration");
    if path.is_some() || line.is_some() {
        text.push_str(" in ");
    }
    if let Some(path) = path {
        text.push_str(&path.display().to_string());
    }
    if let Some(line) = line {
        if path.is_some() {
            text.push(':');
        } else {
            text.push_str("line ");
        }
        text.push_str(&line.to_string());
        if let Some(column) = column {
            text.push(':');
            text.push_str(&column.to_string());
        }
    }
    text
}
