//! `browser_inspect` scope `forms`: a form snapshot built from one forms perception (frames
//! included, as for controls). Facts `forms` (`[{name?, fields}]`, in document order) and
//! `outside` (the controls outside any form). A field is a keyed object, keys with default
//! values left out: `{target, role, name?, group?, state?, constraints?, validity?, options?,
//! options_truncated?, value?}`. The radio buttons of one group (same form, same `name`) are
//! one field of role `radiogroup`, named by its fieldset legend (else the group name), whose
//! `options` are `[target, label]` rows; a select's `options` are its option labels.
//!
//! A value never appears: `value` is `{kind: "empty"}` or `{kind: "filled"}`, and for a
//! credential-class control `{kind: "redacted", present}`. Which option of a select, or which
//! radio of a group, is chosen is the control's value too, so neither is marked; a checkbox's
//! or radio's `checked` state stays in `state`, as scope `controls` reports it. `required`
//! and `invalid` states move to `constraints` and `validity`.
//!
//! Bounds: [`INSPECT_FORMS_MAX`] forms (controls of later forms are left out), `max_items`
//! controls (the perception's cap), [`FORM_OPTIONS_MAX`] options per control and
//! [`FORM_TEXT_CHARS`] characters per form name, legend, group name and option label (cut
//! with `…`); `truncated` when a form, a control or an option was left out.

use serde_json::{Map, Value, json};

use crate::language::{bound_visible, count, normalize_name};
use crate::limits::{FORM_OPTIONS_MAX, FORM_TEXT_CHARS, INSPECT_FORMS_MAX};
use crate::port::{ElementState, FormField, FormOwner, PerceivedElement};
use crate::selector::Role;

/// A snapshot as facts, before targets are minted: built by [`shape`] from perceived elements
/// and a function minting a target handle for one of them.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Snapshot {
    /// `[{name?, fields}]`.
    pub(crate) forms: Vec<Value>,
    /// Fields outside any form.
    pub(crate) outside: Vec<Value>,
    /// Controls listed (a radio group counts its radios).
    pub(crate) controls: usize,
    /// Whether a form, a control or an option was left out.
    pub(crate) truncated: bool,
}

impl Snapshot {
    /// The summary sentence.
    pub(crate) fn summary(&self, host: &str) -> String {
        let forms = count(self.forms.len(), "form", "forms");
        let controls = count(self.controls, "control", "controls");
        let outside: usize = self.outside.len();
        let more = if self.truncated { "; more exist" } else { "" };
        match (self.forms.len(), outside) {
            (0, 0) => format!("Found no form controls on {host}{more}."),
            (0, _) => format!("Found {controls}, none in a form, on {host}{more}."),
            _ if outside == 0 => format!("Found {forms} with {controls} on {host}{more}."),
            _ => format!("Found {forms} and {controls} in all, some outside any form, on {host}{more}."),
        }
    }
}

/// Where one field sits: the form's slot in `forms` (or `None`: outside), and its index there.
type Slot = (Option<usize>, usize);
/// A form's owner key: its document and its index there.
type OwnerKey = (u32, u32);
/// Where a radio group belongs: its document and its form (`None`: outside any form).
type GroupHome = (u32, Option<OwnerKey>);

/// Shape a forms perception into a snapshot; `mint` registers an element and answers its
/// target handle.
pub(crate) fn shape(
    elements: &[PerceivedElement],
    truncated: bool,
    mut mint: impl FnMut(&PerceivedElement) -> String,
) -> Snapshot {
    let mut snapshot = Snapshot { truncated, ..Snapshot::default() };
    // Forms by owner (document, index), in order of first appearance.
    let mut owners: Vec<OwnerKey> = Vec::new();
    let mut fields: Vec<Vec<Value>> = Vec::new();
    let mut outside: Vec<Value> = Vec::new();
    // Radio groups by (document, owner, group name): where their field sits.
    let mut radio_groups: Vec<(GroupHome, String, Slot)> = Vec::new();
    let empty = FormField::default();
    for element in elements {
        let form = element.form.as_deref().unwrap_or(&empty);
        let owner = form.owner.as_ref().map(|o| (form.document, o.index));
        let slot = match owner {
            None => None,
            Some(key) => match owners.iter().position(|k| *k == key) {
                Some(at) => Some(at),
                None if owners.len() >= INSPECT_FORMS_MAX => {
                    snapshot.truncated = true;
                    continue;
                }
                None => {
                    owners.push(key);
                    fields.push(Vec::new());
                    snapshot.forms.push(form_entry(form.owner.as_ref()));
                    Some(owners.len() - 1)
                }
            },
        };
        snapshot.controls += 1;
        let list = match slot {
            Some(at) => &mut fields[at],
            None => &mut outside,
        };
        let radio = Role::narrow(&element.role) == Role::Radio;
        if let (true, Some(group)) = (radio, form.radio_group.as_deref()) {
            let label = element.name.as_deref().and_then(|n| bound_visible(n, FORM_TEXT_CHARS));
            let option = json!([mint(element), label.unwrap_or_default()]);
            let known = radio_groups
                .iter()
                .find(|(home, g, _)| *home == (form.document, owner) && g == group)
                .map(|r| r.2);
            if let Some((_, index)) = known {
                if let Some(field) = list.get_mut(index) {
                    join_radio(field, element, form, option, &mut snapshot.truncated);
                }
                continue;
            }
            radio_groups.push(((form.document, owner), group.to_owned(), (slot, list.len())));
            list.push(radio_group(element, form, group, option));
            continue;
        }
        let target = mint(element);
        let (field, cut) = field(&target, element, form);
        snapshot.truncated |= cut;
        list.push(field);
    }
    for (entry, list) in snapshot.forms.iter_mut().zip(fields) {
        entry["fields"] = Value::Array(list);
    }
    snapshot.outside = outside;
    snapshot
}

/// `{name?}` of one form (its `fields` are set once all are known).
fn form_entry(owner: Option<&FormOwner>) -> Value {
    let mut entry = Map::new();
    if let Some(name) = owner.and_then(|o| o.name.as_deref()).and_then(|n| bound_visible(n, FORM_TEXT_CHARS))
    {
        entry.insert("name".into(), json!(name));
    }
    entry.insert("fields".into(), json!([]));
    Value::Object(entry)
}

/// One control's field, and whether its options were cut.
fn field(target: &str, element: &PerceivedElement, form: &FormField) -> (Value, bool) {
    let mut field = Map::new();
    field.insert("target".into(), json!(target));
    field.insert("role".into(), json!(Role::narrow(&element.role).token()));
    if let Some(name) = element.name.as_deref().and_then(normalize_name) {
        field.insert("name".into(), json!(name));
    }
    common(&mut field, element, form);
    let mut cut = false;
    if !form.options.is_empty() || form.options_truncated {
        let (options, more) = bounded_options(&form.options, form.options_truncated);
        field.insert("options".into(), Value::Array(options.into_iter().map(Value::from).collect()));
        if more {
            field.insert("options_truncated".into(), json!(true));
        }
        cut = more;
    }
    value_state(&mut field, element, form.filled);
    (Value::Object(field), cut)
}

/// The first radio of a group as the group's field (role `radiogroup`).
fn radio_group(element: &PerceivedElement, form: &FormField, group: &str, option: Value) -> Value {
    let mut field = Map::new();
    field.insert("role".into(), json!("radiogroup"));
    let name = form.legend.as_deref().or(Some(group)).and_then(|n| bound_visible(n, FORM_TEXT_CHARS));
    if let Some(name) = name {
        field.insert("name".into(), json!(name));
    }
    let mut legendless = form.clone();
    legendless.legend = None;
    // The legend already names the group; a group named by its `name` keeps its legend.
    common(&mut field, element, if form.legend.is_some() { &legendless } else { form });
    // A group's states are its radios' (checked is left to the value state).
    if let Some(Value::Array(states)) = field.get_mut("state") {
        states.retain(|s| s != "checked");
        if states.is_empty() {
            field.remove("state");
        }
    }
    field.insert("options".into(), json!([option]));
    value_state(&mut field, element, form.filled);
    Value::Object(field)
}

/// Add one more radio to its group's field.
fn join_radio(
    field: &mut Value,
    element: &PerceivedElement,
    form: &FormField,
    option: Value,
    truncated: &mut bool,
) {
    let Some(field) = field.as_object_mut() else { return };
    let mut full = false;
    if let Some(Value::Array(options)) = field.get_mut("options") {
        if options.len() < FORM_OPTIONS_MAX {
            options.push(option);
        } else {
            full = true;
        }
    }
    if full {
        field.insert("options_truncated".into(), json!(true));
        *truncated = true;
    }
    if form.filled == Some(true) {
        value_state(field, element, Some(true));
    }
    if field.get("validity").and_then(Value::as_str) == Some("valid")
        && let Some(validity) = form.validity.as_deref().filter(|v| *v != "valid")
    {
        field.insert("validity".into(), json!(validity));
    }
}

/// `group`, `state`, `constraints` and `validity`.
fn common(field: &mut Map<String, Value>, element: &PerceivedElement, form: &FormField) {
    if let Some(legend) = form.legend.as_deref().and_then(|l| bound_visible(l, FORM_TEXT_CHARS)) {
        field.insert("group".into(), json!(legend));
    }
    let mut states: Vec<ElementState> = element
        .states
        .iter()
        .copied()
        .filter(|s| !matches!(s, ElementState::Required | ElementState::Invalid))
        .collect();
    states.sort();
    states.dedup();
    if !states.is_empty() {
        field.insert("state".into(), json!(states.iter().map(|s| s.as_str()).collect::<Vec<_>>()));
    }
    let c = &form.constraints;
    let mut constraints = Map::new();
    if c.required || element.states.contains(&ElementState::Required) {
        constraints.insert("required".into(), json!(true));
    }
    for (key, value) in [("min", &c.min), ("max", &c.max), ("step", &c.step)] {
        if let Some(value) = value.as_deref().and_then(|v| bound_visible(v, FORM_TEXT_CHARS)) {
            constraints.insert(key.into(), json!(value));
        }
    }
    for (key, value) in [("minlength", c.minlength), ("maxlength", c.maxlength)] {
        if let Some(value) = value {
            constraints.insert(key.into(), json!(value));
        }
    }
    if c.pattern {
        constraints.insert("pattern".into(), json!(true));
    }
    if c.multiple {
        constraints.insert("multiple".into(), json!(true));
    }
    if !constraints.is_empty() {
        field.insert("constraints".into(), Value::Object(constraints));
    }
    // A control that holds no value (a button) has no validity worth a key.
    if let Some(validity) = form.validity.as_deref().filter(|_| form.filled.is_some()) {
        let known = VALIDITY.iter().find(|v| **v == validity).copied().unwrap_or("invalid");
        field.insert("validity".into(), json!(known));
    }
}

/// The validity tokens a field may carry (the `ValidityState` flags, `valid`, and `invalid`
/// for a flag this list does not know).
const VALIDITY: [&str; 11] = [
    "valid",
    "valueMissing",
    "typeMismatch",
    "patternMismatch",
    "tooLong",
    "tooShort",
    "rangeUnderflow",
    "rangeOverflow",
    "stepMismatch",
    "badInput",
    "customError",
];

/// Option labels within [`FORM_OPTIONS_MAX`] and [`FORM_TEXT_CHARS`], and whether any was
/// left out.
fn bounded_options(options: &[String], cut: bool) -> (Vec<String>, bool) {
    let labels: Vec<String> = options
        .iter()
        .take(FORM_OPTIONS_MAX)
        .map(|o| bound_visible(o, FORM_TEXT_CHARS).unwrap_or_default())
        .collect();
    (labels, cut || options.len() > FORM_OPTIONS_MAX)
}

/// `value`: `{kind: empty|filled}`, or `{kind: redacted, present}` for a credential-class
/// control; nothing for a control that holds no value.
fn value_state(field: &mut Map<String, Value>, element: &PerceivedElement, filled: Option<bool>) {
    let Some(filled) = filled else { return };
    let state = if element.credential.is_some() {
        json!({"kind": "redacted", "present": filled})
    } else if filled {
        json!({"kind": "filled"})
    } else {
        json!({"kind": "empty"})
    };
    field.insert("value".into(), state);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::port::{CredentialClass, ElementRef, FormConstraints};

    fn control(role: &str, name: &str, form: FormField) -> PerceivedElement {
        PerceivedElement {
            element: ElementRef::new(name),
            role: role.to_owned(),
            name: Some(name.to_owned()),
            states: Vec::new(),
            credential: None,
            depth: None,
            text: None,
            control: true,
            form: Some(Box::new(form)),
        }
    }

    fn owned(document: u32, index: u32, filled: Option<bool>) -> FormField {
        FormField {
            document,
            owner: Some(FormOwner { index, name: Some(format!("Form {document}.{index}")) }),
            validity: Some("valid".to_owned()),
            filled,
            ..FormField::default()
        }
    }

    /// Shape with handles `t0`, `t1`, … in minting order.
    fn shaped(elements: &[PerceivedElement], truncated: bool) -> Snapshot {
        let mut n = 0;
        shape(elements, truncated, |_| {
            n += 1;
            format!("t{}", n - 1)
        })
    }

    #[test]
    fn fields_keep_only_what_is_present_and_never_a_value() {
        let mut name = control("textbox", "Name", owned(0, 0, Some(false)));
        name.states = vec![ElementState::Required, ElementState::Invalid, ElementState::Focused];
        if let Some(form) = name.form.as_mut() {
            form.validity = Some("valueMissing".into());
            form.constraints = FormConstraints {
                required: true,
                min: Some("1".into()),
                maxlength: Some(20),
                pattern: true,
                ..FormConstraints::default()
            };
        }
        let mut password = control("textbox", "Password", owned(0, 0, Some(true)));
        password.credential = Some(CredentialClass::Password);
        let mut pin = control("textbox", "PIN", owned(0, 0, Some(false)));
        pin.credential = Some(CredentialClass::OneTimeCode);
        let button =
            control("button", "Send", FormField { validity: Some("valid".into()), ..owned(0, 0, None) });
        let search = control("searchbox", "Search", FormField { filled: Some(true), ..FormField::default() });
        let odd = control(
            "textbox",
            "Odd",
            FormField { validity: Some("somethingNew".into()), ..owned(0, 0, Some(true)) },
        );
        let snapshot = shaped(&[name, password, pin, button, search, odd], false);
        assert_eq!(snapshot.controls, 6);
        assert!(!snapshot.truncated);
        let fields = &snapshot.forms[0]["fields"];
        assert_eq!(snapshot.forms[0]["name"], "Form 0.0");
        assert_eq!(
            fields[0],
            json!({"target": "t0", "role": "textbox", "name": "Name", "state": ["focused"],
                "constraints": {"required": true, "min": "1", "maxlength": 20, "pattern": true},
                "validity": "valueMissing", "value": {"kind": "empty"}})
        );
        assert_eq!(fields[1]["value"], json!({"kind": "redacted", "present": true}));
        assert_eq!(fields[2]["value"], json!({"kind": "redacted", "present": false}));
        assert_eq!(fields[3], json!({"target": "t3", "role": "button", "name": "Send"}));
        assert_eq!(fields[4]["validity"], "invalid", "an unknown flag is named invalid");
        assert_eq!(
            snapshot.outside,
            [json!({"target": "t4", "role": "searchbox", "name": "Search", "value": {"kind": "filled"}})]
        );
        assert_eq!(
            snapshot.summary("example.com"),
            "Found 1 form and 6 controls in all, some outside any form, on example.com."
        );
    }

    #[test]
    fn radios_of_one_group_are_one_field_with_target_rows() {
        let radio = |name: &str, form: (u32, u32), group: &str, filled: bool, validity: &str| {
            let mut field = owned(form.0, form.1, Some(filled));
            field.radio_group = Some(group.to_owned());
            field.legend = Some("Plan".to_owned());
            field.validity = Some(validity.to_owned());
            field.constraints.required = true;
            control("radio", name, field)
        };
        let mut other_form = radio("Other", (1, 0), "plan", false, "valid");
        if let Some(form) = other_form.form.as_mut() {
            form.legend = None;
        }
        let elements = [
            radio("Free", (0, 0), "plan", false, "valid"),
            control("textbox", "Between", owned(0, 0, Some(false))),
            radio("Pro", (0, 0), "plan", true, "valid"),
            radio("Yes", (0, 0), "agree", false, "valueMissing"),
            other_form,
        ];
        let snapshot = shaped(&elements, false);
        assert_eq!(snapshot.controls, 5);
        assert_eq!(snapshot.forms.len(), 2, "document 1's form 0 is another form");
        let fields = snapshot.forms[0]["fields"].as_array().cloned().unwrap_or_default();
        assert_eq!(fields.len(), 3);
        assert_eq!(
            fields[0],
            json!({"role": "radiogroup", "name": "Plan", "constraints": {"required": true},
                "validity": "valid", "options": [["t0", "Free"], ["t2", "Pro"]], "value": {"kind": "filled"}})
        );
        assert_eq!(fields[2]["name"], "Plan", "named by the legend");
        assert_eq!(fields[2]["validity"], "valueMissing");
        // Outside any form, the same group name in two documents is two groups.
        let outside = |document: u32| {
            let field = FormField {
                document,
                radio_group: Some("size".into()),
                filled: Some(false),
                ..FormField::default()
            };
            control("radio", &format!("In {document}"), field)
        };
        let apart = shaped(&[outside(0), outside(0), outside(1)], false);
        assert_eq!(apart.outside.len(), 2);
        assert_eq!(apart.outside[0]["options"].as_array().map(Vec::len), Some(2));
        let other = &snapshot.forms[1]["fields"][0];
        assert_eq!((&other["name"], &other["value"]), (&json!("plan"), &json!({"kind": "empty"})));
        assert!(other.get("group").is_none());
    }

    #[test]
    fn forms_options_and_strings_are_bounded() {
        // One more form than the bound: its control is left out, and the snapshot says so.
        let elements: Vec<_> = (0..=INSPECT_FORMS_MAX as u32)
            .map(|i| control("textbox", &format!("Field {i}"), owned(0, i, Some(false))))
            .collect();
        let snapshot = shaped(&elements, false);
        assert_eq!(
            (snapshot.forms.len(), snapshot.controls, snapshot.truncated),
            (INSPECT_FORMS_MAX, INSPECT_FORMS_MAX, true)
        );
        assert!(snapshot.summary("h").ends_with("on h; more exist."), "{}", snapshot.summary("h"));

        let long = "x".repeat(FORM_TEXT_CHARS + 10);
        let options: Vec<String> = (0..FORM_OPTIONS_MAX + 3).map(|i| format!("{i} {long}")).collect();
        let mut select = owned(0, 0, Some(true));
        select.options = options;
        select.legend = Some(long.clone());
        if let Some(owner) = select.owner.as_mut() {
            owner.name = Some(long.clone());
        }
        let snapshot = shaped(&[control("combobox", "Pick", select)], false);
        assert!(snapshot.truncated);
        let field = &snapshot.forms[0]["fields"][0];
        assert_eq!(field["options_truncated"], true);
        let listed = field["options"].as_array().cloned().unwrap_or_default();
        assert_eq!(listed.len(), FORM_OPTIONS_MAX);
        for text in listed.iter().chain([&field["group"], &snapshot.forms[0]["name"]]) {
            let text = text.as_str().unwrap_or_default();
            assert_eq!(text.chars().count(), FORM_TEXT_CHARS, "{text}");
        }

        let radios: Vec<_> = (0..FORM_OPTIONS_MAX + 2)
            .map(|i| {
                let mut field = owned(0, 0, Some(false));
                field.radio_group = Some("many".into());
                control("radio", &format!("R{i}"), field)
            })
            .collect();
        let snapshot = shaped(&radios, false);
        let group = &snapshot.forms[0]["fields"][0];
        assert_eq!(group["options"].as_array().map(Vec::len), Some(FORM_OPTIONS_MAX));
        assert_eq!((&group["options_truncated"], snapshot.truncated), (&json!(true), true));

        let snapshot = shaped(&[], true);
        assert_eq!(snapshot.summary("h"), "Found no form controls on h; more exist.");
    }
}
