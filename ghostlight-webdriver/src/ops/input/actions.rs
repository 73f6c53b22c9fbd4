//! Input sequences for WebDriver's Actions, written once for both protocols: classic
//! WebDriver's `Perform Actions` (`POST /actions`), and WebDriver BiDi's `input.performActions`
//! for a session in a shared browser (whose classic-only session would accept a leave-page
//! prompt the input raises; see `Session::switch_to`). The two take the same sources and
//! actions; only an element origin is written differently (a WebDriver element reference, or
//! `{"type": "element", "element": {"sharedId"}}` with the same id).

use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::ops::frames::ELEMENT_KEY;

/// The primary (left) mouse button.
pub(crate) const MOUSE_BUTTON_LEFT: u64 = 0;
/// The middle mouse button.
pub(crate) const MOUSE_BUTTON_MIDDLE: u64 = 1;
/// The secondary (right) mouse button.
pub(crate) const MOUSE_BUTTON_RIGHT: u64 = 2;

/// One action of a pointer source.
#[derive(Debug, Clone)]
pub(crate) enum PointerStep {
    /// Move to a viewport point.
    MoveTo { x: f64, y: f64, duration: Option<Duration> },
    /// Move to the in-view centre of the element with this WebDriver id.
    MoveToElement { element: String, duration: Option<Duration> },
    /// Move by an offset from where the pointer is.
    MoveBy { x: f64, y: f64, duration: Option<Duration> },
    /// Press a button.
    Down { button: u64 },
    /// Release a button.
    Up { button: u64 },
    /// Do nothing for a tick.
    Pause,
}

/// One action of a key source.
#[derive(Debug, Clone, Copy)]
pub(crate) enum KeyStep {
    /// Press a key.
    Down(char),
    /// Release a key.
    Up(char),
    /// Do nothing for a tick.
    Pause,
}

/// One input source with its actions, in classic WebDriver's form.
#[derive(Debug, Clone)]
pub(crate) struct Source {
    kind: &'static str,
    id: String,
    actions: Vec<Value>,
}

impl Source {
    /// A mouse pointer named `id`.
    pub(crate) fn pointer(id: &str) -> Source {
        Source { kind: "pointer", id: id.to_owned(), actions: Vec::new() }
    }

    /// A keyboard named `id`.
    pub(crate) fn keys(id: &str) -> Source {
        Source { kind: "key", id: id.to_owned(), actions: Vec::new() }
    }

    /// A wheel named `id`.
    pub(crate) fn wheel(id: &str) -> Source {
        Source { kind: "wheel", id: id.to_owned(), actions: Vec::new() }
    }

    /// This pointer source, then `step`.
    pub(crate) fn then(mut self, step: PointerStep) -> Source {
        let moved = |x: Value, y: Value, origin: Value, duration: Option<Duration>| {
            let mut action = json!({ "type": "pointerMove", "x": x, "y": y, "origin": origin });
            if let (Some(duration), Some(object)) = (duration, action.as_object_mut()) {
                object.insert("duration".into(), json!(millis(duration)));
            }
            action
        };
        self.actions.push(match step {
            PointerStep::MoveTo { x, y, duration } => {
                moved(number(x), number(y), json!("viewport"), duration)
            }
            PointerStep::MoveToElement { element, duration } => {
                moved(json!(0), json!(0), json!({ ELEMENT_KEY: element }), duration)
            }
            PointerStep::MoveBy { x, y, duration } => moved(number(x), number(y), json!("pointer"), duration),
            PointerStep::Down { button } => json!({ "type": "pointerDown", "button": button }),
            PointerStep::Up { button } => json!({ "type": "pointerUp", "button": button }),
            PointerStep::Pause => json!({ "type": "pause", "duration": 0 }),
        });
        self
    }

    /// This key source, then `step`.
    pub(crate) fn key(mut self, step: KeyStep) -> Source {
        self.actions.push(match step {
            KeyStep::Down(key) => json!({ "type": "keyDown", "value": key.to_string() }),
            KeyStep::Up(key) => json!({ "type": "keyUp", "value": key.to_string() }),
            KeyStep::Pause => json!({ "type": "pause", "duration": 0 }),
        });
        self
    }

    /// This wheel source, then a turn by `delta_y` CSS pixels at viewport point (`x`, `y`).
    pub(crate) fn scroll(mut self, x: i64, y: i64, delta_y: i64) -> Source {
        self.actions.push(json!({
            "type": "scroll", "x": x, "y": y, "deltaX": 0, "deltaY": delta_y, "origin": "viewport",
        }));
        self
    }

    /// The source as classic WebDriver takes it.
    fn classic(&self) -> Value {
        let mut source = Map::new();
        source.insert("type".into(), json!(self.kind));
        source.insert("id".into(), json!(self.id));
        if self.kind == "pointer" {
            source.insert("parameters".into(), json!({ "pointerType": "mouse" }));
        }
        source.insert("actions".into(), Value::Array(self.actions.clone()));
        Value::Object(source)
    }
}

/// Input sources acting together, tick by tick.
#[derive(Debug, Clone)]
pub(crate) struct Input {
    sources: Vec<Source>,
}

impl From<Source> for Input {
    fn from(source: Source) -> Input {
        Input { sources: vec![source] }
    }
}

impl Input {
    /// These sources and `source`, acting together.
    pub(crate) fn and(mut self, source: Source) -> Input {
        self.sources.push(source);
        self
    }

    /// The sources as classic WebDriver's `Perform Actions` takes them.
    pub(crate) fn classic(&self) -> Value {
        Value::Array(self.sources.iter().map(Source::classic).collect())
    }

    /// The sources as BiDi's `input.performActions` takes them: an element origin names the
    /// element by its shared id (a classic element id is one, on both engines).
    pub(crate) fn bidi(&self) -> Value {
        let mut sources = self.classic();
        if let Some(sources) = sources.as_array_mut() {
            for action in sources.iter_mut().filter_map(|s| s["actions"].as_array_mut()).flatten() {
                if let Some(id) = action["origin"].get(ELEMENT_KEY).cloned() {
                    action["origin"] = json!({ "type": "element", "element": { "sharedId": id } });
                }
            }
        }
        sources
    }
}

/// `value` as JSON, a whole number written as an integer (the protocols' pixel offsets).
fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 1e15 { json!(value as i64) } else { json!(value) }
}

/// Whole milliseconds of `duration`, saturating.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_protocols_get_the_same_ticks_and_only_element_origins_differ() {
        let pointer = Source::pointer("mouse")
            .then(PointerStep::MoveToElement { element: "E1".into(), duration: None })
            .then(PointerStep::Down { button: MOUSE_BUTTON_LEFT })
            .then(PointerStep::MoveBy { x: 5.0, y: 5.0, duration: Some(Duration::from_millis(50)) })
            .then(PointerStep::MoveTo { x: 10.0, y: 20.0, duration: None })
            .then(PointerStep::Up { button: MOUSE_BUTTON_LEFT });
        let keys = Source::keys("keyboard").key(KeyStep::Down('\u{E008}')).key(KeyStep::Pause);
        let input = Input::from(keys).and(pointer);
        let classic = input.classic();
        assert_eq!(
            classic[0],
            json!({ "type": "key", "id": "keyboard", "actions": [
            { "type": "keyDown", "value": "\u{E008}" }, { "type": "pause", "duration": 0 }] })
        );
        assert_eq!(classic[1]["parameters"], json!({ "pointerType": "mouse" }));
        assert_eq!(classic[1]["actions"][0]["origin"], json!({ ELEMENT_KEY: "E1" }));
        assert_eq!(
            classic[1]["actions"][2],
            json!({ "type": "pointerMove", "x": 5, "y": 5, "origin": "pointer", "duration": 50 })
        );
        assert_eq!(classic[1]["actions"][3]["origin"], json!("viewport"));
        let bidi = input.bidi();
        assert_eq!(
            bidi[1]["actions"][0]["origin"],
            json!({ "type": "element", "element": { "sharedId": "E1" } })
        );
        assert_eq!(bidi[0], classic[0]);
        let tail = |v: &Value| v[1]["actions"].as_array().map(|a| a[1..].to_vec());
        assert_eq!(tail(&bidi), tail(&classic));
        let wheel = Input::from(Source::wheel("wheel").scroll(3, 4, 120)).classic();
        assert_eq!(
            wheel[0]["actions"][0],
            json!({ "type": "scroll", "x": 3, "y": 4, "deltaX": 0, "deltaY": 120, "origin": "viewport" })
        );
    }
}
