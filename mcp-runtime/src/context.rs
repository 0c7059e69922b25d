//! The request context handed to handlers, and the extractors built from it.

use crate::McpError;
use crate::protocol::{
    ClientCapabilities, Implementation, JsonRpcNotification, LoggingLevel,
    LoggingMessageNotificationParams, ProgressNotificationParams, RequestId, RequestMeta,
};
use bytes::Bytes;
use serde::Serialize;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use tokio::sync::{Notify, mpsc};

/// A token that fires when the request is cancelled (client disconnect on HTTP,
/// `notifications/cancelled` on stdio, timeout, or server shutdown).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use mcp_runtime::CancellationToken;
/// let token = CancellationToken::new();
/// let waiter = token.clone();
/// token.cancel();
/// waiter.cancelled().await;
/// assert!(waiter.is_cancelled());
/// # }
/// ```
#[derive(Clone)]
pub struct CancellationToken {
    source: CancelSource,
}

/// Where a token's state lives: its own allocation, or inside the request it belongs to (one
/// allocation less per request).
#[derive(Clone)]
enum CancelSource {
    Own(Arc<CancelState>),
    Request(Arc<ContextInner>),
}

#[derive(Default)]
pub(crate) struct CancelState {
    fired: AtomicBool,
    notify: Notify,
}

impl Default for CancellationToken {
    fn default() -> Self {
        CancellationToken {
            source: CancelSource::Own(Arc::default()),
        }
    }
}

impl std::fmt::Debug for CancellationToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancellationToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

impl CancellationToken {
    /// A token that has not fired.
    pub fn new() -> Self {
        Self::default()
    }
    /// The token of a request.
    pub(crate) fn of_request(request: Arc<ContextInner>) -> Self {
        CancellationToken {
            source: CancelSource::Request(request),
        }
    }
    fn state(&self) -> &CancelState {
        match &self.source {
            CancelSource::Own(state) => state,
            CancelSource::Request(request) => &request.cancel,
        }
    }
    /// Fires the token (idempotent).
    pub fn cancel(&self) {
        let state = self.state();
        if !state.fired.swap(true, Ordering::SeqCst) {
            state.notify.notify_waiters();
        }
    }
    /// Whether the token has fired.
    pub fn is_cancelled(&self) -> bool {
        self.state().fired.load(Ordering::SeqCst)
    }
    /// Resolves once the token fires.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.state().notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// Sends request-scoped notifications onto the response stream of one request.
#[derive(Clone, Debug)]
pub(crate) struct Notifier {
    tx: Option<mpsc::UnboundedSender<Bytes>>,
}

impl Notifier {
    pub(crate) fn new(tx: mpsc::UnboundedSender<Bytes>) -> Self {
        Notifier { tx: Some(tx) }
    }
    pub(crate) fn none() -> Self {
        Notifier { tx: None }
    }
    pub(crate) fn send<P: Serialize>(&self, method: &str, params: &P) -> bool {
        let Some(tx) = &self.tx else { return false };
        match serde_json::to_vec(&JsonRpcNotification::new(method, params)) {
            Ok(bytes) => tx.send(Bytes::from(bytes)).is_ok(),
            Err(_) => false,
        }
    }
}

/// Typed application state shared by all requests, registered with
/// [`ServerBuilder::state`](crate::ServerBuilder::state).
#[derive(Default, Clone)]
pub(crate) struct StateMap {
    map: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.map.insert(TypeId::of::<T>(), Arc::new(value));
    }
    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.map
            .get(&TypeId::of::<T>())
            .and_then(|v| v.clone().downcast::<T>().ok())
    }
}

/// The authenticated caller of a request, set by an authentication layer.
///
/// ```
/// use mcp_runtime::Caller;
/// let caller = Caller::new("user-17").with_scopes(["docs:read"]);
/// assert!(caller.has_scope("docs:read"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Caller {
    /// Stable subject identifier (e.g. the token's `sub`).
    pub subject: String,
    /// Granted scopes.
    pub scopes: Vec<String>,
}

impl Caller {
    /// A caller with no scopes.
    pub fn new(subject: impl Into<String>) -> Self {
        Caller {
            subject: subject.into(),
            scopes: Vec::new(),
        }
    }
    /// Adds scopes.
    #[must_use]
    pub fn with_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }
    /// Whether a scope was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
}

pub(crate) struct ContextInner {
    pub(crate) id: RequestId,
    pub(crate) method: &'static str,
    pub(crate) meta: Box<RequestMeta>,
    pub(crate) log_level: Option<LoggingLevel>,
    pub(crate) notifier: Notifier,
    pub(crate) cancel: CancelState,
    pub(crate) state: Arc<StateMap>,
    pub(crate) caller: Option<Arc<Caller>>,
    pub(crate) server_info: Arc<Implementation>,
    pub(crate) logging_enabled: bool,
    pub(crate) input: std::sync::OnceLock<crate::mrtr::InputData>,
    /// The last progress value sent (bits of an `f64`), shared by every reporter of the request.
    pub(crate) progress_last: AtomicU64,
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
    /// The cancellation token of this request.
    pub fn cancellation(&self) -> CancellationToken {
        CancellationToken::of_request(self.inner.clone())
    }
    /// The server's self-description.
    pub fn server_info(&self) -> &Implementation {
        &self.inner.server_info
    }
    /// Shared state of type `T`, if registered.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.inner.state.get::<T>()
    }
    /// A progress reporter (a no-op when the request carried no `progressToken`).
    pub fn progress(&self) -> Progress {
        Progress {
            request: self
                .inner
                .meta
                .progress_token
                .is_some()
                .then(|| self.inner.clone()),
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
}

/// Reports progress of the current request as `notifications/progress`.
///
/// A silent no-op when the request carried no `_meta.progressToken` (a token is never invented).
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
        let Some(token) = &request.meta.progress_token else {
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
        let params = ProgressNotificationParams {
            progress_token: token.clone(),
            progress: number(progress),
            total: total.map(number),
            message: message.map(str::to_owned),
            meta: None,
        };
        request.notifier.send("notifications/progress", &params)
    }
}

fn number(x: f64) -> serde_json::Number {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        serde_json::Number::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).unwrap_or_else(|| serde_json::Number::from(0))
    }
}

/// Sends `notifications/message` on the current request's stream, only at or above the level the
/// request asked for with `_meta["io.modelcontextprotocol/logLevel"]` (and only when the server
/// enabled logging). Otherwise a no-op.
#[derive(Clone, Debug)]
pub struct Logger {
    level: Option<LoggingLevel>,
    notifier: Notifier,
    name: Option<String>,
}

impl Logger {
    /// A logger with a name (`logger` field).
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
    /// Whether a message at `level` would be sent.
    pub fn enabled(&self, level: LoggingLevel) -> bool {
        self.level.is_some_and(|min| level >= min)
    }
    /// Sends `data` at `level` if enabled.
    pub fn log(&self, level: LoggingLevel, data: impl Serialize) -> bool {
        if !self.enabled(level) {
            return false;
        }
        let Ok(data) = serde_json::to_value(data) else {
            return false;
        };
        let params = LoggingMessageNotificationParams {
            level,
            logger: self.name.clone(),
            data,
            meta: None,
        };
        self.notifier.send("notifications/message", &params)
    }
    /// `info` level.
    pub fn info(&self, data: impl Serialize) -> bool {
        self.log(LoggingLevel::Info, data)
    }
    /// `warning` level.
    pub fn warning(&self, data: impl Serialize) -> bool {
        self.log(LoggingLevel::Warning, data)
    }
    /// `error` level.
    pub fn error(&self, data: impl Serialize) -> bool {
        self.log(LoggingLevel::Error, data)
    }
    /// `debug` level.
    pub fn debug(&self, data: impl Serialize) -> bool {
        self.log(LoggingLevel::Debug, data)
    }
}

/// Shared application state of type `T` (registered with
/// [`ServerBuilder::state`](crate::ServerBuilder::state)), as a handler parameter.
///
/// ```
/// use mcp_runtime::State;
/// struct Db { url: String }
/// fn uses(State(db): State<Db>) -> usize { db.url.len() }
/// ```
pub struct State<T>(pub Arc<T>);

impl<T> std::ops::Deref for State<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A handler parameter built from the request context rather than from the JSON arguments.
///
/// Implemented by [`RequestContext`], [`Progress`], [`Logger`], [`CancellationToken`],
/// [`State<T>`], [`Caller`] and `Option<Caller>`. Implement it for your own types and mark the
/// parameter with `#[ctx]`.
///
/// ```
/// use mcp_runtime::{FromContext, McpError, RequestContext};
/// struct ClientName(String);
/// impl FromContext for ClientName {
///     fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
///         Ok(ClientName(cx.client_info().map(|c| c.name.clone()).unwrap_or_default()))
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as a context parameter",
    label = "this type does not implement `FromContext`",
    note = "context parameters are `RequestContext`, `Progress`, `Logger`, `CancellationToken`, `State<T>`, `Caller`, `Option<Caller>`, or a type of yours implementing `mcp_runtime::FromContext`"
)]
pub trait FromContext: Sized {
    /// Builds the value, or refuses the request with a protocol error.
    fn from_context(cx: &RequestContext) -> Result<Self, McpError>;
}

impl FromContext for RequestContext {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        Ok(cx.clone())
    }
}

impl FromContext for Progress {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        Ok(cx.progress())
    }
}

impl FromContext for Logger {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        Ok(cx.logger())
    }
}

impl FromContext for CancellationToken {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        Ok(cx.cancellation())
    }
}

impl<T: Send + Sync + 'static> FromContext for State<T> {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        cx.state::<T>().map(State).ok_or_else(|| {
            McpError::internal(format!(
                "server state of type `{}` was not registered (call ServerBuilder::state)",
                std::any::type_name::<T>()
            ))
        })
    }
}

impl FromContext for Caller {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        cx.caller()
            .cloned()
            .ok_or_else(|| McpError::internal("this handler needs an authenticated caller, but no authentication layer is configured"))
    }
}

impl FromContext for Option<Caller> {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        Ok(cx.caller().cloned())
    }
}
