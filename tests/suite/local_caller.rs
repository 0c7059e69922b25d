//! A local caller with scopes: a server that protects a tool on the network can still offer it
//! to a desktop host over stdio (`ServerBuilder::stdio_caller`), and to loopback clients of an
//! endpoint without authentication (`HttpOptions::local_caller`); without one, the tool stays
//! hidden and refused. An endpoint with `auth` refuses a local caller.

use crate::common;
use common::{call_with, headers_for, request, response_of, spawn_http_with, within};
use mcp_runtime::{Caller, HttpOptions, Server, Tool};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Close {
    /// The ticket.
    id: u32,
}

fn desk(caller: Option<Caller>) -> Server {
    let mut builder = Server::builder().tool(
        Tool::new("close_ticket")
            .description("Closes a ticket.")
            .scopes(["tickets:write"])
            .handler(|c: Close, _cx| async move { format!("closed #{}", c.id) }),
    );
    if let Some(caller) = caller {
        builder = builder.stdio_caller(caller);
    }
    builder.build().unwrap()
}

fn writer() -> Caller {
    Caller::new("desktop-user").with_scopes(["tickets:write"])
}

/// Sends `requests` over stdio to `server` and returns its answers, by id.
async fn over_stdio(server: Server, requests: &[Value]) -> Vec<Value> {
    let (mut client_in, server_in) = tokio::io::duplex(64 * 1024);
    let (server_out, client_out) = tokio::io::duplex(64 * 1024);
    let task = tokio::spawn(server.serve_io(server_in, server_out));
    for r in requests {
        client_in
            .write_all(format!("{r}\n").as_bytes())
            .await
            .unwrap();
    }
    let mut lines = BufReader::new(client_out).lines();
    let mut answers = Vec::new();
    while answers.len() < requests.len() {
        let line = within("an answer", lines.next_line())
            .await
            .unwrap()
            .unwrap();
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    drop(client_in);
    let _ = within("the end of serve_io", task).await;
    answers.sort_by_key(|a| a["id"].as_i64());
    answers
}

fn list_and_call() -> Vec<Value> {
    vec![
        request(1, "tools/list", json!({})),
        request(
            2,
            "tools/call",
            json!({"name": "close_ticket", "arguments": {"id": 7}}),
        ),
    ]
}

#[tokio::test]
async fn over_stdio_the_scoped_tool_works_for_the_local_caller_and_only_for_it() {
    let with = over_stdio(desk(Some(writer())), &list_and_call()).await;
    assert_eq!(
        with[0]["result"]["tools"][0]["name"], "close_ticket",
        "{}",
        with[0]
    );
    assert_eq!(
        with[1]["result"]["content"][0]["text"], "closed #7",
        "{}",
        with[1]
    );

    let without = over_stdio(desk(None), &list_and_call()).await;
    assert_eq!(
        without[0]["result"]["tools"],
        json!([]),
        "hidden: {}",
        without[0]
    );
    let refused = &without[1]["error"];
    assert_eq!(refused["code"], -32602, "{}", without[1]);
    assert_eq!(refused["data"]["requiredScopes"], json!(["tickets:write"]));
    // Over stdio no token can come: the refusal names the setting that gives a caller.
    assert_eq!(
        refused["message"],
        "Unauthorized: tool `close_ticket` needs the scope tickets:write, and a request over stdio \
         carries no access token: give the server its local user, e.g. \
         ServerBuilder::stdio_caller(Caller::new(\"local-user\").with_scopes([\"tickets:write\"]))"
    );
    // The same in a 2025-11-25 session over stdio.
    let legacy = over_stdio(
        desk(None),
        &[
            request(
                1,
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "desktop", "version": "1"}}),
            ),
            request(
                2,
                "tools/call",
                json!({"name": "close_ticket", "arguments": {"id": 7}}),
            ),
        ],
    )
    .await;
    assert_eq!(
        legacy[1]["error"]["message"], refused["message"],
        "{}",
        legacy[1]
    );

    // A caller without the scope is refused too.
    let reader = Caller::new("reader").with_scopes(["tickets:read"]);
    let other = over_stdio(desk(Some(reader)), &list_and_call()).await;
    assert!(
        other[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("tickets:write")
    );
}

#[tokio::test]
async fn a_loopback_client_of_an_endpoint_without_auth_is_the_local_caller() {
    let options = HttpOptions::default().local_caller(writer());
    let http = spawn_http_with(desk(None), options).await;
    let url = format!("http://{}/mcp", http.addr);
    let call = request(
        2,
        "tools/call",
        json!({"name": "close_ticket", "arguments": {"id": 9}}),
    );
    let resp = call_with(&url, &call, headers_for(&call)).await;
    assert_eq!(
        response_of(&resp)["result"]["content"][0]["text"],
        "closed #9"
    );

    let http = spawn_http_with(desk(None), HttpOptions::default()).await;
    let url = format!("http://{}/mcp", http.addr);
    let resp = call_with(&url, &call, headers_for(&call)).await;
    assert_eq!(
        resp.status,
        http::StatusCode::FORBIDDEN,
        "no local caller: refused"
    );
}

#[tokio::test]
async fn an_endpoint_with_auth_refuses_a_local_caller() {
    let issuer =
        mcp_runtime::testing::TestIssuer::new("https://issuer.example", "https://mcp.example/mcp");
    let rs = mcp_runtime::auth::ResourceServer::new(
        "https://mcp.example/mcp",
        "https://issuer.example",
        issuer.verifier(),
    )
    .unwrap();
    let options = HttpOptions::default().auth(rs).local_caller(writer());
    let why = options.check().unwrap_err();
    assert!(why.contains("would bypass it"), "{why}");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let served = desk(None).serve(listener, options).await;
    assert!(served.is_err(), "serving refuses the options");
}
