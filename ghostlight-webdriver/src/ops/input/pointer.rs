//! Click, hover and drag through the WebDriver Actions API.
//!
//! - **Where.** An element target is scrolled to the centre of the view (instantly), then
//!   hit tested at its in-view centre point with `elementFromPoint` in its own document,
//!   through open shadow roots. When the topmost element there is neither the target, nor
//!   inside it (in a frame it holds included), nor a `<label>` whose control is the target,
//!   the operation answers
//!   [`PortError::obstructed`] naming the covering element, and nothing is clicked. A top-
//!   document element is then pointed at exactly the point that was hit tested (viewport
//!   origin); an element inside a frame is pointed at with the element origin (its in-view
//!   centre, computed by the driver in the frame). Where the window has a BiDi sandbox (every
//!   window but a Chromium popup with an opener), an element target's hit test runs there
//!   instead, once, answering the frames its point goes into, and an element in a frame is
//!   aimed at from the top document ([`aim_sandboxed`]). A viewport [`Point`] is used as given
//!   (floored to whole CSS pixels); the receipt describes the element there (or its nearest
//!   named ancestor).
//! - **Modifiers** of a click or hover are a key input source beside the pointer: the keys
//!   go down in the ticks before the pointer's first action and up in the ticks after its
//!   last, so every pointer event (and the `click`) carries them (`shiftKey`, `altKey`…) on
//!   both drivers.
//! - **Clicks** are one pointer move then `count` down/up pairs of the button; both drivers
//!   count consecutive clicks at one place as double and triple clicks (`dblclick`,
//!   `detail`). Actions rather than `Element Click` for every click: one path for every
//!   button and count, and the point clicked is the point hit tested.
//! - **Drag** is a press, a small lift move, a timed move onto the destination, a second
//!   short move there, and a release. A source that is (or is inside) an element with
//!   `draggable="true"` is an HTML5 drag: Chromium performs it from these Actions; Firefox
//!   starts it but never drops (findings §4), so on Firefox it is done by the script events of
//!   `scripts/input/drag_html5.js` (untrusted events; the receipt looks the same). Element
//!   targets of one drag must share a document; a frame's element cannot be dragged to or
//!   from a viewport point (`Unsupported`). Two elements: the source is scrolled into view
//!   and the destination must then be in view too; with a point involved nothing is
//!   scrolled (the point belongs to the current view).

use std::sync::LazyLock;
use std::time::Duration;

use super::actions::{
    Input, KeyStep, MOUSE_BUTTON_LEFT, MOUSE_BUTTON_MIDDLE, MOUSE_BUTTON_RIGHT, PointerStep, Source,
};
use fantoccini::elements::Element as WdElement;
use ghostlight_core::port::{
    ActionReceipt, ClickInput, ElementRef, ElementSummary, Gate, HoverInput, PageState, Point, PointerTarget,
    PortError, PortErrorKind, PortResult, TabRef,
};
use ghostlight_core::port::{Modifier, MouseButton};
use serde::Deserialize;
use serde_json::{Value, json};

use super::keyboard::{KEYBOARD_ID, modifier_value};
use super::{after, before_state, compose, element_arg, perform, pixel, resolve, run};
use tokio::time::Instant;
use url::Url;

use crate::bidi::Bidi;
use crate::config::Engine;
use crate::errors::Sent;
use crate::ops::frames;
use crate::refs;
use crate::session::Session;
use ghostlight_page::bounds::NAME_MAX_CHARS;
use ghostlight_page::input::{HitTest, click_count};
use ghostlight_page::scripts::input::{FRAME_POINT_BODY, TARGET_BODY};

/// The hit test (`scripts/input/target.js`).
static TARGET: LazyLock<String> = LazyLock::new(|| compose(TARGET_BODY));
/// The scripted HTML5 drag for Firefox (`scripts/input/drag_html5.js`).
static DRAG_HTML5: LazyLock<String> =
    LazyLock::new(|| compose(ghostlight_page::scripts::input::DRAG_HTML5_BODY));

/// The id of the pointer input source.
const POINTER_ID: &str = "ghostlight-mouse";
/// How far the pointer moves right after the press, so that the page sees a drag begin.
const DRAG_LIFT: f64 = 5.0;
/// How long the move onto the destination takes (the driver interpolates moves).
const DRAG_MOVE: Duration = Duration::from_millis(300);
/// How long the short moves of a drag take.
const DRAG_NUDGE: Duration = Duration::from_millis(50);

/// The answer of the hit-test script.
#[derive(Debug, Deserialize)]
struct Probe {
    #[serde(flatten)]
    hit: HitTest,
    #[serde(default)]
    draggable: bool,
    state: Option<Value>,
    /// The URL of the document the script ran in.
    #[serde(default)]
    url: Option<String>,
    /// A point's way through frames.
    #[serde(flatten)]
    trace: frames::Trace,
}

/// How the pointer reaches a target.
#[derive(Debug, Clone)]
enum Origin {
    /// A viewport point of the top document.
    Viewport { x: i64, y: i64 },
    /// The in-view centre of an element in a frame (the driver computes it).
    Element(WdElement),
}

impl Origin {
    /// A pointer move onto this origin.
    fn move_to(&self, duration: Option<Duration>) -> PointerStep {
        match self {
            Origin::Viewport { x, y } => PointerStep::MoveTo { duration, x: *x as f64, y: *y as f64 },
            Origin::Element(element) => {
                PointerStep::MoveToElement { element: element.element_id().to_string(), duration }
            }
        }
    }
}

/// A located pointer target.
#[derive(Debug)]
struct Located {
    origin: Origin,
    /// The element (element targets).
    element: Option<WdElement>,
    /// The point (point targets, floored).
    point: Option<(i64, i64)>,
    summary: Option<ElementSummary>,
    draggable: bool,
    before: PageState,
}

/// How to locate a target.
#[derive(Debug, Clone, Copy)]
struct Locate {
    /// Scroll an element target to the centre of the view first.
    scroll: bool,
    /// Refuse an element target covered by another element.
    check: bool,
    /// Aim at an element in a frame from the top document when its point can be carried up
    /// ([`aim_sandboxed`]); otherwise (and for drags, whose scripted form runs in the frame) the
    /// driver enters the frame.
    from_top: bool,
}

/// Click.
pub(super) async fn click(
    s: &mut Session,
    tab: &TabRef,
    input: &ClickInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    click_count(input.count)?;
    let deadline = Instant::now() + timeout;
    let seen = s.noted_page();
    s.set_script_timeout(timeout).await?;
    let how = Locate { scroll: true, check: true, from_top: true };
    let at = locate(s, tab, &input.at, gate, how, seen).await?;
    let button = button(input.button);
    let mut pointer = vec![at.origin.move_to(None)];
    for _ in 0..input.count {
        pointer.push(PointerStep::Down { button });
        pointer.push(PointerStep::Up { button });
    }
    perform(s, holding(&input.modifiers, pointer)).await?;
    let page = after(s, at.before, deadline).await?;
    Ok(ActionReceipt { element: at.summary, page, keys_withheld: 0 })
}

/// Move the pointer over a target.
pub(super) async fn hover(
    s: &mut Session,
    tab: &TabRef,
    input: &HoverInput,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    let deadline = Instant::now() + timeout;
    let seen = s.noted_page();
    s.set_script_timeout(timeout).await?;
    let how = Locate { scroll: true, check: true, from_top: true };
    let at = locate(s, tab, &input.at, gate, how, seen).await?;
    perform(s, holding(&input.modifiers, vec![at.origin.move_to(None)])).await?;
    let page = after(s, at.before, deadline).await?;
    Ok(ActionReceipt { element: at.summary, page, keys_withheld: 0 })
}

/// Drag from one target to another.
pub(super) async fn drag(
    s: &mut Session,
    tab: &TabRef,
    from: &PointerTarget,
    to: &PointerTarget,
    gate: &Gate,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    let (source_frames, target_frames) = (frames_of(from)?, frames_of(to)?);
    match (&source_frames, &target_frames) {
        (Some(a), Some(b)) if a != b => {
            return Err(PortError::new(
                PortErrorKind::Unsupported,
                "dragging between elements of different frames is not supported",
            ));
        }
        (Some(frames), None) | (None, Some(frames)) if !frames.is_empty() => {
            return Err(PortError::new(
                PortErrorKind::Unsupported,
                "dragging between an element in a frame and a viewport point is not supported",
            ));
        }
        _ => {}
    }
    let deadline = Instant::now() + timeout;
    s.set_script_timeout(timeout).await?;
    let both_elements = source_frames.is_some() && target_frames.is_some();
    let how = Locate { scroll: both_elements, check: true, from_top: false };
    let source = locate(s, tab, from, gate, how, None).await?;
    let how = Locate { scroll: false, check: false, from_top: false };
    let target = match locate(s, tab, to, gate, how, None).await {
        Ok(target) => target,
        Err(e) if e.kind() == PortErrorKind::InvalidInput => {
            return Err(PortError::new(
                PortErrorKind::InvalidInput,
                "the drop target is not in view together with the drag source",
            ));
        }
        Err(e) => return Err(e),
    };
    if source.draggable && s.engine() == Engine::Firefox {
        scripted_html5_drag(s, &source, &target).await?;
    } else {
        let button = MOUSE_BUTTON_LEFT;
        let mouse = Source::pointer(POINTER_ID)
            .then(source.origin.move_to(None))
            .then(PointerStep::Down { button })
            .then(PointerStep::MoveBy { duration: Some(DRAG_NUDGE), x: DRAG_LIFT, y: DRAG_LIFT })
            .then(target.origin.move_to(Some(DRAG_MOVE)))
            .then(target.origin.move_to(Some(DRAG_NUDGE)))
            .then(PointerStep::Up { button });
        perform(s, mouse).await?;
    }
    let page = after(s, source.before, deadline).await?;
    Ok(ActionReceipt { element: source.summary, page, keys_withheld: 0 })
}

/// The HTML5 drag by script events (Firefox; see the module docs). The driver is in the
/// targets' document: the last `locate` switched there.
async fn scripted_html5_drag(s: &mut Session, source: &Located, target: &Located) -> PortResult<()> {
    let element = |located: &Located| located.element.as_ref().map(element_arg).transpose();
    let point = |located: &Located| located.point.map(|(x, y)| json!({ "x": x, "y": y }));
    let args = vec![
        element(source)?.unwrap_or(Value::Null),
        point(source).unwrap_or(Value::Null),
        element(target)?.unwrap_or(Value::Null),
        point(target).unwrap_or(Value::Null),
    ];
    #[derive(Deserialize)]
    struct Dragged {
        status: String,
    }
    let answer: Dragged = run(s, &DRAG_HTML5, args, Sent::Act).await?;
    match answer.status.as_str() {
        "ok" => Ok(()),
        _ => Err(PortError::new(PortErrorKind::InvalidInput, "nothing to drag or drop onto was found")),
    }
}

/// The frame path of an element target (`None` for a point).
fn frames_of(target: &PointerTarget) -> PortResult<Option<Vec<String>>> {
    match target {
        PointerTarget::Element(element) => Ok(Some(refs::Element::parse(element)?.frames)),
        PointerTarget::Point(_) => Ok(None),
    }
}

/// Locate a pointer target (see the module docs), refusing one that lands in a document
/// `gate` refuses (a point in such a frame, or an element in one). `seen`: the page state the
/// last command read and the window it read it in ([`Session::noted_page`]), taken before the
/// call sent anything.
async fn locate(
    s: &mut Session,
    tab: &TabRef,
    at: &PointerTarget,
    gate: &Gate,
    how: Locate,
    seen: Option<(String, PageState)>,
) -> PortResult<Located> {
    let options = |state: bool| json!({ "scroll": how.scroll, "check": how.check, "state": state, "cap": NAME_MAX_CHARS });
    match at {
        PointerTarget::Element(element) => {
            if how.from_top
                && let Some(located) = locate_from_top(s, tab, element, options(false), gate, seen).await?
            {
                return Ok(located);
            }
            let resolved = resolve(s, tab, element).await?;
            let args = vec![resolved.arg()?, Value::Null, options(resolved.wants_state())];
            let mut probe: Probe = run(s, &TARGET, args, Sent::Read).await?;
            let before = before_state(resolved.before.clone(), probe.state.take())?;
            probe.hit.accept()?;
            if resolved.in_frame {
                frames::admit(gate, probe.url.as_deref().unwrap_or_default())?;
            }
            let origin = if resolved.in_frame {
                Origin::Element(resolved.element.clone())
            } else {
                let (x, y) = probe.hit.point()?;
                let (x, y) = (pixel(x)?, pixel(y)?);
                // Where the input lands, traced where the page cannot mislead the trace (a
                // page's realm could report its element uncovered while a frame covers it);
                // the page realm's own trace serves a window without a sandbox.
                let trace = Some(std::mem::take(&mut probe.trace));
                frames::check_point(s, tab, x as f64, y as f64, trace, gate).await?;
                Origin::Viewport { x, y }
            };
            Ok(Located {
                origin,
                element: Some(resolved.element),
                point: None,
                summary: probe.hit.summary(),
                draggable: probe.draggable,
                before,
            })
        }
        PointerTarget::Point(Point { x, y }) => {
            let (x, y) = (pixel(*x)?, pixel(*y)?);
            s.tab(tab).await?;
            let args = vec![Value::Null, json!({ "x": x, "y": y }), options(true)];
            let mut probe: Probe = run(s, &TARGET, args, Sent::Read).await?;
            let before = before_state(None, probe.state.take())?;
            probe.hit.accept()?;
            let trace = Some(std::mem::take(&mut probe.trace));
            frames::check_point(s, tab, x as f64, y as f64, trace, gate).await?;
            Ok(Located {
                origin: Origin::Viewport { x, y },
                element: None,
                point: Some((x, y)),
                summary: probe.hit.summary(),
                draggable: probe.draggable,
                before,
            })
        }
    }
}

/// An element of `tab`, located from the top document with every check in a sandbox realm
/// ([`aim_sandboxed`]): no Switch To Frame, and no hit test the page could mislead. `None` where
/// the window has no sandbox, or for an element this way cannot aim at (the caller then enters
/// its frame). The page before acting is `seen` when that is a reading of this window by the
/// command just before (a selector's perception) of the document the hit test ran in, else
/// it is read.
async fn locate_from_top(
    s: &mut Session,
    tab: &TabRef,
    element: &ElementRef,
    options: Value,
    gate: &Gate,
    seen: Option<(String, PageState)>,
) -> PortResult<Option<Located>> {
    let decoded = s.element_of(tab, element)?;
    let handle = s.tab(tab).await?;
    if s.sandbox_for(&handle, frames::SANDBOX_WAIT).await?.is_none() {
        return Ok(None);
    }
    // Read first (when not just read): a page read refuses at once while a dialog is open,
    // where a BiDi script would wait for the dialog to close.
    let before = match seen {
        Some((window, page)) if window == handle => page,
        _ => s.page_state().await?,
    };
    if let Some(kind) = s.announced_prompt() {
        return Err(PortError::blocked_by(kind, "a dialog blocks the page"));
    }
    let Some(bidi) = s.sandbox_for(&handle, frames::SANDBOX_WAIT).await? else { return Ok(None) };
    let Some(mut aimed) = aim_sandboxed(bidi, &handle, &decoded, options, gate).await? else {
        return Ok(None);
    };
    // The hit test ran in the document read before, unless the page changed its URL meanwhile:
    // then it is read again.
    let before = if Url::parse(&aimed.top_url).is_ok_and(|url| url == before.url) {
        before
    } else {
        s.page_state().await?
    };
    Ok(Some(Located {
        origin: Origin::Viewport { x: aimed.x, y: aimed.y },
        // (Only a drag's scripted form uses the element, and drags are located the classic way.)
        element: None,
        point: None,
        summary: aimed.probe.hit.summary(),
        draggable: aimed.probe.draggable,
        before,
    }))
}

/// An element aimed at from the top document.
struct FromTop {
    /// The hit test in the element's own document.
    probe: Probe,
    /// The point in the top document's viewport (floored).
    x: i64,
    y: i64,
    /// The URL of the top document, as read in its sandbox.
    top_url: String,
}

/// The answer of `scripts/input/frame_point.js`.
#[derive(Debug, Deserialize)]
struct FramePoint {
    #[serde(flatten)]
    hit: HitTest,
    /// The URL of the document holding the frame element.
    url: String,
}

/// Aim at `element` of window `top` (a window handle is its BiDi context id) from the top
/// document, over `bidi`, so that pointer input needs no Switch To Frame (16–22 ms each way on
/// chromedriver) and no check runs where the page could mislead it: every step runs in a
/// document's sandbox realm, addressed by browsing context. The element's document is found
/// frame by frame ([`frames::contexts_within`]); the hit test (`target.js`, `options`) runs
/// there, a frame document must be one `gate` admits, and where the hit went into frames
/// (the target is or holds one) the point is followed through them
/// ([`frames::check_sandboxed`]). Then the point is carried up through each frame's parent
/// (`frame_point.js`), where the frame element must be what is topmost at the point (an
/// element of the parent covering the frame there refuses the input as covered) and each
/// parent frame document must be admitted too. Translated and scaled frames are aimed
/// through; a rotated, skewed or 3D-transformed one is refused ([`PortErrorKind::Unsupported`]:
/// entering the frame would click beside the element, as both drivers place an element-origin
/// move by offsets alone). `Ok(None)` when offsets cannot tell where the input would land once
/// the element's document was admitted here (a zoomed frame, a point outside a parent's view):
/// the caller then enters the frame. A step that fails here (no answer in time, a frame gone)
/// fails the call: the element's document is never judged in its own realm where the window
/// has a sandbox ([`Session::sandbox_for`]).
async fn aim_sandboxed(
    bidi: &Bidi,
    top: &str,
    element: &refs::Element,
    options: Value,
    gate: &Gate,
) -> PortResult<Option<FromTop>> {
    let shape = || PortError::new(PortErrorKind::Other, "a frame's hit test answered an unexpected shape");
    let contexts = frames::contexts_within(bidi, top, &element.frames).await?;
    let inner = contexts.last().map_or(top, String::as_str);
    let args = [json!({ frames::ELEMENT_KEY: element.id }), Value::Null, options];
    let answer = frames::apply_sandboxed(bidi, inner, TARGET_BODY, &args).await?;
    let mut probe: Probe = serde_json::from_value(answer).map_err(|_| shape())?;
    // The URL of the document the point is in, up to the top document's.
    let mut url = probe.url.clone().unwrap_or_default();
    if !element.frames.is_empty() {
        frames::admit(gate, &url)?;
    }
    // Input at the point goes into frames (the target is or holds one, or one covers it):
    // their documents are judged first, so a refused frame is named as such.
    if (!probe.trace.frames.is_empty() || probe.trace.cross.is_some())
        && let Ok((x, y)) = probe.hit.point()
    {
        frames::check_sandboxed(bidi, inner, x, y, gate).await?;
    }
    probe.hit.accept()?;
    let (mut x, mut y) = probe.hit.point()?;
    for (level, frame) in element.frames.iter().enumerate().rev() {
        let parent = contexts.get(level).map_or(top, String::as_str);
        let args =
            [json!({ frames::ELEMENT_KEY: frame }), json!(x), json!(y), json!({ "cap": NAME_MAX_CHARS })];
        let answer = frames::apply_sandboxed(bidi, parent, FRAME_POINT_BODY, &args).await?;
        let mut point: FramePoint = serde_json::from_value(answer).map_err(|_| shape())?;
        if level > 0 {
            frames::admit(gate, &point.url)?;
        }
        match point.hit.status.as_str() {
            "ok" | "covered" => point.hit.accept()?,
            "reshaped" => {
                return Err(PortError::new(
                    PortErrorKind::Unsupported,
                    "the element is in a frame that is rotated, skewed or transformed in 3D: pointer input cannot be aimed there",
                ));
            }
            _ => return Ok(None),
        }
        (x, y) = point.hit.point()?;
        url = point.url;
    }
    Ok(Some(FromTop { probe, x: pixel(x)?, y: pixel(y)?, top_url: url }))
}

/// `pointer`'s actions with `modifiers` held: a key source presses them in the ticks before
/// the pointer's first action (the pointer pauses) and releases them, in reverse, in the
/// ticks after its last. No modifiers: the pointer source alone.
fn holding(modifiers: &[Modifier], pointer: Vec<PointerStep>) -> Input {
    let mut mouse = Source::pointer(POINTER_ID);
    if modifiers.is_empty() {
        for action in pointer {
            mouse = mouse.then(action);
        }
        return Input::from(mouse);
    }
    let mut keys = Source::keys(KEYBOARD_ID);
    for modifier in modifiers {
        keys = keys.key(KeyStep::Down(modifier_value(*modifier)));
        mouse = mouse.then(PointerStep::Pause);
    }
    for action in pointer {
        keys = keys.key(KeyStep::Pause);
        mouse = mouse.then(action);
    }
    for modifier in modifiers.iter().rev() {
        keys = keys.key(KeyStep::Up(modifier_value(*modifier)));
        mouse = mouse.then(PointerStep::Pause);
    }
    Input::from(keys).and(mouse)
}

/// The WebDriver button number.
fn button(button: MouseButton) -> u64 {
    match button {
        MouseButton::Primary => MOUSE_BUTTON_LEFT,
        MouseButton::Middle => MOUSE_BUTTON_MIDDLE,
        MouseButton::Secondary => MOUSE_BUTTON_RIGHT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_carry_the_hit_test_beside_the_trace() {
        let probe: Probe = serde_json::from_value(json!({
            "status": "covered", "x": 1.5, "y": 2.0, "by": {"role": "dialog", "name": "Cookies"},
            "draggable": true, "url": "http://127.0.0.1/",
        }))
        .expect("a probe");
        let mut hit = probe.hit;
        assert_eq!(hit.point().ok(), Some((1.5, 2.0)));
        let covered = hit.accept().expect_err("covered");
        assert_eq!(covered.obstruction().map(|by| by.role.as_str()), Some("dialog"));
        assert!(probe.draggable);
    }

    #[test]
    fn buttons_map_to_webdriver_numbers() {
        assert_eq!(button(MouseButton::Primary), 0);
        assert_eq!(button(MouseButton::Middle), 1);
        assert_eq!(button(MouseButton::Secondary), 2);
    }
}
