//! Wall clock.

use crate::child::{LinkSeen, Serving, have};
use crate::opts::Opts;
use crate::wire::{ANSWER, KeepAlive, contains, percentile, wire};
use mcp_bench::{add_call, cpu};
use std::fmt::Write as _;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Path {
    Direct,
    Gateway,
}

impl Path {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Path::Direct => "direct",
            Path::Gateway => "gateway",
        }
    }
}

/// One case of one round.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sample {
    pub(crate) rps: f64,
    pub(crate) p50_ms: f64,
    pub(crate) p99_ms: f64,
    pub(crate) cpu_us_per_call: f64,
    /// Calls over the warm-up and the measured window.
    pub(crate) calls: u64,
    /// What the backend saw from the gateway over the same span.
    pub(crate) link: LinkSeen,
}

/// `clients` closed-loop connections to `port` for `warmup` + `secs`; the serving process's
/// CPU read at the start and the end of the measured window.
pub(crate) async fn load(
    port: u16,
    clients: usize,
    warmup: f64,
    secs: f64,
    pid: u32,
) -> Result<Sample, String> {
    let request: Arc<[u8]> = wire(port, &add_call(false)).into();
    let t0 = Instant::now();
    let start = t0 + Duration::from_secs_f64(warmup);
    let end = start + Duration::from_secs_f64(secs);
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..clients {
        let request = request.clone();
        set.spawn(async move {
            let mut conn = KeepAlive::connect(port).await?;
            let mut lat = Vec::with_capacity(65_536);
            let mut all = 0u64;
            loop {
                let t = Instant::now();
                if t >= end {
                    break;
                }
                let body = conn.send(&request).await?;
                if !contains(&body, ANSWER) {
                    return Err(std::io::Error::other(format!(
                        "a wrong answer: {}",
                        String::from_utf8_lossy(&body)
                    )));
                }
                all += 1;
                if t >= start {
                    lat.push(t.elapsed());
                }
            }
            Ok::<_, std::io::Error>((lat, all))
        });
    }
    tokio::time::sleep_until(start.into()).await;
    let c0 = cpu::cpu_ticks(pid)?;
    let m0 = Instant::now();
    tokio::time::sleep_until(end.into()).await;
    let c1 = cpu::cpu_ticks(pid)?;
    let window = m0.elapsed().as_secs_f64();
    let mut lat = Vec::new();
    let mut calls = 0;
    while let Some(r) = set.join_next().await {
        let (l, n) = r.map_err(|e| e.to_string())?.map_err(|e| e.to_string())?;
        lat.extend(l);
        calls += n;
    }
    lat.sort();
    let measured = lat.len() as f64;
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let cpu_us = (c1 - c0) as f64 / cpu::clock_ticks() * 1e6;
    Ok(Sample {
        rps: measured / window,
        p50_ms: ms(percentile(&lat, 0.5)),
        p99_ms: ms(percentile(&lat, 0.99)),
        cpu_us_per_call: cpu_us / measured.max(1.0),
        calls,
        link: LinkSeen::default(),
    })
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
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

/// Pins this process (every thread) to `core`.
pub(crate) fn pin_self(core: &str) -> bool {
    Command::new("taskset")
        .args(["-a", "-c", "-p", core, &std::process::id().to_string()])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

pub(crate) fn rounds(opts: &Opts) -> Result<String, String> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let pinned = cores >= 2 && have("taskset") && pin_self("1");
    let prefix: Vec<String> = if pinned {
        ["taskset", "-c", "0"].map(str::to_owned).to_vec()
    } else {
        eprintln!("note: fewer than 2 cores or no taskset: the servers and the load share cores");
        Vec::new()
    };
    let budget =
        opts.rounds as f64 * opts.clients.len() as f64 * 2.0 * (opts.warmup + opts.secs + 1.0)
            + 120.0;
    let mut serving = Serving::start(&prefix, budget as u64, &[])?;
    let pid = serving.child.id();
    let started = Instant::now();
    let at_start = serving.seen()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let mut cases = Vec::new();
    for &c in &opts.clients {
        cases.push((c, Path::Direct));
        cases.push((c, Path::Gateway));
    }
    // samples[case][round]
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); cases.len()];
    for round in 0..opts.rounds {
        for k in 0..cases.len() {
            let i = (k + round) % cases.len();
            let (clients, path) = cases[i];
            let port = match path {
                Path::Direct => serving.direct,
                Path::Gateway => serving.gateway,
            };
            let before = serving.seen()?;
            let mut s = runtime.block_on(load(port, clients, opts.warmup, opts.secs, pid))?;
            s.link = serving.seen()? - before;
            eprintln!(
                "round {} {:>2} clients {:<7} {:>8.0} req/s p50 {:.3} ms p99 {:.3} ms \
                 {:.1} µs CPU/call; backend saw from the gateway {} connections, {} calls, \
                 {} other requests",
                round + 1,
                clients,
                path.name(),
                s.rps,
                s.p50_ms,
                s.p99_ms,
                s.cpu_us_per_call,
                s.link.connections,
                s.link.calls,
                s.link.other
            );
            samples[i].push(s);
        }
    }
    let at_end = serving.seen()?;
    let run_secs = started.elapsed().as_secs_f64();
    serving.stop(Duration::from_secs(10));

    let mut out = String::new();
    let _ = writeln!(
        out,
        "A backend (`add`) and a gateway mounting it flat over HTTP, in one process{}; \
         closed-loop keep-alive clients{}. Medians of {} interleaved rounds, {} s of load per \
         case and round after {} s of warm-up. Server CPU is the serving process's (both \
         servers) per call. Backend connections: accepted from the gateway's link over the \
         case's warm-up and load, all rounds.\n",
        if pinned { " on core 0" } else { "" },
        if pinned { " on core 1" } else { "" },
        opts.rounds,
        opts.secs,
        opts.warmup
    );
    let _ = writeln!(
        out,
        "| clients | path | req/s | p50 ms | p99 ms | server CPU µs/call | backend connections opened | per 1,000 proxied calls |"
    );
    let _ = writeln!(out, "|---:|---|---:|---:|---:|---:|---:|---:|");
    for (i, (clients, path)) in cases.iter().enumerate() {
        let s = &samples[i];
        let m = |f: fn(&Sample) -> f64| median(s.iter().map(f).collect());
        let calls: u64 = s.iter().map(|s| s.calls).sum();
        let opened: u64 = s.iter().map(|s| s.link.connections).sum();
        let (opened, per) = match path {
            Path::Direct => ("–".to_owned(), "–".to_owned()),
            Path::Gateway => (
                format!("{opened} in {calls} calls"),
                format!("{:.3}", opened as f64 * 1000.0 / calls.max(1) as f64),
            ),
        };
        let _ = writeln!(
            out,
            "| {clients} | {} | {:.0} | {:.3} | {:.3} | {:.1} | {opened} | {per} |",
            path.name(),
            m(|s| s.rps),
            m(|s| s.p50_ms),
            m(|s| s.p99_ms),
            m(|s| s.cpu_us_per_call),
        );
    }
    let run = at_end - at_start;
    let _ = writeln!(
        out,
        "\nThe gateway's link opened {} connection(s) to the backend before the first case (the \
         mount's lists, one probe call) and {} over the whole run ({:.0} s), in which the backend \
         answered it {} `tools/call` and {} other requests ({:.2} per second: list fetches, \
         listen streams).\n",
        at_start.connections,
        run.connections,
        run_secs,
        run.calls,
        run.other,
        run.other as f64 / run_secs
    );
    let _ = writeln!(out, "| clients | gateway ÷ direct | per round | median |");
    let _ = writeln!(out, "|---:|---|---|---:|");
    type Metric = (&'static str, fn(&Sample) -> f64);
    let metrics: [Metric; 4] = [
        ("throughput", |s| s.rps),
        ("p50 latency", |s| s.p50_ms),
        ("p99 latency", |s| s.p99_ms),
        ("server CPU per call", |s| s.cpu_us_per_call),
    ];
    for (i, (clients, path)) in cases.iter().enumerate() {
        if *path != Path::Gateway {
            continue;
        }
        let direct = &samples[i - 1];
        for (label, f) in metrics {
            let ratios: Vec<f64> = samples[i]
                .iter()
                .zip(direct)
                .map(|(g, d)| f(g) / f(d))
                .collect();
            let per: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
            let _ = writeln!(
                out,
                "| {clients} | {label} | {} | **{:.2}** |",
                per.join(" "),
                median(ratios)
            );
        }
    }
    Ok(out)
}
