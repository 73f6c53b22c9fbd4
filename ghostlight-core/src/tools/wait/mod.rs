//! `browser_wait`: wait for one explicit observable condition.

pub(crate) mod op;

use std::fmt;

use serde_json::Value;

use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, DecodeErrorKind, ObjectReader, json_type};
use crate::facts::tool_facts;
use crate::handles::Handle;
use crate::limits::{self, CountBound, WAIT_COUNT, WAIT_DURATION_MS, WAIT_TEXT_CHARS, WAIT_VALUE_CHARS};
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::selector::Selector;
use crate::tools::Tool;
use crate::tools::common::{SELECTOR, TAB, TARGET, TIMEOUT_MS, TargetRef, read_target};
use crate::vocab::WireChoice;
use crate::vocab::wire_choice;

wire_choice! {
    /// The condition a wait observes, as named on the wire.
    pub enum Condition {
        /// The page's load is ready.
        LoadReady => "load_ready",
        /// The tab's URL contains a string.
        UrlContains => "url_contains",
        /// Visible page text contains a string.
        TextPresent => "text_present",
        /// Visible page text no longer contains a string.
        TextAbsent => "text_absent",
        /// A target (or selector match) is present.
        TargetPresent => "target_present",
        /// A target (or selector match) is gone.
        TargetAbsent => "target_absent",
        /// A control matching a typed selector exists.
        SelectorPresent => "selector_present",
        /// A fixed executor-side delay.
        Duration => "duration",
        /// A control's current value equals a text (never for credential fields).
        ValueEquals => "value_equals",
        /// A checkbox, radio or switch is checked.
        Checked => "checked",
        /// A checkbox, radio or switch is not checked.
        Unchecked => "unchecked",
        /// The page's title contains a string.
        TitleContains => "title_contains",
        /// The tab's whole URL matches a glob.
        UrlMatches => "url_matches",
        /// At least a number of controls match a selector.
        CountAtLeast => "count_at_least",
    }
}

const CONDITION: Field = Field::required(
    "condition",
    FieldType::Choice { values: Condition::NAMES, default: None },
    "Condition to wait for.",
);
const VALUE: Field = Field::optional(
    "value",
    FieldType::TextOrInteger(WAIT_TEXT_CHARS, WAIT_DURATION_MS),
    "Text to match (url_matches: a glob, * and **), duration (ms) or count.",
);

tool_facts! {
    TAB: Str("tab", "Tab handle."),
    CONDITION: Str("condition", "Condition waited for."),
    SATISFIED: Bool("satisfied", "The condition held before the timeout."),
    ELAPSED_MS: Int("elapsed_ms", "Milliseconds waited."),
    READINESS: Str("readiness", "Governed page readiness."),
    TARGET_STALE: Bool("target_stale", "The target went stale while waiting."),
    MATCH_COUNT: Int("match_count", "Controls matching the selector at the last check (count_at_least)."),
    GATE: Json = crate::tools::common::GATE,
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Wait,
    description: "Wait for load, URL, title or page text, a target, selector or control state, or a delay.",
    fields: &[CONDITION, VALUE, TARGET, SELECTOR, TAB, TIMEOUT_MS],
    example: r#"{"condition":"load_ready"}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: true, destructive: false, idempotent: true, open_world: true },
};

/// One decoded wait condition with exactly the inputs its branch takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitCondition {
    /// Wait until the page's load is ready.
    LoadReady,
    /// Wait until the tab's URL contains this text.
    UrlContains(String),
    /// Wait until visible page text contains this text.
    TextPresent(String),
    /// Wait until visible page text no longer contains this text.
    TextAbsent(String),
    /// Wait until the target (or a control matching the selector) is present.
    TargetPresent(TargetRef),
    /// Wait until the target (or every control matching the selector) is gone.
    TargetAbsent(TargetRef),
    /// Poll the live page until a control matching the selector exists.
    SelectorPresent(Selector),
    /// Wait this many whole milliseconds, executor-side.
    Duration {
        /// The delay in milliseconds.
        ms: u64,
    },
    /// Wait until the control's current value equals `value`, compared in the page: the value
    /// never comes back. Refused for credential-class controls.
    ValueEquals {
        /// The control.
        target: TargetRef,
        /// The text its value must equal.
        value: String,
    },
    /// Wait until the control is checked (`true`) or not checked (`false`).
    Checked {
        /// The control.
        target: TargetRef,
        /// The state waited for.
        checked: bool,
    },
    /// Wait until the page's title contains this text (case-sensitive).
    TitleContains(String),
    /// Wait until the tab's whole URL matches this glob.
    UrlMatches(UrlGlob),
    /// Wait until at least `count` controls match the selector.
    CountAtLeast {
        /// The selector controls are matched against.
        selector: Selector,
        /// How many must match.
        count: u64,
    },
}

impl fmt::Debug for UrlGlob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("UrlGlob").field(&self.pattern).finish()
    }
}

/// A `url_matches` glob: the whole URL must match; `**` stands for any characters, `*` for
/// any characters but `/`, and every other character for itself (`?` included: URLs have
/// query strings).
#[derive(Clone)]
pub struct UrlGlob {
    pattern: String,
    regex: regex::Regex,
}

impl UrlGlob {
    /// Compile `pattern`; `None` when it has more than [`limits::URL_GLOB_WILDCARDS`]
    /// wildcards.
    pub fn new(pattern: &str) -> Option<UrlGlob> {
        let mut source = String::with_capacity(pattern.len() + 8);
        source.push('^');
        let mut wildcards = 0;
        let mut rest = pattern;
        while let Some(at) = rest.find('*') {
            source.push_str(&regex::escape(&rest[..at]));
            wildcards += 1;
            if rest[at..].starts_with("**") {
                source.push_str("(?s:.*)");
                rest = rest[at..].trim_start_matches('*');
            } else {
                source.push_str("[^/]*");
                rest = &rest[at + 1..];
            }
        }
        source.push_str(&regex::escape(rest));
        source.push('$');
        if wildcards > limits::URL_GLOB_WILDCARDS {
            return None;
        }
        let regex = regex::RegexBuilder::new(&source).size_limit(1 << 20).build().ok()?;
        Some(UrlGlob { pattern: pattern.to_owned(), regex })
    }

    /// The glob as given.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether the whole of `url` matches.
    pub fn matches(&self, url: &str) -> bool {
        self.regex.is_match(url)
    }
}

impl PartialEq for UrlGlob {
    fn eq(&self, other: &Self) -> bool {
        self.pattern == other.pattern
    }
}

impl Eq for UrlGlob {}

impl WaitCondition {
    /// The wire name of the condition.
    pub fn condition(&self) -> Condition {
        match self {
            WaitCondition::LoadReady => Condition::LoadReady,
            WaitCondition::UrlContains(_) => Condition::UrlContains,
            WaitCondition::TextPresent(_) => Condition::TextPresent,
            WaitCondition::TextAbsent(_) => Condition::TextAbsent,
            WaitCondition::TargetPresent(_) => Condition::TargetPresent,
            WaitCondition::TargetAbsent(_) => Condition::TargetAbsent,
            WaitCondition::SelectorPresent(_) => Condition::SelectorPresent,
            WaitCondition::Duration { .. } => Condition::Duration,
            WaitCondition::ValueEquals { .. } => Condition::ValueEquals,
            WaitCondition::Checked { checked: true, .. } => Condition::Checked,
            WaitCondition::Checked { checked: false, .. } => Condition::Unchecked,
            WaitCondition::TitleContains(_) => Condition::TitleContains,
            WaitCondition::UrlMatches(_) => Condition::UrlMatches,
            WaitCondition::CountAtLeast { .. } => Condition::CountAtLeast,
        }
    }
}

/// A decoded `browser_wait` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitRequest {
    /// What to wait for.
    pub condition: WaitCondition,
    /// The explicitly named tab, if any.
    pub tab: Option<Handle>,
    /// Timeout in milliseconds. For a duration wait without an explicit `timeout_ms` it is
    /// at least the duration, so the default timeout never cuts a duration short; an
    /// explicit timeout is never smaller than the duration.
    pub timeout_ms: u64,
}

impl Tool for WaitRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;
    const REPORTS_PROGRESS: bool = true;

    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError> {
        decode(reader)
    }

    /// `read`.
    fn capabilities(&self) -> CapabilitySet {
        CapabilitySet::of(&[Capability::Read])
    }

    /// The explicitly named tab.
    fn tab(&self) -> Option<&Handle> {
        self.tab.as_ref()
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<WaitRequest, DecodeError> {
    let condition = reader.choice::<Condition>(&CONDITION)?;
    let value = reader.raw(&VALUE);
    let target = read_target(reader, &TARGET, &SELECTOR)?;
    let tab = reader.handle(&TAB)?;
    let explicit_timeout = reader.int(&TIMEOUT_MS)?;
    let condition = condition.ok_or_else(|| reader.missing(&CONDITION))?;
    let name = condition.as_str();

    // Each branch takes value, target and selector in exactly one way.
    let takes_value = !matches!(
        condition,
        Condition::LoadReady
            | Condition::TargetPresent
            | Condition::TargetAbsent
            | Condition::SelectorPresent
            | Condition::Checked
            | Condition::Unchecked
    );
    if value.is_some() && !takes_value {
        return Err(reader.not_here(&VALUE, format_args!("is not accepted for {name}")));
    }
    let takes_target = matches!(
        condition,
        Condition::TargetPresent
            | Condition::TargetAbsent
            | Condition::ValueEquals
            | Condition::Checked
            | Condition::Unchecked
    );
    let selector_only = matches!(condition, Condition::SelectorPresent | Condition::CountAtLeast);
    let takes_selector = takes_target || selector_only;
    match &target {
        Some(TargetRef::Handle(_)) if !takes_target => {
            let rule = if selector_only {
                format!("is not accepted for {name}: give selector")
            } else {
                "is valid only for target_present, target_absent, value_equals, checked and unchecked"
                    .to_owned()
            };
            return Err(reader.not_here(&TARGET, rule));
        }
        Some(TargetRef::Selector(_)) if !takes_selector => {
            return Err(reader.not_here(
                &SELECTOR,
                "is valid only for target_present, target_absent, selector_present, value_equals, checked, \
                 unchecked and count_at_least",
            ));
        }
        _ => {}
    }

    let mut timeout_ms = explicit_timeout.unwrap_or(limits::TIMEOUT_MS.default.unwrap_or_default());
    let condition = match condition {
        Condition::LoadReady => WaitCondition::LoadReady,
        Condition::UrlContains => WaitCondition::UrlContains(wait_text(reader, value, name)?),
        Condition::TextPresent => WaitCondition::TextPresent(wait_text(reader, value, name)?),
        Condition::TextAbsent => WaitCondition::TextAbsent(wait_text(reader, value, name)?),
        Condition::TargetPresent | Condition::TargetAbsent => {
            let target = target.ok_or_else(|| reader.missing_one_of(&[&TARGET, &SELECTOR]))?;
            if condition == Condition::TargetPresent {
                WaitCondition::TargetPresent(target)
            } else {
                WaitCondition::TargetAbsent(target)
            }
        }
        Condition::SelectorPresent => match target {
            Some(TargetRef::Selector(selector)) => WaitCondition::SelectorPresent(selector),
            _ => return Err(reader.missing(&SELECTOR)),
        },
        Condition::ValueEquals => {
            let target = target.ok_or_else(|| reader.missing_one_of(&[&TARGET, &SELECTOR]))?;
            WaitCondition::ValueEquals { target, value: control_value(reader, value)? }
        }
        Condition::Checked | Condition::Unchecked => {
            let target = target.ok_or_else(|| reader.missing_one_of(&[&TARGET, &SELECTOR]))?;
            WaitCondition::Checked { target, checked: condition == Condition::Checked }
        }
        Condition::TitleContains => WaitCondition::TitleContains(wait_text(reader, value, name)?),
        Condition::UrlMatches => {
            let pattern = wait_text(reader, value, name)?;
            let glob = UrlGlob::new(&pattern).ok_or_else(|| {
                reader.invalid(
                    &VALUE,
                    DecodeErrorKind::OutOfRange,
                    format_args!(
                        "must be a glob with at most {} wildcards (* or **) for url_matches",
                        limits::URL_GLOB_WILDCARDS
                    ),
                )
            })?;
            WaitCondition::UrlMatches(glob)
        }
        Condition::CountAtLeast => {
            let selector = match target {
                Some(TargetRef::Selector(selector)) => selector,
                _ => return Err(reader.missing(&SELECTOR)),
            };
            WaitCondition::CountAtLeast { selector, count: wait_count(reader, value)? }
        }
        Condition::Duration => {
            let ms = wait_duration(reader, value)?;
            match explicit_timeout {
                Some(explicit) if explicit < ms => {
                    return Err(reader.invalid(
                        &TIMEOUT_MS,
                        DecodeErrorKind::Conflict,
                        format_args!(
                            "must be at least the duration /value ({ms} ms) for duration (got {explicit})"
                        ),
                    ));
                }
                Some(_) => {}
                None => timeout_ms = timeout_ms.max(ms),
            }
            WaitCondition::Duration { ms }
        }
    };
    Ok(WaitRequest { condition, tab, timeout_ms })
}

/// The text `value` of `url_contains`, `text_present`, `text_absent`, `title_contains` and
/// `url_matches`.
fn wait_text(
    reader: &ObjectReader<'_>,
    value: Option<&Value>,
    condition: &str,
) -> Result<String, DecodeError> {
    let rule =
        format!("must be a non-empty string of at most {} characters for {condition}", WAIT_TEXT_CHARS.max);
    bounded_text(reader, value, WAIT_TEXT_CHARS, &rule, got)
}

/// The text `value` of `value_equals` (never echoed, a number neither: it may be a control's
/// expected content).
fn control_value(reader: &ObjectReader<'_>, value: Option<&Value>) -> Result<String, DecodeError> {
    let rule = format!("must be a string of at most {} characters for value_equals", WAIT_VALUE_CHARS.max);
    bounded_text(reader, value, WAIT_VALUE_CHARS, &rule, |other| format!("(got {})", json_type(other)))
}

/// A text `value` within `bound`; a refusal states `rule` and what was received as `shown`
/// says it (a text's length, never the text).
fn bounded_text(
    reader: &ObjectReader<'_>,
    value: Option<&Value>,
    bound: CountBound,
    rule: &str,
    shown: fn(&Value) -> String,
) -> Result<String, DecodeError> {
    match value {
        None => Err(reader.missing(&VALUE)),
        Some(Value::String(text)) => {
            let count = text.chars().count();
            if bound.contains(count) {
                Ok(text.clone())
            } else {
                Err(reader.invalid(
                    &VALUE,
                    DecodeErrorKind::Length,
                    format_args!("{rule} (got {count} characters)"),
                ))
            }
        }
        Some(other) => {
            Err(reader.invalid(&VALUE, DecodeErrorKind::WrongType, format_args!("{rule} {}", shown(other))))
        }
    }
}

/// The whole-number `value` of `count_at_least`.
fn wait_count(reader: &ObjectReader<'_>, value: Option<&Value>) -> Result<u64, DecodeError> {
    let rule =
        format!("must be a whole number from {} to {} for count_at_least", WAIT_COUNT.min, WAIT_COUNT.max);
    let Some(value) = value else { return Err(reader.missing(&VALUE)) };
    let kind = match value {
        Value::Number(number) => match number.as_u64() {
            Some(count) if WAIT_COUNT.contains(count) => return Ok(count),
            Some(_) => DecodeErrorKind::OutOfRange,
            None if number.is_i64() => DecodeErrorKind::OutOfRange,
            None => DecodeErrorKind::WrongType,
        },
        _ => DecodeErrorKind::WrongType,
    };
    Err(reader.invalid(&VALUE, kind, format_args!("{rule} {}", got(value))))
}

/// The whole-millisecond `value` of a duration wait.
fn wait_duration(reader: &ObjectReader<'_>, value: Option<&Value>) -> Result<u64, DecodeError> {
    let rule = format!(
        "must be a whole number of milliseconds from {} to {} for duration",
        WAIT_DURATION_MS.min, WAIT_DURATION_MS.max
    );
    let Some(value) = value else { return Err(reader.missing(&VALUE)) };
    let kind = match value {
        Value::Number(number) => match number.as_u64() {
            Some(ms) if WAIT_DURATION_MS.contains(ms) => return Ok(ms),
            Some(_) => DecodeErrorKind::OutOfRange,
            None if number.is_i64() => DecodeErrorKind::OutOfRange,
            None => DecodeErrorKind::WrongType,
        },
        _ => DecodeErrorKind::WrongType,
    };
    Err(reader.invalid(&VALUE, kind, format_args!("{rule} {}", got(value))))
}

/// What was received, for a message: numbers are shown, anything else by type only.
fn got(value: &Value) -> String {
    match value {
        Value::Number(number) => format!("(got {number})"),
        other => format!("(got {})", json_type(other)),
    }
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::json;

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::tools::testing::{accept, int_edges, refuse, text_edges, with};

    const T: ToolName = ToolName::Wait;

    fn decoded(arguments: serde_json::Value) -> WaitRequest {
        match accept(T, arguments) {
            Request::Wait(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    fn target(text: &str) -> TargetRef {
        match Handle::parse(text, crate::handles::HandleKind::Target) {
            Ok(handle) => TargetRef::Handle(handle),
            Err(error) => panic!("{error:?}"),
        }
    }

    fn save() -> Selector {
        Selector { name: "Save".into(), role: None, exact: false }
    }

    #[test]
    fn branches() {
        let request = decoded(json!({"condition": "load_ready"}));
        assert_eq!(request.condition, WaitCondition::LoadReady);
        assert_eq!(request.condition.condition(), Condition::LoadReady);
        assert_eq!(request.timeout_ms, 8_000);
        assert_eq!(request.tab, None);
        assert_eq!(request.capabilities(), CapabilitySet::of(&[Capability::Read]));

        let request = decoded(json!({"condition": "load_ready", "tab": "tab_1", "timeout_ms": 500}));
        assert_eq!(request.tab().map(Handle::as_str), Some("tab_1"));
        assert_eq!(request.timeout_ms, 500);

        assert_eq!(
            decoded(json!({"condition": "url_contains", "value": "/done"})).condition,
            WaitCondition::UrlContains("/done".into())
        );
        assert_eq!(
            decoded(json!({"condition": "text_present", "value": "Saved"})).condition,
            WaitCondition::TextPresent("Saved".into())
        );
        assert_eq!(
            decoded(json!({"condition": "text_absent", "value": "Loading"})).condition,
            WaitCondition::TextAbsent("Loading".into())
        );
        assert_eq!(
            decoded(json!({"condition": "target_present", "target": "target_1"})).condition,
            WaitCondition::TargetPresent(target("target_1"))
        );
        assert_eq!(
            decoded(json!({"condition": "target_absent", "target": "target_2"})).condition,
            WaitCondition::TargetAbsent(target("target_2"))
        );
        assert_eq!(
            decoded(json!({"condition": "target_present", "selector": {"name": "Save"}})).condition,
            WaitCondition::TargetPresent(TargetRef::Selector(save()))
        );
        assert_eq!(
            decoded(json!({"condition": "target_absent", "selector": {"name": "Save"}})).condition,
            WaitCondition::TargetAbsent(TargetRef::Selector(save()))
        );
        assert_eq!(
            decoded(json!({"condition": "selector_present", "selector": {"name": "Save"}})).condition,
            WaitCondition::SelectorPresent(save())
        );
        let request = decoded(json!({"condition": "duration", "value": 250}));
        assert_eq!(request.condition, WaitCondition::Duration { ms: 250 });
        assert_eq!(request.timeout_ms, 8_000);
    }

    #[test]
    fn duration_and_timeout() {
        // The default timeout never cuts a duration short.
        let request = decoded(json!({"condition": "duration", "value": 10_000}));
        assert_eq!(request.condition, WaitCondition::Duration { ms: 10_000 });
        assert_eq!(request.timeout_ms, 10_000);
        assert_eq!(decoded(json!({"condition": "duration", "value": 8_001})).timeout_ms, 8_001);
        // An explicit timeout equal to or above the duration is kept.
        assert_eq!(
            decoded(json!({"condition": "duration", "value": 5_000, "timeout_ms": 5_000})).timeout_ms,
            5_000
        );
        assert_eq!(decoded(json!({"condition": "duration", "value": 0, "timeout_ms": 100})).timeout_ms, 100);
        // An explicit timeout smaller than the duration is refused.
        let error = refuse(
            T,
            json!({"condition": "duration", "value": 5_000, "timeout_ms": 4_999}),
            "/timeout_ms",
            K::Conflict,
        );
        assert_eq!(
            error.message(),
            "/timeout_ms must be at least the duration /value (5000 ms) for duration (got 4999)"
        );
    }

    #[test]
    fn duration_value_edges() {
        let base = json!({"condition": "duration"});
        assert_eq!(decoded(with(&base, "value", json!(0))).condition, WaitCondition::Duration { ms: 0 });
        assert_eq!(
            decoded(with(&base, "value", json!(10_000))).condition,
            WaitCondition::Duration { ms: 10_000 }
        );
        let error = refuse(T, with(&base, "value", json!(10_001)), "/value", K::OutOfRange);
        assert_eq!(
            error.message(),
            "/value must be a whole number of milliseconds from 0 to 10000 for duration (got 10001)"
        );
        refuse(T, with(&base, "value", json!(-1)), "/value", K::OutOfRange);
        refuse(T, with(&base, "value", json!(2.5)), "/value", K::WrongType);
        let error = refuse(T, with(&base, "value", json!("500")), "/value", K::WrongType);
        assert_eq!(
            error.message(),
            "/value must be a whole number of milliseconds from 0 to 10000 for duration (got a string)"
        );
        refuse(T, base, "/value", K::MissingField);
    }

    #[test]
    fn text_value_edges() {
        for condition in ["url_contains", "text_present", "text_absent"] {
            let base = json!({"condition": condition});
            text_edges(T, base.clone(), "value", WAIT_TEXT_CHARS);
            refuse(T, base.clone(), "/value", K::MissingField);
            let error = refuse(T, with(&base, "value", json!(5)), "/value", K::WrongType);
            assert_eq!(
                error.message(),
                format!(
                    "/value must be a non-empty string of at most 2000 characters for {condition} (got 5)"
                )
            );
            // An optional `null` is the value's absence (strict function calling's omission).
            refuse(T, with(&base, "value", json!(null)), "/value", K::MissingField);
            refuse(T, with(&base, "target", json!("target_1")), "/target", K::Conflict);
            refuse(
                T,
                with(&with(&base, "value", json!("a")), "target", json!("target_1")),
                "/target",
                K::Conflict,
            );
            refuse(
                T,
                with(&with(&base, "value", json!("a")), "selector", json!({"name": "A"})),
                "/selector",
                K::Conflict,
            );
        }
    }

    #[test]
    fn control_state_title_glob_and_count_branches() {
        assert_eq!(
            decoded(json!({"condition": "value_equals", "target": "target_1", "value": ""})).condition,
            WaitCondition::ValueEquals { target: target("target_1"), value: String::new() }
        );
        assert_eq!(
            decoded(json!({"condition": "checked", "selector": {"name": "Save"}})).condition,
            WaitCondition::Checked { target: TargetRef::Selector(save()), checked: true }
        );
        let unchecked = decoded(json!({"condition": "unchecked", "target": "target_1"})).condition;
        assert_eq!(unchecked.condition(), Condition::Unchecked);
        assert_eq!(
            decoded(json!({"condition": "title_contains", "value": "Inbox"})).condition,
            WaitCondition::TitleContains("Inbox".into())
        );
        assert_eq!(
            decoded(json!({"condition": "count_at_least", "selector": {"name": "Save"}, "value": 3}))
                .condition,
            WaitCondition::CountAtLeast { selector: save(), count: 3 }
        );
        let WaitCondition::UrlMatches(glob) =
            decoded(json!({"condition": "url_matches", "value": "https://*.test/**/done?x=1"})).condition
        else {
            panic!("not a glob");
        };
        assert_eq!(glob.pattern(), "https://*.test/**/done?x=1");
        assert!(glob.matches("https://shop.test/a/b/done?x=1"));
        assert!(!glob.matches("https://shop.test/a/b/done?x=12"), "the whole URL");
        assert!(!glob.matches("https://a/b.test/c/done?x=1"), "* stays within a segment");
        assert!(!glob.matches("https://shop.test/a/b/doneXx=1"), "? is itself");
        assert!(UrlGlob::new("a.b").is_some_and(|g| !g.matches("aXb")), "dots are literal");

        refuse(T, json!({"condition": "value_equals", "target": "target_1"}), "/value", K::MissingField);
        refuse(T, json!({"condition": "value_equals", "value": "x"}), "/target", K::MissingField);
        let error = refuse(
            T,
            json!({"condition": "value_equals", "target": "target_1", "value": 5}),
            "/value",
            K::WrongType,
        );
        assert_eq!(
            error.message(),
            "/value must be a string of at most 2000 characters for value_equals (got a number)"
        );
        let long = "s".repeat(2_001);
        let error = refuse(
            T,
            json!({"condition": "value_equals", "target": "target_1", "value": long}),
            "/value",
            K::Length,
        );
        assert!(!error.message().contains("sss"), "{error}");
        refuse(T, json!({"condition": "checked", "target": "target_1", "value": "x"}), "/value", K::Conflict);
        refuse(T, json!({"condition": "checked"}), "/target", K::MissingField);
        refuse(T, json!({"condition": "title_contains", "value": ""}), "/value", K::Length);
        refuse(
            T,
            json!({"condition": "title_contains", "value": "a", "target": "target_1"}),
            "/target",
            K::Conflict,
        );
        let error = refuse(
            T,
            json!({"condition": "url_matches", "value": "*".repeat(3) + &"/*".repeat(17)}),
            "/value",
            K::OutOfRange,
        );
        assert_eq!(
            error.message(),
            "/value must be a glob with at most 16 wildcards (* or **) for url_matches"
        );
        refuse(T, json!({"condition": "count_at_least", "value": 2}), "/selector", K::MissingField);
        refuse(
            T,
            json!({"condition": "count_at_least", "target": "target_1", "value": 2}),
            "/target",
            K::Conflict,
        );
        for bad in [json!(0), json!(2_001), json!(-1)] {
            let error = refuse(
                T,
                json!({"condition": "count_at_least", "selector": {"name": "A"}, "value": bad}),
                "/value",
                K::OutOfRange,
            );
            assert_eq!(
                error.message(),
                format!("/value must be a whole number from 1 to 2000 for count_at_least (got {bad})")
            );
        }
        refuse(
            T,
            json!({"condition": "count_at_least", "selector": {"name": "A"}, "value": "2"}),
            "/value",
            K::WrongType,
        );
    }

    #[test]
    fn refusals() {
        refuse(T, json!({}), "/condition", K::MissingField);
        refuse(T, json!({"condition": "idle"}), "/condition", K::NotAllowed);
        refuse(T, json!({"condition": 1}), "/condition", K::WrongType);
        // load_ready takes neither value nor target nor selector.
        let error = refuse(T, json!({"condition": "load_ready", "value": "x"}), "/value", K::Conflict);
        assert_eq!(error.message(), "/value is not accepted for load_ready");
        refuse(T, json!({"condition": "load_ready", "value": 5}), "/value", K::Conflict);
        refuse(T, json!({"condition": "load_ready", "target": "target_1"}), "/target", K::Conflict);
        refuse(T, json!({"condition": "load_ready", "selector": {"name": "A"}}), "/selector", K::Conflict);
        // target_present / target_absent: exactly one of target or selector, no value.
        for condition in ["target_present", "target_absent"] {
            refuse(T, json!({"condition": condition}), "/target", K::MissingField);
            refuse(
                T,
                json!({"condition": condition, "target": "target_1", "selector": {"name": "A"}}),
                "/selector",
                K::Conflict,
            );
            refuse(
                T,
                json!({"condition": condition, "target": "target_1", "value": "x"}),
                "/value",
                K::Conflict,
            );
            refuse(T, json!({"condition": condition, "target": "view_1"}), "/target", K::InvalidHandle);
        }
        // selector_present: selector required, target refused.
        refuse(T, json!({"condition": "selector_present"}), "/selector", K::MissingField);
        let error =
            refuse(T, json!({"condition": "selector_present", "target": "target_1"}), "/target", K::Conflict);
        assert_eq!(error.message(), "/target is not accepted for selector_present: give selector");
        refuse(
            T,
            json!({"condition": "selector_present", "selector": {"name": "A"}, "value": "A"}),
            "/value",
            K::Conflict,
        );
        refuse(
            T,
            json!({"condition": "selector_present", "selector": {"name": " "}}),
            "/selector/name",
            K::InvalidValue,
        );
        refuse(
            T,
            json!({"condition": "selector_present", "selector": {}}),
            "/selector/name",
            K::MissingField,
        );
        refuse(
            T,
            json!({"condition": "selector_present", "selector": {"name": "A", "css": "#a"}}),
            "/selector/css",
            K::UnknownField,
        );
        // duration takes neither target nor selector.
        refuse(T, json!({"condition": "duration", "value": 5, "target": "target_1"}), "/target", K::Conflict);
        refuse(
            T,
            json!({"condition": "duration", "value": 5, "selector": {"name": "A"}}),
            "/selector",
            K::Conflict,
        );
        refuse(T, json!({"condition": "load_ready", "tab": "target_1"}), "/tab", K::InvalidHandle);
        refuse(T, json!({"condition": "load_ready", "conditon": "x"}), "/conditon", K::UnknownField);
    }

    #[test]
    fn timeout_edges() {
        int_edges(T, json!({"condition": "load_ready"}), "timeout_ms", limits::TIMEOUT_MS);
        int_edges(T, json!({"condition": "text_present", "value": "a"}), "timeout_ms", limits::TIMEOUT_MS);
    }

    #[test]
    fn every_declared_field_is_read() {
        accept(T, json!({"condition": "load_ready"}));
    }
}
