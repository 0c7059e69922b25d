//! One request observed: its span and its metrics, finished when its answer goes out (or the
//! client gives up). Made only when a subscriber records the span or metrics are on, so a
//! server that observes nothing pays nothing per request (BENCHMARKS.md, "Lazy span").

use super::encode::Response;
#[cfg(feature = "metrics")]
use super::metrics;
use super::metrics::{Ending, Labels};
use super::trace;
use crate::context::ContextInner;
use serde_json::value::RawValue;
use std::time::Instant;
use tracing::Span;

/// What is watched of one request.
pub(crate) struct Observation {
    /// The request span (may be disabled when only metrics are on).
    span: Span,
    /// When the request was read.
    start: Instant,
    /// The metrics' labels, when metrics are on.
    labels: Option<Labels>,
    /// Whether the result goes on the span (a `tools/call` when the server records payloads:
    /// `ServerBuilder::trace_payloads`).
    record_result: bool,
}

impl Observation {
    /// An observation of a request read at `start`; `None` when neither the span nor metrics
    /// want it.
    pub(crate) fn new(
        span: Span,
        start: Option<Instant>,
        labels: Option<Labels>,
        record_result: bool,
    ) -> Option<Box<Observation>> {
        if span.is_disabled() && labels.is_none() {
            return None;
        }
        Some(Box::new(Observation {
            span,
            start: start.unwrap_or_else(Instant::now),
            labels,
            record_result,
        }))
    }

    /// Names the registered primitive in the metrics' labels.
    pub(crate) fn set_primitive(&mut self, key: &'static str, name: std::sync::Arc<str>) {
        if let Some(labels) = &mut self.labels {
            labels.primitive = Some((key, name));
        }
    }

    /// The request was answered with `response`.
    pub(crate) fn finish(self, response: &Response, request: Option<&ContextInner>) {
        if self.record_result && !self.span.is_disabled() && !response.is_error() {
            record_result(&self.span, response);
        }
        self.end(Ending::of(response), request);
    }

    /// The client went away before the answer.
    pub(crate) fn cancelled(self, request: Option<&ContextInner>) {
        self.end(Ending::Cancelled, request);
    }

    fn end(self, ending: Ending, request: Option<&ContextInner>) {
        let seconds = self.start.elapsed().as_secs_f64();
        trace::record_outcome(
            &self.span,
            ending.error_type(),
            ending.code(),
            Some(seconds),
        );
        #[cfg(feature = "metrics")]
        if let Some(labels) = &self.labels {
            let mrtr = request
                .and_then(|r| r.input.get())
                .is_some_and(|input| input.previous.is_some() || input.responses.len() > 0);
            metrics::record(labels, ending, seconds, mrtr);
        }
        #[cfg(not(feature = "metrics"))]
        let _ = request;
    }
}

/// Records the `result` member of the answer as `gen_ai.tool.call.result` (opted in only).
fn record_result(span: &Span, response: &Response) {
    #[derive(serde::Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        result: Option<&'a RawValue>,
    }
    if let Ok(Envelope {
        result: Some(result),
    }) = crate::json::from_bytes::<Envelope<'_>>(&response.body)
    {
        span.record("gen_ai.tool.call.result", result.get());
    }
}
