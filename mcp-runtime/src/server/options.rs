//! The builder's settings that belong together, as option structs beside
//! [`HttpOptions`](crate::HttpOptions): how tasks are kept and run (`TaskOptions`, feature
//! `tasks`), and how 2025-11-25 clients' sessions are kept ([`LegacyOptions`]).

use crate::legacy::{SessionSettings, SessionStore};
#[cfg(feature = "tasks")]
use crate::tasks::TaskStore;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// How the tasks extension keeps and runs tasks, for
/// [`ServerBuilder::tasks`](crate::ServerBuilder::tasks). Each setting left unset keeps its
/// default.
///
/// ```
/// use mcp_runtime::{Server, TaskOptions, tasks::MemoryTaskStore};
/// use std::time::Duration;
/// let server = Server::builder()
///     .tasks(
///         TaskOptions::new()
///             .store(MemoryTaskStore::new(1_000))
///             .ttl(Some(Duration::from_secs(600)))
///             .poll_interval(Duration::from_millis(500))
///             .lease(Duration::from_secs(30)),
///     )
///     .build()
///     .unwrap();
/// ```
#[derive(Clone, Default)]
#[must_use]
#[cfg(feature = "tasks")]
pub struct TaskOptions {
    pub(super) store: Option<Arc<dyn TaskStore>>,
    pub(super) ttl_ms: Option<Option<u64>>,
    pub(super) poll_ms: Option<u64>,
    pub(super) lease_ms: Option<u64>,
}

#[cfg(feature = "tasks")]
impl TaskOptions {
    /// Every setting at its default.
    pub fn new() -> Self {
        TaskOptions::default()
    }

    /// Where tasks are kept (default: a [`MemoryTaskStore`](crate::tasks::MemoryTaskStore) of
    /// 10,000 tasks). Instances behind one load balancer share one store, and one
    /// [`change_bus`](crate::ServerBuilder::change_bus).
    pub fn store(mut self, store: impl TaskStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// How long a task is kept after its creation (`ttlMs`; default one hour; `None`: until
    /// the store forgets it). A task still running when its lifetime ends is cancelled.
    pub fn ttl(mut self, ttl: Option<Duration>) -> Self {
        self.ttl_ms = Some(ttl.map(|t| millis(t).max(1)));
        self
    }

    /// How often clients are told to poll a task (`pollIntervalMs`; default one second).
    pub fn poll_interval(mut self, every: Duration) -> Self {
        self.poll_ms = Some(millis(every).max(1));
        self
    }

    /// How long the instance running a task holds it without renewing (default 15 s; renewed
    /// every third of this, one store write each time). With instances sharing a task store,
    /// a task whose instance stopped (killed, crashed) is failed with a clear error by the
    /// first instance that reads it after the lease has passed, instead of staying `working`
    /// until its lifetime ends. The instances' clocks must agree to well within this, and the
    /// lease should outlast the task-store outages you expect to ride out: a runner that
    /// cannot reach the store for longer than the lease is taken for gone, and its task is
    /// failed.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease_ms = Some(millis(lease).max(3));
        self
    }
}

#[cfg(feature = "tasks")]
impl fmt::Debug for TaskOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskOptions")
            .field("store", &self.store.as_ref().map(|_| "custom"))
            .field("ttl_ms", &self.ttl_ms)
            .field("poll_ms", &self.poll_ms)
            .field("lease_ms", &self.lease_ms)
            .finish()
    }
}

/// How 2025-11-25 clients (which open with `initialize`) are served, for
/// [`ServerBuilder::legacy`](crate::ServerBuilder::legacy): from the same handlers, each in a
/// session kept by a [`SessionStore`] (by default they are served, from a
/// [`MemorySessionStore`](crate::legacy::MemorySessionStore)).
///
/// ```
/// use mcp_runtime::{LegacyOptions, Server};
/// use std::time::Duration;
/// let server = Server::builder()
///     .legacy(
///         LegacyOptions::new()
///             .idle(Duration::from_secs(600))
///             .max_sessions(500)
///             .sessions_per_caller(16)
///             .input_timeout(Duration::from_secs(60)),
///     )
///     .build()
///     .unwrap();
/// // 2026-07-28 only: a 2025-11-25 client's `initialize` is answered with an error naming
/// // the version this server speaks.
/// let modern = Server::builder().legacy(LegacyOptions::off()).build().unwrap();
/// ```
#[derive(Clone, Default)]
#[must_use]
pub struct LegacyOptions {
    pub(super) off: bool,
    pub(super) store: Option<Arc<dyn SessionStore>>,
    pub(super) settings: SessionSettings,
}

impl LegacyOptions {
    /// 2025-11-25 clients served, every setting at its default.
    pub fn new() -> Self {
        LegacyOptions::default()
    }

    /// 2025-11-25 clients not served: the server speaks 2026-07-28 only.
    pub fn off() -> Self {
        LegacyOptions {
            off: true,
            ..LegacyOptions::default()
        }
    }

    /// Where sessions are kept (default: a
    /// [`MemorySessionStore`](crate::legacy::MemorySessionStore) of
    /// [`max_sessions`](Self::max_sessions), each forgotten after [`idle`](Self::idle)).
    /// Instances behind one load balancer share one.
    pub fn store(mut self, store: impl SessionStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// How long an unused session is kept (default 30 minutes; the default store's setting,
    /// and how long this process keeps the session's streams).
    pub fn idle(mut self, idle: Duration) -> Self {
        self.settings.idle = idle;
        self
    }

    /// How many sessions the default store keeps at once (default 10,000; an `initialize`
    /// beyond them gets `-32603` until one goes idle).
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.settings.max_sessions = sessions.max(1);
        self
    }

    /// How many sessions the default store keeps at once for one caller (a token's subject,
    /// or an anonymous client's address; default 64), so that one client cannot take every
    /// session: its `initialize` beyond them gets `-32603` (HTTP 503) until one of its
    /// sessions ends or goes idle.
    pub fn sessions_per_caller(mut self, sessions: usize) -> Self {
        self.settings.sessions_per_caller = sessions.max(1);
        self
    }

    /// How long a request on a session waits for the client to answer what it asks
    /// (`elicitation/create`, `sampling/createMessage`, `roots/list`) before it fails with
    /// `-32603` (default 5 minutes).
    pub fn input_timeout(mut self, limit: Duration) -> Self {
        self.settings.input_timeout = limit;
        self
    }
}

impl fmt::Debug for LegacyOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LegacyOptions")
            .field("off", &self.off)
            .field("store", &self.store.as_ref().map(|_| "custom"))
            .field("settings", &self.settings)
            .finish()
    }
}

/// A duration in whole milliseconds, saturating.
#[cfg(feature = "tasks")]
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
