//! One instance, many clients: how the server's cost grows with open `subscriptions/listen`
//! streams, concurrent exchanges, a slow reader and large payloads, against a raw axum server
//! doing the same with no framework, measured in the same run. Everything runs on loopback,
//! bounded in count and time.
//!
//! Usage: `mcp-bench-clients [--streams 100,1000,10000] [--seconds 5] [--only fanout|memory] [--rounds 5]
//! [--front PORT --touch PORT]` (build with
//! `cargo build --release -p mcp-bench --bins`; `bash bench/run.sh --clients` runs it). Prints
//! a Markdown report, and each target as met or missed.

use mcp_bench::{
    Request, add_call, big_argument_call, big_read, listen_request, mrtr_first, mrtr_retry,
    storm_call, touch_call,
};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

/// The servers compared.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Ours,
    Baseline,
}

struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(kind: Kind) -> Result<Server, String> {
        let dir = std::env::current_exe()
            .map_err(|e| e.to_string())?
            .parent()
            .ok_or("no directory")?
            .to_owned();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let addr = format!("127.0.0.1:{port}");
        let mut cmd = match kind {
            // `MCP_BENCH_OURS_PREFIX="valgrind --tool=callgrind"` runs it under a profiler.
            Kind::Ours => match std::env::var("MCP_BENCH_OURS_PREFIX") {
                Ok(prefix) if !prefix.trim().is_empty() => {
                    let mut words = prefix.split_whitespace();
                    let mut c = Command::new(words.next().unwrap_or_default());
                    c.args(words);
                    c.arg(dir.join("mcp-bench-ours"));
                    c.args(["--observe", "clients", "--addr", &addr]);
                    c
                }
                _ => {
                    let mut c = Command::new(dir.join("mcp-bench-ours"));
                    c.args(["--observe", "clients", "--addr", &addr]);
                    c
                }
            },
            Kind::Baseline => {
                let mut c = Command::new(dir.join("mcp-bench-baseline"));
                c.args(["--addr", &addr]);
                c
            }
        };
        let child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{kind:?}: {e}"))?;
        let server = Server { child, port };
        let deadline = Instant::now() + Duration::from_secs(120);
        while Instant::now() < deadline {
            if let Ok(r) = mcp_bench::client::once(port, &add_call(false))
                && r.status == 200
            {
                return Ok(server);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(format!("{kind:?} did not start"))
    }

    fn status_kib(&self, field: &str) -> u64 {
        let text = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        text.lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    }
    /// Resident memory, KiB.
    fn rss(&self) -> u64 {
        self.status_kib("VmRSS:")
    }
    /// Peak resident memory, KiB.
    fn peak(&self) -> u64 {
        self.status_kib("VmHWM:")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SIGINT first, so a profiler it runs under writes its data.
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The bytes of one HTTP request for `req` (`close`: ask the server to close after answering).
fn http(port: u16, req: &Request, close: bool) -> Vec<u8> {
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        req.body.len()
    );
    if close {
        head.push_str("Connection: close\r\n");
    }
    for (k, v) in &req.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(req.body.as_bytes());
    bytes
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Opens a listen stream and waits for its acknowledgement.
async fn open_stream(port: u16, req: &[u8]) -> std::io::Result<TcpStream> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).await?;
    s.set_nodelay(true)?;
    s.write_all(req).await?;
    let mut seen = Vec::new();
    let mut buf = [0u8; 2048];
    while !contains(&seen, b"acknowledged") {
        let n = s.read(&mut buf).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        seen.extend_from_slice(&buf[..n]);
    }
    Ok(s)
}

/// Opens `n` listen streams, 200 at a time.
async fn open_streams(port: u16, n: usize) -> Result<Vec<TcpStream>, String> {
    let req = Arc::new(http(port, &listen_request(), false));
    let mut streams = Vec::with_capacity(n);
    let mut left = n;
    while left > 0 {
        let batch = left.min(200);
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..batch {
            let req = req.clone();
            set.spawn(async move { open_stream(port, &req).await });
        }
        while let Some(r) = set.join_next().await {
            streams.push(
                r.map_err(|e| e.to_string())?
                    .map_err(|e| format!("opening a stream: {e}"))?,
            );
        }
        left -= batch;
    }
    Ok(streams)
}

/// Sends one request on a fresh connection (closed after the answer) and reads the whole answer.
async fn exchange(port: u16, req: &Request) -> std::io::Result<Vec<u8>> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).await?;
    s.set_nodelay(true)?;
    s.write_all(&http(port, req, true)).await?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).await?;
    Ok(out)
}

/// A keep-alive connection for requests answered with a `Content-Length` body.
struct KeepAlive {
    s: TcpStream,
    port: u16,
    buf: Vec<u8>,
}

impl KeepAlive {
    async fn connect(port: u16) -> std::io::Result<KeepAlive> {
        let s = TcpStream::connect(("127.0.0.1", port)).await?;
        s.set_nodelay(true)?;
        Ok(KeepAlive {
            s,
            port,
            buf: Vec::new(),
        })
    }
    async fn send(&mut self, req: &Request) -> std::io::Result<Vec<u8>> {
        self.s.write_all(&http(self.port, req, false)).await?;
        let mut chunk = [0u8; 8192];
        loop {
            if let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&self.buf[..end]).to_ascii_lowercase();
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse().ok())
                    .ok_or_else(|| std::io::Error::other("no content-length"))?;
                let total = end + 4 + len;
                while self.buf.len() < total {
                    let n = self.s.read(&mut chunk).await?;
                    if n == 0 {
                        return Err(std::io::ErrorKind::UnexpectedEof.into());
                    }
                    self.buf.extend_from_slice(&chunk[..n]);
                }
                let body = self.buf[end + 4..total].to_vec();
                self.buf.drain(..total);
                return Ok(body);
            }
            let n = self.s.read(&mut chunk).await?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

/// Calls `add` from `clients` keep-alive connections for `seconds`: (requests/s, p50, p99).
async fn call_load(
    port: u16,
    clients: usize,
    seconds: u64,
) -> Result<(f64, Duration, Duration), String> {
    let stop = Instant::now() + Duration::from_secs(seconds);
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..clients {
        set.spawn(async move {
            let mut conn = KeepAlive::connect(port).await?;
            let req = add_call(false);
            let mut lat = Vec::new();
            while Instant::now() < stop {
                let t = Instant::now();
                let body = conn.send(&req).await?;
                if !contains(&body, br#""text":"42""#) {
                    return Err(std::io::Error::other("a wrong answer"));
                }
                lat.push(t.elapsed());
            }
            Ok::<_, std::io::Error>(lat)
        });
    }
    let mut all = Vec::new();
    while let Some(r) = set.join_next().await {
        all.extend(r.map_err(|e| e.to_string())?.map_err(|e| e.to_string())?);
    }
    all.sort();
    let rate = all.len() as f64 / seconds as f64;
    Ok((rate, percentile(&all, 0.5), percentile(&all, 0.99)))
}

/// Reads every stream in its own task, reporting each `resources/updated` it sees.
fn watch(
    streams: Vec<TcpStream>,
) -> (
    mpsc::UnboundedReceiver<Instant>,
    Vec<tokio::task::JoinHandle<()>>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let tasks = streams
        .into_iter()
        .map(|mut s| {
            let tx = tx.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                loop {
                    match s.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => {
                            // One change is one small event: it arrives in one read.
                            let hits = buf[..n]
                                .windows(b"resources/updated".len())
                                .filter(|w| *w == b"resources/updated")
                                .count();
                            for _ in 0..hits {
                                let _ = tx.send(Instant::now());
                            }
                        }
                    }
                }
            })
        })
        .collect();
    (rx, tasks)
}

/// Memory per stream at `n` streams on a fresh server of `kind`: (KiB per stream, the open
/// streams).
async fn memory_per_stream(server: &Server, n: usize) -> Result<(f64, Vec<TcpStream>), String> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = server.rss();
    let streams = open_streams(server.port, n).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = server.rss();
    Ok((after.saturating_sub(before) as f64 / n as f64, streams))
}

/// Time from a `touch` to its arrival on every stream, `rounds` times: sorted latencies, and
/// each round's p99.
async fn fan_out(
    port: u16,
    streams: Vec<TcpStream>,
    rounds: usize,
) -> Result<(Vec<Duration>, Vec<Duration>), String> {
    let n = streams.len();
    let (mut rx, tasks) = watch(streams);
    let mut all = Vec::new();
    let mut per_round = Vec::new();
    let mut conn = KeepAlive::connect(port).await.map_err(|e| e.to_string())?;
    for _ in 0..rounds {
        let t0 = Instant::now();
        conn.send(&touch_call()).await.map_err(|e| e.to_string())?;
        let mut round = Vec::with_capacity(n);
        while round.len() < n {
            match tokio::time::timeout(Duration::from_secs(30), rx.recv()).await {
                Ok(Some(at)) => round.push(at.duration_since(t0)),
                _ => {
                    return Err(format!(
                        "only {} of {n} streams got the change",
                        round.len()
                    ));
                }
            }
        }
        round.sort();
        per_round.push(percentile(&round, 0.99));
        all.extend(round);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for t in tasks {
        t.abort();
    }
    all.sort();
    Ok((all, per_round))
}

/// `n` concurrent exchanges of `reqs` (each on its own connection): (wall time, p99, failures).
async fn concurrent(
    port: u16,
    n: usize,
    make: impl Fn() -> Vec<Request>,
    ok: fn(usize, &[u8]) -> Option<String>,
) -> (Duration, Duration, Duration, usize) {
    let t = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..n {
        let reqs = make();
        set.spawn(async move {
            let start = Instant::now();
            let mut state: Option<String> = None;
            for (i, req) in reqs.iter().enumerate() {
                let req = match (&state, i) {
                    (Some(s), 1) => mrtr_retry(s),
                    _ => req.clone(),
                };
                let body = exchange(port, &req).await.ok()?;
                state = Some(ok(i, &body)?);
            }
            Some(start.elapsed())
        });
    }
    let mut lat = Vec::new();
    let mut failed = 0;
    while let Some(r) = set.join_next().await {
        match r {
            Ok(Some(d)) => lat.push(d),
            _ => failed += 1,
        }
    }
    lat.sort();
    (
        t.elapsed(),
        percentile(&lat, 0.5),
        percentile(&lat, 0.99),
        failed,
    )
}

fn mrtr_ok(i: usize, body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    if i == 0 {
        let at = text.find("\"requestState\":\"")? + "\"requestState\":\"".len();
        let end = text[at..].find('"')?;
        Some(text[at..at + end].to_owned())
    } else {
        text.contains("\"isError\":false").then(String::new)
    }
}

fn sse_ok(_: usize, body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    (text.matches("notifications/progress").count() == 2 && text.contains("\"text\":\"42\""))
        .then(String::new)
}

/// RSS after each of five rounds of opening and closing `batch` streams on a fresh server, and
/// the largest growth over the first round.
async fn rounds_of_streams(kind: Kind, batch: usize) -> Result<(Vec<u64>, f64), String> {
    let server = Server::start(kind)?;
    let mut after = Vec::new();
    for _ in 0..5 {
        let streams = open_streams(server.port, batch).await?;
        drop(streams);
        tokio::time::sleep(Duration::from_millis(700)).await;
        after.push(server.rss());
    }
    let first = after[0] as f64;
    let worst = after
        .iter()
        .map(|&r| (r as f64 - first) / first)
        .fold(0.0_f64, f64::max);
    Ok((after, worst))
}

/// Raises this process's open-file limit to its hard limit (the servers it starts inherit it).
#[allow(unsafe_code)]
fn raise_file_limit() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `lim` is a valid `rlimit` for the duration of both calls.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 0;
        }
        lim.rlim_cur = lim.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
    }
    lim.rlim_cur
}

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
    let files = raise_file_limit();
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
        let ours = Server::start(Kind::Ours)?;
        let (per, _streams) = memory_per_stream(&ours, most).await?;
        println!("{most} streams: raw axum {floor:.2} KiB per stream, ours {per:.2}");
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
        // Only the fan-out, for iterating on it (on a server of its own unless told where).
        let (_own, front, touch) = match external {
            Some((front, touch)) => (None, front, touch),
            None => {
                let server = Server::start(Kind::Ours)?;
                let port = server.port;
                (Some(server), port, port)
            }
        };
        let streams = open_streams(front, most).await?;
        let rounds = arg("--rounds").and_then(|v| v.parse().ok()).unwrap_or(5);
        let (latencies, per_round) = fan_out(touch, streams, rounds).await?;
        println!(
            "{most} streams through port {front}, change on port {touch}, {rounds} rounds: \
             p50 {} ms, p99 {} ms, max {} ms; p99 per round: {} ms",
            ms(percentile(&latencies, 0.5)),
            ms(percentile(&latencies, 0.99)),
            ms(*latencies.last().unwrap_or(&Duration::ZERO)),
            per_round
                .iter()
                .map(|d| ms(*d))
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok(());
    }
    println!(
        "## Many clients (`mcp-bench-clients`, {most} streams at most, open-file limit {files})\n"
    );

    // 1. Memory per open listen stream, against the raw axum floor.
    println!("### Memory per open `subscriptions/listen` stream (RSS growth ÷ streams)\n");
    println!("| streams | raw axum floor, KiB/stream | ours, KiB/stream | ours ÷ floor |");
    println!("|---:|---:|---:|---:|");
    let mut floor_at_most = 0.0;
    let mut ours_at_most = 0.0;
    let mut kept = None;
    for &n in &counts {
        let base = Server::start(Kind::Baseline)?;
        let (floor, streams) = memory_per_stream(&base, n).await?;
        drop(streams);
        drop(base);
        let ours = Server::start(Kind::Ours)?;
        let (per, streams) = memory_per_stream(&ours, n).await?;
        println!(
            "| {n} | {floor:.1} | {per:.1} | {:.2} |",
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
    println!(
        "p50 {} ms, p99 {} ms, max {} ms; p99 per round: {} ms\n",
        ms(percentile(&latencies, 0.5)),
        ms(fan_p99),
        ms(*latencies.last().unwrap_or(&Duration::ZERO)),
        per_round
            .iter()
            .map(|d| ms(*d))
            .collect::<Vec<_>>()
            .join(", ")
    );
    drop(ours);
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
    for kind in [Kind::Baseline, Kind::Ours] {
        let (rounds, w) = rounds_of_streams(kind, batch).await?;
        println!(
            "| {kind:?} | {} | +{:.1} % |",
            rounds
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            w * 100.0
        );
        if kind == Kind::Ours {
            worst = w;
        }
    }
    println!();

    println!("### Targets\n");
    println!("| target | figure | |");
    println!("|---|---|---|");
    println!(
        "| memory per idle listen stream ≤ the raw axum floor ({most} streams) | {ours_at_most:.1} vs {floor_at_most:.1} KiB | {} |",
        verdict(ours_at_most <= floor_at_most)
    );
    println!(
        "| a change reaches {most} streams in ≤ 100 ms at p99 | {} ms | {} |",
        ms(fan_p99),
        verdict(fan_p99 <= Duration::from_millis(100))
    );
    println!(
        "| tools/call p99 with {most} idle streams ≤ 1.5× with none | {} vs {} ms | {} |",
        ms(p99_open),
        ms(p99_none),
        verdict(p99_open.as_secs_f64() <= 1.5 * p99_none.as_secs_f64())
    );
    println!(
        "| no leak: five rounds within 10 % of the first | worst +{:.1} % | {} |",
        worst * 100.0,
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
