//! Request-scoped notifications over SSE, cancellation on disconnect, time limits, logging, and
//! `subscriptions/listen` streams: acknowledgment, filters, tagging, run-time changes, keep-alive
//! and graceful shutdown.

use crate::common;
use common::sse::EventStream;
use common::{HttpServer, assert_message_valid, call, request, spawn_http_with, within};
use mcp_runtime::protocol::LoggingLevel;
use mcp_runtime::{
    CancellationToken, HttpOptions, Logger, NoArguments, PrimitiveKind, Progress, Prompt, Resource,
    Server, Tool,
};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

fn listen(id: impl Into<Value>, filter: Value) -> Value {
    request(id, "subscriptions/listen", json!({"notifications": filter}))
}

/// Serves over HTTP with a keep-alive comment every 100 ms on streams that wait.
async fn spawn_http(server: Server) -> HttpServer {
    let options = HttpOptions::default().keepalive(Duration::from_millis(100));
    spawn_http_with(server, options).await
}

fn server(signal: mpsc::UnboundedSender<&'static str>) -> Server {
    let on_cancel = signal.clone();
    let on_linger = signal.clone();
    Server::builder()
        .name("streaming")
        .version("1")
        .list_changed(true)
        .resource_subscriptions(true)
        .logging(true)
        .request_timeout(Duration::from_secs(1))
        .tool(Tool::new("count").handler(|_: NoArguments, cx| async move {
            let p: Progress = cx.progress();
            for i in 0..3 {
                p.report(f64::from(i), Some(2.0), Some("step"));
                p.report(f64::from(i), Some(2.0), Some("repeat is dropped"));
            }
            "counted"
        }))
        .tool(Tool::new("hang").handler(move |_: NoArguments, cx| {
            let signal = on_cancel.clone();
            async move {
                cx.progress().report(0.0, None, Some("started"));
                let token: CancellationToken = cx.cancellation();
                let watcher = token.clone();
                // Observed by the handler side: a task waiting on the token.
                tokio::spawn(async move {
                    watcher.cancelled().await;
                    let _ = signal.send("cancelled");
                });
                tokio::time::sleep(Duration::from_secs(30)).await;
                "never"
            }
        }))
        .tool(Tool::new("wait").handler(|_: NoArguments, _cx| async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            "waited"
        }))
        .tool(Tool::new("linger").handler(move |_: NoArguments, cx| {
            let signal = on_linger.clone();
            async move {
                let watcher = cx.cancellation();
                let on_cancel = signal.clone();
                tokio::spawn(async move {
                    watcher.cancelled().await;
                    let _ = on_cancel.send("linger cancelled");
                });
                let _ = signal.send("lingering");
                tokio::time::sleep(Duration::from_secs(30)).await;
                "never"
            }
        }))
        .tool(Tool::new("slow").handler(|_: NoArguments, _cx| async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            "too late"
        }))
        .tool(
            Tool::new("chatty").handler(|_: NoArguments, cx| async move {
                let log: Logger = cx.logger().named("chatty");
                log.debug("debug detail");
                log.log(LoggingLevel::Warning, json!({"note": "warning"}));
                log.error("failure");
                "logged"
            }),
        )
        .tool(Tool::new("spare").handler(|_: NoArguments, _| async { "spare" }))
        .prompt(Prompt::new("hello").handler(|_| async { "Say hello." }))
        .resource(Resource::new("file:///watched", "watched").handler(|_| async { "w" }))
        .resource(Resource::new("file:///other", "other").handler(|_| async { "o" }))
        .build()
        .unwrap()
}

fn call_body(id: i64, tool: &str, meta_extra: Value) -> Value {
    let mut meta = common::meta();
    for (k, v) in meta_extra.as_object().unwrap() {
        meta[k] = v.clone();
    }
    request(id, "tools/call", json!({"name": tool, "_meta": meta}))
}

#[tokio::test]
async fn progress_goes_on_sse_only_when_asked() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let http = spawn_http(server(tx)).await;
    let resp = call(
        &http.url(),
        &call_body(1, "count", json!({"progressToken": "p-1"})),
    )
    .await;
    assert_eq!(resp.content_type(), "text/event-stream");
    assert_eq!(resp.header("x-accel-buffering"), Some("no"));
    let messages = resp.messages();
    let progress: Vec<f64> = messages[..messages.len() - 1]
        .iter()
        .map(|m| {
            assert_eq!(m["method"], "notifications/progress");
            assert_eq!(m["params"]["progressToken"], "p-1");
            m["params"]["progress"].as_f64().unwrap()
        })
        .collect();
    assert_eq!(
        progress,
        [0.0, 1.0, 2.0],
        "strictly increasing, repeats dropped"
    );
    assert_eq!(
        messages.last().unwrap()["result"]["content"][0]["text"],
        "counted"
    );

    let resp = call(&http.url(), &call_body(2, "count", json!({}))).await;
    assert_eq!(
        resp.content_type(),
        "application/json",
        "no token, no notifications, plain JSON"
    );
    assert_eq!(resp.messages().len(), 1);
}

#[tokio::test]
async fn log_messages_respect_the_requested_level() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let http = spawn_http(server(tx)).await;
    let resp = call(
        &http.url(),
        &call_body(
            1,
            "chatty",
            json!({"io.modelcontextprotocol/logLevel": "warning"}),
        ),
    )
    .await;
    let levels: Vec<String> = resp
        .messages()
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .map(|m| m["params"]["level"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(levels, ["warning", "error"]);
    let resp = call(&http.url(), &call_body(2, "chatty", json!({}))).await;
    assert_eq!(
        resp.messages().len(),
        1,
        "no logLevel, no notifications/message"
    );
    let resp = call(
        &http.url(),
        &call_body(
            3,
            "chatty",
            json!({"io.modelcontextprotocol/logLevel": "loud"}),
        ),
    )
    .await;
    assert_eq!(resp.json()["error"]["code"], -32602);
}

#[tokio::test]
async fn closing_the_stream_cancels_the_handler() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let http = spawn_http(server(tx)).await;
    let body = call_body(1, "hang", json!({"progressToken": 7}));
    let mut stream = EventStream::post(http.addr, &body).await;
    assert_eq!(stream.content_type, "text/event-stream");
    let first = stream.expect("the first progress notification").await;
    assert_message_valid("tools/call", &first);
    drop(stream);
    let seen = within("the handler observing cancellation", rx.recv()).await;
    assert_eq!(seen, Some("cancelled"));
}

/// A JSON answer (no progress asked): its client closing the connection while the handler
/// waits cancels the handler, though hyper does not read during a request (half-close: the
/// answer watches the socket itself).
#[tokio::test]
async fn closing_the_connection_cancels_a_waiting_handler() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let http = spawn_http(server(tx)).await;
    let mut socket = tokio::net::TcpStream::connect(http.addr).await.unwrap();
    let body = call_body(1, "linger", json!({}));
    socket.write_all(&common::raw_post(&body)).await.unwrap();
    let started = within("the handler starting", rx.recv()).await;
    assert_eq!(started, Some("lingering"));
    drop(socket);
    let seen = within("the handler observing cancellation", rx.recv()).await;
    assert_eq!(seen, Some("linger cancelled"));
}

/// The same for an SSE answer waiting for its next event, with no keep-alive comment due
/// whose write would fail first: the stream watches the socket while it waits.
#[tokio::test]
async fn closing_a_quiet_stream_cancels_the_handler() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let options = HttpOptions::default().keepalive(Duration::from_secs(60));
    let http = spawn_http_with(server(tx), options).await;
    let body = call_body(1, "hang", json!({"progressToken": 7}));
    let mut stream = EventStream::post(http.addr, &body).await;
    stream.expect("the first progress notification").await;
    drop(stream);
    let seen = within("the handler observing cancellation", rx.recv()).await;
    assert_eq!(seen, Some("cancelled"));
}

/// A request sent while another is being answered on the same connection (pipelined) is no
/// sign of a client gone: the first is answered in full, then the second, in order.
#[tokio::test]
async fn a_pipelined_request_waits_its_turn() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let http = spawn_http(server(tx)).await;
    let mut socket = tokio::net::TcpStream::connect(http.addr).await.unwrap();
    let first = common::raw_post(&call_body(1, "wait", json!({})));
    socket.write_all(&first).await.unwrap();
    // The second comes while the first handler sleeps: the socket has data to read, which
    // hyper leaves there until the first answer is written.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let second = common::raw_post(&call_body(2, "spare", json!({})));
    socket.write_all(&second).await.unwrap();
    let mut read = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&read).contains(r#""text":"spare""#) {
        let n = within("both answers", socket.read(&mut chunk))
            .await
            .unwrap();
        assert!(n > 0, "closed after {}", String::from_utf8_lossy(&read));
        read.extend_from_slice(&chunk[..n]);
    }
    let text = String::from_utf8_lossy(&read);
    assert_eq!(text.matches("HTTP/1.1 200").count(), 2, "{text}");
    let waited = text.find(r#""text":"waited""#).expect("the first answer");
    assert!(waited < text.find(r#""text":"spare""#).unwrap(), "{text}");
}

#[tokio::test]
async fn the_hard_time_limit_answers_and_cancels() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let http = spawn_http(server(tx)).await;
    let resp = call(&http.url(), &call_body(1, "slow", json!({}))).await;
    let error = &resp.json()["error"];
    assert_eq!(error["code"], -32603);
    assert!(
        error["message"].as_str().unwrap().contains("timed out"),
        "{error}"
    );
}

#[tokio::test]
async fn listen_stream_acknowledges_then_delivers_only_subscribed_changes() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let server = server(tx);
    let http = spawn_http(server.clone()).await;
    let mut stream = EventStream::post(
        http.addr,
        &listen(
            "sub-1",
            json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///watched"], "unknownThing": true}),
        ),
    )
    .await;
    assert_eq!(stream.status, 200);
    let ack = stream.expect("the acknowledgment").await;
    assert_message_valid("subscriptions/listen", &ack);
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///watched"]}),
        "only the honoured subset is acknowledged"
    );

    assert!(
        server
            .set_enabled(PrimitiveKind::Tool, "spare", false)
            .unwrap()
    );
    let changed = stream.expect("tools/list_changed").await;
    assert_message_valid("subscriptions/listen", &changed);
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );

    // Not opted in: prompts; not subscribed: file:///other. Then a subscribed update.
    server.notify(mcp_runtime::Change::PromptsListChanged);
    server.notify_resource_updated("file:///other");
    server.notify_resource_updated("file:///watched");
    let updated = stream.expect("resources/updated").await;
    assert_message_valid("subscriptions/listen", &updated);
    assert_eq!(updated["method"], "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "file:///watched");

    // A disabled tool is gone from the list and unknown to tools/call.
    let list = call(&http.url(), &request(5, "tools/list", json!({})))
        .await
        .json();
    assert!(
        list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["name"] != "spare")
    );
    let resp = call(&http.url(), &call_body(6, "spare", json!({})))
        .await
        .json();
    assert_eq!(resp["error"]["code"], -32602);
}

#[tokio::test]
async fn two_listeners_get_only_their_own_notifications() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let server = server(tx);
    let http = spawn_http(server.clone()).await;
    let mut tools =
        EventStream::post(http.addr, &listen(1, json!({"toolsListChanged": true}))).await;
    let mut prompts =
        EventStream::post(http.addr, &listen(2, json!({"promptsListChanged": true}))).await;
    tools.expect("ack 1").await;
    prompts.expect("ack 2").await;
    server.remove(PrimitiveKind::Prompt, "hello").unwrap();
    server
        .add(Tool::new("late").handler(|_: NoArguments, _| async { "late" }))
        .unwrap();
    let p = prompts.expect("prompts/list_changed").await;
    assert_eq!(p["method"], "notifications/prompts/list_changed");
    assert_eq!(
        p["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        2
    );
    let t = tools.expect("tools/list_changed").await;
    assert_eq!(t["method"], "notifications/tools/list_changed");
    assert_eq!(
        t["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        1
    );
    // Graceful shutdown: each stream gets its final result, then ends.
    server.shutdown();
    for (stream, id) in [(&mut tools, json!(1)), (&mut prompts, json!(2))] {
        let last = stream.expect("the final listen result").await;
        assert_message_valid("subscriptions/listen", &last);
        assert_eq!(last["id"], id);
        assert_eq!(last["result"]["resultType"], "complete");
        assert_eq!(
            last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            id
        );
        assert!(within("the stream end", stream.next()).await.is_none());
    }
}

#[tokio::test]
async fn idle_listen_streams_get_keepalive_comments_and_do_not_block_others() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let server = server(tx);
    let http = spawn_http(server.clone()).await;
    let mut streams = Vec::new();
    for id in 0..16 {
        let mut s =
            EventStream::post(http.addr, &listen(id, json!({"toolsListChanged": true}))).await;
        s.expect("ack").await;
        streams.push(s);
    }
    // Requests still go through while sixteen streams are open.
    let resp = call(&http.url(), &call_body(99, "count", json!({}))).await;
    assert_eq!(resp.json()["result"]["content"][0]["text"], "counted");
    // Keep-alive comments arrive on an idle stream (every 100 ms here).
    let first = &mut streams[0];
    tokio::time::sleep(Duration::from_millis(350)).await;
    server.notify(mcp_runtime::Change::ToolsListChanged);
    first.expect("tools/list_changed").await;
    assert!(
        first.comments >= 2,
        "saw {} keep-alive comments",
        first.comments
    );
}

#[tokio::test]
async fn a_change_on_one_instance_reaches_listeners_on_another_through_the_bus() {
    // Two instances sharing a bus, as two processes would share a Redis channel.
    let bus = mcp_runtime::LocalBus::new(64);
    let build = |bus: mcp_runtime::LocalBus| {
        Server::builder()
            .list_changed(true)
            .change_bus(bus)
            .tool(Tool::new("t").handler(|_: NoArguments, _| async { "t" }))
            .build()
            .unwrap()
    };
    let a = build(bus.clone());
    let b = build(bus);
    let http_b = spawn_http(b).await;
    let mut stream =
        EventStream::post(http_b.addr, &listen(1, json!({"toolsListChanged": true}))).await;
    stream.expect("ack").await;
    a.add(Tool::new("u").handler(|_: NoArguments, _| async { "u" }))
        .unwrap();
    let changed = stream
        .expect("tools/list_changed from the other instance")
        .await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
}

/// A resource's custom check (and the server's) is asked before a listen stream is told of its
/// updates, as `resources/read` asks it: an update tells of what the resource holds.
#[tokio::test]
async fn a_resources_custom_check_decides_whether_its_updates_are_told() {
    use mcp_runtime::auth::{AccessCheck, Denied};
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = asked.clone();
    let vault_only_for_owners = AccessCheck::new(move |access| {
        counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        async move {
            match access.caller() {
                Some(c) if c.subject == "owner" => Ok(()),
                _ => Err(Denied::new("the vault is for its owners")),
            }
        }
    });
    let server = Server::builder()
        .list_changed(true)
        .resource_subscriptions(true)
        .resource(Resource::new("file:///open", "open").handler(|_| async { "o" }))
        .resource(
            Resource::new("file:///vault", "vault")
                .authorize(vault_only_for_owners)
                .handler(|_| async { "v" }),
        )
        .build()
        .unwrap();
    let http = spawn_http(server.clone()).await;
    let mut stream = EventStream::post(
        http.addr,
        &listen(
            "sub-v",
            json!({"resourceSubscriptions": ["file:///vault", "file:///open"]}),
        ),
    )
    .await;
    stream.expect("the acknowledgment").await;
    for _ in 0..3 {
        server.notify_resource_updated("file:///vault");
    }
    server.notify_resource_updated("file:///open");
    let updated = stream.expect("resources/updated").await;
    assert_eq!(
        updated["params"]["uri"], "file:///open",
        "the vault's updates are not told"
    );
    // Asked once for the stream, not at every update.
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 1);
}
