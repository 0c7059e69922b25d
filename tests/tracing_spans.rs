//! The `tracing` spans and events of requests, captured by a test subscriber: names, fields of
//! the OpenTelemetry semantic conventions for MCP, parent/child links, for a tools/call, an MRTR
//! exchange, failed and rejected requests, a `traceparent` in `_meta`, and payloads only when
//! opted in. `network.transport` of each transport, in both revisions.

mod common;

use capture::{SpanRecord, Spans};
use common::capture;
use mcp_runtime::protocol::{CallToolResult, Content};
use mcp_runtime::{
    Ask, Elicitation, NoArguments, RequestContext, Rounds, Server, Step, Tool, handler::ToolOutcome,
};
use serde_json::{Value, json};

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    })
}

fn body(id: Value, method: &str, mut params: Value) -> Vec<u8> {
    if params.get("_meta").is_none() {
        params["_meta"] = meta();
    }
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .unwrap()
}

async fn send(server: &Server, body: Vec<u8>) -> Value {
    let call = server.handle_message(&body, None).expect("a request");
    serde_json::from_slice(&call.response().await.body).unwrap()
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

fn server() -> mcp_runtime::ServerBuilder {
    Server::builder()
        .tool(
            Tool::new("add").handler(|args: AddArgs, _cx: RequestContext| async move {
                tracing::info!(a = args.a, "adding");
                args.a + args.b
            }),
        )
        .tool(Tool::new("fail").handler(|_: NoArguments, _| async {
            CallToolResult::error("the tool could not do it")
        }))
        .tool(Tool::new("wait").handler(|_: NoArguments, _| async {
            tokio::task::yield_now().await;
            tracing::info!("done waiting");
            "waited"
        }))
        .tool(
            Tool::new("wizard").handler(|_: NoArguments, cx: RequestContext| async move {
                use mcp_runtime::FromContext;
                let rounds = Rounds::from_context(&cx)?;
                match rounds.answer::<Elicitation<String>>("name")? {
                    Some(Elicitation::Accepted(name)) => Ok(Step::Done(format!("Hello, {name}"))),
                    Some(_) => Ok(Step::Done("Never mind.".to_owned())),
                    None => rounds.ask(Ask::new().elicit::<String>("name", "Your name?"), &1u32),
                }
            }),
        )
}

fn the_one(spans: &Spans, name: &str) -> SpanRecord {
    let found = spans.named(name);
    assert_eq!(found.len(), 1, "one {name} span: {found:#?}");
    found.into_iter().next().unwrap()
}

#[tokio::test]
async fn a_tools_call_has_a_request_span_and_a_handler_span() {
    let spans = Spans::default();
    let _guard = spans.install();
    let server = server().build().unwrap();
    let args = json!({"name": "add", "arguments": {"a": 40, "b": 2}});
    let answer = send(&server, body(json!(7), "tools/call", args)).await;
    assert_eq!(answer["result"]["content"][0]["text"], "42");

    let request = the_one(&spans, "mcp.request");
    assert_eq!(request.target, "mcp_runtime::request");
    assert_eq!(request.level, tracing::Level::INFO);
    assert_eq!(request.parent, None);
    for (field, value) in [
        ("otel.name", "tools/call add"),
        ("otel.kind", "server"),
        ("mcp.method.name", "tools/call"),
        ("mcp.protocol.version", "2026-07-28"),
        ("jsonrpc.request.id", "7"),
        ("gen_ai.tool.name", "add"),
        ("gen_ai.operation.name", "execute_tool"),
    ] {
        assert_eq!(request.field(field), Some(value), "{field}: {request:#?}");
    }
    let seconds: f64 = request
        .field("mcp.server.operation.duration")
        .expect("the duration is recorded")
        .parse()
        .unwrap();
    assert!(seconds > 0.0 && seconds < 10.0, "{seconds}");
    for absent in [
        "error.type",
        "rpc.response.status_code",
        "otel.status_code",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "network.transport",
        "traceparent",
    ] {
        assert_eq!(request.field(absent), None, "{absent}: {request:#?}");
    }
    assert!(request.closed, "the request span ends with the answer");

    let handler = the_one(&spans, "mcp.handler");
    assert_eq!(handler.parent, Some(request.seq));
    assert_eq!(handler.level, tracing::Level::DEBUG);
    assert_eq!(handler.field("otel.name"), Some("execute_tool add"));
    assert_eq!(handler.field("gen_ai.tool.name"), Some("add"));
    assert!(handler.closed);
    // What the handler logs belongs to its span; the arguments are not on any span.
    let adding = spans.events_saying("adding");
    assert_eq!(adding.len(), 1);
    assert_eq!(adding[0].span, Some(handler.seq));
    // (Durations are digits; argument text would quote the key `"b"`.)
    let quotes_arguments = |v: &String| v.contains(r#""b""#);
    assert!(
        spans
            .spans()
            .iter()
            .all(|s| !s.fields.values().any(quotes_arguments))
    );
    assert!(spans.named("mcp.mrtr.round").is_empty());
}

#[tokio::test]
async fn a_handler_that_waits_runs_in_its_span() {
    let spans = Spans::default();
    let _guard = spans.install();
    let server = server().build().unwrap();
    let answer = send(
        &server,
        body(json!("w-1"), "tools/call", json!({"name": "wait"})),
    )
    .await;
    assert_eq!(answer["result"]["content"][0]["text"], "waited");
    let request = the_one(&spans, "mcp.request");
    assert_eq!(request.field("jsonrpc.request.id"), Some("w-1"));
    let handler = the_one(&spans, "mcp.handler");
    assert_eq!(handler.parent, Some(request.seq));
    let done = spans.events_saying("done waiting");
    assert_eq!(done.len(), 1);
    assert_eq!(
        done[0].span,
        Some(handler.seq),
        "a later poll is in the handler span"
    );
    assert!(request.closed && handler.closed);
}

#[tokio::test]
async fn an_mrtr_exchange_has_a_round_span_per_request() {
    let spans = Spans::default();
    let _guard = spans.install();
    let server = server().build().unwrap();
    let first = send(
        &server,
        body(json!(1), "tools/call", json!({"name": "wizard"})),
    )
    .await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();

    let request = the_one(&spans, "mcp.request");
    let round = the_one(&spans, "mcp.mrtr.round");
    assert_eq!(round.parent, Some(request.seq));
    assert_eq!(round.target, "mcp_runtime::mrtr");
    assert_eq!(round.field("mcp.mrtr.round"), Some("0"));
    assert_eq!(round.field("mcp.mrtr.sealed"), Some("true"));
    assert_eq!(round.field("mcp.mrtr.answers"), None);
    assert_eq!(request.field("error.type"), None, "asking is not failing");
    assert!(round.closed);

    spans.clear();
    let retry = json!({
        "name": "wizard",
        "inputResponses": {"name": {"action": "accept", "content": {"value": "Ada"}}},
        "requestState": state,
    });
    let second = send(&server, body(json!(2), "tools/call", retry)).await;
    assert_eq!(
        second["result"]["content"][0]["text"], "Hello, Ada",
        "{second}"
    );
    let request = the_one(&spans, "mcp.request");
    let round = the_one(&spans, "mcp.mrtr.round");
    assert_eq!(round.parent, Some(request.seq));
    assert_eq!(round.field("mcp.mrtr.round"), Some("1"));
    assert_eq!(round.field("mcp.mrtr.answers"), Some("1"));
    assert_eq!(round.field("mcp.mrtr.sealed"), None, "it did not ask again");
    let handler = the_one(&spans, "mcp.handler");
    assert_eq!(handler.parent, Some(request.seq));
}

#[tokio::test]
async fn failed_calls_record_their_error() {
    let spans = Spans::default();
    let _guard = spans.install();
    let server = server().build().unwrap();

    let unknown = send(
        &server,
        body(json!(1), "tools/call", json!({"name": "nope"})),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602);
    let request = the_one(&spans, "mcp.request");
    assert_eq!(request.field("error.type"), Some("-32602"));
    assert_eq!(request.field("rpc.response.status_code"), Some("-32602"));
    assert_eq!(request.field("otel.status_code"), Some("ERROR"));
    assert_eq!(request.field("gen_ai.tool.name"), Some("nope"));
    assert!(spans.named("mcp.handler").is_empty(), "no handler ran");
    let failed = spans.events_saying("request failed");
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].level, tracing::Level::DEBUG);
    assert_eq!(failed[0].span, Some(request.seq));
    assert_eq!(failed[0].field("rpc.response.status_code"), Some("-32602"));
    assert_eq!(
        failed[0].field("reason"),
        None,
        "reasons may quote arguments: opt-in"
    );

    spans.clear();
    let tool_error = send(
        &server,
        body(json!(2), "tools/call", json!({"name": "fail"})),
    )
    .await;
    assert_eq!(tool_error["result"]["isError"], true);
    let request = the_one(&spans, "mcp.request");
    assert_eq!(request.field("error.type"), Some("tool_error"));
    assert_eq!(request.field("otel.status_code"), Some("ERROR"));
    assert_eq!(
        request.field("rpc.response.status_code"),
        None,
        "a JSON-RPC success"
    );
}

#[tokio::test]
async fn rejected_requests_are_debug_events_with_their_reason() {
    let spans = Spans::default();
    let _guard = spans.install();
    let server = server().build().unwrap();
    let mut old = meta();
    old["io.modelcontextprotocol/protocolVersion"] = json!("2024-11-05");
    let answer = send(
        &server,
        body(json!(5), "tools/call", json!({"name": "add", "_meta": old})),
    )
    .await;
    assert_eq!(answer["error"]["code"], -32022);
    assert!(spans.named("mcp.request").is_empty(), "no method ran");
    let rejected = spans.events_saying("request rejected");
    assert_eq!(rejected.len(), 1, "{:#?}", spans.events());
    let event = &rejected[0];
    assert_eq!(event.level, tracing::Level::DEBUG);
    assert_eq!(event.target, "mcp_runtime::request");
    assert_eq!(event.field("rpc.response.status_code"), Some("-32022"));
    assert_eq!(event.field("mcp.method.name"), Some("tools/call"));
    assert_eq!(event.field("jsonrpc.request.id"), Some("5"));
    let reason = event.field("reason").unwrap();
    assert!(
        reason.contains("Unsupported protocol version `2024-11-05`"),
        "{reason}"
    );

    spans.clear();
    let call = server.handle_message(b"{not json", None).unwrap();
    assert_eq!(call.response().await.error_code(), Some(-32700));
    let rejected = spans.events_saying("request rejected");
    assert_eq!(rejected.len(), 1);
    assert_eq!(
        rejected[0].field("rpc.response.status_code"),
        Some("-32700")
    );
}

#[tokio::test]
async fn a_traceparent_in_meta_is_recorded_with_the_request_span() {
    let spans = Spans::default();
    let _guard = spans.install();
    let server = server().build().unwrap();
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let mut meta = meta();
    meta["traceparent"] = json!(traceparent);
    meta["tracestate"] = json!("rojo=00f067aa0ba902b7");
    let args = json!({"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": meta});
    send(&server, body(json!(1), "tools/call", args)).await;
    let request = the_one(&spans, "mcp.request");
    assert_eq!(request.field("traceparent"), Some(traceparent));

    // An invalid one is ignored: the request starts a new trace.
    spans.clear();
    let mut meta = self::meta();
    meta["traceparent"] = json!("00-00000000000000000000000000000000-00f067aa0ba902b7-01");
    let args = json!({"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": meta});
    send(&server, body(json!(2), "tools/call", args)).await;
    assert_eq!(the_one(&spans, "mcp.request").field("traceparent"), None);
}

#[tokio::test]
async fn payloads_are_recorded_only_when_the_server_opts_in() {
    let spans = Spans::default();
    let _guard = spans.install();
    let server = server().trace_payloads(true).build().unwrap();
    let args = json!({"name": "add", "arguments": {"a": 40, "b": 2}});
    send(&server, body(json!(1), "tools/call", args)).await;
    let request = the_one(&spans, "mcp.request");
    let arguments: Value =
        serde_json::from_str(request.field("gen_ai.tool.call.arguments").unwrap()).unwrap();
    assert_eq!(arguments, json!({"a": 40, "b": 2}));
    let result: Value =
        serde_json::from_str(request.field("gen_ai.tool.call.result").unwrap()).unwrap();
    assert_eq!(result["content"][0]["text"], "42");

    spans.clear();
    send(
        &server,
        body(json!(2), "tools/call", json!({"name": "nope"})),
    )
    .await;
    let failed = spans.events_saying("request failed");
    assert_eq!(failed[0].field("reason"), Some("Unknown tool: nope"));
}

#[tokio::test]
async fn other_methods_name_their_primitive() {
    let spans = Spans::default();
    let _guard = spans.install();
    let server = server()
        .prompt(mcp_runtime::Prompt::new("greet").handler(|_get| async { "Say hello.".to_owned() }))
        .resource(
            mcp_runtime::Resource::new("config://app", "app")
                .handler(|_read| async { "{}".to_owned() }),
        )
        .build()
        .unwrap();
    send(
        &server,
        body(json!(1), "prompts/get", json!({"name": "greet"})),
    )
    .await;
    send(
        &server,
        body(json!(2), "resources/read", json!({"uri": "config://app"})),
    )
    .await;
    send(&server, body(json!(3), "tools/list", json!({}))).await;
    let requests = spans.named("mcp.request");
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0].field("otel.name"), Some("prompts/get greet"));
    assert_eq!(requests[0].field("gen_ai.prompt.name"), Some("greet"));
    assert_eq!(requests[0].field("gen_ai.operation.name"), None);
    // A URI is recorded, but never in the span's name (too many distinct values).
    assert_eq!(requests[1].field("otel.name"), Some("resources/read"));
    assert_eq!(requests[1].field("mcp.resource.uri"), Some("config://app"));
    assert_eq!(requests[2].field("otel.name"), Some("tools/list"));
    let handlers = spans.named("mcp.handler");
    assert_eq!(handlers.len(), 2, "a list page has no handler");
    assert_eq!(handlers[0].parent, Some(requests[0].seq));
    assert_eq!(handlers[0].field("otel.name"), Some("prompts/get greet"));
    assert_eq!(handlers[1].parent, Some(requests[1].seq));
    assert_eq!(handlers[1].field("mcp.resource.uri"), Some("config://app"));
}

/// Serves `messages` over stdio, one a line, and returns the first `answers` lines the server
/// wrote, once it has ended at the end of input.
async fn over_stdio(messages: &[String], answers: usize) -> Vec<String> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let server = server().build().unwrap();
    let (client, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    let serving = tokio::spawn(server.serve_io(server_read, server_write));
    let (client_read, mut client_write) = tokio::io::split(client);
    for message in messages {
        client_write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }
    let mut lines = BufReader::new(client_read).lines();
    let mut written = Vec::new();
    for _ in 0..answers {
        let line = common::within("an answer", lines.next_line())
            .await
            .unwrap()
            .unwrap();
        written.push(line);
    }
    client_write.shutdown().await.unwrap();
    common::within("the end of the server", serving)
        .await
        .unwrap()
        .unwrap();
    written
}

#[tokio::test]
async fn stdio_records_its_transport() {
    let spans = Spans::default();
    let _guard = spans.install();
    let call = body(
        json!(1),
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
    );
    let answers = over_stdio(&[String::from_utf8(call).unwrap()], 1).await;
    assert!(answers[0].contains("\"2\""), "{}", answers[0]);
    let request = the_one(&spans, "mcp.request");
    assert_eq!(request.field("network.transport"), Some("pipe"));
}

#[tokio::test]
async fn a_cancelled_request_ends_its_span_as_cancelled() {
    let spans = Spans::default();
    let _guard = spans.install();
    let server = Server::builder()
        .tool(Tool::new("forever").raw_handler(|_call| async {
            std::future::pending::<()>().await;
            Ok(ToolOutcome::Complete(CallToolResult::new(vec![
                Content::text("never"),
            ])))
        }))
        .build()
        .unwrap();
    let mut call = server
        .handle_message(
            &body(json!(1), "tools/call", json!({"name": "forever"})),
            None,
        )
        .unwrap();
    assert!(call.is_running());
    let poll = futures_poll_once(&mut call).await;
    assert!(poll.is_none(), "the handler waits");
    drop(call);
    let request = the_one(&spans, "mcp.request");
    assert_eq!(request.field("error.type"), Some("cancelled"));
    assert!(request.closed);
}

/// Polls the call once; `None` when it has nothing yet.
async fn futures_poll_once(call: &mut mcp_runtime::dispatch::Call) -> Option<()> {
    std::future::poll_fn(|cx| {
        std::task::Poll::Ready(match call.poll_next_message(cx) {
            std::task::Poll::Ready(_) => Some(()),
            std::task::Poll::Pending => None,
        })
    })
    .await
}

#[tokio::test]
async fn http_records_its_transport() {
    let spans = Spans::default();
    let _guard = spans.install();
    let http = common::spawn_http(server().build().unwrap()).await;
    let request = common::request(
        1,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 2, "b": 2}}),
    );
    let response = common::call(&http.url(), &request).await;
    assert_eq!(response.status, 200);
    let request = the_one(&spans, "mcp.request");
    assert_eq!(request.field("network.transport"), Some("tcp"));
    assert_eq!(request.field("otel.name"), Some("tools/call add"));
}

/// A 2025-11-25 `initialize` and then a `tools/call` of `add`, as JSON-RPC messages.
fn legacy_messages() -> [Value; 2] {
    [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 3, "b": 4}}}),
    ]
}

#[tokio::test]
async fn a_legacy_request_over_http_records_tcp() {
    let spans = Spans::default();
    let _guard = spans.install();
    let http = common::spawn_http(server().build().unwrap()).await;
    let [initialize, call] = legacy_messages();
    let mut headers = vec![
        ("Content-Type".to_owned(), "application/json".to_owned()),
        ("Accept".to_owned(), "application/json".to_owned()),
    ];
    let opened = common::post(&http.url(), &headers, initialize.to_string()).await;
    assert_eq!(opened.status, 200);
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    headers.push(("Mcp-Session-Id".to_owned(), session));
    headers.push(("MCP-Protocol-Version".to_owned(), "2025-11-25".to_owned()));
    let answer = common::post(&http.url(), &headers, call.to_string()).await;
    assert_eq!(answer.status, 200);
    let answer: Value = serde_json::from_slice(&answer.body).unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "7", "{answer}");
    let request = the_one(&spans, "mcp.request");
    assert_eq!(request.field("network.transport"), Some("tcp"));
    assert_eq!(request.field("otel.name"), Some("tools/call add"));
}

#[tokio::test]
async fn a_legacy_request_over_stdio_records_pipe() {
    let spans = Spans::default();
    let _guard = spans.install();
    let messages: Vec<String> = legacy_messages().iter().map(|m| m.to_string()).collect();
    for (line, id) in over_stdio(&messages, 2).await.iter().zip([1, 2]) {
        let answer: Value = serde_json::from_str(line).unwrap();
        assert_eq!(answer["id"], id, "{answer}");
    }
    let request = the_one(&spans, "mcp.request");
    assert_eq!(request.field("network.transport"), Some("pipe"));
}
