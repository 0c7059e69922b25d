//! A mounted server's primitives as this server's: each listed item made a `Tool`, `Resource`,
//! `ResourceTemplate` or `Prompt` of the composite (names and links per the mount's
//! [`Naming`](super::names::Naming)) whose handler relays to the mounted server.

use super::relay::{Backend, Relayed, SharedBackend};
use super::tasks::follow_task;
use crate::error::McpError;
use crate::protocol::{
    GetPromptResult, PromptInfo, Resource as ResourceInfo, ResourceContents,
    ResourceTemplate as TemplateInfo, ToolInfo,
};
use crate::registry::{
    Completer, CompletionRequest, Prompt, PromptOutcome, RelayedTask, Resource, ResourceOutcome,
    ResourceTemplate, TaskSupport, Tool, ToolOutcome,
};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// A listed tool (as the mounted server wrote it) as a tool of the composite.
pub(crate) fn tool(backend: &SharedBackend, listed: &Value) -> Result<Tool, String> {
    let mut info: ToolInfo = serde_json::from_value(listed.clone())
        .map_err(|e| format!("a listed tool does not read as one: {e}"))?;
    let original = info.name.clone();
    info.name = backend.naming.name(&original);
    info.meta = backend.naming.tool_meta(info.meta.take());
    let task = match listed["execution"]["taskSupport"].as_str() {
        Some("required") => TaskSupport::Required,
        Some("optional") => TaskSupport::Optional,
        _ => TaskSupport::Forbidden,
    };
    let mut tool = Tool::new(info.name.clone()).task(task).asks_client_input();
    tool.info = info;
    tool.schema_explicit = true;
    let backend = backend.clone();
    Ok(tool.raw_handler(move |call| {
        let backend = backend.clone();
        let original = original.clone();
        async move {
            let cx = call.context;
            let arguments: Value =
                serde_json::from_str(call.arguments.json()).unwrap_or_else(|_| json!({}));
            let carried = Backend::carried(&cx);
            if let Some(task) = carried.task {
                // A task of the mounted server waiting for this round's answers.
                return follow_task(&backend, &cx, task, true).await;
            }
            let mut params = Map::new();
            params.insert("name".into(), json!(original));
            params.insert("arguments".into(), arguments);
            // The tasks extension is passed on when this server runs the call as its task, or
            // when its client declared it: a task the mounted server then makes is followed to
            // its end (a remote server's tools/list does not say which tools may be tasks).
            let tasks = task == TaskSupport::Required
                || cx
                    .client_capabilities()
                    .extensions
                    .as_ref()
                    .is_some_and(|e| e.contains_key(crate::protocol::TASKS_EXTENSION));
            match backend
                .relay(&cx, "tools/call", params, carried.state, tasks)
                .await?
            {
                Relayed::Ask(asked) => Ok(ToolOutcome::InputRequired(asked)),
                Relayed::Complete(result) if result["resultType"] == "task" => {
                    if cx.inner.task_status.get().is_none() {
                        // The front client polls the mounted server's task through a handle.
                        let handed = super::handles::hand_on(&backend, &cx, result)?;
                        return Ok(ToolOutcome::RelayedTask(RelayedTask(handed)));
                    }
                    // This server's own task follows the mounted server's.
                    let id = result["taskId"]
                        .as_str()
                        .or_else(|| result["task"]["taskId"].as_str())
                        .unwrap_or_default()
                        .to_owned();
                    follow_task(&backend, &cx, id, false).await
                }
                Relayed::Complete(result) => backend.tool_result(result),
            }
        }
    }))
}

/// A listed resource as a resource of the composite.
pub(crate) fn resource(backend: &SharedBackend, listed: &Value) -> Result<Resource, String> {
    let mut info: ResourceInfo = serde_json::from_value(listed.clone())
        .map_err(|e| format!("a listed resource does not read as one: {e}"))?;
    info.uri = backend.naming.uri(&info.uri);
    let mut resource = Resource::new(info.uri.clone(), info.name.clone()).asks_client_input();
    resource.info = info;
    let backend = backend.clone();
    resource.handler = Some(Arc::new(move |read| {
        let backend = backend.clone();
        Box::pin(async move { read_through(&backend, &read.context, &read.uri).await })
    }));
    Ok(resource)
}

/// A listed template as a template of the composite; each variable completed by the mounted
/// server.
pub(crate) fn template(
    backend: &SharedBackend,
    listed: &Value,
) -> Result<ResourceTemplate, String> {
    let mut info: TemplateInfo = serde_json::from_value(listed.clone())
        .map_err(|e| format!("a listed resource template does not read as one: {e}"))?;
    let original = info.uri_template.clone();
    info.uri_template = backend.naming.uri(&original);
    let mut template =
        ResourceTemplate::new(info.uri_template.clone(), info.name.clone()).asks_client_input();
    template.info = info;
    let variables = crate::uri_template::UriTemplate::parse(&template.info.uri_template)
        .map(|t| t.variables().map(str::to_owned).collect::<Vec<_>>())
        .unwrap_or_default();
    for variable in variables {
        let reference = json!({"type": "ref/resource", "uri": original});
        template = template.complete(variable, completer(backend, reference));
    }
    let backend = backend.clone();
    template.handler = Some(Arc::new(move |read| {
        let backend = backend.clone();
        Box::pin(async move { read_through(&backend, &read.context, &read.uri).await })
    }));
    Ok(template)
}

async fn read_through(
    backend: &Backend,
    cx: &crate::context::RequestContext,
    uri: &str,
) -> Result<ResourceOutcome, McpError> {
    let mut params = Map::new();
    params.insert("uri".into(), json!(backend.naming.backend_uri(uri)));
    match backend
        .relay(
            cx,
            "resources/read",
            params,
            Backend::carried(cx).state,
            false,
        )
        .await?
    {
        Relayed::Ask(asked) => Ok(ResourceOutcome::InputRequired(asked)),
        Relayed::Complete(mut result) => {
            let contents = result.get_mut("contents").map(Value::take);
            let mut contents: Vec<ResourceContents> =
                serde_json::from_value(contents.unwrap_or(Value::Null)).map_err(|e| {
                    McpError::internal(format!(
                        "the mounted server `{}` answered a read in a shape this server does not read: {e}",
                        backend.name
                    ))
                })?;
            for content in &mut contents {
                content.uri = backend.naming.uri(&content.uri);
            }
            Ok(ResourceOutcome::Complete(contents))
        }
    }
}

/// A listed prompt as a prompt of the composite; each argument completed by the mounted server.
pub(crate) fn prompt(backend: &SharedBackend, listed: &Value) -> Result<Prompt, String> {
    let mut info: PromptInfo = serde_json::from_value(listed.clone())
        .map_err(|e| format!("a listed prompt does not read as one: {e}"))?;
    let original = info.name.clone();
    info.name = backend.naming.name(&original);
    let arguments: Vec<String> = info
        .arguments
        .iter()
        .flatten()
        .map(|a| a.name.clone())
        .collect();
    let mut prompt = Prompt::new(info.name.clone()).asks_client_input();
    prompt.info = info;
    for argument in arguments {
        let reference = json!({"type": "ref/prompt", "name": original});
        prompt = prompt.complete(argument, completer(backend, reference));
    }
    let backend = backend.clone();
    prompt.handler = Some(Arc::new(move |get| {
        let backend = backend.clone();
        let original = original.clone();
        Box::pin(async move {
            let mut params = Map::new();
            params.insert("name".into(), json!(original));
            params.insert("arguments".into(), json!(get.arguments));
            match backend
                .relay(
                    &get.context,
                    "prompts/get",
                    params,
                    Backend::carried(&get.context).state,
                    false,
                )
                .await?
            {
                Relayed::Ask(asked) => Ok(PromptOutcome::InputRequired(asked)),
                Relayed::Complete(result) => {
                    let result: GetPromptResult = serde_json::from_value(result).map_err(|e| {
                        McpError::internal(format!(
                            "the mounted server `{}` answered a prompt in a shape this server does not read: {e}",
                            backend.name
                        ))
                    })?;
                    Ok(PromptOutcome::Complete(result))
                }
            }
        })
    }));
    Ok(prompt)
}

/// Completion of one argument (or variable) by the mounted server; a server that does not
/// complete answers no values.
fn completer(backend: &SharedBackend, reference: Value) -> Completer {
    let backend = backend.clone();
    Completer(Arc::new(move |req: CompletionRequest| {
        let backend = backend.clone();
        let reference = reference.clone();
        Box::pin(async move {
            let mut params = json!({
                "ref": reference,
                "argument": {"name": req.argument, "value": req.value},
            });
            if !req.context.is_empty() {
                params["context"] = json!({"arguments": req.context});
            }
            match backend
                .call(&req.request, "completion/complete", params)
                .await
            {
                Ok(mut result) => {
                    let completion = result.get_mut("completion").map(Value::take);
                    Ok(serde_json::from_value(completion.unwrap_or(Value::Null))
                        .unwrap_or_else(|_| crate::protocol::Completion::new(Vec::new())))
                }
                Err(e) if e.code() == -32601 => Ok(crate::protocol::Completion::new(Vec::new())),
                Err(e) => Err(e),
            }
        })
    }))
}
