//! Recording (frames in memory, encoded to GIF in memory).
//!
//! Not implemented yet.

use ghostlight_core::port::{PortResult, RecordCommand, RecordReport};

use super::not_implemented;
use crate::session::Session;

/// A recording command.
pub(crate) async fn record(s: &mut Session, command: &RecordCommand) -> PortResult<RecordReport> {
    let _ = (s, command);
    Err(not_implemented("record"))
}
