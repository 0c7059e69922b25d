//! The metrics a server records through the `metrics` facade when
//! `ServerBuilder::metrics` is on (the `metrics` feature): install any `metrics` recorder
//! (Prometheus, StatsD, the `otel` feature's OTLP bridge, a test's own) to collect them.
//!
//! Names and labels follow the OpenTelemetry semantic conventions for MCP
//! (`open-telemetry/semantic-conventions-genai` v0.1.0, `docs/gen-ai/mcp.md`) where they define
//! one (`mcp.server.operation.duration` and its attributes); the others are this crate's own,
//! named in the same namespace.
//!
//! | metric | kind | labels |
//! |---|---|---|
//! | [`OPERATION_DURATION`] | histogram, seconds | method, primitive, transport, `error.type`, `rpc.response.status_code` |
//! | [`REQUESTS`] | counter | method, primitive, transport |
//! | [`ERRORS`] | counter | method, primitive, `error.type`, `rpc.response.status_code` |
//! | [`LISTEN_STREAMS`] | gauge | – |
//! | [`MRTR_ROUNDS`] | counter | method, primitive, [`MRTR_OUTCOME`] |
//!
//! Labels: `mcp.method.name` (`_OTHER` for a request whose method is not one of this revision),
//! the primitive as `gen_ai.tool.name` or `gen_ai.prompt.name` (only for a registered tool or
//! prompt: a name a client made up never becomes a label; resource URIs are never labels),
//! `network.transport` (`tcp` for HTTP, `pipe` for stdio, absent in process), `error.type`
//! (the JSON-RPC code, `tool_error` for a result with `isError: true`, `cancelled` for a
//! request the client gave up on) and `rpc.response.status_code` (the JSON-RPC error code).
//!
//! ```
//! use mcp_runtime::dispatch::metrics;
//! assert_eq!(metrics::OPERATION_DURATION, "mcp.server.operation.duration");
//! ```

use super::encode::Response;
#[cfg(feature = "metrics")]
use metrics::{Label, Unit};
use std::sync::Arc;

/// Histogram of request durations in seconds, from the request read to its answer
/// (semantic conventions: `mcp.server.operation.duration`). Rejected requests count too.
pub const OPERATION_DURATION: &str = "mcp.server.operation.duration";
/// Counter of requests answered, rejected ones included.
pub const REQUESTS: &str = "mcp.server.requests";
/// Counter of requests that failed: a JSON-RPC error, a rejection, a tool result with
/// `isError: true`, or a request the client gave up on.
pub const ERRORS: &str = "mcp.server.errors";
/// Gauge of the `subscriptions/listen` streams open now.
pub const LISTEN_STREAMS: &str = "mcp.server.listen.streams";
/// Counter of rounds of multi round-trip requests: requests that asked for client input
/// (`input_required`) or that brought answers or a `requestState`.
pub const MRTR_ROUNDS: &str = "mcp.server.mrtr.rounds";
/// The label of [`MRTR_ROUNDS`] saying how the round ended: `input_required` (it asked for
/// more), `complete`, or `error`.
pub const MRTR_OUTCOME: &str = "mcp.mrtr.outcome";

/// Describes the metrics to the installed recorder (units and help texts).
#[cfg(feature = "metrics")]
pub(crate) fn describe() {
    metrics::describe_histogram!(
        OPERATION_DURATION,
        Unit::Seconds,
        "Duration of MCP requests as observed by the server, from the request read to its answer"
    );
    metrics::describe_counter!(REQUESTS, Unit::Count, "MCP requests answered");
    metrics::describe_counter!(ERRORS, Unit::Count, "MCP requests that failed");
    metrics::describe_gauge!(
        LISTEN_STREAMS,
        Unit::Count,
        "subscriptions/listen streams open"
    );
    metrics::describe_counter!(
        MRTR_ROUNDS,
        Unit::Count,
        "Rounds of multi round-trip requests"
    );
}

/// What the labels of one request are made of.
// Without the `metrics` feature none is made (`Config::metrics` stays off) and none is read.
#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
#[derive(Debug, Clone)]
pub(crate) struct Labels {
    /// The method, or `_OTHER`.
    pub(crate) method: &'static str,
    /// The registered primitive: its label key and name.
    pub(crate) primitive: Option<(&'static str, Arc<str>)>,
    pub(crate) transport: Option<&'static str>,
}

#[cfg(feature = "metrics")]
impl Labels {
    fn base(&self) -> Vec<Label> {
        let mut labels = Vec::with_capacity(5);
        labels.push(Label::new("mcp.method.name", self.method));
        if let Some((key, name)) = &self.primitive {
            labels.push(Label::new(*key, name.clone()));
        }
        labels
    }
}

/// How a request ended, for labels and spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// A result (`input_required` ones included).
    Result { input_required: bool },
    /// A tool result with `isError: true`.
    ToolError,
    /// A JSON-RPC error.
    Error(i32),
    /// The client went away before the answer.
    Cancelled,
}

impl Ending {
    pub(crate) fn of(response: &Response) -> Ending {
        match response.error_code() {
            Some(code) => Ending::Error(code),
            None if response.is_tool_error() => Ending::ToolError,
            None => Ending::Result {
                input_required: response.is_input_required(),
            },
        }
    }

    /// `error.type`, when the request failed.
    pub(crate) fn error_type(self) -> Option<&'static str> {
        match self {
            Ending::Result { .. } => None,
            Ending::ToolError => Some("tool_error"),
            Ending::Cancelled => Some("cancelled"),
            Ending::Error(code) => Some(code_text(code)),
        }
    }

    /// `rpc.response.status_code`, for a JSON-RPC error.
    pub(crate) fn code(self) -> Option<i32> {
        match self {
            Ending::Error(code) => Some(code),
            _ => None,
        }
    }
}

/// The code as text; the codes of this revision without an allocation.
fn code_text(code: i32) -> &'static str {
    match code {
        -32700 => "-32700",
        -32600 => "-32600",
        -32601 => "-32601",
        -32602 => "-32602",
        -32603 => "-32603",
        -32020 => "-32020",
        -32021 => "-32021",
        -32022 => "-32022",
        // Any other code is the application's: one label value for all of them.
        _ => "_OTHER",
    }
}

/// Records one answered request. `mrtr`: whether it brought answers or a state.
#[cfg(feature = "metrics")]
pub(crate) fn record(labels: &Labels, ending: Ending, seconds: f64, mrtr: bool) {
    let base = labels.base();
    let mut with_transport = base.clone();
    if let Some(transport) = labels.transport {
        with_transport.push(Label::new("network.transport", transport));
    }
    metrics::counter!(REQUESTS, with_transport.clone()).increment(1);
    let mut error_labels = Vec::new();
    if let Some(error_type) = ending.error_type() {
        error_labels.push(Label::new("error.type", error_type));
        if let Some(code) = ending.code() {
            error_labels.push(Label::new("rpc.response.status_code", code_text(code)));
        }
    }
    let mut duration = with_transport;
    duration.extend(error_labels.iter().cloned());
    metrics::histogram!(OPERATION_DURATION, duration).record(seconds);
    if !error_labels.is_empty() {
        let mut errors = base.clone();
        errors.extend(error_labels);
        metrics::counter!(ERRORS, errors).increment(1);
    }
    let outcome = match ending {
        Ending::Result {
            input_required: true,
        } => "input_required",
        _ if !mrtr => return,
        Ending::Result { .. } | Ending::ToolError => "complete",
        Ending::Error(_) | Ending::Cancelled => "error",
    };
    let mut round = base;
    round.push(Label::new(MRTR_OUTCOME, outcome));
    metrics::counter!(MRTR_ROUNDS, round).increment(1);
}

/// Records a request refused before its method ran (it could not be read, or failed a check
/// every request passes).
#[cfg(feature = "metrics")]
pub(crate) fn record_rejection(
    method: Option<&'static str>,
    code: i32,
    transport: Option<&'static str>,
    seconds: f64,
) {
    let labels = Labels {
        method: method.unwrap_or("_OTHER"),
        primitive: None,
        transport,
    };
    record(&labels, Ending::Error(code), seconds, false);
}

/// One open `subscriptions/listen` stream on the [`LISTEN_STREAMS`] gauge, for as long as it
/// lives.
#[cfg(feature = "metrics")]
pub(crate) struct ListenStream(());

#[cfg(feature = "metrics")]
impl ListenStream {
    pub(crate) fn open() -> ListenStream {
        metrics::gauge!(LISTEN_STREAMS).increment(1.0);
        ListenStream(())
    }
}

#[cfg(feature = "metrics")]
impl Drop for ListenStream {
    fn drop(&mut self) {
        metrics::gauge!(LISTEN_STREAMS).decrement(1.0);
    }
}
