//! Where tasks live: the [`TaskStore`] trait, and the in-memory store used by default.

use super::record::TaskRecord;
use super::time::now_ms;
use crate::error::McpError;
use crate::registry::BoxFuture;
use std::collections::HashMap;
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
}

/// The default [`TaskStore`]: the tasks of this process, in memory, at most `capacity` at once
/// (a task whose lifetime is over makes room; a server holding `capacity` live tasks refuses new
/// ones with `-32603`). Expired tasks are also dropped every 256 creations.
#[derive(Debug)]
pub struct MemoryTaskStore {
    tasks: Mutex<HashMap<String, TaskRecord>>,
    capacity: usize,
    /// Tasks created, to sweep expired ones every [`SWEEP_EVERY`] creations.
    created: std::sync::atomic::AtomicUsize,
}

/// Expired tasks are dropped every this many creations (and whenever the store is full), so
/// that a store far from full does not keep them until it fills.
const SWEEP_EVERY: usize = 256;

impl MemoryTaskStore {
    /// A store keeping at most `capacity` tasks.
    pub fn new(capacity: usize) -> Self {
        MemoryTaskStore {
            tasks: Mutex::new(HashMap::new()),
            capacity: capacity.max(1),
            created: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// How many tasks it holds (expired ones included until they are swept).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRecord>> {
        // A panic while holding the lock cannot leave a record half-changed in a way that
        // matters more than losing every task: keep serving.
        self.tasks.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn create_now(&self, task: TaskRecord) -> Result<(), McpError> {
        let mut tasks = self.lock();
        let created = self
            .created
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if tasks.len() >= self.capacity || created % SWEEP_EVERY == SWEEP_EVERY - 1 {
            let now = now_ms();
            tasks.retain(|_, t| !t.is_expired(now));
        }
        if tasks.len() >= self.capacity {
            return Err(McpError::busy("tasks", self.capacity));
        }
        tasks.insert(task.id.clone(), task);
        Ok(())
    }

    fn get_now(&self, id: &str) -> Option<TaskRecord> {
        let mut tasks = self.lock();
        let task = tasks.get(id)?;
        if task.is_expired(now_ms()) {
            tasks.remove(id);
            return None;
        }
        Some(task.clone())
    }

    fn update_now(&self, id: &str, change: TaskChange<'_>) -> Option<TaskRecord> {
        let mut tasks = self.lock();
        let task = tasks.get_mut(id)?;
        if task.is_expired(now_ms()) {
            tasks.remove(id);
            return None;
        }
        change(task);
        Some(task.clone())
    }
}

impl Default for MemoryTaskStore {
    /// At most 10,000 tasks.
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
/// let a = mcp_runtime::Server::builder().task_store(store.clone()).build().unwrap();
/// let b = mcp_runtime::Server::builder().task_store(store).build().unwrap();
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
