//! The caller's token and a mount's credentials: kept at the front unless forwarding is asked.

use super::support::*;
use mcp_runtime::HttpOptions;
use mcp_runtime::client::Client;
use mcp_runtime::proxy::Mount;
use mcp_runtime::testing::TestClient;
use serde_json::json;

#[tokio::test]
async fn the_callers_token_never_reaches_a_backend() {
    let (backend, _stop, backend_saw) = serve(notes("private"), None).await;
    let remote = Client::http(url(backend)).connect().unwrap();
    let server = front(Mount::from(remote));
    // `into_router` (used by `serve` here) leaves starting the mounts to its caller.
    server.refresh_mounts().await;
    let (front_addr, _stop_front, front_saw) = serve(server, None).await;
    let client = Client::http(url(front_addr))
        .bearer("caller-secret")
        .connect()
        .unwrap();
    let found = client
        .call_tool("kb_search", json!({"query": "x"}))
        .await
        .unwrap();
    assert_eq!(found.text(), "found x");
    assert!(
        front_saw
            .lock()
            .unwrap()
            .iter()
            .all(|a| a == "Bearer caller-secret")
    );
    assert!(!front_saw.lock().unwrap().is_empty());
    assert!(
        backend_saw.lock().unwrap().is_empty(),
        "{:?}",
        backend_saw.lock().unwrap()
    );
    // A backend's own credentials are its link's.
    let (other, _stop_other, other_saw) = serve(notes("other"), None).await;
    let remote = Client::http(url(other))
        .bearer("gateway-own")
        .connect()
        .unwrap();
    let server = front(Mount::from(remote));
    server.refresh_mounts().await;
    TestClient::new(server)
        .call_tool("kb_search", json!({"query": "y"}))
        .await
        .unwrap();
    assert!(
        other_saw
            .lock()
            .unwrap()
            .iter()
            .all(|a| a == "Bearer gateway-own")
    );
}

/// The caller's token passes on only where the mount is told to, as an explicit opt-in.
#[tokio::test]
async fn the_callers_token_passes_on_only_when_asked() {
    use mcp_runtime::auth::ResourceServer;
    use mcp_runtime::client::Credentials;
    use mcp_runtime::testing::TestIssuer;
    let (backend, _stop, backend_saw) = serve(notes("shared-audience"), None).await;
    for forward in [false, true] {
        let mut remote = Client::http(url(backend));
        if forward {
            remote = remote.credentials(Credentials::ForwardCallerToken);
        }
        let server = front(Mount::from(remote.connect().unwrap()));
        server.refresh_mounts().await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let audience = url(listener.local_addr().unwrap());
        let issuer = TestIssuer::new("https://issuer.example.com", audience.clone());
        let rs = ResourceServer::new(&audience, issuer.issuer(), issuer.verifier()).unwrap();
        let (front_addr, _stop_front, _) =
            serve_on(listener, server, HttpOptions::default().auth(rs));
        let token = issuer.token("ada", &[]);
        let client = Client::http(url(front_addr))
            .bearer(&token)
            .connect()
            .unwrap();
        backend_saw.lock().unwrap().clear();
        let found = client
            .call_tool("kb_search", json!({"query": "t"}))
            .await
            .unwrap();
        assert_eq!(found.text(), "found t");
        let saw = backend_saw.lock().unwrap().clone();
        match forward {
            false => assert!(saw.is_empty(), "{saw:?}"),
            true => assert!(!saw.is_empty() && saw.iter().all(|a| *a == format!("Bearer {token}"))),
        }
    }
    // Lists are fetched for every caller, so with no caller's token: the link's own headers only
    // (none here).
    let remote = Client::http(url(backend)).credentials(Credentials::ForwardCallerToken);
    let server = front(Mount::from(remote.connect().unwrap()));
    backend_saw.lock().unwrap().clear();
    server.refresh_mounts().await;
    let names: Vec<String> = TestClient::new(server)
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(names.contains(&"kb_search".to_owned()), "{names:?}");
    let saw = backend_saw.lock().unwrap().clone();
    assert!(saw.is_empty(), "{saw:?}");
}
