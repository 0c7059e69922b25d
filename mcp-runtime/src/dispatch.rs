//! Transport-agnostic dispatch: one validated request in, a stream of request-scoped
//! notifications and then exactly one response out.

use crate::context::{ContextInner, Notifier, RequestContext};
use crate::protocol::{
    self as p, CacheScope, CompleteRequestParams, Completion, CompletionReference, DiscoverResult,
    ErrorObject, InputRequiredResult, LoggingLevel, NotificationMeta, NotificationParams,
    RequestId, RequestMeta, ResourceUpdatedNotificationParams, ResultMeta, ResultType,
    SubscriptionFilter, SubscriptionsAcknowledgedParams, SubscriptionsListenRequestParams,
    SubscriptionsListenResult, codes,
};
use crate::registry::{
    CompletionRequest, PromptGet, PromptOutcome, ResourceOutcome, ResourceRead, ToolCall,
    ToolHandler, ToolOutcome,
};
use crate::{Caller, CancellationToken, McpError, Server};
use base64::Engine as _;
use bytes::Bytes;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// One message read from a transport.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // one per message, never stored in bulk
#[non_exhaustive]
pub enum Incoming {
    /// A request: answer it with [`Server::call`].
    Request(Request),
    /// A notification: never answered.
    Notification(Notification),
}

/// A client notification.
#[derive(Debug)]
pub struct Notification {
    /// The method.
    pub method: String,
    /// Raw params.
    pub params: Option<Box<RawValue>>,
}

/// A parsed JSON-RPC request whose `params` are kept raw until the method is known.
#[derive(Debug)]
pub struct Request {
    pub(crate) id: RequestId,
    /// Known methods borrow their static name: no allocation on the hot path.
    pub(crate) method: std::borrow::Cow<'static, str>,
    pub(crate) params: Option<Box<RawValue>>,
    /// Boxed from the moment it is read: the request and what carries it move several times.
    pub(crate) meta: Option<Box<RequestMeta>>,
    pub(crate) name: Option<Value>,
    /// `tools/call` params read in the same pass as `_meta` (the hot path parses them once).
    pub(crate) tool_call: Option<ToolCallParams>,
}

/// A request that could not be accepted: the error and the id to answer with (absent when the
/// id could not be read).
#[derive(Debug, Clone)]
pub struct Rejection {
    /// The request id, when readable.
    pub id: Option<RequestId>,
    /// The error.
    pub error: McpError,
}

impl Rejection {
    pub(crate) fn new(id: Option<RequestId>, error: McpError) -> Self {
        Rejection { id, error }
    }
    /// The error response.
    pub fn into_response(self) -> Response {
        Response::error(self.id.as_ref(), &self.error)
    }
}

/// The final answer to one request: the serialized JSON-RPC response and the HTTP status the
/// Streamable HTTP transport uses for it.
#[derive(Debug, Clone)]
pub struct Response {
    /// HTTP status (200 for results).
    pub status: u16,
    /// Serialized JSON-RPC response.
    pub body: Bytes,
    error: bool,
}

#[derive(Serialize)]
struct ErrorEnvelope<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a RequestId>,
    error: &'a ErrorObject,
}

impl Response {
    /// A result response.
    pub fn result<T: Serialize>(id: &RequestId, result: &T) -> Response {
        Response::result_with_capacity(id, result, 512)
    }

    /// A result response serialized into a buffer of `capacity` bytes to start with (results
    /// known to be large skip the regrowing).
    pub(crate) fn result_with_capacity<T: Serialize>(
        id: &RequestId,
        result: &T,
        capacity: usize,
    ) -> Response {
        // The envelope's keys are constants: written as bytes, not escaped one by one.
        let mut buf = Vec::with_capacity(capacity);
        buf.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        let written = serde_json::to_writer(&mut buf, id).and_then(|()| {
            buf.extend_from_slice(br#","result":"#);
            serde_json::to_writer(&mut buf, result)
        });
        buf.push(b'}');
        match written {
            Ok(()) => Response {
                status: 200,
                body: Bytes::from(buf),
                error: false,
            },
            Err(e) => Response::error(
                Some(id),
                &McpError::internal(format!("the result could not be serialized: {e}")),
            ),
        }
    }
    /// An error response.
    pub fn error(id: Option<&RequestId>, error: &McpError) -> Response {
        let body = serde_json::to_vec(&ErrorEnvelope {
            jsonrpc: "2.0",
            id,
            error: &error.object,
        })
        .unwrap_or_else(|_| {
            br#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}"#.to_vec()
        });
        Response {
            status: error.status,
            body: Bytes::from(body),
            error: true,
        }
    }
    /// Whether this is a JSON-RPC error response.
    pub fn is_error(&self) -> bool {
        self.error
    }
}

/// One item of a [`Call`].
#[derive(Debug)]
pub enum Outgoing {
    /// A serialized notification belonging to the request.
    Notification(Bytes),
    /// The final response; nothing follows it.
    Response(Response),
}

/// The stream of messages answering one request: notifications, then exactly one response.
///
/// Dropping a `Call` before its response cancels the handler (its [`CancellationToken`] fires and
/// its future is dropped).
pub struct Call {
    rx: Option<mpsc::UnboundedReceiver<Bytes>>,
    fut: Option<Pin<Box<dyn Future<Output = Response> + Send>>>,
    ready: Option<Response>,
    cancel: CancellationToken,
    finished: bool,
}

impl std::fmt::Debug for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl Call {
    fn with(
        rx: Option<mpsc::UnboundedReceiver<Bytes>>,
        fut: Option<Pin<Box<dyn Future<Output = Response> + Send>>>,
        ready: Option<Response>,
        cancel: CancellationToken,
    ) -> Call {
        Call {
            rx,
            fut,
            ready,
            cancel,
            finished: false,
        }
    }

    fn ready(response: Response) -> Call {
        Call {
            rx: None,
            fut: None,
            ready: Some(response),
            cancel: CancellationToken::new(),
            finished: false,
        }
    }

    /// The cancellation token of the handler.
    pub fn cancellation(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Polls for the next message.
    pub fn poll_next_message(&mut self, cx: &mut Context<'_>) -> Poll<Option<Outgoing>> {
        if self.finished {
            return Poll::Ready(None);
        }
        if let Some(rx) = &mut self.rx
            && self.fut.is_some()
            && let Poll::Ready(Some(b)) = rx.poll_recv(cx)
        {
            return Poll::Ready(Some(Outgoing::Notification(b)));
        }
        if let Some(fut) = &mut self.fut {
            match fut.as_mut().poll(cx) {
                Poll::Ready(resp) => {
                    self.fut = None;
                    self.ready = Some(resp);
                }
                Poll::Pending => return Poll::Pending,
            }
        }
        // The handler is done: flush what it sent before finishing, then the response.
        if let Some(rx) = &mut self.rx
            && let Ok(b) = rx.try_recv()
        {
            return Poll::Ready(Some(Outgoing::Notification(b)));
        }
        self.rx = None;
        self.finished = true;
        Poll::Ready(self.ready.take().map(Outgoing::Response))
    }

    /// The next message, or `None` after the response.
    pub async fn next_message(&mut self) -> Option<Outgoing> {
        std::future::poll_fn(|cx| self.poll_next_message(cx)).await
    }

    /// Runs to completion, dropping notifications, and returns the response.
    pub async fn response(mut self) -> Response {
        loop {
            match self.next_message().await {
                Some(Outgoing::Response(r)) => return r,
                Some(Outgoing::Notification(_)) => continue,
                None => {
                    return Response::error(
                        None,
                        &McpError::internal("the request produced no response"),
                    );
                }
            }
        }
    }
}

impl futures_core::Stream for Call {
    type Item = Outgoing;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Outgoing>> {
        self.get_mut().poll_next_message(cx)
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if !self.finished {
            self.cancel.cancel();
        }
    }
}

/// Per-call options a transport passes along with a request.
#[derive(Debug, Default, Clone)]
#[non_exhaustive]
pub struct CallOptions {
    /// The authenticated caller.
    pub caller: Option<Arc<Caller>>,
    /// `Mcp-Param-*` headers of an HTTP `tools/call` (lowercase name without the prefix, raw
    /// value); `None` on transports without headers.
    pub param_headers: Option<Vec<(String, String)>>,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow)]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present_raw")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present_raw")]
    method: Option<&'a RawValue>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
    #[serde(default)]
    result: Option<IgnoredAny>,
    #[serde(default)]
    error: Option<IgnoredAny>,
}

fn present_raw<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// A method name: the static name of a known method (no allocation), else the string.
fn raw_method(raw: &RawValue) -> Option<std::borrow::Cow<'static, str>> {
    let text = raw.get();
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    let owned;
    let name = if inner.contains('\\') {
        owned = serde_json::from_str::<String>(text).ok()?;
        owned.as_str()
    } else {
        inner
    };
    Some(match Method::parse(name) {
        Some(m) => std::borrow::Cow::Borrowed(m.name()),
        None => std::borrow::Cow::Owned(name.to_owned()),
    })
}

/// A JSON string's value without allocating twice (escapes are rare in ids and method names).
fn raw_string(raw: &RawValue) -> Option<String> {
    let text = raw.get();
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str(text).ok()
    } else {
        Some(inner.to_owned())
    }
}

/// A request id: a string or an integer (`null`, floats and others are not ids).
fn raw_id(raw: &RawValue) -> Option<RequestId> {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'"') => raw_string(raw).map(RequestId::String),
        Some(b'-' | b'0'..=b'9') => text.parse::<i64>().ok().map(RequestId::Number),
        _ => None,
    }
}

#[derive(Deserialize)]
struct Head<'a> {
    #[serde(rename = "_meta", default, borrow, deserialize_with = "present_raw")]
    meta: Option<&'a RawValue>,
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    uri: Option<Value>,
}

/// `tools/call` params with `_meta`, read in one pass over the request body by
/// [`parse_message`]: `arguments` and `inputResponses` are only delimited here, not parsed.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallWhole<'a> {
    #[serde(rename = "_meta", default)]
    meta: Option<Box<RequestMeta>>,
    name: String,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
    /// Read into raw answers by key in the same pass (a value that is not an object fails the
    /// fast path, and the general path reports it).
    #[serde(default)]
    input_responses: Option<crate::mrtr::Responses>,
    #[serde(default)]
    request_state: Option<String>,
}

impl From<ToolCallWhole<'_>> for ToolCallParams {
    fn from(whole: ToolCallWhole<'_>) -> Self {
        ToolCallParams {
            name: whole.name,
            arguments: whole.arguments.map(|a| Arc::from(a.get())),
            input_responses: whole.input_responses.map(Answers::Read),
            request_state: whole.request_state,
        }
    }
}

/// A whole well-formed `tools/call` request, read in one pass over the body.
#[derive(Deserialize)]
struct ToolCallEnvelope<'a> {
    #[serde(borrow)]
    jsonrpc: &'a str,
    #[serde(borrow)]
    id: &'a RawValue,
    /// Only `tools/call` reads: any other method stops this reading at once (before `params`,
    /// which clients send after `method`).
    method: ToolsCallMethod,
    #[serde(borrow)]
    params: ToolCallWhole<'a>,
    #[serde(default)]
    result: Option<IgnoredAny>,
    #[serde(default)]
    error: Option<IgnoredAny>,
}

#[derive(Deserialize)]
enum ToolsCallMethod {
    #[serde(rename = "tools/call")]
    ToolsCall,
}

/// The hot path: a well-formed `tools/call` in one pass over the body. `None` for anything
/// else (another method, an escape where a borrow is expected, any malformation), which the
/// general path of [`parse_message`] then reads and reports in the pipeline's order.
fn parse_tool_call(body: &str) -> Option<Request> {
    let env: ToolCallEnvelope<'_> = serde_json::from_str(body).ok()?;
    let ToolsCallMethod::ToolsCall = env.method;
    if env.jsonrpc != "2.0" || env.result.is_some() || env.error.is_some() {
        return None;
    }
    let mut whole = env.params;
    Some(Request {
        id: raw_id(env.id)?,
        method: std::borrow::Cow::Borrowed(Method::ToolsCall.name()),
        params: None,
        meta: whole.meta.take(),
        name: None,
        tool_call: Some(whole.into()),
    })
}

// The params of the other methods as dispatch reads them: `_meta` was already read by
// [`parse_message`] (the protocol types would read it again), answers stay raw.

/// `tools/list`, `resources/list`, `resources/templates/list`, `prompts/list` params.
#[derive(Default, Deserialize)]
struct PageParams {
    #[serde(default)]
    cursor: Option<String>,
}

/// `resources/read` params.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReadParams {
    uri: String,
    #[serde(default)]
    input_responses: Option<Box<RawValue>>,
    #[serde(default)]
    request_state: Option<String>,
}

/// `prompts/get` params.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptParams {
    name: String,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
    #[serde(default)]
    input_responses: Option<Box<RawValue>>,
    #[serde(default)]
    request_state: Option<String>,
}

/// `tools/call` params read from owned raw params (the general path): `_meta` was already
/// read by [`parse_message`], so it is skipped here instead of being deserialized again.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallOwned {
    name: String,
    #[serde(default)]
    arguments: Option<Box<RawValue>>,
    #[serde(default)]
    input_responses: Option<Box<RawValue>>,
    #[serde(default)]
    request_state: Option<String>,
}

/// Work started by [`Server::start_method`].
enum Work {
    /// Answered without a handler.
    Ready(Response),
    /// A tool handler.
    Tool(StartedTool),
    /// Any other handler.
    Other(crate::registry::BoxFuture<'static, Result<Response, McpError>>),
}

/// A tool handler started by [`Server::start_tool_call`].
struct StartedTool {
    entry: Arc<crate::registry::ToolEntry>,
    handler: crate::registry::BoxFuture<'static, Result<ToolOutcome, McpError>>,
    id: RequestId,
}

/// `tools/call` params as dispatch needs them: the arguments as the JSON text sent (checked to
/// be an object, and parsed, only when the call is served).
#[derive(Debug)]
pub(crate) struct ToolCallParams {
    name: String,
    arguments: Option<Arc<str>>,
    input_responses: Option<Answers>,
    request_state: Option<String>,
}

/// `inputResponses` as read so far.
#[derive(Debug)]
pub(crate) enum Answers {
    /// Not looked into yet (checked to be an object when the call is served).
    Raw(Box<RawValue>),
    /// Already split into raw answers by key.
    Read(crate::mrtr::Responses),
}

impl From<ToolCallOwned> for ToolCallParams {
    fn from(p: ToolCallOwned) -> Self {
        ToolCallParams {
            name: p.name,
            arguments: p.arguments.map(|a| Arc::from(a.get())),
            input_responses: p.input_responses.map(Answers::Raw),
            request_state: p.request_state,
        }
    }
}

/// Parses one JSON-RPC message (`-32700` for invalid JSON, `-32600` for anything that is not a
/// single request or notification object).
pub fn parse_message(body: &[u8]) -> Result<Incoming, Rejection> {
    // JSON text is UTF-8: checked once for the whole body here, so that serde_json does not
    // check every string again.
    let Ok(body) = std::str::from_utf8(body) else {
        return Err(Rejection::new(
            None,
            McpError::new(
                codes::PARSE_ERROR,
                "Parse error: the body is not valid UTF-8",
            ),
        ));
    };
    if let Some(req) = parse_tool_call(body) {
        return Ok(Incoming::Request(req));
    }
    let env: Envelope<'_> = match serde_json::from_str(body) {
        Ok(env) => env,
        Err(e) => {
            let err = if serde_json::from_str::<IgnoredAny>(body).is_err() {
                McpError::new(codes::PARSE_ERROR, format!("Parse error: {e}"))
            } else if body.trim_start().starts_with('[') {
                McpError::new(
                    codes::INVALID_REQUEST,
                    "Invalid Request: batches are not supported; send one JSON-RPC message per request",
                )
            } else {
                McpError::new(
                    codes::INVALID_REQUEST,
                    "Invalid Request: the body must be one JSON-RPC request or notification object",
                )
            };
            return Err(Rejection::new(None, err));
        }
    };
    let id = match env.id.map(raw_id) {
        None => None,
        Some(Some(id)) => Some(id),
        Some(None) => {
            return Err(Rejection::new(
                None,
                McpError::new(
                    codes::INVALID_REQUEST,
                    "Invalid Request: `id` must be a string or an integer",
                ),
            ));
        }
    };
    let invalid = |id: &Option<RequestId>, msg: &str| {
        Err(Rejection::new(
            id.clone(),
            McpError::new(codes::INVALID_REQUEST, format!("Invalid Request: {msg}")),
        ))
    };
    let version_ok = match env.jsonrpc.map(RawValue::get) {
        Some("\"2.0\"") => true,
        // The same string, spelled with escapes.
        Some(text) if text.contains('\\') => {
            serde_json::from_str::<String>(text).is_ok_and(|v| v == "2.0")
        }
        _ => false,
    };
    if !version_ok {
        return invalid(&id, "`jsonrpc` must be \"2.0\"");
    }
    if env.result.is_some() || env.error.is_some() {
        return invalid(
            &id,
            "this server accepts requests and notifications only, not JSON-RPC responses",
        );
    }
    let method = match env.method.map(raw_method) {
        Some(Some(m)) => m,
        Some(None) => return invalid(&id, "`method` must be a string"),
        None => return invalid(&id, "`method` is missing"),
    };
    let Some(id) = id else {
        return Ok(Incoming::Notification(Notification {
            method: method.into_owned(),
            params: env.params.map(|p| p.to_owned()),
        }));
    };
    // A well-formed `tools/call` was read by `parse_tool_call`; one that reaches this point is
    // read like any other request (its params at dispatch).
    let params = env.params.map(|p| p.to_owned());
    let (meta, name) = match &params {
        None => (None, None),
        Some(raw) => match serde_json::from_str::<Head>(raw.get()) {
            Ok(head) => {
                let meta = match head.meta {
                    None => None,
                    Some(v) => match serde_json::from_str::<Box<RequestMeta>>(v.get()) {
                        Ok(m) => Some(m),
                        Err(e) => {
                            return Err(Rejection::new(
                                Some(id),
                                McpError::invalid_params(format!(
                                    "Invalid params: `_meta` is malformed: {e}"
                                ))
                                .with_http_status(400),
                            ));
                        }
                    },
                };
                let name = if method == "resources/read" {
                    head.uri
                } else {
                    head.name
                };
                (meta, name)
            }
            Err(_) => {
                return Err(Rejection::new(
                    Some(id),
                    McpError::invalid_params("Invalid params: `params` must be an object")
                        .with_http_status(400),
                ));
            }
        },
    };
    Ok(Incoming::Request(Request {
        id,
        method,
        params,
        meta,
        name,
        tool_call: None,
    }))
}

impl Request {
    /// The request id.
    pub fn id(&self) -> &RequestId {
        &self.id
    }
    /// The method.
    pub fn method(&self) -> &str {
        &self.method
    }
    /// The request's `_meta`, when present.
    pub fn meta(&self) -> Option<&RequestMeta> {
        self.meta.as_deref()
    }
    /// `params.name` (or `params.uri` for `resources/read`) when it is a string: the value the
    /// `Mcp-Name` header mirrors.
    pub fn name(&self) -> Option<&str> {
        match &self.tool_call {
            Some(call) => Some(&call.name),
            None => self.name.as_ref().and_then(Value::as_str),
        }
    }

    /// Checks the required `_meta` fields (`-32602`, HTTP 400 when missing).
    pub fn check_meta(&self) -> Result<(), Rejection> {
        let missing = match &self.meta {
            None => Some("`params._meta` is missing"),
            Some(m) if m.protocol_version.is_none() => {
                Some("`_meta[\"io.modelcontextprotocol/protocolVersion\"]` is missing")
            }
            Some(m) if m.client_capabilities.is_none() => {
                Some("`_meta[\"io.modelcontextprotocol/clientCapabilities\"]` is missing")
            }
            Some(_) => None,
        };
        let Some(what) = missing else { return Ok(()) };
        let message = if self.method == "initialize" {
            // A legacy client can only show the message: tell it what this server speaks.
            format!(
                "Invalid params: {what}. This server speaks MCP {} (stateless): there is no initialize handshake; send the protocol version and client capabilities in `_meta` on every request",
                crate::protocol::LATEST_PROTOCOL_VERSION
            )
        } else {
            format!(
                "Invalid params: {what}; every 2026-07-28 request carries its protocol version and client capabilities in `_meta`"
            )
        };
        Err(Rejection::new(
            Some(self.id.clone()),
            McpError::invalid_params(message).with_http_status(400),
        ))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Discover,
    ToolsList,
    ToolsCall,
    ResourcesList,
    TemplatesList,
    ResourcesRead,
    PromptsList,
    PromptsGet,
    Complete,
    Listen,
}

impl Method {
    fn parse(s: &str) -> Option<Method> {
        Some(match s {
            "server/discover" => Method::Discover,
            "tools/list" => Method::ToolsList,
            "tools/call" => Method::ToolsCall,
            "resources/list" => Method::ResourcesList,
            "resources/templates/list" => Method::TemplatesList,
            "resources/read" => Method::ResourcesRead,
            "prompts/list" => Method::PromptsList,
            "prompts/get" => Method::PromptsGet,
            "completion/complete" => Method::Complete,
            "subscriptions/listen" => Method::Listen,
            _ => return None,
        })
    }
    fn name(self) -> &'static str {
        match self {
            Method::Discover => "server/discover",
            Method::ToolsList => "tools/list",
            Method::ToolsCall => "tools/call",
            Method::ResourcesList => "resources/list",
            Method::TemplatesList => "resources/templates/list",
            Method::ResourcesRead => "resources/read",
            Method::PromptsList => "prompts/list",
            Method::PromptsGet => "prompts/get",
            Method::Complete => "completion/complete",
            Method::Listen => "subscriptions/listen",
        }
    }
}

/// Methods of earlier revisions that 2026-07-28 removed.
const REMOVED: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "tasks/result",
    "tasks/list",
];

/// A change that listen streams may need to hear about. Serializes to JSON so that a
/// [`ChangeBus`](crate::ChangeBus) can carry it between instances.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "uri", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Change {
    /// The tool list changed.
    ToolsListChanged,
    /// The prompt list changed.
    PromptsListChanged,
    /// The resource (or template) list changed.
    ResourcesListChanged,
    /// A resource's contents changed.
    ResourceUpdated(String),
}

fn parse_params<T: serde::de::DeserializeOwned + Default>(
    params: &Option<Box<RawValue>>,
) -> Result<T, McpError> {
    match params {
        None => Ok(T::default()),
        Some(raw) => serde_json::from_str(raw.get())
            .map_err(|e| McpError::invalid_params(format!("Invalid params: {e}"))),
    }
}

fn parse_required<T: serde::de::DeserializeOwned>(
    params: &Option<Box<RawValue>>,
) -> Result<T, McpError> {
    match params {
        None => Err(McpError::invalid_params(
            "Invalid params: `params` is missing",
        )),
        Some(raw) => serde_json::from_str(raw.get())
            .map_err(|e| McpError::invalid_params(format!("Invalid params: {e}"))),
    }
}

/// An opaque, stable cursor: the name (or URI) of the last item of the previous page.
fn encode_cursor(kind: &str, last: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{kind}\n{last}"))
}

fn decode_cursor(kind: &str, cursor: &str) -> Result<String, McpError> {
    let bad = || McpError::invalid_params(format!("Invalid params: invalid cursor `{cursor}`"));
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .map_err(|_| bad())?;
    let text = String::from_utf8(bytes).map_err(|_| bad())?;
    match text.split_once('\n') {
        Some((k, last)) if k == kind => Ok(last.to_owned()),
        _ => Err(bad()),
    }
}

/// One page of `entries` after `cursor`: the items' JSON and the next cursor.
fn page_of<'r, E>(
    entries: &'r [Arc<E>],
    index: Option<&crate::registry::NameIndex>,
    kind: &str,
    cursor: Option<&str>,
    page_size: usize,
    item: impl Fn(&'r E) -> (&'r str, &'r RawValue),
) -> Result<(Vec<&'r RawValue>, Option<String>), McpError> {
    let start = match cursor {
        None => 0,
        Some(c) => {
            let last = decode_cursor(kind, c)?;
            let found = match index {
                Some(ix) => ix.get(&last).copied(),
                None => entries.iter().position(|e| item(e).0 == last),
            };
            match found {
                Some(i) => i + 1,
                None => {
                    return Err(McpError::invalid_params(
                        "Invalid params: the cursor points at an item that no longer exists; list again from the start",
                    ));
                }
            }
        }
    };
    let end = (start + page_size).min(entries.len());
    let page = entries[start.min(end)..end]
        .iter()
        .map(|e| item(e).1)
        .collect();
    let next = (end < entries.len()).then(|| encode_cursor(kind, item(&entries[end - 1]).0));
    Ok((page, next))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Page<'a> {
    result_type: ResultType,
    #[serde(flatten)]
    items: PageItems<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
    ttl_ms: u64,
    cache_scope: CacheScope,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<ResultMeta>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
enum PageItems<'a> {
    Tools(Vec<&'a RawValue>),
    Resources(Vec<&'a RawValue>),
    ResourceTemplates(Vec<&'a RawValue>),
    Prompts(Vec<&'a RawValue>),
}

impl Server {
    fn result_meta(&self) -> Option<ResultMeta> {
        self.shared
            .config
            .server_info_in_results
            .then(|| match &self.shared.info_json {
                Some(cached) => ResultMeta::server_cached(cached),
                None => ResultMeta::server(self.shared.config.info.clone()),
            })
    }

    fn advertised(&self, method: Method) -> bool {
        // Mirrors `capabilities()` without building it (no allocation on the request path).
        let cfg = &self.shared.config;
        let reg = self.registry();
        match method {
            Method::Discover => true,
            Method::ToolsList | Method::ToolsCall => !reg.tools.is_empty(),
            Method::ResourcesList | Method::TemplatesList | Method::ResourcesRead => {
                !reg.resources.is_empty() || !reg.templates.is_empty()
            }
            Method::PromptsList | Method::PromptsGet => !reg.prompts.is_empty(),
            Method::Complete => reg.has_completions(),
            Method::Listen => cfg.list_changed || cfg.resource_subscribe,
        }
    }

    /// Parses one message and, for a request, checks `_meta` and starts the call. Transports with
    /// headers (HTTP) run their checks between [`parse_message`], [`Request::check_meta`] and
    /// [`Server::call`]; this is the whole pipeline for header-less transports such as stdio.
    ///
    /// Returns `None` for notifications.
    pub fn handle_message(&self, body: &[u8], options: CallOptions) -> Option<Call> {
        match parse_message(body) {
            Err(rejection) => Some(Call::ready(rejection.into_response())),
            Ok(Incoming::Notification(_)) => None,
            Ok(Incoming::Request(req)) => Some(match req.check_meta() {
                Err(rejection) => Call::ready(rejection.into_response()),
                Ok(()) => self.call(req, options),
            }),
        }
    }

    /// Serves a request whose `_meta` was checked: version (`-32022`), method and capability
    /// (`-32601`), log level (`-32602`), then the method itself.
    pub fn call(&self, req: Request, options: CallOptions) -> Call {
        let id = req.id.clone();
        let fail = |e: McpError| Call::ready(Response::error(Some(&id), &e));
        let Some(meta) = req.meta else {
            return fail(
                McpError::invalid_params("Invalid params: `params._meta` is missing")
                    .with_http_status(400),
            );
        };
        let requested = meta.protocol_version.as_deref().unwrap_or_default();
        let cfg = &self.shared.config;
        if !cfg.supported_versions.iter().any(|v| v == requested) {
            return fail(
                McpError::new(
                    codes::UNSUPPORTED_PROTOCOL_VERSION,
                    format!(
                        "Unsupported protocol version `{requested}`; this server supports {}",
                        cfg.supported_versions.join(", ")
                    ),
                )
                .with_data(serde_json::json!({
                    "supported": cfg.supported_versions,
                    "requested": requested,
                })),
            );
        }
        let method = match Method::parse(&req.method) {
            Some(m) if self.advertised(m) => m,
            Some(_) => {
                return fail(McpError::new(
                    codes::METHOD_NOT_FOUND,
                    format!(
                        "Method not found: `{}` belongs to a capability this server does not advertise",
                        req.method
                    ),
                ));
            }
            None if REMOVED.contains(&&*req.method) => {
                return fail(
                    McpError::new(
                        codes::METHOD_NOT_FOUND,
                        format!(
                            "Method not found: `{}` does not exist in protocol {}; this server supports {} (send `_meta` on every request; no initialize handshake)",
                            req.method,
                            requested,
                            cfg.supported_versions.join(", ")
                        ),
                    )
                    .with_data(serde_json::json!({ "supported": cfg.supported_versions })),
                );
            }
            None => return fail(McpError::method_not_found(&req.method)),
        };
        let log_level = match meta.log_level.as_deref() {
            None => None,
            Some(level) => match level.parse::<LoggingLevel>() {
                Ok(l) => Some(l),
                Err(()) => {
                    return fail(McpError::invalid_params(format!(
                        "Invalid params: unknown log level `{level}`; use one of debug, info, notice, warning, error, critical, alert, emergency"
                    )));
                }
            },
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
                cancel: Default::default(),
                state: self.shared.state.clone(),
                caller: options.caller,
                server_info: cfg.info.clone(),
                logging_enabled: cfg.logging,
                input: std::sync::OnceLock::new(),
                progress_last: std::sync::atomic::AtomicU64::new(f64::NEG_INFINITY.to_bits()),
            }),
        };
        let cancel = CancellationToken::of_request(cx.inner.clone());
        // Everything up to the handler runs now, synchronously: the future kept for the rest is
        // small (it is allocated for every request), and a ready answer needs none.
        let started =
            self.start_method(method, req.params, req.tool_call, cx, options.param_headers);
        let work = match started {
            Ok(Work::Ready(resp)) => return Call::with(rx, None, Some(resp), cancel),
            Err(e) => return Call::with(rx, None, Some(Response::error(Some(&id), &e)), cancel),
            Ok(work) => work,
        };
        let timeout = if method == Method::Listen {
            None
        } else {
            cfg.request_timeout
        };
        let deadline = timeout.map(|limit| (tokio::time::Instant::now() + limit, limit));
        let server = self.clone();
        let fut = async move {
            let mut work = std::pin::pin!(server.run_work(work));
            // Most handlers finish in their first poll: a timer is only armed for one that
            // waits (registering a timer costs more than a short handler).
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
            match outcome {
                Ok(resp) => resp,
                Err(e) => Response::error(Some(&id), &e),
            }
        };
        Call::with(rx, Some(Box::pin(fut)), None, cancel)
    }

    /// Starts serving `method`: answers what needs no handler, starts the handler otherwise.
    fn start_method(
        &self,
        method: Method,
        params: Option<Box<RawValue>>,
        tool_call: Option<ToolCallParams>,
        cx: RequestContext,
        param_headers: Option<Vec<(String, String)>>,
    ) -> Result<Work, McpError> {
        Ok(match method {
            Method::Discover => {
                Work::Ready(Response::result(cx.request_id(), &self.discover_result()))
            }
            Method::ToolsList
            | Method::ResourcesList
            | Method::TemplatesList
            | Method::PromptsList => {
                let p: PageParams = parse_params(&params)?;
                Work::Ready(self.list_page(method, cx.request_id(), p.cursor.as_deref())?)
            }
            Method::ToolsCall => {
                let params = match tool_call {
                    Some(prepared) => prepared,
                    None => parse_required::<ToolCallOwned>(&params)?.into(),
                };
                match self.start_tool_call(params, cx, param_headers)? {
                    Ok(started) => Work::Tool(started),
                    Err(answer) => Work::Ready(answer),
                }
            }
            Method::ResourcesRead => {
                let p = parse_required(&params)?;
                let server = self.clone();
                Work::Other(Box::pin(async move { server.read_resource(p, cx).await }))
            }
            Method::PromptsGet => {
                let p = parse_required(&params)?;
                let server = self.clone();
                Work::Other(Box::pin(async move { server.get_prompt(p, cx).await }))
            }
            Method::Complete => {
                let p = parse_required(&params)?;
                let server = self.clone();
                Work::Other(Box::pin(async move { server.complete(p, cx).await }))
            }
            Method::Listen => {
                let p = parse_params(&params)?;
                let server = self.clone();
                Work::Other(Box::pin(async move { server.listen(p, cx).await }))
            }
        })
    }

    /// Runs started work to its response.
    async fn run_work(&self, work: Work) -> Result<Response, McpError> {
        match work {
            Work::Ready(resp) => Ok(resp),
            Work::Tool(StartedTool { entry, handler, id }) => {
                let outcome = catch_panic(handler)
                    .await
                    .unwrap_or_else(|msg| Ok(tool_panicked(&entry, &msg)))?;
                Ok(self.finish_tool_call(&id, outcome))
            }
            Work::Other(fut) => fut.await,
        }
    }

    /// The `server/discover` result as currently advertised.
    pub fn discover_result(&self) -> DiscoverResult {
        let cfg = &self.shared.config;
        DiscoverResult {
            result_type: ResultType::Complete,
            supported_versions: cfg.supported_versions.clone(),
            capabilities: self.capabilities(),
            instructions: cfg.instructions.clone(),
            ttl_ms: cfg.discover_cache.ttl_ms,
            cache_scope: cfg.discover_cache.scope,
            meta: self.result_meta(),
        }
    }

    fn list_page(
        &self,
        method: Method,
        id: &RequestId,
        cursor: Option<&str>,
    ) -> Result<Response, McpError> {
        let reg = self.registry();
        let cfg = &self.shared.config;
        // Only the page is touched: the cursor is resolved through the name index (O(1)), and
        // nothing is collected over the whole registry, so a page costs the same whatever the
        // number of registered items.
        let (hint, (page, next_cursor)) = match method {
            Method::ToolsList => (
                cfg.tools_cache,
                page_of(
                    &reg.tools,
                    Some(&reg.tool_index),
                    "tools",
                    cursor,
                    cfg.page_size,
                    |t| (t.tool.info.name.as_str(), &*t.json),
                )?,
            ),
            Method::ResourcesList => (
                cfg.resources_cache,
                page_of(
                    &reg.resources,
                    Some(&reg.resource_index),
                    "resources",
                    cursor,
                    cfg.page_size,
                    |r| (r.resource.info.uri.as_str(), &*r.json),
                )?,
            ),
            Method::TemplatesList => (
                cfg.templates_cache,
                page_of(
                    &reg.templates,
                    None,
                    "templates",
                    cursor,
                    cfg.page_size,
                    |t| (t.template.info.uri_template.as_str(), &*t.json),
                )?,
            ),
            _ => (
                cfg.prompts_cache,
                page_of(
                    &reg.prompts,
                    Some(&reg.prompt_index),
                    "prompts",
                    cursor,
                    cfg.page_size,
                    |p| (p.prompt.info.name.as_str(), &*p.json),
                )?,
            ),
        };
        let items = match method {
            Method::ToolsList => PageItems::Tools(page),
            Method::ResourcesList => PageItems::Resources(page),
            Method::TemplatesList => PageItems::ResourceTemplates(page),
            _ => PageItems::Prompts(page),
        };
        Ok(Response::result(
            id,
            &Page {
                result_type: ResultType::Complete,
                items,
                next_cursor,
                ttl_ms: hint.ttl_ms,
                cache_scope: hint.scope,
                meta: self.result_meta(),
            },
        ))
    }

    /// Decodes `inputResponses` and opens `requestState` (bound to this request) for handlers.
    fn prepare_input(
        &self,
        cx: &RequestContext,
        method: &'static str,
        name: Arc<str>,
        arguments: Arc<str>,
        responses: Option<Answers>,
        state: Option<String>,
    ) -> Result<(), McpError> {
        let responses = match responses {
            None => crate::mrtr::Responses::default(),
            Some(Answers::Read(read)) => read,
            Some(Answers::Raw(raw)) => crate::mrtr::parse_responses(Some(&raw))?,
        };
        let caller = cx.caller().map(|c| c.subject.as_str());
        let (binding, previous) = match state {
            None => (
                crate::mrtr::LazyBinding::later(method, name, arguments, caller),
                None,
            ),
            Some(token) => {
                let mut binding = crate::mrtr::Binding::as_sent(method, &name, &arguments, caller);
                let previous = self.shared.sealer.open(&token, &mut binding, &arguments)?;
                (crate::mrtr::LazyBinding::ready(binding), Some(previous))
            }
        };
        let _ = cx.inner.input.set(crate::mrtr::InputData {
            responses,
            previous,
            binding,
            sealer: self.shared.sealer.clone(),
        });
        Ok(())
    }

    fn input_required(&self, id: &RequestId, mut r: InputRequiredResult) -> Response {
        r.result_type = ResultType::InputRequired;
        if r.meta.is_none() {
            r.meta = self.result_meta();
        }
        // Input requests and a sealed state: usually most of a kilobyte. (Kept under 1 KiB:
        // larger blocks leave glibc's per-thread cache for its slower, consolidating path.)
        Response::result_with_capacity(id, &r, 1000)
    }

    /// Everything of a `tools/call` before its handler runs, synchronously: only the handler's
    /// future and what finishing needs are held across the await (a smaller future to box).
    fn start_tool_call(
        &self,
        params: ToolCallParams,
        cx: RequestContext,
        param_headers: Option<Vec<(String, String)>>,
    ) -> Result<Result<StartedTool, Response>, McpError> {
        let reg = self.registry();
        let Some(entry) = reg
            .tool_index
            .get(&params.name)
            .map(|&i| reg.tools[i].clone())
        else {
            return Err(McpError::invalid_params(format!(
                "Unknown tool: {}",
                params.name
            )));
        };
        drop(reg);
        // The text is one JSON value (serde_json delimited it): its first byte tells its type.
        let arguments = match params.arguments {
            None => crate::registry::Arguments::empty(),
            Some(raw) if raw.starts_with('{') => crate::registry::Arguments::from_raw_object(raw),
            Some(raw) if &*raw == "null" => crate::registry::Arguments::empty(),
            Some(_) => {
                return Err(McpError::invalid_params(format!(
                    "Invalid params: `arguments` of tool `{}` must be an object",
                    params.name
                )));
            }
        };
        if let Some(headers) = &param_headers
            && !entry.headers.is_empty()
        {
            crate::registry::check_param_headers(&entry.headers, arguments.as_map(), headers)?;
        }
        let validator = entry.validator()?;
        if validator.needs_tree()
            && let Some(problems) = validator.check(arguments.as_value())
        {
            let mut result = p::CallToolResult::error(format!(
                "Invalid arguments for tool `{}`: {problems}",
                params.name
            ));
            result.meta = self.result_meta();
            return Ok(Err(Response::result(cx.request_id(), &result)));
        }
        self.prepare_input(
            &cx,
            "tools/call",
            entry.name.clone(),
            arguments.shared_json(),
            params.input_responses,
            params.request_state,
        )?;
        let id = cx.request_id().clone();
        let call = ToolCall {
            name: params.name,
            arguments,
            context: cx,
        };
        match &entry.handler {
            ToolHandler::Async(f) => {
                let mut handler = f(call);
                // An `async` handler that never actually waits finishes in its first poll: run that
                // poll now (inside the runtime serving the request), so that no call future has to
                // be allocated for it. One that waits is polled again by its `Call`, with the real
                // waker, which it then registers (futures keep the latest waker).
                if tokio::runtime::Handle::try_current().is_ok() {
                    let mut cx = Context::from_waker(std::task::Waker::noop());
                    match std::panic::catch_unwind(AssertUnwindSafe(|| {
                        handler.as_mut().poll(&mut cx)
                    })) {
                        Ok(Poll::Pending) => {}
                        Ok(Poll::Ready(outcome)) => {
                            return Ok(Err(self.finish_tool_call(&id, outcome?)));
                        }
                        Err(payload) => {
                            let outcome = tool_panicked(&entry, &panic_message(&*payload));
                            return Ok(Err(self.finish_tool_call(&id, outcome)));
                        }
                    }
                }
                Ok(Ok(StartedTool { entry, handler, id }))
            }
            ToolHandler::Sync(f) => {
                let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| f(call)))
                    .unwrap_or_else(|payload| {
                        Ok(tool_panicked(&entry, &panic_message(&*payload)))
                    })?;
                Ok(Err(self.finish_tool_call(&id, outcome)))
            }
        }
    }

    fn finish_tool_call(&self, id: &RequestId, outcome: ToolOutcome) -> Response {
        match outcome {
            ToolOutcome::Complete(mut result) => {
                result.result_type = ResultType::Complete;
                if !self.shared.config.explicit_is_error && result.is_error == Some(false) {
                    result.is_error = None;
                }
                if result.meta.is_none() {
                    result.meta = self.result_meta();
                }
                Response::result(id, &result)
            }
            ToolOutcome::InputRequired(r) => self.input_required(id, r),
        }
    }

    async fn read_resource(
        &self,
        params: ReadParams,
        cx: RequestContext,
    ) -> Result<Response, McpError> {
        let id = cx.request_id().clone();
        let reg = self.registry();
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
        drop(reg);
        let hint = hint.unwrap_or(self.shared.config.read_cache);
        self.prepare_input(
            &cx,
            "resources/read",
            Arc::from(uri.as_str()),
            Arc::from("null"),
            params.input_responses.map(Answers::Raw),
            params.request_state,
        )?;
        let read = ResourceRead {
            uri: uri.clone(),
            variables,
            context: cx,
        };
        let outcome = catch_panic(handler(read)).await.unwrap_or_else(|msg| {
            tracing::error!(uri = %uri, panic = %msg, "resource handler panicked");
            Err(McpError::internal(format!(
                "Reading {uri} failed unexpectedly."
            )))
        })?;
        Ok(match outcome {
            ResourceOutcome::Complete(contents) => Response::result(
                &id,
                &p::ReadResourceResult {
                    result_type: ResultType::Complete,
                    contents,
                    ttl_ms: hint.ttl_ms,
                    cache_scope: hint.scope,
                    meta: self.result_meta(),
                },
            ),
            ResourceOutcome::InputRequired(r) => self.input_required(&id, r),
        })
    }

    async fn get_prompt(
        &self,
        params: PromptParams,
        cx: RequestContext,
    ) -> Result<Response, McpError> {
        let id = cx.request_id().clone();
        let reg = self.registry();
        let Some(entry) = reg
            .prompt_index
            .get(&params.name)
            .map(|&i| reg.prompts[i].clone())
        else {
            return Err(McpError::invalid_params(format!(
                "Unknown prompt: {}",
                params.name
            )));
        };
        drop(reg);
        let mut arguments = BTreeMap::new();
        for (k, v) in params.arguments.unwrap_or_default() {
            match v {
                Value::String(s) => {
                    arguments.insert(k, s);
                }
                Value::Null => {}
                _ => {
                    return Err(McpError::invalid_params(format!(
                        "Invalid params: argument `{k}` of prompt `{}` must be a string",
                        params.name
                    )));
                }
            }
        }
        let missing: Vec<&str> = entry
            .required
            .iter()
            .filter(|r| !arguments.contains_key(*r))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(McpError::invalid_params(format!(
                "Invalid params: prompt `{}` requires the argument{} {}",
                params.name,
                if missing.len() > 1 { "s" } else { "" },
                missing
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let bound = serde_json::to_string(&arguments).unwrap_or_else(|_| "null".into());
        self.prepare_input(
            &cx,
            "prompts/get",
            Arc::from(params.name.as_str()),
            Arc::from(bound),
            params.input_responses.map(Answers::Raw),
            params.request_state,
        )?;
        let get = PromptGet {
            name: params.name.clone(),
            arguments,
            context: cx,
        };
        let outcome = catch_panic((entry.handler)(get))
            .await
            .unwrap_or_else(|msg| {
                tracing::error!(prompt = %params.name, panic = %msg, "prompt handler panicked");
                Err(McpError::internal(format!(
                    "Prompt `{}` failed unexpectedly.",
                    params.name
                )))
            })?;
        Ok(match outcome {
            PromptOutcome::Complete(mut result) => {
                result.result_type = ResultType::Complete;
                if result.meta.is_none() {
                    result.meta = self.result_meta();
                }
                Response::result(&id, &result)
            }
            PromptOutcome::InputRequired(r) => self.input_required(&id, r),
        })
    }

    async fn complete(
        &self,
        params: CompleteRequestParams,
        cx: RequestContext,
    ) -> Result<Response, McpError> {
        let id = cx.request_id().clone();
        let reg = self.registry();
        let completer = match &params.reference {
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
                    .any(|a| a.name == params.argument.name);
                if !known {
                    return Err(McpError::invalid_params(format!(
                        "Invalid params: prompt `{name}` has no argument `{}`",
                        params.argument.name
                    )));
                }
                prompt.completers.get(&params.argument.name).cloned()
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
                t.template.completers.get(&params.argument.name).cloned()
            }
        };
        drop(reg);
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
        if completion.values.len() > 100 {
            completion
                .total
                .get_or_insert(completion.values.len() as u64);
            completion.values.truncate(100);
            completion.has_more = Some(true);
        }
        Ok(Response::result(
            &id,
            &p::CompleteResult {
                result_type: ResultType::Complete,
                completion,
                meta: self.result_meta(),
            },
        ))
    }

    async fn listen(
        &self,
        params: SubscriptionsListenRequestParams,
        cx: RequestContext,
    ) -> Result<Response, McpError> {
        let id = cx.request_id().clone();
        let cfg = &self.shared.config;
        let caps = self.capabilities();
        let wanted = params.notifications;
        let honoured = SubscriptionFilter {
            tools_list_changed: (wanted.tools_list_changed == Some(true)
                && cfg.list_changed
                && caps.tools.is_some())
            .then_some(true),
            prompts_list_changed: (wanted.prompts_list_changed == Some(true)
                && cfg.list_changed
                && caps.prompts.is_some())
            .then_some(true),
            resources_list_changed: (wanted.resources_list_changed == Some(true)
                && cfg.list_changed
                && caps.resources.is_some())
            .then_some(true),
            resource_subscriptions: if cfg.resource_subscribe {
                wanted.resource_subscriptions.filter(|v| !v.is_empty())
            } else {
                None
            },
            other: Map::new(),
        };
        let mut changes = self.shared.changes.subscribe();
        let tag = || NotificationMeta {
            subscription_id: Some(id.clone()),
            other: Map::new(),
        };
        let notifier = cx.inner.notifier.clone();
        notifier.send(
            "notifications/subscriptions/acknowledged",
            &SubscriptionsAcknowledgedParams {
                meta: tag(),
                notifications: honoured.clone(),
            },
        );
        let shutdown = self.shared.shutdown.clone();
        let cancel = cx.cancellation();
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = cancel.cancelled() => break,
                change = changes.recv() => {
                    let change = match change {
                        Ok(c) => c,
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                    };
                    let params = NotificationParams { meta: Some(tag()) };
                    match change {
                        Change::ToolsListChanged if honoured.tools_list_changed == Some(true) => {
                            notifier.send("notifications/tools/list_changed", &params);
                        }
                        Change::PromptsListChanged if honoured.prompts_list_changed == Some(true) => {
                            notifier.send("notifications/prompts/list_changed", &params);
                        }
                        Change::ResourcesListChanged if honoured.resources_list_changed == Some(true) => {
                            notifier.send("notifications/resources/list_changed", &params);
                        }
                        Change::ResourceUpdated(uri) => {
                            let subscribed = honoured
                                .resource_subscriptions
                                .as_deref()
                                .unwrap_or_default()
                                .iter()
                                .any(|s| uri == *s || uri.starts_with(&format!("{}/", s.trim_end_matches('/'))));
                            if subscribed {
                                notifier.send(
                                    "notifications/resources/updated",
                                    &ResourceUpdatedNotificationParams { uri, meta: Some(tag()) },
                                );
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(Response::result(
            &id,
            &SubscriptionsListenResult {
                result_type: ResultType::Complete,
                meta: ResultMeta::subscription(id.clone()),
            },
        ))
    }
}

/// The answer when a tool handler panicked (logged; the message stays on the server).
fn tool_panicked(entry: &crate::registry::ToolEntry, msg: &str) -> ToolOutcome {
    let name = &entry.tool.info.name;
    tracing::error!(tool = %name, panic = %msg, "tool handler panicked");
    ToolOutcome::Complete(p::CallToolResult::error(format!(
        "Tool `{name}` failed unexpectedly (the handler panicked)."
    )))
}

/// The text of a panic payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

/// Runs a future, turning a panic into `Err(message)`.
pub async fn catch_panic<F: Future>(fut: F) -> Result<F::Output, String> {
    let mut fut = std::pin::pin!(fut);
    std::future::poll_fn(move |cx| {
        match std::panic::catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(payload) => Poll::Ready(Err(panic_message(&*payload))),
        }
    })
    .await
}
