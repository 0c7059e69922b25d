//! Layers: your code around every call, in the order they were added. A layer sees the decoded
//! request (method, caller, the primitive and its arguments), runs before and after the rest of
//! the chain, can answer in its place (a result or an error), and sees the answer.
//!
//! Why a small trait rather than `tower` layers over a service of MCP requests: the pipeline
//! runs everything up to a handler's first poll synchronously and borrows the request from the
//! message, and a tower `Service` wants owned requests, `poll_ready` back-pressure (meaningless
//! per MCP request) and a cloned service per call; the middleware tower ships (timeouts, rate
//! limits) work per service, not per tool or per caller, and fail with a `BoxError` that has no
//! MCP meaning. HTTP concerns stay where axum users put them, as tower layers on the router of
//! [`Server::into_router`](crate::Server::into_router); the MCP-level chain has the shape of
//! axum's `middleware::from_fn` ([`layer_fn`]): `async |request, next| next.run(request).await`.

use super::encode::Response;
use super::panic::{catch_panic, panic_message};
use crate::context::{Caller, RequestContext};
use crate::error::McpError;
use crate::protocol::{CallToolResult, Method, Named, RequestId, ResultMeta, ToolInfo};
use crate::registry::{Arguments, BoxFuture, ToolEntry};
use serde::Serialize;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

/// What a layer (and the chain below it) answers: the response, or an error to answer with.
pub type LayerResult = Result<Response, McpError>;

/// Code that runs around every call: requests that passed the checks every request passes
/// (`_meta`, headers, version, method) and are about to be served, those the layer
/// [`wants`](Layer::wants) (all, by default).
///
/// Layers run in the order they were added to the
/// [`ServerBuilder`](crate::ServerBuilder::layer): the first sees the request first and the
/// answer last. Call `next.run(request)` to go on; answer without calling it to short-circuit.
/// A panic in a layer is caught and answered like a panic in a handler. A request no layer wants
/// pays nothing for the chain.
///
/// ```
/// use mcp_runtime::layers::{Layer, LayerResult, McpRequest, Next};
/// use mcp_runtime::{handler::BoxFuture, McpError};
///
/// /// Refuses tools whose annotations say they are destructive.
/// struct ReadOnly;
///
/// impl Layer for ReadOnly {
///     fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'_, LayerResult> {
///         Box::pin(async move {
///             let destructive = request
///                 .tool()
///                 .and_then(|t| t.annotations.as_ref())
///                 .and_then(|a| a.destructive_hint)
///                 .unwrap_or(false);
///             if destructive {
///                 return Ok(request.tool_error("This server is read-only today."));
///             }
///             next.run(request).await
///         })
///     }
/// }
///
/// let server = mcp_runtime::Server::builder().layer(ReadOnly).build().unwrap();
/// ```
pub trait Layer: Send + Sync + 'static {
    /// Serves `request`: `next.run(request)` goes on to the next layer, then the handler.
    fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'_, LayerResult>;

    /// Whether this layer runs around a request of `method` naming `name` (the tool, prompt or
    /// resource URI as sent). A layer that does not want a request is skipped; a request no
    /// layer wants is served as if the server had none (no chain is built, nothing is boxed).
    /// Default: every request.
    ///
    /// ```
    /// use mcp_runtime::layers::{Layer, LayerResult, McpRequest, Next};
    /// use mcp_runtime::protocol::Method;
    /// use mcp_runtime::handler::BoxFuture;
    ///
    /// /// Logs the calls of one tool.
    /// struct Watch(&'static str);
    ///
    /// impl Layer for Watch {
    ///     fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'_, LayerResult> {
    ///         eprintln!("{} called", self.0);
    ///         next.run(request)
    ///     }
    ///     fn wants(&self, method: Method, name: Option<&str>) -> bool {
    ///         method == Method::ToolsCall && name == Some(self.0)
    ///     }
    /// }
    /// assert!(!Watch("deploy").wants(Method::ToolsCall, Some("add")));
    /// ```
    fn wants(&self, method: Method, name: Option<&str>) -> bool {
        let _ = (method, name);
        true
    }

    /// The layer's name in logs (a panic is logged with it).
    fn name(&self) -> &str {
        "layer"
    }
}

/// A layer made of an `async` function or closure, like axum's `middleware::from_fn`.
///
/// ```
/// use mcp_runtime::layers::{McpRequest, Next, layer_fn};
///
/// let log = layer_fn(|request: McpRequest, next: Next| async move {
///     let method = request.method();
///     let answer = next.run(request).await;
///     eprintln!("{method}: {}", if answer.is_ok() { "answered" } else { "failed" });
///     answer
/// });
/// let server = mcp_runtime::Server::builder().layer(log).build().unwrap();
/// ```
pub fn layer_fn<F, Fut>(f: F) -> LayerFn<F>
where
    F: Fn(McpRequest, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = LayerResult> + Send + 'static,
{
    LayerFn(f)
}

/// The [`Layer`] [`layer_fn`] makes.
#[derive(Clone)]
pub struct LayerFn<F>(F);

impl<F, Fut> Layer for LayerFn<F>
where
    F: Fn(McpRequest, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = LayerResult> + Send + 'static,
{
    fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'_, LayerResult> {
        Box::pin((self.0)(request, next))
    }

    fn name(&self) -> &str {
        "layer_fn"
    }
}

/// The layers added to a server, outermost first.
pub(crate) type Layers = Arc<[Arc<dyn Layer>]>;

/// The rest of the chain: the layers after this one, then the handler. Consumed by
/// [`run`](Next::run): a handler runs at most once per request (a layer cannot retry it: its
/// input is moved into it, and its notifications and sealed states belong to one run).
///
/// ```
/// use mcp_runtime::layers::{McpRequest, Next, layer_fn};
/// // Keep what the answer needs before `run` takes the request.
/// let layer = layer_fn(|request: McpRequest, next: Next| async move {
///     let name = request.name().map(str::to_owned);
///     let answer = next.run(request).await;
///     if let (Some(name), Ok(response)) = (&name, &answer) {
///         assert!(!response.is_rejection(), "{name}");
///     }
///     answer
/// });
/// ```
pub struct Next {
    layers: Layers,
    index: usize,
    handler: Box<dyn FnOnce() -> BoxFuture<'static, LayerResult> + Send>,
}

impl std::fmt::Debug for Next {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Next")
            .field("layers_left", &(self.layers.len() - self.index))
            .finish_non_exhaustive()
    }
}

impl Next {
    /// The whole chain: every layer, then `handler`.
    pub(crate) fn chain(
        layers: Layers,
        handler: impl FnOnce() -> BoxFuture<'static, LayerResult> + Send + 'static,
    ) -> Next {
        Next {
            layers,
            index: 0,
            handler: Box::new(handler),
        }
    }

    /// Goes on: the next layer, or the handler when no layer is left.
    pub fn run(self, request: McpRequest) -> BoxFuture<'static, LayerResult> {
        let Next {
            layers,
            index,
            handler,
        } = self;
        // The next layer that wants this request.
        let skipped = layers[index.min(layers.len())..]
            .iter()
            .take_while(|l| !l.wants(request.method(), request.name()))
            .count();
        let index = index + skipped;
        let Some(layer) = layers.get(index).cloned() else {
            return handler();
        };
        let next = Next {
            layers,
            index: index + 1,
            handler,
        };
        Box::pin(async move {
            let seen = request.clone();
            let started = std::panic::catch_unwind(AssertUnwindSafe(|| layer.call(request, next)));
            let outcome = match started {
                Ok(fut) => catch_panic(fut).await,
                Err(payload) => Err(panic_message(&*payload)),
            };
            outcome.unwrap_or_else(|msg| seen.layer_panicked(layer.name(), &msg))
        })
    }
}

/// A request as layers see it: what it asks for, who asks, and how to answer in its place.
/// Cheap to clone.
///
/// ```
/// use mcp_runtime::layers::{McpRequest, Next, layer_fn};
/// use mcp_runtime::protocol::Method;
/// // Only callers with the `tools:call` scope may call tools.
/// let scoped = layer_fn(|request: McpRequest, next: Next| async move {
///     let allowed = request.caller().is_some_and(|c| c.has_scope("tools:call"));
///     if request.method() == Method::ToolsCall && !allowed {
///         return Ok(request.tool_error("You may not call tools."));
///     }
///     next.run(request).await
/// });
/// ```
#[derive(Clone)]
pub struct McpRequest {
    inner: Arc<View>,
}

struct View {
    method: Method,
    context: RequestContext,
    /// The primitive named, as sent.
    name: Option<Arc<str>>,
    tool: Option<Arc<ToolEntry>>,
    arguments: Option<Arguments>,
    has_handler: bool,
    /// What a result of the server carries (`serverInfo`).
    result_meta: Option<ResultMeta>,
}

impl std::fmt::Debug for McpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpRequest")
            .field("method", &self.inner.method)
            .field("id", self.id())
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

/// What the pipeline knows of a request when its layers run.
pub(crate) struct RequestParts {
    pub(crate) method: Method,
    pub(crate) context: RequestContext,
    pub(crate) name: Option<Arc<str>>,
    pub(crate) tool: Option<Arc<ToolEntry>>,
    pub(crate) arguments: Option<Arguments>,
    pub(crate) has_handler: bool,
    pub(crate) result_meta: Option<ResultMeta>,
}

impl McpRequest {
    pub(crate) fn new(parts: RequestParts) -> McpRequest {
        let RequestParts {
            method,
            context,
            name,
            tool,
            arguments,
            has_handler,
            result_meta,
        } = parts;
        McpRequest {
            inner: Arc::new(View {
                method,
                context,
                name,
                tool,
                arguments,
                has_handler,
                result_meta,
            }),
        }
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.inner.method
    }

    /// The JSON-RPC id.
    pub fn id(&self) -> &RequestId {
        self.inner.context.request_id()
    }

    /// The request context: `_meta`, client capabilities, cancellation, state, the span.
    pub fn context(&self) -> &RequestContext {
        &self.inner.context
    }

    /// The authenticated caller, when the transport authenticated one.
    pub fn caller(&self) -> Option<&Caller> {
        self.inner.context.caller()
    }

    /// The primitive the request names, as sent: the tool of `tools/call`, the prompt of
    /// `prompts/get`, the URI of `resources/read`.
    pub fn name(&self) -> Option<&str> {
        self.inner.name.as_deref()
    }

    /// The registered tool a `tools/call` calls (its description, annotations, schemas).
    pub fn tool(&self) -> Option<&ToolInfo> {
        self.inner.tool.as_ref().map(|entry| &entry.tool.info)
    }

    /// The arguments of a `tools/call` of a registered tool.
    pub fn arguments(&self) -> Option<&Arguments> {
        self.inner.arguments.as_ref()
    }

    /// Whether a handler of yours will run: false when the pipeline answers by itself (a list
    /// page, `server/discover`, an unknown tool, arguments that fail the input schema).
    pub fn has_handler(&self) -> bool {
        self.inner.has_handler
    }

    /// An answer with `result` (serialized as it is: set its `resultType`).
    ///
    /// ```
    /// # fn demo(request: mcp_runtime::layers::McpRequest) {
    /// use mcp_runtime::protocol::{Content, GetPromptResult};
    /// let cached = GetPromptResult::new(vec![]);
    /// let response = request.reply(&cached);
    /// assert!(!response.is_error());
    /// # }
    /// ```
    pub fn reply<T: Serialize>(&self, result: &T) -> Response {
        Response::result(self.id(), result)
    }

    /// A tool execution error (`isError: true`) with `message`: how a layer refuses a tool call
    /// so that the model reads why.
    pub fn tool_error(&self, message: impl Into<String>) -> Response {
        let mut result = CallToolResult::error(message);
        result.meta = self.inner.result_meta.clone();
        Response::tool_result(self.id(), &result)
    }

    /// The answer when a layer panicked: what a panicking handler of the same method gets.
    fn layer_panicked(&self, layer: &str, msg: &str) -> LayerResult {
        let method = self.method();
        let name = self.name().unwrap_or_default();
        tracing::error!(layer = %layer, method = %method, panic = %msg, "layer panicked");
        // A tool's failure is a result the model reads; any other method's is an error.
        if method.names() == Some(Named::Tool) {
            return Ok(self.tool_error(format!(
                "Tool `{name}` failed unexpectedly (a layer panicked)."
            )));
        }
        Err(McpError::internal(format!(
            "{method} failed unexpectedly (a layer panicked)."
        )))
    }
}
