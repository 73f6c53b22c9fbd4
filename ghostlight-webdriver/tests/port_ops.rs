//! The implemented `BrowserPort` operations against real headless browsers: one browser per
//! engine, shared by the scenarios below (each scenario opens its own tabs).

mod support;

use std::time::Duration;

use ghostlight_core::Readiness;
use ghostlight_core::port::{
    BrowserPort, DialogKind, DialogResolution, FileStat, Gate, HistoryMove, NavigateInput, NetworkError,
    PortEffect, PortErrorKind, TabCall, TabRef,
};
use ghostlight_webdriver::{Engine, WebDriverBrowser};
use serde_json::json;
use support::engines::{browser, scenario};
use support::port::{eval, go, open};
use support::server::Site;
use support::sites::plain;

const TIMEOUT: Duration = Duration::from_secs(15);

per_engine!(chromium, firefox => run);
per_engine!(first_tab_chromium, first_tab_firefox => first_tab);

/// A seat's blank first window, listed (as a navigation without a tab lists first), is closed
/// once the first tab opens; a browser of the session's own keeps its blank first window out
/// of sight (the sentinel that keeps it open), so it lists no tab. A first navigation that
/// fails leaves the list as it was.
async fn first_tab(engine: Engine) {
    let site = plain::start();
    let browser = browser(engine);
    let b = &*browser;
    let tabs = || async { b.tabs().await.expect("tabs").into_iter().map(|t| t.tab).collect::<Vec<_>>() };
    let blank = tabs().await;
    let seated = support::engines::seated(engine);
    assert_eq!(blank.len(), usize::from(seated), "seated: one blank window; else none: {blank:?}");

    let refused =
        url::Url::parse(&format!("http://127.0.0.1:{}/", support::dead_ends::closed_port())).expect("a URL");
    let error = b.open_tab(&go(refused), TIMEOUT).await.expect_err("the page does not load");
    assert_eq!(error.kind(), PortErrorKind::Network, "{error}");
    assert_eq!(tabs().await, blank, "the list as it was");

    let tab = open(b, &site, "/n").await;
    assert_eq!(tabs().await, vec![tab.clone()], "the first tab alone");
    let second = open(b, &site, "/n").await;
    assert_ne!(second, tab);
    assert_eq!(tabs().await.len(), 2);
    browser.shutdown().await;
}

async fn run(engine: Engine) {
    let site = plain::start();
    let browser = browser(engine);
    let b = &*browser;
    let site = &site;
    scenario(engine, "open_tab_page_and_document_identity", open_tab_page_and_document_identity(b, site))
        .await;
    scenario(engine, "tabs_focus_and_close", tabs_focus_and_close(b, site)).await;
    scenario(engine, "history_back_forward_reload", history_back_forward_reload(b, site)).await;
    scenario(engine, "geometry_resize_and_zoom", geometry_resize_and_zoom(b, site, engine)).await;
    scenario(engine, "dialogs_status_accept_dismiss_respond", dialogs(b, site)).await;
    scenario(engine, "beforeunload_blocks_or_is_discarded", beforeunload(b, site)).await;
    scenario(engine, "execute_values_and_errors", execute(b, site)).await;
    scenario(engine, "slow_page_and_navigation_timeout", slow_page(b, site)).await;
    scenario(engine, "pages_that_do_not_load", pages_that_do_not_load(b, site)).await;
    scenario(engine, "stat_files", stat_files(b)).await;
    browser.shutdown().await;
}

async fn open_tab_page_and_document_identity(b: &WebDriverBrowser, site: &Site) {
    let opened = b.open_tab(&go(site.url("/a")), TIMEOUT).await.expect("open_tab");
    assert_eq!(opened.page.url, site.url("/a"));
    assert_eq!(opened.page.title, "A");
    assert_eq!(opened.page.readiness, Readiness::Complete);
    let tab = opened.tab;

    let again = b.page(&tab).await.expect("page");
    assert_eq!(again.document, opened.page.document, "reading the page keeps its identity");

    let hashed = b
        .execute(&TabCall::new(&tab, &Gate::open(), TIMEOUT), "location.hash = 'part'; 1")
        .await
        .expect("hash")
        .page;
    assert_eq!(hashed.url.fragment(), Some("part"));
    assert_eq!(hashed.document, opened.page.document, "a #hash change is the same document");

    let pushed = b
        .execute(&TabCall::new(&tab, &Gate::open(), TIMEOUT), "history.pushState({}, '', '/pushed'); 1")
        .await
        .expect("push")
        .page;
    assert_eq!(pushed.url, site.url("/pushed"));
    assert_eq!(pushed.document, opened.page.document, "pushState is the same document");

    let navigated =
        b.navigate(&TabCall::new(&tab, &Gate::open(), TIMEOUT), &go(site.url("/b"))).await.expect("navigate");
    assert_eq!(navigated.title, "B");
    assert_ne!(navigated.document, opened.page.document, "a navigation is a new document");

    let reloaded = b
        .history(&TabCall::new(&tab, &Gate::open(), TIMEOUT), HistoryMove::Reload { bypass_cache: false })
        .await
        .expect("reload");
    assert_eq!(reloaded.url, site.url("/b"));
    assert_ne!(reloaded.document, navigated.document, "a reload is a new document");

    b.close_tab(&tab).await.expect("close");
}

async fn tabs_focus_and_close(b: &WebDriverBrowser, site: &Site) {
    let first = open(b, site, "/t1").await;
    let second = open(b, site, "/t2").await;
    let tabs = b.tabs().await.expect("tabs");
    let position = |t: &TabRef| tabs.iter().position(|info| &info.tab == t);
    let (p1, p2) = (position(&first).expect("first listed"), position(&second).expect("second listed"));
    assert!(p1 < p2, "tabs are listed in creation order");
    assert_eq!(tabs[p2].page.title, "T2");
    assert!(tabs[p2].active && !tabs[p1].active, "the tab opened last is active");

    let focused = b.focus_tab(&first).await.expect("focus");
    assert!(!focused.window_focused, "headless windows report no OS focus");
    let tabs = b.tabs().await.expect("tabs");
    let active: Vec<_> = tabs.iter().filter(|info| info.active).map(|info| info.tab.clone()).collect();
    assert_eq!(active, vec![first.clone()]);

    // Closing the active tab gives the activity back to the tab active before it: not the
    // tab opened later, nor the session's first window.
    let third = open(b, site, "/t3").await;
    b.close_tab(&third).await.expect("close the active tab");
    let tabs = b.tabs().await.expect("tabs");
    let active: Vec<_> = tabs.iter().filter(|info| info.active).map(|info| info.tab.clone()).collect();
    assert_eq!(active, vec![first.clone()], "the tab active before the closed one is active again");

    b.close_tab(&second).await.expect("close");
    let again = b.close_tab(&second).await.expect_err("closing twice");
    assert_eq!(again.kind(), PortErrorKind::TabGone);
    assert_eq!(b.page(&second).await.expect_err("a closed tab").kind(), PortErrorKind::TabGone);
    assert!(!b.tabs().await.expect("tabs").iter().any(|info| info.tab == second));
    assert_eq!(b.page(&first).await.expect("the other tab lives").title, "T1");

    let malformed = b.page(&TabRef::new("not a tab")).await.expect_err("malformed");
    assert_eq!(malformed.kind(), PortErrorKind::InvalidInput);
    b.close_tab(&first).await.expect("close");
}

async fn history_back_forward_reload(b: &WebDriverBrowser, site: &Site) {
    let opened = b.open_tab(&go(site.url("/h1")), TIMEOUT).await.expect("open");
    let tab = opened.tab;
    let h2 = b
        .navigate(&TabCall::new(&tab, &Gate::open(), TIMEOUT), &go(site.url("/h2")))
        .await
        .expect("navigate");
    let back = b.history(&TabCall::new(&tab, &Gate::open(), TIMEOUT), HistoryMove::Back).await.expect("back");
    assert_eq!(back.url, site.url("/h1"));
    assert_ne!(back.document, h2.document);
    let forward =
        b.history(&TabCall::new(&tab, &Gate::open(), TIMEOUT), HistoryMove::Forward).await.expect("forward");
    assert_eq!(forward.url, site.url("/h2"));
    let at_end = b
        .history(&TabCall::new(&tab, &Gate::open(), TIMEOUT), HistoryMove::Forward)
        .await
        .expect_err("no forward entry");
    assert_eq!(at_end.kind(), PortErrorKind::InvalidInput);

    let hard = b
        .history(&TabCall::new(&tab, &Gate::open(), TIMEOUT), HistoryMove::Reload { bypass_cache: true })
        .await
        .expect("hard reload");
    assert_eq!(hard.url, site.url("/h2"));
    assert_eq!(hard.readiness, Readiness::Complete);
    assert_ne!(hard.document, forward.document, "a cache-bypassing reload is a new document");
    b.close_tab(&tab).await.expect("close");
}

async fn geometry_resize_and_zoom(b: &WebDriverBrowser, site: &Site, engine: Engine) {
    let tab = open(b, site, "/g").await;
    let geometry = b.geometry(&tab).await.expect("geometry");
    assert_eq!((geometry.window_width, geometry.window_height), (1280, 800));
    assert!(geometry.viewport_width <= 1280 && geometry.viewport_width > 1000, "{geometry:?}");
    assert!(geometry.viewport_height < 800 && geometry.viewport_height > 500, "{geometry:?}");
    assert_eq!(geometry.zoom_percent, 100);

    let resized = b.resize_window(&tab, 1000, 700).await.expect("resize");
    assert_eq!((resized.window_width, resized.window_height), (1000, 700));
    assert!(resized.viewport_width <= 1000 && resized.viewport_width > 800, "{resized:?}");
    let again = b.geometry(&tab).await.expect("geometry");
    assert_eq!((again.window_width, again.window_height), (1000, 700), "the size read before holds");

    // A resize the session did not make is seen: the window's size is read again whenever the
    // page's outer size differs from the one seen with the size last read.
    b.testing_resize_window_behind(&tab, 1100, 750).await.expect("a resize behind the session");
    let behind = b.geometry(&tab).await.expect("geometry");
    assert_eq!((behind.window_width, behind.window_height), (1100, 750), "{behind:?}");
    // A page that replaced its outer size with something else is measured all the same.
    eval(b, &tab, "window.outerWidth = 'wide'; window.outerHeight = null; 1").await;
    b.testing_resize_window_behind(&tab, 1050, 720).await.expect("a resize behind the session");
    let replaced = b.geometry(&tab).await.expect("geometry of a page that replaced outerWidth");
    assert_eq!((replaced.window_width, replaced.window_height), (1050, 720), "{replaced:?}");
    b.resize_window(&tab, 1000, 700).await.expect("resize");

    match engine {
        Engine::Chromium => {
            let zoomed = b.set_zoom(&tab, 150).await.expect("zoom");
            assert_eq!(zoomed.zoom_percent, 150);
            assert!((zoomed.device_scale - 1.5 * resized.device_scale).abs() < 1e-6, "{zoomed:?}");
            let expected = (f64::from(resized.viewport_width) / 1.5).round() as u32;
            assert!(zoomed.viewport_width.abs_diff(expected) <= 1, "{zoomed:?} vs {expected}");
            let zoomed_resize = b.resize_window(&tab, 1200, 700).await.expect("resize while zoomed");
            assert_eq!(zoomed_resize.zoom_percent, 150);
            assert!(zoomed_resize.viewport_width > zoomed.viewport_width, "the zoom follows the resize");
            let cleared = b.set_zoom(&tab, 100).await.expect("unzoom");
            assert_eq!(cleared.zoom_percent, 100);
            assert_eq!(cleared.device_scale, resized.device_scale);
        }
        Engine::Firefox => {
            let error = b.set_zoom(&tab, 150).await.expect_err("no zoom on Firefox");
            assert_eq!(error.kind(), PortErrorKind::Unsupported);
        }
    }
    b.resize_window(&tab, 1280, 800).await.expect("restore size");
    b.close_tab(&tab).await.expect("close");
}

async fn wait_for_dialog(b: &WebDriverBrowser, tab: &TabRef) -> DialogKind {
    for _ in 0..50 {
        if let Some(kind) = b.dialog(tab).await.expect("dialog status") {
            return kind;
        }
        b.sleep(Duration::from_millis(50)).await;
    }
    panic!("no dialog opened");
}

async fn dialogs(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/d").await;
    assert_eq!(b.dialog(&tab).await.expect("status"), None);
    let none = b.resolve_dialog(&tab, &DialogResolution::Accept).await.expect_err("nothing to resolve");
    assert_eq!(none.kind(), PortErrorKind::InvalidInput);

    // alert: Firefox's errors name the type; Chromium learns it from WebDriver BiDi.
    b.execute(&TabCall::new(&tab, &Gate::open(), TIMEOUT), "setTimeout(() => alert('hello'), 0); 1")
        .await
        .expect("schedule alert");
    assert_eq!(wait_for_dialog(b, &tab).await, DialogKind::Alert);
    let blocked = b
        .execute(&TabCall::new(&tab, &Gate::open(), TIMEOUT), "1")
        .await
        .expect_err("a dialog blocks scripts");
    assert_eq!(blocked.kind(), PortErrorKind::BlockedByDialog, "{blocked:?}");
    assert!(!blocked.message().contains("hello"), "dialog text never reaches errors");
    assert_eq!(b.resolve_dialog(&tab, &DialogResolution::Accept).await.expect("accept"), DialogKind::Alert);
    assert_eq!(b.dialog(&tab).await.expect("status"), None);

    // confirm, dismissed.
    b.execute(
        &TabCall::new(&tab, &Gate::open(), TIMEOUT),
        "setTimeout(() => { window.answer = confirm('sure?'); }, 0); 1",
    )
    .await
    .expect("confirm");
    assert_eq!(wait_for_dialog(b, &tab).await, DialogKind::Confirm);
    let refused =
        b.resolve_dialog(&tab, &DialogResolution::Respond("x".into())).await.expect_err("not a prompt");
    assert_eq!(refused.kind(), PortErrorKind::InvalidInput);
    assert_eq!(
        b.resolve_dialog(&tab, &DialogResolution::Dismiss).await.expect("dismiss"),
        DialogKind::Confirm
    );
    assert_eq!(
        b.execute(&TabCall::new(&tab, &Gate::open(), TIMEOUT), "window.answer").await.expect("answer").value,
        json!(false)
    );

    // A script that opens a dialog itself cannot answer its value.
    let direct = b
        .execute(&TabCall::new(&tab, &Gate::open(), TIMEOUT), "confirm('direct?')")
        .await
        .expect_err("interrupted by the dialog");
    assert_eq!(direct.kind(), PortErrorKind::BlockedByDialog);
    assert_eq!(direct.effect(), PortEffect::Unknown);
    wait_for_dialog(b, &tab).await;
    assert_eq!(b.resolve_dialog(&tab, &DialogResolution::Accept).await.expect("accept"), DialogKind::Confirm);

    // prompt, answered.
    b.execute(
        &TabCall::new(&tab, &Gate::open(), TIMEOUT),
        "setTimeout(() => { window.answer = prompt('name?', 'default'); }, 0); 1",
    )
    .await
    .expect("prompt");
    assert_eq!(wait_for_dialog(b, &tab).await, DialogKind::Prompt);
    let resolved =
        b.resolve_dialog(&tab, &DialogResolution::Respond("typed answer".into())).await.expect("respond");
    assert_eq!(resolved, DialogKind::Prompt);
    assert_eq!(
        b.execute(&TabCall::new(&tab, &Gate::open(), TIMEOUT), "window.answer").await.expect("answer").value,
        json!("typed answer")
    );
    b.close_tab(&tab).await.expect("close");
}

async fn beforeunload(b: &WebDriverBrowser, site: &Site) {
    let opened = b.open_tab(&go(site.url("/unload")), TIMEOUT).await.expect("open");
    let tab = opened.tab;
    // A real click gives the page the user activation that arms beforeunload.
    b.testing_click(&tab, "#arm").await.expect("arm");
    let short = Duration::from_secs(8);
    let blocked = b
        .navigate(&TabCall::new(&tab, &Gate::open(), short), &go(site.url("/away")))
        .await
        .expect_err("the prompt blocks");
    assert_eq!(blocked.kind(), PortErrorKind::BlockedByDialog, "{blocked:?}");
    assert_eq!(blocked.effect(), PortEffect::None);
    assert_eq!(b.dialog(&tab).await.expect("status"), None, "the prompt was dismissed");
    let stayed = b.page(&tab).await.expect("page");
    assert_eq!(stayed.url, site.url("/unload"));
    assert_eq!(stayed.document, opened.page.document, "the page stayed as it was");

    let discard = NavigateInput { url: site.url("/away"), discard_beforeunload: true };
    let left =
        b.navigate(&TabCall::new(&tab, &Gate::open(), short), &discard).await.expect("discard navigates");
    assert_eq!(left.url, site.url("/away"));
    assert_eq!(left.title, "AWAY");
    b.close_tab(&tab).await.expect("close");
}

async fn execute(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/x").await;
    let tab = &tab;
    let call = TabCall::new(tab, &Gate::open(), TIMEOUT);
    let value = |script: &'static str| b.execute(&call, script);
    assert_eq!(value("1 + 1").await.expect("expression").value, json!(2));
    assert_eq!(value("let a = 2; a * 3").await.expect("statements").value, json!(6));
    assert_eq!(value("document.title").await.expect("title").value, json!("X"));
    assert_eq!(
        value("({n: 1, s: 'x', l: [true, null]})").await.expect("object").value,
        json!({"n": 1, "s": "x", "l": [true, null]})
    );
    assert_eq!(value("undefined").await.expect("undefined").value, json!(null));
    assert_eq!(value("Promise.resolve(5)").await.expect("promise").value, json!(5));
    assert_eq!(value("[document.body, 1]").await.expect("elements").value, json!(["[element]", 1]));
    let outcome = value("document.title").await.expect("page");
    assert_eq!(outcome.page.url, site.url("/x"));

    // What only parses as a function body or as a parenthesised expression runs as that.
    assert_eq!(value("return document.title").await.expect("a body with return").value, json!("X"));
    assert_eq!(value("const n = 20;\nreturn n + 1;").await.expect("statements with return").value, json!(21));
    assert_eq!(value("await Promise.resolve(7)").await.expect("top-level await").value, json!(null));
    assert_eq!(value("return await Promise.resolve(7)").await.expect("return await").value, json!(7));
    assert_eq!(value("{a: 1, b: [2]}").await.expect("an object literal").value, json!({"a": 1, "b": [2]}));
    // A script runs once: a SyntaxError it throws while running is not a parse error.
    let once = "window.glRuns = (window.glRuns || 0) + 1; JSON.parse('{');";
    let thrown = value(once).await.expect_err("JSON.parse throws");
    let failure = thrown.script_failure().expect("a script failure");
    assert_eq!((failure.name.as_str(), failure.ran), ("SyntaxError", true));
    assert_eq!(thrown.effect(), PortEffect::Unknown);
    assert_eq!(value("window.glRuns").await.expect("runs").value, json!(1), "the script ran once");

    let thrown = value("throw new TypeError('secret detail')").await.expect_err("throws");
    assert_eq!(thrown.kind(), PortErrorKind::ScriptError);
    assert!(!thrown.message().contains("secret"), "script errors are not in the operator message");
    let failure = thrown.script_failure().expect("a script failure");
    assert_eq!(
        (failure.name.as_str(), failure.message.as_str(), failure.ran),
        ("TypeError", "secret detail", true)
    );
    let rejected = value("Promise.reject(new RangeError('late'))").await.expect_err("rejects");
    assert_eq!(rejected.script_failure().map(|f| f.name.as_str()), Some("RangeError"));
    let thrown_value = value("throw 42").await.expect_err("throws a number");
    assert_eq!(
        thrown_value.script_failure().map(|f| (f.name.as_str(), f.message.as_str())),
        Some(("number", "42"))
    );
    let syntax = value("this is not javascript").await.expect_err("syntax");
    assert_eq!(syntax.kind(), PortErrorKind::ScriptError);
    assert_eq!(syntax.effect(), PortEffect::None, "nothing ran");
    let failure = syntax.script_failure().expect("a script failure");
    assert_eq!((failure.name.as_str(), failure.ran), ("SyntaxError", false));
    // A navigation the script starts is waited for (Firefox commits it after the script
    // answers); a same-document one is not.
    let moved = value("location.href = '/moved'").await.expect("a navigating script");
    assert_eq!(moved.page.url, site.url("/moved"), "the outcome shows the new page");
    assert_eq!(moved.page.title, "MOVED");
    // A move through history and a reload the script starts are navigations too (no
    // Navigation API `navigate` event announces a move back to another document: the page is
    // read again after the script, once the driver has waited for the move).
    let back = value("history.back(); 1").await.expect("a script going back");
    assert_eq!(back.page.url, site.url("/x"), "the outcome shows the page gone back to");
    let reloaded = value("location.reload(); 1").await.expect("a reloading script");
    assert_eq!(reloaded.page.url, site.url("/x"));
    assert_ne!(reloaded.page.document, back.page.document, "a reload is another document");
    let started = std::time::Instant::now();
    let hashed = value("location.hash = 'part'; 1").await.expect("a same-document navigation");
    assert_eq!(hashed.page.url.fragment(), Some("part"));
    assert!(started.elapsed() < Duration::from_secs(3), "no wait for a new document");
    let slow = b
        .execute(&TabCall::new(tab, &Gate::open(), Duration::from_millis(500)), "new Promise(() => {})")
        .await
        .expect_err("never settles");
    assert_eq!(slow.kind(), PortErrorKind::Timeout);
    assert_eq!(slow.effect(), PortEffect::Unknown);
    assert_eq!(value("2 + 2").await.expect("still works").value, json!(4));
    b.close_tab(tab).await.expect("close");
}

/// A refused connection and a port the browser keeps closed are network failures with no
/// effect, on an existing tab and on a new one (which is closed again); the tab still works.
async fn pages_that_do_not_load(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/n").await;
    let closed_port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("an address").port()
    };
    let refused = url::Url::parse(&format!("http://127.0.0.1:{closed_port}/")).expect("a URL");
    let blocked = url::Url::parse("http://127.0.0.1:1/").expect("a URL");
    for (url, expected) in [(refused, NetworkError::ConnectionRefused), (blocked, NetworkError::PortBlocked)]
    {
        let error = b
            .navigate(&TabCall::new(&tab, &Gate::open(), TIMEOUT), &go(url.clone()))
            .await
            .expect_err("the page does not load");
        assert_eq!(error.kind(), PortErrorKind::Network, "{url}: {error}");
        assert_eq!(error.effect(), PortEffect::None);
        let failure = error.network_failure().expect("why it failed");
        assert_eq!(failure.error, expected, "{url}: {}", failure.browser_code);
        let page = b.page(&tab).await.expect("the tab answers");
        assert_eq!(page.url, url, "the tab reports the URL that failed, not the browser's error page");

        let tabs_before = b.tabs().await.expect("tabs").len();
        let error = b.open_tab(&go(url.clone()), TIMEOUT).await.expect_err("a new tab does not load either");
        assert_eq!(error.kind(), PortErrorKind::Network);
        assert_eq!(b.tabs().await.expect("tabs").len(), tabs_before, "the failed new tab is closed");
    }
    let back = b
        .navigate(&TabCall::new(&tab, &Gate::open(), TIMEOUT), &go(site.url("/n")))
        .await
        .expect("the tab still navigates");
    assert_eq!(back.title, "N");
    b.close_tab(&tab).await.expect("close");
}

async fn slow_page(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/s").await;
    let slow = b
        .navigate(&TabCall::new(&tab, &Gate::open(), TIMEOUT), &go(site.url("/slow")))
        .await
        .expect("a slow page loads");
    assert_eq!(slow.title, "SLOW");
    assert_eq!(slow.readiness, Readiness::Complete);
    let cut = b
        .navigate(
            &TabCall::new(&tab, &Gate::open(), Duration::from_millis(800)),
            &go(site.url("/slow?again")),
        )
        .await
        .expect_err("too slow");
    assert_eq!(cut.kind(), PortErrorKind::Timeout);
    assert_eq!(cut.effect(), PortEffect::Unknown);
    b.sleep(plain::SLOW_PAGE_DELAY).await;
    b.close_tab(&tab).await.expect("close");
}

async fn stat_files(b: &WebDriverBrowser) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("f.bin");
    std::fs::write(&file, [0u8; 7]).expect("write");
    let stats =
        b.stat_files(&[file, dir.path().to_path_buf(), dir.path().join("missing")]).await.expect("stat");
    let real = std::fs::canonicalize(dir.path()).expect("real");
    assert_eq!(
        stats,
        vec![
            FileStat::File { bytes: 7, real: real.join("f.bin") },
            FileStat::Directory { real },
            FileStat::Missing
        ]
    );
}
