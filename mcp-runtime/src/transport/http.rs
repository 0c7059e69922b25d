//! Streamable HTTP (2026-07-28): one endpoint, POST only, one message per POST, JSON or SSE
//! answers chosen per request.
//!
//! Validation order (the first failing step answers):
//!
//! | step | failure | status | JSON-RPC |
//! |---|---|---|---|
//! | method is POST | GET, DELETE, … | 405 (`Allow: POST`) | – |
//! | `Host` and `Origin` allowed | DNS-rebinding guard | 403 | – |
//! | authentication (when configured) | per authenticator | 401/403 | – |
//! | `Content-Type` is `application/json` | | 415 | `-32600` |
//! | `Accept` admits JSON or SSE | | 406 | `-32600` |
//! | body within the limit | | 413 | `-32600` |
//! | body parses | invalid JSON / not one request object | 400 | `-32700` / `-32600` |
//! | notification | accepted | 202 | – |
//! | `_meta` has version and capabilities | | 400 | `-32602` |
//! | `MCP-Protocol-Version` equals `_meta` | | 400 | `-32020` |
//! | `Mcp-Method`, `Mcp-Name` equal the body | | 400 | `-32020` |
//! | version supported | | 400 | `-32022` |
//! | method known and advertised | | 404 | `-32601` |
//!
//! `Mcp-Session-Id` and `Last-Event-ID` are ignored: the protocol has no sessions and no resumption.

use crate::dispatch::{CallOptions, Incoming, Outgoing, Rejection, parse_message};
use crate::{Caller, McpError, Server};
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use base64::Engine as _;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// Decides who is calling from the request head. Return `Ok(None)` for anonymous access,
/// `Ok(Some(caller))` for an authenticated one, or `Err(response)` to refuse (401/403 with
/// `WWW-Authenticate`).
pub type Authenticator =
    Arc<dyn Fn(&http::request::Parts) -> Result<Option<Caller>, Response> + Send + Sync>;

/// Options of the Streamable HTTP transport.
///
/// ```
/// use mcp_runtime::HttpOptions;
/// let options = HttpOptions::default()
///     .path("/mcp")
///     .allow_host("mcp.example.com")
///     .allow_origin("https://app.example.com")
///     .body_limit(1 << 20);
/// ```
#[derive(Clone)]
#[must_use]
pub struct HttpOptions {
    path: String,
    hosts: Vec<String>,
    origins: Vec<String>,
    body_limit: usize,
    authenticator: Option<Authenticator>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".into(),
            hosts: Vec::new(),
            origins: Vec::new(),
            body_limit: 4 * 1024 * 1024,
            authenticator: None,
        }
    }
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("path", &self.path)
            .field("hosts", &self.hosts)
            .field("origins", &self.origins)
            .field("body_limit", &self.body_limit)
            .finish_non_exhaustive()
    }
}

impl HttpOptions {
    /// The endpoint path (default `/mcp`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }
    /// Also accept this `Host` name (any port). Loopback names are always accepted.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.hosts.push(host.into().to_ascii_lowercase());
        self
    }
    /// Also accept this `Origin` (`scheme://host[:port]`). Loopback origins are always accepted.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.origins
            .push(origin.into().trim_end_matches('/').to_ascii_lowercase());
        self
    }
    /// Largest accepted body in bytes (default 4 MiB); larger bodies get 413.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }
    /// The endpoint path.
    pub fn endpoint_path(&self) -> &str {
        &self.path
    }
    /// Authenticates every request before it is parsed.
    pub fn authenticate<F>(mut self, f: F) -> Self
    where
        F: Fn(&http::request::Parts) -> Result<Option<Caller>, Response> + Send + Sync + 'static,
    {
        self.authenticator = Some(Arc::new(f));
        self
    }
}

struct Endpoint {
    server: Server,
    options: HttpOptions,
}

impl Server {
    /// An axum router serving this server at `/mcp` with default [`HttpOptions`]; mount it in
    /// your own app or serve it as is.
    ///
    /// ```
    /// # fn demo(server: mcp_runtime::Server) {
    /// let app: axum::Router = server.into_router();
    /// # }
    /// ```
    pub fn into_router(self) -> Router {
        self.into_router_with(HttpOptions::default())
    }

    /// An axum router with the given options.
    pub fn into_router_with(self, options: HttpOptions) -> Router {
        let path = options.path.clone();
        let endpoint = Arc::new(Endpoint {
            server: self,
            options,
        });
        Router::new()
            .route(
                &path,
                axum::routing::post(handle).fallback(method_not_allowed),
            )
            .with_state(endpoint)
    }

    /// Serves over HTTP on `addr` until Ctrl-C, then ends listen streams gracefully.
    pub async fn serve(self, addr: SocketAddr) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        self.serve_listener(listener, HttpOptions::default()).await
    }

    /// Serves over HTTP on an already bound listener, with options, until Ctrl-C.
    pub async fn serve_listener(
        self,
        listener: tokio::net::TcpListener,
        options: HttpOptions,
    ) -> std::io::Result<()> {
        let server = self.clone();
        let app = self.into_router_with(options);
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = tokio::signal::ctrl_c().await;
                server.shutdown();
            })
            .await
    }
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

fn json_response(status: u16, body: Bytes) -> Response {
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

fn rejection(r: Rejection) -> Response {
    let resp = r.into_response();
    json_response(resp.status, resp.body)
}

fn transport_error(status: u16, message: &str) -> Response {
    let e =
        McpError::new(crate::protocol::codes::INVALID_REQUEST, message).with_http_status(status);
    rejection(Rejection::new(None, e))
}

const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The host part of `host[:port]`, trimmed (IPv6 literals keep their brackets; case is kept:
/// compare with `eq_ignore_ascii_case`). No allocation: this runs on every request.
fn host_part(authority: &str) -> &str {
    let a = authority.trim();
    if a.starts_with('[') {
        return match a.find(']') {
            Some(i) => &a[..=i],
            None => a,
        };
    }
    match a.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|c| c.is_ascii_digit()) => h,
        _ => a,
    }
}

fn is_loopback(host: &str) -> bool {
    LOOPBACK.iter().any(|l| l.eq_ignore_ascii_case(host))
}

fn host_allowed(options: &HttpOptions, headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST) else {
        // HTTP/1.1 requires Host; without one there is nothing to rebind.
        return true;
    };
    let Ok(host) = host.to_str() else {
        return false;
    };
    let name = host_part(host);
    is_loopback(name)
        || options
            .hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(name) || h.eq_ignore_ascii_case(host.trim()))
}

fn origin_allowed(options: &HttpOptions, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let origin = origin.trim().trim_end_matches('/');
    if options
        .origins
        .iter()
        .any(|o| o.eq_ignore_ascii_case(origin))
    {
        return true;
    }
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    (scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"))
        && is_loopback(host_part(rest))
}

struct AcceptSet {
    json: bool,
    sse: bool,
}

fn accepts(headers: &HeaderMap) -> AcceptSet {
    let mut set = AcceptSet {
        json: false,
        sse: false,
    };
    let mut values = headers.get_all(header::ACCEPT).iter();
    // What MCP clients send: no list to parse.
    if let (Some(v), None) = (values.next(), values.next())
        && v.as_bytes() == b"application/json, text/event-stream"
    {
        return AcceptSet {
            json: true,
            sse: true,
        };
    }
    let mut any = false;
    for v in headers.get_all(header::ACCEPT) {
        any = true;
        for item in v.to_str().unwrap_or("").split(',') {
            let mut parts = item.split(';');
            let media = parts.next().unwrap_or("").trim();
            let refused = parts.any(|p| {
                let p = p.trim();
                p.starts_with("q=") && p[2..].trim().parse::<f32>().is_ok_and(|q| q == 0.0)
            });
            if refused {
                continue;
            }
            let is = |m: &str| media.eq_ignore_ascii_case(m);
            if is("*/*") {
                set.json = true;
                set.sse = true;
            } else if is("application/json") || is("application/*") {
                set.json = true;
            } else if is("text/event-stream") || is("text/*") {
                set.sse = true;
            }
        }
    }
    if !any {
        return AcceptSet {
            json: true,
            sse: true,
        };
    }
    set
}

fn content_type_ok(headers: &HeaderMap) -> bool {
    let value = headers.get(header::CONTENT_TYPE);
    if value.is_some_and(|v| v.as_bytes() == b"application/json") {
        return true;
    }
    match value.map(HeaderValue::to_str) {
        None => true,
        Some(Ok(ct)) => ct
            .split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json")),
        Some(Err(_)) => false,
    }
}

/// A header looked for in one pass over the request's headers.
#[derive(Clone, Copy)]
enum Seen<'h> {
    Absent,
    Once(&'h HeaderValue),
    Repeated,
}

impl<'h> Seen<'h> {
    fn add(&mut self, value: &'h HeaderValue) {
        *self = match self {
            Seen::Absent => Seen::Once(value),
            _ => Seen::Repeated,
        };
    }
}

/// The MCP metadata headers, found in one pass (cheaper than three lookups by name).
struct McpHeaders<'h> {
    version: Seen<'h>,
    method: Seen<'h>,
    name: Seen<'h>,
    /// Whether any `Mcp-Param-*` header is present.
    params: bool,
}

impl<'h> McpHeaders<'h> {
    fn scan(headers: &'h HeaderMap) -> Self {
        let mut found = McpHeaders {
            version: Seen::Absent,
            method: Seen::Absent,
            name: Seen::Absent,
            params: false,
        };
        for (name, value) in headers {
            match name.as_str() {
                "mcp-protocol-version" => found.version.add(value),
                "mcp-method" => found.method.add(value),
                "mcp-name" => found.name.add(value),
                other => found.params |= other.starts_with("mcp-param-"),
            }
        }
        found
    }
}

/// Reads a metadata header: trimmed of optional whitespace, base64 sentinel decoded (the only
/// case that allocates).
fn header_value<'h>(
    seen: Seen<'h>,
    name: &str,
) -> Result<Option<std::borrow::Cow<'h, str>>, McpError> {
    let raw = match seen {
        Seen::Absent => return Ok(None),
        Seen::Once(raw) => raw,
        Seen::Repeated => {
            return Err(McpError::header_mismatch(format!(
                "Header mismatch: `{name}` is given more than once"
            )));
        }
    };
    let text = raw.to_str().map_err(|_| {
        McpError::header_mismatch(format!(
            "Header mismatch: `{name}` contains characters that are not visible ASCII; encode the value as =?base64?…?="
        ))
    })?;
    let text = text.trim_matches([' ', '\t']);
    if text.bytes().any(|c| c.is_ascii_control()) {
        return Err(McpError::header_mismatch(format!(
            "Header mismatch: `{name}` contains control characters"
        )));
    }
    if !text.starts_with("=?base64?") {
        return Ok(Some(std::borrow::Cow::Borrowed(text)));
    }
    decode_sentinel(text)
        .map(|t| Some(std::borrow::Cow::Owned(t)))
        .ok_or_else(|| {
            McpError::header_mismatch(format!(
                "Header mismatch: `{name}` has an invalid =?base64?…?= value"
            ))
        })
}

/// Trims optional whitespace, refuses control characters, and decodes the base64 sentinel.
pub(crate) fn decode_header_text(raw: &str) -> Option<String> {
    let text = raw.trim_matches([' ', '\t']);
    if text.chars().any(|c| c.is_ascii_control()) {
        return None;
    }
    decode_sentinel(text)
}

/// Decodes `=?base64?…?=` values; other values are returned as they are.
pub(crate) fn decode_sentinel(text: &str) -> Option<String> {
    match text
        .strip_prefix("=?base64?")
        .and_then(|t| t.strip_suffix("?="))
    {
        None => Some(text.to_owned()),
        Some(b64) => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
            String::from_utf8(bytes).ok()
        }
    }
}

/// Checks the MCP headers against the body; returns whether `Mcp-Param-*` headers are present.
fn check_headers(headers: &HeaderMap, req: &crate::dispatch::Request) -> Result<bool, McpError> {
    let found = McpHeaders::scan(headers);
    let body_version = req
        .meta()
        .and_then(|m| m.protocol_version.as_deref())
        .unwrap_or_default();
    match header_value(found.version, "mcp-protocol-version")? {
        None => {
            return Err(McpError::header_mismatch(
                "Header mismatch: the MCP-Protocol-Version header is required",
            ));
        }
        Some(v) if v != body_version => {
            return Err(McpError::header_mismatch(format!(
                "Header mismatch: MCP-Protocol-Version header value '{v}' does not match body value '{body_version}'"
            )));
        }
        Some(_) => {}
    }
    match header_value(found.method, "mcp-method")? {
        None => {
            return Err(McpError::header_mismatch(
                "Header mismatch: the Mcp-Method header is required",
            ));
        }
        Some(v) if v != req.method() => {
            return Err(McpError::header_mismatch(format!(
                "Header mismatch: Mcp-Method header value '{v}' does not match body value '{}'",
                req.method()
            )));
        }
        Some(_) => {}
    }
    if matches!(
        req.method(),
        "tools/call" | "prompts/get" | "resources/read"
    ) {
        let body_name = req.name();
        match (header_value(found.name, "mcp-name")?, body_name) {
            (None, _) => {
                return Err(McpError::header_mismatch(format!(
                    "Header mismatch: the Mcp-Name header is required for {}",
                    req.method()
                )));
            }
            (Some(v), Some(b)) if v == b => {}
            (Some(v), b) => {
                return Err(McpError::header_mismatch(format!(
                    "Header mismatch: Mcp-Name header value '{v}' does not match body value '{}'",
                    b.unwrap_or("")
                )));
            }
        }
    }
    Ok(found.params)
}

async fn handle(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let options = &endpoint.options;
    if !host_allowed(options, &parts.headers) || !origin_allowed(options, &parts.headers) {
        return plain_status(
            StatusCode::FORBIDDEN,
            "Forbidden: this Host or Origin is not allowed (DNS rebinding protection)",
        );
    }
    let caller = match &options.authenticator {
        None => None,
        Some(auth) => match auth(&parts) {
            Ok(c) => c.map(Arc::new),
            Err(resp) => return resp,
        },
    };
    if !content_type_ok(&parts.headers) {
        return transport_error(
            415,
            "Unsupported Media Type: send the JSON-RPC message as application/json",
        );
    }
    let accept = accepts(&parts.headers);
    if !accept.json && !accept.sse {
        return transport_error(
            406,
            "Not Acceptable: accept application/json and text/event-stream",
        );
    }
    let bytes = match read_body(body, options.body_limit).await {
        Ok(b) => b,
        Err(BodyError::TooLarge) => {
            return transport_error(
                413,
                &format!(
                    "Payload Too Large: the body exceeds {} bytes",
                    options.body_limit
                ),
            );
        }
        Err(BodyError::Unreadable) => {
            return transport_error(400, "Bad Request: the body could not be read");
        }
    };
    let req = match parse_message(&bytes) {
        Err(r) => return rejection(r),
        Ok(Incoming::Notification(_)) => {
            let mut resp = Response::new(Body::empty());
            *resp.status_mut() = StatusCode::ACCEPTED;
            return resp;
        }
        Ok(Incoming::Request(req)) => req,
    };
    if let Err(r) = req.check_meta() {
        return rejection(r);
    }
    let has_params = match check_headers(&parts.headers, &req) {
        Ok(has_params) => has_params,
        Err(e) => return rejection(Rejection::new(Some(req.id().clone()), e)),
    };
    // `Some` even when empty: over HTTP, declared `x-mcp-header` arguments need their headers.
    let param_headers = (req.method() == "tools/call").then(|| {
        if !has_params {
            return Vec::new();
        }
        parts
            .headers
            .iter()
            .filter_map(|(name, value)| {
                let rest = name.as_str().strip_prefix("mcp-param-")?;
                // Non-ASCII bytes cannot match any argument: keep them visible as a mismatch.
                let text = value
                    .to_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|_| "\u{1}".into());
                Some((rest.to_owned(), text))
            })
            .collect()
    });
    let mut call = endpoint.server.call(
        req,
        CallOptions {
            caller,
            param_headers,
        },
    );
    match call.next_message().await {
        Some(Outgoing::Response(r)) if accept.json => json_response(r.status, r.body),
        Some(Outgoing::Response(r)) => sse_response(SseBody::new(
            Some(r.body),
            None,
            endpoint.server.keepalive(),
        )),
        Some(Outgoing::Notification(n)) if accept.sse => sse_response(SseBody::new(
            Some(n),
            Some(call),
            endpoint.server.keepalive(),
        )),
        Some(Outgoing::Notification(_)) => {
            // The client takes JSON only: request-scoped notifications cannot be delivered.
            let r = call.response().await;
            json_response(r.status, r.body)
        }
        None => transport_error(500, "Internal error: the request produced no response"),
    }
}

enum BodyError {
    TooLarge,
    Unreadable,
}

/// Reads the whole body, refusing more than `limit` bytes (a declared `Content-Length` above the
/// limit is refused before reading). A body that arrives in one frame, the usual case, is
/// handed over as it is: no copy, no intermediate list.
async fn read_body(mut body: Body, limit: usize) -> Result<Bytes, BodyError> {
    use axum::body::HttpBody as _;
    use http_body_util::BodyExt as _;
    if body.size_hint().lower() > limit as u64 {
        return Err(BodyError::TooLarge);
    }
    let mut whole: Option<Bytes> = None;
    let mut more: Vec<u8> = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| BodyError::Unreadable)?;
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        let total = whole.as_ref().map_or(0, Bytes::len) + more.len() + data.len();
        if total > limit {
            return Err(BodyError::TooLarge);
        }
        match &whole {
            None if more.is_empty() => whole = Some(data),
            _ => {
                if let Some(first) = whole.take() {
                    more.extend_from_slice(&first);
                }
                more.extend_from_slice(&data);
            }
        }
    }
    Ok(match whole {
        Some(data) => data,
        None => Bytes::from(more),
    })
}

impl Server {
    fn keepalive(&self) -> Duration {
        self.shared.config.keepalive
    }
}

fn sse_response(body: SseBody) -> Response {
    let mut resp = Response::new(Body::from_stream(body));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    resp
}

/// The SSE body: the first message, then the rest of the call, with keep-alive comments.
/// Dropping it (client gone) drops the call, which cancels the handler.
struct SseBody {
    first: Option<Bytes>,
    call: Option<crate::dispatch::Call>,
    keepalive: tokio::time::Interval,
}

impl SseBody {
    fn new(first: Option<Bytes>, call: Option<crate::dispatch::Call>, every: Duration) -> Self {
        let mut keepalive = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        keepalive.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        SseBody {
            first,
            call,
            keepalive,
        }
    }
}

fn event(data: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(data.len() + 24);
    out.extend_from_slice(b"event: message\ndata: ");
    out.extend_from_slice(data);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

impl futures_core::Stream for SseBody {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(first) = this.first.take() {
            return Poll::Ready(Some(Ok(event(&first))));
        }
        let Some(call) = &mut this.call else {
            return Poll::Ready(None);
        };
        match call.poll_next_message(cx) {
            Poll::Ready(Some(Outgoing::Notification(n))) => Poll::Ready(Some(Ok(event(&n)))),
            Poll::Ready(Some(Outgoing::Response(r))) => {
                this.call = None;
                Poll::Ready(Some(Ok(event(&r.body))))
            }
            Poll::Ready(None) => {
                this.call = None;
                Poll::Ready(None)
            }
            Poll::Pending => match this.keepalive.poll_tick(cx) {
                Poll::Ready(_) => Poll::Ready(Some(Ok(Bytes::from_static(b":\n\n")))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names() {
        assert_eq!(host_part("localhost:8000"), "localhost");
        assert_eq!(host_part("[::1]:8000"), "[::1]");
        assert_eq!(host_part(" 127.0.0.1"), "127.0.0.1");
        assert_eq!(host_part("Evil.example.com:80"), "Evil.example.com");
        assert!(is_loopback("LocalHost"));
        assert!(!is_loopback("localhost.evil.example"));
    }

    #[test]
    fn sentinel() {
        assert_eq!(
            decode_sentinel("=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(),
            Some("Hello, 世界")
        );
        assert_eq!(decode_sentinel("plain").as_deref(), Some("plain"));
        assert_eq!(decode_sentinel("=?base64?SGVsbG8?="), None);
    }
}
