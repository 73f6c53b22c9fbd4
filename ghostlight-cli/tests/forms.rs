//! `browser_inspect` scope `forms` through the MCP edge: the real binary, started by rmcp's
//! child-process client, on headless Chromium and Firefox (`GHOSTLIGHT_TEST_ENGINES`, default
//! both), on the fixture's `/forms` page (every control kind, constraints, invalid fields, a
//! radio group in a fieldset, selects, passwords filled and empty, a control outside any form
//! and a same-origin frame with its own form). Checks the snapshot's shape, groups,
//! constraints, validity flags and value states; that no value (a password's, a text
//! field's) appears anywhere in the result or the server's log; and that its target handles
//! are the ones other tools take.

mod support;

use std::path::Path;

use rmcp::model::CallToolResult;
use rmcp::service::{RoleClient, RunningService, ServiceExt};
use serde_json::{Value, json};
use support::fixture::{FORMS_NICKNAME, FORMS_PASSWORD, FORMS_PASSWORD_MARKUP, Fixture};
use support::{call, describe, envelope_of, invoke, status};

/// Whether `GHOSTLIGHT_TEST_ENGINES` (default both) names `engine`.
fn wanted(engine: &str) -> bool {
    let wanted = std::env::var("GHOSTLIGHT_TEST_ENGINES").unwrap_or_else(|_| "chromium,firefox".into());
    wanted.split(',').any(|name| name.trim().eq_ignore_ascii_case(engine))
}

/// The binary on `engine`, its log written to `log`.
async fn spawn(engine: &str, log: &Path) -> RunningService<RoleClient, ()> {
    let mut command = tokio::process::Command::new(support::binary());
    command.args(["--browser", engine]).env("GHOSTLIGHT_MCP_LOG", "debug");
    let file = std::fs::File::create(log).unwrap_or_else(|e| panic!("the log file: {e}"));
    let (transport, _stderr) = rmcp::transport::TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::from(file))
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start ghostlight-mcp: {e}"));
    ().serve(transport).await.unwrap_or_else(|e| panic!("ghostlight-mcp did not initialize: {e}"))
}

/// The raw result of one call and its checked envelope.
async fn raw(client: &RunningService<RoleClient, ()>, name: &str, arguments: Value) -> (String, Value) {
    let result: CallToolResult =
        client.call_tool(call(name, arguments)).await.unwrap_or_else(|e| panic!("{name}: {e}"));
    let text = serde_json::to_string(&result).unwrap_or_default();
    (text, envelope_of(&result))
}

/// The field of `fields` named `name`.
fn field<'a>(fields: &'a [Value], name: &str) -> &'a Value {
    fields
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no field named {name:?} in {}", Value::from(fields.to_vec())))
}

fn assert_no_value(text: &str, what: &str) {
    for secret in [FORMS_PASSWORD, FORMS_PASSWORD_MARKUP, FORMS_NICKNAME, "not-an-email", "abc\""] {
        assert!(!text.contains(secret), "{what} holds the value {secret:?}: {text}");
    }
}

async fn forms_snapshot(engine: &str) {
    let fixture = Fixture::start();
    let scratch = support::scratch::Scratch::new(&format!("forms-{engine}"));
    let log = scratch.join("mcp.log");
    let client = spawn(engine, &log).await;

    let opened = invoke(&client, "browser_navigate", json!({"url": fixture.url("/forms")})).await;
    assert_eq!(status(&opened), "succeeded", "{}", describe(&opened));

    let (text, inspected) = raw(&client, "browser_inspect", json!({"scope": "forms"})).await;
    assert_eq!(status(&inspected), "succeeded", "{}", describe(&inspected));
    assert_no_value(&text, "the forms snapshot");
    let facts = &inspected["facts"];
    eprintln!("[{engine}] forms snapshot: {} bytes of structuredContent\n{}", facts.to_string().len(), facts);
    assert!(facts.get("truncated").is_none(), "{facts}");
    let forms = facts["forms"].as_array().cloned().unwrap_or_default();
    assert_eq!(forms.len(), 2, "the page's form and the frame's: {facts}");
    assert_eq!(forms[0]["name"], "Sign up");
    assert_eq!(forms[1]["name"], "Subscribe");
    let fields = forms[0]["fields"].as_array().cloned().unwrap_or_default();
    let roles: Vec<&str> = fields.iter().filter_map(|f| f["role"].as_str()).collect();
    assert_eq!(
        roles,
        [
            "textbox",
            "textbox",
            "textbox",
            "spinbutton",
            "textbox",
            "textbox",
            "checkbox",
            "radiogroup",
            "combobox",
            "listbox",
            "textbox",
            "button",
            "textbox",
            "textbox",
            "button"
        ],
        "{facts}"
    );
    // 15 fields of the page's form (a radio group of 3 counts 3), 2 of the frame's, 2 outside.
    assert_eq!(facts["count"], 21, "{facts}");
    assert!(
        inspected["summary"].as_str().is_some_and(|s| s.starts_with("Found 2 forms and 21 controls in all")),
        "{}",
        inspected["summary"]
    );

    let name = field(&fields, "Full name");
    assert!(name["target"].as_str().is_some_and(|t| t.starts_with("target_")), "{name}");
    assert_eq!(name["constraints"], json!({"required": true}));
    assert_eq!(name["validity"], "valueMissing");
    assert_eq!(name["value"], json!({"kind": "empty"}));
    let nick = field(&fields, "Nickname");
    assert_eq!((&nick["validity"], &nick["value"]), (&json!("valid"), &json!({"kind": "filled"})));
    assert!(nick.get("constraints").is_none(), "{nick}");
    assert_eq!(field(&fields, "Email")["validity"], "typeMismatch");
    let age = field(&fields, "Age");
    assert_eq!(age["constraints"], json!({"min": "18", "max": "120", "step": "1"}));
    assert_eq!(age["validity"], "rangeUnderflow");
    let bio = field(&fields, "Bio");
    assert_eq!(bio["constraints"], json!({"minlength": 10, "maxlength": 200}));
    assert_eq!(bio["value"], json!({"kind": "empty"}));
    let postcode = field(&fields, "Postcode");
    assert_eq!(postcode["constraints"], json!({"pattern": true}));
    assert_eq!(postcode["validity"], "patternMismatch");
    let news = field(&fields, "Newsletter");
    assert_eq!(news["state"], json!(["checked"]));
    assert_eq!(news["value"], json!({"kind": "filled"}));

    let plan = field(&fields, "Plan");
    assert_eq!(plan["role"], "radiogroup");
    assert!(plan.get("target").is_none() && plan.get("group").is_none(), "{plan}");
    assert_eq!(plan["constraints"], json!({"required": true}));
    assert_eq!(plan["validity"], "valueMissing");
    assert_eq!(plan["value"], json!({"kind": "empty"}));
    let options = plan["options"].as_array().cloned().unwrap_or_default();
    let labels: Vec<&str> = options.iter().filter_map(|o| o[1].as_str()).collect();
    assert_eq!(labels, ["Free", "Pro", "Team"], "{plan}");
    let pro = options[1][0].as_str().unwrap_or_default().to_owned();

    let country = field(&fields, "Country");
    assert_eq!(country["options"], json!(["Choose one", "France", "Germany"]));
    assert_eq!(country["value"], json!({"kind": "empty"}), "a placeholder option is no choice");
    let toppings = field(&fields, "Toppings");
    assert_eq!(toppings["constraints"], json!({"multiple": true}));
    assert_eq!(toppings["value"], json!({"kind": "filled"}));
    assert_eq!(toppings["options"], json!(["Cheese", "Ham", "Olives"]));
    let start = field(&fields, "Start date");
    assert_eq!(start["constraints"], json!({"min": "2026-01-01", "max": "2026-12-31"}));
    assert_eq!(start["value"], json!({"kind": "empty"}));
    assert_eq!(field(&fields, "Avatar")["value"], json!({"kind": "empty"}));
    assert_eq!(field(&fields, "Password")["value"], json!({"kind": "redacted", "present": true}));
    assert_eq!(field(&fields, "Confirm password")["value"], json!({"kind": "redacted", "present": false}));
    let submit = field(&fields, "Create account");
    for key in ["value", "options", "validity", "constraints"] {
        assert!(submit.get(key).is_none(), "a button has no {key}: {submit}");
    }
    for f in fields.iter().filter(|f| f["role"] != "radiogroup") {
        assert!(f.get("group").is_none() || f["name"] == "Plan", "only the radios sit in a fieldset: {f}");
    }

    // Outside any form: value widgets (an ARIA switch too), not buttons or links.
    let outside = facts["outside"].as_array().cloned().unwrap_or_default();
    assert_eq!(outside.len(), 2, "{facts}");
    assert_eq!(outside[0]["name"], "Search the site");
    assert_eq!(outside[0]["role"], "searchbox");
    assert_eq!(
        outside[1],
        json!({"target": outside[1]["target"], "role": "switch", "name": "Dark mode",
        "state": ["checked"], "value": {"kind": "filled"}})
    );

    let framed = forms[1]["fields"].as_array().cloned().unwrap_or_default();
    let frame_email = field(&framed, "Frame email");
    assert_eq!(frame_email["validity"], "valueMissing");
    assert_eq!(frame_email["constraints"], json!({"required": true}));
    assert_eq!(field(&framed, "Subscribe")["role"], "button");

    // The handles are the ones other tools take: fill the full name, pick a plan, look again.
    let target = name["target"].clone();
    let filled = invoke(
        &client,
        "browser_fill_form",
        json!({"fields": [{"target": target, "value": "Ada Lovelace"}]}),
    )
    .await;
    assert_eq!(status(&filled), "succeeded", "{}", describe(&filled));
    let clicked = invoke(&client, "browser_click", json!({"target": pro})).await;
    assert_eq!(status(&clicked), "succeeded", "{}", describe(&clicked));
    let (text, again) = raw(&client, "browser_inspect", json!({"scope": "forms", "max_items": 5})).await;
    assert_eq!(status(&again), "succeeded", "{}", describe(&again));
    assert!(!text.contains("Ada Lovelace"), "a filled value in the snapshot: {text}");
    assert_eq!(again["facts"]["truncated"], true, "{}", describe(&again));
    let fields = again["facts"]["forms"][0]["fields"].as_array().cloned().unwrap_or_default();
    let name = field(&fields, "Full name");
    assert_eq!((&name["validity"], &name["value"]), (&json!("valid"), &json!({"kind": "filled"})));
    assert_eq!(fields.len(), 5, "max_items bounds the controls: {}", describe(&again));
    let (_, all) = raw(&client, "browser_inspect", json!({"scope": "forms"})).await;
    let fields = all["facts"]["forms"][0]["fields"].as_array().cloned().unwrap_or_default();
    let plan = field(&fields, "Plan");
    assert_eq!((&plan["validity"], &plan["value"]), (&json!("valid"), &json!({"kind": "filled"})));

    let _ = client.cancel().await;
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    assert_no_value(&logged, "the server's log");
    assert!(!logged.contains("Ada Lovelace"), "a filled value in the server's log");
}

#[tokio::test]
async fn forms_snapshot_on_chromium() {
    if !wanted("chromium") {
        return;
    }
    support::require_chromedriver();
    forms_snapshot("chromium").await;
}

#[tokio::test]
async fn forms_snapshot_on_firefox() {
    if !wanted("firefox") {
        return;
    }
    assert!(support::on_path("geckodriver").is_some(), "geckodriver is not on PATH");
    forms_snapshot("firefox").await;
}
