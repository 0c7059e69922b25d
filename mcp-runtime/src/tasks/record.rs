//! What a task store keeps of one task ([`TaskRecord`]), and how a client sees it.

use super::time::iso8601;
use crate::protocol::{DetailedTask, ErrorObject, InputRequests, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// One task as a [`TaskStore`](super::TaskStore) keeps it. Serializes to JSON, so that a store
/// over an external engine can keep it as one value.
///
/// ```
/// use mcp_runtime::tasks::TaskRecord;
/// use mcp_runtime::protocol::TaskStatus;
/// let task = TaskRecord::new("t1", None, 0, Some(60_000), Some(1_000));
/// assert_eq!(task.status, TaskStatus::Working);
/// assert_eq!(task.detailed().created_at, "1970-01-01T00:00:00.000Z");
/// assert!(task.is_expired(60_000) && !task.is_expired(59_999));
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task id (128 random bits, hex).
    pub id: String,
    /// Who created it (the caller's binding key), when the server authenticates callers: only
    /// that caller may see or change it.
    pub owner: Option<String>,
    /// Its status.
    pub status: TaskStatus,
    /// A word on the status (the handler's last progress message).
    pub status_message: Option<String>,
    /// Creation time, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// Last change of status or message, in milliseconds since the Unix epoch.
    pub updated_ms: u64,
    /// Lifetime from creation (`None`: kept until the store is cleared).
    pub ttl_ms: Option<u64>,
    /// How often clients should poll.
    pub poll_interval_ms: Option<u64>,
    /// The outstanding input requests (`input_required`), by the keys the client sees.
    pub input_requests: Option<InputRequests>,
    /// Answers received for input requests, not yet handed to the handler.
    pub answers: Map<String, Value>,
    /// `completed`: the `CallToolResult`, as the call would have sent it.
    pub result: Option<Box<RawValue>>,
    /// `failed`: the JSON-RPC error.
    pub error: Option<ErrorObject>,
    /// Until when, in milliseconds since the Unix epoch, the instance running the task's handler
    /// holds it. That instance renews it while the task runs; a task not yet terminal whose
    /// lease has passed lost its runner (the instance stopped) and is failed by whichever
    /// instance reads it next.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_until_ms: Option<u64>,
    /// Whose share of the store it counts against: the creating caller, or the address of an
    /// anonymous client (`None`: a client with neither, such as stdio). A store keeps at most so
    /// many tasks for one share ([`Limits::stored_tasks_per_caller`](crate::Limits::stored_tasks_per_caller)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<String>,
    /// The tool it runs: whoever reads, answers or cancels it must still have that tool's
    /// scopes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

impl TaskRecord {
    /// A `working` task created at `now_ms`.
    pub fn new(
        id: impl Into<String>,
        owner: Option<String>,
        now_ms: u64,
        ttl_ms: Option<u64>,
        poll_interval_ms: Option<u64>,
    ) -> Self {
        TaskRecord {
            id: id.into(),
            owner,
            status: TaskStatus::Working,
            status_message: None,
            created_ms: now_ms,
            updated_ms: now_ms,
            ttl_ms,
            poll_interval_ms,
            input_requests: None,
            answers: Map::new(),
            result: None,
            error: None,
            lease_until_ms: None,
            share: None,
            tool: None,
        }
    }

    /// Whether the instance that ran it is gone at `now_ms`: the task is not terminal and its
    /// lease has passed.
    ///
    /// ```
    /// use mcp_runtime::tasks::TaskRecord;
    /// let mut task = TaskRecord::new("t1", None, 0, None, None);
    /// task.lease_until_ms = Some(10_000);
    /// assert!(!task.runner_lost(10_000) && task.runner_lost(10_001));
    /// ```
    pub fn runner_lost(&self, now_ms: u64) -> bool {
        !self.status.is_terminal() && self.lease_until_ms.is_some_and(|until| now_ms > until)
    }

    /// Whether its lifetime is over at `now_ms`.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.ttl_ms
            .is_some_and(|ttl| now_ms >= self.created_ms.saturating_add(ttl))
    }

    /// When its lifetime ends, in milliseconds since the Unix epoch.
    pub fn expires_ms(&self) -> Option<u64> {
        self.ttl_ms.map(|ttl| self.created_ms.saturating_add(ttl))
    }

    /// Moves it to `status` at `now_ms` (a terminal task never moves again): whether it moved.
    pub fn set_status(&mut self, status: TaskStatus, now_ms: u64) -> bool {
        if self.status.is_terminal() {
            return false;
        }
        if status != TaskStatus::InputRequired {
            self.input_requests = None;
        }
        self.status = status;
        self.updated_ms = now_ms;
        true
    }

    /// How `tasks/get` and `notifications/tasks` show it.
    pub fn detailed(&self) -> DetailedTask {
        self.clone().into_detailed()
    }

    /// How `tasks/get` and `notifications/tasks` show it, taking the record apart.
    pub fn into_detailed(self) -> DetailedTask {
        let status = self.status;
        DetailedTask {
            task_id: self.id,
            status,
            status_message: self.status_message,
            created_at: iso8601(self.created_ms),
            last_updated_at: iso8601(self.updated_ms),
            ttl_ms: self.ttl_ms,
            poll_interval_ms: self.poll_interval_ms,
            input_requests: self
                .input_requests
                .filter(|_| status == TaskStatus::InputRequired),
            result: self.result.filter(|_| status == TaskStatus::Completed),
            error: self.error.filter(|_| status == TaskStatus::Failed),
        }
    }
}
