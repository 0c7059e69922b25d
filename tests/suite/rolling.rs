//! A rolling restart under load (`--features redis`): three instance processes behind nginx
//! (`deploy/nginx.conf`) sharing one Redis serve about a minute of mixed load
//! (`MCP_ROLLING_SECS`, default 60): plain calls, multi-round requests, tasks, listen streams and
//! 2025-11-25 sessions (initialize, calls, the GET stream, DELETE). Meanwhile the instances are
//! restarted one at a time, as an orchestrator does it: SIGTERM, wait for the process to exit,
//! start a new one on the same port, wait for `/health` to say 200 (and nginx's
//! `fail_timeout`, [`PACE`]), then the next; over and over until 5 s before the end.
//! `MCP_ROLLING_WORKERS` (default 6) sets how many workers send 2026-07-28 requests.
//!
//! Clients retry only what a client may safely retry, and each retry is counted by kind: a
//! connection error or a 502/503/504 before any answer, a 404 for a session that is gone
//! (initialize again), a task failed because its instance shut down (create it again).
//! Asserted: no request failed that a client could not retry; no task is lost (each ends
//! `completed`, or `failed` saying its instance shut down, the same through every instance);
//! every listen stream that ended got its final result first and was opened again; every
//! instance exited cleanly within its grace (and a few seconds); nginx logged no error but refused
//! connections (which it passes to another instance) and "no live upstreams" (sent nowhere: the
//! client's 502 is retried): no request reached a stopping instance and went unanswered, which
//! nginx answers with a 502 that a client cannot safely retry.
//!
//! The instances are this test binary started again (`rolling_instance`, ignored in normal
//! runs), so that each is a process an orchestrator could signal.

use crate::common;
use bytes::Bytes;
use common::engines::{Process, RedisServer, nginx};
use common::sse::{EventStream, send_streaming};
use common::{headers_for, post_headers};
use http::StatusCode;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::{Client, connect::HttpConnector};
use mcp_runtime::TaskOptions;
use mcp_runtime::{HttpOptions, Server};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

// ---------------------------------------------------------------------------------------------
// The instance
// ---------------------------------------------------------------------------------------------

use crate::scale_tools as tools;
use tools::{add, confirm, pause, slow_job};

/// How long a stopping instance gives requests and tasks in flight.
const GRACE: Duration = Duration::from_secs(2);
/// A task that outlives the grace of the instance running it (so it is failed, and created
/// again), when that instance restarts while it runs.
const LONG_TASK_MS: u64 = 4_000;
/// How long the orchestrator waits after an instance is ready before it stops the next one
/// (`minReadySeconds` in `deploy/k8s`): past nginx's `fail_timeout` of the instances (2 s,
/// `common::engines::nginx`), so that nginx, which took the instance for down while it
/// restarted, has taken it back. Stopped at once instead, the next one can leave nginx with no
/// instance it takes for up, and it answers 502 ("no live upstreams") until one comes back.
const PACE: Duration = Duration::from_millis(2_100);
/// What a task failed by its stopping instance says.
const SHUT_DOWN: &str = "shut down before the task finished";

/// One instance, when this binary is started as one (`MCP_ROLLING_ADDR` set): Redis from
/// `MCP_REDIS_URL`, the state key from `MCP_STATE_KEY`, as a deployed server would. Serves until
/// SIGTERM, then drains and returns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "an instance process of the rolling-restart test, started by it"]
async fn rolling_instance() {
    let Ok(addr) = std::env::var("MCP_ROLLING_ADDR") else {
        return;
    };
    let redis = mcp_runtime::redis::Redis::from_env()
        .await
        .expect("Redis answers")
        .expect("MCP_REDIS_URL is set");
    let server = Server::builder()
        .name("rolling")
        .version("1.0.0")
        .list_changed(true)
        .redis(&redis)
        // Only a safety net here: a stopping instance fails its tasks itself.
        .tasks(TaskOptions::new().lease(Duration::from_secs(2)))
        .tool(add {})
        .tool(confirm {})
        .tool(pause {})
        .tool(slow_job {})
        .build()
        .expect("the instance builds");
    let options = HttpOptions::default()
        .health("/health")
        .ready_when(redis.ready_check())
        .shutdown_grace(GRACE);
    let listener = mcp_runtime::transport::http::bind(addr.parse().expect("an address"))
        .await
        .expect("bind");
    server.serve(listener, options).await.expect("serves");
    eprintln!("drained");
}

/// An instance as the orchestrator holds it: its port (kept across restarts) and process.
struct Instance {
    addr: SocketAddr,
    process: Process,
    generation: u32,
}

impl Instance {
    /// Starts this test binary as an instance on `addr`, and waits until it is ready.
    async fn start(
        addr: SocketAddr,
        generation: u32,
        redis_url: &str,
        dir: &std::path::Path,
    ) -> Instance {
        let log =
            std::fs::File::create(dir.join(format!("instance-{}-{generation}.log", addr.port())))
                .unwrap();
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "rolling::rolling_instance",
                "--exact",
                "--ignored",
                "--nocapture",
            ])
            .env("MCP_ROLLING_ADDR", addr.to_string())
            .env("MCP_REDIS_URL", redis_url)
            .env("MCP_STATE_KEY", common::base64(&[7u8; 32]))
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("the test binary starts again");
        let instance = Instance {
            addr,
            process: Process(child),
            generation,
        };
        let started = Instant::now();
        while health(addr).await != Some(200) {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "instance {addr} not ready after 30 s"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        instance
    }

    /// SIGTERM, the wait for the process to exit, a new one on the same port, the wait for
    /// `/health` 200: how long the drain took, and the whole restart.
    async fn restart(&mut self, redis_url: &str, dir: &std::path::Path) -> (Duration, Duration) {
        let signalled = Instant::now();
        let pid = self.process.0.id().to_string();
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "SIGTERM to {pid}");
        let status = loop {
            if let Some(status) = self.process.0.try_wait().expect("the instance's status") {
                break status;
            }
            assert!(
                // The grace, then a moment for the failed tasks to be written, and exiting.
                signalled.elapsed() < GRACE + Duration::from_secs(5),
                "instance {} still running {:?} after SIGTERM (grace {GRACE:?})",
                self.addr,
                signalled.elapsed()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        let drained = signalled.elapsed();
        assert!(
            status.success(),
            "instance {} exited with {status}",
            self.addr
        );
        *self = Instance::start(self.addr, self.generation + 1, redis_url, dir).await;
        (drained, signalled.elapsed())
    }
}

/// A free address for instance `n`, its port below Linux's ephemeral range (32768 and up):
/// while an instance restarts, no connection this machine opens meanwhile can take its port.
fn instance_addr(n: u16) -> SocketAddr {
    // 20000–31999, from a place of this run's own; instance n on every third port.
    let first = (std::process::id() % 1_000) as u16 * 12 + n;
    (0..4_000)
        .map(|k| 20_000 + (first + 3 * k) % 12_000)
        .map(|port| SocketAddr::from(([127, 0, 0, 1], port)))
        .find(|addr| std::net::TcpListener::bind(addr).is_ok())
        .expect("a free port below the ephemeral range")
}

/// The status of `GET /health` on `addr`, if it answers.
async fn health(addr: SocketAddr) -> Option<u16> {
    let ask = async {
        let mut s = tokio::net::TcpStream::connect(addr).await.ok()?;
        let head = format!("GET /health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        s.write_all(head.as_bytes()).await.ok()?;
        let mut answer = Vec::new();
        s.read_to_end(&mut answer).await.ok()?;
        let text = String::from_utf8_lossy(&answer);
        text.split_whitespace().nth(1)?.parse().ok()
    };
    tokio::time::timeout(Duration::from_secs(3), ask)
        .await
        .ok()
        .flatten()
}

// ---------------------------------------------------------------------------------------------
// The clients
// ---------------------------------------------------------------------------------------------

/// What a client may retry, counted by kind.
#[derive(Clone, Copy, Debug)]
enum Retry {
    /// No connection to the front, or it closed before any answer.
    Connection,
    /// 502 from the front.
    BadGateway,
    /// 503.
    Unavailable,
    /// 504.
    GatewayTimeout,
    /// 404 for a 2025-11-25 session: initialized again.
    SessionGone,
    /// A task failed because its instance shut down: created again.
    TaskAgain,
}

const RETRIES: [(Retry, &str); 6] = [
    (Retry::Connection, "connection error"),
    (Retry::BadGateway, "502"),
    (Retry::Unavailable, "503"),
    (Retry::GatewayTimeout, "504"),
    (Retry::SessionGone, "session gone (404)"),
    (Retry::TaskAgain, "task created again"),
];

/// What one try brought: an answer, something worth another try, or a failure no client could
/// retry safely.
enum Try {
    Again(Retry, String),
    Failed(String),
}

/// A whole answer from the front.
struct Reply {
    status: StatusCode,
    session: Option<String>,
    body: Bytes,
    /// How many tries it took.
    tries: u32,
}

impl Reply {
    /// The JSON-RPC response it carries (JSON, or the last message with an id of an SSE body).
    fn message(&self) -> Result<Value, String> {
        let text = String::from_utf8_lossy(&self.body);
        if text.trim_start().starts_with('{') {
            return serde_json::from_slice(&self.body).map_err(|e| format!("{e}: {text}"));
        }
        common::sse_messages(&self.body)
            .into_iter()
            .rfind(|m| m.get("id").is_some())
            .ok_or_else(|| format!("no response in: {text}"))
    }
}

/// How long a client keeps retrying one request before it counts as failed.
const GIVE_UP: Duration = Duration::from_secs(30);

/// Everything the run counts.
#[derive(Default)]
struct Tally {
    exchanges: AtomicU64,
    retries: [AtomicU64; 6],
    failures: Mutex<Vec<String>>,
    calls: AtomicU64,
    rounds: AtomicU64,
    tasks: Mutex<Vec<TaskSeen>>,
    sessions: AtomicU64,
    session_calls: AtomicU64,
    gets_opened: AtomicU64,
    gets_ended: AtomicU64,
    listens: ListenTally,
}

/// What the listeners saw.
#[derive(Default)]
struct ListenTally {
    opened: AtomicU64,
    acknowledged: AtomicU64,
    ended_with_result: AtomicU64,
    ended_without_result: AtomicU64,
    reopened: AtomicU64,
    /// Ended once the run was over: nothing to open again.
    ended_at_run_end: AtomicU64,
}

impl Tally {
    fn retry(&self, kind: Retry) {
        self.retries[kind as usize].fetch_add(1, Ordering::Relaxed);
    }
    fn retried(&self, kind: Retry) -> u64 {
        self.retries[kind as usize].load(Ordering::Relaxed)
    }
    fn fail(&self, why: String) {
        eprintln!("FAILED: {why}");
        self.failures.lock().unwrap().push(why);
    }
}

/// What the run saw of one task.
struct TaskSeen {
    id: String,
    status: String,
    /// A task of [`LONG_TASK_MS`].
    long: bool,
}

/// The request `_meta`: elicitation and the tasks extension declared.
fn meta() -> Value {
    tools::client_meta("rolling")
}

/// A client of one front (nginx, or one instance directly) with its own connection pool.
#[derive(Clone)]
struct Front {
    url: String,
    http: Client<HttpConnector, Full<Bytes>>,
    next_id: Arc<AtomicU64>,
    tally: Arc<Tally>,
}

impl Front {
    fn new(addr: SocketAddr, tally: Arc<Tally>) -> Front {
        Front {
            url: format!("http://{addr}/mcp"),
            http: Client::builder(hyper_util::rt::TokioExecutor::new()).build_http(),
            next_id: Arc::new(AtomicU64::new(1)),
            tally,
        }
    }

    /// One exchange: the whole answer, or what to do about it.
    async fn once(
        &self,
        method: http::Method,
        headers: &[(String, String)],
        body: String,
    ) -> Result<Reply, Try> {
        self.tally.exchanges.fetch_add(1, Ordering::Relaxed);
        let mut req = http::Request::builder().method(method).uri(&self.url);
        for (k, v) in headers {
            req = req.header(k, v);
        }
        let req = req.body(Full::new(Bytes::from(body))).unwrap();
        let resp = match tokio::time::timeout(common::TIMEOUT, self.http.request(req)).await {
            Err(_) => return Err(Try::Failed("no answer in 10 s".into())),
            Ok(Err(e)) => return Err(Try::Again(Retry::Connection, e.to_string())),
            Ok(Ok(resp)) => resp,
        };
        let status = resp.status();
        let session = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let kind = match status.as_u16() {
            502 => Some(Retry::BadGateway),
            503 => Some(Retry::Unavailable),
            504 => Some(Retry::GatewayTimeout),
            _ => None,
        };
        let body = tokio::time::timeout(common::TIMEOUT, resp.into_body().collect()).await;
        let body = match (body, kind) {
            (_, Some(kind)) => return Err(Try::Again(kind, format!("status {status}"))),
            (Err(_), None) => return Err(Try::Failed(format!("{status}: the body stalled"))),
            (Ok(Err(e)), None) => {
                return Err(Try::Failed(format!("{status}: the answer was cut: {e}")));
            }
            (Ok(Ok(body)), None) => body.to_bytes(),
        };
        Ok(Reply {
            status,
            session,
            body,
            tries: 1,
        })
    }

    /// An exchange tried again while it is worth it (until [`GIVE_UP`]); `None` when it failed
    /// (recorded with `what`).
    async fn exchange(
        &self,
        what: &str,
        method: http::Method,
        headers: &[(String, String)],
        body: &str,
    ) -> Option<Reply> {
        let started = Instant::now();
        let mut tries = 1;
        loop {
            match self.once(method.clone(), headers, body.to_owned()).await {
                Ok(reply) => return Some(Reply { tries, ..reply }),
                Err(Try::Again(kind, _)) if started.elapsed() < GIVE_UP => {
                    tries += 1;
                    self.tally.retry(kind);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(Try::Again(_, why) | Try::Failed(why)) => {
                    self.tally.fail(format!("{what}: {why}"));
                    return None;
                }
            }
        }
    }

    /// A 2026-07-28 request's result (`None`: it failed, recorded).
    async fn result(&self, method: &str, mut params: Value) -> Option<Value> {
        params["_meta"] = meta();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let what = format!("`{method}` {}", params.get("name").unwrap_or(&Value::Null));
        let reply = self
            .exchange(
                &what,
                http::Method::POST,
                &headers_for(&body),
                &body.to_string(),
            )
            .await?;
        let message = match (reply.status, reply.message()) {
            (StatusCode::OK, Ok(message)) => message,
            (status, message) => {
                self.tally.fail(format!("{what}: {status}: {message:?}"));
                return None;
            }
        };
        match message.get("result") {
            Some(result) => Some(result.clone()),
            None => {
                self.tally.fail(format!("{what}: answered {message}"));
                None
            }
        }
    }

    /// Whether `got` is the string `want` (else a failure, recorded with `what`).
    fn expect(&self, what: &str, got: &Value, want: &str) -> bool {
        let ok = got.as_str() == Some(want);
        if !ok {
            self.tally.fail(format!("{what}: got {got}, wanted {want}"));
        }
        ok
    }
}

/// One worker's 2026-07-28 operations until `end`, in turn: a quick call, a two-round request,
/// a call that takes 200 ms, a task of 300 ms.
async fn worker(front: Front, n: u64, end: Instant) {
    let mut i = 0u64;
    while Instant::now() < end {
        i += 1;
        match i % 4 {
            0 => {
                let args = json!({"name": "add", "arguments": {"a": n, "b": i}});
                if let Some(r) = front.result("tools/call", args).await
                    && front.expect("add", &r["content"][0]["text"], &(n + i).to_string())
                {
                    front.tally.calls.fetch_add(1, Ordering::Relaxed);
                }
            }
            1 => {
                let args = json!({"name": "confirm", "arguments": {}});
                let Some(first) = front.result("tools/call", args).await else {
                    continue;
                };
                if !front.expect("round 1", &first["resultType"], "input_required") {
                    continue;
                }
                let key = first["inputRequests"]
                    .as_object()
                    .and_then(|m| m.keys().next());
                let retry = json!({"name": "confirm", "arguments": {},
                    "inputResponses": {key.cloned().unwrap_or_default():
                        {"action": "accept", "content": {"ok": true}}},
                    "requestState": first["requestState"]});
                if let Some(r) = front.result("tools/call", retry).await
                    && front.expect("round 2", &r["content"][0]["text"], "confirmed: true")
                {
                    front.tally.rounds.fetch_add(1, Ordering::Relaxed);
                }
            }
            2 => {
                let args = json!({"name": "pause", "arguments": {"ms": 200}});
                if let Some(r) = front.result("tools/call", args).await
                    && front.expect("pause", &r["content"][0]["text"], "paused 200 ms")
                {
                    front.tally.calls.fetch_add(1, Ordering::Relaxed);
                }
            }
            _ => task(&front, 300, end).await,
        }
    }
}

/// A worker of long tasks only (each outlives a stopping instance's grace).
async fn long_tasks(front: Front, end: Instant) {
    while Instant::now() < end {
        task(&front, LONG_TASK_MS, end).await;
    }
}

/// Creates a task of `ms` and follows it to its end; created again while its instance shut
/// down under it (and the run goes on).
async fn task(front: &Front, ms: u64, end: Instant) {
    loop {
        let args = json!({"name": "slow_job", "arguments": {"ms": ms}});
        let Some(created) = front.result("tools/call", args).await else {
            return;
        };
        if !front.expect("task", &created["resultType"], "task") {
            return;
        }
        let id = created["taskId"].as_str().unwrap_or_default().to_owned();
        let Some(status) = until_terminal(front, &id, ms).await else {
            return;
        };
        let again = status == "failed";
        front.tally.tasks.lock().unwrap().push(TaskSeen {
            id,
            status,
            long: ms == LONG_TASK_MS,
        });
        if !again || Instant::now() >= end {
            return;
        }
        front.tally.retry(Retry::TaskAgain);
    }
}

/// Polls task `id` until it ends: `completed` with the job's text, or `failed` because its
/// instance shut down (anything else is a failure, recorded: `None`).
async fn until_terminal(front: &Front, id: &str, ms: u64) -> Option<String> {
    let started = Instant::now();
    loop {
        let task = front.result("tasks/get", json!({"taskId": id})).await?;
        match task["status"].as_str().unwrap_or_default() {
            "completed" => {
                let text = &task["result"]["content"][0]["text"];
                return front
                    .expect("task result", text, &format!("done after {ms} ms"))
                    .then(|| "completed".into());
            }
            "failed" => {
                let message = task["error"]["message"].as_str().unwrap_or_default();
                if !message.contains(SHUT_DOWN) {
                    front
                        .tally
                        .fail(format!("task {id} failed otherwise: {task}"));
                    return None;
                }
                return Some("failed".into());
            }
            "working" if started.elapsed() < GIVE_UP => {}
            _ => {
                front.tally.fail(format!("task {id}: {task}"));
                return None;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Holds a listen stream through `front` until `end`: each (re)opened stream must be
/// acknowledged, and each that ends must bring its final result first; then it is opened again.
async fn listener(front: SocketAddr, n: u64, end: Instant, tally: Arc<Tally>) {
    let id = format!("listen-{n}");
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": true}, "_meta": meta()}});
    let headers = headers_for(&body);
    let listens = &tally.listens;
    let mut ended = false;
    let mut failing_since: Option<Instant> = None;
    while Instant::now() < end {
        let opened = send_streaming(front, http::Method::POST, &headers, body.to_string()).await;
        let retry = match &opened {
            Err(e) if e.starts_with("no response") => None,
            Err(_) => Some(Retry::Connection),
            Ok((resp, _)) => match resp.status().as_u16() {
                200 => None,
                502 => Some(Retry::BadGateway),
                503 => Some(Retry::Unavailable),
                504 => Some(Retry::GatewayTimeout),
                _ => None,
            },
        };
        if let Some(kind) = retry {
            if let Ok((_, conn)) = &opened {
                conn.abort();
            }
            let since = *failing_since.get_or_insert_with(Instant::now);
            if since.elapsed() > GIVE_UP {
                tally.fail(format!("{id}: not reopened in {GIVE_UP:?}: {kind:?}"));
                return;
            }
            tally.retry(kind);
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        failing_since = None;
        let (resp, conn) = match opened {
            Ok((resp, conn)) if resp.status() == StatusCode::OK => (resp, conn),
            Ok((resp, _)) => {
                tally.fail(format!("{id}: opened with {}", resp.status()));
                return;
            }
            Err(e) => {
                tally.fail(format!("{id}: {e}"));
                return;
            }
        };
        listens.opened.fetch_add(1, Ordering::Relaxed);
        if ended {
            listens.reopened.fetch_add(1, Ordering::Relaxed);
        }
        let mut stream = EventStream::new(resp, conn);
        let first = tokio::time::timeout(common::TIMEOUT, stream.next()).await;
        match first.ok().flatten() {
            Some(m) if m["method"] == "notifications/subscriptions/acknowledged" => {
                listens.acknowledged.fetch_add(1, Ordering::Relaxed);
            }
            other => {
                tally.fail(format!("{id}: not acknowledged: {other:?}"));
                return;
            }
        }
        let mut result = false;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, stream.next()).await {
                // The run is over: the stream is dropped, not ended.
                Err(_) => return,
                Ok(None) => break,
                Ok(Some(m)) => {
                    if m["id"] == id.as_str() && m["result"]["resultType"] == "complete" {
                        result = true;
                    }
                }
            }
        }
        ended = true;
        match result {
            true => listens.ended_with_result.fetch_add(1, Ordering::Relaxed),
            false => {
                tally.fail(format!("{id}: ended without its final result"));
                listens.ended_without_result.fetch_add(1, Ordering::Relaxed)
            }
        };
        if Instant::now() >= end {
            listens.ended_at_run_end.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The headers of a 2025-11-25 session's requests.
fn session_headers(session: &str) -> Vec<(String, String)> {
    let mut h = post_headers();
    h.push(("Mcp-Session-Id".into(), session.into()));
    h.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
    h
}

/// A 2025-11-25 client until `end`: initialize, the GET stream (reopened whenever it ends),
/// five calls, DELETE; again. A 404 on the session means it is gone: initialize again.
async fn session_worker(front: Front, front_addr: SocketAddr, n: u64, end: Instant) {
    let tally = front.tally.clone();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": format!("legacy-{n}"), "version": "1"}}});
    let mut i = 0;
    'sessions: while Instant::now() < end {
        let Some(reply) = front
            .exchange(
                "initialize",
                http::Method::POST,
                &post_headers(),
                &init.to_string(),
            )
            .await
        else {
            return;
        };
        let Some(session) = reply.session.filter(|_| reply.status == StatusCode::OK) else {
            tally.fail(format!("initialize: {} without a session", reply.status));
            return;
        };
        tally.sessions.fetch_add(1, Ordering::Relaxed);
        let headers = session_headers(&session);
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let Some(reply) = front
            .exchange(
                "initialized",
                http::Method::POST,
                &headers,
                &note.to_string(),
            )
            .await
        else {
            return;
        };
        if reply.status == StatusCode::NOT_FOUND {
            tally.retry(Retry::SessionGone);
            continue;
        }
        if reply.status != StatusCode::ACCEPTED {
            tally.fail(format!("initialized: {}", reply.status));
            return;
        }
        let get = tokio::spawn(get_stream(front_addr, headers.clone(), tally.clone()));
        for _ in 0..5 {
            i += 1;
            let call = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": n, "b": i}}});
            let Some(reply) = front
                .exchange(
                    "session call",
                    http::Method::POST,
                    &headers,
                    &call.to_string(),
                )
                .await
            else {
                get.abort();
                return;
            };
            if reply.status == StatusCode::NOT_FOUND {
                get.abort();
                tally.retry(Retry::SessionGone);
                continue 'sessions;
            }
            match reply.message() {
                Ok(m) if reply.status == StatusCode::OK => {
                    let want = (n + i).to_string();
                    if front.expect("session call", &m["result"]["content"][0]["text"], &want) {
                        tally.session_calls.fetch_add(1, Ordering::Relaxed);
                    }
                }
                other => tally.fail(format!("session call: {}: {other:?}", reply.status)),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        get.abort();
        // A DELETE tried again may find the session already ended: 404 is its end too.
        if let Some(reply) = front
            .exchange("DELETE", http::Method::DELETE, &headers, "")
            .await
        {
            let ended = reply.status == StatusCode::OK
                || (reply.status == StatusCode::NOT_FOUND && reply.tries > 1);
            if !ended {
                tally.fail(format!("DELETE: {}", reply.status));
            }
        }
    }
}

/// Holds a session's GET stream, opening it again whenever it ends (its instance drained),
/// until aborted.
async fn get_stream(front: SocketAddr, headers: Vec<(String, String)>, tally: Arc<Tally>) {
    loop {
        match send_streaming(front, http::Method::GET, &headers, "").await {
            Ok((resp, conn)) if resp.status() == StatusCode::OK => {
                tally.gets_opened.fetch_add(1, Ordering::Relaxed);
                let mut stream = EventStream::new(resp, conn);
                while stream.next().await.is_some() {}
                tally.gets_ended.fetch_add(1, Ordering::Relaxed);
            }
            Ok((resp, conn)) => {
                conn.abort();
                match resp.status().as_u16() {
                    502 => tally.retry(Retry::BadGateway),
                    503 => tally.retry(Retry::Unavailable),
                    504 => tally.retry(Retry::GatewayTimeout),
                    // The session ended (its worker deletes it after aborting this task).
                    404 => return,
                    other => {
                        tally.fail(format!("GET stream: {other}"));
                        return;
                    }
                }
            }
            Err(e) if e.starts_with("no response") => {
                tally.fail(format!("GET stream: {e}"));
                return;
            }
            Err(_) => tally.retry(Retry::Connection),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_under_load_loses_nothing() {
    let _alone = tools::one_load_at_a_time().await;
    let secs: u64 = std::env::var("MCP_ROLLING_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let run = Duration::from_secs(secs.max(15));
    // Workers of 2026-07-28 operations (`MCP_ROLLING_WORKERS`, default 6): more of them, more
    // requests on their way when an instance is told to stop.
    let workers: u64 = std::env::var("MCP_ROLLING_WORKERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    let dir = std::env::temp_dir().join(format!("mcp-rolling-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let redis = RedisServer::start();
    let redis_url = redis.url();
    let mut instances = Vec::new();
    for n in 0..3 {
        instances.push(Instance::start(instance_addr(n), 0, &redis_url, &dir).await);
    }
    let addrs: Vec<SocketAddr> = instances.iter().map(|i| i.addr).collect();
    let (_nginx, port) = nginx(&addrs, &dir);
    let front_addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    // Let the instances' change buses subscribe.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let start = Instant::now();
    let end = start + run;
    let tally = Arc::new(Tally::default());
    let mut load = Vec::new();
    for n in 0..workers {
        let front = Front::new(front_addr, tally.clone());
        load.push(tokio::spawn(worker(front, n, end)));
    }
    load.push(tokio::spawn(long_tasks(
        Front::new(front_addr, tally.clone()),
        end,
    )));
    for n in 0..2 {
        let front = Front::new(front_addr, tally.clone());
        load.push(tokio::spawn(session_worker(front, front_addr, n, end)));
    }
    for n in 0..6 {
        load.push(tokio::spawn(listener(front_addr, n, end, tally.clone())));
    }

    // Rolling restarts, one instance at a time, from 3 s in until 5 s before the end.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut restarts = Vec::new();
    'rolling: loop {
        for instance in &mut instances {
            if Instant::now() + GRACE + Duration::from_secs(3) > end {
                break 'rolling;
            }
            let at = start.elapsed();
            let (drained, whole) = instance.restart(&redis_url, &dir).await;
            eprintln!(
                "restart of {} at {:.1} s: drained and exited in {drained:?}, ready again {whole:?} after SIGTERM",
                instance.addr,
                at.as_secs_f64()
            );
            restarts.push((drained, whole));
            tokio::time::sleep(PACE).await;
        }
        // Between rolling restarts, a moment of steady load.
        tokio::time::sleep(Duration::from_secs(1)).await;
    }

    for task in load {
        task.await.expect("every client ran to the end");
    }
    let tasks = std::mem::take(&mut *tally.tasks.lock().unwrap());

    // No task is lost: each reads the same through every instance (all restarted by now).
    let direct: Vec<Front> = instances
        .iter()
        .map(|i| Front::new(i.addr, tally.clone()))
        .collect();
    for t in &tasks {
        for front in &direct {
            let Some(now) = front.result("tasks/get", json!({"taskId": t.id})).await else {
                continue;
            };
            front.expect(
                &format!("task {} through {}", t.id, front.url),
                &now["status"],
                &t.status,
            );
            if t.status == "failed" {
                let message = now["error"]["message"].as_str().unwrap_or_default();
                if !message.contains(SHUT_DOWN) {
                    tally.fail(format!("task {}: {now}", t.id));
                }
            }
        }
    }

    let completed = tasks.iter().filter(|t| t.status == "completed").count();
    let l = &tally.listens;
    let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
    let mut drains: Vec<Duration> = restarts.iter().map(|r| r.0).collect();
    let mut wholes: Vec<Duration> = restarts.iter().map(|r| r.1).collect();
    drains.sort();
    wholes.sort();
    let spread = |d: &[Duration]| {
        format!(
            "min {:?}, median {:?}, max {:?}",
            d.first().copied().unwrap_or_default(),
            d.get(d.len() / 2).copied().unwrap_or_default(),
            d.last().copied().unwrap_or_default()
        )
    };
    let retries: Vec<String> = RETRIES
        .iter()
        .map(|(kind, name)| format!("{name} {}", tally.retried(*kind)))
        .collect();
    let (nginx_said, unanswered) = nginx_errors(&dir.join("error.log"));
    eprintln!(
        "rolling restart run of {run:?}: {} restarts (SIGTERM → exit: {}; SIGTERM → /health 200: {})\n\
         HTTP exchanges {}; 2026 calls {}, two-round requests {}; tasks {} ({completed} completed, {} failed by a stopping instance and created again; {} of {LONG_TASK_MS} ms)\n\
         2025-11-25 sessions {} ({} calls; GET streams opened {}, ended by a drain {})\n\
         listen streams opened {} (acknowledged {}), ended with their final result {}, without {}, reopened {}\n\
         retries: {}\n\
         failures no client could retry: {}\n\
         nginx's error.log: {nginx_said}",
        restarts.len(),
        spread(&drains),
        spread(&wholes),
        load(&tally.exchanges),
        load(&tally.calls),
        load(&tally.rounds),
        tasks.len(),
        tasks.len() - completed,
        tasks.iter().filter(|t| t.long).count(),
        load(&tally.sessions),
        load(&tally.session_calls),
        load(&tally.gets_opened),
        load(&tally.gets_ended),
        load(&l.opened),
        load(&l.acknowledged),
        load(&l.ended_with_result),
        load(&l.ended_without_result),
        load(&l.reopened),
        retries.join(", "),
        tally.failures.lock().unwrap().len(),
    );
    let failures = tally.failures.lock().unwrap();
    assert!(failures.is_empty(), "failed requests: {failures:#?}");
    // No request reached a stopping instance and went unanswered (nginx answers such a POST
    // with a 502 that no client can safely retry: it may have run).
    assert_eq!(unanswered, 0, "nginx's errors: {nginx_said}");
    assert!(
        restarts.len() >= 3,
        "every instance restarted at least once"
    );
    assert!(load(&tally.calls) > 0 && load(&tally.rounds) > 0 && completed > 0);
    assert!(load(&tally.session_calls) > 0);
    assert_eq!(load(&l.ended_without_result), 0);
    assert!(
        load(&l.ended_with_result) > 0,
        "drains ended listen streams"
    );
    assert_eq!(
        load(&l.reopened) + load(&l.ended_at_run_end),
        load(&l.ended_with_result),
        "every listen stream that ended was opened again"
    );
    assert_eq!(load(&l.opened), load(&l.acknowledged));
    drop(instances);
    let _ = std::fs::remove_dir_all(&dir);
}

/// What nginx's error log says, each kind of line counted ("N× what"), and how many of its
/// errors were neither a refused connection (nginx sends a request refused so to another
/// instance) nor "no live upstreams" (nginx took every instance for down for a moment and sent
/// the request nowhere: a 502 the client retries, counted with the retries): any other error
/// is a request that reached an instance and got no answer.
fn nginx_errors(log: &std::path::Path) -> (String, usize) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let mut kinds: Vec<(String, usize)> = Vec::new();
    let others = text
        .lines()
        .filter(|l| {
            l.contains("[error]")
                && !l.contains("(111: Connection refused)")
                && !l.contains("no live upstreams")
        })
        .count();
    for line in text.lines() {
        // `… [error] 123#0: *45 connect() failed (111: Connection refused) while connecting to
        // upstream, client: …`: the words between the connection number and the client.
        let what = line
            .split_once(": *")
            .and_then(|(_, rest)| rest.split_once(' '))
            .map_or(line, |(_, rest)| rest);
        let what = what.split(", client:").next().unwrap_or(what).to_owned();
        match kinds.iter_mut().find(|(k, _)| *k == what) {
            Some((_, n)) => *n += 1,
            None => kinds.push((what, 1)),
        }
    }
    if kinds.is_empty() {
        return ("nothing".into(), 0);
    }
    let said = kinds
        .iter()
        .map(|(k, n)| format!("{n}× {k}"))
        .collect::<Vec<_>>()
        .join("; ");
    (said, others)
}
