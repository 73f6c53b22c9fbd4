//! Fixture pages and elements served by the [`ScriptedBrowser`](super::ScriptedBrowser).

use crate::envelope::Readiness;
use crate::vocab::{CredentialClass, GateKind};
use url::Url;

use crate::port::{DialogKind, ElementState, ElementSummary, FormField};

/// What a fill may put into an element.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// A text-like control: takes text.
    Text,
    /// A number input: takes a number or a numeric string.
    Number,
    /// A checkbox: takes a checked state.
    Checkbox,
    /// A select with `(value, label)` options: takes text matching a value, else a label.
    Select(Vec<(String, String)>),
    /// A file input: never fillable, the destination of uploads.
    FileInput,
    /// Anything else: not fillable.
    Other,
}

/// What a primary click on an element does besides focusing it.
#[derive(Debug, Clone, PartialEq)]
pub enum ClickEffect {
    /// Commits a navigation to this URL (resolved against the document's URL). Enter pressed
    /// while the element is focused commits it too.
    Navigate(String),
    /// Opens a JavaScript dialog of this kind.
    Dialog(DialogKind),
    /// Removes the element from its document (its references go stale).
    Remove,
    /// Opens a new tab at this URL (resolved against the document's URL), as a page's
    /// `window.open` does; the executor learns of it through `opened_tabs`.
    OpenTab(String),
}

/// One element of a fixture page. Its reference in a document is its 1-based position in
/// [`ScriptedPage::elements`].
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedElement {
    /// The role token as a page reports it (`button`, `textbox`, `toolbar`, …).
    pub role: String,
    /// The accessible name.
    pub name: Option<String>,
    /// Non-default states.
    pub states: Vec<ElementState>,
    /// The credential class of a credential field.
    pub credential: Option<CredentialClass>,
    /// Whether the element is an interactive control.
    pub control: bool,
    /// Visible text, when it differs from the name.
    pub text: Option<String>,
    /// Depth in the document tree (for the `Document` perception scope; absent means 0).
    pub depth: Option<u32>,
    /// Hidden elements are never perceived or found, and acting on them answers stale.
    pub hidden: bool,
    /// What a fill may put into it.
    pub kind: FieldKind,
    /// What a primary click does.
    pub on_click: Option<ClickEffect>,
    /// The element covering this one: clicks answer [`PortErrorKind::Obstructed`](crate::port::PortErrorKind::Obstructed).
    pub covered_by: Option<ElementSummary>,
    /// The URL of the frame document the element sits in (`None`: the page's own document).
    /// Perception never reports elements of frames (as for cross-origin frames in a real
    /// browser); points, focus and captures do, and answer to the call's gate.
    pub frame: Option<Url>,
    /// Its form data: a control with some is perceived by the forms scope.
    pub form: Option<FormField>,
}

impl ScriptedElement {
    fn base(role: &str, name: Option<String>, control: bool, kind: FieldKind) -> Self {
        ScriptedElement {
            role: role.to_owned(),
            name,
            states: Vec::new(),
            credential: None,
            control,
            text: None,
            depth: None,
            hidden: false,
            kind,
            on_click: None,
            covered_by: None,
            frame: None,
            form: None,
        }
    }

    /// A button named `name`.
    pub fn button(name: &str) -> Self {
        Self::base("button", Some(name.to_owned()), true, FieldKind::Other)
    }

    /// A link named `name` whose click navigates to `href` (absolute or relative).
    pub fn link(name: &str, href: &str) -> Self {
        Self::base("link", Some(name.to_owned()), true, FieldKind::Other).navigates_to(href)
    }

    /// A text box labelled `label`.
    pub fn textbox(label: &str) -> Self {
        Self::base("textbox", Some(label.to_owned()), true, FieldKind::Text)
    }

    /// A password field labelled `label` (credential class password).
    pub fn password(label: &str) -> Self {
        Self::textbox(label).credential(CredentialClass::Password)
    }

    /// A checkbox labelled `label`.
    pub fn checkbox(label: &str) -> Self {
        Self::base("checkbox", Some(label.to_owned()), true, FieldKind::Checkbox)
    }

    /// A select (`combobox`) labelled `label` with `(value, label)` options.
    pub fn select(label: &str, options: &[(&str, &str)]) -> Self {
        let options = options.iter().map(|(value, text)| ((*value).to_owned(), (*text).to_owned())).collect();
        Self::base("combobox", Some(label.to_owned()), true, FieldKind::Select(options))
    }

    /// A number input (`spinbutton`) labelled `label`.
    pub fn number(label: &str) -> Self {
        Self::base("spinbutton", Some(label.to_owned()), true, FieldKind::Number)
    }

    /// A file input labelled `label` (browsers report it as a `button`).
    pub fn file_input(label: &str) -> Self {
        Self::base("button", Some(label.to_owned()), true, FieldKind::FileInput)
    }

    /// A heading (structure, not a control) reading `text`.
    pub fn heading(text: &str) -> Self {
        Self::base("heading", Some(text.to_owned()), false, FieldKind::Other)
    }

    /// An element with a page-authored role (structure unless [`control`](Self::control)).
    pub fn custom(role: &str, name: &str) -> Self {
        Self::base(role, Some(name.to_owned()), false, FieldKind::Other)
    }

    /// Add a non-default state.
    pub fn state(mut self, state: ElementState) -> Self {
        if !self.states.contains(&state) {
            self.states.push(state);
        }
        self
    }

    /// Mark it a credential field.
    pub fn credential(mut self, class: CredentialClass) -> Self {
        self.credential = Some(class);
        self
    }

    /// Set whether it is an interactive control.
    pub fn control(mut self, control: bool) -> Self {
        self.control = control;
        self
    }

    /// Set its visible text.
    pub fn text(mut self, text: &str) -> Self {
        self.text = Some(text.to_owned());
        self
    }

    /// Set its depth in the document tree.
    pub fn depth(mut self, depth: u32) -> Self {
        self.depth = Some(depth);
        self
    }

    /// Give it form data (the forms perception scope lists it).
    pub fn form(mut self, form: FormField) -> Self {
        self.form = Some(form);
        self
    }

    /// Hide it.
    pub fn hidden(mut self) -> Self {
        self.hidden = true;
        self
    }

    /// Set what a fill may put into it.
    pub fn kind(mut self, kind: FieldKind) -> Self {
        self.kind = kind;
        self
    }

    /// A primary click (or Enter while focused) commits a navigation to `url`.
    pub fn navigates_to(mut self, url: &str) -> Self {
        self.on_click = Some(ClickEffect::Navigate(url.to_owned()));
        self
    }

    /// A primary click opens a dialog of `kind`.
    pub fn opens_dialog(mut self, kind: DialogKind) -> Self {
        self.on_click = Some(ClickEffect::Dialog(kind));
        self
    }

    /// Clicking it opens a new tab at `url`, as a page's `window.open` does.
    pub fn opens_tab(mut self, url: &str) -> Self {
        self.on_click = Some(ClickEffect::OpenTab(url.to_owned()));
        self
    }

    /// A primary click removes the element.
    pub fn removed_on_click(mut self) -> Self {
        self.on_click = Some(ClickEffect::Remove);
        self
    }

    /// The element sits in a frame whose document is at `url` (a URL that does not parse
    /// leaves it in the page's own document).
    pub fn in_frame(mut self, url: &str) -> Self {
        self.frame = Url::parse(url).ok();
        self
    }

    /// Another element covers this one; clicks answer obstructed, naming `by`.
    pub fn covered_by(mut self, by: ElementSummary) -> Self {
        self.covered_by = Some(by);
        self
    }
}

/// A fixture page: what a document at a registered URL shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedPage {
    /// The document title.
    pub title: String,
    /// `document.readyState`.
    pub readiness: Readiness,
    /// The main article text, if the page has one.
    pub article_text: Option<String>,
    /// Visible text of the page.
    pub visible_text: String,
    /// Elements in document order.
    pub elements: Vec<ScriptedElement>,
    /// Whether `navigate` away from the page raises a `beforeunload` prompt (history moves,
    /// link clicks and closing do not).
    pub beforeunload: bool,
    /// The HTTP status the page is served with (`None`: not reported).
    pub http_status: Option<u16>,
    /// The gate the page presents, reported by reads that look for one once it is complete.
    pub gate: Option<GateKind>,
}

impl ScriptedPage {
    /// A complete, empty page titled `title`.
    pub fn new(title: &str) -> Self {
        ScriptedPage {
            title: title.to_owned(),
            readiness: Readiness::Complete,
            article_text: None,
            visible_text: String::new(),
            elements: Vec::new(),
            beforeunload: false,
            http_status: None,
            gate: None,
        }
    }

    /// The page presents `kind` of gate (a sign-in wall, a consent interstitial, …).
    pub fn gate(mut self, kind: GateKind) -> Self {
        self.gate = Some(kind);
        self
    }

    /// Served with HTTP `status` (reported in page states).
    pub fn status(mut self, status: u16) -> Self {
        self.http_status = Some(status);
        self
    }

    /// Set the visible text.
    pub fn text(mut self, text: &str) -> Self {
        self.visible_text = text.to_owned();
        self
    }

    /// Set the article text.
    pub fn article(mut self, text: &str) -> Self {
        self.article_text = Some(text.to_owned());
        self
    }

    /// Append an element (its reference id is its 1-based position).
    pub fn element(mut self, element: ScriptedElement) -> Self {
        self.elements.push(element);
        self
    }

    /// Set the readiness.
    pub fn readiness(mut self, readiness: Readiness) -> Self {
        self.readiness = readiness;
        self
    }

    /// `navigate` away from the page raises a `beforeunload` prompt.
    pub fn beforeunload(mut self) -> Self {
        self.beforeunload = true;
        self
    }
}
