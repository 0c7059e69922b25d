//! A bounded load test on loopback: the protected study server (`mcp-bench-ours --observe
//! auth`: OAuth, `add` needing a scope) under many concurrent clients for a fixed time, mixing
//! authenticated `tools/call`s (each client's own token, and every 50th call one of its 100
//! users' tokens: verified the first time, cached after),
//! MRTR rounds (`input_required`, then the retry with its `requestState`) and
//! `subscriptions/listen` streams opened, held and closed.
//!
//! Every request carries its own id; every answer must be the right one for its request (no
//! error, no lost answer, none duplicated or crossed). The server's resident memory is sampled
//! twice a second: the mean of the last 10 seconds must be within 10 % of the first 10 seconds'.
//!
//! Usage: `mcp-bench-load [--seconds 60] [--clients 24] [--listeners 8]` (build with
//! `cargo build --release -p mcp-bench --bins`). Exits non-zero when a check fails.

use mcp_bench::client::{Conn, Response};
use mcp_bench::{Request, add_call, calc_token, mrtr_first, mrtr_retry};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Users (distinct tokens) each client switches between.
const USERS_PER_CLIENT: usize = 100;

#[derive(Default)]
struct Counts {
    calls: AtomicU64,
    first_sights: AtomicU64,
    mrtr_rounds: AtomicU64,
    streams: AtomicU64,
    errors: AtomicU64,
    crossed: AtomicU64,
}

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `req` with the JSON-RPC id `id` (the bodies are built with id 1).
fn with_id(req: &Request, id: u64) -> Request {
    let mut r = req.clone();
    r.body = r.body.replacen("\"id\":1,", &format!("\"id\":{id},"), 1);
    r
}

/// The id of an answer, and whether it is a result.
fn id_of(resp: &Response) -> Option<(u64, bool)> {
    let v: serde_json::Value = serde_json::from_str(&resp.body).ok()?;
    Some((v["id"].as_u64()?, v.get("result").is_some()))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(18_555)
}

fn start_server(port: u16) -> Result<Child, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let ours = exe.with_file_name("mcp-bench-ours");
    let child = Command::new(&ours)
        .args(["--addr", &format!("127.0.0.1:{port}"), "--observe", "auth"])
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("{}: {e}", ours.display()))?;
    let probe = add_call(false).with_token(&calc_token(0));
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(30) {
        if let Ok(r) = mcp_bench::client::once(port, &probe)
            && r.status == 200
        {
            return Ok(child);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err("the server did not answer within 30 s".into())
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
}

/// One client: calls and MRTR rounds on one keep-alive connection until `stop`.
fn client(
    port: u16,
    n: usize,
    fresh_every: u64,
    next_id: &AtomicU64,
    counts: &Counts,
    stop: &AtomicBool,
) {
    let token = calc_token(1 + n);
    let call = add_call(false).with_token(&token);
    // This client's users, each with a token minted once (tokens live for an hour).
    let users: Vec<Request> = (0..USERS_PER_CLIENT)
        .map(|u| add_call(false).with_token(&calc_token(1_000_000 + n * USERS_PER_CLIENT + u)))
        .collect();
    let first = mrtr_first().with_token(&token);
    let mut conn = match Conn::connect(port) {
        Ok(c) => c,
        Err(_) => {
            counts.errors.fetch_add(1, Ordering::Relaxed);
            return;
        }
    };
    let mut exchange = |req: &Request, counts: &Counts| -> Option<Response> {
        let id = next_id.fetch_add(1, Ordering::Relaxed);
        let resp = conn.send(&with_id(req, id));
        match resp {
            Ok(r) if r.status == 200 => match id_of(&r) {
                Some((got, true)) if got == id => Some(r),
                Some((got, _)) if got != id => {
                    counts.crossed.fetch_add(1, Ordering::Relaxed);
                    None
                }
                _ => {
                    counts.errors.fetch_add(1, Ordering::Relaxed);
                    None
                }
            },
            _ => {
                counts.errors.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    };
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        i += 1;
        if i.is_multiple_of(10) {
            // An MRTR exchange: input_required, then the retry with the state.
            let Some(r) = exchange(&first, counts) else {
                continue;
            };
            let v: serde_json::Value = serde_json::from_str(&r.body).unwrap_or_default();
            let Some(state) = v["result"]["requestState"].as_str() else {
                counts.errors.fetch_add(1, Ordering::Relaxed);
                continue;
            };
            let retry = mrtr_retry(state).with_token(&token);
            if let Some(r) = exchange(&retry, counts) {
                if r.body.contains(r#""resultType":"complete""#) {
                    counts.mrtr_rounds.fetch_add(1, Ordering::Relaxed);
                } else {
                    counts.errors.fetch_add(1, Ordering::Relaxed);
                }
            }
        } else if fresh_every > 0 && i % fresh_every == 1 {
            // Another of this client's 100 users: its token is verified (signature, claims) the
            // first time the server sees it, and found in the cache after that.
            let user = (i / fresh_every) as usize % USERS_PER_CLIENT;
            if let Some(r) = exchange(&users[user], counts)
                && r.body.contains(r#""text":"42""#)
            {
                counts.first_sights.fetch_add(1, Ordering::Relaxed);
            }
        } else if let Some(r) = exchange(&call, counts) {
            if r.body.contains(r#""text":"42""#) {
                counts.calls.fetch_add(1, Ordering::Relaxed);
            } else {
                counts.errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// One listener: opens a listen stream, waits for its acknowledgement, holds it a while, closes
/// it, again until `stop`.
fn listener(port: u16, n: usize, counts: &Counts, stop: &AtomicBool) {
    let token = calc_token(500 + n);
    let body = format!(
        r#"{{"id":"listen-{n}","jsonrpc":"2.0","method":"subscriptions/listen","params":{{"notifications":{{"toolsListChanged":true}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    while !stop.load(Ordering::Relaxed) {
        let ok = (|| -> std::io::Result<bool> {
            let mut s = TcpStream::connect(("127.0.0.1", port))?;
            s.set_read_timeout(Some(Duration::from_secs(5)))?;
            let head = format!(
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
                 Mcp-Method: subscriptions/listen\r\nAuthorization: Bearer {token}\r\n\
                 Content-Length: {}\r\n\r\n{body}",
                body.len()
            );
            s.write_all(head.as_bytes())?;
            let mut seen = Vec::new();
            let mut buf = [0u8; 4096];
            let t0 = Instant::now();
            while t0.elapsed() < Duration::from_secs(5) {
                let got = s.read(&mut buf)?;
                if got == 0 {
                    break;
                }
                seen.extend_from_slice(&buf[..got]);
                if String::from_utf8_lossy(&seen).contains("subscriptions/acknowledged") {
                    // Held for a while, then dropped: the server ends the stream.
                    std::thread::sleep(Duration::from_millis(1500));
                    return Ok(true);
                }
            }
            Ok(false)
        })();
        match ok {
            Ok(true) => counts.streams.fetch_add(1, Ordering::Relaxed),
            _ => counts.errors.fetch_add(1, Ordering::Relaxed),
        };
    }
}

fn mean(v: &[u64]) -> f64 {
    v.iter().sum::<u64>() as f64 / v.len().max(1) as f64
}

fn main() {
    let seconds = arg("--seconds", 60);
    let clients = arg("--clients", 24) as usize;
    let listeners = arg("--listeners", 8) as usize;
    let fresh_every = arg("--fresh-every", 50);
    let port = free_port();
    let mut server = match start_server(port) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mcp-bench-load: {e}");
            std::process::exit(2);
        }
    };
    let pid = server.id();
    let stop = Arc::new(AtomicBool::new(false));
    let counts = Arc::new(Counts::default());
    let next_id = Arc::new(AtomicU64::new(1000));
    let samples = Arc::new(std::sync::Mutex::new(Vec::<(f64, u64)>::new()));
    let t0 = Instant::now();
    let mut threads = Vec::new();
    {
        let (stop, samples) = (stop.clone(), samples.clone());
        threads.push(std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if let Some(kib) = rss_kib(pid) {
                    samples
                        .lock()
                        .unwrap()
                        .push((t0.elapsed().as_secs_f64(), kib));
                }
                std::thread::sleep(Duration::from_millis(500));
            }
        }));
    }
    let open = Arc::new(AtomicUsize::new(0));
    for n in 0..clients {
        let (stop, counts, next_id, open) =
            (stop.clone(), counts.clone(), next_id.clone(), open.clone());
        threads.push(std::thread::spawn(move || {
            open.fetch_add(1, Ordering::Relaxed);
            client(port, n, fresh_every, &next_id, &counts, &stop);
        }));
    }
    for n in 0..listeners {
        let (stop, counts) = (stop.clone(), counts.clone());
        threads.push(std::thread::spawn(move || {
            listener(port, n, &counts, &stop)
        }));
    }
    std::thread::sleep(Duration::from_secs(seconds));
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let _ = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = server.kill();
    let _ = server.wait();

    let samples = samples.lock().unwrap().clone();
    let window = 10.0_f64.min(elapsed / 3.0);
    let first: Vec<u64> = samples
        .iter()
        .filter(|(t, _)| *t <= window)
        .map(|s| s.1)
        .collect();
    let last: Vec<u64> = samples
        .iter()
        .filter(|(t, _)| *t >= elapsed - window)
        .map(|s| s.1)
        .collect();
    let (rss_first, rss_last) = (mean(&first), mean(&last));
    let drift = (rss_last - rss_first) / rss_first.max(1.0);
    let c = &counts;
    let total = c.calls.load(Ordering::Relaxed)
        + c.first_sights.load(Ordering::Relaxed)
        + 2 * c.mrtr_rounds.load(Ordering::Relaxed);
    println!(
        "load: {seconds} s, {clients} clients, {listeners} listeners ({} opened)",
        open.load(Ordering::Relaxed)
    );
    println!(
        "requests answered correctly: {total} ({:.0}/s): {} calls with the client's token, {} with one of {} user tokens, {} MRTR rounds (2 requests each); {} listen streams opened, acknowledged and closed",
        total as f64 / elapsed,
        c.calls.load(Ordering::Relaxed),
        c.first_sights.load(Ordering::Relaxed),
        clients * USERS_PER_CLIENT,
        c.mrtr_rounds.load(Ordering::Relaxed),
        c.streams.load(Ordering::Relaxed),
    );
    let errors = c.errors.load(Ordering::Relaxed);
    let crossed = c.crossed.load(Ordering::Relaxed);
    println!("errors: {errors}; answers lost, duplicated or crossed: {crossed}");
    println!(
        "server RSS: first {window:.0} s {:.1} MiB, last {window:.0} s {:.1} MiB ({:+.1} %)",
        rss_first / 1024.0,
        rss_last / 1024.0,
        drift * 100.0
    );
    if std::env::var_os("MCP_LOAD_RSS").is_some() {
        let curve: Vec<String> = samples
            .iter()
            .step_by(4)
            .map(|(t, kib)| format!("{t:.0}s:{:.1}", *kib as f64 / 1024.0))
            .collect();
        println!("RSS MiB over time: {}", curve.join(" "));
    }
    let ok = errors == 0 && crossed == 0 && drift.abs() <= 0.10 && total > 0;
    println!("{}", if ok { "PASS" } else { "FAIL" });
    if !ok {
        std::process::exit(1);
    }
}
