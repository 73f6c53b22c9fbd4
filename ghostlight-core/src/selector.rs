//! Closed semantic roles and typed semantic selectors.

use std::fmt;

use crate::handles::Handle;

/// The closed set of roles Ghostlight names. Every page-authored role outside the set, and
/// every element without a role, is [`Role::Control`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// `button`
    Button,
    /// `link`
    Link,
    /// `checkbox`
    Checkbox,
    /// `radio`
    Radio,
    /// `switch`
    Switch,
    /// `textbox`
    Textbox,
    /// `searchbox`
    Searchbox,
    /// `combobox`
    Combobox,
    /// `listbox`
    Listbox,
    /// `option`
    Option,
    /// `slider`
    Slider,
    /// `spinbutton`
    Spinbutton,
    /// `tab`
    Tab,
    /// `menuitem`
    Menuitem,
    /// `treeitem`
    Treeitem,
    /// `heading`
    Heading,
    /// `img`
    Img,
    /// `dialog`
    Dialog,
    /// Anything else.
    Control,
}

impl Role {
    /// Every role, in the order of the clarified token list.
    pub const ALL: [Role; 19] = [
        Role::Button,
        Role::Link,
        Role::Checkbox,
        Role::Radio,
        Role::Switch,
        Role::Textbox,
        Role::Searchbox,
        Role::Combobox,
        Role::Listbox,
        Role::Option,
        Role::Slider,
        Role::Spinbutton,
        Role::Tab,
        Role::Menuitem,
        Role::Treeitem,
        Role::Heading,
        Role::Img,
        Role::Dialog,
        Role::Control,
    ];

    /// The ARIA-spelled token used in facts and selectors.
    pub const fn token(self) -> &'static str {
        match self {
            Role::Button => "button",
            Role::Link => "link",
            Role::Checkbox => "checkbox",
            Role::Radio => "radio",
            Role::Switch => "switch",
            Role::Textbox => "textbox",
            Role::Searchbox => "searchbox",
            Role::Combobox => "combobox",
            Role::Listbox => "listbox",
            Role::Option => "option",
            Role::Slider => "slider",
            Role::Spinbutton => "spinbutton",
            Role::Tab => "tab",
            Role::Menuitem => "menuitem",
            Role::Treeitem => "treeitem",
            Role::Heading => "heading",
            Role::Img => "img",
            Role::Dialog => "dialog",
            Role::Control => "control",
        }
    }

    /// The noun used in sentences: `Clicked the "Save" button`.
    pub const fn noun(self) -> &'static str {
        match self {
            Role::Button => "button",
            Role::Link => "link",
            Role::Checkbox => "checkbox",
            Role::Radio => "radio button",
            Role::Switch => "switch",
            Role::Textbox => "text field",
            Role::Searchbox => "search field",
            Role::Combobox => "combo box",
            Role::Listbox => "list box",
            Role::Option => "option",
            Role::Slider => "slider",
            Role::Spinbutton => "spin button",
            Role::Tab => "tab",
            Role::Menuitem => "menu item",
            Role::Treeitem => "tree item",
            Role::Heading => "heading",
            Role::Img => "image",
            Role::Dialog => "dialog",
            Role::Control => "control",
        }
    }

    /// The role for an exact token, if it is one of the closed set.
    pub fn from_token(token: &str) -> Option<Role> {
        Self::ALL.into_iter().find(|r| r.token() == token)
    }

    /// Narrow any browser-reported role to the closed set; unknown roles become `control`.
    pub fn narrow(reported: &str) -> Role {
        Self::from_token(reported.trim().to_ascii_lowercase().as_str()).unwrap_or(Role::Control)
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// A typed semantic selector: what a control is called, optionally its role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    /// Accessible name to match (case-insensitive on the normalized name unless `exact`).
    pub name: String,
    /// Optional role filter.
    pub role: Option<Role>,
    /// Whether the name must match exactly (default `false`).
    pub exact: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_unknown_roles_narrow_to_control() {
        for role in Role::ALL {
            assert_eq!(Role::from_token(role.token()), Some(role));
        }
        assert_eq!(Role::narrow("BUTTON"), Role::Button);
        assert_eq!(Role::narrow("grid"), Role::Control);
        assert_eq!(Role::narrow(""), Role::Control);
    }
}

/// Where a target-accepting field points: a perceived handle or a typed semantic selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetRef {
    /// A target handle from `browser_inspect` or `browser_find`.
    Handle(Handle),
    /// A typed semantic selector resolved against the live page.
    Selector(Selector),
}

/// A point in a captured view, in image pixels from `(0, 0)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewPoint {
    /// The view handle whose image the coordinates refer to.
    pub view: Handle,
    /// Image x.
    pub x: u64,
    /// Image y.
    pub y: u64,
}

/// Where a pointer action lands: a target, or a point in a current view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A target handle or selector.
    Target(TargetRef),
    /// A point in a screenshot.
    Point(ViewPoint),
}
