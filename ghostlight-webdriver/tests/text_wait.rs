//! Waiting for text in the page (issue 32), on headless Chromium and Firefox: `browser_wait`
//! with `text_present`/`text_absent` through `Ghostlight::invoke`, and the port's `wait_text`
//! itself. The authority allows 127.0.0.1 only; 127.0.0.2 plays the denied site.
//!
//! Figures are printed (how soon after the text appeared the answer came, and the commands the
//! call sent), never asserted: times depend on the machine.

mod support;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ghostlight_core::port::{BrowserPort, Gate, PortErrorKind, TabCall, TextWait, TextWaitInput};
use ghostlight_core::{Effect, Envelope, Ghostlight, Status};
use ghostlight_webdriver::{Engine, WebDriverBrowser};
use serde_json::{Value, json};
use support::engines::{browser, scenario};
use support::port::{eval, open};
use support::server::Site;
use support::tools::{call, governed, ok};

per_engine!(#[tokio::test(flavor = "multi_thread")] chromium, firefox => run);

async fn run(engine: Engine) {
    let site = support::sites::e2e::start();
    let browser = browser(engine);
    let g = governed(
        browser.clone(),
        json!({ "capabilities": { "allow": ["execute"] }, "hosts": { "allow": ["127.0.0.1"] } }),
    );
    let t = Waits { engine, g, browser: browser.clone(), site };
    scenario(engine, "text_that_appears_is_found_as_it_appears", t.appears()).await;
    scenario(engine, "text_absent_holds_once_it_is_removed", t.removed()).await;
    scenario(engine, "text_in_an_admitted_same_origin_frame_is_found", t.in_frame()).await;
    scenario(engine, "a_wait_that_never_holds_times_out", t.times_out()).await;
    scenario(engine, "a_navigation_outside_authority_ends_the_wait_blocked", t.leaves_authority()).await;
    scenario(engine, "the_port_counts_as_shown_what_text_present_does", t.same_semantics()).await;
    scenario(engine, "the_port_never_reads_the_document_a_navigation_brings", t.navigation_ends_the_wait())
        .await;
    scenario(engine, "a_dialog_during_the_wait_blocks_it", t.dialog()).await;
    browser.shutdown().await;
}

struct Waits {
    engine: Engine,
    g: Ghostlight,
    browser: Arc<WebDriverBrowser>,
    site: Site,
}

/// Milliseconds since the epoch, as a page's `Date.now()` says them.
fn now_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

impl Waits {
    /// Open `path` in a new tab; answers the tab handle.
    async fn open(&self, path: &str) -> String {
        let opened =
            ok(&self.g, "browser_navigate", json!({ "url": self.site.url(path).as_str(), "new_tab": true }))
                .await;
        opened.facts["tab"].as_str().expect("a tab").to_owned()
    }

    async fn close(&self, tab: &str) {
        ok(&self.g, "browser_tabs", json!({ "action": "close", "tab": tab })).await;
    }

    /// Run `arguments` (a `browser_wait`), printing what it cost and how soon after the page's
    /// `window.__shownAt` (or `__goneAt`) it answered.
    async fn wait(&self, what: &str, tab: &str, arguments: Value, mark: Option<&str>) -> Envelope {
        let before = self.browser.wire_counts();
        let envelope = call(&self.g, "browser_wait", arguments).await;
        let answered = now_ms();
        let sent = self.browser.wire_counts().since(&before);
        let late = match mark {
            Some(mark) => {
                let script = format!("window.{mark} || null");
                let value = ok(&self.g, "browser_execute", json!({ "tab": tab, "script": script })).await;
                value.facts["value"]
                    .as_f64()
                    .map(|at| format!(", {:.0} ms after the page changed", answered - at))
            }
            None => None,
        };
        eprintln!(
            "[{}] {what}: {:?} elapsed_ms={} ({} classic + {} BiDi commands, {} bytes){}: {}",
            self.engine.as_str(),
            envelope.status,
            envelope.facts.get("elapsed_ms").unwrap_or(&Value::Null),
            sent.classic_commands,
            sent.bidi_commands,
            sent.bytes(),
            late.unwrap_or_default(),
            envelope.summary
        );
        envelope
    }

    async fn appears(&self) {
        let tab = self.open("/slow-text").await;
        let arguments =
            json!({ "tab": tab, "condition": "text_present", "value": "Report ready", "timeout_ms": 5000 });
        let waited = self.wait("text appears after 1.5 s", &tab, arguments, Some("__shownAt")).await;
        assert_eq!(waited.status, Status::Succeeded, "{}", waited.summary);
        assert_eq!(waited.facts["satisfied"], true);
        assert!(waited.summary.starts_with("Waited "), "{}", waited.summary);
        // Already there: no wait.
        let again = ok(
            &self.g,
            "browser_wait",
            json!({ "tab": tab, "condition": "text_present", "value": "report READY" }),
        )
        .await;
        assert!(again.summary.starts_with("No wait was needed"), "{}", again.summary);
        self.close(&tab).await;
    }

    async fn removed(&self) {
        let tab = self.open("/slow-text").await;
        let arguments = json!({
            "tab": tab, "condition": "text_absent", "value": "Loading the data", "timeout_ms": 5000,
        });
        let waited = self.wait("text removed after 1.5 s", &tab, arguments, Some("__shownAt")).await;
        assert_eq!(waited.status, Status::Succeeded, "{}", waited.summary);
        assert_eq!(waited.facts["satisfied"], true);
        assert!(waited.summary.contains("disappeared"), "{}", waited.summary);
        self.close(&tab).await;
    }

    async fn in_frame(&self) {
        let tab = self.open("/slow-frame").await;
        let arguments =
            json!({ "tab": tab, "condition": "text_present", "value": "Report ready", "timeout_ms": 5000 });
        let waited = self.wait("text appears in a same-origin frame", &tab, arguments, None).await;
        assert_eq!(waited.status, Status::Succeeded, "{}", waited.summary);
        assert_eq!(waited.facts["satisfied"], true);
        // The frame's text is there once: absent does not hold.
        let absent = self
            .wait(
                "text present in a frame, awaited absent",
                &tab,
                json!({ "tab": tab, "condition": "text_absent", "value": "Report ready", "timeout_ms": 400 }),
                None,
            )
            .await;
        assert_eq!(absent.status, Status::Failed, "{}", absent.summary);
        self.close(&tab).await;
    }

    async fn times_out(&self) {
        let tab = self.open("/slow-text").await;
        let arguments =
            json!({ "tab": tab, "condition": "text_present", "value": "Never shown", "timeout_ms": 2500 });
        let waited = self.wait("text never appears (2.5 s limit)", &tab, arguments, None).await;
        assert_eq!(waited.status, Status::Failed, "{}", waited.summary);
        assert_eq!(waited.effect, Effect::None);
        assert_eq!(waited.facts["satisfied"], false);
        assert_eq!(waited.facts["reason"], "timeout", "{:?}", waited.facts);
        assert_eq!(waited.facts["timeout_ms"], 2500);
        let elapsed = waited.facts["elapsed_ms"].as_u64().expect("elapsed_ms");
        assert!(elapsed >= 2500, "a timeout waited its whole limit: {elapsed}");
        assert!(waited.summary.starts_with("Timed out after "), "{}", waited.summary);
        self.close(&tab).await;
    }

    async fn leaves_authority(&self) {
        let tab = self.open("/slow-text").await;
        // The page moves to the denied host 300 ms after it loads.
        ok(
            &self.g,
            "browser_navigate",
            json!({ "tab": tab, "url": self.site.url("/boundary/out").as_str() }),
        )
        .await;
        let arguments =
            json!({ "tab": tab, "condition": "text_present", "value": "Secret", "timeout_ms": 8000 });
        let waited = self.wait("the page leaves authority", &tab, arguments, None).await;
        assert_eq!(waited.status, Status::Blocked, "{}", waited.summary);
        assert_eq!(waited.effect, Effect::None);
        assert_eq!(waited.facts["satisfied"], false, "{:?}", waited.facts);
        let text = serde_json::to_string(&waited).unwrap_or_default();
        assert!(!text.contains("Denied secret title"), "{text}");
        assert!(!text.contains("/boundary/secret"), "no path of a page outside authority: {text}");
        self.close(&tab).await;
    }

    /// The port's tab for `path`, opened past Ghostlight (an open gate).
    async fn port_tab(&self, path: &str) -> ghostlight_core::port::TabRef {
        open(self.browser.as_ref(), &self.site, path).await
    }

    async fn wait_text(
        &self,
        tab: &ghostlight_core::port::TabRef,
        text: &str,
        present: bool,
        within: Duration,
    ) -> ghostlight_core::port::PortResult<TextWait> {
        let document = self.browser.page(tab).await.expect("the page").document;
        self.wait_text_in(tab, document, text, present, within).await
    }

    async fn wait_text_in(
        &self,
        tab: &ghostlight_core::port::TabRef,
        document: ghostlight_core::port::DocumentId,
        text: &str,
        present: bool,
        within: Duration,
    ) -> ghostlight_core::port::PortResult<TextWait> {
        let input = TextWaitInput { text: text.to_owned(), present, within, document };
        let call = TabCall::new(tab, &Gate::open(), within + Duration::from_secs(1));
        self.browser.wait_text(&call, &input).await
    }

    async fn same_semantics(&self) {
        let site = support::sites::perception::start();
        let tab = open(self.browser.as_ref(), &site, "/text").await;
        for (text, expected) in support::sites::perception::TEXT_CASES {
            let gate = Gate::open();
            let present =
                self.browser.text_present(&TabCall::reading(&tab, &gate), text).await.expect("text_present");
            assert_eq!(present, expected, "text_present {text:?}");
            for want in [true, false] {
                let ended = self.wait_text(&tab, text, want, Duration::ZERO).await.expect("wait_text");
                assert_eq!(ended.held(), expected == want, "wait_text {text:?} present={want}: {ended:?}");
            }
        }
        self.browser.close_tab(&tab).await.expect("close");
    }

    async fn navigation_ends_the_wait(&self) {
        // The page it navigates to shows "Loading the data" at once: a port that read the new
        // document would answer that it held.
        let tab = self.port_tab("/slow-nav").await;
        let ended = self.wait_text(&tab, "Loading the data", true, Duration::from_secs(3)).await;
        eprintln!("[{}] navigation during a slice: {ended:?}", self.engine.as_str());
        assert_eq!(ended.expect("wait_text"), TextWait::DocumentGone);
        // A wait given a document the tab no longer shows reads nothing of the one it shows.
        let old = self.browser.page(&tab).await.expect("the page").document;
        let call = TabCall::new(&tab, &Gate::open(), Duration::from_secs(20));
        self.browser
            .navigate(&call, &support::port::go(self.site.url("/slow-text?again")))
            .await
            .expect("navigate");
        let stale = self.wait_text_in(&tab, old, "Loading the data", true, Duration::from_secs(1)).await;
        assert_eq!(stale.expect("wait_text"), TextWait::DocumentGone);
        self.browser.close_tab(&tab).await.expect("close");
    }

    async fn dialog(&self) {
        let tab = self.port_tab("/slow-text").await;
        eval(self.browser.as_ref(), &tab, "setTimeout(() => alert('during the wait'), 300); 0").await;
        let ended = self.wait_text(&tab, "Never shown", true, Duration::from_secs(3)).await;
        eprintln!("[{}] dialog during a slice: {ended:?}", self.engine.as_str());
        assert_eq!(ended.map_err(|e| e.kind()), Err(PortErrorKind::BlockedByDialog));
        let resolved =
            self.browser.resolve_dialog(&tab, &ghostlight_core::port::DialogResolution::Accept).await;
        assert!(resolved.is_ok(), "{resolved:?}");
        self.browser.close_tab(&tab).await.expect("close");
    }
}
