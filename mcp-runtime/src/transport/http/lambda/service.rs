//! One Lambda event, made an `http::Request` by `lambda_http`, served as the endpoint serves a
//! request (`routes.rs`), by the same checks: what the event adds is judged here (the domain it
//! was invoked on, the client's address, the stage in the path, the invocation's deadline),
//! and what Lambda cannot serve is refused here (2025-11-25 sessions, listen streams, tasks).

use super::body::NotBase64;
use super::options::LambdaOptions;
use super::profile::Profile;
use crate::dispatch::{
    Call, Handled, Ingress, Outgoing, Response as Answer, Transport, TransportChecks,
};
use crate::error::McpError;
use crate::protocol::{ClientRequest, LATEST_PROTOCOL_VERSION, Method, RequestId};
use crate::registry::ParamHeader;
use crate::transport::http::answer::answer;
use crate::transport::http::endpoint::{Endpoint, admit, client_of, endpoint, guarded};

/// The target the endpoint's guard judges an event's request by: its path alone. `lambda_http`
/// writes the event's domain into the request's URI, which no client sent as an absolute-form
/// target: the `Host` header (or the event's domain, judged above) is what names the server.
fn origin_form() -> http::Uri {
    http::Uri::from_static("/")
}
use crate::transport::http::era::{self, Era};
use crate::transport::http::headers::{HeaderChecks, McpHeaders};
use crate::transport::http::respond::{
    json_response, method_not_allowed, plain_status, transport_error,
};
use crate::transport::http::{auth, cors, negotiate, sse};
use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::{HeaderMap, Method as HttpMethod, StatusCode, header};
use lambda_http::RequestExt as _;
use lambda_http::request::RequestContext;
use serde_json::{Map, Value};
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long before the invocation's deadline a request still running is cancelled, so that its
/// error can be written and posted to the runtime API in time.
const DEADLINE_MARGIN: Duration = Duration::from_millis(250);

/// The service answering Lambda events, made by
/// [`Server::lambda_service`](crate::Server::lambda_service) and served by
/// [`Server::run_lambda`](crate::Server::run_lambda): a `tower` service of the events
/// themselves (`LambdaEvent<LambdaRequest>`, as the Lambda runtime hands them over) and of
/// [`lambda_http`]'s requests. Cheap to clone.
///
/// Serve it yourself to run the Lambda runtime your own way with
/// `lambda_runtime::run(service)`, or `lambda_runtime::Runtime::new(service)` for SnapStart
/// hooks ([`lambda_http::lambda_runtime`]): it takes the events, as `run_lambda` does, and
/// answers a body flagged base64 that is not valid base64 with 400. `lambda_http::run` and
/// `lambda_http::runtime` make each event a request first, and panic on such a body. Call it
/// in a test with an event, as `run_lambda` does (its answer buffered, or streamed with
/// [`LambdaOptions::response_streaming`]):
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_runtime::lambda::LambdaOptions;
/// use mcp_runtime::lambda::lambda_http::lambda_runtime::FunctionResponse;
/// use mcp_runtime::lambda::lambda_http::request::LambdaRequest;
/// use mcp_runtime::lambda::lambda_http::{Context, LambdaEvent, Service as _};
/// let mut service = mcp_runtime::Server::builder()
///     .build()?
///     .lambda_service(LambdaOptions::default())?;
/// // A Function URL event whose body is flagged base64, but is not.
/// let event = r#"{
///   "version": "2.0", "routeKey": "$default", "rawPath": "/mcp", "rawQueryString": "",
///   "headers": {"host": "abc.lambda-url.eu-west-1.on.aws", "content-type": "application/json"},
///   "requestContext": {"domainName": "abc.lambda-url.eu-west-1.on.aws", "stage": "$default",
///     "http": {"method": "POST", "path": "/mcp", "protocol": "HTTP/1.1", "sourceIp": "203.0.113.7"}},
///   "body": "{\"jsonrpc\":\"2.0\"}",
///   "isBase64Encoded": true
/// }"#;
/// let payload: LambdaRequest = serde_json::from_str(event)?;
/// let answer = service.call(LambdaEvent::new(payload, Context::default())).await?;
/// let FunctionResponse::BufferedResponse(answer) = answer else {
///     unreachable!("buffered unless LambdaOptions::response_streaming")
/// };
/// assert_eq!(serde_json::to_value(answer)?["statusCode"], 400);
/// # Ok(()) }
/// ```
///
/// or with a request built from an event's JSON:
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), mcp_runtime::Error> {
/// use mcp_runtime::lambda::{LambdaOptions, lambda_http};
/// use mcp_runtime::lambda::lambda_http::Service as _;
/// let mut service = mcp_runtime::Server::builder()
///     .build()?
///     .lambda_service(LambdaOptions::default())?;
/// let event = r#"{
///   "version": "2.0", "routeKey": "$default", "rawPath": "/mcp", "rawQueryString": "",
///   "headers": {"host": "abc.lambda-url.eu-west-1.on.aws", "content-type": "application/json",
///               "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover"},
///   "requestContext": {"domainName": "abc.lambda-url.eu-west-1.on.aws", "stage": "$default",
///     "http": {"method": "POST", "path": "/mcp", "protocol": "HTTP/1.1", "sourceIp": "203.0.113.7"}},
///   "body": "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
///   "isBase64Encoded": false
/// }"#;
/// let request = lambda_http::request::from_str(event).expect("an HTTP API event");
/// let response = service.call(request).await.unwrap();
/// assert_eq!(response.status(), 200);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct LambdaService {
    pub(super) lambda: Arc<Lambda>,
}

impl std::fmt::Debug for LambdaService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LambdaService")
            .field("options", &self.lambda.endpoint.options)
            .field("event_domain", &self.lambda.event_domain)
            .field("streaming", &self.lambda.streaming)
            .finish_non_exhaustive()
    }
}

/// What every event of one function is served with.
pub(super) struct Lambda {
    /// The endpoint over the Lambda profile of the server (no 2025-11-25 side).
    endpoint: Arc<Endpoint>,
    event_domain: bool,
    pub(super) streaming: bool,
    /// Tools that run only as tasks, refused by name.
    task_only: Box<[String]>,
}

impl LambdaService {
    pub(super) fn new(profile: Profile, options: LambdaOptions) -> Self {
        LambdaService {
            lambda: Arc::new(Lambda {
                endpoint: endpoint(profile.dispatcher, None, options.http),
                event_domain: options.event_domain,
                streaming: options.streaming,
                task_only: profile.task_only,
            }),
        }
    }
}

impl tower_service::Service<lambda_http::Request> for LambdaService {
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: lambda_http::Request) -> Self::Future {
        let lambda = self.lambda.clone();
        Box::pin(async move { Ok(serve(&lambda, request, None).await) })
    }
}

/// What the event says beside the HTTP request.
struct Event {
    /// `requestContext.domainName`.
    domain: Option<String>,
    /// `requestContext.stage`, unless the default one.
    stage: Option<String>,
    /// The client's address, as AWS saw it.
    source: Option<IpAddr>,
    /// The invocation's deadline (0 in an event handed over by hand).
    deadline_ms: u64,
}

impl Event {
    fn of(parts: &http::request::Parts) -> Event {
        let (mut domain, mut stage, mut source) = (None, None, None);
        match parts.request_context_ref() {
            Some(RequestContext::ApiGatewayV2(cx)) => {
                domain = cx.domain_name.clone();
                stage = cx.stage.clone();
                source = cx.http.source_ip.as_deref().and_then(|ip| ip.parse().ok());
            }
            Some(RequestContext::ApiGatewayV1(cx)) => {
                domain = cx.domain_name.clone();
                stage = cx.stage.clone();
                source = cx
                    .identity
                    .source_ip
                    .as_deref()
                    .and_then(|ip| ip.parse().ok());
            }
            _ => {}
        }
        Event {
            domain,
            stage: stage.filter(|s| !s.is_empty() && s != "$default"),
            source,
            deadline_ms: parts.lambda_context_ref().map_or(0, |cx| cx.deadline),
        }
    }

    /// The request's path with the stage taken off the front.
    fn path<'p>(&self, path: &'p str) -> &'p str {
        let Some(stage) = &self.stage else {
            return path;
        };
        match path
            .strip_prefix('/')
            .and_then(|p| p.strip_prefix(stage.as_str()))
        {
            Some("") => "/",
            Some(rest) if rest.starts_with('/') => rest,
            _ => path,
        }
    }

    /// Whether the request's one `Host` names the domain the event was invoked on.
    fn names_its_domain(&self, headers: &HeaderMap) -> bool {
        let Some(domain) = &self.domain else {
            return false;
        };
        let mut hosts = headers.get_all(header::HOST).iter();
        match (hosts.next().map(|h| h.to_str()), hosts.next()) {
            (Some(Ok(host)), None) => {
                let host = host.trim();
                let name = crate::net::host_part(host);
                !name.is_empty()
                    && (name.eq_ignore_ascii_case(domain) || host.eq_ignore_ascii_case(domain))
            }
            _ => false,
        }
    }

    /// How long the request may run: until shortly before the invocation's deadline.
    fn time_left(&self) -> Option<Duration> {
        if self.deadline_ms == 0 {
            return None;
        }
        let deadline = UNIX_EPOCH + Duration::from_millis(self.deadline_ms);
        Some(
            deadline
                .duration_since(SystemTime::now())
                .unwrap_or_default()
                .saturating_sub(DEADLINE_MARGIN),
        )
    }
}

/// One event; `decoded`, the body `events.rs` decoded from the event's base64 (the request
/// then has none).
pub(super) async fn serve(
    lambda: &Lambda,
    request: lambda_http::Request,
    decoded: Option<Result<Bytes, NotBase64>>,
) -> Response {
    let (mut parts, body) = request.into_parts();
    let body = decoded.unwrap_or_else(|| Ok(body_bytes(body)));
    let event = Event::of(&parts);
    if lambda.event_domain && event.names_its_domain(&parts.headers) {
        // Judged: AWS routed the request by this name. The endpoint's guard passes a request
        // without `Host` (nothing to rebind), and nothing after it reads the header.
        parts.headers.remove(header::HOST);
    }
    if let Some(ip) = event.source {
        // Where the endpoint's checks read the client's address (`peer::peer_of`).
        parts
            .extensions
            .insert(axum::extract::ConnectInfo(SocketAddr::new(ip, 0)));
    }
    let endpoint = &lambda.endpoint;
    let options = &endpoint.options;
    let path = event.path(parts.uri.path());
    // The event's own path (without the stage a REST API's carries) when lambda_http's made
    // another one.
    if path != options.path && parts.raw_http_path() != options.path {
        return other_path(endpoint, &parts, path);
    }
    match parts.method {
        HttpMethod::POST => {}
        HttpMethod::OPTIONS => {
            // Judged by its `Host`, as the POST is (`origin_form`).
            parts.uri = origin_form();
            let preflight = axum::extract::Request::from_parts(parts, Body::empty());
            return cors::preflight(axum::extract::State(endpoint.clone()), preflight).await;
        }
        // No sessions, no GET stream: the endpoint takes POST alone.
        _ => return method_not_allowed().await,
    }
    let origin = cors::origin(options, &parts.headers);
    let mut response = post(lambda, parts, body, &event).await;
    if let Some(origin) = origin {
        cors::allow(&mut response, origin);
    }
    response
}

/// A path other than the endpoint's: the protected resource metadata, or 404.
fn other_path(endpoint: &Endpoint, parts: &http::request::Parts, path: &str) -> Response {
    let options = &endpoint.options;
    if let Some(rs) = &options.auth
        && parts.method == HttpMethod::GET
        && auth::metadata_paths(rs).iter().any(|p| p == path)
    {
        return match guarded(options, &parts.headers, &origin_form()) {
            Some(refused) => refused,
            None => auth::metadata_response(rs),
        };
    }
    plain_status(StatusCode::NOT_FOUND, "Not Found")
}

/// The request's body, as the bytes it carries (`lambda_http` decoded a base64 one).
fn body_bytes(body: lambda_http::Body) -> Bytes {
    match body {
        lambda_http::Body::Text(text) => Bytes::from(text),
        lambda_http::Body::Binary(bytes) => Bytes::from(bytes),
        _ => Bytes::new(),
    }
}

/// A POST to the endpoint: the checks of `routes::handle_post` in the same order, then one
/// message of the 2026-07-28 revision through the Lambda profile's pipeline.
async fn post(
    lambda: &Lambda,
    mut parts: http::request::Parts,
    body: Result<Bytes, NotBase64>,
    event: &Event,
) -> Response {
    let endpoint = &lambda.endpoint;
    let options = &endpoint.options;
    if let Some(refused) = guarded(options, &parts.headers, &origin_form()) {
        return refused;
    }
    // A body that is not what its event says is refused where the endpoint reads the body.
    let (bytes, unreadable) = match body {
        Ok(bytes) => (bytes, None),
        Err(not) => (Bytes::new(), Some(not)),
    };
    // The event's source address, as API Gateway saw it (through the endpoint's trusted
    // proxies, if any are named). Never the local caller: no request of an event comes from
    // this machine, whatever address it names.
    let client = client_of(options, &parts);
    let caller = if options.auth.is_none() && endpoint.limiter.is_none() {
        None
    } else {
        // Authentication reads the body only to name the scopes of a refusal's challenge.
        let body = Some(Body::from(bytes.clone()));
        match Box::pin(admit(endpoint, &parts, body, client, None)).await {
            Ok((caller, _)) => caller,
            Err(refused) => return refused,
        }
    };
    let accept = match negotiate::post_media(&parts.headers) {
        Ok(accept) => accept,
        Err((status, why)) => return transport_error(status, why),
    };
    if let Some(not) = unreadable {
        return not.refusal();
    }
    if bytes.len() > options.body_limit {
        return transport_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!(
                "Payload Too Large: the body exceeds {} bytes",
                options.body_limit
            ),
        );
    }
    let found = McpHeaders::scan(&parts.headers);
    if era::of_post(&found, &bytes) == Era::Legacy {
        return legacy_refused(&bytes);
    }
    if let Some(views) = endpoint.dispatcher.views_ready(caller.as_ref()) {
        views.await;
    }
    let checks = LambdaChecks {
        headers: HeaderChecks::new(&parts.headers, found),
        task_only: &lambda.task_only,
    };
    let handled = endpoint.dispatcher.handle(
        &bytes,
        Ingress {
            caller,
            checks: Some(&checks),
            transport: Some(Transport::Http),
            client,
        },
    );
    let mut call = match handled {
        Handled::Notification(_) => {
            let mut resp = Response::new(Body::empty());
            *resp.status_mut() = StatusCode::ACCEPTED;
            return resp;
        }
        Handled::Call(call) => call,
    };
    let keepalive = options.keepalive;
    let time_left = event.time_left();
    let headers = std::mem::take(&mut parts.headers);
    if !lambda.streaming && accept.json {
        // One buffered answer: the call's notifications have nowhere to go.
        return answer(options, whole(call, time_left).await, headers);
    }
    let first = match time_left {
        None => call.next_message().await,
        Some(left) => match tokio::time::timeout(left, call.next_message()).await {
            Ok(first) => first,
            Err(_) => Some(Outgoing::Response(out_of_time(call.request_id()))),
        },
    };
    // As the endpoint answers: JSON when the client takes it and the answer came first, else
    // Server-Sent Events (buffered whole by `lambda_http::run`, streamed by the streaming
    // runtime).
    match first {
        Some(Outgoing::Response(r)) if accept.json || r.is_refusal() || r.is_busy() => {
            answer(options, r, headers)
        }
        Some(Outgoing::Response(r)) => sse::response(r.body, None, keepalive, headers),
        Some(Outgoing::Notification(n)) if accept.sse => {
            sse::response(n, Some(call), keepalive, headers)
        }
        Some(Outgoing::Notification(_)) => {
            let left = event.time_left();
            answer(options, whole(call, left).await, headers)
        }
        None => transport_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal error: the request produced no response",
        ),
    }
}

/// The call's response (its notifications dropped), or `-32603` once `time_left` is over
/// (dropping the call cancels its handler).
async fn whole(call: Call, time_left: Option<Duration>) -> Answer {
    let Some(left) = time_left else {
        return Call::response(call).await;
    };
    let id = call.request_id().cloned();
    match tokio::time::timeout(left, Call::response(call)).await {
        Ok(response) => response,
        Err(_) => out_of_time(id.as_ref()),
    }
}

/// The answer of a request cancelled at the invocation's deadline.
fn out_of_time(id: Option<&RequestId>) -> Answer {
    Answer::error(
        id,
        &McpError::internal(
            "Internal error: the request was cancelled at the Lambda invocation's deadline (the \
             function's timeout); raise the timeout, or make the request take less time",
        ),
    )
}

/// A 2025-11-25 message (`initialize`, or one on a session): refused, naming the revision
/// served and why.
fn legacy_refused(body: &[u8]) -> Response {
    #[derive(serde::Deserialize)]
    struct Envelope {
        id: Option<RequestId>,
    }
    let id = crate::json::from_bytes::<Envelope>(body)
        .ok()
        .and_then(|e| e.id);
    let error = McpError::invalid_params(format!(
        "This server runs on AWS Lambda and speaks MCP {LATEST_PROTOCOL_VERSION} (stateless) \
         only: 2025-11-25 sessions (initialize, Mcp-Session-Id, the GET stream, requests from \
         the server) need a process that outlives each answer, and a Lambda instance is frozen \
         once it has answered. Send the protocol version and client capabilities in `_meta` on \
         every request, with the MCP-Protocol-Version header"
    ))
    .with_data(serde_json::json!({ "supported": [LATEST_PROTOCOL_VERSION] }));
    json_response(
        StatusCode::BAD_REQUEST,
        Answer::error(id.as_ref(), &error).body,
    )
}

/// The endpoint's header checks, then what Lambda refuses once the method is known: listen
/// streams, the tasks extension's methods, and tools that run only as tasks. Refused here, a
/// request is rejected before any layer or handler sees it, like a method not advertised.
struct LambdaChecks<'h> {
    headers: HeaderChecks<'h>,
    task_only: &'h [String],
}

impl TransportChecks for LambdaChecks<'_> {
    fn check_request(&self, request: &ClientRequest<'_>) -> Result<(), McpError> {
        self.headers.check_request(request)?;
        match request.method() {
            Ok(Method::Listen) => Err(McpError::new(
                crate::protocol::codes::METHOD_NOT_FOUND,
                "Method not found: this server runs on AWS Lambda, which serves no \
                 `subscriptions/listen`: a listen stream lasts, and a Lambda instance is frozen \
                 once it has answered (nor does it advertise `listChanged` or \
                 `resources.subscribe`). Refetch the lists when you need them",
            )),
            Ok(method) if method.is_task_method() => Err(McpError::new(
                crate::protocol::codes::METHOD_NOT_FOUND,
                format!(
                    "Method not found: this server runs on AWS Lambda, which serves no tasks \
                     (`{method}`): a task's handler runs on after its call is answered, and a \
                     Lambda instance is frozen once it has answered. Its task tools run to \
                     completion in their call"
                ),
            )),
            Ok(Method::ToolsCall) if !self.task_only.is_empty() => match request.primitive_name() {
                Some(name) if self.task_only.iter().any(|t| t == name) => {
                    Err(McpError::invalid_params(format!(
                        "Invalid params: tool `{name}` runs only as a task, and this server \
                             runs on AWS Lambda, which serves no tasks: a task's handler runs on \
                             after its call is answered, and a Lambda instance is frozen once it \
                             has answered. It is served where the server runs as a long-lived \
                             process"
                    )))
                }
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }

    fn check_arguments(
        &self,
        declared: &[ParamHeader],
        arguments: &Map<String, Value>,
    ) -> Result<(), McpError> {
        self.headers.check_arguments(declared, arguments)
    }
}
