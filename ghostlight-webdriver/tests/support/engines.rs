//! Engines: which ones this run tests, one test function per engine, time-bounded scenarios,
//! and a browser per engine.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ghostlight_webdriver::{Engine, WebDriverBrowser, WebDriverConfig};

/// The longest one scenario may take (a bound against hangs, not a timing assertion).
pub(crate) const SCENARIO_TIMEOUT: Duration = Duration::from_secs(120);

/// Whether `GHOSTLIGHT_TEST_ENGINES` (default both) names `engine`.
pub(crate) fn wanted(engine: Engine) -> bool {
    let wanted = std::env::var("GHOSTLIGHT_TEST_ENGINES").unwrap_or_else(|_| "chromium,firefox".into());
    wanted.split(',').any(|name| name.trim().eq_ignore_ascii_case(engine.as_str()))
}

/// Whether `engine` is selected for this run; panics when it is selected but its driver is
/// not on `PATH`.
pub(crate) fn selected(engine: Engine) -> bool {
    if !wanted(engine) {
        eprintln!("[{}] skipped: not in GHOSTLIGHT_TEST_ENGINES", engine.as_str());
        return false;
    }
    let driver = engine.driver_name();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path).any(|dir| dir.join(driver).is_file());
    assert!(
        found,
        "{driver} is not on PATH: install it, or limit GHOSTLIGHT_TEST_ENGINES to the engines you have"
    );
    true
}

/// A browser of `engine` with the adapter's default configuration (headless, launched from
/// `PATH`, a fresh profile), shared by one test's scenarios. With `GHOSTLIGHT_TEST_SHARED=1`,
/// a Chromium session lives in a user context of a browser it shares (as `ghostlight-mcp`'s
/// HTTP sessions do), so every suite can be run that way too.
pub(crate) fn browser(engine: Engine) -> Arc<WebDriverBrowser> {
    let config = WebDriverConfig::for_engine(engine);
    if seated(engine)
        && let Ok(shared) = ghostlight_webdriver::SharedBrowser::new(config.clone())
    {
        return Arc::new(WebDriverBrowser::seated(&shared));
    }
    Arc::new(WebDriverBrowser::new(config))
}

/// Whether [`browser`] seats `engine`'s sessions in a shared browser
/// (`GHOSTLIGHT_TEST_SHARED=1` and an engine that shares: Chromium).
pub(crate) fn seated(engine: Engine) -> bool {
    std::env::var("GHOSTLIGHT_TEST_SHARED").is_ok_and(|value| value == "1")
        && ghostlight_webdriver::SharedBrowser::new(WebDriverConfig::for_engine(engine)).is_ok()
}

/// Run one named scenario within [`SCENARIO_TIMEOUT`], printing its duration; answers its
/// wall time (`None` when `GHOSTLIGHT_TEST_SCENARIOS` skipped it).
pub(crate) async fn scenario<F: Future<Output = ()>>(
    engine: Engine,
    name: &str,
    body: F,
) -> Option<Duration> {
    if let Ok(wanted) = std::env::var("GHOSTLIGHT_TEST_SCENARIOS")
        && !wanted.split(',').any(|part| !part.trim().is_empty() && name.contains(part.trim()))
    {
        return None;
    }
    let started = Instant::now();
    eprintln!("[{}] {name} …", engine.as_str());
    match tokio::time::timeout(SCENARIO_TIMEOUT, body).await {
        Ok(()) => {
            let took = started.elapsed();
            eprintln!("[{}] {name}: ok in {} ms", engine.as_str(), took.as_millis());
            Some(took)
        }
        Err(_) => panic!("[{}] {name} did not finish within {SCENARIO_TIMEOUT:?}", engine.as_str()),
    }
}

/// One test function per engine: `per_engine!(chromium, firefox => run);` declares
/// `async fn chromium()` and `async fn firefox()`, each a `#[tokio::test]` that calls
/// `run(engine).await` when the engine is [`selected`]. `run` is any expression callable with
/// an [`Engine`] that answers a future (a function, or a closure such as
/// `|engine| scenario(engine, "name", body(engine))`). Attributes written before the names
/// replace `#[tokio::test]` (a multi-threaded runtime, say). Exported (to the crate root of
/// each test target) so that a target without per-engine tests, like the benchmark, does not
/// warn about it.
#[macro_export]
macro_rules! per_engine {
    ($(#[$test:meta])+ $chromium:ident, $firefox:ident => $run:expr) => {
        $(#[$test])+
        async fn $chromium() {
            if $crate::support::engines::selected(::ghostlight_webdriver::Engine::Chromium) {
                ($run)(::ghostlight_webdriver::Engine::Chromium).await;
            }
        }

        $(#[$test])+
        async fn $firefox() {
            if $crate::support::engines::selected(::ghostlight_webdriver::Engine::Firefox) {
                ($run)(::ghostlight_webdriver::Engine::Firefox).await;
            }
        }
    };
    ($chromium:ident, $firefox:ident => $run:expr) => {
        $crate::per_engine!(#[tokio::test] $chromium, $firefox => $run);
    };
}
