//! Instances that share their state through Redis (feature `redis`): a
//! [`ChangeBus`](crate::ChangeBus) over pub/sub ([`RedisBus`]), a [`TaskStore`](crate::tasks::TaskStore) ([`RedisTaskStore`]) and a
//! [`SessionStore`](crate::legacy::SessionStore) of 2025-11-25 sessions
//! ([`RedisSessionStore`]), all on one [`Redis`] connection.
//!
//! ```no_run
//! # async fn demo() -> Result<(), mcp_runtime::Error> {
//! use mcp_runtime::{LegacyOptions, Server, TaskOptions};
//! let redis = mcp_runtime::redis::Redis::connect("redis://127.0.0.1:6379").await?;
//! let server = Server::from_inventory()
//!     .change_bus(redis.bus())
//!     .tasks(TaskOptions::new().store(redis.tasks()))
//!     .legacy(LegacyOptions::new().store(redis.sessions(std::time::Duration::from_secs(1800))))
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
mod connection;
#[cfg(feature = "jwt")]
mod dpop;
mod hex;
#[cfg(feature = "jwt")]
mod introspection;
mod sessions;
mod tasks;
mod timeouts;

pub use bus::RedisBus;
pub use connection::{REDIS_URL_VAR, Redis};
#[cfg(feature = "jwt")]
pub use dpop::RedisReplayCache;
#[cfg(feature = "jwt")]
pub use introspection::RedisIntrospectionCache;
pub use sessions::RedisSessionStore;
pub use tasks::RedisTaskStore;
