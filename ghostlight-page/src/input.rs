//! The input scripts' answers (`scripts/input/`), one copy for every connector: the hit
//! test's statuses, the focus script's, the key guard's counts, the scroll script's reads,
//! and the bounds input keeps to.

use std::time::Duration;

use ghostlight_core::port::{ElementSummary, PortError, PortErrorKind, PortResult, ScrollDirection};
use serde::Deserialize;
use serde_json::Value;

/// The most clicks one click may be (a triple click).
pub const MAX_CLICKS: u8 = 3;
/// The largest viewport fraction one `By` scroll may move.
pub const MAX_FRACTION: f64 = 100.0;
/// Time between two reads of the scroll offsets while waiting for them to settle.
pub const SETTLE_STEP: Duration = Duration::from_millis(100);
/// The longest wait for scroll offsets to settle.
pub const SETTLE_CAP: Duration = Duration::from_millis(1000);
/// How long unchanged offsets after wheel input count as "did not scroll" (Firefox's smooth
/// scroll shows no movement for its first 100–200 ms).
pub const QUIET_WHEEL: Duration = Duration::from_millis(400);
/// The largest coordinate or delta accepted, in CSS pixels.
pub const MAX_COORDINATE: f64 = 1_000_000.0;

/// A role and name as the input scripts answer them.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RawSummary {
    /// The role token.
    pub role: String,
    /// The accessible name (empty: none).
    pub name: Option<String>,
}

impl From<RawSummary> for ElementSummary {
    fn from(raw: RawSummary) -> Self {
        ElementSummary { role: raw.role, name: raw.name.filter(|name| !name.is_empty()) }
    }
}

/// The hit test's answer (`scripts/input/target.js`), the part every connector reads; a
/// connector flattens it into its own answer type beside what its composition adds.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct HitTest {
    /// `ok`, or why the target cannot take pointer input ([`hit_status`]).
    pub status: String,
    /// The point's viewport x (an element target's in-view centre).
    pub x: Option<f64>,
    /// The point's viewport y.
    pub y: Option<f64>,
    /// The element at the point.
    pub summary: Option<RawSummary>,
    /// What covers an element target.
    pub by: Option<RawSummary>,
}

impl HitTest {
    /// The hit test's refusal as the port's error ([`hit_status`]).
    pub fn accept(&mut self) -> PortResult<()> {
        hit_status(&self.status, self.by.take())
    }

    /// The point the hit test answered.
    pub fn point(&self) -> PortResult<(f64, f64)> {
        self.x
            .zip(self.y)
            .ok_or_else(|| PortError::new(PortErrorKind::Other, "the hit test answered no point"))
    }

    /// The element at the point, as the port's summary.
    pub fn summary(&mut self) -> Option<ElementSummary> {
        self.summary.take().map(Into::into)
    }
}

/// The hit test's `status` (`scripts/input/target.js`) as the port's answer: `ok` passes;
/// `covered` is [`PortError::obstructed`] naming what covers the element (`by`).
pub fn hit_status(status: &str, by: Option<RawSummary>) -> PortResult<()> {
    match status {
        "ok" => Ok(()),
        "covered" => Err(PortError::obstructed(by.map(Into::into))),
        "nobox" => Err(PortError::new(
            PortErrorKind::InvalidInput,
            "the element is not shown (hidden, inert or without a box)",
        )),
        "outside" => Err(outside()),
        _ => Err(PortError::new(PortErrorKind::Other, "the hit test answered an unknown status")),
    }
}

/// Refuse a click of other than one to [`MAX_CLICKS`] clicks.
pub fn click_count(count: u8) -> PortResult<()> {
    if !(1..=MAX_CLICKS).contains(&count) {
        return Err(PortError::new(PortErrorKind::InvalidInput, "a click is one to three clicks"));
    }
    Ok(())
}

/// A point outside the viewport.
pub fn outside() -> PortError {
    PortError::new(PortErrorKind::InvalidInput, "the point is outside the viewport")
}

/// A finite coordinate or delta within [`MAX_COORDINATE`], floored.
pub fn coordinate(value: f64) -> PortResult<f64> {
    if !value.is_finite() || value.abs() > MAX_COORDINATE {
        return Err(PortError::new(PortErrorKind::InvalidInput, "a coordinate is not a usable number"));
    }
    Ok(value.floor())
}

/// The focus script's answer (`scripts/input/focus.js`).
#[derive(Debug, Clone, Deserialize)]
pub struct FocusAnswer {
    /// `ok`, or why focus did not land.
    pub status: String,
    /// The focused element.
    pub summary: Option<RawSummary>,
    /// Whether the element's value was cleared.
    #[serde(default)]
    pub clear: bool,
    /// Whether the element had focus before the script focused it.
    #[serde(default)]
    pub already: bool,
    /// The page state, when asked for.
    pub state: Option<Value>,
}

impl FocusAnswer {
    /// Refuse a focus that did not land.
    pub fn landed(&self) -> PortResult<()> {
        match self.status.as_str() {
            "ok" => Ok(()),
            "file" => {
                Err(PortError::new(PortErrorKind::InvalidInput, "text cannot be typed into a file input"))
            }
            "unfocusable" => {
                Err(PortError::new(PortErrorKind::InvalidInput, "the element cannot take keyboard focus"))
            }
            "nofocus" => Err(PortError::new(PortErrorKind::InvalidInput, "no element has keyboard focus")),
            "focused" => {
                Err(PortError::new(PortErrorKind::TargetStale, "an element took focus after it was checked"))
            }
            _ => Err(PortError::new(PortErrorKind::Other, "the focus script answered an unknown status")),
        }
    }
}

/// The key guard's counts (`scripts/input/key_guard.js`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct GuardCounts {
    /// Key presses the guard cancelled.
    #[serde(default)]
    pub withheld: usize,
    /// Key presses this document saw.
    #[serde(default)]
    pub seen: usize,
    /// Whether focus moved into another document meanwhile.
    #[serde(default)]
    pub crossed: bool,
    /// Whether the guard was gone (the document changed).
    #[serde(default)]
    pub missing: bool,
}

/// A name for one key guard on the page, not guessable ahead by the page.
pub fn guard_nonce() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()),
    );
    hasher.write_u64(u64::from(std::process::id()));
    format!("__ghostlight_keys_{:016x}", hasher.finish())
}

/// One read of the offsets the scroll script noted (`scripts/input/scroll.js`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ScrollRead {
    /// `ok`, or `outside` (a wheel point outside the viewport), `stale`, …
    pub status: String,
    /// The noted scroll offsets.
    #[serde(default)]
    pub offsets: Vec<f64>,
    /// Whether any changed.
    #[serde(default)]
    pub changed: bool,
    /// The top document's horizontal offset.
    #[serde(default)]
    pub x: f64,
    /// The top document's vertical offset.
    #[serde(default)]
    pub y: f64,
    /// Whether the window a step (`By`) scrolled snaps (CSS `scroll-snap-type`), so its
    /// offsets may still move after this read.
    #[serde(default)]
    pub snaps: bool,
}

impl ScrollRead {
    /// Whether this answer of an instant step (`By`) is its outcome: an instant `scrollBy` is
    /// final when its script answers on both engines, unless the window snaps (the snap may
    /// still move it, smoothly under `scroll-behavior: smooth`).
    pub fn step_is_final(&self) -> bool {
        !self.snaps
    }

    /// Whether the offsets settled: `now` agrees with the read before it and either moved or
    /// stayed still for `quiet`, or [`SETTLE_CAP`] passed.
    pub fn settled(&self, last: &ScrollRead, elapsed: Duration, quiet: Duration) -> bool {
        let agree = self.offsets == last.offsets;
        (agree && (self.changed || elapsed >= quiet)) || elapsed >= SETTLE_CAP
    }
}

/// The viewport fractions `(x, y)` a `By` scroll of `fraction` towards `direction` moves
/// (refused unless `0 < fraction <= MAX_FRACTION`).
pub fn scroll_by(direction: ScrollDirection, fraction: f64) -> PortResult<(f64, f64)> {
    if !fraction.is_finite() || fraction <= 0.0 || fraction > MAX_FRACTION {
        return Err(PortError::new(PortErrorKind::InvalidInput, "the scroll fraction is out of range"));
    }
    Ok(match direction {
        ScrollDirection::Up => (0.0, -fraction),
        ScrollDirection::Down => (0.0, fraction),
        ScrollDirection::Left => (-fraction, 0.0),
        ScrollDirection::Right => (fraction, 0.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_statuses_are_the_ports_answers() {
        assert!(hit_status("ok", None).is_ok());
        assert!(click_count(3).is_ok() && click_count(0).is_err() && click_count(MAX_CLICKS + 1).is_err());
        let by = RawSummary { role: "dialog".to_owned(), name: Some(String::new()) };
        let covered = hit_status("covered", Some(by)).expect_err("covered");
        assert_eq!(covered.kind(), PortErrorKind::Obstructed);
        assert_eq!(
            covered.obstruction().map(|by| (by.role.as_str(), by.name.is_none())),
            Some(("dialog", true))
        );
        assert_eq!(hit_status("nobox", None).map_err(|e| e.kind()), Err(PortErrorKind::InvalidInput));
        assert_eq!(hit_status("outside", None).map_err(|e| e.kind()), Err(PortErrorKind::InvalidInput));
        assert_eq!(hit_status("new", None).map_err(|e| e.kind()), Err(PortErrorKind::Other));
    }

    #[test]
    fn focus_statuses_are_the_ports_answers() {
        let answer = |status: &str| FocusAnswer {
            status: status.to_owned(),
            summary: None,
            clear: false,
            already: false,
            state: None,
        };
        assert!(answer("ok").landed().is_ok());
        assert_eq!(answer("focused").landed().map_err(|e| e.kind()), Err(PortErrorKind::TargetStale));
        assert_eq!(answer("file").landed().map_err(|e| e.kind()), Err(PortErrorKind::InvalidInput));
        assert_eq!(answer("?").landed().map_err(|e| e.kind()), Err(PortErrorKind::Other));
    }

    #[test]
    fn scrolls_by_fractions_in_range() {
        assert_eq!(scroll_by(ScrollDirection::Left, 0.5).ok(), Some((-0.5, 0.0)));
        assert_eq!(scroll_by(ScrollDirection::Down, 2.0).ok(), Some((0.0, 2.0)));
        assert!(scroll_by(ScrollDirection::Up, 0.0).is_err());
        assert!(scroll_by(ScrollDirection::Up, f64::NAN).is_err());
        assert!(scroll_by(ScrollDirection::Up, MAX_FRACTION + 1.0).is_err());
        let still = ScrollRead { status: "ok".to_owned(), offsets: vec![0.0], ..ScrollRead::default() };
        assert!(!still.settled(&still, Duration::from_millis(100), QUIET_WHEEL));
        assert!(still.settled(&still, QUIET_WHEEL, QUIET_WHEEL));
        assert!(still.settled(&ScrollRead::default(), SETTLE_CAP, QUIET_WHEEL));
    }

    #[test]
    fn coordinates_are_floored_and_bounded() {
        assert_eq!(coordinate(10.7).ok(), Some(10.0));
        assert_eq!(coordinate(-0.5).ok(), Some(-1.0));
        assert!(coordinate(f64::NAN).is_err());
        assert!(coordinate(1e12).is_err());
    }
}
