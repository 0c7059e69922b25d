//! The per-caller rate limit of the endpoint (off unless
//! [`HttpOptions::rate_limit`](super::HttpOptions::rate_limit) is set): token buckets
//! (`governor`'s GCRA) keyed by the authenticated caller, or by the client's address for
//! anonymous requests. A request over the limit gets 429 with `Retry-After`.

use crate::context::Caller;
use crate::net::ClientNet;
use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::HashMapStateStore;
use governor::{Quota, RateLimiter};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// Checks between two sweeps of idle buckets.
const SWEEP_EVERY: u32 = 4096;

/// Whose bucket a request draws from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    /// An authenticated caller (issuer and subject).
    Caller(Arc<str>),
    /// An anonymous client, by address (an IPv6 one by its network).
    Address(ClientNet),
    /// An anonymous client whose address is unknown.
    Anonymous,
}

/// The limiter of one endpoint.
pub(crate) struct Limiter {
    buckets: RateLimiter<Key, HashMapStateStore<Key>, DefaultClock>,
    clock: DefaultClock,
    checks: AtomicU32,
}

impl std::fmt::Debug for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limiter").finish_non_exhaustive()
    }
}

impl Limiter {
    /// `requests` per `per` for each caller, in bursts of up to `requests`.
    pub(crate) fn new(requests: u32, per: Duration) -> Limiter {
        let burst = NonZeroU32::new(requests.max(1)).unwrap_or(NonZeroU32::MIN);
        let period = (per / burst.get()).max(Duration::from_nanos(1));
        let quota = Quota::with_period(period)
            .unwrap_or_else(|| Quota::per_second(burst))
            .allow_burst(burst);
        Limiter {
            buckets: RateLimiter::hashmap(quota),
            clock: DefaultClock::default(),
            checks: AtomicU32::new(0),
        }
    }

    /// Takes one request from the bucket of `caller` (or of the `client`'s address, as
    /// `client.rs` decided it); how long to wait when it is empty.
    pub(crate) fn check(
        &self,
        caller: Option<&Caller>,
        client: Option<ClientNet>,
    ) -> Result<(), Duration> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            // Buckets that have refilled are the same as no bucket.
            self.buckets.retain_recent();
            self.buckets.shrink_to_fit();
        }
        let key = match caller {
            Some(c) => Key::Caller(c.binding_key()),
            None => client.map_or(Key::Anonymous, Key::Address),
        };
        self.buckets
            .check_key(&key)
            .map_err(|not_until| not_until.wait_time_from(self.clock.now()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_per_caller_and_per_address() {
        let limiter = Limiter::new(2, Duration::from_secs(60));
        let alice = Caller::new("alice");
        let bob = Caller::new("bob");
        assert!(limiter.check(Some(&alice), None).is_ok());
        assert!(limiter.check(Some(&alice), None).is_ok());
        let wait = limiter.check(Some(&alice), None).unwrap_err();
        assert!(wait > Duration::from_secs(20) && wait <= Duration::from_secs(30));
        assert!(limiter.check(Some(&bob), None).is_ok());
        let at = |ip: &str| Some(ClientNet::new(ip.parse().unwrap(), 64));
        assert!(limiter.check(None, at("10.0.0.1")).is_ok());
        assert!(limiter.check(None, at("10.0.0.1")).is_ok());
        assert!(limiter.check(None, at("10.0.0.1")).is_err());
        assert!(limiter.check(None, at("10.0.0.2")).is_ok());
        // One IPv6 network is one client, whatever address it takes.
        assert!(limiter.check(None, at("2001:db8::1")).is_ok());
        assert!(limiter.check(None, at("2001:db8::2")).is_ok());
        assert!(limiter.check(None, at("2001:db8::3")).is_err());
        assert!(limiter.check(None, at("2001:db8:0:1::1")).is_ok());
    }
}
