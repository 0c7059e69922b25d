//! The `prompts` family, `prompts/get`: find the prompt, check its string arguments (required ones
//! present), open its client input, render it.

use crate::context::RequestContext;
use crate::dispatch::authorize::{self, Target};
use crate::dispatch::dispatcher::Dispatcher;
use crate::dispatch::encode::Response;
use crate::dispatch::panic::{catch_panic, panic_message};
use crate::dispatch::round::{self, Round};
use crate::dispatch::trace::{Handler, handler_span};
use crate::dispatch::work::{Prepared, PreparedPrompt, Work};
use crate::error::McpError;
use crate::protocol::{GetPromptRequestParams, Method, ResultType};
use crate::registry::{Arguments, PrimitiveKind, PromptGet, PromptOutcome, Registry};
use serde_json::Value;
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tracing::Instrument;

/// Finds and checks the prompt and opens its client input.
#[inline(always)]
pub(crate) fn prepare(
    d: &Dispatcher,
    reg: &Registry,
    params: GetPromptRequestParams<'_>,
    cx: RequestContext,
) -> Result<Prepared, McpError> {
    let Some(entry) = reg
        .prompt_index
        .get(&params.name)
        .map(|&i| reg.prompts[i].clone())
    else {
        return Err(McpError::invalid_params(format!(
            "Unknown prompt: {}",
            params.name
        )));
    };
    let name = params.name;
    authorize::check_scopes(&entry.prompt.access, &cx, PrimitiveKind::Prompt, &name)?;
    let mut arguments = BTreeMap::new();
    for (k, v) in params.arguments.unwrap_or_default() {
        match v {
            Value::String(s) => {
                arguments.insert(k, s);
            }
            Value::Null => {}
            _ => {
                return Err(McpError::invalid_params(format!(
                    "Invalid params: argument `{k}` of prompt `{name}` must be a string"
                )));
            }
        }
    }
    let missing: Vec<String> = entry
        .required
        .iter()
        .filter(|r| !arguments.contains_key(*r))
        .map(|m| format!("`{m}`"))
        .collect();
    if !missing.is_empty() {
        return Err(McpError::invalid_params(format!(
            "Invalid params: prompt `{name}` requires the argument{} {}",
            if missing.len() > 1 { "s" } else { "" },
            missing.join(", ")
        )));
    }
    let bound = serde_json::to_string(&arguments).unwrap_or_else(|_| "null".into());
    round::open(
        d,
        &cx,
        Round {
            method: Method::PromptsGet,
            name: Arc::from(name.as_str()),
            arguments: Arc::from(bound),
            responses: params.input_responses,
            state: params.request_state,
        },
    )?;
    let checking =
        authorize::custom_checks(d.policy.as_ref(), &entry.prompt.access, &cx, || Target {
            kind: PrimitiveKind::Prompt,
            name: Arc::from(name.as_str()),
            uri: None,
            arguments: Some(Arguments::from(
                arguments
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                    .collect::<serde_json::Map<_, _>>(),
            )),
        });
    let get = PromptGet {
        name,
        arguments,
        context: cx,
    };
    let prepared = Prepared::Prompt(PreparedPrompt { entry, get });
    Ok(match checking {
        None => prepared,
        Some(checking) => Prepared::Checked(Box::new((checking, prepared))),
    })
}

/// Starts the handler of a prepared prompt.
#[inline(always)]
pub(crate) fn invoke(d: &Arc<Dispatcher>, prepared: PreparedPrompt) -> Result<Work, McpError> {
    let PreparedPrompt { entry, get } = prepared;
    let id = get.context.request_id().clone();
    let name = get.name.clone();
    let span = handler_span(get.context.inner.span(), Handler::Prompt(&name));
    let handler = span
        .in_scope(|| std::panic::catch_unwind(AssertUnwindSafe(|| (entry.handler)(get))))
        .map_err(|payload| panicked(&name, &panic_message(&*payload)))?;
    let d = d.clone();
    Ok(Work::Other(Box::pin(async move {
        let outcome = catch_panic(handler)
            .instrument(span)
            .await
            .unwrap_or_else(|msg| Err(panicked(&name, &msg)))?;
        Ok(match outcome {
            PromptOutcome::Complete(mut result) => {
                result.result_type = ResultType::Complete;
                if result.meta.is_none() {
                    result.meta = d.result_meta();
                }
                Response::result(&id, &result)
            }
            PromptOutcome::InputRequired(r) => round::input_required(&d, &id, r),
        })
    })))
}

/// The error when a prompt handler panicked (logged; the message stays on the server).
fn panicked(name: &str, msg: &str) -> McpError {
    tracing::error!(prompt = %name, panic = %msg, "prompt handler panicked");
    McpError::internal(format!("Prompt `{name}` failed unexpectedly."))
}
