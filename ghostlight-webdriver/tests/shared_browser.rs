//! Sessions sharing one Chromium, each in a user context of its own (`SharedBrowser`, issue 32
//! item 3): what one session's page stores the other's does not see; each session's network
//! authority holds on the wire for its own requests only (judged by what the denied server
//! saw); a session lists only its own tabs; a page of one session that holds its thread does
//! not stall the other's calls; a session that ends takes its user context, and its tabs,
//! along; and a shared browser that died starts again on the next call.

mod support;

use std::sync::Arc;
use std::time::Duration;

use ghostlight_core::port::{
    BrowserPort, ClickInput, DialogKind, DialogResolution, Gate, MouseButton, NetworkPolicy, PointerTarget,
    PortErrorKind, TabCall,
};
use ghostlight_webdriver::{Engine, SharedBrowser, WebDriverBrowser, WebDriverConfig};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde_json::json;
use support::engines::selected;
use support::port::{eval, go, open};
use support::server::{HOST_A, Reply, Site};

const TIMEOUT: Duration = Duration::from_secs(15);
/// How long the hostile page of one session holds its thread while the other session works.
const SPIN: Duration = Duration::from_secs(8);

/// Pages on both hosts: `/set` stores a cookie and a localStorage item, every other path is a
/// plain page.
fn site() -> Site {
    Site::serve(|ask| match ask.path {
        "/set" => Reply::html(
            200,
            "<title>Set</title><script>document.cookie = 'sid=A; path=/'; localStorage.setItem('k', 'A');</script>",
        ),
        "/unload" => Reply::html(
            200,
            "<title>Draft</title><button id=arm onclick=\"onbeforeunload = (e) => { e.preventDefault(); e.returnValue = ''; }\">Edit</button>\
             <a id=leave href=/away>Leave</a>",
        ),
        // A hostile page's busy loop, started by `spin()`: it holds the page's thread for
        // `SPIN`, then asks for `/spun`.
        "/spin" => Reply::html(
            200,
            format!(
                "<title>Spin</title><script>window.spin = () => {{ const end = Date.now() + {}; \
                 while (Date.now() < end) {{}} fetch('/spun'); }};</script>",
                SPIN.as_millis()
            ),
        ),
        _ => Reply::html(200, "<title>Page</title><p>A page.</p>"),
    })
}

/// A session in `shared` whose requests may reach `hosts` only (host names, any port).
fn seated(shared: &SharedBrowser, hosts: &'static [&'static str]) -> Arc<WebDriverBrowser> {
    let browser = Arc::new(WebDriverBrowser::seated(shared));
    let policy = NetworkPolicy::new(move |url, _| url.host_str().is_some_and(|host| hosts.contains(&host)));
    browser.govern_network(policy);
    browser
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium() {
    if !selected(Engine::Chromium) {
        return;
    }
    let site = site();
    let shared =
        SharedBrowser::new(WebDriverConfig::for_engine(Engine::Chromium)).expect("Chromium is shared");
    let a = seated(&shared, &["127.0.0.1", "127.0.0.2"]);
    let b = seated(&shared, &[HOST_A]);

    // Storage: A's page stores a cookie and an item; B's page on the same origin sees neither.
    let a_tab = open(&*a, &site, "/set").await;
    assert_eq!(
        eval(&*a, &a_tab, "[document.cookie, localStorage.getItem('k')]").await,
        json!(["sid=A", "A"])
    );
    // B lists its tabs first, as a navigation without a tab does: the blank window its seat
    // came with is listed, and closed once B's first tab opens (one window a session).
    let listed =
        |tabs: Vec<ghostlight_core::port::TabInfo>| tabs.into_iter().map(|t| t.tab).collect::<Vec<_>>();
    let blank = listed(b.tabs().await.expect("B's tabs"));
    assert_eq!(blank.len(), 1, "{blank:?}");
    let b_tab = open(&*b, &site, "/read").await;
    assert_eq!(listed(b.tabs().await.expect("B's tabs")), vec![b_tab.clone()], "the blank window closed");
    assert_eq!(eval(&*b, &b_tab, "[document.cookie, localStorage.getItem('k')]").await, json!(["", null]));

    // Authority on the wire, per session: B's filter refuses the second host, whose server
    // never hears of it; A's admits it in the same browser.
    let refused = b.navigate(&TabCall::new(&b_tab, &Gate::open(), TIMEOUT), &go(site.url_b("/b-only"))).await;
    assert!(
        refused.is_err() || refused.as_ref().is_ok_and(|page| page.url != site.url_b("/b-only")),
        "{refused:?}"
    );
    assert_eq!(site.hits("/b-only"), 0, "the denied server saw nothing of B's navigation");
    let allowed = a.navigate(&TabCall::new(&a_tab, &Gate::open(), TIMEOUT), &go(site.url_b("/a-too"))).await;
    assert_eq!(allowed.expect("A may go there").url, site.url_b("/a-too"));
    assert_eq!(site.hits("/a-too"), 1);

    // Tabs: each session lists its own, never the other's.
    let (a_tabs, b_tabs) =
        (listed(a.tabs().await.expect("A's tabs")), listed(b.tabs().await.expect("B's tabs")));
    assert_eq!((a_tabs, b_tabs), (vec![a_tab.clone()], vec![b_tab.clone()]));
    let crossed = b.page(&a_tab).await.expect_err("B cannot reach A's tab");
    assert_eq!(crossed.kind(), PortErrorKind::TabGone, "{crossed:?}");

    // A hostile page cannot stall another session: while A's page holds its thread in a busy
    // loop, B navigates, reads and lists its tabs, all answered before the loop ends (the
    // page asks for `/spun` when it does).
    let spinning = open(&*a, &site, "/spin").await;
    assert_eq!(eval(&*a, &spinning, "setTimeout(spin, 100); true").await, json!(true));
    tokio::time::sleep(Duration::from_millis(400)).await;
    let moved = b.navigate(&TabCall::new(&b_tab, &Gate::open(), TIMEOUT), &go(site.url("/read?again"))).await;
    assert_eq!(moved.expect("B navigates").url, site.url("/read?again"));
    assert_eq!(eval(&*b, &b_tab, "document.title").await, json!("Page"));
    assert_eq!(listed(b.tabs().await.expect("B's tabs")), vec![b_tab.clone()]);
    assert_eq!(site.hits("/spun"), 0, "B's calls were answered while A's page still spun");
    // The loop did run (and ended after B's calls): the page asks for `/spun` in the end.
    let spun = site.hits_within("/spun", SPIN + Duration::from_secs(15)).await;
    assert_eq!(spun, 1, "A's page spun and then asked for /spun");

    // A session that ends takes its user context along.
    assert_eq!(shared.testing_user_contexts().await, Some(2));
    a.shutdown().await;
    assert_eq!(shared.testing_user_contexts().await, Some(1), "A's user context went with it");
    assert_eq!(b.page(&b_tab).await.expect("B's tab is untouched").url, site.url("/read?again"));

    // A leave-page prompt in a shared browser is reported, never accepted, whether a
    // navigation or a click raises it (the attached classic session would accept it; these go
    // over BiDi): the page the prompt guards never leaves, and `/away` is never asked for.
    let draft = open(&*b, &site, "/unload").await;
    b.testing_click(&draft, "#arm").await.expect("a real click arms the prompt");
    let short = TabCall::new(&draft, &Gate::open(), Duration::from_secs(8));
    let blocked = b.navigate(&short, &go(site.url("/away"))).await.expect_err("the prompt blocks");
    assert_eq!(blocked.kind(), PortErrorKind::BlockedByDialog, "{blocked:?}");
    let link = b.testing_element(&draft, &[], "#leave").await.expect("the link");
    let click = ClickInput {
        at: PointerTarget::Element(link),
        button: MouseButton::Primary,
        count: 1,
        modifiers: Vec::new(),
    };
    // As with a browser of its own, the leave prompt an input raises stays open for the
    // caller; dismissing it keeps the page.
    let clicked = b.click(&short, &click).await.expect("the click was delivered");
    assert_eq!(clicked.page.url, site.url("/unload"), "{clicked:?}");
    assert_eq!(b.dialog(&draft).await.expect("status"), Some(DialogKind::BeforeUnload));
    b.resolve_dialog(&draft, &DialogResolution::Dismiss).await.expect("dismissed");
    assert_eq!(b.page(&draft).await.expect("the page answers").url, site.url("/unload"));
    assert_eq!(site.hits("/away"), 0, "nothing left the page");

    // A session dropped without closing (an HTTP session that ended) gives its user context
    // back too.
    let c = seated(&shared, &[HOST_A]);
    open(&*c, &site, "/c").await;
    assert_eq!(shared.testing_user_contexts().await, Some(2));
    drop(c);
    let mut left = None;
    for _ in 0..150 {
        left = shared.testing_user_contexts().await;
        if left == Some(1) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(left, Some(1), "the dropped session's user context went with it");

    // The shared browser dies: B's next call fails, the one after starts it again.
    let process = shared.testing_process().await.expect("a running browser");
    killpg(Pid::from_raw(i32::try_from(process.group_pid).expect("a pid")), Signal::SIGKILL).expect("kill");
    let failed = b.page(&b_tab).await.expect_err("the browser is gone");
    assert!(
        matches!(
            failed.kind(),
            PortErrorKind::BrowserGone
                | PortErrorKind::Transport
                | PortErrorKind::TabGone
                | PortErrorKind::NotConnected
                | PortErrorKind::Other
        ),
        "{failed:?}"
    );
    let again = b.open_tab(&go(site.url("/again")), TIMEOUT).await.expect("a fresh browser");
    assert_eq!(again.page.url, site.url("/again"));
    assert_ne!(shared.testing_process().await.map(|p| p.group_pid), Some(process.group_pid));
    b.shutdown().await;
    shared.shutdown().await;
}
