//! What routing a request started: an answer already, or a handler still to run.

use super::encode::Response;
use crate::error::McpError;
use crate::protocol::RequestId;
use crate::registry::{BoxFuture, ToolEntry, ToolOutcome};
use std::sync::Arc;

/// Work started for a request.
pub(super) enum Work {
    /// Answered without waiting.
    Ready(Response),
    /// A tool handler that did not finish at once.
    Tool(StartedTool),
    /// Any other handler.
    Other(BoxFuture<'static, Result<Response, McpError>>),
}

/// A tool handler that did not finish in its first poll, and what answering needs.
pub(super) struct StartedTool {
    pub(super) entry: Arc<ToolEntry>,
    pub(super) handler: BoxFuture<'static, Result<ToolOutcome, McpError>>,
    pub(super) id: RequestId,
}
