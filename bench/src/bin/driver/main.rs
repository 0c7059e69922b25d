//! The benchmark driver: interleaved rounds of every case over loopback HTTP with `wrk`
//! (closed loop, 32 connections), the server and the load generator pinned to different cores,
//! server CPU time per request read from `/proc/PID/stat` over the load window, peak RSS
//! (`VmHWM`), and cold start (spawn to first correct reply, the fastest of three launches).
//! Prints each round's ratios and the medians; `--markdown FILE` also writes the table.
//!
//! With `--callgrind`, it instead counts the server's instructions per request under
//! `valgrind --tool=callgrind` (deterministic on a noisy machine): two runs of each case with a
//! different number of keep-alive requests, the difference divided by the difference in count.
//!
//! Usage: `mcp-bench [--rounds N] [--secs S] [--warmup S] [--conns C] [--markdown FILE]
//! [--only KEY,KEY] [--callgrind [--calls N]]`. Cases (`--only`): baseline, call, sse, mrtr,
//! resource, validate20, list100, list1000, list10000, and, only when named, call-fmt (a
//! `tracing` fmt subscriber), call-layer (one pass-through layer), call-idle-layer (a layer that
//! does not want the call), call-metrics (metrics on, no recorder). `MCP_BENCH_KEEP=DIR` keeps the callgrind output files.

use opts::parse_opts;
use process::{Pinning, have};

mod callgrind;
mod cases;
mod opts;
mod process;
mod report;
mod wrk;

fn main() {
    let opts = match parse_opts() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("mcp-bench: {e}");
            std::process::exit(2);
        }
    };
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let pin = if cores >= 2 && have("taskset") {
        Pinning {
            server: Some("0".into()),
            load: Some("1".into()),
        }
    } else {
        eprintln!("note: fewer than 2 cores or no taskset: server and wrk are not pinned");
        Pinning {
            server: None,
            load: None,
        }
    };
    let result = if opts.callgrind {
        callgrind::callgrind(&opts)
    } else if !have("wrk") {
        Err("wrk is not installed (apt-get install -y wrk; bench/run.sh does it)".into())
    } else {
        report::rounds(&opts, &pin)
    };
    match result {
        Ok(table) => {
            println!("{table}");
            if let Some(path) = &opts.markdown
                && let Err(e) = std::fs::write(path, &table)
            {
                eprintln!("mcp-bench: writing {}: {e}", path.display());
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("mcp-bench: {e}");
            std::process::exit(1);
        }
    }
}
