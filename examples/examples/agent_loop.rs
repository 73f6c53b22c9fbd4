//! Embed `ghostlight-core` in a toy agent loop: list the catalog a model would be given, then
//! route each function call the "model" makes to `Ghostlight::invoke` and print the envelope
//! JSON that would go back to it.
//!
//! The model is scripted: a list of tool calls in the `{"name": …, "arguments": {…}}` shape
//! function-calling APIs emit. Among them are a tool name outside the catalog (core answers
//! `UnknownTool`, a protocol error rather than an envelope), invalid arguments (a `failed`
//! envelope naming the field, nothing dispatched) and a call the default authority refuses
//! (`browser_execute`: `blocked`, because `execute` is off unless the person allows it).
//!
//! ```sh
//! cargo run -p ghostlight-examples --example agent_loop
//! cargo run -p ghostlight-examples --example agent_loop -- --browser firefox
//! ```
//!
//! Needs `chromedriver` (or `geckodriver`) and the browser on `PATH`. Exits non-zero when a
//! call does not answer the status the script expects.

use std::process::ExitCode;

use clap::Parser;
use ghostlight_core::{Cancellation, render_catalog};
use ghostlight_examples::{BrowserArgs, DemoSite, exit_code, with_browser};
use serde_json::{Value, json};

/// A toy agent loop over Ghostlight.
#[derive(Parser)]
struct Options {
    #[command(flatten)]
    browser: BrowserArgs,
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = Options::parse();
    let site = match DemoSite::start() {
        Ok(site) => site,
        Err(error) => return exit_code(Err(error.into())),
    };

    // 1. The catalog: what an agent framework hands the model as its tool definitions
    //    (MCP `tools/list` shape: name, description, inputSchema, outputSchema, annotations).
    let catalog = render_catalog();
    let tools = catalog.as_array().cloned().unwrap_or_default();
    println!("{} tools:", tools.len());
    for tool in &tools {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
        let description = tool.get("description").and_then(Value::as_str).unwrap_or("");
        let first_sentence = description.split(". ").next().unwrap_or(description);
        println!("  {name:<20} {first_sentence}");
    }

    // 2. What the model "said": each turn one function call, as text, and the status a
    //    well-behaved run answers (`unknown_tool` is not an envelope status; see below).
    let turns = [
        (json!({ "name": "browser_navigate", "arguments": { "url": site.url("/") } }), "succeeded"),
        (json!({ "name": "browser_read", "arguments": { "max_chars": 500 } }), "succeeded"),
        (json!({ "name": "browser_find", "arguments": { "text": "Newsletter" } }), "succeeded"),
        (json!({ "name": "browser_open", "arguments": { "url": site.url("/") } }), "unknown_tool"),
        (json!({ "name": "browser_navigate", "arguments": { "url": "ftp://example.com/" } }), "failed"),
        (json!({ "name": "browser_execute", "arguments": { "script": "document.title" } }), "blocked"),
    ];
    let calls: Vec<(String, &str)> = turns.iter().map(|(call, expect)| (call.to_string(), *expect)).collect();

    with_browser(&options.browser, |ghostlight| async move {
        let never = Cancellation::never();
        let mut unexpected = Vec::new();
        for (text, expected) in &calls {
            // 3. Route the call: parse the model's output, split name and arguments, invoke.
            println!("\nmodel> {text}");
            let call: Value = serde_json::from_str(text)?;
            let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
            let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
            let status = match ghostlight.invoke(name, &arguments, &never).await {
                Ok(result) => {
                    // 4. The envelope is the whole answer; frameworks send it back as the
                    //    tool result (images, if any, travel in `result.attachments`).
                    println!("tool>  {}", serde_json::to_string(&result.envelope)?);
                    result.envelope.status.as_str().to_owned()
                }
                Err(unknown) => {
                    // A name outside the catalog: tell the model, as an MCP edge would with a
                    // protocol error.
                    println!("tool>  error: {unknown}");
                    "unknown_tool".to_owned()
                }
            };
            if status != *expected {
                unexpected.push(format!("{name} answered {status}, expected {expected}"));
            }
        }
        if unexpected.is_empty() {
            println!("\nEvery call answered as expected.");
            Ok(())
        } else {
            Err(unexpected.join("; ").into())
        }
    })
    .await
}
