//! What every adapter does with the answers of the shared perception script (`perceive.js` of
//! `ghostlight-webdriver`'s page scripts): its items as [`PerceivedElement`]s, and the
//! splicing of each frame document's elements in at the iframe's place within one cap.
//! Engine-neutral and free of any browser or JavaScript.

use serde::Deserialize;

/// The most frame passes one perception makes (frames past it are skipped, `truncated`).
pub const MAX_FRAME_PASSES: usize = 16;
/// The deepest frame nesting perception and focus descend into.
pub const MAX_FRAME_DEPTH: usize = 4;

use ghostlight_core::port::{CredentialClass, FormConstraints, FormField, FormOwner};
use ghostlight_core::port::{ElementRef, ElementState, PerceivedElement, Perception};

/// One item as the perception script answers it (its short keys keep the transfer small);
/// `E` is the adapter's handle of the element (a WebDriver element, a registry id).
#[derive(Debug, Clone, Deserialize)]
pub struct ScriptItem<E> {
    /// The element.
    pub e: E,
    /// The role token (`generic` when none).
    pub r: String,
    /// The accessible name.
    pub n: Option<String>,
    /// State tokens ([`ElementState::as_str`]).
    pub s: Vec<String>,
    /// The credential class token ([`CredentialClass::as_str`]).
    pub c: Option<String>,
    /// Whether it is a control.
    pub k: bool,
    /// Its visible text, when it differs from the name.
    pub t: Option<String>,
    /// Its depth (document scope).
    pub d: Option<u32>,
    /// Its form data (forms scope).
    #[serde(default)]
    pub f: Option<ScriptForm>,
}

/// A control's form data as the perception script answers it in mode `forms` (short keys,
/// like [`ScriptItem`]'s). Never a value: `x` only says whether there is one.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ScriptForm {
    /// The owning form's index among the document's forms; `None` outside any form.
    #[serde(default)]
    pub o: Option<u32>,
    /// The owning form's name.
    #[serde(default)]
    pub on: Option<String>,
    /// The nearest fieldset's legend.
    #[serde(default)]
    pub g: Option<String>,
    /// A radio button's group name.
    #[serde(default)]
    pub rg: Option<String>,
    /// Constraints present.
    #[serde(default)]
    pub c: ScriptConstraints,
    /// `valid`, the first failing validity flag, or `None` (no constraint validation).
    #[serde(default)]
    pub v: Option<String>,
    /// Option labels.
    #[serde(default)]
    pub op: Vec<String>,
    /// Whether option labels were cut.
    #[serde(default)]
    pub ot: bool,
    /// Whether it holds a value; `None` when it holds none.
    #[serde(default)]
    pub x: Option<bool>,
}

/// Constraints as the perception script answers them (only those present).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ScriptConstraints {
    /// `required`.
    pub required: bool,
    /// `min`.
    pub min: Option<String>,
    /// `max`.
    pub max: Option<String>,
    /// `step`.
    pub step: Option<String>,
    /// `minlength`.
    pub minlength: Option<u64>,
    /// `maxlength`.
    pub maxlength: Option<u64>,
    /// Whether a `pattern` is set.
    pub pattern: bool,
    /// `multiple`.
    pub multiple: bool,
}

impl ScriptForm {
    /// The port's form data; its document is 0 until the frame walk numbers it.
    pub fn into_field(self) -> FormField {
        let text = |t: Option<String>| t.filter(|t| !t.trim().is_empty());
        let c = self.c;
        FormField {
            document: 0,
            owner: self.o.map(|index| FormOwner { index, name: text(self.on) }),
            legend: text(self.g),
            radio_group: text(self.rg),
            constraints: FormConstraints {
                required: c.required,
                min: c.min,
                max: c.max,
                step: c.step,
                minlength: c.minlength,
                maxlength: c.maxlength,
                pattern: c.pattern,
                multiple: c.multiple,
            },
            validity: self.v.filter(|v| !v.is_empty()),
            options: self.op,
            options_truncated: self.ot,
            filled: self.x,
        }
    }
}

impl<E> ScriptItem<E> {
    /// The port's element, referenced by `element`, with `depth_offset` added to its depth
    /// (unknown tokens are dropped, states sorted and deduplicated, empty texts absent).
    pub fn into_element(self, element: ElementRef, depth_offset: u32) -> PerceivedElement {
        let mut states: Vec<ElementState> =
            self.s.iter().filter_map(|s| ElementState::from_token(s)).collect();
        states.sort();
        states.dedup();
        PerceivedElement {
            element,
            role: self.r,
            name: self.n.filter(|n| !n.is_empty()),
            states,
            credential: self.c.as_deref().and_then(CredentialClass::from_token),
            depth: self.d.map(|d| d.saturating_add(depth_offset)),
            text: self.t.filter(|t| !t.is_empty()),
            control: self.k,
            form: self.f.map(|f| Box::new(f.into_field())),
        }
    }
}

/// The elements gathered from one document and the frames inside it, in document order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gathered {
    /// The elements.
    pub elements: Vec<PerceivedElement>,
    /// Whether any were cut (a pass found more than it could return, a frame was skipped).
    pub truncated: bool,
}

impl Gathered {
    /// Splice a frame document's elements in at its iframe's place: `at` items of this
    /// document precede the iframe, and `inserted` frame elements were spliced in before
    /// (updated here).
    pub fn splice_frame(&mut self, at: usize, inserted: &mut usize, frame: Gathered) {
        self.truncated |= frame.truncated;
        let place = (at + *inserted).min(self.elements.len());
        *inserted += frame.elements.len();
        self.elements.splice(place..place, frame.elements);
    }

    /// Whether a frame listed after `at` of this document's items gets a pass of its own,
    /// the document being at frame nesting `level` after `passes` frame passes: a frame past
    /// the cap `max` would add nothing; one past [`MAX_FRAME_DEPTH`] or [`MAX_FRAME_PASSES`]
    /// is skipped, and `truncated` set.
    pub fn frame_wanted(&mut self, at: usize, max: usize, level: usize, passes: usize) -> bool {
        if at >= max {
            return false;
        }
        if level + 1 > MAX_FRAME_DEPTH || passes >= MAX_FRAME_PASSES {
            self.truncated = true;
            return false;
        }
        true
    }

    /// Cut to `max` elements (setting `truncated` when any were cut).
    pub fn cap(&mut self, max: usize) {
        if self.elements.len() > max {
            self.elements.truncate(max);
            self.truncated = true;
        }
    }
}

impl From<Gathered> for Perception {
    fn from(gathered: Gathered) -> Self {
        Perception { elements: gathered.elements, truncated: gathered.truncated }
    }
}

/// `text` cut to `max` characters (Unicode scalar values), and whether it was cut: page
/// scripts bound in UTF-16 units, the contract in characters.
pub fn bound_chars(text: String, max: usize) -> (String, bool) {
    match text.char_indices().nth(max) {
        Some((end, _)) => (text[..end].to_owned(), true),
        None => (text, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(name: &str) -> PerceivedElement {
        ScriptItem {
            e: (),
            r: "button".into(),
            n: Some(name.into()),
            s: vec!["focused".into(), "bogus".into(), "focused".into(), "checked".into()],
            c: Some("one_time_code".into()),
            k: true,
            t: Some(String::new()),
            d: Some(1),
            f: None,
        }
        .into_element(ElementRef::new(name), 2)
    }

    #[test]
    fn items_become_elements() {
        let e = element("a");
        assert_eq!(e.states, vec![ElementState::Checked, ElementState::Focused]);
        assert_eq!((e.credential, e.depth, e.text), (Some(CredentialClass::OneTimeCode), Some(3), None));
        assert_eq!(ElementState::from_token("readonly"), None);
        assert_eq!(CredentialClass::from_token("payment_card"), Some(CredentialClass::PaymentCard));
        assert_eq!(CredentialClass::from_token("other"), None);
    }

    #[test]
    fn form_data_decodes_without_a_value() {
        let item: ScriptItem<u64> = serde_json::from_value(serde_json::json!({
            "e": 1, "r": "textbox", "n": "Age", "s": ["required"], "c": null, "k": true, "t": null, "d": null,
            "f": {"o": 2, "on": "Sign up", "g": " ", "rg": null,
                  "c": {"required": true, "min": "18", "maxlength": 3, "pattern": true},
                  "v": "rangeUnderflow", "op": [], "ot": false, "x": true},
        }))
        .expect("an item with form data");
        let form = item.into_element(ElementRef::new("a"), 0).form.expect("form data");
        assert_eq!(form.owner, Some(FormOwner { index: 2, name: Some("Sign up".into()) }));
        assert_eq!(
            (form.legend, form.validity.as_deref(), form.filled),
            (None, Some("rangeUnderflow"), Some(true))
        );
        assert!(form.constraints.required && form.constraints.pattern);
        assert_eq!((form.constraints.min.as_deref(), form.constraints.maxlength), (Some("18"), Some(3)));
        // Items of other modes carry none.
        assert!(element("b").form.is_none());
        let outside: ScriptForm =
            serde_json::from_value(serde_json::json!({"o": null, "x": null})).expect("sparse");
        assert_eq!(outside.into_field(), FormField::default());
    }

    #[test]
    fn frames_splice_at_their_place_within_the_cap() {
        let mut page =
            Gathered { elements: vec![element("a"), element("b"), element("c")], truncated: false };
        let mut inserted = 0;
        page.splice_frame(
            1,
            &mut inserted,
            Gathered { elements: vec![element("x"), element("y")], truncated: false },
        );
        page.splice_frame(2, &mut inserted, Gathered { elements: vec![element("z")], truncated: true });
        let names: Vec<_> = page.elements.iter().filter_map(|e| e.name.as_deref()).collect();
        assert_eq!(names, ["a", "x", "y", "b", "z", "c"]);
        assert!(page.truncated);
        page.truncated = false;
        assert!(page.frame_wanted(5, 6, MAX_FRAME_DEPTH - 1, MAX_FRAME_PASSES - 1));
        assert!(!page.frame_wanted(6, 6, 0, 0) && !page.truncated, "past the cap: nothing to add");
        assert!(!page.frame_wanted(0, 6, MAX_FRAME_DEPTH, 0) && page.truncated, "too deep");
        page.truncated = false;
        assert!(!page.frame_wanted(0, 6, 0, MAX_FRAME_PASSES) && page.truncated, "too many passes");
        page.truncated = false;
        page.cap(6);
        assert!(!page.truncated);
        page.cap(4);
        assert_eq!((page.elements.len(), page.truncated), (4, true));
    }

    #[test]
    fn characters_are_bounded_on_scalar_values() {
        assert_eq!(bound_chars("héllo".into(), 2), ("hé".into(), true));
        assert_eq!(bound_chars("hé".into(), 2), ("hé".into(), false));
    }
}
