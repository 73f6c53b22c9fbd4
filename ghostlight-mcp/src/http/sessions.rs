//! The table of MCP sessions the HTTP server holds: which token opened each, when it was last
//! used, and whether a call of it is running. It decides who may open a session and who has
//! to make room, and it is the only record of a session's owner, so a binding lasts exactly
//! as long as its session.
//!
//! * A session belongs to the token that opened it until it ends (deleted by its client,
//!   expired after [`HttpOptions::idle_timeout`](super::HttpOptions::idle_timeout) without a
//!   request, or evicted to make room); its id is then unknown to every token.
//! * A new session needs a free place among `max` sessions and among `per_token` sessions of
//!   its token. When there is none, the least recently used idle session (no call running) of
//!   that token, else of any token, makes room; only when every candidate is busy is the new
//!   session refused, naming the limit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// One session: its owner, when it was last used, and its calls running now.
#[derive(Debug)]
struct Entry {
    token: usize,
    last: Instant,
    running: usize,
}

/// Why a new session was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Full {
    /// The server holds `max` sessions, each with a call running.
    Server(usize),
    /// The token holds `per_token` sessions, each with a call running.
    Token(usize),
}

impl Full {
    /// The refusal's sentence.
    pub(super) fn message(self) -> String {
        match self {
            Full::Server(max) => format!(
                "The server holds its limit of {max} MCP sessions ([limits] sessions), each busy with a call; end one \
                 (DELETE {}) or try later.",
                super::MCP_PATH
            ),
            Full::Token(per_token) => format!(
                "This client's token holds its limit of {per_token} MCP sessions ([limits] sessions_per_token), each \
                 busy with a call; end one (DELETE {}) or try later.",
                super::MCP_PATH
            ),
        }
    }
}

/// A place held for a session being opened, until its id is known ([`Sessions::bind`]) or
/// the opening failed (dropped).
pub(super) struct Reservation {
    sessions: Arc<Sessions>,
    key: String,
}

impl Reservation {
    /// The session `id` opened in this place.
    pub(super) fn bind(self, id: &str) {
        let mut entries = self.sessions.lock();
        if let Some(entry) = entries.remove(&self.key) {
            entries.insert(id.to_owned(), Entry { token: entry.token, last: Instant::now(), running: 0 });
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        // Bound or not: a reservation's own key never outlives it.
        self.sessions.lock().remove(&self.key);
    }
}

/// A call of a session, running until dropped (the response's body has ended).
pub(super) struct Running {
    sessions: Arc<Sessions>,
    id: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(entry) = self.sessions.lock().get_mut(&self.id) {
            entry.running = entry.running.saturating_sub(1);
            entry.last = Instant::now();
        }
    }
}

/// The table.
#[derive(Debug)]
pub(super) struct Sessions {
    entries: Mutex<HashMap<String, Entry>>,
    max: usize,
    per_token: usize,
    idle_timeout: Duration,
    next_reservation: std::sync::atomic::AtomicU64,
}

/// The key prefix of reservations (never a session id rmcp hands out: those are UUIDs).
const RESERVED: &str = "reserved:";

impl Sessions {
    /// A table of at most `max` sessions, `per_token` of one token, expiring after
    /// `idle_timeout` without a request.
    pub(super) fn new(max: usize, per_token: usize, idle_timeout: Duration) -> Arc<Sessions> {
        Arc::new(Sessions {
            entries: Mutex::new(HashMap::new()),
            max: max.max(1),
            per_token: per_token.clamp(1, max.max(1)),
            idle_timeout,
            next_reservation: std::sync::atomic::AtomicU64::new(0),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The token that owns session `id`, while it exists.
    pub(super) fn owner(&self, id: &str) -> Option<usize> {
        if id.starts_with(RESERVED) {
            return None;
        }
        self.lock().get(id).map(|entry| entry.token)
    }

    /// Mark a request of session `id` as running while the answer is in progress (only the
    /// calls that make a session busy: a client's open event stream does not).
    pub(super) fn begin(self: &Arc<Self>, id: &str, busy: bool) -> Option<Running> {
        let mut entries = self.lock();
        let entry = entries.get_mut(id)?;
        entry.last = Instant::now();
        if !busy {
            return None;
        }
        entry.running += 1;
        Some(Running { sessions: Arc::clone(self), id: id.to_owned() })
    }

    /// Forget session `id` (its client deleted it).
    pub(super) fn end(&self, id: &str) {
        self.lock().remove(id);
    }

    /// Sessions idle past the timeout, removed from the table: the caller closes them.
    pub(super) fn expire(&self) -> Vec<String> {
        let now = Instant::now();
        let mut entries = self.lock();
        let expired: Vec<String> = entries
            .iter()
            .filter(|(id, e)| {
                !id.starts_with(RESERVED) && e.running == 0 && now.duration_since(e.last) >= self.idle_timeout
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in &expired {
            entries.remove(id);
        }
        expired
    }

    /// Hold a place for a new session of `token`: answers the reservation and the sessions
    /// evicted to make room (removed from the table; the caller closes them), or why not.
    pub(super) fn reserve(self: &Arc<Self>, token: usize) -> Result<(Reservation, Vec<String>), Full> {
        let mut entries = self.lock();
        let mut evicted = Vec::new();
        let idle_lru = |entries: &HashMap<String, Entry>, of: Option<usize>| {
            entries
                .iter()
                .filter(|(id, e)| {
                    !id.starts_with(RESERVED) && e.running == 0 && of.is_none_or(|t| e.token == t)
                })
                .min_by_key(|(_, e)| e.last)
                .map(|(id, _)| id.clone())
        };
        if entries.values().filter(|e| e.token == token).count() >= self.per_token {
            let id = idle_lru(&entries, Some(token)).ok_or(Full::Token(self.per_token))?;
            entries.remove(&id);
            evicted.push(id);
        }
        if entries.len() >= self.max {
            let id = idle_lru(&entries, Some(token))
                .or_else(|| idle_lru(&entries, None))
                .ok_or(Full::Server(self.max))?;
            entries.remove(&id);
            evicted.push(id);
        }
        let n = self.next_reservation.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let key = format!("{RESERVED}{n}");
        entries.insert(key.clone(), Entry { token, last: Instant::now(), running: 1 });
        Ok((Reservation { sessions: Arc::clone(self), key }, evicted))
    }

    /// Sessions held now (reservations included).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(sessions: &Arc<Sessions>, token: usize, id: &str) -> Vec<String> {
        let (reservation, evicted) = sessions.reserve(token).unwrap_or_else(|full| panic!("{full:?}"));
        reservation.bind(id);
        evicted
    }

    #[test]
    fn a_binding_lasts_as_long_as_its_session_and_no_longer() {
        let sessions = Sessions::new(4, 4, Duration::from_secs(300));
        open(&sessions, 0, "a");
        assert_eq!(sessions.owner("a"), Some(0));
        // Many sessions of another token come and go: the binding stays exactly A's.
        for n in 0..500 {
            let id = format!("b{n}");
            open(&sessions, 1, &id);
            sessions.end(&id);
        }
        assert_eq!(sessions.owner("a"), Some(0));
        assert_eq!(sessions.len(), 1, "the table holds the sessions that exist");
        sessions.end("a");
        assert_eq!(sessions.owner("a"), None);
    }

    #[test]
    fn a_token_at_its_limit_makes_room_from_its_own_idle_sessions_or_is_refused() {
        let sessions = Sessions::new(4, 2, Duration::from_secs(300));
        open(&sessions, 0, "a1");
        open(&sessions, 0, "a2");
        // A's oldest idle session makes room for A's third.
        assert_eq!(open(&sessions, 0, "a3"), vec!["a1".to_owned()]);
        // Both of A's are busy: A is refused, naming the per-token limit; B still gets in.
        let _busy: Vec<_> = ["a2", "a3"].iter().filter_map(|id| sessions.begin(id, true)).collect();
        assert_eq!(sessions.reserve(0).err(), Some(Full::Token(2)));
        assert!(Full::Token(2).message().contains("sessions_per_token"));
        assert!(open(&sessions, 1, "b1").is_empty());
    }

    #[test]
    fn a_full_server_evicts_the_least_recently_used_idle_session_before_refusing() {
        let sessions = Sessions::new(2, 2, Duration::from_secs(300));
        open(&sessions, 0, "a1");
        open(&sessions, 1, "b1");
        drop(sessions.begin("a1", true)); // used more recently than b1
        assert_eq!(open(&sessions, 2, "c1"), vec!["b1".to_owned()]);
        assert_eq!(sessions.owner("b1"), None, "an evicted id is unknown to everyone");
        let _busy: Vec<_> = ["a1", "c1"].iter().filter_map(|id| sessions.begin(id, true)).collect();
        assert_eq!(sessions.reserve(1).err(), Some(Full::Server(2)));
    }

    #[test]
    fn idle_sessions_expire_and_busy_ones_do_not() {
        let sessions = Sessions::new(4, 4, Duration::ZERO);
        open(&sessions, 0, "idle");
        open(&sessions, 0, "busy");
        let running = sessions.begin("busy", true);
        assert_eq!(sessions.expire(), vec!["idle".to_owned()]);
        drop(running);
        assert_eq!(sessions.expire(), vec!["busy".to_owned()]);
        // An unbound reservation is never a session, and goes with its holder.
        let (reservation, _) = sessions.reserve(0).unwrap_or_else(|full| panic!("{full:?}"));
        assert_eq!(sessions.owner(&format!("{RESERVED}0")), None);
        drop(reservation);
        assert_eq!(sessions.len(), 0);
    }
}
