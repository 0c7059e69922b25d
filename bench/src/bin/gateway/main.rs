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
mod opts;
mod rounds;
mod serve;
mod wire;

use callgrind::callgrind;
use opts::parse_opts;
use rounds::rounds;
use serve::serve;
use std::time::Duration;

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
