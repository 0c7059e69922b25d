//! The per-caller rate limit of the endpoint (off unless
//! [`HttpOptions::rate_limit`](super::HttpOptions::rate_limit) is set): token buckets
//! (the crate's GCRA, `gcra.rs`) keyed by the authenticated caller, or by the client's address
//! for anonymous requests. A request over the limit gets 429 with `Retry-After`.

use crate::context::Caller;
use crate::gcra::Gcra;
use crate::net::ClientNet;
use std::sync::Arc;
use std::time::{Duration, Instant};

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
    buckets: Gcra<Key>,
    /// The buckets' origin.
    started: Instant,
}

impl std::fmt::Debug for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limiter").finish_non_exhaustive()
    }
}

impl Limiter {
    /// `requests` per `per` for each caller, in bursts of up to `requests`.
    pub(crate) fn new(requests: u32, per: Duration) -> Limiter {
        Limiter {
            buckets: Gcra::spread(requests, per),
            started: Instant::now(),
        }
    }

    /// Takes one request from the bucket of `caller` (or of the `client`'s address, as
    /// `client.rs` decided it); how long to wait when it is empty. Buckets that have refilled
    /// are the same as no bucket: every few thousand checks, they are forgotten.
    pub(crate) fn check(
        &self,
        caller: Option<&Caller>,
        client: Option<ClientNet>,
    ) -> Result<(), Duration> {
        self.buckets
            .check(Self::key(caller, client), self.started.elapsed())
    }

    /// The bucket of `caller`, else of the `client`'s address.
    fn key(caller: Option<&Caller>, client: Option<ClientNet>) -> Key {
        match caller {
            Some(c) => Key::Caller(c.binding_key()),
            None => client.map_or(Key::Anonymous, Key::Address),
        }
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

    #[test]
    fn the_wait_is_the_time_to_the_next_request() {
        // Two requests a minute: one back every 30 s.
        let limiter = Limiter::new(2, Duration::from_secs(60));
        let secs = Duration::from_secs;
        let take = |key: Key, at: u64| limiter.buckets.check(key, secs(at));
        let alice = || Limiter::key(Some(&Caller::new("alice")), None);
        let nobody = || Limiter::key(None, None);
        assert!(take(alice(), 0).is_ok());
        assert!(take(alice(), 0).is_ok());
        assert_eq!(take(alice(), 10), Err(secs(20)));
        assert!(take(alice(), 30).is_ok());
        assert_eq!(take(alice(), 30), Err(secs(30)));
        // Anonymous clients without an address share one bucket, apart from callers'.
        assert_eq!(nobody(), Key::Anonymous);
        assert!(take(nobody(), 30).is_ok());
        assert!(take(nobody(), 30).is_ok());
        assert_eq!(take(nobody(), 30), Err(secs(30)));
    }
}
