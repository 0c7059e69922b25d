//! Three instances behind nginx (`deploy/nginx.conf`), sharing one Redis (`--features redis`;
//! the test starts `redis-server` and `nginx` on free loopback ports): a multi-round request
//! whose rounds land on different instances, a listen stream on one instance hearing list
//! changes and resource updates made on another (latency measured), a task created, polled,
//! answered and cancelled through different instances, and a 2025-11-25 session through nginx whose end is
//! known to every instance. `failover` kills an instance and restarts Redis under load.

use crate::common;
use common::engines::{RedisServer, nginx};
use common::sse::open_stream;
use common::{HttpResponse, post, within};
use mcp_runtime::redis::Redis;
use mcp_runtime::{
    Ask, CancellationToken, ElicitForm, Elicitation, HttpOptions, KeyRing, McpError, PrimitiveKind,
    Progress, RequestContext, Rounds, Server, Step, resource, tool,
};
use serde::Deserialize;
use serde_json::{Value, json};
use std::net::SocketAddr;
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

/// The instance's status (a resource whose updates listen streams subscribe to).
#[resource("test://status", name = "status", mime_type = "text/plain")]
pub fn status() -> String {
    "up".to_owned()
}

/// Whether `ask_then_wait`'s handler saw its cancellation.
static STOPPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A task that asks the user a question, says it resumed once answered, then runs until
/// cancelled.
#[tool(task = "optional")]
pub async fn ask_then_wait(
    #[ctx] rounds: Rounds,
    progress: Progress,
    cancel: CancellationToken,
) -> Result<Step<String>, McpError> {
    match rounds.state::<String>()? {
        None => rounds.ask(
            Ask::new().elicit::<Answer>("go", "Go on?"),
            &"asked".to_owned(),
        ),
        Some(_) => {
            progress.report(1.0, None, Some("resumed"));
            cancel.cancelled().await;
            STOPPED.store(true, std::sync::atomic::Ordering::SeqCst);
            Ok(Step::Done("stopped".into()))
        }
    }
}

/// Runs until cancelled; a task for clients that declare the extension.
#[tool(task = "optional")]
pub async fn long_job(#[ctx] cx: RequestContext) -> &'static str {
    cx.cancellation().cancelled().await;
    "stopped"
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
        .resource_subscriptions(true)
        .state_keys(KeyRing::new(&[[9; 32]]).unwrap())
        .redis(&redis)
        .tool(confirm {})
        .tool(long_job {})
        .tool(ask_then_wait {})
        .resource(status {})
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_instances_behind_nginx_share_one_redis() {
    let dir = std::env::temp_dir().join(format!("mcp-scaleout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let redis = RedisServer::start();
    let redis_url = redis.url();
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

    // 2. A listen stream on A hears list changes and resource updates made on C: latency over
    // 20 changes of each.
    let listen = json!({"jsonrpc": "2.0", "id": "l1", "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": true,
            "resourceSubscriptions": ["test://status"]}, "_meta": tasks_meta()}});
    let mut call_a = a
        .server
        .handle_message(listen.to_string().as_bytes(), None)
        .unwrap();
    within("the ack", call_a.next_message()).await.unwrap();
    let mut latencies = Vec::new();
    for i in 0..40 {
        let sent = Instant::now();
        let expected = if i % 2 == 0 {
            c.server
                .set_enabled(PrimitiveKind::Tool, "long_job", i % 4 == 2)
                .unwrap();
            "notifications/tools/list_changed"
        } else {
            c.server.notify_resource_updated("test://status");
            "notifications/resources/updated"
        };
        let got = within("the change", call_a.next_message()).await.unwrap();
        latencies.push(sent.elapsed());
        let mcp_runtime::dispatch::Outgoing::Notification(n) = got else {
            panic!("a notification")
        };
        let text = String::from_utf8_lossy(&n);
        assert!(text.contains(expected), "{expected}: {text}");
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

    // 3. A task created through A, polled through B, answered through C (its handler, on A,
    // resumes), cancelled through A (its handler stops), and read through C.
    let created = call(
        &url(a.addr),
        4,
        "tools/call",
        json!({"name": "ask_then_wait", "arguments": {}}),
    )
    .await;
    let task_id = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_owned();
    let until = |at: SocketAddr, want: &'static str| {
        let task_id = task_id.clone();
        async move {
            for _ in 0..100 {
                let now = call(&url(at), 5, "tasks/get", json!({"taskId": task_id})).await;
                let task = &now["result"];
                if task["status"] == want || task["statusMessage"] == want {
                    return task.clone();
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            panic!("task {task_id} never reached `{want}` through {at}");
        }
    };
    let asking = until(b.addr, "input_required").await;
    assert_eq!(
        asking["inputRequests"]["go"]["method"], "elicitation/create",
        "{asking}"
    );
    let answered = call(
        &url(c.addr),
        6,
        "tasks/update",
        json!({"taskId": task_id, "inputResponses": {
            "go": {"action": "accept", "content": {"ok": true}}}}),
    )
    .await;
    assert!(answered.get("result").is_some(), "{answered}");
    let resumed = until(b.addr, "resumed").await;
    assert_eq!(resumed["status"], "working", "{resumed}");
    assert!(!STOPPED.load(std::sync::atomic::Ordering::SeqCst));
    let cancelled = call(&url(a.addr), 7, "tasks/cancel", json!({"taskId": task_id})).await;
    assert!(cancelled.get("result").is_some(), "{cancelled}");
    until(c.addr, "cancelled").await;
    within("the handler's cancellation", async {
        while !STOPPED.load(std::sync::atomic::Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;

    // 4. A 2025-11-25 session through nginx: served, then ended; every instance says 404.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}});
    let base = common::post_headers();
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
    let mut stream = open_stream(a.addr, http::Method::GET, &headers, "")
        .await
        .expect("the session's GET stream");
    tokio::time::sleep(Duration::from_millis(200)).await;
    c.server
        .set_enabled(PrimitiveKind::Tool, "long_job", false)
        .unwrap();
    let change = within("the change on the GET stream", stream.next())
        .await
        .expect("an event");
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
