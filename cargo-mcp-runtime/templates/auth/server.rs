//! The server in process, then over HTTP with access tokens from a test issuer.

use mcp_runtime::HttpOptions;
use mcp_runtime::client::Client;
use mcp_runtime::testing::{TestClient, TestIssuer};
use serde_json::json;
use {{module}}::{WRITE, build, local_user, resource_server};

#[tokio::test]
async fn the_local_user_publishes() {
    let client = TestClient::new(build().unwrap()).caller(local_user());
    let result = client.call_tool("publish", json!({"text": "hello"})).await.unwrap();
    assert!(result.text().ends_with("published: hello"), "{}", result.text());
}

#[tokio::test]
async fn an_anonymous_caller_cannot_publish() {
    let client = TestClient::new(build().unwrap());
    let refused = client.call_tool("publish", json!({"text": "hello"})).await;
    assert!(refused.is_err() || refused.unwrap().failed());
}

/// The server on a loopback port, verifying tokens of `issuer`; its URL.
async fn serve() -> (String, TestIssuer) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let issuer = TestIssuer::new("https://auth.example.com", url.clone());
    let auth = resource_server(&url, issuer.issuer(), issuer.verifier()).unwrap();
    let server = build().unwrap();
    let options = HttpOptions::default().auth(auth);
    tokio::spawn(server.serve_until(listener, options, std::future::pending()));
    (url, issuer)
}

#[tokio::test]
async fn tokens_decide_over_http() {
    let (url, issuer) = serve().await;
    let anonymous = Client::http(&url).connect().unwrap();
    assert!(anonymous.list_tools().await.is_err(), "no token, no answer");

    let reader = Client::http(&url).bearer(issuer.token("ana", &[])).connect().unwrap();
    let whoami = reader.call_tool("whoami", json!({})).await.unwrap();
    assert_eq!(whoami.text(), "You are ana.");
    let refused = reader.call_tool("publish", json!({"text": "hi"})).await;
    assert!(refused.is_err(), "publish needs {WRITE}");

    let writer = Client::http(&url).bearer(issuer.token("ana", &[WRITE])).connect().unwrap();
    let published = writer.call_tool("publish", json!({"text": "hi"})).await.unwrap();
    assert_eq!(published.text(), "ana published: hi");
}
