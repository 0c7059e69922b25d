//! The `complete` family, `completion/complete`: suggestions for a prompt argument or a template
//! variable, at most 100.

use crate::context::RequestContext;
use crate::dispatch::authorize::{self, Target};
use crate::dispatch::dispatcher::Dispatcher;
use crate::dispatch::encode::Response;
use crate::dispatch::panic::{catch_panic, panic_message};
use crate::dispatch::trace::{Handler, handler_span};
use crate::dispatch::work::{Prepared, PreparedComplete, Work};
use crate::error::McpError;
use crate::protocol::{
    CompleteRequestParams, CompleteResult, Completion, CompletionReference, ResultType,
};
use crate::registry::{Completer, CompletionRequest, PrimitiveKind, Registry, Requirement};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tracing::Instrument;

/// Most values one completion answers with (the spec's limit).
const MAX_VALUES: usize = 100;

/// Finds the completer.
pub(crate) fn prepare(
    d: &Dispatcher,
    reg: &Registry,
    params: CompleteRequestParams,
    cx: RequestContext,
) -> Result<Prepared, McpError> {
    let (completer, access, kind, name) = completer(reg, &params)?;
    authorize::check_scopes(access, &cx, kind, name)?;
    let checking = authorize::custom_checks(d.policy.as_ref(), access, &cx, || Target {
        kind,
        name: Arc::from(name),
        uri: None,
        arguments: None,
    });
    let prepared = Prepared::Complete(Box::new(PreparedComplete {
        completer,
        params,
        cx,
    }));
    Ok(match checking {
        None => prepared,
        Some(checking) => Prepared::Checked(Box::new((checking, prepared))),
    })
}

/// Starts a prepared completion.
pub(crate) fn invoke(d: &Arc<Dispatcher>, prepared: PreparedComplete) -> Work {
    let PreparedComplete {
        completer,
        params,
        cx,
    } = prepared;
    let d = d.clone();
    Work::Other(Box::pin(async move {
        complete(&d, completer, params, cx).await
    }))
}

/// Asks the completer, and answers with at most [`MAX_VALUES`] of its values.
async fn complete(
    d: &Dispatcher,
    completer: Option<Completer>,
    params: CompleteRequestParams,
    cx: RequestContext,
) -> Result<Response, McpError> {
    let id = cx.request_id().clone();
    let mut completion = match completer {
        None => Completion::default(),
        Some(c) => {
            let context = params
                .context
                .and_then(|c| c.arguments)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k, s.to_owned())))
                .collect();
            let span = handler_span(cx.inner.span(), Handler::Completion);
            let req = CompletionRequest {
                argument: params.argument.name,
                value: params.argument.value,
                context,
                request: cx,
            };
            let completing =
                span.in_scope(|| std::panic::catch_unwind(AssertUnwindSafe(|| (c.0)(req))));
            let completed = match completing {
                Ok(fut) => catch_panic(fut).instrument(span).await,
                Err(payload) => Err(panic_message(&*payload)),
            };
            completed.unwrap_or_else(|msg| {
                tracing::error!(panic = %msg, "completion handler panicked");
                Err(McpError::internal("Completion failed unexpectedly."))
            })?
        }
    };
    if completion.values.len() > MAX_VALUES {
        completion
            .total
            .get_or_insert(completion.values.len() as u64);
        completion.values.truncate(MAX_VALUES);
        completion.has_more = Some(true);
    }
    Ok(Response::result(
        &id,
        &CompleteResult {
            result_type: ResultType::Complete,
            completion,
            meta: d.result_meta(),
        },
    ))
}

/// What a completion completes: the completer of the argument or variable (`None` when it has
/// none), and the primitive it belongs to (what the caller must be allowed to use).
type Completes<'r> = (Option<Completer>, &'r Requirement, PrimitiveKind, &'r str);

fn completer<'r>(
    reg: &'r Registry,
    params: &CompleteRequestParams,
) -> Result<Completes<'r>, McpError> {
    let argument = &params.argument.name;
    match &params.reference {
        CompletionReference::Prompt { name, .. } => {
            let Some(&i) = reg.prompt_index.get(name) else {
                return Err(McpError::invalid_params(format!("Unknown prompt: {name}")));
            };
            let prompt = &reg.prompts[i].prompt;
            let known = prompt
                .info
                .arguments
                .as_deref()
                .unwrap_or_default()
                .iter()
                .any(|a| &a.name == argument);
            if !known {
                return Err(McpError::invalid_params(format!(
                    "Invalid params: prompt `{name}` has no argument `{argument}`"
                )));
            }
            let found = prompt.completers.get(argument).cloned();
            let kind = PrimitiveKind::Prompt;
            Ok((found, &prompt.access, kind, &prompt.info.name))
        }
        CompletionReference::Resource { uri } => {
            let Some(t) = reg
                .templates
                .iter()
                .find(|t| t.template.info.uri_template == *uri)
            else {
                return Err(McpError::invalid_params(format!(
                    "Invalid params: no resource template `{uri}`"
                )));
            };
            let t = &t.template;
            let found = t.completers.get(argument).cloned();
            let kind = PrimitiveKind::ResourceTemplate;
            Ok((found, &t.access, kind, &t.info.uri_template))
        }
    }
}
