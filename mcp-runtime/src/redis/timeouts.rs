//! How long a store operation ([`STORE_TIMEOUT`], [`bounded`]) and a shared cache's read or
//! write ([`CACHE_TIMEOUT`]) may wait on Redis.

use crate::error::McpError;
use std::time::Duration;

/// Longest one operation of the task or session store may take, retries included. While
/// Redis is down, the connection manager holds each command through its reconnection attempts
/// (six, backing off from 100 ms, each with its own connection timeout): a legacy `initialize`
/// waited 9.5 s for its session to be stored. A client is better told at once that the store is
/// unavailable (`-32603`, as for any failure of Redis); a healthy Redis answers in well under a
/// millisecond, and a compare-and-set that lost its race retries within a few.
pub(super) const STORE_TIMEOUT: Duration = Duration::from_secs(1);

/// Longest a read or write of a shared cache (token introspection answers, DPoP proofs seen)
/// may take: past it the check goes on without the cache, rather than wait on a Redis that is
/// away.
#[cfg(feature = "jwt")]
pub(super) const CACHE_TIMEOUT: Duration = Duration::from_millis(500);

/// `op` (one store operation), failed with the store's `-32603` error when it takes longer than
/// [`STORE_TIMEOUT`].
pub(super) async fn bounded<T>(
    op: impl Future<Output = Result<T, McpError>>,
) -> Result<T, McpError> {
    match tokio::time::timeout(STORE_TIMEOUT, op).await {
        Ok(done) => done,
        Err(_) => Err(McpError::internal(format!(
            "the Redis store failed: no answer within {} ms (is Redis reachable?)",
            STORE_TIMEOUT.as_millis()
        ))),
    }
}
