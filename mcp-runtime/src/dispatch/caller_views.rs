//! Items that depend on who asks: a mount that passes its callers' tokens on serves each caller
//! what the mounted server shows that caller. Before a request is handled, the transport waits
//! for the caller's views to be fetched (once per freshness period), so that the registry
//! snapshot the request is served from holds what the caller may see.

use crate::context::Caller;
use crate::registry::BoxFuture;
use std::sync::Arc;

/// What fetches the views of a caller (set once, by mounts).
pub(crate) trait CallerViews: Send + Sync {
    /// What to wait for before `caller`'s request is handled; `None` when nothing is (no
    /// token to pass on, or its views are fresh).
    fn ready(&self, caller: Option<&Arc<Caller>>) -> Option<BoxFuture<'static, ()>>;
}

impl super::Dispatcher {
    /// What to wait for before `caller`'s request is handled ([`CallerViews::ready`]).
    pub(crate) fn views_ready(
        &self,
        caller: Option<&Arc<Caller>>,
    ) -> Option<BoxFuture<'static, ()>> {
        self.caller_views.get()?.ready(caller)
    }
}
