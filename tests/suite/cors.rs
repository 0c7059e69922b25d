//! CORS on the endpoint for browser-based hosts: a preflight from an origin the server allows
//! (loopback, or `HttpOptions::allow_origin`) is answered with the methods and MCP headers it
//! may send; every answer to it names the origin, varies on it and exposes what clients read;
//! other origins, and headers a browser host has no business sending, are refused. (A page on
//! another loopback origin calling the server from headless Chromium: `.ci/lab.sh`.)

use crate::common;
use common::{call_with, headers_for, request, send, spawn_http, spawn_http_with};
use http::{Method, StatusCode};
use mcp_runtime::{HttpOptions, NoArguments, Server, Tool};
use serde_json::json;

fn server() -> Server {
    Server::builder()
        .tool(
            Tool::new("ping")
                .description("Answers pong.")
                .handler(|_: NoArguments, _cx| async { "pong" }),
        )
        .build()
        .unwrap()
}

fn preflight(origin: &str, method: &str, headers: &str) -> Vec<(String, String)> {
    vec![
        ("Origin".into(), origin.into()),
        ("Access-Control-Request-Method".into(), method.into()),
        ("Access-Control-Request-Headers".into(), headers.into()),
    ]
}

fn header<'a>(resp: &'a common::HttpResponse, name: &str) -> &'a str {
    resp.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_preflight_from_an_allowed_origin_is_answered_with_what_it_may_send() {
    let http = spawn_http(server()).await;
    let url = format!("http://{}/mcp", http.addr);
    let asked = "content-type, mcp-protocol-version, mcp-method, mcp-name, authorization, \
                 mcp-param-region";
    let resp = send(
        Method::OPTIONS,
        &url,
        &preflight("http://localhost:5173", "POST", asked),
        "",
    )
    .await;
    assert_eq!(resp.status, StatusCode::NO_CONTENT);
    assert_eq!(
        header(&resp, "access-control-allow-origin"),
        "http://localhost:5173"
    );
    assert_eq!(
        header(&resp, "access-control-allow-methods"),
        "POST, GET, DELETE"
    );
    let allowed = header(&resp, "access-control-allow-headers");
    for h in [
        "content-type",
        "mcp-protocol-version",
        "authorization",
        "mcp-param-region",
    ] {
        assert!(allowed.contains(h), "{h} in {allowed}");
    }
    assert!(header(&resp, "vary").contains("Origin"));
    assert_eq!(header(&resp, "access-control-max-age"), "600");
    assert!(
        resp.headers
            .get("access-control-allow-credentials")
            .is_none(),
        "no credentials mode: tokens go in Authorization"
    );
}

#[tokio::test]
async fn other_origins_and_other_headers_are_refused() {
    let http = spawn_http(server()).await;
    let url = format!("http://{}/mcp", http.addr);
    let resp = send(
        Method::OPTIONS,
        &url,
        &preflight("https://evil.example", "POST", "content-type"),
        "",
    )
    .await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    assert!(resp.headers.get("access-control-allow-origin").is_none());
    for (method, headers) in [("POST", "content-type, cookie"), ("PUT", "content-type")] {
        let resp = send(
            Method::OPTIONS,
            &url,
            &preflight("http://localhost:5173", method, headers),
            "",
        )
        .await;
        assert_eq!(resp.status, StatusCode::FORBIDDEN, "{method} {headers}");
    }
    let no_origin = send(Method::OPTIONS, &url, &[], "").await;
    assert_eq!(no_origin.status, StatusCode::BAD_REQUEST);
    // The request itself from that origin: refused, and not told it may cross.
    let body = request(1, "tools/list", json!({}));
    let mut headers = headers_for(&body);
    headers.push(("Origin".into(), "https://evil.example".into()));
    let resp = send(Method::POST, &url, &headers, body.to_string()).await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    assert!(resp.headers.get("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn answers_to_an_allowed_origin_name_it_and_expose_what_clients_read() {
    let options = HttpOptions::default().allow_origin("https://app.example.com");
    let http = spawn_http_with(server(), options).await;
    let url = format!("http://{}/mcp", http.addr);
    let resp = send(
        Method::OPTIONS,
        &url,
        &preflight("https://app.example.com", "POST", "content-type"),
        "",
    )
    .await;
    assert_eq!(resp.status, StatusCode::NO_CONTENT);
    let body = request(1, "tools/call", json!({"name": "ping", "arguments": {}}));
    let mut headers = headers_for(&body);
    headers.push(("Origin".into(), "https://app.example.com".into()));
    let resp = call_with(&url, &body, headers).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert_eq!(
        header(&resp, "access-control-allow-origin"),
        "https://app.example.com"
    );
    let exposed = header(&resp, "access-control-expose-headers");
    for h in ["Mcp-Session-Id", "WWW-Authenticate", "MCP-Protocol-Version"] {
        assert!(exposed.contains(h), "{h} in {exposed}");
    }
    assert!(header(&resp, "vary").contains("Origin"));
    // A 2025-11-25 client reads its session id across origins too.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "browser", "version": "1"}}});
    let mut headers = common::post_headers();
    headers.push(("Origin".to_owned(), "https://app.example.com".to_owned()));
    let resp = send(Method::POST, &url, &headers, init.to_string()).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert!(resp.headers.get("mcp-session-id").is_some());
    assert_eq!(
        header(&resp, "access-control-allow-origin"),
        "https://app.example.com"
    );
    // Without an Origin (not a browser), nothing changes.
    let body = request(2, "tools/list", json!({}));
    let resp = call_with(&url, &body, headers_for(&body)).await;
    assert!(resp.headers.get("access-control-allow-origin").is_none());
}
