//! [`ToolTimeout`]: a time limit per tool.

use crate::dispatch::layer::{Layer, LayerResult, McpRequest, Next};
use crate::protocol::Method;
use crate::registry::BoxFuture;
use std::collections::HashMap;
use std::time::Duration;

/// A layer that gives tool handlers a time limit, per tool or for all: past it the handler's
/// future is dropped (cancelling it) and the call answers with a tool execution error
/// (`isError: true`, "Tool `x` timed out after N ms."), so that the model reads what happened.
///
/// Only `tools/call` of registered tools is limited; the server-wide
/// [`request_timeout`](crate::ServerBuilder::request_timeout) still bounds every request.
///
/// ```
/// use mcp_runtime::layers::ToolTimeout;
/// use std::time::Duration;
/// let limits = ToolTimeout::new()
///     .default_limit(Duration::from_secs(10))
///     .tool("build_report", Duration::from_secs(120));
/// assert_eq!(limits.limit_of("build_report"), Some(Duration::from_secs(120)));
/// assert_eq!(limits.limit_of("add"), Some(Duration::from_secs(10)));
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolTimeout {
    default: Option<Duration>,
    per_tool: HashMap<String, Duration>,
}

impl ToolTimeout {
    /// No limit yet: add them with [`tool`](Self::tool) and
    /// [`default_limit`](Self::default_limit).
    pub fn new() -> ToolTimeout {
        ToolTimeout::default()
    }

    /// The limit of tools without one of their own.
    #[must_use]
    pub fn default_limit(mut self, limit: Duration) -> ToolTimeout {
        self.default = Some(limit);
        self
    }

    /// The limit of the tool `name`.
    #[must_use]
    pub fn tool(mut self, name: impl Into<String>, limit: Duration) -> ToolTimeout {
        self.per_tool.insert(name.into(), limit);
        self
    }

    /// The limit that applies to the tool `name`, if any.
    pub fn limit_of(&self, name: &str) -> Option<Duration> {
        self.per_tool.get(name).copied().or(self.default)
    }
}

impl Layer for ToolTimeout {
    #[inline]
    fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'_, LayerResult> {
        let limit = match (request.method(), request.has_handler(), request.name()) {
            (Method::ToolsCall, true, Some(name)) => self.limit_of(name),
            _ => None,
        };
        let Some(limit) = limit else {
            return next.run(request);
        };
        Box::pin(async move {
            match tokio::time::timeout(limit, next.run(request.clone())).await {
                Ok(answer) => answer,
                Err(_) => {
                    let name = request.name().unwrap_or_default();
                    tracing::debug!(
                        target: "mcp_runtime::request",
                        limit_ms = limit.as_millis() as u64,
                        gen_ai.tool.name = name,
                        "tool timed out"
                    );
                    Ok(request.tool_error(format!(
                        "Tool `{name}` timed out after {} ms.",
                        limit.as_millis()
                    )))
                }
            }
        })
    }

    fn wants(&self, method: Method, name: Option<&str>) -> bool {
        method == Method::ToolsCall && name.is_some_and(|n| self.limit_of(n).is_some())
    }

    fn name(&self) -> &str {
        "ToolTimeout"
    }
}
