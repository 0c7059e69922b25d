//! The methods of the tasks extension, `tasks/get`, `tasks/update`, `tasks/cancel`: a task read,
//! answered or cancelled through any instance, by the caller that created it only, and only by a
//! client that declares the tasks extension on the request.

use super::extension::{declares_tasks, tasks_not_declared};
use super::lease;
use crate::bus::Change;
use crate::context::RequestContext;
use crate::dispatch::authorize;
use crate::dispatch::dispatcher::Dispatcher;
use crate::dispatch::encode::Response;
use crate::dispatch::work::Prepared;
use crate::error::McpError;
use crate::protocol::{
    EmptyResult, GetTaskResult, InputResponse, Method, ResultType, TaskStatus, UpdateTaskParams,
};
use crate::registry::PrimitiveKind;
use crate::tasks::TaskRecord;
use crate::tasks::time::now_ms;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Which `tasks/*` method a request is, with what only it carries: what `route` passes, so
/// that the method is not matched again here.
pub(crate) enum TaskMethod {
    /// `tasks/get`.
    Get,
    /// `tasks/update`, with the answers it brings (read by [`read_answers`]).
    Update(Map<String, Value>),
    /// `tasks/cancel`.
    Cancel,
}

impl TaskMethod {
    fn method(&self) -> Method {
        match self {
            TaskMethod::Get => Method::TasksGet,
            TaskMethod::Update(_) => Method::TasksUpdate,
            TaskMethod::Cancel => Method::TasksCancel,
        }
    }
}

/// Prepares a `tasks/*` request: the extension declared, the answers read; the store is
/// asked when it runs.
#[deny(clippy::wildcard_enum_match_arm)] // a new method asks for its arm here
pub(crate) fn prepare(
    d: &Arc<Dispatcher>,
    task: TaskMethod,
    task_id: String,
    cx: RequestContext,
) -> Result<Prepared, McpError> {
    let method = task.method();
    if !declares_tasks(&cx) {
        return Err(tasks_not_declared(&format!("`{method}`")));
    }
    #[cfg(feature = "mounts")]
    if let Some(relayed) = d.relayed_tasks.get().filter(|r| r.owns(&task_id)) {
        let answers = match task {
            TaskMethod::Update(answers) => Some(answers),
            TaskMethod::Get | TaskMethod::Cancel => None,
        };
        let answered = relayed.relay(method, task_id, answers, cx.clone());
        let meta = d.result_meta();
        return Ok(Prepared::Pending(Box::pin(async move {
            let mut result = answered.await?;
            if let (Some(fields), Some(meta)) = (result.as_object_mut(), meta) {
                fields.insert(
                    "_meta".into(),
                    serde_json::to_value(meta).unwrap_or_default(),
                );
            }
            Ok(Response::result(cx.request_id(), &result))
        })));
    }
    let d = d.clone();
    Ok(Prepared::Pending(Box::pin(async move {
        let id = cx.request_id();
        let owner = cx.caller().map(|c| c.binding_key().to_string());
        match task {
            TaskMethod::Get => {
                let task = owned_task(&d, &task_id, owner.as_deref()).await?;
                task_scopes(&d, &task, &cx)?;
                let result = GetTaskResult {
                    result_type: ResultType::Complete,
                    task: task.into_detailed(),
                    meta: d.result_meta(),
                };
                Ok(Response::result(id, &result))
            }
            TaskMethod::Update(answers) => {
                let task = owned_task(&d, &task_id, owner.as_deref()).await?;
                task_scopes(&d, &task, &cx)?;
                check_answers(&task, &answers)?;
                let now = now_ms();
                let change = |t: &mut TaskRecord| take_answers(t, &answers, now);
                let changed = d.tasks.update(&task_id, &change).await?;
                if changed.is_none() {
                    return Err(unknown_task(&task_id));
                }
                d.changes.publish(Change::Task(task_id));
                Ok(Response::result(id, &empty(&d)))
            }
            TaskMethod::Cancel => {
                let task = owned_task(&d, &task_id, owner.as_deref()).await?;
                task_scopes(&d, &task, &cx)?;
                // Cancelling a finished task changes nothing, and is acknowledged alike.
                if !task.status.is_terminal() {
                    let now = now_ms();
                    let change = |t: &mut TaskRecord| {
                        if t.set_status(TaskStatus::Cancelled, now) {
                            t.status_message = Some("Cancelled by the client".into());
                        }
                    };
                    d.tasks.update(&task_id, &change).await?;
                    d.changes.publish(Change::Task(task_id));
                }
                Ok(Response::result(id, &empty(&d)))
            }
        }
    })))
}

/// The task, when it exists and `owner` created it: another caller's task is as unknown as
/// one that never existed.
pub(crate) async fn owned_task(
    d: &Dispatcher,
    id: &str,
    owner: Option<&str>,
) -> Result<TaskRecord, McpError> {
    let task = match d.tasks.get(id).await? {
        Some(task) if task.owner.as_deref() == owner => task,
        _ => return Err(unknown_task(id)),
    };
    lease::reap_if_lost(d, task)
        .await?
        .ok_or_else(|| unknown_task(id))
}

/// The caller still has the scopes of the task's tool (a token that lost them since the
/// task was created reads, answers and cancels it no more): the refusal of a call otherwise.
pub(crate) fn task_scopes(
    d: &Dispatcher,
    task: &TaskRecord,
    cx: &RequestContext,
) -> Result<(), McpError> {
    let Some(tool) = &task.tool else {
        return Ok(());
    };
    let reg = d.registry();
    match reg.tool_index.get(tool.as_str()) {
        Some(&i) => {
            authorize::check_scopes(&reg.tools[i].tool.access, cx, PrimitiveKind::Tool, tool)
        }
        None => Ok(()),
    }
}

/// The empty result of `tasks/update` and `tasks/cancel`.
fn empty(d: &Dispatcher) -> EmptyResult {
    EmptyResult {
        result_type: ResultType::Complete,
        meta: d.result_meta(),
    }
}

/// The answers of `tasks/update`, as sent.
pub(crate) fn read_answers(params: &UpdateTaskParams<'_>) -> Map<String, Value> {
    let mut answers = Map::new();
    for (key, raw) in params.input_responses.0.iter() {
        // A `RawValue` holds valid JSON: it always reads back.
        if let Ok(value) = serde_json::from_str::<Value>(raw.get()) {
            answers.insert(key.to_owned(), value);
        }
    }
    answers
}

/// Each answer to an outstanding question must be an elicitation, sampling or roots result
/// (the handler decodes it into its own type later); answers under other keys are ignored,
/// unread.
fn check_answers(task: &TaskRecord, answers: &Map<String, Value>) -> Result<(), McpError> {
    let Some(asked) = &task.input_requests else {
        return Ok(());
    };
    for (key, answer) in answers {
        if asked.get(key).is_some() && InputResponse::deserialize(answer).is_err() {
            return Err(McpError::invalid_params(format!(
                "Invalid params: the answer under `{key}` is not an elicitation, sampling or roots result"
            )));
        }
    }
    Ok(())
}

/// Moves the answers to outstanding questions into the task (others are ignored); once none
/// is outstanding, the task works again.
fn take_answers(t: &mut TaskRecord, answers: &Map<String, Value>, now: u64) {
    if t.status != TaskStatus::InputRequired {
        return;
    }
    let Some(asked) = t.input_requests.as_mut() else {
        return;
    };
    for (key, answer) in answers {
        if asked.remove(key).is_some() {
            t.answers.insert(key.clone(), answer.clone());
        }
    }
    if asked.is_empty() {
        t.set_status(TaskStatus::Working, now);
    }
}

/// `-32602`: no such task (or not the caller's, or its lifetime is over).
fn unknown_task(id: &str) -> McpError {
    McpError::invalid_params(format!(
        "Unknown task: `{id}` (it does not exist, it expired, or it belongs to another caller)"
    ))
}
