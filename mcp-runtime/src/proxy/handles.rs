//! A mounted server's task handed to the front client: its id sealed with this server's key
//! together with the mount it belongs to and the caller it was made for, so any instance with
//! the key answers `tasks/*` for it by asking that mount, and no other caller can name it.

use super::relay::{Backend, SharedBackend};
use crate::context::RequestContext;
use crate::dispatch::RelayedTasks;
use crate::error::McpError;
use crate::protocol::{Method, TASKS_EXTENSION};
use crate::registry::BoxFuture;
use crate::seal::KeyRing;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// What a relayed task's id starts with.
const PREFIX: &str = "relayed.";

/// What a handle holds.
#[derive(Serialize, Deserialize)]
struct Handle {
    /// The mount's name.
    #[serde(rename = "m")]
    mount: String,
    /// The task's id at the mount.
    #[serde(rename = "t")]
    task: String,
    /// The binding key of the caller it was made for.
    #[serde(rename = "o", default, skip_serializing_if = "Option::is_none")]
    owner: Option<String>,
}

fn owner(cx: &RequestContext) -> Option<String> {
    cx.caller().map(|c| c.binding_key().to_string())
}

/// The mounted server's task result as the front client gets it: its id made a handle.
pub(crate) fn hand_on(
    backend: &Backend,
    cx: &RequestContext,
    mut result: Value,
) -> Result<Value, McpError> {
    let ring = &cx.input()?.sealer.ring;
    let inner = task_id(&result).ok_or_else(|| {
        McpError::internal(format!(
            "the mounted server `{}` answered a task without a taskId",
            backend.name
        ))
    })?;
    let handle = Handle {
        mount: backend.name.clone(),
        task: inner,
        owner: owner(cx),
    };
    let sealed = ring.seal(&serde_json::to_vec(&handle).unwrap_or_default())?;
    set_task_id(&mut result, &format!("{PREFIX}{sealed}"));
    Ok(result)
}

fn task_id(result: &Value) -> Option<String> {
    result["taskId"]
        .as_str()
        .or_else(|| result["task"]["taskId"].as_str())
        .map(str::to_owned)
}

fn set_task_id(result: &mut Value, id: &str) {
    if result.get("taskId").is_some() {
        result["taskId"] = json!(id);
    }
    if let Some(task) = result.get_mut("task").and_then(Value::as_object_mut)
        && task.contains_key("taskId")
    {
        task.insert("taskId".into(), json!(id));
    }
}

/// Answers `tasks/*` for handles, by asking the mount each belongs to.
pub(crate) struct TaskRelay {
    pub(crate) ring: KeyRing,
    pub(crate) backends: Vec<SharedBackend>,
}

impl RelayedTasks for TaskRelay {
    fn owns(&self, task_id: &str) -> bool {
        task_id.starts_with(PREFIX)
    }

    fn relay(
        &self,
        method: Method,
        task_id: String,
        answers: Option<Map<String, Value>>,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let unknown = || McpError::invalid_params(format!("Unknown task: {task_id}"));
        let handle = task_id
            .strip_prefix(PREFIX)
            .and_then(|sealed| self.ring.open(sealed).ok())
            .and_then(|bytes| crate::json::from_bytes::<Handle>(&bytes).ok())
            .filter(|h| h.owner == owner(&cx));
        let backend = handle
            .as_ref()
            .and_then(|h| self.backends.iter().find(|b| b.name == h.mount).cloned());
        let (Some(handle), Some(backend)) = (handle, backend) else {
            let refused = unknown();
            return Box::pin(async move { Err(refused) });
        };
        Box::pin(async move {
            let mut caps = serde_json::to_value(cx.client_capabilities()).unwrap_or_default();
            caps["extensions"][TASKS_EXTENSION] = json!({});
            let mut params = json!({
                "taskId": handle.task,
                "_meta": {"io.modelcontextprotocol/clientCapabilities": caps},
            });
            if let Some(answers) = answers {
                params["inputResponses"] = Value::Object(answers);
            }
            let mut result = backend.call(&cx, method.name(), params).await?;
            set_task_id(&mut result, &task_id);
            if let Some(fields) = result.as_object_mut() {
                fields.remove("_meta");
            }
            Ok(result)
        })
    }
}
