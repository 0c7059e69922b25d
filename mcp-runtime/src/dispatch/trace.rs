//! The `tracing` spans of a request, with the attributes of the OpenTelemetry semantic
//! conventions for MCP: `open-telemetry/semantic-conventions-genai` v0.1.0,
//! `docs/gen-ai/mcp.md` (status: development; the MCP server span and the
//! `mcp.server.operation.duration` metric), which builds on `semantic-conventions` v1.45.0 for
//! `error.type`, `rpc.response.status_code`, `jsonrpc.request.id` and `network.transport`.
//!
//! - `mcp.request` (target `mcp_runtime::request`, INFO): one per request that passed
//!   validation, the server span. Its OpenTelemetry name is `{mcp.method.name} {target}`, the
//!   target being the tool or prompt name (never a resource URI: too many distinct values).
//! - `mcp.handler` (target `mcp_runtime::handler`, DEBUG): the user's handler, a child of the
//!   request span; for a tool it is the GenAI `execute_tool {gen_ai.tool.name}` span.
//! - `mcp.mrtr.round` (target `mcp_runtime::mrtr`, DEBUG): made by `seal::RoundTrace`.
//!
//! The request span also carries `client.address`: the client's address as the transport
//! decided it (behind trusted proxies, the client's rather than the proxy's).
//!
//! Nothing is recorded unless a subscriber wants the span: a disabled span costs one level
//! check and no field is computed. Argument values and results are recorded only when the
//! server opts in (`ServerBuilder::trace_payloads`).

use super::work::Validated;
use crate::error::McpError;
use crate::protocol::{KnownParams, Method, RequestId, RequestMeta, TRACEPARENT_KEY, TraceContext};
use std::fmt;
use tracing::Span;
use tracing::field::Empty;

/// The `mcp.request` span of a request (disabled when no subscriber wants it). Every value is
/// computed inside the macro, so only when a subscriber records the span, and given when the
/// span is made (a later `record` costs a subscriber more).
pub(super) fn request_span(
    request: &Validated<'_>,
    transport: Option<&'static str>,
    client: Option<crate::net::ClientNet>,
    payloads: bool,
) -> Span {
    let (method, meta) = (request.method, &*request.meta);
    let span = tracing::info_span!(
        target: "mcp_runtime::request",
        "mcp.request",
        otel.name = %SpanName { method, target: span_target(request) },
        otel.kind = "server",
        otel.status_code = Empty,
        mcp.method.name = method.name(),
        mcp.protocol.version = meta.protocol_version.as_deref(),
        jsonrpc.request.id = %IdText(&request.id),
        gen_ai.operation.name = (method == Method::ToolsCall).then_some("execute_tool"),
        gen_ai.tool.name = named(request, Method::ToolsCall),
        gen_ai.prompt.name = named(request, Method::PromptsGet),
        mcp.resource.uri = named(request, Method::ResourcesRead),
        network.transport = transport,
        client.address = client.map(|c| tracing::field::display(c.address())),
        traceparent = traceparent(meta),
        error.type = Empty,
        rpc.response.status_code = Empty,
        mcp.server.operation.duration = Empty,
        gen_ai.tool.call.arguments = payloads.then(|| arguments(request)).flatten(),
        gen_ai.tool.call.result = Empty,
    );
    #[cfg(feature = "otel")]
    if !span.is_disabled() && !meta.other.is_empty() {
        set_remote_parent(&span, meta, TraceContext::from_meta(meta));
    }
    span
}

/// What a request names (as sent) when it is a request of `method` whose params were read
/// (a malformed request's name is not traced).
fn named<'r>(request: &'r Validated<'_>, method: Method) -> Option<&'r str> {
    let read = !matches!(request.params, KnownParams::Malformed { .. });
    (read && request.method == method)
        .then(|| request.params.named())
        .flatten()
}

/// The arguments' JSON text of a `tools/call`.
fn arguments<'r>(request: &'r Validated<'_>) -> Option<&'r str> {
    let KnownParams::ToolsCall(p) = &request.params else {
        return None;
    };
    Some(p.arguments.map_or("{}", |a| a.get()))
}

/// The `traceparent` of `_meta`, when it is a valid one.
fn traceparent(meta: &RequestMeta) -> Option<&str> {
    let sent = meta.other.get(TRACEPARENT_KEY)?.as_str()?;
    TraceContext::parse(sent, None).map(|_| sent)
}

/// Makes the trace context of `_meta` the OpenTelemetry parent of the request span: what the
/// configured propagator extracts from `_meta` (the semantic conventions' way), else the W3C
/// `traceparent` read by this crate. Without an OpenTelemetry layer there is nothing to link.
#[cfg(feature = "otel")]
fn set_remote_parent(span: &Span, meta: &RequestMeta, traceparent: Option<TraceContext>) {
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId, TraceState,
    };
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;

    struct Carrier<'a>(&'a RequestMeta);
    impl opentelemetry::propagation::Extractor for Carrier<'_> {
        fn get(&self, key: &str) -> Option<&str> {
            self.0.other.get(key)?.as_str()
        }
        fn keys(&self) -> Vec<&str> {
            self.0.other.keys().map(String::as_str).collect()
        }
    }
    let mut parent = opentelemetry::global::get_text_map_propagator(|p| p.extract(&Carrier(meta)));
    if !parent.span().span_context().is_valid()
        && let Some(cx) = traceparent
    {
        let state = cx
            .trace_state
            .as_deref()
            .and_then(|s| s.parse::<TraceState>().ok())
            .unwrap_or_default();
        let remote = SpanContext::new(
            TraceId::from_bytes(cx.trace_id),
            SpanId::from_bytes(cx.parent_id),
            TraceFlags::new(cx.flags),
            true,
            state,
        );
        parent = parent.with_remote_span_context(remote);
    }
    if parent.span().span_context().is_valid() {
        let _ = span.set_parent(parent);
    }
}

/// What a handler span is for.
pub(super) enum Handler<'a> {
    Tool(&'a str),
    Prompt(&'a str),
    Resource(&'a str),
    Completion,
}

/// The `mcp.handler` span of a request's handler: a child of the request's span (disabled
/// when that one is).
pub(super) fn handler_span(request: &Span, handler: Handler<'_>) -> Span {
    if request.is_disabled() {
        return Span::none();
    }
    let (operation, tool, prompt, uri) = match handler {
        Handler::Tool(name) => (Some("execute_tool"), Some(name), None, None),
        Handler::Prompt(name) => (None, None, Some(name), None),
        Handler::Resource(uri) => (None, None, None, Some(uri)),
        Handler::Completion => (None, None, None, None),
    };
    tracing::debug_span!(
        target: "mcp_runtime::handler",
        parent: request,
        "mcp.handler",
        otel.name = %HandlerName { tool, prompt, uri },
        gen_ai.operation.name = operation,
        gen_ai.tool.name = tool,
        gen_ai.prompt.name = prompt,
        mcp.resource.uri = uri,
    )
}

/// Records how the request ended on its span: `error.type` (the JSON-RPC code, `tool_error` for
/// a tool result with `isError: true`, `cancelled` for a request the client gave up on),
/// `rpc.response.status_code`, the status and the duration in seconds.
pub(super) fn record_outcome(
    span: &Span,
    error_type: Option<&str>,
    code: Option<i32>,
    seconds: Option<f64>,
) {
    if let Some(error_type) = error_type {
        span.record("error.type", error_type);
        span.record("otel.status_code", "ERROR");
    }
    if let Some(code) = code {
        span.record("rpc.response.status_code", code.to_string());
    }
    if let Some(seconds) = seconds {
        span.record("mcp.server.operation.duration", seconds);
    }
}

/// A request that failed in its method (after validation): a `debug` event in its span with
/// the code, and the reason when the server records payloads (a reason may quote arguments).
#[cold]
pub(super) fn failed(error: &McpError, payloads: bool) {
    tracing::debug!(
        target: "mcp_runtime::request",
        reason = payloads.then(|| error.message()),
        rpc.response.status_code = error.code(),
        "request failed"
    );
}

/// The primitive named in the span name: a tool or a prompt (low cardinality), never a URI.
fn span_target<'r>(request: &'r Validated<'_>) -> Option<&'r str> {
    named(request, Method::ToolsCall).or_else(|| named(request, Method::PromptsGet))
}

/// `{mcp.method.name} {target}`, written only when a subscriber reads it.
struct SpanName<'a> {
    method: Method,
    target: Option<&'a str>,
}

impl fmt::Display for SpanName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.target {
            Some(target) => write!(f, "{} {target}", self.method.name()),
            None => f.write_str(self.method.name()),
        }
    }
}

/// The OpenTelemetry name of a handler span.
struct HandlerName<'a> {
    tool: Option<&'a str>,
    prompt: Option<&'a str>,
    uri: Option<&'a str>,
}

impl fmt::Display for HandlerName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.tool, self.prompt, self.uri) {
            (Some(tool), _, _) => write!(f, "execute_tool {tool}"),
            (_, Some(prompt), _) => write!(f, "prompts/get {prompt}"),
            (_, _, Some(_)) => f.write_str("resources/read"),
            _ => f.write_str("completion/complete"),
        }
    }
}

/// A request id as `jsonrpc.request.id` wants it: the number, or the string without quotes.
pub(super) struct IdText<'a>(pub(super) &'a RequestId);

impl fmt::Display for IdText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => f.write_str(s),
        }
    }
}
