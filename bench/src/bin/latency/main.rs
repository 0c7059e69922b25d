//! Latency under real clients: k6 virtual users calling an I/O-bound tool (a Redis round trip
//! and an HTTP call to a small service, both on loopback), on the framework and on a raw axum
//! server doing the same I/O, measured in the same run with the rounds interleaved.
//!
//! One binary, three roles:
//! - `mcp-bench-latency run --k6 PATH [--rounds N] [--warmup S] [--secs S] [--vus N]
//!   [--eras LIST] [--before BIN] [--markdown FILE]`: the driver (`bench/latency.sh` runs it).
//!   It starts `redis-server` and the HTTP service, then for each round, each server and each
//!   era, a server pinned to core 0 and k6 pinned to core 1 (with Redis and the service):
//!   `--warmup` seconds of load, then `--secs` measured. Eras: `2026-07-28` (stateless calls),
//!   `2024-11-05` and `2025-11-25` (a session per iteration: `initialize`,
//!   `notifications/initialized`, the call, `DELETE`). `--before BIN`: a third server, this
//!   binary built against another revision of the runtime (`bench/latency.sh --before REV`).
//! - `mcp-bench-latency server --addr A --redis R --upstream U`: the framework's server, one tool
//!   (`lookup`), served by `Server::serve` with the default options.
//! - `mcp-bench-latency upstream --addr A`: the HTTP service the tool calls.
//!
//! The baseline is `mcp-bench-baseline --io REDIS,UPSTREAM`, running the same tool code (`io.rs`).

mod driver;
mod io;

use mcp_runtime::{Error, HttpOptions, Server, Tool};
use std::net::SocketAddr;
use std::sync::Arc;

/// The tool's arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct LookupArgs {
    /// What to look up: 1 to 32 of `[A-Za-z0-9_-]`.
    key: String,
}

fn usage(msg: &str) -> Error {
    Error::Usage(format!(
        "{msg}\nusage: mcp-bench-latency run --k6 PATH [...] | server --addr A --redis R --upstream U | upstream --addr A"
    ))
}

/// `--name VALUE` pairs after the role.
fn flags(args: &[String]) -> Result<Vec<(&str, &str)>, Error> {
    args.chunks(2)
        .map(|pair| match pair {
            [k, v] if k.starts_with("--") => Ok((k.as_str(), v.as_str())),
            _ => Err(usage(&format!("bad arguments {pair:?}"))),
        })
        .collect()
}

fn addr_of(flags: &[(&str, &str)], name: &str) -> Result<SocketAddr, Error> {
    let value = flags
        .iter()
        .find(|(k, _)| *k == name)
        .map(|(_, v)| *v)
        .ok_or_else(|| usage(&format!("{name} is needed")))?;
    value
        .parse()
        .map_err(|e| usage(&format!("{name} {value}: {e}")))
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((role, rest)) = args.split_first() else {
        return Err(usage("no role"));
    };
    match role.as_str() {
        "run" => driver::run(rest).map_err(|e| Error::Usage(format!("mcp-bench-latency: {e}"))),
        "server" => {
            let f = flags(rest)?;
            let (addr, redis, upstream) = (
                addr_of(&f, "--addr")?,
                addr_of(&f, "--redis")?,
                addr_of(&f, "--upstream")?,
            );
            runtime()?.block_on(serve(addr, redis, upstream))
        }
        "upstream" => {
            let addr = addr_of(&flags(rest)?, "--addr")?;
            runtime()?.block_on(upstream(addr)).map_err(Error::from)
        }
        other => Err(usage(&format!("unknown role `{other}`"))),
    }
}

/// The multi-threaded runtime `#[tokio::main]` makes: as many workers as the process may use
/// cores (one, pinned by `taskset`).
fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
}

/// The framework's server: `lookup`, answered after its Redis and HTTP round trips.
async fn serve(addr: SocketAddr, redis: SocketAddr, upstream: SocketAddr) -> Result<(), Error> {
    let backends = Arc::new(io::Backends::new(redis, upstream));
    let lookup = Tool::new("lookup")
        .description("A key's rate from the rates API, and how often it was looked up (Redis).")
        .handler(move |args: LookupArgs, _cx| {
            let backends = backends.clone();
            async move { backends.lookup(&args.key).await }
        });
    let server = Server::builder()
        .name("latency-server")
        .version("1.0.0")
        .tool(lookup)
        .build()?;
    let listener = mcp_bench::listen(&addr.to_string()).await?;
    server.serve(listener, HttpOptions::default()).await
}

/// The HTTP service behind the tool (axum, keep-alive): `GET /rate?key=KEY`.
async fn upstream(addr: SocketAddr) -> std::io::Result<()> {
    use axum::extract::RawQuery;
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse;
    async fn rate(RawQuery(query): RawQuery) -> axum::response::Response {
        match io::upstream_answer(query.as_deref()) {
            Some(body) => ([(header::CONTENT_TYPE, "application/json")], body).into_response(),
            None => StatusCode::BAD_REQUEST.into_response(),
        }
    }
    let app = axum::Router::new().route("/rate", axum::routing::get(rate));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    axum::serve(listener, app).await
}
