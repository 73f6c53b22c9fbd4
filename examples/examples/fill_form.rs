//! Fill and submit a form: `browser_inspect` for target handles, `browser_fill_form` (a text
//! field, a checkbox and a select), `browser_click` on the submit button, then `browser_wait`
//! and `browser_read` to show what the page itself answered ("Thanks, Ada!").
//!
//! ```sh
//! cargo run -p ghostlight-examples --example fill_form
//! cargo run -p ghostlight-examples --example fill_form -- --browser firefox --headed
//! ```
//!
//! Needs `chromedriver` (or `geckodriver`) and the browser on `PATH`. The form is served by
//! the demo site on 127.0.0.1; it submits with a GET to `/thanks`.

use std::process::ExitCode;

use clap::Parser;
use ghostlight_core::Envelope;
use ghostlight_examples::{BrowserArgs, DemoSite, StepFailed, call, exit_code, target_named, with_browser};
use serde_json::json;

/// Fill and submit the demo form with Ghostlight.
#[derive(Parser)]
struct Options {
    #[command(flatten)]
    browser: BrowserArgs,
}

/// The handle of the control called `name`, or a failure naming it.
fn target(inspected: &Envelope, name: &str) -> Result<String, StepFailed> {
    target_named(inspected, name).ok_or_else(|| StepFailed {
        tool: "browser_inspect".into(),
        status: "missing".into(),
        summary: format!("no control named {name:?}"),
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = Options::parse();
    let site = match DemoSite::start() {
        Ok(site) => site,
        Err(error) => return exit_code(Err(error.into())),
    };
    let form = site.url("/form");

    with_browser(&options.browser, |ghostlight| async move {
        call(&ghostlight, "browser_navigate", json!({ "url": form })).await?;

        // Target handles are perception: they belong to this document and go stale when the
        // page navigates. Each row is [target, role, name, state, credential].
        let inspected = call(&ghostlight, "browser_inspect", json!({ "scope": "controls" })).await?;
        for row in inspected.facts.get("items").and_then(|i| i.as_array()).into_iter().flatten() {
            println!("  {row}");
        }
        let (name, news, plan, send) = (
            target(&inspected, "Name")?,
            target(&inspected, "Send me news")?,
            target(&inspected, "Plan")?,
            target(&inspected, "Send")?,
        );

        // One call fills every field; each value is checked against its control before any
        // is set. A string fills a text field or picks an option by label, a boolean sets a
        // checkbox. (`submit_target` could submit in the same call; here the click is separate.)
        let fields = json!([
            { "target": name, "value": "Ada" },
            { "target": news, "value": true },
            { "target": plan, "value": "Pro" },
        ]);
        call(&ghostlight, "browser_fill_form", json!({ "fields": fields })).await?;
        call(&ghostlight, "browser_click", json!({ "target": send })).await?;

        // The page's own answer: wait for it, then read it.
        call(&ghostlight, "browser_wait", json!({ "condition": "text_present", "value": "Thanks, Ada" }))
            .await?;
        let read = call(&ghostlight, "browser_read", json!({ "mode": "visible" })).await?;
        let text = read.facts.get("text").and_then(|t| t.as_str()).unwrap_or_default();
        println!("\nThe page says: {text}");
        Ok(())
    })
    .await
}
