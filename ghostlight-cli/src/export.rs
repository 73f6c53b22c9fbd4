//! `ghostlight tools`: the catalog as lines, or exported as tool definitions for MCP, OpenAI
//! and Anthropic function calling.

use std::io::Write as _;
use std::process::ExitCode;

use serde_json::{Value, json};

use crate::ToolFormat;
use crate::error::CliError;

/// Print the catalog in `format` (one line per tool when `None`).
pub(crate) fn tools(format: Option<ToolFormat>) -> Result<ExitCode, CliError> {
    let mut out = std::io::stdout().lock();
    match format {
        None => {
            for tool in &ghostlight_core::CATALOG {
                writeln!(out, "{:<22} {}", tool.name.as_str(), tool.description)?;
            }
        }
        Some(format) => writeln!(out, "{}", export(format))?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The catalog as a JSON array in `format`.
pub(crate) fn export(format: ToolFormat) -> Value {
    let catalog = ghostlight_core::render_catalog();
    if format == ToolFormat::Mcp {
        return catalog;
    }
    let tools = catalog.as_array().map(Vec::as_slice).unwrap_or_default();
    Value::Array(
        tools
            .iter()
            .map(|tool| {
                let name = tool.get("name").cloned().unwrap_or(Value::Null);
                let description = tool.get("description").cloned().unwrap_or(Value::Null);
                let schema = tool.get("inputSchema").cloned().unwrap_or_else(|| json!({"type": "object"}));
                match format {
                    ToolFormat::Openai => json!({
                        "type": "function",
                        "function": {"name": name, "description": description, "parameters": schema},
                    }),
                    ToolFormat::Anthropic | ToolFormat::Mcp => {
                        json!({"name": name, "description": description, "input_schema": schema})
                    }
                }
            })
            .collect(),
    )
}
