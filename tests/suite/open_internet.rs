//! A public server against one client trying to take it from the others, over real HTTP on
//! loopback: each attacker is a client address of its own (127.0.0.2, 127.0.0.3, … all reach
//! the server on 127.0.0.1), so the per-caller shares of `Limits` are what is tested. Each test
//! is one attack: every request slot, every listen stream, every running task or stored task,
//! every legacy session, every connection (idle sockets past the connection cap), a listen
//! stream subscribing to a million URIs, and a token that lost a task tool's scope.

use crate::common;
use common::{HttpResponse, headers_for, meta, request, spawn_http_with, within};
use mcp_runtime::LegacyOptions;
use mcp_runtime::protocol::TASKS_EXTENSION;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Caller, HttpOptions, Limits, NoArguments, Resource, Server, TaskSupport, Tool};
use serde_json::{Value, json};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Semaphore;

/// The loopback address of client `n` (2 and up: 127.0.0.1 is the server's).
fn client(n: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, n))
}

/// `POST body` to `addr` from the client address `from`, with the headers a conforming client
/// sends.
async fn post_from(from: IpAddr, addr: SocketAddr, body: &Value) -> HttpResponse {
    post_raw_from(from, addr, headers_for(body), body.to_string()).await
}

async fn post_raw_from(
    from: IpAddr,
    addr: SocketAddr,
    headers: Vec<(String, String)>,
    body: String,
) -> HttpResponse {
    let url = format!("http://{addr}/mcp");
    common::send_from(Some(from), http::Method::POST, &url, &headers, body).await
}

fn call(name: &str) -> Value {
    request(1, "tools/call", json!({"name": name, "arguments": {}}))
}

/// `_meta` of a client that declares the tasks extension.
fn task_meta() -> Value {
    let mut m = meta();
    m["io.modelcontextprotocol/clientCapabilities"] = json!({"extensions": {TASKS_EXTENSION: {}}});
    m
}

fn task_call(name: &str) -> Value {
    request(
        1,
        "tools/call",
        json!({"name": name, "arguments": {}, "_meta": task_meta()}),
    )
}

/// A server whose `wait` holds until `gate` gives a permit; `quick` and `slow` run as tasks.
fn server(limits: Limits, gate: Arc<Semaphore>) -> Server {
    let slow_gate = gate.clone();
    Server::builder()
        .limits(limits)
        .list_changed(true)
        .resource_subscriptions(true)
        .tool(Tool::new("ping").handler(|_: NoArguments, _cx| async { "pong" }))
        .tool(Tool::new("wait").handler(move |_: NoArguments, _cx| {
            let gate = gate.clone();
            async move {
                let _permit = gate.acquire().await;
                "waited"
            }
        }))
        .tool(
            Tool::new("quick")
                .task(TaskSupport::Required)
                .handler(|_: NoArguments, _cx| async { "done" }),
        )
        .tool(
            Tool::new("slow")
                .task(TaskSupport::Required)
                .handler(move |_: NoArguments, _cx| {
                    let gate = slow_gate.clone();
                    async move {
                        let _permit = gate.acquire().await;
                        "slowly done"
                    }
                }),
        )
        .resource(Resource::new("notes://a", "a").handler(|_cx| async { "a" }))
        .build()
        .unwrap()
}

fn error_message(resp: &HttpResponse) -> String {
    let body: Value = serde_json::from_slice(&resp.body).unwrap_or(Value::Null);
    body["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Starts `n` calls of `wait` from `from`, each on its own connection, and waits until the
/// server runs them all (`running` reaches `total`).
async fn hold_calls(
    from: IpAddr,
    addr: SocketAddr,
    n: usize,
) -> Vec<tokio::task::JoinHandle<HttpResponse>> {
    let mut held = Vec::new();
    for _ in 0..n {
        held.push(tokio::spawn(async move {
            post_from(from, addr, &call("wait")).await
        }));
    }
    // Running calls hold their slots; give them a moment to be read.
    tokio::time::sleep(Duration::from_millis(300)).await;
    held
}

#[tokio::test]
async fn one_client_cannot_take_every_request_slot() {
    let gate = Arc::new(Semaphore::new(0));
    let limits = Limits::default()
        .concurrent_requests(8)
        .requests_per_caller(3);
    let http = spawn_http_with(server(limits, gate.clone()), HttpOptions::default()).await;
    let held = hold_calls(client(2), http.addr, 3).await;
    // Its fourth is refused, and says why.
    let refused = post_from(client(2), http.addr, &call("wait")).await;
    assert_eq!(refused.status, 503, "{:?}", refused.body);
    assert!(refused.header("retry-after").is_some());
    let message = error_message(&refused);
    assert!(message.contains("127.0.0.2 holds 3 requests"), "{message}");
    // Another client is served, even while the first keeps trying.
    let other = tokio::spawn(async move { post_from(client(3), http.addr, &call("wait")).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        post_from(client(2), http.addr, &call("ping")).await.status,
        503
    );
    assert_eq!(
        post_from(client(4), http.addr, &call("ping")).await.status,
        200
    );
    gate.add_permits(4);
    let other = within("the other client's call", other).await.unwrap();
    assert_eq!(other.status, 200);
    assert!(String::from_utf8_lossy(&other.body).contains("waited"));
    for h in held {
        assert_eq!(within("a held call", h).await.unwrap().status, 200);
    }
}

#[tokio::test]
async fn one_client_cannot_hold_every_listen_stream() {
    let limits = Limits::default().listen_streams(10).listens_per_caller(2);
    let http = spawn_http_with(
        server(limits, Arc::new(Semaphore::new(0))),
        HttpOptions::default(),
    )
    .await;
    let filter = json!({"toolsListChanged": true});
    let _a = common::listen_from(client(2), http.addr, filter.clone())
        .await
        .unwrap();
    let _b = common::listen_from(client(2), http.addr, filter.clone())
        .await
        .unwrap();
    let refused = common::listen_from(client(2), http.addr, filter.clone())
        .await
        .unwrap_err();
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(
        refused.contains("127.0.0.2 holds 2 listen streams"),
        "{refused}"
    );
    let _c = common::listen_from(client(3), http.addr, filter)
        .await
        .expect("another client listens");
}

#[tokio::test]
async fn a_listen_stream_subscribes_to_a_bounded_set_of_resources() {
    let limits = Limits::default().subscriptions(256, 64 * 1024);
    let http = spawn_http_with(
        server(limits, Arc::new(Semaphore::new(0))),
        HttpOptions::default(),
    )
    .await;
    let uris = |n: usize, len: usize| -> Vec<String> {
        (0..n)
            .map(|i| format!("notes://{i:0>width$}", width = len))
            .collect()
    };
    let subscribe = |uris: Vec<String>| {
        common::listen_from(client(2), http.addr, json!({"resourceSubscriptions": uris}))
    };
    let shown = |text: &str| text[..text.len().min(400)].to_owned();
    // A million one-byte URIs in one body: refused while it is read (past 4,096), nothing kept.
    let million: Vec<String> = (0..1_000_000).map(|i| (i % 10).to_string()).collect();
    let at = Instant::now();
    let refused = subscribe(million).await.unwrap_err();
    assert!(refused.contains("-32602"), "{}", shown(&refused));
    assert!(
        refused.contains("at most 4096 entries"),
        "{}",
        shown(&refused)
    );
    println!("a million subscriptions refused in {:?}", at.elapsed());
    // 257 URIs: refused; 256: acknowledged.
    let refused = subscribe(uris(257, 4)).await.unwrap_err();
    assert!(refused.contains("lists 257 URIs"), "{refused}");
    let _ok = subscribe(uris(256, 4))
        .await
        .expect("256 subscriptions are taken");
    // Few, but long: more than 64 KiB of URIs together.
    let refused = subscribe(uris(10, 7000)).await.unwrap_err();
    assert!(refused.contains("bytes together"), "{refused}");
}

fn task_id(resp: &HttpResponse) -> Option<String> {
    let body: Value = serde_json::from_slice(&resp.body).ok()?;
    body["result"]["taskId"].as_str().map(str::to_owned)
}

async fn task_status(from: IpAddr, addr: SocketAddr, id: &str) -> Value {
    let get = request(1, "tasks/get", json!({"taskId": id, "_meta": task_meta()}));
    let resp = post_from(from, addr, &get).await;
    serde_json::from_slice(&resp.body).unwrap()
}

#[tokio::test]
async fn one_client_cannot_take_every_task() {
    let gate = Arc::new(Semaphore::new(0));
    let limits = Limits::default()
        .running_tasks(4, 2)
        .stored_tasks_per_caller(5);
    let http = spawn_http_with(server(limits, gate.clone()), HttpOptions::default()).await;
    // Two running tasks are its share; the third is refused.
    for _ in 0..2 {
        let created = post_from(client(2), http.addr, &task_call("slow")).await;
        assert!(task_id(&created).is_some(), "{:?}", created.body);
    }
    let refused = post_from(client(2), http.addr, &task_call("slow")).await;
    assert_eq!(refused.status, 503, "{:?}", refused.body);
    assert!(
        error_message(&refused).contains("2 running tasks"),
        "{}",
        error_message(&refused)
    );
    // Another client still runs one.
    let theirs = post_from(client(3), http.addr, &task_call("slow")).await;
    assert!(task_id(&theirs).is_some(), "{:?}", theirs.body);
    // Finished tasks hold no running slot: a client makes many more than the running limit.
    let mut ids = Vec::new();
    for _ in 0..12 {
        let created = post_from(client(4), http.addr, &task_call("quick")).await;
        ids.push(task_id(&created).unwrap_or_else(|| panic!("{:?}", created.body)));
    }
    // It keeps its five newest; the oldest are forgotten to make room, no one else's.
    let newest = task_status(client(4), http.addr, ids.last().unwrap()).await;
    assert_eq!(newest["result"]["status"], "completed", "{newest}");
    let oldest = task_status(client(4), http.addr, &ids[0]).await;
    assert_eq!(oldest["error"]["code"], -32602, "{oldest}");
    let still = post_from(client(5), http.addr, &task_call("quick")).await;
    assert!(task_id(&still).is_some(), "{:?}", still.body);
    gate.add_permits(3);
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "attacker", "version": "1"}}})
}

/// A 2025-11-25 `initialize` from `from`.
async fn initialize_from(from: IpAddr, addr: SocketAddr) -> HttpResponse {
    post_raw_from(from, addr, legacy_headers(), initialize().to_string()).await
}

fn legacy_headers() -> Vec<(String, String)> {
    vec![
        ("Content-Type".into(), "application/json".into()),
        (
            "Accept".into(),
            "application/json, text/event-stream".into(),
        ),
    ]
}

#[tokio::test]
async fn one_client_cannot_take_every_legacy_session() {
    let server = Server::builder()
        .legacy(LegacyOptions::new().sessions_per_caller(3))
        .tool(Tool::new("ping").handler(|_: NoArguments, _cx| async { "pong" }))
        .build()
        .unwrap();
    let http = spawn_http_with(server, HttpOptions::default()).await;
    for _ in 0..3 {
        let opened = initialize_from(client(2), http.addr).await;
        assert_eq!(opened.status, 200);
        assert!(opened.header("mcp-session-id").is_some());
    }
    let refused = initialize_from(client(2), http.addr).await;
    assert_eq!(refused.status, 503);
    let text = String::from_utf8_lossy(&refused.body);
    assert!(text.contains("127.0.0.2 holds 3 sessions"), "{text}");
    let other = initialize_from(client(3), http.addr).await;
    assert_eq!(other.status, 200, "another client opens a session");
}

#[tokio::test]
async fn idle_sockets_past_the_connection_cap_do_not_lock_new_clients_out() {
    let options = HttpOptions::default().max_connections(32);
    let http = spawn_http_with(
        server(Limits::default(), Arc::new(Semaphore::new(0))),
        options,
    )
    .await;
    // A hundred sockets that connect and send nothing.
    let mut idle = Vec::new();
    for _ in 0..100 {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::new(client(2), 0)).unwrap();
        idle.push(socket.connect(http.addr).await.unwrap());
    }
    let at = Instant::now();
    let answered = within(
        "a new client's call",
        post_from(client(3), http.addr, &call("ping")),
    )
    .await;
    assert_eq!(answered.status, 200);
    assert!(at.elapsed() < Duration::from_secs(1), "{:?}", at.elapsed());
    println!(
        "a new client answered in {:?} past 100 idle sockets at a cap of 32",
        at.elapsed()
    );
    // The idle sockets were closed to make room: most of them read their end.
    let mut closed = 0;
    for s in &mut idle {
        let mut buf = [0u8; 16];
        if let Ok(Ok(0) | Err(_)) =
            tokio::time::timeout(Duration::from_millis(20), s.read(&mut buf)).await
        {
            closed += 1;
        }
    }
    assert!(
        closed >= 68,
        "only {closed} of the idle sockets were closed"
    );
}

#[tokio::test]
async fn a_connection_past_the_cap_of_busy_connections_gets_503_at_once() {
    let gate = Arc::new(Semaphore::new(0));
    let options = HttpOptions::default().max_connections(4);
    let http = spawn_http_with(server(Limits::default(), gate.clone()), options).await;
    let held = hold_calls(client(2), http.addr, 4).await;
    let mut s = tokio::net::TcpStream::connect(http.addr).await.unwrap();
    let mut answer = String::new();
    let at = Instant::now();
    within("the refusal", s.read_to_string(&mut answer))
        .await
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("Retry-After: 1"), "{answer}");
    assert!(at.elapsed() < Duration::from_secs(1));
    gate.add_permits(4);
    for h in held {
        assert_eq!(within("a held call", h).await.unwrap().status, 200);
    }
}

#[tokio::test]
async fn a_token_that_lost_a_task_tools_scope_no_longer_reads_its_task() {
    let server = Server::builder()
        .tool(
            Tool::new("report")
                .task(TaskSupport::Required)
                .scopes(["reports:run"])
                .handler(|_: NoArguments, _cx| async { "the report" }),
        )
        .build()
        .unwrap();
    let caps = serde_json::from_value(json!({"extensions": {TASKS_EXTENSION: {}}})).unwrap();
    let granted = TestClient::new(server.clone())
        .capabilities(caps)
        .caller(Caller::new("alice").with_scopes(["reports:run"]));
    let created = within(
        "the task",
        granted.request("tools/call", json!({"name": "report", "arguments": {}})),
    )
    .await
    .unwrap();
    let id = created["taskId"].as_str().unwrap().to_owned();
    let got = granted
        .request("tasks/get", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(got["status"], "completed", "{got}");
    // The same subject, with a token that no longer grants the scope.
    let caps = serde_json::from_value(json!({"extensions": {TASKS_EXTENSION: {}}})).unwrap();
    let lost = TestClient::new(server)
        .capabilities(caps)
        .caller(Caller::new("alice"));
    for method in ["tasks/get", "tasks/cancel"] {
        let refused = lost
            .request(method, json!({"taskId": id}))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Some(-32602), "{method}: {refused:?}");
        assert!(
            format!("{refused:?}").contains("reports:run"),
            "{method}: {refused:?}"
        );
    }
}

#[tokio::test]
async fn a_legacy_session_stream_counts_as_a_listen_stream() {
    let limits = Limits::default().listens_per_caller(2);
    let http = spawn_http_with(
        server(limits, Arc::new(Semaphore::new(0))),
        HttpOptions::default(),
    )
    .await;
    let opened = initialize_from(client(2), http.addr).await;
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"
    );
    let open_stream = || async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::new(client(2), 0)).unwrap();
        let mut s = socket.connect(http.addr).await.unwrap();
        s.write_all(get.as_bytes()).await.unwrap();
        let mut buf = [0u8; 1024];
        let n = within("the stream's head", s.read(&mut buf)).await.unwrap();
        (s, String::from_utf8_lossy(&buf[..n]).into_owned())
    };
    let (_a, first) = open_stream().await;
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    let (_b, second) = open_stream().await;
    assert!(second.starts_with("HTTP/1.1 200"), "{second}");
    let (_c, third) = open_stream().await;
    assert!(third.starts_with("HTTP/1.1 503"), "{third}");
    assert!(
        third.contains("127.0.0.2 holds 2 listen streams"),
        "{third}"
    );
}

/// A client that never holds more than its share is never refused: 64 requests one after the
/// other (each gives its slot back when answered); then its whole share at once, even when the
/// requests it started first (while the server was quiet) finish before later ones; only one
/// more than its share at once is refused. (Counting three quarters of a share, a client
/// refused here at 48 requests held: 0.11 % of the calls of 50 clients behind one address.)
#[tokio::test]
async fn a_client_within_its_share_is_never_refused() {
    let first = Arc::new(Semaphore::new(0));
    let later = Arc::new(Semaphore::new(0));
    let gated = |gate: Arc<Semaphore>| {
        move |_: NoArguments, _cx| {
            let gate = gate.clone();
            async move {
                let _permit = gate.acquire().await;
                "waited"
            }
        }
    };
    let server = Server::builder()
        .limits(
            Limits::default()
                .concurrent_requests(1024)
                .requests_per_caller(64),
        )
        .tool(Tool::new("ping").handler(|_: NoArguments, _cx| async { "pong" }))
        .tool(Tool::new("first").handler(gated(first.clone())))
        .tool(Tool::new("later").handler(gated(later.clone())))
        .build()
        .unwrap();
    let http = spawn_http_with(server, HttpOptions::default()).await;
    let addr = http.addr;
    for i in 0..64 {
        let resp = post_from(client(2), addr, &call("ping")).await;
        assert_eq!(resp.status, 200, "sequential request {i}: {:?}", resp.body);
    }
    let start = |tool: &'static str, n: usize| {
        (0..n)
            .map(|_| tokio::spawn(async move { post_from(client(2), addr, &call(tool)).await }))
            .collect::<Vec<_>>()
    };
    let quiet = start("first", 16);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut held = start("later", 32);
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The first ones finish; the client starts as many again, and more.
    first.add_permits(16);
    for h in quiet {
        assert_eq!(within("a first call", h).await.unwrap().status, 200);
    }
    held.extend(start("later", 32));
    tokio::time::sleep(Duration::from_millis(400)).await;
    let over = post_from(client(2), addr, &call("ping")).await;
    assert_eq!(over.status, 503, "the 65th at once: {:?}", over.body);
    later.add_permits(64);
    for (i, h) in held.into_iter().enumerate() {
        let resp = within("a held call", h).await.unwrap();
        assert_eq!(
            resp.status, 200,
            "request {i} within the share: {:?}",
            resp.body
        );
    }
}
