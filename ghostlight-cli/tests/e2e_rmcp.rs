//! The real binary, started by rmcp's child-process client, driving headless Chromium
//! (the WebDriver default) on a fixture page: navigate, read, policy_explain, both renderings.

mod support;

use serde_json::json;
use support::fixture::Fixture;
use support::{describe, invoke, spawn_binary, status};

#[tokio::test]
async fn rmcp_client_drives_the_binary_on_a_fixture_page() {
    support::require_chromedriver();
    let fixture = Fixture::start();
    let (client, _pid) = spawn_binary(&[], None).await;

    let tools = client.list_all_tools().await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(serde_json::to_value(&tools).unwrap_or_default(), ghostlight_core::render_catalog());

    let explained = invoke(&client, "policy_explain", json!({})).await;
    assert_eq!(status(&explained), "succeeded", "{}", describe(&explained));

    let url = fixture.url("/hello");
    let opened = invoke(&client, "browser_navigate", json!({"url": url})).await;
    assert_eq!(status(&opened), "succeeded", "{}", describe(&opened));
    assert_eq!(opened["effect"], "applied");
    assert_eq!(opened["facts"]["title"], "Hello fixture");
    assert_eq!(opened["facts"]["created"], true);
    let tab = opened["facts"]["tab"].as_str().unwrap_or_default().to_owned();

    let read = invoke(&client, "browser_read", json!({})).await;
    assert_eq!(status(&read), "succeeded", "{}", describe(&read));
    assert_eq!(read["facts"]["tab"], tab.as_str());
    let text = read["facts"]["text"].as_str().unwrap_or_default();
    assert!(text.contains("Ghostlight reads this sentence from a fixture page."), "{text}");

    let tabs = invoke(&client, "browser_tabs", json!({"action": "list"})).await;
    assert_eq!(status(&tabs), "succeeded", "{}", describe(&tabs));
    assert_eq!(tabs["facts"]["tabs"].as_array().map(Vec::len), Some(1));

    let _ = client.cancel().await;
}
