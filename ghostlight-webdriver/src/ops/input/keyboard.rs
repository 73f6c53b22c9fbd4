//! Keyboard input: `type_text` and `press_keys`.
//!
//! - **The key guard.** Keys are for one element (`into`; for `press_keys` without one, the
//!   page itself while nothing has focus). Before any key is sent, the focus script arms a
//!   guard in that element's document (`glArmKeyGuard` in `scripts/input/lib.js`): a key event
//!   that would reach anything else (focus moved: a Tab, an arrow in a radio group, a page
//!   script moving focus on input) is cancelled, as is every key after it, so it types
//!   nothing and moves no focus. Afterwards the guard is taken off and its count is the
//!   receipt's `keys_withheld` (keys sent after focus moved into a child frame, which the
//!   guard's document cannot see, count too).
//! - **type_text** focuses the element (`scripts/input/focus.js`; focus must land on it or
//!   inside it). `clear_first` selects the control's whole content and presses Delete (a real
//!   key, so `beforeinput`/`input` fire; WebDriver's `Element Clear` fires only `change`). The
//!   text then goes through `Element Send Keys` (one key press per character, caret after the
//!   existing content), or through key actions when the element already had focus (the caret
//!   stays where it is; `\n` is pressed as Enter). `\r` is dropped. Characters in WebDriver's
//!   reserved key range (U+E000–U+E05D) would be read as special keys and are refused.
//! - **press_keys** focuses the element first when it does not have focus, then sends key
//!   actions: for each repetition, for each key: the modifiers down, the key down and up, the
//!   modifiers up. Synthetic keys reach the page, never the browser's own shortcuts (F5 does
//!   not reload). The receipt describes the element focused afterwards.

use std::time::Duration;

use super::actions::{KeyStep, Source};
use ghostlight_core::port::{
    ActionReceipt, ElementSummary, KeyInput, PageState, PortError, PortErrorKind, PortResult, TabRef,
    TypeInput,
};
use ghostlight_core::port::{Key, Modifier, NamedKey};
use serde_json::{Value, json};

use super::{InputScript, after, before_state, compose, land, perform, resolve, run_out_of_reach, seen_here};
use crate::errors::{self, Sent};
use crate::page;
use crate::session::Session;
use ghostlight_page::bounds::NAME_MAX_CHARS;
use ghostlight_page::input::{FocusAnswer, GuardCounts, guard_nonce};

/// The focus script (`scripts/input/focus.js`).
static FOCUS: InputScript = InputScript::new(ghostlight_page::scripts::input::FOCUS_BODY, || {
    compose(ghostlight_page::scripts::input::FOCUS_BODY)
});
/// The key guard's disarm (`scripts/input/key_guard.js`).
static KEY_GUARD: InputScript = InputScript::new(ghostlight_page::scripts::input::KEY_GUARD_BODY, || {
    compose(ghostlight_page::scripts::input::KEY_GUARD_BODY)
});

/// The id of the key input source.
pub(super) const KEYBOARD_ID: &str = "ghostlight-keyboard";
/// WebDriver's Delete key.
const DELETE: char = '\u{E017}';
/// WebDriver's Enter key.
const ENTER: char = '\u{E007}';
/// WebDriver's Tab key.
const TAB: char = '\u{E004}';
/// The first and last characters WebDriver reads as special keys.
const RESERVED_KEYS: std::ops::RangeInclusive<char> = '\u{E000}'..='\u{E05D}';
/// The most key actions one `press_keys` may send (core's own bounds stay far below).
const MAX_KEY_ACTIONS: usize = 50_000;
/// The most key actions sent in one `Perform Actions` request.
const KEY_ACTIONS_PER_REQUEST: usize = 2_000;

/// Take the key guard off in the current browsing context and answer how many of `sent` key
/// presses did not reach the element they were for: those the guard cancelled, plus, when
/// focus moved into another document meanwhile, those this document never saw. A guard
/// that is gone (the document changed) counts nothing: the page moved, which the landing
/// reports.
async fn disarm(s: &mut Session, nonce: &str, sent: usize) -> PortResult<usize> {
    let counts: GuardCounts = match run_out_of_reach(s, &KEY_GUARD, vec![json!(nonce)], Sent::Act).await {
        Ok(counts) => counts,
        // A dialog the keys opened, or a document that went away: nothing to count here.
        Err(e)
            if matches!(
                e.kind(),
                PortErrorKind::BlockedByDialog | PortErrorKind::Other | PortErrorKind::ScriptError
            ) =>
        {
            GuardCounts { missing: true, ..GuardCounts::default() }
        }
        Err(e) => return Err(e.effect_unknown()),
    };
    if counts.missing {
        return Ok(0);
    }
    let unseen = if counts.crossed { sent.saturating_sub(counts.seen) } else { 0 };
    Ok((counts.withheld + unseen).min(sent))
}

/// Type text through input events.
pub(super) async fn type_text(
    s: &mut Session,
    tab: &TabRef,
    input: &TypeInput,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    if input.text.chars().any(|c| RESERVED_KEYS.contains(&c)) {
        return Err(PortError::new(
            PortErrorKind::InvalidInput,
            "the text holds characters WebDriver reserves for special keys",
        ));
    }
    let deadline = tokio::time::Instant::now() + timeout;
    let seen = s.noted_page();
    s.set_script_timeout(timeout).await?;
    let resolved = resolve(s, tab, &input.into).await?;
    let seen = seen_here(s, &resolved, seen);
    let nonce = guard_nonce();
    let options = json!({
        "mode": "prepare", "clear": input.clear_first, "state": resolved.wants_state() && seen.is_none(),
        "cap": NAME_MAX_CHARS, "guard": nonce,
    });
    let mut focus: FocusAnswer =
        run_out_of_reach(s, &FOCUS, vec![resolved.arg()?, options], Sent::Act).await?;
    let before = before_state(resolved.before.or(seen), focus.state.take())?;
    focus.landed()?;
    if focus.clear {
        perform(s, keys(&[DELETE], &[], 1)).await?;
    }
    let text: Vec<char> = input.text.chars().filter(|c| *c != '\r').collect();
    if !text.is_empty() {
        if focus.already {
            // Keep the caret where it is in a control that already had focus.
            let typed: Vec<char> = text.iter().copied().map(typed).collect();
            for chunk in typed.chunks(KEY_ACTIONS_PER_REQUEST / 2) {
                perform(s, keys(chunk, &[], 1)).await?;
            }
        } else {
            // Element Send Keys for the characters (`\n` as the Enter key, which geckodriver
            // would otherwise type as a character); a Tab as a key action (geckodriver's Send
            // Keys types a `\t` without moving focus, which a person's Tab does).
            for (index, part) in text.split(|c| *c == '\t').enumerate() {
                if index > 0 {
                    perform(s, keys(&[TAB], &[], 1)).await?;
                }
                if part.is_empty() {
                    continue;
                }
                let part: String = part.iter().copied().map(typed).collect();
                match resolved.element.send_keys(&part).await {
                    Ok(()) => {}
                    // A key opened a dialog: the text was (partly) delivered.
                    Err(e) if errors::is_dialog(&e) => {}
                    Err(e) => return Err(errors::cmd(&e, Sent::Act).effect_unknown()),
                }
            }
        }
    }
    // The text was sent: a failure from here on leaves its effect unknown.
    let keys_withheld = disarm(s, &nonce, text.len()).await.map_err(PortError::effect_unknown)?;
    let page = after(s, before, deadline).await.map_err(PortError::effect_unknown)?;
    Ok(ActionReceipt { element: focus.summary.map(Into::into), page, keys_withheld })
}

/// Press keys.
pub(super) async fn press_keys(
    s: &mut Session,
    tab: &TabRef,
    input: &KeyInput,
    timeout: Duration,
) -> PortResult<ActionReceipt> {
    let pressed = input.keys.iter().map(key_value).collect::<PortResult<Vec<char>>>()?;
    let held: Vec<char> = input.modifiers.iter().copied().map(modifier_value).collect();
    let repeat = usize::try_from(input.repeat).unwrap_or(usize::MAX);
    let per_repeat = pressed.len() * 2 * (1 + held.len());
    if pressed.is_empty() || repeat == 0 || per_repeat.saturating_mul(repeat) > MAX_KEY_ACTIONS {
        return Err(PortError::new(PortErrorKind::InvalidInput, "the key sequence is empty or too long"));
    }
    let deadline = tokio::time::Instant::now() + timeout;
    let seen = s.noted_page();
    s.set_script_timeout(timeout).await?;
    let nonce = guard_nonce();
    let (before, target) = match &input.into {
        Some(element) => {
            let resolved = resolve(s, tab, element).await?;
            let seen = seen_here(s, &resolved, seen);
            let options = json!({
                "mode": "prepare", "clear": false, "state": resolved.wants_state() && seen.is_none(),
                "cap": NAME_MAX_CHARS, "guard": nonce,
            });
            let mut focus: FocusAnswer =
                run_out_of_reach(s, &FOCUS, vec![resolved.arg()?, options], Sent::Act).await?;
            let before = before_state(resolved.before.or(seen), focus.state.take())?;
            focus.landed()?;
            (before, focus.summary.map(ElementSummary::from))
        }
        None => {
            s.tab(tab).await?;
            let options = json!({ "mode": "page", "clear": false, "state": true, "cap": NAME_MAX_CHARS, "guard": nonce });
            let mut focus: FocusAnswer =
                run_out_of_reach(s, &FOCUS, vec![Value::Null, options], Sent::Act).await?;
            let before = before_state(None, focus.state.take())?;
            if focus.status == "focused" {
                return Err(PortError::new(
                    PortErrorKind::TargetStale,
                    "an element took focus after it was checked; nothing was pressed",
                ));
            }
            focus.landed()?;
            (before, None)
        }
    };
    let per_request = (KEY_ACTIONS_PER_REQUEST / per_repeat.max(1)).max(1);
    let mut left = repeat;
    while left > 0 {
        let now = left.min(per_request);
        perform(s, keys(&pressed, &held, now)).await?;
        left -= now;
    }
    // The keys were sent: a failure from here on leaves their effect unknown.
    let keys_withheld = disarm(s, &nonce, pressed.len() * repeat).await.map_err(PortError::effect_unknown)?;
    let (element, page) =
        focused_after(s, tab, before, target, deadline).await.map_err(PortError::effect_unknown)?;
    Ok(ActionReceipt { element, page, keys_withheld })
}

/// The focused element and the page after key input, in one read of the top document; the
/// page before (and the target's summary) when a dialog the keys opened blocks the read.
async fn focused_after(
    s: &mut Session,
    tab: &TabRef,
    before: PageState,
    target: Option<ElementSummary>,
    deadline: tokio::time::Instant,
) -> PortResult<(Option<ElementSummary>, PageState)> {
    // The read and its parse are one step: a document unloading under the keys can answer
    // the state script with nothing usable, which is read again as after any action.
    let read = async {
        s.tab(tab).await?;
        let options = json!({ "mode": "after", "clear": false, "state": true, "cap": NAME_MAX_CHARS });
        let answer =
            run_out_of_reach::<FocusAnswer>(s, &FOCUS, vec![Value::Null, options], Sent::Read).await?;
        let state = answer
            .state
            .ok_or_else(|| PortError::new(PortErrorKind::Other, "the focus script answered no page state"))?;
        Ok::<_, PortError>((answer.summary, page::parse_reading(state)?))
    };
    let (summary, page) = match read.await {
        Ok((summary, reading)) => {
            // Keys that submitted a form: the new document is waited for, as for a click; work
            // the keys started that may still navigate, or a document that already changed
            // (Firefox's transient blank page on the way to the next one), is settled as after
            // any action.
            let page = match reading.navigating {
                Some(destination) if reading.state.document == before.document => {
                    land(s, reading.state, &destination, deadline).await?
                }
                _ if reading.busy || reading.state.document != before.document => {
                    after(s, before, deadline).await?
                }
                _ => {
                    s.remember_page(&reading.state);
                    reading.state
                }
            };
            (summary.map(Into::into), page)
        }
        // A dialog the keys opened, or a document unloading: read as after any action.
        Err(e)
            if matches!(
                e.kind(),
                PortErrorKind::BlockedByDialog | PortErrorKind::Other | PortErrorKind::ScriptError
            ) =>
        {
            (target, after(s, before, deadline).await?)
        }
        Err(e) => return Err(e.effect_unknown()),
    };
    Ok((summary, page))
}

/// Key actions: `repeat` times, each key pressed and released with `held` around it.
fn keys(pressed: &[char], held: &[char], repeat: usize) -> Source {
    let mut actions = Source::keys(KEYBOARD_ID);
    for _ in 0..repeat {
        for key in pressed {
            for modifier in held {
                actions = actions.key(KeyStep::Down(*modifier));
            }
            actions = actions.key(KeyStep::Down(*key)).key(KeyStep::Up(*key));
            for modifier in held.iter().rev() {
                actions = actions.key(KeyStep::Up(*modifier));
            }
        }
    }
    actions
}

/// A typed character as a key (`\n` is Enter, `\t` is Tab).
fn typed(c: char) -> char {
    match c {
        '\n' => ENTER,
        '\t' => TAB,
        c => c,
    }
}

/// The WebDriver key value of a key.
fn key_value(key: &Key) -> PortResult<char> {
    match key {
        Key::Char(c) if RESERVED_KEYS.contains(c) => Err(PortError::new(
            PortErrorKind::InvalidInput,
            "the key is a character WebDriver reserves for special keys",
        )),
        Key::Char(c) => Ok(*c),
        Key::Named(named) => Ok(named_value(*named)),
    }
}

/// The WebDriver key value of a named key.
fn named_value(key: NamedKey) -> char {
    match key {
        NamedKey::Enter => ENTER,
        NamedKey::Tab => TAB,
        NamedKey::Escape => '\u{E00C}',
        NamedKey::Backspace => '\u{E003}',
        NamedKey::Delete => DELETE,
        NamedKey::Insert => '\u{E016}',
        NamedKey::Home => '\u{E011}',
        NamedKey::End => '\u{E010}',
        NamedKey::PageUp => '\u{E00E}',
        NamedKey::PageDown => '\u{E00F}',
        NamedKey::ArrowLeft => '\u{E012}',
        NamedKey::ArrowUp => '\u{E013}',
        NamedKey::ArrowRight => '\u{E014}',
        NamedKey::ArrowDown => '\u{E015}',
        NamedKey::Space => ' ',
        NamedKey::F1 => '\u{E031}',
        NamedKey::F2 => '\u{E032}',
        NamedKey::F3 => '\u{E033}',
        NamedKey::F4 => '\u{E034}',
        NamedKey::F5 => '\u{E035}',
        NamedKey::F6 => '\u{E036}',
        NamedKey::F7 => '\u{E037}',
        NamedKey::F8 => '\u{E038}',
        NamedKey::F9 => '\u{E039}',
        NamedKey::F10 => '\u{E03A}',
        NamedKey::F11 => '\u{E03B}',
        NamedKey::F12 => '\u{E03C}',
    }
}

/// The WebDriver key value of a modifier.
pub(super) fn modifier_value(modifier: Modifier) -> char {
    match modifier {
        Modifier::Alt => '\u{E00A}',
        Modifier::Control => '\u{E009}',
        Modifier::Meta => '\u{E03D}',
        Modifier::Shift => '\u{E008}',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_keys_use_webdriver_codes() {
        assert_eq!(named_value(NamedKey::Enter), '\u{E007}');
        assert_eq!(named_value(NamedKey::ArrowUp), '\u{E013}');
        assert_eq!(named_value(NamedKey::F12), '\u{E03C}');
        assert_eq!(modifier_value(Modifier::Meta), '\u{E03D}');
        assert!(key_value(&Key::Char('\u{E007}')).is_err());
        assert_eq!(key_value(&Key::Char('a')).ok(), Some('a'));
    }

    #[test]
    fn modifiers_wrap_every_key() {
        let actions = format!("{:?}", keys(&['a', 'b'], &['\u{E009}'], 2));
        assert_eq!(actions.matches("Down").count(), 8);
        assert_eq!(actions.matches("Up").count(), 8);
        assert_eq!(typed('\n'), ENTER);
    }
}
