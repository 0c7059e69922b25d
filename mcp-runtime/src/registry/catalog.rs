//! What a running server holds: the items as registered, and the snapshot requests are served
//! from. A run-time change edits the items, rebuilds the snapshot and swaps it in; requests in
//! flight keep the snapshot they started with.

use super::primitive::Items;
use super::snapshot::Registry;
use crate::context::StateMap;
use crate::error::BuildError;
use std::sync::{Arc, RwLock, RwLockWriteGuard};

pub(crate) struct Catalog {
    items: RwLock<Items>,
    snapshot: RwLock<Arc<Registry>>,
    /// The shared state handlers may need (checked on every rebuild).
    state: Arc<StateMap>,
}

impl Catalog {
    /// Validates `items`; every problem is reported at once.
    pub(crate) fn new(items: Items, state: Arc<StateMap>) -> Result<Catalog, BuildError> {
        let snapshot = Registry::build(&items, &state)?;
        Ok(Catalog {
            items: RwLock::new(items),
            snapshot: RwLock::new(Arc::new(snapshot)),
            state,
        })
    }

    /// The snapshot to serve a request from.
    pub(crate) fn snapshot(&self) -> Arc<Registry> {
        match self.snapshot.read() {
            Ok(r) => r.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Something of the items as registered now.
    pub(crate) fn read_items<R>(&self, read: impl FnOnce(&Items) -> R) -> R {
        match self.items.read() {
            Ok(items) => read(&items),
            Err(poisoned) => read(&poisoned.into_inner()),
        }
    }

    /// Applies `edit` to a copy of the items; if it changed anything and the result is valid,
    /// the copy replaces the items and its snapshot is swapped in. Returns whether anything
    /// changed; on an invalid result nothing changes.
    pub(crate) fn change(&self, edit: impl FnOnce(&mut Items) -> bool) -> Result<bool, BuildError> {
        let mut items = write(&self.items);
        let mut next = items.clone();
        if !edit(&mut next) {
            return Ok(false);
        }
        let snapshot = Registry::build(&next, &self.state)?;
        *items = next;
        *write(&self.snapshot) = Arc::new(snapshot);
        Ok(true)
    }
}

fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
