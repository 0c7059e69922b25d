//! The smallest server: one tool registered with the builder API (no macros).
//!
//! Run it with `cargo run --example minimal` (HTTP on http://127.0.0.1:8000/mcp) or
//! `cargo run --example minimal -- --stdio`.

use mcp_runtime::{Server, Tool};
use serde::Deserialize;

#[derive(Deserialize, schemars::JsonSchema)]
struct Echo {
    /// The text to send back.
    text: String,
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    Server::builder()
        .name("minimal")
        .version("1.0.0")
        .tool(
            Tool::new("echo")
                .description("Send the text back unchanged.")
                .handler(|args: Echo, _cx| async move { args.text }),
        )
        .build()?
        .run()
        .await
}
