//! DPoP proofs seen by any instance, through Redis (features `redis` and `jwt`):
//! [`RedisReplayCache`].

use super::connection::Redis;
use super::timeouts::CACHE_TIMEOUT;
use crate::auth::dpop::SharedReplayCache;
use crate::registry::BoxFuture;
use std::time::Duration;

/// The DPoP proofs accepted by every instance on one Redis ([`Redis::dpop_replay_cache`]):
/// `SET key 1 NX PX ttl` under `<prefix>dpop:` and the proof's key in hex, so that a proof is
/// the first use on exactly one instance.
#[derive(Clone)]
pub struct RedisReplayCache {
    redis: Redis,
}

impl std::fmt::Debug for RedisReplayCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisReplayCache")
            .field("prefix", &self.redis.prefix)
            .finish()
    }
}

impl Redis {
    /// A DPoP `jti` replay cache shared by every instance on this Redis (features `redis` and
    /// `jwt`), for [`Dpop::shared_replay_cache`](crate::auth::dpop::Dpop::shared_replay_cache).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), mcp_runtime::BuildError> {
    /// use mcp_runtime::auth::dpop::Dpop;
    /// let redis = mcp_runtime::redis::Redis::connect("redis://127.0.0.1:6379/0").await?;
    /// let dpop = Dpop::allowed().shared_replay_cache(redis.dpop_replay_cache());
    /// # Ok(()) }
    /// ```
    pub fn dpop_replay_cache(&self) -> RedisReplayCache {
        RedisReplayCache {
            redis: self.clone(),
        }
    }
}

impl SharedReplayCache for RedisReplayCache {
    fn first_use(&self, key: [u8; 16], ttl: Duration) -> BoxFuture<'_, Option<bool>> {
        let name = self.redis.key_of("dpop", &key);
        let mut conn = self.redis.conn.clone();
        Box::pin(async move {
            let ms = ttl.as_millis().clamp(1, u64::MAX as u128) as u64;
            let mut command = ::redis::cmd("SET");
            command.arg(&name).arg(1).arg("NX").arg("PX").arg(ms);
            let set = command.query_async::<Option<String>>(&mut conn);
            match tokio::time::timeout(CACHE_TIMEOUT, set).await {
                Ok(Ok(answer)) => Some(answer.is_some()),
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "the DPoP replay cache in Redis failed");
                    None
                }
                Err(_) => None,
            }
        })
    }
}
