//! Executor tests: navigation and geometry — `browser_navigate`, `browser_tabs`,
//! `browser_history`, `browser_window`, `browser_screenshot`, `browser_scroll`,
//! `browser_hover` and `browser_drag` over the scripted port.
//!
//! Envelopes are snapshot-tested (handles are deterministic); each rule also has a plain
//! assertion, usually on the port's call log. The world here is the harness's, with the
//! scripted browser, which records the viewport points pointer input went to.

use std::sync::Arc;
use std::time::Duration;

use futures::executor::block_on;
use serde_json::{Value, json};

use crate::authority::CompiledAuthority;
use crate::envelope::{Effect, Envelope, Readiness, Status};
use crate::handles::{Handle, HandleKind};
use crate::port::{CaptureKind, DialogKind, NavigateInput, Point, PortError, PortErrorKind, TabRef};
use crate::selector::Role;
use crate::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};

use super::harness::{fact_str, user_authority};
use crate::executor::{Cancellation, Ghostlight, ToolResult};
use crate::operation::workspace::TargetEntry;

// ----- a world: the scripted browser and one workspace ------------------------------------

/// One workspace over a scripted browser.
struct World {
    browser: Arc<ScriptedBrowser>,
    gl: Ghostlight,
}

impl World {
    fn new(browser: ScriptedBrowser) -> Self {
        World::with_authority(browser, CompiledAuthority::default())
    }

    fn with_authority(browser: ScriptedBrowser, authority: CompiledAuthority) -> Self {
        let browser = Arc::new(browser);
        let gl = Ghostlight::builder(browser.clone()).authority(authority).deterministic_handles().build();
        World { browser, gl }
    }

    /// Invoke a tool and answer its result.
    fn call(&self, tool: &str, arguments: Value) -> ToolResult {
        let result = block_on(self.gl.invoke(tool, &arguments, &Cancellation::new()))
            .unwrap_or_else(|e| panic!("{tool} is a catalog tool: {e}"));
        super::harness::assert_conforms(tool, &result.envelope);
        result
    }

    /// Invoke a tool and answer its envelope.
    fn env(&self, tool: &str, arguments: Value) -> Envelope {
        self.call(tool, arguments).envelope
    }

    /// Invoke a tool that must succeed.
    fn ok(&self, tool: &str, arguments: Value) -> Envelope {
        let envelope = self.env(tool, arguments);
        assert_eq!(envelope.status, Status::Succeeded, "{tool}: {envelope:#?}");
        envelope
    }

    /// Open `url` and answer the tab handle.
    fn open(&self, url: &str) -> String {
        let envelope = self.ok("browser_navigate", json!({"url": url, "new_tab": true}));
        fact_str(&envelope, "tab")
    }

    /// The browser's tab behind a handle.
    fn tab_ref(&self, handle: &str) -> TabRef {
        let handle = Handle::parse(handle, HandleKind::Tab).unwrap_or_else(|e| panic!("{handle}: {e:?}"));
        let slot = self.gl.workspace.slot(&handle).unwrap_or_else(|| panic!("no slot {handle}"));
        slot.tab().unwrap_or_else(|| panic!("{handle} is not bound"))
    }

    /// Mint a target handle for the element named `name` of `tab` at the slot's current
    /// generation (browser_inspect and browser_find live on another branch).
    fn target(&self, tab: &str, name: &str, role: Role) -> String {
        let handle = Handle::parse(tab, HandleKind::Tab).unwrap_or_else(|e| panic!("{tab}: {e:?}"));
        let slot = self.gl.workspace.slot(&handle).unwrap_or_else(|| panic!("no slot {handle}"));
        let tab_ref = self.tab_ref(tab);
        let element = self.browser.element_ref(&tab_ref, name).unwrap_or_else(|| panic!("no element {name}"));
        let target = self.gl.workspace.add_target(TargetEntry {
            slot: handle,
            generation: slot.state().generation,
            element,
            role,
            name: Some(name.to_owned()),
            credential: None,
        });
        target.as_str().to_owned()
    }

    /// The port methods called since the last `clear`.
    fn methods(&self) -> Vec<&'static str> {
        self.browser.method_names()
    }

    fn clear(&self) {
        self.browser.clear_calls();
    }

    fn points(&self) -> Vec<Point> {
        self.browser.pointer_points()
    }

    fn captures(&self) -> Vec<CaptureKind> {
        self.browser.capture_kinds()
    }
}

/// A site of a board: a heading, a menu button, a card and a list.
fn board() -> ScriptedBrowser {
    ScriptedBrowser::new()
        .site(
            "https://example.com/",
            ScriptedPage::new("Example board")
                .text("Board")
                .element(ScriptedElement::heading("Board"))
                .element(ScriptedElement::button("Menu"))
                .element(ScriptedElement::custom("listitem", "Card").control(true))
                .element(ScriptedElement::custom("listbox", "Done").control(true)),
        )
        .site("https://example.com/next", ScriptedPage::new("Next page"))
        .site("https://example.org/", ScriptedPage::new("Other site"))
}

// ----- browser_navigate and browser_tabs ----------------------------------------------------

#[test]
fn navigate_opens_a_tab() {
    let world = World::new(board());
    let envelope = world.ok("browser_navigate", json!({"url": "https://example.com/"}));
    insta::assert_json_snapshot!(envelope);
    // No tab yet: unbound tabs are looked at for reuse first.
    assert_eq!(world.methods(), ["tabs", "open_tab"]);
    assert!(envelope.repeat_safe);
}

#[test]
fn navigate_in_the_only_tab_and_new_tab_is_not_repeat_safe() {
    let world = World::new(board());
    let opened = world.ok("browser_navigate", json!({"url": "https://example.com/", "new_tab": true}));
    assert!(!opened.repeat_safe, "opening a new tab twice opens two tabs");
    assert!(opened.next_steps.iter().all(|s| !s.contains("Repeat")), "{opened:#?}");
    world.clear();
    let moved = world.ok("browser_navigate", json!({"url": "https://example.com/next"}));
    insta::assert_json_snapshot!(moved);
    assert_eq!(moved.facts["tab"], opened.facts["tab"]);
    assert_eq!(moved.facts["document_generation"], 2);
    assert_eq!(world.methods(), ["navigate"]);
    assert!(moved.repeat_safe);
}

#[test]
fn default_tab_is_the_only_tab() {
    let world = World::new(board());
    let tab = world.open("https://example.com/");
    let shot = world.ok("browser_screenshot", json!({}));
    assert_eq!(fact_str(&shot, "tab"), tab);
}

#[test]
fn default_tab_is_the_one_selected_tab() {
    let world = World::new(board());
    let _first = world.open("https://example.com/");
    let second = world.open("https://example.org/");
    world.clear();
    // The scripted browser selects the tab it opened last.
    let shot = world.ok("browser_screenshot", json!({}));
    assert_eq!(fact_str(&shot, "tab"), second);
    assert_eq!(world.methods()[0], "tabs", "the selection is read live");
}

#[test]
fn default_tab_ambiguous_points_to_browser_tabs() {
    let world = World::new(board());
    world.open("https://example.com/");
    world.open("https://example.org/");
    // Another workspace opens a tab: it is now the selected one, and it is not ours.
    let other = World { browser: world.browser.clone(), gl: world.gl.workspace() };
    other.open("https://example.com/next");
    world.clear();
    let envelope = world.env("browser_screenshot", json!({}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.status, Status::Failed);
    assert_eq!(envelope.facts["reason"], "ambiguous_tab");
    assert!(envelope.next_steps.iter().any(|s| s.contains("browser_tabs")), "{envelope:#?}");
    assert_eq!(world.methods(), ["tabs"], "nothing but the live tab list was asked");
}

#[test]
fn no_tab_points_to_browser_navigate() {
    let world = World::new(board());
    for (tool, arguments) in [
        ("browser_screenshot", json!({})),
        ("browser_history", json!({"action": "back"})),
        ("browser_window", json!({"action": "resize", "width": 1024, "height": 768})),
        ("browser_scroll", json!({})),
    ] {
        let envelope = world.env(tool, arguments);
        assert_eq!(envelope.status, Status::Failed, "{tool}");
        assert_eq!(envelope.facts["reason"], "no_tab", "{tool}");
        assert!(envelope.next_steps.iter().any(|s| s.contains("browser_navigate")), "{envelope:#?}");
    }
    insta::assert_json_snapshot!(world.env("browser_screenshot", json!({})));
    assert!(world.methods().is_empty(), "{:?}", world.methods());
}

#[test]
fn navigate_by_a_closed_handle_reopens_under_the_same_handle() {
    let world = World::new(board());
    let tab = world.open("https://example.com/");
    world.ok("browser_tabs", json!({"action": "close", "tab": tab}));
    world.clear();
    let envelope = world.ok("browser_navigate", json!({"url": "https://example.com/next", "tab": tab}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(fact_str(&envelope, "tab"), tab);
    assert_eq!(envelope.facts["reopened"], true);
    assert_eq!(envelope.facts["created"], true);
    assert!(envelope.summary.contains("under the same handle"), "{}", envelope.summary);
    assert_eq!(world.methods(), ["open_tab"]);
}

#[test]
fn navigate_by_a_handle_whose_tab_the_page_closed_reopens_it() {
    let world = World::new(board());
    let tab = world.open("https://example.com/");
    assert!(world.browser.close_tab_externally(&world.tab_ref(&tab)));
    world.clear();
    let envelope = world.ok("browser_navigate", json!({"url": "https://example.com/", "tab": tab}));
    assert_eq!(fact_str(&envelope, "tab"), tab);
    assert_eq!(envelope.facts["reopened"], true);
    assert_eq!(world.methods(), ["navigate", "open_tab"]);
}

#[test]
fn closing_a_gone_tab_succeeds_without_touching_the_browser() {
    let world = World::new(board());
    let tab = world.open("https://example.com/");
    let closed = world.ok("browser_tabs", json!({"action": "close", "tab": tab}));
    insta::assert_json_snapshot!("tabs_close", closed);
    world.clear();
    let again = world.ok("browser_tabs", json!({"action": "close", "tab": tab}));
    insta::assert_json_snapshot!("tabs_close_gone", again);
    assert!(world.methods().is_empty(), "{:?}", world.methods());
    assert_eq!(again.effect, Effect::None);
    assert_eq!(again.facts["closed"], true);
}

#[test]
fn tabs_list_and_focus() {
    let world = World::new(board());
    let first = world.open("https://example.com/");
    world.open("https://example.org/");
    insta::assert_json_snapshot!("tabs_list", world.ok("browser_tabs", json!({"action": "list"})));
    let focused = world.ok("browser_tabs", json!({"action": "focus", "tab": first}));
    insta::assert_json_snapshot!("tabs_focus", focused);
    let shot = world.ok("browser_screenshot", json!({}));
    assert_eq!(fact_str(&shot, "tab"), first, "the focused tab is the default now");
}

#[test]
fn navigate_reuses_an_unbound_same_host_tab_preferring_the_exact_url() {
    let browser = board().with_tab("https://example.com/next").with_tab("https://example.com/");
    let world = World::new(browser);
    let envelope = world.ok("browser_navigate", json!({"url": "https://example.com/"}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.summary, "Reused the example.com tab.");
    assert_eq!(envelope.facts["reused"], true);
    assert_eq!(envelope.facts["created"], false);
    // The exact URL (the second tab) needed no navigation.
    assert_eq!(world.methods(), ["tabs", "page"]);
    assert_eq!(world.tab_ref(&fact_str(&envelope, "tab")).as_str(), "t2");
}

#[test]
fn navigate_reuses_a_same_host_tab_and_navigates_it() {
    let world = World::new(board().with_tab("https://example.org/").with_tab("https://example.com/next"));
    let envelope = world.ok("browser_navigate", json!({"url": "https://example.com/"}));
    assert_eq!(envelope.summary, "Reused the example.com tab.");
    assert_eq!(world.methods(), ["tabs", "page", "navigate"]);
    assert_eq!(world.tab_ref(&fact_str(&envelope, "tab")).as_str(), "t2");
}

#[test]
fn navigate_reuse_never_opens_a_fresh_tab() {
    let world = World::new(board().with_tab("https://example.com/"));
    let envelope = world.ok("browser_navigate", json!({"url": "https://example.com/", "reuse": "never"}));
    assert_eq!(envelope.summary, "Opened example.com.");
    assert_eq!(envelope.facts["reused"], false);
    assert_eq!(envelope.facts["created"], true);
    assert_eq!(world.methods(), ["open_tab"]);
}

#[test]
fn a_tab_claimed_by_another_workspace_is_never_reused() {
    let world = World::new(board());
    world.open("https://example.com/");
    let other = World { browser: world.browser.clone(), gl: world.gl.workspace() };
    world.clear();
    let envelope = other.ok("browser_navigate", json!({"url": "https://example.com/"}));
    assert_eq!(envelope.summary, "Opened example.com.");
    assert_eq!(world.methods(), ["tabs", "open_tab"]);
}

#[test]
fn beforeunload_stops_the_navigation_and_is_never_accepted() {
    let browser = board().site("https://example.com/form", ScriptedPage::new("Form").beforeunload());
    let world = World::new(browser);
    let tab = world.open("https://example.com/form");
    let envelope = world.env("browser_navigate", json!({"url": "https://example.com/next"}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.status, Status::Failed);
    assert_eq!(envelope.facts["reason"], "beforeunload");
    let page = world.browser.current_page(&world.tab_ref(&tab)).unwrap_or_else(|| panic!("a page"));
    assert_eq!(page.url.as_str(), "https://example.com/form", "the page was not left");
    // The scripted prompt stays open: only browser_dialog resolves it, and the sentence says so.
    assert!(envelope.next_steps.iter().any(|s| s.contains("browser_dialog")), "{envelope:#?}");
    assert!(!world.methods().contains(&"resolve_dialog"));
}

#[test]
fn beforeunload_discard_leaves_the_page() {
    let browser = board().site("https://example.com/form", ScriptedPage::new("Form").beforeunload());
    let world = World::new(browser);
    world.open("https://example.com/form");
    let envelope =
        world.ok("browser_navigate", json!({"url": "https://example.com/next", "beforeunload": "discard"}));
    assert_eq!(envelope.summary, "Navigated to example.com.");
}

#[test]
fn navigation_blocked_by_an_alert_says_so() {
    let world = World::new(board());
    let tab = world.open("https://example.com/");
    assert!(world.browser.raise_dialog(&world.tab_ref(&tab), DialogKind::Alert));
    let envelope = world.env("browser_navigate", json!({"url": "https://example.com/next"}));
    assert_eq!(envelope.facts["reason"], "blocked_by_dialog", "{envelope:#?}");
    assert!(!envelope.summary.contains("leaving"), "{}", envelope.summary);
}

#[test]
fn a_blocked_host_is_blocked_with_nothing_dispatched() {
    let world = World::with_authority(board(), user_authority(json!({"hosts": {"deny": ["example.org"]}})));
    let envelope = world.env("browser_navigate", json!({"url": "https://example.org/"}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.status, Status::Blocked);
    assert_eq!(envelope.effect, Effect::None);
    assert!(world.methods().is_empty(), "{:?}", world.methods());
}

// ----- browser_history ------------------------------------------------------------------------

#[test]
fn history_back_forward_and_reload() {
    let world = World::new(board());
    world.open("https://example.com/");
    world.ok("browser_navigate", json!({"url": "https://example.org/"}));
    let back = world.ok("browser_history", json!({"action": "back"}));
    insta::assert_json_snapshot!("history_back", back);
    assert_eq!(back.summary, "Went back to example.com.");
    assert!(!back.repeat_safe);
    assert_eq!(back.facts["document_generation"], 3, "a committed move is a new generation");
    let forward = world.ok("browser_history", json!({"action": "forward"}));
    assert_eq!(forward.summary, "Went forward to example.org.");
    assert_eq!(forward.facts["document_generation"], 4);
    let reload = world.ok("browser_history", json!({"action": "reload", "bypass_cache": true}));
    insta::assert_json_snapshot!("history_reload", reload);
    assert_eq!(reload.facts["document_generation"], 5);
    assert!(reload.repeat_safe);
}

#[test]
fn history_end_fails_helpfully() {
    let world = World::new(board());
    world.open("https://example.com/");
    let back = world.env("browser_history", json!({"action": "back"}));
    insta::assert_json_snapshot!("history_end_back", back);
    assert_eq!(back.status, Status::Failed);
    assert_eq!(back.effect, Effect::None);
    assert_eq!(back.facts["reason"], "history_end");
    let forward = world.env("browser_history", json!({"action": "forward"}));
    assert_eq!(forward.facts["reason"], "history_end");
    assert!(forward.summary.contains("no later page"), "{}", forward.summary);
}

#[test]
fn history_held_by_a_leave_prompt_says_it_is_open_and_how_to_go_on() {
    let world = World::new(board());
    world.open("https://example.com/");
    world.browser.fail_next(
        "history",
        PortError::blocked_by(DialogKind::BeforeUnload, "a beforeunload prompt holds the navigation"),
    );
    let back = world.env("browser_history", json!({"action": "back"}));
    insta::assert_json_snapshot!("history_leave_prompt", back);
    assert_eq!((back.status, back.effect), (Status::Failed, Effect::None));
    assert_eq!(back.facts["reason"], "beforeunload");
    assert_eq!(back.facts["dialog_type"], "beforeunload");
    assert_eq!(back.facts["present"], true);
    assert!(back.next_steps[0].contains("browser_dialog"), "{:?}", back.next_steps);
}

#[test]
fn history_landing_outside_authority_is_governed() {
    let world = World::new(board());
    world.open("https://example.com/next");
    world.ok("browser_navigate", json!({"url": "https://example.org/"}));
    let back = world.ok("browser_history", json!({"action": "back", "restrict_hosts": ["example.org"]}));
    insta::assert_json_snapshot!(back);
    assert_eq!(back.facts["url"], "https://example.com", "outside authority only the origin shows");
    assert_eq!(back.facts["outside_authority"], true);
    assert_eq!(back.facts["title"], "", "a page outside authority has no title");
}

#[test]
fn history_on_a_page_outside_authority_is_blocked() {
    let world = World::new(board());
    world.open("https://example.org/");
    world.clear();
    let envelope =
        world.env("browser_history", json!({"action": "reload", "restrict_hosts": ["example.com"]}));
    assert_eq!(envelope.status, Status::Blocked);
    assert_eq!(world.methods(), ["page"], "only the page was observed");
}

// ----- browser_window -------------------------------------------------------------------------

#[test]
fn window_zoom_and_resize() {
    let world = World::new(board());
    world.open("https://example.com/");
    let zoom = world.ok("browser_window", json!({"action": "zoom", "percent": 150}));
    insta::assert_json_snapshot!("window_zoom", zoom);
    assert_eq!(zoom.facts["observed"]["zoom"], 150);
    assert_eq!(zoom.facts["width"], Value::Null);
    assert!(zoom.repeat_safe);
    let resize = world.ok("browser_window", json!({"action": "resize", "width": 1024, "height": 768}));
    insta::assert_json_snapshot!("window_resize", resize);
    assert_eq!(resize.facts["percent"], Value::Null);
    assert_eq!(resize.facts["observed"]["window_width"], 1024);
    // Every size the sentence names is a fact.
    for size in ["1024×768", "1024×668"] {
        assert!(resize.summary.contains(size), "{}", resize.summary);
    }
    assert_eq!(resize.facts["observed"]["viewport_height"], 668);
}

#[test]
fn window_zoom_unsupported_names_the_engine() {
    let world = World::new(board());
    world.open("https://example.com/");
    world.browser.fail_next("set_zoom", PortError::new(PortErrorKind::Unsupported, "no zoom"));
    let envelope = world.env("browser_window", json!({"action": "zoom", "percent": 80}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.status, Status::Failed);
    assert_eq!(envelope.facts["engine"], "scripted");
}

#[test]
fn window_resize_needs_no_page_authorization_but_zoom_does() {
    let world = World::new(board());
    world.open("https://example.org/");
    let outside = json!(["example.com"]);
    let zoom =
        world.env("browser_window", json!({"action": "zoom", "percent": 80, "restrict_hosts": outside}));
    assert_eq!(zoom.status, Status::Blocked);
    let resize = world.env(
        "browser_window",
        json!({"action": "resize", "width": 800, "height": 600, "restrict_hosts": outside}),
    );
    assert_eq!(resize.status, Status::Succeeded, "{resize:#?}");
}

// ----- browser_screenshot ---------------------------------------------------------------------

#[test]
fn screenshot_viewport() {
    let world = World::new(board());
    world.open("https://example.com/");
    let result = world.call("browser_screenshot", json!({}));
    insta::assert_json_snapshot!(result.envelope);
    assert_eq!(result.envelope.summary, "Captured the viewport of example.com (1280×800).");
    assert_eq!(result.attachments.len(), 1);
    assert_eq!(result.attachments[0].mime_type, "image/png");
    assert!(result.attachments[0].bytes.starts_with(b"\x89PNG"));
    assert!(result.envelope.repeat_safe);
    // Image bytes never travel in facts.
    let facts = serde_json::to_string(&result.envelope.facts).unwrap_or_default();
    assert!(facts.len() < 400, "{facts}");
    // The view keeps the image (small enough to reuse) and the capture's transform.
    let view = Handle::parse(&fact_str(&result.envelope, "view"), HandleKind::View)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let entry = world.gl.workspace.view(&view).unwrap_or_else(|| panic!("registered"));
    assert_eq!(entry.png.as_deref(), Some(&result.attachments[0].bytes));
    assert_eq!((entry.origin, entry.css_per_pixel, entry.full_page), ((0.0, 0.0), 1.0, false));
}

#[test]
fn screenshot_full_page_and_target() {
    let world = World::new(board());
    let tab = world.open("https://example.com/");
    let full = world.call("browser_screenshot", json!({"full_page": true}));
    insta::assert_json_snapshot!("screenshot_full_page", full.envelope);
    let menu = world.target(&tab, "Menu", Role::Button);
    let target = world.call("browser_screenshot", json!({"target": menu}));
    insta::assert_json_snapshot!("screenshot_target", target.envelope);
    assert_eq!(target.envelope.summary, "Captured the \"Menu\" button on example.com (200×40).");
    let named = world.ok("browser_screenshot", json!({"selector": {"name": "Menu"}}));
    assert!(!named.facts.contains_key("target"));
    assert_eq!(world.captures().len(), 3);
}

#[test]
fn a_capture_over_the_image_bound_is_taken_again_smaller_and_maps_back() {
    // A busy page: 3 bytes a pixel, so the 1280×3000 full page is 11.5 MB.
    let world = World::new(board().image_weight(3.0, 0));
    world.open("https://example.com/");
    let full = world.call("browser_screenshot", json!({"full_page": true}));
    assert_eq!(full.envelope.status, Status::Succeeded, "{}", full.envelope.summary);
    let bytes = full.attachments[0].bytes.len() as u64;
    assert!(bytes <= crate::limits::IMAGE_BLOCK_MAX_BYTES, "{bytes}");
    assert_eq!(full.envelope.facts["downscaled"], true);
    assert!(full.envelope.summary.contains("scaled down"), "{}", full.envelope.summary);
    let (width, height) = (full.envelope.facts["width"].as_u64(), full.envelope.facts["height"].as_u64());
    let (width, height) = (width.unwrap_or(0), height.unwrap_or(0));
    assert!(width < 1280 && height < 3000 && width > 0, "{width}×{height}");
    // The second capture is the same rectangle at a smaller scale, and the view maps its
    // smaller image back onto the whole page.
    let captures = world.captures();
    assert_eq!(captures.len(), 2, "{captures:?}");
    match &captures[1] {
        CaptureKind::Region { rect, scale } => {
            assert_eq!((rect.x, rect.y, rect.width, rect.height), (0.0, 0.0, 1280.0, 3000.0));
            assert!(*scale < 1.0, "{scale}");
        }
        other => panic!("refit as {other:?}"),
    }
    let view = Handle::parse(&fact_str(&full.envelope, "view"), HandleKind::View)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let entry = world.gl.workspace.view(&view).unwrap_or_else(|| panic!("registered"));
    assert!(entry.full_page);
    assert!((entry.css_per_pixel * width as f64 - 1280.0).abs() < 2.0, "{}", entry.css_per_pixel);
    // A small capture is untouched.
    let viewport = world.ok("browser_screenshot", json!({}));
    assert!(!viewport.facts.contains_key("downscaled"));
}

#[test]
fn a_capture_that_never_fits_the_image_bound_is_refused_with_its_figures() {
    let world = World::new(board().image_weight(3.0, 6_000_000));
    world.open("https://example.com/");
    let refused = world.call("browser_screenshot", json!({"full_page": true}));
    assert_eq!(refused.envelope.status, Status::Failed);
    assert_eq!(refused.envelope.facts["reason"], "capture_too_large");
    assert_eq!(refused.envelope.facts["bytes"], 6_000_000);
    assert_eq!(refused.envelope.facts["max_bytes"], crate::limits::IMAGE_BLOCK_MAX_BYTES);
    assert!(refused.attachments.is_empty(), "no image block");
    assert!(
        refused.envelope.summary.contains("over the limit of 5000000 bytes"),
        "{}",
        refused.envelope.summary
    );
    assert_eq!(world.captures().len(), 4, "the capture and three smaller tries");
}

#[test]
fn screenshot_region_magnifies_and_composes() {
    let world = World::new(board());
    world.open("https://example.com/");
    world.ok("browser_scroll", json!({"direction": "down", "amount": "medium"}));
    let parent = world.ok("browser_screenshot", json!({}));
    let view = fact_str(&parent, "view");
    let region = world
        .call("browser_screenshot", json!({"view": view, "x": 100, "y": 50, "width": 200, "height": 100}));
    insta::assert_json_snapshot!(region.envelope);
    assert_eq!(region.envelope.facts["parent_view"], view.as_str());
    assert_eq!(
        (region.envelope.facts["width"].clone(), region.envelope.facts["height"].clone()),
        (json!(800), json!(400))
    );
    let rect = match world.captures().last() {
        Some(CaptureKind::Region { rect, scale }) => {
            assert!((scale - 4.0).abs() < f64::EPSILON, "{scale}");
            *rect
        }
        other => panic!("{other:?}"),
    };
    assert_eq!((rect.x, rect.y, rect.width, rect.height), (100.0, 450.0, 200.0, 100.0));
    assert_eq!(region.attachments.len(), 1);
}

#[test]
fn a_click_at_a_region_pixel_lands_where_the_parent_pixel_does() {
    let world = World::new(board());
    world.open("https://example.com/");
    world.ok("browser_scroll", json!({"direction": "down", "amount": "medium"}));
    let parent = fact_str(&world.ok("browser_screenshot", json!({})), "view");
    let region = fact_str(
        &world.ok(
            "browser_screenshot",
            json!({"view": parent, "x": 100, "y": 50, "width": 200, "height": 100}),
        ),
        "view",
    );
    // Region pixel (400, 200) is parent pixel 100 + 400/4 = 200, 50 + 200/4 = 100.
    world.ok("browser_click", json!({"view": region, "x": 400, "y": 200}));
    world.ok("browser_hover", json!({"view": parent, "x": 200, "y": 100}));
    let points = world.points();
    assert_eq!(points.len(), 2);
    assert_eq!((points[0].x, points[0].y), (200.125, 100.125), "the centre of the region pixel");
    assert_eq!((points[1].x, points[1].y), (200.5, 100.5), "the centre of the parent pixel");
    // A region of the region composes again.
    let inner = fact_str(
        &world.ok("browser_screenshot", json!({"view": region, "x": 0, "y": 0, "width": 400, "height": 200})),
        "view",
    );
    world.ok("browser_hover", json!({"view": inner, "x": 10, "y": 10}));
    let last = world.points().last().copied().unwrap_or_else(|| panic!("a point"));
    assert_eq!((last.x, last.y), (102.625, 52.625));
}

#[test]
fn screenshot_region_outside_the_view_is_refused_before_capture() {
    let world = World::new(board());
    world.open("https://example.com/");
    let view = fact_str(&world.ok("browser_screenshot", json!({})), "view");
    world.clear();
    let envelope = world
        .env("browser_screenshot", json!({"view": view, "x": 1200, "y": 0, "width": 100, "height": 100}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.facts["reason"], "region_outside_view");
    assert!(!world.methods().contains(&"capture"));
    // Exactly to the edge fits.
    world.ok("browser_screenshot", json!({"view": view, "x": 1180, "y": 700, "width": 100, "height": 100}));
}

#[test]
fn screenshot_region_needs_a_current_parent() {
    let world = World::new(board());
    world.open("https://example.com/");
    let view = fact_str(&world.ok("browser_screenshot", json!({})), "view");
    world.ok("browser_screenshot", json!({"view": view, "x": 0, "y": 0, "width": 10, "height": 10}));
    // The page scrolled: the view no longer shows what is there, so no region of it is cut
    // (R165: the region must lie wholly inside the current view).
    world.ok("browser_scroll", json!({}));
    world.clear();
    let scrolled =
        world.env("browser_screenshot", json!({"view": view, "x": 0, "y": 0, "width": 10, "height": 10}));
    assert_eq!(scrolled.facts["reason"], "view_stale", "{scrolled:#?}");
    assert!(scrolled.summary.contains("the page scrolled"), "{}", scrolled.summary);
    assert!(!world.methods().contains(&"capture"), "nothing captured: {:?}", world.methods());
    world.ok("browser_navigate", json!({"url": "https://example.com/next"}));
    let envelope =
        world.env("browser_screenshot", json!({"view": view, "x": 0, "y": 0, "width": 10, "height": 10}));
    assert_eq!(envelope.facts["reason"], "view_stale", "{envelope:#?}");
}

// ----- stale views ----------------------------------------------------------------------------

fn stale_after(change: (&str, Value), why: &str) {
    let world = World::new(board());
    world.open("https://example.com/");
    let view = fact_str(&world.ok("browser_screenshot", json!({})), "view");
    world.ok(change.0, change.1);
    world.clear();
    let envelope = world.env("browser_hover", json!({"view": view, "x": 10, "y": 10}));
    assert_eq!(envelope.status, Status::Failed);
    assert_eq!(envelope.facts["reason"], "view_stale");
    assert!(envelope.summary.contains(why), "{}", envelope.summary);
    assert!(envelope.next_steps.iter().any(|s| s.contains("browser_screenshot")), "{envelope:#?}");
    assert!(!world.methods().contains(&"hover"), "{:?}", world.methods());
}

#[test]
fn a_view_goes_stale_when_the_page_scrolls() {
    stale_after(("browser_scroll", json!({"direction": "down"})), "the page scrolled");
}

#[test]
fn a_view_goes_stale_when_the_window_is_resized() {
    stale_after(
        ("browser_window", json!({"action": "resize", "width": 1000, "height": 700})),
        "the viewport was resized",
    );
}

#[test]
fn a_view_stays_current_when_the_viewport_moves_by_one_pixel() {
    let world = World::new(board());
    world.open("https://example.com/");
    let view = fact_str(&world.ok("browser_screenshot", json!({})), "view");
    // The scripted window is 1280×900 with a 1280×800 viewport: one pixel taller.
    world.ok("browser_window", json!({"action": "resize", "width": 1280, "height": 901}));
    world.clear();
    world.ok("browser_hover", json!({"view": view, "x": 10, "y": 10}));
    assert!(world.methods().contains(&"hover"), "{:?}", world.methods());
    // Two pixels is a resize.
    world.ok("browser_window", json!({"action": "resize", "width": 1280, "height": 902}));
    let envelope = world.env("browser_hover", json!({"view": view, "x": 10, "y": 10}));
    assert_eq!(envelope.facts["reason"], "view_stale", "{envelope:#?}");
    assert!(envelope.summary.contains("the viewport was resized"), "{}", envelope.summary);
}

#[test]
fn a_view_goes_stale_when_the_zoom_changes() {
    stale_after(("browser_window", json!({"action": "zoom", "percent": 125})), "the zoom changed");
}

#[test]
fn a_stale_view_snapshot() {
    let world = World::new(board());
    world.open("https://example.com/");
    let view = fact_str(&world.ok("browser_screenshot", json!({})), "view");
    world.ok("browser_scroll", json!({}));
    insta::assert_json_snapshot!(world.env(
        "browser_drag",
        json!({
            "view": view, "start_x": 1, "start_y": 1, "end_x": 100, "end_y": 100
        })
    ));
}

#[test]
fn a_full_page_view_survives_scrolling() {
    let world = World::new(board());
    world.open("https://example.com/");
    let view = fact_str(&world.ok("browser_screenshot", json!({"full_page": true})), "view");
    world.ok("browser_scroll", json!({"direction": "down", "amount": "small"}));
    world.ok("browser_hover", json!({"view": view, "x": 10, "y": 500}));
    let last = world.points().last().copied().unwrap_or_else(|| panic!("a point"));
    assert_eq!((last.x, last.y), (10.5, 300.5));
}

// ----- browser_scroll -------------------------------------------------------------------------

#[test]
fn scroll_step() {
    let world = World::new(board());
    world.open("https://example.com/");
    let down = world.ok("browser_scroll", json!({}));
    insta::assert_json_snapshot!("scroll_down", down);
    assert_eq!(down.summary, "Scrolled down on example.com (now at 0, 400).");
    assert!(!down.repeat_safe);
    assert_eq!(down.effect, Effect::Applied);
    let page = world.ok("browser_scroll", json!({"direction": "down", "amount": "page"}));
    assert_eq!(page.facts["offset_y"], 1120);
    let small = world.ok("browser_scroll", json!({"direction": "up", "amount": "small"}));
    assert_eq!(small.facts["offset_y"], 920);
}

#[test]
fn scroll_at_the_edge_says_so() {
    let world = World::new(board());
    world.open("https://example.com/");
    let up = world.ok("browser_scroll", json!({"direction": "up"}));
    insta::assert_json_snapshot!(up);
    assert_eq!(up.effect, Effect::None);
    assert_eq!(up.facts["scrolled"], false);
    let left = world.ok("browser_scroll", json!({"direction": "left"}));
    assert!(left.summary.starts_with("Already at the left edge"), "{}", left.summary);
}

#[test]
fn scroll_reveal_is_repeat_safe() {
    let world = World::new(board());
    let tab = world.open("https://example.com/");
    let done = world.target(&tab, "Done", Role::Listbox);
    let revealed = world.ok("browser_scroll", json!({"target": done}));
    insta::assert_json_snapshot!(revealed);
    assert!(revealed.repeat_safe);
    assert_eq!(revealed.facts["target"], done.as_str());
    let again = world.ok("browser_scroll", json!({"target": done}));
    assert_eq!(again.facts["scrolled"], false);
    assert_eq!(again.summary, "The \"Done\" list box was already in view on example.com (at 0, 120).");
}

#[test]
fn scroll_wheel_at_a_view_point() {
    let world = World::new(board());
    world.open("https://example.com/");
    let view = fact_str(&world.ok("browser_screenshot", json!({})), "view");
    let wheel = world.ok("browser_scroll", json!({"view": view, "x": 640, "y": 400, "ticks": 3}));
    insta::assert_json_snapshot!(wheel);
    assert_eq!(wheel.facts["offset_y"], 300);
    assert_eq!(wheel.facts["ticks"], 3);
    assert!(!wheel.repeat_safe);
    let last = world.points().last().copied().unwrap_or_else(|| panic!("a point"));
    assert_eq!((last.x, last.y), (640.5, 400.5));
}

// ----- browser_hover --------------------------------------------------------------------------

#[test]
fn hover_a_target() {
    let world = World::new(board());
    let tab = world.open("https://example.com/");
    let menu = world.target(&tab, "Menu", Role::Button);
    let envelope = world.ok("browser_hover", json!({"target": menu}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.summary, "Hovered over the \"Menu\" button on example.com.");
    assert!(envelope.repeat_safe);
    let named = world.ok("browser_hover", json!({"selector": {"name": "Menu", "role": "button"}}));
    assert_eq!(named.summary, envelope.summary);
}

#[test]
fn hover_a_point() {
    let world = World::new(board());
    world.open("https://example.com/");
    let view = fact_str(&world.ok("browser_screenshot", json!({})), "view");
    let envelope = world.ok("browser_hover", json!({"view": view, "x": 5, "y": 6}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.facts["view"], view.as_str());
}

#[test]
fn hover_withholds_names_under_privacy() {
    let world =
        World::with_authority(board(), user_authority(json!({"privacy": {"preserve_target_names": false}})));
    world.open("https://example.com/");
    let envelope = world.ok("browser_hover", json!({"selector": {"name": "Menu"}}));
    assert_eq!(envelope.summary, "Hovered over a button on example.com.");
}

#[test]
fn hover_a_stale_target_dispatches_nothing() {
    let world = World::new(board());
    let tab = world.open("https://example.com/");
    let menu = world.target(&tab, "Menu", Role::Button);
    world.ok("browser_history", json!({"action": "reload"}));
    world.clear();
    let envelope = world.env("browser_hover", json!({"target": menu}));
    assert_eq!(envelope.facts["reason"], "target_stale");
    assert_eq!(world.methods(), ["page"]);
}

// ----- browser_drag ---------------------------------------------------------------------------

#[test]
fn drag_between_targets() {
    let world = World::new(board());
    let tab = world.open("https://example.com/");
    let card = world.target(&tab, "Card", Role::Control);
    let done = world.target(&tab, "Done", Role::Listbox);
    let envelope = world.ok("browser_drag", json!({"source_target": card, "destination_target": done}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.summary, "Dragged the \"Card\" control to the \"Done\" list box on example.com.");
    assert!(!envelope.repeat_safe);
    assert_eq!(envelope.facts["dragged"], true);
}

#[test]
fn drag_between_points() {
    let world = World::new(board());
    world.open("https://example.com/");
    let view = fact_str(&world.ok("browser_screenshot", json!({})), "view");
    let envelope = world
        .ok("browser_drag", json!({"view": view, "start_x": 10, "start_y": 20, "end_x": 300, "end_y": 40}));
    insta::assert_json_snapshot!(envelope);
    let points = world.points();
    assert_eq!(points.len(), 2);
    assert_eq!((points[0].x, points[0].y, points[1].x, points[1].y), (10.5, 20.5, 300.5, 40.5));
}

#[test]
fn drag_withholds_names_under_privacy() {
    let world =
        World::with_authority(board(), user_authority(json!({"privacy": {"preserve_target_names": false}})));
    world.open("https://example.com/");
    let envelope = world.ok(
        "browser_drag",
        json!({"source_selector": {"name": "Card"}, "destination_selector": {"name": "Done"}}),
    );
    assert_eq!(envelope.summary, "Dragged a control to a list box on example.com.");
}

#[test]
fn drag_with_one_stale_end_dispatches_nothing() {
    let world = World::new(board());
    let tab = world.open("https://example.com/");
    let card = world.target(&tab, "Card", Role::Control);
    world.ok("browser_history", json!({"action": "reload"}));
    let done = world.target(&tab, "Done", Role::Listbox);
    world.clear();
    let envelope = world.env("browser_drag", json!({"source_target": card, "destination_target": done}));
    insta::assert_json_snapshot!(envelope);
    assert_eq!(envelope.facts["reason"], "target_stale");
    assert!(!world.methods().contains(&"drag"));
}

#[test]
fn readiness_comes_from_the_page() {
    let browser =
        board().site("https://example.com/slow", ScriptedPage::new("Slow").readiness(Readiness::Loading));
    let world = World::new(browser);
    world.open("https://example.com/slow");
    assert_eq!(world.ok("browser_scroll", json!({})).readiness, Readiness::Loading);
    assert_eq!(world.ok("browser_screenshot", json!({})).readiness, Readiness::Loading);
}

// ----- inside a sequence or flow (a pinned tab) ----------------------------------------------

impl World {
    /// Run one call as a composite's child does: on `tab`, whose lock the composite holds.
    fn pinned(&self, tab: &str, tool: crate::names::ToolName, arguments: Value) -> Envelope {
        let call = crate::tools::catalog::decode_call(tool, &arguments).unwrap_or_else(|e| panic!("{e}"));
        let handle = Handle::parse(tab, HandleKind::Tab).unwrap_or_else(|e| panic!("{tab}: {e:?}"));
        let slot = self.gl.workspace.slot(&handle).unwrap_or_else(|| panic!("no slot {handle}"));
        let _held = block_on(slot.work.clone().lock_owned());
        let invocation = self.gl.workspace.mint(HandleKind::Invocation);
        let dispatched = std::sync::atomic::AtomicBool::new(false);
        let run = crate::operation::run::Run::new(
            &self.gl.shared,
            &self.gl.workspace,
            self.gl.shared.authority.snapshot(&call.restrictions),
            invocation.clone(),
            call.request.requirement(),
            &dispatched,
            Some(slot),
        );
        block_on(crate::executor::execute(&run, &call.request)).into_parts(&invocation).0
    }
}

#[test]
fn a_composite_may_close_its_own_tab_without_deadlock() {
    use crate::names::ToolName;
    let world = World::new(board());
    let tab = world.open("https://example.com/");
    let closed = world.pinned(&tab, ToolName::Tabs, json!({"action": "close", "tab": tab}));
    assert_eq!(closed.status, Status::Succeeded, "{closed:#?}");
    // Navigating the pinned handle reopens it, still under the composite's lock.
    let reopened = world.pinned(&tab, ToolName::Navigate, json!({"url": "https://example.com/"}));
    assert_eq!(reopened.facts["reopened"], true, "{reopened:#?}");
}

#[test]
fn a_composite_step_cannot_navigate_another_tab_or_open_one() {
    use crate::names::ToolName;
    let world = World::new(board());
    let first = world.open("https://example.com/");
    let second = world.open("https://example.org/");
    world.clear();
    let other =
        world.pinned(&first, ToolName::Navigate, json!({"url": "https://example.com/", "tab": second}));
    assert_eq!(other.facts["reason"], "different_tab", "{other:#?}");
    let fresh =
        world.pinned(&first, ToolName::Navigate, json!({"url": "https://example.com/", "new_tab": true}));
    assert_eq!(fresh.facts["reason"], "different_tab", "{fresh:#?}");
    assert!(world.methods().is_empty(), "{:?}", world.methods());
    let same =
        world.pinned(&first, ToolName::Navigate, json!({"url": "https://example.com/next", "tab": first}));
    assert_eq!(same.status, Status::Succeeded, "{same:#?}");
}

#[test]
fn a_navigation_whose_end_was_not_seen_is_unknown_in_effect_and_readiness() {
    let world = World::new(board());
    let tab = world.open("https://example.com/");
    world
        .browser
        .fail_next("navigate", PortError::new(PortErrorKind::Timeout, "no load event").effect_unknown());
    let envelope = world.env("browser_navigate", json!({"url": "https://example.com/slow", "tab": tab}));
    assert_eq!(
        (envelope.status, envelope.effect, envelope.readiness, envelope.repeat_safe),
        (Status::Unknown, Effect::Unknown, Readiness::Unknown, false),
        "{}",
        envelope.summary
    );
    assert_eq!(envelope.facts["reason"], "timeout");
}

#[test]
fn a_page_that_does_not_load_is_a_network_failure_with_no_effect() {
    let world = World::new(ScriptedBrowser::new());
    let tab = world.open("https://example.com/");
    for arguments in [
        json!({"url": "https://nowhere.invalid/", "tab": tab}),
        json!({"url": "https://nowhere.invalid/", "new_tab": true}),
    ] {
        let envelope = world.env("browser_navigate", arguments);
        assert_eq!(
            (envelope.status, envelope.effect),
            (Status::Failed, Effect::None),
            "{}",
            envelope.summary
        );
        assert_eq!(envelope.facts["reason"], "network_error");
        assert_eq!(envelope.facts["network_error"], "name_not_resolved");
        assert_eq!(envelope.facts["browser_code"], "ERR_NAME_NOT_RESOLVED");
        assert_eq!(
            envelope.summary,
            "Could not navigate to nowhere.invalid: the host name does not resolve (ERR_NAME_NOT_RESOLVED); \
             nothing was loaded."
        );
        assert_eq!(envelope.next_steps.len(), 1);
    }
}

#[test]
fn a_tab_the_page_opens_joins_the_workspace_and_the_click_says_so() {
    let page = ScriptedPage::new("Home").element(ScriptedElement::button("Open help").opens_tab("/help"));
    let help = ScriptedPage::new("Help").text("How to use this site");
    let browser =
        ScriptedBrowser::new().site("https://example.com/", page).site("https://example.com/help", help);
    let world = World::new(browser);
    let tab = world.open("https://example.com/");
    let button = world.target(&tab, "Open help", Role::Button);
    let clicked = world.ok("browser_click", json!({"target": button, "tab": tab}));
    let opened = &clicked.facts["opened_tabs"];
    let popup = opened[0]["tab"].as_str().expect("the new tab's handle").to_owned();
    assert_ne!(popup, tab);
    assert_eq!(opened[0]["url"], "https://example.com/help");
    assert_eq!(opened[0]["title"], "Help");
    assert_eq!(
        clicked.summary,
        format!(
            "Clicked the \"Open help\" button on example.com; the page opened a new tab, {popup} on example.com."
        )
    );
    let read = world.ok("browser_read", json!({"tab": popup}));
    assert_eq!(read.facts["text"], "How to use this site");
    let listed = world.ok("browser_tabs", json!({"action": "list"}));
    assert_eq!(listed.facts["tabs"].as_array().map(Vec::len), Some(2));
    let again = world.ok("browser_read", json!({"tab": tab}));
    assert!(again.facts.get("opened_tabs").is_none(), "a read never adopts tabs");
}

#[test]
fn a_tab_the_page_opens_past_the_tab_limit_is_closed_and_the_click_says_so() {
    let page = ScriptedPage::new("Home").element(ScriptedElement::button("Open help").opens_tab("/help"));
    let browser = ScriptedBrowser::new()
        .site("https://example.com/", page)
        .site("https://example.com/help", ScriptedPage::new("Help"));
    let browser = Arc::new(browser);
    let limits = crate::WorkspaceLimits { tabs: 1, ..crate::WorkspaceLimits::default() };
    let gl = Ghostlight::builder(browser.clone()).limits(limits).deterministic_handles().build();
    let world = World { browser, gl };
    let tab = world.open("https://example.com/");
    let button = world.target(&tab, "Open help", Role::Button);
    let clicked = world.ok("browser_click", json!({"target": button, "tab": tab}));
    assert_eq!(clicked.facts["closed_tabs"], 1, "{:?}", clicked.facts);
    assert!(clicked.facts.get("opened_tabs").is_none());
    assert_eq!(
        clicked.summary,
        "Clicked the \"Open help\" button on example.com; the page opened a tab past this session's limit \
         of 1, and Ghostlight closed it."
    );
    assert!(world.browser.method_names().contains(&"close_tab"));
    let listed = world.ok("browser_tabs", json!({"action": "list"}));
    assert_eq!(listed.facts["tabs"].as_array().map(Vec::len), Some(1));
}

#[test]
fn a_click_whose_page_closes_its_own_tab_says_so() {
    let page = ScriptedPage::new("Home").element(ScriptedElement::button("Close"));
    let world = World::new(ScriptedBrowser::new().site("https://example.com/", page));
    let tab = world.open("https://example.com/");
    let button = world.target(&tab, "Close", Role::Button);
    let gone = PortError::new(PortErrorKind::TabGone, "no such window").effect_unknown();
    world.browser.fail_next("click", gone);
    let clicked = world.ok("browser_click", json!({"target": button, "tab": tab}));
    assert_eq!(clicked.effect, Effect::Applied);
    assert!(!clicked.repeat_safe);
    assert_eq!(
        clicked.summary,
        format!(
            "Clicked the \"Close\" button on example.com; the page then closed its own tab, so {tab} no longer shows it."
        )
    );
    let read = world.env("browser_read", json!({"tab": tab}));
    assert_eq!(read.facts["reason"], "tab_closed", "{}", read.summary);
}

#[test]
fn the_default_tab_ignores_a_tab_that_closed_meanwhile() {
    let world = World::new(ScriptedBrowser::new());
    let first = world.open("https://example.com/");
    let second = world.open("https://example.org/");
    // The page of the second tab closes it (the workspace still holds its handle), and a tab
    // no workspace controls is the one selected.
    let port: &dyn crate::port::BrowserPort = world.browser.as_ref();
    block_on(port.close_tab(&world.tab_ref(&second))).unwrap_or_else(|e| panic!("{e}"));
    let elsewhere = NavigateInput {
        url: url::Url::parse("https://example.net/").expect("a URL"),
        discard_beforeunload: false,
    };
    block_on(port.open_tab(&elsewhere, Duration::from_secs(1))).unwrap_or_else(|e| panic!("{e}"));
    let read = world.ok("browser_read", json!({}));
    assert_eq!(read.facts["tab"], first.as_str(), "the only open tab is the default");
    let listed = world.ok("browser_tabs", json!({"action": "list"}));
    assert_eq!(listed.facts["count"], 1);
}

// ----- a step scroll in the page last seen -------------------------------------------------------

#[test]
fn a_step_scroll_runs_in_the_page_last_seen_and_never_twice() {
    let world = World::new(board());
    world.open("https://example.com/");
    // The port reads the page state, then scrolls, only in the expected document (the
    // scripted port's two-step default of `scroll_in`): no page-state read of the executor's
    // own before it.
    world.clear();
    let stepped = world.ok("browser_scroll", json!({"direction": "down"}));
    assert_eq!(world.methods(), ["page", "scroll"], "{stepped:#?}");
    assert_eq!(stepped.facts["scrolled"], true);

    // A failure that may have scrolled is reported: the step is not tried again.
    world.clear();
    world.browser.fail_next("scroll", PortError::transport("connection reset").effect_unknown());
    let lost = world.env("browser_scroll", json!({"direction": "down"}));
    assert_eq!(lost.status, Status::Unknown, "{lost:#?}");
    assert_eq!(lost.effect, Effect::Unknown, "{lost:#?}");
    assert_eq!(world.methods(), ["page", "scroll"], "one scroll, never two");

    // A failure that left nothing done takes the ordinary way: observe, authorize, scroll.
    world.clear();
    world.browser.fail_next("scroll", PortError::new(PortErrorKind::Other, "the page answered nothing"));
    let again = world.ok("browser_scroll", json!({"direction": "up"}));
    assert_eq!(world.methods(), ["page", "scroll", "page", "scroll"], "{again:#?}");
    assert_eq!(again.facts["scrolled"], true);
}
