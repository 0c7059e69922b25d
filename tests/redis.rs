//! Instances sharing state through a real Redis (`--features redis`; the test starts
//! `redis-server` on a free loopback port): changes cross instances, tasks and sessions are
//! changed atomically from several connections, sessions expire when idle, and after Redis
//! restarts the bus subscribes again and tells its listeners to fetch every list again.
#![cfg(feature = "redis")]

mod common;

use common::engines::RedisServer;
use common::within;
use mcp_runtime::legacy::{SessionRecord, SessionStore};
use mcp_runtime::redis::Redis;
use mcp_runtime::tasks::{TaskRecord, TaskStore};
use mcp_runtime::{Change, ChangeBus};
use serde_json::json;
use std::time::Duration;

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
    redis.stop();
    assert!(!connection.ready().await);
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
    let resp = common::send(http::Method::GET, &url, &[], "").await;
    assert_eq!(resp.status, http::StatusCode::SERVICE_UNAVAILABLE);
}
