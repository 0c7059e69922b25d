//! The tasks extension's calls of a [`Client`]: a tool called as a task, and the task read,
//! answered and cancelled.

use super::api::Client;
use super::error::ClientError;
use crate::protocol::TASKS_EXTENSION;
use serde_json::{Value, json};

impl Client {
    /// Calls a tool declaring the tasks extension and returns the server's answer as is: a
    /// `resultType: "task"` result (`{"task": {"taskId": …}}`) when the server ran it as a task,
    /// the tool's result otherwise. Read the task with [`get_task`](Client::get_task).
    ///
    /// ```no_run
    /// # async fn demo(client: mcp_runtime::testing::TestClient) {
    /// let created = client.call_tool_as_task("reindex", serde_json::json!({})).await.unwrap();
    /// let id = created["task"]["taskId"].as_str().unwrap();
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
    async fn request_declaring_tasks(
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
