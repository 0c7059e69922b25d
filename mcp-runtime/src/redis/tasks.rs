//! [`RedisTaskStore`]: tasks as JSON values in Redis, expired by Redis.

use super::cas::{self, decode, encode, failed};
use crate::error::McpError;
use crate::registry::BoxFuture;
use crate::tasks::{TaskChange, TaskRecord, TaskStore};
use ::redis::aio::ConnectionManager;

/// A [`TaskStore`] in Redis: a task created through one instance is read, answered and
/// cancelled through any other; every change is a compare-and-set, so that two instances
/// changing one task at once lose neither change. Made by
/// [`Redis::tasks`](super::Redis::tasks).
#[derive(Clone)]
pub struct RedisTaskStore {
    conn: ConnectionManager,
    prefix: String,
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
        }
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
        Box::pin(super::bounded(self.create_now(task)))
    }
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, McpError>> {
        Box::pin(super::bounded(self.get_now(id)))
    }
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, McpError>> {
        Box::pin(super::bounded(self.update_now(id, change)))
    }
}
