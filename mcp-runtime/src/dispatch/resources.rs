//! `resources/read`: a fixed resource by URI, else the first template the URI matches; its
//! client input; its handler; the contents with their caching hint.

use super::Dispatcher;
use super::encode::Response;
use super::input::Round;
use super::panic::{catch_panic, panic_message};
use super::work::Work;
use crate::context::RequestContext;
use crate::error::McpError;
use crate::protocol::{Method, ReadResourceRequestParams, ReadResourceResult, ResultType};
use crate::registry::{Registry, ResourceOutcome, ResourceRead};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

impl Dispatcher {
    /// Finds the resource, opens its client input and starts its handler.
    pub(super) fn start_read(
        self: &Arc<Self>,
        reg: &Registry,
        params: ReadResourceRequestParams<'_>,
        cx: RequestContext,
    ) -> Result<Work, McpError> {
        let uri = params.uri;
        let (handler, variables, hint) = if let Some(&i) = reg.resource_index.get(&uri) {
            let e = &reg.resources[i];
            (e.handler.clone(), Default::default(), e.resource.cache)
        } else if let Some((e, vars)) = reg
            .templates
            .iter()
            .find_map(|t| t.parsed.matches(&uri).map(|v| (t, v)))
        {
            (e.handler.clone(), vars, e.template.cache)
        } else {
            return Err(McpError::resource_not_found(&uri));
        };
        let hint = hint.unwrap_or(self.config.read_cache);
        self.prepare_input(
            &cx,
            Round {
                method: Method::ResourcesRead,
                name: Arc::from(uri.as_str()),
                arguments: Arc::from("null"),
                responses: params.input_responses,
                state: params.request_state,
            },
        )?;
        let id = cx.request_id().clone();
        let read = ResourceRead {
            uri: uri.clone(),
            variables,
            context: cx,
        };
        let handler = std::panic::catch_unwind(AssertUnwindSafe(|| handler(read)))
            .map_err(|payload| panicked(&uri, &panic_message(&*payload)))?;
        let d = self.clone();
        Ok(Work::Other(Box::pin(async move {
            let outcome = catch_panic(handler)
                .await
                .unwrap_or_else(|msg| Err(panicked(&uri, &msg)))?;
            Ok(match outcome {
                ResourceOutcome::Complete(contents) => Response::result(
                    &id,
                    &ReadResourceResult {
                        result_type: ResultType::Complete,
                        contents,
                        ttl_ms: hint.ttl_ms,
                        cache_scope: hint.scope,
                        meta: d.result_meta(),
                    },
                ),
                ResourceOutcome::InputRequired(r) => d.input_required(&id, r),
            })
        })))
    }
}

/// The error when a resource handler panicked (logged; the message stays on the server).
fn panicked(uri: &str, msg: &str) -> McpError {
    tracing::error!(uri = %uri, panic = %msg, "resource handler panicked");
    McpError::internal(format!("Reading {uri} failed unexpectedly."))
}
