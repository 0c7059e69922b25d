//! Stage 3, route: the request context, then the method's family, named here at each call
//! site (`families::*::prepare`, then `invoke`). The family prepares the request (finds its
//! primitive, checks and owns its input), the layers run around the handler, and the handler
//! starts. Everything up to the handler's first poll runs synchronously here when no layer is
//! added (`tools/call`, `resources/read` and `prompts/get` prepare and invoke in one step);
//! what is left is one small future, polled by the [`Call`]. Families return here; they never
//! call back into this module.

use super::call::{Call, Pending};
#[cfg(not(all(feature = "tasks", feature = "skills")))]
use super::dispatcher::not_advertised;
use super::dispatcher::{Dispatcher, Ingress, Transport, TransportChecks};
use super::encode::Response;
#[cfg(feature = "skills")]
use super::families::skills;
#[cfg(feature = "tasks")]
use super::families::tasks::{self, TaskMethod};
use super::families::{complete, listen, lists, prompts, resources, tools};
use super::layer::{LayerResult, McpRequest, Next, RequestParts};
use super::metrics::Labels;
use super::observe::Observation;
use super::trace;
use super::work::{Prepared, Validated, Work};
use crate::config::Config;
use crate::context::{Notifier, RequestContext, RequestTrace, notification_queue};
use crate::error::McpError;
use crate::protocol::{
    CallToolRequestParams, GetPromptRequestParams, KnownParams, LoggingLevel, Method, Named,
    ReadResourceRequestParams, RequestId,
};
use crate::registry::{PrimitiveKind, Registry};
use std::future::Future;
use std::sync::Arc;
use std::task::Poll;
use std::time::Instant;
use tracing::Instrument;

/// Serves a [`Validated`] request (read at `read_at` when metrics are on).
pub(super) fn route(
    d: &Arc<Dispatcher>,
    request: Validated<'_>,
    reg: &Arc<Registry>,
    ingress: Ingress<'_>,
    read_at: Option<Instant>,
) -> Call {
    let method = request.method;
    let cfg = &d.config;
    let span = trace::request_span(
        &request,
        ingress.transport.map(Transport::network_transport),
        ingress.client,
        cfg.trace_payloads,
    );
    let trace = RequestTrace::new(&span);
    let mut observe = match trace.is_some() || cfg.metrics {
        true => observe(
            d,
            &span,
            method,
            ingress.transport.map(Transport::network_transport),
            read_at,
        ),
        false => None,
    };
    let _entered = span.enter();
    // Layers run only when one of them wants this request; they see the name as sent.
    let sent_name = match d.layers.is_empty() {
        true => None,
        false => wanted_by_layers(d, method, request.params.named()),
    };
    let Validated {
        id, meta, params, ..
    } = request;
    let payloads = cfg.trace_payloads;
    let early = |e: McpError, observe: Option<Box<Observation>>| {
        trace::failed(&e, payloads);
        let response = Response::error(Some(&id), &e);
        if let Some(observe) = observe {
            observe.finish(&response, None);
        }
        Call::ready(Some(id.clone()), response)
    };
    let log_level = match meta.log_level.as_deref().map(str::parse::<LoggingLevel>) {
        None => None,
        Some(Ok(level)) => Some(level),
        Some(Err(())) => {
            let level = meta.log_level.as_deref().unwrap_or_default();
            let e = McpError::invalid_params(format!(
                "Invalid params: unknown log level `{level}`; use one of debug, info, notice, warning, error, critical, alert, emergency"
            ));
            return early(e, observe);
        }
    };
    // A request can only produce notifications with a progress token, a log level the
    // server honours, or as a listen stream: create the channel only then.
    let notifies = method == Method::Listen
        || meta.progress_token.is_some()
        || (cfg.logging && log_level.is_some());
    let (notifier, rx) = if notifies {
        let (tx, rx) = notification_queue(cfg.limits.notification_queue);
        (Notifier::new(tx), Some(rx))
    } else {
        (Notifier::none(), None)
    };
    let mut inner = d.context(
        id.clone(),
        method,
        meta,
        ingress.caller,
        ingress.client,
        notifier,
    );
    inner.over_stdio = ingress.transport == Some(Transport::Stdio);
    inner.log_level = log_level;
    inner.trace = trace;
    let cx = RequestContext {
        inner: Arc::new(inner),
    };
    let request = cx.inner.clone();
    let layered = sent_name.is_some().then(|| cx.clone());
    // A listen stream lasts as long as the client wants it.
    let timeout = cfg
        .limits
        .request_timeout
        .filter(|_| method != Method::Listen);
    if let Some(view_cx) = layered {
        // With layers: the request is prepared now, its handler runs inside the chain.
        let prepared = prepare(d, params, cx, reg, ingress.checks);
        if let (Some(observe), Ok(prepared)) = (&mut observe, &prepared) {
            name_primitive(observe, prepared);
        }
        let view = request_view(d, method, view_cx, sent_name.flatten(), &prepared);
        let layers = d.layers.clone();
        let d = d.clone();
        let chain = Next::chain(layers, move || {
            Box::pin(async move {
                let work = invoke(&d, prepared?)?;
                run(&d, work).await
            })
        });
        let pending = finish(cfg, move || chain.run(view), id.clone(), timeout, &span);
        return Call::new(id, rx, Some(pending), None, request, observe);
    }
    if let Some(observe) = &mut observe {
        name_registered(observe, method, &params, reg);
    }
    let work = match start(d, params, cx, reg, ingress.checks) {
        Ok(Work::Ready(response)) => {
            return Call::new(id, rx, None, Some(response), request, observe);
        }
        Err(e) => {
            trace::failed(&e, payloads);
            let response = Response::error(Some(&id), &e);
            return Call::new(id, rx, None, Some(response), request, observe);
        }
        Ok(work) => work,
    };
    let pending = match work {
        // A future of its own (a listen stream, a `tasks/*` method): answered as it is, so
        // that the call's future is not sized for a tool call's state, which every open listen
        // stream would hold (BENCHMARKS.md, "The listen loop").
        Work::Other(fut) => finish(cfg, move || fut, id.clone(), timeout, &span),
        work => {
            let d = d.clone();
            let rest = move || async move { run(&d, work).await };
            finish(cfg, rest, id.clone(), timeout, &span)
        }
    };
    Call::new(id, rx, Some(pending), None, request, observe)
}

/// `Some(name as sent)` when a layer wants a request of `method` naming `name`.
#[inline(never)]
fn wanted_by_layers(
    d: &Dispatcher,
    method: Method,
    name: Option<&str>,
) -> Option<Option<Arc<str>>> {
    let wanted = d.layers.iter().any(|layer| layer.wants(method, name));
    wanted.then(|| name.map(Arc::from))
}

/// The observation of a request that is traced or measured.
#[inline(never)]
fn observe(
    d: &Dispatcher,
    span: &tracing::Span,
    method: Method,
    transport: Option<&'static str>,
    read_at: Option<Instant>,
) -> Option<Box<Observation>> {
    let cfg = &d.config;
    let labels = cfg.metrics.then(|| Labels {
        method: method.name(),
        primitive: None,
        transport,
    });
    let record_result = cfg.trace_payloads && method == Method::ToolsCall;
    Observation::new(span.clone(), read_at, labels, record_result)
}

/// Starts serving the method without layers: answers what needs no handler, prepares the
/// request and starts its handler otherwise (the hot families in one step each).
fn start(
    d: &Arc<Dispatcher>,
    params: KnownParams<'_>,
    cx: RequestContext,
    reg: &Arc<Registry>,
    checks: Option<&dyn TransportChecks>,
) -> Result<Work, McpError> {
    match params {
        KnownParams::ToolsCall(p) => start_tool_call(d, reg, p, cx, checks),
        KnownParams::ResourcesRead(p) => start_read(d, reg, p, cx),
        KnownParams::PromptsGet(p) => start_prompt(d, reg, p, cx),
        other => invoke(d, prepare(d, other, cx, reg, checks)?),
    }
}

/// Everything of a `tools/call` up to its handler's first poll, synchronously: only the
/// handler's future and what answering needs are kept for later (a small future to box).
fn start_tool_call(
    d: &Arc<Dispatcher>,
    reg: &Registry,
    params: CallToolRequestParams<'_>,
    cx: RequestContext,
    checks: Option<&dyn TransportChecks>,
) -> Result<Work, McpError> {
    // Both halves are inlined here: nothing is moved between them on the way.
    match tools::prepare(d, reg, params, cx, checks)? {
        Prepared::Tool(tool) => tools::invoke(d, tool),
        other => invoke(d, other),
    }
}

/// Finds the resource, opens its client input and starts its handler.
fn start_read(
    d: &Arc<Dispatcher>,
    reg: &Registry,
    params: ReadResourceRequestParams<'_>,
    cx: RequestContext,
) -> Result<Work, McpError> {
    match resources::prepare(d, reg, params, cx)? {
        Prepared::Read(read) => resources::invoke(d, read),
        other => invoke(d, other),
    }
}

/// Finds and checks the prompt, opens its client input and starts its handler.
fn start_prompt(
    d: &Arc<Dispatcher>,
    reg: &Registry,
    params: GetPromptRequestParams<'_>,
    cx: RequestContext,
) -> Result<Work, McpError> {
    match prompts::prepare(d, reg, params, cx)? {
        Prepared::Prompt(prompt) => prompts::invoke(d, prompt),
        other => invoke(d, other),
    }
}

/// Prepares the method in its family: answers what needs no handler, finds the primitive
/// and checks and owns its input otherwise.
#[deny(clippy::wildcard_enum_match_arm)] // a new method asks for its arm here
fn prepare(
    d: &Arc<Dispatcher>,
    params: KnownParams<'_>,
    cx: RequestContext,
    reg: &Arc<Registry>,
    checks: Option<&dyn TransportChecks>,
) -> Result<Prepared, McpError> {
    Ok(match params {
        KnownParams::Discover => lists::discover(d, &cx),
        KnownParams::ToolsList(p) => lists::prepare(d, reg, PrimitiveKind::Tool, &cx, p)?,
        KnownParams::ResourcesList(p) => lists::prepare(d, reg, PrimitiveKind::Resource, &cx, p)?,
        KnownParams::ResourceTemplatesList(p) => {
            lists::prepare(d, reg, PrimitiveKind::ResourceTemplate, &cx, p)?
        }
        KnownParams::PromptsList(p) => lists::prepare(d, reg, PrimitiveKind::Prompt, &cx, p)?,
        KnownParams::SkillsList(p) => lists::prepare(d, reg, PrimitiveKind::Skill, &cx, p)?,
        #[cfg(feature = "skills")]
        KnownParams::SkillsGet(p) => skills::get(d, reg, p, cx)?,
        #[cfg(feature = "skills")]
        KnownParams::ResourcesDirectoryRead(p) => skills::read_directory(d, reg, p, cx)?,
        // Never offered without the feature (no skills can be served), so `validate` refused
        // these already; answered as it would be.
        #[cfg(not(feature = "skills"))]
        KnownParams::SkillsGet(_) => return Err(not_advertised(Method::SkillsGet)),
        #[cfg(not(feature = "skills"))]
        KnownParams::ResourcesDirectoryRead(_) => {
            return Err(not_advertised(Method::ResourcesDirectoryRead));
        }
        KnownParams::ToolsCall(p) => tools::prepare(d, reg, p, cx, checks)?,
        KnownParams::ResourcesRead(p) => resources::prepare(d, reg, p, cx)?,
        KnownParams::PromptsGet(p) => prompts::prepare(d, reg, p, cx)?,
        KnownParams::Complete(p) => complete::prepare(d, reg, p, cx)?,
        KnownParams::Listen(p) => listen::prepare(p, cx),
        #[cfg(feature = "tasks")]
        KnownParams::TasksGet(p) => tasks::prepare(d, TaskMethod::Get, p.task_id, cx)?,
        #[cfg(feature = "tasks")]
        KnownParams::TasksCancel(p) => tasks::prepare(d, TaskMethod::Cancel, p.task_id, cx)?,
        #[cfg(feature = "tasks")]
        KnownParams::TasksUpdate(p) => {
            let answers = TaskMethod::Update(tasks::read_answers(&p));
            tasks::prepare(d, answers, p.task_id, cx)?
        }
        // Never offered without the feature (a task tool fails `build`), so `validate` refused
        // these already; answered as it would be.
        #[cfg(not(feature = "tasks"))]
        KnownParams::TasksGet(_) => return Err(not_advertised(Method::TasksGet)),
        #[cfg(not(feature = "tasks"))]
        KnownParams::TasksCancel(_) => return Err(not_advertised(Method::TasksCancel)),
        #[cfg(not(feature = "tasks"))]
        KnownParams::TasksUpdate(_) => return Err(not_advertised(Method::TasksUpdate)),
        KnownParams::Malformed { reason, .. } => return Err(McpError::invalid_params(reason)),
    })
}

/// Starts the handler of a prepared request in its family (its first poll, for a tool).
fn invoke(d: &Arc<Dispatcher>, prepared: Prepared) -> Result<Work, McpError> {
    Ok(match prepared {
        Prepared::Ready(response) => Work::Ready(response),
        Prepared::Tool(p) => tools::invoke(d, p)?,
        Prepared::Read(p) => resources::invoke(d, p)?,
        Prepared::Prompt(p) => prompts::invoke(d, p)?,
        Prepared::Complete(p) => complete::invoke(d, *p),
        Prepared::Listen(listen) => {
            let (params, cx) = *listen;
            listen::invoke(d, params, cx)?
        }
        Prepared::Pending(fut) => Work::Other(fut),
        Prepared::Checked(checked) => {
            let (checking, prepared) = *checked;
            let d = d.clone();
            Work::Other(Box::pin(async move {
                checking.await?;
                let work = invoke(&d, prepared)?;
                run(&d, work).await
            }))
        }
    })
}

/// What the layers see of a request.
fn request_view(
    d: &Dispatcher,
    method: Method,
    context: RequestContext,
    name: Option<Arc<str>>,
    prepared: &Result<Prepared, McpError>,
) -> McpRequest {
    let (tool, arguments, has_handler) = match prepared {
        Ok(Prepared::Tool(p)) => (Some(p.entry.clone()), Some(p.call.arguments.clone()), true),
        Ok(Prepared::Ready(_)) | Err(_) => (None, None, false),
        Ok(_) => (None, None, true),
    };
    McpRequest::new(RequestParts {
        method,
        context,
        name,
        tool,
        arguments,
        has_handler,
        result_meta: d.result_meta(),
    })
}

/// The rest of started work, as the call's future: the handler (and the layers around
/// it), then its answer; a time limit when one is set; inside the request's span.
fn finish<M, F>(
    cfg: &Config,
    work: M,
    id: RequestId,
    timeout: Option<std::time::Duration>,
    span: &tracing::Span,
) -> Pending
where
    M: FnOnce() -> F + Send + 'static,
    F: Future<Output = LayerResult> + Send + 'static,
{
    let deadline = timeout.map(|limit| (tokio::time::Instant::now() + limit, limit));
    let payloads = cfg.trace_payloads;
    // The work's future is made inside the boxed one (moving a made future copies all of it).
    if span.is_disabled() {
        Box::pin(answer(work, id, deadline, payloads))
    } else {
        Box::pin(answer(work, id, deadline, payloads).instrument(span.clone()))
    }
}

/// Runs started work to its response.
async fn run(d: &Dispatcher, work: Work) -> LayerResult {
    match work {
        Work::Ready(response) => Ok(response),
        Work::Tool(started) => tools::wait(d, started).await,
        Work::Other(fut) => fut.await,
    }
}

/// The handler's work (made by `work`), then its answer; a time limit when one is set.
async fn answer<M, F>(
    work: M,
    id: RequestId,
    deadline: Option<(tokio::time::Instant, std::time::Duration)>,
    payloads: bool,
) -> Response
where
    M: FnOnce() -> F + Send + 'static,
    F: Future<Output = LayerResult> + Send + 'static,
{
    let mut work = std::pin::pin!(work());
    // Most handlers finish in their first poll: a timer is only armed for one that waits
    // (registering a timer costs more than a short handler).
    let first = std::future::poll_fn(|cx| Poll::Ready(work.as_mut().poll(cx))).await;
    let outcome = match (first, deadline) {
        (Poll::Ready(r), _) => r,
        (Poll::Pending, None) => work.await,
        (Poll::Pending, Some((at, limit))) => match tokio::time::timeout_at(at, work).await {
            Ok(r) => r,
            Err(_) => Err(McpError::internal(format!(
                "Request timed out after {} ms",
                limit.as_millis()
            ))),
        },
    };
    outcome.unwrap_or_else(|e| {
        trace::failed(&e, payloads);
        Response::error(Some(&id), &e)
    })
}

/// Names the primitive in the metrics' labels when it is registered, before the request is
/// served without layers (tools and prompts only: resource URIs are too many).
#[deny(clippy::wildcard_enum_match_arm)] // a new method asks for its arm here
fn name_registered(
    observe: &mut Observation,
    method: Method,
    params: &KnownParams<'_>,
    reg: &Registry,
) {
    let Some(name) = params.named() else {
        return;
    };
    match method.names() {
        Some(Named::Tool) => {
            if let Some(&i) = reg.tool_index.get(name) {
                observe.set_primitive("gen_ai.tool.name", reg.tools[i].name.clone());
            }
        }
        Some(Named::Prompt) if reg.prompt_index.contains_key(name) => {
            observe.set_primitive("gen_ai.prompt.name", Arc::from(name));
        }
        Some(
            Named::Prompt | Named::Resource | Named::Skill | Named::SkillDirectory | Named::Task,
        )
        | None => {}
    }
}

/// Names the registered primitive in the metrics' labels (tools and prompts only: resource
/// URIs are too many).
fn name_primitive(observe: &mut Observation, prepared: &Prepared) {
    match prepared {
        Prepared::Tool(p) => observe.set_primitive("gen_ai.tool.name", p.entry.name.clone()),
        Prepared::Prompt(p) => observe.set_primitive(
            "gen_ai.prompt.name",
            Arc::from(p.entry.prompt.info.name.as_str()),
        ),
        _ => {}
    }
}
