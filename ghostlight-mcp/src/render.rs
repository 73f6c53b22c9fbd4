//! Ghostlight values as MCP values: the catalog as `tools/list` tools, one [`ToolResult`] as a
//! `tools/call` result.
//!
//! The envelope crosses twice (spec, "Result envelope"): `structuredContent` carries the
//! envelope object, and the first content block is text a client that ignores
//! `structuredContent` can still use:
//!
//! ```text
//! Opened example.com.
//! Next: Call browser_inspect to find controls.
//!
//! {"effect":"applied","facts":{…},"invocation":"inv_…",…}
//! ```
//!
//! That is the summary line, one `Next: ` line per next step (zero to two), a blank line, and
//! the compact JSON of the same envelope. Attachments (screenshot PNGs, replay GIFs) follow as
//! image blocks; their bytes never appear in the envelope or the text.

use std::sync::{Arc, LazyLock};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use ghostlight_core::{Annotations, CATALOG, Envelope, ToolDeclaration, ToolResult};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde_json::Value;

use crate::error::RenderError;

/// The prefix of each next-step line in the text block.
pub const NEXT_PREFIX: &str = "Next: ";

/// The 24 catalog tools as MCP [`Tool`]s, in the specification's order (built once).
pub fn tools() -> &'static [Tool] {
    static TOOLS: LazyLock<Vec<Tool>> = LazyLock::new(|| CATALOG.iter().map(tool).collect());
    &TOOLS
}

/// The catalog tool called `name`, if there is one.
pub fn find_tool(name: &str) -> Option<&'static Tool> {
    tools().iter().find(|tool| tool.name == name)
}

/// One declaration as an MCP [`Tool`]: the same name, description, input and output schemas
/// and annotations as [`ghostlight_core::render_catalog`] renders (no display `title`).
pub fn tool(declaration: &ToolDeclaration) -> Tool {
    Tool::new(
        declaration.name.as_str(),
        declaration.description,
        Arc::new(object(declaration.input_schema())),
    )
    .with_raw_output_schema(Arc::new(object(declaration.output_schema())))
    .with_annotations(annotations(declaration.annotations))
}

/// Core's annotations as MCP's (every hint set explicitly).
pub fn annotations(annotations: Annotations) -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(annotations.read_only)
        .destructive(annotations.destructive)
        .idempotent(annotations.idempotent)
        .open_world(annotations.open_world)
}

/// Core renders every schema as a JSON object; anything else would be a bug there, caught by
/// this crate's tests comparing `tools/list` with `render_catalog()`. Rather than panic on a
/// serving path, a non-object becomes the empty object schema.
fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// The text block: the summary, `Next: ` lines, a blank line, then `json` (the compact JSON
/// of the envelope).
pub fn text_block(envelope: &Envelope, json: &str) -> String {
    let mut text = String::with_capacity(envelope.summary.len() + json.len() + 64);
    text.push_str(&envelope.summary);
    text.push('\n');
    for step in &envelope.next_steps {
        text.push_str(NEXT_PREFIX);
        text.push_str(step);
        text.push('\n');
    }
    text.push('\n');
    text.push_str(json);
    text
}

/// One invocation's result as MCP's: the envelope as `structuredContent` and as the text
/// block's JSON, one image block per attachment, and `isError` for every status but
/// `succeeded`.
pub fn call_result(result: &ToolResult) -> Result<CallToolResult, RenderError> {
    let structured = serde_json::to_value(&result.envelope).map_err(RenderError::Envelope)?;
    let json = serde_json::to_string(&structured).map_err(RenderError::Envelope)?;
    let mut content = Vec::with_capacity(1 + result.attachments.len());
    content.push(ContentBlock::text(text_block(&result.envelope, &json)));
    content.extend(
        result
            .attachments
            .iter()
            .map(|attachment| ContentBlock::image(BASE64.encode(&attachment.bytes), attachment.mime_type)),
    );
    let mut rendered =
        if result.is_error() { CallToolResult::error(content) } else { CallToolResult::success(content) };
    rendered.structured_content = Some(structured);
    Ok(rendered)
}

#[cfg(test)]
mod tests {
    use ghostlight_core::{Attachment, Effect, Readiness, Status};
    use serde_json::{Map, json};

    use super::*;

    fn envelope(status: Status, next_steps: &[&str]) -> Envelope {
        let mut facts = Map::new();
        facts.insert("tab".into(), json!("tab_1"));
        Envelope {
            invocation: "inv_1".into(),
            status,
            effect: Effect::None,
            readiness: Readiness::Complete,
            repeat_safe: true,
            summary: "Read example.com.".into(),
            facts,
            next_steps: next_steps.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    #[test]
    fn tools_list_is_the_core_catalog() {
        let listed = serde_json::to_value(tools()).unwrap_or_default();
        assert_eq!(listed, ghostlight_core::render_catalog());
        assert_eq!(tools().len(), 24);
        assert!(find_tool("browser_navigate").is_some());
        assert!(find_tool("browser_teleport").is_none());
    }

    #[test]
    fn text_block_layout() {
        let two = envelope(Status::Succeeded, &["Call browser_inspect.", "Call browser_read."]);
        assert_eq!(
            text_block(&two, "{}"),
            "Read example.com.\nNext: Call browser_inspect.\nNext: Call browser_read.\n\n{}"
        );
        assert_eq!(text_block(&envelope(Status::Succeeded, &[]), "{}"), "Read example.com.\n\n{}");
    }

    #[test]
    fn both_renderings_carry_the_same_envelope() {
        let result = ToolResult { envelope: envelope(Status::Succeeded, &["Call x."]), attachments: vec![] };
        let rendered = call_result(&result).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rendered.is_error, Some(false));
        assert_eq!(rendered.content.len(), 1);
        let text = rendered.content[0].as_text().map(|t| t.text.clone()).unwrap_or_default();
        let (_, json) = text.split_once("\n\n").unwrap_or_default();
        let from_text: Value = serde_json::from_str(json).unwrap_or_default();
        assert_eq!(Some(from_text), rendered.structured_content);
        assert_eq!(rendered.structured_content, serde_json::to_value(&result.envelope).ok());
    }

    #[test]
    fn error_statuses_set_is_error() {
        for (status, is_error) in [
            (Status::Succeeded, false),
            (Status::Failed, true),
            (Status::Blocked, true),
            (Status::AttentionRequired, true),
            (Status::Cancelled, true),
            (Status::Unknown, true),
        ] {
            let result = ToolResult { envelope: envelope(status, &[]), attachments: vec![] };
            let rendered = call_result(&result).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(rendered.is_error, Some(is_error), "{status:?}");
        }
    }

    #[test]
    fn attachments_become_image_blocks_outside_the_envelope() {
        let bytes = vec![0x89, b'P', b'N', b'G', 1, 2, 3];
        let result = ToolResult {
            envelope: envelope(Status::Succeeded, &[]),
            attachments: vec![Attachment { mime_type: "image/png", bytes: bytes.clone() }],
        };
        let rendered = call_result(&result).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rendered.content.len(), 2);
        let image = rendered.content[1].as_image().unwrap_or_else(|| panic!("an image block"));
        assert_eq!(image.mime_type, "image/png");
        assert_eq!(BASE64.decode(&image.data).ok(), Some(bytes));
        let text = rendered.content[0].as_text().map(|t| t.text.clone()).unwrap_or_default();
        assert!(!text.contains(&image.data));
        let structured = rendered.structured_content.unwrap_or_default().to_string();
        assert!(!structured.contains(&image.data));
    }
}
