//! Tokens already verified, until they expire: a request that repeats a token (every request of
//! a client does) costs a hash lookup, not a signature check.

use crate::context::Caller;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Verified tokens and their callers, keyed by the whole token (a lookup compares it in full:
/// only tokens that passed verification are ever stored, so no other token can stand in for
/// one). Bounded: when full, expired entries go, then everything.
pub(super) struct TokenCache {
    entries: Mutex<HashMap<Box<str>, Entry>>,
    capacity: usize,
}

struct Entry {
    caller: Arc<Caller>,
    /// Unix seconds after which the token is no longer accepted (`exp` plus the leeway).
    valid_until: u64,
}

impl TokenCache {
    pub(super) fn new(capacity: usize) -> Self {
        TokenCache {
            entries: Mutex::new(HashMap::new()),
            capacity,
        }
    }

    /// The caller of a verified token still valid at `now` (Unix seconds).
    pub(super) fn get(&self, token: &str, now: u64) -> Option<Arc<Caller>> {
        let mut map = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        match map.get(token) {
            Some(e) if now <= e.valid_until => Some(e.caller.clone()),
            Some(_) => {
                map.remove(token);
                None
            }
            None => None,
        }
    }

    pub(super) fn insert(&self, token: &str, caller: Arc<Caller>, valid_until: u64, now: u64) {
        if self.capacity == 0 {
            return;
        }
        let mut map = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= self.capacity {
            map.retain(|_, e| now <= e.valid_until);
            if map.len() >= self.capacity {
                map.clear();
            }
        }
        map.insert(
            token.into(),
            Entry {
                caller,
                valid_until,
            },
        );
    }

    /// Forgets every token (the keys that signed some of them may be gone).
    pub(super) fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_expire_and_the_cache_stays_bounded() {
        let cache = TokenCache::new(2);
        let c = Arc::new(Caller::new("a"));
        cache.insert("t1", c.clone(), 100, 50);
        assert!(cache.get("t1", 100).is_some());
        assert!(cache.get("t1", 101).is_none());
        assert!(cache.get("t1", 50).is_none(), "an expired entry is removed");
        cache.insert("t2", c.clone(), 100, 50);
        cache.insert("t3", c.clone(), 100, 50);
        cache.insert("t4", c.clone(), 100, 50);
        assert!(cache.len() <= 2);
        assert!(cache.get("t4", 60).is_some());
        assert!(cache.get("t2 ", 60).is_none());
    }
}
