//! The envelope language: pieces every Ghostlight-authored sentence is built from.
//!
//! Names reported by a browser are untrusted page text. They are normalized (whitespace
//! collapsed, control and formatting characters removed) and bounded to
//! [`TARGET_NAME_CHARS`] visible characters before a sentence may quote them; roles are
//! narrowed to the closed [`Role`] set and rendered as nouns.

use crate::limits::TARGET_NAME_CHARS;
use crate::selector::Role;
use crate::vocab::GateKind;

/// Normalize an accessible name for quoting: control and invisible formatting characters
/// removed, whitespace runs collapsed to one space, trimmed, and bounded to
/// [`TARGET_NAME_CHARS`] visible characters (the last one an ellipsis when cut). `None` when
/// nothing visible remains.
pub(crate) fn normalize_name(raw: &str) -> Option<String> {
    bound_visible(raw, TARGET_NAME_CHARS)
}

/// Normalize page text (a title, a name) and bound it to `max` visible characters.
pub(crate) fn bound_visible(raw: &str, max: usize) -> Option<String> {
    let mut words = String::new();
    for word in raw.split(|c: char| c.is_whitespace() || c.is_control()) {
        let visible: String = word.chars().filter(|c| !is_invisible(*c)).collect();
        if visible.is_empty() {
            continue;
        }
        if !words.is_empty() {
            words.push(' ');
        }
        words.push_str(&visible);
    }
    if words.is_empty() || max == 0 {
        return None;
    }
    if words.chars().count() <= max {
        return Some(words);
    }
    let mut cut: String = words.chars().take(max - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    Some(cut)
}

/// Zero-width and bidirectional formatting characters that would let page text hide or
/// reorder what a sentence says.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{00AD}'
    )
}

/// A target as a sentence names it: `the "Save" button`, or `a button` when the name is
/// withheld by privacy settings or unknown.
pub(crate) fn target_phrase(role: Role, name: Option<&str>, preserve_names: bool) -> String {
    let noun = role.noun();
    match name.and_then(normalize_name) {
        Some(name) if preserve_names => format!("the \"{name}\" {noun}"),
        _ => format!("{} {noun}", indefinite_article(noun)),
    }
}

/// `a` or `an` for a noun from the closed role set.
pub(crate) fn indefinite_article(noun: &str) -> &'static str {
    match noun.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

/// The clause an error status adds to a page's sentence: `the server answered 404 Not Found`
/// (`None` below 400). Reason phrases are RFC 9110's for the common codes.
pub(crate) fn http_error_clause(status: u16) -> Option<String> {
    if status < 400 {
        return None;
    }
    let phrase = match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        402..=499 => "a client error",
        _ => "a server error",
    };
    let space = if phrase.starts_with('a') { ", " } else { " " };
    Some(format!("the server answered {status}{space}{phrase}"))
}

/// What a gate is called in a summary: `a sign-in wall`.
pub(crate) const fn gate_noun(kind: GateKind) -> &'static str {
    match kind {
        GateKind::Login => "a sign-in wall",
        GateKind::Consent => "a consent prompt covering the page",
        GateKind::Challenge => "a human-verification check",
        GateKind::RateLimit => "a rate-limit notice",
    }
}

/// The `hint` of a `gate` fact: what to do about it, Ghostlight's words (never page text),
/// always involving the person and never getting around the gate.
pub(crate) const fn gate_hint(kind: GateKind) -> &'static str {
    match kind {
        GateKind::Login => {
            "The page asks for a sign-in; ask the person to sign in in the browser, then continue."
        }
        GateKind::Consent => {
            "A consent prompt covers the page; ask the person to answer it in the browser, then continue."
        }
        GateKind::Challenge => {
            "The page asks for human verification; ask the person to complete it in the browser, then continue."
        }
        GateKind::RateLimit => {
            "The site is limiting requests; tell the person, and try again later rather than repeating now."
        }
    }
}

/// The sentence a summary adds for a gate: `The page shows a sign-in wall, not the content
/// asked for.`
pub(crate) fn gate_sentence(kind: GateKind) -> String {
    format!("The page shows {}, not the content asked for.", gate_noun(kind))
}

/// `1 step`, `2 steps`: a count with its noun.
pub(crate) fn count(n: usize, singular: &str, plural: &str) -> String {
    if n == 1 { format!("1 {singular}") } else { format!("{n} {plural}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_errors_have_a_clause() {
        assert_eq!(http_error_clause(200), None);
        assert_eq!(http_error_clause(404).as_deref(), Some("the server answered 404 Not Found"));
        assert_eq!(http_error_clause(500).as_deref(), Some("the server answered 500 Internal Server Error"));
        assert_eq!(http_error_clause(418).as_deref(), Some("the server answered 418, a client error"));
    }

    #[test]
    fn names_are_normalized_and_bounded() {
        assert_eq!(normalize_name("  Save\n\t changes "), Some("Save changes".into()));
        assert_eq!(normalize_name("Pay\u{202E}lanigiro"), Some("Paylanigiro".into()));
        assert_eq!(normalize_name("zero\u{200B}width"), Some("zerowidth".into()));
        assert_eq!(normalize_name(" \u{200B} \n"), None);
        let long = "é".repeat(200);
        let bounded = normalize_name(&long).expect("visible");
        assert_eq!(bounded.chars().count(), TARGET_NAME_CHARS);
        assert!(bounded.ends_with('…'));
        let exact = "x".repeat(TARGET_NAME_CHARS);
        assert_eq!(normalize_name(&exact), Some(exact.clone()));
    }

    #[test]
    fn target_phrases_follow_privacy() {
        assert_eq!(target_phrase(Role::Button, Some("Save"), true), "the \"Save\" button");
        assert_eq!(target_phrase(Role::Button, Some("Save"), false), "a button");
        assert_eq!(target_phrase(Role::Img, None, true), "an image");
        assert_eq!(target_phrase(Role::Textbox, Some("  "), true), "a text field");
        assert_eq!(target_phrase(Role::Option, Some("Red"), false), "an option");
    }

    #[test]
    fn every_gate_has_words_that_involve_the_person() {
        for kind in [GateKind::Login, GateKind::Consent, GateKind::Challenge, GateKind::RateLimit] {
            let hint = gate_hint(kind);
            assert!(hint.contains("the person"), "{hint}");
            assert!(hint.ends_with('.'));
            assert!(gate_sentence(kind).starts_with("The page shows a"));
        }
        assert_eq!(
            gate_sentence(GateKind::Login),
            "The page shows a sign-in wall, not the content asked for."
        );
    }

    #[test]
    fn counts() {
        assert_eq!(count(1, "step", "steps"), "1 step");
        assert_eq!(count(3, "step", "steps"), "3 steps");
    }
}
