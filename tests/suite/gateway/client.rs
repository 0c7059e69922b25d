//! The client on its own: a 2025 session driven, a misbehaving server, a refused listen
//! stream, and the eras across a relay.

use super::common::within;
use super::support::*;
use mcp_runtime::client::{Client, ClientError, Revision};
use mcp_runtime::proxy::Mount;
use mcp_runtime::testing::{Elicited, TestClient};
use mcp_runtime::{NoArguments, Server, Tool};
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn the_client_drives_a_2025_session_itself() {
    let (addr, _stop, _) = serve(notes("legacy-notes"), None).await;
    let client = Client::http(url(addr))
        .revision(Revision::Legacy("2025-11-25".into()))
        .connect()
        .unwrap()
        .on_elicit(|message, _| {
            assert_eq!(message, "Delete it?");
            Elicited::Accept(json!({"value": "ok"}))
        });
    let done = client.call_tool("confirm", json!({})).await.unwrap();
    assert_eq!(done.text(), "deleted (ok, Some(7))");
    assert_eq!(client.revision().as_deref(), Some("2025-11-25"));
    let auto = Client::http(url(addr)).connect().unwrap();
    auto.list_tools().await.unwrap();
    assert_eq!(
        auto.revision().as_deref(),
        Some("2026-07-28"),
        "a 2026 server is spoken to in 2026"
    );
}

#[tokio::test]
async fn a_misbehaving_server_gets_a_clear_error() {
    // Not an MCP endpoint: a plain HTTP server answering text.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(|| async { ([("content-type", "text/plain")], "hello") }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let client = Client::http(url(addr))
        .revision(Revision::Modern)
        .connect()
        .unwrap();
    let err = client.list_tools().await.unwrap_err();
    assert!(matches!(err, ClientError::Protocol(_)), "{err:?}");
    assert!(err.to_string().contains("text/plain"), "{err}");
    // Nothing listening: unreachable, at once.
    drop(client);
    let closed = Client::http("http://127.0.0.1:9/mcp").connect().unwrap();
    let err = within("a refused connection", closed.list_tools())
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Unreachable(_)), "{err:?}");
    // A server that never answers: the client's timeout.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent_addr = silent.local_addr().unwrap();
    let _hold = tokio::spawn(async move {
        let mut held = Vec::new();
        loop {
            if let Ok((s, _)) = silent.accept().await {
                held.push(s);
            }
        }
    });
    let slow = Client::http(url(silent_addr))
        .revision(Revision::Modern)
        .timeout(Duration::from_millis(300))
        .connect()
        .unwrap();
    let err = within("a silent server", slow.list_tools())
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Timeout(_)), "{err:?}");
    // An answer larger than the client reads.
    let big = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let big_addr = big.local_addr().unwrap();
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete","tools":[],"pad":"{}"}}}}"#,
        "x".repeat(20_000)
    );
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(move || {
            let huge = huge.clone();
            async move { ([("content-type", "application/json")], huge) }
        }),
    );
    tokio::spawn(async move { axum::serve(big, app).await.unwrap() });
    let small = Client::http(url(big_addr))
        .revision(Revision::Modern)
        .max_message_bytes(4_096)
        .connect()
        .unwrap();
    let err = within("an oversized answer", small.list_tools())
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Protocol(_)), "{err:?}");
    assert!(err.to_string().contains("4096 bytes"), "{err}");
}

#[tokio::test]
async fn a_2025_client_of_the_front_reaches_a_2026_backend() {
    let (backend, _stop, _) = serve(notes("modern"), None).await;
    let front = front(Mount::from(Client::http(url(backend)).connect().unwrap()));
    front.refresh_mounts().await;
    let (front_addr, _stop_front, _) = serve(front, None).await;
    let legacy = Client::http(url(front_addr))
        .revision(Revision::Legacy("2025-11-25".into()))
        .connect()
        .unwrap()
        .on_elicit(|_, _| Elicited::Accept(json!({"value": "from 2025"})));
    let done = legacy.call_tool("kb_confirm", json!({})).await.unwrap();
    assert_eq!(done.text(), "deleted (from 2025, Some(7))");
    assert_eq!(legacy.revision().as_deref(), Some("2025-11-25"));
}

#[tokio::test]
async fn a_2025_backends_own_requests_are_refused_with_a_reason() {
    // A 2025 session asks for input on the call's stream, which a relay cannot hold open.
    let (backend, _stop, _) = serve(notes("old"), None).await;
    let remote = Client::http(url(backend))
        .revision(Revision::Legacy("2025-11-25".into()))
        .connect()
        .unwrap();
    let front = front(Mount::from(remote));
    front.refresh_mounts().await;
    let client = TestClient::new(front).on_elicit(|_, _| Elicited::Accept(json!({"value": "x"})));
    let text = match client.call_tool("kb_confirm", json!({})).await {
        Ok(result) => result.text(),
        Err(e) => e.to_string(),
    };
    assert!(text.contains("2025"), "{text}");
}

#[tokio::test]
async fn a_refused_listen_stream_is_an_error_at_once() {
    // A server that serves no listen streams: a mount stops asking it (no retry every moment).
    let plain = Server::builder()
        .tool(Tool::new("t").handler(|_: NoArguments, _cx| async { "t" }))
        .build()
        .unwrap();
    let refused = TestClient::new(plain.clone())
        .listen(json!({"toolsListChanged": true}))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Some(-32601), "{refused}");
    let (addr, _stop, _) = serve(plain, None).await;
    let remote = Client::http(url(addr)).connect().unwrap();
    let refused = remote
        .listen(json!({"toolsListChanged": true}))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Some(-32601), "{refused}");
}

/// A 2025 server that closes a call's stream part way (SEP-1699 polling): the client resumes
/// it (`GET` with `Last-Event-ID`) and reads the result there, directly and through a relay.
#[tokio::test]
async fn a_stream_closed_mid_call_is_resumed() {
    let backend = Server::builder()
        .tool(Tool::new("reconnect").handler(
            |_: NoArguments, cx: mcp_runtime::RequestContext| async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                cx.close_sse_stream();
                tokio::time::sleep(Duration::from_millis(150)).await;
                "resumed"
            },
        ))
        .build()
        .unwrap();
    let (addr, _stop, _) = serve(backend, None).await;
    let legacy = || {
        Client::http(url(addr))
            .revision(Revision::Legacy("2025-11-25".into()))
            .connect()
            .unwrap()
    };
    let direct = within(
        "the resumed call",
        legacy().call_tool("reconnect", json!({})),
    )
    .await
    .unwrap();
    assert_eq!(direct.text(), "resumed");
    let server = front(Mount::from(legacy()));
    server.refresh_mounts().await;
    let relayed = within(
        "the resumed call, relayed",
        TestClient::new(server).call_tool("kb_reconnect", json!({})),
    )
    .await
    .unwrap();
    assert_eq!(relayed.text(), "resumed");
}

/// A 2025 server that cuts every stream before its response: resumed a bounded number of
/// times, then a clear error.
#[tokio::test]
async fn a_stream_cut_forever_is_given_up() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let resumes = std::sync::Arc::new(AtomicUsize::new(0));
    let seen = resumes.clone();
    let cut = || {
        (
            [("content-type", "text/event-stream")],
            "id: 7\nretry: 0\ndata:\n\n",
        )
    };
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(move |body: String| async move {
            let message: serde_json::Value = serde_json::from_str(&body).unwrap();
            match message["method"].as_str() {
                Some("initialize") => {
                    let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                        "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                        "serverInfo": {"name": "cutter", "version": "1"}}});
                    (
                        [
                            ("content-type", "application/json"),
                            ("mcp-session-id", "s1"),
                        ],
                        answer.to_string(),
                    )
                        .into_response()
                }
                Some(m) if m.starts_with("notifications/") => {
                    axum::http::StatusCode::ACCEPTED.into_response()
                }
                _ => cut().into_response(),
            }
        })
        .get(move |headers: axum::http::HeaderMap| async move {
            assert_eq!(headers["last-event-id"], "7");
            assert_eq!(headers["mcp-session-id"], "s1");
            seen.fetch_add(1, Ordering::Relaxed);
            cut()
        }),
    );
    use axum::response::IntoResponse;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let client = Client::http(url(addr))
        .revision(Revision::Legacy("2025-11-25".into()))
        .connect()
        .unwrap();
    let err = within("the cuts, given up", client.call_tool("t", json!({})))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("cut 100 times"), "{err}");
    assert_eq!(resumes.load(Ordering::Relaxed), 100);
}
