//! Several gateways and a backend that goes away: a round or a task started on one gateway
//! and finished on another (also behind nginx), and a dead backend failing alone.

use super::common::within;
use super::support::*;
use mcp_runtime::client::Client;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{NoArguments, Server, Tool};
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn a_dead_backend_fails_alone_and_comes_back() {
    let (addr, stop, _) = serve(notes("flaky"), None).await;
    let remote = Client::http(url(addr))
        .timeout(Duration::from_secs(2))
        .connect()
        .unwrap();
    let server = Server::builder()
        .mount("flaky", remote)
        .mount("local", notes("local"))
        .build()
        .unwrap();
    server.refresh_mounts().await;
    let client = TestClient::new(server.clone());
    assert_eq!(
        client
            .call_tool("flaky_search", json!({"query": "a"}))
            .await
            .unwrap()
            .text(),
        "found a"
    );
    drop(stop);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let failed = within(
        "a call to a dead backend",
        client.call_tool("flaky_search", json!({"query": "b"})),
    )
    .await
    .unwrap_err();
    let text = failed.to_string();
    assert!(
        text.contains("`flaky`") && text.contains(&addr.to_string()),
        "{text}"
    );
    assert_eq!(
        client
            .call_tool("local_search", json!({"query": "c"}))
            .await
            .unwrap()
            .text(),
        "found c",
        "the other backend keeps working"
    );
    server.refresh_mounts().await; // the dead one keeps its tools
    assert!(
        client
            .list_tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "flaky_search")
    );
    let (_again, _stop_again, _) = serve(notes("flaky"), Some(addr)).await;
    let back = within("the backend back", async {
        loop {
            if let Ok(r) = client
                .call_tool("flaky_search", json!({"query": "d"}))
                .await
            {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert_eq!(back.text(), "found d");
}

#[tokio::test]
async fn a_round_started_on_one_gateway_finishes_on_another() {
    let (addr, _stop, _) = serve(notes("shared"), None).await;
    let key = [7u8; 32];
    let gateway = || {
        let remote = Client::http(url(addr)).connect().unwrap();
        Server::builder()
            .state_keys(mcp_runtime::KeyRing::new(&[key]).unwrap())
            .mount("kb", remote)
            .build()
            .unwrap()
    };
    let (a, b) = (gateway(), gateway());
    a.refresh_mounts().await;
    b.refresh_mounts().await;
    let caps = json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let first = TestClient::new(a)
        .request(
            "tools/call",
            json!({"name": "kb_confirm", "arguments": {}, "_meta": caps}),
        )
        .await
        .unwrap();
    assert_eq!(first["resultType"], "input_required");
    let state = first["requestState"].as_str().unwrap().to_owned();
    let retry = json!({
        "name": "kb_confirm", "arguments": {}, "_meta": caps,
        "inputResponses": {"ok": {"action": "accept", "content": {"value": "on b"}}},
        "requestState": state,
    });
    let done = TestClient::new(b.clone())
        .request("tools/call", retry.clone())
        .await
        .unwrap();
    assert_eq!(done["content"][0]["text"], "deleted (on b, Some(7))");
    // The state is bound to the call it was made for.
    let mut other = retry;
    other["name"] = json!("kb_search");
    other["arguments"] = json!({"query": "q"});
    let refused = TestClient::new(b)
        .request("tools/call", other)
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Some(-32602), "{refused}");
}

/// Two gateways behind the repository's nginx (`deploy/nginx.conf`), one backend: a round of
/// client input started on one finishes on the other, and a task handed on by one is read
/// through the other. Needs `nginx` (skipped only with `MCP_SKIP_NGINX`).
#[tokio::test]
async fn two_gateways_behind_nginx_share_nothing_and_need_nothing() {
    if !crate::common::nginx_installed() {
        return;
    }
    let backend = Server::builder()
        .tool(
            Tool::new("reindex")
                .task(mcp_runtime::TaskSupport::Required)
                .handler(|_: NoArguments, _cx| async {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    "reindexed"
                }),
        )
        .build()
        .unwrap();
    let notes_server = notes("notes");
    let (tasks_addr, _s1, _) = serve(backend, None).await;
    let (notes_addr, _s2, _) = serve(notes_server, None).await;
    let mut instances = Vec::new();
    let mut stops = Vec::new();
    for name in ["gateway-a", "gateway-b"] {
        let gateway = Server::builder()
            .name(name)
            .state_keys(mcp_runtime::KeyRing::new(&[[3u8; 32]]).unwrap())
            .mount("kb", Client::http(url(notes_addr)).connect().unwrap())
            .mount("jobs", Client::http(url(tasks_addr)).connect().unwrap())
            .build()
            .unwrap();
        gateway.refresh_mounts().await;
        let (addr, stop, _) = serve(gateway, None).await;
        instances.push(addr);
        stops.push(stop);
    }
    let dir = std::env::temp_dir().join(format!("mcp-gateway-nginx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (_nginx, port) = super::common::engines::nginx(&instances, &dir);
    let client = Client::http(format!("http://127.0.0.1:{port}/mcp"))
        .connect()
        .unwrap();
    let answered_by = |result: &serde_json::Value| {
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let caps = json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let first = client
        .request(
            "tools/call",
            json!({"name": "kb_confirm", "arguments": {}, "_meta": caps}),
        )
        .await
        .unwrap();
    assert_eq!(first["resultType"], "input_required", "{first}");
    let started_on = answered_by(&first);
    let retry = json!({
        "name": "kb_confirm", "arguments": {}, "_meta": caps,
        "inputResponses": {"ok": {"action": "accept", "content": {"value": "elsewhere"}}},
        "requestState": first["requestState"],
    });
    let mut finished = None;
    for _ in 0..20 {
        let done = client.request("tools/call", retry.clone()).await.unwrap();
        if answered_by(&done) != started_on {
            finished = Some(done);
            break;
        }
    }
    let finished = finished.expect("nginx sent a retry to the other gateway");
    assert_eq!(
        finished["content"][0]["text"],
        "deleted (elsewhere, Some(7))"
    );

    let created = client
        .call_tool_as_task("jobs_reindex", json!({}))
        .await
        .unwrap();
    let id = created["taskId"].as_str().unwrap().to_owned();
    let created_on = answered_by(&created);
    let read = within("the task read through the other gateway", async {
        loop {
            let task = client.get_task(&id).await.unwrap();
            if answered_by(&task) != created_on && task["status"] == "completed" {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert_eq!(read["result"]["content"][0]["text"], "reindexed", "{read}");
    drop(stops);
    let _ = std::fs::remove_dir_all(&dir);
}
