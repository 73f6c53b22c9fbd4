//! The DOM semantics table (`scripts/dom.js`): tricky elements, each with the visibility, role
//! token and accessible name every report must give, and the perception half of the check
//! (`perceive`, `find_text`, `element_present`) against any [`BrowserPort`]. The WebDriver
//! suite (`tests/dom_semantics.rs`, which also acts on every row) and the extension
//! connector's suite (`ghostlight-extension/tests/browsers.rs`, by path) run the same rows.
//!
//! Visibility has four outcomes: shown (perceived, acted on), hidden (not perceived, not
//! present, and pointer input is refused as having no box), outside the accessibility tree
//! (`aria-hidden`: not perceived, but rendered, so present and acted on), and out of reach
//! (perceived, but placed where no scroll brings it into the viewport: pointer input is
//! refused as outside).

use ghostlight_core::port::{
    BrowserPort, ElementRef, ElementSummary, Gate, PerceiveInput, PerceivedElement, TabCall, TabRef,
};

/// More than the page's elements: perception is never cut short here.
pub(crate) const MAX_ITEMS: usize = 500;
/// A 1×1 transparent GIF, for images that must render without the network.
const PIXEL: &str = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";

/// How a row's element is shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Shown {
    /// Perceived, present, and acted on.
    Yes,
    /// Not perceived, not present; pointer input refused (no box).
    Hidden,
    /// Outside the accessibility tree: not perceived, yet rendered, present and acted on.
    OutOfTree,
    /// Perceived and present, but out of reach: pointer input refused (outside the viewport).
    OutOfReach,
}

/// One row of the table: the markup, the id of the element it probes, and what every report
/// must say about it.
pub(crate) struct Row {
    /// The markup (the element carries `id`).
    pub(crate) html: &'static str,
    /// The element's id (in the open shadow root of `#host` when `shadow`).
    pub(crate) id: &'static str,
    /// Whether the element lives in the open shadow root of `#host`.
    pub(crate) shadow: bool,
    /// How it is shown.
    pub(crate) shown: Shown,
    /// The role token perception and receipts report (core narrows it later).
    pub(crate) role: &'static str,
    /// The accessible name.
    pub(crate) name: Option<&'static str>,
}

const fn row(
    html: &'static str,
    id: &'static str,
    shown: Shown,
    role: &'static str,
    name: Option<&'static str>,
) -> Row {
    Row { html, id, shadow: false, shown, role, name }
}

/// The table. Where the two old copies of role and name (perception's and input's) disagreed,
/// the row says which answer is now both's.
pub(crate) const ROWS: &[Row] = &[
    row(
        "<button id=plain>Save draft <span style=\"display:none\">hidden words</span></button>",
        "plain",
        Shown::Yes,
        "button",
        Some("Save draft"),
    ),
    row(
        "<button id=labelled aria-label=\"Close dialog\">X</button>",
        "labelled",
        Shown::Yes,
        "button",
        Some("Close dialog"),
    ),
    row(
        "<span id=lb1>Billing</span> <span id=lb2>address</span> <input id=labelledby aria-labelledby=\"lb1 lb2\">",
        "labelledby",
        Shown::Yes,
        "textbox",
        Some("Billing address"),
    ),
    // aria-labelledby reads a hidden referenced element too.
    row(
        "<span id=lbh hidden>Secret label</span><button id=labelledby-hidden aria-labelledby=\"lbh\">Shown text</button>",
        "labelledby-hidden",
        Shown::Yes,
        "button",
        Some("Secret label"),
    ),
    // A referenced element's aria-label comes before its content (perception read "A").
    row(
        "<span id=lba aria-label=\"Alpha\">A</span> <button id=labelledby-label aria-labelledby=\"lba\">Beta</button>",
        "labelledby-label",
        Shown::Yes,
        "button",
        Some("Alpha"),
    ),
    row(
        "<label for=email>Email address</label> <input id=email type=email placeholder=\"you@example.com\">",
        "email",
        Shown::Yes,
        "textbox",
        Some("Email address"),
    ),
    row("<label>Full <input id=wrapped> name</label>", "wrapped", Shown::Yes, "textbox", Some("Full name")),
    // A label's text outside the accessibility tree is no part of the name (perception read "Phone *").
    row(
        "<label for=phone>Phone <span aria-hidden=\"true\">*</span></label> <input id=phone>",
        "phone",
        Shown::Yes,
        "textbox",
        Some("Phone"),
    ),
    row(
        "<label><input id=agree type=checkbox> Agree to terms</label>",
        "agree",
        Shown::Yes,
        "checkbox",
        Some("Agree to terms"),
    ),
    row(
        "<label for=country>Country</label> <select id=country><option>France</option><option>Spain</option></select>",
        "country",
        Shown::Yes,
        "combobox",
        Some("Country"),
    ),
    row(
        "<input id=titled title=\"Search the site\">",
        "titled",
        Shown::Yes,
        "textbox",
        Some("Search the site"),
    ),
    row(
        "<input id=placeholder placeholder=\"Only placeholder\">",
        "placeholder",
        Shown::Yes,
        "textbox",
        Some("Only placeholder"),
    ),
    // Editable values are never names.
    row("<input id=valued value=\"typed secret\">", "valued", Shown::Yes, "textbox", None),
    row(
        "<div id=notes contenteditable=true aria-label=\"Notes\" style=\"min-height:1.5em;border:1px solid\"></div>",
        "notes",
        Shown::Yes,
        "textbox",
        Some("Notes"),
    ),
    row(
        "<div id=editor contenteditable=true style=\"border:1px solid\">Typed draft text</div>",
        "editor",
        Shown::Yes,
        "textbox",
        None,
    ),
    // A link named by its image (input named it nothing; a point on the image named the image).
    row(
        "<a id=logo href=\"#home\"><img alt=\"Company logo\" src=\"PIXEL\" width=16 height=16></a>",
        "logo",
        Shown::Yes,
        "link",
        Some("Company logo"),
    ),
    row(
        "<img id=chart alt=\"Sales chart\" src=\"PIXEL\" width=20 height=20>",
        "chart",
        Shown::Yes,
        "img",
        Some("Sales chart"),
    ),
    row("<a id=more href=\"#more\">Read more</a>", "more", Shown::Yes, "link", Some("Read more")),
    row("<h2 id=heading>Section title</h2>", "heading", Shown::Yes, "heading", Some("Section title")),
    row("<input id=send type=submit>", "send", Shown::Yes, "button", Some("Submit")),
    // An image input without alt is a submit button (input named it nothing).
    row(
        "<input id=go type=image src=\"PIXEL\" width=16 height=16>",
        "go",
        Shown::Yes,
        "button",
        Some("Submit"),
    ),
    // A colour input is a button (input called it a textbox).
    row(
        "<input id=colour type=color aria-label=\"Accent colour\">",
        "colour",
        Shown::Yes,
        "button",
        Some("Accent colour"),
    ),
    row(
        "<div id=custom role=button tabindex=0>Custom action</div>",
        "custom",
        Shown::Yes,
        "button",
        Some("Custom action"),
    ),
    row(
        "<button id=switch role=switch aria-checked=true>Dark mode</button>",
        "switch",
        Shown::Yes,
        "switch",
        Some("Dark mode"),
    ),
    row(
        "<button id=plain-role role=none>Plain role</button>",
        "plain-role",
        Shown::Yes,
        "button",
        Some("Plain role"),
    ),
    row("<div id=card draggable=true>Drag card</div>", "card", Shown::Yes, "generic", Some("Drag card")),
    // A generic element's long text is its content, not its name (perception named it by it).
    row(
        "<div id=long tabindex=0>This focusable panel holds a long paragraph of prose, far longer than any name core shows a model.</div>",
        "long",
        Shown::Yes,
        "generic",
        None,
    ),
    row(
        "<button id=transparent style=\"opacity:0\">Transparent</button>",
        "transparent",
        Shown::Yes,
        "button",
        Some("Transparent"),
    ),
    row(
        "<details><summary id=summary>More details</summary><p>Inside</p></details>",
        "summary",
        Shown::Yes,
        "button",
        Some("More details"),
    ),
    row(
        "<details><summary>Closed</summary><button id=folded-away>Folded away</button></details>",
        "folded-away",
        Shown::Hidden,
        "button",
        Some("Folded away"),
    ),
    row(
        "<div style=\"display:none\"><button id=none-ancestor>Gone</button></div>",
        "none-ancestor",
        Shown::Hidden,
        "button",
        Some("Gone"),
    ),
    row(
        "<button id=invisible style=\"visibility:hidden\">Invisible</button>",
        "invisible",
        Shown::Hidden,
        "button",
        Some("Invisible"),
    ),
    row(
        "<button id=zero style=\"width:0;height:0;padding:0;border:0;overflow:hidden;display:block\">Zero</button>",
        "zero",
        Shown::Hidden,
        "button",
        Some("Zero"),
    ),
    row("<div inert><button id=inert>Inert</button></div>", "inert", Shown::Hidden, "button", Some("Inert")),
    row(
        "<div aria-hidden=\"true\"><button id=ghost>Ghost button</button></div>",
        "ghost",
        Shown::OutOfTree,
        "button",
        Some("Ghost button"),
    ),
    row(
        "<button id=offscreen style=\"position:absolute;left:-10000px\">Off screen</button>",
        "offscreen",
        Shown::OutOfReach,
        "button",
        Some("Off screen"),
    ),
    Row {
        html: "<div id=host></div>",
        id: "shadowed",
        shadow: true,
        shown: Shown::Yes,
        role: "button",
        name: Some("Shadow action"),
    },
    row(
        "<div style=\"height:3000px\"></div><button id=below>Below the fold</button>",
        "below",
        Shown::Yes,
        "button",
        Some("Below the fold"),
    ),
];

/// The table page: one paragraph per row, then the shadow root's content.
pub(crate) fn page() -> String {
    let rows: String =
        ROWS.iter().map(|row| format!("<p>{}</p>\n", row.html.replace("PIXEL", PIXEL))).collect();
    format!(
        "<!doctype html><html><head><title>DOM semantics</title></head><body>\n{rows}\
         <script>document.getElementById('host').attachShadow({{mode: 'open'}}).innerHTML = \
         '<button id=shadowed>Shadow action</button>';</script></body></html>"
    )
}

/// What the row expects as a receipt or perception reports it.
pub(crate) fn expected(row: &Row) -> ElementSummary {
    ElementSummary { role: row.role.to_owned(), name: row.name.map(str::to_owned) }
}

/// A perceived element's role and name.
pub(crate) fn summary(element: &PerceivedElement) -> ElementSummary {
    ElementSummary { role: element.role.clone(), name: element.name.clone() }
}

/// The perception half of a row's check: `perceived` (the whole table, scope `All`) lists the
/// row's `element` as the row says, `find_text` finds it by its name when perception lists it
/// as a control, and `element_present` fits its visibility. Answers what disagreed.
pub(crate) async fn check_perception(
    b: &dyn BrowserPort,
    tab: &TabRef,
    row: &Row,
    element: &ElementRef,
    perceived: &[PerceivedElement],
) -> Result<(), String> {
    let want = expected(row);
    let listed: Vec<&PerceivedElement> = perceived.iter().filter(|e| &e.element == element).collect();
    let perceivable = matches!(row.shown, Shown::Yes | Shown::OutOfReach);
    // find_text looks for controls by name (other elements by their text): it must find every
    // named control that perception lists, and none that it leaves out.
    let findable = match (perceivable, listed.as_slice()) {
        (true, [item]) if summary(item) == want => item.control,
        (true, [item]) => return Err(format!("perceived as {:?}, expected {want:?}", summary(item))),
        (true, _) => return Err(format!("perceived {} times, expected once", listed.len())),
        (false, []) => true,
        (false, _) => return Err("perceived, expected left out".into()),
    };
    if let Some(name) = row.name.filter(|_| findable) {
        let found = b
            .perceive(&TabCall::reading(tab, &Gate::open()), &PerceiveInput::matching(name, false, 50))
            .await
            .map(|found| found.elements)
            .map_err(|e| format!("find_text: {e}"))?;
        let hits: Vec<&PerceivedElement> = found.iter().filter(|e| &e.element == element).collect();
        match (perceivable, hits.as_slice()) {
            (true, [item]) if summary(item) == want => {}
            (true, _) => {
                return Err(format!("find_text({name:?}) answered {hits:?}, expected it once as {want:?}"));
            }
            (false, []) => {}
            (false, _) => return Err(format!("find_text({name:?}) found it, expected it left out")),
        }
    }
    let present = b.element_present(tab, element).await.map_err(|e| format!("element_present: {e}"))?;
    if present == (row.shown == Shown::Hidden) {
        return Err(format!("element_present answered {present}"));
    }
    Ok(())
}

/// The row's element among `perceived` (the shadow root's button, which CSS does not reach).
pub(crate) fn shadow_element(row: &Row, perceived: &[PerceivedElement]) -> Result<ElementRef, String> {
    perceived
        .iter()
        .find(|e| e.name.as_deref() == row.name)
        .map(|item| item.element.clone())
        .ok_or_else(|| "the shadow button is not perceived".to_owned())
}
