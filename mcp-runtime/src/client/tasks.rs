//! The tasks extension's calls of a [`Client`]: a tool called as a task, and the task read,
//! answered and cancelled, or waited for to the end.

use super::api::{Client, parse};
use super::error::ClientError;
use crate::protocol::{CallToolResult, ErrorObject, InputRequests, TASKS_EXTENSION};
use serde_json::{Value, json};
use std::time::Duration;

/// The shortest and longest waits between two `tasks/get`, whatever the server asks.
const POLL_FLOOR: Duration = Duration::from_millis(10);
const POLL_CEILING: Duration = Duration::from_secs(5);

/// The wait a task (or its creation) asks for before the next `tasks/get`, within bounds.
fn poll_interval(task: &Value, before: Duration) -> Duration {
    task["pollIntervalMs"]
        .as_u64()
        .map_or(before, Duration::from_millis)
        .clamp(POLL_FLOOR, POLL_CEILING)
}

impl Client {
    /// Calls a tool declaring the tasks extension and returns the server's answer as is: a
    /// `resultType: "task"` result (`{"taskId": …, "status": …}`) when the server ran it as a task,
    /// the tool's result otherwise. Read the task with [`get_task`](Client::get_task).
    ///
    /// ```no_run
    /// # async fn demo(client: mcp_runtime::testing::TestClient) {
    /// let created = client.call_tool_as_task("reindex", serde_json::json!({})).await.unwrap();
    /// let id = created["taskId"].as_str().unwrap();
    /// let task = client.get_task(id).await.unwrap();
    /// # }
    /// ```
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<Value, ClientError> {
        let params = json!({"name": name, "arguments": arguments});
        self.request_declaring_tasks("tools/call", params).await
    }

    /// Calls a tool as a task and waits for its end: the tool's result (an `isError` one too),
    /// the task's JSON-RPC error as [`ClientError::Rpc`], or an error when it was cancelled. The
    /// server's requests for input are answered from the client's configured answers, before
    /// the task starts and while it runs (`tasks/update`); `tasks/get` is polled at the interval
    /// the server asks (between 10 ms and 5 s). A server that runs the tool at once answers at
    /// once. It waits as long as the task runs: bound it with `tokio::time::timeout`.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # if !cfg!(feature = "tasks") { return; } // a task tool needs the `tasks` feature
    /// use mcp_runtime::testing::TestClient;
    /// use mcp_runtime::{NoArguments, Server, TaskSupport, Tool};
    /// let server = Server::builder()
    ///     .tool(
    ///         Tool::new("reindex")
    ///             .task(TaskSupport::Optional)
    ///             .handler(|_: NoArguments, _cx| async { "reindexed 3 notes" }),
    ///     )
    ///     .build()
    ///     .unwrap();
    /// let client = TestClient::new(server);
    /// let result = client.run_tool_as_task("reindex", serde_json::json!({})).await.unwrap();
    /// assert_eq!(result.text(), "reindexed 3 notes");
    /// # }
    /// ```
    pub async fn run_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ClientError> {
        let params = json!({"name": name, "arguments": arguments});
        let created = self.request_answering("tools/call", params, true).await?;
        if created["resultType"] != "task" {
            return parse(created);
        }
        let id = created["taskId"]
            .as_str()
            .ok_or_else(|| ClientError::Protocol(format!("a task without a taskId: {created}")))?
            .to_owned();
        let mut wait = poll_interval(&created, POLL_FLOOR);
        loop {
            tokio::time::sleep(wait).await;
            let mut task = self.get_task(&id).await?;
            wait = poll_interval(&task, wait);
            match task["status"].as_str() {
                Some("completed") => return parse(task["result"].take()),
                Some("failed") => {
                    let error: ErrorObject = parse(task["error"].take())?;
                    return Err(ClientError::Rpc(error));
                }
                Some("cancelled") => {
                    return Err(ClientError::Unexpected(format!("task {id} was cancelled")));
                }
                Some("input_required") => {
                    let asked: Option<InputRequests> = parse(task["inputRequests"].take())?;
                    let answers = self.answer_all(asked.as_ref())?;
                    self.update_task(&id, answers).await?;
                }
                _ => {}
            }
        }
    }

    /// `tasks/get`: the task as the server shows it now (with its `result` once completed).
    pub async fn get_task(&self, task_id: &str) -> Result<Value, ClientError> {
        self.request_declaring_tasks("tasks/get", json!({"taskId": task_id}))
            .await
    }

    /// `tasks/update`: answers the task's outstanding input requests (key → answer).
    pub async fn update_task(&self, task_id: &str, responses: Value) -> Result<Value, ClientError> {
        let params = json!({"taskId": task_id, "inputResponses": responses});
        self.request_declaring_tasks("tasks/update", params).await
    }

    /// `tasks/cancel`.
    pub async fn cancel_task(&self, task_id: &str) -> Result<Value, ClientError> {
        self.request_declaring_tasks("tasks/cancel", json!({"taskId": task_id}))
            .await
    }

    /// `method` with the tasks extension declared beside the client's capabilities.
    pub(super) async fn request_declaring_tasks(
        &self,
        method: &str,
        mut params: Value,
    ) -> Result<Value, ClientError> {
        let mut caps = serde_json::to_value(self.declared_capabilities()).unwrap_or_default();
        caps["extensions"][TASKS_EXTENSION] = json!({});
        params["_meta"] = json!({"io.modelcontextprotocol/clientCapabilities": caps});
        self.request(method, params).await
    }
}
