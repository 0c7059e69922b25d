//! Remote servers mounted over Streamable HTTP (both eras) and stdio: relayed rounds, progress,
//! tasks handed on, list changes and resource updates heard on the mount's own stream.

use super::common::within;
use super::support::*;
use mcp_runtime::client::{Client, Revision};
use mcp_runtime::proxy::{Mount, Uris};
use mcp_runtime::testing::{Elicited, TestClient};
use mcp_runtime::{Caller, NoArguments, Resource, Server, Tool};
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn a_remote_mount_over_http_in_either_era() {
    for revision in [Revision::Modern, Revision::Legacy("2025-11-25".into())] {
        let (addr, _stop, _) = serve(notes("remote-notes"), None).await;
        let remote = Client::http(url(addr))
            .revision(revision.clone())
            .connect()
            .unwrap();
        let server = front(Mount::from(remote));
        server.refresh_mounts().await;
        let client =
            TestClient::new(server).on_elicit(|_, _| Elicited::Accept(json!({"value": "sure"})));
        let names: Vec<String> = client
            .list_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert!(
            names.contains(&"kb_search".to_owned()),
            "{revision:?}: {names:?}"
        );
        let found = client
            .call_tool("kb_search", json!({"query": "tea"}))
            .await
            .unwrap();
        assert_eq!(found.text(), "found tea", "{revision:?}");
        let today = client.read_resource("notes://today").await.unwrap();
        assert!(format!("{:?}", today.contents[0].body).contains("buy milk"));
        let prompt = client
            .get_prompt("kb_greet", json!({"name": "Bo"}))
            .await
            .unwrap();
        assert!(format!("{:?}", prompt.messages[0]).contains("Bo"));
        if revision == Revision::Modern {
            // A 2025 session asks on its own stream, which a relay cannot hold open.
            let done = client.call_tool("kb_confirm", json!({})).await.unwrap();
            assert_eq!(done.text(), "deleted (sure, Some(7))");
        }
    }
}

/// The child side of [`a_stdio_backend`]: this test binary started again, serving the notes
/// server on its stdio.
#[tokio::test]
async fn stdio_child() {
    if std::env::var_os("GATEWAY_STDIO_CHILD").is_none() {
        return;
    }
    notes("stdio-notes").serve_stdio().await.unwrap();
}

#[tokio::test]
async fn a_stdio_backend() {
    let exe = std::env::current_exe().unwrap();
    let remote = Client::stdio(
        exe.to_string_lossy(),
        [
            "gateway::remote::stdio_child",
            "--exact",
            "-q",
            "--test-threads=1",
            "--nocapture",
        ],
    )
    .env("GATEWAY_STDIO_CHILD", "1")
    .connect()
    .unwrap();
    let server = front(Mount::from(remote));
    server.refresh_mounts().await;
    let client = TestClient::new(server)
        .on_elicit(|_, _| Elicited::Accept(json!({"value": "fine"})))
        .progress();
    let found = client
        .call_tool("kb_search", json!({"query": "pipes"}))
        .await
        .unwrap();
    assert_eq!(found.text(), "found pipes");
    let done = client.call_tool("kb_confirm", json!({})).await.unwrap();
    assert_eq!(done.text(), "deleted (fine, Some(7))");
    client.take_notifications();
    client.call_tool("kb_count", json!({})).await.unwrap();
    let progress = client
        .take_notifications()
        .into_iter()
        .filter(|n| n["method"] == "notifications/progress")
        .count();
    assert_eq!(progress, 3);
}

#[tokio::test]
async fn a_remote_mounts_task_is_handed_on_and_read_through_any_gateway() {
    let backend = Server::builder()
        .tool(
            Tool::new("reindex")
                .task(mcp_runtime::TaskSupport::Required)
                .handler(|_: NoArguments, _cx| async {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    "reindexed"
                }),
        )
        .build()
        .unwrap();
    let (addr, _stop, _) = serve(backend, None).await;
    let gateway = || {
        Server::builder()
            .state_keys(mcp_runtime::KeyRing::new(&[[9u8; 32]]).unwrap())
            .mount("kb", Client::http(url(addr)).connect().unwrap())
            .build()
            .unwrap()
    };
    let (a, b) = (gateway(), gateway());
    a.refresh_mounts().await;
    b.refresh_mounts().await;
    let ada = Caller::new("ada");
    let on_a = TestClient::new(a).caller(ada.clone());
    let created = on_a
        .call_tool_as_task("kb_reindex", json!({}))
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap().to_owned();
    assert!(id.starts_with("relayed."), "{id}");
    let on_b = TestClient::new(b.clone()).caller(ada);
    let done = within("the task, read through the other gateway", async {
        loop {
            let task = on_b.get_task(&id).await.unwrap();
            if task["status"] == "completed" {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert_eq!(done["taskId"], json!(id), "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "reindexed", "{done}");
    // Another caller cannot name it, nor can a forged handle.
    let bob = TestClient::new(b.clone()).caller(Caller::new("bob"));
    assert_eq!(bob.get_task(&id).await.unwrap_err().code(), Some(-32602));
    let forged = format!("{id}x");
    let ada_again = TestClient::new(b).caller(Caller::new("ada"));
    assert_eq!(
        ada_again.get_task(&forged).await.unwrap_err().code(),
        Some(-32602)
    );
    // Without the extension the mounted server refuses, as it would directly.
    let refused = on_a.call_tool("kb_reindex", json!({})).await.unwrap_err();
    assert_eq!(refused.code(), Some(-32021), "{refused}");
}

#[tokio::test]
async fn a_remote_mounts_list_changes_reach_the_front() {
    for revision in [Revision::Modern, Revision::Legacy("2025-11-25".into())] {
        list_changes_reach_the_front(revision).await;
    }
}

/// Heard on the mount's listen stream (2026), or on its session's GET stream (2025).
async fn list_changes_reach_the_front(revision: Revision) {
    let backend = Server::builder()
        .list_changed(true)
        .tool(Tool::new("first").handler(|_: NoArguments, _cx| async { "1" }))
        .build()
        .unwrap();
    let (addr, _stop, _) = serve(backend.clone(), None).await;
    let remote = Client::http(url(addr))
        .revision(revision)
        .connect()
        .unwrap();
    let front = Server::builder().mount("kb", remote).build().unwrap();
    // Served as a router: the mounts are fetched, and followed, in the background.
    let (_front_addr, _stop_front, _) = serve(front.clone(), None).await;
    let client = TestClient::new(front);
    let names = || async {
        let tools = client.list_tools().await.unwrap_or_default();
        tools.into_iter().map(|t| t.name).collect::<Vec<_>>()
    };
    within("the first fetch", async {
        while names().await != ["kb_first"] {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    backend
        .add(Tool::new("second").handler(|_: NoArguments, _cx| async { "2" }))
        .unwrap();
    within("the change, heard on the mount's listen stream", async {
        while names().await != ["kb_first", "kb_second"] {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
}

#[tokio::test]
async fn a_remote_mounts_resource_updates_reach_the_front() {
    let backend = Server::builder()
        .resource_subscriptions(true)
        .resource(Resource::new("notes://today", "today").handler(|_read| async { "tea" }))
        .build()
        .unwrap();
    let (addr, _stop, _) = serve(backend.clone(), None).await;
    let front = Server::builder()
        .mount(
            "kb",
            Mount::from(Client::http(url(addr)).connect().unwrap()).uris(Uris::Prefix),
        )
        .build()
        .unwrap();
    let (_front_addr, _stop_front, _) = serve(front.clone(), None).await;
    let client = TestClient::new(front);
    let mut stream = within("the first fetch and the front's stream", async {
        loop {
            let listed = client.list_resources().await.unwrap_or_default();
            if listed.iter().any(|r| r.uri == "notes://kb/today") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        client
            .listen(json!({"resourceSubscriptions": ["notes://kb/today"]}))
            .await
            .unwrap()
    })
    .await;
    let ack = within("the acknowledgement", stream.next()).await.unwrap();
    assert_eq!(
        ack["params"]["notifications"]["resourceSubscriptions"][0],
        "notes://kb/today"
    );
    // The gateway's own stream at the mount may open a moment after the fetch: say it again
    // until it is heard.
    let heard = within("the update, relayed", async {
        loop {
            backend.notify_resource_updated("notes://today");
            let next = tokio::time::timeout(Duration::from_millis(200), stream.next()).await;
            if let Ok(Some(note)) = next {
                return note;
            }
        }
    })
    .await;
    assert_eq!(heard["method"], "notifications/resources/updated");
    assert_eq!(heard["params"]["uri"], "notes://kb/today");
}
