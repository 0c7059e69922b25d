//! The per-caller rate limit of the endpoint (off unless
//! [`HttpOptions::rate_limit`](super::HttpOptions::rate_limit) is set): token buckets
//! (`governor`'s GCRA) keyed by the authenticated caller, or by the client's address for
//! anonymous requests. A request over the limit gets 429 with `Retry-After`.

use crate::context::Caller;
use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::HashMapStateStore;
use governor::{Quota, RateLimiter};
use http::HeaderMap;
use std::net::{IpAddr, SocketAddr};
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
    /// An anonymous client, by address.
    Address(IpAddr),
    /// An anonymous client whose address is unknown.
    Anonymous,
}

/// The limiter of one endpoint.
pub(crate) struct Limiter {
    buckets: RateLimiter<Key, HashMapStateStore<Key>, DefaultClock>,
    clock: DefaultClock,
    trust_forwarded: bool,
    checks: AtomicU32,
}

impl std::fmt::Debug for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limiter").finish_non_exhaustive()
    }
}

impl Limiter {
    /// `requests` per `per` for each caller, in bursts of up to `requests`.
    pub(crate) fn new(requests: u32, per: Duration, trust_forwarded: bool) -> Limiter {
        let burst = NonZeroU32::new(requests.max(1)).unwrap_or(NonZeroU32::MIN);
        let period = (per / burst.get()).max(Duration::from_nanos(1));
        let quota = Quota::with_period(period)
            .unwrap_or_else(|| Quota::per_second(burst))
            .allow_burst(burst);
        Limiter {
            buckets: RateLimiter::hashmap(quota),
            clock: DefaultClock::default(),
            trust_forwarded,
            checks: AtomicU32::new(0),
        }
    }

    /// Takes one request from the bucket of `caller` (or of the client's address); how long to
    /// wait when it is empty.
    pub(crate) fn check(
        &self,
        caller: Option<&Caller>,
        headers: &HeaderMap,
        peer: Option<SocketAddr>,
    ) -> Result<(), Duration> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            // Buckets that have refilled are the same as no bucket.
            self.buckets.retain_recent();
            self.buckets.shrink_to_fit();
        }
        let key = match caller {
            Some(c) => Key::Caller(c.binding_key()),
            None => self
                .client_address(headers, peer)
                .map_or(Key::Anonymous, Key::Address),
        };
        self.buckets
            .check_key(&key)
            .map_err(|not_until| not_until.wait_time_from(self.clock.now()))
    }

    fn client_address(&self, headers: &HeaderMap, peer: Option<SocketAddr>) -> Option<IpAddr> {
        client_address(self.trust_forwarded, headers, peer)
    }
}

/// The client's address: the peer's, or (when the proxy in front is trusted) the last address
/// of `X-Forwarded-For`, the one that proxy added.
pub(super) fn client_address(
    trust_forwarded: bool,
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
) -> Option<IpAddr> {
    if trust_forwarded
        && let Some(ip) = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|a| a.trim().parse::<IpAddr>().ok())
            .next_back()
    {
        return Some(ip);
    }
    peer.map(|addr| addr.ip())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_per_caller_and_per_address() {
        let limiter = Limiter::new(2, Duration::from_secs(60), false);
        let alice = Caller::new("alice");
        let bob = Caller::new("bob");
        let none = HeaderMap::new();
        assert!(limiter.check(Some(&alice), &none, None).is_ok());
        assert!(limiter.check(Some(&alice), &none, None).is_ok());
        let wait = limiter.check(Some(&alice), &none, None).unwrap_err();
        assert!(wait > Duration::from_secs(20) && wait <= Duration::from_secs(30));
        assert!(limiter.check(Some(&bob), &none, None).is_ok());
        let peer = SocketAddr::from(([10, 0, 0, 1], 5000));
        let other = SocketAddr::from(([10, 0, 0, 2], 5000));
        assert!(limiter.check(None, &none, Some(peer)).is_ok());
        assert!(limiter.check(None, &none, Some(peer)).is_ok());
        assert!(limiter.check(None, &none, Some(peer)).is_err());
        assert!(limiter.check(None, &none, Some(other)).is_ok());
    }

    #[test]
    fn forwarded_addresses_count_only_when_trusted() {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", "203.0.113.9, 10.1.1.1".parse().unwrap());
        let peer = SocketAddr::from(([127, 0, 0, 1], 1));
        let trusting = Limiter::new(1, Duration::from_secs(60), true);
        assert_eq!(
            trusting.client_address(&headers, Some(peer)),
            Some("10.1.1.1".parse().unwrap())
        );
        let wary = Limiter::new(1, Duration::from_secs(60), false);
        assert_eq!(
            wary.client_address(&headers, Some(peer)),
            Some("127.0.0.1".parse().unwrap())
        );
    }
}
