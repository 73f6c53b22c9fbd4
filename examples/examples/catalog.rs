//! List the catalog and decode one model call: the first steps of embedding ghostlight-core
//! in an agent framework.

use ghostlight_core::{ToolName, decode_call, render_catalog};
use serde_json::json;

fn main() {
    let tools = render_catalog();
    let count = tools.as_array().map_or(0, Vec::len);
    println!("{count} tools");
    let arguments = json!({"url": "https://example.com"});
    match decode_call(ToolName::Navigate, &arguments) {
        Ok(call) => println!("browser_navigate requires {}", call.request.capabilities()),
        Err(error) => println!("refused: {error}"),
    }
}
