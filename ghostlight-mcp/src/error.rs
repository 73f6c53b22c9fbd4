//! This crate's typed errors.

/// Rendering an invocation's result for MCP failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// The envelope could not be serialized as JSON.
    #[error("the envelope could not be serialized: {0}")]
    Envelope(#[source] serde_json::Error),
}

/// Serving MCP failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
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
