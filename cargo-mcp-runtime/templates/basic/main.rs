//! Serves {{name}}: `cargo run` (Streamable HTTP on http://127.0.0.1:8000/mcp; `-- --addr
//! HOST:PORT` to move it) or `cargo run -- --stdio`.

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    {{module}}::build()?.run().await
}
