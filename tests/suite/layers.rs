//! Layers around every call: their order, answering in place of the handler, seeing the answer,
//! what they see of a request, a panic in a layer (answered like a panic in a handler, never a
//! 5xx), and the built-in audit log, per-tool timeout and per-caller rate limit.

use crate::common;
use mcp_runtime::layers::{AuditLog, AuditOutcome, RateLimit, ToolTimeout};
use mcp_runtime::layers::{Layer, LayerResult, McpRequest, Next, layer_fn};
use mcp_runtime::protocol::{Method, ToolAnnotations};
use mcp_runtime::{Caller, McpError, NoArguments, Prompt, Server, Tool, handler::BoxFuture};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn body(id: i64, method: &str, mut params: Value) -> Vec<u8> {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .unwrap()
}

async fn send_as(server: &Server, body: Vec<u8>, caller: Option<Caller>) -> Value {
    let call = server.handle_message(&body, caller).expect("a request");
    let answer: Value = serde_json::from_slice(&call.response().await.body).unwrap();
    let sent: Value = serde_json::from_slice(&body).unwrap();
    common::assert_response_valid(sent["method"].as_str().unwrap(), &answer);
    answer
}

async fn send(server: &Server, body: Vec<u8>) -> Value {
    send_as(server, body, None).await
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

type Log = Arc<Mutex<Vec<String>>>;

/// A layer writing `name>` before and `<name` after the rest of the chain.
fn tracer(log: &Log, name: &'static str) -> impl Layer {
    let log = log.clone();
    layer_fn(move |request: McpRequest, next: Next| {
        let log = log.clone();
        async move {
            log.lock().unwrap().push(format!("{name}>"));
            let answer = next.run(request).await;
            log.lock().unwrap().push(format!("<{name}"));
            answer
        }
    })
}

fn counting_tool(runs: &Arc<AtomicUsize>, log: Option<&Log>) -> Tool {
    let runs = runs.clone();
    let log = log.cloned();
    Tool::new("add").handler(move |_: NoArguments, _| {
        runs.fetch_add(1, Ordering::SeqCst);
        if let Some(log) = &log {
            log.lock().unwrap().push("handler".into());
        }
        async { 42 }
    })
}

#[tokio::test]
async fn layers_run_in_the_order_they_were_added() {
    let log = Log::default();
    let runs = Arc::new(AtomicUsize::new(0));
    let server = Server::builder()
        .layer(tracer(&log, "a"))
        .layer(tracer(&log, "b"))
        .layer(tracer(&log, "c"))
        .tool(counting_tool(&runs, Some(&log)))
        .build()
        .unwrap();
    let answer = send(&server, body(1, "tools/call", json!({"name": "add"}))).await;
    assert_eq!(text(&answer), "42");
    assert_eq!(
        *log.lock().unwrap(),
        ["a>", "b>", "c>", "handler", "<c", "<b", "<a"]
    );
    // Every request that passed the checks goes through them, list pages too.
    log.lock().unwrap().clear();
    send(&server, body(2, "tools/list", json!({}))).await;
    assert_eq!(*log.lock().unwrap(), ["a>", "b>", "c>", "<c", "<b", "<a"]);
    // A rejected request does not.
    log.lock().unwrap().clear();
    let call = server.handle_message(b"{not json", None).unwrap();
    assert_eq!(call.response().await.error_code(), Some(-32700));
    assert!(log.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_layer_can_answer_in_place_of_the_handler() {
    let runs = Arc::new(AtomicUsize::new(0));
    let refuse = layer_fn(|request: McpRequest, next: Next| async move {
        match request
            .arguments()
            .and_then(|a| a.get("how"))
            .and_then(Value::as_str)
        {
            Some("tool_error") => Ok(request.tool_error("Refused by policy.")),
            Some("error") => Err(McpError::invalid_params(
                "Invalid params: refused by policy",
            )),
            Some("reply") => Ok(request.reply(&json!({
                "resultType": "complete",
                "content": [{"type": "text", "text": "from the layer"}],
            }))),
            _ => next.run(request).await,
        }
    });
    let runs_in_tool = runs.clone();
    let server = Server::builder()
        .layer(refuse)
        .tool(
            Tool::new("add")
                .input_schema(how_schema())
                .raw_handler(move |_call| {
                    runs_in_tool.fetch_add(1, Ordering::SeqCst);
                    async {
                        Ok(mcp_runtime::handler::ToolOutcome::Complete(
                            mcp_runtime::protocol::CallToolResult::new(vec![
                                mcp_runtime::protocol::Content::text("from the handler"),
                            ]),
                        ))
                    }
                }),
        )
        .build()
        .unwrap();
    let call = |how: &str| {
        body(
            1,
            "tools/call",
            json!({"name": "add", "arguments": {"how": how}}),
        )
    };

    let refused = send(&server, call("tool_error")).await;
    assert_eq!(refused["result"]["isError"], true);
    assert_eq!(text(&refused), "Refused by policy.");
    assert!(refused["result"]["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    let error = send(&server, call("error")).await;
    assert_eq!(error["error"]["code"], -32602);
    assert_eq!(
        error["error"]["message"],
        "Invalid params: refused by policy"
    );
    let replied = send(&server, call("reply")).await;
    assert_eq!(text(&replied), "from the layer");
    assert_eq!(runs.load(Ordering::SeqCst), 0, "the handler never ran");

    let passed = send(&server, call("pass")).await;
    assert_eq!(text(&passed), "from the handler");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

fn how_schema() -> serde_json::Map<String, Value> {
    let schema = json!({"type": "object", "properties": {"how": {"type": "string"}}});
    schema.as_object().cloned().unwrap()
}

#[tokio::test]
async fn a_layer_sees_the_answer() {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let watcher = {
        let seen = seen.clone();
        layer_fn(move |request: McpRequest, next: Next| {
            let seen = seen.clone();
            async move {
                let answer = next.run(request).await;
                let what = match &answer {
                    Err(e) => format!("error {}", e.code()),
                    Ok(r) if r.is_tool_error() => "tool error".to_owned(),
                    Ok(r) if r.is_error() => format!("error response {:?}", r.error_code()),
                    Ok(r) => {
                        let body: Value = serde_json::from_slice(&r.body).unwrap();
                        format!("result {}", body["result"]["content"][0]["text"])
                    }
                };
                seen.lock().unwrap().push(what);
                answer
            }
        })
    };
    let server = Server::builder()
        .layer(watcher)
        .tool(Tool::new("add").handler(|_: NoArguments, _| async { 42 }))
        .tool(Tool::new("fail").handler(|_: NoArguments, _| async {
            mcp_runtime::protocol::CallToolResult::error("no")
        }))
        .build()
        .unwrap();
    send(&server, body(1, "tools/call", json!({"name": "add"}))).await;
    send(&server, body(2, "tools/call", json!({"name": "fail"}))).await;
    send(&server, body(3, "tools/call", json!({"name": "nope"}))).await;
    assert_eq!(
        *seen.lock().unwrap(),
        ["result \"42\"", "tool error", "error -32602"]
    );
}

#[tokio::test]
async fn a_layer_sees_the_request() {
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let watcher = {
        let seen = seen.clone();
        layer_fn(move |request: McpRequest, next: Next| {
            let entry = json!({
                "method": request.method().name(),
                "id": request.id(),
                "name": request.name(),
                "caller": request.caller().map(|c| c.subject.clone()),
                "destructive": request.tool().and_then(|t| t.annotations.as_ref()).and_then(|a| a.destructive_hint),
                "arguments": request.arguments().map(|a| a.as_value().clone()),
                "has_handler": request.has_handler(),
                "version": request.context().protocol_version(),
            });
            seen.lock().unwrap().push(entry);
            next.run(request)
        })
    };
    let annotations = ToolAnnotations {
        destructive_hint: Some(true),
        ..Default::default()
    };
    let server = Server::builder()
        .layer(watcher)
        .tool(
            Tool::new("drop_table")
                .annotations(annotations)
                .handler(|_: NoArguments, _| async { "dropped" }),
        )
        .build()
        .unwrap();
    let caller = Caller::new("user-17");
    send_as(
        &server,
        body(
            1,
            "tools/call",
            json!({"name": "drop_table", "arguments": {}}),
        ),
        Some(caller),
    )
    .await;
    send(
        &server,
        body(
            2,
            "tools/call",
            json!({"name": "made_up", "arguments": {"x": 1}}),
        ),
    )
    .await;
    send(&server, body(3, "tools/list", json!({}))).await;
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen[0],
        json!({"method": "tools/call", "id": 1, "name": "drop_table", "caller": "user-17",
               "destructive": true, "arguments": {}, "has_handler": true, "version": "2026-07-28"})
    );
    assert_eq!(
        seen[1],
        json!({"method": "tools/call", "id": 2, "name": "made_up", "caller": null,
               "destructive": null, "arguments": null, "has_handler": false, "version": "2026-07-28"})
    );
    assert_eq!(seen[2]["method"], "tools/list");
    assert_eq!(seen[2]["has_handler"], false);
    assert_eq!(seen[2]["name"], Value::Null);
}

/// A layer that panics, before its future or while it is polled.
struct Panicking {
    in_future: bool,
}

impl Layer for Panicking {
    fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'_, LayerResult> {
        if !self.in_future {
            panic!("the layer broke before its future");
        }
        Box::pin(async move {
            tokio::task::yield_now().await;
            if request.method() != Method::ToolsList {
                panic!("the layer broke in its future");
            }
            next.run(request).await
        })
    }

    fn name(&self) -> &str {
        "Panicking"
    }
}

#[tokio::test]
async fn a_panic_in_a_layer_is_answered_like_a_panic_in_a_handler() {
    for in_future in [false, true] {
        let runs = Arc::new(AtomicUsize::new(0));
        let server = Server::builder()
            .layer(Panicking { in_future })
            .tool(counting_tool(&runs, None))
            .prompt(Prompt::new("greet").handler(|_| async { "Hello.".to_owned() }))
            .build()
            .unwrap();
        let tool = send(&server, body(1, "tools/call", json!({"name": "add"}))).await;
        assert_eq!(tool["result"]["isError"], true, "{tool}");
        assert_eq!(
            text(&tool),
            "Tool `add` failed unexpectedly (a layer panicked)."
        );
        let prompt = send(&server, body(2, "prompts/get", json!({"name": "greet"}))).await;
        assert_eq!(prompt["error"]["code"], -32603, "{prompt}");
        assert_eq!(
            prompt["error"]["message"],
            "prompts/get failed unexpectedly (a layer panicked)."
        );
        assert_eq!(runs.load(Ordering::SeqCst), 0);
        if in_future {
            // The server goes on serving.
            let list = send(&server, body(3, "tools/list", json!({}))).await;
            assert_eq!(list["result"]["tools"][0]["name"], "add");
        }
    }
}

#[tokio::test]
async fn a_panic_in_a_layer_is_never_a_5xx_over_http() {
    let server = Server::builder()
        .layer(Panicking { in_future: true })
        .tool(Tool::new("add").handler(|_: NoArguments, _| async { 42 }))
        .prompt(Prompt::new("greet").handler(|_| async { "Hello.".to_owned() }))
        .build()
        .unwrap();
    let http = common::spawn_http(server).await;
    for (method, params) in [
        ("tools/call", json!({"name": "add"})),
        ("prompts/get", json!({"name": "greet"})),
        ("tools/list", json!({})),
    ] {
        let response = common::call(&http.url(), &common::request(1, method, params)).await;
        assert_eq!(response.status, 200, "{method}: {:?}", response.body);
        let answer = common::response_of(&response);
        assert_eq!(answer["id"], 1, "{answer}");
    }
}

#[tokio::test]
async fn the_audit_log_records_every_call_of_a_primitive() {
    let records: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = records.clone();
    let audit = AuditLog::with_sink(move |r| {
        assert!(r.duration < Duration::from_secs(10));
        sink.lock().unwrap().push(format!(
            "{} {} by {} ({}): {}",
            r.method,
            r.name.unwrap_or("-"),
            r.caller.unwrap_or("anonymous"),
            r.request_id,
            r.outcome
        ));
        if r.outcome == AuditOutcome::ToolError {
            sink.lock().unwrap().push("(a tool error)".into());
        }
    });
    let server = Server::builder()
        .layer(audit)
        .layer(RateLimit::per_caller(1, Duration::from_secs(3600)))
        .tool(Tool::new("add").handler(|_: NoArguments, _| async { 42 }))
        .build()
        .unwrap();
    let alice = || Some(Caller::new("alice"));
    send_as(
        &server,
        body(1, "tools/call", json!({"name": "add"})),
        alice(),
    )
    .await;
    send_as(
        &server,
        body(2, "tools/call", json!({"name": "add"})),
        alice(),
    )
    .await;
    send(&server, body(3, "tools/call", json!({"name": "nope"}))).await;
    send(&server, body(4, "tools/list", json!({}))).await;
    assert_eq!(
        *records.lock().unwrap(),
        [
            "tools/call add by alice (1): complete",
            // The rate limit after it refused this one: the audit log sees what layers refuse.
            "tools/call add by alice (2): tool_error",
            "(a tool error)",
            "tools/call nope by anonymous (3): error -32602",
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn the_tool_timeout_limits_each_tool() {
    let server = Server::builder()
        .layer(
            ToolTimeout::new()
                .default_limit(Duration::from_secs(60))
                .tool("slow", Duration::from_millis(50)),
        )
        .tool(Tool::new("slow").handler(|_: NoArguments, _| async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            "finished"
        }))
        .tool(Tool::new("patient").handler(|_: NoArguments, _| async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            "finished"
        }))
        .build()
        .unwrap();
    let slow = send(&server, body(1, "tools/call", json!({"name": "slow"}))).await;
    assert_eq!(slow["result"]["isError"], true, "{slow}");
    assert_eq!(text(&slow), "Tool `slow` timed out after 50 ms.");
    let patient = send(&server, body(2, "tools/call", json!({"name": "patient"}))).await;
    assert_eq!(text(&patient), "finished");
}

#[tokio::test(start_paused = true)]
async fn the_rate_limit_is_per_caller() {
    let runs = Arc::new(AtomicUsize::new(0));
    let server = Server::builder()
        .layer(RateLimit::per_caller(2, Duration::from_secs(10)))
        .tool(counting_tool(&runs, None))
        .build()
        .unwrap();
    let call = |id| body(id, "tools/call", json!({"name": "add"}));
    let as_ = |who: &str| Some(Caller::new(who));
    assert_eq!(text(&send_as(&server, call(1), as_("a")).await), "42");
    assert_eq!(text(&send_as(&server, call(2), as_("a")).await), "42");
    let refused = send_as(&server, call(3), as_("a")).await;
    assert_eq!(refused["result"]["isError"], true);
    assert_eq!(
        text(&refused),
        "Rate limit exceeded: at most 2 tool calls per 10000 ms for each caller; retry in 5000 ms."
    );
    assert_eq!(text(&send_as(&server, call(4), as_("b")).await), "42");
    // Lists are not limited.
    let list = send_as(&server, body(5, "tools/list", json!({})), as_("a")).await;
    assert!(list["result"]["tools"].is_array());
    tokio::time::advance(Duration::from_secs(5)).await;
    assert_eq!(text(&send_as(&server, call(6), as_("a")).await), "42");
    assert_eq!(runs.load(Ordering::SeqCst), 4);
}

/// Runs around calls of one tool only.
struct Around(&'static str, Log);

impl Layer for Around {
    fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'_, LayerResult> {
        self.1.lock().unwrap().push(format!("around {}", self.0));
        next.run(request)
    }

    fn wants(&self, method: Method, name: Option<&str>) -> bool {
        method == Method::ToolsCall && name == Some(self.0)
    }
}

#[tokio::test]
async fn layers_run_only_around_the_requests_they_want() {
    let log = Log::default();
    let runs = Arc::new(AtomicUsize::new(0));
    let server = Server::builder()
        .layer(Around("add", log.clone()))
        .layer(Around("other", log.clone()))
        .layer(ToolTimeout::new().tool("other", Duration::from_secs(1)))
        .tool(counting_tool(&runs, None))
        .tool(Tool::new("other").handler(|_: NoArguments, _| async { "other" }))
        .build()
        .unwrap();
    let add = body(1, "tools/call", json!({"name": "add"}));
    assert_eq!(text(&send(&server, add.clone()).await), "42");
    assert_eq!(*log.lock().unwrap(), ["around add"]);
    // No layer wants a list page: it is served as if there were none, answered at dispatch.
    log.lock().unwrap().clear();
    let list = server
        .handle_message(&body(2, "tools/list", json!({})), None)
        .unwrap();
    assert!(!list.is_running(), "no chain was built");
    assert!(!list.response().await.is_error());
    assert!(log.lock().unwrap().is_empty());
    // With a layer that wants it, even a plain-function tool runs inside the chain.
    assert!(server.handle_message(&add, None).unwrap().is_running());
}
