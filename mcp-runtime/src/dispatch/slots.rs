//! Counted capacity: requests served at once, listen streams open at once. Taking a slot never
//! waits (a full server answers "busy"), so an atomic counter is all it needs: tokio's
//! `Semaphore` takes a lock to give a permit back (~150 instructions per request, measured).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// At most `max` holders at once.
#[derive(Debug)]
pub(crate) struct Slots {
    taken: AtomicUsize,
    max: usize,
}

impl Slots {
    pub(crate) fn new(max: usize) -> Arc<Slots> {
        Arc::new(Slots {
            taken: AtomicUsize::new(0),
            max,
        })
    }

    /// Takes a slot; `false` when all are taken.
    pub(crate) fn try_take(&self) -> bool {
        if self.taken.fetch_add(1, Ordering::AcqRel) < self.max {
            true
        } else {
            self.give_back();
            false
        }
    }

    /// Gives a taken slot back.
    pub(crate) fn give_back(&self) {
        self.taken.fetch_sub(1, Ordering::AcqRel);
    }

    /// A slot taken until the returned guard is dropped.
    pub(crate) fn take(self: &Arc<Self>) -> Option<Slot> {
        self.try_take().then(|| Slot(self.clone()))
    }
}

/// A taken slot, given back when dropped.
#[derive(Debug)]
pub(crate) struct Slot(Arc<Slots>);

impl Slot {
    /// A guard for a slot already taken with [`Slots::try_take`].
    pub(crate) fn taken(slots: &Arc<Slots>) -> Slot {
        Slot(slots.clone())
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.give_back();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_taken_and_given_back() {
        let slots = Slots::new(2);
        let a = slots.take().unwrap();
        assert!(slots.try_take());
        assert!(slots.take().is_none(), "full");
        slots.give_back();
        drop(a);
        let _b = slots.take().unwrap();
        let _c = slots.take().unwrap();
        assert!(!slots.try_take());
    }
}
