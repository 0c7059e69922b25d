//! `completion/complete`: suggestions for a prompt argument or a template variable, at most 100.

use super::Dispatcher;
use super::authorize::Target;
use super::encode::Response;
use super::panic::catch_panic;
use super::work::Work;
use crate::context::RequestContext;
use crate::error::McpError;
use crate::protocol::{
    CompleteRequestParams, CompleteResult, Completion, CompletionReference, ResultType,
};
use crate::registry::{Completer, CompletionRequest, PrimitiveKind, Registry, Requirement};
use std::sync::Arc;

/// Most values one completion answers with (the spec's limit).
const MAX_VALUES: usize = 100;

impl Dispatcher {
    /// Finds the completer and starts it.
    pub(super) fn start_complete(
        self: &Arc<Self>,
        reg: &Registry,
        params: CompleteRequestParams,
        cx: RequestContext,
    ) -> Result<Work, McpError> {
        let (completer, access, kind, name) = completer(reg, &params)?;
        self.check_scopes(access, &cx, kind, name)?;
        let checking = self.custom_checks(access, &cx, || Target {
            kind,
            name: Arc::from(name),
            uri: None,
            arguments: None,
        });
        let d = self.clone();
        Ok(Work::Other(Box::pin(async move {
            if let Some(checking) = checking {
                checking.await?;
            }
            d.complete(completer, params, cx).await
        })))
    }

    async fn complete(
        &self,
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
                let req = CompletionRequest {
                    argument: params.argument.name,
                    value: params.argument.value,
                    context,
                    request: cx,
                };
                catch_panic((c.0)(req)).await.unwrap_or_else(|msg| {
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
                meta: self.result_meta(),
            },
        ))
    }
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
            Ok((
                found,
                &prompt.access,
                PrimitiveKind::Prompt,
                &prompt.info.name,
            ))
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
