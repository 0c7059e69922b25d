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
//! Usage: `mcp-bench-baseline --addr HOST:PORT [--fanout] [--http1]`.

use std::sync::{Arc, OnceLock};

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
    let usage = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "usage: mcp-bench-baseline --addr HOST:PORT [--fanout] [--http1]",
        )
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--addr" => addr = args.next().ok_or_else(usage)?,
            "--fanout" => {
                let _ = CHANGES.set(tokio::sync::broadcast::channel(64).0);
            }
            "--http1" => hyper_only = true,
            _ => return Err(usage()),
        }
    }
    let app = axum::Router::new().route("/mcp", axum::routing::post(mcp));
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
