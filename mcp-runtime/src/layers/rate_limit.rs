//! [`RateLimit`]: tool calls per caller, as token buckets (the crate's GCRA, `gcra.rs`, as
//! the endpoint's own limit in `transport/http/rate.rs`).

use crate::dispatch::layer::{Layer, LayerResult, McpRequest, Next};
use crate::gcra::Gcra;
use crate::protocol::Method;
use crate::registry::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

/// A layer that limits each caller to `calls` tool calls per `per` (a token bucket: up to
/// `calls` at once, refilled evenly over `per`). A call over the limit answers with a tool
/// execution error (`isError: true`) saying when to retry, so that the model can wait; the
/// tool does not run.
///
/// Callers are told apart by their issuer and [`Caller::subject`](crate::Caller::subject);
/// requests without an authenticated caller share one bucket. Only `tools/call` of registered
/// tools is limited (the spec asks servers to rate-limit tool invocations); lists and reads are
/// not.
///
/// ```
/// use mcp_runtime::layers::RateLimit;
/// use std::time::Duration;
/// let limit = RateLimit::per_caller(100, Duration::from_secs(60));
/// let server = mcp_runtime::Server::builder().layer(limit).build().unwrap();
/// ```
pub struct RateLimit {
    calls: u32,
    per: Duration,
    /// One bucket per caller key.
    buckets: Gcra<Arc<str>>,
    /// The buckets' origin, on tokio's clock: a runtime with paused time (tests) sees buckets
    /// refill as its time advances.
    started: tokio::time::Instant,
}

impl std::fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimit")
            .field("calls", &self.calls)
            .field("per", &self.per)
            .finish_non_exhaustive()
    }
}

impl RateLimit {
    /// At most `calls` tool calls per `per` for each caller (`calls` at least 1).
    #[inline]
    pub fn per_caller(calls: u32, per: Duration) -> RateLimit {
        let calls = calls.max(1);
        let per = per.max(Duration::from_millis(1));
        RateLimit {
            calls,
            per,
            buckets: Gcra::spread(calls, per),
            started: tokio::time::Instant::now(),
        }
    }
}

impl Layer for RateLimit {
    #[inline]
    fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'_, LayerResult> {
        if request.method() != Method::ToolsCall || !request.has_handler() {
            return next.run(request);
        }
        let caller: Arc<str> = request
            .caller()
            .map_or_else(|| Arc::from(""), |c| c.binding_key());
        match self.buckets.check(caller, self.started.elapsed()) {
            Ok(()) => next.run(request),
            Err(wait) => {
                tracing::debug!(
                    target: "mcp_runtime::request",
                    retry_ms = wait.as_millis() as u64,
                    gen_ai.tool.name = request.name(),
                    "rate limited"
                );
                let answer = request.tool_error(format!(
                    "Rate limit exceeded: at most {} tool calls per {} ms for each caller; retry in {} ms.",
                    self.calls,
                    self.per.as_millis(),
                    wait.as_millis().max(1)
                ));
                Box::pin(std::future::ready(Ok(answer)))
            }
        }
    }

    fn wants(&self, method: Method, _: Option<&str>) -> bool {
        method == Method::ToolsCall
    }

    fn name(&self) -> &str {
        "RateLimit"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gcra::SWEEP_EVERY;

    #[test]
    fn a_bucket_empties_and_refills() {
        let limit = RateLimit::per_caller(2, Duration::from_secs(10));
        let take =
            |who: &str, at: u64| limit.buckets.check(Arc::from(who), Duration::from_secs(at));
        assert!(take("a", 0).is_ok());
        assert!(take("a", 0).is_ok());
        assert_eq!(take("a", 0).unwrap_err(), Duration::from_secs(5));
        // Another caller has a bucket of its own.
        assert!(take("b", 0).is_ok());
        // Half the period later one token is back, and only one.
        assert!(take("a", 5).is_ok());
        assert!(take("a", 5).is_err());
    }

    #[test]
    fn refilled_buckets_are_swept() {
        let limit = RateLimit::per_caller(1, Duration::from_millis(10));
        let take = |who: &str, at: Duration| limit.buckets.check(Arc::from(who), at);
        for i in 0..SWEEP_EVERY - 1 {
            assert!(take(&i.to_string(), Duration::ZERO).is_ok());
        }
        assert_eq!(limit.buckets.len(), (SWEEP_EVERY - 1) as usize);
        // The next check sweeps first: every bucket has refilled, only the late one is kept.
        assert!(take("late", Duration::from_secs(1)).is_ok());
        assert_eq!(limit.buckets.len(), 1);
    }

    #[test]
    fn the_limits_are_at_least_one_call_and_one_millisecond() {
        let limit = RateLimit::per_caller(0, Duration::ZERO);
        assert_eq!((limit.calls, limit.per), (1, Duration::from_millis(1)));
        let take = |at: u64| {
            limit
                .buckets
                .check(Arc::from(""), Duration::from_micros(at))
        };
        assert!(take(0).is_ok());
        assert_eq!(take(0), Err(Duration::from_millis(1)));
        assert!(take(1000).is_ok());
        // A window no clock reaches: one call, then a wait of centuries, no overflow.
        let limit = RateLimit::per_caller(1, Duration::MAX);
        assert!(limit.buckets.check(Arc::from(""), Duration::ZERO).is_ok());
        let wait = limit
            .buckets
            .check(Arc::from(""), Duration::ZERO)
            .unwrap_err();
        assert!(wait > Duration::from_secs(200 * 365 * 86_400), "{wait:?}");
    }
}
