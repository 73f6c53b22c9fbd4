//! Work in the page last seen (issue 32): `browser_read`, `browser_inspect`, `browser_find`,
//! a text `browser_wait` and a step `browser_scroll` read the page state and do their work in
//! one script while the tab shows the document Ghostlight saw there last, and never work in a
//! document Ghostlight has not authorized. Each case moves the tab behind Ghostlight's back
//! (the port's own navigation, which the executor does not see) and checks what the next call
//! answers, on both engines:
//!
//! - the page moved to another page inside authority: the read answers the new page, as a
//!   new document generation;
//! - the page moved to a host the call's `restrict_hosts` leaves out: refused, nothing of the
//!   page in the answer;
//! - the last page seen is one the call refuses, and the tab has since moved back inside: the
//!   read takes the ordinary way and answers the page it finds;
//! - a step scroll scrolls the page it finds exactly once, and a page outside the call's
//!   authority not at all, even one that copied the identity stamps of the page seen last
//!   (`scroll_in_place`).

mod support;

use std::time::Duration;

use ghostlight_core::port::{Gate, NavigateInput, TabCall, TabRef};
use ghostlight_core::{BrowserPort, Envelope, Ghostlight, Status};
use ghostlight_webdriver::{Engine, WebDriverBrowser};
use serde_json::{Value, json};
use support::engines::browser;
use support::server::Site;
use support::sites::e2e::{self, ARTICLE_PARAGRAPHS};
use support::tools::{call, governed, ok};
use url::Url;

per_engine!(chromium, firefox => run);

/// The reads, each with the arguments given after `extra`.
fn reads(extra: &Value) -> [(&'static str, Value); 4] {
    let with = |mut arguments: Value| {
        if let (Some(arguments), Some(extra)) = (arguments.as_object_mut(), extra.as_object()) {
            arguments.extend(extra.clone());
        }
        arguments
    };
    [
        ("browser_read", with(json!({}))),
        ("browser_inspect", with(json!({}))),
        ("browser_find", with(json!({ "text": "Create account" }))),
        ("browser_wait", with(json!({ "condition": "text_present", "value": "Create account" }))),
    ]
}

/// Navigate `tab` through the port itself: the executor does not see it.
async fn move_behind(browser: &WebDriverBrowser, tab: &TabRef, url: Url) {
    let call = TabCall::new(tab, &Gate::open(), Duration::from_secs(30));
    browser
        .navigate(&call, &NavigateInput { url, discard_beforeunload: false })
        .await
        .expect("the port's own navigation");
}

/// Everything the model would read of `envelope`.
fn shown(envelope: &Envelope) -> String {
    format!("{} {}", envelope.summary, serde_json::to_string(&envelope.facts).unwrap_or_default())
}

/// How many scripts the browser ran since the command log was last taken (classic Execute
/// Script and BiDi `script.callFunction`, which frame walks use).
fn scripts(browser: &WebDriverBrowser) -> usize {
    let log = browser.take_command_log();
    log.iter()
        .filter(|command| command.contains("/execute/") || command.contains("script.callFunction"))
        .count()
}

fn generation(envelope: &Envelope) -> u64 {
    envelope.facts.get("document_generation").and_then(Value::as_u64).unwrap_or_default()
}

async fn run(engine: Engine) {
    let site = e2e::start();
    let browser = browser(engine);
    let g: Ghostlight =
        governed(browser.clone(), json!({ "hosts": { "allow": ["127.0.0.1", "127.0.0.2"] } }));
    let article = site.url("/article");
    let form = site.url("/form");
    let elsewhere = site.url_b("/article");
    ok(&g, "browser_navigate", json!({ "url": article.as_str() })).await;
    // The window's sandbox is probed once, on its first use (a visible read's frame listing):
    // done here, so that every count below is of the reads alone.
    ok(&g, "browser_read", json!({ "mode": "visible" })).await;
    browser.log_commands(true);
    // The tab Ghostlight controls (the driver's own first window is not it).
    let tab = browser
        .tabs()
        .await
        .expect("tabs")
        .into_iter()
        .find(|info| info.page.url == article)
        .expect("the controlled tab")
        .tab;
    let opening = ARTICLE_PARAGRAPHS[0].split(',').next().expect("a clause");

    // The page moved inside authority: each read answers the page it finds, a new document.
    let mut last = 1;
    for (tool, arguments) in reads(&json!({})) {
        move_behind(&browser, &tab, form.clone()).await;
        browser.take_command_log();
        let answer = ok(&g, tool, arguments.clone()).await;
        // The page state with the read (which found another document, and read nothing),
        // then the read in the page just authorized (whose visible text, the form being no
        // article, also asks the page for its frames).
        let expected = if tool == "browser_read" { 3 } else { 2 };
        assert_eq!(scripts(&browser), expected, "{engine:?} {tool}");
        if let Some(url) = answer.facts.get("url") {
            assert_eq!(url, &json!(form.as_str()), "{engine:?} {tool}: {}", shown(&answer));
        }
        if answer.facts.get("document_generation").is_some() {
            assert!(generation(&answer) > last, "{engine:?} {tool}: a new document: {}", shown(&answer));
        }
        let text = shown(&answer);
        assert!(text.contains("Create account"), "{engine:?} {tool} reads the new page: {text}");
        assert!(!text.contains(opening), "{engine:?} {tool} reads nothing of the old page: {text}");
        // Back to the article, seen by the executor, for the next read.
        ok(&g, "browser_navigate", json!({ "url": article.as_str() })).await;
        browser.take_command_log();
        let again = ok(&g, "browser_read", json!({})).await;
        // The document seen last: the page state and the text in one script.
        assert_eq!(scripts(&browser), 1, "{engine:?} browser_read in the page seen last");
        assert!(generation(&again) > generation(&answer), "{engine:?}: the article is a new document");
        last = generation(&again);
    }

    // The page moved to a host this call leaves out: refused, unread.
    let narrowed = json!({ "restrict_hosts": ["127.0.0.1"] });
    for (tool, arguments) in reads(&narrowed) {
        move_behind(&browser, &tab, elsewhere.clone()).await;
        let answer = call(&g, tool, arguments.clone()).await;
        assert_eq!(answer.status, Status::Blocked, "{engine:?} {tool}: {}", shown(&answer));
        assert!(!shown(&answer).contains(opening), "{engine:?} {tool}: {}", shown(&answer));
        move_behind(&browser, &tab, article.clone()).await;
        ok(&g, "browser_read", json!({})).await;
    }

    // The last page seen is refused by the narrowed call, but the tab is back inside: read.
    for (tool, arguments) in reads(&narrowed) {
        ok(&g, "browser_navigate", json!({ "url": elsewhere.as_str() })).await;
        ok(&g, "browser_read", json!({})).await;
        let refused = call(&g, tool, arguments.clone()).await;
        assert_eq!(
            refused.status,
            Status::Blocked,
            "{engine:?} {tool} on the other host: {}",
            shown(&refused)
        );
        move_behind(&browser, &tab, form.clone()).await;
        let answer = ok(&g, tool, arguments.clone()).await;
        assert!(shown(&answer).contains("Create account"), "{engine:?} {tool}: {}", shown(&answer));
    }
    scroll_in_place(engine, &g, &browser, &tab, &site).await;
    browser.shutdown().await;
}

/// Evaluate `expression` in `tab` through the port (the executor does not see it).
async fn eval(browser: &WebDriverBrowser, tab: &TabRef, expression: &str) -> Value {
    let call = TabCall::new(tab, &Gate::open(), Duration::from_secs(30));
    browser.execute(&call, expression).await.expect("a script").value
}

/// The page's vertical scroll offset and half its viewport's height (a `medium` step).
async fn offset_and_step(browser: &WebDriverBrowser, tab: &TabRef) -> (f64, f64) {
    let [y, h]: [f64; 2] =
        serde_json::from_value(eval(browser, tab, "[scrollY, innerHeight]").await).expect("two numbers");
    (y, h * 0.5)
}

/// A step scroll in the page last seen, in a page the tab moved to, and in a refused page,
/// forged identity included.
async fn scroll_in_place(
    engine: Engine,
    g: &Ghostlight,
    browser: &WebDriverBrowser,
    tab: &TabRef,
    site: &Site,
) {
    let (counter, form, refused) = (site.url("/counter"), site.url("/form"), site.url_b("/counter"));
    let down = json!({ "direction": "down" });

    // The page seen last: the page state and the step in one script, final when it answers.
    ok(g, "browser_navigate", json!({ "url": counter.as_str() })).await;
    browser.take_command_log();
    let stepped = ok(g, "browser_scroll", down.clone()).await;
    assert_eq!(scripts(browser), 1, "{engine:?}: a step in the page seen last: {}", shown(&stepped));
    let (y, step) = offset_and_step(browser, tab).await;
    assert!((y - step).abs() <= 2.0, "{engine:?}: one step of {step} px: at {y}");
    assert_eq!(stepped.facts["offset_y"], json!(y.round() as i64), "{engine:?}: {}", shown(&stepped));

    // A window that snaps may move after the step answers: its offsets are read until they
    // settle, and the answer is where the page came to rest.
    ok(g, "browser_navigate", json!({ "url": site.url("/snap").as_str() })).await;
    browser.take_command_log();
    let snapped = ok(g, "browser_scroll", down.clone()).await;
    let sent = scripts(browser);
    assert!(sent >= 2, "{engine:?}: the step, then the settle reads: {sent}");
    // Where the page rests (the snap has long ended), not where the step left it.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (y, _) = offset_and_step(browser, tab).await;
    assert_eq!(snapped.facts["offset_y"], json!(y.round() as i64), "{engine:?}: {}", shown(&snapped));

    // The tab moved to another document inside authority: it scrolls once, not twice.
    ok(g, "browser_navigate", json!({ "url": form.as_str() })).await;
    move_behind(browser, tab, counter.clone()).await;
    let moved = ok(g, "browser_scroll", down.clone()).await;
    let (y, step) = offset_and_step(browser, tab).await;
    assert!((y - step).abs() <= 2.0, "{engine:?}: the new page scrolled one step of {step} px: at {y}");
    assert_eq!(moved.facts["offset_y"], json!(y.round() as i64), "{engine:?}: {}", shown(&moved));

    // The tab moved to a host this call leaves out: refused, and that page never scrolled.
    let narrowed = json!({ "direction": "down", "restrict_hosts": ["127.0.0.1"] });
    move_behind(browser, tab, refused.clone()).await;
    let answer = call(g, "browser_scroll", narrowed.clone()).await;
    assert_eq!(answer.status, Status::Blocked, "{engine:?}: {}", shown(&answer));
    assert_eq!(offset_and_step(browser, tab).await.0, 0.0, "{engine:?}: the refused page did not scroll");

    // A refused page that copied the identity stamps of the page seen last (nonce, restore
    // count, URL, time origin): its origin still tells it apart, so it never scrolls.
    ok(g, "browser_navigate", json!({ "url": counter.as_str() })).await;
    let stamps = eval(
        browser,
        tab,
        "[window[Symbol.for('gl.doc')], window[Symbol.for('gl.epoch')], window[Symbol.for('gl.url')], \
         performance.timeOrigin]",
    )
    .await;
    move_behind(browser, tab, refused.clone()).await;
    let forge = format!(
        "(() => {{ const [doc, epoch, url, origin] = {stamps}; \
         const set = (key, value) => Object.defineProperty(window, Symbol.for(key), \
         {{ value, writable: true, configurable: true, enumerable: false }}); \
         set('gl.doc', doc); set('gl.epoch', epoch); set('gl.url', url); \
         Object.defineProperty(performance, 'timeOrigin', {{ get: () => origin, configurable: true }}); \
         return window[Symbol.for('gl.doc')] === doc; }})()"
    );
    assert_eq!(eval(browser, tab, &forge).await, json!(true), "{engine:?}: the page forged the stamps");
    let answer = call(g, "browser_scroll", narrowed).await;
    assert_eq!(answer.status, Status::Blocked, "{engine:?}: {}", shown(&answer));
    assert_eq!(offset_and_step(browser, tab).await.0, 0.0, "{engine:?}: the forging page did not scroll");
}
