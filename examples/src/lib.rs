//! Runnable examples of embedding and driving Ghostlight; each program is under `examples/`.
//!
//! This library is their shared plumbing, kept small so each program reads on its own:
//!
//! - [`BrowserArgs`]: the `--browser chromium|firefox` and `--headed` flags (clap), and the
//!   [`WebDriverConfig`] they mean;
//! - [`with_browser`]: start a [`WebDriverBrowser`], run the example's work through a
//!   [`Ghostlight`] over it, and always shut the browser down; the exit code says whether
//!   every step succeeded;
//! - [`DemoSite`]: the pages the examples drive, served on `127.0.0.1` on a free port;
//! - [`call`], [`show`] and [`target_named`]: invoke one tool and print its summary, and pick
//!   a target handle out of `browser_inspect` items or `browser_find` matches.
//!
//! Run one: `cargo run -p ghostlight-examples --example read_page -- --browser firefox`.

#![forbid(unsafe_code)]

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::thread::JoinHandle;

use clap::{Args, ValueEnum};
use ghostlight_core::{Cancellation, Envelope, Ghostlight, Status};
use ghostlight_webdriver::{Engine, WebDriverBrowser, WebDriverConfig};
use serde_json::Value;

/// What an example's work answers: `Err` when a step did not succeed (the program then exits
/// with code 1).
pub type Outcome = Result<(), Box<dyn Error>>;

/// The browser an example drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BrowserChoice {
    /// Headless Chromium through `chromedriver` on `PATH`.
    Chromium,
    /// Headless Firefox through `geckodriver` on `PATH`.
    Firefox,
}

/// The browser flags every browser example takes (flatten them into the program's parser).
#[derive(Debug, Clone, Args)]
pub struct BrowserArgs {
    /// Which browser to drive.
    #[arg(long, value_enum, default_value = "chromium")]
    pub browser: BrowserChoice,
    /// Show the browser window instead of running headless.
    #[arg(long)]
    pub headed: bool,
}

impl BrowserArgs {
    /// The WebDriver adapter configuration these flags mean: the driver is started from
    /// `PATH` on the first call, with a 1280×800 window.
    pub fn config(&self) -> WebDriverConfig {
        let engine = match self.browser {
            BrowserChoice::Chromium => Engine::Chromium,
            BrowserChoice::Firefox => Engine::Firefox,
        };
        WebDriverConfig { headless: !self.headed, ..WebDriverConfig::for_engine(engine) }
    }
}

/// Start the browser `args` name, run `work` with a [`Ghostlight`] over it (default authority:
/// read, action and write allowed, execute denied), then shut the browser down whatever
/// happened. Exit code 0 when `work` succeeded, else 1 (the reason printed to standard error).
pub async fn with_browser<F, Fut>(args: &BrowserArgs, work: F) -> ExitCode
where
    F: FnOnce(Ghostlight) -> Fut,
    Fut: Future<Output = Outcome>,
{
    let browser = Arc::new(WebDriverBrowser::new(args.config()));
    // The trait object is the only thing core sees: any `BrowserPort` would do here.
    let ghostlight = Ghostlight::new(browser.clone());
    let outcome = work(ghostlight).await;
    browser.shutdown().await;
    exit_code(outcome)
}

/// Exit code 0 for success; otherwise print the error and answer 1.
pub fn exit_code(outcome: Outcome) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// A tool call that did not succeed: which tool, its status and Ghostlight's summary.
#[derive(Debug, Clone, PartialEq)]
pub struct StepFailed {
    /// The tool called.
    pub tool: String,
    /// The envelope's status (`failed`, `blocked`, …), or `unknown_tool`.
    pub status: String,
    /// The envelope's summary.
    pub summary: String,
}

impl fmt::Display for StepFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} answered {}: {}", self.tool, self.status, self.summary)
    }
}

impl Error for StepFailed {}

/// Invoke `tool` with `arguments`, print `[status] tool: summary`, and answer the envelope
/// when it succeeded; any other status (or a tool name outside the catalog) is a
/// [`StepFailed`].
pub async fn call(ghostlight: &Ghostlight, tool: &str, arguments: Value) -> Result<Envelope, StepFailed> {
    let envelope = show(ghostlight, tool, arguments).await?;
    succeeded(tool, &envelope)?;
    Ok(envelope)
}

/// Invoke `tool` with `arguments`, print `[status] tool: summary`, and answer the envelope
/// whatever its status. Only a tool name outside the catalog is a [`StepFailed`] (status
/// `unknown_tool`): for core that is a protocol error, not an envelope.
pub async fn show(ghostlight: &Ghostlight, tool: &str, arguments: Value) -> Result<Envelope, StepFailed> {
    let result = ghostlight.invoke(tool, &arguments, &Cancellation::never()).await.map_err(|unknown| {
        StepFailed { tool: tool.to_owned(), status: "unknown_tool".to_owned(), summary: unknown.to_string() }
    })?;
    let envelope = result.envelope;
    println!("[{}] {tool}: {}", envelope.status.as_str(), envelope.summary);
    Ok(envelope)
}

/// `Ok` when `envelope` (an answer of `tool`) succeeded, else the [`StepFailed`] it means.
pub fn succeeded(tool: &str, envelope: &Envelope) -> Result<(), StepFailed> {
    if envelope.status == Status::Succeeded {
        Ok(())
    } else {
        Err(StepFailed {
            tool: tool.to_owned(),
            status: envelope.status.as_str().to_owned(),
            summary: envelope.summary.clone(),
        })
    }
}

/// The target handle of the element named exactly `name` in a `browser_inspect` (`items`)
/// or `browser_find` (`matches`) envelope. Rows are compact arrays whose columns the
/// `columns` fact names: `["target", "role", "name", "state", "credential"]`.
pub fn target_named(envelope: &Envelope, name: &str) -> Option<String> {
    let rows = envelope.facts.get("items").or_else(|| envelope.facts.get("matches"))?;
    rows.as_array()?
        .iter()
        .find(|row| row.get(2).and_then(Value::as_str) == Some(name))
        .and_then(|row| row.get(0)?.as_str().map(str::to_owned))
}

/// A sentence of the demo article; `read_page` prints it.
pub const ARTICLE_SENTENCE: &str = "The tide at Saint-Malo rises and falls by up to thirteen metres.";

/// The demo site: a few static pages on `127.0.0.1` (a free port), served from a thread
/// until the site is dropped.
///
/// | path | page |
/// | --- | --- |
/// | `/` | a short article ([`ARTICLE_SENTENCE`] among its paragraphs) |
/// | `/form` | a form: "Name" text field, "Send me news" checkbox, "Plan" select, "Send" button |
/// | `/thanks?name=…&news=on&plan=…` | where the form goes: `Thanks, NAME!` and what was chosen |
pub struct DemoSite {
    server: Arc<tiny_http::Server>,
    address: SocketAddr,
    thread: Option<JoinHandle<()>>,
}

impl fmt::Debug for DemoSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DemoSite").field("address", &self.address).finish_non_exhaustive()
    }
}

impl DemoSite {
    /// Serve the demo pages on `127.0.0.1` on a port the system picks.
    pub fn start() -> io::Result<DemoSite> {
        let server = tiny_http::Server::http("127.0.0.1:0").map_err(io::Error::other)?;
        let address = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| io::Error::other("the demo site is not listening on an IP address"))?;
        let server = Arc::new(server);
        let serving = server.clone();
        let thread = std::thread::Builder::new().name("demo-site".into()).spawn(move || {
            for request in serving.incoming_requests() {
                let (status, body) = page(request.url());
                let mut response = tiny_http::Response::from_string(body).with_status_code(status);
                if let Ok(header) = tiny_http::Header::from_bytes("Content-Type", "text/html; charset=utf-8")
                {
                    response = response.with_header(header);
                }
                // A browser that went away mid-response is not the site's problem.
                let _ = request.respond(response);
            }
        })?;
        Ok(DemoSite { server, address, thread: Some(thread) })
    }

    /// The absolute URL of `path` (which starts with `/`) on this site.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }
}

impl Drop for DemoSite {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The status and HTML of `target` (a request path with its query).
fn page(target: &str) -> (u16, String) {
    let Ok(url) = url::Url::parse(&format!("http://demo{target}")) else {
        return (400, html("Bad request", "<p>Bad request.</p>"));
    };
    match url.path() {
        "/" => (200, html("Tides of Saint-Malo", ARTICLE)),
        "/form" => (200, html("Newsletter", FORM)),
        "/thanks" => {
            let field = |key: &str| {
                url.query_pairs().find(|(k, _)| k == key).map(|(_, v)| v.into_owned()).unwrap_or_default()
            };
            let name = escape(field("name").trim());
            let plan = escape(&field("plan"));
            let news = if field("news") == "on" { "yes" } else { "no" };
            let body = format!(
                "<main><h1 id=\"result\">Thanks, {name}!</h1>\
                 <p>Plan: {plan}. News: {news}.</p><p><a href=\"/form\">Back to the form</a></p></main>"
            );
            (200, html("Thanks", &body))
        }
        _ => (404, html("Not found", "<p>Nothing here.</p>")),
    }
}

fn html(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head><body>{body}</body></html>"
    )
}

/// Escape text for HTML (the thank-you page echoes what was typed).
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

const ARTICLE: &str = "<nav><a href=\"/form\">Newsletter</a></nav>\
<main><article><h1>Tides of Saint-Malo</h1>\
<p>The tide at Saint-Malo rises and falls by up to thirteen metres.</p>\
<p>At low water the Grand Bé island can be reached on foot; at high water the causeway is under the sea.</p>\
<p>Tide tables are published a year ahead, and walkers are asked to check them before crossing.</p>\
</article></main>";

const FORM: &str = "<main><h1>Newsletter</h1>\
<form action=\"/thanks\" method=\"get\">\
<p><label for=\"name\">Name</label> <input id=\"name\" name=\"name\" type=\"text\"></p>\
<p><label><input name=\"news\" type=\"checkbox\"> Send me news</label></p>\
<p><label for=\"plan\">Plan</label> <select id=\"plan\" name=\"plan\">\
<option value=\"free\">Free</option><option value=\"pro\">Pro</option></select></p>\
<p><button type=\"submit\">Send</button></p>\
</form></main>";
