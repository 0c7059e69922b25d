//! The helpers every test binary shares (`tests/suite/`, and each test file that keeps a binary
//! of its own): locating the spec fixtures, validating every message the server emits against
//! the JSON Schema ([`schema`]), a tiny HTTP client, the SSE reader ([`sse`]), a loopback HTTP
//! server and builders of standard requests; and, each a module, `redis-server` and nginx
//! ([`engines`]), a server recording the `Authorization` it gets ([`recorded`]), oidc-provider
//! ([`authority`]), the capture of spans and metrics ([`capture`]) and the server the hostile
//! and fuzzing suites attack ([`pipeline_fixture`]).
//!
//! Included once by each test binary (`mod common;`, or `#[path]` from a folder), which uses a
//! subset of it. Nothing here registers in the link-time registry (no `#[tool]`): the binaries
//! that build a server with `Server::from_inventory` include it too.
#![allow(dead_code)]

pub mod authority;
pub mod capture;
pub mod engines;
pub mod pipeline_fixture;
pub mod recorded;
pub mod schema;
pub mod sse;

pub use schema::*;
pub use sse::sse_messages;

use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use mcp_runtime::{HttpOptions, Server};
use serde_json::{Map, Value, json};
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// The protocol revision under test.
pub const VERSION: &str = "2026-07-28";

/// Bound of every await that could hang.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// Awaits `fut`, panicking with `what` after [`TIMEOUT`].
pub async fn within<F: Future>(what: &str, fut: F) -> F::Output {
    match tokio::time::timeout(TIMEOUT, fut).await {
        Ok(v) => v,
        Err(_) => panic!("timed out after {TIMEOUT:?}: {what}"),
    }
}

// ---------------------------------------------------------------------------------------------
// (a) The shared folder
// ---------------------------------------------------------------------------------------------

/// The shared folder: `$MCP_SHARED_DIR`, default `<CARGO_MANIFEST_DIR>/../shared`.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("MCP_SHARED_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    }
}

/// Whether a test's prerequisite is there: `present`, or skipped because `skip_var` asks for
/// it (`SKIPPED` said on stderr, `false`). Missing without being asked to skip, it fails the
/// test, saying what `missing` is and how to get it: a missing prerequisite is no pass.
pub fn prerequisite(present: bool, missing: &str, install: &str, skip_var: &str) -> bool {
    if present {
        return true;
    }
    if std::env::var_os(skip_var).is_some_and(|v| !v.is_empty()) {
        eprintln!("SKIPPED ({skip_var} is set): {missing}");
        return false;
    }
    panic!("{missing}: {install} (or set {skip_var}=1 to skip the tests that need it)");
}

/// Whether nginx is installed (`prerequisite`, skipped with `MCP_SKIP_NGINX`).
pub fn nginx_installed() -> bool {
    let installed = std::process::Command::new("nginx")
        .arg("-v")
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok();
    prerequisite(
        installed,
        "nginx is not installed",
        "Debian: apt-get install nginx-light",
        "MCP_SKIP_NGINX",
    )
}

/// `<shared>/<relative>` if it exists; `None` when it does not and `MCP_SKIP_SHARED` asks to
/// skip what needs it (else the test fails: see [`prerequisite`]).
pub fn shared_path(relative: &str) -> Option<PathBuf> {
    let path = shared_dir().join(relative);
    let found = prerequisite(
        path.exists(),
        &format!("{} is missing", path.display()),
        "set MCP_SHARED_DIR to the folder holding spec/ and seeds/ (default ../shared)",
        "MCP_SKIP_SHARED",
    );
    found.then_some(path)
}

// ---------------------------------------------------------------------------------------------
// (b) HTTP client
// ---------------------------------------------------------------------------------------------

/// An HTTP response, fully read.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    /// Status.
    pub status: StatusCode,
    /// Headers.
    pub headers: HeaderMap,
    /// Body.
    pub body: Bytes,
}

impl HttpResponse {
    /// The `Content-Type` without parameters, lowercased (empty when absent).
    pub fn content_type(&self) -> String {
        self.headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    }

    /// A header as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The JSON-RPC messages of the body: one for `application/json`, every `data:` event for
    /// `text/event-stream`, none for an empty body.
    pub fn messages(&self) -> Vec<Value> {
        if self.body.is_empty() {
            return Vec::new();
        }
        match self.content_type().as_str() {
            "application/json" => vec![serde_json::from_slice(&self.body).unwrap_or_else(|e| {
                panic!(
                    "the application/json body is not JSON ({e}): {}",
                    String::from_utf8_lossy(&self.body)
                )
            })],
            "text/event-stream" => sse_messages(&self.body),
            other => panic!(
                "unexpected content type `{other}` for a body of {} bytes: {}",
                self.body.len(),
                String::from_utf8_lossy(&self.body)
            ),
        }
    }

    /// The single JSON-RPC message of a JSON body.
    pub fn json(&self) -> Value {
        assert_eq!(
            self.content_type(),
            "application/json",
            "expected a JSON body, got status {} body {}",
            self.status,
            String::from_utf8_lossy(&self.body)
        );
        let mut m = self.messages();
        assert_eq!(m.len(), 1);
        m.remove(0)
    }
}

/// Sends one HTTP request and reads the whole response (bounded by [`TIMEOUT`]).
pub async fn send(
    method: Method,
    url: &str,
    headers: &[(String, String)],
    body: impl Into<Bytes>,
) -> HttpResponse {
    send_from(None, method, url, headers, body).await
}

/// [`send`] from the local address `from` (127.0.0.2, …: another client, as the server's
/// per-caller shares see it), when given.
pub async fn send_from(
    from: Option<std::net::IpAddr>,
    method: Method,
    url: &str,
    headers: &[(String, String)],
    body: impl Into<Bytes>,
) -> HttpResponse {
    let mut connector = hyper_util::client::legacy::connect::HttpConnector::new();
    connector.set_local_address(from);
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build(connector);
    let mut req = http::Request::builder().method(method).uri(url);
    for (name, value) in headers {
        let name = HeaderName::from_bytes(name.as_bytes()).expect("valid header name");
        let value = HeaderValue::from_bytes(value.as_bytes()).expect("valid header value");
        req = req.header(name, value);
    }
    let req = req.body(Full::new(body.into())).expect("valid request");
    within(&format!("HTTP request to {url}"), async move {
        let resp = client
            .request(req)
            .await
            .expect("the HTTP request succeeds");
        let (parts, body) = resp.into_parts();
        let body = body.collect().await.expect("the body is read").to_bytes();
        HttpResponse {
            status: parts.status,
            headers: parts.headers,
            body,
        }
    })
    .await
}

/// `POST url` with `headers` and `body`.
pub async fn post(url: &str, headers: &[(String, String)], body: impl Into<Bytes>) -> HttpResponse {
    send(Method::POST, url, headers, body).await
}

// ---------------------------------------------------------------------------------------------
// (c) A server on 127.0.0.1
// ---------------------------------------------------------------------------------------------

/// A running HTTP server; dropping it stops accepting connections.
pub struct HttpServer {
    /// Where it listens.
    pub addr: SocketAddr,
    task: tokio::task::JoinHandle<Result<(), mcp_runtime::Error>>,
}

impl HttpServer {
    /// `http://127.0.0.1:<port>/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serves `server` over HTTP on `127.0.0.1:0` with default options.
pub async fn spawn_http(server: Server) -> HttpServer {
    spawn_http_with(server, HttpOptions::default()).await
}

/// Serves `server` over HTTP on `127.0.0.1:0` with `options`.
pub async fn spawn_http_with(server: Server, options: HttpOptions) -> HttpServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local address");
    let task = tokio::spawn(server.serve(listener, options));
    HttpServer { addr, task }
}

// ---------------------------------------------------------------------------------------------
// (d) Standard requests
// ---------------------------------------------------------------------------------------------

/// The standard request `_meta`: version, client info and empty client capabilities.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-tests", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// A request `{jsonrpc, id, method, params}` whose params get the standard `_meta` (unless
/// they already carry one).
pub fn request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    let mut params = match params {
        Value::Object(m) => m,
        Value::Null => Map::new(),
        other => panic!("params must be an object, not {other}"),
    };
    params.entry("_meta").or_insert_with(meta);
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params})
}

/// A notification `{jsonrpc, method, params}`.
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// The two headers every POST carries: Content-Type and an Accept of JSON and SSE.
pub fn post_headers() -> Vec<(String, String)> {
    vec![
        ("Content-Type".to_owned(), "application/json".to_owned()),
        (
            "Accept".to_owned(),
            "application/json, text/event-stream".to_owned(),
        ),
    ]
}

/// The headers a conforming client sends with `body`: Content-Type, Accept,
/// MCP-Protocol-Version (from `_meta`), Mcp-Method and, for the methods that name something
/// (a tool, prompt, resource or task), Mcp-Name.
pub fn headers_for(body: &Value) -> Vec<(String, String)> {
    let mut h = post_headers();
    let version = body
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or(VERSION);
    h.push(("MCP-Protocol-Version".to_owned(), version.to_owned()));
    if let Some(method) = body.get("method").and_then(Value::as_str) {
        h.push(("Mcp-Method".to_owned(), method.to_owned()));
        let name = match method {
            "tools/call" | "prompts/get" => body.pointer("/params/name"),
            "resources/read" => body.pointer("/params/uri"),
            "tasks/get" | "tasks/update" | "tasks/cancel" => body.pointer("/params/taskId"),
            _ => None,
        };
        if let Some(name) = name.and_then(Value::as_str) {
            h.push(("Mcp-Name".to_owned(), name.to_owned()));
        }
    }
    h
}

/// `message` as the bytes of a whole keep-alive HTTP/1.1 POST to `/mcp`, with the headers a
/// conforming client sends ([`headers_for`]): for tests that write to a socket themselves.
pub fn raw_post(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers_for(message) {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head.push_str(&body);
    head.into_bytes()
}

/// Standard (RFC 4648, padded) base64, for `=?base64?…?=` header values.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `headers` with `name` (case-insensitive) set to `value`.
pub fn with_header(
    mut headers: Vec<(String, String)>,
    name: &str,
    value: &str,
) -> Vec<(String, String)> {
    headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    headers.push((name.to_owned(), value.to_owned()));
    headers
}

/// `headers` without `name` (case-insensitive).
pub fn without_header(mut headers: Vec<(String, String)>, name: &str) -> Vec<(String, String)> {
    headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    headers
}

/// Posts `body` with the standard headers, validates every message of the answer against the
/// schema (notifications, then exactly one response, last) and returns the response.
pub async fn call(url: &str, body: &Value) -> HttpResponse {
    call_with(url, body, headers_for(body)).await
}

/// Like [`call`] with explicit headers.
pub async fn call_with(url: &str, body: &Value, headers: Vec<(String, String)>) -> HttpResponse {
    let resp = post(
        url,
        &headers,
        serde_json::to_vec(body).expect("serializable"),
    )
    .await;
    let method = body.get("method").and_then(Value::as_str).unwrap_or("");
    validate_answer(method, &resp);
    resp
}

/// Validates every JSON-RPC message of an HTTP answer to a request of `method`: notifications
/// first, then one response, nothing after it.
pub fn validate_answer(method: &str, resp: &HttpResponse) {
    let messages = resp.messages();
    for (i, m) in messages.iter().enumerate() {
        assert_message_valid(method, m);
        let is_response = m.get("method").is_none();
        assert_eq!(
            is_response,
            i + 1 == messages.len(),
            "the response must come last, after every notification: {messages:?}"
        );
    }
}

/// The final response of an answer (its last message).
pub fn response_of(resp: &HttpResponse) -> Value {
    resp.messages()
        .pop()
        .unwrap_or_else(|| panic!("no message in the answer (status {})", resp.status))
}

/// Opens a `subscriptions/listen` stream with `filter` from the local address `from` (127.0.0.2,
/// …: another client) on a raw socket: the socket once it got the acknowledgement, or the
/// refusal as text.
pub async fn listen_from(
    from: std::net::IpAddr,
    addr: SocketAddr,
    filter: Value,
) -> Result<tokio::net::TcpStream, String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = request(1, "subscriptions/listen", json!({"notifications": filter}));
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket
        .bind(SocketAddr::new(from, 0))
        .expect("bind the client's address");
    let mut s = socket.connect(addr).await.expect("connect");
    s.write_all(&raw_post(&body))
        .await
        .expect("the request sent");
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    within("the listen answer", async {
        loop {
            let n = s.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&seen);
            let refused = text.contains("\r\n\r\n")
                && (!text.starts_with("HTTP/1.1 200") || text.contains("\"error\""));
            if text.contains("acknowledged") || refused {
                break;
            }
        }
    })
    .await;
    let text = String::from_utf8_lossy(&seen).into_owned();
    match text.contains("acknowledged") {
        true => Ok(s),
        false => Err(text),
    }
}
