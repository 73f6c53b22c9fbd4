//! Reading and perceiving the page: `read_text`, `perceive`, `find_text`,
//! `focused_element`, `element_present`, `text_present`.
//!
//! Not implemented yet. The plan is in `docs/webdriver-findings.md` §2 (one bounded script
//! per same-origin frame, `docs/perceive-spike.js`); build element references with
//! `Session::element_ref(handle, &frames, id)`.

use ghostlight_core::port::{
    ElementRef, PerceiveInput, PerceivedElement, Perception, PortResult, ReadInput, TabRef, TextOutcome,
};

use super::not_implemented;
use crate::session::Session;

/// Read text of the page or of one element.
pub(crate) async fn read_text(s: &mut Session, tab: &TabRef, input: &ReadInput) -> PortResult<TextOutcome> {
    let _ = (s, tab, input);
    Err(not_implemented("read_text"))
}

/// Perceive semantic elements.
pub(crate) async fn perceive(s: &mut Session, tab: &TabRef, input: &PerceiveInput) -> PortResult<Perception> {
    let _ = (s, tab, input);
    Err(not_implemented("perceive"))
}

/// Elements whose name or visible text contains `text`.
pub(crate) async fn find_text(
    s: &mut Session,
    tab: &TabRef,
    text: &str,
    controls_only: bool,
    max: usize,
) -> PortResult<Vec<PerceivedElement>> {
    let _ = (s, tab, text, controls_only, max);
    Err(not_implemented("find_text"))
}

/// The focused element, if any.
pub(crate) async fn focused_element(s: &mut Session, tab: &TabRef) -> PortResult<Option<PerceivedElement>> {
    let _ = (s, tab);
    Err(not_implemented("focused_element"))
}

/// Whether `element` is still attached and visible.
pub(crate) async fn element_present(s: &mut Session, tab: &TabRef, element: &ElementRef) -> PortResult<bool> {
    let _ = (s, tab, element);
    Err(not_implemented("element_present"))
}

/// Whether visible text of the page contains `text`.
pub(crate) async fn text_present(s: &mut Session, tab: &TabRef, text: &str) -> PortResult<bool> {
    let _ = (s, tab, text);
    Err(not_implemented("text_present"))
}
