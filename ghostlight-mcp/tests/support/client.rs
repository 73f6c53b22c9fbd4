//! The client side of an MCP tool call, as tests check it: call parameters, and the checks
//! both renderings of a result's envelope must pass. Shared by ghostlight-mcp's integration
//! tests (the library in process) and ghostlight-cli's (the binaries), which include this
//! file by path.

use base64::Engine as _;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value, json};

/// `tools/call` parameters.
pub(crate) fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let arguments = match arguments {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)
}

/// The text of a result's first block.
pub(crate) fn text_of(result: &CallToolResult) -> String {
    match result.content.first() {
        Some(ContentBlock::Text(text)) => text.text.clone(),
        other => panic!("the first block is not text: {other:?}"),
    }
}

/// Check both renderings of a result's envelope and return the envelope:
///
/// * `structuredContent` is an envelope object with every field;
/// * the text block is the summary, one `Next: ` line per next step, a blank line, and JSON
///   equal to `structuredContent`;
/// * `isError` is set for every status but `succeeded`;
/// * image blocks' bytes appear in neither rendering.
pub(crate) fn envelope_of(result: &CallToolResult) -> Value {
    let structured =
        result.structured_content.clone().unwrap_or_else(|| panic!("no structuredContent: {result:?}"));
    for field in
        ["invocation", "status", "effect", "readiness", "repeat_safe", "summary", "facts", "next_steps"]
    {
        assert!(structured.get(field).is_some(), "the envelope lacks {field}: {structured}");
    }
    let text = text_of(result);
    let (head, json) =
        text.split_once("\n\n").unwrap_or_else(|| panic!("no blank line in the text block: {text}"));
    let from_text: Value =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("the text JSON does not parse: {e}: {json}"));
    assert_eq!(from_text, structured, "the text block's JSON differs from structuredContent");
    let mut lines = head.lines();
    assert_eq!(
        lines.next(),
        structured["summary"].as_str(),
        "the text block does not start with the summary"
    );
    let next: Vec<String> =
        lines.map(|line| line.strip_prefix("Next: ").unwrap_or(line).to_owned()).collect();
    let expected: Vec<String> = structured["next_steps"]
        .as_array()
        .map(|steps| steps.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    assert_eq!(next, expected, "the Next: lines differ from next_steps");
    let status = structured["status"].as_str().unwrap_or_default();
    let is_error = status != "succeeded";
    assert_eq!(result.is_error, Some(is_error), "isError for status {status}");
    for block in &result.content[1..] {
        let ContentBlock::Image(image) = block else { panic!("a non-image block after the text: {block:?}") };
        assert!(!text.contains(&image.data) && !structured.to_string().contains(&image.data));
        assert!(base64::engine::general_purpose::STANDARD.decode(&image.data).is_ok());
    }
    structured
}

/// The `status` of an envelope.
pub(crate) fn status(envelope: &Value) -> &str {
    envelope["status"].as_str().unwrap_or_default()
}

/// The envelope of a policy_explain-free call, for readable failures.
pub(crate) fn describe(envelope: &Value) -> String {
    json!({"status": envelope["status"], "summary": envelope["summary"], "facts": envelope["facts"]})
        .to_string()
}

/// Call `name` with `arguments` and return the checked envelope.
pub(crate) async fn invoke(client: &RunningService<RoleClient, ()>, name: &str, arguments: Value) -> Value {
    let result = client.call_tool(call(name, arguments)).await.unwrap_or_else(|e| panic!("{name}: {e}"));
    envelope_of(&result)
}
