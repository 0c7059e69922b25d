//! A bounded load run against three instance processes behind nginx, sharing one Redis
//! (`--features redis`): for a minute (`MCP_FAILOVER_SECS`), workers run plain calls,
//! multi-round requests and tasks through nginx while listeners hold listen streams. A third of
//! the way in one instance is killed (SIGKILL); two thirds in, Redis is restarted. Clients that
//! retry on a connection error (or a 502/503/504, or `-32603` while Redis is away) finish every
//! operation; every task reaches an end that any instance reports (completed, or failed with
//! "instance stopped" when it ran on the killed one); every listen stream gets the refetch
//! signal after Redis comes back.
//!
//! The instances are this test binary started again (`failover_instance`, ignored in normal
//! runs), so that one can really be killed.

use crate::common;
use bytes::Bytes;
use common::engines::{Process, RedisServer, free_port, nginx, wait_for_port};
use common::headers_for;
use common::sse::open_stream;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::{Client, connect::HttpConnector};
use mcp_runtime::TaskOptions;
use mcp_runtime::protocol::{GetPromptResult, PromptMessage};
use mcp_runtime::{HttpOptions, Server, prompt, resource};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------------
// The instance
// ---------------------------------------------------------------------------------------------

use crate::scale_tools as tools;
use tools::{add, confirm, pause, slow_job};

/// A greeting (so that the prompts list exists to change).
#[prompt]
pub fn greeting() -> GetPromptResult {
    GetPromptResult::new(vec![PromptMessage::user("Hello")])
}

/// The instance's status (so that the resources list exists to change).
#[resource("test://status", name = "status", mime_type = "text/plain")]
pub fn status() -> String {
    "up".to_owned()
}

/// How long a task's runner holds it without renewing, on these instances.
const LEASE: Duration = Duration::from_secs(2);

/// One instance, when this binary is started as one (`MCP_FAILOVER_ADDR` set): Redis from
/// `MCP_REDIS_URL`, the state key from `MCP_STATE_KEY`, as a deployed server would. Serves
/// until killed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "an instance process of the failover test, started by it"]
async fn failover_instance() {
    let Ok(addr) = std::env::var("MCP_FAILOVER_ADDR") else {
        return;
    };
    let name = std::env::var("MCP_FAILOVER_NAME").unwrap_or_else(|_| "instance".into());
    let redis = mcp_runtime::redis::Redis::from_env()
        .await
        .expect("Redis answers")
        .expect("MCP_REDIS_URL is set");
    let server = Server::builder()
        .name(name)
        .version("1.0.0")
        .list_changed(true)
        .redis(&redis)
        .tasks(TaskOptions::new().lease(LEASE))
        .tool(add {})
        .tool(confirm {})
        .tool(pause {})
        .tool(slow_job {})
        .prompt(greeting {})
        .resource(status {})
        .build()
        .expect("the instance builds");
    let options = HttpOptions::default()
        .health("/health")
        .ready_when(redis.ready_check());
    let listener = tokio::net::TcpListener::bind(&addr).await.expect("bind");
    server.serve(listener, options).await.expect("serves");
}

/// Starts this test binary as instance `name` on a free port.
fn spawn_instance(name: &str, redis_url: &str, dir: &std::path::Path) -> (Process, SocketAddr) {
    let port = free_port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "failover::failover_instance",
            "--exact",
            "--ignored",
            "--nocapture",
        ])
        .env("MCP_FAILOVER_ADDR", addr.to_string())
        .env("MCP_FAILOVER_NAME", name)
        .env("MCP_REDIS_URL", redis_url)
        .env("MCP_STATE_KEY", common::base64(&[7u8; 32]))
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("the test binary starts again");
    wait_for_port(port);
    (Process(child), addr)
}

// ---------------------------------------------------------------------------------------------
// The clients
// ---------------------------------------------------------------------------------------------

/// The request `_meta`: elicitation and the tasks extension declared.
fn meta() -> Value {
    tools::client_meta("failover")
}

/// How long a client keeps retrying one request before the operation counts as failed.
const GIVE_UP: Duration = Duration::from_secs(30);

/// A client of the front (nginx) that retries what a deployed client would: a connection
/// error, a 502/503/504 from the proxy, and `-32603` (Redis away for a moment).
struct Front {
    url: String,
    http: Client<HttpConnector, Full<Bytes>>,
    next_id: AtomicU64,
    retries: Arc<AtomicU64>,
}

impl Front {
    fn new(url: &str, retries: Arc<AtomicU64>) -> Front {
        Front {
            url: url.to_owned(),
            http: Client::builder(hyper_util::rt::TokioExecutor::new()).build_http(),
            next_id: AtomicU64::new(1),
            retries,
        }
    }

    /// One try: the JSON-RPC response, or why it is worth another try.
    async fn once(&self, body: &Value) -> Result<Value, String> {
        let mut req = http::Request::post(&self.url);
        for (k, v) in headers_for(body) {
            req = req.header(k, v);
        }
        let req = req.body(Full::new(Bytes::from(body.to_string()))).unwrap();
        let resp = tokio::time::timeout(common::TIMEOUT, self.http.request(req))
            .await
            .map_err(|_| "no answer in time".to_owned())?
            .map_err(|e| format!("connection: {e}"))?;
        let status = resp.status();
        let bytes = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("body: {e}"))?
            .to_bytes();
        if [502, 503, 504].contains(&status.as_u16()) {
            return Err(format!("status {status}"));
        }
        let text = String::from_utf8_lossy(&bytes);
        let message = if text.trim_start().starts_with('{') {
            serde_json::from_slice::<Value>(&bytes).map_err(|e| e.to_string())?
        } else {
            common::sse_messages(&bytes)
                .into_iter()
                .rfind(|m| m.get("id").is_some())
                .ok_or_else(|| format!("no response in: {text}"))?
        };
        if message["error"]["code"] == -32603 {
            return Err(format!("internal error: {}", message["error"]));
        }
        Ok(message)
    }

    /// `method` with `params`, tried again on transient faults; the response.
    async fn request(&self, method: &str, mut params: Value) -> Value {
        params["_meta"] = meta();
        let started = Instant::now();
        loop {
            let id = self.next_id.fetch_add(1, Ordering::Relaxed);
            let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            match self.once(&body).await {
                Ok(message) => return message,
                Err(why) if started.elapsed() > GIVE_UP => {
                    panic!("`{method}` still failing after {GIVE_UP:?}: {why}")
                }
                Err(_) => {
                    self.retries.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    }

    async fn result(&self, method: &str, params: Value) -> Value {
        let message = self.request(method, params).await;
        match message.get("result") {
            Some(result) => result.clone(),
            None => panic!("`{method}` answered with an error: {message}"),
        }
    }
}

/// What the run saw of one task.
struct TaskSeen {
    id: String,
    created: Instant,
    status: String,
}

#[derive(Default)]
struct Tally {
    calls: AtomicU64,
    rounds: AtomicU64,
    tasks: Mutex<Vec<TaskSeen>>,
}

/// One worker's operations until `end`: a quick call, a two-round request, a slow call and a
/// task, in turn.
async fn worker(front: Front, n: u64, end: Instant, tally: Arc<Tally>) {
    let mut i = 0u64;
    while Instant::now() < end {
        i += 1;
        match i % 4 {
            0 => {
                let r = front
                    .result(
                        "tools/call",
                        json!({"name": "add", "arguments": {"a": n, "b": i}}),
                    )
                    .await;
                assert_eq!(r["content"][0]["text"], (n + i).to_string(), "{r}");
                tally.calls.fetch_add(1, Ordering::Relaxed);
            }
            2 => {
                let r = front
                    .result(
                        "tools/call",
                        json!({"name": "pause", "arguments": {"ms": 200}}),
                    )
                    .await;
                assert_eq!(r["content"][0]["text"], "paused 200 ms", "{r}");
                tally.calls.fetch_add(1, Ordering::Relaxed);
            }
            1 => {
                let first = front
                    .result("tools/call", json!({"name": "confirm", "arguments": {}}))
                    .await;
                assert_eq!(first["resultType"], "input_required", "{first}");
                let key = first["inputRequests"].as_object().unwrap().keys().next();
                let retry = front
                    .result(
                        "tools/call",
                        json!({"name": "confirm", "arguments": {},
                            "inputResponses": {key.unwrap():
                                {"action": "accept", "content": {"ok": true}}},
                            "requestState": first["requestState"]}),
                    )
                    .await;
                assert_eq!(retry["content"][0]["text"], "confirmed: true", "{retry}");
                tally.rounds.fetch_add(1, Ordering::Relaxed);
            }
            _ => {
                let created_at = Instant::now();
                let created = front
                    .result(
                        "tools/call",
                        json!({"name": "slow_job", "arguments": {"ms": 300}}),
                    )
                    .await;
                assert_eq!(created["resultType"], "task", "{created}");
                let id = created["taskId"].as_str().unwrap().to_owned();
                let status = until_terminal(&front, &id).await;
                tally.tasks.lock().unwrap().push(TaskSeen {
                    id,
                    created: created_at,
                    status,
                });
            }
        }
    }
}

/// Polls task `id` until it ends: its status (`completed` with the job's text, or `failed`
/// because its instance stopped; anything else fails the test).
async fn until_terminal(front: &Front, id: &str) -> String {
    let started = Instant::now();
    loop {
        let task = front.result("tasks/get", json!({"taskId": id})).await;
        match task["status"].as_str().unwrap_or_default() {
            "completed" => {
                assert_eq!(
                    task["result"]["content"][0]["text"], "done after 300 ms",
                    "{task}"
                );
                return "completed".into();
            }
            "failed" => {
                let message = task["error"]["message"].as_str().unwrap_or_default();
                assert!(
                    message.contains("instance running this task stopped"),
                    "{task}"
                );
                return "failed".into();
            }
            "working" => {}
            _ => panic!("task {id} in an unexpected state: {task}"),
        }
        assert!(
            started.elapsed() < GIVE_UP,
            "task {id} still working: {task}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// What one listener heard: each notification's method and when it came, and how often its
/// stream had to be opened again.
#[derive(Default)]
struct Heard {
    notes: Mutex<Vec<(Instant, String)>>,
    reopened: AtomicU64,
}

/// Holds a listen stream through `front` until `end`, opening it again when it breaks.
async fn listener(front: SocketAddr, n: u64, end: Instant, heard: Arc<Heard>) {
    let body = json!({"jsonrpc": "2.0", "id": format!("listen-{n}"),
        "method": "subscriptions/listen", "params": {
            "notifications": {"toolsListChanged": true, "promptsListChanged": true,
                "resourcesListChanged": true},
            "_meta": meta()}});
    let mut first = true;
    while Instant::now() < end {
        if !first {
            heard.reopened.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        first = false;
        let Ok(mut stream) = open_stream(
            front,
            http::Method::POST,
            &headers_for(&body),
            body.to_string(),
        )
        .await
        else {
            continue;
        };
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, stream.next()).await {
                Err(_) => return,
                Ok(None) => break,
                Ok(Some(message)) => {
                    if let Some(method) = message["method"].as_str() {
                        heard
                            .notes
                            .lock()
                            .unwrap()
                            .push((Instant::now(), method.to_owned()));
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_load_run_survives_a_killed_instance_and_a_redis_restart() {
    let _alone = tools::one_load_at_a_time().await;
    let secs: u64 = std::env::var("MCP_FAILOVER_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let run = Duration::from_secs(secs.max(6));
    let dir = std::env::temp_dir().join(format!("mcp-failover-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut redis = RedisServer::persistent(&dir.join("redis"));
    let (a, a_addr) = spawn_instance("instance-a", &redis.url(), &dir);
    let (mut b, b_addr) = spawn_instance("instance-b", &redis.url(), &dir);
    let (c, c_addr) = spawn_instance("instance-c", &redis.url(), &dir);
    let (_nginx, port) = nginx(&[a_addr, b_addr, c_addr], &dir);
    let front_addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let front = format!("http://{front_addr}/mcp");
    // Let the instances' change buses subscribe.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let start = Instant::now();
    let end = start + run;
    let retries = Arc::new(AtomicU64::new(0));
    let tally = Arc::new(Tally::default());
    let mut workers = Vec::new();
    for n in 0..6 {
        let front = Front::new(&front, retries.clone());
        workers.push(tokio::spawn(worker(front, n, end, tally.clone())));
    }
    let mut listeners = Vec::new();
    for n in 0..6 {
        let heard = Arc::new(Heard::default());
        let task = tokio::spawn(listener(front_addr, n, end, heard.clone()));
        listeners.push((task, heard));
    }

    // A third of the way in: one instance is killed, its connections cut, while it runs three
    // long tasks.
    tokio::time::sleep_until((start + run / 3).into()).await;
    let on_b = Front::new(&format!("http://{b_addr}/mcp"), retries.clone());
    let mut orphans = Vec::new();
    for _ in 0..3 {
        let created = on_b
            .result(
                "tools/call",
                json!({"name": "slow_job", "arguments": {"ms": 600_000}}),
            )
            .await;
        orphans.push(created["taskId"].as_str().unwrap().to_owned());
    }
    let kill_sent = Instant::now();
    b.stop_with("KILL");
    // `kill` is a process of its own: a task asked for before it is known dead may still have
    // reached the instance.
    let killed_at = Instant::now();
    // Their end is known through the front once their lease has passed.
    let survivor = Front::new(&front, retries.clone());
    for id in &orphans {
        assert_eq!(until_terminal(&survivor, id).await, "failed", "task {id}");
    }
    eprintln!(
        "the killed instance's 3 running tasks failed {:?} after the kill (lease {LEASE:?})",
        kill_sent.elapsed()
    );
    // Two thirds in: Redis restarts (its data kept on disk).
    tokio::time::sleep_until((start + run * 2 / 3).into()).await;
    let redis_stopped = Instant::now();
    redis.stop();
    tokio::time::sleep(Duration::from_millis(500)).await;
    redis.start_again();
    let redis_back = Instant::now();

    for w in workers {
        w.await.expect("every operation of the worker finished");
    }
    for (l, _) in &mut listeners {
        l.await.expect("the listener ran to the end");
    }
    let tasks = std::mem::take(&mut *tally.tasks.lock().unwrap());
    let completed = tasks.iter().filter(|t| t.status == "completed").count();
    let lost_runner = tasks.len() - completed;
    let reopened: u64 = listeners
        .iter()
        .map(|(_, h)| h.reopened.load(Ordering::Relaxed))
        .sum();
    eprintln!(
        "failover run of {run:?}: {} calls, {} two-round requests, {} tasks ({completed} completed, \
         {lost_runner} failed with their instance), {} retries, listen streams reopened {reopened} times",
        tally.calls.load(Ordering::Relaxed),
        tally.rounds.load(Ordering::Relaxed),
        tasks.len(),
        retries.load(Ordering::Relaxed),
    );
    assert!(tally.calls.load(Ordering::Relaxed) > 0 && tally.rounds.load(Ordering::Relaxed) > 0);
    assert!(!tasks.is_empty());

    // Only tasks that were running when the instance died lost their runner.
    let since = |at: Instant| format!("{:+.3} s", t_from(start, at));
    for t in tasks.iter().filter(|t| t.status == "failed") {
        assert!(
            t.created < killed_at,
            "task {} asked for at {} failed (the kill was confirmed at {}, Redis stopped at {} \
             and was back at {})",
            t.id,
            since(t.created),
            since(killed_at),
            since(redis_stopped),
            since(redis_back),
        );
    }
    // No task is lost: each is still known to every live instance, as its client last saw it.
    for addr in [a_addr, c_addr] {
        let direct = Front::new(&format!("http://{addr}/mcp"), retries.clone());
        for t in &tasks {
            let now = direct.result("tasks/get", json!({"taskId": t.id})).await;
            assert_eq!(now["status"], t.status.as_str(), "{} through {addr}", t.id);
        }
    }
    // Every listen stream heard the refetch signal once Redis was back: the prompts list never
    // changes in this run, so its list_changed can only be that signal.
    for (n, (_, heard)) in listeners.iter().enumerate() {
        let notes = heard.notes.lock().unwrap();
        let signal = notes
            .iter()
            .find(|(at, m)| *at >= redis_back && m == "notifications/prompts/list_changed");
        assert!(
            signal.is_some(),
            "listener {n} heard no refetch signal after Redis came back: {notes:?}"
        );
        let (at, _) = signal.unwrap();
        eprintln!(
            "listener {n}: refetch signal {:?} after Redis was back",
            *at - redis_back
        );
    }
    // The instances that lived say they are ready.
    for addr in [a_addr, c_addr] {
        let resp = common::send(http::Method::GET, &format!("http://{addr}/health"), &[], "").await;
        assert_eq!(resp.status, http::StatusCode::OK, "{addr}");
    }
    drop((a, c));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Seconds from `start` to `at` (negative when `at` came first).
fn t_from(start: Instant, at: Instant) -> f64 {
    match at.checked_duration_since(start) {
        Some(d) => d.as_secs_f64(),
        None => -(start - at).as_secs_f64(),
    }
}
