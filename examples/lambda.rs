//! The study server as an AWS Lambda function (`--features lambda`): `add` (progress), the
//! multi-round `prepare_review` (roots, a sampled message and a form, asked through
//! `input_required` and resumed on any instance), a resource and a prompt, plus `digest`, a
//! task tool that on Lambda runs to completion in its call.
//!
//! Outside Lambda (no `AWS_LAMBDA_RUNTIME_API`) it is served as every example is:
//! `cargo run --features lambda --example lambda` (http://127.0.0.1:8000/mcp; `--addr
//! HOST:PORT`, `--stdio`). Locally as a function, behind the Lambda Runtime API emulator of
//! cargo-lambda (`pip install cargo-lambda`), as `.ci/lambda.sh` drives it:
//!
//! ```sh
//! cargo lambda watch --only-lambda-apis -A 127.0.0.1 -P 9000 &
//! cargo build --features lambda --example lambda
//! AWS_LAMBDA_RUNTIME_API=http://127.0.0.1:9000/.rt AWS_LAMBDA_FUNCTION_NAME=_ \
//!   AWS_LAMBDA_FUNCTION_VERSION=1 AWS_LAMBDA_FUNCTION_MEMORY_SIZE=512 \
//!   MCP_STATE_KEY=$(openssl rand -base64 32) target/debug/examples/lambda &
//! curl -s http://127.0.0.1:9000/lambda-url/_/mcp -H 'Content-Type: application/json' \
//!   -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
//!   -H 'Mcp-Method: server/discover' \
//!   -d '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{
//!        "io.modelcontextprotocol/protocolVersion":"2026-07-28",
//!        "io.modelcontextprotocol/clientCapabilities":{}}}}'
//! ```
//!
//! Deployed (`cargo lambda build --release --features lambda --example lambda`, then
//! `deploy/lambda/README.md`): `MCP_STATE_KEY` must be set on the function, or it refuses to
//! start (`prepare_review` asks the client for input, and its retry may reach any instance).
//! `MCP_LAMBDA_STREAMING=1` streams progress as Server-Sent Events, for a Function URL whose
//! invoke mode is `RESPONSE_STREAM`; `MCP_ALLOWED_HOST` names a custom domain in front.

#[path = "study-server/server.rs"]
mod study;

use mcp_runtime::lambda::LambdaOptions;
use mcp_runtime::{HttpOptions, Progress, tool};

/// Summarize a text: its words, lines and characters. Long inputs may take a while.
#[tool(task = "optional")]
async fn digest(text: String, progress: Progress) -> String {
    progress.report(0.0, Some(1.0), Some("counting"));
    let words = text.split_whitespace().count();
    let lines = text.lines().count();
    progress.report(1.0, Some(1.0), Some("done"));
    format!(
        "{words} words, {lines} lines, {} characters",
        text.chars().count()
    )
}

// One invocation at a time per instance: a single-threaded runtime starts sooner.
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), mcp_runtime::Error> {
    let server = study::build(None)?;
    if std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_none() {
        // Not on Lambda: the same server as any example (`--addr`, `--stdio`, `--server-json`).
        return server.run().await;
    }
    let mut http = HttpOptions::default();
    if let Ok(host) = std::env::var("MCP_ALLOWED_HOST") {
        http = http.allow_host(host);
    }
    let streaming = std::env::var("MCP_LAMBDA_STREAMING").is_ok_and(|v| v == "1");
    server
        .run_lambda(LambdaOptions::new(http).response_streaming(streaming))
        .await
}
