//! Tasks of another server this one relays (a mounted server's, `crate::proxy`): their ids are
//! this server's sealed handles, which the relay recognises and answers by asking the server
//! the task belongs to, so that no instance keeps anything about them.

use crate::context::RequestContext;
use crate::error::McpError;
use crate::protocol::Method;
use crate::registry::BoxFuture;
use serde_json::{Map, Value};

/// What answers `tasks/*` for the task ids it made.
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
