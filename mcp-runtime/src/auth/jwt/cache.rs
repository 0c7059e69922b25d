//! Tokens already verified, until they expire: a request that repeats a token (every request of
//! a client does) costs a hash lookup, not a signature check.

use crate::context::Caller;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex};

/// Bytes of a token's end that are hashed: the end of its signature, unpredictable for tokens
/// that verified (and only such tokens are stored). Hashing the tail rather than the whole
/// token is what keeps a repeated token cheap (BENCHMARKS.md, "Bearer tokens").
const HASHED_TAIL: usize = 24;

/// Verified tokens and their callers. Entries are found by a hash of the token's tail and then
/// compared in full, so no other token can stand in for a stored one. Bounded: when full,
/// expired entries go, then everything.
pub(in crate::auth) struct TokenCache {
    entries: Mutex<HashMap<u64, Vec<Entry>>>,
    hasher: RandomState,
    capacity: usize,
}

struct Entry {
    token: Box<str>,
    caller: Arc<Caller>,
    /// Unix seconds after which the token is no longer accepted (`exp` plus the leeway).
    valid_until: u64,
}

impl TokenCache {
    pub(in crate::auth) fn new(capacity: usize) -> Self {
        TokenCache {
            entries: Mutex::new(HashMap::new()),
            hasher: RandomState::new(),
            capacity,
        }
    }

    fn slot(&self, token: &str) -> u64 {
        let b = token.as_bytes();
        self.hasher
            .hash_one(&b[b.len().saturating_sub(HASHED_TAIL)..])
    }

    /// The caller of a verified token still valid at `now` (Unix seconds).
    pub(in crate::auth) fn get(&self, token: &str, now: u64) -> Option<Arc<Caller>> {
        let slot = self.slot(token);
        let mut map = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let bucket = map.get_mut(&slot)?;
        let i = bucket.iter().position(|e| &*e.token == token)?;
        if now <= bucket[i].valid_until {
            return Some(bucket[i].caller.clone());
        }
        bucket.swap_remove(i);
        if bucket.is_empty() {
            map.remove(&slot);
        }
        None
    }

    pub(in crate::auth) fn insert(
        &self,
        token: &str,
        caller: Arc<Caller>,
        valid_until: u64,
        now: u64,
    ) {
        if self.capacity == 0 {
            return;
        }
        let slot = self.slot(token);
        let mut map = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= self.capacity {
            map.retain(|_, bucket| {
                bucket.retain(|e| now <= e.valid_until);
                !bucket.is_empty()
            });
            if map.len() >= self.capacity {
                map.clear();
            }
        }
        let bucket = map.entry(slot).or_default();
        bucket.retain(|e| &*e.token != token);
        bucket.push(Entry {
            token: token.into(),
            caller,
            valid_until,
        });
    }

    /// Forgets every token (the keys that signed some of them may be gone).
    pub(in crate::auth) fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.lock().unwrap().values().map(Vec::len).sum()
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

    #[test]
    fn tokens_sharing_a_tail_are_told_apart() {
        let cache = TokenCache::new(10);
        let tail = "x".repeat(HASHED_TAIL);
        let (a, b) = (format!("aaa.{tail}"), format!("bbb.{tail}"));
        cache.insert(&a, Arc::new(Caller::new("alice")), 100, 0);
        assert!(
            cache.get(&b, 1).is_none(),
            "a forged head is not the stored token"
        );
        cache.insert(&b, Arc::new(Caller::new("bob")), 100, 0);
        assert_eq!(cache.get(&a, 1).unwrap().subject, "alice");
        assert_eq!(cache.get(&b, 1).unwrap().subject, "bob");
    }
}
