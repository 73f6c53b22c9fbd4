//! Load through the real binary: `ghostlight-mcp` over stdio, driving headless Chromium (the
//! WebDriver default) on fixture pages, with rmcp's child-process client.
//!
//! * 50 concurrent `tools/call`s across 5 tabs: every request is answered, each answer is the
//!   one for its request (its tool's facts and its tab), and the whole burst ends within a
//!   timeout (no deadlock).
//! * A 1,000-call session of cheap calls (`browser_read`, `policy_explain`, `browser_find`):
//!   every call succeeds within a timeout, and the server's resident memory stays flat (a
//!   generous bound; the figures are printed, as are the durations, which are never asserted).

mod support;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use rmcp::model::CallToolResult;
use rmcp::service::{Peer, RoleClient};
use serde_json::{Value, json};
use support::fixture::Fixture;
use support::{call, describe, envelope_of, spawn_binary, status};

/// The upper bound of the concurrent burst; a deadlock fails here instead of hanging.
const BURST_TIMEOUT: Duration = Duration::from_secs(180);
/// The upper bound of the 1,000-call session.
const SESSION_TIMEOUT: Duration = Duration::from_secs(900);

/// Resident memory of `pid` in kB (`VmRSS` of `/proc/<pid>/status`).
fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kb| kb.parse().ok())
        .unwrap_or_else(|| panic!("no VmRSS for process {pid}"))
}

/// One call on `peer`, answered with its checked envelope.
async fn invoke_on(peer: &Peer<RoleClient>, name: &str, arguments: Value) -> Value {
    let result: CallToolResult =
        peer.call_tool(call(name, arguments)).await.unwrap_or_else(|e| panic!("{name}: {e}"));
    envelope_of(&result)
}

/// The `i`-th call of a mix on `tab` (whose page contains `word`): the tool and its arguments.
fn mixed(i: usize, tab: &str, word: &str) -> (&'static str, Value) {
    match i % 4 {
        0 => ("browser_read", json!({"tab": tab, "max_chars": 2000})),
        1 => ("browser_find", json!({"tab": tab, "text": word})),
        2 => ("policy_explain", json!({})),
        _ => ("browser_inspect", json!({"tab": tab, "max_items": 20})),
    }
}

/// Check that `envelope` answers `tool` on `tab` (the tab fact where the tool reports one).
fn check_answer(envelope: &Value, tool: &str, tab: &str) {
    assert_eq!(status(envelope), "succeeded", "{tool} on {tab}: {}", describe(envelope));
    match tool {
        "policy_explain" => assert!(envelope["facts"].get("tab").is_none(), "{}", describe(envelope)),
        _ => assert_eq!(envelope["facts"]["tab"], tab, "{tool}: an answer for another tab"),
    }
    match tool {
        "browser_read" => assert!(envelope["facts"]["text"].is_string(), "{}", describe(envelope)),
        "browser_find" => assert!(envelope["facts"]["matches"].is_array(), "{}", describe(envelope)),
        "browser_inspect" => assert!(envelope["facts"]["items"].is_array(), "{}", describe(envelope)),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_calls_then_a_thousand_call_session_through_the_binary() {
    support::require_chromedriver();
    let fixture = Fixture::start();
    let started = Instant::now();
    let (client, pid) = spawn_binary(&[], None).await;
    println!("spawn to initialized: {:?}", started.elapsed());
    let rss_initialized = rss_kb(pid);

    // Five tabs, alternating two pages; each with a word its page contains.
    let mut tabs: Vec<(String, &str)> = Vec::new();
    for n in 0..5 {
        let (path, word) = if n % 2 == 0 { ("/hello", "Ghostlight") } else { ("/form", "Send") };
        let arguments = json!({"url": fixture.url(path), "new_tab": n > 0});
        let opened = invoke_on(client.peer(), "browser_navigate", arguments).await;
        assert_eq!(status(&opened), "succeeded", "{}", describe(&opened));
        let tab = opened["facts"]["tab"].as_str().unwrap_or_default().to_owned();
        assert!(!tab.is_empty(), "no tab handle: {}", describe(&opened));
        tabs.push((tab, word));
    }
    let distinct: HashSet<&String> = tabs.iter().map(|(tab, _)| tab).collect();
    assert_eq!(distinct.len(), 5, "five distinct tabs: {tabs:?}");
    let rss_start = rss_kb(pid);

    // 50 concurrent calls, 10 per tab.
    let burst = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..50 {
        let (tab, word) = tabs[i % 5].clone();
        let peer = client.peer().clone();
        tasks.spawn(async move {
            let (tool, arguments) = mixed(i / 5, &tab, word);
            let envelope = invoke_on(&peer, tool, arguments).await;
            (i, tool, tab, envelope)
        });
    }
    let answers = tokio::time::timeout(BURST_TIMEOUT, tasks.join_all())
        .await
        .unwrap_or_else(|_| panic!("the burst of 50 calls did not end within {BURST_TIMEOUT:?}"));
    println!("50 concurrent calls across 5 tabs: {:?}", burst.elapsed());
    assert_eq!(answers.len(), 50, "every request answered");
    let mut requests = HashSet::new();
    let mut invocations = HashSet::new();
    for (i, tool, tab, envelope) in &answers {
        check_answer(envelope, tool, tab);
        assert!(requests.insert(*i), "request {i} answered twice");
        let invocation = envelope["invocation"].as_str().unwrap_or_default().to_owned();
        assert!(invocations.insert(invocation), "an invocation handle repeated: {}", describe(envelope));
    }

    // A 1,000-call session of cheap calls, one after another.
    let session = Instant::now();
    let run = async {
        for i in 0..1000 {
            let (tab, word) = &tabs[i % 5];
            let (tool, arguments) = match i % 3 {
                0 => ("browser_read", json!({"tab": tab, "max_chars": 500})),
                1 => ("policy_explain", json!({})),
                _ => ("browser_find", json!({"tab": tab, "text": word})),
            };
            let envelope = invoke_on(client.peer(), tool, arguments).await;
            check_answer(&envelope, tool, tab);
        }
    };
    tokio::time::timeout(SESSION_TIMEOUT, run)
        .await
        .unwrap_or_else(|_| panic!("the 1,000-call session did not end within {SESSION_TIMEOUT:?}"));
    let elapsed = session.elapsed();
    println!("1,000-call session: {elapsed:?} ({:?} per call)", elapsed / 1000);

    let rss_end = rss_kb(pid);
    println!(
        "server VmRSS: {rss_initialized} kB initialized, {rss_start} kB with 5 tabs, {rss_end} kB after 1,050 calls"
    );
    assert!(rss_end < rss_start * 3 + 100 * 1024, "resident memory grew from {rss_start} kB to {rss_end} kB");
    let _ = client.cancel().await;
}
