//! Streamable HTTP: one endpoint. 2026-07-28 clients POST one message at a time, each answered
//! as JSON or SSE, chosen per request. 2025-11-25 clients (the handshake revision) are served on
//! the same endpoint from the same handlers: which revision a request belongs to is decided per
//! request (`era`: the `MCP-Protocol-Version` header, `Mcp-Session-Id`, a `_meta` version in
//! the body), and a legacy one goes to its session (`legacy`: `initialize`, GET streams with
//! `Last-Event-ID` resumption, DELETE, 404 for an unknown session).
//!
//! Validation order of a 2026-07-28 request (the first failing step answers):
//!
//! | step | failure | status | JSON-RPC |
//! |---|---|---|---|
//! | method is POST | PUT, …; GET or DELETE without `Mcp-Session-Id` | 405 (`Allow: POST`) | – |
//! | one non-empty `Host` (`guard`, RFC 9112 §3.2) | two `Host` headers, an empty one | 400 | – |
//! | `Host` and `Origin` allowed (`guard`) | DNS-rebinding guard | 403 | – |
//! | authentication (when configured, `auth`) | no, bad or invalid token | 401/400/503 | `-32600` |
//! | rate limit per caller (when configured, `rate`) | over the limit | 429 + `Retry-After` | `-32600` |
//! | `Content-Type` is `application/json` (`negotiate`) | | 415 | `-32600` |
//! | `Accept` admits JSON or SSE | | 406 | `-32600` |
//! | body within the limit | | 413 | `-32600` |
//! | body read within `body_timeout` (slow senders) | | 408 | `-32600` |
//! | a 2026-07-28 request (`era`) | else the 2025-11-25 session path | – | – |
//! | body parses | invalid JSON / not one request object | 400 | `-32700` / `-32600` |
//! | nesting within `Limits::depth` (checked before parsing) | | 400 | `-32602` (`-32600` without a readable envelope) |
//! | ids, names, URIs, cursors within `Limits::string_bytes` | | 400 | `-32602` |
//! | notification | accepted | 202 | – |
//! | `params` is an object, `_meta` has version and capabilities | | 400 | `-32602` |
//! | `MCP-Protocol-Version` equals `_meta` (`headers`) | | 400 | `-32020` |
//! | `Mcp-Method`, `Mcp-Name` equal the body | | 400 | `-32020` |
//! | version supported | | 400 | `-32022` |
//! | method known and advertised | | 404 | `-32601` |
//! | `tools/call`: `Mcp-Param-*` equal the arguments | | 400 | `-32020` |
//! | the method's own errors | missing client capability | 400 | `-32021` |
//! | | caller refused (scopes, checks) | 401/403 + challenge | `-32602` |
//! | | server at its concurrency limit | 503 + `Retry-After` | `-32603` |
//! | | anything else (unknown tool, bad arguments, …) | 200 | `-32602`, `-32603`, … |
//!
//! On the 2026-07-28 path `Mcp-Session-Id` and `Last-Event-ID` play no part: that revision has
//! no sessions and no resumption.
//!
//! # The lab page
//!
//! With the `lab` feature, the router also serves a page at `/lab` (`HttpOptions::lab_path`
//! moves it, `HttpOptions::without_lab` leaves it out): an MCP client that runs in the browser. It sends real requests to
//! this endpoint (discover, the three lists, then one call, read and get, each granted or denied
//! by the user as the host), answers `input_required` rounds from forms, shows progress and log
//! notifications as they stream, opens `subscriptions/listen`, and shows every envelope as sent
//! and received. It is plain HTML, CSS and JavaScript embedded in the binary, loads nothing from
//! any other host, and is served only to loopback clients that connect directly (no proxy
//! headers) and name a loopback host, unless `HttpOptions::lab_for_any_client` is on. With
//! [`HttpOptions::auth`], the page itself needs no token; paste one into it to call the endpoint.
//!
//! ```no_run
//! # #[cfg(feature = "lab")]
//! # async fn demo(server: mcp_runtime::Server) -> Result<(), mcp_runtime::Error> {
//! // `cargo run --example acme-knowledge`, then open http://127.0.0.1:8000/lab
//! let options = mcp_runtime::HttpOptions::default().lab_path("/lab");
//! server.run_with(mcp_runtime::RunMode::default(), options).await
//! # }
//! ```

mod auth;
mod connections;
mod era;
mod guard;
mod headers;
mod health;
mod hygiene;
#[cfg(feature = "lab")]
mod lab;
mod legacy;
mod negotiate;
mod options;
mod peer;
mod rate;
mod sse;

pub use options::HttpOptions;

use crate::context::Caller;
use crate::dispatch::{
    Call, Dispatcher, Handled, Ingress, Outgoing, Response as Answer, Transport,
};
use crate::error::McpError;
use crate::legacy::Legacy;
use crate::protocol::codes;
use axum::Router;
use axum::body::{Body, HttpBody as _};
use axum::extract::{Request, State};
use axum::response::Response;
use bytes::Bytes;
use headers::HeaderChecks;
use http::{HeaderValue, StatusCode, header};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

struct Endpoint {
    dispatcher: Arc<Dispatcher>,
    /// The 2025-11-25 side, unless the server serves 2026-07-28 clients only.
    legacy: Option<Arc<Legacy>>,
    options: HttpOptions,
    limiter: Option<rate::Limiter>,
}

/// An axum router serving `dispatcher` (and `legacy` sessions, when given) at the options' path.
pub(crate) fn router(
    dispatcher: Arc<Dispatcher>,
    legacy: Option<Arc<Legacy>>,
    options: HttpOptions,
) -> Router {
    routes(endpoint(dispatcher, legacy, options))
}

/// The endpoint `dispatcher` (and `legacy` sessions, when given) serve with `options`.
fn endpoint(
    dispatcher: Arc<Dispatcher>,
    legacy: Option<Arc<Legacy>>,
    options: HttpOptions,
) -> Arc<Endpoint> {
    let limiter = options
        .rate
        .map(|(requests, per)| rate::Limiter::new(requests, per, options.trust_forwarded));
    Arc::new(Endpoint {
        dispatcher,
        legacy,
        options,
        limiter,
    })
}

/// The endpoint's POST as a route of its own, for the accept loop to serve without the router.
struct EndpointPost(Arc<Endpoint>);

impl connections::DirectRoute for EndpointPost {
    fn takes(&self, request: &Request) -> bool {
        request.method() == http::Method::POST && request.uri().path() == self.0.options.path
    }

    fn answer(&self, request: Request) -> connections::Answering {
        Box::pin(handle(State(self.0.clone()), request))
    }
}

/// The router of `endpoint`: its POST, GET and DELETE, its metadata, health and lab routes.
fn routes(endpoint: Arc<Endpoint>) -> Router {
    let path = endpoint.options.path.clone();
    let mut router = Router::new().route(
        &path,
        axum::routing::post(handle)
            .get(session_get)
            .delete(session_delete)
            .fallback(method_not_allowed),
    );
    if let Some(rs) = &endpoint.options.auth {
        for well_known in auth::metadata_paths(rs) {
            router = router.route(&well_known, axum::routing::get(metadata));
        }
    }
    // A path the endpoint or its metadata takes is not served twice (serving refuses such
    // options before it gets here; a router made for an app of its own says so).
    if let Some(health) = &endpoint.options.health {
        match endpoint.options.health_clash() {
            Some(why) => tracing::warn!("{why}: the health endpoint is not served"),
            None => router = router.route(health, axum::routing::get(health::ready)),
        }
    }
    #[cfg(feature = "lab")]
    let router = lab::mount(router, &endpoint.options);
    router.with_state(endpoint)
}

/// The protected resource metadata document.
async fn metadata(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let options = &endpoint.options;
    match guard::judge_host(options, request.headers()) {
        Err(why) => return plain_status(StatusCode::BAD_REQUEST, why),
        Ok(true) => {}
        Ok(false) => {
            return plain_status(
                StatusCode::FORBIDDEN,
                "Forbidden: this Host is not allowed (DNS rebinding protection)",
            );
        }
    }
    match &options.auth {
        Some(rs) => auth::metadata_response(rs),
        None => plain_status(StatusCode::NOT_FOUND, "Not Found"),
    }
}

/// Serves on `listener` until `signal`; then ends listen streams with their final result, lets
/// requests in flight finish for the options' grace period, and returns.
pub(crate) async fn serve<S>(
    dispatcher: Arc<Dispatcher>,
    legacy: Option<Arc<Legacy>>,
    listener: tokio::net::TcpListener,
    options: HttpOptions,
    signal: S,
) where
    S: Future<Output = ()> + Send + 'static,
{
    let shutdown = dispatcher.shutdown.clone();
    let grace = options.shutdown_grace;
    let stopping = shutdown.clone();
    let stop = async move {
        signal.await;
        shutdown.cancel();
    };
    let rules = options.hygiene();
    // Made once and shared by every connection (a clone is a reference count).
    let endpoint = endpoint(dispatcher, legacy, options);
    let app = routes(endpoint.clone());
    tokio::select! {
        () = connections::serve(listener, app, Arc::new(EndpointPost(endpoint)), rules, stop) => {}
        () = async {
            stopping.cancelled().await;
            tokio::time::sleep(grace).await;
        } => {
            tracing::warn!(
                grace_ms = grace.as_millis() as u64,
                "requests still running after the shutdown grace period: closing their connections"
            );
        }
    }
}

/// A listener on `addr` with room for 4,096 connections waiting to be accepted (the kernel caps
/// it at `net.core.somaxconn`), as [`Server::run`](crate::Server::run) binds: with tokio's
/// default of 1,024, a burst of a thousand clients connecting at once overflowed the queue, and
/// the dropped ones retried a second later (p99 of 1,000 concurrent MRTR exchanges: 1,245 ms,
/// against 132 ms with this; `mcp-bench-clients`).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> std::io::Result<()> {
/// let listener = mcp_runtime::transport::http::bind("127.0.0.1:0".parse().unwrap()).await?;
/// assert!(listener.local_addr()?.port() > 0);
/// # Ok(()) }
/// ```
pub async fn bind(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = match addr {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    // As std and tokio do on Unix: a restarted server can bind while old connections linger.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(4096)
}

/// Ctrl-C, or (on Unix) SIGTERM: what ends [`Server::serve`](crate::Server::serve).
pub(crate) async fn ctrl_c_or_term() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

async fn method_not_allowed() -> Response {
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
    resp.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    resp
}

fn plain_status(status: StatusCode, message: &str) -> Response {
    let mut resp = Response::new(Body::from(message.to_owned()));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}

fn json_response(status: StatusCode, body: Bytes) -> Response {
    json_response_in(http::HeaderMap::new(), status, body)
}

/// [`json_response`] with `headers` (emptied) as the response's header map. Given the
/// request's map, the response allocates no map: hyper parses the connection's next request
/// into the map of the response it wrote, and one the size of a request's needs no growing
/// (BENCHMARKS.md, "Header maps").
fn json_response_in(mut headers: http::HeaderMap, status: StatusCode, body: Bytes) -> Response {
    headers.clear();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = status;
    *resp.headers_mut() = headers;
    resp
}

/// The status of a JSON-RPC answer: the table at the top of this module.
fn status(answer: &Answer) -> StatusCode {
    match answer.error_code() {
        None => StatusCode::OK,
        Some(codes::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            codes::PARSE_ERROR
            | codes::INVALID_REQUEST
            | codes::HEADER_MISMATCH
            | codes::MISSING_REQUIRED_CLIENT_CAPABILITY
            | codes::UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        // Refused before its method ran: no `_meta`, or `params` that are not an object.
        Some(codes::INVALID_PARAMS) if answer.is_rejection() => StatusCode::BAD_REQUEST,
        Some(_) => StatusCode::OK,
    }
}

/// The response to a JSON-RPC answer: its status, and for a caller refused access, 401 or 403
/// with a challenge when this endpoint authenticates.
/// `headers`: a map to reuse for the response ([`json_response_in`]).
fn answer(options: &HttpOptions, answer: Answer, headers: http::HeaderMap) -> Response {
    if answer.is_busy() {
        let mut resp = json_response(StatusCode::SERVICE_UNAVAILABLE, answer.body);
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return resp;
    }
    match answer.refusal() {
        Some(refusal) => auth::refused(options.auth.as_ref(), refusal, answer.body.clone()),
        None => json_response_in(headers, status(&answer), answer.body),
    }
}

/// A request refused by the transport before it was read, with `-32600`.
fn transport_error(status: StatusCode, message: &str) -> Response {
    let error = McpError::new(codes::INVALID_REQUEST, message);
    json_response(status, Answer::error(None, &error).body)
}

/// The address of the client that sent a request (anonymous callers' shares are counted by it).
fn client_address(options: &HttpOptions, parts: &http::request::Parts) -> Option<std::net::IpAddr> {
    let peer = peer::peer_of(&parts.extensions);
    rate::client_address(options.trust_forwarded, &parts.headers, peer)
}

/// The DNS-rebinding guard every request passes first: the refusal, if any.
fn guarded(options: &HttpOptions, headers: &http::HeaderMap) -> Option<Response> {
    match guard::judge_host(options, headers) {
        Err(why) => return Some(plain_status(StatusCode::BAD_REQUEST, why)),
        Ok(true) if guard::origin_allowed(options, headers) => return None,
        Ok(_) => {}
    }
    Some(plain_status(
        StatusCode::FORBIDDEN,
        "Forbidden: this Host or Origin is not allowed (DNS rebinding protection)",
    ))
}

/// What a guarded request passes before it is read, when the endpoint has them: authentication
/// and the rate limit. The caller (and the body, unless authentication read it to refuse), or
/// the response refusing the request. An endpoint with neither skips this (about 300
/// instructions per call for the async step alone: `mcp-bench --callgrind --only call`).
async fn admit(
    endpoint: &Endpoint,
    parts: &http::request::Parts,
    body: Option<Body>,
) -> Result<(Option<Arc<Caller>>, Option<Body>), Response> {
    let options = &endpoint.options;
    let (caller, body) = match &options.auth {
        None => (None, body),
        Some(rs) => match auth::authenticate(rs, &parts.headers).await {
            Ok(caller) => (caller, body),
            Err(why) => {
                // The challenge names the scopes of the operation, when the body says which.
                let scopes = match (body, negotiate::content_type_ok(&parts.headers)) {
                    (Some(body), true) => {
                        match read_body(body, options.body_limit, options.body_timeout).await {
                            Ok(bytes) => endpoint.dispatcher.scopes_needed(&bytes),
                            Err(_) => Vec::new(),
                        }
                    }
                    _ => Vec::new(),
                };
                return Err(auth::unauthenticated(rs, why, &scopes));
            }
        },
    };
    if let Some(limiter) = &endpoint.limiter {
        let peer = peer::peer_of(&parts.extensions);
        if let Err(wait) = limiter.check(caller.as_deref(), &parts.headers, peer) {
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let mut resp = transport_error(
                StatusCode::TOO_MANY_REQUESTS,
                &format!("Too Many Requests: retry in {seconds} s"),
            );
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
            return Err(resp);
        }
    }
    Ok((caller, body))
}

/// A GET or DELETE, admitted: the legacy side, the request's head and its caller. Without a
/// session (or a legacy side) it is a method a 2026-07-28 endpoint does not take: 405.
async fn session_request(
    endpoint: &Endpoint,
    request: Request,
) -> Result<(Arc<Legacy>, http::request::Parts, Option<Arc<Caller>>), Response> {
    let Some(legacy) = endpoint.legacy.clone() else {
        return Err(method_not_allowed().await);
    };
    if !request.headers().contains_key("mcp-session-id") {
        return Err(method_not_allowed().await);
    }
    let (parts, _) = request.into_parts();
    if let Some(refused) = guarded(&endpoint.options, &parts.headers) {
        return Err(refused);
    }
    let (caller, _) = admit(endpoint, &parts, None).await?;
    Ok((legacy, parts, caller))
}

/// GET: a 2025-11-25 session's stream.
async fn session_get(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    match session_request(&endpoint, request).await {
        Ok((legacy, parts, caller)) => {
            let accept = negotiate::accepts(&parts.headers);
            let client = client_address(&endpoint.options, &parts);
            legacy::get(&endpoint, &legacy, &parts.headers, caller, client, &accept).await
        }
        Err(refused) => refused,
    }
}

/// DELETE: ends a 2025-11-25 session.
async fn session_delete(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    match session_request(&endpoint, request).await {
        Ok((legacy, parts, caller)) => legacy::delete(&legacy, &parts.headers, caller).await,
        Err(refused) => refused,
    }
}

async fn handle(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (mut parts, body) = request.into_parts();
    let options = &endpoint.options;
    if let Some(refused) = guarded(options, &parts.headers) {
        return refused;
    }
    let (caller, body) = if options.auth.is_none() && endpoint.limiter.is_none() {
        (None, body)
    } else {
        match Box::pin(admit(&endpoint, &parts, Some(body))).await {
            Ok((caller, Some(body))) => (caller, body),
            // Authentication read the body to name the scopes in its challenge: it refused.
            Ok((_, None)) => return transport_error(StatusCode::BAD_REQUEST, "Bad Request"),
            Err(refused) => return refused,
        }
    };
    if !negotiate::content_type_ok(&parts.headers) {
        return transport_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: send the JSON-RPC message as application/json",
        );
    }
    let accept = negotiate::accepts(&parts.headers);
    if !accept.json && !accept.sse {
        return transport_error(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: accept application/json and text/event-stream",
        );
    }
    let bytes = match read_body(body, options.body_limit, options.body_timeout).await {
        Ok(b) => b,
        Err(response) => return response,
    };
    let found = headers::McpHeaders::scan(&parts.headers);
    if let Some(legacy) = &endpoint.legacy
        && era::of_post(&found, &bytes) == era::Era::Legacy
    {
        let client = client_address(options, &parts);
        // Boxed: the 2025 path's state would otherwise make every request's future (moved
        // several times through axum and hyper) as large as its own.
        return Box::pin(legacy::post(
            &endpoint,
            legacy,
            &parts.headers,
            &bytes,
            caller,
            client,
            &accept,
        ))
        .await;
    }
    let handled = endpoint.dispatcher.handle(
        &bytes,
        Ingress {
            caller,
            checks: Some(&HeaderChecks::new(&parts.headers, found)),
            transport: Some(Transport::Http),
            client: client_address(options, &parts),
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
    // The request's headers are read: their map carries the response.
    let headers = std::mem::take(&mut parts.headers);
    match call.next_message().await {
        Some(Outgoing::Response(r)) if accept.json || r.is_refusal() || r.is_busy() => {
            answer(options, r, headers)
        }
        Some(Outgoing::Response(r)) => sse::response(r.body, None, keepalive, headers),
        Some(Outgoing::Notification(n)) if accept.sse => {
            sse::response(n, Some(call), keepalive, headers)
        }
        Some(Outgoing::Notification(_)) => {
            // The client takes JSON only: request-scoped notifications cannot be delivered.
            answer(options, Call::response(call).await, headers)
        }
        None => transport_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal error: the request produced no response",
        ),
    }
}

/// Reads the whole body, refusing more than `limit` bytes (413; a declared `Content-Length`
/// above the limit is refused before reading).
async fn read_body(body: Body, limit: usize, within: Duration) -> Result<Bytes, Response> {
    match tokio::time::timeout(within, read_body_now(body, limit)).await {
        Ok(read) => read,
        Err(_) => Err(transport_error(
            StatusCode::REQUEST_TIMEOUT,
            &format!(
                "Request Timeout: the body did not arrive within {} ms",
                within.as_millis()
            ),
        )),
    }
}

async fn read_body_now(body: Body, limit: usize) -> Result<Bytes, Response> {
    let too_large = || {
        transport_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("Payload Too Large: the body exceeds {limit} bytes"),
        )
    };
    if body.size_hint().lower() > limit as u64 {
        return Err(too_large());
    }
    axum::body::to_bytes(body, limit).await.map_err(|e| {
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
        while let Some(err) = source {
            if err.is::<http_body_util::LengthLimitError>() {
                return too_large();
            }
            source = err.source();
        }
        transport_error(
            StatusCode::BAD_REQUEST,
            "Bad Request: the body could not be read",
        )
    })
}
