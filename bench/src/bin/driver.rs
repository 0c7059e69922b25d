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
//! resource, validate20, list100, list1000, list10000. `MCP_BENCH_KEEP=DIR` keeps the callgrind
//! output files.

use mcp_bench::client::{self, Response};
use mcp_bench::{Request, add_call, mrtr_first, mrtr_retry, resource_read, tools_list};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Which server a case runs against.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Baseline,
    Ours { fill: usize, validate: bool },
}

/// One benchmark case.
#[derive(Clone, Copy, Debug)]
struct Case {
    key: &'static str,
    what: &'static str,
    kind: Kind,
}

const CASES: [Case; 9] = [
    Case {
        key: "baseline",
        what: "raw axum + serde_json, tools/call add",
        kind: Kind::Baseline,
    },
    Case {
        key: "call",
        what: "ours, tools/call add (JSON)",
        kind: Kind::Ours {
            fill: 0,
            validate: false,
        },
    },
    Case {
        key: "sse",
        what: "ours, tools/call add over SSE, 2 progress notifications",
        kind: Kind::Ours {
            fill: 0,
            validate: false,
        },
    },
    Case {
        key: "mrtr",
        what: "ours, MRTR round: input_required, then retry (per request)",
        kind: Kind::Ours {
            fill: 0,
            validate: false,
        },
    },
    Case {
        key: "resource",
        what: "ours, resources/read config://service",
        kind: Kind::Ours {
            fill: 0,
            validate: false,
        },
    },
    Case {
        key: "validate20",
        what: "ours, tools/call with a 20-field argument object",
        kind: Kind::Ours {
            fill: 0,
            validate: true,
        },
    },
    Case {
        key: "list100",
        what: "ours, tools/list page 2 (50 per page), 100 tools",
        kind: Kind::Ours {
            fill: 100,
            validate: false,
        },
    },
    Case {
        key: "list1000",
        what: "ours, tools/list page 2 (50 per page), 1,000 tools",
        kind: Kind::Ours {
            fill: 1000,
            validate: false,
        },
    },
    Case {
        key: "list10000",
        what: "ours, tools/list page 2 (50 per page), 10,000 tools",
        kind: Kind::Ours {
            fill: 10000,
            validate: false,
        },
    },
];

#[derive(Debug, Clone)]
struct Opts {
    rounds: usize,
    secs: f64,
    warmup: f64,
    conns: usize,
    markdown: Option<PathBuf>,
    only: Option<Vec<String>>,
    callgrind: bool,
    calls: usize,
}

fn parse_opts() -> Result<Opts, String> {
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

/// The requests a case sends under load, prepared from a running server.
fn prepare(case: &Case, port: u16) -> Result<Vec<Request>, String> {
    let ask = |req: &Request| client::once(port, req).map_err(|e| e.to_string());
    Ok(match case.key {
        "baseline" | "call" => vec![add_call(false)],
        "sse" => vec![add_call(true)],
        "mrtr" => {
            let first = mrtr_first();
            let r = ask(&first)?;
            let v: serde_json::Value = serde_json::from_str(&r.body).map_err(|e| e.to_string())?;
            let state = v["result"]["requestState"]
                .as_str()
                .ok_or("no requestState in the first round")?;
            vec![first, mrtr_retry(state)]
        }
        "resource" => vec![resource_read()],
        "validate20" => vec![mcp_bench::validate_call()],
        _ => {
            let r = ask(&tools_list(None))?;
            let v: serde_json::Value = serde_json::from_str(&r.body).map_err(|e| e.to_string())?;
            let cursor = v["result"]["nextCursor"]
                .as_str()
                .ok_or("no nextCursor on the first page")?;
            vec![tools_list(Some(cursor))]
        }
    })
}

/// The request that proves the server is up and answering correctly.
fn probe(case: &Case) -> Request {
    match case.key {
        "mrtr" => mrtr_first(),
        "sse" => add_call(true),
        "resource" => resource_read(),
        "validate20" => mcp_bench::validate_call(),
        k if k.starts_with("list") => tools_list(None),
        _ => add_call(false),
    }
}

/// Whether `resp` is a correct answer to the `i`-th request of `case`.
fn correct(case: &Case, i: usize, resp: &Response) -> bool {
    let b = &resp.body;
    resp.status == 200
        && match case.key {
            "baseline" | "call" => {
                b.contains(r#""text":"42""#) && resp.content_type == "application/json"
            }
            "sse" => {
                resp.content_type == "text/event-stream"
                    && b.matches("notifications/progress").count() == 2
                    && b.contains(r#""text":"42""#)
            }
            "mrtr" if i == 0 => b.contains(r#""resultType":"input_required""#),
            "mrtr" => b.contains(r#""resultType":"complete""#) && b.contains(r#""isError":false"#),
            "resource" => {
                b.contains(r#""contents":[{"uri":"config://service""#) && b.contains("region")
            }
            "validate20" => b.contains(r#""text":"3""#) && b.contains(r#""isError":false"#),
            _ => b.contains(r#""tools":["#) && b.matches(r#""inputSchema""#).count() >= 48,
        }
}

fn exe_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."))
}

fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

fn have(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// How to launch: `taskset -c CORE` when there are two cores and taskset exists.
#[derive(Debug, Clone)]
struct Pinning {
    server: Option<String>,
    load: Option<String>,
}

fn server_command(case: &Case, port: u16, pin: &Pinning, prefix: &[String]) -> Command {
    let dir = exe_dir();
    let (bin, mut args) = match case.kind {
        Kind::Baseline => (dir.join("mcp-bench-baseline"), Vec::new()),
        Kind::Ours { fill, validate } => {
            let mut a = Vec::new();
            if fill > 0 {
                a.extend(["--fill".to_owned(), fill.to_string()]);
            }
            if validate {
                a.push("--validate".to_owned());
            }
            (dir.join("mcp-bench-ours"), a)
        }
    };
    args.extend(["--addr".to_owned(), format!("127.0.0.1:{port}")]);
    let mut argv: Vec<String> = Vec::new();
    if let Some(core) = &pin.server {
        argv.extend(["taskset".to_owned(), "-c".to_owned(), core.clone()]);
    }
    argv.extend(prefix.iter().cloned());
    argv.push(bin.display().to_string());
    argv.extend(args);
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// Spawns the server and waits for its first correct reply to the case's probe.
fn start(
    case: &Case,
    pin: &Pinning,
    prefix: &[String],
    limit: Duration,
) -> Result<(Child, u16, Duration), String> {
    let port = free_port().map_err(|e| e.to_string())?;
    let mut cmd = server_command(case, port, pin, prefix);
    let req = probe(case);
    let t0 = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("spawning {case:?}: {e}"))?;
    loop {
        if let Ok(resp) = client::once(port, &req) {
            if correct(case, 0, &resp) {
                return Ok((child, port, t0.elapsed()));
            }
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "{}: wrong answer {} {}",
                case.key, resp.status, resp.body
            ));
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{}: no answer within {limit:?}", case.key));
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("{}: the server exited with {status}", case.key));
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

/// utime + stime of a process (all its threads, live and exited), in clock ticks.
fn cpu_ticks(pid: u32) -> Result<u64, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| e.to_string())?;
    let rest = stat.rsplit_once(')').map(|(_, r)| r).ok_or("bad stat")?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After the command name: state is field 3, utime 14 and stime 15 (1-based overall).
    let utime: u64 = f.get(11).and_then(|v| v.parse().ok()).ok_or("bad utime")?;
    let stime: u64 = f.get(12).and_then(|v| v.parse().ok()).ok_or("bad stime")?;
    Ok(utime + stime)
}

/// Peak resident set size in KiB.
fn vm_hwm(pid: u32) -> Result<u64, String> {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| e.to_string())?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| "no VmHWM".to_owned())
}

/// A Lua long string that cannot be closed by JSON text.
fn lua_str(s: &str) -> String {
    format!("[==[{s}]==]")
}

fn wrk_script(reqs: &[Request]) -> String {
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
struct WrkOut {
    requests: u64,
    duration_us: u64,
    p50_us: u64,
    p99_us: u64,
    errors: u64,
}

fn run_wrk(
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
struct Sample {
    rps: f64,
    p50_ms: f64,
    p99_ms: f64,
    cpu_us_per_req: f64,
    cpu_util: f64,
    rss_mib: f64,
    cold_ms: f64,
}

/// Launches per round for cold start (the fastest counts: a launch can only be slowed by noise).
const COLD_LAUNCHES: usize = 3;

fn measure(case: &Case, opts: &Opts, pin: &Pinning, tick: f64) -> Result<Sample, String> {
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

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// A target: its text and its test.
type Target = Option<(&'static str, fn(f64) -> bool)>;

/// A ratio reported per round: `num` over `den` of one metric.
struct RatioDef {
    label: &'static str,
    num: &'static str,
    den: &'static str,
    metric: fn(&Sample) -> f64,
    target: Target,
}

fn ratio_defs() -> Vec<RatioDef> {
    vec![
        RatioDef {
            label: "tools/call CPU/request, ours ÷ baseline",
            num: "call",
            den: "baseline",
            metric: |s| s.cpu_us_per_req,
            target: Some(("≤ 1.2", |r| r <= 1.2)),
        },
        RatioDef {
            label: "tools/call throughput, ours ÷ baseline",
            num: "call",
            den: "baseline",
            metric: |s| s.rps,
            target: Some(("≥ 0.85", |r| r >= 0.85)),
        },
        RatioDef {
            label: "tools/call p50 latency, ours ÷ baseline",
            num: "call",
            den: "baseline",
            metric: |s| s.p50_ms,
            target: None,
        },
        RatioDef {
            label: "tools/call p99 latency, ours ÷ baseline",
            num: "call",
            den: "baseline",
            metric: |s| s.p99_ms,
            target: None,
        },
        RatioDef {
            label: "cold start, ours ÷ baseline",
            num: "call",
            den: "baseline",
            metric: |s| s.cold_ms,
            target: Some(("≤ 1.5", |r| r <= 1.5)),
        },
        RatioDef {
            label: "peak RSS under load, ours ÷ baseline",
            num: "call",
            den: "baseline",
            metric: |s| s.rss_mib,
            target: Some(("≤ 2", |r| r <= 2.0)),
        },
        RatioDef {
            label: "SSE + 2 progress CPU/request ÷ plain tools/call",
            num: "sse",
            den: "call",
            metric: |s| s.cpu_us_per_req,
            target: Some(("≤ 2", |r| r <= 2.0)),
        },
        RatioDef {
            label: "MRTR round CPU/request ÷ plain tools/call",
            num: "mrtr",
            den: "call",
            metric: |s| s.cpu_us_per_req,
            target: Some(("≤ 2", |r| r <= 2.0)),
        },
        RatioDef {
            label: "resources/read CPU/request ÷ plain tools/call",
            num: "resource",
            den: "call",
            metric: |s| s.cpu_us_per_req,
            target: None,
        },
        RatioDef {
            label: "20-field validated call CPU/request ÷ plain tools/call",
            num: "validate20",
            den: "call",
            metric: |s| s.cpu_us_per_req,
            target: None,
        },
        RatioDef {
            label: "tools/list page CPU/request, 1,000 ÷ 100 tools",
            num: "list1000",
            den: "list100",
            metric: |s| s.cpu_us_per_req,
            target: Some(("≈ 1 (≤ 1.1)", |r| r <= 1.1)),
        },
        RatioDef {
            label: "tools/list page CPU/request, 10,000 ÷ 100 tools",
            num: "list10000",
            den: "list100",
            metric: |s| s.cpu_us_per_req,
            target: Some(("≈ 1 (≤ 1.1)", |r| r <= 1.1)),
        },
    ]
}

fn selected(opts: &Opts) -> Vec<Case> {
    CASES
        .iter()
        .filter(|c| {
            opts.only
                .as_ref()
                .is_none_or(|o| o.iter().any(|k| k == c.key))
        })
        .copied()
        .collect()
}

fn rounds(opts: &Opts, pin: &Pinning) -> Result<String, String> {
    let tick = clock_ticks();
    let cases = selected(opts);
    let mut all: Vec<BTreeMap<&'static str, Sample>> = Vec::new();
    let defs = ratio_defs();
    for round in 0..opts.rounds {
        let mut got = BTreeMap::new();
        // Interleave: each round starts one case later, so no case always runs first or last.
        let n = cases.len();
        for k in 0..n {
            let case = &cases[(k + round) % n];
            let s = measure(case, opts, pin, tick)?;
            eprintln!(
                "round {} {:<10} {:>9.0} req/s  p50 {:>6.2} ms  p99 {:>6.2} ms  cpu {:>6.1} µs/req ({:.2} cores)  rss {:>6.1} MiB  cold {:>7.2} ms",
                round + 1,
                case.key,
                s.rps,
                s.p50_ms,
                s.p99_ms,
                s.cpu_us_per_req,
                s.cpu_util,
                s.rss_mib,
                s.cold_ms
            );
            got.insert(case.key, s);
        }
        let mut line = format!("round {} ratios:", round + 1);
        for d in &defs {
            if let (Some(a), Some(b)) = (got.get(d.num), got.get(d.den)) {
                let _ = write!(line, " {}={:.3}", short(d), (d.metric)(a) / (d.metric)(b));
            }
        }
        eprintln!("{line}");
        all.push(got);
    }
    Ok(report(opts, &cases, &all, &defs))
}

fn short(d: &RatioDef) -> String {
    let metric = if d.label.contains("throughput") {
        "rps"
    } else if d.label.contains("p50") {
        "p50"
    } else if d.label.contains("p99") {
        "p99"
    } else if d.label.contains("cold") {
        "cold"
    } else if d.label.contains("RSS") {
        "rss"
    } else {
        "cpu"
    };
    format!("{}/{}:{metric}", d.num, d.den)
}

fn report(
    opts: &Opts,
    cases: &[Case],
    all: &[BTreeMap<&'static str, Sample>],
    defs: &[RatioDef],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Medians of {} interleaved rounds, {} s of load per case and round after {} s of warm-up, \
         wrk closed loop with {} connections. Cold start: the fastest of {COLD_LAUNCHES} launches \
         per round.\n",
        all.len(),
        opts.secs,
        opts.warmup,
        opts.conns
    );
    let _ = writeln!(
        out,
        "| case | req/s | p50 ms | p99 ms | server CPU µs/req | server cores busy | peak RSS MiB | cold start ms |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|");
    for c in cases {
        let col = |f: fn(&Sample) -> f64| {
            median(
                all.iter()
                    .filter_map(|r| r.get(c.key))
                    .map(f)
                    .collect::<Vec<_>>(),
            )
        };
        let _ = writeln!(
            out,
            "| `{}`: {} | {:.0} | {:.2} | {:.2} | {:.1} | {:.2} | {:.1} | {:.2} |",
            c.key,
            c.what,
            col(|s| s.rps),
            col(|s| s.p50_ms),
            col(|s| s.p99_ms),
            col(|s| s.cpu_us_per_req),
            col(|s| s.cpu_util),
            col(|s| s.rss_mib),
            col(|s| s.cold_ms)
        );
    }
    let _ = writeln!(
        out,
        "\n| ratio (median of per-round ratios) | per round | median | target | met |"
    );
    let _ = writeln!(out, "|---|---|---:|---|---|");
    for d in defs {
        let per: Vec<f64> = all
            .iter()
            .filter_map(|r| Some((d.metric)(r.get(d.num)?) / (d.metric)(r.get(d.den)?)))
            .collect();
        if per.is_empty() {
            continue;
        }
        let rounds = per
            .iter()
            .map(|v| format!("{v:.2}"))
            .collect::<Vec<_>>()
            .join(" ");
        let m = median(per);
        let (target, met) = match d.target {
            Some((t, ok)) => (t, if ok(m) { "yes" } else { "**no**" }),
            None => ("–", "–"),
        };
        let _ = writeln!(
            out,
            "| {} | {rounds} | **{m:.2}** | {target} | {met} |",
            d.label
        );
    }
    out
}

/// Instructions of one callgrind run of the case's server answering `calls` requests.
fn callgrind_run(case: &Case, calls: usize, dir: &Path) -> Result<u64, String> {
    let file = dir.join(format!("callgrind.{}.{calls}.out", case.key));
    let prefix = vec![
        "valgrind".to_owned(),
        "--tool=callgrind".to_owned(),
        format!("--callgrind-out-file={}", file.display()),
    ];
    let none = Pinning {
        server: None,
        load: None,
    };
    let (child, port, _) = start(case, &none, &prefix, Duration::from_secs(600))?;
    let result = (|| {
        let reqs = prepare(case, port)?;
        let mut conn = client::Conn::connect(port).map_err(|e| e.to_string())?;
        for i in 0..calls {
            let k = i % reqs.len();
            let resp = conn.send(&reqs[k]).map_err(|e| e.to_string())?;
            if !correct(case, k, &resp) {
                return Err(format!("{}: wrong answer under callgrind", case.key));
            }
        }
        Ok(())
    })();
    // SIGINT: the framework shuts down gracefully, the baseline dies of it; either way
    // callgrind writes its totals.
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let mut child = child;
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    stop(child);
    result?;
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    text.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| format!("no totals in {}", file.display()))
}

fn callgrind(opts: &Opts) -> Result<String, String> {
    if !have("valgrind") {
        return Err("valgrind is not installed".into());
    }
    // `MCP_BENCH_KEEP=DIR` keeps the callgrind files there for `callgrind_annotate`.
    let keep = std::env::var_os("MCP_BENCH_KEEP").map(PathBuf::from);
    let dir = keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("mcp-bench-callgrind-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Server instructions per request under callgrind (one keep-alive connection; \
         (I({n2}) − I({n1})) ÷ {d} requests):\n",
        n1 = opts.calls / 5,
        n2 = opts.calls + opts.calls / 5,
        d = opts.calls
    );
    let _ = writeln!(
        out,
        "| case | instructions/request | ÷ baseline | ÷ ours call |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|");
    let mut per: BTreeMap<&str, f64> = BTreeMap::new();
    for case in selected(opts) {
        let lo = callgrind_run(&case, opts.calls / 5, &dir)?;
        let hi = callgrind_run(&case, opts.calls + opts.calls / 5, &dir)?;
        let v = hi.saturating_sub(lo) as f64 / opts.calls as f64;
        eprintln!("callgrind {:<10} {v:>10.0} instructions/request", case.key);
        per.insert(case.key, v);
        let r = |k: &str| {
            per.get(k)
                .map_or("–".to_owned(), |b| format!("{:.2}", v / b))
        };
        let _ = writeln!(
            out,
            "| `{}` | {v:.0} | {} | {} |",
            case.key,
            r("baseline"),
            r("call")
        );
    }
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(out)
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
        callgrind(&opts)
    } else if !have("wrk") {
        Err("wrk is not installed (apt-get install -y wrk; bench/run.sh does it)".into())
    } else {
        rounds(&opts, &pin)
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
