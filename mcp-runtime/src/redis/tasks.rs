//! [`RedisTaskStore`]: tasks as JSON values in Redis, expired by Redis.

use super::cas::{self, decode, encode, failed};
use super::timeouts::bounded;
use crate::error::McpError;
use crate::registry::BoxFuture;
use crate::tasks::time::now_ms;
use crate::tasks::{TaskChange, TaskRecord, TaskStore};
use ::redis::aio::ConnectionManager;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A [`TaskStore`] in Redis: a task created through one instance is read, answered and
/// cancelled through any other; every change is a compare-and-set, so that two instances
/// changing one task at once lose neither change. Made by
/// [`Redis::tasks`](super::connection::Redis::tasks).
#[derive(Clone)]
pub struct RedisTaskStore {
    conn: ConnectionManager,
    prefix: String,
    /// When an operation of this store last failed (milliseconds since the Unix epoch; 0:
    /// never): Redis may have been out of reach then.
    failed_at: Arc<AtomicU64>,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// What the kept values are called in errors.
const WHAT: &str = "task";

impl RedisTaskStore {
    pub(super) fn new(conn: ConnectionManager, prefix: &str) -> Self {
        RedisTaskStore {
            conn,
            prefix: format!("{prefix}task:"),
            failed_at: Arc::new(AtomicU64::new(0)),
        }
    }

    /// `op`, bounded in time; a failure is remembered as a moment Redis may have been away.
    async fn watched<T>(
        &self,
        op: impl Future<Output = Result<T, McpError>>,
    ) -> Result<T, McpError> {
        let done = bounded(op).await;
        if done.is_err() {
            self.failed_at.fetch_max(now_ms(), Ordering::Relaxed);
        }
        done
    }

    /// When Redis last started (its `uptime_in_seconds`, rounded so as to be no earlier than
    /// the truth), or when an operation of this store last failed, whichever is later.
    async fn reachable_since_now(&self) -> Result<u64, McpError> {
        let mut conn = self.conn.clone();
        let info: String = ::redis::cmd("INFO")
            .arg("server")
            .query_async(&mut conn)
            .await
            .map_err(failed)?;
        let uptime_s = info
            .lines()
            .find_map(|line| line.strip_prefix("uptime_in_seconds:"))
            .and_then(|s| s.trim().parse::<u64>().ok())
            .ok_or_else(|| McpError::internal("Redis did not say how long it has been up"))?;
        // Redis counts its uptime from its start time in whole seconds, so `now - uptime` can
        // be up to a second before the start: the last moment of that second is the bound that
        // is never early (a lease is never judged by a time Redis was still away).
        let now = now_ms();
        let started = now
            .saturating_sub(uptime_s.saturating_mul(1000))
            .saturating_add(999)
            .min(now);
        Ok(started.max(self.failed_at.load(Ordering::Relaxed)))
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }

    async fn create_now(&self, task: TaskRecord) -> Result<(), McpError> {
        let mut conn = self.conn.clone();
        let mut set = ::redis::cmd("SET");
        set.arg(self.key(&task.id))
            .arg(encode(WHAT, &task)?)
            .arg("NX");
        if let Some(ttl) = task.ttl_ms {
            let left = (task.created_ms + ttl).saturating_sub(crate::tasks::time::now_ms());
            set.arg("PX").arg(left.max(1));
        }
        let stored: Option<String> = set.query_async(&mut conn).await.map_err(failed)?;
        match stored {
            Some(_) => Ok(()),
            None => Err(McpError::internal(format!(
                "a task with id {} exists already",
                task.id
            ))),
        }
    }

    async fn get_now(&self, id: &str) -> Result<Option<TaskRecord>, McpError> {
        let mut conn = self.conn.clone();
        let text: Option<String> = ::redis::cmd("GET")
            .arg(self.key(id))
            .query_async(&mut conn)
            .await
            .map_err(failed)?;
        let Some(text) = text else { return Ok(None) };
        let task: TaskRecord = decode(WHAT, &text)?;
        Ok((!task.is_expired(crate::tasks::time::now_ms())).then_some(task))
    }

    async fn update_now(
        &self,
        id: &str,
        change: TaskChange<'_>,
    ) -> Result<Option<TaskRecord>, McpError> {
        cas::update_json(&self.conn, &self.key(id), 0, WHAT, change).await
    }
}

impl TaskStore for RedisTaskStore {
    fn create(&self, task: TaskRecord) -> BoxFuture<'_, Result<(), McpError>> {
        Box::pin(self.watched(self.create_now(task)))
    }
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, McpError>> {
        Box::pin(self.watched(self.get_now(id)))
    }
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, McpError>> {
        Box::pin(self.watched(self.update_now(id, change)))
    }
    fn reachable_since_ms(&self) -> BoxFuture<'_, Result<u64, McpError>> {
        Box::pin(self.watched(self.reachable_since_now()))
    }
}
