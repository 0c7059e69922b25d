//! The `tools` family, `tools/call`: find the tool, check its arguments (an object; the
//! transport's mirrored headers; the input schema), open its client input, run the handler,
//! answer. A task tool called by a client that declares the tasks extension runs as a task
//! (`tasks::start`, feature `tasks`).

#[cfg(feature = "tasks")]
use super::tasks;
use super::tasks::{declares_tasks, tasks_not_declared};
use crate::context::RequestContext;
use crate::dispatch::authorize::{self, Target};
use crate::dispatch::dispatcher::{Dispatcher, TransportChecks};
use crate::dispatch::encode::Response;
use crate::dispatch::panic::{catch_panic, panic_message};
use crate::dispatch::round::{self, Round};
use crate::dispatch::tool_result;
use crate::dispatch::trace::{Handler, handler_span};
use crate::dispatch::work::{Prepared, PreparedTool, StartedTool, Work};
use crate::error::McpError;
use crate::protocol::{CallToolRequestParams, CallToolResult, Method};
use crate::registry::{Arguments, PrimitiveKind, Registry, TaskSupport, ToolCall, ToolHandler};
use crate::schema::Checked;
use serde_json::value::RawValue;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::{Context, Poll};
use tracing::Instrument;

/// Everything of a `tools/call` before its handler, synchronously: the tool found, its
/// arguments checked, its client input opened.
#[inline(always)]
pub(crate) fn prepare(
    d: &Dispatcher,
    reg: &Registry,
    params: CallToolRequestParams<'_>,
    cx: RequestContext,
    checks: Option<&dyn TransportChecks>,
) -> Result<Prepared, McpError> {
    let Some(entry) = reg
        .tool_index
        .get(&params.name)
        .map(|&i| reg.tools[i].clone())
    else {
        return Err(McpError::invalid_params(format!(
            "Unknown tool: {}",
            params.name
        )));
    };
    authorize::check_scopes(&entry.tool.access, &cx, PrimitiveKind::Tool, &params.name)?;
    if entry.tool.task == TaskSupport::Required && !declares_tasks(&cx) {
        let what = format!("Tool `{}` runs only as a task: it", params.name);
        return Err(tasks_not_declared(&what));
    }
    // The text is one JSON value (serde_json delimited it): its first byte tells its type.
    let arguments = match params.arguments.map(RawValue::get) {
        None | Some("null") => Arguments::empty(),
        Some(raw) if raw.starts_with('{') => Arguments::from_raw_object(Arc::from(raw)),
        Some(_) => {
            return Err(McpError::invalid_params(format!(
                "Invalid params: `arguments` of tool `{}` must be an object",
                params.name
            )));
        }
    };
    let validator = &entry.validator;
    // The text was delimited without reading it: what the checks below read must be
    // readable, or they would see an empty object (found by the hostile-input suite: a
    // value nested past the recursion limit skipped the `Mcp-Param-*` check).
    let unreadable = |e: String| {
        McpError::invalid_params(format!(
            "Invalid params: the arguments of tool `{}` cannot be read: {e}",
            params.name
        ))
    };
    if !entry.headers.is_empty() {
        arguments.try_value().map_err(unreadable)?;
    }
    if let Some(checks) = checks
        && !entry.headers.is_empty()
    {
        checks.check_arguments(&entry.headers, arguments.as_map())?;
    }
    let checked = validator.check(arguments.json()).map_err(unreadable)?;
    if let Checked::Invalid(problems) = checked {
        let mut result = CallToolResult::error(format!(
            "Invalid arguments for tool `{}`: {problems}",
            params.name
        ));
        result.meta = d.result_meta();
        return Ok(Prepared::Ready(Response::tool_result(
            cx.request_id(),
            &result,
        )));
    }
    if let Checked::Valid(Some(tree)) = checked {
        arguments.keep_tree(tree);
    }
    round::open(
        d,
        &cx,
        Round {
            method: Method::ToolsCall,
            name: entry.name.clone(),
            arguments: arguments.shared_json(),
            responses: params.input_responses,
            state: params.request_state,
        },
    )?;
    let call = ToolCall {
        name: params.name,
        arguments,
        context: cx,
    };
    let checking =
        authorize::custom_checks(d.policy.as_ref(), &entry.tool.access, &call.context, || {
            Target {
                kind: PrimitiveKind::Tool,
                name: entry.name.clone(),
                uri: None,
                arguments: Some(call.arguments.clone()),
            }
        });
    let prepared = Prepared::Tool(PreparedTool { entry, call });
    Ok(match checking {
        None => prepared,
        Some(checking) => Prepared::Checked(Box::new((checking, prepared))),
    })
}

/// A prepared `tools/call` up to its handler's first poll, synchronously.
#[inline(always)]
pub(crate) fn invoke(d: &Arc<Dispatcher>, prepared: PreparedTool) -> Result<Work, McpError> {
    #[cfg(feature = "tasks")]
    if prepared.entry.tool.task != TaskSupport::Forbidden && declares_tasks(&prepared.call.context)
    {
        return Ok(tasks::start(d, prepared));
    }
    let PreparedTool { entry, call } = prepared;
    let id = call.context.request_id().clone();
    let span = handler_span(call.context.inner.span(), Handler::Tool(&entry.name));
    let _entered = span.enter();
    match &entry.handler {
        ToolHandler::Async(f) => {
            let mut handler = match std::panic::catch_unwind(AssertUnwindSafe(|| f(call))) {
                Ok(handler) => handler,
                Err(payload) => {
                    let outcome = tool_result::panicked(&entry, &panic_message(&*payload));
                    return Ok(Work::Ready(tool_result::answer(d, &id, outcome)));
                }
            };
            // An `async` handler that never actually waits finishes in its first poll: run
            // that poll now (inside the runtime serving the request), so that no call future
            // has to be allocated for it. One that waits is polled again by its `Call`, with
            // the real waker, which it then registers (futures keep the latest waker).
            if tokio::runtime::Handle::try_current().is_ok() {
                let mut cx = Context::from_waker(std::task::Waker::noop());
                match std::panic::catch_unwind(AssertUnwindSafe(|| handler.as_mut().poll(&mut cx)))
                {
                    Ok(Poll::Pending) => {}
                    Ok(Poll::Ready(outcome)) => {
                        return Ok(Work::Ready(tool_result::answer(d, &id, outcome?)));
                    }
                    Err(payload) => {
                        let outcome = tool_result::panicked(&entry, &panic_message(&*payload));
                        return Ok(Work::Ready(tool_result::answer(d, &id, outcome)));
                    }
                }
            }
            drop(_entered);
            // Its later polls run in its span (boxed again only when the span is recorded).
            let handler = match span.is_disabled() {
                true => handler,
                false => Box::pin(handler.instrument(span)),
            };
            Ok(Work::Tool(StartedTool { entry, handler, id }))
        }
        ToolHandler::Sync(f) => {
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| f(call))).unwrap_or_else(
                |payload| Ok(tool_result::panicked(&entry, &panic_message(&*payload))),
            )?;
            Ok(Work::Ready(tool_result::answer(d, &id, outcome)))
        }
    }
}

/// The rest of a tool handler that waits, and its answer.
pub(crate) async fn wait(d: &Dispatcher, started: StartedTool) -> Result<Response, McpError> {
    let StartedTool { entry, handler, id } = started;
    let outcome = catch_panic(handler)
        .await
        .unwrap_or_else(|msg| Ok(tool_result::panicked(&entry, &msg)))?;
    Ok(tool_result::answer(d, &id, outcome))
}
