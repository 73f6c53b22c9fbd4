//! One `browser_flow`: six steps in one call, two of which take a target handle found by an
//! earlier step through `flow_ref`; prints each step's status and summary, then the
//! aggregate.
//!
//! ```sh
//! cargo run -p ghostlight-examples --example flow
//! cargo run -p ghostlight-examples --example flow -- --browser firefox
//! ```
//!
//! A reference is `{"flow_ref": {"step": "<earlier id>", "pointer": "<JSON Pointer>"}}`,
//! resolved against that step's result envelope before the step's arguments are decoded.
//! `browser_find` answers `matches` rows `[target, role, name, state, credential]`, so
//! `/facts/matches/0/0` is the target handle of the best match (core ranks an exact name
//! first: "Send" finds the button before the "Send me news" checkbox).
//!
//! Needs `chromedriver` (or `geckodriver`) and the browser on `PATH`.

use std::process::ExitCode;

use clap::Parser;
use ghostlight_examples::{BrowserArgs, DemoSite, exit_code, show, succeeded, with_browser};
use serde_json::{Value, json};

/// Run a flow against the demo form with Ghostlight.
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
    let best_match = |step: &str| json!({ "flow_ref": { "step": step, "pointer": "/facts/matches/0/0" } });
    let steps = json!([
        { "id": "open", "tool": "browser_navigate", "arguments": { "url": site.url("/form") } },
        { "id": "name_field", "tool": "browser_find", "arguments": { "text": "Name", "scope": "control" } },
        { "id": "fill", "tool": "browser_fill_form",
          "arguments": { "fields": [ { "target": best_match("name_field"), "value": "Ada" } ] } },
        { "id": "send_button", "tool": "browser_find", "arguments": { "text": "Send", "scope": "control" } },
        { "id": "send", "tool": "browser_click", "arguments": { "target": best_match("send_button") } },
        { "id": "thanks", "tool": "browser_wait",
          "arguments": { "condition": "text_present", "value": "Thanks, Ada" } },
    ]);

    with_browser(&options.browser, |ghostlight| async move {
        // `show` prints the aggregate line and answers the envelope whatever its status.
        let flow = show(&ghostlight, "browser_flow", json!({ "steps": steps })).await?;
        // One row per step that ran: its id, tool, status and (within a byte budget) envelope.
        let rows = flow.facts.get("steps").and_then(Value::as_array).cloned().unwrap_or_default();
        for row in &rows {
            let field = |name: &str| row.get(name).and_then(Value::as_str).unwrap_or("-").to_owned();
            let summary = row.pointer("/envelope/summary").and_then(Value::as_str).unwrap_or("");
            println!("  {:<12} {:<18} {:<10} {summary}", field("id"), field("tool"), field("status"));
        }
        let fact = |name: &str| flow.facts.get(name).cloned().unwrap_or(Value::Null);
        println!("{} of {} steps completed.", fact("completed"), fact("total"));
        // `on_error` defaults to `stop`: the flow succeeds only when every step did.
        succeeded("browser_flow", &flow)?;
        Ok(())
    })
    .await
}
