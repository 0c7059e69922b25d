//! Task leases. The instance running a task's handler holds the task by a lease in the store,
//! renewed while it runs; a task not yet terminal whose lease has passed lost its runner (the
//! instance was killed or crashed) and is failed by the first instance that reads it. A
//! runner's final write is tried again while the store is unreachable, so that a store restart
//! does not leave a finished task `working`; and a lease runs from the store's return at the
//! earliest ([`TaskStore::reachable_since_ms`](crate::tasks::TaskStore::reachable_since_ms)),
//! so that a store restart does not fail the tasks of live runners.

use crate::bus::Change;
use crate::dispatch::dispatcher::Dispatcher;
use crate::error::McpError;
use crate::protocol::TaskStatus;
use crate::tasks::TaskChange;
use crate::tasks::TaskRecord;
use crate::tasks::time::now_ms;
use std::time::Duration;

/// The longest wait between two tries of a runner's final write (shorter with a short lease:
/// at most a third of it).
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// When a lease taken now ends.
pub(super) fn lease_from_now(d: &Dispatcher) -> u64 {
    now_ms().saturating_add(d.config.task_lease_ms)
}

/// How often a runner renews its lease: a third of it, so that one or two failed renewals
/// (a store restarting) do not lose the task.
pub(super) fn lease_renewal(d: &Dispatcher) -> Duration {
    Duration::from_millis((d.config.task_lease_ms / 3).max(1))
}

/// Renews the lease of task `id`: the task as it stands (`None`: it is gone).
pub(super) async fn renew_lease(d: &Dispatcher, id: &str) -> Result<Option<TaskRecord>, McpError> {
    let until = lease_from_now(d);
    let change = |t: &mut TaskRecord| {
        if !t.status.is_terminal() {
            t.lease_until_ms = Some(until);
        }
    };
    d.tasks.update(id, &change).await
}

/// `task` as clients should see it: failed first when its runner is gone (`None`: it
/// expired meanwhile).
pub(super) async fn reap_if_lost(
    d: &Dispatcher,
    task: TaskRecord,
) -> Result<Option<TaskRecord>, McpError> {
    let now = now_ms();
    if !task.runner_lost(now) {
        return Ok(Some(task));
    }
    // No runner can renew its lease while the store is away: a lease runs from the store's
    // return at the earliest, so that a store restart fails no task whose runner lives.
    let back = d.tasks.reachable_since_ms().await?;
    if back.saturating_add(d.config.task_lease_ms) >= now {
        return Ok(Some(task));
    }
    let error = McpError::internal(
        "The server instance running this task stopped before the task finished; \
             call the tool again to start it anew",
    )
    .to_error_object();
    let change = |t: &mut TaskRecord| {
        // Renewed meanwhile (a slow runner, not a gone one): left as it is.
        if t.runner_lost(now) && t.set_status(TaskStatus::Failed, now) {
            t.error = Some(error.clone());
            t.status_message = Some("Its server instance stopped".into());
            t.lease_until_ms = None;
        }
    };
    let reaped = d.tasks.update(&task.id, &change).await?;
    if reaped.is_some() {
        tracing::warn!(
            target: "mcp_runtime::tasks",
            task = %task.id,
            "a task's runner is gone (its lease passed): the task is failed"
        );
        d.changes.publish(Change::Task(task.id));
    }
    Ok(reaped)
}

/// Applies a runner's `change` to task `id`, trying again while the store is unreachable,
/// until the store takes it, `deadline` (the task's end of life) passes or the server
/// stops.
pub(super) async fn update_until_kept(
    d: &Dispatcher,
    id: &str,
    change: TaskChange<'_>,
    deadline: Option<tokio::time::Instant>,
) -> Result<Option<TaskRecord>, McpError> {
    let mut wait = Duration::from_millis(50);
    loop {
        let error = match d.tasks.update(id, change).await {
            Err(e) => e,
            kept => return kept,
        };
        tracing::warn!(
            target: "mcp_runtime::tasks",
            task = %id,
            error = %error.message(),
            "the task store did not take a task's outcome; trying again"
        );
        let next = tokio::time::Instant::now() + wait;
        if deadline.is_some_and(|at| next >= at) {
            return Err(error);
        }
        tokio::select! {
            () = tokio::time::sleep_until(next) => {}
            () = d.halt.cancelled() => return Err(error),
        }
        // Within a third of a lease of the store's return, the outcome is written.
        wait = (wait * 2).min(MAX_BACKOFF).min(lease_renewal(d));
    }
}
