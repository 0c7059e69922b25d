//! The attacks on a public server, each re-run with its numbers, twice: straight at the server,
//! and through a real nginx with the repository's `deploy/nginx.conf` (nginx on loopback, the
//! server behind it trusting it with `trust_forwarded_for(true)`). The server has the defaults
//! a public server gets (`Limits::default()`, `HttpOptions::default()`) and runs as a process of
//! its own at a 1,024 file-descriptor limit (systemd's default); one attacking client at
//! 127.0.0.2 tries to freeze it or take it from a second client at 127.0.0.3, whose answers and
//! their times during the attack each row shows. The deployment's cases run on instances of
//! their own: a server with a local caller (a stranger through the proxy, the desktop straight
//! in), one that trusts only 127.0.0.1 as its proxy (a forwarding header from anyone else), and
//! one behind nginx that does not trust it (the "misconfigured" row: every client is the
//! proxy). Loopback only; every case is bounded in count and time.
//!
//! Usage: `mcp-bench-attacks` (build with `cargo build --release -p mcp-bench --bins`; needs
//! `prlimit` from util-linux and `nginx`). Prints one markdown table; exits non-zero when a
//! check fails. `mcp-bench-attacks --serve PORT [--trust] [--trusted-proxies A,B]
//! [--local-caller]` is the server side.

use mcp_bench::client::{Conn, Response, connect_from};
use mcp_bench::{Request, request};
use mcp_runtime::{
    Caller, HttpOptions, NoArguments, Resource, ResourceTemplate, Server, TaskSupport, Tool,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const ATTACKER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
const OTHER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 3));
/// The desktop host on the server's machine, straight in (and the proxy the bench stands in
/// for, towards an instance that trusts only 127.0.0.1).
const DESKTOP: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// The repository's nginx configuration, its @…@ fields filled in by [`Nginx::start`].
const NGINX_CONF: &str = include_str!("../../../deploy/nginx.conf");

/// What the server answers a `reset` with: only the local caller may call it.
const RESET_DONE: &str = "ADMIN-RESET-DONE";

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
            Tool::new("reset")
                .scopes(["admin"])
                .handler(|_: NoArguments, cx| async move {
                    let who = cx.caller().map(|c| c.subject.clone()).unwrap_or_default();
                    format!("{RESET_DONE} for {who}")
                }),
        )
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

fn ping() -> Request {
    call("ping", false)
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

/// `req` with one more header.
fn with_header(mut req: Request, name: &str, value: &str) -> Request {
    req.headers.push((name.to_owned(), value.to_owned()));
    req
}

/// One request from `from` on a fresh connection.
fn once(port: u16, from: IpAddr, req: &Request) -> std::io::Result<Response> {
    Conn::connect_from(port, from)?.send(req)
}

/// One client sending request after request from `from`: on one keep-alive connection while
/// it lasts, then on a new one (nginx closes a client's connection after 1,000 requests, its
/// `keepalive_requests`).
struct Flood {
    port: u16,
    from: IpAddr,
    conn: Option<Conn>,
}

impl Flood {
    fn new(port: u16, from: IpAddr) -> Flood {
        Flood {
            port,
            from,
            conn: None,
        }
    }

    fn send(&mut self, req: &Request) -> std::io::Result<Response> {
        let mut failed = None;
        for _ in 0..2 {
            let conn = match &mut self.conn {
                Some(conn) => conn,
                None => self.conn.insert(Conn::connect_from(self.port, self.from)?),
            };
            match conn.send(req) {
                Ok(r) => return Ok(r),
                Err(e) => {
                    self.conn = None;
                    failed = Some(e);
                }
            }
        }
        Err(failed.unwrap_or_else(|| std::io::Error::other("no connection")))
    }
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

/// What the server first answers on `s`: read until a listen stream's acknowledgment, or the
/// whole head of any other answer (through nginx the head and the first event may come in
/// reads of their own), within 10 s.
fn first_answer(s: &mut TcpStream) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || s.set_read_timeout(Some(left)).is_err() {
            break;
        }
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
        let text = String::from_utf8_lossy(&seen);
        let head_done = text.contains("\r\n\r\n");
        if text.contains("acknowledged")
            || (head_done && !text.starts_with("HTTP/1.1 200"))
            || (head_done && text.contains("\"error\""))
            || seen.len() > 16 * 1024
        {
            break;
        }
    }
    String::from_utf8_lossy(&seen).into_owned()
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

/// The server's open file descriptors (its connections, and a few of its own).
fn fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count)
}

/// The JSON-RPC error message of an answer, else the start of its body.
fn error_of(body: &str) -> String {
    let message = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_owned));
    let text = message.unwrap_or_else(|| body.trim().to_owned());
    match text.char_indices().nth(90) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// An answer in a few words: its status and error message, or why there was none.
fn describe(answer: &std::io::Result<Response>) -> String {
    match answer {
        Ok(r) => format!("{} “{}”", r.status, error_of(&r.body)),
        Err(e) => format!("no answer ({e})"),
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

// ---------------------------------------------------------------------------------------------
// The servers, and nginx in front of them
// ---------------------------------------------------------------------------------------------

/// A free port on 127.0.0.1 (free when asked).
fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}

/// Waits until a `ping` from the other client through `port` answers 200.
fn wait_ready(port: u16, what: &str) -> Result<(), String> {
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(30) {
        if once(port, OTHER, &ping()).is_ok_and(|r| r.status == 200) {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(format!("{what} did not answer within 30 s"))
}

/// A child process, ended when dropped (SIGTERM, then SIGKILL after two seconds): only the
/// processes this bench started, each by its id.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = Command::new("kill")
                .args(["-TERM", &self.0.id().to_string()])
                .status();
            for _ in 0..100 {
                if matches!(self.0.try_wait(), Ok(Some(_))) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
    }
}

/// nginx with `deploy/nginx.conf` in front of one server; its folder removed when dropped.
struct Nginx {
    port: u16,
    dir: PathBuf,
    /// Ended before the folder is removed.
    process: Option<Process>,
}

impl Nginx {
    /// nginx on a free loopback port in front of `127.0.0.1:upstream`, its @…@ fields filled in
    /// as `deploy/nginx-conf.sh` and `tests/common/engines.rs` do.
    fn start(upstream: u16) -> Result<Nginx, String> {
        let port = free_port()?;
        let dir = std::env::temp_dir().join(format!(
            "mcp-bench-attacks-{}-{upstream}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut nginx = Nginx {
            port,
            dir,
            process: None,
        };
        let servers = format!("        server 127.0.0.1:{upstream} max_fails=1 fail_timeout=2s;\n");
        let conf = NGINX_CONF
            .replace("@RUNTIME_DIR@", &nginx.dir.display().to_string())
            .replace("@NGINX_PORT@", &port.to_string())
            .replace("@SERVERS@\n", &servers);
        if let Some(field) = unfilled_field(&conf) {
            return Err(format!(
                "deploy/nginx.conf has a field the bench does not fill: {field}"
            ));
        }
        let path = nginx.dir.join("nginx.conf");
        std::fs::write(&path, conf).map_err(|e| format!("{}: {e}", path.display()))?;
        let child = Command::new("nginx")
            .args(["-p", &nginx.dir.display().to_string()])
            .args(["-c", &path.display().to_string()])
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("nginx (Debian: apt-get install nginx-light): {e}"))?;
        nginx.process = Some(Process(child));
        if let Err(e) = wait_ready(port, "nginx") {
            let log = std::fs::read_to_string(nginx.dir.join("error.log")).unwrap_or_default();
            return Err(format!("{e}: {log}"));
        }
        Ok(nginx)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        drop(self.process.take());
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// An `@NAME@` left in a configuration (the file's own comments name `@…@`, which is none).
fn unfilled_field(conf: &str) -> Option<&str> {
    let mut rest = conf;
    while let Some(at) = rest.find('@') {
        let after = &rest[at + 1..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_uppercase() || c == '_'))
            .unwrap_or(after.len());
        if name_len > 0 && after[name_len..].starts_with('@') {
            return Some(&rest[at..at + name_len + 2]);
        }
        rest = after;
    }
    None
}

/// How a server instance is set up (its `--serve` flags).
#[derive(Clone, Copy)]
enum Setup {
    /// The defaults: trusts no proxy.
    Public,
    /// `trust_forwarded_for(true)`: the proxies on this machine (loopback) are trusted.
    Trusting,
    /// A local caller with `admin` (and the loopback proxies trusted).
    Desk,
    /// `trusted_proxies(["127.0.0.1"])`: only that address is a proxy.
    OnlyLoopbackOne,
}

impl Setup {
    fn flags(self) -> &'static [&'static str] {
        match self {
            Setup::Public => &[],
            Setup::Trusting => &["--trust"],
            Setup::Desk => &["--trust", "--local-caller"],
            Setup::OnlyLoopbackOne => &["--trusted-proxies", "127.0.0.1"],
        }
    }
}

/// A server process (at a 1,024 fd limit), and nginx in front of it or not.
struct Target {
    /// Where clients connect: nginx's port, or the server's.
    port: u16,
    /// The server's own port.
    server_port: u16,
    /// The server's process id.
    pid: u32,
    /// How the clients reach it, as the table shows it.
    via: &'static str,
    nginx: Option<Nginx>,
    _server: Process,
}

impl Target {
    fn start(setup: Setup, behind_nginx: bool, via: &'static str) -> Result<Target, String> {
        let server_port = free_port()?;
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let child = Command::new("prlimit")
            .arg("--nofile=1024:1024")
            .arg("--")
            .arg(&exe)
            .args(["--serve", &server_port.to_string()])
            .args(setup.flags())
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("prlimit {} (util-linux): {e}", exe.display()))?;
        let server = Process(child);
        let pid = server.0.id();
        wait_ready(server_port, "the server")?;
        let nginx = match behind_nginx {
            true => Some(Nginx::start(server_port)?),
            false => None,
        };
        Ok(Target {
            port: nginx.as_ref().map_or(server_port, |n| n.port),
            server_port,
            pid,
            via,
            nginx,
            _server: server,
        })
    }

    fn behind_nginx(&self) -> bool {
        self.nginx.is_some()
    }
}

// ---------------------------------------------------------------------------------------------
// Rows, and the other client's answers
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Ok,
    Failed,
    /// The deployment's mistake shown on purpose: not a failure of the runtime.
    Misconfigured,
}

/// A row of the table.
struct Row {
    case: &'static str,
    attack: String,
    via: &'static str,
    result: String,
    other: String,
    verdict: Verdict,
}

impl Row {
    fn new(case: &'static str, t: &Target, attack: impl Into<String>) -> Row {
        Row {
            case,
            attack: attack.into(),
            via: t.via,
            result: String::new(),
            other: String::new(),
            verdict: Verdict::Failed,
        }
    }

    fn done(self, result: String, probe: &Probe, ok: bool) -> Row {
        self.done_all(result, &[probe], ok)
    }

    /// The row with its result and the other client's probes, one after the other: ok when
    /// `ok` and every probe's tries were all served, each within a second.
    fn done_all(mut self, result: String, probes: &[&Probe], ok: bool) -> Row {
        self.result = result;
        self.other = probes
            .iter()
            .map(|p| p.show())
            .collect::<Vec<_>>()
            .join("; then ");
        let held = probes
            .iter()
            .all(|p| p.all_served() && p.max() < Duration::from_secs(1));
        self.verdict = match ok && held {
            true => Verdict::Ok,
            false => Verdict::Failed,
        };
        self
    }
}

/// The other client's tries during an attack: how many were served, and how long each took.
struct Probe {
    what: String,
    times: Vec<Duration>,
    served: usize,
    /// The first answer that was not served, described.
    refusal: Option<String>,
}

impl Probe {
    fn new(what: impl Into<String>) -> Probe {
        Probe {
            what: what.into(),
            times: Vec::new(),
            served: 0,
            refusal: None,
        }
    }

    fn named(mut self, what: &str) -> Probe {
        what.clone_into(&mut self.what);
        self
    }

    fn record(&mut self, took: Duration, served: bool, why_not: impl FnOnce() -> String) {
        self.times.push(took);
        if served {
            self.served += 1;
        } else if self.refusal.is_none() {
            self.refusal = Some(why_not());
        }
    }

    /// `req` from `from` on a fresh connection, served when its answer is a 200 containing
    /// `expect`.
    fn ask(&mut self, port: u16, from: IpAddr, req: &Request, expect: &str) {
        let at = Instant::now();
        let answer = once(port, from, req);
        let served = answer
            .as_ref()
            .is_ok_and(|r| r.status == 200 && r.body.contains(expect));
        self.record(at.elapsed(), served, || describe(&answer));
    }

    fn all_served(&self) -> bool {
        !self.times.is_empty() && self.served == self.times.len()
    }

    fn max(&self) -> Duration {
        self.times.iter().max().copied().unwrap_or_default()
    }

    fn show(&self) -> String {
        let mut sorted = self.times.clone();
        sorted.sort();
        let p50 = sorted
            .get(sorted.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or_default();
        let mut text = format!(
            "{}: {}/{} served, p50 {}, max {}",
            self.what,
            self.served,
            self.times.len(),
            ms(p50),
            ms(self.max())
        );
        if let Some(refusal) = &self.refusal {
            text.push_str(&format!("; not served: {refusal}"));
        }
        text
    }
}

/// Runs `attack` while the other client pings through `port` every 20 ms (at least three
/// times), each ping on a fresh connection.
fn pinging<T>(port: u16, attack: impl FnOnce() -> T) -> (T, Probe) {
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let prober = scope.spawn(|| {
            let mut probe = Probe::new("a `ping` every 20 ms throughout");
            while probe.times.len() < 3 || !stop.load(Ordering::Relaxed) {
                probe.ask(port, OTHER, &ping(), "pong");
                std::thread::sleep(Duration::from_millis(20));
            }
            probe
        });
        let out = attack();
        stop.store(true, Ordering::Relaxed);
        (out, prober.join().expect("the prober"))
    })
}

/// `n` tries of `req` by the other client, one after the other.
fn tries(n: usize, port: u16, req: &Request, expect: &str, what: &str) -> Probe {
    let mut probe = Probe::new(format!("{n} {what}"));
    for _ in 0..n {
        probe.ask(port, OTHER, req, expect);
    }
    probe
}

/// Of sockets that each sent a request, how many still wait for their answer, and how the
/// others ended (`503`, `408`, … or `closed`): a look at each without reading it.
fn still_waiting(socks: &[TcpStream]) -> (usize, BTreeMap<String, usize>) {
    let mut waiting = 0;
    let mut ended = BTreeMap::new();
    for s in socks {
        if s.set_nonblocking(true).is_err() {
            continue;
        }
        let mut head = [0u8; 12];
        let how = match s.peek(&mut head) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => None,
            Ok(n) if n >= 12 && head.starts_with(b"HTTP/1.1 ") => {
                Some(String::from_utf8_lossy(&head[9..12]).into_owned())
            }
            Ok(_) => Some("closed".to_owned()),
            Err(_) => Some("reset".to_owned()),
        };
        let _ = s.set_nonblocking(false);
        match how {
            None => waiting += 1,
            Some(how) => *ended.entry(how).or_insert(0) += 1,
        }
    }
    (waiting, ended)
}

fn show_ended(ended: &BTreeMap<String, usize>) -> String {
    match ended.is_empty() {
        true => "none".to_owned(),
        false => ended
            .iter()
            .map(|(how, n)| format!("{n} {how}"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

// ---------------------------------------------------------------------------------------------
// The cases
// ---------------------------------------------------------------------------------------------

fn template(t: &Target) -> Row {
    let row = Row::new(
        "1 template matching",
        t,
        "2 reads of `semver://` + 8,182 dots + `/` against `semver://{major}.{minor}.{patch}`, 5 times",
    );
    let uri = format!("semver://{}/", ".".repeat(8 * 1024 - 10));
    let port = t.port;
    let mut slowest = Duration::ZERO;
    let mut probe = Probe::new("a `ping` beside each pair of reads");
    for _ in 0..5 {
        let reads: Vec<_> = (0..2)
            .map(|_| {
                let req = read(&uri);
                std::thread::spawn(move || {
                    let at = Instant::now();
                    let _ = once(port, ATTACKER, &req);
                    at.elapsed()
                })
            })
            .collect();
        probe.ask(port, OTHER, &ping(), "pong");
        for h in reads {
            slowest = slowest.max(h.join().unwrap_or_default());
        }
    }
    let result = format!("each read answered within {}", ms(slowest));
    row.done(result, &probe, slowest < Duration::from_secs(1))
}

fn listen_subscriptions(t: &Target) -> Row {
    let row = Row::new(
        "2 listen `resourceSubscriptions`",
        t,
        "10 streams of 800,000 one-byte URIs (a 4 MB body each); then 10 at the limit",
    );
    let million: Vec<String> = (0..800_000).map(|i| (i % 10).to_string()).collect();
    let big = listen(json!({"resourceSubscriptions": million}));
    let allowed: Vec<String> = (0..256).map(|i| format!("notes://{i:0>245}")).collect();
    let at_limit = listen(json!({"resourceSubscriptions": allowed}));
    let ((refused, took, before, after_refused, held, per_stream), probe) = pinging(t.port, || {
        let before = rss_kib(t.pid);
        let mut refused = 0;
        let at = Instant::now();
        for _ in 0..10 {
            if once(t.port, ATTACKER, &big).is_ok_and(|r| r.body.contains("-32602")) {
                refused += 1;
            }
        }
        let took = at.elapsed() / 10;
        let after_refused = rss_kib(t.pid);
        let heap_before = heap_kib(t.port);
        // Ten streams at the most one may keep: 256 URIs, 64 KiB of them.
        let mut held = Vec::new();
        for _ in 0..10 {
            if let Ok(mut s) = hold(t.port, ATTACKER, &at_limit)
                && first_answer(&mut s).contains("acknowledged")
            {
                held.push(s);
            }
        }
        let per_stream = heap_kib(t.port).saturating_sub(heap_before) / 10;
        (refused, took, before, after_refused, held.len(), per_stream)
    });
    let result = format!(
        "{refused}/10 refused with -32602 in {} each, RSS {before} → {after_refused} KiB; {held} streams of 256 URIs (64 KiB) held: {per_stream} KiB of heap each",
        ms(took),
    );
    let ok = refused == 10 && after_refused < before + 64 * 1024 && held == 10;
    row.done(result, &probe, ok)
}

fn legacy_subscriptions(t: &Target) -> Row {
    let row = Row::new(
        "3 legacy `resources/subscribe`",
        t,
        "60 URIs of 3 MB each on one 2025-11-25 session; then 20 sessions at the limit",
    );
    let Some(session) = once(t.port, ATTACKER, &initialize())
        .ok()
        .and_then(|r| r.session)
    else {
        return row.done("initialize failed".into(), &Probe::new("none"), false);
    };
    let ((refused, took, before, after, kept, per_session), probe) = pinging(t.port, || {
        let before = rss_kib(t.pid);
        let mut refused = 0;
        let at = Instant::now();
        for i in 0..60 {
            let uri = format!("notes://{i}/{}", "x".repeat(3_000_000));
            let body = json!({"jsonrpc": "2.0", "id": i, "method": "resources/subscribe", "params": {"uri": uri}});
            if once(t.port, ATTACKER, &legacy(body, Some(&session)))
                .is_ok_and(|r| r.body.contains("-32602"))
            {
                refused += 1;
            }
        }
        let took = at.elapsed();
        let after = rss_kib(t.pid);
        let heap_before = heap_kib(t.port);
        // Twenty sessions at the most one may keep: eight URIs of 8,000 bytes (64 KiB).
        let third = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 4));
        let mut kept = 0;
        for _ in 0..20 {
            let Some(session) = once(t.port, third, &initialize())
                .ok()
                .and_then(|r| r.session)
            else {
                continue;
            };
            for i in 0..8 {
                let uri = format!("notes://{i}/{}", "x".repeat(8_000 - 10));
                let body = json!({"jsonrpc": "2.0", "id": i, "method": "resources/subscribe", "params": {"uri": uri}});
                if once(t.port, third, &legacy(body, Some(&session)))
                    .is_ok_and(|r| r.body.contains("\"result\""))
                {
                    kept += 1;
                }
            }
        }
        let per_session = heap_kib(t.port).saturating_sub(heap_before) / 20;
        (refused, took, before, after, kept, per_session)
    });
    let result = format!(
        "{refused}/60 refused with -32602 in {} in all; RSS {before} → {after} KiB; {kept} subscriptions of 8,000 bytes kept on 20 sessions: {per_session} KiB of heap a session",
        ms(took)
    );
    let ok = refused == 60 && after < before + 64 * 1024 && kept == 160;
    row.done(result, &probe, ok)
}

fn finished_tasks(t: &Target) -> Row {
    let row = Row::new(
        "5a finished tasks",
        t,
        "10,000 tasks that finish at once, from one client",
    );
    let ((created, took), probe) = pinging(t.port, || {
        let mut created = 0;
        let at = Instant::now();
        let mut flood = Flood::new(t.port, ATTACKER);
        for _ in 0..10_000 {
            if flood
                .send(&call("quick", true))
                .is_ok_and(|r| r.body.contains("taskId"))
            {
                created += 1;
            }
        }
        (created, at.elapsed())
    });
    let mut after = Probe::new("after");
    after.ask(t.port, OTHER, &call("quick", true), "taskId");
    let result = format!(
        "{created} created in {:.1} s (the client keeps its newest 500); then the other client's task created in {}",
        took.as_secs_f64(),
        ms(after.max())
    );
    row.done(result, &probe, after.all_served())
}

fn running_tasks(t: &Target) -> Row {
    let row = Row::new("5b running tasks", t, "1,500 tasks of 30 s from one client");
    let mut created = 0;
    let mut busy = 0;
    let mut flood = Flood::new(t.port, ATTACKER);
    for _ in 0..1_500 {
        match flood.send(&call("slow", true)) {
            Ok(r) if r.body.contains("taskId") => created += 1,
            Ok(r) if r.status == 503 => busy += 1,
            _ => {}
        }
    }
    let probe = tries(
        5,
        t.port,
        &call("slow", true),
        "taskId",
        "tasks of its own created",
    );
    let result = format!("{created} run, {busy} refused with 503 (its share: 16)");
    row.done(result, &probe, created <= 16)
}

fn sessions(t: &Target) -> Row {
    let row = Row::new(
        "5c legacy sessions",
        t,
        "10,000 `initialize` from one client",
    );
    let mut opened = 0;
    let mut busy = 0;
    let mut flood = Flood::new(t.port, ATTACKER);
    for _ in 0..10_000 {
        match flood.send(&initialize()) {
            Ok(r) if r.session.is_some() => opened += 1,
            Ok(r) if r.status == 503 => busy += 1,
            _ => {}
        }
    }
    let probe = tries(5, t.port, &initialize(), "protocolVersion", "`initialize`");
    let result = format!(
        "{opened} sessions opened, {busy} refused with 503 (its share: 64, one more opened by case 3)"
    );
    row.done(result, &probe, opened <= 65)
}

fn listen_streams(t: &Target) -> Row {
    let row = Row::new("5d listen streams", t, "300 listen streams from one client");
    let mut held = Vec::new();
    let mut busy = 0;
    let req = listen(json!({"toolsListChanged": true}));
    for _ in 0..300 {
        let Ok(mut s) = hold(t.port, ATTACKER, &req) else {
            continue;
        };
        let first = first_answer(&mut s);
        if first.contains("acknowledged") {
            held.push(s);
        } else if first.starts_with("HTTP/1.1 503") {
            busy += 1;
        }
    }
    let mut probe = Probe::new("5 listen streams of its own acknowledged");
    let mut others = Vec::new();
    for _ in 0..5 {
        let at = Instant::now();
        let answer = hold(t.port, OTHER, &req).map(|mut s| (first_answer(&mut s), s));
        let served = answer
            .as_ref()
            .is_ok_and(|(first, _)| first.contains("acknowledged"));
        probe.record(at.elapsed(), served, || match &answer {
            Ok((first, _)) => first.lines().next().unwrap_or("nothing").to_owned(),
            Err(e) => e.to_string(),
        });
        others.extend(answer.ok().map(|(_, s)| s));
    }
    let result = format!(
        "{} held, {busy} refused with 503 (its share: 16)",
        held.len()
    );
    row.done(result, &probe, held.len() <= 16)
}

/// 300 calls of 30 s held from one client. `misconfigured`: the server behind nginx does not
/// trust it, so every client is the proxy's one address, and the other client is expected to
/// pay for the attacker.
fn requests(t: &Target, misconfigured: bool) -> Row {
    let case = match misconfigured {
        true => "5e requests, proxy not trusted",
        false => "5e requests",
    };
    let mut row = Row::new(case, t, "300 calls of 30 s from one client");
    let mut held = Vec::new();
    for _ in 0..300 {
        if let Ok(s) = hold(t.port, ATTACKER, &call("wait", false)) {
            held.push(s);
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    let (running, ended) = still_waiting(&held);
    let at = Instant::now();
    let busy = once(t.port, ATTACKER, &ping());
    let busy_took = at.elapsed();
    let refused = busy.as_ref().is_ok_and(|r| r.status == 503);
    let probe = tries(5, t.port, &ping(), "pong", "calls of its own");
    drop(held);
    let result = format!(
        "{running} running, the rest answered ({}); its next call: {} in {} (its share: 64)",
        show_ended(&ended),
        describe(&busy),
        ms(busy_took)
    );
    row = row.done(result, &probe, refused && running <= 64);
    if misconfigured {
        // What the row shows is the deployment's mistake, whatever the other client got.
        row.verdict = Verdict::Misconfigured;
    }
    row
}

fn idle_sockets(t: &Target) -> Row {
    let row = Row::new(
        "6 idle connections",
        t,
        "1,100 sockets that send nothing, against a 1,024 fd limit",
    );
    let ((idle, opened), during) = pinging(t.port, || {
        let mut idle = Vec::new();
        let at = Instant::now();
        for _ in 0..1_100 {
            match connect_from(t.port, ATTACKER) {
                Ok(s) => idle.push(s),
                Err(_) => break,
            }
        }
        (idle, at.elapsed())
    });
    std::thread::sleep(Duration::from_millis(200));
    let server_fds = fds(t.pid);
    let after = tries(
        5,
        t.port,
        &ping(),
        "pong",
        "calls once all are open, each on a new connection",
    );
    let (open, _) = still_waiting(&idle);
    let count = idle.len();
    drop(idle);
    let how = match t.behind_nginx() {
        true => "nginx holds them: it passes nothing on before a request head",
        false => "the longest-idle ones closed to make room; its share: 120",
    };
    let result = format!(
        "{count} opened in {:.1} s, {open} still open; the server's descriptors: {server_fds} ({how})",
        opened.as_secs_f64()
    );
    row.done_all(result, &[&during, &after], true)
}

/// Brief item: a stranger through the proxy calling a tool scoped `admin` on a server whose
/// local caller has `admin`. Direct, the stranger is a tunnel on the same machine (it adds
/// `X-Forwarded-For`); the desktop host calls straight in from 127.0.0.1 either way.
fn local_caller(t: &Target) -> Row {
    let (attack, stranger) = match t.behind_nginx() {
        true => (
            "a stranger through nginx calls `reset` (scope `admin`; the local caller has it) and lists the tools",
            call("reset", false),
        ),
        false => (
            "a stranger through a tunnel on the same machine (it adds `X-Forwarded-For`) calls `reset` (scope `admin`; the local caller has it) and lists the tools",
            with_header(call("reset", false), "X-Forwarded-For", "203.0.113.9"),
        ),
    };
    let row = Row::new("7 the local caller", t, attack);
    let answer = once(t.port, ATTACKER, &stranger);
    let refused = answer
        .as_ref()
        .is_ok_and(|r| !r.body.contains(RESET_DONE) && error_of(&r.body).contains("admin"));
    let list = request("tools/list", None, json!({}), false);
    let list = match t.behind_nginx() {
        true => list,
        false => with_header(list, "X-Forwarded-For", "203.0.113.9"),
    };
    let listed = once(t.port, ATTACKER, &list)
        .ok()
        .and_then(|r| serde_json::from_str::<Value>(&r.body).ok())
        .and_then(|v| {
            let tools = v["result"]["tools"].as_array()?.clone();
            Some(tools.iter().any(|tool| tool["name"] == "reset"))
        });
    let mut probe = Probe::new("the desktop's `reset`, straight in from 127.0.0.1 (5)");
    for _ in 0..5 {
        probe.ask(t.server_port, DESKTOP, &call("reset", false), RESET_DONE);
    }
    let result = format!(
        "the stranger's call: {}; `reset` in its `tools/list`: {}",
        describe(&answer),
        match listed {
            Some(true) => "listed",
            Some(false) => "hidden",
            None => "no list",
        }
    );
    row.done(result, &probe, refused && listed == Some(false))
}

/// Brief item: request bodies that stop coming, from one address, against the connection cap
/// (the server's 1,024 descriptors); then the other client's calls over 10 s.
fn slow_bodies(t: &Target) -> Row {
    let row = Row::new(
        "8 slow request bodies",
        t,
        "1,000 connections from one address, each a request head (`Content-Length: 1000`) and 10 bytes of body, then nothing",
    );
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{{\"jsonrpc\"",
        t.port
    );
    let ((stalled, opened), during) = pinging(t.port, || {
        let mut stalled: Vec<TcpStream> = Vec::new();
        let at = Instant::now();
        for _ in 0..1_000 {
            let Ok(mut s) = connect_from(t.port, ATTACKER) else {
                continue;
            };
            // A connection refused at once (503 and closed) may fail the write: the
            // attacker's loss.
            let _ = s.write_all(head.as_bytes());
            stalled.push(s);
        }
        let opened = at.elapsed();
        // The second in which no stopped body may yet make room (`SLOW_BODY_MS`), and a half.
        std::thread::sleep(Duration::from_millis(1_500));
        (stalled, opened)
    });
    let during = during.named("a `ping` every 20 ms while they open and for 1.5 s after");
    let (waiting, _) = still_waiting(&stalled);
    // The other client: 20 calls over the next 10 s, each on a new connection.
    let mut probe = Probe::new("20 calls over the next 10 s, each on a new connection");
    let started = Instant::now();
    let mut most_fds = 0;
    for i in 0..20u32 {
        let next = started + Duration::from_millis(500) * i;
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
        most_fds = most_fds.max(fds(t.pid));
        probe.ask(t.port, OTHER, &ping(), "pong");
    }
    // Past the body timeout (10 s) of the last body opened: none may still be waiting.
    std::thread::sleep(
        (started + Duration::from_secs(10)).saturating_duration_since(Instant::now()),
    );
    let (waiting_after, ended) = still_waiting(&stalled);
    drop(stalled);
    let share = match t.behind_nginx() {
        true => "nginx is a trusted proxy: no share, the cap (960) applies",
        false => "its share: 120",
    };
    let result = format!(
        "opened in {:.1} s; 1.5 s later {waiting} wait for an answer, the server's descriptors at most {most_fds} ({share}); 11.5 s later {waiting_after} wait, the rest answered ({})",
        opened.as_secs_f64(),
        show_ended(&ended)
    );
    row.done_all(result, &[&during, &probe], waiting_after == 0)
}

/// Brief item: `X-Forwarded-For` rotation from a peer that is no trusted proxy, against an
/// instance that trusts only 127.0.0.1. Direct, the attacker skips the proxy; through nginx,
/// nginx appends the attacker's real address after the ones it made up.
fn forwarded_rotation(t: &Target) -> Row {
    let attack = match t.behind_nginx() {
        true => {
            "300 calls of 30 s through nginx, each with an `X-Forwarded-For` of its own (every tenth naming the other client), to an instance trusting only 127.0.0.1"
        }
        false => {
            "300 calls of 30 s straight to an instance trusting only 127.0.0.1, each with an `X-Forwarded-For` of its own (every tenth naming the other client)"
        }
    };
    let row = Row::new("9 forwarding header from an untrusted peer", t, attack);
    let mut held = Vec::new();
    for i in 0..300u32 {
        let named = match i % 10 {
            9 => OTHER.to_string(),
            _ => format!("198.51.100.{}", i % 250),
        };
        let req = with_header(call("wait", false), "X-Forwarded-For", &named);
        if let Ok(s) = hold(t.port, ATTACKER, &req) {
            held.push(s);
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    let (running, ended) = still_waiting(&held);
    let next = with_header(ping(), "X-Forwarded-For", "198.51.100.251");
    let busy = once(t.port, ATTACKER, &next);
    let one_client = busy
        .as_ref()
        .is_ok_and(|r| r.status == 503 && error_of(&r.body).contains("127.0.0.2 holds 64"));
    let probe = tries(5, t.port, &ping(), "pong", "calls of its own");
    drop(held);
    let result = format!(
        "{running} running, the rest answered ({}); its next call, naming yet another address: {}",
        show_ended(&ended),
        describe(&busy)
    );
    row.done(result, &probe, one_client && running <= 64)
}

/// Brief item: IPv6 addresses rotated within one /64 in a trusted proxy's header. Direct, the
/// bench is that proxy (127.0.0.1, to an instance trusting only it); through nginx, it is a
/// trusted proxy in front of nginx (a loopback address: trusted by `trust_forwarded_for`).
fn ipv6_network(t: &Target, front: IpAddr, other_front: IpAddr) -> Row {
    let attack = match t.behind_nginx() {
        true => {
            "300 calls of 30 s from 2001:db8:7:7::/64, each address its own, named by a trusted proxy at 127.0.0.2 in front of nginx"
        }
        false => {
            "300 calls of 30 s from 2001:db8:7:7::/64, each address its own, named by the trusted proxy (127.0.0.1) in `X-Forwarded-For`"
        }
    };
    let row = Row::new("10 IPv6 addresses of one /64", t, attack);
    let mut held = Vec::new();
    for i in 0..300u32 {
        let addr = format!(
            "2001:db8:7:7:{:x}:{:x}:{:x}:{:x}",
            i.wrapping_mul(7919) % 65_536,
            i % 251,
            i.wrapping_mul(31) % 65_536,
            i + 1
        );
        let req = with_header(call("wait", false), "X-Forwarded-For", &addr);
        if let Ok(s) = hold(t.port, front, &req) {
            held.push(s);
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    let (running, ended) = still_waiting(&held);
    let next = with_header(ping(), "X-Forwarded-For", "2001:db8:7:7:ffff::1");
    let busy = once(t.port, front, &next);
    let one_client = busy
        .as_ref()
        .is_ok_and(|r| r.status == 503 && error_of(&r.body).contains("2001:db8:7:7::/64 holds 64"));
    let mut probe = Probe::new("5 calls from 2001:db8:7:8::1, another /64 behind the same proxy");
    let other = with_header(ping(), "X-Forwarded-For", "2001:db8:7:8::1");
    for _ in 0..5 {
        let at = Instant::now();
        let answer = once(t.port, other_front, &other);
        let served = answer
            .as_ref()
            .is_ok_and(|r| r.status == 200 && r.body.contains("pong"));
        probe.record(at.elapsed(), served, || describe(&answer));
    }
    drop(held);
    let result = format!(
        "{running} running, the rest answered ({}); its next call, from 2001:db8:7:7:ffff::1: {}",
        show_ended(&ended),
        describe(&busy)
    );
    row.done(result, &probe, one_client && running <= 64)
}

// ---------------------------------------------------------------------------------------------
// The server side, and the run
// ---------------------------------------------------------------------------------------------

#[tokio::main]
async fn serve(port: u16, flags: &[String]) -> Result<(), mcp_runtime::Error> {
    let mut options = HttpOptions::default();
    if flags.iter().any(|f| f == "--trust") {
        options = options.trust_forwarded_for(true);
    }
    if let Some(i) = flags.iter().position(|f| f == "--trusted-proxies") {
        let proxies = flags.get(i + 1).map_or("", String::as_str);
        options = options.trusted_proxies(proxies.split(','));
    }
    if flags.iter().any(|f| f == "--local-caller") {
        options = options.local_caller(Caller::new("desktop-user").with_scopes(["admin"]));
    }
    // As `Server::run` binds (a backlog of 4,096), not tokio's default.
    let addr = std::net::SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let listener = mcp_runtime::transport::http::bind(addr).await?;
    server()?.serve(listener, options).await
}

fn print_row(row: &Row) {
    let verdict = match row.verdict {
        Verdict::Ok => "ok",
        Verdict::Failed => "**FAILED**",
        Verdict::Misconfigured => "misconfigured (expected)",
    };
    println!(
        "| {} | {} | {} | {} | {} | {} |",
        row.case, row.attack, row.via, row.result, row.other, verdict
    );
}

fn nginx_version() -> String {
    Command::new("nginx")
        .arg("-v")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stderr).trim().to_owned())
        .and_then(|v| v.rsplit('/').next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

/// Runs every case, printing each row as it comes; the number of failed rows.
fn run() -> Result<usize, String> {
    let limit = mcp_bench::raise_file_limit();
    let direct = Target::start(Setup::Public, false, "direct")?;
    let proxied = Target::start(Setup::Trusting, true, "nginx")?;
    println!(
        "Attacks on a server with the default limits at a 1,024 fd limit, straight in and behind nginx {} (`deploy/nginx.conf`, the server trusting it); attacker 127.0.0.2, other client 127.0.0.3 (the bench's own limit {limit}); RSS at start {} KiB direct, {} KiB behind nginx\n",
        nginx_version(),
        rss_kib(direct.pid),
        rss_kib(proxied.pid)
    );
    println!(
        "| case | attack | via | result | the other client during the attack | |\n|---|---|---|---|---|---|"
    );
    let mut failures = 0;
    let mut show = |row: Row| {
        failures += usize::from(row.verdict == Verdict::Failed);
        print_row(&row);
    };
    let both: [fn(&Target) -> Row; 9] = [
        template,
        listen_subscriptions,
        legacy_subscriptions,
        finished_tasks,
        running_tasks,
        sessions,
        listen_streams,
        |t| requests(t, false),
        idle_sockets,
    ];
    for (i, case) in both.into_iter().enumerate() {
        show(case(&direct));
        show(case(&proxied));
        if i == 7 {
            // After 5e: the same attack behind nginx, on an instance that does not trust it.
            let untrusting = Target::start(Setup::Public, true, "nginx, not trusted")?;
            show(requests(&untrusting, true));
        }
    }
    for behind_nginx in [false, true] {
        let via = if behind_nginx { "nginx" } else { "direct" };
        let desk = Target::start(Setup::Desk, behind_nginx, via)?;
        show(local_caller(&desk));
    }
    show(slow_bodies(&direct));
    show(slow_bodies(&proxied));
    let only_one = Target::start(Setup::OnlyLoopbackOne, false, "direct")?;
    show(forwarded_rotation(&only_one));
    let only_one_behind = Target::start(Setup::OnlyLoopbackOne, true, "nginx")?;
    show(forwarded_rotation(&only_one_behind));
    show(ipv6_network(&only_one, DESKTOP, DESKTOP));
    show(ipv6_network(&proxied, ATTACKER, OTHER));
    println!(
        "\nRSS at the end {} KiB direct, {} KiB behind nginx",
        rss_kib(direct.pid),
        rss_kib(proxied.pid)
    );
    Ok(failures)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--serve") {
        let port = args.get(i + 1).and_then(|p| p.parse().ok()).unwrap_or(8000);
        if let Err(e) = serve(port, args.get(i + 2..).unwrap_or_default()) {
            eprintln!("{e}");
            std::process::exit(1);
        }
        return;
    }
    // Every process started is ended when `run` returns (its `Target`s are dropped).
    match run() {
        Ok(0) => {}
        Ok(_) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
