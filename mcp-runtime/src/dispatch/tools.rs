//! `tools/call`: find the tool, check its arguments (an object; the transport's mirrored
//! headers; the input schema), open its client input, run the handler, answer.

use super::authorize::Target;
use super::encode::Response;
use super::input::Round;
use super::panic::{catch_panic, panic_message};
use super::trace::{Handler, handler_span};
use super::work::{Prepared, PreparedTool, StartedTool, Work};
use super::{Dispatcher, TransportChecks};
use crate::context::RequestContext;
use crate::error::McpError;
use crate::protocol::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, Method, RequestId, ResultType,
    TASKS_EXTENSION,
};
use crate::registry::{
    Arguments, PrimitiveKind, Registry, TaskSupport, ToolCall, ToolEntry, ToolHandler, ToolOutcome,
};
use crate::schema::Checked;
use serde_json::value::RawValue;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::{Context, Poll};
use tracing::Instrument;

impl Dispatcher {
    /// Everything of a `tools/call` up to its handler's first poll, synchronously: only the
    /// handler's future and what answering needs are kept for later (a small future to box).
    pub(super) fn start_tool_call(
        self: &Arc<Self>,
        reg: &Registry,
        params: CallToolRequestParams<'_>,
        cx: RequestContext,
        checks: Option<&dyn TransportChecks>,
    ) -> Result<Work, McpError> {
        // Both halves are inlined here: nothing is moved between them on the way.
        match self.prepare_tool_call(reg, params, cx, checks)? {
            Prepared::Tool(tool) => self.invoke_tool(tool),
            other => self.invoke(other),
        }
    }

    /// Everything of a `tools/call` before its handler, synchronously: the tool found, its
    /// arguments checked, its client input opened.
    #[inline(always)]
    pub(super) fn prepare_tool_call(
        &self,
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
        self.check_scopes(&entry.tool.access, &cx, PrimitiveKind::Tool, &params.name)?;
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
        let validator = entry.validator()?;
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
            result.meta = self.result_meta();
            return Ok(Prepared::Ready(Response::tool_result(
                cx.request_id(),
                &result,
            )));
        }
        if let Checked::Valid(Some(tree)) = checked {
            arguments.keep_tree(tree);
        }
        self.prepare_input(
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
        let checking = self.custom_checks(&entry.tool.access, &call.context, || Target {
            kind: PrimitiveKind::Tool,
            name: entry.name.clone(),
            uri: None,
            arguments: Some(call.arguments.clone()),
        });
        let prepared = Prepared::Tool(PreparedTool { entry, call });
        Ok(match checking {
            None => prepared,
            Some(checking) => Prepared::Checked(Box::new((checking, prepared))),
        })
    }

    /// A prepared `tools/call` up to its handler's first poll, synchronously.
    #[inline(always)]
    pub(super) fn invoke_tool(self: &Arc<Self>, prepared: PreparedTool) -> Result<Work, McpError> {
        if prepared.entry.tool.task != TaskSupport::Forbidden
            && declares_tasks(&prepared.call.context)
        {
            return Ok(self.start_task(prepared));
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
                        let outcome = tool_panicked(&entry, &panic_message(&*payload));
                        return Ok(Work::Ready(self.tool_answer(&id, outcome)));
                    }
                };
                // An `async` handler that never actually waits finishes in its first poll: run
                // that poll now (inside the runtime serving the request), so that no call future
                // has to be allocated for it. One that waits is polled again by its `Call`, with
                // the real waker, which it then registers (futures keep the latest waker).
                if tokio::runtime::Handle::try_current().is_ok() {
                    let mut cx = Context::from_waker(std::task::Waker::noop());
                    match std::panic::catch_unwind(AssertUnwindSafe(|| {
                        handler.as_mut().poll(&mut cx)
                    })) {
                        Ok(Poll::Pending) => {}
                        Ok(Poll::Ready(outcome)) => {
                            return Ok(Work::Ready(self.tool_answer(&id, outcome?)));
                        }
                        Err(payload) => {
                            let outcome = tool_panicked(&entry, &panic_message(&*payload));
                            return Ok(Work::Ready(self.tool_answer(&id, outcome)));
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
                let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| f(call)))
                    .unwrap_or_else(|payload| {
                        Ok(tool_panicked(&entry, &panic_message(&*payload)))
                    })?;
                Ok(Work::Ready(self.tool_answer(&id, outcome)))
            }
        }
    }

    /// The rest of a tool handler that waits, and its answer.
    pub(super) async fn await_tool(&self, started: StartedTool) -> Result<Response, McpError> {
        let StartedTool { entry, handler, id } = started;
        let outcome = catch_panic(handler)
            .await
            .unwrap_or_else(|msg| Ok(tool_panicked(&entry, &msg)))?;
        Ok(self.tool_answer(&id, outcome))
    }

    /// A handler's outcome as the call answers it.
    pub(super) fn tool_answer(&self, id: &RequestId, outcome: ToolOutcome) -> Response {
        match outcome {
            ToolOutcome::Complete(mut result) => {
                self.finish_tool_result(&mut result);
                Response::tool_result(id, &result)
            }
            ToolOutcome::InputRequired(r) => self.input_required(id, r),
        }
    }

    /// A handler's `CallToolResult` as the call answers it (and a task keeps it).
    pub(super) fn finish_tool_result(&self, result: &mut CallToolResult) {
        result.result_type = ResultType::Complete;
        if !self.config.explicit_is_error && result.is_error == Some(false) {
            result.is_error = None;
        }
        if result.meta.is_none() {
            result.meta = self.result_meta();
        }
    }
}

/// Whether this request's client capabilities declare the tasks extension.
pub(super) fn declares_tasks(cx: &RequestContext) -> bool {
    cx.client_capabilities()
        .extensions
        .as_ref()
        .is_some_and(|e| e.contains_key(TASKS_EXTENSION))
}

/// `-32021`: the request needs the tasks extension, which its client did not declare.
pub(super) fn tasks_not_declared(what: &str) -> McpError {
    let mut extensions = serde_json::Map::new();
    extensions.insert(
        TASKS_EXTENSION.into(),
        serde_json::Value::Object(Default::default()),
    );
    let required = ClientCapabilities {
        extensions: Some(extensions),
        ..ClientCapabilities::default()
    };
    McpError::missing_capability(
        required,
        format!(
            "{what} needs the tasks extension: declare `{TASKS_EXTENSION}` in this request's clientCapabilities.extensions"
        ),
    )
}

/// The answer when a tool handler panicked (logged; the message stays on the server).
pub(super) fn tool_panicked(entry: &ToolEntry, msg: &str) -> ToolOutcome {
    let name = &entry.tool.info.name;
    tracing::error!(tool = %name, panic = %msg, "tool handler panicked");
    ToolOutcome::Complete(CallToolResult::error(format!(
        "Tool `{name}` failed unexpectedly (the handler panicked)."
    )))
}
