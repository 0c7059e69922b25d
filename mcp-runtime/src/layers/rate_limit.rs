//! [`RateLimit`]: tool calls per caller, as token buckets (`governor`'s GCRA, as the
//! endpoint's own limit in `transport/http/rate.rs`).

use crate::dispatch::layer::{Layer, LayerResult, McpRequest, Next};
use crate::protocol::Method;
use crate::registry::BoxFuture;
use governor::clock::Clock;
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::HashMapStateStore;
use governor::{Quota, RateLimiter};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// Checks between two sweeps of the buckets that have refilled (such a bucket is the same as
/// none, so the map only holds callers seen recently).
const SWEEP_EVERY: u32 = 4096;

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
    buckets: Buckets<TokioClock>,
}

impl std::fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimit")
            .field("calls", &self.calls)
            .field("per", &self.per)
            .finish_non_exhaustive()
    }
}

/// Tokio's clock, as time since the layer was made: a runtime with paused time (tests) sees
/// buckets refill as its time advances.
#[derive(Clone)]
struct TokioClock(tokio::time::Instant);

impl Clock for TokioClock {
    type Instant = Duration;
    fn now(&self) -> Duration {
        self.0.elapsed()
    }
}

/// governor's keyed limiter on clock `C`.
type Keyed<C> =
    RateLimiter<Arc<str>, HashMapStateStore<Arc<str>>, C, NoOpMiddleware<<C as Clock>::Instant>>;

/// One bucket per caller key, on clock `C` (a fake one in the tests).
struct Buckets<C: Clock> {
    limiter: Keyed<C>,
    clock: C,
    checks: AtomicU32,
}

impl<C: Clock + Clone> Buckets<C> {
    fn new(calls: u32, per: Duration, clock: C) -> Buckets<C> {
        let burst = NonZeroU32::new(calls).unwrap_or(NonZeroU32::MIN);
        let period = (per / burst.get()).max(Duration::from_nanos(1));
        let quota = Quota::with_period(period)
            .unwrap_or_else(|| Quota::per_second(burst))
            .allow_burst(burst);
        Buckets {
            limiter: RateLimiter::hashmap_with_clock(quota, clock.clone()),
            clock,
            checks: AtomicU32::new(0),
        }
    }

    /// Takes a token from `caller`'s bucket; how long to wait when there is none.
    fn take(&self, caller: &Arc<str>) -> Result<(), Duration> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.limiter.retain_recent();
            self.limiter.shrink_to_fit();
        }
        self.limiter
            .check_key(caller)
            .map(|_| ())
            .map_err(|not_until| not_until.wait_time_from(self.clock.now()))
    }
}

impl RateLimit {
    /// At most `calls` tool calls per `per` for each caller (`calls` at least 1).
    pub fn per_caller(calls: u32, per: Duration) -> RateLimit {
        let calls = calls.max(1);
        let per = per.max(Duration::from_millis(1));
        RateLimit {
            calls,
            per,
            buckets: Buckets::new(calls, per, TokioClock(tokio::time::Instant::now())),
        }
    }
}

impl Layer for RateLimit {
    fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'_, LayerResult> {
        if request.method() != Method::ToolsCall || !request.has_handler() {
            return next.run(request);
        }
        let caller: Arc<str> = request
            .caller()
            .map_or_else(|| Arc::from(""), |c| c.binding_key());
        match self.buckets.take(&caller) {
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
    use governor::clock::FakeRelativeClock;

    #[test]
    fn a_bucket_empties_and_refills() {
        let clock = FakeRelativeClock::default();
        let limit = Buckets::new(2, Duration::from_secs(10), clock.clone());
        let (a, b): (Arc<str>, Arc<str>) = (Arc::from("a"), Arc::from("b"));
        assert!(limit.take(&a).is_ok());
        assert!(limit.take(&a).is_ok());
        assert_eq!(limit.take(&a).unwrap_err(), Duration::from_secs(5));
        // Another caller has a bucket of its own.
        assert!(limit.take(&b).is_ok());
        // Half the period later one token is back, and only one.
        clock.advance(Duration::from_secs(5));
        assert!(limit.take(&a).is_ok());
        assert!(limit.take(&a).is_err());
    }

    #[test]
    fn refilled_buckets_are_swept() {
        let clock = FakeRelativeClock::default();
        let limit = Buckets::new(1, Duration::from_millis(10), clock.clone());
        for i in 0..SWEEP_EVERY - 1 {
            assert!(limit.take(&Arc::from(i.to_string())).is_ok());
        }
        assert_eq!(limit.limiter.len(), (SWEEP_EVERY - 1) as usize);
        clock.advance(Duration::from_secs(1));
        // The next check sweeps first: every bucket has refilled, only the late one is kept.
        assert!(limit.take(&Arc::from("late")).is_ok());
        assert_eq!(limit.limiter.len(), 1);
    }
}
