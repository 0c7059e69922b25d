//! Seed 001 step 12 over real HTTP on 127.0.0.1: `server/discover` with a bogus and with a
//! supported protocol version, and capabilities derived from what is registered.

use crate::common;
use common::{VERSION, call, call_with, headers_for, meta, request, spawn_http, with_header};
use mcp_runtime::{Prompt, Resource, Server, Tool};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

fn tools_only() -> Server {
    Server::builder()
        .name("discover-tools-only")
        .version("1.2.3")
        .instructions("Call `hello` to greet.")
        .tool(
            Tool::new("hello")
                .description("Says hello.")
                .handler(|_: NoArgs, _cx| async { "hello" }),
        )
        .build()
        .expect("valid server")
}

fn discover_body(id: Value, version: &str) -> Value {
    let mut m = meta();
    m["io.modelcontextprotocol/protocolVersion"] = json!(version);
    request(id, "server/discover", json!({ "_meta": m }))
}

async fn discover(url: &str) -> Value {
    let resp = call(url, &discover_body(json!("d-ok"), VERSION)).await;
    assert_eq!(resp.status, 200);
    let body = resp.json();
    assert_eq!(body["id"], "d-ok");
    body["result"].clone()
}

#[tokio::test]
async fn seed_001_step_12_bogus_then_supported_version() {
    let http = spawn_http(tools_only()).await;
    let url = http.url();

    // 1. A bogus version (header and body agree, so the header check passes).
    let bogus = "1900-01-01";
    let body = discover_body(json!(41), bogus);
    let resp = call_with(
        &url,
        &body,
        with_header(headers_for(&body), "MCP-Protocol-Version", bogus),
    )
    .await;
    assert_eq!(resp.status, 400, "unsupported version is HTTP 400");
    assert_eq!(resp.content_type(), "application/json");
    let err = resp.json();
    assert_eq!(err["id"], 41, "the error echoes the request id");
    assert_eq!(err["error"]["code"], -32022);
    assert_eq!(err["error"]["data"]["requested"], bogus);
    let supported = err["error"]["data"]["supported"]
        .as_array()
        .expect("data.supported is an array")
        .clone();
    assert!(!supported.is_empty(), "data.supported is usable");

    // 2. A supported version.
    let result = discover(&url).await;
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["supportedVersions"],
        Value::Array(supported),
        "data.supported equals supportedVersions"
    );
    assert!(
        result["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!(VERSION))
    );
    assert!(result["capabilities"].is_object());
    assert_eq!(result["ttlMs"], 3_600_000, "default ttl is one hour");
    assert_eq!(result["cacheScope"], "public", "default scope is public");
    assert_eq!(result["instructions"], "Call `hello` to greet.");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "discover-tools-only", "version": "1.2.3"})
    );
    assert!(
        result.get("serverInfo").is_none(),
        "serverInfo lives in _meta only"
    );
}

#[tokio::test]
async fn configured_versions_are_listed_and_echoed() {
    let server = Server::builder()
        .supported_versions([VERSION, "2026-12-01"])
        .build()
        .expect("valid server");
    let http = spawn_http(server).await;
    let url = http.url();
    let result = discover(&url).await;
    assert_eq!(result["supportedVersions"], json!([VERSION, "2026-12-01"]));

    let body = discover_body(json!("v"), "v999.0.0");
    let resp = call_with(
        &url,
        &body,
        with_header(headers_for(&body), "MCP-Protocol-Version", "v999.0.0"),
    )
    .await;
    assert_eq!(resp.status, 400);
    let err = resp.json();
    assert_eq!(err["error"]["code"], -32022);
    assert_eq!(
        err["error"]["data"]["supported"],
        result["supportedVersions"]
    );
    assert_eq!(err["error"]["data"]["requested"], "v999.0.0");
}

#[tokio::test]
async fn capabilities_follow_registrations() {
    // Only tools: only `tools` is advertised, and the other lists do not exist.
    let http = spawn_http(tools_only()).await;
    let url = http.url();
    let caps = discover(&url).await["capabilities"].clone();
    let keys: Vec<&str> = caps
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["tools"],
        "a server with only tools advertises only tools: {caps}"
    );

    for (i, method) in [
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "completion/complete",
    ]
    .into_iter()
    .enumerate()
    {
        let body = request(json!(100 + i), method, json!({}));
        let resp = call(&url, &body).await;
        assert_eq!(resp.status, 404, "{method} is not advertised");
        let err = resp.json();
        assert_eq!(err["error"]["code"], -32601, "{method}");
        assert_eq!(err["id"], 100 + i, "{method}");
    }
    let resp = call(&url, &request(json!(1), "tools/list", json!({}))).await;
    assert_eq!(resp.status, 200);

    // Everything registered: everything advertised, and served.
    let full = Server::builder()
        .tool(
            Tool::new("hello")
                .description("Says hello.")
                .handler(|_: NoArgs, _cx| async { "hello" }),
        )
        .resource(
            Resource::new("test://static", "static")
                .mime_type("text/plain")
                .handler(|_read| async { "static text".to_owned() }),
        )
        .prompt(
            Prompt::new("greet")
                .description("A greeting.")
                .handler(|_get| async { "Say hello.".to_owned() }),
        )
        .build()
        .expect("valid server");
    let http = spawn_http(full).await;
    let url = http.url();
    let caps = discover(&url).await["capabilities"].clone();
    for cap in ["tools", "resources", "prompts"] {
        assert!(
            caps.get(cap).is_some_and(Value::is_object),
            "{cap} advertised: {caps}"
        );
    }
    assert!(
        caps.get("completions").is_none(),
        "no completer registered: {caps}"
    );
    assert!(
        caps.get("logging").is_none(),
        "logging is off by default: {caps}"
    );
    for method in ["prompts/list", "resources/list", "tools/list"] {
        let resp = call(&url, &request(json!(method), method, json!({}))).await;
        assert_eq!(resp.status, 200, "{method}");
    }
}

#[tokio::test]
async fn an_empty_server_still_discovers() {
    let http = spawn_http(Server::builder().build().expect("valid server")).await;
    let result = discover(&http.url()).await;
    assert_eq!(result["capabilities"], json!({}));
}
