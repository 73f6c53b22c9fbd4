//! Losing, restarting and stopping the browser: a killed browser answers `BrowserGone` and
//! the next call starts a fresh session, and no process outlives `shutdown()` or a drop.

mod support;

use std::time::Duration;

use ghostlight_core::port::{BrowserPort, PortErrorKind};
use ghostlight_webdriver::{Engine, ProcessInfo, WebDriverBrowser, WebDriverConfig};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use support::engines::scenario;
use support::port::go;
use support::processes::{browser_main, eventually, processes_in_group, processes_with};
use support::server::Site;

const TIMEOUT: Duration = Duration::from_secs(15);
/// How long killed processes may take to disappear.
const EXIT_GRACE: Duration = Duration::from_secs(10);

per_engine!(chromium, firefox => run);

async fn run(engine: Engine) {
    let site = support::sites::plain::start();
    scenario(
        engine,
        "killed_browser_is_gone_then_restarts_and_shutdown_leaves_nothing",
        killed_browser(engine, &site),
    )
    .await;
    scenario(engine, "drop_leaves_no_orphans", drop_leaves_no_orphans(engine, &site)).await;
}

async fn killed_browser(engine: Engine, site: &Site) {
    let browser = WebDriverBrowser::new(WebDriverConfig::for_engine(engine));
    let tab = browser.open_tab(&go(site.url("/one")), TIMEOUT).await.expect("open").tab;
    let first = browser.testing_process().await.expect("a launched browser");
    let main = browser_main(first.group_pid, &first.profile_dir).expect("the browser's main process");
    let pid = i32::try_from(main).expect("a pid");
    kill(Pid::from_raw(pid), Signal::SIGKILL).expect("kill the browser");
    assert!(eventually(EXIT_GRACE, || !processes_with(&first.profile_dir).contains(&main)).await);

    let gone = browser.page(&tab).await.expect_err("the browser is gone");
    assert!(
        matches!(gone.kind(), PortErrorKind::BrowserGone | PortErrorKind::Transport),
        "{:?}",
        gone.kind()
    );
    assert_no_processes(&first).await;

    // The next call starts a fresh session; tabs of the old one are gone.
    let tabs = browser.tabs().await.expect("a fresh session");
    assert!(tabs.is_empty(), "a fresh browser lists no tab (its blank window is its sentinel): {tabs:?}");
    assert_eq!(browser.page(&tab).await.expect_err("an old tab").kind(), PortErrorKind::TabGone);
    let reopened = browser.open_tab(&go(site.url("/two")), TIMEOUT).await.expect("open again");
    assert_eq!(reopened.page.title, "TWO");
    let second = browser.testing_process().await.expect("a second browser");
    assert_ne!(second.profile_dir, first.profile_dir);

    browser.shutdown().await;
    assert_no_processes(&second).await;
    assert_eq!(browser.testing_process().await, None);
}

async fn drop_leaves_no_orphans(engine: Engine, site: &Site) {
    let browser = WebDriverBrowser::new(WebDriverConfig::for_engine(engine));
    browser.open_tab(&go(site.url("/dropped")), TIMEOUT).await.expect("open");
    let info = browser.testing_process().await.expect("a launched browser");
    assert!(!processes_with(&info.profile_dir).is_empty(), "the browser runs with its profile");
    drop(browser);
    assert_no_processes(&info).await;
}

/// No live process names the profile or belongs to the driver's process group, and the
/// profile directory is gone.
async fn assert_no_processes(info: &ProcessInfo) {
    let clean = eventually(EXIT_GRACE, || {
        processes_with(&info.profile_dir).is_empty() && processes_in_group(info.group_pid).is_empty()
    })
    .await;
    assert!(
        clean,
        "orphans: {:?} named the profile, {:?} in the group",
        processes_with(&info.profile_dir),
        processes_in_group(info.group_pid)
    );
    assert!(eventually(EXIT_GRACE, || !info.profile_dir.exists()).await, "the profile directory is removed");
}
