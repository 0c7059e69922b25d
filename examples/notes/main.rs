//! A notes server, written the way the guide (`mcp_runtime::guide`) teaches: a `#[handlers]`
//! impl block whose value is the server's shared state (a note store), tools that create,
//! search and delete notes (the delete asks the user to confirm through an elicitation), an
//! async tool that reports progress and stops when cancelled, a typed `notes://{id}` template, a
//! tags resource that is never served stale, a prompt, and a skill that tells agents how to use
//! the tools (the skills extension, read from the folder `examples/notes/skills` at startup and
//! watched for changes). Its tests (`tests/suite/notes.rs`) drive it through the in-process
//! `TestClient`.
//!
//! Run: `cargo run --example notes` (HTTP on http://127.0.0.1:8000/mcp), or add
//! `-- --addr 127.0.0.1:9000` or `-- --stdio`.

mod server;

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    server::build()?.run().await
}
