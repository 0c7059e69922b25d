//! `resources/read`: a fixed resource by URI, else the first template the URI matches; its
//! client input; its handler; the contents with their caching hint.

use super::Dispatcher;
use super::authorize::Target;
use super::encode::Response;
use super::input::Round;
use super::panic::{catch_panic, panic_message};
use super::trace::{Handler, handler_span};
use super::work::{Prepared, PreparedRead, Work};
use crate::context::RequestContext;
use crate::error::McpError;
use crate::protocol::{Method, ReadResourceRequestParams, ReadResourceResult, ResultType};
use crate::registry::{PrimitiveKind, Registry, ResourceOutcome, ResourceRead};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tracing::Instrument;

impl Dispatcher {
    /// Finds the resource, opens its client input and starts its handler.
    pub(super) fn start_read(
        self: &Arc<Self>,
        reg: &Registry,
        params: ReadResourceRequestParams<'_>,
        cx: RequestContext,
    ) -> Result<Work, McpError> {
        match self.prepare_read(reg, params, cx)? {
            Prepared::Read(read) => self.invoke_read(read),
            other => self.invoke(other),
        }
    }

    /// Finds the resource and opens its client input.
    #[inline(always)]
    pub(super) fn prepare_read(
        &self,
        reg: &Registry,
        params: ReadResourceRequestParams<'_>,
        cx: RequestContext,
    ) -> Result<Prepared, McpError> {
        let uri = params.uri;
        let (handler, variables, hint, access, kind, name) =
            if let Some(&i) = reg.resource_index.get(&uri) {
                let e = &reg.resources[i];
                let r = &e.resource;
                let (access, name) = (&r.access, r.info.uri.as_str());
                let kind = PrimitiveKind::Resource;
                (
                    e.handler.clone(),
                    Default::default(),
                    r.cache,
                    access,
                    kind,
                    name,
                )
            } else if let Some((e, vars)) = reg
                .templates
                .iter()
                .find_map(|t| t.parsed.matches(&uri).map(|v| (t, v)))
            {
                let t = &e.template;
                let (access, name) = (&t.access, t.info.uri_template.as_str());
                let kind = PrimitiveKind::ResourceTemplate;
                (e.handler.clone(), vars, t.cache, access, kind, name)
            } else {
                return Err(McpError::resource_not_found(&uri));
            };
        self.check_scopes(access, &cx, kind, name)?;
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
        let checking = self.custom_checks(access, &cx, || Target {
            kind,
            name: Arc::from(name),
            uri: Some(Arc::from(uri.as_str())),
            arguments: None,
        });
        let read = ResourceRead {
            uri,
            variables,
            context: cx,
        };
        let prepared = Prepared::Read(PreparedRead {
            handler,
            read,
            hint,
        });
        Ok(match checking {
            None => prepared,
            Some(checking) => Prepared::Checked(Box::new((checking, prepared))),
        })
    }

    /// Starts the handler of a prepared read.
    #[inline(always)]
    pub(super) fn invoke_read(self: &Arc<Self>, prepared: PreparedRead) -> Result<Work, McpError> {
        let PreparedRead {
            handler,
            read,
            hint,
        } = prepared;
        let id = read.context.request_id().clone();
        let uri = read.uri.clone();
        let span = handler_span(read.context.inner.span(), Handler::Resource(&uri));
        let handler = span
            .in_scope(|| std::panic::catch_unwind(AssertUnwindSafe(|| handler(read))))
            .map_err(|payload| panicked(&uri, &panic_message(&*payload)))?;
        let d = self.clone();
        Ok(Work::Other(Box::pin(async move {
            let outcome = catch_panic(handler)
                .instrument(span)
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
