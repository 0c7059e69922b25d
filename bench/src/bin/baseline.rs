//! The baseline: raw axum + serde_json answering `tools/call` of `add` with a fixed envelope,
//! no framework. This is the physical limit of the stack the framework is built on. For the
//! many-clients cases it also answers `subscriptions/listen` with an SSE stream of one event that
//! it keeps open, `resources/read` of `big://text` (10 MiB) and `tools/call` of `echo_len`.
//!
//! Usage: `mcp-bench-baseline --addr HOST:PORT`.

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
        Some(mcp_bench::BaselineAnswer::HeldStream(first)) => (
            [(header::CONTENT_TYPE, "text/event-stream")],
            axum::body::Body::from_stream(Held(Some(first))),
        )
            .into_response(),
        None => StatusCode::BAD_REQUEST.into_response(),
    }
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
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--addr", Some(v)) => addr = v,
            _ => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "usage: mcp-bench-baseline --addr HOST:PORT",
                ));
            }
        }
    }
    let app = axum::Router::new().route("/mcp", axum::routing::post(mcp));
    let listener = mcp_bench::listen(&addr).await?;
    axum::serve(listener, app).await
}
