//! Closed string enumerations and their wire names.

/// A closed string enumeration: a `Choice` field's values, decoded by name.
pub(crate) trait WireChoice: Sized + Copy + 'static {
    /// Accepted wire values, in declaration order (also rendered into the schema).
    const NAMES: &'static [&'static str];
    /// The value for a wire name.
    fn from_wire(name: &str) -> Option<Self>;
}

/// Declare a closed string enum with its wire names (a [`WireChoice`]).
macro_rules! wire_choice {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident => $wire:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name { $($(#[$vmeta])* $variant),+ }

        impl $crate::vocab::WireChoice for $name {
            const NAMES: &'static [&'static str] = &[$($wire),+];
            fn from_wire(name: &str) -> Option<Self> {
                match name { $($wire => Some($name::$variant),)+ _ => None }
            }
        }

        impl $name {
            /// The wire name.
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $wire),+ }
            }
        }
    };
}

pub(crate) use wire_choice;
