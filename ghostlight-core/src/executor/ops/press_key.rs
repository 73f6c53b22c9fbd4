//! `browser_press_key`: one key or a short stroke sequence, with modifiers and repeats.
//!
//! Decisions (see also ARCHITECTURE):
//!
//! * The `key` fact is the wire form of what was pressed: one key as its name or character
//!   with held modifiers joined by `+` (`Enter`, `Control+Shift+K`), a stroke sequence as
//!   those forms joined by one space (`Control+a Backspace`). It echoes only what the caller
//!   sent.
//! * Sentences name named keys and shortcuts (a character held with `Control` or `Meta`), but
//!   only count other character keys (`Pressed 3 character keys then Enter`): characters
//!   pressed one by one are typing, and typed text may be a secret.
//! * Character keys pressed without `Control` or `Meta` enter text, so the credential
//!   preflight applies to them as it does to `browser_type_text`: into the resolved target,
//!   or the control the browser reports focused. Otherwise key presses would be a way around
//!   the handoff.
//! * Key presses are never repeat-safe.

use std::time::Duration;

use crate::port::KeyInput;
use crate::tools::press_key::{Key, Keys, Modifier, PressKeyRequest};

use super::super::outcome::Outcome;
use super::super::run::{Run, Step, host_of};

/// The bound a key press runs under: the tool takes no `timeout_ms`, so the spec's default.
const PRESS_TIMEOUT_MS: u64 = match crate::limits::TIMEOUT_MS.default {
    Some(ms) => ms,
    None => 8_000,
};

pub(crate) async fn run(run: &Run<'_>, request: &PressKeyRequest) -> Outcome {
    press(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn press(run: &Run<'_>, request: &PressKeyRequest) -> Step<Outcome> {
    let (lease, page) = run.enter(request.tab.as_ref()).await?;
    let host = host_of(&page.state.url);
    let keys: Vec<Key> = match &request.keys {
        Keys::One(key) => vec![*key],
        Keys::Strokes(strokes) => strokes.clone(),
    };
    let shortcut = is_shortcut(&request.modifiers);
    let types_text = !shortcut && keys.iter().any(|key| matches!(key, Key::Char(_)));
    let target = match &request.target {
        Some(target) => Some(run.target(&lease, &page, target).await?),
        None => None,
    };
    if types_text {
        match &target {
            Some(target) => run.preflight(&lease, &page, target.credential, target.handle.as_ref())?,
            None => {
                let focused = run
                    .port()
                    .focused_element(&lease.tab)
                    .await
                    .map_err(|e| run.fail_on(&lease, &e, "find the focused control", None))?;
                run.preflight(&lease, &page, focused.and_then(|f| f.credential), None)?;
            }
        }
    }
    let wire = wire_form(&keys, &request.modifiers);
    let repeat = u32::try_from(request.repeat).unwrap_or(1);
    let (said, character_keys) = sentence_keys(&keys, &request.modifiers, repeat);
    let place = match &target {
        Some(target) => format!(" in {}", run.phrase(target.role, target.name.as_deref())),
        None => String::new(),
    };
    let times = match repeat {
        1 => String::new(),
        n => format!(" {n} times"),
    };
    let input = KeyInput {
        keys,
        repeat,
        modifiers: request.modifiers.clone(),
        target: target.as_ref().map(|t| t.element.clone()),
    };
    run.dispatching();
    let receipt =
        run.port().press_keys(&lease.tab, &input, Duration::from_millis(PRESS_TIMEOUT_MS)).await.map_err(
            |e| {
                run.fail_on(&lease, &e, &format!("press {said}{place}"), Some(PRESS_TIMEOUT_MS))
                    .fact("host", host.clone())
            },
        )?;
    let mut outcome = Outcome::applied(format!("Pressed {said}{times}{place} on {host}."), false)
        .with_readiness(receipt.page.readiness)
        .fact("tab", lease.handle().as_str())
        .fact("key", wire)
        .fact("pressed", true)
        .fact("repeat", repeat)
        .fact("character_keys", character_keys)
        .fact("host", host);
    if let Some(handle) = target.as_ref().and_then(|t| t.handle.as_ref()) {
        outcome = outcome.fact("target", handle.as_str());
    }
    let landing = run.land(&lease, &receipt.page);
    Ok(run.with_landing(outcome, landing, &receipt.page))
}

/// Whether the modifiers make character keys shortcuts rather than typing.
fn is_shortcut(modifiers: &[Modifier]) -> bool {
    modifiers.iter().any(|m| matches!(m, Modifier::Control | Modifier::Meta))
}

/// One key with its held modifiers: `Control+Shift+K`.
fn chord(key: Key, modifiers: &[Modifier]) -> String {
    let mut parts: Vec<String> = modifiers.iter().map(|m| m.as_str().to_owned()).collect();
    parts.push(key.to_string());
    parts.join("+")
}

/// The `key` fact: chords joined by one space.
fn wire_form(keys: &[Key], modifiers: &[Modifier]) -> String {
    keys.iter().map(|key| chord(*key, modifiers)).collect::<Vec<_>>().join(" ")
}

/// What a sentence says was pressed (`Control+A then Backspace`, `3 character keys then
/// Enter`), and how many character keys it counted instead of naming. A sequence pressed
/// more than once is called `the sequence (…, then …)`, so that the count that follows reads
/// as repeats of the whole.
fn sentence_keys(keys: &[Key], modifiers: &[Modifier], repeat: u32) -> (String, usize) {
    let shortcut = is_shortcut(modifiers);
    let mut parts: Vec<String> = Vec::new();
    let mut run_of_chars = 0;
    let mut counted = 0;
    let flush = |parts: &mut Vec<String>, n: &mut usize| {
        if *n > 0 {
            parts.push(if *n == 1 { "a character key".to_owned() } else { format!("{n} character keys") });
            *n = 0;
        }
    };
    for key in keys {
        match key {
            Key::Char(_) if !shortcut => {
                run_of_chars += 1;
                counted += 1;
            }
            _ => {
                flush(&mut parts, &mut run_of_chars);
                parts.push(chord(*key, modifiers));
            }
        }
    }
    flush(&mut parts, &mut run_of_chars);
    let mut said = parts.join(" then ");
    if parts.len() > 1 && repeat > 1 {
        said = format!("the sequence ({})", parts.join(", then "));
    }
    if counted > 0 && !modifiers.is_empty() {
        let held: Vec<&str> = modifiers.iter().map(|m| m.as_str()).collect();
        said = format!("{said} with {} held", held.join("+"));
    }
    (said, counted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::press_key::NamedKey;

    #[test]
    fn sentences_name_keys_and_count_characters() {
        let named = |k| Key::Named(k);
        assert_eq!(sentence_keys(&[named(NamedKey::Enter)], &[], 1), ("Enter".into(), 0));
        assert_eq!(
            sentence_keys(&[Key::Char('K')], &[Modifier::Control, Modifier::Shift], 1),
            ("Control+Shift+K".into(), 0)
        );
        assert_eq!(sentence_keys(&[Key::Char('x')], &[], 1), ("a character key".into(), 1));
        assert_eq!(
            sentence_keys(&[Key::Char('a'), Key::Char('b'), Key::Char('c'), named(NamedKey::Enter)], &[], 1),
            ("3 character keys then Enter".into(), 3)
        );
        assert_eq!(
            sentence_keys(&[named(NamedKey::ArrowDown), named(NamedKey::Enter)], &[], 2),
            ("the sequence (ArrowDown, then Enter)".into(), 0)
        );
        assert_eq!(
            sentence_keys(&[Key::Char('a'), Key::Char('b')], &[Modifier::Shift], 1),
            ("2 character keys with Shift held".into(), 2)
        );
        assert_eq!(
            wire_form(&[Key::Char('a'), named(NamedKey::Backspace)], &[Modifier::Control]),
            "Control+a Control+Backspace"
        );
    }
}
