//! A tool's declaration: what the model sees of it (name, description, input fields, example,
//! facts, annotations) and the schemas rendered from it. Each tool declares one
//! (`tools/<tool>/mod.rs`); the catalog lists them.

use serde_json::{Map, Value, json};

use crate::facts::{Fact, render_output_schema};
use crate::names::ToolName;
use crate::schema::strict::{NotStrict, render_strict_input_schema};
use crate::schema::{Field, render_input_schema};

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
