use std::path::PathBuf;
use std::time::Duration;

use futures::executor::block_on;
use serde_json::json;
use url::Url;

use super::{ScriptedBrowser, ScriptedElement, ScriptedPage};
use crate::port::{
    BrowserPort, CaptureKind, ClickInput, CssRect, DiagnosticEntry, DiagnosticSource, DiagnosticsQuery,
    DialogKind, DialogResolution, ElementRef, ElementState, ElementSummary, FileStat, FillInput, Gate,
    HistoryMove, InlineFile, KeyInput, NavigateInput, PerceiveInput, PerceiveScope, PointerTarget, PortError,
    PortErrorKind, ReadInput, RecordCommand, RecordDelivery, RecordingState, ScrollInput, StartupRefusal,
    TabCall, TabRef, TextMode, TypeInput, UploadDestination, UploadFiles, UploadInput,
};
use crate::vocab::{DiagnoseDetail, DiagnoseSource, FillValue, Key, MouseButton, NamedKey, ScrollDirection};

const T: Duration = Duration::from_secs(5);

fn nav(url: &str) -> NavigateInput {
    NavigateInput {
        url: Url::parse(url).unwrap_or_else(|e| panic!("{url}: {e}")),
        discard_beforeunload: false,
    }
}

fn shop() -> ScriptedBrowser {
    let cookies = ElementSummary { role: "dialog".into(), name: Some("Cookies".into()) };
    ScriptedBrowser::new()
        .site(
            "https://shop.test/",
            ScriptedPage::new("Shop")
                .text("Welcome to the shop")
                .article("Big sale today")
                .element(ScriptedElement::heading("Checkout"))
                .element(ScriptedElement::textbox("Email").depth(1))
                .element(ScriptedElement::password("Password").depth(1))
                .element(ScriptedElement::select("Country", &[("de", "Germany"), ("fr", "France")]).depth(1))
                .element(ScriptedElement::checkbox("Terms").depth(1))
                .element(ScriptedElement::number("Quantity").depth(1))
                .element(ScriptedElement::file_input("Receipt").depth(1))
                .element(ScriptedElement::button("Pay").navigates_to("/done").depth(1))
                .element(ScriptedElement::button("Delete").opens_dialog(DialogKind::Confirm))
                .element(ScriptedElement::button("Dismiss banner").removed_on_click())
                .element(ScriptedElement::button("Buy").covered_by(cookies))
                .element(ScriptedElement::button("Secret").hidden())
                .element(ScriptedElement::custom("toolbar", "Tools")),
        )
        .site("https://shop.test/done", ScriptedPage::new("Done").text("Thanks"))
        .site("https://form.test/", ScriptedPage::new("Draft").beforeunload())
}

fn open(browser: &ScriptedBrowser, url: &str) -> TabRef {
    block_on(browser.open_tab(&nav(url), T)).unwrap_or_else(|e| panic!("open {url}: {e}")).tab
}

fn el(browser: &ScriptedBrowser, tab: &TabRef, name: &str) -> ElementRef {
    browser.element_ref(tab, name).unwrap_or_else(|| panic!("no element {name}"))
}

fn click(
    browser: &ScriptedBrowser,
    tab: &TabRef,
    element: &ElementRef,
) -> Result<crate::port::ActionReceipt, PortError> {
    let input = ClickInput {
        at: PointerTarget::Element(element.clone()),
        button: MouseButton::Primary,
        count: 1,
        modifiers: Vec::new(),
    };
    block_on(browser.click(&TabCall::new(tab, &Gate::open(), T), &input))
}

fn kind<T: std::fmt::Debug>(result: Result<T, PortError>) -> PortErrorKind {
    result.map(|v| panic!("expected an error, got {v:?}")).unwrap_or_else(|e| e.kind())
}

#[test]
fn navigation_changes_the_document_and_stales_references() {
    let browser = shop();
    let tab = open(&browser, "https://shop.test/");
    let before = browser.current_page(&tab).expect("page").document;
    let pay = el(&browser, &tab, "Pay");
    let email = el(&browser, &tab, "Email");

    let receipt = click(&browser, &tab, &pay).expect("click");
    assert_eq!(receipt.element, Some(ElementSummary { role: "button".into(), name: Some("Pay".into()) }));
    assert_eq!(receipt.page.url.as_str(), "https://shop.test/done");
    assert_ne!(receipt.page.document, before);
    assert_eq!(kind(click(&browser, &tab, &email)), PortErrorKind::TargetStale);
    assert_eq!(block_on(browser.element_present(&tab, &email)), Ok(false));

    let back =
        block_on(browser.history(&TabCall::new(&tab, &Gate::open(), T), HistoryMove::Back)).expect("back");
    assert_eq!(back.title, "Shop");
    assert_ne!(back.document, before, "a history move is a new document");
    let reload = block_on(
        browser.history(&TabCall::new(&tab, &Gate::open(), T), HistoryMove::Reload { bypass_cache: false }),
    )
    .expect("reload");
    assert_ne!(reload.document, back.document);
    block_on(browser.history(&TabCall::new(&tab, &Gate::open(), T), HistoryMove::Forward)).expect("forward");
    assert_eq!(
        kind(block_on(browser.history(&TabCall::new(&tab, &Gate::open(), T), HistoryMove::Forward))),
        PortErrorKind::InvalidInput
    );

    // Unregistered web URLs get a default page; removal stales a reference too.
    let other = open(&browser, "https://elsewhere.test/x");
    assert_eq!(browser.current_page(&other).expect("page").title, "elsewhere.test");
    assert_eq!(
        block_on(browser.text_present(&TabCall::reading(&other, &Gate::open()), "page at ELSEWHERE")),
        Ok(true)
    );
    block_on(browser.navigate(&TabCall::new(&other, &Gate::open(), T), &nav("https://shop.test/")))
        .expect("navigate");
    let banner = el(&browser, &other, "Dismiss banner");
    click(&browser, &other, &banner).expect("dismiss");
    assert_eq!(block_on(browser.element_present(&other, &banner)), Ok(false));
    assert_eq!(kind(click(&browser, &other, &banner)), PortErrorKind::TargetStale);
}

#[test]
fn fill_checks_every_field_before_setting_any() {
    let browser = shop();
    let tab = open(&browser, "https://shop.test/");
    let field = |name: &str, value: FillValue| (el(&browser, &tab, name), value);
    let bad = FillInput {
        fields: vec![
            field("Email", FillValue::Text("a@b.test".into())),
            field("Terms", FillValue::Text("yes".into())),
        ],
    };
    let error = block_on(browser.fill(&TabCall::new(&tab, &Gate::open(), T), &bad)).expect_err("refused");
    assert_eq!((error.kind(), error.failed_field()), (PortErrorKind::InvalidInput, Some(1)));
    assert_eq!(browser.filled_fields(&tab), 0, "nothing was set");

    for (name, value) in [
        ("Receipt", FillValue::Text("x".into())),
        ("Quantity", FillValue::Text("many".into())),
        ("Country", FillValue::Text("Spain".into())),
        ("Checkout", FillValue::Text("x".into())),
    ] {
        let error = block_on(
            browser
                .fill(&TabCall::new(&tab, &Gate::open(), T), &FillInput { fields: vec![field(name, value)] }),
        )
        .expect_err(name);
        assert_eq!(error.failed_field(), Some(0), "{name}");
    }

    let good = FillInput {
        fields: vec![
            field("Email", FillValue::Text("a@b.test".into())),
            field("Password", FillValue::Text("hunter2".into())),
            field("Country", FillValue::Text("France".into())),
            field("Terms", FillValue::Checked(true)),
            field("Quantity", FillValue::Text(" 3 ".into())),
        ],
    };
    assert_eq!(
        block_on(browser.fill(&TabCall::new(&tab, &Gate::open(), T), &good)).expect("filled").filled,
        5
    );
    assert_eq!(browser.filled_fields(&tab), 5);
}

#[test]
fn an_obstructed_click_names_the_cover_and_does_nothing() {
    let browser = shop();
    let tab = open(&browser, "https://shop.test/");
    let error = click(&browser, &tab, &el(&browser, &tab, "Buy")).expect_err("obstructed");
    assert_eq!(error.kind(), PortErrorKind::Obstructed);
    assert_eq!(error.obstruction().and_then(|s| s.name.as_deref()), Some("Cookies"));
    assert_eq!(block_on(browser.focused_element(&tab)), Ok(None));

    click(&browser, &tab, &el(&browser, &tab, "Email")).expect("click");
    let focused = block_on(browser.focused_element(&tab)).expect("focused").expect("some");
    assert!(focused.element.states.contains(&ElementState::Focused));
    assert!(focused.frames.is_empty());
    let point = ClickInput {
        at: PointerTarget::Point(crate::port::Point { x: 5.0, y: 5.0 }),
        button: MouseButton::Primary,
        count: 1,
        modifiers: Vec::new(),
    };
    assert_eq!(
        block_on(browser.click(&TabCall::new(&tab, &Gate::open(), T), &point)).expect("point").element,
        None
    );
}

#[test]
fn beforeunload_blocks_navigation_until_accepted() {
    let browser = shop();
    let tab = open(&browser, "https://form.test/");
    let error = block_on(browser.navigate(&TabCall::new(&tab, &Gate::open(), T), &nav("https://shop.test/")))
        .expect_err("blocked");
    assert_eq!(error.kind(), PortErrorKind::BlockedByDialog);
    assert_eq!(block_on(browser.dialog(&tab)), Ok(Some(DialogKind::BeforeUnload)));
    assert_eq!(browser.current_page(&tab).expect("page").title, "Draft");

    assert_eq!(
        block_on(browser.resolve_dialog(&tab, &DialogResolution::Accept)),
        Ok(DialogKind::BeforeUnload)
    );
    assert_eq!(browser.current_page(&tab).expect("page").title, "Shop");

    let forced = open(&browser, "https://form.test/");
    let input = NavigateInput { discard_beforeunload: true, ..nav("https://shop.test/done") };
    assert_eq!(
        block_on(browser.navigate(&TabCall::new(&forced, &Gate::open(), T), &input))
            .expect("navigated")
            .title,
        "Done"
    );
}

#[test]
fn dialogs_block_the_page_until_resolved() {
    let browser = shop();
    let tab = open(&browser, "https://shop.test/");
    click(&browser, &tab, &el(&browser, &tab, "Delete")).expect("click");
    assert_eq!(block_on(browser.dialog(&tab)), Ok(Some(DialogKind::Confirm)));
    assert_eq!(
        kind(block_on(browser.text_present(&TabCall::reading(&tab, &Gate::open()), "shop"))),
        PortErrorKind::BlockedByDialog
    );
    assert_eq!(
        kind(block_on(browser.resolve_dialog(&tab, &DialogResolution::Respond("x".into())))),
        PortErrorKind::InvalidInput
    );
    assert_eq!(block_on(browser.resolve_dialog(&tab, &DialogResolution::Dismiss)), Ok(DialogKind::Confirm));
    assert_eq!(
        kind(block_on(browser.resolve_dialog(&tab, &DialogResolution::Accept))),
        PortErrorKind::InvalidInput
    );
    assert_eq!(block_on(browser.text_present(&TabCall::reading(&tab, &Gate::open()), "SHOP")), Ok(true));
}

#[test]
fn the_call_log_names_methods_and_tabs_but_never_payloads() {
    let browser = shop().file("/home/me/secret-report.pdf", 10).script_result("return 'covert'", json!(7));
    let tab = open(&browser, "https://shop.test/");
    let email = el(&browser, &tab, "Email");
    let typed = TypeInput { into: email.clone(), text: "sesame-open".into(), clear_first: true };
    block_on(browser.type_text(&TabCall::new(&tab, &Gate::open(), T), &typed)).expect("typed");
    let enter = KeyInput { keys: vec![Key::Char('q')], repeat: 1, modifiers: vec![], into: Some(email) };
    block_on(browser.press_keys(&TabCall::new(&tab, &Gate::open(), T), &enter)).expect("pressed");
    assert_eq!(
        block_on(browser.execute(&TabCall::new(&tab, &Gate::open(), T), "return 'covert'"))
            .expect("ran")
            .value,
        json!(7)
    );
    assert_eq!(
        block_on(browser.execute(&TabCall::new(&tab, &Gate::open(), T), "other")).expect("ran").value,
        json!(null)
    );
    assert_eq!(
        kind(block_on(browser.execute(&TabCall::new(&tab, &Gate::open(), T), "throw"))),
        PortErrorKind::ScriptError
    );
    let stats =
        block_on(browser.stat_files(&[PathBuf::from("/home/me/secret-report.pdf"), PathBuf::from("/nope")]));
    assert_eq!(
        stats,
        Ok(vec![
            FileStat::File { bytes: 10, real: PathBuf::from("/home/me/secret-report.pdf") },
            FileStat::Missing
        ])
    );
    block_on(browser.sleep(Duration::from_millis(250)));

    assert_eq!(
        browser.method_names(),
        ["open_tab", "type_text", "press_keys", "execute", "execute", "execute", "stat_files", "sleep"]
    );
    let log = format!("{:?}", browser.calls());
    for secret in ["sesame", "covert", "secret-report", "shop.test"] {
        assert!(!log.contains(secret), "{secret} leaked into {log}");
    }
    assert_eq!(browser.calls()[1].tab.as_deref(), Some(tab.as_str()));
    assert_eq!(browser.dispatch_count(), 7);
    assert_eq!(browser.virtual_elapsed(), Duration::from_millis(250));
    browser.clear_calls();
    assert!(browser.calls().is_empty());
}

#[test]
fn faults_are_answered_in_order_then_disconnect_and_startup_refusal() {
    let browser = shop();
    let tab = open(&browser, "https://shop.test/");
    browser.fail_next("page", PortError::transport("lost"));
    browser.fail_next("page", PortError::new(PortErrorKind::Timeout, "slow"));
    assert_eq!(kind(block_on(browser.page(&tab))), PortErrorKind::Transport);
    assert_eq!(kind(block_on(browser.page(&tab))), PortErrorKind::Timeout);
    assert!(block_on(browser.page(&tab)).is_ok());

    assert!(browser.close_tab_externally(&tab));
    assert_eq!(kind(block_on(browser.page(&tab))), PortErrorKind::TabGone);

    browser.startup_refusal(StartupRefusal::OwnedElsewhere);
    let error = block_on(browser.tabs()).expect_err("refused");
    assert_eq!(error.startup_refusal(), Some(&StartupRefusal::OwnedElsewhere));
    browser.disconnect();
    assert_eq!(kind(block_on(browser.tabs())), PortErrorKind::NotConnected);
}

#[test]
fn in_flight_counters_observe_concurrency() {
    let browser = shop().with_tab("https://shop.test/").with_tab("https://shop.test/done");
    let tabs = block_on(browser.tabs()).expect("tabs");
    assert_eq!(
        tabs.iter().map(|t| (t.tab.as_str(), t.active)).collect::<Vec<_>>(),
        [("t1", false), ("t2", true)]
    );
    let (one, two) = (tabs[0].tab.clone(), tabs[1].tab.clone());

    let (a, b) = block_on(async { futures::join!(browser.page(&one), browser.page(&two)) });
    assert!(a.is_ok() && b.is_ok());
    assert_eq!((browser.max_in_flight_total(), browser.max_in_flight_per_tab()), (2, 1));

    let (a, b) = block_on(async { futures::join!(browser.geometry(&one), browser.page(&one)) });
    assert!(a.is_ok() && b.is_ok());
    assert_eq!(browser.max_in_flight_per_tab(), 2);

    block_on(browser.focus_tab(&one)).expect("focus");
    assert!(block_on(browser.tabs()).expect("tabs")[0].active);
}

#[test]
fn captures_are_valid_pngs_of_the_stated_size() {
    let browser = shop();
    let tab = open(&browser, "https://shop.test/");
    let region =
        CaptureKind::Region { rect: CssRect { x: 10.0, y: 20.0, width: 100.5, height: 0.1 }, scale: 2.0 };
    let heading = CaptureKind::Element(el(&browser, &tab, "Checkout"));
    for (capture, size) in [
        (CaptureKind::Viewport, (1280, 800)),
        (CaptureKind::FullPage, (1280, 3000)),
        (heading, (200, 40)),
        (region, (201, 1)),
    ] {
        let shot =
            block_on(browser.capture(&TabCall::new(&tab, &Gate::open(), T), &capture)).expect("captured");
        assert_eq!((shot.width, shot.height), size);
        assert_eq!(&shot.png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&shot.png[12..16], b"IHDR");
        assert_eq!(shot.png[16..20], size.0.to_be_bytes());
        assert_eq!(shot.png[20..24], size.1.to_be_bytes());
        assert!(shot.png.ends_with(b"IEND\xaeB`\x82"));
        assert!(shot.png.len() < 4096);
    }
    let huge = CaptureKind::Region { rect: CssRect { x: 0.0, y: 0.0, width: 1e9, height: 1.0 }, scale: 1.0 };
    assert_eq!(
        kind(block_on(browser.capture(&TabCall::new(&tab, &Gate::open(), T), &huge))),
        PortErrorKind::InvalidInput
    );
}

#[test]
fn perception_reading_and_finding() {
    let browser = shop();
    let tab = open(&browser, "https://shop.test/");
    let perceive = |scope, max_items| {
        block_on(
            browser.perceive(&TabCall::reading(&tab, &Gate::open()), &PerceiveInput { scope, max_items }),
        )
        .expect("perceived")
    };
    let names =
        |p: crate::port::Perception| p.elements.into_iter().filter_map(|e| e.name).collect::<Vec<_>>();

    let controls = perceive(PerceiveScope::Controls, 100);
    assert_eq!(controls.elements.len(), 10, "hidden and structure excluded");
    assert!(controls.elements.iter().any(|e| e.credential.is_some()));
    assert_eq!(names(perceive(PerceiveScope::Structure, 100)), ["Checkout", "Tools"]);
    let all = perceive(PerceiveScope::All, 3);
    assert!(all.truncated);
    assert_eq!(names(all), ["Checkout", "Email", "Password"]);
    let root = Some(el(&browser, &tab, "Checkout"));
    let tree = perceive(PerceiveScope::Document { root, max_depth: 1 }, 100);
    assert_eq!(tree.elements.len(), 8, "the heading and its depth-1 descendants");
    assert_eq!(perceive(PerceiveScope::Document { root: None, max_depth: 0 }, 100).elements.len(), 5);

    let found = block_on(
        browser.perceive(&TabCall::reading(&tab, &Gate::open()), &PerceiveInput::matching("PA", true, 10)),
    )
    .expect("found")
    .elements;
    assert_eq!(found.iter().filter_map(|e| e.name.as_deref()).collect::<Vec<_>>(), ["Password", "Pay"]);

    let read =
        |mode, max_chars| {
            block_on(browser.read_text(
                &TabCall::reading(&tab, &Gate::open()),
                &ReadInput { target: None, mode, max_chars },
            ))
        };
    assert_eq!(read(TextMode::ArticleOrVisible, 100).expect("read").text, "Big sale today");
    assert_eq!(read(TextMode::Visible, 7).map(|t| (t.text, t.truncated)), Ok(("Welcome".into(), true)));
}

#[test]
fn scrolling_geometry_and_keys() {
    let browser = shop();
    let tab = open(&browser, "https://shop.test/");
    let scroll =
        |input| block_on(browser.scroll(&TabCall::new(&tab, &Gate::open(), T), &input)).expect("scrolled");
    let down = scroll(ScrollInput::By { direction: ScrollDirection::Down, fraction: 0.5 });
    assert_eq!((down.scrolled, down.offset_y), (true, 400.0));
    assert!(!scroll(ScrollInput::By { direction: ScrollDirection::Left, fraction: 1.0 }).scrolled);
    assert_eq!(scroll(ScrollInput::Reveal(el(&browser, &tab, "Pay"))).offset_y, 280.0);
    let wheel = ScrollInput::Wheel { at: crate::port::Point { x: 1.0, y: 1.0 }, delta_y: 1e6 };
    assert_eq!(scroll(wheel).offset_y, 2200.0);

    assert_eq!(block_on(browser.set_zoom(&tab, 150)).expect("zoomed").zoom_percent, 150);
    let geometry = block_on(browser.resize_window(&tab, 800, 600)).expect("resized");
    assert_eq!((geometry.viewport_width, geometry.viewport_height, geometry.window_height), (800, 500, 600));

    let enter = KeyInput {
        keys: vec![Key::Named(NamedKey::Enter)],
        repeat: 1,
        modifiers: vec![],
        into: Some(el(&browser, &tab, "Pay")),
    };
    assert_eq!(
        block_on(browser.press_keys(&TabCall::new(&tab, &Gate::open(), T), &enter))
            .expect("pressed")
            .page
            .title,
        "Done"
    );
}

#[test]
fn uploads_recordings_and_diagnostics() {
    let problem = DiagnosticEntry {
        source: DiagnosticSource::Console,
        level: "error".into(),
        problem: true,
        text: Some("Boom happened".into()),
        method: None,
        status: None,
        url: None,
    };
    let request = DiagnosticEntry {
        source: DiagnosticSource::Network,
        level: "request".into(),
        problem: false,
        text: None,
        ..problem.clone()
    };
    let browser =
        shop().file("/tmp/a.txt", 3).directory("/tmp").diagnostic(problem.clone()).diagnostic(request);
    let tab = open(&browser, "https://shop.test/");

    let files = UploadFiles::Inline(vec![InlineFile { name: "b".into(), bytes: vec![1, 2] }]);
    let to_receipt = UploadInput { to: UploadDestination::Input(el(&browser, &tab, "Receipt")), files };
    assert_eq!(
        block_on(browser.upload(&TabCall::new(&tab, &Gate::open(), T), &to_receipt))
            .map(|u| (u.count, u.bytes)),
        Ok((1, 2))
    );
    let paths = UploadFiles::Paths(vec![PathBuf::from("/tmp/a.txt"), PathBuf::from("/tmp")]);
    let bad = UploadInput { to: UploadDestination::Input(el(&browser, &tab, "Receipt")), files: paths };
    assert_eq!(
        kind(block_on(browser.upload(&TabCall::new(&tab, &Gate::open(), T), &bad))),
        PortErrorKind::InvalidInput
    );
    let to_email = UploadInput { to: UploadDestination::Input(el(&browser, &tab, "Email")), ..to_receipt };
    assert_eq!(
        kind(block_on(browser.upload(&TabCall::new(&tab, &Gate::open(), T), &to_email))),
        PortErrorKind::InvalidInput
    );

    let started =
        block_on(browser.record(&RecordCommand::Start(tab.clone(), Gate::open()))).expect("started");
    assert_eq!(started.state, RecordingState::Recording);
    block_on(browser.sleep(Duration::from_secs(2)));
    let saved =
        block_on(browser.record(&RecordCommand::Save(started.recording.clone(), RecordDelivery::Client)))
            .expect("saved");
    assert_eq!((saved.state, saved.duration_ms), (RecordingState::Stopped, 2000));
    assert!(saved.gif.as_deref().is_some_and(|g| g.starts_with(b"GIF89a")));
    let discarded =
        block_on(browser.record(&RecordCommand::Discard(started.recording.clone()))).expect("discarded");
    assert_eq!(discarded.state, RecordingState::Discarded);
    let unknown = RecordCommand::Status(crate::port::RecordingRef::new("r99"));
    assert_eq!(kind(block_on(browser.record(&unknown))), PortErrorKind::InvalidInput);

    let query = |source, detail, pattern: Option<&str>, after: Option<&str>| DiagnosticsQuery {
        source,
        detail,
        pattern: pattern.map(str::to_owned),
        after: after.map(str::to_owned),
        limit: 1,
    };
    let page =
        block_on(browser.diagnostics(&tab, &query(DiagnoseSource::Both, DiagnoseDetail::All, None, None)))
            .expect("page");
    assert_eq!((page.entries, page.truncated, page.next_cursor.as_deref()), (vec![problem], true, Some("0")));
    let next = block_on(
        browser.diagnostics(&tab, &query(DiagnoseSource::Both, DiagnoseDetail::All, None, Some("0"))),
    )
    .expect("next");
    assert_eq!((next.entries.len(), next.truncated), (1, false));
    let none = query(DiagnoseSource::Network, DiagnoseDetail::Problems, Some("boom"), None);
    assert!(block_on(browser.diagnostics(&tab, &none)).expect("empty").entries.is_empty());
}
