//! Rounds, the ratios between cases, and the tables.

use super::cases::{CASES, Case, Kind};
use super::opts::Opts;
use super::process::{Pinning, clock_ticks};
use super::wrk::{COLD_LAUNCHES, Sample, measure};
use std::collections::BTreeMap;
use std::fmt::Write as _;

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

/// A target: its text and its test.
pub(crate) type Target = Option<(&'static str, fn(f64) -> bool)>;

/// A ratio reported per round: `num` over `den` of one metric.
pub(crate) struct RatioDef {
    pub(crate) label: &'static str,
    pub(crate) num: &'static str,
    pub(crate) den: &'static str,
    pub(crate) metric: fn(&Sample) -> f64,
    pub(crate) target: Target,
}

pub(crate) fn ratio_defs() -> Vec<RatioDef> {
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

pub(crate) fn selected(opts: &Opts) -> Vec<Case> {
    CASES
        .iter()
        .filter(|c| match &opts.only {
            Some(only) => only.iter().any(|k| k == c.key),
            // Observation cases run only when named.
            None => !matches!(c.kind, Kind::Observed(_)),
        })
        .copied()
        .collect()
}

pub(crate) fn rounds(opts: &Opts, pin: &Pinning) -> Result<String, String> {
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

pub(crate) fn short(d: &RatioDef) -> String {
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

pub(crate) fn report(
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
