//! Token introspection answers shared by the instances through Redis (features `redis` and
//! `jwt`): [`RedisIntrospectionCache`].

use super::connection::Redis;
use super::timeouts::CACHE_TIMEOUT;
use crate::auth::introspect::SharedIntrospectionCache;
use crate::registry::BoxFuture;
use serde_json::{Map, Value};
use std::time::Duration;

/// Introspection answers shared by the instances through Redis
/// ([`Redis::introspection_cache`]): `SET key answer PX ttl` under `<prefix>introspect:`
/// and the token's SHA-256 in hex. A Redis that does not answer within half a second is
/// passed over: the authorization server is asked instead.
#[derive(Clone)]
pub struct RedisIntrospectionCache {
    redis: Redis,
}

impl std::fmt::Debug for RedisIntrospectionCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisIntrospectionCache")
            .field("prefix", &self.redis.prefix)
            .finish()
    }
}

impl Redis {
    /// A cache of token introspection answers shared by every instance on this Redis
    /// (features `redis` and `jwt`), for
    /// [`IntrospectionVerifierBuilder::shared_cache`](crate::auth::introspect::IntrospectionVerifierBuilder::shared_cache).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), mcp_runtime::BuildError> {
    /// use mcp_runtime::auth::introspect::IntrospectionVerifier;
    /// use std::time::Duration;
    /// let redis = mcp_runtime::redis::Redis::connect("redis://127.0.0.1:6379/0").await?;
    /// let verifier = IntrospectionVerifier::builder("https://mcp.example.com/mcp")
    ///     .discover("https://auth.example.com")
    ///     .client_secret_basic("mcp-server", "its-secret")
    ///     .cache(10_000, Duration::from_secs(60))
    ///     .shared_cache(redis.introspection_cache())
    ///     .build()?;
    /// # Ok(()) }
    /// ```
    pub fn introspection_cache(&self) -> RedisIntrospectionCache {
        RedisIntrospectionCache {
            redis: self.clone(),
        }
    }
}

impl SharedIntrospectionCache for RedisIntrospectionCache {
    fn get(&self, key: [u8; 32]) -> BoxFuture<'_, Option<Map<String, Value>>> {
        let name = self.redis.key_of("introspect", &key);
        let mut conn = self.redis.conn.clone();
        Box::pin(async move {
            let mut command = ::redis::cmd("GET");
            command.arg(&name);
            let read = command.query_async::<Option<String>>(&mut conn);
            match tokio::time::timeout(CACHE_TIMEOUT, read).await {
                Ok(Ok(Some(text))) => serde_json::from_str(&text).ok(),
                Ok(Ok(None)) => None,
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "reading the shared introspection cache failed");
                    None
                }
                Err(_) => None,
            }
        })
    }

    fn put(&self, key: [u8; 32], answer: Map<String, Value>, ttl: Duration) -> BoxFuture<'_, ()> {
        let name = self.redis.key_of("introspect", &key);
        let mut conn = self.redis.conn.clone();
        Box::pin(async move {
            let text = Value::Object(answer).to_string();
            let ms = ttl.as_millis().clamp(1, u64::MAX as u128) as u64;
            let mut command = ::redis::cmd("SET");
            command.arg(&name).arg(text).arg("PX").arg(ms);
            let write = command.query_async::<()>(&mut conn);
            if let Ok(Err(e)) = tokio::time::timeout(CACHE_TIMEOUT, write).await {
                tracing::warn!(error = %e, "writing the shared introspection cache failed");
            }
        })
    }
}
