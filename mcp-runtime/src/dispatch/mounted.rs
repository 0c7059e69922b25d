//! What a mounted server plugs into the dispatcher (`crate::server::mounts`, `crate::proxy`),
//! as traits the dispatcher holds and the mount implements:
//!
//! - [`CallerViews`]: items that depend on who asks. A mount that passes its callers' tokens on
//!   serves each caller what the mounted server shows that caller. Before a request is
//!   handled, the transport waits for the caller's views to be fetched (once per freshness
//!   period), so that the registry snapshot the request is served from holds what the caller
//!   may see.
//! - `RelayedTasks` (feature `mounts`): tasks of another server this one relays. Their ids
//!   are this server's sealed handles, which the relay recognises and answers by asking the
//!   server the task belongs to, so that no instance keeps anything about them.

use crate::context::Caller;
#[cfg(feature = "mounts")]
use crate::context::RequestContext;
#[cfg(feature = "mounts")]
use crate::error::McpError;
#[cfg(feature = "mounts")]
use crate::protocol::Method;
use crate::registry::BoxFuture;
#[cfg(feature = "mounts")]
use serde_json::{Map, Value};
use std::sync::Arc;

/// What fetches the views of a caller (set once, by mounts).
pub(crate) trait CallerViews: Send + Sync {
    /// What to wait for before `caller`'s request is handled; `None` when nothing is (no
    /// token to pass on, or its views are fresh).
    fn ready(&self, caller: Option<&Arc<Caller>>) -> Option<BoxFuture<'static, ()>>;
}

/// What answers `tasks/*` for the task ids it made.
#[cfg(feature = "mounts")]
pub(crate) trait RelayedTasks: Send + Sync {
    /// Whether `task_id` is one of its handles (a cheap look at its form).
    fn owns(&self, task_id: &str) -> bool;

    /// `method` on the task, answered by the server it belongs to (the result as this server
    /// sends it).
    fn relay(
        &self,
        method: Method,
        task_id: String,
        answers: Option<Map<String, Value>>,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, McpError>>;
}
