//! The tasks extension (`io.modelcontextprotocol/tasks`): a `tools/call` answered with a task
//! handle, and the `tasks/*` methods that poll, answer and cancel it.

use super::input_responses::RawInputResponses;
use super::jsonrpc::ErrorObject;
use super::messages::ResultType;
use super::meta::{RequestMeta, ResultMeta};
use super::method::{ParamStrings, VisitString};
use super::mrtr::InputRequests;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The id of the tasks extension, in `capabilities.extensions` on both sides.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Where a task is in its life.
///
/// ```
/// use mcp_runtime::protocol::TaskStatus;
/// assert_eq!(serde_json::to_value(TaskStatus::InputRequired).unwrap(), "input_required");
/// assert!(TaskStatus::Cancelled.is_terminal());
/// assert!(!TaskStatus::Working.is_terminal());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The tool is running.
    Working,
    /// The tool waits for answers to its `inputRequests` (`tasks/update`).
    InputRequired,
    /// The tool finished; `result` is what the call would have returned.
    Completed,
    /// The call failed with a JSON-RPC error (`error`).
    Failed,
    /// The task was cancelled.
    Cancelled,
}

impl TaskStatus {
    /// Whether nothing follows this status.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// A task as `tasks/get` and `notifications/tasks` show it: the common fields, and what its
/// status carries (`inputRequests`, `result` or `error`).
///
/// ```
/// use mcp_runtime::protocol::{DetailedTask, TaskStatus};
/// let task = DetailedTask::new("t1", TaskStatus::Working, "2026-12-01T10:00:00Z".into());
/// let json = serde_json::to_value(&task).unwrap();
/// assert_eq!(json["status"], "working");
/// assert_eq!(json["ttlMs"], serde_json::Value::Null);
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DetailedTask {
    /// The task's id.
    pub task_id: String,
    /// Its status.
    pub status: TaskStatus,
    /// A human-readable word on the status (the tool's last progress message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created (ISO 8601, UTC).
    pub created_at: String,
    /// When its status or message last changed (ISO 8601, UTC).
    pub last_updated_at: String,
    /// How long it is kept after creation, in milliseconds (`null`: no limit).
    pub ttl_ms: Option<u64>,
    /// How often a client should poll, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// `input_required`: every outstanding input request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// `completed`: the `CallToolResult`, exactly as the call would have returned it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Box<RawValue>>,
    /// `failed`: the JSON-RPC error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

impl DetailedTask {
    /// A task with only its common fields.
    pub fn new(task_id: impl Into<String>, status: TaskStatus, created_at: String) -> Self {
        DetailedTask {
            task_id: task_id.into(),
            status,
            status_message: None,
            last_updated_at: created_at.clone(),
            created_at,
            ttl_ms: None,
            poll_interval_ms: None,
            input_requests: None,
            result: None,
            error: None,
        }
    }
}

/// The answer to a `tools/call` that became a task: the task's common fields, flat, with
/// `resultType: "task"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateTaskResult {
    /// Always [`ResultType::Task`].
    pub result_type: ResultType,
    /// The task's id.
    pub task_id: String,
    /// Its status.
    pub status: TaskStatus,
    /// A word on the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created.
    pub created_at: String,
    /// When it last changed.
    pub last_updated_at: String,
    /// Its lifetime from creation, in milliseconds (`null`: no limit).
    pub ttl_ms: Option<u64>,
    /// How often to poll, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// `_meta` (`serverInfo`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

/// A `tasks/get` result: the detailed task, flat, with `resultType: "complete"`.
///
/// ```
/// use mcp_runtime::protocol::{DetailedTask, GetTaskResult, ResultType, TaskStatus};
/// let task = DetailedTask::new("t1", TaskStatus::Working, "2026-12-01T10:00:00.000Z".into());
/// let result = GetTaskResult::new(task);
/// assert_eq!(result.result_type, ResultType::Complete);
/// let text = serde_json::to_string(&result).unwrap();
/// assert!(text.starts_with(r#"{"resultType":"complete","taskId":"t1","status":"working""#));
/// let back: GetTaskResult = serde_json::from_str(&text).unwrap();
/// assert_eq!(back.task.task_id, "t1");
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetTaskResult {
    /// Always [`ResultType::Complete`].
    pub result_type: ResultType,
    /// The task.
    #[serde(flatten)]
    pub task: DetailedTask,
    /// `_meta` (`serverInfo`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

impl GetTaskResult {
    /// The result showing `task` (`resultType: "complete"`, no `_meta`).
    pub fn new(task: DetailedTask) -> Self {
        GetTaskResult {
            result_type: ResultType::Complete,
            task,
            meta: None,
        }
    }
}

// By hand: `#[serde(flatten)]` serializes through a map on every `tasks/get`; the task's
// fields follow `resultType` directly here (BENCHMARKS.md, "The tasks/get result").
impl Serialize for GetTaskResult {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Flat<'a> {
            result_type: &'a ResultType,
            task_id: &'a str,
            status: TaskStatus,
            #[serde(skip_serializing_if = "Option::is_none")]
            status_message: Option<&'a str>,
            created_at: &'a str,
            last_updated_at: &'a str,
            ttl_ms: Option<u64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            poll_interval_ms: Option<u64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            input_requests: Option<&'a InputRequests>,
            #[serde(skip_serializing_if = "Option::is_none")]
            result: Option<&'a RawValue>,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<&'a ErrorObject>,
            #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
            meta: Option<&'a ResultMeta>,
        }
        let t = &self.task;
        Flat {
            result_type: &self.result_type,
            task_id: &t.task_id,
            status: t.status,
            status_message: t.status_message.as_deref(),
            created_at: &t.created_at,
            last_updated_at: &t.last_updated_at,
            ttl_ms: t.ttl_ms,
            poll_interval_ms: t.poll_interval_ms,
            input_requests: t.input_requests.as_ref(),
            result: t.result.as_deref(),
            error: t.error.as_ref(),
            meta: self.meta.as_ref(),
        }
        .serialize(s)
    }
}

/// `tasks/get` and `tasks/cancel` params.
///
/// ```
/// use mcp_runtime::protocol::TaskIdParams;
/// let p: TaskIdParams = serde_json::from_str(r#"{"taskId": "t1"}"#).unwrap();
/// assert_eq!(p.task_id, "t1");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
    /// Per-request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RequestMeta>>,
}

impl ParamStrings for TaskIdParams {
    fn visit_strings<E>(&self, visit: &mut impl VisitString<E>) -> Result<(), E> {
        let TaskIdParams { task_id, meta: _ } = self;
        visit("task id", task_id)
    }
}

/// `tasks/update` params: answers to the task's outstanding input requests.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UpdateTaskParams<'a> {
    /// The task.
    pub task_id: String,
    /// Answers by input request key (keys not outstanding are ignored).
    #[serde(borrow)]
    pub input_responses: RawInputResponses<'a>,
    /// Per-request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RequestMeta>>,
}

impl ParamStrings for UpdateTaskParams<'_> {
    fn visit_strings<E>(&self, visit: &mut impl VisitString<E>) -> Result<(), E> {
        let UpdateTaskParams {
            task_id,
            input_responses: _,
            meta: _,
        } = self;
        visit("task id", task_id)
    }
}

/// The acknowledgement of `tasks/update` and `tasks/cancel`: `{"resultType": "complete"}`.
///
/// ```
/// use mcp_runtime::protocol::{EmptyResult, ResultType};
/// let ack = EmptyResult { result_type: ResultType::Complete, meta: None };
/// assert_eq!(serde_json::to_string(&ack).unwrap(), r#"{"resultType":"complete"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmptyResult {
    /// Always [`ResultType::Complete`].
    pub result_type: ResultType,
    /// `_meta` (`serverInfo`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

/// `notifications/tasks` params: the whole task, and the subscription it is sent on.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskNotificationParams {
    /// The task.
    #[serde(flatten)]
    pub task: DetailedTask,
    /// `_meta` (the subscription id).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<super::meta::NotificationMeta>,
}
