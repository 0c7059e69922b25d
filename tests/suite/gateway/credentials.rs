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

/// A mount that passes its callers' tokens on serves each caller what the mounted server shows
/// that caller: lists fetched with the caller's token, on whichever gateway instance it asks,
/// with what collides with another origin found when a caller's view brings it.
#[tokio::test]
async fn a_token_passing_mount_lists_per_caller() {
    use mcp_runtime::auth::ResourceServer;
    use mcp_runtime::client::Credentials;
    use mcp_runtime::testing::TestIssuer;
    use mcp_runtime::{NoArguments, Server, Tool};
    // One audience shared by the gateway and the server behind it (the caller's own token
    // passes on).
    let gateway_listeners = [
        tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap(),
        tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap(),
    ];
    let audience = "https://notes.example.com/mcp";
    let issuer = TestIssuer::new("https://issuer.example.com", audience);
    let rs = || ResourceServer::new(audience, issuer.issuer(), issuer.verifier()).unwrap();
    let backend_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (backend, _stop, backend_saw) = serve_on(
        backend_listener,
        notes("private"),
        HttpOptions::default().auth(rs()),
    );
    let mut gateways = Vec::new();
    for listener in gateway_listeners {
        let remote = Client::http(url(backend))
            .credentials(Credentials::ForwardCallerToken)
            .connect()
            .unwrap();
        let server = Server::builder()
            .name("front")
            .tool(Tool::new("kb_count").handler(|_: NoArguments, _cx| async { "the front's own" }))
            .mount("kb", remote)
            .build()
            .unwrap();
        // Without a caller's token the mounted server lists nothing (it wants one).
        server.refresh_mounts().await;
        let (addr, stop, _) = serve_on(listener, server, HttpOptions::default().auth(rs()));
        gateways.push((addr, stop));
    }
    let as_caller = |addr, token: &str| Client::http(url(addr)).bearer(token).connect().unwrap();
    let names = |tools: Vec<mcp_runtime::protocol::ToolInfo>| -> Vec<String> {
        let mut names: Vec<String> = tools.into_iter().map(|t| t.name).collect();
        names.sort();
        names
    };
    let ada_token = issuer.token("ada", &["notes:write"]);
    let bob_token = issuer.token("bob", &[]);
    let ada = as_caller(gateways[0].0, &ada_token);
    let bob = as_caller(gateways[0].0, &bob_token);
    let ada_sees = names(ada.list_tools().await.unwrap());
    let bob_sees = names(bob.list_tools().await.unwrap());
    assert!(ada_sees.contains(&"kb_purge".to_owned()), "{ada_sees:?}");
    assert!(ada_sees.contains(&"kb_search".to_owned()), "{ada_sees:?}");
    assert!(!bob_sees.contains(&"kb_purge".to_owned()), "{bob_sees:?}");
    assert!(bob_sees.contains(&"kb_search".to_owned()), "{bob_sees:?}");
    // The mounted `count` collides with the gateway's own `kb_count`: one is served, the
    // gateway's.
    assert_eq!(ada_sees.iter().filter(|n| *n == "kb_count").count(), 1);
    let own = ada.call_tool("kb_count", json!({})).await.unwrap();
    assert_eq!(own.text(), "the front's own");
    // Use is checked against the caller's own view.
    let purged = ada.call_tool("kb_purge", json!({})).await.unwrap();
    assert_eq!(purged.text(), "purged");
    let refused = bob.call_tool("kb_purge", json!({})).await.unwrap_err();
    assert!(refused.code().is_some(), "{refused}");
    // A caller who never listed on the other gateway calls there at once.
    let ada_elsewhere = as_caller(gateways[1].0, &ada_token);
    let purged = ada_elsewhere
        .call_tool("kb_purge", json!({}))
        .await
        .unwrap();
    assert_eq!(purged.text(), "purged");
    // Each request reached the mounted server with its own caller's token, never another's.
    let saw = backend_saw.lock().unwrap().clone();
    let allowed = [format!("Bearer {ada_token}"), format!("Bearer {bob_token}")];
    assert!(saw.iter().all(|a| allowed.contains(a)), "{saw:?}");
    assert!(
        saw.contains(&allowed[1]),
        "bob's view was fetched with bob's token"
    );
}

/// A mount passing tokens on whose server never answers holds a caller's first request up for
/// a moment only (the view's fetch goes on behind it), and the gateway's own tools keep
/// answering.
#[tokio::test]
async fn a_silent_token_passing_mount_delays_nothing_for_long() {
    use mcp_runtime::auth::ResourceServer;
    use mcp_runtime::client::Credentials;
    use mcp_runtime::testing::TestIssuer;
    use mcp_runtime::{NoArguments, Server, Tool};
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent_addr = silent.local_addr().unwrap();
    let _hold = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((s, _)) = silent.accept().await {
            held.push(s);
        }
    });
    let remote = Client::http(url(silent_addr))
        .credentials(Credentials::ForwardCallerToken)
        .connect()
        .unwrap();
    let server = Server::builder()
        .tool(Tool::new("ping").handler(|_: NoArguments, _cx| async { "pong" }))
        .mount("kb", remote)
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let audience = url(listener.local_addr().unwrap());
    let issuer = TestIssuer::new("https://issuer.example.com", audience.clone());
    let rs = ResourceServer::new(&audience, issuer.issuer(), issuer.verifier()).unwrap();
    let (addr, _stop, _) = serve_on(listener, server, HttpOptions::default().auth(rs));
    let client = Client::http(url(addr))
        .bearer(issuer.token("ada", &[]))
        .connect()
        .unwrap();
    // The view's fetch gives up after 10 s; the request waits for it 2 s at most.
    let pong = tokio::time::timeout(
        std::time::Duration::from_secs(6),
        client.call_tool("ping", json!({})),
    )
    .await
    .expect("the gateway's own tool answered while the mount was silent")
    .unwrap();
    assert_eq!(pong.text(), "pong");
    let again = tokio::time::timeout(
        std::time::Duration::from_secs(6),
        client.call_tool("ping", json!({})),
    )
    .await
    .expect("a second request, with the view still being fetched")
    .unwrap();
    assert_eq!(again.text(), "pong");
}
