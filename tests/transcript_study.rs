//! Seed 000, the study server's exact wire output, replayed against the `study-server` example
//! over real HTTP on 127.0.0.1. Every answer must be JSON-equal to the seed's (only the opaque
//! `requestState` may differ) and valid against the 2026-07-28 schema.

mod common;
#[path = "../examples/study-server/server.rs"]
mod study_server;

use common::{call, meta, request, shared_path, spawn_http};
use mcp_runtime::KeyRing;
use serde_json::{Value, json};

fn seed() -> Option<Value> {
    let path = shared_path("seeds/000_9d999783fabc24fd.txt")?;
    let text = std::fs::read_to_string(path).expect("seed 000 is readable");
    Some(serde_json::from_str(&text).expect("seed 000 is JSON"))
}

fn caps_meta(caps: Value) -> Value {
    let mut m = meta();
    m["io.modelcontextprotocol/clientCapabilities"] = caps;
    m
}

#[tokio::test]
async fn discover_lists_answer_resource_and_prompt_match_the_seed() {
    let Some(seed) = seed() else { return };
    let server = study_server::build(None).expect("the study server builds");
    let http = spawn_http(server).await;
    let url = http.url();
    let cases = [
        ("discover", request(1, "server/discover", json!({}))),
        ("tools", request(2, "tools/list", json!({}))),
        (
            "answer",
            request(
                3,
                "tools/call",
                json!({"name": "add", "arguments": {"a": 40, "b": 2}}),
            ),
        ),
        (
            "resource",
            request(4, "resources/read", json!({"uri": "config://service"})),
        ),
        (
            "prompt",
            request(5, "prompts/get", json!({"name": "review"})),
        ),
    ];
    for (key, body) in cases {
        let resp = call(&url, &body).await;
        assert_eq!(resp.status, 200, "{key}");
        let json = resp.json();
        assert_eq!(json["id"], body["id"], "{key}");
        assert_eq!(json["result"], seed[key], "{key} differs from seed 000");
    }
}

#[tokio::test]
async fn progress_notifications_match_the_seed() {
    let Some(seed) = seed() else { return };
    let http = spawn_http(study_server::build(None).unwrap()).await;
    let mut m = meta();
    m["progressToken"] = json!("addition-1");
    let body = request(
        6,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 40, "b": 2}, "_meta": m}),
    );
    let resp = call(&http.url(), &body).await;
    assert_eq!(resp.content_type(), "text/event-stream");
    let messages = resp.messages();
    assert_eq!(messages.len(), 3);
    assert_eq!(
        Value::Array(messages[..2].to_vec()),
        seed["requestScopedNotifications"]
    );
    assert_eq!(messages[2]["result"], seed["answer"]);

    // Without a token: one plain JSON response, no notifications.
    let body = request(
        7,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 40, "b": 2}}),
    );
    let resp = call(&http.url(), &body).await;
    assert_eq!(resp.content_type(), "application/json");
    assert_eq!(resp.json()["result"], seed["answer"]);
}

#[tokio::test]
async fn mrtr_across_two_instances_sharing_only_the_key() {
    let Some(seed) = seed() else { return };
    let key = [42u8; 32];
    let a = spawn_http(study_server::build(Some(KeyRing::new(&[key]).unwrap())).unwrap()).await;
    let b = spawn_http(study_server::build(Some(KeyRing::new(&[key]).unwrap())).unwrap()).await;
    assert_ne!(a.addr, b.addr);
    let expected = &seed["mrtrAcrossInstances"];
    let caps = json!({"roots": {}, "sampling": {}, "elicitation": {}});
    let arguments = json!({"topic": "release safety"});

    let first = request(
        expected["initialRequestId"].clone(),
        "tools/call",
        json!({"name": "prepare_review", "arguments": arguments, "_meta": caps_meta(caps.clone())}),
    );
    let answered = call(&a.url(), &first).await;
    let resp = answered.json();
    assert_eq!(resp["id"], expected["initialRequestId"]);
    // Asked again, the declared requests come from where their JSON was written once: the
    // same bytes up to the fresh state.
    let again = call(&a.url(), &first).await;
    let requests = |body: &[u8]| {
        let text = String::from_utf8_lossy(body).into_owned();
        text[..text.find("\"requestState\"").expect("a requestState")].to_owned()
    };
    assert_eq!(requests(&again.body), requests(&answered.body));
    let mut got = resp["result"].clone();
    let state = got["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned();
    assert!(state.starts_with("v2."));
    got["requestState"] = json!("<opaque-generated-per-run>");
    assert_eq!(
        got, expected["inputRequired"],
        "input_required differs from seed 000"
    );

    let retry = request(
        expected["retryRequestId"].clone(),
        "tools/call",
        json!({
            "name": "prepare_review",
            "arguments": arguments,
            "inputResponses": {
                "workspace_scope": {"roots": [{"uri": "file:///workspace/release", "name": "release"}]},
                "review_sample": {
                    "role": "assistant",
                    "content": {"type": "text", "text": "Check correctness and rollback risk."},
                    "model": "study-model",
                    "stopReason": "endTurn"
                },
                "review_goal": {"action": "accept", "content": {"goal": "find correctness risks"}}
            },
            "requestState": state,
            "_meta": caps_meta(caps),
        }),
    );
    let resp = call(&b.url(), &retry).await.json();
    assert_eq!(resp["id"], expected["retryRequestId"]);
    let result = &resp["result"];
    let want = &expected["complete"];
    assert_eq!(result["resultType"], want["resultType"]);
    assert_eq!(result["isError"], want["isError"]);
    assert_eq!(result["_meta"], want["_meta"]);
    let parse = |v: &Value| -> Value {
        serde_json::from_str(v["content"][0]["text"].as_str().expect("text")).expect("JSON text")
    };
    assert_eq!(
        parse(result),
        parse(want),
        "the final text differs from seed 000"
    );
}

/// The same exchange through the in-process `TestClient`: the client's answers come from its
/// callbacks, and the body runs once with all three.
#[tokio::test]
async fn prepare_review_through_the_test_client() {
    use mcp_runtime::testing::{Elicited, TestClient};
    let server = study_server::build(Some(KeyRing::new(&[[9; 32]]).unwrap())).unwrap();
    let client = TestClient::new(server)
        .roots(["file:///workspace"])
        .on_sample(|_| "Check the rollback path.".to_owned())
        .on_elicit(|message, _| {
            assert_eq!(message, "Choose the primary review goal.");
            Elicited::Accept(json!({"goal": "safety"}))
        });
    let result = client
        .call_tool("prepare_review", json!({"topic": "release"}))
        .await
        .unwrap();
    let summary: Value = serde_json::from_str(&result.text()).unwrap();
    assert_eq!(
        summary,
        json!({"goal": "safety", "rootCount": 1, "sample": "Check the rollback path.", "topic": "release"})
    );
    let declined = TestClient::new(study_server::build(None).unwrap())
        .roots(["file:///workspace"])
        .on_sample(|_| "x".to_owned())
        .on_elicit(|_, _| Elicited::Decline);
    let result = declined
        .call_tool("prepare_review", json!({"topic": "release"}))
        .await
        .unwrap();
    assert!(result.failed());
    assert_eq!(result.text(), "The user declined to choose a review goal.");
}

#[test]
fn the_study_server_lists_portable_schemas() {
    // Its schemas are the seed's exactly (above), and portable as they are.
    mcp_runtime::testing::assert_portable_schemas(&study_server::build(None).unwrap());
}
