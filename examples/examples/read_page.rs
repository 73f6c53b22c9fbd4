//! Read a page: `browser_navigate`, then `browser_read`, printing each summary and the text.
//!
//! Serves a short demo article on 127.0.0.1 and reads it; `--url` reads a real page instead.
//!
//! ```sh
//! cargo run -p ghostlight-examples --example read_page                      # headless Chromium
//! cargo run -p ghostlight-examples --example read_page -- --browser firefox
//! cargo run -p ghostlight-examples --example read_page -- --url https://example.com
//! ```
//!
//! Needs `chromedriver` (or `geckodriver`) and the browser on `PATH`.

use std::process::ExitCode;

use clap::Parser;
use ghostlight_examples::{BrowserArgs, DemoSite, call, exit_code, with_browser};
use serde_json::json;

/// Read a page with Ghostlight.
#[derive(Parser)]
struct Options {
    #[command(flatten)]
    browser: BrowserArgs,
    /// Read this page instead of the demo article.
    #[arg(long)]
    url: Option<String>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = Options::parse();
    let site = match DemoSite::start() {
        Ok(site) => site,
        Err(error) => return exit_code(Err(error.into())),
    };
    let url = options.url.clone().unwrap_or_else(|| site.url("/"));

    with_browser(&options.browser, |ghostlight| async move {
        // Opens a tab (or reuses the only one) and says where it landed.
        call(&ghostlight, "browser_navigate", json!({ "url": url })).await?;
        // `mode` "article" keeps the main text and drops navigation and boilerplate.
        let read = call(&ghostlight, "browser_read", json!({ "mode": "article", "max_chars": 2000 })).await?;
        let title = read.facts.get("title").and_then(|t| t.as_str()).unwrap_or_default();
        let text = read.facts.get("text").and_then(|t| t.as_str()).unwrap_or_default();
        println!("\nTitle: {title}\n\n{text}");
        Ok(())
    })
    .await
}
