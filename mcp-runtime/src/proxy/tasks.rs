//! A task tool of a mounted server, called through this server: this server runs its own task
//! (its store, so any instance reads it), whose handler follows the mounted server's task:
//! polled until it ends, its input requests handed to the front client as this task's, their
//! answers passed on with `tasks/update`, a cancellation passed on with `tasks/cancel`.

use super::relay::{Backend, Relayed};
use crate::context::RequestContext;
use crate::error::McpError;
use crate::registry::ToolOutcome;
use serde_json::{Value, json};
use std::time::Duration;

/// How often a mounted server's task is polled, unless it asks for a different interval
/// (clamped to 100 ms – 5 s).
const POLL: Duration = Duration::from_millis(500);

/// Follows the mounted server's task `id` to its end. `answering`: this round carries the front
/// client's answers to the task's input requests, passed on first.
pub(crate) async fn follow_task(
    backend: &Backend,
    cx: &RequestContext,
    id: String,
    answering: bool,
) -> Result<ToolOutcome, McpError> {
    if answering {
        let answers = Backend::answers(cx);
        let params = json!({"taskId": id, "inputResponses": answers, "_meta": tasks_meta(cx)});
        backend.call(cx, "tasks/update", params).await?;
    }
    let cancelled = cx.cancellation();
    let mut reports = 0.0;
    loop {
        let params = json!({"taskId": id, "_meta": tasks_meta(cx)});
        let polled = tokio::select! {
            polled = backend.call(cx, "tasks/get", params) => polled,
            () = cancelled.cancelled() => return Err(cancel(backend, cx, &id).await),
        };
        let polled = polled?;
        let task = match polled.get("task") {
            Some(task) => task.clone(),
            None => polled.clone(),
        };
        match task["status"].as_str().unwrap_or("") {
            "completed" => {
                let result = task.get("result").cloned().unwrap_or(Value::Null);
                return backend.tool_result(result);
            }
            "failed" => {
                let error = &task["error"];
                return Err(McpError::new(
                    error["code"].as_i64().unwrap_or(-32603) as i32,
                    error["message"]
                        .as_str()
                        .unwrap_or("the mounted server's task failed")
                        .to_owned(),
                ));
            }
            "cancelled" => {
                return Err(McpError::internal(format!(
                    "the task of the mounted server `{}` was cancelled",
                    backend.name
                )));
            }
            "input_required" => {
                let asked = json!({
                    "resultType": "input_required",
                    "inputRequests": task["inputRequests"].clone(),
                });
                return match backend.answer(cx, asked, Some(&id))? {
                    Relayed::Ask(asked) => Ok(ToolOutcome::InputRequired(asked)),
                    Relayed::Complete(_) => Err(McpError::internal("unreachable")),
                };
            }
            _ => {}
        }
        if let Some(message) = task["statusMessage"].as_str() {
            reports += 1.0;
            cx.progress().report(reports, None, Some(message));
        }
        let wait = task["pollIntervalMs"]
            .as_u64()
            .map(Duration::from_millis)
            .unwrap_or(POLL)
            .clamp(Duration::from_millis(100), Duration::from_secs(5));
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = cancelled.cancelled() => return Err(cancel(backend, cx, &id).await),
        }
    }
}

/// The `_meta` of a task method: the front client's capabilities with the tasks extension.
fn tasks_meta(cx: &RequestContext) -> Value {
    let mut caps = serde_json::to_value(cx.client_capabilities()).unwrap_or_default();
    caps["extensions"][crate::protocol::TASKS_EXTENSION] = json!({});
    json!({"io.modelcontextprotocol/clientCapabilities": caps})
}

async fn cancel(backend: &Backend, cx: &RequestContext, id: &str) -> McpError {
    let params = json!({"taskId": id, "_meta": tasks_meta(cx)});
    let _ = backend.client.request("tasks/cancel", params).await;
    McpError::internal("the task was cancelled")
}
