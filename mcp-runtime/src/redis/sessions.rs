//! [`RedisSessionStore`]: 2025-11-25 sessions as JSON values in Redis, expired once idle.

use super::cas::{self, decode, encode, failed};
use super::timeouts::bounded;
use crate::error::McpError;
use crate::legacy::{SessionChange, SessionRecord, SessionStore};
use crate::registry::BoxFuture;
use ::redis::aio::ConnectionManager;
use std::sync::Arc;
use std::time::Duration;

/// A [`SessionStore`] in Redis: every instance tells a live session from an ended one (404),
/// and a session outlives the restart of an instance that held no stream of it. Each use
/// renews its lifetime; a session idle for longer is gone. Made by
/// [`Redis::sessions`](super::connection::Redis::sessions).
#[derive(Clone)]
pub struct RedisSessionStore {
    conn: ConnectionManager,
    prefix: String,
    idle_ms: u64,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("prefix", &self.prefix)
            .field("idle_ms", &self.idle_ms)
            .finish_non_exhaustive()
    }
}

/// What the kept values are called in errors.
const WHAT: &str = "session";

impl RedisSessionStore {
    pub(super) fn new(conn: ConnectionManager, prefix: &str, idle: Duration) -> Self {
        RedisSessionStore {
            conn,
            prefix: format!("{prefix}session:"),
            idle_ms: u64::try_from(idle.as_millis()).unwrap_or(u64::MAX).max(1),
        }
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }

    async fn create_now(&self, session: SessionRecord) -> Result<(), McpError> {
        let mut conn = self.conn.clone();
        let stored: Option<String> = ::redis::cmd("SET")
            .arg(self.key(&session.id))
            .arg(encode(WHAT, &session)?)
            .arg("NX")
            .arg("PX")
            .arg(self.idle_ms)
            .query_async(&mut conn)
            .await
            .map_err(failed)?;
        match stored {
            Some(_) => Ok(()),
            None => Err(McpError::internal("a session with this id exists already")),
        }
    }

    async fn get_now(&self, id: &str) -> Result<Option<Arc<SessionRecord>>, McpError> {
        let mut conn = self.conn.clone();
        // Read and renew in one step.
        let text: Option<String> = ::redis::cmd("GETEX")
            .arg(self.key(id))
            .arg("PX")
            .arg(self.idle_ms)
            .query_async(&mut conn)
            .await
            .map_err(failed)?;
        text.map(|t| decode(WHAT, &t).map(Arc::new)).transpose()
    }

    async fn update_now(
        &self,
        id: &str,
        change: SessionChange<'_>,
    ) -> Result<Option<Arc<SessionRecord>>, McpError> {
        let key = self.key(id);
        let changed = cas::update_json(&self.conn, &key, self.idle_ms, WHAT, change).await?;
        Ok(changed.map(Arc::new))
    }

    async fn end_now(&self, id: &str) -> Result<bool, McpError> {
        let mut conn = self.conn.clone();
        let removed: i64 = ::redis::cmd("DEL")
            .arg(self.key(id))
            .query_async(&mut conn)
            .await
            .map_err(failed)?;
        Ok(removed > 0)
    }
}

impl SessionStore for RedisSessionStore {
    fn create(&self, session: SessionRecord) -> BoxFuture<'_, Result<(), McpError>> {
        Box::pin(bounded(self.create_now(session)))
    }
    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Arc<SessionRecord>>, McpError>> {
        Box::pin(bounded(self.get_now(id)))
    }
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: SessionChange<'a>,
    ) -> BoxFuture<'a, Result<Option<Arc<SessionRecord>>, McpError>> {
        Box::pin(bounded(self.update_now(id, change)))
    }
    fn end<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, McpError>> {
        Box::pin(bounded(self.end_now(id)))
    }
}
