//! Key input (`press_keys`, `type_text`) through trusted DevTools key events (Chromium).
//!
//! - **The key guard** (the WebDriver adapter's `glArmKeyGuard`, armed by `focus.js`, taken off
//!   by `key_guard.js`): keys are for one element (for `press_keys` without one, the page
//!   itself while nothing has focus); a key event that would reach anything else (a Tab
//!   moved focus, a page script moved it) is cancelled with every key after it, and counted
//!   as withheld.
//! - **press_keys**: for each repetition, for each key: the modifiers down, the key down (with
//!   its text, unless Control, Alt or Meta is held: that is a shortcut) and up, the modifiers
//!   up. Keys reach the page, never the browser's own shortcuts. The receipt names the
//!   element focused afterwards.
//! - **type_text** focuses its element (an element target, where it lives: [`run_input`]), clears it
//!   with one Delete when asked, then types one key press per character (`\n` is Enter, `\t`
//!   is Tab, `\r` is dropped).

use std::time::Duration;

use ghostlight_core::port::{
    ActionReceipt, ElementRef, ElementSummary, Key, KeyInput, Modifier, NamedKey, PageState, PortError,
    PortErrorKind, PortResult, TabRef, TypeInput,
};
use ghostlight_page::bounds::NAME_MAX_CHARS;
use ghostlight_page::input::{FocusAnswer, GuardCounts, guard_nonce};
use serde_json::{Value, json};

use super::{FOCUS, KEY_GUARD, Place, ScriptArg, act, run_input, run_input_on_page, trusted_input};
use crate::browser::{ExtensionBrowser, millis};
use crate::protocol::{Op, WireKey};

/// The most key strokes one call may send (core's own bounds stay far below).
const MAX_STROKES: usize = 20_000;

/// Press keys.
pub(crate) async fn press_keys(
    b: &ExtensionBrowser,
    tab: &TabRef,
    input: &KeyInput,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    trusted_input(b, "keyboard input")?;
    let strokes: Vec<WireKey> = input.keys.iter().map(key).collect();
    let repeat = usize::try_from(input.repeat).unwrap_or(usize::MAX);
    if strokes.is_empty() || repeat == 0 || strokes.len().saturating_mul(repeat) > MAX_STROKES {
        return Err(PortError::new(PortErrorKind::InvalidInput, "the key sequence is empty or too long"));
    }
    let id = b.tab_id(tab)?;
    let nonce = guard_nonce();
    let (before, target, place) = match &input.into {
        Some(element) => {
            let place = Place::of(id, element)?;
            prepare(b, id, place, element, false, &nonce, timeout)
                .await
                .map(|(f, p)| (p, f.summary, place))?
        }
        None => {
            let options = json!({ "mode": "page", "clear": false, "state": false, "cap": NAME_MAX_CHARS, "guard": nonce });
            let args = vec![ScriptArg::Json(Value::Null), ScriptArg::Json(options)];
            let (focus, before): (FocusAnswer, PageState) =
                run_input_on_page(b, id, Place::Top, FOCUS, args, timeout).await?;
            if focus.status == "focused" {
                return Err(PortError::new(
                    PortErrorKind::TargetStale,
                    "an element took focus after it was checked; nothing was pressed",
                ));
            }
            focus.landed()?;
            (before, None, Place::Top)
        }
    };
    let (held, modifiers) = held(&input.modifiers);
    let sent = strokes.len() * repeat;
    let op =
        Op::Keys { tab: id, strokes, held, modifiers, repeat: input.repeat, timeout_ms: millis(timeout) };
    finish(b, id, place, op, before, target.map(Into::into), &nonce, sent, timeout).await
}

/// Type text through key events.
pub(crate) async fn type_text(
    b: &ExtensionBrowser,
    tab: &TabRef,
    input: &TypeInput,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    trusted_input(b, "keyboard input")?;
    let id = b.tab_id(tab)?;
    let mut strokes: Vec<WireKey> = input.text.chars().filter(|c| *c != '\r').map(typed).collect();
    if strokes.len() > MAX_STROKES {
        return Err(PortError::new(PortErrorKind::InvalidInput, "the text is too long"));
    }
    let nonce = guard_nonce();
    let place = Place::of(id, &input.into)?;
    let (focus, before) = prepare(b, id, place, &input.into, input.clear_first, &nonce, timeout).await?;
    if focus.clear {
        strokes.insert(0, key(&Key::Named(NamedKey::Delete)));
    }
    let sent = strokes.len();
    let op =
        Op::Keys { tab: id, strokes, held: Vec::new(), modifiers: 0, repeat: 1, timeout_ms: millis(timeout) };
    finish(b, id, place, op, before, focus.summary.map(Into::into), &nonce, sent, timeout).await
}

/// Focus `element` (selecting its content when `clear`) and arm the key guard on it, in its
/// document (`place`).
async fn prepare(
    b: &ExtensionBrowser,
    tab: i64,
    place: Place,
    element: &ElementRef,
    clear: bool,
    nonce: &str,
    timeout: Duration,
) -> PortResult<(FocusAnswer, PageState)> {
    let options =
        json!({ "mode": "prepare", "clear": clear, "state": false, "cap": NAME_MAX_CHARS, "guard": nonce });
    let args = vec![ScriptArg::Element(element.clone()), ScriptArg::Json(options)];
    let (focus, before): (FocusAnswer, PageState) =
        run_input_on_page(b, tab, place, FOCUS, args, timeout).await.map_err(PortError::effect_unknown)?;
    focus.landed()?;
    Ok((focus, before))
}

/// Send the keys, take the guard off and describe the element focused afterwards (in the
/// document the guard was armed in, `place`).
#[allow(clippy::too_many_arguments)]
async fn finish(
    b: &ExtensionBrowser,
    tab: i64,
    place: Place,
    keys: Op,
    before: PageState,
    target: Option<ElementSummary>,
    nonce: &str,
    sent: usize,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    let page = act(b, keys, before.clone(), timeout).await?;
    let counts: GuardCounts =
        match run_input(b, tab, place, KEY_GUARD, vec![ScriptArg::Json(json!(nonce))], timeout).await {
            Ok(counts) => counts,
            // A dialog the keys opened, or a document that went away: nothing to count here.
            Err(_) => GuardCounts { missing: true, ..GuardCounts::default() },
        };
    let keys_withheld = if counts.missing {
        0
    } else {
        let unseen = if counts.crossed { sent.saturating_sub(counts.seen) } else { 0 };
        (counts.withheld + unseen).min(sent)
    };
    if page.document != before.document {
        return Ok(ActionReceipt { element: target, page, keys_withheld });
    }
    let options = json!({ "mode": "after", "clear": false, "state": false, "cap": NAME_MAX_CHARS });
    let args = vec![ScriptArg::Json(Value::Null), ScriptArg::Json(options)];
    match run_input_on_page::<FocusAnswer>(b, tab, place, FOCUS, args, timeout).await {
        Ok((after, page)) => {
            Ok(ActionReceipt { element: after.summary.map(Into::into), page, keys_withheld })
        }
        Err(_) => Ok(ActionReceipt { element: target, page, keys_withheld }),
    }
}

/// The modifier keys held, and their DevTools bits.
pub(super) fn held(modifiers: &[Modifier]) -> (Vec<WireKey>, u8) {
    let mut bits = 0;
    let keys = modifiers
        .iter()
        .map(|modifier| {
            let (name, code, key_code, bit) = match modifier {
                Modifier::Alt => ("Alt", "AltLeft", 18, 1),
                Modifier::Control => ("Control", "ControlLeft", 17, 2),
                Modifier::Meta => ("Meta", "MetaLeft", 91, 4),
                Modifier::Shift => ("Shift", "ShiftLeft", 16, 8),
            };
            bits |= bit;
            stroke(name, code, key_code, None)
        })
        .collect();
    (keys, bits)
}

fn stroke(key: &str, code: &str, key_code: u32, text: Option<String>) -> WireKey {
    WireKey { key: key.to_owned(), code: code.to_owned(), key_code, text }
}

/// A typed character as a key press (`\n` is Enter, `\t` is Tab).
fn typed(c: char) -> WireKey {
    match c {
        '\n' => key(&Key::Named(NamedKey::Enter)),
        '\t' => key(&Key::Named(NamedKey::Tab)),
        c => key(&Key::Char(c)),
    }
}

/// A key as DevTools dispatches it: its `key`, `code`, virtual key code and text.
fn key(key: &Key) -> WireKey {
    let named = match key {
        Key::Char(c) => return character(*c),
        Key::Named(named) => *named,
    };
    let (name, key_code, text) = match named {
        NamedKey::Enter => ("Enter", 13, Some("\r")),
        NamedKey::Tab => ("Tab", 9, None),
        NamedKey::Escape => ("Escape", 27, None),
        NamedKey::Backspace => ("Backspace", 8, None),
        NamedKey::Delete => ("Delete", 46, None),
        NamedKey::Insert => ("Insert", 45, None),
        NamedKey::Home => ("Home", 36, None),
        NamedKey::End => ("End", 35, None),
        NamedKey::PageUp => ("PageUp", 33, None),
        NamedKey::PageDown => ("PageDown", 34, None),
        NamedKey::ArrowLeft => ("ArrowLeft", 37, None),
        NamedKey::ArrowUp => ("ArrowUp", 38, None),
        NamedKey::ArrowRight => ("ArrowRight", 39, None),
        NamedKey::ArrowDown => ("ArrowDown", 40, None),
        NamedKey::Space => return character(' '),
        NamedKey::F1 => ("F1", 112, None),
        NamedKey::F2 => ("F2", 113, None),
        NamedKey::F3 => ("F3", 114, None),
        NamedKey::F4 => ("F4", 115, None),
        NamedKey::F5 => ("F5", 116, None),
        NamedKey::F6 => ("F6", 117, None),
        NamedKey::F7 => ("F7", 118, None),
        NamedKey::F8 => ("F8", 119, None),
        NamedKey::F9 => ("F9", 120, None),
        NamedKey::F10 => ("F10", 121, None),
        NamedKey::F11 => ("F11", 122, None),
        NamedKey::F12 => ("F12", 123, None),
    };
    stroke(name, name, key_code, text.map(str::to_owned))
}

/// A character key: letters and digits at their US-layout places, the space bar, anything
/// else as text without a place.
fn character(c: char) -> WireKey {
    let text = Some(c.to_string());
    if c.is_ascii_alphabetic() {
        let upper = c.to_ascii_uppercase();
        return stroke(&c.to_string(), &format!("Key{upper}"), u32::from(upper), text);
    }
    if c.is_ascii_digit() {
        return stroke(&c.to_string(), &format!("Digit{c}"), u32::from(c), text);
    }
    if c == ' ' {
        return stroke(" ", "Space", 32, text);
    }
    stroke(&c.to_string(), "", 0, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_carry_their_places_and_text() {
        let a = key(&Key::Char('a'));
        assert_eq!((a.code.as_str(), a.key_code, a.text.as_deref()), ("KeyA", 65, Some("a")));
        let seven = key(&Key::Char('7'));
        assert_eq!((seven.code.as_str(), seven.key_code), ("Digit7", 55));
        let enter = key(&Key::Named(NamedKey::Enter));
        assert_eq!((enter.key.as_str(), enter.key_code, enter.text.as_deref()), ("Enter", 13, Some("\r")));
        assert_eq!(key(&Key::Named(NamedKey::Tab)).text, None);
        assert_eq!(key(&Key::Named(NamedKey::Space)).code, "Space");
        assert_eq!(key(&Key::Char('é')).text.as_deref(), Some("é"));
        assert_eq!(typed('\n').key, "Enter");
    }

    #[test]
    fn modifiers_have_devtools_bits() {
        let (keys, bits) = held(&[Modifier::Control, Modifier::Shift]);
        assert_eq!(bits, 10);
        assert_eq!(keys.iter().map(|k| k.key.as_str()).collect::<Vec<_>>(), ["Control", "Shift"]);
    }
}
