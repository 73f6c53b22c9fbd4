//! Authority holds on the wire: with `hosts.allow = ["127.0.0.1"]`, nothing a hostile page
//! or the model's own action sends reaches 127.0.0.2, judged by 127.0.0.2's own log (the
//! [`Sink`]: every TCP connection and UDP datagram that arrived), on both engines.
//!
//! First a control run with every host open shows the sink does see what the hostile pages
//! send (so an empty log means the requests were stopped, not that the page never sent them).
//! Then one scenario per kind of request: a link, a form (GET and POST, by click,
//! `submit_selector` and Enter), a handler setting `location`, `window.open`, `target=_blank`,
//! a middle click, `<a download>`, `<a ping>`, a meta refresh, a 302 and a 307 redirect of
//! `browser_navigate`, every subresource kind a search box can send per keystroke (fetch,
//! XHR, beacon, image, script, style, prefetch, font, EventSource, WebSocket, a worker's
//! fetch, WebRTC over UDP), and frames, objects and embeds of the denied host.

mod support;

use std::time::Duration;

use ghostlight_core::{Envelope, Ghostlight, Status};
use ghostlight_webdriver::Engine;
use serde_json::{Value, json};
use support::engines::scenario;
use support::server::Site;
use support::sink::Sink;
use support::sites::wire::{self, SECRET};
use support::tools::{call, governed};

/// How long requests a page sends late (after the call answered) get to reach the sink
/// before the log is read: a bound on waiting for evidence, not a timing assertion.
const SETTLE: Duration = Duration::from_millis(1500);

per_engine!(#[tokio::test(flavor = "multi_thread")] chromium, firefox => run);

async fn run(engine: Engine) {
    let sink = Sink::start();
    let site = wire::start(&sink);
    scenario(
        engine,
        "control: without network authority the sink sees the page's requests",
        control(engine, &site, &sink),
    )
    .await;
    let g = governed(browser(engine), json!({"hosts": {"allow": ["127.0.0.1"]}}));
    let denied = format!("127.0.0.2:{}", sink.tcp_port());
    scenario(engine, "a link click", async {
        open(&g, &site, "/link").await;
        let at = std::time::Instant::now();
        let clicked = call(&g, "browser_click", json!({"selector": {"name": "Go away"}})).await;
        eprintln!("[{}] link click answered in {} ms", engine.as_str(), at.elapsed().as_millis());
        refused_navigation(&clicked, &denied);
        stays_on(&g, &site, "/link").await;
        nothing_reached(&sink).await;
    })
    .await;
    scenario(engine, "a link click to https (a tunnel)", async {
        open(&g, &site, "/link-https").await;
        let clicked = call(&g, "browser_click", json!({"selector": {"name": "Go secure"}})).await;
        report(engine, "https link", &clicked);
        assert_eq!(clicked.status, Status::Blocked, "{}", clicked.summary);
        assert!(
            clicked.summary.contains(&format!("tried to open {denied}, which is outside authority")),
            "{}",
            clicked.summary
        );
        stays_on(&g, &site, "/link-https").await;
        nothing_reached(&sink).await;
    })
    .await;
    for (path, how) in [("/form-get", "click"), ("/form-post", "submit_selector"), ("/form-get", "Enter")] {
        scenario(engine, &format!("a form {path} submitted by {how}"), async {
            open(&g, &site, path).await;
            let envelope = match how {
                "click" => {
                    call(&g, "browser_type_text", json!({"selector": {"name": "Query"}, "text": SECRET}))
                        .await;
                    call(&g, "browser_click", json!({"selector": {"name": "Search"}})).await
                }
                "submit_selector" => {
                    let fields = json!([{"selector": {"name": "Query"}, "value": SECRET}]);
                    call(
                        &g,
                        "browser_fill_form",
                        json!({"fields": fields, "submit_selector": {"name": "Search"}}),
                    )
                    .await
                }
                _ => {
                    call(
                        &g,
                        "browser_type_text",
                        json!({"selector": {"name": "Query"}, "text": format!("{SECRET}\n")}),
                    )
                    .await
                }
            };
            refused_navigation(&envelope, &denied);
            stays_on(&g, &site, path).await;
            nothing_reached(&sink).await;
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
            let clicked = call(&g, "browser_click", json!({"selector": {"name": name, "role": role}})).await;
            report(engine, path, &clicked);
            assert!(blocked_count(&clicked) >= 1 || clicked.status == Status::Blocked, "{path}: {clicked:?}");
            nothing_reached(&sink).await;
        })
        .await;
    }
    scenario(engine, "a middle click on a link", async {
        open(&g, &site, "/link").await;
        let clicked =
            call(&g, "browser_click", json!({"selector": {"name": "Go away"}, "button": "middle"})).await;
        report(engine, "middle", &clicked);
        nothing_reached(&sink).await;
    })
    .await;
    scenario(engine, "an <a ping> link", async {
        open(&g, &site, "/ping").await;
        let clicked = call(&g, "browser_click", json!({"selector": {"name": "Ping", "role": "link"}})).await;
        report(engine, "ping", &clicked);
        nothing_reached(&sink).await;
    })
    .await;
    scenario(engine, "a meta refresh", async {
        let opened = call(&g, "browser_navigate", json!({"url": site.url("/refresh").as_str()})).await;
        report(engine, "refresh", &opened);
        nothing_reached(&sink).await;
    })
    .await;
    for path in ["/redirect302", "/redirect307"] {
        scenario(engine, &format!("browser_navigate to {path}"), async {
            open(&g, &site, "/landed").await;
            let opened = call(&g, "browser_navigate", json!({"url": site.url(path).as_str()})).await;
            refused_navigation(&opened, &denied);
            stays_on(&g, &site, "/landed").await;
            nothing_reached(&sink).await;
        })
        .await;
    }
    scenario(engine, "a search box sending every keystroke every way", async {
        open(&g, &site, "/beacons").await;
        let typed =
            call(&g, "browser_type_text", json!({"selector": {"name": "Search"}, "text": SECRET})).await;
        assert_eq!(typed.status, Status::Succeeded, "{typed:?}");
        report(engine, "beacons", &typed);
        assert!(blocked_count(&typed) >= 8, "too few requests stopped: {:?}", typed.facts);
        nothing_reached(&sink).await;
    })
    .await;
    scenario(engine, "a call's restrict_hosts narrows the wire while it runs", async {
        // Every host open; the call itself narrows to 127.0.0.1.
        let open_authority = Ghostlight::new(browser(engine));
        open(&open_authority, &site, "/landed").await;
        let restricted = json!({"url": site.url("/redirect302").as_str(), "restrict_hosts": ["127.0.0.1"]});
        let opened = call(&open_authority, "browser_navigate", restricted).await;
        refused_navigation(&opened, &denied);
        open(&open_authority, &site, "/link").await;
        let click = json!({"selector": {"name": "Go away"}, "restrict_hosts": ["127.0.0.1"]});
        let clicked = call(&open_authority, "browser_click", click).await;
        refused_navigation(&clicked, &denied);
        nothing_reached(&sink).await;
        // Without the restriction the same click goes through (the configured authority).
        open(&open_authority, &site, "/link").await;
        let clicked = call(&open_authority, "browser_click", json!({"selector": {"name": "Go away"}})).await;
        assert_eq!(clicked.status, Status::Succeeded, "{}", clicked.summary);
        tokio::time::sleep(SETTLE).await;
        assert!(sink.seen().iter().any(|line| line.contains("/link?v=")), "{:?}", sink.seen());
        sink.clear();
    })
    .await;
    scenario(engine, "frames, objects and embeds of the denied host", async {
        let opened = call(&g, "browser_navigate", json!({"url": site.url("/frames").as_str()})).await;
        report(engine, "frames", &opened);
        nothing_reached(&sink).await;
    })
    .await;
}

/// A browser of `engine` for these tests. Firefox leaves loopback addresses out of WebRTC by
/// default, so the denied host's STUN server (127.0.0.2) would be skipped anyway: the
/// preference lets it in, and the governed runs show that the network routing stops it.
fn browser(engine: Engine) -> std::sync::Arc<ghostlight_webdriver::WebDriverBrowser> {
    let mut config = ghostlight_webdriver::WebDriverConfig::for_engine(engine);
    if engine == Engine::Firefox {
        let serde_json::Value::Object(extra) =
            json!({"moz:firefoxOptions": {"prefs": {"media.peerconnection.ice.loopback": true}}})
        else {
            unreachable!("an object literal")
        };
        config.extra_capabilities = extra;
    }
    std::sync::Arc::new(ghostlight_webdriver::WebDriverBrowser::new(config))
}

/// Without Ghostlight's network authority (the bare port: no filter, no WebRTC routing),
/// the hostile page's requests do reach the sink, every kind of them.
async fn control(engine: Engine, site: &Site, sink: &Sink) {
    let browser = browser(engine);
    support::port::open(browser.as_ref(), site, "/beacons?auto").await;
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
    assert!(
        seen.iter().any(|line| line.starts_with("UDP")),
        "no WebRTC datagram reached the open sink: {seen:?}"
    );
    browser.shutdown().await;
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

/// Nothing reached the denied host (after letting late requests arrive).
async fn nothing_reached(sink: &Sink) {
    tokio::time::sleep(SETTLE).await;
    let seen = sink.seen();
    assert!(seen.is_empty(), "the denied host saw: {seen:?}");
}
