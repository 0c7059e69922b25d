//! Counted capacity: requests served at once, listen streams open at once, tasks running at
//! once; each with a per-caller share, so that one client cannot take a whole pool from the
//! others. Taking a slot never waits (a full pool answers "busy").
//!
//! The total is an atomic counter: tokio's `Semaphore` takes a lock to give a permit back
//! (BENCHMARKS.md, "Slots"). The shares are a map from [`ShareKey`] to the slots that key holds,
//! kept only while the pool is busy: a slot taken while the pool holds fewer than a quarter of
//! a share's worth of slots is not counted for its key (the quiet server's requests never
//! take the lock), only in one count of such *quiet* slots. A caller is refused once its
//! counted slots and every quiet slot (any of which may be its own) reach its share: so a
//! caller never holds more than its share, one client alone always gets all of it, and among
//! several each gets at least three quarters of it (quiet slots are never more than a quarter
//! of a share: each was taken while fewer than that were held).

use crate::context::ShareKey;
use crate::error::McpError;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// At most `max` holders at once, at most `per_caller` of them for one [`ShareKey`].
#[derive(Debug)]
pub(crate) struct Slots {
    taken: AtomicUsize,
    /// Slots taken while the pool was quiet, and not counted for any key.
    quiet: AtomicUsize,
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

/// How a slot was taken: what giving it back undoes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Taken {
    /// While the pool was quiet: counted for nobody.
    Quiet,
    /// By a request with no key (stdio, in process): one client, with no share to keep.
    Keyless,
    /// Counted for this key.
    Counted(ShareKey),
}

impl Slots {
    /// A pool of `max` slots, `per_caller` of them at most for one caller (at least 1, at most
    /// `max`).
    pub(crate) fn new(what: &'static str, max: usize, per_caller: usize) -> Arc<Slots> {
        Arc::new(Slots {
            taken: AtomicUsize::new(0),
            quiet: AtomicUsize::new(0),
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

    /// Takes a slot. While the pool is quiet (fewer than a quarter of a share's worth of slots
    /// taken) it is [`Taken::Quiet`]; once busy, `key` is made and its count checked and raised
    /// here, under the lock ([`Taken::Counted`]).
    pub(crate) fn try_take(
        &self,
        key: impl FnOnce() -> Option<ShareKey>,
    ) -> Result<Taken, (Full, Option<ShareKey>)> {
        let before = self.taken.fetch_add(1, Ordering::AcqRel);
        if before >= self.max {
            self.taken.fetch_sub(1, Ordering::AcqRel);
            return Err((Full::Pool, None));
        }
        if before < self.per_caller / 4 {
            self.quiet.fetch_add(1, Ordering::AcqRel);
            return Ok(Taken::Quiet);
        }
        let Some(key) = key() else {
            return Ok(Taken::Keyless);
        };
        let mut held = self.held();
        let count = held.entry(key.clone()).or_insert(0);
        // Every quiet slot may be this caller's.
        if *count + self.quiet.load(Ordering::Acquire) >= self.per_caller {
            if *count == 0 {
                held.remove(&key);
            }
            drop(held);
            self.taken.fetch_sub(1, Ordering::AcqRel);
            return Err((Full::Share, Some(key)));
        }
        *count += 1;
        Ok(Taken::Counted(key))
    }

    /// Gives back a slot taken with [`try_take`](Self::try_take) and not kept.
    pub(crate) fn give_back(&self, taken: &Taken) {
        match taken {
            Taken::Quiet => {
                self.quiet.fetch_sub(1, Ordering::AcqRel);
            }
            Taken::Keyless => {}
            Taken::Counted(key) => {
                let mut held = self.held();
                if let Some(count) = held.get_mut(key) {
                    *count -= 1;
                    if *count == 0 {
                        held.remove(key);
                    }
                }
            }
        }
        self.taken.fetch_sub(1, Ordering::AcqRel);
    }

    /// The guard of a slot taken with [`try_take`](Self::try_take), given back when dropped.
    pub(crate) fn hold(self: &Arc<Self>, taken: Taken) -> Slot {
        Slot {
            slots: self.clone(),
            taken,
        }
    }

    /// A slot taken and held until the returned guard is dropped, or the busy error.
    pub(crate) fn take(self: &Arc<Self>, key: Option<ShareKey>) -> Result<Slot, McpError> {
        match self.try_take(move || key) {
            Ok(taken) => Ok(self.hold(taken)),
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
    pub(crate) fn taken(&self) -> usize {
        self.taken.load(Ordering::Acquire)
    }
}

/// A held slot, given back when dropped.
#[derive(Debug)]
pub(crate) struct Slot {
    slots: Arc<Slots>,
    taken: Taken,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.slots.give_back(&self.taken);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr};

    fn client(last: u8) -> Option<ShareKey> {
        Some(ShareKey::Address(crate::net::ClientNet::new(
            IpAddr::V4(Ipv4Addr::new(10, 0, 0, last)),
            64,
        )))
    }

    #[test]
    fn slots_are_taken_and_given_back() {
        let slots = Slots::new("requests", 2, 2);
        let a = slots.take(None).unwrap();
        assert_eq!(slots.try_take(|| None), Ok(Taken::Keyless));
        assert!(slots.take(None).is_err(), "full");
        slots.give_back(&Taken::Keyless);
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
                let taken = slots
                    .try_take(|| unreachable!("no key while quiet"))
                    .unwrap();
                assert_eq!(taken, Taken::Quiet);
                slots.hold(taken)
            })
            .collect();
        // Now busy: the same caller gets 6 counted ones, then is refused: 8 in all.
        let counted: Vec<Slot> = (0..6).map(|_| slots.take(client(1)).unwrap()).collect();
        assert_eq!(slots.try_take(|| client(1)), Err((Full::Share, client(1))));
        // A caller with nothing quiet still gets three quarters of its share.
        let other: Vec<Slot> = (0..6).map(|_| slots.take(client(2)).unwrap()).collect();
        assert_eq!(slots.try_take(|| client(2)), Err((Full::Share, client(2))));
        drop((quiet, counted, other));
        assert_eq!(slots.taken(), 0);
        assert!(slots.held().is_empty());
    }

    /// One client alone, whatever it held while the pool was quiet, gets its whole share and
    /// not one slot more; finished requests give theirs back at once.
    #[test]
    fn one_client_alone_gets_exactly_its_share() {
        let slots = Slots::new("requests", 1024, 64);
        for round in 0..3 {
            let mine: Vec<Slot> = (0..64)
                .map(|i| {
                    slots
                        .take(client(1))
                        .unwrap_or_else(|e| panic!("round {round}, slot {i}: {e:?}"))
                })
                .collect();
            assert!(slots.take(client(1)).is_err(), "the 65th");
            drop(mine);
            assert_eq!(slots.taken(), 0);
            // One at a time, as sequential requests are.
            for _ in 0..100 {
                drop(slots.take(client(1)).unwrap());
            }
        }
        // Churn: the quiet pool's first slots finish while later ones run, and new ones are
        // counted. Still the whole share (counting three quarters of it, as before, refused
        // this client at 48).
        let quiet: Vec<Slot> = (0..16).map(|_| slots.take(client(1)).unwrap()).collect();
        let mut running: Vec<Slot> = (0..32).map(|_| slots.take(client(1)).unwrap()).collect();
        drop(quiet);
        for i in 0..32 {
            let slot = slots
                .take(client(1))
                .unwrap_or_else(|e| panic!("slot {} of 64 after the churn: {e:?}", 33 + i));
            running.push(slot);
        }
        assert_eq!(slots.taken(), 64);
        assert!(slots.take(client(1)).is_err(), "never more than its share");
    }

    #[test]
    fn keyless_requests_only_count_against_the_pool() {
        let slots = Slots::new("requests", 3, 1);
        let held: Vec<Slot> = (0..3).map(|_| slots.take(None).unwrap()).collect();
        assert_eq!(held.len(), 3);
        assert_eq!(slots.try_take(|| None), Err((Full::Pool, None)));
    }
}
