//! The four governed capabilities (`read`, `action`, `write`, `execute`) and sets of them.

use std::fmt;

/// One governed capability. Every tool call requires a (possibly empty) set of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Capability {
    /// Observe pages: navigate, read, inspect, capture.
    Read,
    /// Act on pages: click, type keys, drag, resolve dialogs, close tabs.
    Action,
    /// Put data into pages: fill forms, upload files.
    Write,
    /// Run page-supplied JavaScript.
    Execute,
}

impl Capability {
    /// All capabilities in canonical order.
    pub const ALL: [Capability; 4] =
        [Capability::Read, Capability::Action, Capability::Write, Capability::Execute];

    /// The wire names, in canonical order (used by schemas and decoders).
    pub const NAMES: [&'static str; 4] = ["read", "action", "write", "execute"];

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Capability::Read => "read",
            Capability::Action => "action",
            Capability::Write => "write",
            Capability::Execute => "execute",
        }
    }

    /// Parse a wire name; `None` for anything else (case-sensitive).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == name)
    }

    const fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of capabilities (a four-bit set, `Copy`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CapabilitySet(u8);

impl CapabilitySet {
    /// The empty set: what `policy_explain`, `browser_tabs` focus and the composite wrappers
    /// require.
    pub const EMPTY: CapabilitySet = CapabilitySet(0);

    /// Every capability.
    pub const ALL: CapabilitySet = CapabilitySet(0b1111);

    /// A set holding exactly `capabilities`.
    pub const fn of(capabilities: &[Capability]) -> Self {
        let mut bits = 0;
        let mut i = 0;
        while i < capabilities.len() {
            bits |= capabilities[i].bit();
            i += 1;
        }
        CapabilitySet(bits)
    }

    /// This set plus `capability`.
    pub const fn with(self, capability: Capability) -> Self {
        CapabilitySet(self.0 | capability.bit())
    }

    /// This set without `capability`.
    pub const fn without(self, capability: Capability) -> Self {
        CapabilitySet(self.0 & !capability.bit())
    }

    /// Whether `capability` is in the set.
    pub const fn contains(self, capability: Capability) -> bool {
        self.0 & capability.bit() != 0
    }

    /// Whether every member of `self` is in `other`.
    pub const fn is_subset_of(self, other: CapabilitySet) -> bool {
        self.0 & !other.0 == 0
    }

    /// Members of both sets.
    pub const fn intersection(self, other: CapabilitySet) -> Self {
        CapabilitySet(self.0 & other.0)
    }

    /// Members of `self` missing from `other`.
    pub const fn difference(self, other: CapabilitySet) -> Self {
        CapabilitySet(self.0 & !other.0)
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The members in canonical order.
    pub fn iter(self) -> impl Iterator<Item = Capability> {
        Capability::ALL.into_iter().filter(move |c| self.contains(*c))
    }
}

impl FromIterator<Capability> for CapabilitySet {
    fn from_iter<I: IntoIterator<Item = Capability>>(iter: I) -> Self {
        iter.into_iter().fold(CapabilitySet::EMPTY, CapabilitySet::with)
    }
}

impl fmt::Debug for CapabilitySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl fmt::Display for CapabilitySet {
    /// `read + write`, or `none` for the empty set.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        let mut first = true;
        for capability in self.iter() {
            if !first {
                f.write_str(" + ")?;
            }
            f.write_str(capability.as_str())?;
            first = false;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_algebra() {
        let rw = CapabilitySet::of(&[Capability::Read, Capability::Write]);
        assert!(rw.contains(Capability::Read));
        assert!(!rw.contains(Capability::Action));
        assert!(rw.is_subset_of(CapabilitySet::ALL));
        assert!(!CapabilitySet::ALL.is_subset_of(rw));
        assert_eq!(rw.to_string(), "read + write");
        assert_eq!(CapabilitySet::EMPTY.to_string(), "none");
        assert_eq!(
            CapabilitySet::ALL.difference(rw),
            CapabilitySet::of(&[Capability::Action, Capability::Execute])
        );
    }

    #[test]
    fn names_round_trip() {
        for (capability, name) in Capability::ALL.into_iter().zip(Capability::NAMES) {
            assert_eq!(capability.as_str(), name);
            assert_eq!(Capability::parse(name), Some(capability));
        }
        assert_eq!(Capability::parse("READ"), None);
    }
}
