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

use process::{Pinning, have};
use std::path::PathBuf;

mod callgrind;
mod cases;
mod process;
mod report;
mod wrk;

#[derive(Debug, Clone)]
pub(crate) struct Opts {
    pub(crate) rounds: usize,
    pub(crate) secs: f64,
    pub(crate) warmup: f64,
    pub(crate) conns: usize,
    pub(crate) markdown: Option<PathBuf>,
    pub(crate) only: Option<Vec<String>>,
    pub(crate) callgrind: bool,
    pub(crate) calls: usize,
}

pub(crate) fn parse_opts() -> Result<Opts, String> {
    let mut o = Opts {
        rounds: 7,
        secs: 3.0,
        warmup: 1.0,
        conns: 32,
        markdown: None,
        only: None,
        callgrind: false,
        calls: 1000,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--rounds" => o.rounds = val()?.parse().map_err(|_| "bad --rounds")?,
            "--secs" => o.secs = val()?.parse().map_err(|_| "bad --secs")?,
            "--warmup" => o.warmup = val()?.parse().map_err(|_| "bad --warmup")?,
            "--conns" => o.conns = val()?.parse().map_err(|_| "bad --conns")?,
            "--calls" => o.calls = val()?.parse().map_err(|_| "bad --calls")?,
            "--markdown" => o.markdown = Some(val()?.into()),
            "--only" => o.only = Some(val()?.split(',').map(str::to_owned).collect()),
            "--callgrind" => o.callgrind = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(o)
}

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
