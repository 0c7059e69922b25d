//! Instances that share their state through Redis (feature `redis`): a
//! [`ChangeBus`](crate::ChangeBus) over pub/sub ([`RedisBus`]), a [`TaskStore`](crate::tasks::TaskStore) ([`RedisTaskStore`]) and a
//! [`SessionStore`](crate::legacy::SessionStore) of 2025-11-25 sessions
//! ([`RedisSessionStore`]), all on one [`Redis`] connection.
//!
//! ```no_run
//! # async fn demo() -> Result<(), mcp_runtime::Error> {
//! use mcp_runtime::Server;
//! let redis = mcp_runtime::redis::Redis::connect("redis://127.0.0.1:6379").await?;
//! let server = Server::from_inventory()
//!     .change_bus(redis.bus())
//!     .task_store(redis.tasks())
//!     .session_store(redis.sessions(std::time::Duration::from_secs(1800)))
//!     .build()?;
//! # Ok(()) }
//! ```
//!
//! Changes: each instance publishes its changes on one channel and delivers them to its own
//! listeners at once; the others hear them through their subscription. While Redis is
//! unreachable, changes made elsewhere are missed; once the subscription is back, every
//! instance tells its listeners that each list changed, so that they fetch them again.
//!
//! With the `jwt` feature, two caches are shared too: token introspection answers
//! (`Redis::introspection_cache`, under `{prefix}introspect:`) and the DPoP proofs accepted
//! (`Redis::dpop_replay_cache`, under `{prefix}dpop:`); a Redis that does not answer in time
//! is passed over for them, never waited on.
//!
//! Tasks and sessions are JSON values under `{prefix}task:{id}` and `{prefix}session:{id}`,
//! changed atomically by compare-and-set (a Lua script: the value is replaced only if it is still
//! the one the change was computed from; otherwise the change is computed again), and expired by
//! Redis (`PX`): a task after its `ttlMs`, a session once idle for the store's idle time.

mod bus;
mod cas;
#[cfg(feature = "jwt")]
mod dpop;
#[cfg(feature = "jwt")]
mod introspection;
mod sessions;
mod tasks;

pub use bus::RedisBus;
pub use sessions::RedisSessionStore;
pub use tasks::RedisTaskStore;

use crate::error::{BuildError, McpError};
use crate::registry::BoxFuture;
use ::redis::aio::ConnectionManager;
use std::time::Duration;

/// The environment variable naming the Redis URL (`redis://host:port/db`).
pub const REDIS_URL_VAR: &str = "MCP_REDIS_URL";

/// Longest one operation of the task or session store may take, retries included. While
/// Redis is down, the connection manager holds each command through its reconnection attempts
/// (six, backing off from 100 ms, each with its own connection timeout): a legacy `initialize`
/// waited 9.5 s for its session to be stored. A client is better told at once that the store is
/// unavailable (`-32603`, as for any failure of Redis); a healthy Redis answers in well under a
/// millisecond, and a compare-and-set that lost its race retries within a few.
const STORE_TIMEOUT: Duration = Duration::from_secs(1);

/// Longest a read or write of a shared cache (token introspection answers, DPoP proofs seen)
/// may take: past it the check goes on without the cache, rather than wait on a Redis that is
/// away.
#[cfg(feature = "jwt")]
const CACHE_TIMEOUT: Duration = Duration::from_millis(500);

/// `bytes` in lowercase hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `op` (one store operation), failed with the store's `-32603` error when it takes longer than
/// [`STORE_TIMEOUT`].
async fn bounded<T>(op: impl Future<Output = Result<T, McpError>>) -> Result<T, McpError> {
    match tokio::time::timeout(STORE_TIMEOUT, op).await {
        Ok(done) => done,
        Err(_) => Err(McpError::internal(format!(
            "the Redis store failed: no answer within {} ms (is Redis reachable?)",
            STORE_TIMEOUT.as_millis()
        ))),
    }
}

/// A connection to Redis, shared by the bus and the stores made from it.
#[derive(Clone)]
pub struct Redis {
    client: ::redis::Client,
    conn: ConnectionManager,
    prefix: String,
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
    ///     Some(redis) => builder.change_bus(redis.bus()).task_store(redis.tasks()),
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
    fn key_of(&self, kind: &str, id: &[u8]) -> String {
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

#[cfg(feature = "jwt")]
pub use dpop::RedisReplayCache;
#[cfg(feature = "jwt")]
pub use introspection::RedisIntrospectionCache;
