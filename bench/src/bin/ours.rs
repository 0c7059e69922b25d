//! The framework side of the benchmark: the study server (its `add` tool with a progress
//! reporter, `prepare_review` with MRTR inputs, `config://service`), served over HTTP.
//!
//! Usage: `mcp-bench-ours --addr HOST:PORT [--fill N] [--validate] [--observe WHAT]`. `--fill N`
//! registers filler tools so that `N` tools are registered in all (page size
//! [`mcp_bench::PAGE_SIZE`]); `--validate` adds the 20-field `register` tool; `--observe` turns
//! on a `tracing` `fmt` subscriber at INFO (`fmt`), one pass-through layer (`layer`), a layer
//! that does not want `add` (`idle-layer`), the metrics without a recorder (`metrics`), or
//! OAuth with `add` needing the `calc` scope (`auth`: JWTs of [`mcp_bench::issuer`]), or the
//! many-clients server (`clients`: [`mcp_bench::clients_server`]; built with the `redis`
//! feature and given `MCP_REDIS_URL`, its changes go through Redis to every instance).

#[path = "../../../examples/study-server/server.rs"]
#[allow(dead_code, unreachable_pub)]
mod study;

use mcp_runtime::{Error, HttpOptions};

fn fail(msg: String) -> Error {
    Error::Usage(msg)
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    let mut addr = String::from("127.0.0.1:8000");
    let mut fill = 0;
    let mut validate = false;
    let mut observe = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--addr" => {
                addr = args
                    .next()
                    .ok_or_else(|| fail("--addr needs a value".into()))?
            }
            "--fill" => {
                let n = args.next().and_then(|v| v.parse().ok());
                fill = n.ok_or_else(|| fail("--fill needs a number".into()))?;
            }
            "--validate" => validate = true,
            "--observe" => {
                observe = Some(
                    args.next()
                        .ok_or_else(|| fail("--observe needs a value".into()))?,
                )
            }
            other => return Err(fail(format!("unknown argument `{other}`"))),
        }
    }
    let options = match observe.as_deref() {
        Some("auth") => mcp_bench::auth_options()?,
        Some("introspect") => mcp_bench::introspect_options().await?,
        // The many-clients families open up to 10,000 streams from one address (the
        // `distinct` family, one address each, keeps the default share).
        Some("clients") => HttpOptions::default().max_connections_per_address(1_000_000),
        _ => HttpOptions::default(),
    };
    let server = match observe.as_deref() {
        None => mcp_bench::build_server(study::build, fill, validate)?,
        Some("fmt") => {
            tracing_subscriber::fmt()
                .with_writer(std::io::stderr)
                .init();
            mcp_bench::build_server(study::build, fill, validate)?
        }
        Some("clients") => clients_server().await?,
        Some(what) => mcp_bench::observed_server(what)?,
    };
    let listener = mcp_bench::listen(&addr).await?;
    server.serve(listener, options).await
}

/// The many-clients server, on Redis's change bus when built for it and configured.
async fn clients_server() -> Result<mcp_runtime::Server, Error> {
    #[cfg(feature = "redis")]
    if let Some(redis) = mcp_runtime::redis::Redis::from_env().await? {
        return Ok(mcp_bench::clients_server_with(redis.bus())?);
    }
    Ok(mcp_bench::clients_server()?)
}
