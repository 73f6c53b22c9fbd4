//! One DOM semantics (`scripts/dom.js`), on both engines: a page served on 127.0.0.1 holds a
//! table of tricky elements, and for every row what perception reports (`perceive`, which
//! `browser_inspect` lists, and `find_text`, which `browser_find` ranks) agrees with what acting
//! on the element reports (the role and name of a hover's receipt, at the element and at its
//! centre point, and `element_present`), and both equal the row's expected visibility, role
//! token and accessible name.
//!
//! Visibility has four outcomes: shown (perceived, acted on), hidden (not perceived, not
//! present, and pointer input is refused as having no box), outside the accessibility tree
//! (`aria-hidden`: not perceived, but rendered, so present and acted on), and out of reach
//! (perceived, but placed where no scroll brings it into the viewport: pointer input is
//! refused as outside).

mod support;

use std::time::Duration;

use ghostlight_core::port::{
    BrowserPort, ElementRef, ElementSummary, Gate, HoverInput, PerceiveInput, PerceiveScope,
    PerceivedElement, PointerTarget, PortErrorKind, TabCall, TabRef,
};
use ghostlight_webdriver::{Engine, WebDriverBrowser};
use support::dom_table::{MAX_ITEMS, ROWS, Row, Shown, check_perception, expected, page, shadow_element};
use support::engines::{browser, scenario};
use support::port::{centre_of, open};
use support::server::Site;

const TIMEOUT: Duration = Duration::from_secs(15);

per_engine!(chromium, firefox => run);

async fn run(engine: Engine) {
    let site = Site::html(|path, _| match path {
        "/table" => (200, page()),
        _ => (404, String::new()),
    });
    let browser = browser(engine);
    scenario(engine, "perception_and_action_agree_on_every_row", every_row_agrees(&browser, &site)).await;
    browser.shutdown().await;
}

async fn every_row_agrees(b: &WebDriverBrowser, site: &Site) {
    let tab = open(b, site, "/table").await;
    let input = PerceiveInput { scope: PerceiveScope::All, max_items: MAX_ITEMS };
    let perceived = b.perceive(&TabCall::reading(&tab, &Gate::open()), &input).await.expect("perceive");
    assert!(!perceived.truncated, "the whole table is perceived");
    let mut failures = Vec::new();
    for row in ROWS {
        if let Err(why) = check(b, &tab, row, &perceived.elements).await {
            failures.push(format!("{}: {why}", row.id));
        }
    }
    assert!(failures.is_empty(), "rows that disagree:\n{}", failures.join("\n"));
    b.close_tab(&tab).await.expect("close");
}

/// Check one row against every report; answers what disagreed.
async fn check(
    b: &WebDriverBrowser,
    tab: &TabRef,
    row: &Row,
    perceived: &[PerceivedElement],
) -> Result<(), String> {
    // The element's reference: perception's for the shadow root's button (CSS does not reach
    // into it), the driver's own lookup for every other row.
    let element = if row.shadow {
        shadow_element(row, perceived)?
    } else {
        b.testing_element(tab, &[], &format!("#{}", row.id)).await.map_err(|e| format!("no element: {e}"))?
    };
    check_perception(b, tab, row, &element, perceived).await?;
    act(b, tab, row, &element, &expected(row)).await
}

/// Hover the element (and, when that lands, the point at its centre): the receipts name what
/// perception named, or the refusal fits how the row is shown.
async fn act(
    b: &WebDriverBrowser,
    tab: &TabRef,
    row: &Row,
    element: &ElementRef,
    want: &ElementSummary,
) -> Result<(), String> {
    let hovered = b
        .hover(
            &TabCall::new(tab, &Gate::open(), TIMEOUT),
            &HoverInput { at: PointerTarget::Element(element.clone()), modifiers: Vec::new() },
        )
        .await;
    match (row.shown, hovered) {
        (Shown::Yes | Shown::OutOfTree, Ok(receipt)) if receipt.element.as_ref() == Some(want) => {}
        (Shown::Yes | Shown::OutOfTree, Ok(receipt)) => {
            return Err(format!("hovering it reported {:?}, expected {want:?}", receipt.element));
        }
        (Shown::Hidden | Shown::OutOfReach, Err(e)) if e.kind() == PortErrorKind::InvalidInput => {
            return Ok(());
        }
        (_, Err(e)) => return Err(format!("hovering it failed: {:?} {e}", e.kind())),
        (_, Ok(receipt)) => {
            return Err(format!("hovering it succeeded ({:?}), expected a refusal", receipt.element));
        }
    }
    // The hover scrolled the element into view: a point at its centre lands on it.
    let expression = if row.shadow {
        format!("document.getElementById('host').shadowRoot.getElementById('{}')", row.id)
    } else {
        format!("document.getElementById('{}')", row.id)
    };
    let at = centre_of(b, tab, &expression).await;
    let receipt = b
        .hover(
            &TabCall::new(tab, &Gate::open(), TIMEOUT),
            &HoverInput { at: PointerTarget::Point(at), modifiers: Vec::new() },
        )
        .await
        .map_err(|e| format!("hovering its centre failed: {e}"))?;
    if receipt.element.as_ref() != Some(want) {
        return Err(format!("hovering its centre reported {:?}, expected {want:?}", receipt.element));
    }
    Ok(())
}
