//! A tool handler's outcome as it is answered: the `CallToolResult` finished (its `resultType`,
//! `isError` and `_meta`), or the `input_required` round it asked for; and the outcome of a
//! handler that panicked. Shared by the `tools` family (a call answered at once) and the `tasks`
//! family (a task keeps the finished result).

use super::dispatcher::Dispatcher;
use super::encode::Response;
use super::round;
use crate::protocol::{CallToolResult, RequestId, ResultType};
use crate::registry::{ToolEntry, ToolOutcome};

/// A handler's outcome as the call answers it.
pub(super) fn answer(d: &Dispatcher, id: &RequestId, outcome: ToolOutcome) -> Response {
    match outcome {
        ToolOutcome::Complete(mut result) => {
            finish(d, &mut result);
            Response::tool_result(id, &result)
        }
        ToolOutcome::InputRequired(r) => round::input_required(d, id, r),
        ToolOutcome::RelayedTask(mut task) => {
            if let (Some(fields), Some(meta)) = (task.0.as_object_mut(), d.result_meta()) {
                fields.insert(
                    "_meta".into(),
                    serde_json::to_value(meta).unwrap_or_default(),
                );
            }
            Response::result(id, &task.0)
        }
    }
}

/// A handler's `CallToolResult` as the call answers it (and a task keeps it).
pub(super) fn finish(d: &Dispatcher, result: &mut CallToolResult) {
    result.result_type = ResultType::Complete;
    if !d.config.explicit_is_error && result.is_error == Some(false) {
        result.is_error = None;
    }
    if result.meta.is_none() {
        result.meta = d.result_meta();
    }
}

/// The answer when a tool handler panicked (logged; the message stays on the server).
pub(super) fn panicked(entry: &ToolEntry, msg: &str) -> ToolOutcome {
    let name = &entry.tool.info.name;
    tracing::error!(tool = %name, panic = %msg, "tool handler panicked");
    ToolOutcome::Complete(CallToolResult::error(format!(
        "Tool `{name}` failed unexpectedly (the handler panicked)."
    )))
}
