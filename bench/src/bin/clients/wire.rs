//! What the client does on the wire: raw HTTP requests, listen streams opened and watched,
//! keep-alive call load, concurrent exchanges, and the figures taken from them.

use crate::server::{Kind, Server};
use mcp_bench::{Request, add_call, heap_call, listen_request, mrtr_retry, touch_call};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

/// The bytes of one HTTP request for `req` (`close`: ask the server to close after answering).
pub(crate) fn http(port: u16, req: &Request, close: bool) -> Vec<u8> {
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

pub(crate) fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Opens a listen stream and waits for its acknowledgement.
pub(crate) async fn open_stream(port: u16, req: &[u8]) -> std::io::Result<TcpStream> {
    open_stream_from(None, port, req).await
}

/// [`open_stream`] from the loopback address `from` (127.0.x.y) when given: a client of its
/// own, as the server's shares see it.
pub(crate) async fn open_stream_from(
    from: Option<Ipv4Addr>,
    port: u16,
    req: &[u8],
) -> std::io::Result<TcpStream> {
    let mut s = connect_from(from, port).await?;
    s.set_nodelay(true)?;
    s.write_all(req).await?;
    let mut seen = Vec::new();
    let mut buf = [0u8; 2048];
    while !contains(&seen, b"acknowledged") {
        // Refused (a 503 and its JSON error): no acknowledgement will come.
        let refused = contains(&seen, b"\r\n\r\n") && !seen.starts_with(b"HTTP/1.1 200");
        let n = match refused {
            true => 0,
            false => s.read(&mut buf).await?,
        };
        if n == 0 {
            return Err(std::io::Error::other(format!(
                "no acknowledgement: {}",
                String::from_utf8_lossy(&seen[..seen.len().min(300)])
            )));
        }
        seen.extend_from_slice(&buf[..n]);
    }
    Ok(s)
}

/// A connection to 127.0.0.1:`port`, from the address `from` when given.
async fn connect_from(from: Option<Ipv4Addr>, port: u16) -> std::io::Result<TcpStream> {
    let Some(from) = from else {
        return TcpStream::connect(("127.0.0.1", port)).await;
    };
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(SocketAddr::from((from, 0)))?;
    socket
        .connect(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
        .await
}

/// The loopback address of client `i` (from 0): 127.0.1.1, 127.0.1.2, … 127.0.1.250,
/// 127.0.2.1, …: 63,500 clients before 127.0.255.x (the whole of 127/8 is loopback on Linux).
pub(crate) fn own_address(i: usize) -> Ipv4Addr {
    Ipv4Addr::new(127, 0, (1 + i / 250) as u8, (1 + i % 250) as u8)
}

/// Opens `n` listen streams, 200 at a time.
pub(crate) async fn open_streams(port: u16, n: usize) -> Result<Vec<TcpStream>, String> {
    open_streams_from(port, n, |_| None).await
}

/// [`open_streams`], stream `i` from the address `from(i)` when it gives one.
pub(crate) async fn open_streams_from(
    port: u16,
    n: usize,
    from: fn(usize) -> Option<Ipv4Addr>,
) -> Result<Vec<TcpStream>, String> {
    let req = Arc::new(http(port, &listen_request(), false));
    let mut streams = Vec::with_capacity(n);
    let mut left = n;
    while left > 0 {
        let batch = left.min(200);
        let mut set = tokio::task::JoinSet::new();
        for k in 0..batch {
            let req = req.clone();
            let from = from(streams.len() + k);
            set.spawn(async move { open_stream_from(from, port, &req).await });
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
pub(crate) async fn exchange(port: u16, req: &Request) -> std::io::Result<Vec<u8>> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).await?;
    s.set_nodelay(true)?;
    s.write_all(&http(port, req, true)).await?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).await?;
    Ok(out)
}

/// A keep-alive connection for requests answered with a `Content-Length` body.
pub(crate) struct KeepAlive {
    s: TcpStream,
    port: u16,
    buf: Vec<u8>,
}

impl KeepAlive {
    pub(crate) async fn connect(port: u16) -> std::io::Result<KeepAlive> {
        let s = TcpStream::connect(("127.0.0.1", port)).await?;
        s.set_nodelay(true)?;
        Ok(KeepAlive {
            s,
            port,
            buf: Vec::new(),
        })
    }
    pub(crate) async fn send(&mut self, req: &Request) -> std::io::Result<Vec<u8>> {
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

pub(crate) fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// "p50 …, p99 …, max …; p99 per round: …" of a fan-out's sorted latencies.
pub(crate) fn spread(sorted: &[Duration], per_round: &[Duration]) -> String {
    format!(
        "p50 {} ms, p99 {} ms, max {} ms; p99 per round: {} ms",
        ms(percentile(sorted, 0.5)),
        ms(percentile(sorted, 0.99)),
        ms(*sorted.last().unwrap_or(&Duration::ZERO)),
        per_round
            .iter()
            .map(|d| ms(*d))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

pub(crate) fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

/// Calls `add` from `clients` keep-alive connections for `seconds`: (requests/s, p50, p99).
pub(crate) async fn call_load(
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
pub(crate) fn watch(
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
pub(crate) async fn memory_per_stream(
    server: &Server,
    n: usize,
) -> Result<(f64, Vec<TcpStream>), String> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = server.rss();
    let streams = open_streams(server.port, n).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = server.rss();
    Ok((after.saturating_sub(before) as f64 / n as f64, streams))
}

/// Time from a `touch` to its arrival on every stream, `rounds` times: sorted latencies, and
/// each round's p99.
pub(crate) async fn fan_out(
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
pub(crate) async fn concurrent(
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

pub(crate) fn mrtr_ok(i: usize, body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    if i == 0 {
        let at = text.find("\"requestState\":\"")? + "\"requestState\":\"".len();
        let end = text[at..].find('"')?;
        Some(text[at..at + end].to_owned())
    } else {
        text.contains("\"isError\":false").then(String::new)
    }
}

pub(crate) fn sse_ok(_: usize, body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    (text.matches("notifications/progress").count() == 2 && text.contains("\"text\":\"42\""))
        .then(String::new)
}

/// RSS and heap in use after each of `count` rounds of opening and closing `batch` streams on
/// a fresh server.
pub(crate) async fn rounds_of_streams(
    kind: Kind,
    batch: usize,
    count: usize,
) -> Result<Rounds, String> {
    let server = Server::start(kind)?;
    let mut rounds = Rounds::default();
    for _ in 0..count {
        let streams = open_streams(server.port, batch).await?;
        drop(streams);
        tokio::time::sleep(Duration::from_millis(700)).await;
        rounds.rss.push(server.rss());
        rounds.heap.push(heap(server.port).await?);
    }
    Ok(rounds)
}

/// RSS (KiB) and heap in use (bytes) after each round of opening and closing streams.
#[derive(Default)]
pub(crate) struct Rounds {
    pub(crate) rss: Vec<u64>,
    pub(crate) heap: Vec<u64>,
}

impl Rounds {
    /// The largest growth of `values` over the first, as a fraction.
    pub(crate) fn worst(values: &[u64]) -> f64 {
        let first = values.first().copied().unwrap_or(1).max(1) as f64;
        values
            .iter()
            .map(|&r| (r as f64 - first) / first)
            .fold(0.0_f64, f64::max)
    }
}

/// The server's heap in use, from its `heap` tool.
async fn heap(port: u16) -> Result<u64, String> {
    let body = exchange(port, &heap_call())
        .await
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&body);
    // The answer's only text block is the number.
    let start = text
        .find("\"text\":\"")
        .ok_or("no text in the heap answer")?
        + 8;
    text[start..]
        .split('"')
        .next()
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("no number in the heap answer: {text}"))
}
