//! Counted capacity: requests served at once, listen streams open at once, tasks running at
//! once; each with a per-caller share, so that one client cannot take a whole pool from the
//! others. Taking a slot never waits (a full pool answers "busy").
//!
//! The total is an atomic counter: tokio's `Semaphore` takes a lock to give a permit back
//! (BENCHMARKS.md, "Slots"). The shares are a map from [`ShareKey`] to the slots that key holds,
//! kept only while the pool is busy: a slot taken while the pool holds fewer than a quarter of
//! a share's worth of slots is not counted for its key (the quiet server's requests never
//! take the lock), and a caller is refused once its counted slots reach three quarters of its
//! share. Uncounted slots are fewer than a quarter of a share at any time (each was taken when
//! fewer than that were held), so a caller never holds more than its share, and is always
//! granted three quarters of it.

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

    /// Takes a slot. Once the pool is busy (a quarter of a share's worth of slots taken), `key`
    /// is made and its count checked and raised here, under the lock: `Ok(Some(key))`, the
    /// slot counted for it. Otherwise `Ok(None)`: the slot is not counted for anyone.
    pub(crate) fn try_take(
        &self,
        key: impl FnOnce() -> Option<ShareKey>,
    ) -> Result<Option<ShareKey>, (Full, Option<ShareKey>)> {
        let before = self.taken.fetch_add(1, Ordering::AcqRel);
        if before >= self.max {
            self.taken.fetch_sub(1, Ordering::AcqRel);
            return Err((Full::Pool, None));
        }
        let quiet = self.per_caller / 4;
        if before < quiet {
            return Ok(None);
        }
        let Some(key) = key() else { return Ok(None) };
        let mut held = self.held();
        // `quiet` is under a share: a key with no slot always gets one.
        let count = held.entry(key.clone()).or_insert(0);
        if *count >= self.per_caller - quiet {
            drop(held);
            self.taken.fetch_sub(1, Ordering::AcqRel);
            return Err((Full::Share, Some(key)));
        }
        *count += 1;
        Ok(Some(key))
    }

    /// Gives back a slot taken with [`try_take`](Self::try_take) and not kept (`counted`: the
    /// key it was counted for).
    pub(crate) fn give_back(&self, counted: Option<&ShareKey>) {
        if let Some(key) = counted {
            let mut held = self.held();
            if let Some(count) = held.get_mut(key) {
                *count -= 1;
                if *count == 0 {
                    held.remove(key);
                }
            }
        }
        self.taken.fetch_sub(1, Ordering::AcqRel);
    }

    /// The guard of a slot taken with [`try_take`](Self::try_take), given back when dropped.
    pub(crate) fn hold(self: &Arc<Self>, counted: Option<ShareKey>) -> Slot {
        Slot {
            slots: self.clone(),
            key: counted,
        }
    }

    /// A slot taken and held until the returned guard is dropped, or the busy error.
    pub(crate) fn take(self: &Arc<Self>, key: Option<ShareKey>) -> Result<Slot, McpError> {
        match self.try_take(move || key) {
            Ok(counted) => Ok(self.hold(counted)),
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
        // A share under 4: every slot is counted.
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
    fn a_caller_never_holds_more_than_its_share_and_gets_three_quarters_of_it() {
        // A share of 8: the first 2 slots of a quiet pool are not counted for anyone.
        let slots = Slots::new("requests", 100, 8);
        let quiet: Vec<Slot> = (0..2)
            .map(|_| {
                let counted = slots
                    .try_take(|| unreachable!("no key while quiet"))
                    .unwrap();
                assert_eq!(counted, None);
                slots.hold(counted)
            })
            .collect();
        // Now busy: the same caller gets 6 counted ones, then is refused: 8 in all.
        let counted: Vec<Slot> = (0..6).map(|_| slots.take(client(1)).unwrap()).collect();
        assert_eq!(slots.try_take(|| client(1)), Err((Full::Share, client(1))));
        // A caller with nothing uncounted still gets three quarters of its share.
        let other: Vec<Slot> = (0..6).map(|_| slots.take(client(2)).unwrap()).collect();
        assert_eq!(slots.try_take(|| client(2)), Err((Full::Share, client(2))));
        drop((quiet, counted, other));
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
