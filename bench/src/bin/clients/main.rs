//! One instance, many clients: how the server's cost grows with open `subscriptions/listen`
//! streams, concurrent exchanges, a slow reader and large payloads, against a raw axum server
//! doing the same with no framework, measured in the same run. Everything runs on loopback,
//! bounded in count and time.
//!
//! Usage: `mcp-bench-clients [--streams 100,1000,10000] [--seconds 5] [--only fanout|memory|leak|distinct] [--rounds 5]
//! [--front PORT --touch PORT]` (build with
//! `cargo build --release -p mcp-bench --bins`; `bash bench/run.sh --clients` runs it). Prints
//! a Markdown report, and each target as met or missed. `--only distinct`: the most streams of
//! `--streams` on one server with the default limits but for the listen streams, each stream
//! from a loopback address of its own (127.0.x.y), then the fan-out of one change to all of
//! them (`--serve ADDR --listen-streams N` is that server: this binary started again).

mod server;
mod wire;

use mcp_bench::{add_call, big_argument_call, big_read, listen_request, mrtr_first, storm_call};
use server::{Kind, Server};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;
use wire::*;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "**missed**" }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), String> {
    let files = mcp_bench::raise_file_limit();
    if let Some(addr) = arg("--serve") {
        let streams = arg("--listen-streams").and_then(|v| v.parse().ok());
        return server::serve(&addr, streams.unwrap_or(12_000)).await;
    }
    let counts: Vec<usize> = arg("--streams")
        .unwrap_or_else(|| "100,1000,10000".into())
        .split(',')
        .filter_map(|v| v.parse().ok())
        .collect();
    let seconds: u64 = arg("--seconds").and_then(|v| v.parse().ok()).unwrap_or(5);
    let most = counts.iter().copied().max().unwrap_or(100);
    if (files as usize) < most + 1000 {
        return Err(format!(
            "the open-file limit is {files}: too low for {most} streams"
        ));
    }
    if arg("--only").as_deref() == Some("memory") {
        // Only ours' memory per stream, for iterating on it.
        let base = Server::start(Kind::Baseline)?;
        let (floor, streams) = memory_per_stream(&base, most).await?;
        drop((streams, base));
        let base = Server::start(Kind::Http1Floor)?;
        let (http1, streams) = memory_per_stream(&base, most).await?;
        drop((streams, base));
        let ours = Server::start(Kind::Ours)?;
        let (per, _streams) = memory_per_stream(&ours, most).await?;
        println!(
            "{most} streams: raw axum {floor:.2} KiB per stream (hyper HTTP/1 directly {http1:.2}), ours {per:.2}"
        );
        return Ok(());
    }
    if arg("--only").as_deref() == Some("distinct") {
        let rounds = arg("--rounds").and_then(|v| v.parse().ok()).unwrap_or(5);
        return distinct(most, rounds).await;
    }
    if arg("--only").as_deref() == Some("leak") {
        // Only ours' five rounds of opening and closing streams.
        let count = arg("--rounds").and_then(|v| v.parse().ok()).unwrap_or(5);
        for kind in [Kind::Baseline, Kind::Http1Floor, Kind::Ours] {
            let rounds = rounds_of_streams(kind, most, count).await?;
            println!(
                "{kind:?}: {most} streams opened and closed, {count} rounds: RSS {:?} KiB (+{:.1} %), heap in use {:?} bytes (+{:.1} %)",
                rounds.rss,
                Rounds::worst(&rounds.rss) * 100.0,
                rounds.heap,
                Rounds::worst(&rounds.heap) * 100.0
            );
        }
        return Ok(());
    }
    let external = match (arg("--front"), arg("--touch")) {
        // Servers started elsewhere: streams opened through `front` (a proxy in front of
        // several instances), the change made on `touch` (one of them).
        (Some(front), Some(touch)) => {
            let port = |v: String| v.parse::<u16>().map_err(|e| format!("a port: {e}"));
            Some((port(front)?, port(touch)?))
        }
        _ => None,
    };
    if external.is_some() || arg("--only").as_deref() == Some("fanout") {
        // Only the fan-out, for iterating on it: through `--front` when given, else on a
        // server of its own after the raw axum floor's.
        let rounds = arg("--rounds").and_then(|v| v.parse().ok()).unwrap_or(5);
        let runs = match external {
            Some((front, touch)) => vec![("given", None, front, touch)],
            None => {
                let mut runs = Vec::new();
                for (name, kind) in [("raw axum", Kind::FanoutFloor), ("ours", Kind::Ours)] {
                    let server = Server::start(kind)?;
                    let port = server.port;
                    runs.push((name, Some(server), port, port));
                }
                runs
            }
        };
        for (name, own, front, touch) in runs {
            let streams = open_streams(front, most).await?;
            let (latencies, per_round) = fan_out(touch, streams, rounds).await?;
            println!(
                "{name}: {most} streams through port {front}, change on port {touch}, {rounds} \
                 rounds: {}",
                spread(&latencies, &per_round)
            );
            drop(own);
        }
        return Ok(());
    }
    println!(
        "## Many clients (`mcp-bench-clients`, {most} streams at most, open-file limit {files})\n"
    );

    // 1. Memory per open listen stream, against the raw axum floor.
    println!("### Memory per open `subscriptions/listen` stream (RSS growth ÷ streams)\n");
    println!(
        "| streams | raw axum floor (`axum::serve`), KiB/stream | raw axum on hyper's HTTP/1 connection (as ours) | ours, KiB/stream | ours ÷ floor |"
    );
    println!("|---:|---:|---:|---:|---:|");
    let mut floor_at_most = 0.0;
    let mut ours_at_most = 0.0;
    let mut kept = None;
    for &n in &counts {
        let base = Server::start(Kind::Baseline)?;
        let (floor, streams) = memory_per_stream(&base, n).await?;
        drop(streams);
        drop(base);
        let base = Server::start(Kind::Http1Floor)?;
        let (http1, streams) = memory_per_stream(&base, n).await?;
        drop(streams);
        drop(base);
        let ours = Server::start(Kind::Ours)?;
        let (per, streams) = memory_per_stream(&ours, n).await?;
        println!(
            "| {n} | {floor:.1} | {http1:.1} | {per:.1} | {:.2} |",
            per / floor.max(0.001)
        );
        if n == most {
            floor_at_most = floor;
            ours_at_most = per;
            kept = Some((ours, streams));
        }
    }
    let (ours, streams) = kept.ok_or("no stream count")?;

    // 2. Calls while the streams are open, then the fan-out of one change to all of them.
    let (rate_open, p50_open, p99_open) = call_load(ours.port, 4, seconds).await?;
    let (latencies, per_round) = fan_out(ours.port, streams, 5).await?;
    let fan_p99 = percentile(&latencies, 0.99);
    println!(
        "\n### One change to {most} streams (`touch` sent → `resources/updated` read), 5 rounds\n"
    );
    println!("{}\n", spread(&latencies, &per_round));
    drop(ours);
    // The same fan-out from raw axum (a broadcast of the URI, each stream writing its event).
    let floor = Server::start(Kind::FanoutFloor)?;
    let floor_streams = open_streams(floor.port, most).await?;
    let (floor_latencies, floor_rounds) = fan_out(floor.port, floor_streams, 5).await?;
    let floor_p99 = percentile(&floor_latencies, 0.99);
    println!(
        "raw axum, the same {most} streams: {}\n",
        spread(&floor_latencies, &floor_rounds)
    );
    drop(floor);
    let quiet = Server::start(Kind::Ours)?;
    let (rate_none, p50_none, p99_none) = call_load(quiet.port, 4, seconds).await?;
    println!("### tools/call (4 keep-alive clients, {seconds} s each)\n");
    println!("| open streams | calls/s | p50 ms | p99 ms |");
    println!("|---:|---:|---:|---:|");
    println!(
        "| 0 | {rate_none:.0} | {} | {} |",
        ms(p50_none),
        ms(p99_none)
    );
    println!(
        "| {most} | {rate_open:.0} | {} | {} |",
        ms(p50_open),
        ms(p99_open)
    );

    // 3. Concurrent exchanges.
    let (mrtr_wall, mrtr_p50, mrtr_p99, mrtr_failed) = concurrent(
        quiet.port,
        1000,
        || vec![mrtr_first(), mrtr_first()],
        mrtr_ok,
    )
    .await;
    let (sse_wall, sse_p50, sse_p99, sse_failed) =
        concurrent(quiet.port, 1000, || vec![add_call(true)], sse_ok).await;
    println!("\n### 1,000 concurrent exchanges (one connection each)\n");
    println!("| exchange | wall time ms | p50 ms | p99 ms | failed |");
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| MRTR (input_required, then the retry) | {} | {} | {} | {mrtr_failed} |",
        ms(mrtr_wall),
        ms(mrtr_p50),
        ms(mrtr_p99)
    );
    println!(
        "| tools/call over SSE, 2 progress notifications | {} | {} | {} | {sse_failed} |",
        ms(sse_wall),
        ms(sse_p50),
        ms(sse_p99)
    );
    drop(quiet);

    // 4. A slow reader during a storm of changes.
    let slow_server = Server::start(Kind::Ours)?;
    let port = slow_server.port;
    let rss_before = slow_server.rss();
    let slow = open_stream(port, &http(port, &listen_request(), false))
        .await
        .map_err(|e| e.to_string())?;
    let read = Arc::new(AtomicU64::new(0));
    let reader = {
        let read = read.clone();
        tokio::spawn(async move {
            let mut slow = slow;
            let mut buf = [0u8; 1024];
            let mut seen = Vec::new();
            // 1 KiB a second, for at most 30 s.
            for _ in 0..30 {
                match slow.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        read.fetch_add(n as u64, Ordering::Relaxed);
                        seen.extend_from_slice(&buf[..n]);
                        if contains(&seen, b"fell") {
                            break;
                        }
                    }
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            seen
        })
    };
    let (_, _, p99_calm) = call_load(port, 2, 2).await?;
    let storm = tokio::spawn(async move {
        let mut conn = KeepAlive::connect(port).await?;
        for _ in 0..20 {
            conn.send(&storm_call(5_000)).await?;
        }
        Ok::<_, std::io::Error>(())
    });
    let (_, _, p99_storm) = call_load(port, 2, 3).await?;
    storm
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    let rss_storm = slow_server.rss();
    reader.abort();
    println!("\n### A slow reader (1 KiB/s) while 100,000 changes are announced\n");
    println!(
        "server RSS {} KiB before, {} KiB after the storm (+{} KiB); tools/call p99 of the other clients {} ms calm, {} ms during the storm; the slow stream read {} bytes before the server ended it (queue of 64 notifications full: `-32603`, reconnect and refetch)\n",
        rss_before,
        rss_storm,
        rss_storm.saturating_sub(rss_before),
        ms(p99_calm),
        ms(p99_storm),
        read.load(Ordering::Relaxed)
    );
    drop(slow_server);

    // 5. Large payloads: peak RSS and time, against the baseline.
    println!("### Large payloads (a fresh server each; peak RSS = VmHWM)\n");
    println!("| request | raw axum: ms, peak MiB | ours: ms, peak MiB | peak ÷ baseline |");
    println!("|---|---:|---:|---:|");
    let mut large_ratio: f64 = 0.0;
    for (what, req) in [
        ("resources/read of 10 MiB", big_read()),
        ("tools/call with a 1 MiB argument", big_argument_call()),
    ] {
        let mut row = Vec::new();
        for kind in [Kind::Baseline, Kind::Ours] {
            let s = Server::start(kind)?;
            tokio::time::sleep(Duration::from_millis(200)).await;
            let t = Instant::now();
            let body = exchange(s.port, &req).await.map_err(|e| e.to_string())?;
            let took = t.elapsed();
            if body.len() < 100 || contains(&body, b"\"error\"") {
                return Err(format!(
                    "{what}: {kind:?} answered {}",
                    String::from_utf8_lossy(&body[..body.len().min(300)])
                ));
            }
            row.push((took, s.peak() as f64 / 1024.0));
        }
        let ratio = row[1].1 / row[0].1;
        large_ratio = large_ratio.max(ratio);
        println!(
            "| {what} | {}, {:.1} | {}, {:.1} | {ratio:.2} |",
            ms(row[0].0),
            row[0].1,
            ms(row[1].0),
            row[1].1
        );
    }

    // 6. Leak check: five rounds of opening and closing 2,000 streams, on both servers.
    let batch = 2000.min(most);
    println!("\n### Open and close {batch} streams, five rounds: RSS after each round (KiB)\n");
    println!("| server | after each round | worst vs the first |");
    println!("|---|---|---:|");
    let mut worst = 0.0;
    let mut heap = Vec::new();
    for kind in [Kind::Baseline, Kind::Http1Floor, Kind::Ours] {
        let rounds = rounds_of_streams(kind, batch, 5).await?;
        let w = Rounds::worst(&rounds.rss);
        println!(
            "| {kind:?} | {} | +{:.1} % |",
            rounds
                .rss
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            w * 100.0
        );
        if kind == Kind::Ours {
            worst = w;
            heap = rounds.heap;
        }
    }
    let heap_worst = Rounds::worst(&heap);
    println!(
        "\nOurs, heap in use after each round (bytes handed out by the allocator and not freed): {} (+{:.1} % at worst)\n",
        heap.iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        heap_worst * 100.0
    );

    println!("### Targets\n");
    println!("| target | figure | |");
    println!("|---|---|---|");
    println!(
        "| memory per idle listen stream ≤ the raw axum floor ({most} streams) | {ours_at_most:.1} vs {floor_at_most:.1} KiB | {} |",
        verdict(ours_at_most <= floor_at_most)
    );
    println!(
        "| a change reaches {most} streams in ≤ 100 ms at p99 | {} ms (raw axum {} ms) | {} |",
        ms(fan_p99),
        ms(floor_p99),
        verdict(fan_p99 <= Duration::from_millis(100))
    );
    println!(
        "| tools/call p99 with {most} idle streams ≤ 1.5× with none | {} vs {} ms | {} |",
        ms(p99_open),
        ms(p99_none),
        verdict(p99_open.as_secs_f64() <= 1.5 * p99_none.as_secs_f64())
    );
    println!(
        "| no leak: five rounds within 10 % of the first | RSS worst +{:.1} % (heap in use +{:.1} %) | {} |",
        worst * 100.0,
        heap_worst * 100.0,
        verdict(worst <= 0.10)
    );
    println!(
        "| large payloads ≤ 2× the baseline's peak RSS | worst {large_ratio:.2}× | {} |",
        verdict(large_ratio <= 2.0)
    );
    println!(
        "| a slow reader neither grows memory without bound nor slows the others | +{} KiB, p99 {} → {} ms | {} |",
        rss_storm.saturating_sub(rss_before),
        ms(p99_calm),
        ms(p99_storm),
        verdict(
            rss_storm.saturating_sub(rss_before) < 64 * 1024
                && p99_storm.as_secs_f64() <= 3.0 * p99_calm.as_secs_f64().max(0.002)
        )
    );
    Ok(())
}

/// `n` listen streams on one server, each from a loopback address of its own, against the
/// default limits but for the listen streams (`Limits::listen_streams`, a fifth above `n`):
/// all acknowledged; for contrast, one address's share of the default limits meanwhile; then
/// one change fanned out to all of them, `rounds` times; then the same from raw axum.
async fn distinct(n: usize, rounds: usize) -> Result<(), String> {
    let limit = n + n / 5;
    let server = Server::start(Kind::Listen(limit))?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss_before = server.rss();
    let started = Instant::now();
    let streams = open_streams_from(server.port, n, |i| Some(own_address(i))).await?;
    let opened = started.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss = server.rss();
    println!(
        "## {n} listen streams, each from its own loopback address (127.0.1.1 … {})\n",
        own_address(n - 1)
    );
    println!(
        "server: the default limits but `Limits::listen_streams({limit})` (one caller's share of \
         streams: the default 16); open-file limit {}\n",
        mcp_bench::raise_file_limit()
    );
    println!(
        "- opened and acknowledged: {} of {n} in {} ms (200 at a time)",
        streams.len(),
        opened.as_millis()
    );
    println!(
        "- server RSS {rss_before} KiB before, {rss} KiB with them: {:.1} KiB per stream",
        rss.saturating_sub(rss_before) as f64 / n as f64
    );
    // For contrast, while they are open: one address's share, 20 streams from 127.0.0.1.
    let req = http(server.port, &listen_request(), false);
    let mut held = Vec::new();
    let mut refused = 0;
    for _ in 0..20 {
        match open_stream(server.port, &req).await {
            Ok(s) => held.push(s),
            Err(e) if e.to_string().contains(" 503 ") => refused += 1,
            Err(e) => return Err(format!("one address's streams: {e}")),
        }
    }
    println!(
        "- for contrast, 20 streams from one address (127.0.0.1): {} acknowledged, {refused} refused with 503",
        held.len()
    );
    drop(held);
    let (latencies, per_round) = fan_out(server.port, streams, rounds).await?;
    println!(
        "- one change (`touch` sent → `resources/updated` read on every stream), {rounds} rounds: {}",
        spread(&latencies, &per_round)
    );
    drop(server);
    // The floor: raw axum fanning the change out to the same streams from the same addresses.
    let floor = Server::start(Kind::FanoutFloor)?;
    let streams = open_streams_from(floor.port, n, |i| Some(own_address(i))).await?;
    let (latencies, per_round) = fan_out(floor.port, streams, rounds).await?;
    println!(
        "- raw axum (`mcp-bench-baseline --fanout`), the same {n} addresses: {}",
        spread(&latencies, &per_round)
    );
    Ok(())
}
