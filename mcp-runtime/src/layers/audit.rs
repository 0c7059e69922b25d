//! [`AuditLog`]: who called what, and how it ended.

use crate::dispatch::layer::{Layer, LayerResult, McpRequest, Next};
use crate::protocol::{Method, RequestId};
use crate::registry::BoxFuture;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One audited call.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct AuditRecord<'a> {
    /// The method.
    pub method: Method,
    /// The tool or prompt name, or the resource URI, as sent.
    pub name: Option<&'a str>,
    /// The caller's subject, when the transport authenticated one.
    pub caller: Option<&'a str>,
    /// The request id.
    pub request_id: &'a RequestId,
    /// How it ended.
    pub outcome: AuditOutcome,
    /// How long it took from the audit layer's point of view.
    pub duration: Duration,
}

/// How an audited call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuditOutcome {
    /// A result.
    Complete,
    /// An `input_required` result (the client is asked for input and retries).
    InputRequired,
    /// A tool result with `isError: true`.
    ToolError,
    /// A JSON-RPC error with this code.
    Error(i32),
}

impl std::fmt::Display for AuditOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuditOutcome::Complete => f.write_str("complete"),
            AuditOutcome::InputRequired => f.write_str("input_required"),
            AuditOutcome::ToolError => f.write_str("tool_error"),
            AuditOutcome::Error(code) => write!(f, "error {code}"),
        }
    }
}

type Sink = dyn Fn(&AuditRecord<'_>) + Send + Sync;

/// A layer that records every call of a primitive: each request that names one (a tool, a
/// prompt, a resource URI, registered or not) or reaches a handler (completions and listen
/// streams too), with its caller and outcome. List pages and `server/discover` are not
/// recorded. Add it first to see what the layers after it refuse.
///
/// By default each record is an INFO event of target `mcp_runtime::audit`; give your own sink
/// with [`AuditLog::with_sink`]. Arguments are never recorded.
///
/// ```
/// use mcp_runtime::layers::AuditLog;
/// let to_stderr = AuditLog::with_sink(|record| {
///     eprintln!("{} {:?} by {:?}: {}", record.method, record.name, record.caller, record.outcome)
/// });
/// let server = mcp_runtime::Server::builder().layer(to_stderr).build().unwrap();
/// ```
#[derive(Clone)]
pub struct AuditLog {
    sink: Arc<Sink>,
}

impl std::fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditLog").finish_non_exhaustive()
    }
}

impl Default for AuditLog {
    fn default() -> Self {
        AuditLog::new()
    }
}

impl AuditLog {
    /// Records as `tracing` INFO events of target `mcp_runtime::audit`.
    pub fn new() -> AuditLog {
        AuditLog::with_sink(|record| {
            tracing::info!(
                target: "mcp_runtime::audit",
                outcome = %record.outcome,
                mcp.method.name = record.method.name(),
                name = record.name,
                caller = record.caller,
                jsonrpc.request.id = %record.request_id,
                duration_ms = record.duration.as_secs_f64() * 1000.0,
                "call"
            );
        })
    }

    /// Records by calling `sink` after each audited call.
    pub fn with_sink(sink: impl Fn(&AuditRecord<'_>) + Send + Sync + 'static) -> AuditLog {
        AuditLog {
            sink: Arc::new(sink),
        }
    }
}

impl Layer for AuditLog {
    #[inline]
    fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'_, LayerResult> {
        Box::pin(async move {
            let started = Instant::now();
            let answer = next.run(request.clone()).await;
            let outcome = match &answer {
                Err(e) => AuditOutcome::Error(e.code()),
                Ok(r) => match r.error_code() {
                    Some(code) => AuditOutcome::Error(code),
                    None if r.is_tool_error() => AuditOutcome::ToolError,
                    None if r.is_input_required() => AuditOutcome::InputRequired,
                    None => AuditOutcome::Complete,
                },
            };
            (self.sink)(&AuditRecord {
                method: request.method(),
                name: request.name(),
                caller: request.caller().map(|c| c.subject.as_str()),
                request_id: request.id(),
                outcome,
                duration: started.elapsed(),
            });
            answer
        })
    }

    /// Calls of primitives: requests that name one, completions, listen streams (not list
    /// pages, not `server/discover`).
    fn wants(&self, method: Method, name: Option<&str>) -> bool {
        name.is_some() || matches!(method, Method::Complete | Method::Listen)
    }

    fn name(&self) -> &str {
        "AuditLog"
    }
}
