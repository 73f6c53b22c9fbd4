//! The one ordered table of the 24 tools, and the entry points that decode a call.

use serde_json::Value;

use crate::authority::Restrictions;
use crate::authority::{HostPattern, HostPatternError};
use crate::capability::{Capability, CapabilitySet};
use crate::declaration::ToolDeclaration;
use crate::decode::{DecodeError, DecodeErrorKind, ObjectReader, Pointer};
use crate::names::{ToolName, tool_table};
use crate::schema::{RESTRICT_CAPABILITIES, RESTRICT_HOSTS};
use crate::tools::request::{Call, Request};
use crate::tools::{self, Tool};

macro_rules! declare_catalog {
    ($($variant:ident => $wire:literal, $module:ident, $request:ident;)+) => {
        impl ToolName {
            /// Whether a call reports progress while it runs (composite steps as they end, a
            /// wait's start and end), which an edge may forward as progress notifications.
            pub const fn reports_progress(self) -> bool {
                match self { $(ToolName::$variant => <tools::$module::$request as Tool>::REPORTS_PROGRESS),+ }
            }
        }

        /// The 24 tools in the specification's order.
        pub static CATALOG: [ToolDeclaration; 24] =
            [$(<tools::$module::$request as Tool>::DECLARATION),+];
    };
}
tool_table!(declare_catalog);

impl ToolName {
    /// Whether the tool composes other tools (`browser_sequence`, `browser_flow`).
    pub const fn is_composite(self) -> bool {
        matches!(self, ToolName::Sequence | ToolName::Flow)
    }

    /// The tool's declaration.
    pub fn declaration(self) -> &'static ToolDeclaration {
        &CATALOG[self as usize]
    }
}

/// The whole catalog as MCP `tools/list` carries it: an array of
/// `{name, description, inputSchema, outputSchema, annotations}`.
pub fn render_catalog() -> Value {
    Value::Array(CATALOG.iter().map(ToolDeclaration::to_json).collect())
}

/// Decode a top-level call to `tool`: the tool's own fields plus the restriction fields.
pub fn decode_call(tool: ToolName, arguments: &Value) -> Result<Call, DecodeError> {
    let declaration = tool.declaration();
    let mut reader = ObjectReader::new(arguments, Pointer::root(), declaration.fields, true)?;
    let request = Request::decode(tool, &mut reader)?;
    let restrictions = decode_restrictions(&mut reader)?;
    reader.finish();
    Ok(Call { request, restrictions })
}

/// Decode a child step's arguments (inside `browser_sequence` or `browser_flow`): the same
/// decoder, with restriction fields refused. Errors point under `at`.
pub fn decode_child(tool: ToolName, arguments: &Value, at: Pointer) -> Result<Request, DecodeError> {
    let declaration = tool.declaration();
    let mut reader = ObjectReader::new(arguments, at, declaration.fields, false)?;
    let request = Request::decode(tool, &mut reader)?;
    reader.finish();
    Ok(request)
}

fn decode_restrictions(reader: &mut ObjectReader<'_>) -> Result<Restrictions, DecodeError> {
    let hosts = reader.text_list(&RESTRICT_HOSTS)?;
    let capabilities = reader
        .choice_list::<CapabilityChoice>(&RESTRICT_CAPABILITIES)?
        .map(|list| list.into_iter().map(|c| c.0).collect::<CapabilitySet>());
    let hosts = match hosts {
        None => None,
        Some(texts) => {
            let mut patterns = Vec::with_capacity(texts.len());
            for (index, text) in texts.iter().enumerate() {
                let pattern = HostPattern::parse(text).map_err(|error| {
                    DecodeError::new(
                        DecodeErrorKind::InvalidValue,
                        reader.pointer(&RESTRICT_HOSTS).index(index),
                        format_args!("{} ({error})", HostPatternError::ACCEPTED),
                    )
                })?;
                patterns.push(pattern);
            }
            Some(patterns)
        }
    };
    Ok(Restrictions { hosts, capabilities })
}

#[derive(Clone, Copy)]
struct CapabilityChoice(Capability);

impl crate::vocab::WireChoice for CapabilityChoice {
    const NAMES: &'static [&'static str] = &Capability::NAMES;
    fn from_wire(name: &str) -> Option<Self> {
        Capability::parse(name).map(CapabilityChoice)
    }
}

mod suggest;

#[cfg(test)]
mod tests;
