//! [`RateLimit`]: tool calls per caller, as token buckets.

use crate::dispatch::{Layer, LayerResult, McpRequest, Next};
use crate::protocol::Method;
use crate::registry::BoxFuture;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;
use tokio::time::Instant;

/// Buckets kept before idle (full) ones are dropped.
const PRUNE_ABOVE: usize = 4096;

/// A layer that limits each caller to `calls` tool calls per `per` (a token bucket: up to
/// `calls` at once, refilled evenly over `per`). A call over the limit answers with a tool
/// execution error (`isError: true`) saying when to retry, so that the model can wait; the
/// tool does not run.
///
/// Callers are told apart by [`Caller::subject`](crate::Caller::subject); requests without an
/// authenticated caller share one bucket. Only `tools/call` of registered tools is limited (the
/// spec asks servers to rate-limit tool invocations); lists and reads are not.
///
/// ```
/// use mcp_runtime::layers::RateLimit;
/// use std::time::Duration;
/// let limit = RateLimit::per_caller(100, Duration::from_secs(60));
/// let server = mcp_runtime::Server::builder().layer(limit).build().unwrap();
/// ```
#[derive(Debug)]
pub struct RateLimit {
    calls: u32,
    per: Duration,
    buckets: Mutex<HashMap<String, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

impl RateLimit {
    /// At most `calls` tool calls per `per` for each caller (`calls` at least 1).
    pub fn per_caller(calls: u32, per: Duration) -> RateLimit {
        RateLimit {
            calls: calls.max(1),
            per: per.max(Duration::from_millis(1)),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a token from `caller`'s bucket; how long to wait when there is none.
    fn take(&self, caller: &str, now: Instant) -> Result<(), Duration> {
        let capacity = f64::from(self.calls);
        let rate = capacity / self.per.as_secs_f64();
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() > PRUNE_ABOVE {
            // A bucket that has refilled is the same as no bucket.
            buckets.retain(|_, b| b.tokens + rate * (now - b.updated).as_secs_f64() < capacity);
        }
        let bucket = buckets.entry(caller.to_owned()).or_insert(Bucket {
            tokens: capacity,
            updated: now,
        });
        let refilled = bucket.tokens + rate * (now - bucket.updated).as_secs_f64();
        bucket.tokens = refilled.min(capacity);
        bucket.updated = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / rate))
        }
    }
}

impl Layer for RateLimit {
    fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'_, LayerResult> {
        if request.method() != Method::ToolsCall || !request.has_handler() {
            return next.run(request);
        }
        let caller = request.caller().map_or("", |c| c.subject.as_str());
        match self.take(caller, Instant::now()) {
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

    #[test]
    fn a_bucket_empties_and_refills() {
        let limit = RateLimit::per_caller(2, Duration::from_secs(10));
        let t0 = Instant::now();
        assert!(limit.take("a", t0).is_ok());
        assert!(limit.take("a", t0).is_ok());
        let wait = limit.take("a", t0).unwrap_err();
        assert_eq!(wait, Duration::from_secs(5));
        // Another caller has a bucket of its own.
        assert!(limit.take("b", t0).is_ok());
        // Half the period later one token is back, and only one.
        let later = t0 + Duration::from_secs(5);
        assert!(limit.take("a", later).is_ok());
        assert!(limit.take("a", later).is_err());
    }

    #[test]
    fn refilled_buckets_are_pruned() {
        let limit = RateLimit::per_caller(1, Duration::from_millis(10));
        let t0 = Instant::now();
        for i in 0..=PRUNE_ABOVE {
            assert!(limit.take(&i.to_string(), t0).is_ok());
        }
        assert!(limit.take("late", t0 + Duration::from_secs(1)).is_ok());
        assert_eq!(limit.buckets.lock().unwrap().len(), 1);
    }
}
