//! The request being served, as handlers see it: [`RequestContext`], and [`Progress`], which
//! reports on it.

use super::caller::Caller;
use super::notify::{Logger, Notifier};
use super::trace::{NO_SPAN, RequestTrace};
use crate::error::McpError;
use crate::protocol::{
    ClientCapabilities, Implementation, LoggingLevel, RequestId, RequestMeta, TraceContext,
};
use crate::seal::InputData;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// Typed application state shared by all requests, registered with
/// [`ServerBuilder::state`](crate::ServerBuilder::state): one value per type.
pub(crate) type StateMap = http::Extensions;

pub(crate) struct ContextInner {
    pub(crate) id: RequestId,
    pub(crate) method: &'static str,
    pub(crate) meta: Box<RequestMeta>,
    pub(crate) log_level: Option<LoggingLevel>,
    pub(crate) notifier: Notifier,
    /// The request's cancellation token, made when first asked for (most handlers never ask).
    pub(crate) cancel: OnceLock<CancellationToken>,
    /// Set when the request's answer is no longer wanted (the client went away or cancelled).
    pub(crate) abandoned: AtomicBool,
    pub(crate) state: Arc<StateMap>,
    pub(crate) caller: Option<Arc<Caller>>,
    /// The client's address, when the transport knows it (an anonymous caller's share of the
    /// server's pools is counted by it).
    pub(crate) client: Option<crate::net::ClientNet>,
    pub(crate) server_info: Arc<Implementation>,
    pub(crate) logging_enabled: bool,
    /// Client input of an MRTR round (`tools/call`, `prompts/get`, `resources/read` only).
    pub(crate) input: std::sync::OnceLock<InputData>,
    /// The last progress value sent (bits of an `f64`), shared by every reporter of the request.
    pub(crate) progress_last: AtomicU64,
    /// The request's spans, when a subscriber records them.
    pub(crate) trace: Option<Box<RequestTrace>>,
    /// When the handler runs as a task: where its progress messages go (the task's
    /// `statusMessage`), instead of `notifications/progress`.
    pub(crate) task_status: OnceLock<watch::Sender<Option<String>>>,
    /// Set when the handler's declared inputs (`#[elicit]`, `#[sample]`, `#[roots]`) asked the
    /// client: a task tool asks those before its task starts.
    pub(crate) inputs_asked: AtomicBool,
    /// Fired by [`RequestContext::close_sse_stream`]: a 2025-11-25 session's transport ends the
    /// connection carrying this request's stream (the client resumes it).
    pub(crate) stream_cut: tokio::sync::Notify,
    /// Whether the request came over stdio (a refusal of a caller without a token then names
    /// `ServerBuilder::stdio_caller`, the only way such a request has a caller).
    pub(crate) over_stdio: bool,
}

impl ContextInner {
    /// Whose share of the server's pools this request draws on.
    pub(crate) fn share_key(&self) -> Option<super::caller::ShareKey> {
        super::caller::ShareKey::of(self.caller.as_deref(), self.client)
    }

    /// The request's token, made now if nobody asked for it before.
    pub(crate) fn cancellation(&self) -> CancellationToken {
        let token = self.cancel.get_or_init(CancellationToken::new);
        // Checked after the token is in place: `abandon` either sees the token, or is seen here.
        if self.abandoned.load(Ordering::SeqCst) {
            token.cancel();
        }
        token.clone()
    }

    /// The request's span (`mcp.request`; a disabled one when it is not recorded).
    pub(crate) fn span(&self) -> &tracing::Span {
        self.trace.as_ref().map_or(&NO_SPAN, |t| &t.span)
    }

    /// The span of the request's round of client input, when the request is traced.
    pub(crate) fn round_span(&self) -> Option<&tracing::Span> {
        self.trace.as_deref().map(RequestTrace::round)
    }

    /// The answer is no longer wanted: fire the token (now, or as soon as it is made).
    pub(crate) fn abandon(&self) {
        self.abandoned.store(true, Ordering::SeqCst);
        if let Some(token) = self.cancel.get() {
            token.cancel();
        }
    }
}

/// Everything known about the request being served: its id, metadata, client capabilities,
/// the caller, and handles to notify and to observe cancellation.
///
/// It is itself an extractor: declare a `cx: RequestContext` parameter to get it.
#[derive(Clone)]
pub struct RequestContext {
    pub(crate) inner: Arc<ContextInner>,
}

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestContext")
            .field("id", &self.inner.id)
            .field("method", &self.inner.method)
            .finish_non_exhaustive()
    }
}

impl RequestContext {
    /// The JSON-RPC id of the request.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.id
    }
    /// The method being served (`tools/call`, …).
    pub fn method(&self) -> &'static str {
        self.inner.method
    }
    /// The request's `_meta`.
    pub fn meta(&self) -> &RequestMeta {
        &self.inner.meta
    }
    /// The protocol version of this request.
    pub fn protocol_version(&self) -> &str {
        self.inner.meta.protocol_version.as_deref().unwrap_or("")
    }
    /// The capabilities the client declared for this request.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        static EMPTY: std::sync::OnceLock<ClientCapabilities> = std::sync::OnceLock::new();
        self.inner
            .meta
            .client_capabilities
            .as_ref()
            .unwrap_or_else(|| EMPTY.get_or_init(ClientCapabilities::default))
    }
    /// The client's self-description, if sent (informational only: never branch security on it).
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.meta.client_info.as_ref()
    }
    /// The authenticated caller, when an authentication layer is configured.
    pub fn caller(&self) -> Option<&Caller> {
        self.inner.caller.as_deref()
    }
    /// The cancellation token of this request: it fires when the client goes away or cancels,
    /// when the request times out, or when the server shuts down.
    pub fn cancellation(&self) -> CancellationToken {
        self.inner.cancellation()
    }
    /// Closes the connection that carries this request's SSE stream, while the request goes on;
    /// the client reconnects (`GET` with `Last-Event-ID`) and reads the rest, its result
    /// included. Only requests on 2025-11-25 sessions over HTTP have such a stream (servers use
    /// it to avoid holding connections open during long work); elsewhere this does nothing.
    ///
    /// ```
    /// # async fn demo(cx: mcp_runtime::RequestContext) {
    /// cx.close_sse_stream();
    /// # }
    /// ```
    pub fn close_sse_stream(&self) {
        self.inner.stream_cut.notify_one();
    }
    /// The server's self-description.
    pub fn server_info(&self) -> &Implementation {
        &self.inner.server_info
    }
    /// Shared state of type `T`, if registered.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.inner.state.get::<Arc<T>>().cloned()
    }
    /// The request's `tracing` span (`mcp.request`): make your own spans its children, or record
    /// into it. It is disabled when no subscriber records it.
    ///
    /// ```
    /// use mcp_runtime::{NoArguments, RequestContext, Tool};
    /// let tool = Tool::new("lookup").handler(|_: NoArguments, cx: RequestContext| async move {
    ///     let _db = tracing::info_span!(parent: cx.span(), "db.query").entered();
    ///     "found"
    /// });
    /// ```
    pub fn span(&self) -> &tracing::Span {
        self.inner.span()
    }
    /// The W3C trace context the client sent in `_meta` (`traceparent`, `tracestate`), to pass
    /// on to services this request calls.
    ///
    /// ```
    /// use mcp_runtime::{NoArguments, RequestContext, Tool};
    /// let tool = Tool::new("fetch").handler(|_: NoArguments, cx: RequestContext| async move {
    ///     // Continue the client's trace in the request this tool makes.
    ///     let header = cx.trace_context().map(|t| t.traceparent());
    ///     header.unwrap_or_default()
    /// });
    /// ```
    pub fn trace_context(&self) -> Option<TraceContext> {
        TraceContext::from_meta(&self.inner.meta)
    }
    /// A progress reporter (a no-op when the request carried no `progressToken`). In a task,
    /// each report becomes the task's `statusMessage`.
    pub fn progress(&self) -> Progress {
        let enabled =
            self.inner.meta.progress_token.is_some() || self.inner.task_status.get().is_some();
        Progress {
            request: enabled.then(|| self.inner.clone()),
        }
    }
    /// A logger sending `notifications/message` at or above the request's `logLevel`.
    pub fn logger(&self) -> Logger {
        Logger {
            level: if self.inner.logging_enabled {
                self.inner.log_level
            } else {
                None
            },
            notifier: self.inner.notifier.clone(),
            name: None,
        }
    }
    /// This request's client input, for the MRTR API.
    pub(crate) fn input(&self) -> Result<&InputData, McpError> {
        self.inner.input.get().ok_or_else(|| {
            McpError::internal(format!(
                "client input is only available to tools/call, prompts/get and resources/read (this is {})",
                self.method()
            ))
        })
    }
}

/// Reports progress of the current request as `notifications/progress`.
///
/// A silent no-op when the request carried no `_meta.progressToken` (a token is never invented).
/// In a task (the tasks extension), each report becomes the task's `statusMessage` instead: its
/// `message`, or `"{progress} of {total}"`.
/// Values that do not strictly increase are dropped, as the spec requires.
///
/// ```
/// use mcp_runtime::Progress;
/// let p = Progress::disabled();
/// assert!(!p.is_enabled());
/// p.report(0.5, Some(1.0), Some("halfway")); // nothing is sent
/// ```
#[derive(Clone)]
pub struct Progress {
    /// The request, when it carried a progress token.
    request: Option<Arc<ContextInner>>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("enabled", &self.is_enabled())
            .finish()
    }
}

impl Progress {
    /// A reporter that sends nothing.
    pub fn disabled() -> Self {
        Progress { request: None }
    }
    /// Whether the client asked for progress.
    pub fn is_enabled(&self) -> bool {
        self.request.is_some()
    }
    /// Sends one progress notification; returns whether it was sent.
    pub fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        let Some(request) = &self.request else {
            return false;
        };
        if !progress.is_finite() {
            return false;
        }
        // Strictly increasing, even with concurrent reporters of the same request.
        let last = &request.progress_last;
        let mut prev = last.load(Ordering::SeqCst);
        loop {
            if progress <= f64::from_bits(prev) {
                return false;
            }
            match last.compare_exchange(
                prev,
                progress.to_bits(),
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => break,
                Err(actual) => prev = actual,
            }
        }
        if let Some(status) = request.task_status.get() {
            let text = match (message, total) {
                (Some(m), _) => m.to_owned(),
                (None, Some(t)) => format!("{} of {}", number(progress), number(t)),
                (None, None) => format!("{}", number(progress)),
            };
            // Only the latest message matters: a handler reporting faster than the store is
            // written overwrites the one still waiting.
            status.send_replace(Some(text));
            return true;
        }
        let Some(token) = &request.meta.progress_token else {
            return false;
        };
        let total = total.map(number);
        let render =
            || super::notify::progress_json(token, &number(progress), total.as_ref(), message);
        request.notifier.deliver_with(render) == super::notify::Sent::Queued
    }
}

fn number(x: f64) -> serde_json::Number {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        serde_json::Number::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).unwrap_or_else(|| serde_json::Number::from(0))
    }
}
