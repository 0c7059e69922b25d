//! Observability with everything on: a `tracing` span per request (and per handler and MRTR
//! round) exported over OTLP with the request's `traceparent` as parent, the server's metrics
//! exported over OTLP, logs on stderr, and layers around every call: an audit log, a per-caller
//! rate limit, a per-tool timeout and a layer of its own that refuses destructive tools.
//!
//! Run it with an OTLP collector listening on `http://localhost:4318` (see the README's
//! "Observability" section for a one-line Jaeger or OpenTelemetry Collector):
//!
//! ```sh
//! cargo run --example observability --features otel
//! cargo run --example observability --features otel -- --addr 127.0.0.1:9000
//! cargo run --example observability --features otel -- --stdio
//! ```
//!
//! `OTEL_EXPORTER_OTLP_ENDPOINT` points elsewhere; `MCP_LOG` sets what goes to stderr
//! (default `info,mcp_runtime=debug`); `--payloads` also records tool arguments and results on
//! the spans.

use mcp_runtime::layers::{AuditLog, RateLimit, ToolTimeout};
use mcp_runtime::layers::{McpRequest, Next, layer_fn};
use mcp_runtime::protocol::ToolAnnotations;
use mcp_runtime::{
    Ask, Elicitation, FromContext, NoArguments, RequestContext, Rounds, Server, Step, Tool,
};
use serde::Deserialize;
use std::time::Duration;

#[derive(Deserialize, schemars::JsonSchema)]
struct Add {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Report {
    /// How long the report takes to build, in milliseconds.
    millis: u64,
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let mode = mcp_runtime::RunMode::from_args_strict(&["--payloads"])?;
    let _otel = mcp_runtime::otel::init("mcp-observability-example")?;
    let payloads = std::env::args().any(|a| a == "--payloads");

    // A layer of this server's own: destructive tools are refused with a tool error the model
    // can read, before their handler runs.
    let read_only = layer_fn(|request: McpRequest, next: Next| async move {
        let destructive = request
            .tool()
            .and_then(|t| t.annotations.as_ref())
            .and_then(|a| a.destructive_hint)
            .unwrap_or(false);
        if destructive {
            return Ok(request.tool_error("This server is read-only: destructive tools are off."));
        }
        next.run(request).await
    });

    Server::builder()
        .name("observability")
        .version("1.0.0")
        .metrics(true)
        .trace_payloads(payloads)
        .layer(AuditLog::new())
        .layer(RateLimit::per_caller(60, Duration::from_secs(60)))
        .layer(
            ToolTimeout::new()
                .default_limit(Duration::from_secs(10))
                .tool("build_report", Duration::from_secs(2)),
        )
        .layer(read_only)
        .tool(Tool::new("add").description("Add two integers.").handler(
            |args: Add, _cx| async move {
                tracing::info!(a = args.a, b = args.b, "adding");
                args.a + args.b
            },
        ))
        .tool(
            Tool::new("build_report")
                .description("Build a report; over 2 seconds it times out.")
                .handler(|args: Report, _cx| async move {
                    tokio::time::sleep(Duration::from_millis(args.millis)).await;
                    format!("report built in {} ms", args.millis)
                }),
        )
        .tool(
            Tool::new("greet")
                .description("Greet the user by name (asks for it: a multi-round request).")
                .handler(|_: NoArguments, cx: RequestContext| async move {
                    let rounds = Rounds::from_context(&cx)?;
                    match rounds.answer::<Elicitation<String>>("name")? {
                        Some(Elicitation::Accepted(name)) => {
                            Ok(Step::Done(format!("Hello, {name}!")))
                        }
                        Some(_) => Ok(Step::Done("Hello, whoever you are.".to_owned())),
                        None => rounds.ask(Ask::new().elicit::<String>("name", "Your name?"), &()),
                    }
                }),
        )
        .tool(
            Tool::new("drop_everything")
                .description("Delete all data (refused by this server's read-only layer).")
                .annotations(ToolAnnotations {
                    destructive_hint: Some(true),
                    ..Default::default()
                })
                .handler(|_: NoArguments, _cx| async { "dropped" }),
        )
        .build()?
        .run_with(mode, mcp_runtime::HttpOptions::default())
        .await
}
