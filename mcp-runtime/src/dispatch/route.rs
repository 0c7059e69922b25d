//! Stage 3, route: the request context, then the method's family. Everything up to the handler
//! runs synchronously here; what is left is one small future, polled by the [`Call`].

use super::call::{Call, Pending};
use super::encode::Response;
use super::work::Work;
use super::{Dispatcher, Ingress};
use crate::context::{ContextInner, Notifier, RequestContext};
use crate::error::McpError;
use crate::protocol::{ClientParams, ClientRequest, LoggingLevel, Method, RequestId};
use crate::registry::Registry;
use std::future::Future;
use std::sync::Arc;
use std::task::Poll;
use tokio::sync::mpsc;

impl Dispatcher {
    /// Serves a validated request.
    pub(super) fn route(
        self: &Arc<Self>,
        request: ClientRequest<'_>,
        method: Method,
        reg: &Arc<Registry>,
        ingress: Ingress<'_>,
    ) -> Call {
        let ClientRequest { id, meta, params } = request;
        let Some(meta) = meta else {
            // Validation refused it already.
            let e = McpError::invalid_params("Invalid params: `params._meta` is missing");
            return Call::ready(Some(id.clone()), Response::error(Some(&id), &e));
        };
        let cfg = &self.config;
        let log_level = match meta.log_level.as_deref().map(str::parse::<LoggingLevel>) {
            None => None,
            Some(Ok(level)) => Some(level),
            Some(Err(())) => {
                let level = meta.log_level.as_deref().unwrap_or_default();
                let e = McpError::invalid_params(format!(
                    "Invalid params: unknown log level `{level}`; use one of debug, info, notice, warning, error, critical, alert, emergency"
                ));
                return Call::ready(Some(id.clone()), Response::error(Some(&id), &e));
            }
        };
        // A request can only produce notifications with a progress token, a log level the
        // server honours, or as a listen stream: create the channel only then.
        let notifies = method == Method::Listen
            || meta.progress_token.is_some()
            || (cfg.logging && log_level.is_some());
        let (notifier, rx) = if notifies {
            let (tx, rx) = mpsc::unbounded_channel();
            (Notifier::new(tx), Some(rx))
        } else {
            (Notifier::none(), None)
        };
        let cx = RequestContext {
            inner: Arc::new(ContextInner {
                id: id.clone(),
                method: method.name(),
                meta,
                log_level,
                notifier,
                cancel: std::sync::OnceLock::new(),
                abandoned: std::sync::atomic::AtomicBool::new(false),
                state: self.state.clone(),
                caller: ingress.caller,
                server_info: cfg.info.clone(),
                logging_enabled: cfg.logging,
                input: std::sync::OnceLock::new(),
                progress_last: std::sync::atomic::AtomicU64::new(f64::NEG_INFINITY.to_bits()),
            }),
        };
        let request = cx.inner.clone();
        let work = match self.start(params, cx, reg, ingress.checks) {
            Ok(Work::Ready(response)) => return Call::new(id, rx, None, Some(response), request),
            Err(e) => {
                let response = Response::error(Some(&id), &e);
                return Call::new(id, rx, None, Some(response), request);
            }
            Ok(work) => work,
        };
        let timeout = match method {
            Method::Listen => None,
            _ => cfg.limits.request_timeout,
        };
        let pending = self.finish(work, id.clone(), timeout);
        Call::new(id, rx, Some(pending), None, request)
    }

    /// Starts serving the method: answers what needs no handler, starts the handler otherwise.
    fn start(
        self: &Arc<Self>,
        params: ClientParams<'_>,
        cx: RequestContext,
        reg: &Arc<Registry>,
        checks: Option<&dyn super::TransportChecks>,
    ) -> Result<Work, McpError> {
        let id = cx.request_id();
        Ok(match params {
            ClientParams::Discover => Work::Ready(Response::result(id, &self.discover_result())),
            ClientParams::ToolsList(p) => self.list(reg, Method::ToolsList, &cx, p)?,
            ClientParams::ResourcesList(p) => self.list(reg, Method::ResourcesList, &cx, p)?,
            ClientParams::ResourceTemplatesList(p) => {
                self.list(reg, Method::ResourceTemplatesList, &cx, p)?
            }
            ClientParams::PromptsList(p) => self.list(reg, Method::PromptsList, &cx, p)?,
            ClientParams::ToolsCall(p) => self.start_tool_call(reg, p, cx, checks)?,
            ClientParams::ResourcesRead(p) => self.start_read(reg, p, cx)?,
            ClientParams::PromptsGet(p) => self.start_prompt(reg, p, cx)?,
            ClientParams::Complete(p) => self.start_complete(reg, p, cx)?,
            ClientParams::Listen(p) => self.start_listen(p, cx)?,
            ClientParams::Malformed { reason, .. } => return Err(McpError::invalid_params(reason)),
            ClientParams::Unknown { method, .. } => {
                // Validation refused it already.
                return Err(McpError::method_not_found(&method));
            }
        })
    }

    /// The rest of started work, as the call's future: the handler, then its answer; a time
    /// limit when one is set.
    fn finish(
        self: &Arc<Self>,
        work: Work,
        id: RequestId,
        timeout: Option<std::time::Duration>,
    ) -> Pending {
        let deadline = timeout.map(|limit| (tokio::time::Instant::now() + limit, limit));
        let d = self.clone();
        Box::pin(async move {
            let mut work = std::pin::pin!(d.run(work));
            // Most handlers finish in their first poll: a timer is only armed for one that waits
            // (registering a timer costs more than a short handler).
            let first = std::future::poll_fn(|cx| Poll::Ready(work.as_mut().poll(cx))).await;
            let outcome = match (first, deadline) {
                (Poll::Ready(r), _) => r,
                (Poll::Pending, None) => work.await,
                (Poll::Pending, Some((at, limit))) => {
                    match tokio::time::timeout_at(at, work).await {
                        Ok(r) => r,
                        Err(_) => Err(McpError::internal(format!(
                            "Request timed out after {} ms",
                            limit.as_millis()
                        ))),
                    }
                }
            };
            outcome.unwrap_or_else(|e| Response::error(Some(&id), &e))
        })
    }

    /// Runs started work to its response.
    async fn run(&self, work: Work) -> Result<Response, McpError> {
        match work {
            Work::Ready(response) => Ok(response),
            Work::Tool(started) => self.await_tool(started).await,
            Work::Other(fut) => fut.await,
        }
    }
}
