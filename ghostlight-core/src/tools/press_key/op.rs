//! `browser_press_key`: one key or a short stroke sequence, with modifiers and repeats.
//!
//! Decisions (see also ARCHITECTURE):
//!
//! * The `key` fact is the wire form of what was pressed: one key as its name with held
//!   modifiers joined by `+` (`Enter`, `Control+Shift+K`), a stroke sequence as those forms
//!   joined by one space (`Control+a Backspace`); character keys that type text are counted,
//!   never spelled (`chars:3 Tab chars:4`).
//! * Sentences name named keys and shortcuts (a character held with `Control` or `Meta`), but
//!   only count other character keys (`Pressed 3 character keys then Enter`): characters
//!   pressed one by one are typing, and typed text may be a secret.
//! * Character keys pressed without `Control` or `Meta` enter text, so the credential
//!   preflight applies to them as it does to `browser_type_text`: into the resolved target,
//!   or the control the browser reports focused. Keys go only where checked: in legs cut after
//!   each `Tab`, pinned to the element checked for them, the focused element's frames inside
//!   authority (see [`keyboard`](crate::operation::keyboard)).
//! * Key presses are never repeat-safe.

use std::time::Duration;

use super::facts;
use crate::port::KeyInput;
use crate::tools::common::selects;
use crate::tools::press_key::{Keys, PressKeyRequest};
use crate::vocab::{Key, Modifier, NamedKey};

use crate::authority::ConfirmAction;
use crate::operation::keyboard::{check_focus, focus_moved, stopped_midway};
use crate::operation::outcome::Outcome;
use crate::operation::run::{Asking, Run, Step, host_of};

/// The bound a key press runs under: the tool takes no `timeout_ms`, so the spec's default.
const PRESS_TIMEOUT_MS: u64 = match crate::limits::TIMEOUT_MS.default {
    Some(ms) => ms,
    None => 8_000,
};

pub(crate) async fn run(run: &Run<'_>, request: &PressKeyRequest) -> Outcome {
    press(run, request).await.unwrap_or_else(|outcome| outcome)
}

/// One leg of keys (see [`keyboard`](crate::operation::keyboard)): keys sent together, `repeat`
/// times, ending after a `Tab` when it holds one.
struct Leg {
    keys: Vec<Key>,
    repeat: u32,
}

/// The key sequence in legs: one leg when no key is a `Tab` (repeats stay a count), else the
/// repeated sequence laid out and cut after every `Tab`.
fn legs(keys: &[Key], repeat: u32) -> Vec<Leg> {
    if !keys.iter().any(|key| matches!(key, Key::Named(NamedKey::Tab))) {
        return vec![Leg { keys: keys.to_vec(), repeat }];
    }
    let mut legs = Vec::new();
    let mut current = Vec::new();
    for key in (0..repeat).flat_map(|_| keys.iter().copied()) {
        current.push(key);
        if matches!(key, Key::Named(NamedKey::Tab)) {
            legs.push(Leg { keys: std::mem::take(&mut current), repeat: 1 });
        }
    }
    if !current.is_empty() {
        legs.push(Leg { keys: current, repeat: 1 });
    }
    legs
}

async fn press(run: &Run<'_>, request: &PressKeyRequest) -> Step<Outcome> {
    let (lease, page) =
        run.enter_selecting(request.tab.as_ref(), request.target.as_ref().is_some_and(selects)).await?;
    let host = host_of(&page.state.url);
    let keys: Vec<Key> = match &request.keys {
        Keys::One(key) => vec![*key],
        Keys::Strokes(strokes) => strokes.clone(),
    };
    let shortcut = is_shortcut(&request.modifiers);
    let types = |keys: &[Key]| !shortcut && keys.iter().any(|key| matches!(key, Key::Char(_)));
    let repeat = u32::try_from(request.repeat).unwrap_or(1);
    let legs = legs(&keys, repeat);
    let target = match &request.target {
        Some(target) => Some(run.target(&lease, &page, target).await?),
        None => None,
    };
    let mut into = match &target {
        Some(target) => {
            if types(&legs[0].keys) {
                run.preflight(&lease, &page, target.credential, target.handle.as_ref())?;
            }
            Some(target.element.clone())
        }
        None => check_focus(run, &lease, &page, types(&legs[0].keys)).await?.element,
    };
    let wire = wire_form(&keys, &request.modifiers);
    let (said, character_keys) = sentence_keys(&keys, &request.modifiers, repeat);
    let place = match &target {
        Some(target) => format!(" in {}", run.phrase(target.role, target.name.as_deref())),
        None => String::new(),
    };
    let times = match repeat {
        1 => String::new(),
        n => format!(" {n} times"),
    };
    let total: usize = legs.iter().map(|leg| leg.keys.len() * leg.repeat as usize).sum();
    // `submit`: Enter may submit the form its control sits in; whether it does is the page's
    // to decide, so every press that includes Enter asks, once, before the first key.
    if keys.contains(&Key::Named(NamedKey::Enter)) {
        let asking = Asking {
            host: host.clone(),
            tab: Some((&lease, page.generation)),
            control: target.as_ref().map(|target| run.phrase(target.role, target.name.as_deref())),
            element: into.as_ref(),
        };
        run.confirm(ConfirmAction::Submit, asking).await?;
    }
    let timeout = Duration::from_millis(PRESS_TIMEOUT_MS);
    let last = legs.len() - 1;
    let mut pressed = 0;
    let stop = |outcome: Outcome, pressed: usize| {
        outcome
            .fact(facts::TAB, lease.handle().as_str())
            .fact(facts::KEY, wire.clone())
            .fact(facts::PRESSED, pressed > 0)
            .fact(facts::PRESSED_COUNT, pressed)
    };
    let done = |pressed: usize| format!("Pressed {} of the {total} keys{place} on {host}.", pressed);
    for (index, leg) in legs.iter().enumerate() {
        if index > 0 {
            // The Tab that ended the last leg moved focus: check where before pressing more.
            match check_focus(run, &lease, &page, types(&leg.keys)).await {
                Ok(checked) => into = checked.element,
                Err(refusal) => return Err(stop(stopped_midway(&done(pressed), refusal), pressed)),
            }
        }
        let input = KeyInput {
            keys: leg.keys.clone(),
            repeat: leg.repeat,
            modifiers: request.modifiers.clone(),
            into: into.clone(),
        };
        run.dispatching();
        let receipt = run.port().press_keys(&run.on(&lease.tab, timeout), &input).await.map_err(|e| {
            run.fail_on(&lease, &e, &format!("press {said}{place}"), Some(PRESS_TIMEOUT_MS))
                .or_fact(facts::HOST, host.clone())
        })?;
        let leg_total = leg.keys.len() * leg.repeat as usize;
        let withheld = receipt.keys_withheld.min(leg_total);
        pressed += leg_total - withheld;
        let landing = run.land(&lease, &receipt.page);
        if withheld > 0 || (landing.is_some() && index < last) {
            let lead = if pressed == 0 { String::new() } else { done(pressed) };
            let outcome = stop(focus_moved(&lead, total - pressed, &host), pressed)
                .with_readiness(receipt.page.readiness);
            return Err(run.with_landing(outcome, landing, &receipt.page));
        }
        if index == last {
            let mut outcome = Outcome::applied(format!("Pressed {said}{times}{place} on {host}."), false)
                .with_readiness(receipt.page.readiness)
                .fact(facts::TAB, lease.handle().as_str())
                .fact(facts::KEY, wire)
                .fact(facts::PRESSED, true)
                .fact(facts::REPEAT, repeat)
                .fact(facts::CHARACTER_KEYS, character_keys)
                .fact(facts::HOST, host);
            if let Some(handle) = target.as_ref().and_then(|t| t.handle.as_ref()) {
                outcome = outcome.fact(facts::TARGET, handle.as_str());
            }
            return Ok(run.with_landing(outcome, landing, &receipt.page));
        }
    }
    unreachable!("legs() answers at least one leg")
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

/// The `key` fact: chords joined by one space, where a run of character keys that type
/// text (no `Control` or `Meta` held) is counted, never spelled: `chars:3 Enter`,
/// `Shift+chars:2`, `Control+a Backspace`. Typed characters may be a secret.
fn wire_form(keys: &[Key], modifiers: &[Modifier]) -> String {
    let shortcut = is_shortcut(modifiers);
    let mut parts: Vec<String> = Vec::new();
    let mut run_of_chars = 0;
    let held: String = modifiers.iter().map(|m| format!("{}+", m.as_str())).collect();
    let flush = |parts: &mut Vec<String>, n: &mut usize| {
        if *n > 0 {
            parts.push(format!("{held}chars:{n}"));
            *n = 0;
        }
    };
    for key in keys {
        match key {
            Key::Char(_) if !shortcut => run_of_chars += 1,
            _ => {
                flush(&mut parts, &mut run_of_chars);
                parts.push(chord(*key, modifiers));
            }
        }
    }
    flush(&mut parts, &mut run_of_chars);
    parts.join(" ")
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
        let strokes = [Key::Char('a'), named(NamedKey::Tab), Key::Char('S'), Key::Char('3'), Key::Char('c')];
        assert_eq!(wire_form(&strokes, &[]), "chars:1 Tab chars:3");
        assert_eq!(wire_form(&[Key::Char('x'), Key::Char('y')], &[Modifier::Shift]), "Shift+chars:2");
    }

    #[test]
    fn legs_end_after_every_tab() {
        let named = |k| Key::Named(k);
        let plain = legs(&[Key::Char('a'), named(NamedKey::Enter)], 3);
        assert_eq!((plain.len(), plain[0].repeat), (1, 3));
        let tabbed = legs(&[Key::Char('a'), named(NamedKey::Tab), Key::Char('b')], 2);
        let shapes: Vec<usize> = tabbed.iter().map(|leg| leg.keys.len()).collect();
        assert_eq!(shapes, vec![2, 3, 1], "a Tab | b a Tab | b");
        assert!(tabbed.iter().all(|leg| leg.repeat == 1));
    }
}
