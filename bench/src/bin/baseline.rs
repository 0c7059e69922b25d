//! The baseline: raw axum + serde_json answering `tools/call` of `add` with a fixed envelope,
//! no framework. This is the physical limit of the stack the framework is built on. For the
//! many-clients cases it also answers `subscriptions/listen` with an SSE stream of one event that
//! it keeps open, `resources/read` of `big://text` (10 MiB) and `tools/call` of `echo_len`.
//! With `--fanout`, its held streams also carry every change `tools/call` of `touch` announces
//! (a `tokio::sync::broadcast` of the URI, each stream writing its own event): the floor of the
//! fan-out measurement.
//!
//! With `--http1`, each connection is served by hyper's HTTP/1 connection directly, as
//! `Server::run` serves them, instead of `axum::serve` (hyper-util's protocol-detecting
//! connection): the tighter floor of the memory per open stream.
//!
//! With `--io REDIS,UPSTREAM`, it is instead the floor of the latency benchmark
//! (`mcp-bench-latency`): `tools/call` of `lookup`, answered after the same Redis and HTTP round
//! trips the framework's tool makes (the same code, `latency/io.rs`), in either era,
//! with what a 2025-11-25 session needs and no more: `initialize` answered with a new
//! `Mcp-Session-Id` kept in a set, notifications taken (202), `DELETE` forgetting the id, an
//! unknown id 404.
//!
//! Usage: `mcp-bench-baseline --addr HOST:PORT [--fanout] [--http1] [--io REDIS,UPSTREAM]`.

#[path = "latency/io.rs"]
#[allow(dead_code)]
mod io;

use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

use axum::body::Bytes;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

async fn mcp(body: Bytes) -> Response {
    if let Some(out) = mcp_bench::baseline_answer(&body) {
        return ([(header::CONTENT_TYPE, "application/json")], out).into_response();
    }
    match mcp_bench::baseline_other(&body) {
        Some(mcp_bench::BaselineAnswer::Json(out)) => {
            ([(header::CONTENT_TYPE, "application/json")], out).into_response()
        }
        Some(mcp_bench::BaselineAnswer::Touch(out)) => {
            if let Some(changes) = CHANGES.get() {
                let _ = changes.send(Arc::from("config://service"));
            }
            ([(header::CONTENT_TYPE, "application/json")], out).into_response()
        }
        Some(mcp_bench::BaselineAnswer::HeldStream(first, id)) => {
            let body = match CHANGES.get() {
                Some(changes) => axum::body::Body::from_stream(fanned(first, id, changes)),
                None => axum::body::Body::from_stream(Held(Some(first))),
            };
            ([(header::CONTENT_TYPE, "text/event-stream")], body).into_response()
        }
        None => StatusCode::BAD_REQUEST.into_response(),
    }
}

/// With `--fanout`: where `touch` announces a changed URI to every held stream.
static CHANGES: OnceLock<tokio::sync::broadcast::Sender<Arc<str>>> = OnceLock::new();

/// An SSE body of `first`, then one event per announced change, until the client goes away.
fn fanned(
    first: Vec<u8>,
    id: serde_json::Value,
    changes: &tokio::sync::broadcast::Sender<Arc<str>>,
) -> impl futures_core::Stream<Item = Result<Bytes, std::io::Error>> + use<> {
    use tokio::sync::broadcast::error::RecvError;
    let state = (Some(first), changes.subscribe(), id);
    futures_util::stream::unfold(state, |(first, mut rx, id)| async move {
        if let Some(first) = first {
            return Some((Ok(Bytes::from(first)), (None, rx, id)));
        }
        loop {
            match rx.recv().await {
                Ok(uri) => {
                    let event = mcp_bench::baseline_updated_event(&uri, &id);
                    return Some((Ok(Bytes::from(event)), (None, rx, id)));
                }
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return None,
            }
        }
    })
}

/// An SSE body of one event that then stays open until the client goes away.
struct Held(Option<Vec<u8>>);

impl futures_core::Stream for Held {
    type Item = Result<Bytes, std::io::Error>;
    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        match self.0.take() {
            Some(event) => std::task::Poll::Ready(Some(Ok(Bytes::from(event)))),
            // Never woken: the stream is dropped when the connection closes.
            None => std::task::Poll::Pending,
        }
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut addr = String::from("127.0.0.1:8000");
    let mut hyper_only = false;
    let mut io_mode = None;
    let usage = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "usage: mcp-bench-baseline --addr HOST:PORT [--fanout] [--http1] [--io REDIS,UPSTREAM]",
        )
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--addr" => addr = args.next().ok_or_else(usage)?,
            "--fanout" => {
                let _ = CHANGES.set(tokio::sync::broadcast::channel(64).0);
            }
            "--http1" => hyper_only = true,
            "--io" => {
                let value = args.next().ok_or_else(usage)?;
                let (redis, upstream) = value.split_once(',').ok_or_else(usage)?;
                let addr = |a: &str| a.parse().map_err(|_| usage());
                io_mode = Some(io::Backends::new(addr(redis)?, addr(upstream)?));
            }
            _ => return Err(usage()),
        }
    }
    let app = match io_mode {
        Some(backends) => io_router(backends),
        None => axum::Router::new().route("/mcp", axum::routing::post(mcp)),
    };
    let listener = mcp_bench::listen(&addr).await?;
    if hyper_only {
        return serve_http1(listener, app).await;
    }
    axum::serve(listener, app).await
}

/// Serves `app` with hyper's HTTP/1 connection for each accepted socket (no graceful end: the
/// benchmark kills the process).
async fn serve_http1(listener: tokio::net::TcpListener, app: axum::Router) -> std::io::Result<()> {
    loop {
        let (socket, _) = listener.accept().await?;
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(socket);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, service)
                .await;
        });
    }
}

/// `--io`: the latency benchmark's floor (the module's documentation).
fn io_router(backends: io::Backends) -> axum::Router {
    let state = Arc::new(IoState {
        backends,
        sessions: Mutex::new(HashSet::new()),
        next: std::sync::atomic::AtomicU64::new(1),
        salt: std::process::id().into(),
    });
    axum::Router::new()
        .route("/mcp", axum::routing::post(io_post).delete(io_delete))
        .with_state(state)
}

struct IoState {
    backends: io::Backends,
    sessions: Mutex<HashSet<String>>,
    next: std::sync::atomic::AtomicU64,
    salt: u64,
}

impl IoState {
    fn sessions(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the request names no session, or one that is open.
    fn known(&self, headers: &axum::http::HeaderMap) -> bool {
        match headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) {
            Some(sid) => self.sessions().contains(sid),
            None => true,
        }
    }
}

/// A message of either era, as far as the floor reads it.
#[derive(serde::Deserialize)]
struct IoMessage<'a> {
    jsonrpc: &'a str,
    #[serde(borrow, default)]
    id: Option<&'a serde_json::value::RawValue>,
    method: &'a str,
    #[serde(borrow, default)]
    params: Option<IoParams<'a>>,
}

#[derive(serde::Deserialize)]
struct IoParams<'a> {
    #[serde(borrow, default)]
    name: Option<&'a str>,
    #[serde(rename = "protocolVersion", borrow, default)]
    protocol_version: Option<&'a str>,
    #[serde(default)]
    arguments: Option<IoArguments>,
    #[serde(rename = "_meta", default)]
    meta: Option<serde::de::IgnoredAny>,
}

#[derive(serde::Deserialize)]
struct IoArguments {
    key: String,
}

fn io_json(body: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn io_post(
    axum::extract::State(state): axum::extract::State<Arc<IoState>>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Response {
    let Ok(message) = serde_json::from_slice::<IoMessage<'_>>(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    if message.jsonrpc != "2.0" {
        return StatusCode::BAD_REQUEST.into_response();
    }
    if !state.known(&headers) {
        return StatusCode::NOT_FOUND.into_response();
    }
    let Some(id) = message.id.map(|id| id.get().to_owned()) else {
        // A notification.
        return StatusCode::ACCEPTED.into_response();
    };
    let params = message.params;
    match message.method {
        "initialize" => {
            let version = params
                .as_ref()
                .and_then(|p| p.protocol_version)
                .filter(|v| ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"].contains(v))
                .unwrap_or("2025-11-25");
            let n = state
                .next
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let sid = format!("{:016x}{n:016x}", state.salt);
            state.sessions().insert(sid.clone());
            let mut response = io_json(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"{version}","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"baseline","version":"1.0.0"}}}}}}"#
            ));
            if let Ok(value) = axum::http::HeaderValue::from_str(&sid) {
                response.headers_mut().insert("mcp-session-id", value);
            }
            response
        }
        "tools/call" => {
            let Some(IoParams {
                name: Some("lookup"),
                arguments: Some(args),
                meta,
                ..
            }) = params
            else {
                return StatusCode::BAD_REQUEST.into_response();
            };
            let (text, is_error) = match state.backends.lookup(&args.key).await {
                Ok(text) => (text, false),
                Err(why) => (why, true),
            };
            let text = serde_json::to_string(&text).unwrap_or_default();
            // A 2026-07-28 request (its `_meta`) gets the 2026 result's `resultType`.
            let kind = if meta.is_some() {
                r#""resultType":"complete","#
            } else {
                ""
            };
            io_json(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{{kind}"content":[{{"type":"text","text":{text}}}],"isError":{is_error}}}}}"#
            ))
        }
        _ => StatusCode::BAD_REQUEST.into_response(),
    }
}

async fn io_delete(
    axum::extract::State(state): axum::extract::State<Arc<IoState>>,
    headers: axum::http::HeaderMap,
) -> Response {
    let sid = headers.get("mcp-session-id").and_then(|v| v.to_str().ok());
    match sid {
        Some(sid) if state.sessions().remove(sid) => StatusCode::OK.into_response(),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}
