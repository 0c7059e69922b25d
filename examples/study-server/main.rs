//! The *study server* of seed 000: `add` with progress notifications, `prepare_review` asking the
//! client for roots, a sampled message and an elicited form through MRTR, the `config://service`
//! resource and the `review` prompt, all written as plain annotated functions.
//!
//! Run: `cargo run --example study-server` (HTTP on http://127.0.0.1:8000/mcp), or add
//! `-- --addr 127.0.0.1:9000` or `-- --stdio`. Open http://127.0.0.1:8000/lab to call
//! `prepare_review` from a browser, answering its roots, sampling and elicitation questions in
//! forms (tick the three client capabilities first). Set `MCP_STATE_KEY` (32 bytes, base64) to let
//! several instances resume each other's multi-round requests.

mod server;

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    server::build(None)?.run().await
}
