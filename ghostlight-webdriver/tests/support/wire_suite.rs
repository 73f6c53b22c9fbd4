//! The wire suite, one body for both adapters (`ghostlight-webdriver/tests/wire.rs`,
//! `ghostlight-extension/tests/wire.rs`): with `hosts.allow = ["127.0.0.1"]`, nothing a
//! hostile page or the model's own action sends reaches 127.0.0.2, judged by 127.0.0.2's own
//! log (the [`Sink`]: every TCP connection and UDP datagram that arrived).
//!
//! First a control run on the port without Ghostlight's network authority shows the sink does
//! see what the hostile pages send (so an empty log means the requests were stopped, not that
//! the page never sent them). Then one scenario per kind of request: a link (`http:` and an
//! `https:` tunnel), a form (GET and POST, by click, `submit_selector` and Enter), a handler
//! setting `location`, `window.open`, `target=_blank`, a middle click, a click with Control or
//! Shift held, `<a download>`,
//! `<a ping>`, a meta refresh, a 302 and a 307 redirect of `browser_navigate`, a call's
//! `restrict_hosts` narrowing the wire while it runs, every subresource kind a search box can
//! send per keystroke (fetch, XHR, beacon, image, script, style, prefetch, font, EventSource,
//! WebSocket, a worker's fetch, and WebRTC over UDP where the adapter governs it), and frames,
//! objects and embeds of the denied host. Where an adapter and engine send no trusted input
//! (the extension on Firefox), an action answers `unsupported` and nothing is sent either.

use std::sync::Arc;
use std::time::Duration;

use ghostlight_core::port::BrowserPort;
use ghostlight_core::{Envelope, Ghostlight, Status};
use ghostlight_webdriver::Engine;
use serde_json::{Value, json};

use crate::support::e2e_suite::Adapter;
use crate::support::engines::scenario;
use crate::support::server::Site;
use crate::support::sink::{CONNECTED, Sink};
use crate::support::sites::wire::{self, SECRET};
use crate::support::tools::{call, governed};

/// How long requests a page sends late (after the call answered) get to reach the sink
/// before the log is read: a bound on waiting for evidence, not a timing assertion.
const SETTLE: Duration = Duration::from_millis(1500);

/// One adapter's browsers for the suite.
pub(crate) struct Ports {
    /// The adapter.
    pub(crate) adapter: Adapter,
    /// The engine.
    pub(crate) engine: Engine,
    /// The port governed by Ghostlight's network authority in the scenarios.
    pub(crate) governed: Arc<dyn BrowserPort>,
    /// A port nobody governs (for the control run; the WebDriver adapter's is a browser of its
    /// own, the extension's is the same browser before any rules were sent).
    pub(crate) bare: Arc<dyn BrowserPort>,
    /// A second port for the `restrict_hosts` scenario, governed with every host open (the
    /// WebDriver adapter's is a browser of its own; the extension's is `governed` itself).
    pub(crate) open: Arc<dyn BrowserPort>,
}

impl Ports {
    /// Whether the adapter sends trusted input on this engine.
    fn trusted_input(&self) -> bool {
        !(self.adapter == Adapter::Extension && self.engine == Engine::Firefox)
    }

    /// Whether WebRTC's UDP is governed (the WebDriver adapter starts its browsers without
    /// non-proxied UDP; an extension can only change that for the whole browser).
    fn governs_udp(&self) -> bool {
        self.adapter == Adapter::WebDriver
    }
}

/// Run the suite on `ports`.
pub(crate) async fn run_all(ports: &Ports) {
    let engine = ports.engine;
    let sink = Sink::start();
    let site = wire::start(&sink);
    scenario(
        engine,
        "control: without network authority the sink sees the page's requests",
        control(ports, &site, &sink),
    )
    .await;
    let g = governed(Arc::clone(&ports.governed), json!({"hosts": {"allow": ["127.0.0.1"]}}));
    let act = Act { g: &g, trusted: ports.trusted_input() };
    // Through the extension on Chromium, speculative preconnects are tolerated (see
    // `nothing_reached`).
    let tolerate = ports.adapter == Adapter::Extension && engine == Engine::Chromium;
    let denied = format!("127.0.0.2:{}", sink.tcp_port());
    scenario(engine, "a link click", async {
        open(&g, &site, "/link").await;
        let at = std::time::Instant::now();
        if let Some(clicked) = act.input("browser_click", json!({"selector": {"name": "Go away"}})).await {
            eprintln!("[{}] link click answered in {} ms", engine.as_str(), at.elapsed().as_millis());
            refused_navigation(&clicked, &denied);
            stays_on(&g, &site, "/link").await;
        }
        nothing_reached(&sink, tolerate).await;
    })
    .await;
    scenario(engine, "a link click to https (a tunnel)", async {
        open(&g, &site, "/link-https").await;
        if let Some(clicked) = act.input("browser_click", json!({"selector": {"name": "Go secure"}})).await {
            report(engine, "https link", &clicked);
            assert_eq!(clicked.status, Status::Blocked, "{}", clicked.summary);
            assert!(
                clicked.summary.contains(&format!("tried to open {denied}, which is outside authority")),
                "{}",
                clicked.summary
            );
            stays_on(&g, &site, "/link-https").await;
        }
        nothing_reached(&sink, tolerate).await;
    })
    .await;
    for (path, how) in [("/form-get", "click"), ("/form-post", "submit_selector"), ("/form-get", "Enter")] {
        scenario(engine, &format!("a form {path} submitted by {how}"), async {
            open(&g, &site, path).await;
            let envelope = match how {
                "click" => {
                    let fields = json!([{"selector": {"name": "Query"}, "value": SECRET}]);
                    call(&g, "browser_fill_form", json!({"fields": fields})).await;
                    act.input("browser_click", json!({"selector": {"name": "Search"}})).await
                }
                "submit_selector" => {
                    let fields = json!([{"selector": {"name": "Query"}, "value": SECRET}]);
                    act.input(
                        "browser_fill_form",
                        json!({"fields": fields, "submit_selector": {"name": "Search"}}),
                    )
                    .await
                }
                _ => {
                    act.input(
                        "browser_type_text",
                        json!({"selector": {"name": "Query"}, "text": format!("{SECRET}\n")}),
                    )
                    .await
                }
            };
            if let Some(envelope) = envelope {
                refused_navigation(&envelope, &denied);
                stays_on(&g, &site, path).await;
            }
            nothing_reached(&sink, tolerate).await;
        })
        .await;
    }
    let clicks = [
        ("/assign", "Assign", "button"),
        ("/open", "Open", "button"),
        ("/blank", "Blank", "link"),
        ("/download", "Download", "link"),
    ];
    for (path, name, role) in clicks {
        scenario(engine, &format!("{path}: a click on {name}"), async {
            open(&g, &site, path).await;
            if let Some(clicked) =
                act.input("browser_click", json!({"selector": {"name": name, "role": role}})).await
            {
                report(engine, path, &clicked);
                // A popup's refused load can be reported after the click answered (the
                // extension hears of it from the browser a moment later): it must then be in
                // the browser's refusal log that `browser_diagnose` reports.
                let reported = blocked_count(&clicked) >= 1
                    || clicked.status == Status::Blocked
                    || refusal_logged(&g, &denied).await;
                assert!(reported, "{path}: {clicked:?}");
            }
            nothing_reached(&sink, tolerate).await;
        })
        .await;
    }
    scenario(engine, "a middle click on a link", async {
        open(&g, &site, "/link").await;
        let middle = json!({"selector": {"name": "Go away"}, "button": "middle"});
        if let Some(clicked) = act.input("browser_click", middle).await {
            report(engine, "middle", &clicked);
        }
        nothing_reached(&sink, tolerate).await;
    })
    .await;
    // Control opens the link in a new tab, Shift in a new window: the modifiers a click may
    // hold (issue 33) send nothing the middle click does not.
    for (held, label) in [("Control", "control"), ("Shift", "shift")] {
        scenario(engine, &format!("a link clicked with {held} held"), async {
            open(&g, &site, "/link").await;
            let click = json!({"selector": {"name": "Go away"}, "modifiers": [held]});
            if let Some(clicked) = act.input("browser_click", click).await {
                report(engine, label, &clicked);
            }
            nothing_reached(&sink, tolerate).await;
        })
        .await;
    }
    scenario(engine, "an <a ping> link", async {
        open(&g, &site, "/ping").await;
        if let Some(clicked) =
            act.input("browser_click", json!({"selector": {"name": "Ping", "role": "link"}})).await
        {
            report(engine, "ping", &clicked);
        }
        nothing_reached(&sink, tolerate).await;
    })
    .await;
    scenario(engine, "a meta refresh", async {
        let opened = call(&g, "browser_navigate", json!({"url": site.url("/refresh").as_str()})).await;
        report(engine, "refresh", &opened);
        nothing_reached(&sink, tolerate).await;
    })
    .await;
    for path in ["/redirect302", "/redirect307"] {
        scenario(engine, &format!("browser_navigate to {path}"), async {
            open(&g, &site, "/landed").await;
            let opened = call(&g, "browser_navigate", json!({"url": site.url(path).as_str()})).await;
            refused_navigation(&opened, &denied);
            stays_on(&g, &site, "/landed").await;
            nothing_reached(&sink, tolerate).await;
        })
        .await;
    }
    scenario(engine, "a search box sending every keystroke every way", async {
        open(&g, &site, if ports.governs_udp() { "/beacons" } else { "/beacons?nortc" }).await;
        // Keystroke by keystroke where input is trusted; else one fill (one input event).
        let typed = match act
            .input("browser_type_text", json!({"selector": {"name": "Search"}, "text": SECRET}))
            .await
        {
            Some(typed) => typed,
            None => {
                call(
                    &g,
                    "browser_fill_form",
                    json!({"fields": [{"selector": {"name": "Search"}, "value": SECRET}]}),
                )
                .await
            }
        };
        assert_eq!(typed.status, Status::Succeeded, "{typed:?}");
        report(engine, "beacons", &typed);
        assert!(blocked_count(&typed) >= 8, "too few requests stopped: {:?}", typed.facts);
        nothing_reached(&sink, tolerate).await;
    })
    .await;
    scenario(engine, "frames, objects and embeds of the denied host", async {
        let opened = call(&g, "browser_navigate", json!({"url": site.url("/frames").as_str()})).await;
        report(engine, "frames", &opened);
        nothing_reached(&sink, tolerate).await;
    })
    .await;
    scenario(engine, "a call's restrict_hosts narrows the wire while it runs", async {
        // Every host open; the call itself narrows to 127.0.0.1.
        // (The extension's `open` port is the governed one: this scenario runs last.)
        let open_authority = Ghostlight::new(Arc::clone(&ports.open));
        let act = Act { g: &open_authority, trusted: ports.trusted_input() };
        open(&open_authority, &site, "/landed").await;
        let restricted = json!({"url": site.url("/redirect302").as_str(), "restrict_hosts": ["127.0.0.1"]});
        let opened = call(&open_authority, "browser_navigate", restricted).await;
        refused_navigation(&opened, &denied);
        open(&open_authority, &site, "/link").await;
        let click = json!({"selector": {"name": "Go away"}, "restrict_hosts": ["127.0.0.1"]});
        if let Some(clicked) = act.input("browser_click", click).await {
            refused_navigation(&clicked, &denied);
            nothing_reached(&sink, tolerate).await;
            // Without the restriction the same click goes through (the configured authority).
            open(&open_authority, &site, "/link").await;
            let clicked = act.input("browser_click", json!({"selector": {"name": "Go away"}})).await;
            let clicked = clicked.unwrap_or_else(|| unreachable!("trusted input"));
            assert_eq!(clicked.status, Status::Succeeded, "{}", clicked.summary);
            report(engine, "unrestricted click", &clicked);
            tokio::time::sleep(SETTLE).await;
            assert!(sink.seen().iter().any(|line| line.contains("/link?v=")), "{:?}", sink.seen());
            sink.clear();
        }
    })
    .await;
}

/// Without Ghostlight's network authority (the bare port: no filter, no WebRTC routing, no
/// extension rules), the hostile page's requests do reach the sink, every kind of them.
async fn control(ports: &Ports, site: &Site, sink: &Sink) {
    let engine = ports.engine;
    let tab = crate::support::port::open(ports.bare.as_ref(), site, "/beacons?auto").await;
    tokio::time::sleep(SETTLE).await;
    let seen = sink.seen();
    eprintln!("[{}] control: the sink saw {} requests: {seen:?}", engine.as_str(), seen.len());
    for kind in [
        "/fetch?v=auto",
        "/xhr?v=auto",
        "/beacon",
        "/img?v=auto",
        "/script.js?v=auto",
        "/events?v=auto",
        "/socket?v=auto",
        "/from-worker?v=auto",
    ] {
        assert!(seen.iter().any(|line| line.contains(kind)), "{kind} did not reach the open sink: {seen:?}");
    }
    if ports.governs_udp() {
        assert!(
            seen.iter().any(|line| line.starts_with("UDP")),
            "no WebRTC datagram reached the open sink: {seen:?}"
        );
    }
    let _ = ports.bare.close_tab(&tab).await;
    sink.clear();
}

async fn open(g: &Ghostlight, site: &Site, path: &str) {
    // Pages that open popups leave tabs behind: start each scenario on one tab.
    let listed = call(g, "browser_tabs", json!({"action": "list"})).await;
    let tabs: Vec<String> = listed
        .facts
        .get("tabs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|tab| tab["tab"].as_str().map(str::to_owned))
        .collect();
    for tab in tabs.iter().skip(1) {
        call(g, "browser_tabs", json!({"action": "close", "tab": tab})).await;
    }
    let at = std::time::Instant::now();
    let opened = call(g, "browser_navigate", json!({"url": site.url(path).as_str()})).await;
    assert_eq!(opened.status, Status::Succeeded, "{path}: {}", opened.summary);
    eprintln!("  opened {path} in {} ms", at.elapsed().as_millis());
}

/// The call's navigation to the denied host was refused: `blocked`, the sentence names the
/// host and says nothing was sent, the fact counts it.
fn refused_navigation(envelope: &Envelope, denied: &str) {
    assert_eq!(envelope.status, Status::Blocked, "{}\n{:?}", envelope.summary, envelope.facts);
    let said = format!("tried to open {denied}, which is outside authority; nothing was sent.");
    assert!(envelope.summary.contains(&said), "{}", envelope.summary);
    assert!(blocked_count(envelope) >= 1, "{:?}", envelope.facts);
    let origins = &envelope.facts["blocked_requests"]["origins"];
    assert!(
        origins.as_array().is_some_and(|o| o.contains(&Value::from(format!("http://{denied}")))),
        "{origins}"
    );
}

/// The tab still shows `path` (the refused navigation left it on its document).
async fn stays_on(g: &Ghostlight, site: &Site, path: &str) {
    let read = call(g, "browser_read", json!({})).await;
    assert_eq!(read.status, Status::Succeeded, "{}", read.summary);
    assert_eq!(read.facts["url"], site.url(path).as_str(), "{}", read.summary);
}

/// Whether `browser_diagnose` lists a refused request to `denied` (`host:port`) within
/// [`SETTLE`].
async fn refusal_logged(g: &Ghostlight, denied: &str) -> bool {
    let deadline = tokio::time::Instant::now() + SETTLE;
    loop {
        let diagnosed = call(g, "browser_diagnose", json!({})).await;
        let refused = diagnosed.facts.get("refused").and_then(Value::as_array).cloned().unwrap_or_default();
        if refused
            .iter()
            .any(|entry| entry["origin"].as_str().is_some_and(|o| o.ends_with(&format!("://{denied}"))))
        {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            eprintln!("  browser_diagnose lists no refusal to {denied}: {:?}", diagnosed.facts);
            return false;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn blocked_count(envelope: &Envelope) -> u64 {
    envelope.facts.get("blocked_requests").and_then(|b| b["count"].as_u64()).unwrap_or(0)
}

fn report(engine: Engine, what: &str, envelope: &Envelope) {
    eprintln!(
        "[{}] {what}: {:?} {} {}",
        engine.as_str(),
        envelope.status,
        envelope.summary,
        envelope.facts.get("blocked_requests").map(Value::to_string).unwrap_or_default()
    );
}

/// Nothing reached the denied host (after letting late requests arrive). Through the
/// extension on Chromium, the browser's speculative preconnections to a link's host (a TCP
/// connection opened when the pointer goes down on the link, closed without a byte) are not
/// requests an extension can stop: they are tolerated, counted and printed, never a request
/// line (README's table says so).
async fn nothing_reached(sink: &Sink, tolerate_preconnects: bool) {
    tokio::time::sleep(SETTLE).await;
    let seen = sink.seen();
    let preconnects = seen.iter().filter(|line| line.as_str() == CONNECTED).count();
    if preconnects > 0 && tolerate_preconnects {
        eprintln!(
            "  the denied host saw {preconnects} connections without a request (speculative preconnects)"
        );
        let requests: Vec<&String> = seen.iter().filter(|line| line.as_str() != CONNECTED).collect();
        assert!(requests.is_empty(), "the denied host saw: {requests:?}");
    } else {
        assert!(seen.is_empty(), "the denied host saw: {seen:?}");
    }
    sink.clear();
}

/// Input through a governed workspace: where the adapter sends no trusted input on this
/// engine, the tool answers `unsupported` (asserted) and the scenario has nothing more to
/// check than the sink.
struct Act<'g> {
    g: &'g Ghostlight,
    trusted: bool,
}

impl Act<'_> {
    async fn input(&self, tool: &str, arguments: Value) -> Option<Envelope> {
        let envelope = call(self.g, tool, arguments).await;
        if self.trusted {
            return Some(envelope);
        }
        if envelope.facts.get("reason").and_then(Value::as_str) == Some("unsupported") {
            return None;
        }
        Some(envelope)
    }
}
