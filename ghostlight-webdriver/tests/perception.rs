//! Perception and reading against real headless browsers: `perceive`, `find_text`,
//! `read_text`, `focused_element`, `element_present`, `text_present`, one browser per
//! engine shared by the scenarios; plus one end-to-end run through core's executor.

mod support;

use std::time::{Duration, Instant};

use ghostlight_core::Ghostlight;
use ghostlight_core::port::CredentialClass;
use ghostlight_core::port::{
    BrowserPort, ElementRef, ElementState, Gate, PerceiveInput, PerceiveScope, PerceivedElement, Perception,
    ReadInput, TabCall, TabRef, TextMode,
};
use ghostlight_webdriver::{Engine, WebDriverBrowser};
use serde_json::{Value, json};
use support::engines::{browser, scenario};
use support::port::{eval, go, open};
use support::server::Site;
use support::sites::perception::{self, MANY_CONTROLS};
use support::tools;

const TIMEOUT: Duration = Duration::from_secs(20);
const SECRET: &str = "SECRETVALUE42";
/// How often each timed perception runs (the median is printed; nothing is asserted).
const TIMING_RUNS: usize = 5;

per_engine!(chromium, firefox => run);

per_engine!(chromium_end_to_end_through_core, firefox_end_to_end_through_core => end_to_end);

async fn run(engine: Engine) {
    let site = perception::start();
    let browser = browser(engine);
    let (b, site) = (&*browser, &site);
    scenario(engine, "roles_and_names", roles_and_names(b, site)).await;
    scenario(engine, "editable_values_are_never_names", values_never_named(b, site)).await;
    scenario(engine, "states", states(b, site)).await;
    scenario(engine, "credential_classes", credential_classes(b, site)).await;
    scenario(engine, "hidden_excluded_shadow_and_frames_included", hidden_shadow_frames(b, site)).await;
    scenario(engine, "nested_frames_in_document_order_and_capped", nested_frames(b, site)).await;
    scenario(engine, "structure_and_document_tree", structure_and_document(b, site)).await;
    scenario(engine, "many_controls_timing", many_controls(b, site, engine)).await;
    scenario(engine, "read_article_visible_target", read_article(b, site)).await;
    scenario(engine, "find_text", find_text(b, site)).await;
    scenario(engine, "focused_element", focused(b, site)).await;
    scenario(engine, "element_present", element_present(b, site)).await;
    scenario(engine, "text_present", text_present(b, site)).await;
    scenario(engine, "aria_hidden_excluded_and_aria_label_found", aria(b, site)).await;
    scenario(engine, "one_dom_semantics_of_shown", shown_table(b, site)).await;
    browser.shutdown().await;
}

/// Rows of an inspect/find fact as objects keyed by the envelope's `columns` fact.
fn rows(envelope: &ghostlight_core::Envelope, key: &str) -> Vec<serde_json::Value> {
    let columns = envelope.facts["columns"].as_array().expect("a columns fact").clone();
    let rows = envelope.facts[key].as_array().expect("rows").clone();
    rows.iter()
        .map(|row| {
            let cells = row.as_array().expect("a row is an array");
            let object: serde_json::Map<String, serde_json::Value> = columns
                .iter()
                .zip(cells)
                .filter_map(|(column, cell)| Some((column.as_str()?.to_owned(), cell.clone())))
                .collect();
            serde_json::Value::Object(object)
        })
        .collect()
}

// ---- helpers --------------------------------------------------------------------------------

async fn perceive(b: &WebDriverBrowser, tab: &TabRef, scope: PerceiveScope, max_items: usize) -> Perception {
    b.perceive(&TabCall::reading(tab, &Gate::open()), &PerceiveInput { scope, max_items })
        .await
        .expect("perceive")
}

/// Elements whose name or visible text contains `text` (a `Matching` perception).
async fn find(
    b: &WebDriverBrowser,
    tab: &TabRef,
    text: &str,
    controls_only: bool,
    max: usize,
) -> Vec<PerceivedElement> {
    perceive(b, tab, PerceiveScope::Matching { text: text.to_owned(), controls_only }, max).await.elements
}

fn names(elements: &[PerceivedElement]) -> Vec<&str> {
    elements.iter().map(|e| e.name.as_deref().unwrap_or("")).collect()
}

fn named<'a>(elements: &'a [PerceivedElement], name: &str) -> &'a PerceivedElement {
    let found: Vec<_> = elements.iter().filter(|e| e.name.as_deref() == Some(name)).collect();
    assert_eq!(found.len(), 1, "exactly one element named {name:?} in {:?}", names(elements));
    found[0]
}

fn absent(elements: &[PerceivedElement], name: &str) {
    assert!(
        elements.iter().all(|e| e.name.as_deref() != Some(name)),
        "{name:?} must not be perceived: {:?}",
        names(elements)
    );
}

fn role_of(elements: &[PerceivedElement], name: &str) -> String {
    named(elements, name).role.clone()
}

async fn read(b: &WebDriverBrowser, tab: &TabRef, mode: TextMode, max_chars: usize) -> (String, bool) {
    let outcome = b
        .read_text(&TabCall::reading(tab, &Gate::open()), &ReadInput { target: None, mode, max_chars })
        .await
        .expect("read_text");
    (outcome.text, outcome.truncated)
}

async fn read_target(b: &WebDriverBrowser, tab: &TabRef, target: &ElementRef) -> String {
    let input =
        ReadInput { target: Some(target.clone()), mode: TextMode::ArticleOrVisible, max_chars: 8_000 };
    b.read_text(&TabCall::reading(tab, &Gate::open()), &input).await.expect("read_text target").text
}

// ---- scenarios ------------------------------------------------------------------------------

async fn roles_and_names(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/controls").await;
    let p = perceive(b, &tab, PerceiveScope::Controls, 200).await;
    let e = &p.elements;
    assert!(!p.truncated);
    for (name, role) in [
        ("Email address", "textbox"),
        ("Search the catalog", "searchbox"),
        ("Only placeholder", "textbox"),
        ("Title name", "textbox"),
        ("Nested label", "textbox"),
        ("Biography", "textbox"),
        ("Editor", "textbox"),
        ("Save", "button"),
        ("Send it", "button"),
        ("Submit", "button"),
        ("Go home", "link"),
        ("Logo image", "link"),
        ("Close dialog", "button"),
        ("Country", "combobox"),
        ("Custom", "button"),
        ("Dark mode", "switch"),
        ("Volume", "slider"),
        ("Quantity", "spinbutton"),
        ("Agree", "checkbox"),
        // A card the page made draggable is a control, named by its label (core says "control").
        ("Task card", "generic"),
    ] {
        assert_eq!(role_of(e, name), role, "role of {name:?}");
        assert!(named(e, name).control, "{name:?} is a control");
    }
    // aria-labelledby wins over the placeholder; a title wins over the placeholder.
    absent(e, "Type here");
    absent(e, "Placeholder name");
    absent(e, "you@example.com");
    // Visible text that differs from the name is kept for ranking.
    assert_eq!(named(e, "Close dialog").text.as_deref(), Some("X"));
    assert_eq!(named(e, "Save").text, None, "text equal to the name is left out");
    // Controls scope holds no structure.
    absent(e, "Controls");
    assert!(e.iter().all(|el| el.control && el.depth.is_none()));
}

async fn values_never_named(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/controls").await;
    let script = format!(
        "for (const el of document.querySelectorAll('input, textarea')) {{ \
           const t = (el.getAttribute('type') || 'text').toLowerCase(); \
           if (['checkbox','radio','submit','button','range','number','hidden'].includes(t)) continue; \
           el.value = '{SECRET}'; }} \
         document.getElementById('editor').textContent = '{SECRET}'; \
         document.getElementById('same').contentDocument.getElementById('ff').value = '{SECRET}'; \
         document.getElementById('host').shadowRoot.getElementById('sb').setAttribute('data-x', '{SECRET}'); 1"
    );
    eval(b, &tab, &script).await;
    let p = perceive(b, &tab, PerceiveScope::All, 500).await;
    assert!(p.elements.len() > 30, "the page was perceived: {:?}", names(&p.elements));
    for element in &p.elements {
        for field in [element.name.as_deref(), element.text.as_deref()].into_iter().flatten() {
            assert!(!field.contains(SECRET), "an editable value leaked into {:?}: {field:?}", element.role);
        }
    }
    // The filled fields keep their label names.
    assert_eq!(role_of(&p.elements, "Email address"), "textbox");
    assert_eq!(role_of(&p.elements, "Only placeholder"), "textbox");
    let found = find(b, &tab, SECRET, false, 50).await;
    assert!(found.is_empty(), "a value is not findable text: {:?}", names(&found));
}

async fn states(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/controls").await;
    eval(b, &tab, "document.getElementById('save').focus(); 1").await;
    let p = perceive(b, &tab, PerceiveScope::Controls, 200).await;
    let e = &p.elements;
    for (name, state) in [
        ("Disabled button", ElementState::Disabled),
        ("Agree", ElementState::Checked),
        ("Dark mode", ElementState::Checked),
        ("Menu", ElementState::Expanded),
        ("Required field", ElementState::Required),
        ("Bad field", ElementState::Invalid),
        ("Save", ElementState::Focused),
    ] {
        assert_eq!(named(e, name).states, vec![state], "states of {name:?}");
    }
    assert!(named(e, "Go home").states.is_empty(), "default states are absent");
    let focused = e.iter().filter(|el| el.states.contains(&ElementState::Focused)).count();
    assert_eq!(focused, 1, "one element has focus");
}

async fn credential_classes(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/controls").await;
    let p = perceive(b, &tab, PerceiveScope::Controls, 200).await;
    let e = &p.elements;
    for (name, class) in [
        ("Your password", Some(CredentialClass::Password)),
        ("Code", Some(CredentialClass::OneTimeCode)),
        ("Card", Some(CredentialClass::PaymentCard)),
        ("Check digits", Some(CredentialClass::PaymentCard)),
        ("Choose one", Some(CredentialClass::Password)),
        ("Your PIN", Some(CredentialClass::Password)),
        ("Enter code", Some(CredentialClass::OneTimeCode)),
        ("Security", Some(CredentialClass::PaymentCard)),
        ("Passport number", None),
        ("Email address", None),
        ("Save", None),
    ] {
        assert_eq!(named(e, name).credential, class, "credential class of {name:?}");
    }
    assert_eq!(role_of(e, "Your password"), "textbox");
}

async fn hidden_shadow_frames(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/controls").await;
    let p = perceive(b, &tab, PerceiveScope::Controls, 200).await;
    let e = &p.elements;
    for hidden in ["Hidden one", "Hidden two", "Hidden three"] {
        absent(e, hidden);
    }
    assert_eq!(role_of(e, "Shadow button"), "button");
    // Frames' controls are included, same-origin and cross-origin alike, in document order
    // (the gate admits every document here).
    let order = names(e);
    let at =
        |name: &str| order.iter().position(|n| *n == name).unwrap_or_else(|| panic!("{name:?} in {order:?}"));
    assert!(at("Shadow button") < at("Frame button"));
    assert!(at("Frame button") < at("Frame field"));
    assert!(at("Frame field") < at("Cross button"));
    assert!(at("Cross button") < at("Last button"));
    // A gate refusing the cross-origin frame's host keeps its controls out.
    let same_host_only = Gate::new(|url| url.host_str() != Some("localhost"));
    let gated = b
        .perceive(
            &TabCall::reading(&tab, &same_host_only),
            &PerceiveInput { scope: PerceiveScope::Controls, max_items: 200 },
        )
        .await
        .expect("perceive through a gate");
    named(&gated.elements, "Frame button");
    absent(&gated.elements, "Cross button");
    absent(&gated.elements, "Cross password");
    // The frame element's reference works: it switches into the frame.
    let frame_button = named(e, "Frame button").element.clone();
    assert!(b.element_present(&tab, &frame_button).await.expect("present in frame"));
    let shadow_button = named(e, "Shadow button").element.clone();
    assert!(b.element_present(&tab, &shadow_button).await.expect("present in shadow root"));
    // And back at the top document afterwards.
    let save = named(e, "Save").element.clone();
    assert!(b.element_present(&tab, &save).await.expect("present at top"));
}

async fn nested_frames(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/nested").await;
    let p = perceive(b, &tab, PerceiveScope::Controls, 50).await;
    assert_eq!(names(&p.elements), vec!["Top", "Mid", "Frame button", "Frame field", "After"]);
    assert!(!p.truncated);
    let deep = named(&p.elements, "Frame field").element.clone();
    assert!(b.element_present(&tab, &deep).await.expect("present two frames down"));
    let capped = perceive(b, &tab, PerceiveScope::Controls, 3).await;
    assert_eq!(names(&capped.elements), vec!["Top", "Mid", "Frame button"]);
    assert!(capped.truncated, "the cap holds across frames");
}

async fn structure_and_document(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/structure").await;
    let p = perceive(b, &tab, PerceiveScope::Structure, 200).await;
    let e = &p.elements;
    for (name, role) in [
        ("Primary", "navigation"),
        ("Main title", "heading"),
        ("Details region", "region"),
        ("Prices", "table"),
        ("Deep heading", "heading"),
        ("Chart", "img"),
        ("Sidebar", "complementary"),
    ] {
        assert_eq!(role_of(e, name), role, "role of {name:?}");
        assert!(!named(e, name).control);
    }
    let roles: Vec<&str> = e.iter().map(|el| el.role.as_str()).collect();
    for role in ["banner", "main", "list", "contentinfo"] {
        assert!(roles.contains(&role), "{role} in {roles:?}");
    }
    absent(e, "Hidden heading");
    absent(e, "Act");
    assert!(e.iter().all(|el| !el.control));

    let all = perceive(b, &tab, PerceiveScope::All, 200).await;
    assert!(all.elements.iter().any(|el| el.name.as_deref() == Some("Act") && el.control));
    assert!(all.elements.iter().any(|el| el.name.as_deref() == Some("Main title") && !el.control));

    let tree = perceive(b, &tab, PerceiveScope::Document { root: None, max_depth: 12 }, 200).await;
    let depth = |name: &str| named(&tree.elements, name).depth;
    assert_eq!(depth("Primary"), Some(1));
    assert_eq!(depth("Main title"), Some(2));
    assert_eq!(depth("Details region"), Some(2));
    assert_eq!(depth("Prices"), Some(3));
    assert_eq!(depth("Deep heading"), Some(4));
    assert_eq!(depth("Sidebar"), Some(1));
    assert!(tree.elements.iter().all(|el| !el.control && el.depth.is_some()));
    absent(&tree.elements, "Alpha");

    let shallow = perceive(b, &tab, PerceiveScope::Document { root: None, max_depth: 1 }, 200).await;
    assert!(shallow.elements.iter().all(|el| el.depth == Some(1)));
    let shallow_roles: Vec<&str> = shallow.elements.iter().map(|el| el.role.as_str()).collect();
    assert_eq!(shallow_roles, vec!["banner", "navigation", "main", "complementary", "contentinfo"]);

    // A subtree root inside a frame: the pass runs in the root's frame.
    let controls = open(b, site, "/controls").await;
    let paragraph = find(b, &controls, "frame paragraph", false, 10).await;
    assert_eq!(paragraph.len(), 1);
    let root = Some(paragraph[0].element.clone());
    let framed = perceive(b, &controls, PerceiveScope::Document { root, max_depth: 3 }, 20).await;
    let framed: Vec<(&str, Option<u32>)> =
        framed.elements.iter().map(|el| (el.role.as_str(), el.depth)).collect();
    assert_eq!(framed, vec![("paragraph", Some(0))]);

    let root = named(&tree.elements, "Details region").element.clone();
    let sub = perceive(b, &tab, PerceiveScope::Document { root: Some(root), max_depth: 12 }, 200).await;
    let sub_depths: Vec<(&str, Option<u32>)> =
        sub.elements.iter().map(|el| (el.name.as_deref().unwrap_or(el.role.as_str()), el.depth)).collect();
    assert_eq!(
        sub_depths,
        vec![
            ("Details region", Some(0)),
            ("Details", Some(1)),
            ("list", Some(1)),
            ("Prices", Some(1)),
            ("Inner region", Some(1)),
            ("Deep heading", Some(2)),
        ]
    );
}

async fn many_controls(b: &WebDriverBrowser, site: &Site, engine: Engine) {
    let tab = open(b, site, "/many").await;
    // Warm up once (script compilation, first style and layout pass).
    perceive(b, &tab, PerceiveScope::Controls, 10).await;
    for max in [80, 200, 1_000] {
        let mut times = Vec::new();
        for _ in 0..TIMING_RUNS {
            let started = Instant::now();
            let p = perceive(b, &tab, PerceiveScope::Controls, max).await;
            times.push(started.elapsed().as_millis());
            assert_eq!(p.elements.len(), max.min(MANY_CONTROLS));
            assert_eq!(p.truncated, max < MANY_CONTROLS);
        }
        times.sort_unstable();
        eprintln!(
            "[{}] TIMING perceive controls max_items={max} on {MANY_CONTROLS} controls: {} items; \
             min {} ms, median {} ms, max {} ms over {TIMING_RUNS} runs",
            engine.as_str(),
            max.min(MANY_CONTROLS),
            times[0],
            times[times.len() / 2],
            times[times.len() - 1],
        );
    }
    let started = Instant::now();
    let found = find(b, &tab, "Button 4", false, 200).await;
    eprintln!(
        "[{}] TIMING find_text on {MANY_CONTROLS} controls: {} matches, {} ms",
        engine.as_str(),
        found.len(),
        started.elapsed().as_millis()
    );
    // Every tenth control is a button: "Button 40" and "Button 400".."Button 490".
    assert_eq!(found.len(), 11, "{:?}", names(&found));
}

async fn read_article(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/article").await;
    let noise = [
        "NAVLINK",
        "NAVBRAND",
        "BANNERAD",
        "ADVERT",
        "SIDEBAR",
        "FORMTEXT",
        "FOOTERTEXT",
        "ARTICLEFOOTER",
        "HIDDENTEXT",
    ];
    for mode in [TextMode::Article, TextMode::ArticleOrVisible] {
        let (text, truncated) = read(b, &tab, mode, 8_000).await;
        assert!(!truncated, "{mode:?}");
        for wanted in [
            "Lighthouse keepers return to the northern coast",
            "For the first time in forty years",
            "The new keeper, a retired ferry engineer",
            "the light will not go out",
        ] {
            assert!(text.contains(wanted), "{mode:?} text has {wanted:?}: {text}");
        }
        for unwanted in noise {
            assert!(!text.contains(unwanted), "{mode:?} text must not have {unwanted:?}: {text}");
        }
        assert!(!text.contains("  "), "whitespace is normalized");
    }
    let (visible, _) = read(b, &tab, TextMode::Visible, 50_000).await;
    assert!(visible.contains("NAVLINK Home") && visible.contains("FOOTERTEXT"));
    assert!(visible.contains("For the first time in forty years"));
    assert!(!visible.contains("HIDDENTEXT"), "hidden text is not visible text");

    let (bounded, truncated) = read(b, &tab, TextMode::Article, 100).await;
    assert!(truncated);
    assert_eq!(bounded.chars().count(), 100);

    let short = open(b, site, "/short").await;
    let (fallback, _) = read(b, &short, TextMode::ArticleOrVisible, 8_000).await;
    assert!(fallback.contains("Just a short note.") && fallback.contains("Home"), "{fallback}");

    // A target's own text, also inside a frame.
    let controls = open(b, site, "/controls").await;
    let found = find(b, &controls, "frame paragraph", false, 10).await;
    assert_eq!(found.len(), 1, "{:?}", names(&found));
    assert_eq!(read_target(b, &controls, &found[0].element).await, "Frame paragraph text");
    let structure = open(b, site, "/structure").await;
    let p = perceive(b, &structure, PerceiveScope::Structure, 200).await;
    let region = read_target(b, &structure, &named(&p.elements, "Details region").element).await;
    assert!(region.starts_with("Details\n") && region.contains("Prices") && region.contains("Deep heading"));
    assert!(!region.contains("Main title"));
}

async fn find_text(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/find").await;
    let found = find(b, &tab, "submit", false, 50).await;
    let summary: Vec<(String, bool, String)> = found
        .iter()
        .map(|e| (e.role.clone(), e.control, e.name.clone().or_else(|| e.text.clone()).unwrap_or_default()))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("paragraph".to_owned(), false, "Please submit the form before noon.".to_owned()),
            ("button".to_owned(), true, "Submit".to_owned()),
            ("button".to_owned(), true, "Submit order".to_owned()),
        ]
    );
    let controls = find(b, &tab, "submit", true, 50).await;
    assert_eq!(names(&controls), vec!["Submit", "Submit order"]);
    let capped = find(b, &tab, "submit", false, 2).await;
    assert_eq!(capped.len(), 2);

    let upper = find(b, &tab, "SUBMIT  ORDER", true, 50).await;
    assert_eq!(names(&upper), vec!["Submit order"]);

    let help = find(b, &tab, "help", false, 50).await;
    assert_eq!(help.len(), 1);
    assert_eq!(
        (help[0].role.as_str(), help[0].name.as_deref(), help[0].text.as_deref()),
        ("link", Some("Help center"), Some("?"))
    );

    let deep = find(b, &tab, "deep inside", false, 50).await;
    assert_eq!(deep.len(), 1, "{:?}", names(&deep));
    assert_eq!(deep[0].text.as_deref().or(deep[0].name.as_deref()), Some("deep inside"));
    assert!(!deep[0].control);

    let cell = find(b, &tab, "cell alpha", false, 50).await;
    assert_eq!(cell.len(), 1);
    assert_eq!(cell[0].role, "cell");

    let label = find(b, &tab, "name label", false, 50).await;
    let kinds: Vec<(bool, &str)> = label.iter().map(|e| (e.control, e.role.as_str())).collect();
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    assert!(kinds.contains(&(true, "textbox")) && kinds.iter().any(|(control, _)| !control));

    let heading = find(b, &tab, "submission", false, 50).await;
    assert_eq!((heading.len(), heading[0].role.as_str()), (1, "heading"));
    assert!(find(b, &tab, "not on this page", false, 50).await.is_empty());
}

async fn focused(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/controls").await;
    assert_eq!(b.focused_element(&tab).await.expect("nothing focused"), None);

    eval(b, &tab, "document.getElementById('email').focus(); 1").await;
    let focused = b.focused_element(&tab).await.expect("focused").expect("an element has focus");
    assert!(focused.frames.is_empty(), "in the page's own document");
    let email = focused.element;
    assert_eq!((email.role.as_str(), email.name.as_deref()), ("textbox", Some("Email address")));
    assert!(email.states.contains(&ElementState::Focused) && email.control);

    eval(b, &tab, "document.querySelector('input[type=password]').focus(); 1").await;
    let password = b.focused_element(&tab).await.expect("focused").expect("password focused").element;
    assert_eq!(password.credential, Some(CredentialClass::Password));

    eval(b, &tab, "document.getElementById('host').shadowRoot.getElementById('sb').focus(); 1").await;
    let shadow = b.focused_element(&tab).await.expect("focused").expect("shadow focused").element;
    assert_eq!(shadow.name.as_deref(), Some("Shadow button"));

    eval(b, &tab, "document.getElementById('same').contentDocument.getElementById('fb').focus(); 1").await;
    let focused = b.focused_element(&tab).await.expect("focused").expect("frame focused");
    assert_eq!(focused.frames.len(), 1, "one frame deep: {:?}", focused.frames);
    assert_eq!(focused.frames[0].host_str(), site.url("/").host_str(), "a same-origin frame");
    let in_frame = focused.element;
    assert_eq!((in_frame.role.as_str(), in_frame.name.as_deref()), ("button", Some("Frame button")));
    assert!(b.element_present(&tab, &in_frame.element).await.expect("its ref switches frames"));

    eval(b, &tab, "document.getElementById('same').contentDocument.activeElement.blur(); document.activeElement.blur(); 1").await;
    assert_eq!(b.focused_element(&tab).await.expect("blurred"), None);

    // Focus inside a cross-origin frame is still described (the credential preflight needs
    // it): a real click on the iframe lands on the password field filling its centre.
    b.testing_click(&tab, "#cross").await.expect("a click into the cross-origin frame");
    // Where the click lands on the frame but not on the field, the frame's own focus handler
    // moves focus to the field a moment later: read until it has (bounded).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let focused = loop {
        let focused = b.focused_element(&tab).await.expect("focused").expect("cross-origin focus");
        if focused.element.name.is_some() || std::time::Instant::now() > deadline {
            break focused;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(focused.frames.len(), 1, "{:?}", focused.frames);
    assert_eq!(focused.frames[0].host_str(), Some("localhost"), "the frame's own origin is reported");
    let cross = focused.element;
    assert_eq!(cross.name.as_deref(), Some("Cross password"));
    assert_eq!(cross.credential, Some(CredentialClass::Password));
    assert!(b.element_present(&tab, &cross.element).await.expect("its ref switches frames"));
}

async fn element_present(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/controls").await;
    let p = perceive(b, &tab, PerceiveScope::Controls, 200).await;
    let save = named(&p.elements, "Save").element.clone();
    let last = named(&p.elements, "Last button").element.clone();
    let frame_button = named(&p.elements, "Frame button").element.clone();
    assert!(b.element_present(&tab, &save).await.expect("present"));

    eval(b, &tab, "document.getElementById('save').style.display = 'none'; 1").await;
    assert!(!b.element_present(&tab, &save).await.expect("hidden"), "a hidden element is not present");
    eval(b, &tab, "document.getElementById('save').remove(); 1").await;
    assert!(!b.element_present(&tab, &save).await.expect("detached"), "a detached element is not present");

    eval(b, &tab, "document.getElementById('same').remove(); 1").await;
    assert!(!b.element_present(&tab, &frame_button).await.expect("frame gone"), "its frame is gone");
    assert!(b.element_present(&tab, &last).await.expect("still there"));

    b.navigate(&TabCall::new(&tab, &Gate::open(), TIMEOUT), &go(site.url("/find"))).await.expect("navigate");
    assert!(!b.element_present(&tab, &last).await.expect("document gone"), "a stale ref is not present");

    let other = open(b, site, "/find").await;
    assert!(
        !b.element_present(&other, &last).await.expect("other tab"),
        "a ref of another tab is not present"
    );
}

async fn text_present(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/text").await;
    for (text, expected) in support::sites::perception::TEXT_CASES {
        assert_eq!(
            b.text_present(&TabCall::reading(&tab, &Gate::open()), text).await.expect("text_present"),
            expected,
            "{text:?}"
        );
    }
}

/// The accessibility tree decides: `aria-hidden="true"` subtrees are neither perceived, found,
/// read nor awaited (issue 15); a role-less element named by `aria-label` is found by name.
async fn aria(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/aria").await;
    let all = perceive(b, &tab, PerceiveScope::All, 200).await;
    for ghost in ["Ghost button", "Ghost link", "Frame button"] {
        absent(&all.elements, ghost);
    }
    assert_eq!(role_of(&all.elements, "Save"), "button", "an aria-hidden glyph is not part of a name");

    for (query, expected) in [
        ("Close the banner", vec!["Close the banner"]),
        ("Ghost", vec![]),
        ("Hidden paragraph", vec![]),
        ("decorative", vec![]),
        ("starglyph", vec![]),
        ("frame paragraph", vec![]),
        ("Shadow ghost", vec![]),
    ] {
        let found = find(b, &tab, query, false, 20).await;
        assert_eq!(names(&found), expected, "find {query:?}");
    }
    for (query, expected) in [("Shown words end", 1), ("Shown words decorative", 0)] {
        let found = find(b, &tab, query, false, 20).await;
        assert_eq!(found.len(), expected, "find {query:?}: {:?}", names(&found));
    }
    // Controls only: a named element without a control role is not a control.
    let controls = find(b, &tab, "Close the banner", true, 20).await;
    assert!(controls.is_empty(), "{:?}", names(&controls));

    let (text, _) = read(b, &tab, TextMode::Visible, 10_000).await;
    assert!(text.contains("Shown words end here."), "{text:?}");
    assert!(text.contains("Shadow shown words") || !text.contains("Shadow"), "{text:?}");
    for hidden in ["decorative", "Ghost", "Hidden paragraph", "starglyph", "frame paragraph"] {
        assert!(!text.contains(hidden), "{hidden:?} read: {text:?}");
    }
    for (text, expected) in [
        ("Shown words end here", true),
        ("Shadow shown words", true),
        ("decorative glyphs", false),
        ("Hidden paragraph words", false),
        ("Shadow ghost words", false),
        ("frame paragraph", false),
    ] {
        assert_eq!(
            b.text_present(&TabCall::reading(&tab, &Gate::open()), text).await.expect("text_present"),
            expected,
            "{text:?}"
        );
    }
}

/// One definition of "shown" (`scripts/dom.js`) serves perception, reading, text presence
/// and element presence: over a table of tricky elements, every control named "Shown …" is
/// perceived, present and read, and every one named "Hidden …" is none of these (but for a
/// zero-size box: not perceived, its clipped text still read, as the accessibility tree has it).
async fn shown_table(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/shown").await;
    let p = perceive(b, &tab, PerceiveScope::Controls, 200).await;
    let perceived = names(&p.elements);
    let (text, _) = read(b, &tab, TextMode::Visible, 20_000).await;
    let expected_shown = [
        "Shown plain",
        "Shown off screen",
        "Shown transparent",
        "Shown summary",
        "Shown labelled field",
        "Shown labelled by",
        "Shown below the fold",
        "Shown in shadow",
    ];
    let expected_hidden = [
        "Hidden display none ancestor",
        "Hidden visibility",
        "Hidden inert",
        "Hidden aria",
        "Hidden closed details",
    ];
    for name in expected_shown {
        assert!(perceived.contains(&name), "{name:?} is perceived: {perceived:?}");
        let element = named(&p.elements, name).element.clone();
        assert!(b.element_present(&tab, &element).await.expect("element_present"), "{name:?} is present");
        let found = b.text_present(&TabCall::reading(&tab, &Gate::open()), name).await.expect("text_present");
        // Field names come from labels, which are shown text themselves.
        assert!(found, "{name:?} is shown text");
    }
    for name in expected_hidden {
        assert!(!perceived.contains(&name), "{name:?} is not perceived: {perceived:?}");
        assert!(!text.contains(name), "{name:?} is not read: {text:?}");
        assert!(
            !b.text_present(&TabCall::reading(&tab, &Gate::open()), name).await.expect("text_present"),
            "{name:?} not shown"
        );
    }
}

// ---- end to end through core ----------------------------------------------------------------

async fn end_to_end(engine: Engine) {
    let site = perception::start();
    let browser = browser(engine);
    let ghostlight = Ghostlight::new(browser.clone());
    let call = |tool: &'static str, args: Value| tools::ok(&ghostlight, tool, args);
    scenario(engine, "end_to_end_navigate_inspect_find_read", async {
        let navigated = call("browser_navigate", json!({ "url": site.url("/e2e").as_str() })).await;
        let tab = navigated.facts["tab"].as_str().expect("a tab fact").to_owned();

        let inspected = call("browser_inspect", json!({})).await;
        assert_eq!(inspected.facts["tab"], json!(tab));
        let items = rows(&inspected, "items");
        let item = |name: &str| {
            items.iter().find(|i| i["name"] == json!(name)).unwrap_or_else(|| panic!("{name} in {items:?}"))
        };
        assert_eq!(item("Email")["role"], "textbox");
        assert_eq!(item("Password")["credential"], json!(true));
        assert_eq!(item("Save settings")["role"], "button");
        assert!(item("Home")["target"].as_str().is_some_and(|t| t.starts_with("target_")));

        let found = call("browser_find", json!({ "text": "save" })).await;
        let matches = rows(&found, "matches");
        assert_eq!(matches[0]["name"], "Save settings");
        assert_eq!(matches[0]["role"], "button");

        let read = call("browser_read", json!({})).await;
        let text = read.facts["text"].as_str().expect("text");
        assert!(text.contains("Release notes") && text.contains("the inspector smaller"), "{text}");
        assert!(!text.contains("Footer text") && !text.contains("About"), "{text}");
        assert_eq!(read.facts["truncated"], json!(false));

        // The size of an inspect envelope per control, as an MCP text block carries it.
        call("browser_navigate", json!({ "url": site.url("/many").as_str(), "tab": tab })).await;
        let many = call("browser_inspect", json!({ "max_items": 200 })).await;
        let n = many.facts["items"].as_array().map_or(0, Vec::len);
        assert_eq!(n, 200);
        let text_block = |envelope: &ghostlight_core::Envelope| {
            let json = serde_json::to_string(envelope).expect("the envelope serializes");
            format!("{}\n{}\n{json}", envelope.summary, envelope.next_steps.join("\n")).len()
        };
        let full = text_block(&many);
        let mut empty = many.clone();
        empty.facts.insert("items".into(), json!([]));
        let per_control = (full - text_block(&empty)) as f64 / n as f64;
        eprintln!(
            "[{}] SIZE inspect of {n} controls: text block {full} bytes, {per_control:.1} bytes per control \
             (example item {})",
            engine.as_str(),
            many.facts["items"][0]
        );
    })
    .await;
    browser.shutdown().await;
}
