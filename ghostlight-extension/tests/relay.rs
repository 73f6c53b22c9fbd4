//! The real `ghostlight-native-host` between an [`ExtensionBrowser`] and a scripted extension
//! (this test, speaking native messaging on the host's stdin and stdout): the handshake, calls
//! both ways, refusals, and what happens when either side goes away. No browser needed.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use ghostlight_core::port::{BrowserPort, PortEffect, PortErrorKind, TabRef};
use ghostlight_extension::endpoint::{SECRET_FILE_VAR, SOCKET_DIR_VAR};
use ghostlight_extension::framing::{INBOUND_MAX, read_frame, write_frame};
use ghostlight_extension::identity::CHROMIUM_ORIGIN;
use ghostlight_extension::protocol::PROTOCOL_VERSION;
use ghostlight_extension::{ExtensionBrowser, ExtensionConfig, ListenError};
use serde_json::{Value, json};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The longest any step may wait.
const BOUND: Duration = Duration::from_secs(10);
/// The browser run the scripted extension says hello from.
const RUN: &str = "0123456789abcdef0123456789abcdef";
/// Another browser run (the browser closed and started again).
const OTHER_RUN: &str = "fedcba9876543210fedcba9876543210";

struct Fixture {
    dir: tempfile::TempDir,
    config: ExtensionConfig,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("a temp dir");
    let config = ExtensionConfig {
        socket_dir: dir.path().join("run"),
        secret_file: dir.path().join("config/native-host.secret"),
    };
    Fixture { dir, config }
}

/// A scripted extension: the host's pipes.
struct FakeExtension {
    child: Child,
    to_host: ChildStdin,
    from_host: ChildStdout,
}

impl FakeExtension {
    fn start(config: &ExtensionConfig, secret_file: &PathBuf, origin: &str) -> FakeExtension {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ghostlight-native-host"))
            .arg(origin)
            .env(SOCKET_DIR_VAR, &config.socket_dir)
            .env(SECRET_FILE_VAR, secret_file)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the host starts");
        let to_host = child.stdin.take().expect("stdin");
        let from_host = child.stdout.take().expect("stdout");
        FakeExtension { child, to_host, from_host }
    }

    /// Start a host and say hello from browser run [`RUN`].
    async fn connect(config: &ExtensionConfig) -> FakeExtension {
        FakeExtension::connect_as(config, RUN).await
    }

    /// Start a host and say hello from browser run `run`.
    async fn connect_as(config: &ExtensionConfig, run: &str) -> FakeExtension {
        let mut fake = FakeExtension::start(config, &config.secret_file, CHROMIUM_ORIGIN);
        let hello = json!({"type": "hello", "protocol": PROTOCOL_VERSION, "engine": "chromium", "extension": "0.1.0", "instance": run});
        fake.send(&hello).await;
        fake
    }

    /// Answer the next request, which must be `tabs_list`, with one tab of id `id`.
    async fn answer_tabs(&mut self, id: i64) {
        let request = self.receive().await.expect("a request");
        assert_eq!(request["op"], "tabs_list");
        let value = json!([{"tab": id, "active": true, "page": page("http://127.0.0.1/a")}]);
        self.send(&json!({"type": "result", "id": request["id"], "value": value})).await;
    }

    async fn send(&mut self, message: &Value) {
        let bytes = serde_json::to_vec(message).expect("json");
        write_frame(&mut self.to_host, &bytes, INBOUND_MAX).await.expect("written to the host");
    }

    /// The next message from the server, `None` when the host closed its stdout.
    async fn receive(&mut self) -> Option<Value> {
        let frame = tokio::time::timeout(BOUND, read_frame(&mut self.from_host, INBOUND_MAX))
            .await
            .expect("a message in time")
            .ok()??;
        Some(serde_json::from_slice(&frame).expect("json from the server"))
    }

    /// Wait for the host to exit; whether it succeeded.
    async fn exit(&mut self) -> bool {
        tokio::time::timeout(BOUND, self.child.wait())
            .await
            .expect("the host exits in time")
            .expect("status")
            .success()
    }
}

fn page(url: &str) -> Value {
    json!({"url": url, "title": "A", "ready": "complete", "document": "doc-1", "status": 200})
}

#[tokio::test]
async fn calls_travel_through_the_host_both_ways() {
    let f = fixture();
    let browser = ExtensionBrowser::listen(&f.config).expect("listening");
    assert_eq!(browser.engine(), "extension");
    let mut fake = FakeExtension::connect(&f.config).await;
    assert_eq!(fake.receive().await, Some(json!({"type": "welcome"})));
    let hello = browser.wait_connected(BOUND).await.expect("connected");
    assert_eq!(hello.engine, "chromium");
    assert_eq!(browser.engine(), "chromium");

    let answering = async {
        fake.answer_tabs(7).await;
        let request = fake.receive().await.expect("a request");
        assert_eq!((request["op"].as_str(), request["args"]["tab"].as_i64()), (Some("page"), Some(7)));
        fake.send(&json!({"type": "error", "id": request["id"], "code": "tab_gone", "message": "gone", "effect": "none"}))
            .await;
    };
    let calling = async {
        let tabs = browser.tabs().await.expect("tabs");
        assert_eq!(tabs.len(), 1);
        assert_eq!(
            (tabs[0].tab.as_str(), tabs[0].page.http_status),
            (format!("{RUN}:7").as_str(), Some(200))
        );
        let gone = browser.page(&tabs[0].tab).await.expect_err("the tab is gone");
        assert_eq!((gone.kind(), gone.effect()), (PortErrorKind::TabGone, PortEffect::None));
    };
    tokio::join!(answering, calling);
}

#[tokio::test]
async fn a_call_in_flight_when_the_host_goes_answers_unknown_and_a_new_host_reconnects() {
    let f = fixture();
    let browser = ExtensionBrowser::listen(&f.config).expect("listening");
    let mut fake = FakeExtension::connect(&f.config).await;
    fake.receive().await.expect("welcome");
    browser.wait_connected(BOUND).await.expect("connected");

    let (_, tabs) = tokio::join!(fake.answer_tabs(3), browser.tabs());
    let tab = tabs.expect("tabs").remove(0).tab;
    let killing = async {
        let request = fake.receive().await.expect("a request");
        assert_eq!(request["op"], "page");
        fake.child.kill().await.expect("the host is killed");
    };
    let (_, lost) = tokio::join!(killing, browser.page(&tab));
    let lost = lost.expect_err("the call is lost");
    assert_eq!((lost.kind(), lost.effect()), (PortErrorKind::Transport, PortEffect::Unknown));

    until_disconnected(&browser).await;
    let refused = browser.page(&tab).await.expect_err("not connected");
    assert_eq!((refused.kind(), refused.effect()), (PortErrorKind::NotConnected, PortEffect::None));

    // The same browser run reconnects (a new host, a worker back from idle): its tabs still
    // reach the browser.
    let mut again = FakeExtension::connect(&f.config).await;
    assert_eq!(again.receive().await, Some(json!({"type": "welcome"})));
    browser.wait_connected(BOUND).await.expect("reconnected");
    let answering = async {
        let request = again.receive().await.expect("a request");
        assert_eq!((request["op"].as_str(), request["args"]["tab"].as_i64()), (Some("page"), Some(3)));
        again
            .send(&json!({"type": "result", "id": request["id"], "value": page("http://127.0.0.1/a")}))
            .await;
    };
    let (_, read) = tokio::join!(answering, browser.page(&tab));
    assert_eq!(read.expect("the page").http_status, Some(200));
}

#[tokio::test]
async fn tabs_of_a_browser_that_closed_are_gone_once_another_browser_connects() {
    let f = fixture();
    let browser = ExtensionBrowser::listen(&f.config).expect("listening");
    let mut first = FakeExtension::connect(&f.config).await;
    first.receive().await.expect("welcome");
    browser.wait_connected(BOUND).await.expect("connected");
    let (_, tabs) = tokio::join!(first.answer_tabs(3), browser.tabs());
    let old = tabs.expect("tabs").remove(0).tab;
    first.child.kill().await.expect("the browser (its host) is gone");
    until_disconnected(&browser).await;

    // A new browser numbers its tabs afresh: its tab 3 is not the old tab 3.
    let mut next = FakeExtension::connect_as(&f.config, OTHER_RUN).await;
    next.receive().await.expect("welcome");
    browser.wait_connected(BOUND).await.expect("connected");
    let gone = browser.page(&old).await.expect_err("the old tab is gone");
    assert_eq!((gone.kind(), gone.effect()), (PortErrorKind::TabGone, PortEffect::None));
    // Nothing was sent for it: the next request the fake sees is the tab list below.
    let (_, tabs) = tokio::join!(next.answer_tabs(3), browser.tabs());
    let new = tabs.expect("tabs").remove(0).tab;
    assert_ne!(new, old, "the same tab id of another run is another reference");
    // A reference this connector never made is gone too.
    let foreign = browser.page(&TabRef::new("3")).await.expect_err("not ours");
    assert_eq!(foreign.kind(), PortErrorKind::TabGone);
}

#[tokio::test]
async fn a_hello_of_another_version_or_without_a_browser_run_is_refused_with_the_reason() {
    let f = fixture();
    let browser = ExtensionBrowser::listen(&f.config).expect("listening");
    for run in ["", "NOT-HEX", "1:2"] {
        let mut fake = FakeExtension::connect_as(&f.config, run).await;
        let refused = fake.receive().await.expect("a refusal");
        assert_eq!(refused["type"], "refused", "{run:?}: {refused}");
        assert!(refused["message"].as_str().is_some_and(|m| m.contains("reload the extension")), "{refused}");
        assert_eq!(fake.receive().await, None, "{run:?}: the host is dropped without a welcome");
        assert!(browser.connected().is_none());
    }
    // Protocol 1's hello (no browser run): the person is told which versions meet.
    let mut old = FakeExtension::start(&f.config, &f.config.secret_file, CHROMIUM_ORIGIN);
    old.send(&json!({"type": "hello", "protocol": 1, "engine": "chromium", "extension": "0.1.0"})).await;
    let refused = old.receive().await.expect("a refusal");
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("protocol {PROTOCOL_VERSION} and the extension protocol 1")),
        "{message}"
    );
    assert!(message.contains("ghostlight install"), "{message}");
    assert_eq!(old.receive().await, None);
    assert!(browser.connected().is_none());
}

/// Wait (bounded) until the server has noticed the end of its connection.
async fn until_disconnected(browser: &ExtensionBrowser) {
    let mut waited = Duration::ZERO;
    while browser.connected().is_some() && waited < BOUND {
        tokio::time::sleep(Duration::from_millis(20)).await;
        waited += Duration::from_millis(20);
    }
    assert!(browser.connected().is_none(), "the server noticed the end of the connection");
}

#[tokio::test]
async fn a_second_host_is_refused_while_one_is_live() {
    let f = fixture();
    let browser = ExtensionBrowser::listen(&f.config).expect("listening");
    let mut first = FakeExtension::connect(&f.config).await;
    first.receive().await.expect("welcome");
    browser.wait_connected(BOUND).await.expect("connected");
    let mut second = FakeExtension::connect(&f.config).await;
    assert_eq!(second.receive().await, None, "the newcomer is dropped without a welcome");
    let _ = second.exit().await; // the refused host ends with its connection (bounded)
    assert!(browser.connected().is_some(), "the first connection stays");
}

#[tokio::test]
async fn a_wrong_secret_or_another_caller_is_refused() {
    let f = fixture();
    let browser = ExtensionBrowser::listen(&f.config).expect("listening");
    let wrong = f.dir.path().join("wrong.secret");
    std::fs::write(&wrong, "ab".repeat(32)).expect("a wrong secret");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrong, std::fs::Permissions::from_mode(0o600)).expect("0600");
    let mut impostor = FakeExtension::start(&f.config, &wrong, CHROMIUM_ORIGIN);
    assert!(!impostor.exit().await, "a host without the secret is refused");

    let mut stranger = FakeExtension::start(
        &f.config,
        &f.config.secret_file,
        "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/",
    );
    assert!(!stranger.exit().await, "another extension's call is refused");
    assert!(browser.connected().is_none());
}

#[tokio::test]
async fn the_host_exits_when_the_browser_closes_its_stdin() {
    let f = fixture();
    let _browser = ExtensionBrowser::listen(&f.config).expect("listening");
    let mut fake = FakeExtension::connect(&f.config).await;
    fake.receive().await.expect("welcome");
    let FakeExtension { mut child, to_host, .. } = fake;
    drop(to_host);
    let status = tokio::time::timeout(BOUND, child.wait()).await.expect("exits in time").expect("status");
    assert!(status.success());
}

#[tokio::test]
async fn the_socket_is_private_exclusive_and_removed_on_drop() {
    use std::os::unix::fs::PermissionsExt;
    let f = fixture();
    let browser = ExtensionBrowser::listen(&f.config).expect("listening");
    let socket = browser.socket_path().to_path_buf();
    let mode = |p: &std::path::Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode(&socket), 0o600);
    assert_eq!(mode(&f.config.socket_dir), 0o700);
    assert_eq!(mode(&f.config.secret_file), 0o600);
    assert!(matches!(ExtensionBrowser::listen(&f.config), Err(ListenError::InUse(_))));
    drop(browser);
    assert!(!socket.exists(), "the socket is removed");
    let again = ExtensionBrowser::listen(&f.config).expect("listening again");
    drop(again);
}
