//! Where tasks live: the [`TaskStore`] trait, and the in-memory store used by default.

use super::record::TaskRecord;
use super::time::now_ms;
use crate::error::McpError;
use crate::registry::BoxFuture;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// A change to one task, applied atomically by [`TaskStore::update`]. A store over an external
/// engine may apply it more than once (optimistic retries), so it must not count on running once.
pub type TaskChange<'a> = &'a (dyn Fn(&mut TaskRecord) + Send + Sync);

/// Keeps the tasks of a server. Every instance behind a load balancer shares one store, so that
/// a task created through one instance is read, answered and cancelled through any other; the
/// instance that runs a task's handler hears of changes on the server's
/// [`ChangeBus`](crate::ChangeBus) ([`Change::Task`](crate::Change::Task)).
///
/// A store forgets a task once its lifetime ([`TaskRecord::ttl_ms`]) is over.
///
/// ```
/// use mcp_runtime::tasks::{MemoryTaskStore, TaskRecord, TaskStore};
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let store = MemoryTaskStore::new(100);
/// store.create(TaskRecord::new("t1", None, 0, None, None)).await.unwrap();
/// let changed = store
///     .update("t1", &|t| t.status_message = Some("half done".into()))
///     .await
///     .unwrap();
/// assert_eq!(changed.unwrap().status_message.as_deref(), Some("half done"));
/// assert!(store.get("t2").await.unwrap().is_none());
/// # }
/// ```
pub trait TaskStore: Send + Sync + 'static {
    /// Keeps a new task; once this resolves, `get` on any instance finds it.
    fn create(&self, task: TaskRecord) -> BoxFuture<'_, Result<(), McpError>>;
    /// The task, unless it is unknown or its lifetime is over.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, McpError>>;
    /// Applies `change` to the task atomically (no change made meanwhile by another instance
    /// is lost); the task as changed, or `None` when it is unknown or its lifetime is over.
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, McpError>>;
    /// Since when (milliseconds since the Unix epoch) the store has been reachable without a
    /// break, as far as it can tell. While a store is away no runner can renew its lease, so
    /// a task's lease is taken to run from no earlier than this: a store that restarts does not
    /// make the tasks that were running on live instances look abandoned. A store in this
    /// process is never away: the default is `0`.
    ///
    /// ```
    /// use mcp_runtime::tasks::{MemoryTaskStore, TaskStore};
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// assert_eq!(MemoryTaskStore::new(10).reachable_since_ms().await.unwrap(), 0);
    /// # }
    /// ```
    fn reachable_since_ms(&self) -> BoxFuture<'_, Result<u64, McpError>> {
        Box::pin(std::future::ready(Ok(0)))
    }
}

/// The default [`TaskStore`]: the tasks of this process, in memory, at most `capacity` at once
/// (a task whose lifetime is over makes room; a server holding `capacity` live tasks refuses new
/// ones with `-32603`), and at most [`per_share`](Self::per_share) for one caller: past that, the
/// caller's oldest finished task is forgotten to make room (with none finished, the new one is
/// refused), so that one caller's tasks never fill the store for the others. Expired tasks are
/// also dropped every 256 creations.
#[derive(Debug)]
pub struct MemoryTaskStore {
    tasks: Mutex<Tasks>,
    capacity: usize,
    per_share: usize,
    /// Tasks created, to sweep expired ones every [`SWEEP_EVERY`] creations.
    created: std::sync::atomic::AtomicUsize,
}

/// The tasks, and the ids of each share's, oldest first.
#[derive(Debug, Default)]
struct Tasks {
    by_id: HashMap<String, TaskRecord>,
    by_share: HashMap<String, VecDeque<String>>,
}

impl Tasks {
    fn remove(&mut self, id: &str) {
        let Some(task) = self.by_id.remove(id) else {
            return;
        };
        if let Some(share) = &task.share
            && let Some(ids) = self.by_share.get_mut(share)
        {
            ids.retain(|i| i != id);
            if ids.is_empty() {
                self.by_share.remove(share);
            }
        }
    }

    fn sweep(&mut self, now: u64) {
        self.by_id.retain(|_, t| !t.is_expired(now));
        let by_id = &self.by_id;
        self.by_share.retain(|_, ids| {
            ids.retain(|id| by_id.contains_key(id));
            !ids.is_empty()
        });
    }

    /// Makes room for one more task of `share`, holding `max`: forgets its oldest finished (or
    /// expired) task; `false` when all of them are still running.
    fn make_room(&mut self, share: &str, max: usize, now: u64) -> bool {
        let Some(ids) = self.by_share.get(share) else {
            return true;
        };
        if ids.len() < max {
            return true;
        }
        let done = ids.iter().position(|id| {
            self.by_id
                .get(id)
                .is_none_or(|t| t.status.is_terminal() || t.is_expired(now))
        });
        let Some(at) = done else { return false };
        if let Some(ids) = self.by_share.get_mut(share)
            && let Some(id) = ids.remove(at)
        {
            self.by_id.remove(&id);
        }
        true
    }
}

/// Expired tasks are dropped every this many creations (and whenever the store is full), so
/// that a store far from full does not keep them until it fills.
const SWEEP_EVERY: usize = 256;

impl MemoryTaskStore {
    /// A store keeping at most `capacity` tasks (and at most 500 of one caller's).
    pub fn new(capacity: usize) -> Self {
        MemoryTaskStore {
            tasks: Mutex::new(Tasks::default()),
            capacity: capacity.max(1),
            per_share: 500,
            created: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// At most `n` tasks of one caller ([`TaskRecord::share`]); default 500.
    ///
    /// ```
    /// let store = mcp_runtime::tasks::MemoryTaskStore::new(10_000).per_share(100);
    /// # let _ = store;
    /// ```
    #[must_use]
    pub fn per_share(mut self, n: usize) -> Self {
        self.per_share = n.max(1);
        self
    }

    /// How many tasks it holds (expired ones included until they are swept).
    pub fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tasks> {
        // A panic while holding the lock cannot leave a record half-changed in a way that
        // matters more than losing every task: keep serving.
        self.tasks.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn create_now(&self, task: TaskRecord) -> Result<(), McpError> {
        let mut tasks = self.lock();
        let created = self
            .created
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let now = now_ms();
        if tasks.by_id.len() >= self.capacity || created % SWEEP_EVERY == SWEEP_EVERY - 1 {
            tasks.sweep(now);
        }
        if let Some(share) = &task.share
            && !tasks.make_room(share, self.per_share, now)
        {
            return Err(McpError::busy_share(
                "unfinished tasks",
                self.per_share,
                share,
            ));
        }
        if tasks.by_id.len() >= self.capacity {
            return Err(McpError::busy("tasks", self.capacity));
        }
        if let Some(share) = &task.share {
            let ids = tasks.by_share.entry(share.clone()).or_default();
            ids.push_back(task.id.clone());
        }
        tasks.by_id.insert(task.id.clone(), task);
        Ok(())
    }

    fn get_now(&self, id: &str) -> Option<TaskRecord> {
        let mut tasks = self.lock();
        let task = tasks.by_id.get(id)?;
        if task.is_expired(now_ms()) {
            tasks.remove(id);
            return None;
        }
        Some(task.clone())
    }

    fn update_now(&self, id: &str, change: TaskChange<'_>) -> Option<TaskRecord> {
        let mut tasks = self.lock();
        let task = tasks.by_id.get_mut(id)?;
        if task.is_expired(now_ms()) {
            tasks.remove(id);
            return None;
        }
        change(task);
        Some(task.clone())
    }
}

impl Default for MemoryTaskStore {
    /// At most 10,000 tasks, 500 of one caller's.
    fn default() -> Self {
        MemoryTaskStore::new(10_000)
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, task: TaskRecord) -> BoxFuture<'_, Result<(), McpError>> {
        Box::pin(std::future::ready(self.create_now(task)))
    }
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, McpError>> {
        Box::pin(std::future::ready(Ok(self.get_now(id))))
    }
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, McpError>> {
        Box::pin(std::future::ready(Ok(self.update_now(id, change))))
    }
}

/// A shared store: several servers of one process (or a store kept aside to look into) use the
/// same tasks.
///
/// ```
/// use mcp_runtime::tasks::MemoryTaskStore;
/// use std::sync::Arc;
/// let store = Arc::new(MemoryTaskStore::new(100));
/// let a = mcp_runtime::Server::builder().tasks(mcp_runtime::TaskOptions::new().store(store.clone())).build().unwrap();
/// let b = mcp_runtime::Server::builder().tasks(mcp_runtime::TaskOptions::new().store(store)).build().unwrap();
/// ```
impl<T: TaskStore> TaskStore for std::sync::Arc<T> {
    fn create(&self, task: TaskRecord) -> BoxFuture<'_, Result<(), McpError>> {
        (**self).create(task)
    }
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, McpError>> {
        (**self).get(id)
    }
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, McpError>> {
        (**self).update(id, change)
    }
    fn reachable_since_ms(&self) -> BoxFuture<'_, Result<u64, McpError>> {
        (**self).reachable_since_ms()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_store_makes_room_from_expired_tasks_only() {
        let store = MemoryTaskStore::new(2);
        let now = now_ms();
        store
            .create_now(TaskRecord::new("old", None, now - 10_000, Some(1), None))
            .unwrap();
        store
            .create_now(TaskRecord::new("live", None, now, None, None))
            .unwrap();
        store
            .create_now(TaskRecord::new("new", None, now, None, None))
            .unwrap();
        assert!(store.get_now("old").is_none());
        let refused = store.create_now(TaskRecord::new("more", None, now, None, None));
        assert_eq!(refused.unwrap_err().code(), -32603);
        assert_eq!(store.len(), 2);
    }

    fn of(id: &str, share: &str) -> TaskRecord {
        let mut task = TaskRecord::new(id, None, now_ms(), Some(60_000), None);
        task.share = Some(share.into());
        task
    }

    #[test]
    fn one_caller_cannot_fill_the_store_and_keeps_its_newest_tasks() {
        let store = MemoryTaskStore::new(10).per_share(3);
        for i in 0..3 {
            let mut task = of(&format!("a{i}"), "10.0.0.1");
            task.status = crate::protocol::TaskStatus::Completed;
            store.create_now(task).unwrap();
        }
        // At its share: its oldest finished task makes room.
        store.create_now(of("a3", "10.0.0.1")).unwrap();
        assert!(
            store.get_now("a0").is_none(),
            "the oldest finished one went"
        );
        assert!(store.get_now("a1").is_some() && store.get_now("a3").is_some());
        assert_eq!(store.len(), 3);
        // Another caller is not touched by it, and gets its own share.
        for i in 0..3 {
            store.create_now(of(&format!("b{i}"), "10.0.0.2")).unwrap();
        }
        // b's are all running: its next one is refused, a's are untouched.
        let refused = store.create_now(of("b3", "10.0.0.2")).unwrap_err();
        assert!(refused.message().contains("10.0.0.2"), "{refused:?}");
        assert_eq!(store.len(), 6);
        store.lock().remove("b1");
        assert_eq!(store.lock().by_share["10.0.0.2"], ["b0", "b2"]);
    }

    #[test]
    fn expired_tasks_are_swept_long_before_the_store_fills() {
        let store = MemoryTaskStore::new(100_000);
        let old = now_ms() - 10_000;
        for i in 0..SWEEP_EVERY {
            let task = TaskRecord::new(format!("t{i}"), None, old, Some(1), None);
            store.create_now(task).unwrap();
        }
        assert!(store.len() < SWEEP_EVERY, "{} kept", store.len());
    }

    #[test]
    fn an_expired_task_is_neither_read_nor_changed() {
        let store = MemoryTaskStore::new(4);
        let created = now_ms() - 1_000;
        store
            .create_now(TaskRecord::new("t", None, created, Some(500), None))
            .unwrap();
        assert!(
            store
                .update_now("t", &|t| t.status_message = None)
                .is_none()
        );
        assert!(store.get_now("t").is_none());
        assert!(store.is_empty());
    }
}
