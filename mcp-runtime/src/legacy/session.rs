//! Legacy sessions' metadata: [`SessionRecord`], the [`SessionStore`] trait, and the in-memory
//! store used by default. What a session holds that cannot leave its process (open streams,
//! requests waiting for the client's answers) is in `live.rs`.

use crate::error::McpError;
use crate::registry::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// What a 2025-11-25 session is, as any instance serving it must know it: what `initialize`
/// negotiated, the session's log level and resource subscriptions. Serializable, so that a
/// store can keep it outside the process.
///
/// ```
/// use mcp_runtime::legacy::SessionRecord;
/// let session = SessionRecord::new("3f2a…", "2025-11-25", serde_json::json!({"roots": {}}), None);
/// let stored = serde_json::to_string(&session).unwrap();
/// assert_eq!(serde_json::from_str::<SessionRecord>(&stored).unwrap(), session);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionRecord {
    /// The `Mcp-Session-Id`.
    pub id: String,
    /// The protocol version `initialize` negotiated.
    pub protocol_version: String,
    /// The client's `capabilities` from `initialize`.
    pub client_capabilities: Value,
    /// The client's `clientInfo` from `initialize`.
    pub client_info: Option<Value>,
    /// The level `logging/setLevel` set, if any.
    pub log_level: Option<String>,
    /// The URIs `resources/subscribe` subscribed to.
    pub subscriptions: BTreeSet<String>,
    /// Whether `notifications/initialized` arrived.
    pub initialized: bool,
    /// The caller that created the session (its issuer and subject), when the transport
    /// authenticated one: only that caller may use it.
    pub owner: Option<String>,
    /// Whose share of the store it counts against: the creating caller, or the address of an
    /// anonymous client (`None`: a client with neither, such as stdio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<String>,
}

impl SessionRecord {
    /// A session just created by `initialize`.
    pub fn new(
        id: impl Into<String>,
        protocol_version: impl Into<String>,
        client_capabilities: Value,
        client_info: Option<Value>,
    ) -> Self {
        SessionRecord {
            id: id.into(),
            protocol_version: protocol_version.into(),
            client_capabilities,
            client_info,
            log_level: None,
            subscriptions: BTreeSet::new(),
            initialized: false,
            owner: None,
            share: None,
        }
    }
}

/// A change to one session, applied atomically by [`SessionStore::update`] (a store over an
/// external engine may apply it more than once).
pub type SessionChange<'a> = &'a (dyn Fn(&mut SessionRecord) + Send + Sync);

/// Keeps the legacy (2025-11-25) sessions of a server: every instance behind a load balancer
/// shares one store, so that any of them can tell a live session from an ended one (404).
/// Streams stay on the instance that opened them: route a session's requests to one instance
/// (sticky routing on `Mcp-Session-Id`) for its streams and server-to-client requests.
///
/// A store forgets a session idle for longer than the server's session idle time, and ends
/// one when asked; [`SessionStore::get`] then finds nothing.
///
/// ```
/// use mcp_runtime::legacy::{MemorySessionStore, SessionRecord, SessionStore};
/// use std::time::Duration;
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let store = MemorySessionStore::new(100, Duration::from_secs(60));
/// let session = SessionRecord::new("s1", "2025-11-25", serde_json::json!({}), None);
/// store.create(session).await.unwrap();
/// store.update("s1", &|s| s.log_level = Some("debug".into())).await.unwrap();
/// assert_eq!(store.get("s1").await.unwrap().unwrap().log_level.as_deref(), Some("debug"));
/// assert!(store.end("s1").await.unwrap());
/// assert!(store.get("s1").await.unwrap().is_none());
/// # }
/// ```
pub trait SessionStore: Send + Sync + 'static {
    /// Keeps a new session (`-32603` when the store holds as many as it may).
    fn create(&self, session: SessionRecord) -> BoxFuture<'_, Result<(), McpError>>;
    /// The session, unless it is unknown, ended or idle too long. Marks it used.
    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Arc<SessionRecord>>, McpError>>;
    /// Applies `change` atomically; the session as changed, or `None` when it is gone.
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: SessionChange<'a>,
    ) -> BoxFuture<'a, Result<Option<Arc<SessionRecord>>, McpError>>;
    /// Ends the session; whether it was live.
    fn end<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, McpError>>;
}

/// The default [`SessionStore`]: this process's sessions in memory, at most `capacity` at once,
/// at most [`per_share`](Self::per_share) of one caller's (a caller, or an anonymous client's
/// address, [`SessionRecord::share`]), each forgotten once idle for `idle`. One client cannot
/// take every session from the others: past its share, its `initialize` is refused until one of
/// its sessions ends (`DELETE`) or goes idle.
#[derive(Debug)]
pub struct MemorySessionStore {
    /// Each session, and when it was last used (milliseconds since the Unix epoch).
    sessions: Mutex<HashMap<String, (Arc<SessionRecord>, u64)>>,
    capacity: usize,
    per_share: usize,
    idle_ms: u64,
}

impl MemorySessionStore {
    /// A store keeping at most `capacity` sessions, each until idle for `idle`.
    ///
    /// ```
    /// let store = mcp_runtime::legacy::MemorySessionStore::new(100, std::time::Duration::from_secs(60));
    /// assert!(store.is_empty());
    /// ```
    pub fn new(capacity: usize, idle: std::time::Duration) -> Self {
        MemorySessionStore {
            sessions: Mutex::new(HashMap::new()),
            capacity: capacity.max(1),
            per_share: 64,
            idle_ms: u64::try_from(idle.as_millis()).unwrap_or(u64::MAX).max(1),
        }
    }

    /// At most `n` sessions of one caller at once (default 64).
    ///
    /// ```
    /// let store = mcp_runtime::legacy::MemorySessionStore::default().per_share(8);
    /// # let _ = store;
    /// ```
    #[must_use]
    pub fn per_share(mut self, n: usize) -> Self {
        self.per_share = n.max(1);
        self
    }

    /// How many sessions it holds (idle ones included until they are swept).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[allow(clippy::type_complexity)]
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Arc<SessionRecord>, u64)>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn idle(&self, last_used: u64, now: u64) -> bool {
        now.saturating_sub(last_used) > self.idle_ms
    }

    fn create_now(&self, session: SessionRecord) -> Result<(), McpError> {
        let mut sessions = self.lock();
        let now = now_ms();
        if sessions.len() >= self.capacity {
            sessions.retain(|_, (_, used)| !self.idle(*used, now));
        }
        if sessions.len() >= self.capacity {
            return Err(McpError::busy("sessions", self.capacity));
        }
        // Fewer sessions in all than a share holds: none of them can have filled one.
        if let Some(share) = &session.share
            && sessions.len() >= self.per_share
        {
            // A scan bounded by the capacity (10,000 by default: tens of microseconds), and an
            // `initialize` is rare next to requests.
            let mut held = 0;
            for (s, used) in sessions.values() {
                if s.share.as_deref() == Some(share) && !self.idle(*used, now) {
                    held += 1;
                }
            }
            if held >= self.per_share {
                return Err(McpError::busy_share(
                    "sessions (end one with DELETE, or wait until one goes idle)",
                    self.per_share,
                    share,
                ));
            }
        }
        sessions.insert(session.id.clone(), (Arc::new(session), now));
        Ok(())
    }

    /// The session, marked used, changed by `change` when given.
    fn use_now(&self, id: &str, change: Option<SessionChange<'_>>) -> Option<Arc<SessionRecord>> {
        let mut sessions = self.lock();
        let now = now_ms();
        let (session, used) = sessions.get_mut(id)?;
        if self.idle(*used, now) {
            sessions.remove(id);
            return None;
        }
        *used = now;
        if let Some(change) = change {
            change(Arc::make_mut(session));
        }
        Some(session.clone())
    }
}

impl Default for MemorySessionStore {
    /// At most 10,000 sessions, each forgotten after 30 minutes idle.
    fn default() -> Self {
        MemorySessionStore::new(10_000, std::time::Duration::from_secs(30 * 60))
    }
}

impl SessionStore for MemorySessionStore {
    fn create(&self, session: SessionRecord) -> BoxFuture<'_, Result<(), McpError>> {
        Box::pin(std::future::ready(self.create_now(session)))
    }
    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Arc<SessionRecord>>, McpError>> {
        Box::pin(std::future::ready(Ok(self.use_now(id, None))))
    }
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: SessionChange<'a>,
    ) -> BoxFuture<'a, Result<Option<Arc<SessionRecord>>, McpError>> {
        Box::pin(std::future::ready(Ok(self.use_now(id, Some(change)))))
    }
    fn end<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, McpError>> {
        Box::pin(std::future::ready(Ok(self.lock().remove(id).is_some())))
    }
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn record(id: &str) -> SessionRecord {
        SessionRecord::new(id, "2025-11-25", Value::Object(Default::default()), None)
    }

    #[test]
    fn a_full_store_refuses_until_a_session_goes_idle() {
        let store = MemorySessionStore::new(1, Duration::from_millis(50));
        store.create_now(record("a")).unwrap();
        assert_eq!(store.create_now(record("b")).unwrap_err().code(), -32603);
        store.lock().get_mut("a").unwrap().1 -= 1_000;
        store.create_now(record("b")).unwrap();
        assert!(store.use_now("a", None).is_none());
    }

    #[test]
    fn one_client_cannot_take_every_session() {
        let store = MemorySessionStore::new(100, Duration::from_secs(60)).per_share(2);
        let of = |id: &str, share: &str| {
            let mut s = record(id);
            s.share = Some(share.into());
            s
        };
        store.create_now(of("a1", "10.0.0.1")).unwrap();
        store.create_now(of("a2", "10.0.0.1")).unwrap();
        let refused = store.create_now(of("a3", "10.0.0.1")).unwrap_err();
        assert!(refused.message().contains("10.0.0.1"), "{refused:?}");
        store.create_now(of("b1", "10.0.0.2")).unwrap();
        store.create_now(record("stdio")).unwrap();
        assert!(store.lock().remove("a1").is_some());
        store.create_now(of("a3", "10.0.0.1")).unwrap();
    }

    #[test]
    fn use_keeps_a_session_alive() {
        let store = MemorySessionStore::new(4, Duration::from_millis(500));
        store.create_now(record("a")).unwrap();
        store.lock().get_mut("a").unwrap().1 -= 400;
        assert!(store.use_now("a", None).is_some());
        store.lock().get_mut("a").unwrap().1 -= 400;
        assert!(store.use_now("a", None).is_some(), "used 400 ms ago");
    }
}
