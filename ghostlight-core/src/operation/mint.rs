//! Minting opaque handles: short, unpredictable, never reused within a process.
//!
//! Tokens come from SipHash keyed by the standard library's per-process random keys
//! (`RandomState`) over a counter, so a handle from another process, or a guessed one, names
//! nothing here: the executor only honours handles found in its own registries. Target
//! handles are the shortest (they are returned by the hundred and every agent pays for them
//! twice in the MCP text block).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::handles::{Handle, HandleKind};

const ALPHABET: &[u8; 62] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// Token length for each kind (62^n possibilities).
const fn token_chars(kind: HandleKind) -> usize {
    match kind {
        HandleKind::Target => 5,
        HandleKind::Tab | HandleKind::View | HandleKind::Snapshot | HandleKind::Recording => 6,
        HandleKind::Invocation => 8,
    }
}

/// A source of fresh handles.
#[derive(Debug)]
pub(crate) struct Minter {
    /// `None`: fixed keys, for reproducible handles in tests (see
    /// `GhostlightBuilder::deterministic_handles`).
    keys: Option<RandomState>,
    /// Distinguishes deterministic minters of different workspaces.
    seed: u64,
    counter: AtomicU64,
}

impl Minter {
    pub(crate) fn new() -> Self {
        Minter { keys: Some(RandomState::new()), seed: 0, counter: AtomicU64::new(0) }
    }

    /// A minter whose handles are the same in every process (tests only).
    pub(crate) fn deterministic(seed: u64) -> Self {
        Minter { keys: None, seed, counter: AtomicU64::new(0) }
    }

    /// A fresh handle of `kind`. Callers that keep registries re-mint on the (rare) clash
    /// with a live handle.
    pub(crate) fn mint(&self, kind: HandleKind) -> Handle {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        Handle::from_token(kind, &self.draw(kind.prefix(), n, token_chars(kind)))
    }

    /// This minter's one token of `chars` characters that is no handle (a session's audit
    /// id): the same on every call, and drawing it takes nothing from the handle sequence.
    pub(crate) fn identity(&self, chars: usize) -> String {
        self.draw("identity", 0, chars)
    }

    fn draw(&self, domain: &str, n: u64, chars: usize) -> String {
        let mut value = match &self.keys {
            Some(keys) => keys.hash_one((domain, n)),
            None => BuildHasherDefault::<DefaultHasher>::default().hash_one((self.seed, domain, n)),
        };
        let mut token = String::with_capacity(chars);
        for _ in 0..chars {
            let digit = usize::try_from(value % 62).unwrap_or(0);
            token.push(char::from(ALPHABET[digit]));
            value /= 62;
        }
        token
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn handles_parse_and_rarely_repeat() {
        let minter = Minter::new();
        let mut seen = HashSet::new();
        for _ in 0..2_000 {
            let handle = minter.mint(HandleKind::Target);
            assert!(Handle::parse(handle.as_str(), HandleKind::Target).is_ok(), "{handle}");
            seen.insert(handle);
        }
        assert!(seen.len() > 1_990, "{} distinct", seen.len());
        let other = Minter::new();
        assert_ne!(minter.mint(HandleKind::Tab), other.mint(HandleKind::Tab));
    }
}
