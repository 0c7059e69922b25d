//! The `resources` family, `resources/read`: a fixed resource by URI, else the first template the
//! URI matches; its client input; its handler; the contents with their caching hint.

use crate::context::RequestContext;
use crate::dispatch::authorize::{self, Target};
use crate::dispatch::dispatcher::Dispatcher;
use crate::dispatch::encode::Response;
use crate::dispatch::panic::{catch_panic, panic_message};
use crate::dispatch::round::{self, Round};
use crate::dispatch::trace::{Handler, handler_span};
use crate::dispatch::work::{Prepared, PreparedRead, Work};
use crate::error::McpError;
use crate::protocol::{Method, ReadResourceRequestParams, ReadResourceResult, ResultType};
use crate::registry::{PrimitiveKind, Registry, ResourceOutcome, ResourceRead};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tracing::Instrument;

/// Finds the resource and opens its client input.
#[inline(always)]
pub(crate) fn prepare(
    d: &Dispatcher,
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
    authorize::check_scopes(access, &cx, kind, name)?;
    let hint = hint.unwrap_or(d.config.read_cache);
    round::open(
        d,
        &cx,
        Round {
            method: Method::ResourcesRead,
            name: Arc::from(uri.as_str()),
            arguments: Arc::from("null"),
            responses: params.input_responses,
            state: params.request_state,
        },
    )?;
    let checking = authorize::custom_checks(d.policy.as_ref(), access, &cx, || Target {
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
pub(crate) fn invoke(d: &Arc<Dispatcher>, prepared: PreparedRead) -> Result<Work, McpError> {
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
    let d = d.clone();
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
            ResourceOutcome::InputRequired(r) => round::input_required(&d, &id, r),
        })
    })))
}

/// The error when a resource handler panicked (logged; the message stays on the server).
fn panicked(uri: &str, msg: &str) -> McpError {
    tracing::error!(uri = %uri, panic = %msg, "resource handler panicked");
    McpError::internal(format!("Reading {uri} failed unexpectedly."))
}
