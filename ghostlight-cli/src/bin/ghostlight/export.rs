//! `ghostlight tools`: the catalog as lines, or exported as tool definitions for MCP, OpenAI
//! (Chat Completions and Responses, optionally strict) and Anthropic function calling.

use std::io::Write as _;
use std::process::ExitCode;

use ghostlight_core::{CATALOG, NotStrict, ToolDeclaration};
use serde_json::{Value, json};

use crate::ToolFormat;
use crate::error::CliError;

/// Print the catalog in `format` (one line per tool when `None`). `strict` asks for OpenAI's
/// strict function calling; a tool that strict mode cannot describe is exported non-strict,
/// and standard error says which and why.
pub(crate) fn tools(format: Option<ToolFormat>, strict: bool) -> Result<ExitCode, CliError> {
    if strict && !format.is_some_and(ToolFormat::is_openai) {
        return Err(CliError::Usage(
            "--strict applies to --format openai and --format openai-responses".to_owned(),
        ));
    }
    let mut out = std::io::stdout().lock();
    match format {
        None => {
            for tool in &CATALOG {
                writeln!(out, "{:<22} {}", tool.name.as_str(), tool.description)?;
            }
        }
        Some(format) => {
            let exported = export(format, strict);
            for not_strict in &exported.not_strict {
                eprintln!("ghostlight: {not_strict}; it is exported with \"strict\": false");
            }
            writeln!(out, "{}", exported.tools)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// An export: the tool definitions, and the tools a strict export had to leave non-strict.
#[derive(Debug)]
pub(crate) struct Export {
    /// The JSON array of tool definitions.
    pub(crate) tools: Value,
    /// Why each non-strict tool of a strict export is not strict (empty otherwise).
    pub(crate) not_strict: Vec<NotStrict>,
}

/// The catalog as a JSON array in `format`; with `strict` (OpenAI formats), every tool strict
/// mode can describe carries its strict schema and `"strict": true`.
pub(crate) fn export(format: ToolFormat, strict: bool) -> Export {
    if format == ToolFormat::Mcp {
        return Export { tools: ghostlight_core::render_catalog(), not_strict: Vec::new() };
    }
    let mut not_strict = Vec::new();
    let tools = CATALOG
        .iter()
        .map(|tool| {
            let (parameters, is_strict) = parameters(tool, strict && format.is_openai(), &mut not_strict);
            let name = tool.name.as_str();
            match format {
                ToolFormat::Openai if strict => json!({
                    "type": "function",
                    "function": {"name": name, "description": tool.description, "parameters": parameters, "strict": is_strict},
                }),
                ToolFormat::Openai => json!({
                    "type": "function",
                    "function": {"name": name, "description": tool.description, "parameters": parameters},
                }),
                // The Responses API's `strict` defaults to true, so a non-strict export says so.
                ToolFormat::OpenaiResponses => json!({
                    "type": "function",
                    "name": name,
                    "description": tool.description,
                    "parameters": parameters,
                    "strict": is_strict,
                }),
                ToolFormat::Anthropic | ToolFormat::Mcp => {
                    json!({"name": name, "description": tool.description, "input_schema": parameters})
                }
            }
        })
        .collect();
    Export { tools: Value::Array(tools), not_strict }
}

/// A tool's parameters schema and whether it is strict: its strict schema when `strict` is
/// asked and strict mode can describe it (else the reason joins `not_strict`), its catalog
/// schema otherwise.
fn parameters(tool: &ToolDeclaration, strict: bool, not_strict: &mut Vec<NotStrict>) -> (Value, bool) {
    if strict {
        match tool.strict_input_schema() {
            Ok(schema) => return (schema, true),
            Err(reason) => not_strict.push(reason),
        }
    }
    (tool.input_schema(), false)
}
