//! The attacks on a public server, each re-run with its numbers: a server with the defaults a
//! public server gets (`Limits::default()`, `HttpOptions::default()`), run as a process of its
//! own at a 1,024 file-descriptor limit (systemd's default), and one attacking client at
//! 127.0.0.2 trying to freeze it or take it from a second client at 127.0.0.3. Loopback only;
//! every case is bounded in count and time.
//!
//! Usage: `mcp-bench-attacks` (build with `cargo build --release -p mcp-bench --bins`; needs
//! `prlimit` from util-linux). Prints one markdown table; exits non-zero when a check fails.
//! `mcp-bench-attacks --serve PORT` is the server side.

use mcp_bench::client::{Conn, Response, connect_from};
use mcp_bench::{Request, request};
use mcp_runtime::{
    HttpOptions, NoArguments, Resource, ResourceTemplate, Server, TaskSupport, Tool,
};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ATTACKER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
const OTHER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 3));

fn server() -> Result<Server, mcp_runtime::BuildError> {
    Server::builder()
        .name("attacks")
        .version("1.0.0")
        .list_changed(true)
        .resource_subscriptions(true)
        .state_keys(mcp_bench::key_ring())
        .tool(Tool::new("ping").handler(|_: NoArguments, _cx| async { "pong" }))
        .tool(
            Tool::new("heap")
                .handler(|_: NoArguments, _cx| async { mcp_bench::heap_in_use().to_string() }),
        )
        .tool(Tool::new("wait").handler(|_: NoArguments, _cx| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            "waited"
        }))
        .tool(
            Tool::new("quick")
                .task(TaskSupport::Required)
                .handler(|_: NoArguments, _cx| async { "done" }),
        )
        .tool(
            Tool::new("slow")
                .task(TaskSupport::Required)
                .handler(|_: NoArguments, _cx| async {
                    tokio::time::sleep(Duration::from_secs(30)).await;
                    "slowly done"
                }),
        )
        .resource(Resource::new("notes://a", "a").handler(|_| async { "a" }))
        .resource_template(
            ResourceTemplate::new("semver://{major}.{minor}.{patch}", "semver")
                .handler(|read| async move { format!("major {}", read.variables["major"]) }),
        )
        .build()
}

fn call(name: &str, tasks: bool) -> Request {
    request(
        "tools/call",
        Some(name),
        json!({"name": name, "arguments": {}}),
        tasks,
    )
}

fn read(uri: &str) -> Request {
    request("resources/read", Some(uri), json!({"uri": uri}), false)
}

fn listen(filter: Value) -> Request {
    request(
        "subscriptions/listen",
        None,
        json!({"notifications": filter}),
        false,
    )
}

fn legacy(body: Value, session: Option<&str>) -> Request {
    let mut headers = Vec::new();
    if let Some(s) = session {
        headers.push(("Mcp-Session-Id".to_owned(), s.to_owned()));
        headers.push(("MCP-Protocol-Version".to_owned(), "2025-11-25".to_owned()));
    }
    Request {
        body: body.to_string(),
        headers,
    }
}

fn initialize() -> Request {
    legacy(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "attacker", "version": "1"}}}),
        None,
    )
}

/// One request from `from` on a fresh connection.
fn once(port: u16, from: IpAddr, req: &Request) -> std::io::Result<Response> {
    Conn::connect_from(port, from)?.send(req)
}

/// `req` written on a fresh connection from `from`, its answer not read: the socket holds it.
fn hold(port: u16, from: IpAddr, req: &Request) -> std::io::Result<TcpStream> {
    let mut s = connect_from(port, from)?;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n{}\r\n{}",
        req.body.len(),
        req.headers
            .iter()
            .map(|(k, v)| format!("{k}: {v}\r\n"))
            .collect::<String>(),
        req.body
    );
    s.write_all(head.as_bytes())?;
    Ok(s)
}

/// The first bytes the server answers on `s` (up to 4 KiB, within 10 s).
fn first_bytes(s: &mut TcpStream) -> String {
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let mut buf = vec![0u8; 4096];
    let n = s.read(&mut buf).unwrap_or(0);
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// The server's heap in use, in KiB (glibc's count of what is handed out and not freed: what
/// the server keeps, where its RSS also keeps what it freed).
fn heap_kib(port: u16) -> u64 {
    once(port, OTHER, &call("heap", false))
        .ok()
        .and_then(|r| serde_json::from_str::<Value>(&r.body).ok())
        .and_then(|v| {
            v["result"]["content"][0]["text"]
                .as_str()?
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |bytes| bytes / 1024)
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

fn start(port: u16) -> Result<Child, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let child = Command::new("prlimit")
        .arg("--nofile=1024:1024")
        .arg("--")
        .arg(&exe)
        .args(["--serve", &port.to_string()])
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("prlimit {}: {e}", exe.display()))?;
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(30) {
        if once(port, OTHER, &call("ping", false)).is_ok_and(|r| r.status == 200) {
            return Ok(child);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err("the server did not answer within 30 s".into())
}

/// A row of the table.
struct Row {
    case: &'static str,
    attack: String,
    result: String,
    ok: bool,
}

/// How long `req` takes from `from`, and its answer.
fn timed(port: u16, from: IpAddr, req: &Request) -> (Duration, std::io::Result<Response>) {
    let at = Instant::now();
    let r = once(port, from, req);
    (at.elapsed(), r)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn template(port: u16) -> Row {
    let uri = format!("semver://{}/", ".".repeat(8 * 1024 - 10));
    let reads: Vec<_> = (0..2)
        .map(|_| {
            let req = read(&uri);
            std::thread::spawn(move || timed(port, ATTACKER, &req))
        })
        .collect();
    let (other, answered) = timed(port, OTHER, &call("ping", false));
    let times: Vec<Duration> = reads.into_iter().map(|h| h.join().unwrap().0).collect();
    let slowest = times.iter().max().copied().unwrap_or_default();
    let ok = slowest < Duration::from_secs(1) && other < Duration::from_secs(1);
    Row {
        case: "1 template matching",
        attack:
            "two reads of `semver://` + 8,182 dots + `/` against `semver://{major}.{minor}.{patch}`"
                .into(),
        result: format!(
            "each read answered in {}; a concurrent `tools/call` from another client in {} ({})",
            ms(slowest),
            ms(other),
            answered.map(|r| r.status).unwrap_or(0)
        ),
        ok,
    }
}

fn listen_subscriptions(port: u16, pid: u32) -> Row {
    let before = rss_kib(pid);
    let million: Vec<String> = (0..800_000).map(|i| (i % 10).to_string()).collect();
    let req = listen(json!({"resourceSubscriptions": million}));
    let mut refused = 0;
    let at = Instant::now();
    for _ in 0..10 {
        if once(port, ATTACKER, &req).is_ok_and(|r| r.body.contains("-32602")) {
            refused += 1;
        }
    }
    let took = at.elapsed() / 10;
    let after_refused = rss_kib(pid);
    let heap_before = heap_kib(port);
    // Ten streams at the most one may keep: 256 URIs, 64 KiB of them.
    let allowed: Vec<String> = (0..256).map(|i| format!("notes://{i:0>245}")).collect();
    let req = listen(json!({"resourceSubscriptions": allowed}));
    let mut held = Vec::new();
    for _ in 0..10 {
        if let Ok(mut s) = hold(port, ATTACKER, &req)
            && first_bytes(&mut s).contains("acknowledged")
        {
            held.push(s);
        }
    }
    let per_stream = heap_kib(port).saturating_sub(heap_before) / 10;
    drop(held);
    Row {
        case: "2 listen `resourceSubscriptions`",
        attack: "10 streams of 800,000 one-byte URIs (a 4 MB body each); then 10 at the limit"
            .into(),
        result: format!(
            "{refused}/10 refused with -32602 in {} each, RSS {} → {} KiB; {} streams of 256 URIs (64 KiB) held: {} KiB of heap each",
            ms(took),
            before,
            after_refused,
            10,
            per_stream
        ),
        ok: refused == 10 && after_refused < before + 64 * 1024,
    }
}

fn legacy_subscriptions(port: u16, pid: u32) -> Row {
    let Ok(opened) = once(port, ATTACKER, &initialize()) else {
        return failed("3 legacy `resources/subscribe`", "initialize failed");
    };
    let session = opened.session.unwrap_or_default();
    let before = rss_kib(pid);
    let mut refused = 0;
    let at = Instant::now();
    for i in 0..60 {
        let uri = format!("notes://{i}/{}", "x".repeat(3_000_000));
        let body = json!({"jsonrpc": "2.0", "id": i, "method": "resources/subscribe", "params": {"uri": uri}});
        if once(port, ATTACKER, &legacy(body, Some(&session)))
            .is_ok_and(|r| r.body.contains("-32602"))
        {
            refused += 1;
        }
    }
    let took = at.elapsed();
    let after = rss_kib(pid);
    let heap_before = heap_kib(port);
    // Twenty sessions at the most one may keep: eight URIs of 8,000 bytes (64 KiB).
    let third = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 4));
    let mut kept = 0;
    for _ in 0..20 {
        let Some(session) = once(port, third, &initialize())
            .ok()
            .and_then(|r| r.session)
        else {
            continue;
        };
        for i in 0..8 {
            let uri = format!("notes://{i}/{}", "x".repeat(8_000 - 10));
            let body = json!({"jsonrpc": "2.0", "id": i, "method": "resources/subscribe", "params": {"uri": uri}});
            if once(port, third, &legacy(body, Some(&session)))
                .is_ok_and(|r| r.body.contains("\"result\""))
            {
                kept += 1;
            }
        }
    }
    let per_session = heap_kib(port).saturating_sub(heap_before) / 20;
    Row {
        case: "3 legacy `resources/subscribe`",
        attack: "60 URIs of 3 MB each on one 2025-11-25 session; then 20 sessions at the limit"
            .into(),
        result: format!(
            "{refused}/60 refused with -32602 in {} in all; RSS {before} → {after} KiB; {kept} subscriptions of 8,000 bytes kept on 20 sessions: {per_session} KiB of heap a session",
            ms(took)
        ),
        ok: refused == 60 && after < before + 64 * 1024 && kept == 160,
    }
}

fn failed(case: &'static str, why: &str) -> Row {
    Row {
        case,
        attack: String::new(),
        result: why.into(),
        ok: false,
    }
}

/// Whether the second client is still served while the attacker holds everything it could.
fn other_served(port: u16, req: &Request, expect: &str) -> (Duration, bool) {
    let (took, r) = timed(port, OTHER, req);
    (
        took,
        r.is_ok_and(|r| r.status == 200 && r.body.contains(expect)),
    )
}

fn finished_tasks(port: u16) -> Row {
    let mut created = 0;
    let at = Instant::now();
    let mut conn = Conn::connect_from(port, ATTACKER).expect("connect");
    for _ in 0..10_000 {
        if conn
            .send(&call("quick", true))
            .is_ok_and(|r| r.body.contains("taskId"))
        {
            created += 1;
        }
    }
    let took = at.elapsed();
    let (other, ok) = other_served(port, &call("quick", true), "taskId");
    Row {
        case: "5a finished tasks",
        attack: "10,000 tasks that finish at once, from one client".into(),
        result: format!(
            "{created} created in {:.1} s (the client keeps its newest 500); the other client's task created in {}",
            took.as_secs_f64(),
            ms(other)
        ),
        ok,
    }
}

fn running_tasks(port: u16) -> Row {
    let mut conn = Conn::connect_from(port, ATTACKER).expect("connect");
    let mut created = 0;
    let mut busy = 0;
    for _ in 0..1_500 {
        match conn.send(&call("slow", true)) {
            Ok(r) if r.body.contains("taskId") => created += 1,
            Ok(r) if r.status == 503 => busy += 1,
            _ => {}
        }
    }
    let (other, ok) = other_served(port, &call("slow", true), "taskId");
    Row {
        case: "5b running tasks",
        attack: "1,500 tasks of 30 s from one client".into(),
        result: format!(
            "{created} run, {busy} refused with 503 (its share: 16); the other client's task created in {}",
            ms(other)
        ),
        ok: ok && created <= 16,
    }
}

fn sessions(port: u16) -> Row {
    let mut opened = 0;
    let mut busy = 0;
    let mut conn = Conn::connect_from(port, ATTACKER).expect("connect");
    for _ in 0..10_000 {
        match conn.send(&initialize()) {
            Ok(r) if r.session.is_some() => opened += 1,
            Ok(r) if r.status == 503 => busy += 1,
            _ => {}
        }
    }
    let (other, r) = timed(port, OTHER, &initialize());
    let ok = r.is_ok_and(|r| r.session.is_some()) && opened <= 65;
    Row {
        case: "5c legacy sessions",
        attack: "10,000 `initialize` from one client".into(),
        result: format!(
            "{opened} sessions opened, {busy} refused with 503 (its share: 64, one more opened by case 3); the other client's `initialize` answered in {}",
            ms(other)
        ),
        ok,
    }
}

fn listen_streams(port: u16) -> Row {
    let mut held = Vec::new();
    let mut busy = 0;
    let req = listen(json!({"toolsListChanged": true}));
    for _ in 0..300 {
        let Ok(mut s) = hold(port, ATTACKER, &req) else {
            continue;
        };
        let first = first_bytes(&mut s);
        if first.contains("acknowledged") {
            held.push(s);
        } else if first.starts_with("HTTP/1.1 503") {
            busy += 1;
        }
    }
    let at = Instant::now();
    let other = hold(port, OTHER, &req).map(|mut s| first_bytes(&mut s));
    let took = at.elapsed();
    let ok = other.as_ref().is_ok_and(|t| t.contains("acknowledged")) && held.len() <= 16;
    Row {
        case: "5d listen streams",
        attack: "300 listen streams from one client".into(),
        result: format!(
            "{} held, {busy} refused with 503 (its share: 16); the other client's stream acknowledged in {}",
            held.len(),
            ms(took)
        ),
        ok,
    }
}

fn requests(port: u16) -> Row {
    let mut held = Vec::new();
    for _ in 0..300 {
        if let Ok(s) = hold(port, ATTACKER, &call("wait", false)) {
            held.push(s);
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    let (busy, _) = timed(port, ATTACKER, &call("wait", false));
    let refused = once(port, ATTACKER, &call("ping", false)).is_ok_and(|r| r.status == 503);
    let (other, ok) = other_served(port, &call("ping", false), "pong");
    drop(held);
    Row {
        case: "5e requests",
        attack: "300 calls of 30 s from one client".into(),
        result: format!(
            "its 65th call refused with 503 in {} (its share: 64); the other client's call answered in {}",
            ms(busy),
            ms(other)
        ),
        ok: ok && refused,
    }
}

fn idle_sockets(port: u16) -> Row {
    let mut idle = Vec::new();
    let at = Instant::now();
    for _ in 0..1_100 {
        match connect_from(port, ATTACKER) {
            Ok(s) => idle.push(s),
            Err(_) => break,
        }
    }
    let opened = at.elapsed();
    std::thread::sleep(Duration::from_millis(200));
    let (other, ok) = other_served(port, &call("ping", false), "pong");
    drop(idle);
    Row {
        case: "6 idle connections",
        attack: "1,100 sockets that send nothing, against a 1,024 fd limit".into(),
        result: format!(
            "opened in {:.1} s; a new client answered in {} (the longest-idle ones closed to make room)",
            opened.as_secs_f64(),
            ms(other)
        ),
        ok: ok && other < Duration::from_secs(1),
    }
}

#[tokio::main]
async fn serve(port: u16) -> Result<(), mcp_runtime::Error> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    server()?.serve(listener, HttpOptions::default()).await
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--serve") {
        let port = args.get(i + 1).and_then(|p| p.parse().ok()).unwrap_or(8000);
        if let Err(e) = serve(port) {
            eprintln!("{e}");
            std::process::exit(1);
        }
        return;
    }
    let limit = mcp_bench::raise_file_limit();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(18_556);
    let mut child = match start(port) {
        Ok(child) => child,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let pid = child.id();
    println!(
        "Attacks on a server with the default limits at a 1,024 fd limit (attacker's own limit {limit}); RSS at start {} KiB\n",
        rss_kib(pid)
    );
    println!("| case | attack | result | |\n|---|---|---|---|");
    let cases: [&dyn Fn() -> Row; 9] = [
        &|| template(port),
        &|| listen_subscriptions(port, pid),
        &|| legacy_subscriptions(port, pid),
        &|| finished_tasks(port),
        &|| running_tasks(port),
        &|| sessions(port),
        &|| listen_streams(port),
        &|| requests(port),
        &|| idle_sockets(port),
    ];
    let mut failures = 0;
    for case in cases {
        let row = case();
        failures += usize::from(!row.ok);
        println!(
            "| {} | {} | {} | {} |",
            row.case,
            row.attack,
            row.result,
            if row.ok { "ok" } else { "**FAILED**" }
        );
    }
    println!("\nRSS at the end {} KiB", rss_kib(pid));
    let _ = child.kill();
    let _ = child.wait();
    if failures > 0 {
        std::process::exit(1);
    }
}
