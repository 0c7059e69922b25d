//! The *Acme Knowledge* server of seed 002: a small document store searched for real by
//! `search_private_docs` (structured content), `get_document`, two policy resources and the
//! `draft_policy_brief` prompt, each primitive registered explicitly in the seed's order.
//!
//! Run: `cargo run --example acme-knowledge` (HTTP on http://127.0.0.1:8000/mcp), or add
//! `-- --addr 127.0.0.1:9000` or `-- --stdio`.

mod server;

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    server::build()?.run().await
}
