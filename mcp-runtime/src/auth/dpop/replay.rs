//! The optional `jti` replay cache (RFC 9449 §11.1): the proofs accepted lately, kept in memory
//! until their `iat` window has passed (after that, the `iat` check refuses them anyway),
//! bounded in count.

use sha2::{Digest, Sha256};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::sync::Mutex;

/// A proof as the cache knows it: 128 bits of SHA-256 over the key's thumbprint and the `jti`,
/// so that one client's `jti` never collides with another's, and the cache holds no client
/// text.
pub(super) type ReplayKey = [u8; 16];

/// The key of the proof with `jti` signed by the key of thumbprint `jkt`.
pub(super) fn replay_key(jkt: &str, jti: &str) -> ReplayKey {
    let mut hash = Sha256::new();
    hash.update(jkt.as_bytes());
    hash.update([0]);
    hash.update(jti.as_bytes());
    let digest = hash.finalize();
    let mut key = [0u8; 16];
    key.copy_from_slice(&digest[..16]);
    key
}

/// The proofs seen, and when each may be forgotten.
pub(super) struct ReplayCache {
    capacity: usize,
    state: Mutex<Seen>,
}

#[derive(Default)]
struct Seen {
    keys: HashSet<ReplayKey>,
    /// Every key once, soonest forgotten first.
    expiries: BinaryHeap<Reverse<(u64, ReplayKey)>>,
}

impl ReplayCache {
    /// A cache of at most `capacity` proofs (at least one).
    pub(super) fn new(capacity: usize) -> ReplayCache {
        ReplayCache {
            capacity: capacity.max(1),
            state: Mutex::default(),
        }
    }

    /// Records a proof that may be forgotten after `expires` (seconds since the Unix epoch);
    /// `false` when it was seen already. Entries whose time has passed go first; when the
    /// cache is still full, the one whose time is nearest goes (the `iat` check will refuse it
    /// soonest). Logarithmic in the count.
    pub(super) fn first_use(&self, key: ReplayKey, expires: u64, now: u64) -> bool {
        let mut seen = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let Seen { keys, expiries } = &mut *seen;
        while let Some(Reverse((at, old))) = expiries.peek().copied()
            && (at < now || keys.len() >= self.capacity)
        {
            if at >= now && keys.contains(&key) {
                // Full, but this very proof is held: a replay, whatever else is dropped.
                break;
            }
            expiries.pop();
            keys.remove(&old);
        }
        if !keys.insert(key) {
            return false;
        }
        expiries.push(Reverse((expires, key)));
        true
    }

    /// How many proofs are held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.state.lock().unwrap().keys.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proof_is_accepted_once_until_its_window_passes() {
        let cache = ReplayCache::new(3);
        let a = replay_key("jkt-1", "a");
        assert_ne!(a, replay_key("jkt-2", "a"), "another key's jti");
        assert!(cache.first_use(a, 100, 10));
        assert!(!cache.first_use(a, 100, 11), "replayed");
        assert!(cache.first_use(replay_key("jkt-2", "a"), 100, 11));
        // Once its window has passed, the entry is dropped (the iat check refuses it then).
        assert!(cache.first_use(replay_key("jkt-1", "b"), 50, 12));
        assert!(cache.first_use(replay_key("jkt-1", "c"), 200, 60));
        assert_eq!(cache.len(), 3);
        // Full: the entry nearest its end makes room, never the one being replayed.
        assert!(!cache.first_use(a, 100, 61), "still a replay when full");
        assert!(cache.first_use(replay_key("jkt-1", "d"), 300, 61));
        assert_eq!(cache.len(), 3);
        assert!(!cache.first_use(replay_key("jkt-1", "c"), 200, 62));
        assert!(!cache.first_use(replay_key("jkt-1", "d"), 300, 62));
    }

    #[test]
    fn the_count_stays_bounded() {
        let cache = ReplayCache::new(100);
        for i in 0..10_000u32 {
            assert!(cache.first_use(replay_key("k", &i.to_string()), 1_000, 1));
        }
        assert_eq!(cache.len(), 100);
    }
}
