//! The one ordered table of the 24 tools, and the entry points that decode a call.

use std::fmt;

use serde_json::{Map, Value, json};

use crate::authority::{HostPattern, HostPatternError};
use crate::capability::{Capability, CapabilitySet};
use crate::decode::{DecodeError, DecodeErrorKind, ObjectReader, Pointer};
use crate::facts::{Fact, render_output_schema};
use crate::request::{Call, Request, Restrictions};
use crate::schema::strict::{NotStrict, render_strict_input_schema};
use crate::schema::{Field, RESTRICT_CAPABILITIES, RESTRICT_HOSTS, render_input_schema};
use crate::tools::{self, Tool};

macro_rules! declare_tool_names {
    ($($variant:ident => $wire:literal, $module:ident, $request:ident;)+) => {
        /// The name of one of the 24 tools.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ToolName {
            $(#[doc = concat!("`", $wire, "`")] $variant),+
        }

        impl ToolName {
            /// Every tool, in the specification's order.
            pub const ALL: [ToolName; 24] = [$(ToolName::$variant),+];

            /// The wire name, e.g. `browser_navigate`.
            pub const fn as_str(self) -> &'static str {
                match self { $(ToolName::$variant => $wire),+ }
            }

            /// Whether a call reports progress while it runs (composite steps as they end, a
            /// wait's start and end), which an edge may forward as progress notifications.
            pub const fn reports_progress(self) -> bool {
                match self { $(ToolName::$variant => <tools::$module::$request as Tool>::REPORTS_PROGRESS),+ }
            }

            /// The tool with this exact wire name.
            pub fn parse(name: &str) -> Option<ToolName> {
                match name { $($wire => Some(ToolName::$variant),)+ _ => None }
            }
        }

        /// The 24 tools in the specification's order.
        pub static CATALOG: [ToolDeclaration; 24] =
            [$(<tools::$module::$request as Tool>::DECLARATION),+];
    };
}
tools::tool_table!(declare_tool_names);

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

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Standard MCP tool annotations (hints, never guarantees).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotations {
    /// The tool does not modify its environment.
    pub read_only: bool,
    /// The tool may perform destructive updates (meaningful when not read-only).
    pub destructive: bool,
    /// Repeating a call with the same arguments has no additional effect.
    pub idempotent: bool,
    /// The tool interacts with an open world of external entities (web pages).
    pub open_world: bool,
}

impl Annotations {
    /// The MCP `annotations` object.
    pub fn to_json(self) -> Value {
        json!({
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        })
    }
}

/// One tool, declared once: what the model sees and how its arguments are decoded.
#[derive(Debug)]
pub struct ToolDeclaration {
    /// Wire name.
    pub name: ToolName,
    /// Concise description: what it does and when to prefer another tool.
    pub description: &'static str,
    /// Declared input fields (the restriction fields are added to every tool).
    pub fields: &'static [Field],
    /// The specification's shortest valid call, as JSON text.
    pub example: &'static str,
    /// Facts of a successful result.
    pub facts: &'static [Fact],
    /// MCP annotations.
    pub annotations: Annotations,
}

impl ToolDeclaration {
    /// The shortest valid example as a JSON value.
    pub fn example(&self) -> Value {
        serde_json::from_str(self.example).unwrap_or(Value::Null)
    }

    /// The rendered input schema (flat, closed, with the example under `examples`).
    pub fn input_schema(&self) -> Value {
        render_input_schema(self.fields, &self.example())
    }

    /// The input schema for OpenAI's strict function calling, rendered from the same field
    /// table: every property required, optional ones nullable (the decoder reads their `null`
    /// as absence), objects closed, no keyword strict mode refuses. `Err` for `browser_flow`,
    /// whose steps' `arguments` is an open object strict mode cannot express.
    pub fn strict_input_schema(&self) -> Result<Value, NotStrict> {
        render_strict_input_schema(self.name, self.fields)
    }

    /// The rendered output schema: the envelope with this tool's facts.
    pub fn output_schema(&self) -> Value {
        render_output_schema(self.facts)
    }

    /// Where an envelope's `facts` depart from this tool's output schema (a wrong type, or an
    /// undeclared member); empty when they fit. See `crate::facts::fact_mismatches`.
    pub fn fact_mismatches(&self, facts: &Map<String, Value>) -> Vec<String> {
        crate::facts::fact_mismatches(self.facts, facts)
    }

    /// The declaration as MCP `tools/list` carries it. There is no display `title`: the spec
    /// does not ask for one, clients fall back to the name, and every byte of `tools/list`
    /// reaches a model on every turn.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name.as_str(),
            "description": self.description,
            "inputSchema": self.input_schema(),
            "outputSchema": self.output_schema(),
            "annotations": self.annotations.to_json(),
        })
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
