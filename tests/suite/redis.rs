//! Instances sharing state through a real Redis (`--features redis`; the test starts
//! `redis-server` on a free loopback port): changes cross instances, tasks and sessions are
//! changed atomically from several connections, sessions expire when idle, and after Redis
//! restarts the bus subscribes again and tells its listeners to fetch every list again, and the
//! task store says leases run from its return.

use crate::common;
use common::engines::RedisServer;
use common::within;
use mcp_runtime::legacy::{SessionRecord, SessionStore};
use mcp_runtime::redis::Redis;
use mcp_runtime::tasks::{TaskRecord, TaskStore};
use mcp_runtime::{Change, ChangeBus};
use serde_json::json;
use std::time::Duration;

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

async fn next_change(rx: &mut tokio::sync::broadcast::Receiver<Change>) -> Change {
    within("a change", rx.recv()).await.expect("a change")
}

#[tokio::test]
async fn an_unreachable_redis_is_a_clear_startup_error() {
    let port = common::engines::free_port();
    let error = Redis::connect(&format!("redis://127.0.0.1:{port}/"))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("MCP_REDIS_URL") && error.contains("unreachable"),
        "{error}"
    );
    let error = Redis::connect("not a url").await.unwrap_err().to_string();
    assert!(error.contains("not a url"), "{error}");
}

#[tokio::test]
async fn a_change_on_one_instance_reaches_the_others_once() {
    let redis = RedisServer::start();
    let a = Redis::connect(&redis.url()).await.unwrap().bus();
    let b = Redis::connect(&redis.url()).await.unwrap().bus();
    let mut on_a = a.subscribe();
    let mut on_b = b.subscribe();
    // Let both subscriptions reach Redis.
    tokio::time::sleep(Duration::from_millis(300)).await;
    a.publish(Change::ResourceUpdated("file:///a".into()));
    assert_eq!(
        next_change(&mut on_b).await,
        Change::ResourceUpdated("file:///a".into())
    );
    assert_eq!(
        next_change(&mut on_a).await,
        Change::ResourceUpdated("file:///a".into())
    );
    b.publish(Change::ToolsListChanged);
    assert_eq!(next_change(&mut on_a).await, Change::ToolsListChanged);
    assert_eq!(next_change(&mut on_b).await, Change::ToolsListChanged);
    // Each instance heard each change once: nothing else is waiting.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(on_a.try_recv().is_err());
    assert!(on_b.try_recv().is_err());
}

#[tokio::test]
async fn a_listen_stream_on_one_server_hears_a_change_made_on_another() {
    let redis = RedisServer::start();
    let server = |bus| {
        mcp_runtime::Server::builder()
            .list_changed(true)
            .resource_subscriptions(true)
            .change_bus(bus)
            .resource(
                mcp_runtime::Resource::new("file:///watched", "watched")
                    .handler(|_cx| async { "now" }),
            )
            .build()
            .unwrap()
    };
    let a = server(Redis::connect(&redis.url()).await.unwrap().bus());
    let b = server(Redis::connect(&redis.url()).await.unwrap().bus());
    let listen = common::request(
        7,
        "subscriptions/listen",
        json!({"notifications": {"resourceSubscriptions": ["file:///watched"]}}),
    );
    let mut call = b
        .handle_message(listen.to_string().as_bytes(), None)
        .unwrap();
    let ack = within("the ack", call.next_message()).await.unwrap();
    assert!(matches!(
        ack,
        mcp_runtime::dispatch::Outgoing::Notification(_)
    ));
    tokio::time::sleep(Duration::from_millis(300)).await;
    a.notify_resource_updated("file:///watched");
    let Some(mcp_runtime::dispatch::Outgoing::Notification(n)) =
        within("the update", call.next_message()).await
    else {
        panic!("a notification")
    };
    let n: serde_json::Value = serde_json::from_slice(&n).unwrap();
    assert_eq!(n["method"], "notifications/resources/updated");
    assert_eq!(n["params"]["uri"], "file:///watched");
}

#[tokio::test]
async fn tasks_are_shared_and_changed_without_lost_updates() {
    let redis = RedisServer::start();
    let one = Redis::connect(&redis.url()).await.unwrap().tasks();
    let two = Redis::connect(&redis.url()).await.unwrap().tasks();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    one.create(TaskRecord::new(
        "t1",
        Some("alice".into()),
        now,
        Some(60_000),
        None,
    ))
    .await
    .unwrap();
    assert!(
        one.create(TaskRecord::new("t1", None, now, None, None))
            .await
            .is_err()
    );
    assert_eq!(
        two.get("t1").await.unwrap().unwrap().owner.as_deref(),
        Some("alice")
    );
    assert!(two.get("t2").await.unwrap().is_none());
    // Two instances counting on one task, 40 times each, at once.
    let bump = |store: mcp_runtime::redis::RedisTaskStore| async move {
        for _ in 0..40 {
            store
                .update("t1", &|t| {
                    let n: u32 = t.status_message.as_deref().unwrap_or("0").parse().unwrap();
                    t.status_message = Some((n + 1).to_string());
                })
                .await
                .unwrap()
                .unwrap();
        }
    };
    tokio::join!(bump(one.clone()), bump(two.clone()));
    let task = one.get("t1").await.unwrap().unwrap();
    assert_eq!(task.status_message.as_deref(), Some("80"), "no update lost");
    // A task's lifetime is Redis's too.
    one.create(TaskRecord::new("short", None, now, Some(200), None))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(two.get("short").await.unwrap().is_none());
    assert!(two.update("short", &|_| {}).await.unwrap().is_none());
}

#[tokio::test]
async fn sessions_are_shared_renewed_by_use_and_forgotten_when_idle_or_ended() {
    let redis = RedisServer::start();
    let idle = Duration::from_millis(400);
    let one = Redis::connect(&redis.url()).await.unwrap().sessions(idle);
    let two = Redis::connect(&redis.url()).await.unwrap().sessions(idle);
    one.create(SessionRecord::new("s1", "2025-11-25", json!({}), None))
        .await
        .unwrap();
    let changed = two
        .update("s1", &|s| s.log_level = Some("debug".into()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(changed.log_level.as_deref(), Some("debug"));
    // Used every 250 ms, it outlives its idle time.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert!(one.get("s1").await.unwrap().is_some());
    }
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(two.get("s1").await.unwrap().is_none(), "idle too long");
    one.create(SessionRecord::new("s2", "2025-11-25", json!({}), None))
        .await
        .unwrap();
    assert!(two.end("s2").await.unwrap());
    assert!(!one.end("s2").await.unwrap());
    assert!(one.get("s2").await.unwrap().is_none());
}

#[tokio::test]
async fn after_redis_restarts_listeners_are_told_to_fetch_every_list_again() {
    let mut redis = RedisServer::start();
    let connection = Redis::connect(&redis.url()).await.unwrap();
    let bus = connection.bus();
    let tasks = connection.tasks();
    let mut rx = bus.subscribe();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = tasks.reachable_since_ms().await.unwrap();
    redis.stop();
    assert!(!connection.ready().await);
    let stopped = now_ms();
    redis.start_again();
    let mut seen = Vec::new();
    while seen.len() < 3 {
        seen.push(next_change(&mut rx).await);
    }
    assert!(seen.contains(&Change::ToolsListChanged));
    assert!(seen.contains(&Change::PromptsListChanged));
    assert!(seen.contains(&Change::ResourcesListChanged));
    // The stores' connection comes back by itself.
    let mut ok = false;
    for _ in 0..50 {
        if connection.ready().await {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ok, "Redis answers again");
    assert!(tasks.get("none").await.unwrap().is_none());
    // Leases run from Redis's return: no runner could renew one while it was away.
    let after = tasks.reachable_since_ms().await.unwrap();
    assert!(
        before < stopped && after >= stopped,
        "reachable since {before}, then {after}; stopped at {stopped}"
    );
}

#[tokio::test]
async fn the_health_endpoint_says_whether_redis_answers() {
    let mut redis = RedisServer::start();
    let connection = Redis::connect(&redis.url()).await.unwrap();
    let server = mcp_runtime::Server::builder()
        .redis(&connection)
        .build()
        .unwrap();
    let options = mcp_runtime::HttpOptions::default()
        .health("/health")
        .ready_when(connection.ready_check());
    let http = common::spawn_http_with(server, options).await;
    let url = format!("http://{}/health", http.addr);
    let resp = common::send(http::Method::GET, &url, &[], "").await;
    assert_eq!(resp.status, http::StatusCode::OK);
    assert_eq!(&resp.body[..], br#"{"status":"ready"}"#);
    redis.stop();
    // The checks' answer is kept for a second.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let resp = common::send(http::Method::GET, &url, &[], "").await;
    assert_eq!(resp.status, http::StatusCode::SERVICE_UNAVAILABLE);
}

/// While Redis is down, the stores fail fast: each operation is bounded (about a second), so a
/// legacy `initialize`, whose session must be stored, is answered with `-32603` at once rather
/// than after the connection manager's reconnection attempts (9.5 s before the bound).
#[tokio::test]
async fn with_redis_down_a_legacy_initialize_is_answered_with_an_error_within_seconds() {
    let mut redis = RedisServer::start();
    let connection = Redis::connect(&redis.url()).await.unwrap();
    let server = mcp_runtime::Server::builder()
        .redis(&connection)
        .build()
        .unwrap();
    let http = common::spawn_http_with(server, mcp_runtime::HttpOptions::default()).await;
    let headers = common::post_headers();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "redis-down", "version": "1.0.0"}}});
    // With Redis up, the session is stored and opened.
    let resp = common::post(&http.url(), &headers, init.to_string()).await;
    assert_eq!(resp.status, http::StatusCode::OK);
    assert!(resp.header("mcp-session-id").is_some());

    redis.stop();
    // The first command after Redis went away may fail at once (the connection is broken);
    // those after it wait on the connection manager's reconnection: each is bounded.
    for attempt in 0..3 {
        let started = std::time::Instant::now();
        let resp = common::post(&http.url(), &headers, init.to_string()).await;
        let took = started.elapsed();
        let answer = resp.json();
        assert!(
            took < Duration::from_secs(3),
            "attempt {attempt} answered after {took:?}"
        );
        assert_eq!(answer["id"], 0, "{answer}");
        assert_eq!(answer["error"]["code"], -32603, "{answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("Redis")),
            "{answer}"
        );
        assert!(resp.header("mcp-session-id").is_none());
    }

    // The task store, and the other session operations, fail as fast.
    let tasks = connection.tasks();
    let sessions = connection.sessions(Duration::from_secs(60));
    let started = std::time::Instant::now();
    assert!(tasks.get("t").await.is_err());
    assert!(tasks.update("t", &|_| {}).await.is_err());
    assert!(sessions.get("s").await.is_err());
    assert!(sessions.end("s").await.is_err());
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(6),
        "four operations took {took:?}"
    );

    // Once Redis is back, the next `initialize` opens a session again.
    redis.start_again();
    let mut opened = false;
    for _ in 0..50 {
        let resp = common::post(&http.url(), &headers, init.to_string()).await;
        if resp.status == http::StatusCode::OK && resp.header("mcp-session-id").is_some() {
            opened = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(opened, "sessions open again once Redis is back");
}
