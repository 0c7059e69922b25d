//! Counted capacity: requests served at once, listen streams open at once, tasks running at
//! once; each with a per-caller share, so that one client cannot take a whole pool from the
//! others. Taking a slot never waits (a full pool answers "busy").
//!
//! The total is an atomic counter: tokio's `Semaphore` takes a lock to give a permit back
//! (BENCHMARKS.md, "Slots"). The shares are a map from [`ShareKey`] to the slots that key holds,
//! consulted only once the pool holds as many slots as one share: below that, no caller can be
//! at its share, so the uncontended path never takes the lock.

use crate::context::ShareKey;
use crate::error::McpError;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// At most `max` holders at once, at most `per_caller` of them for one [`ShareKey`].
#[derive(Debug)]
pub(crate) struct Slots {
    taken: AtomicUsize,
    max: usize,
    per_caller: usize,
    /// The slots each key holds, for keys that hold one (an entry goes with its last slot, so
    /// the map never has more entries than the pool has slots).
    held: Mutex<HashMap<ShareKey, usize, fnv::FnvBuildHasher>>,
    /// What the pool counts, for the busy error (`"requests"`).
    what: &'static str,
}

/// Why a slot was not given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Full {
    /// Every slot is taken.
    Pool,
    /// The caller holds its whole share.
    Share,
}

impl Slots {
    /// A pool of `max` slots, `per_caller` of them at most for one caller (at least 1, at most
    /// `max`).
    pub(crate) fn new(what: &'static str, max: usize, per_caller: usize) -> Arc<Slots> {
        Arc::new(Slots {
            taken: AtomicUsize::new(0),
            max,
            per_caller: per_caller.clamp(1, max.max(1)),
            held: Mutex::new(HashMap::default()),
            what,
        })
    }

    fn held(&self) -> MutexGuard<'_, HashMap<ShareKey, usize, fnv::FnvBuildHasher>> {
        // Counts only: a panic elsewhere cannot leave them half-changed.
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes a slot. When the pool is busy enough for a caller to be at its share, `key` is
    /// made and its count checked and raised here, under the lock: `Ok(Some(key))`, the slot
    /// already recorded for it. Otherwise `Ok(None)`: the caller [`hold`](Self::hold)s the slot
    /// once it knows it is kept (recording it then), or gives it back.
    pub(crate) fn try_take(
        &self,
        key: impl FnOnce() -> Option<ShareKey>,
    ) -> Result<Option<ShareKey>, (Full, Option<ShareKey>)> {
        let before = self.taken.fetch_add(1, Ordering::AcqRel);
        if before >= self.max {
            self.taken.fetch_sub(1, Ordering::AcqRel);
            return Err((Full::Pool, None));
        }
        if before < self.per_caller {
            // Fewer slots are taken than one share: nobody can be at theirs.
            return Ok(None);
        }
        let Some(key) = key() else { return Ok(None) };
        let mut held = self.held();
        match held.get_mut(&key) {
            Some(count) if *count >= self.per_caller => {
                drop(held);
                self.taken.fetch_sub(1, Ordering::AcqRel);
                Err((Full::Share, Some(key)))
            }
            Some(count) => {
                *count += 1;
                drop(held);
                Ok(Some(key))
            }
            None => {
                held.insert(key.clone(), 1);
                drop(held);
                Ok(Some(key))
            }
        }
    }

    /// Gives back a slot taken with [`try_take`](Self::try_take) and not kept (`recorded`: the
    /// key it was recorded for).
    pub(crate) fn give_back(&self, recorded: Option<&ShareKey>) {
        if let Some(key) = recorded {
            self.release(key);
        }
        self.taken.fetch_sub(1, Ordering::AcqRel);
    }

    fn release(&self, key: &ShareKey) {
        let mut held = self.held();
        if let Some(count) = held.get_mut(key) {
            *count -= 1;
            if *count == 0 {
                held.remove(key);
            }
        }
    }

    /// The guard of a slot taken with [`try_take`](Self::try_take): recorded for `key` now if
    /// it was not yet, so that later checks count it.
    pub(crate) fn hold(
        self: &Arc<Self>,
        recorded: Option<ShareKey>,
        key: impl FnOnce() -> Option<ShareKey>,
    ) -> Slot {
        let key = match recorded {
            Some(key) => Some(key),
            None => key().inspect(|key| {
                *self.held().entry(key.clone()).or_insert(0) += 1;
            }),
        };
        Slot {
            slots: self.clone(),
            key,
        }
    }

    /// A slot taken and held until the returned guard is dropped, or the busy error.
    pub(crate) fn take(self: &Arc<Self>, key: Option<ShareKey>) -> Result<Slot, McpError> {
        let made = key.clone();
        match self.try_take(move || made) {
            Ok(recorded) => Ok(self.hold(recorded, || key)),
            Err((full, key)) => Err(self.busy(full, key.as_ref())),
        }
    }

    /// The error of a refused slot: `-32603` "server busy" (HTTP 503 with `Retry-After`).
    pub(crate) fn busy(&self, full: Full, key: Option<&ShareKey>) -> McpError {
        match (full, key) {
            (Full::Share, Some(key)) => {
                McpError::busy_share(self.what, self.per_caller, &key.to_string())
            }
            _ => McpError::busy(self.what, self.max),
        }
    }

    /// Slots taken now.
    #[cfg(test)]
    pub(crate) fn taken(&self) -> usize {
        self.taken.load(Ordering::Acquire)
    }
}

/// A held slot, given back when dropped.
#[derive(Debug)]
pub(crate) struct Slot {
    slots: Arc<Slots>,
    key: Option<ShareKey>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.slots.give_back(self.key.as_ref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr};

    fn client(last: u8) -> Option<ShareKey> {
        Some(ShareKey::Address(IpAddr::V4(Ipv4Addr::new(10, 0, 0, last))))
    }

    #[test]
    fn slots_are_taken_and_given_back() {
        let slots = Slots::new("requests", 2, 2);
        let a = slots.take(None).unwrap();
        assert_eq!(slots.try_take(|| None), Ok(None));
        assert!(slots.take(None).is_err(), "full");
        slots.give_back(None);
        drop(a);
        let _b = slots.take(None).unwrap();
        let _c = slots.take(None).unwrap();
        assert_eq!(slots.try_take(|| None), Err((Full::Pool, None)));
        assert_eq!(slots.taken(), 2);
    }

    #[test]
    fn one_caller_gets_its_share_and_the_others_the_rest() {
        let slots = Slots::new("listen streams", 10, 3);
        let mine: Vec<Slot> = (0..3).map(|_| slots.take(client(1)).unwrap()).collect();
        let refused = slots.take(client(1)).unwrap_err();
        assert!(
            refused.message().contains("3 listen streams"),
            "{refused:?}"
        );
        assert!(refused.message().contains("10.0.0.1"), "{refused:?}");
        // Others still get theirs, up to the pool.
        let theirs: Vec<Slot> = (2..9).map(|i| slots.take(client(i)).unwrap()).collect();
        assert_eq!(slots.taken(), 10);
        assert_eq!(slots.try_take(|| client(20)), Err((Full::Pool, None)));
        drop(mine);
        assert!(
            slots.take(client(1)).is_ok(),
            "a share comes back with its slots"
        );
        drop(theirs);
        assert!(slots.held().len() <= 1, "keys go with their last slot");
    }

    #[test]
    fn slots_taken_while_the_pool_was_quiet_count_once_it_is_busy() {
        let slots = Slots::new("requests", 100, 2);
        // The pool is quiet: the key is not even made; the slot is recorded when held.
        let first = slots
            .try_take(|| unreachable!("no key while quiet"))
            .unwrap();
        assert_eq!(first, None);
        let a = slots.hold(first, || client(1));
        let b = slots.take(client(1)).unwrap();
        // Now the pool holds two slots, one share: the key's count is checked.
        assert_eq!(slots.try_take(|| client(1)), Err((Full::Share, client(1))));
        assert_eq!(slots.try_take(|| client(2)), Ok(client(2)));
        slots.give_back(client(2).as_ref());
        drop((a, b));
        assert_eq!(slots.taken(), 0);
        assert!(slots.held().is_empty());
    }

    #[test]
    fn keyless_requests_only_count_against_the_pool() {
        let slots = Slots::new("requests", 3, 1);
        let held: Vec<Slot> = (0..3).map(|_| slots.take(None).unwrap()).collect();
        assert_eq!(held.len(), 3);
        assert_eq!(slots.try_take(|| None), Err((Full::Pool, None)));
    }
}
