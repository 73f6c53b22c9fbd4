//! Input words: mouse buttons, keys and modifiers, scroll directions, fill values.

use std::fmt;

use super::wire::wire_choice;

wire_choice! {
    /// Which mouse button clicks.
    pub enum MouseButton {
        /// The primary (usually left) button.
        Primary => "primary",
        /// The middle button (often opens links in a new tab).
        Middle => "middle",
        /// The secondary (usually right) button: a context menu.
        Secondary => "secondary",
    }
}

wire_choice! {
    /// Which way a directional scroll moves the page.
    pub enum ScrollDirection {
        /// Towards the top.
        Up => "up",
        /// Towards the bottom.
        Down => "down",
        /// Towards the start of the line.
        Left => "left",
        /// Towards the end of the line.
        Right => "right",
    }
}

wire_choice! {
    /// The closed, case-sensitive list of named keys.
    pub enum NamedKey {
        /// Enter.
        Enter => "Enter",
        /// Tab.
        Tab => "Tab",
        /// Escape.
        Escape => "Escape",
        /// Backspace.
        Backspace => "Backspace",
        /// Delete.
        Delete => "Delete",
        /// Insert.
        Insert => "Insert",
        /// Home.
        Home => "Home",
        /// End.
        End => "End",
        /// Page Up.
        PageUp => "PageUp",
        /// Page Down.
        PageDown => "PageDown",
        /// Arrow up.
        ArrowUp => "ArrowUp",
        /// Arrow down.
        ArrowDown => "ArrowDown",
        /// Arrow left.
        ArrowLeft => "ArrowLeft",
        /// Arrow right.
        ArrowRight => "ArrowRight",
        /// The space bar.
        Space => "Space",
        /// F1.
        F1 => "F1",
        /// F2.
        F2 => "F2",
        /// F3.
        F3 => "F3",
        /// F4.
        F4 => "F4",
        /// F5.
        F5 => "F5",
        /// F6.
        F6 => "F6",
        /// F7.
        F7 => "F7",
        /// F8.
        F8 => "F8",
        /// F9.
        F9 => "F9",
        /// F10.
        F10 => "F10",
        /// F11.
        F11 => "F11",
        /// F12.
        F12 => "F12",
    }
}

wire_choice! {
    /// A modifier key held while the keys are pressed.
    pub enum Modifier {
        /// Alt (Option on macOS).
        Alt => "Alt",
        /// Control.
        Control => "Control",
        /// Meta (Command on macOS, Windows key elsewhere).
        Meta => "Meta",
        /// Shift.
        Shift => "Shift",
    }
}

/// One key: a single Unicode scalar value, or a named key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// A character key (exactly one Unicode scalar value).
    Char(char),
    /// A named key from the closed list.
    Named(NamedKey),
}

impl fmt::Display for Key {
    /// The wire form: the character itself, or the key's name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Char(c) => write!(f, "{c}"),
            Key::Named(named) => f.write_str(named.as_str()),
        }
    }
}

/// A fill value as received: text, a checkbox/radio state, a number, or the options of a
/// multiple-choice list.
#[derive(Debug, Clone, PartialEq)]
pub enum FillValue {
    /// Text for text-like controls and selects (a numeric string also fits number inputs).
    Text(String),
    /// A checkbox or radio state.
    Checked(bool),
    /// A finite number for number and range inputs.
    Number(f64),
    /// The options to select in a `<select multiple>`, each named by its value or visible
    /// label; every other option is deselected (an empty list clears the selection). A list of
    /// one also fits a single-choice list.
    Options(Vec<String>),
}
