//! The baseline: raw axum + serde_json answering `tools/call` of `add` with a fixed envelope,
//! no framework. This is the physical limit of the stack the framework is built on.
//!
//! Usage: `mcp-bench-baseline --addr HOST:PORT`.

use axum::body::Bytes;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

async fn mcp(body: Bytes) -> Response {
    match mcp_bench::baseline_answer(&body) {
        Some(out) => ([(header::CONTENT_TYPE, "application/json")], out).into_response(),
        None => StatusCode::BAD_REQUEST.into_response(),
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
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    axum::serve(listener, app).await
}
