//! The cost of a proxied call: a backend server with one tool (`add`) and a gateway that mounts
//! it flat over HTTP (`Server::builder().mount("", Client::http(url).connect()?)`), both in one
//! process (this binary started again with `--serve`), and the same `tools/call` sent to each.
//!
//! The backend is the framework's router (`Server::into_router`) served by hyper's HTTP/1
//! connection on two loopback listeners of its own accept loops: one for the load's direct
//! calls, one the gateway's link connects to, which counts the connections it accepts. The
//! gateway is served by `Server::serve_until`. The child answers `count` on its stdin with the
//! link's accepted connections and the requests it served (`tools/call`, other), and exits when its stdin closes, on Ctrl-C, or after
//! `--max-secs`.
//!
//! Wall clock (the default): interleaved rounds (the order rotated each round) of closed-loop
//! keep-alive clients (1 and 16 by default, one current-thread runtime) calling `add` directly
//! and through the gateway; the serving process on core 0 and the load on core 1 when there
//! are two cores and `taskset`. Per case and round: requests/s, p50/p99 latency, the serving
//! process's CPU per call (`/proc/PID/stat`), and the connections the backend accepted from the
//! gateway over the case (warm-up included) per 1,000 proxied calls. Ratios gateway ÷ direct
//! are taken within each round; the medians are reported.
//!
//! `--callgrind [--calls N]`: the serving process under `valgrind --tool=callgrind`, one
//! keep-alive connection, (I(N + N/5 calls) − I(N/5 calls)) ÷ N, for a direct call and for a
//! proxied one. Both servers are in the process counted: a proxied call's figure is the
//! gateway's work, its client link's and the backend's.
//!
//! Usage: `mcp-bench-gateway [--rounds N] [--secs S] [--warmup S] [--clients 1,16]
//! [--markdown FILE]`, or `mcp-bench-gateway --callgrind [--calls N] [--markdown FILE]`.

mod callgrind;
mod child;
mod rounds;
mod serve;
mod wire;

use callgrind::*;
use child::*;
use rounds::*;
use serve::*;
use wire::*;

use mcp_bench::{AddArgs, Request, add_call, client, cpu};
use mcp_runtime::client::Client;
use mcp_runtime::protocol::CacheScope;
use mcp_runtime::{CacheTarget, HttpOptions, Server, Tool};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What every correct answer to `add` 40 + 2 carries.
const ANSWER: &[u8] = br#""text":"42""#;

#[derive(Debug, Clone)]
pub(crate) struct Opts {
    pub(crate) rounds: usize,
    pub(crate) secs: f64,
    pub(crate) warmup: f64,
    pub(crate) clients: Vec<usize>,
    pub(crate) markdown: Option<PathBuf>,
    pub(crate) callgrind: bool,
    pub(crate) calls: usize,
    pub(crate) serve: bool,
    pub(crate) max_secs: u64,
    pub(crate) list_ttl_ms: Option<u64>,
}

fn parse_opts() -> Result<Opts, String> {
    let mut o = Opts {
        rounds: 5,
        secs: 3.0,
        warmup: 1.0,
        clients: vec![1, 16],
        markdown: None,
        callgrind: false,
        calls: 1000,
        serve: false,
        max_secs: 1200,
        list_ttl_ms: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--rounds" => o.rounds = val()?.parse().map_err(|_| "bad --rounds")?,
            "--secs" => o.secs = val()?.parse().map_err(|_| "bad --secs")?,
            "--warmup" => o.warmup = val()?.parse().map_err(|_| "bad --warmup")?,
            "--calls" => o.calls = val()?.parse().map_err(|_| "bad --calls")?,
            "--max-secs" => o.max_secs = val()?.parse().map_err(|_| "bad --max-secs")?,
            "--list-ttl-ms" => {
                o.list_ttl_ms = Some(val()?.parse().map_err(|_| "bad --list-ttl-ms")?)
            }
            "--clients" => {
                o.clients = val()?
                    .split(',')
                    .map(|c| c.parse().map_err(|_| "bad --clients"))
                    .collect::<Result<_, _>>()?
            }
            "--markdown" => o.markdown = Some(val()?.into()),
            "--callgrind" => o.callgrind = true,
            "--serve" => o.serve = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if o.rounds == 0 || o.secs <= 0.0 || o.calls < 5 || o.clients.contains(&0) {
        return Err("--rounds, --secs, --calls (≥ 5) and --clients must be positive".into());
    }
    Ok(o)
}

fn main() {
    let opts = match parse_opts() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("mcp-bench-gateway: {e}");
            std::process::exit(2);
        }
    };
    if opts.serve {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build();
        let result = runtime.map_err(|e| e.to_string()).and_then(|rt| {
            rt.block_on(serve(Duration::from_secs(opts.max_secs), opts.list_ttl_ms))
        });
        if let Err(e) = result {
            eprintln!("mcp-bench-gateway --serve: {e}");
            std::process::exit(1);
        }
        std::process::exit(0);
    }
    let result = if opts.callgrind {
        callgrind(&opts)
    } else {
        rounds(&opts)
    };
    match result {
        Ok(table) => {
            println!("{table}");
            if let Some(path) = &opts.markdown
                && let Err(e) = std::fs::write(path, &table)
            {
                eprintln!("mcp-bench-gateway: writing {}: {e}", path.display());
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("mcp-bench-gateway: {e}");
            std::process::exit(1);
        }
    }
}
