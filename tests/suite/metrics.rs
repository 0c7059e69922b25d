//! The metrics of a server after a scripted sequence of calls, read from a recorder installed by
//! the test: request counts and durations by method and primitive, errors by code, MRTR rounds,
//! open listen streams; nothing at all when metrics are off.

use crate::common;
use crate::common::capture;

use capture::Metrics;
use mcp_runtime::dispatch::Outgoing;
use mcp_runtime::dispatch::metrics::{
    ERRORS, LISTEN_STREAMS, MRTR_OUTCOME, MRTR_ROUNDS, OPERATION_DURATION, REQUESTS,
};
use mcp_runtime::protocol::CallToolResult;
use mcp_runtime::{
    Ask, Elicitation, NoArguments, Prompt, RequestContext, Rounds, Server, Step, Tool,
};
use serde_json::{Value, json};

fn body(id: i64, method: &str, mut params: Value) -> Vec<u8> {
    if params.get("_meta").is_none() {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        });
    }
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .unwrap()
}

async fn send(server: &Server, body: Vec<u8>) -> Value {
    let call = server.handle_message(&body, None).expect("a request");
    serde_json::from_slice(&call.response().await.body).unwrap()
}

fn builder() -> mcp_runtime::ServerBuilder {
    Server::builder()
        .list_changed(true)
        .tool(Tool::new("add").handler(|_: NoArguments, _| async { 42 }))
        .tool(
            Tool::new("fail")
                .handler(|_: NoArguments, _| async { CallToolResult::error("it did not work") }),
        )
        .tool(
            Tool::new("ask").handler(|_: NoArguments, cx: RequestContext| async move {
                use mcp_runtime::FromContext;
                let rounds = Rounds::from_context(&cx)?;
                match rounds.answer::<Elicitation<String>>("name")? {
                    Some(_) => Ok(Step::Done("thanks".to_owned())),
                    None => rounds.ask(Ask::new().elicit::<String>("name", "Your name?"), &()),
                }
            }),
        )
        .prompt(Prompt::new("greet").handler(|_| async { "Hello.".to_owned() }))
}

const TOOLS_CALL: (&str, &str) = ("mcp.method.name", "tools/call");

// A current-thread runtime: the recorder installed for this thread sees every request.
#[tokio::test]
async fn a_scripted_sequence_of_calls() {
    let metrics = Metrics::default();
    let _recorder = metrics::set_default_local_recorder(&metrics);
    let server = builder().metrics(true).build().unwrap();

    for id in 1..=3 {
        send(&server, body(id, "tools/call", json!({"name": "add"}))).await;
    }
    send(&server, body(4, "tools/call", json!({"name": "fail"}))).await;
    send(&server, body(5, "tools/call", json!({"name": "made-up"}))).await;
    send(&server, body(6, "prompts/get", json!({"name": "greet"}))).await;
    send(&server, body(7, "tools/list", json!({}))).await;
    // Rejected: an unsupported version, an unknown method, a body that is not JSON.
    let old = json!({
        "io.modelcontextprotocol/protocolVersion": "2024-11-05",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    send(
        &server,
        body(8, "tools/call", json!({"name": "add", "_meta": old})),
    )
    .await;
    send(&server, body(9, "tools/destroy", json!({}))).await;
    send(&server, b"{oops".to_vec()).await;
    // One MRTR exchange: a round that asks, a round that completes.
    let first = send(&server, body(10, "tools/call", json!({"name": "ask"}))).await;
    let state = first["result"]["requestState"].clone();
    let retry = json!({
        "name": "ask",
        "inputResponses": {"name": {"action": "accept", "content": {"value": "Ada"}}},
        "requestState": state,
    });
    let second = send(&server, body(11, "tools/call", retry)).await;
    assert_eq!(second["result"]["content"][0]["text"], "thanks", "{second}");

    let add = [TOOLS_CALL, ("gen_ai.tool.name", "add")];
    assert_eq!(
        metrics.counter(REQUESTS, &add),
        3,
        "{:#?}",
        metrics.counters()
    );
    let durations = metrics.histogram(OPERATION_DURATION, &add);
    assert_eq!(durations.len(), 3);
    assert!(
        durations.iter().all(|s| *s > 0.0 && *s < 10.0),
        "{durations:?}"
    );
    assert_eq!(metrics.counter(ERRORS, &add), 0);

    let fail = [TOOLS_CALL, ("gen_ai.tool.name", "fail")];
    assert_eq!(metrics.counter(REQUESTS, &fail), 1);
    let tool_error = [fail[0], fail[1], ("error.type", "tool_error")];
    assert_eq!(metrics.counter(ERRORS, &tool_error), 1);
    assert_eq!(metrics.histogram(OPERATION_DURATION, &tool_error).len(), 1);

    // A tool name the client made up is never a label.
    let invalid = [
        TOOLS_CALL,
        ("error.type", "-32602"),
        ("rpc.response.status_code", "-32602"),
    ];
    assert_eq!(metrics.counter(ERRORS, &invalid), 1);
    assert!(
        metrics
            .counters()
            .iter()
            .all(|((_, labels), _)| labels.iter().all(|(_, v)| v != "made-up")),
        "{:#?}",
        metrics.counters()
    );

    let prompt = [
        ("mcp.method.name", "prompts/get"),
        ("gen_ai.prompt.name", "greet"),
    ];
    assert_eq!(metrics.counter(REQUESTS, &prompt), 1);
    assert_eq!(
        metrics.counter(REQUESTS, &[("mcp.method.name", "tools/list")]),
        1
    );

    // Rejections count under the method when it is one of this revision, else `_OTHER`.
    let version = [
        TOOLS_CALL,
        ("error.type", "-32022"),
        ("rpc.response.status_code", "-32022"),
    ];
    assert_eq!(metrics.counter(ERRORS, &version), 1);
    let unknown = [
        ("mcp.method.name", "_OTHER"),
        ("error.type", "-32601"),
        ("rpc.response.status_code", "-32601"),
    ];
    assert_eq!(metrics.counter(ERRORS, &unknown), 1);
    let parse = [
        ("mcp.method.name", "_OTHER"),
        ("error.type", "-32700"),
        ("rpc.response.status_code", "-32700"),
    ];
    assert_eq!(metrics.counter(ERRORS, &parse), 1);
    assert_eq!(
        metrics.counter(REQUESTS, &[("mcp.method.name", "_OTHER")]),
        2
    );
    // In process there is no transport label.
    assert!(
        metrics
            .counters()
            .iter()
            .all(|((_, labels), _)| labels.iter().all(|(k, _)| k != "network.transport"))
    );

    let ask = [TOOLS_CALL, ("gen_ai.tool.name", "ask")];
    assert_eq!(metrics.counter(REQUESTS, &ask), 2);
    let asked = [ask[0], ask[1], (MRTR_OUTCOME, "input_required")];
    assert_eq!(metrics.counter(MRTR_ROUNDS, &asked), 1);
    let completed = [ask[0], ask[1], (MRTR_OUTCOME, "complete")];
    assert_eq!(metrics.counter(MRTR_ROUNDS, &completed), 1);
    // A plain call is no round.
    assert_eq!(
        metrics.counter(MRTR_ROUNDS, &[add[0], add[1], (MRTR_OUTCOME, "complete")]),
        0
    );

    assert_eq!(
        metrics.unit(OPERATION_DURATION),
        Some(metrics::Unit::Seconds)
    );
}

#[tokio::test]
async fn open_listen_streams_are_a_gauge() {
    let metrics = Metrics::default();
    let _recorder = metrics::set_default_local_recorder(&metrics);
    let server = builder().metrics(true).build().unwrap();
    let listen = body(
        1,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let mut first = server.handle_message(&listen, None).unwrap();
    let mut second = server.handle_message(&listen, None).unwrap();
    for call in [&mut first, &mut second] {
        match common::within("the acknowledgement", call.next_message()).await {
            Some(Outgoing::Notification(_)) => {}
            other => panic!("expected the acknowledgement, got {other:?}"),
        }
    }
    assert_eq!(metrics.gauge(LISTEN_STREAMS, &[]), Some(2.0));
    drop(second);
    assert_eq!(metrics.gauge(LISTEN_STREAMS, &[]), Some(1.0));
    server.shutdown();
    let end = common::within("the final result", first.response()).await;
    assert!(!end.is_error());
    assert_eq!(metrics.gauge(LISTEN_STREAMS, &[]), Some(0.0));
    let ended = [("mcp.method.name", "subscriptions/listen")];
    assert_eq!(
        metrics.counter(REQUESTS, &ended),
        2,
        "one ended, one given up"
    );
    let cancelled = [ended[0], ("error.type", "cancelled")];
    assert_eq!(
        metrics.counter(ERRORS, &cancelled),
        1,
        "{:#?}",
        metrics.counters()
    );
}

#[tokio::test]
async fn nothing_is_recorded_when_metrics_are_off() {
    let metrics = Metrics::default();
    let _recorder = metrics::set_default_local_recorder(&metrics);
    let server = builder().build().unwrap();
    send(&server, body(1, "tools/call", json!({"name": "add"}))).await;
    send(&server, b"{oops".to_vec()).await;
    assert!(metrics.is_empty(), "{:#?}", metrics.counters());
}
