//! The driver: Redis and the HTTP service started once, then interleaved rounds of every server
//! and era, each a server process pinned to core 0 under k6 pinned to core 1; the tools/call's
//! p50/p99 from k6, calls and HTTP requests per second, and the server's CPU time per 1,000
//! calls from `/proc/PID/stat` over the measured window. Loopback only; every process it
//! starts it stops, and every k6 run is bounded by its duration.

use mcp_bench::cpu::{clock_ticks, cpu_ticks};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SCRIPT: &str = include_str!("k6.js");

struct Opts {
    k6: PathBuf,
    rounds: usize,
    warmup: u64,
    secs: u64,
    vus: usize,
    eras: Vec<String>,
    before: Option<PathBuf>,
    markdown: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        k6: PathBuf::new(),
        rounds: 3,
        warmup: 20,
        secs: 30,
        vus: 50,
        eras: ["2026-07-28", "2024-11-05", "2025-11-25"]
            .map(str::to_owned)
            .to_vec(),
        before: None,
        markdown: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{a} needs a value"))
        };
        let num = |v: String| v.parse::<u64>().map_err(|_| format!("bad {a}"));
        match a.as_str() {
            "--k6" => o.k6 = val()?.into(),
            "--rounds" => o.rounds = num(val()?)? as usize,
            "--warmup" => o.warmup = num(val()?)?,
            "--secs" => o.secs = num(val()?)?,
            "--vus" => o.vus = num(val()?)? as usize,
            "--eras" => o.eras = val()?.split(',').map(str::to_owned).collect(),
            "--before" => o.before = Some(val()?.into()),
            "--markdown" => o.markdown = Some(val()?.into()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if o.k6.as_os_str().is_empty() {
        return Err("--k6 PATH is needed (bench/latency.sh installs k6)".into());
    }
    if o.rounds == 0 || o.secs == 0 || o.vus == 0 {
        return Err("--rounds, --secs and --vus must be at least 1".into());
    }
    Ok(o)
}

/// A server under test.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Server {
    /// `mcp-bench-baseline --io`: raw axum, the same I/O.
    Baseline,
    /// This tree's runtime.
    Ours,
    /// `--before`: the runtime of another revision.
    Before,
}

impl Server {
    fn name(self) -> &'static str {
        match self {
            Server::Baseline => "baseline (raw axum)",
            Server::Ours => "ours",
            Server::Before => "ours, before (`--before`)",
        }
    }
}

/// What the measured window of one cell gave.
#[derive(Clone, Copy, Debug)]
struct Sample {
    p50_ms: f64,
    p99_ms: f64,
    calls_per_s: f64,
    http_per_s: f64,
    cpu_s_per_1000: f64,
    wrong: u64,
    failed: u64,
    sse: u64,
}

/// A child process that is killed when dropped.
struct Owned(Child);

impl Drop for Owned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(l.local_addr().map_err(|e| e.to_string())?.port())
}

fn exe_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."))
}

/// `argv` under `taskset -c core` (when there are two cores), its output to `log`.
fn spawn(core: Option<&str>, argv: &[String], log: &Path) -> Result<Owned, String> {
    let mut full: Vec<String> = Vec::new();
    if let Some(core) = core {
        full.extend(["taskset".into(), "-c".into(), core.into()]);
    }
    full.extend(argv.iter().cloned());
    let out = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    Command::new(&full[0])
        .args(&full[1..])
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map(Owned)
        .map_err(|e| format!("spawning {full:?}: {e}"))
}

/// Waits until `port` accepts connections (at most 10 s).
fn wait_port(port: u16, child: &mut Owned) -> Result<(), String> {
    let t0 = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.0.try_wait() {
            return Err(format!("port {port}: the process exited with {status}"));
        }
        if t0.elapsed() > Duration::from_secs(10) {
            return Err(format!("nothing listens on {port} after 10 s"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// The 2026-07-28 `tools/call` of `lookup` that proves a server is up and doing its I/O.
fn probe(port: u16) -> Result<(), String> {
    let request = mcp_bench::Request {
        body: r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"key":"probe"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"probe","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#.into(),
        headers: vec![
            ("MCP-Protocol-Version".into(), "2026-07-28".into()),
            ("Mcp-Method".into(), "tools/call".into()),
            ("Mcp-Name".into(), "lookup".into()),
        ],
    };
    let r = mcp_bench::client::once(port, &request).map_err(|e| e.to_string())?;
    if r.status == 200 && r.body.contains("probe: rate") {
        Ok(())
    } else {
        Err(format!("probe answered {} {}", r.status, r.body))
    }
}

struct Setup {
    opts: Opts,
    dir: PathBuf,
    script: PathBuf,
    redis: String,
    upstream: String,
    server_core: Option<&'static str>,
    load_core: Option<&'static str>,
    tick: f64,
}

impl Setup {
    fn server_argv(&self, server: Server, port: u16) -> Vec<String> {
        let addr = format!("127.0.0.1:{port}");
        let own = |bin: PathBuf| {
            vec![
                bin.display().to_string(),
                "server".into(),
                "--addr".into(),
                addr.clone(),
                "--redis".into(),
                self.redis.clone(),
                "--upstream".into(),
                self.upstream.clone(),
            ]
        };
        match server {
            Server::Baseline => vec![
                exe_dir().join("mcp-bench-baseline").display().to_string(),
                "--addr".into(),
                addr.clone(),
                "--io".into(),
                format!("{},{}", self.redis, self.upstream),
            ],
            Server::Ours => own(exe_dir().join("mcp-bench-latency")),
            Server::Before => own(self.opts.before.clone().unwrap_or_default()),
        }
    }

    /// One k6 run of `secs` against `port`; its summary, when `summary` is given.
    fn k6(&self, port: u16, era: &str, secs: u64, summary: &Path) -> Result<(), String> {
        let mut argv: Vec<String> = Vec::new();
        if let Some(core) = self.load_core {
            argv.extend(["taskset".into(), "-c".into(), core.into()]);
        }
        argv.push(self.opts.k6.display().to_string());
        argv.extend(["run", "--quiet", "--no-usage-report", "--no-color"].map(String::from));
        for (k, v) in [
            ("MCP_URL", format!("http://127.0.0.1:{port}/mcp")),
            ("MCP_ERA", era.to_owned()),
            ("VUS", self.opts.vus.to_string()),
            ("DURATION", format!("{secs}s")),
            ("SUMMARY", summary.display().to_string()),
        ] {
            argv.extend(["-e".into(), format!("{k}={v}")]);
        }
        argv.push(self.script.display().to_string());
        let log = self.dir.join("k6.log");
        let out = std::fs::File::create(&log).map_err(|e| e.to_string())?;
        let status = Command::new(&argv[0])
            .args(&argv[1..])
            .env("K6_NO_USAGE_REPORT", "true")
            .stdin(Stdio::null())
            .stdout(out.try_clone().map_err(|e| e.to_string())?)
            .stderr(out)
            .status()
            .map_err(|e| format!("k6: {e}"))?;
        if !status.success() {
            let tail = std::fs::read_to_string(&log).unwrap_or_default();
            return Err(format!("k6 exited with {status}: {tail}"));
        }
        Ok(())
    }

    /// One cell: a fresh server, warmed up, then measured.
    fn measure(&self, server: Server, era: &str) -> Result<Sample, String> {
        let port = free_port()?;
        let log = self.dir.join(format!("server-{server:?}.log"));
        let mut child = spawn(self.server_core, &self.server_argv(server, port), &log)?;
        wait_port(port, &mut child)?;
        probe(port)?;
        let summary = self.dir.join("summary.json");
        if self.opts.warmup > 0 {
            self.k6(port, era, self.opts.warmup, &summary)?;
        }
        let pid = child.0.id();
        let before = cpu_ticks(pid)?;
        self.k6(port, era, self.opts.secs, &summary)?;
        let after = cpu_ticks(pid)?;
        drop(child);
        let text = std::fs::read_to_string(&summary).map_err(|e| e.to_string())?;
        let data: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        let metric = |name: &str, stat: &str| data["metrics"][name]["values"][stat].as_f64();
        let secs = data["state"]["testRunDurationMs"]
            .as_f64()
            .ok_or("no testRunDurationMs")?
            / 1000.0;
        let calls = metric("call_ms", "count").ok_or("no call_ms")?;
        let cpu_s = (after - before) as f64 / self.tick;
        Ok(Sample {
            p50_ms: metric("call_ms", "med").ok_or("no median")?,
            p99_ms: metric("call_ms", "p(99)").ok_or("no p99")?,
            calls_per_s: calls / secs,
            http_per_s: metric("http_reqs", "count").unwrap_or(0.0) / secs,
            cpu_s_per_1000: cpu_s / calls * 1000.0,
            wrong: metric("wrong", "count").unwrap_or(0.0) as u64,
            failed: metric("http_req_failed", "passes").unwrap_or(0.0) as u64,
            sse: metric("sse_answers", "count").unwrap_or(0.0) as u64,
        })
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let opts = parse(args)?;
    let dir = std::env::temp_dir().join(format!("mcp-bench-latency-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let script = dir.join("k6.js");
    std::fs::write(&script, SCRIPT).map_err(|e| e.to_string())?;
    let two = std::thread::available_parallelism().map_or(1, usize::from) >= 2
        && Command::new("taskset").arg("-V").output().is_ok();
    let (server_core, load_core) = if two {
        (Some("0"), Some("1"))
    } else {
        eprintln!("note: fewer than 2 cores or no taskset: nothing is pinned");
        (None, None)
    };
    // Redis and the HTTP service share the load's core: the server's core is its own.
    let redis_port = free_port()?;
    let redis_argv: Vec<String> = [
        "redis-server",
        "--port",
        &redis_port.to_string(),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        &dir.display().to_string(),
    ]
    .map(String::from)
    .to_vec();
    let mut redis = spawn(load_core, &redis_argv, &dir.join("redis.log"))?;
    wait_port(redis_port, &mut redis)?;
    let upstream_port = free_port()?;
    let upstream_argv = vec![
        exe_dir().join("mcp-bench-latency").display().to_string(),
        "upstream".into(),
        "--addr".into(),
        format!("127.0.0.1:{upstream_port}"),
    ];
    let mut upstream = spawn(load_core, &upstream_argv, &dir.join("upstream.log"))?;
    wait_port(upstream_port, &mut upstream)?;
    let mut servers = vec![Server::Baseline, Server::Ours];
    if opts.before.is_some() {
        servers.push(Server::Before);
    }
    let setup = Setup {
        redis: format!("127.0.0.1:{redis_port}"),
        upstream: format!("127.0.0.1:{upstream_port}"),
        opts,
        dir: dir.clone(),
        script,
        server_core,
        load_core,
        tick: clock_ticks(),
    };
    let cells: Vec<(Server, String)> = setup
        .opts
        .eras
        .iter()
        .flat_map(|era| servers.iter().map(move |s| (*s, era.clone())))
        .collect();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let mut header = format!(
        "Latency under real clients: k6 1.1.0, {} virtual users (closed loop), {} s of warm-up then \
         {} s measured per server, era and round, {} rounds, the order rotated each round; server \
         on core 0, k6, redis-server and the HTTP service on core 1. Load average at the start: {}.\n",
        setup.opts.vus,
        setup.opts.warmup,
        setup.opts.secs,
        setup.opts.rounds,
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    eprint!("{header}");
    let mut all: Vec<BTreeMap<(Server, String), Sample>> = Vec::new();
    for round in 0..setup.opts.rounds {
        let mut got = BTreeMap::new();
        for k in 0..cells.len() {
            let (server, era) = &cells[(k + round) % cells.len()];
            let s = setup.measure(*server, era)?;
            eprintln!(
                "round {} {era} {:<26} {:>7.0} calls/s  p50 {:>6.2} ms  p99 {:>6.2} ms  cpu {:.3} s/1k calls  wrong {} failed {} sse {}",
                round + 1,
                server.name(),
                s.calls_per_s,
                s.p50_ms,
                s.p99_ms,
                s.cpu_s_per_1000,
                s.wrong,
                s.failed,
                s.sse
            );
            got.insert((*server, era.clone()), s);
        }
        all.push(got);
    }
    drop(upstream);
    drop(redis);
    let table = report(&setup, &servers, &all);
    let _ = std::fs::remove_dir_all(&dir);
    header.push('\n');
    header.push_str(&table);
    println!("{header}");
    if let Some(path) = &setup.opts.markdown {
        std::fs::write(path, &header).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

fn report(setup: &Setup, servers: &[Server], all: &[BTreeMap<(Server, String), Sample>]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| era | server | calls/s | HTTP req/s | tools/call p50 ms | p99 ms | server CPU s per 1,000 calls | wrong / failed | answered as SSE |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|");
    let of = |server: Server, era: &str| -> Vec<Sample> {
        all.iter()
            .filter_map(|r| r.get(&(server, era.to_owned())).copied())
            .collect()
    };
    for era in &setup.opts.eras {
        for &server in servers {
            let s = of(server, era);
            let m = |f: fn(&Sample) -> f64| median(s.iter().map(f).collect());
            let sum = |f: fn(&Sample) -> u64| s.iter().map(f).sum::<u64>();
            let _ = writeln!(
                out,
                "| {era} | {} | {:.0} | {:.0} | {:.2} | {:.2} | {:.3} | {} / {} | {} |",
                server.name(),
                m(|s| s.calls_per_s),
                m(|s| s.http_per_s),
                m(|s| s.p50_ms),
                m(|s| s.p99_ms),
                m(|s| s.cpu_s_per_1000),
                sum(|s| s.wrong),
                sum(|s| s.failed),
                sum(|s| s.sse),
            );
        }
    }
    let _ = writeln!(
        out,
        "\n| era | measure (per round, then the median) | per round | median |"
    );
    let _ = writeln!(out, "|---|---|---|---:|");
    for era in &setup.opts.eras {
        let base = of(Server::Baseline, era);
        for &server in servers.iter().filter(|s| **s != Server::Baseline) {
            let s = of(server, era);
            let pairs = || s.iter().zip(&base);
            let rows: [(&str, Vec<f64>, &str); 3] = [
                (
                    "p50 − baseline's, ms",
                    pairs().map(|(a, b)| a.p50_ms - b.p50_ms).collect(),
                    "ms",
                ),
                (
                    "p99 − baseline's, ms",
                    pairs().map(|(a, b)| a.p99_ms - b.p99_ms).collect(),
                    "ms",
                ),
                (
                    "CPU per call ÷ baseline's",
                    pairs()
                        .map(|(a, b)| a.cpu_s_per_1000 / b.cpu_s_per_1000)
                        .collect(),
                    "×",
                ),
            ];
            for (what, values, unit) in rows {
                let per: Vec<String> = values.iter().map(|v| format!("{v:.2}")).collect();
                let _ = writeln!(
                    out,
                    "| {era} | {}: {what} | {} | **{:.2}** {unit} |",
                    server.name(),
                    per.join(" "),
                    median(values.clone())
                );
            }
        }
    }
    out
}
