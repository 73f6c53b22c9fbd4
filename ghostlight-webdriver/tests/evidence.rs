//! `diagnostics` (console and network evidence over WebDriver BiDi) against real headless
//! browsers, plus `browser_diagnose` end to end through core.

mod support;

use std::time::{Duration, Instant};

use ghostlight_core::Ghostlight;
use ghostlight_core::port::{
    BrowserPort, DiagnosticEntry, DiagnosticSource, DiagnosticsPage, DiagnosticsQuery, Gate, PortErrorKind,
    TabCall, TabRef,
};
use ghostlight_core::port::{DiagnoseDetail, DiagnoseSource};
use ghostlight_webdriver::{Engine, WebDriverBrowser};
use serde_json::{Value, json};
use support::engines::{browser, scenario};
use support::port::go;
use support::server::Site;
use support::sites::evidence;
use support::tools;

const TIMEOUT: Duration = Duration::from_secs(15);
/// How long evidence may take to arrive after the page produced it.
const ARRIVAL: Duration = Duration::from_secs(10);
/// The adapter's console text bound (`ops::evidence::MAX_TEXT_CHARS`).
const MAX_TEXT_CHARS: usize = 2_000;

per_engine!(#[tokio::test(flavor = "multi_thread", worker_threads = 2)] chromium, firefox => run);

per_engine!(
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    chromium_through_core, firefox_through_core =>
    |engine| scenario(engine, "browser_diagnose_end_to_end", through_core(engine))
);

async fn run(engine: Engine) {
    let site = evidence::start();
    let browser = browser(engine);
    let (b, site) = (&*browser, &site);
    scenario(engine, "first_call_starts_tracking", first_call_starts_tracking(b, site)).await;
    scenario(engine, "console_and_network_problems", console_and_network_problems(b, site)).await;
    scenario(engine, "iframe_evidence_files_under_its_tab", iframe_evidence(b, site)).await;
    browser.shutdown().await;
}

fn query(
    source: DiagnoseSource,
    detail: DiagnoseDetail,
    after: Option<String>,
    limit: usize,
) -> DiagnosticsQuery {
    DiagnosticsQuery { source, detail, pattern: None, after, limit }
}

fn all() -> DiagnosticsQuery {
    query(DiagnoseSource::Both, DiagnoseDetail::All, None, 1_000)
}

/// Poll `diagnostics` until `done` holds for the page (or [`ARRIVAL`] passes).
async fn until(
    b: &WebDriverBrowser,
    tab: &TabRef,
    q: &DiagnosticsQuery,
    done: impl Fn(&DiagnosticsPage) -> bool,
) -> DiagnosticsPage {
    let deadline = Instant::now() + ARRIVAL;
    loop {
        let page = b.diagnostics(tab, q).await.expect("diagnostics");
        if done(&page) || Instant::now() >= deadline {
            return page;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn text_has(entry: &DiagnosticEntry, needle: &str) -> bool {
    entry.text.as_deref().is_some_and(|t| t.contains(needle))
}

fn path_is(entry: &DiagnosticEntry, path: &str) -> bool {
    entry.url.as_ref().is_some_and(|u| u.path() == path)
}

async fn first_call_starts_tracking(b: &WebDriverBrowser, site: &Site) {
    let tab = b.open_tab(&go(site.url("/quiet")), TIMEOUT).await.expect("open_tab").tab;
    let first = b.diagnostics(&tab, &all()).await.expect("first call");
    assert!(first.tracking_started, "the first call starts tracking");
    assert_eq!(first.evicted, 0);
    let second = b.diagnostics(&tab, &all()).await.expect("second call");
    assert!(!second.tracking_started, "only the first call starts tracking");
    // A tab opened later also reports its own first call.
    let other = b.open_tab(&go(site.url("/quiet")), TIMEOUT).await.expect("open_tab").tab;
    assert!(b.diagnostics(&other, &all()).await.expect("other tab").tracking_started);
    let garbage = query(DiagnoseSource::Both, DiagnoseDetail::All, Some("not-a-cursor".into()), 10);
    assert_eq!(
        b.diagnostics(&tab, &garbage).await.expect_err("garbage cursor").kind(),
        PortErrorKind::InvalidInput
    );
    let future = query(DiagnoseSource::Both, DiagnoseDetail::All, Some("999999".into()), 10);
    assert_eq!(
        b.diagnostics(&tab, &future).await.expect_err("unknown cursor").kind(),
        PortErrorKind::InvalidInput
    );
    b.close_tab(&other).await.expect("close");
    b.close_tab(&tab).await.expect("close");
}

async fn console_and_network_problems(b: &WebDriverBrowser, site: &Site) {
    let tab = b.open_tab(&go(site.url("/quiet")), TIMEOUT).await.expect("open_tab").tab;
    assert!(b.diagnostics(&tab, &all()).await.expect("start tracking").tracking_started);
    b.navigate(&TabCall::new(&tab, &Gate::open(), TIMEOUT), &go(site.url("/problems")))
        .await
        .expect("navigate");

    let complete = |page: &DiagnosticsPage| {
        let e = &page.entries;
        e.iter().any(|x| x.level == "exception")
            && e.iter().any(|x| path_is(x, "/missing"))
            && e.iter().any(|x| path_is(x, "/ok"))
            && e.iter().any(|x| path_is(x, "/refused"))
    };
    let everything = until(b, &tab, &all(), complete).await;
    assert!(complete(&everything), "all evidence arrived: {:#?}", everything.entries);
    assert!(!everything.tracking_started);

    // Nothing keeps a query, a fragment or userinfo.
    for entry in &everything.entries {
        if let Some(url) = &entry.url {
            assert_eq!(url.query(), None, "{url}");
            assert_eq!(url.fragment(), None, "{url}");
            assert!(!url.as_str().contains("secret") && !url.as_str().contains("frag"), "{url}");
        }
        if let Some(text) = &entry.text {
            assert!(text.chars().count() <= MAX_TEXT_CHARS, "console text is bounded");
        }
    }

    let problems = b
        .diagnostics(&tab, &query(DiagnoseSource::Both, DiagnoseDetail::Problems, None, 1_000))
        .await
        .expect("problems");
    let p = &problems.entries;
    assert!(p.iter().all(|e| e.problem), "problems only");
    let error = p.iter().find(|e| e.level == "error" && text_has(e, "gl-error")).expect("console.error");
    assert_eq!(error.source, DiagnosticSource::Console);
    assert_eq!(
        error.text.as_ref().map(|t| t.chars().count()),
        Some(MAX_TEXT_CHARS),
        "the 5,009-char text is cut"
    );
    assert!(p.iter().any(|e| e.level == "warning" && text_has(e, "gl-warn")), "console.warn");
    assert!(p.iter().any(|e| e.level == "exception" && text_has(e, "gl-uncaught")), "uncaught exception");
    assert!(!p.iter().any(|e| text_has(e, "gl-info")), "info is not a problem");
    let missing = p.iter().find(|e| path_is(e, "/missing")).expect("the 404 fetch");
    assert_eq!(
        (missing.source, missing.status, missing.method.as_deref()),
        (DiagnosticSource::Network, Some(404), Some("GET"))
    );
    assert_eq!(missing.url.as_ref().map(url::Url::as_str), Some(site.url("/missing").as_str()));
    let refused = p.iter().find(|e| path_is(e, "/refused")).expect("the refused fetch");
    assert_eq!((refused.level.as_str(), refused.status), ("failed", None));
    assert!(!p.iter().any(|e| path_is(e, "/ok")), "a 200 is not a problem");

    // Detail all adds successful requests and ordinary console lines.
    let e = &everything.entries;
    let ok = e.iter().find(|x| path_is(x, "/ok")).expect("the 200 fetch");
    assert_eq!((ok.status, ok.problem, ok.level.as_str()), (Some(200), false, "request"));
    assert!(e.iter().any(|x| x.level == "info" && text_has(x, "gl-info") && !x.problem));
    assert!(e.iter().any(|x| path_is(x, "/problems") && x.status == Some(200)), "the document request");

    // Sources and the literal, case-insensitive pattern.
    let console = b
        .diagnostics(&tab, &query(DiagnoseSource::Console, DiagnoseDetail::All, None, 1_000))
        .await
        .expect("console");
    assert!(console.entries.iter().all(|x| x.source == DiagnosticSource::Console));
    let network = b
        .diagnostics(&tab, &query(DiagnoseSource::Network, DiagnoseDetail::All, None, 1_000))
        .await
        .expect("network");
    assert!(network.entries.iter().all(|x| x.source == DiagnosticSource::Network));
    let mut matching = all();
    matching.pattern = Some("GL-WARN".into());
    let found = b.diagnostics(&tab, &matching).await.expect("pattern");
    assert_eq!(found.entries.len(), 1);
    matching.pattern = Some("/MISSING".into());
    assert!(
        b.diagnostics(&tab, &matching).await.expect("pattern").entries.iter().all(|x| path_is(x, "/missing"))
    );

    // Cursor paging walks the same entries, two at a time; reads are non-destructive.
    let mut paged = Vec::new();
    let mut after = None;
    loop {
        let page = b
            .diagnostics(&tab, &query(DiagnoseSource::Both, DiagnoseDetail::All, after.clone(), 2))
            .await
            .expect("page");
        assert!(page.entries.len() <= 2);
        paged.extend(page.entries);
        after = page.next_cursor;
        if !page.truncated {
            break;
        }
        assert!(after.is_some(), "a truncated page has a cursor");
    }
    let again = b.diagnostics(&tab, &all()).await.expect("again");
    assert_eq!(paged, again.entries[..paged.len()].to_vec(), "paging returns the entries in order");
    assert!(paged.len() >= everything.entries.len());
    // The last cursor answers only newer evidence.
    let newer = b
        .diagnostics(&tab, &query(DiagnoseSource::Both, DiagnoseDetail::All, after.clone(), 100))
        .await
        .expect("newer");
    assert!(newer.entries.len() <= again.entries.len() - paged.len());
    b.close_tab(&tab).await.expect("close");
}

async fn iframe_evidence(b: &WebDriverBrowser, site: &Site) {
    let tab = b.open_tab(&go(site.url("/quiet")), TIMEOUT).await.expect("open_tab").tab;
    b.diagnostics(&tab, &all()).await.expect("tracking");
    b.navigate(&TabCall::new(&tab, &Gate::open(), TIMEOUT), &go(site.url("/framed")))
        .await
        .expect("navigate");
    let has_frame_error = |page: &DiagnosticsPage| page.entries.iter().any(|e| text_has(e, "gl-frame"));
    let page =
        until(b, &tab, &query(DiagnoseSource::Console, DiagnoseDetail::Problems, None, 100), has_frame_error)
            .await;
    assert!(has_frame_error(&page), "the iframe's console error is filed under its tab: {:#?}", page.entries);
    let network = b
        .diagnostics(&tab, &query(DiagnoseSource::Network, DiagnoseDetail::All, None, 100))
        .await
        .expect("network");
    assert!(network.entries.iter().any(|e| path_is(e, "/inner")), "the iframe's document request");
    b.close_tab(&tab).await.expect("close");
}

/// Ghostlight over the WebDriver adapter: navigate, start tracking, let the page log, read it.
async fn through_core(engine: Engine) {
    let site = evidence::start();
    let browser = browser(engine);
    let ghostlight = Ghostlight::new(browser.clone());
    tools::ok(&ghostlight, "browser_navigate", json!({"url": site.url("/quiet").as_str()})).await;

    let first = tools::ok(&ghostlight, "browser_diagnose", json!({})).await;
    assert_eq!(first.facts["tracking_started"], json!(true));

    // The page logs an error 300 ms after loading.
    tools::ok(&ghostlight, "browser_navigate", json!({"url": site.url("/later").as_str()})).await;
    let deadline = Instant::now() + ARRIVAL;
    let found = loop {
        let envelope = tools::ok(&ghostlight, "browser_diagnose", json!({})).await;
        let entries = envelope.facts["entries"].as_array().cloned().unwrap_or_default();
        let logged = entries.iter().any(|e| e["text"].as_str().is_some_and(|t| t.contains("gl-later")));
        if logged || Instant::now() >= deadline {
            break envelope;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let facts = &found.facts;
    assert_eq!(facts["tracking_started"], json!(false));
    let entries = facts["entries"].as_array().expect("entries");
    let entry = entries
        .iter()
        .find(|e| e["text"].as_str().is_some_and(|t| t.contains("gl-later")))
        .unwrap_or_else(|| panic!("the page's error arrived: {facts:#?}"));
    assert_eq!(entry["source"], json!("console"));
    assert_eq!(entry["level"], json!("error"));
    assert_eq!(entry["problem"], json!(true));
    assert!(facts["problem_count"].as_u64().is_some_and(|n| n >= 1));
    assert!(found.summary.starts_with("Found "), "{}", found.summary);
    assert_eq!(facts["host_filtered"], Value::from(0));
    browser.shutdown().await;
}
