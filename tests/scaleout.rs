//! Three instances behind nginx (`deploy/nginx.conf`), sharing one Redis (`--features redis`;
//! the test starts `redis-server` and `nginx` on free loopback ports): a multi-round request
//! whose rounds land on different instances, a listen stream on one instance hearing changes
//! made on another (latency measured), a task created, read and cancelled through different
//! instances, and a 2025-11-25 session through nginx whose end is known to every instance.
#![cfg(feature = "redis")]

mod common;

use common::{HttpResponse, post, within};
use mcp_runtime::redis::Redis;
use mcp_runtime::{
    ElicitForm, Elicitation, HttpOptions, KeyRing, PrimitiveKind, RequestContext, Server, tool,
};
use serde::Deserialize;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The user's answer.
#[derive(Debug, Deserialize, ElicitForm)]
pub struct Answer {
    /// Yes or no.
    ok: bool,
}

/// Asks the user to confirm (a multi-round request).
#[tool]
pub fn confirm(#[elicit(message = "Go ahead?")] answer: Elicitation<Answer>) -> String {
    format!("confirmed: {}", answer.accepted().is_some_and(|a| a.ok))
}

/// Runs until cancelled; a task for clients that declare the extension.
#[tool(task = "optional")]
pub async fn long_job(#[ctx] cx: RequestContext) -> &'static str {
    cx.cancellation().cancelled().await;
    "stopped"
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process stopped when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        // SIGTERM, so that nginx's master stops its workers (SIGKILL would orphan them).
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
        let _ = self.0.wait();
    }
}

fn wait_for_port(port: u16) {
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("nothing listens on {port}");
}

fn redis_server() -> (Process, String) {
    let port = free_port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-server is installed (Debian: apt-get install redis-server)");
    wait_for_port(port);
    (Process(child), format!("redis://127.0.0.1:{port}/"))
}

/// nginx with `deploy/nginx.conf`, in front of `instances`.
fn nginx(instances: &[SocketAddr], dir: &std::path::Path) -> (Process, u16) {
    let port = free_port();
    let servers: String = instances
        .iter()
        .map(|a| format!("        server {a} max_fails=1 fail_timeout=2s;\n"))
        .collect();
    let template = include_str!("../deploy/nginx.conf");
    let conf = template
        .replace("@RUNTIME_DIR@", &dir.display().to_string())
        .replace("@NGINX_PORT@", &port.to_string())
        .replace("@SERVERS@\n", &servers);
    let path = dir.join("nginx.conf");
    std::fs::write(&path, conf).unwrap();
    let child = Command::new("nginx")
        .args([
            "-p",
            &dir.display().to_string(),
            "-c",
            &path.display().to_string(),
        ])
        .stdout(Stdio::null())
        .spawn()
        .expect("nginx is installed (Debian: apt-get install nginx-light)");
    wait_for_port(port);
    (Process(child), port)
}

struct Instance {
    server: Server,
    addr: SocketAddr,
    _task: tokio::task::JoinHandle<Result<(), mcp_runtime::Error>>,
}

async fn instance(name: &str, url: &str) -> Instance {
    let redis = Redis::connect(url).await.unwrap();
    let server = Server::builder()
        .name(name)
        .version("1.0.0")
        .list_changed(true)
        .state_keys(KeyRing::new(&[[9; 32]]).unwrap())
        .redis(&redis)
        .tool(confirm {})
        .tool(long_job {})
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(server.clone().serve(listener, HttpOptions::default()));
    Instance {
        server,
        addr,
        _task: task,
    }
}

fn url(addr: SocketAddr) -> String {
    format!("http://{addr}/mcp")
}

fn tasks_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
    })
}

async fn call(to: &str, id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = tasks_meta();
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let resp: HttpResponse = post(to, &common::headers_for(&body), body.to_string()).await;
    resp.messages().pop().expect("an answer")
}

fn served_by(answer: &Value) -> String {
    answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"]
        .as_str()
        .unwrap_or("?")
        .to_owned()
}

/// A GET on `addr` with `headers`, its body read as it comes.
async fn get_stream(addr: SocketAddr, headers: &[(String, String)]) -> GetStream {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tcp))
            .await
            .unwrap();
    let conn = tokio::spawn(async move {
        let _ = conn.await;
    });
    let mut req = http::Request::get("/mcp").header("host", addr.to_string());
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let req = req
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .unwrap();
    let resp = sender.send_request(req).await.unwrap();
    assert_eq!(resp.status(), http::StatusCode::OK);
    GetStream {
        body: resp.into_body(),
        buffer: Vec::new(),
        _conn: conn,
    }
}

struct GetStream {
    body: hyper::body::Incoming,
    buffer: Vec<u8>,
    _conn: tokio::task::JoinHandle<()>,
}

impl Drop for GetStream {
    fn drop(&mut self) {
        self._conn.abort();
    }
}

/// The next event's JSON data.
async fn next_data(stream: &mut GetStream) -> Value {
    use http_body_util::BodyExt;
    loop {
        if let Some(end) = stream.buffer.windows(2).position(|w| w == b"\n\n") {
            let event: Vec<u8> = stream.buffer.drain(..end + 2).collect();
            let text = String::from_utf8(event).unwrap();
            let data: Vec<&str> = text
                .lines()
                .filter_map(|l| l.strip_prefix("data:").map(str::trim_start))
                .filter(|d| !d.is_empty())
                .collect();
            if !data.is_empty() {
                return serde_json::from_str(&data.join("\n")).unwrap();
            }
            continue;
        }
        let frame = stream
            .body
            .frame()
            .await
            .expect("the stream goes on")
            .unwrap();
        if let Ok(data) = frame.into_data() {
            stream.buffer.extend_from_slice(&data);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_instances_behind_nginx_share_one_redis() {
    let dir = std::env::temp_dir().join(format!("mcp-scaleout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (_redis, redis_url) = redis_server();
    let a = instance("instance-a", &redis_url).await;
    let b = instance("instance-b", &redis_url).await;
    let c = instance("instance-c", &redis_url).await;
    let (_nginx, port) = nginx(&[a.addr, b.addr, c.addr], &dir);
    let front = format!("http://127.0.0.1:{port}/mcp");
    // Let the buses subscribe.
    tokio::time::sleep(Duration::from_millis(300)).await;

    // 1. A multi-round request through nginx: its rounds land on different instances.
    let first = call(
        &front,
        1,
        "tools/call",
        json!({"name": "confirm", "arguments": {}}),
    )
    .await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let key = first["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let retry = call(
        &front,
        2,
        "tools/call",
        json!({"name": "confirm", "arguments": {},
            "inputResponses": {key: {"action": "accept", "content": {"ok": true}}},
            "requestState": first["result"]["requestState"]}),
    )
    .await;
    assert_eq!(
        retry["result"]["content"][0]["text"], "confirmed: true",
        "{retry}"
    );
    let list = call(&front, 3, "tools/list", json!({})).await;
    let answered: std::collections::BTreeSet<String> =
        [&retry, &list].iter().map(|v| served_by(v)).collect();
    assert_eq!(
        answered.len(),
        2,
        "nginx spreads requests over the instances"
    );

    // 2. A listen stream on A hears list changes made on C: latency over 20 changes.
    let listen = json!({"jsonrpc": "2.0", "id": "l1", "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": true}, "_meta": tasks_meta()}});
    let mut call_a = a
        .server
        .handle_message(listen.to_string().as_bytes(), None)
        .unwrap();
    within("the ack", call_a.next_message()).await.unwrap();
    let mut latencies = Vec::new();
    for i in 0..20 {
        let sent = Instant::now();
        c.server
            .set_enabled(PrimitiveKind::Tool, "long_job", i % 2 == 1)
            .unwrap();
        let got = within("the list change", call_a.next_message())
            .await
            .unwrap();
        latencies.push(sent.elapsed());
        let mcp_runtime::dispatch::Outgoing::Notification(n) = got else {
            panic!("a notification")
        };
        assert!(String::from_utf8_lossy(&n).contains("notifications/tools/list_changed"));
    }
    latencies.sort();
    let median = latencies[latencies.len() / 2];
    eprintln!(
        "change from C to a listen stream on A: median {median:?}, max {:?}",
        latencies.last().unwrap()
    );
    assert!(median < Duration::from_millis(100), "median {median:?}");
    c.server
        .set_enabled(PrimitiveKind::Tool, "long_job", true)
        .unwrap();
    drop(call_a);

    // 3. A task created through A, read through B, cancelled through C, read again through A.
    let created = call(
        &url(a.addr),
        4,
        "tools/call",
        json!({"name": "long_job", "arguments": {}}),
    )
    .await;
    let task_id = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_owned();
    let seen = call(&url(b.addr), 5, "tasks/get", json!({"taskId": task_id})).await;
    assert_eq!(seen["result"]["status"], "working", "{seen}");
    let cancelled = call(&url(c.addr), 6, "tasks/cancel", json!({"taskId": task_id})).await;
    assert!(cancelled.get("result").is_some(), "{cancelled}");
    let mut status = Value::Null;
    for _ in 0..50 {
        let now = call(&url(a.addr), 7, "tasks/get", json!({"taskId": task_id})).await;
        status = now["result"]["status"].clone();
        if status == "cancelled" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(status, "cancelled");

    // 4. A 2025-11-25 session through nginx: served, then ended; every instance says 404.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}});
    let base = vec![
        ("Content-Type".to_owned(), "application/json".to_owned()),
        (
            "Accept".to_owned(),
            "application/json, text/event-stream".to_owned(),
        ),
    ];
    let resp = post(&front, &base, init.to_string()).await;
    let session = resp.header("mcp-session-id").expect("a session").to_owned();
    let mut headers = base.clone();
    headers.push(("Mcp-Session-Id".to_owned(), session.clone()));
    headers.push(("MCP-Protocol-Version".to_owned(), "2025-11-25".to_owned()));
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    for _ in 0..3 {
        let resp = post(&front, &headers, list.to_string()).await;
        assert_eq!(resp.status, http::StatusCode::OK);
        assert!(resp.messages()[0]["result"]["tools"].is_array());
    }
    // Any instance serves the session (its metadata is in Redis).
    for addr in [a.addr, b.addr, c.addr] {
        let resp = post(&url(addr), &headers, list.to_string()).await;
        assert_eq!(resp.status, http::StatusCode::OK, "{addr}");
    }
    // The session's GET stream, held on A, hears a list change made on C.
    let mut stream = get_stream(a.addr, &headers).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    c.server
        .set_enabled(PrimitiveKind::Tool, "long_job", false)
        .unwrap();
    let change = within("the change on the GET stream", next_data(&mut stream)).await;
    assert_eq!(
        change["method"], "notifications/tools/list_changed",
        "{change}"
    );
    drop(stream);
    let resp = common::send(http::Method::DELETE, &front, &headers, "").await;
    assert_eq!(resp.status, http::StatusCode::OK);
    for addr in [a.addr, b.addr, c.addr] {
        let resp = post(&url(addr), &headers, list.to_string()).await;
        assert_eq!(resp.status, http::StatusCode::NOT_FOUND, "{addr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
