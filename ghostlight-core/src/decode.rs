//! Shared decoding: JSON Pointers, the one decode error type, and [`ObjectReader`], which
//! reads a JSON object strictly against a declared field table.
//!
//! A decode error names the JSON Pointer of the offending field, the rule it broke and, when
//! safe, what was received: `/timeout_ms must be an integer from 100 to 30000 (got 50)`.
//! Values of sensitive fields (typed text, fill values, scripts, dialog text, file data and
//! paths) are never echoed; only their JSON type or length is.
//!
//! An optional member whose value is `null` reads as absent ([`reads_as_absent`]), the way
//! OpenAI's strict function calling sends the members a model leaves out.

use crate::vocab::{FillValue, WireChoice};
use std::fmt::{self, Write as _};

use serde_json::{Map, Value};

use crate::handles::{Handle, HandleKind, HandleSyntaxError};
use crate::limits::{CountBound, ECHO_CHARS, IntBound, URL_CHARS};
use crate::schema::{Field, FieldType, RESTRICTIONS, SELECTOR_FIELDS};
use crate::selector::{Role, Selector};

/// An RFC 6901 JSON Pointer into the call's arguments (`""` is the whole object).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Pointer(String);

impl Pointer {
    /// The pointer to the whole arguments object.
    pub const fn root() -> Self {
        Pointer(String::new())
    }

    /// The pointer to member `key` of the object this pointer designates.
    pub fn key(&self, key: &str) -> Self {
        let mut text = self.0.clone();
        text.push('/');
        for c in key.chars() {
            match c {
                '~' => text.push_str("~0"),
                '/' => text.push_str("~1"),
                c => text.push(c),
            }
        }
        Pointer(text)
    }

    /// The pointer to element `index` of the array this pointer designates.
    pub fn index(&self, index: usize) -> Self {
        let mut text = self.0.clone();
        let _ = write!(text, "/{index}");
        Pointer(text)
    }

    /// The pointer text (RFC 6901).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The pointer text as errors and facts show it: at most
    /// `POINTER_ECHO_CHARS` characters, a longer one cut
    /// and ending with `…` (a caller's unknown member may have any key; found by fuzzing).
    pub fn shown(&self) -> std::borrow::Cow<'_, str> {
        let limit = crate::limits::POINTER_ECHO_CHARS;
        match self.0.char_indices().nth(limit) {
            None => std::borrow::Cow::Borrowed(&self.0),
            Some((end, _)) => std::borrow::Cow::Owned(format!("{}…", &self.0[..end])),
        }
    }
}

impl fmt::Display for Pointer {
    /// The [shown](Pointer::shown) text, or `arguments` for the root.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() { f.write_str("arguments") } else { f.write_str(&self.shown()) }
    }
}

/// The rule family a decode error belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// A value has the wrong JSON type.
    WrongType,
    /// A member is not declared for this object.
    UnknownField,
    /// A required member is absent.
    MissingField,
    /// A number lies outside its bound.
    OutOfRange,
    /// A string's length or an array's item count lies outside its bound.
    Length,
    /// A string is not one of the closed values.
    NotAllowed,
    /// A URL is not an absolute `http`/`https` URL.
    InvalidUrl,
    /// A handle is malformed or of the wrong kind.
    InvalidHandle,
    /// Two members cannot be combined, or a member is not valid in this branch.
    Conflict,
    /// An array that must hold unique items holds a duplicate.
    Duplicate,
    /// A flow step names a tool that is not an advertised non-composite tool.
    UnknownTool,
    /// A `flow_ref` is malformed or refers to no earlier step.
    InvalidReference,
    /// A value is syntactically valid but semantically wrong (a bad host pattern, a relative
    /// path, invalid base64, …).
    InvalidValue,
}

impl DecodeErrorKind {
    /// The snake_case code carried in the `rule` fact of an invalid-arguments envelope.
    pub const fn code(self) -> &'static str {
        match self {
            DecodeErrorKind::WrongType => "wrong_type",
            DecodeErrorKind::UnknownField => "unknown_field",
            DecodeErrorKind::MissingField => "missing_field",
            DecodeErrorKind::OutOfRange => "out_of_range",
            DecodeErrorKind::Length => "length",
            DecodeErrorKind::NotAllowed => "not_allowed",
            DecodeErrorKind::InvalidUrl => "invalid_url",
            DecodeErrorKind::InvalidHandle => "invalid_handle",
            DecodeErrorKind::Conflict => "conflict",
            DecodeErrorKind::Duplicate => "duplicate",
            DecodeErrorKind::UnknownTool => "unknown_tool",
            DecodeErrorKind::InvalidReference => "invalid_reference",
            DecodeErrorKind::InvalidValue => "invalid_value",
        }
    }
}

/// A refused input: where, which rule, and a bounded message safe to show to the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DecodeError {
    kind: DecodeErrorKind,
    pointer: Pointer,
    rule: String,
    message: String,
}

impl DecodeError {
    /// A new error at `pointer`; `rule` follows the (shown) pointer in the message.
    pub fn new(kind: DecodeErrorKind, pointer: Pointer, rule: impl fmt::Display) -> Self {
        let rule = rule.to_string();
        let message = format!("{pointer} {rule}");
        DecodeError { kind, pointer, rule, message }
    }

    /// The rule family.
    pub fn kind(&self) -> DecodeErrorKind {
        self.kind
    }

    /// The JSON Pointer of the offending (or missing) member, exact (show it with
    /// [`Pointer::shown`]).
    pub fn pointer(&self) -> &Pointer {
        &self.pointer
    }

    /// The full message, starting with the pointer.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error relocated under `base` (used when a child step is decoded on its own).
    pub fn under(self, base: &Pointer) -> Self {
        let pointer = Pointer(format!("{}{}", base.0, self.pointer.0));
        DecodeError::new(self.kind, pointer, self.rule)
    }
}

/// A short description of a JSON value's type: "a string", "null", …
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What was received, bounded, for an error message: values of sensitive fields are
/// described by type and length only.
fn got(value: &Value, sensitive: bool) -> String {
    match value {
        Value::Number(n) if !sensitive => format!("(got {n})"),
        Value::Bool(b) if !sensitive => format!("(got {b})"),
        Value::String(s) if sensitive => format!("(got a string of {} characters)", s.chars().count()),
        Value::String(s) => {
            let shown: String = s.chars().take(ECHO_CHARS).collect();
            let ellipsis = if s.chars().count() > ECHO_CHARS { "…" } else { "" };
            format!("(got {:?}{ellipsis})", shown)
        }
        other => format!("(got {})", json_type(other)),
    }
}

fn describe_text(bound: CountBound) -> String {
    match bound.min {
        0 => format!("must be a string of at most {} characters", bound.max),
        1 => format!("must be a non-empty string of at most {} characters", bound.max),
        min => format!("must be a string of {min} to {} characters", bound.max),
    }
}

fn describe_count(bound: CountBound) -> String {
    if bound.min == bound.max {
        format!("must be an array of {} items", bound.min)
    } else {
        format!("must be an array of {} to {} items", bound.min, bound.max)
    }
}

fn describe_int(bound: IntBound) -> String {
    format!("must be an integer from {} to {}", bound.min, bound.max)
}

fn quoted_list(values: &[&str]) -> String {
    values.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(", ")
}

/// Whether member `field` holding `value` is read as if it were absent: an explicit `null` in
/// an optional field.
///
/// OpenAI's strict function calling lists every property in `required` and sends `null` for
/// each optional one the model leaves out, so a strict client's calls arrive full of nulls.
/// No field of the 1.0 contract gives `null` a meaning of its own (the specification speaks
/// only of present values and omission, and `[]` — not `null` — narrows a restriction to
/// nothing), so reading such a `null` as omission cannot change what a call means. The rule is
/// the decoder's, applied to every declared optional field of every object it reads (top-level
/// arguments, sequence and flow steps, selectors, fill fields, inline files) and to a
/// `flow_ref` that resolves to `null`. Members that are not declared are still refused
/// whatever their value, and a required field's `null` is still a type error.
pub(crate) fn reads_as_absent(field: &Field, value: &Value) -> bool {
    value.is_null() && !field.required
}

#[cfg(test)]
thread_local! {
    /// Declared fields a decoder never asked for, recorded by [`ObjectReader::finish`] so the
    /// catalog tests can prove every declared field is read.
    pub(crate) static UNREAD_FIELDS: std::cell::RefCell<Vec<String>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Reads one JSON object strictly against a declared field table.
///
/// Construction refuses members that are not declared. Typed getters read a member, check it
/// against the declared type and bounds, and return `None` when it is absent. Decoders read
/// every declared field first and then check the combination, so each branch rule lives in
/// one place.
#[derive(Debug)]
pub(crate) struct ObjectReader<'a> {
    map: &'a Map<String, Value>,
    at: Pointer,
    #[cfg_attr(not(test), allow(dead_code))]
    fields: &'static [Field],
    queried: Vec<&'static str>,
}

impl<'a> ObjectReader<'a> {
    /// Read `value` (at `at`) as an object whose members are `fields`, plus the restriction
    /// fields when `restrictions_allowed`.
    pub(crate) fn new(
        value: &'a Value,
        at: Pointer,
        fields: &'static [Field],
        restrictions_allowed: bool,
    ) -> Result<Self, DecodeError> {
        let Value::Object(map) = value else {
            return Err(DecodeError::new(
                DecodeErrorKind::WrongType,
                at,
                format_args!("must be an object {}", got(value, false)),
            ));
        };
        for key in map.keys() {
            if fields.iter().any(|f| f.name == key) {
                continue;
            }
            let is_restriction = RESTRICTIONS.iter().any(|f| f.name == key);
            if is_restriction && restrictions_allowed {
                continue;
            }
            let pointer = at.key(key);
            return Err(if is_restriction {
                DecodeError::new(
                    DecodeErrorKind::UnknownField,
                    pointer,
                    "is accepted only at the top level of a call: restrictions apply to the whole call",
                )
            } else {
                let names: Vec<&str> = fields.iter().map(|f| f.name).collect();
                let accepted = if names.is_empty() {
                    "no fields besides restrict_hosts and restrict_capabilities".to_owned()
                } else {
                    names.join(", ")
                };
                DecodeError::new(
                    DecodeErrorKind::UnknownField,
                    pointer,
                    format_args!("is not an accepted field (accepted: {accepted})"),
                )
            });
        }
        Ok(ObjectReader { map, at, fields, queried: Vec::new() })
    }

    /// The pointer of member `field`.
    pub(crate) fn pointer(&self, field: &Field) -> Pointer {
        self.at.key(field.name)
    }

    /// Whether member `field` is present (an optional member whose value is `null` is not:
    /// see [`ObjectReader::raw`]).
    pub(crate) fn present(&mut self, field: &'static Field) -> bool {
        self.raw(field).is_some()
    }

    /// The raw member value, if present.
    ///
    /// An optional member whose value is `null` reads as absent ([`reads_as_absent`]). A
    /// required member's `null` is returned, so its getter refuses it with the field's type
    /// rule.
    pub(crate) fn raw(&mut self, field: &'static Field) -> Option<&'a Value> {
        self.queried.push(field.name);
        self.map.get(field.name).filter(|value| !reads_as_absent(field, value))
    }

    fn type_error(&self, field: &Field, rule: impl fmt::Display, value: &Value) -> DecodeError {
        DecodeError::new(
            DecodeErrorKind::WrongType,
            self.pointer(field),
            format_args!("{rule} {}", got(value, field.sensitive)),
        )
    }

    /// An error: `field` is required (in this branch).
    pub(crate) fn missing(&self, field: &Field) -> DecodeError {
        DecodeError::new(DecodeErrorKind::MissingField, self.pointer(field), "is required")
    }

    /// An error: exactly one of `fields` is required and none is present.
    pub(crate) fn missing_one_of(&self, fields: &[&Field]) -> DecodeError {
        let names: Vec<String> = fields.iter().map(|f| self.pointer(f).to_string()).collect();
        let first = fields.first().map(|f| self.pointer(f)).unwrap_or_else(|| self.at.clone());
        DecodeError::new(
            DecodeErrorKind::MissingField,
            first,
            format_args!("is required: give exactly one of {}", names.join(", ")),
        )
    }

    /// An error: `field` cannot be combined with `other`.
    pub(crate) fn conflict(&self, field: &Field, other: &Field) -> DecodeError {
        DecodeError::new(
            DecodeErrorKind::Conflict,
            self.pointer(field),
            format_args!("cannot be combined with {}", self.pointer(other)),
        )
    }

    /// An error: `field` is not valid here, for the stated reason (e.g. "is valid only for
    /// reload").
    pub(crate) fn not_here(&self, field: &Field, rule: impl fmt::Display) -> DecodeError {
        DecodeError::new(DecodeErrorKind::Conflict, self.pointer(field), rule)
    }

    /// An error of any kind at `field`.
    pub(crate) fn invalid(
        &self,
        field: &Field,
        kind: DecodeErrorKind,
        rule: impl fmt::Display,
    ) -> DecodeError {
        DecodeError::new(kind, self.pointer(field), rule)
    }

    /// Read a boolean.
    pub(crate) fn bool(&mut self, field: &'static Field) -> Result<Option<bool>, DecodeError> {
        match self.raw(field) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(self.type_error(field, "must be true or false", other)),
        }
    }

    /// Read a boolean, using the declared default when absent.
    pub(crate) fn bool_or_default(&mut self, field: &'static Field) -> Result<bool, DecodeError> {
        let default = match field.ty {
            FieldType::Bool { default } => default.unwrap_or(false),
            _ => false,
        };
        Ok(self.bool(field)?.unwrap_or(default))
    }

    /// Read an integer inside the declared [`FieldType::Integer`] bound.
    pub(crate) fn int(&mut self, field: &'static Field) -> Result<Option<u64>, DecodeError> {
        let bound = match field.ty {
            FieldType::Integer(bound) => bound,
            _ => return Err(self.undeclared(field)),
        };
        let Some(value) = self.raw(field) else { return Ok(None) };
        let rule = describe_int(bound);
        let Value::Number(number) = value else {
            return Err(self.type_error(field, rule, value));
        };
        match number.as_u64() {
            Some(n) if bound.contains(n) => Ok(Some(n)),
            Some(_) => Err(DecodeError::new(
                DecodeErrorKind::OutOfRange,
                self.pointer(field),
                format_args!("{rule} {}", got(value, field.sensitive)),
            )),
            None => {
                let kind =
                    if number.is_i64() { DecodeErrorKind::OutOfRange } else { DecodeErrorKind::WrongType };
                Err(DecodeError::new(
                    kind,
                    self.pointer(field),
                    format_args!("{rule} {}", got(value, field.sensitive)),
                ))
            }
        }
    }

    /// Read an integer, using the declared default when absent.
    pub(crate) fn int_or_default(&mut self, field: &'static Field) -> Result<u64, DecodeError> {
        let default = match field.ty {
            FieldType::Integer(IntBound { default: Some(default), .. }) => default,
            _ => return Err(self.undeclared(field)),
        };
        Ok(self.int(field)?.unwrap_or(default))
    }

    /// Read a string inside the declared [`FieldType::Text`] bound (Unicode scalar values).
    pub(crate) fn text(&mut self, field: &'static Field) -> Result<Option<String>, DecodeError> {
        let bound = match field.ty {
            FieldType::Text(bound) => bound,
            _ => return Err(self.undeclared(field)),
        };
        let Some(value) = self.raw(field) else { return Ok(None) };
        let at = self.pointer(field);
        check_text(value, bound, &at, field.sensitive).map(Some)
    }

    /// Read an absolute `http`/`https` URL.
    pub(crate) fn url(&mut self, field: &'static Field) -> Result<Option<url::Url>, DecodeError> {
        let Some(value) = self.raw(field) else { return Ok(None) };
        let rule = "must be an absolute http or https URL";
        let Value::String(text) = value else {
            return Err(self.type_error(field, rule, value));
        };
        let count = text.chars().count();
        if !URL_CHARS.contains(count) {
            return Err(DecodeError::new(
                DecodeErrorKind::Length,
                self.pointer(field),
                format_args!("{rule} of at most {} characters (got {count} characters)", URL_CHARS.max),
            ));
        }
        match url::Url::parse(text) {
            Ok(url) if url.port() == Some(0) => Err(DecodeError::new(
                DecodeErrorKind::InvalidUrl,
                self.pointer(field),
                format_args!("{rule} with a port from 1 to 65535 (got port 0)"),
            )),
            Ok(url)
                if matches!(url.scheme(), "http" | "https")
                    && url.host().is_some()
                    && crate::authority::Site::from_url(&url).is_none() =>
            {
                Err(DecodeError::new(
                    DecodeErrorKind::InvalidUrl,
                    self.pointer(field),
                    format_args!(
                        "{rule} whose host names a web site (got a host with an empty label or a `*`)"
                    ),
                ))
            }
            Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => Ok(Some(url)),
            Ok(url) => Err(DecodeError::new(
                DecodeErrorKind::InvalidUrl,
                self.pointer(field),
                format_args!("{rule} (got scheme {:?})", url.scheme()),
            )),
            Err(url::ParseError::RelativeUrlWithoutBase) => Err(DecodeError::new(
                DecodeErrorKind::InvalidUrl,
                self.pointer(field),
                format_args!("{rule} (got a relative URL)"),
            )),
            Err(error) => Err(DecodeError::new(
                DecodeErrorKind::InvalidUrl,
                self.pointer(field),
                format_args!("{rule} (got an unparsable URL: {error})"),
            )),
        }
    }

    /// Read one value of a closed enumeration.
    pub(crate) fn choice<T: WireChoice>(&mut self, field: &'static Field) -> Result<Option<T>, DecodeError> {
        let Some(value) = self.raw(field) else { return Ok(None) };
        let at = self.pointer(field);
        check_choice::<T>(value, &at, field.sensitive).map(Some)
    }

    /// Read one value of a closed enumeration, using the declared default when absent.
    pub(crate) fn choice_or_default<T: WireChoice>(
        &mut self,
        field: &'static Field,
    ) -> Result<T, DecodeError> {
        let default = match field.ty {
            FieldType::Choice { default: Some(default), .. } => T::from_wire(default),
            _ => None,
        };
        match (self.choice::<T>(field)?, default) {
            (Some(value), _) | (None, Some(value)) => Ok(value),
            (None, None) => Err(self.undeclared(field)),
        }
    }

    /// Read a handle of the declared [`FieldType::Handle`] kind.
    pub(crate) fn handle(&mut self, field: &'static Field) -> Result<Option<Handle>, DecodeError> {
        let kind = match field.ty {
            FieldType::Handle(kind) => kind,
            _ => return Err(self.undeclared(field)),
        };
        let Some(value) = self.raw(field) else { return Ok(None) };
        let at = self.pointer(field);
        check_handle(value, kind, &at).map(Some)
    }

    /// Read a typed semantic selector `{name, role?, exact?}`.
    pub(crate) fn selector(&mut self, field: &'static Field) -> Result<Option<Selector>, DecodeError> {
        let Some(value) = self.raw(field) else { return Ok(None) };
        let at = self.pointer(field);
        decode_selector(value, at).map(Some)
    }

    /// Read a fill value: a bounded string, a boolean, a finite number, or a bounded list of
    /// bounded strings.
    pub(crate) fn fill_value(&mut self, field: &'static Field) -> Result<Option<FillValue>, DecodeError> {
        let (bound, options) = match field.ty {
            FieldType::FillValue { text, options } => (text, options),
            _ => return Err(self.undeclared(field)),
        };
        let Some(value) = self.raw(field) else { return Ok(None) };
        let at = self.pointer(field);
        match value {
            Value::Bool(b) => Ok(Some(FillValue::Checked(*b))),
            Value::Number(n) => match n.as_f64() {
                Some(f) if f.is_finite() => Ok(Some(FillValue::Number(f))),
                _ => Err(DecodeError::new(DecodeErrorKind::WrongType, at, "must be a finite number")),
            },
            Value::String(_) => check_text(value, bound, &at, true).map(|s| Some(FillValue::Text(s))),
            Value::Array(items) => {
                if !options.contains(items.len()) {
                    return Err(DecodeError::new(
                        DecodeErrorKind::Length,
                        at,
                        format_args!(
                            "a list of options must hold at most {} items (got {})",
                            options.max,
                            items.len()
                        ),
                    ));
                }
                let mut list = Vec::with_capacity(items.len());
                for (index, item) in items.iter().enumerate() {
                    list.push(check_text(item, bound, &at.index(index), true)?);
                }
                Ok(Some(FillValue::Options(list)))
            }
            other => Err(self.type_error(
                field,
                "must be a string, a boolean, a number or a list of options",
                other,
            )),
        }
    }

    /// Read an array, decoding each item with `item` (given the item and its pointer), and
    /// checking the declared count bound and uniqueness.
    pub(crate) fn list<T>(
        &mut self,
        field: &'static Field,
        mut item: impl FnMut(&'a Value, Pointer) -> Result<T, DecodeError>,
    ) -> Result<Option<Vec<T>>, DecodeError> {
        let (count, unique) = match field.ty {
            FieldType::List { count, unique, .. } => (count, unique),
            _ => return Err(self.undeclared(field)),
        };
        let Some(value) = self.raw(field) else { return Ok(None) };
        let at = self.pointer(field);
        let Value::Array(items) = value else {
            return Err(self.type_error(field, describe_count(count), value));
        };
        if !count.contains(items.len()) {
            return Err(DecodeError::new(
                DecodeErrorKind::Length,
                at,
                format_args!("{} (got {} items)", describe_count(count), items.len()),
            ));
        }
        let mut out = Vec::with_capacity(items.len());
        for (index, value) in items.iter().enumerate() {
            out.push(item(value, at.index(index))?);
        }
        if unique {
            for (index, value) in items.iter().enumerate() {
                if items[..index].contains(value) {
                    return Err(DecodeError::new(
                        DecodeErrorKind::Duplicate,
                        at.index(index),
                        "repeats an earlier item: items must be unique",
                    ));
                }
            }
        }
        Ok(Some(out))
    }

    /// Read an array of strings of the declared item type ([`FieldType::Text`] items).
    pub(crate) fn text_list(&mut self, field: &'static Field) -> Result<Option<Vec<String>>, DecodeError> {
        let (bound, sensitive) = match field.ty {
            FieldType::List { item: FieldType::Text(bound), .. } => (*bound, field.sensitive),
            _ => return Err(self.undeclared(field)),
        };
        self.list(field, |value, at| check_text(value, bound, &at, sensitive))
    }

    /// Read an array of closed-enumeration values.
    pub(crate) fn choice_list<T: WireChoice>(
        &mut self,
        field: &'static Field,
    ) -> Result<Option<Vec<T>>, DecodeError> {
        let sensitive = field.sensitive;
        self.list(field, |value, at| check_choice::<T>(value, &at, sensitive))
    }

    /// An open object given as itself or as the JSON text of one, at most `max_chars` long
    /// (OpenAI's strict function calling cannot express an open object, so its schema carries
    /// the text).
    pub(crate) fn open_object_or_text(
        &mut self,
        field: &'static Field,
        max_chars: usize,
    ) -> Result<Option<Map<String, Value>>, DecodeError> {
        const RULE: &str = "must be an object, or the JSON text of one";
        match self.raw(field) {
            None => Ok(None),
            Some(Value::Object(map)) => Ok(Some(map.clone())),
            Some(value @ Value::String(text)) => {
                if text.chars().count() > max_chars {
                    return Err(self.invalid(
                        field,
                        DecodeErrorKind::Length,
                        format_args!("as JSON text must be at most {max_chars} characters"),
                    ));
                }
                match serde_json::from_str::<Value>(text) {
                    Ok(Value::Object(map)) => Ok(Some(map)),
                    _ => Err(self.type_error(field, RULE, value)),
                }
            }
            Some(other) => Err(self.type_error(field, RULE, other)),
        }
    }

    /// Finish reading. In this crate's tests, declared fields that were never asked for are
    /// recorded so that the catalog invariant tests can prove every field is read.
    pub(crate) fn finish(self) {
        #[cfg(test)]
        {
            let unread: Vec<String> = self
                .fields
                .iter()
                .filter(|f| !self.queried.contains(&f.name))
                .map(|f| format!("{}/{}", self.at.as_str(), f.name))
                .collect();
            UNREAD_FIELDS.with(|cell| cell.borrow_mut().extend(unread));
        }
    }

    /// A getter was used on a field of another type: a programming error, reported as a
    /// decode error rather than a panic (the catalog tests make it unreachable).
    fn undeclared(&self, field: &Field) -> DecodeError {
        debug_assert!(false, "field {} read with a getter that does not match its type", field.name);
        DecodeError::new(
            DecodeErrorKind::InvalidValue,
            self.pointer(field),
            "could not be read (internal declaration mismatch)",
        )
    }
}

/// Check a string against a length bound (Unicode scalar values).
pub(crate) fn check_text(
    value: &Value,
    bound: CountBound,
    at: &Pointer,
    sensitive: bool,
) -> Result<String, DecodeError> {
    let rule = describe_text(bound);
    let Value::String(text) = value else {
        return Err(DecodeError::new(
            DecodeErrorKind::WrongType,
            at.clone(),
            format_args!("{rule} {}", got(value, sensitive)),
        ));
    };
    let count = text.chars().count();
    if !bound.contains(count) {
        return Err(DecodeError::new(
            DecodeErrorKind::Length,
            at.clone(),
            format_args!("{rule} (got {count} characters)"),
        ));
    }
    Ok(text.clone())
}

/// Check a string against a closed enumeration.
pub(crate) fn check_choice<T: WireChoice>(
    value: &Value,
    at: &Pointer,
    sensitive: bool,
) -> Result<T, DecodeError> {
    let rule = format!("must be one of {}", quoted_list(T::NAMES));
    match value {
        Value::String(text) => T::from_wire(text).ok_or_else(|| {
            DecodeError::new(
                DecodeErrorKind::NotAllowed,
                at.clone(),
                format_args!("{rule} {}", got(value, sensitive)),
            )
        }),
        other => Err(DecodeError::new(
            DecodeErrorKind::WrongType,
            at.clone(),
            format_args!("{rule} {}", got(other, sensitive)),
        )),
    }
}

/// Check a handle's syntax and kind.
pub(crate) fn check_handle(value: &Value, kind: HandleKind, at: &Pointer) -> Result<Handle, DecodeError> {
    let rule = format!("must be a {} ({}…)", kind.noun(), kind.prefix());
    let Value::String(text) = value else {
        return Err(DecodeError::new(
            DecodeErrorKind::WrongType,
            at.clone(),
            format_args!("{rule} {}", got(value, false)),
        ));
    };
    Handle::parse(text, kind).map_err(|error| match error {
        HandleSyntaxError::WrongKind(found) => DecodeError::new(
            DecodeErrorKind::InvalidHandle,
            at.clone(),
            format_args!("{rule}, not a {} ({}…)", found.noun(), found.prefix()),
        ),
        HandleSyntaxError::Malformed => DecodeError::new(
            DecodeErrorKind::InvalidHandle,
            at.clone(),
            format_args!("{rule} {}", got(value, false)),
        ),
    })
}

/// Decode a typed semantic selector `{name, role?, exact?}` at `at`.
pub(crate) fn decode_selector(value: &Value, at: Pointer) -> Result<Selector, DecodeError> {
    use crate::schema::{SELECTOR_EXACT as EXACT, SELECTOR_NAME as NAME, SELECTOR_ROLE as ROLE};
    let mut reader = ObjectReader::new(value, at, &SELECTOR_FIELDS, false)?;
    let name = reader.text(&NAME)?;
    let role = reader.choice::<RoleChoice>(&ROLE)?;
    let exact = reader.bool_or_default(&EXACT)?;
    let name = name.ok_or_else(|| reader.missing(&NAME))?;
    if name.trim().is_empty() {
        return Err(reader.invalid(&NAME, DecodeErrorKind::InvalidValue, "must contain visible characters"));
    }
    reader.finish();
    Ok(Selector { name, role: role.map(|r| r.0), exact })
}

#[derive(Clone, Copy)]
struct RoleChoice(Role);

impl WireChoice for RoleChoice {
    const NAMES: &'static [&'static str] = &crate::schema::ROLE_TOKENS;
    fn from_wire(name: &str) -> Option<Self> {
        Role::from_token(name).map(RoleChoice)
    }
}
