//! PLACEHOLDER for `sequence` (replaced by the real declaration and decoder).

use crate::capability::CapabilitySet;
use crate::catalog::{Annotations, ToolDeclaration, ToolName};
use crate::decode::{DecodeError, ObjectReader};
use crate::handles::Handle;
use crate::request::Request;
use crate::tools::common::TAB;

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Sequence,
    title: "Sequence",
    description: "PLACEHOLDER",
    fields: &[TAB],
    example: "{}",
    facts: &[],
    annotations: Annotations { read_only: true, destructive: false, idempotent: true, open_world: true },
    decode,
};

/// A decoded call (placeholder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SequenceRequest {
    /// Tab.
    pub tab: Option<Handle>,
}

impl SequenceRequest {
    /// Capabilities.
    pub fn capabilities(&self) -> CapabilitySet {
        CapabilitySet::EMPTY
    }

    /// Tab.
    pub fn tab(&self) -> Option<&Handle> {
        self.tab.as_ref()
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<Request, DecodeError> {
    let tab = reader.handle(&TAB)?;
    Ok(Request::Sequence(SequenceRequest { tab }))
}
