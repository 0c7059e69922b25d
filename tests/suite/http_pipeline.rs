//! The Streamable HTTP pipeline over real HTTP on 127.0.0.1: every error path as one table
//! (status code, JSON-RPC code and `id` handling per row), then pagination, caching hints,
//! `serverInfo`, and the JSON-vs-SSE choice for progress.
//!
//! Every JSON-RPC message the server sends is validated against the 2026-07-28 schema.

use crate::common;
use common::{
    HttpResponse, VERSION, call, call_with, headers_for, meta, notification, post, request, send,
    spawn_http, spawn_http_with, with_header, without_header,
};
use http::Method;
use mcp_runtime::protocol::CacheScope;
use mcp_runtime::{
    CacheTarget, Completer, HttpOptions, Prompt, Resource, ResourceTemplate, Server, Tool,
};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    text: String,
}

/// Tools, resources (fixed and templated) and a prompt; no completions, no listen.
fn pipeline_server() -> Server {
    Server::builder()
        .name("pipeline")
        .version("0.0.1")
        .tool(
            Tool::new("echo")
                .description("Echoes its text.")
                .handler(|a: EchoArgs, _cx| async move { a.text }),
        )
        .tool(
            Tool::new("work")
                .description("Reports progress three times, then answers.")
                .handler(|_: NoArgs, cx| async move {
                    let progress = cx.progress();
                    for step in 1..=3u32 {
                        progress.report(f64::from(step), Some(3.0), Some(&format!("step {step}")));
                        tokio::task::yield_now().await;
                    }
                    "done"
                }),
        )
        .resource(
            Resource::new("test://static", "static")
                .mime_type("text/plain")
                .handler(|_read| async { "static text".to_owned() }),
        )
        .resource_template(
            ResourceTemplate::new("test://items/{id}", "item")
                .mime_type("text/plain")
                .handler(|read| async move { format!("item {}", read.variables["id"]) }),
        )
        .prompt(
            Prompt::new("greet")
                .description("A greeting.")
                .argument("name", Some("Who to greet"), true)
                .handler(|get| async move { format!("Say hello to {}.", get.arguments["name"]) }),
        )
        .build()
        .expect("valid server")
}

type Headers = Vec<(String, String)>;

/// What one row of the table expects.
#[derive(Debug, Clone)]
enum Expect {
    /// A JSON-RPC error: status, code, and the `id` (`None`: the error has no `id`).
    Error(u16, i64, Option<Value>),
    /// A result echoing the request id, with status 200.
    Ok,
    /// This status and an empty body.
    Empty(u16),
    /// This status, refused before any JSON-RPC processing (body not JSON-RPC).
    Refused(u16),
}

struct Row {
    name: String,
    method: Method,
    /// The JSON-RPC method the body carries (for schema validation of the answer).
    rpc_method: String,
    body: Vec<u8>,
    headers: Headers,
    expect: Expect,
}

fn row(name: &str, body: &Value, headers: Headers, expect: Expect) -> Row {
    Row {
        name: name.to_owned(),
        method: Method::POST,
        rpc_method: body
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        body: serde_json::to_vec(body).unwrap(),
        headers,
        expect,
    }
}

fn raw_row(name: &str, body: &[u8], headers: Headers, expect: Expect) -> Row {
    Row {
        name: name.to_owned(),
        method: Method::POST,
        rpc_method: String::new(),
        body: body.to_vec(),
        headers,
        expect,
    }
}

/// A standard request and its standard headers.
fn std_req(id: Value, method: &str, params: Value) -> (Value, Headers) {
    let body = request(id, method, params);
    let headers = headers_for(&body);
    (body, headers)
}

/// A request whose `_meta` is altered by `edit`.
fn meta_req(
    id: Value,
    method: &str,
    edit: impl FnOnce(&mut serde_json::Map<String, Value>),
) -> (Value, Headers) {
    let mut m = meta().as_object().unwrap().clone();
    edit(&mut m);
    std_req(id, method, json!({"_meta": m}))
}

fn err(status: u16, code: i64, id: impl Into<Value>) -> Expect {
    Expect::Error(status, code, Some(id.into()))
}

fn err_no_id(status: u16, code: i64) -> Expect {
    Expect::Error(status, code, None)
}

fn sentinel(text: &str) -> String {
    format!("=?base64?{}?=", common::base64(text.as_bytes()))
}

fn table(port: u16) -> Vec<Row> {
    let mut rows = Vec::new();
    let call_echo = |id: Value| {
        std_req(
            id,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        )
    };
    let get_greet = |id: Value| {
        std_req(
            id,
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        )
    };
    let read_static = |id: Value| std_req(id, "resources/read", json!({"uri": "test://static"}));

    // --- Required `_meta` fields (400 / -32602, id echoed); clientInfo is optional. ---
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    rows.push(row(
        "missing _meta",
        &body,
        headers_for(&body),
        err(400, -32602, 1),
    ));
    let body = json!({"jsonrpc": "2.0", "id": "no-params", "method": "tools/list"});
    rows.push(row(
        "missing params",
        &body,
        headers_for(&body),
        err(400, -32602, "no-params"),
    ));
    let (b, h) = meta_req(json!(2), "tools/list", |m| {
        m.remove("io.modelcontextprotocol/protocolVersion");
    });
    rows.push(row("missing protocolVersion", &b, h, err(400, -32602, 2)));
    let (b, h) = meta_req(json!(3), "tools/list", |m| {
        m.remove("io.modelcontextprotocol/clientCapabilities");
    });
    rows.push(row(
        "missing clientCapabilities",
        &b,
        h,
        err(400, -32602, 3),
    ));
    let (b, h) = meta_req(json!(4), "tools/list", |m| {
        m.remove("io.modelcontextprotocol/clientInfo");
    });
    rows.push(row("clientInfo absent is fine", &b, h, Expect::Ok));
    let (b, h) = meta_req(json!(5), "tools/list", |m| {
        m.insert(
            "io.modelcontextprotocol/clientCapabilities".into(),
            json!("not an object"),
        );
    });
    rows.push(row(
        "malformed clientCapabilities",
        &b,
        h,
        err(400, -32602, 5),
    ));

    // --- MCP-Protocol-Version header (400 / -32020). ---
    let (b, h) = std_req(json!(10), "tools/list", json!({}));
    rows.push(row(
        "MCP-Protocol-Version missing",
        &b,
        without_header(h, "MCP-Protocol-Version"),
        err(400, -32020, 10),
    ));
    let (b, h) = meta_req(json!(11), "tools/list", |m| {
        m.insert(
            "io.modelcontextprotocol/protocolVersion".into(),
            json!("v999.0.0"),
        );
    });
    rows.push(row(
        "MCP-Protocol-Version differs from _meta (checked before the version)",
        &b,
        with_header(h, "MCP-Protocol-Version", VERSION),
        err(400, -32020, 11),
    ));
    let (b, h) = std_req(json!(12), "tools/list", json!({}));
    // A legacy version in the header makes the request a 2025-11-25 one, whatever its body says
    // (some hosts send 2026 `_meta` keys on legacy sessions): without a session it is refused.
    rows.push(row(
        "MCP-Protocol-Version names a legacy version",
        &b,
        with_header(h.clone(), "MCP-Protocol-Version", "2025-11-25"),
        err(400, -32600, 12),
    ));
    rows.push(row(
        "MCP-Protocol-Version names another version",
        &b,
        with_header(h, "MCP-Protocol-Version", "2027-01-01"),
        err(400, -32020, 12),
    ));

    // --- Mcp-Method (400 / -32020). ---
    let (b, h) = std_req(json!(20), "tools/list", json!({}));
    rows.push(row(
        "Mcp-Method missing",
        &b,
        without_header(h, "Mcp-Method"),
        err(400, -32020, 20),
    ));
    let (b, h) = std_req(json!(21), "tools/list", json!({}));
    rows.push(row(
        "Mcp-Method mismatched",
        &b,
        with_header(h, "Mcp-Method", "prompts/list"),
        err(400, -32020, 21),
    ));
    let (b, h) = std_req(json!(22), "tools/list", json!({}));
    rows.push(row(
        "Mcp-Method wrong case",
        &b,
        with_header(h, "Mcp-Method", "TOOLS/LIST"),
        err(400, -32020, 22),
    ));
    let (b, h) = std_req(json!(23), "tools/list", json!({}));
    rows.push(row(
        "header names are case-insensitive",
        &b,
        with_header(without_header(h, "Mcp-Method"), "mcp-method", "tools/list"),
        Expect::Ok,
    ));

    // --- Mcp-Name for the three named methods (400 / -32020), trimming and base64. ---
    for (i, (label, (b, h))) in [
        ("tools/call", call_echo(json!(30))),
        ("prompts/get", get_greet(json!(31))),
        ("resources/read", read_static(json!(32))),
    ]
    .into_iter()
    .enumerate()
    {
        let id = b["id"].clone();
        rows.push(row(
            &format!("Mcp-Name missing for {label}"),
            &b,
            without_header(h.clone(), "Mcp-Name"),
            err(400, -32020, id.clone()),
        ));
        rows.push(row(
            &format!("Mcp-Name mismatched for {label}"),
            &b,
            with_header(h.clone(), "Mcp-Name", "something-else"),
            err(400, -32020, id.clone()),
        ));
        let name = h.iter().find(|(n, _)| n == "Mcp-Name").unwrap().1.clone();
        let mut padded = b.clone();
        padded["id"] = json!(40 + i);
        rows.push(row(
            &format!("padded Mcp-Name accepted for {label}"),
            &padded,
            with_header(h.clone(), "Mcp-Name", &format!("  {name}\t")),
            Expect::Ok,
        ));
        let mut encoded = b.clone();
        encoded["id"] = json!(50 + i);
        rows.push(row(
            &format!("base64 sentinel Mcp-Name decoded for {label}"),
            &encoded,
            with_header(h.clone(), "Mcp-Name", &sentinel(&name)),
            Expect::Ok,
        ));
        rows.push(row(
            &format!("sentinel of another value for {label}"),
            &b,
            with_header(h, "Mcp-Name", &sentinel("other")),
            err(400, -32020, id),
        ));
    }
    let (b, h) = std_req(
        json!(60),
        "resources/read",
        json!({"uri": "test://items/café au lait"}),
    );
    rows.push(row(
        "non-ASCII Mcp-Name sent as a sentinel",
        &b,
        with_header(h, "Mcp-Name", &sentinel("test://items/café au lait")),
        Expect::Ok,
    ));
    let (b, h) = std_req(json!(63), "tools/list", json!({}));
    rows.push(row(
        "Mcp-Name on a method without a name is ignored",
        &b,
        with_header(h, "Mcp-Name", "whatever"),
        Expect::Ok,
    ));
    let (b, h) = call_echo(json!(64));
    rows.push(row(
        "raw non-ASCII bytes in Mcp-Name",
        &b,
        with_header(h, "Mcp-Name", "échο"),
        err(400, -32020, 64),
    ));
    let (b, mut h) = std_req(json!(65), "tools/list", json!({}));
    h.push(("Mcp-Method".into(), "tools/list".into()));
    rows.push(row("Mcp-Method given twice", &b, h, err(400, -32020, 65)));
    let body =
        json!({"jsonrpc": "2.0", "id": 66, "method": "tools/call", "params": {"name": "echo"}});
    rows.push(row(
        "missing _meta is reported before missing headers",
        &body,
        vec![
            ("Content-Type".into(), "application/json".into()),
            ("MCP-Protocol-Version".into(), VERSION.into()),
        ],
        err(400, -32602, 66),
    ));
    // Neither a version header nor `_meta`: a 2025-11-25 request, which needs a session.
    rows.push(row(
        "no version anywhere: a legacy request without a session",
        &body,
        vec![("Content-Type".into(), "application/json".into())],
        err(400, -32600, 66),
    ));
    let (b, h) = call_echo(json!(61));
    rows.push(row(
        "invalid base64 in the sentinel",
        &b,
        with_header(h, "Mcp-Name", "=?base64?not base64!?="),
        err(400, -32020, 61),
    ));
    let (b, h) = call_echo(json!(62));
    rows.push(row(
        "sentinel that is not UTF-8",
        &b,
        with_header(h, "Mcp-Name", "=?base64?/w==?="),
        err(400, -32020, 62),
    ));

    // --- Version, methods, capabilities. ---
    let (b, h) = meta_req(json!(70), "tools/list", |m| {
        m.insert(
            "io.modelcontextprotocol/protocolVersion".into(),
            json!("v999.0.0"),
        );
    });
    rows.push(row(
        "unsupported version",
        &b,
        with_header(h, "MCP-Protocol-Version", "v999.0.0"),
        err(400, -32022, 70),
    ));
    let (b, h) = std_req(json!(71), "foo/bar", json!({}));
    rows.push(row("unknown method", &b, h, err(404, -32601, 71)));
    for (i, (method, params)) in [
        ("initialize", json!({"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}})),
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
        ("resources/subscribe", json!({"uri": "test://static"})),
        ("resources/unsubscribe", json!({"uri": "test://static"})),
        ("tasks/list", json!({})),
    ]
    .into_iter()
    .enumerate()
    {
        let (b, h) = std_req(json!(format!("removed-{i}")), method, params);
        rows.push(row(&format!("removed method {method}"), &b, h, err(404, -32601, format!("removed-{i}"))));
    }
    let (b, h) = std_req(
        json!(80),
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}}),
    );
    rows.push(row(
        "capability not advertised: completions",
        &b,
        h,
        err(404, -32601, 80),
    ));
    let (b, h) = std_req(
        json!(81),
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    rows.push(row(
        "capability not advertised: subscriptions/listen",
        &b,
        h,
        err(404, -32601, 81),
    ));

    // --- Framing (400, -32700 / -32600). ---
    let (_, h) = std_req(json!(0), "tools/list", json!({}));
    rows.push(raw_row(
        "malformed JSON",
        br#"{"jsonrpc": "2.0", "id": 90, "method": "#,
        h.clone(),
        err_no_id(400, -32700),
    ));
    rows.push(raw_row(
        "empty body",
        b"",
        h.clone(),
        err_no_id(400, -32700),
    ));
    let batch = json!([request(json!(91), "tools/list", json!({}))]);
    rows.push(row(
        "batch array",
        &batch,
        h.clone(),
        err_no_id(400, -32600),
    ));
    rows.push(row(
        "a JSON string",
        &json!("tools/list"),
        h.clone(),
        err_no_id(400, -32600),
    ));
    let response = json!({"jsonrpc": "2.0", "id": 92, "result": {"resultType": "complete"}});
    rows.push(row(
        "JSON-RPC result response posted",
        &response,
        h.clone(),
        err(400, -32600, 92),
    ));
    let response = json!({"jsonrpc": "2.0", "id": 93, "error": {"code": -32603, "message": "x"}});
    rows.push(row(
        "JSON-RPC error response posted",
        &response,
        h.clone(),
        err(400, -32600, 93),
    ));
    let mut null_id = request(json!(0), "tools/list", json!({}));
    null_id["id"] = Value::Null;
    rows.push(row("id null", &null_id, h.clone(), err_no_id(400, -32600)));
    let mut float_id = request(json!(0), "tools/list", json!({}));
    float_id["id"] = json!(1.5);
    rows.push(row(
        "id neither string nor integer",
        &float_id,
        h.clone(),
        err_no_id(400, -32600),
    ));
    let mut old = request(json!(94), "tools/list", json!({}));
    old["jsonrpc"] = json!("1.0");
    rows.push(row(
        "jsonrpc is not 2.0",
        &old,
        h.clone(),
        err(400, -32600, 94),
    ));
    let mut no_method = request(json!(95), "tools/list", json!({}));
    no_method.as_object_mut().unwrap().remove("method");
    rows.push(row(
        "method missing",
        &no_method,
        h.clone(),
        err(400, -32600, 95),
    ));

    // --- Notifications: 202, empty body; header rules are not applied to them. ---
    let cancelled = notification("notifications/cancelled", json!({"requestId": 1}));
    rows.push(row(
        "notification",
        &cancelled,
        headers_for(&cancelled),
        Expect::Empty(202),
    ));
    rows.push(row(
        "notification with the version header only",
        &cancelled,
        vec![
            ("Content-Type".into(), "application/json".into()),
            ("MCP-Protocol-Version".into(), VERSION.into()),
        ],
        Expect::Empty(202),
    ));
    // Without one, it is a 2025-11-25 notification, which needs a session.
    rows.push(row(
        "notification without MCP headers",
        &cancelled,
        vec![("Content-Type".into(), "application/json".into())],
        err_no_id(400, -32600),
    ));

    // --- HTTP methods and session headers. ---
    let (b, h) = std_req(json!(100), "tools/list", json!({}));
    for m in [Method::GET, Method::DELETE, Method::PUT] {
        let mut r = row(
            &format!("{m} is not allowed"),
            &b,
            h.clone(),
            Expect::Empty(405),
        );
        r.method = m.clone();
        if m == Method::GET {
            r.body.clear();
        }
        rows.push(r);
    }
    let (b, h) = std_req(json!(101), "tools/list", json!({}));
    let h = with_header(
        with_header(h, "Mcp-Session-Id", "session-123"),
        "Last-Event-ID",
        "event-7",
    );
    rows.push(row(
        "Mcp-Session-Id and Last-Event-ID ignored",
        &b,
        h,
        Expect::Ok,
    ));

    // --- Origin and Host (DNS rebinding protection). ---
    let (b, h) = std_req(json!(110), "server/discover", json!({}));
    for origin in [
        "http://evil.example.com",
        "https://localhost.evil.example.com",
        "null",
        "http://127.0.0.1.nip.io:8080",
    ] {
        rows.push(row(
            &format!("Origin {origin} refused"),
            &b,
            with_header(h.clone(), "Origin", origin),
            Expect::Refused(403),
        ));
    }
    for host in [
        "evil.example.com",
        &format!("evil.example.com:{port}"),
        "localhost.evil.example.com",
        "127.0.0.2",
    ] {
        rows.push(row(
            &format!("Host {host} refused"),
            &b,
            with_header(h.clone(), "Host", host),
            Expect::Refused(403),
        ));
    }
    for (i, host) in [
        "localhost",
        &format!("localhost:{port}"),
        "127.0.0.1",
        &format!("127.0.0.1:{port}"),
        "[::1]",
        &format!("[::1]:{port}"),
        "LOCALHOST",
    ]
    .into_iter()
    .enumerate()
    {
        let (b, h) = std_req(json!(120 + i), "server/discover", json!({}));
        rows.push(row(
            &format!("Host {host} accepted"),
            &b,
            with_header(h, "Host", host),
            Expect::Ok,
        ));
    }
    for (i, origin) in [
        "http://localhost",
        "http://localhost:3000",
        "https://127.0.0.1:8443",
        "http://127.0.0.1",
        "http://[::1]",
        "http://[::1]:9000",
    ]
    .into_iter()
    .enumerate()
    {
        let (b, h) = std_req(json!(130 + i), "server/discover", json!({}));
        rows.push(row(
            &format!("Origin {origin} accepted"),
            &b,
            with_header(h, "Origin", origin),
            Expect::Ok,
        ));
    }

    // --- Content-Type and Accept. ---
    let (b, h) = std_req(json!(140), "tools/list", json!({}));
    rows.push(row(
        "Content-Type text/plain",
        &b,
        with_header(h.clone(), "Content-Type", "text/plain"),
        err_no_id(415, -32600),
    ));
    rows.push(row(
        "Content-Type form",
        &b,
        with_header(
            h.clone(),
            "Content-Type",
            "application/x-www-form-urlencoded",
        ),
        err_no_id(415, -32600),
    ));
    let (b, h) = std_req(json!(141), "tools/list", json!({}));
    rows.push(row(
        "Content-Type with charset accepted",
        &b,
        with_header(h, "Content-Type", "application/json; charset=utf-8"),
        Expect::Ok,
    ));
    let (b, h) = std_req(json!(142), "tools/list", json!({}));
    rows.push(row(
        "Accept excludes json and sse",
        &b,
        with_header(h.clone(), "Accept", "text/html"),
        err_no_id(406, -32600),
    ));
    rows.push(row(
        "Accept refuses both with q=0",
        &b,
        with_header(h, "Accept", "application/json;q=0, text/event-stream;q=0"),
        err_no_id(406, -32600),
    ));
    let (b, h) = std_req(json!(143), "tools/list", json!({}));
    rows.push(row(
        "Accept application/json only",
        &b,
        with_header(h, "Accept", "application/json"),
        Expect::Ok,
    ));
    let (b, h) = std_req(json!(144), "tools/list", json!({}));
    rows.push(row(
        "Accept text/event-stream only",
        &b,
        with_header(h, "Accept", "text/event-stream"),
        Expect::Ok,
    ));
    rows
}

async fn run_row(url: &str, r: &Row) -> Result<(), String> {
    let resp = send(r.method.clone(), url, &r.headers, r.body.clone()).await;
    let status = resp.status.as_u16();
    let fail = |what: String| {
        Err(format!(
            "{what} (status {status}, body {})",
            String::from_utf8_lossy(&resp.body)
        ))
    };
    match &r.expect {
        Expect::Refused(want) => {
            if status != *want {
                return fail(format!("expected status {want}"));
            }
        }
        Expect::Empty(want) => {
            if status != *want {
                return fail(format!("expected status {want}"));
            }
            if !resp.body.is_empty() {
                return fail("expected an empty body".into());
            }
            if *want == 405 && resp.header("allow") != Some("POST") {
                return fail("405 without `Allow: POST`".into());
            }
        }
        Expect::Ok => {
            if status != 200 {
                return fail("expected 200".into());
            }
            common::validate_answer(&r.rpc_method, &resp);
            let answer = common::response_of(&resp);
            let sent: Value = serde_json::from_slice(&r.body).unwrap();
            if answer.get("result").is_none() || answer["id"] != sent["id"] {
                return fail(format!("expected a result for id {}", sent["id"]));
            }
            if resp.headers.contains_key("mcp-session-id") {
                return fail("the server minted an Mcp-Session-Id".into());
            }
        }
        Expect::Error(want_status, code, id) => {
            if status != *want_status {
                return fail(format!("expected status {want_status}"));
            }
            if resp.content_type() != "application/json" {
                return fail("expected an application/json error body".into());
            }
            let body = resp.json();
            common::assert_response_valid(&r.rpc_method, &body);
            if body["error"]["code"] != *code {
                return fail(format!("expected code {code}"));
            }
            match id {
                Some(id) if body.get("id") != Some(id) => return fail(format!("expected id {id}")),
                None if body.get("id").is_some() => return fail("expected no id".into()),
                _ => {}
            }
            if *code == -32022 {
                let data = &body["error"]["data"];
                if data["supported"] != json!([VERSION]) || !data["requested"].is_string() {
                    return fail("-32022 without data.supported/requested".into());
                }
            }
        }
    }
    Ok(())
}

#[tokio::test]
async fn every_error_path_of_the_pipeline() {
    let http = spawn_http(pipeline_server()).await;
    let url = http.url();
    let rows = table(http.addr.port());
    let mut failures = Vec::new();
    for r in &rows {
        if let Err(e) = run_row(&url, r).await {
            failures.push(format!("{}: {e}", r.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n  {}",
        failures.len(),
        rows.len(),
        failures.join("\n  ")
    );
}

/// Well-formed `tools/call` bodies written in every way the wire allows: each must be read by the
/// one-pass reader, and read exactly as the general reader reads it.
fn tool_call_variants() -> Vec<Vec<u8>> {
    let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{},"elicitation":{"form":{}}},"progressToken":"p-1","io.modelcontextprotocol/logLevel":"info","traceparent":"00-1-2-01"}"#;
    let calls = [
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},"_meta":{meta}}}}}"#),
        // Keys in another order, `_meta` first, `method` last.
        format!(r#"{{"params":{{"_meta":{meta},"arguments":{{"text":"hi"}},"name":"echo"}},"id":"a-1","jsonrpc":"2.0","method":"tools/call"}}"#),
        // Whitespace everywhere.
        format!("{{ \"jsonrpc\" : \"2.0\" ,\n \"id\" : -7 , \"method\" : \"tools/call\" ,\t\"params\" : {{ \"name\" : \"echo\" , \"arguments\" : {{ \"text\" : \"a b\" }} , \"_meta\" : {meta} }} }}"),
        // Escapes in the name, the arguments, the id and `_meta`.
        format!(r#"{{"jsonrpc":"2.0","id":"\u0061","method":"tools/call","params":{{"name":"\u0065cho","arguments":{{"text":"\"quoted\" \u00e9"}},"_meta":{meta}}}}}"#),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c\u00e9","version":"1"}}}}"#.to_owned(),
        // No arguments, null arguments, arguments that are no object (refused later, read alike).
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"work","_meta":{meta}}}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"work","arguments":null,"_meta":{meta}}}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"echo","arguments":[1,2],"_meta":{meta}}}}}"#),
        // A retry: answers by key (a duplicate key: the last wins) and a state.
        format!(r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},"inputResponses":{{"goal":{{"action":"accept","content":{{"value":"x"}}}},"roots":{{"roots":[]}},"goal":{{"action":"cancel"}}}},"requestState":"v1.abc","_meta":{meta}}}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},"inputResponses":null,"_meta":{meta}}}}}"#),
        // Members this revision does not define are ignored by both.
        format!(r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","extra":[1,{{"a":null}}],"params":{{"name":"echo","task":{{"ttl":1}},"arguments":{{}},"_meta":{meta}}}}}"#),
        // No `_meta` (refused later, read alike).
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo"}}"#.to_owned(),
    ];
    calls.into_iter().map(String::into_bytes).collect()
}

/// The one-pass `tools/call` reader and the general reader read every body of the error table
/// and every well-formed variant the same way; the one-pass reader declines whatever it does not
/// read (a malformed body, another method), which the general reader then reports.
#[test]
fn both_request_readers_read_every_body_alike() {
    let variants = tool_call_variants();
    let table_bodies: Vec<Vec<u8>> = table(8000).into_iter().map(|r| r.body).collect();
    let mut read_by_both = 0;
    for body in variants.iter().chain(&table_bodies) {
        let text = String::from_utf8_lossy(body);
        let (fast, general) = mcp_runtime::__private::decode_with_both_readers(body);
        match fast {
            Some(fast) => {
                read_by_both += 1;
                assert_eq!(Ok(fast), general, "the readers differ on {text}");
            }
            None => assert!(
                !variants.contains(body),
                "the one-pass reader declined a well-formed call: {text}"
            ),
        }
    }
    // Every variant, and the well-formed calls of the table.
    assert!(
        read_by_both > variants.len() + 5,
        "only {read_by_both} bodies were read by both readers"
    );
    // Malformations the one-pass reader must leave to the general one (which reports them).
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["echo"]}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":5,"name":"echo"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","inputResponses":[1]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e"},"result":{}}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"e"}}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"e"}}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"e"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e"}"#,
    ] {
        let (fast, general) = mcp_runtime::__private::decode_with_both_readers(body.as_bytes());
        assert_eq!(fast, None, "the one-pass reader read {body}");
        let general = general.unwrap_or_else(|e| e);
        assert!(
            general.contains("-32700")
                || general.contains("-32600")
                || general.contains("-32602")
                || general.contains("Malformed"),
            "the general reader let {body} through as {general}"
        );
    }
}

#[tokio::test]
async fn oversized_body_is_413() {
    let http = spawn_http_with(pipeline_server(), HttpOptions::default().body_limit(1024)).await;
    let url = http.url();
    let big = "x".repeat(4096);
    let body = request(
        json!(1),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": big}}),
    );
    let resp = post(
        &url,
        &headers_for(&body),
        serde_json::to_vec(&body).unwrap(),
    )
    .await;
    assert_eq!(resp.status, 413);
    let err = resp.json();
    common::assert_response_valid("tools/call", &err);
    assert_eq!(err["error"]["code"], -32600);
    assert!(
        err.get("id").is_none(),
        "the body was not read, so no id: {err}"
    );

    let small = request(
        json!(2),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "ok"}}),
    );
    let resp = call(&url, &small).await;
    assert_eq!(resp.status, 200, "a body within the limit is served");
}

/// Sends `chunks` as a chunked body over a raw connection (each chunk written on its own, so the
/// server sees several frames) and returns the raw response.
async fn post_chunked(
    addr: std::net::SocketAddr,
    headers: &[(String, String)],
    chunks: &[&[u8]],
) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let mut head = String::from(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n",
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.expect("write head");
    for chunk in chunks {
        let mut frame = format!("{:x}\r\n", chunk.len()).into_bytes();
        frame.extend_from_slice(chunk);
        frame.extend_from_slice(b"\r\n");
        stream.write_all(&frame).await.expect("write chunk");
        stream.flush().await.expect("flush");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    stream.write_all(b"0\r\n\r\n").await.expect("write end");
    let mut out = Vec::new();
    common::within("the chunked response", stream.read_to_end(&mut out))
        .await
        .expect("read");
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn chunked_bodies_are_read_whole_and_limited() {
    let http = spawn_http_with(pipeline_server(), HttpOptions::default().body_limit(1024)).await;
    let body = request(
        json!(3),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "in pieces"}}),
    );
    let bytes = serde_json::to_vec(&body).unwrap();
    let headers: Vec<(String, String)> = headers_for(&body)
        .into_iter()
        .filter(|(n, _)| !n.eq_ignore_ascii_case("content-length"))
        .collect();
    let (a, rest) = bytes.split_at(10);
    let (b, c) = rest.split_at(rest.len() / 2);
    let resp = post_chunked(http.addr, &headers, &[a, b, c]).await;
    assert!(resp.starts_with("HTTP/1.1 200"), "{resp}");
    assert!(resp.contains("in pieces"), "{resp}");

    // No Content-Length to refuse up front: the limit applies while reading.
    let big = vec![b' '; 700];
    let resp = post_chunked(http.addr, &headers, &[&big, &big]).await;
    assert!(resp.starts_with("HTTP/1.1 413"), "{resp}");
}

#[tokio::test]
async fn configured_hosts_and_origins_are_allowed() {
    let options = HttpOptions::default()
        .allow_host("mcp.example.com")
        .allow_origin("https://app.example.com");
    let http = spawn_http_with(pipeline_server(), options).await;
    let url = http.url();
    let body = request(json!(1), "server/discover", json!({}));
    let h = headers_for(&body);
    let ok = call_with(
        &url,
        &body,
        with_header(h.clone(), "Host", "mcp.example.com"),
    )
    .await;
    assert_eq!(ok.status, 200);
    let ok = call_with(
        &url,
        &body,
        with_header(h.clone(), "Origin", "https://app.example.com"),
    )
    .await;
    assert_eq!(ok.status, 200);
    let refused = post(
        &url,
        &with_header(h.clone(), "Origin", "https://other.example.com"),
        serde_json::to_vec(&body).unwrap(),
    )
    .await;
    assert_eq!(refused.status, 403);
    let refused = post(
        &url,
        &with_header(h, "Host", "other.example.com"),
        serde_json::to_vec(&body).unwrap(),
    )
    .await;
    assert_eq!(refused.status, 403);
}

#[tokio::test]
async fn unknown_tool_and_invalid_cursor_are_invalid_params() {
    let http = spawn_http(pipeline_server()).await;
    let url = http.url();
    let body = request(
        json!("t"),
        "tools/call",
        json!({"name": "nope", "arguments": {}}),
    );
    let resp = call(&url, &body).await;
    assert_eq!(resp.status, 200);
    let err = resp.json();
    assert_eq!(err["error"]["code"], -32602);
    assert_eq!(err["id"], "t");

    for (i, method) in [
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
    ]
    .into_iter()
    .enumerate()
    {
        for cursor in ["not a cursor!", "", "dG9vbHMKbm9uZQ"] {
            let body = request(json!(i), method, json!({"cursor": cursor}));
            let resp = call(&url, &body).await;
            let err = resp.json();
            assert_eq!(
                err["error"]["code"], -32602,
                "{method} cursor {cursor:?}: {err}"
            );
            assert_eq!(err["id"], i);
        }
    }

    let body = request(
        json!("r"),
        "resources/read",
        json!({"uri": "test://missing"}),
    );
    let err = call(&url, &body).await.json();
    assert_eq!(err["error"]["code"], -32602);
    assert_eq!(err["error"]["data"]["uri"], "test://missing");
}

#[tokio::test]
async fn pagination_walks_every_page_with_opaque_cursors() {
    let mut builder =
        Server::builder()
            .page_size(2)
            .cache(CacheTarget::ToolsList, 1234, CacheScope::Private);
    let names: Vec<String> = (1..=5).map(|i| format!("tool_{i}")).collect();
    for name in &names {
        builder = builder.tool(
            Tool::new(name.clone())
                .description("One of five.")
                .handler(|_: NoArgs, _cx| async { "ok" }),
        );
    }
    builder = builder.prompt(
        Prompt::new("p")
            .description("A prompt.")
            .handler(|_| async { "p".to_owned() }),
    );
    let http = spawn_http(builder.build().expect("valid server")).await;
    let url = http.url();

    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    let mut cursors = Vec::new();
    loop {
        let params = match &cursor {
            None => json!({}),
            Some(c) => json!({"cursor": c}),
        };
        let resp = call(&url, &request(json!(pages), "tools/list", params)).await;
        assert_eq!(resp.status, 200);
        let result = resp.json()["result"].clone();
        pages += 1;
        assert_eq!(
            result["cacheScope"], "private",
            "same cacheScope on every page"
        );
        assert_eq!(result["ttlMs"], 1234, "per-list caching hint");
        let tools = result["tools"].as_array().unwrap();
        assert!(tools.len() <= 2, "page size 2");
        seen.extend(tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()));
        match result.get("nextCursor") {
            None => break,
            Some(c) => {
                let c = c.as_str().expect("nextCursor is a string").to_owned();
                assert!(!c.is_empty());
                assert!(
                    !names.iter().any(|n| c.contains(n.as_str())),
                    "cursor {c} is opaque"
                );
                cursors.push(c.clone());
                cursor = Some(c);
            }
        }
        assert!(pages < 10, "pagination does not end");
    }
    assert_eq!(pages, 3);
    assert_eq!(seen, names, "every tool once, in registration order");

    // A tools cursor is not a prompts cursor.
    let resp = call(
        &url,
        &request(json!("x"), "prompts/list", json!({"cursor": cursors[0]})),
    )
    .await;
    assert_eq!(resp.json()["error"]["code"], -32602);
}

#[tokio::test]
async fn cacheable_results_carry_hints_and_every_result_carries_server_info() {
    let server = Server::builder()
        .name("pipeline")
        .version("0.0.1")
        .tool(
            Tool::new("echo")
                .description("Echoes its text.")
                .handler(|a: EchoArgs, _cx| async move { a.text }),
        )
        .resource(
            Resource::new("test://static", "static")
                .mime_type("text/plain")
                .handler(|_read| async { "static text".to_owned() }),
        )
        .resource(
            Resource::new("test://public", "public")
                .cache(5, CacheScope::Public)
                .handler(|_read| async { "public text".to_owned() }),
        )
        .resource_template(
            ResourceTemplate::new("test://items/{id}", "item")
                .handler(|read| async move { format!("item {}", read.variables["id"]) }),
        )
        .prompt(
            Prompt::new("greet")
                .description("A greeting.")
                .argument("name", Some("Who to greet"), true)
                .complete("name", Completer::from_values(["Ada", "Alan", "Grace"]))
                .handler(|get| async move { format!("Say hello to {}.", get.arguments["name"]) }),
        )
        .build()
        .expect("valid server");
    let http = spawn_http(server).await;
    let url = http.url();
    let info = json!({"name": "pipeline", "version": "0.0.1"});

    let cacheable = [
        ("server/discover", json!({}), None),
        ("tools/list", json!({}), None),
        ("resources/list", json!({}), None),
        ("resources/templates/list", json!({}), None),
        ("prompts/list", json!({}), None),
        // No freshness unless declared: stale at once, and private.
        (
            "resources/read",
            json!({"uri": "test://static"}),
            Some((0, "private")),
        ),
        ("tools/list", json!({}), Some((0, "public"))),
        (
            "resources/read",
            json!({"uri": "test://public"}),
            Some((5, "public")),
        ),
        ("resources/read", json!({"uri": "test://items/7"}), None),
    ];
    for (i, (method, params, hint)) in cacheable.into_iter().enumerate() {
        let resp = call(&url, &request(json!(i), method, params)).await;
        assert_eq!(resp.status, 200, "{method}");
        let result = resp.json()["result"].clone();
        assert!(
            result["ttlMs"].is_u64(),
            "{method}: ttlMs is an integer >= 0: {result}"
        );
        assert!(
            matches!(result["cacheScope"].as_str(), Some("public" | "private")),
            "{method}: cacheScope: {result}"
        );
        if let Some((ttl, scope)) = hint {
            assert_eq!(result["ttlMs"], ttl, "{method}");
            assert_eq!(result["cacheScope"], scope, "{method}");
        }
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"], info,
            "{method}"
        );
    }
    let others = [
        (
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "x"}}),
        ),
        (
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}}),
        ),
    ];
    for (i, (method, params)) in others.into_iter().enumerate() {
        let resp = call(&url, &request(json!(100 + i), method, params)).await;
        assert_eq!(resp.status, 200, "{method}");
        let result = resp.json()["result"].clone();
        assert_eq!(result["resultType"], "complete", "{method}");
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"], info,
            "{method}"
        );
        if method == "completion/complete" {
            assert_eq!(result["completion"]["values"], json!(["Ada", "Alan"]));
        }
    }
}

fn progress_request(id: Value, token: Option<&str>) -> Value {
    let mut m = meta();
    if let Some(t) = token {
        m["progressToken"] = json!(t);
    }
    request(
        id,
        "tools/call",
        json!({"name": "work", "arguments": {}, "_meta": m}),
    )
}

fn assert_progress_stream(resp: &HttpResponse, id: &Value, token: &str) {
    assert_eq!(resp.status, 200);
    assert_eq!(resp.content_type(), "text/event-stream");
    assert_eq!(resp.header("x-accel-buffering"), Some("no"));
    let messages = resp.messages();
    assert_eq!(
        messages.len(),
        4,
        "three notifications then the result: {messages:?}"
    );
    let mut last = f64::NEG_INFINITY;
    for n in &messages[..3] {
        assert_eq!(n["method"], "notifications/progress");
        assert_eq!(n["params"]["progressToken"], token);
        let p = n["params"]["progress"].as_f64().unwrap();
        assert!(p > last, "progress strictly increases");
        last = p;
        assert_eq!(n["params"]["total"], 3);
    }
    assert_eq!(messages[3]["id"], *id);
    assert_eq!(messages[3]["result"]["content"][0]["text"], "done");
}

#[tokio::test]
async fn progress_streams_sse_only_when_asked() {
    let http = spawn_http(pipeline_server()).await;
    let url = http.url();

    let body = progress_request(json!("p1"), Some("tok-1"));
    let resp = call(&url, &body).await;
    assert_progress_stream(&resp, &json!("p1"), "tok-1");

    let body = progress_request(json!("p2"), None);
    let resp = call(&url, &body).await;
    assert_eq!(resp.status, 200);
    assert_eq!(
        resp.content_type(),
        "application/json",
        "no progressToken: plain JSON"
    );
    assert_eq!(resp.json()["result"]["content"][0]["text"], "done");

    // A client that accepts JSON only gets JSON, without the notifications.
    let body = progress_request(json!("p3"), Some("tok-3"));
    let resp = call_with(
        &url,
        &body,
        with_header(headers_for(&body), "Accept", "application/json"),
    )
    .await;
    assert_eq!(resp.content_type(), "application/json");
    assert_eq!(resp.json()["id"], "p3");

    // Concurrent streams do not mix.
    let (ra, rb) = (
        progress_request(json!("pa"), Some("tok-a")),
        progress_request(json!("pb"), Some("tok-b")),
    );
    let (a, b) = tokio::join!(call(&url, &ra), call(&url, &rb));
    assert_progress_stream(&a, &json!("pa"), "tok-a");
    assert_progress_stream(&b, &json!("pb"), "tok-b");
}

#[tokio::test]
async fn the_health_endpoint_follows_its_readiness_checks() {
    let up = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let check = up.clone();
    let options = HttpOptions::default().health("health").ready_when(move || {
        let up = check.load(std::sync::atomic::Ordering::SeqCst);
        Box::pin(async move { up })
    });
    let http = common::spawn_http_with(pipeline_server(), options).await;
    let url = format!("http://{}/health", http.addr);
    let resp = common::send(Method::GET, &url, &[], "").await;
    assert_eq!(resp.status, http::StatusCode::OK);
    up.store(false, std::sync::atomic::Ordering::SeqCst);
    // An answer is kept for a second: a client polling as fast as it can makes one round of
    // checks a second.
    let resp = common::send(Method::GET, &url, &[], "").await;
    assert_eq!(resp.status, http::StatusCode::OK);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let resp = common::send(Method::GET, &url, &[], "").await;
    assert_eq!(resp.status, http::StatusCode::SERVICE_UNAVAILABLE);
    // Not behind the DNS-rebinding guard: load balancers ask by the instance's address, and
    // the answer tells nothing else.
    let by_address = vec![("Host".to_owned(), "10.0.3.7:8000".to_owned())];
    let resp = common::send(Method::GET, &url, &by_address, "").await;
    assert_eq!(resp.status, http::StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(&resp.body[..], br#"{"status":"not ready"}"#);
}

#[tokio::test]
async fn a_health_path_the_endpoint_takes_is_refused_when_serving() {
    for (path, said) in [
        ("/mcp", "the MCP endpoint's"),
        ("/.well-known/ready", "/.well-known/"),
    ] {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let err = pipeline_server()
            .serve_until(listener, HttpOptions::default().health(path), async {})
            .await
            .unwrap_err();
        assert!(matches!(err, mcp_runtime::Error::Usage(_)), "{err}");
        let text = err.to_string();
        assert!(text.contains(path) && text.contains(said), "{text}");
    }
    // A router for an app of its own leaves the path out: the endpoint still answers there.
    let router = pipeline_server().into_router(HttpOptions::default().health("/mcp"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router.into_make_service()).await });
    let resp = common::send(Method::GET, &format!("http://{addr}/mcp"), &[], "").await;
    assert_ne!(
        resp.status,
        http::StatusCode::OK,
        "GET /mcp is not a health check"
    );
}

/// Reads one HTTP/1.1 response (head and `Content-Length` body) from `stream`.
async fn read_response(stream: &mut tokio::net::TcpStream) -> (String, String) {
    use tokio::io::AsyncReadExt;
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        let n = common::within("a response head", stream.read(&mut byte))
            .await
            .expect("read");
        assert_eq!(n, 1, "the connection closed mid-head: {buf:?}");
        buf.push(byte[0]);
    }
    let head = String::from_utf8(buf).expect("an ASCII head");
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .expect("a content-length")
        .trim()
        .parse()
        .expect("a length");
    let mut body = vec![0u8; length];
    common::within("a response body", stream.read_exact(&mut body))
        .await
        .expect("read body");
    (head, String::from_utf8(body).expect("a UTF-8 body"))
}

/// The response's header map is the request's, emptied (it saves the map's allocation): no
/// request header may come back, neither on the first request of a connection nor on the next
/// ones, whose maps hyper parses into the previous response's.
#[tokio::test]
async fn no_request_header_comes_back_in_a_response() {
    use tokio::io::AsyncWriteExt;
    let http = spawn_http(pipeline_server()).await;
    let mut stream = tokio::net::TcpStream::connect(http.addr)
        .await
        .expect("connect");
    for (n, secret) in [
        (1, Some("s3cret-one")),
        (2, None),
        (3, Some("s3cret-three")),
    ] {
        let body = request(
            json!(n),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        );
        let bytes = serde_json::to_vec(&body).unwrap();
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n",
            bytes.len()
        );
        for (name, value) in headers_for(&body) {
            if !name.eq_ignore_ascii_case("content-length") {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
        }
        if let Some(secret) = secret {
            head.push_str(&format!(
                "X-Secret: {secret}\r\nCookie: session={secret}\r\n"
            ));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).await.expect("write head");
        stream.write_all(&bytes).await.expect("write body");
        let (head, body) = read_response(&mut stream).await;
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(body.contains(&format!("\"id\":{n}")), "{body}");
        let names: Vec<&str> = head
            .lines()
            .skip(1)
            .filter_map(|l| l.split_once(':').map(|(name, _)| name))
            .collect();
        assert_eq!(
            names,
            ["content-type", "content-length", "date"],
            "request {n}: {head}"
        );
        assert!(!head.contains("s3cret"), "request {n}: {head}");
    }
}

/// A streamed answer reuses the request's map too: only its own headers go out.
#[tokio::test]
async fn no_request_header_comes_back_in_a_stream() {
    let http = spawn_http(pipeline_server()).await;
    let body = progress_request(json!("s1"), Some("tok-s"));
    let headers = with_header(headers_for(&body), "X-Secret", "s3cret-stream");
    let resp = call_with(&http.url(), &body, headers).await;
    assert_progress_stream(&resp, &json!("s1"), "tok-s");
    let mut names: Vec<&str> = resp.headers.keys().map(|n| n.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "cache-control",
            "content-type",
            "date",
            "transfer-encoding",
            "x-accel-buffering"
        ],
        "{:?}",
        resp.headers
    );
}
