//! Shared support of the integration tests: locating the spec fixtures, validating every message
//! the server emits against the 2026-07-28 JSON Schema, a tiny HTTP client, an SSE parser, a
//! loopback HTTP server and builders of standard requests.
//!
//! Each test binary includes this module with `mod common;` and uses a subset of it.
#![allow(dead_code)]

pub mod engines;
pub mod recorded;

use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use mcp_runtime::{HttpOptions, Server};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
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
// (b) Schema validation
// ---------------------------------------------------------------------------------------------

const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

fn schema_defs() -> Option<&'static Map<String, Value>> {
    static DEFS: OnceLock<Option<Map<String, Value>>> = OnceLock::new();
    DEFS.get_or_init(|| {
        let path = shared_path("spec/schema-2026-07-28.json")?;
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let schema: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
        match schema.get("$defs") {
            Some(Value::Object(defs)) => Some(defs.clone()),
            _ => panic!("{} has no top-level $defs", path.display()),
        }
    })
    .as_ref()
}

/// Whether schema validation is active (the schema file was found).
pub fn schema_available() -> bool {
    schema_defs().is_some()
}

/// The names of every `$defs` entry (empty when the schema is absent).
pub fn def_names() -> Vec<String> {
    schema_defs()
        .map(|d| d.keys().cloned().collect())
        .unwrap_or_default()
}

fn validator(def: &str) -> Option<Arc<jsonschema::Validator>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<jsonschema::Validator>>>> = OnceLock::new();
    let defs = schema_defs()?;
    assert!(defs.contains_key(def), "the schema has no $defs/{def}");
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(v) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(def) {
        return Some(v.clone());
    }
    let wrapper = json!({
        "$schema": DIALECT,
        "$defs": defs,
        "$ref": format!("#/$defs/{def}"),
    });
    let compiled = Arc::new(
        jsonschema::draft202012::new(&wrapper)
            .unwrap_or_else(|e| panic!("$defs/{def} does not compile: {e}")),
    );
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(def.to_owned(), compiled.clone());
    Some(compiled)
}

/// The schema violations of `value` against `$defs/<def>` (empty when valid or when the schema
/// is absent).
pub fn violations(def: &str, value: &Value) -> Vec<String> {
    let Some(v) = validator(def) else {
        return Vec::new();
    };
    v.iter_errors(value)
        .map(|e| format!("{e} (at `{}`)", e.instance_path()))
        .collect()
}

/// Panics unless `value` is valid against `$defs/<def>`.
pub fn assert_valid(def: &str, value: &Value) {
    let errors = violations(def, value);
    assert!(
        errors.is_empty(),
        "not a valid {def}:\n  {}\nmessage: {value}",
        errors.join("\n  ")
    );
}

/// The 2025-11-25 schema's `$defs` (`tests/fixtures/schema-2025-11-25.json`, copied from
/// modelcontextprotocol/modelcontextprotocol at c4c367f, `schema/2025-11-25/schema.json`).
fn schema_defs_2025() -> &'static Map<String, Value> {
    static DEFS: OnceLock<Map<String, Value>> = OnceLock::new();
    DEFS.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/schema-2025-11-25.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let schema: Value = serde_json::from_str(&text).expect("the 2025-11-25 schema is JSON");
        match schema.get("$defs") {
            Some(Value::Object(defs)) => defs.clone(),
            _ => panic!("{} has no top-level $defs", path.display()),
        }
    })
}

/// Panics unless `value` is valid against `$defs/<def>` of the 2025-11-25 schema.
pub fn assert_valid_2025(def: &str, value: &Value) {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<jsonschema::Validator>>>> = OnceLock::new();
    let defs = schema_defs_2025();
    assert!(
        defs.contains_key(def),
        "the 2025-11-25 schema has no $defs/{def}"
    );
    let cache = CACHE.get_or_init(Mutex::default);
    let cached = cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(def)
        .cloned();
    let validator = cached.unwrap_or_else(|| {
        let wrapper = json!({"$schema": DIALECT, "$defs": defs, "$ref": format!("#/$defs/{def}")});
        let compiled = Arc::new(
            jsonschema::draft202012::new(&wrapper)
                .unwrap_or_else(|e| panic!("2025-11-25 $defs/{def} does not compile: {e}")),
        );
        cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(def.to_owned(), compiled.clone());
        compiled
    });
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{e} (at `{}`)", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not a valid 2025-11-25 {def}:\n  {}\nmessage: {value}",
        errors.join("\n  ")
    );
}

/// The `<X>ResultResponse` and `<X>Result` definitions of a request method.
fn result_defs(method: &str) -> Option<(&'static str, &'static str)> {
    Some(match method {
        "server/discover" => ("DiscoverResultResponse", "DiscoverResult"),
        "tools/list" => ("ListToolsResultResponse", "ListToolsResult"),
        "tools/call" => ("CallToolResultResponse", "CallToolResult"),
        "resources/list" => ("ListResourcesResultResponse", "ListResourcesResult"),
        "resources/templates/list" => (
            "ListResourceTemplatesResultResponse",
            "ListResourceTemplatesResult",
        ),
        "resources/read" => ("ReadResourceResultResponse", "ReadResourceResult"),
        "prompts/list" => ("ListPromptsResultResponse", "ListPromptsResult"),
        "prompts/get" => ("GetPromptResultResponse", "GetPromptResult"),
        "completion/complete" => ("CompleteResultResponse", "CompleteResult"),
        "subscriptions/listen" => (
            "SubscriptionsListenResultResponse",
            "SubscriptionsListenResult",
        ),
        _ => return None,
    })
}

/// Validates the server's answer to a request of `method`: a result against
/// `<X>ResultResponse` and (the schema's response unions being loose) its `result` against
/// `<X>Result` or `InputRequiredResult`; an error against `JSONRPCErrorResponse` plus the
/// specific definition of `-32020`/`-32021`/`-32022`.
pub fn assert_response_valid(method: &str, response: &Value) {
    assert!(
        response.get("method").is_none(),
        "a response must not carry `method` (servers never send requests): {response}"
    );
    if let Some(error) = response.get("error") {
        assert!(
            response.get("result").is_none(),
            "both result and error: {response}"
        );
        assert_valid("JSONRPCErrorResponse", response);
        let specific = match error.get("code").and_then(Value::as_i64) {
            Some(-32020) => Some("HeaderMismatchError"),
            Some(-32021) => Some("MissingRequiredClientCapabilityError"),
            Some(-32022) => Some("UnsupportedProtocolVersionError"),
            Some(code) => {
                assert!(
                    !(-32099..=-32023).contains(&code) && code != -32002 && code != -32042,
                    "error code {code} is reserved or retired: {response}"
                );
                None
            }
            None => None,
        };
        if let Some(def) = specific {
            assert_valid(def, response);
        }
        return;
    }
    let result = response
        .get("result")
        .unwrap_or_else(|| panic!("neither result nor error: {response}"));
    match result_defs(method) {
        None => assert_valid("JSONRPCResultResponse", response),
        Some(_) if result.get("resultType") == Some(&json!("task")) => {
            assert_eq!(
                method, "tools/call",
                "only tools/call may answer a task: {response}"
            );
            assert_valid("JSONRPCResultResponse", response);
            assert_create_task(result);
        }
        Some((response_def, result_def)) => {
            assert_valid(response_def, response);
            if result.get("resultType") == Some(&json!("input_required")) {
                assert!(
                    matches!(method, "tools/call" | "prompts/get" | "resources/read"),
                    "only tools/call, prompts/get and resources/read may answer input_required: {response}"
                );
                assert_input_required(result);
            } else {
                assert_eq!(
                    result.get("resultType"),
                    Some(&json!("complete")),
                    "unexpected resultType: {response}"
                );
                assert_valid(result_def, result);
            }
        }
    }
}

/// A `CreateTaskResult` of the tasks extension (whose schema is not part of the 2026-07-28
/// one): a flat task with ISO 8601 times, `ttlMs` null or positive, `pollIntervalMs` positive,
/// and nothing of a result.
pub fn assert_create_task(result: &Value) {
    assert!(
        result["taskId"].as_str().is_some_and(|id| !id.is_empty()),
        "{result}"
    );
    let status = result["status"].as_str().unwrap_or_default();
    assert!(
        [
            "working",
            "input_required",
            "completed",
            "failed",
            "cancelled"
        ]
        .contains(&status),
        "{result}"
    );
    for time in ["createdAt", "lastUpdatedAt"] {
        let t = result[time].as_str().unwrap_or_default();
        assert!(
            t.len() >= 20 && t.ends_with('Z') && t.as_bytes()[10] == b'T',
            "{time}: {result}"
        );
    }
    let ttl = &result["ttlMs"];
    assert!(
        ttl.is_null() || ttl.as_u64().is_some_and(|n| n > 0),
        "ttlMs: {result}"
    );
    if let Some(poll) = result.get("pollIntervalMs") {
        assert!(
            poll.as_u64().is_some_and(|n| n > 0),
            "pollIntervalMs: {result}"
        );
    }
    for absent in [
        "result",
        "error",
        "inputRequests",
        "requestState",
        "ttl",
        "pollInterval",
    ] {
        assert!(result.get(absent).is_none(), "{absent} in {result}");
    }
}

/// The custom rule the schema does not encode: an `input_required` result carries
/// `inputRequests` or `requestState` (or both).
pub fn assert_input_required(result: &Value) {
    assert_valid("InputRequiredResult", result);
    assert!(
        result.get("inputRequests").is_some() || result.get("requestState").is_some(),
        "an input_required result needs inputRequests or requestState: {result}"
    );
    if let Some(requests) = result.get("inputRequests") {
        assert_valid("InputRequests", requests);
    }
}

/// Validates a notification the server sent against the definition of its method.
pub fn assert_notification_valid(message: &Value) {
    assert!(
        message.get("id").is_none(),
        "a notification must not carry an id (servers never send requests): {message}"
    );
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("not a notification: {message}"));
    let def = match method {
        "notifications/progress" => "ProgressNotification",
        "notifications/message" => "LoggingMessageNotification",
        "notifications/cancelled" => "CancelledNotification",
        "notifications/subscriptions/acknowledged" => "SubscriptionsAcknowledgedNotification",
        "notifications/tools/list_changed" => "ToolListChangedNotification",
        "notifications/prompts/list_changed" => "PromptListChangedNotification",
        "notifications/resources/list_changed" => "ResourceListChangedNotification",
        "notifications/resources/updated" => "ResourceUpdatedNotification",
        other => panic!("the server sent an unknown notification `{other}`: {message}"),
    };
    assert_valid(def, message);
}

/// Validates any message the server sent in answer to a request of `method`.
pub fn assert_message_valid(method: &str, message: &Value) {
    if message.get("method").is_some() {
        assert_notification_valid(message);
    } else {
        assert_response_valid(method, message);
    }
}

// ---------------------------------------------------------------------------------------------
// (c) HTTP client and SSE
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

/// Parses a `text/event-stream` body into the JSON values of its `data:` events (multi-line
/// data joined with `\n`; comments, other fields and events with empty data, such as a
/// 2025-11-25 stream's priming event, ignored).
pub fn sse_messages(body: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(body).expect("the SSE stream is UTF-8");
    let mut out = Vec::new();
    let mut data: Vec<&str> = Vec::new();
    let mut flush = |data: &mut Vec<&str>| {
        if data.iter().all(|d| d.is_empty()) {
            data.clear();
        }
        if !data.is_empty() {
            let joined = data.join("\n");
            out.push(
                serde_json::from_str(&joined)
                    .unwrap_or_else(|e| panic!("an SSE data field is not JSON ({e}): {joined}")),
            );
            data.clear();
        }
    };
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            flush(&mut data);
        } else if let Some(rest) = line.strip_prefix("data:") {
            data.push(rest.strip_prefix(' ').unwrap_or(rest));
        }
        // `event:`, `id:`, `retry:` and `:` comments carry no message.
    }
    flush(&mut data);
    out
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
// (d) A server on 127.0.0.1
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
// (e) Standard requests
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
