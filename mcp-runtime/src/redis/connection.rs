//! The connection to Redis ([`Redis`]) that the bus and the stores are made from, and the
//! environment variable naming its URL ([`REDIS_URL_VAR`]).

use super::bus::RedisBus;
#[cfg(feature = "jwt")]
use super::hex::hex;
use super::sessions::RedisSessionStore;
use super::tasks::RedisTaskStore;
use crate::error::BuildError;
use crate::registry::BoxFuture;
use ::redis::aio::ConnectionManager;
use std::time::Duration;

/// The environment variable naming the Redis URL (`redis://host:port/db`).
pub const REDIS_URL_VAR: &str = "MCP_REDIS_URL";

/// A connection to Redis, shared by the bus and the stores made from it.
#[derive(Clone)]
pub struct Redis {
    client: ::redis::Client,
    pub(super) conn: ConnectionManager,
    pub(super) prefix: String,
}

impl std::fmt::Debug for Redis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redis")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl Redis {
    /// Connects to `url` and checks that Redis answers (`PING`, within 5 s): a server configured
    /// with an unreachable Redis fails at startup, with the reason.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), mcp_runtime::BuildError> {
    /// let redis = mcp_runtime::redis::Redis::connect("redis://127.0.0.1:6379/0").await?;
    /// # Ok(()) }
    /// ```
    pub async fn connect(url: &str) -> Result<Redis, BuildError> {
        let unreachable = |why: String| {
            BuildError::setting(
                REDIS_URL_VAR,
                format!("Redis at {url} is unreachable: {why}"),
            )
        };
        let client = ::redis::Client::open(url)
            .map_err(|e| BuildError::setting(REDIS_URL_VAR, format!("`{url}`: {e}")))?;
        let connect = async {
            let mut conn = client.get_connection_manager().await?;
            ::redis::cmd("PING")
                .query_async::<String>(&mut conn)
                .await?;
            Ok::<_, ::redis::RedisError>(conn)
        };
        let conn = match tokio::time::timeout(Duration::from_secs(5), connect).await {
            Ok(Ok(conn)) => conn,
            Ok(Err(e)) => return Err(unreachable(e.to_string())),
            Err(_) => return Err(unreachable("no answer within 5 s".to_owned())),
        };
        Ok(Redis {
            client,
            conn,
            prefix: "mcp:".to_owned(),
        })
    }

    /// Connects to the URL in `MCP_REDIS_URL`; `None` when it is not set.
    ///
    /// ```no_run
    /// # async fn demo(builder: mcp_runtime::ServerBuilder) -> Result<(), mcp_runtime::BuildError> {
    /// let builder = match mcp_runtime::redis::Redis::from_env().await? {
    ///     Some(redis) => builder
    ///         .change_bus(redis.bus())
    ///         .tasks(mcp_runtime::TaskOptions::new().store(redis.tasks())),
    ///     None => builder,
    /// };
    /// # Ok(()) }
    /// ```
    pub async fn from_env() -> Result<Option<Redis>, BuildError> {
        match std::env::var(REDIS_URL_VAR) {
            Ok(url) if !url.trim().is_empty() => Redis::connect(url.trim()).await.map(Some),
            _ => Ok(None),
        }
    }

    /// Keys and the channel start with `prefix` (default `mcp:`), so that several servers can
    /// share one Redis.
    ///
    /// ```no_run
    /// # async fn demo(redis: mcp_runtime::redis::Redis) {
    /// let billing = redis.with_prefix("billing:");
    /// # }
    /// ```
    #[must_use]
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The key `{prefix}{kind}:{hex of id}` (the shared caches' entries).
    #[cfg(feature = "jwt")]
    pub(super) fn key_of(&self, kind: &str, id: &[u8]) -> String {
        format!("{}{kind}:{}", self.prefix, hex(id))
    }

    /// The change bus over this Redis (spawns its subscriber: call it inside a tokio runtime).
    pub fn bus(&self) -> RedisBus {
        RedisBus::start(self.client.clone(), self.conn.clone(), &self.prefix)
    }

    /// The task store over this Redis.
    pub fn tasks(&self) -> RedisTaskStore {
        RedisTaskStore::new(self.conn.clone(), &self.prefix)
    }

    /// The store of 2025-11-25 sessions over this Redis; a session is forgotten once idle for
    /// `idle`.
    pub fn sessions(&self, idle: Duration) -> RedisSessionStore {
        RedisSessionStore::new(self.conn.clone(), &self.prefix, idle)
    }

    /// Whether Redis answers now (`PING`): what a readiness check asks.
    ///
    /// ```no_run
    /// # async fn demo(redis: mcp_runtime::redis::Redis) {
    /// if !redis.ready().await {
    ///     eprintln!("not ready: Redis does not answer");
    /// }
    /// # }
    /// ```
    pub async fn ready(&self) -> bool {
        let mut conn = self.conn.clone();
        let ping = ::redis::cmd("PING");
        let answer = ping.query_async::<String>(&mut conn);
        matches!(
            tokio::time::timeout(Duration::from_secs(2), answer).await,
            Ok(Ok(_))
        )
    }

    /// [`ready`](Self::ready) as a check for the health endpoint
    /// ([`HttpOptions::ready_when`](crate::HttpOptions::ready_when)): the instance says it is
    /// not ready while Redis does not answer.
    ///
    /// ```no_run
    /// # async fn demo(redis: mcp_runtime::redis::Redis) {
    /// let options = mcp_runtime::HttpOptions::default()
    ///     .health("/health")
    ///     .ready_when(redis.ready_check());
    /// # }
    /// ```
    pub fn ready_check(&self) -> impl Fn() -> BoxFuture<'static, bool> + Send + Sync + 'static {
        let redis = self.clone();
        move || {
            let redis = redis.clone();
            Box::pin(async move { redis.ready().await })
        }
    }
}
