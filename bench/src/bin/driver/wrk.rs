//! One measured round of one case with `wrk`: throughput, latency, CPU per request, RSS, cold start.

use super::cases::{Case, correct, prepare};
use super::opts::Opts;
use super::process::{Pinning, cpu_ticks, start, stop, vm_hwm};
use mcp_bench::Request;
use mcp_bench::client;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// A Lua long string that cannot be closed by JSON text.
pub(crate) fn lua_str(s: &str) -> String {
    format!("[==[{s}]==]")
}

pub(crate) fn wrk_script(reqs: &[Request]) -> String {
    let mut s = String::from("wrk.method = \"POST\"\n");
    let headers = |r: &Request| {
        let mut h = String::from(
            "{[\"Content-Type\"] = \"application/json\", [\"Accept\"] = \"application/json, text/event-stream\"",
        );
        for (k, v) in &r.headers {
            let _ = write!(h, ", [ {} ] = {}", lua_str(k), lua_str(v));
        }
        h.push('}');
        h
    };
    if let [only] = reqs {
        let _ = writeln!(s, "wrk.body = {}", lua_str(&only.body));
        let _ = writeln!(s, "wrk.headers = {}", headers(only));
    } else {
        s.push_str("local specs = {\n");
        for r in reqs {
            let _ = writeln!(
                s,
                "  {{headers = {}, body = {}}},",
                headers(r),
                lua_str(&r.body)
            );
        }
        s.push_str(
            "}\nlocal built = {}\nlocal n = 0\n\
             init = function(args)\n  for i, r in ipairs(specs) do built[i] = wrk.format(\"POST\", nil, r.headers, r.body) end\nend\n\
             request = function()\n  n = n % #built + 1\n  return built[n]\nend\n",
        );
    }
    s.push_str(
        "done = function(summary, latency, requests)\n  local e = summary.errors\n  \
         io.write(string.format(\"MCPBENCH %d %d %d %d %d %d\\n\", summary.requests, summary.duration, \
         latency:percentile(50), latency:percentile(99), e.connect + e.read + e.write + e.timeout, e.status))\nend\n",
    );
    s
}

/// What wrk reports for one window.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WrkOut {
    pub(crate) requests: u64,
    pub(crate) duration_us: u64,
    pub(crate) p50_us: u64,
    pub(crate) p99_us: u64,
    pub(crate) errors: u64,
}

pub(crate) fn run_wrk(
    script: &Path,
    port: u16,
    secs: f64,
    conns: usize,
    pin: &Pinning,
) -> Result<WrkOut, String> {
    let mut argv: Vec<String> = Vec::new();
    if let Some(core) = &pin.load {
        argv.extend(["taskset".into(), "-c".into(), core.clone()]);
    }
    // wrk takes whole seconds.
    let secs = secs.round().max(1.0) as u64;
    argv.extend([
        "wrk".into(),
        "-t1".into(),
        format!("-c{conns}"),
        format!("-d{secs}s"),
        "--timeout".into(),
        "10s".into(),
        "-s".into(),
        script.display().to_string(),
        format!("http://127.0.0.1:{port}/mcp"),
    ]);
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .output()
        .map_err(|e| format!("running wrk: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("MCPBENCH "))
        .ok_or_else(|| format!("wrk printed no summary: {text}"))?;
    let n: Vec<u64> = line
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    if n.len() != 6 {
        return Err(format!("bad wrk summary `{line}`"));
    }
    Ok(WrkOut {
        requests: n[0],
        duration_us: n[1],
        p50_us: n[2],
        p99_us: n[3],
        errors: n[4] + n[5],
    })
}

/// One measured window of one case.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sample {
    pub(crate) rps: f64,
    pub(crate) p50_ms: f64,
    pub(crate) p99_ms: f64,
    pub(crate) cpu_us_per_req: f64,
    pub(crate) cpu_util: f64,
    pub(crate) rss_mib: f64,
    pub(crate) cold_ms: f64,
}

/// Launches per round for cold start (the fastest counts: a launch can only be slowed by noise).
pub(crate) const COLD_LAUNCHES: usize = 3;

pub(crate) fn measure(
    case: &Case,
    opts: &Opts,
    pin: &Pinning,
    tick: f64,
) -> Result<Sample, String> {
    let mut fastest = Duration::MAX;
    for _ in 1..COLD_LAUNCHES {
        let (child, _, cold) = start(case, pin, &[], Duration::from_secs(120))?;
        stop(child);
        fastest = fastest.min(cold);
    }
    let (child, port, cold) = start(case, pin, &[], Duration::from_secs(120))?;
    let cold = fastest.min(cold);
    let result = (|| {
        let reqs = prepare(case, port)?;
        for (i, r) in reqs.iter().enumerate() {
            let resp = client::once(port, r).map_err(|e| e.to_string())?;
            if !correct(case, i, &resp) {
                return Err(format!(
                    "{}: wrong answer to request {i}: {} {}",
                    case.key, resp.status, resp.body
                ));
            }
        }
        let script =
            std::env::temp_dir().join(format!("mcp-bench-{}-{}.lua", case.key, std::process::id()));
        std::fs::write(&script, wrk_script(&reqs)).map_err(|e| e.to_string())?;
        if opts.warmup > 0.0 {
            run_wrk(&script, port, opts.warmup, opts.conns, pin)?;
        }
        let pid = child.id();
        let c0 = cpu_ticks(pid)?;
        let w = run_wrk(&script, port, opts.secs, opts.conns, pin)?;
        let c1 = cpu_ticks(pid)?;
        let rss = vm_hwm(pid)?;
        let _ = std::fs::remove_file(&script);
        if w.errors > 0 {
            return Err(format!("{}: wrk saw {} errors", case.key, w.errors));
        }
        if w.requests == 0 {
            return Err(format!("{}: no request completed", case.key));
        }
        let cpu_s = (c1 - c0) as f64 / tick;
        let wall_s = w.duration_us as f64 / 1e6;
        Ok(Sample {
            rps: w.requests as f64 / wall_s,
            p50_ms: w.p50_us as f64 / 1000.0,
            p99_ms: w.p99_us as f64 / 1000.0,
            cpu_us_per_req: cpu_s * 1e6 / w.requests as f64,
            cpu_util: cpu_s / wall_s,
            rss_mib: rss as f64 / 1024.0,
            cold_ms: cold.as_secs_f64() * 1000.0,
        })
    })();
    stop(child);
    result
}
